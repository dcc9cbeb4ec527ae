# RUN: loomc ir %s
# EXPECT: k_cr_error.py:11:11: error: unexpected character '$'
# EXPECT:   y = 1 $ 2
# Old Mac line ends (a lone CR) below these five header lines: the '$' is on
# line 11 (the sixth body line), column 11, and that line is quoted.
import tritonimport triton.language as tl@triton.jitdef k(x_ptr):    y = 1 $ 2