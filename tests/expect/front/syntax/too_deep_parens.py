# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/too_deep_parens.py:4:69: error: expression is nested too deeply: the limit is 64 levels
# brackets nested past the limit of 64 levels
x = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
