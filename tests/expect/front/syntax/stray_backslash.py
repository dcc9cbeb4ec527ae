# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/stray_backslash.py:4:9: error: unexpected character after line continuation character
# a backslash that is not at the end of its line
x = 1 + \ 2
