# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:16: error: '{' was never closed
# an opening bracket never closed before the end of the file
x = foo(1, [2, {3