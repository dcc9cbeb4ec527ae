# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/huge_int.py:6:26: error: integer literal '18446744073709551616' is too large; the limit is 9223372036854775807
# an integer literal beyond int64
@loomc.launch
def big(M):
    a = loomc.tensor((M, 18446744073709551616), tl.float32)
