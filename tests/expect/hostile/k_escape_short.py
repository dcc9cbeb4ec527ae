# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: invalid '\x' escape: expected 2 hexadecimal digits
# a \x escape with one hex digit
x = "\x4"
