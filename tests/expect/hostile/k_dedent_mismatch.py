# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: unindent does not match any outer indentation level
# a dedent to a column no block started at
if x:
        y = 1
    z = 2
