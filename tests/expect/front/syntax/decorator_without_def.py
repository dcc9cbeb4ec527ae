# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/decorator_without_def.py:5:1: error: expected 'def' or 'class' after the decorator, found name 'BLOCK'
# a decorator followed by something other than a function
@triton.jit
BLOCK = 64
