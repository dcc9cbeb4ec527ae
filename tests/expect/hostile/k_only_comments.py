# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: error: no @loomc.launch function
# a file of comments only has no launch spec
# nothing here
