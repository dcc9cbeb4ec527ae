# RUN: loomc ir tests/expect/front/check/no_such_kernel.py --shape M=1
# EXPECT: loomc: error: cannot open 'tests/expect/front/check/no_such_kernel.py'
# a kernel file that does not exist
