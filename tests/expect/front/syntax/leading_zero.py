# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/leading_zero.py:4:9: error: leading zeros in decimal integer literals are not permitted
# a decimal literal with a leading zero
BLOCK = 064
