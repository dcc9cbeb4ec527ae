# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: unexpected end of file after line continuation character
# a line continuation at the very end of the file
x = 1 + \