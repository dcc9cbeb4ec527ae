# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: integer literal '9223372036854775808' is too large; the limit is 9223372036854775807
# the integer literal 2**63 does not fit in 64 bits
x = 9223372036854775808
