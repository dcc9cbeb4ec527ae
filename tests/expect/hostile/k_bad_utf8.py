# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :5:5: error: unexpected byte 0xFF (the file is not valid UTF-8)
# a byte that cannot start a UTF-8 character, in code
x = 1
y = ÿ
