# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:13: error: unexpected byte 0xE9 (the file is not valid UTF-8)
# invalid UTF-8 inside a comment: Python refuses the file, so does loomc
x = 1  # café
