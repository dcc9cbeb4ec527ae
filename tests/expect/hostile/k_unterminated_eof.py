# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: unterminated string literal (detected at line 4)
# a string left open at the end of the file
x = "abc