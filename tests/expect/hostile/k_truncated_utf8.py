# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :5:3: error: unexpected byte 0xE2 (the file is not valid UTF-8)
# a UTF-8 sequence cut short by the end of the file
x = 1
# â‚