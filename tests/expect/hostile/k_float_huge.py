# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: float literal '1e400' is too large for a 64-bit float
# a float literal beyond the range of doubles
x = 1e400
