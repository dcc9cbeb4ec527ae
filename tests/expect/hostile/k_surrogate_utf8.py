# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:3: error: unexpected byte 0xED (the file is not valid UTF-8)
# an encoded UTF-16 surrogate (ED A0 80) is not UTF-8
# í €
