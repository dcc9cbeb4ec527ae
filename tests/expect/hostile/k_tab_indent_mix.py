# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: inconsistent use of tabs and spaces in indentation
# a block indented by a tab, then by eight spaces
if x:
	y = 1
        z = 2
