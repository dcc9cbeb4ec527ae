# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:8: error: unexpected byte 0xC3 (the file is not valid UTF-8)
# invalid UTF-8 inside a string literal
x = "ab√("
