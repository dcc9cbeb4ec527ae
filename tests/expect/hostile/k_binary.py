# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:1: error: unexpected byte 0x89 (the file is not valid UTF-8)
# binary garbage (no NUL byte) after the header
‰PNG

Þ­¾ï