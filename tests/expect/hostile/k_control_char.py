# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:5: error: unexpected character U+001B
# a control character (ESC) in code
x = 1
