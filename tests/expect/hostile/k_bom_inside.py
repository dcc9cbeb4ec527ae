# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :6:1: error: unexpected character
# EXPECT: (U+FEFF)
# a byte order mark anywhere but the start is a stray character
x = 1
﻿y = 2
