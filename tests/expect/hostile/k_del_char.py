# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:6: error: unexpected character U+007F
# the DEL character in code
x = 1
