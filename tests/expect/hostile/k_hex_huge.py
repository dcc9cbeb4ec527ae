# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: is too large; the limit is 9223372036854775807
# a hexadecimal literal of 100 digits
x = 0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
