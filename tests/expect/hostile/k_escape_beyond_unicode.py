# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: escape '\U00110000' is beyond the last Unicode character U+10FFFF
# a \U escape past U+10FFFF
x = "\U00110000"
