# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: a NUL character in a string literal is not supported
# a NUL character written as an escape
x = "a\x00b"
