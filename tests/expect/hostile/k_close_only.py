# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:1: error: unmatched ')'
# a closing bracket with nothing open
)
