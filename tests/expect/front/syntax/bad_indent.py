# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/bad_indent.py:7:3: error: unindent does not match any outer indentation level
# a dedent that lands between two indentation levels
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
  x = tl.load(x_ptr + offs)
