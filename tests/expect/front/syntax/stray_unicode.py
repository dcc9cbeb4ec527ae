# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/stray_unicode.py:6:5: error: unexpected character 'α' (U+03B1)
# a non-ASCII character outside a string (identifiers are ASCII here)
@triton.jit
def k(x_ptr):
    α = 0.5
