# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:6: error: unexpected byte 0xC0 (the file is not valid UTF-8)
# an overlong encoding of "/" (C0 AF) is not UTF-8
x = "À¯"
