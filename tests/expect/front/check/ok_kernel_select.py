# RUN: loomc ir kernels/flash_decode.py --shape B=4,H=32,HKV=8,S=4096,D=128 --kernel decode_combine --const NUM_SPLITS=8
# EXIT: 0
# STDOUT: launch 1 of flash_decode: decode_combine
# STDOUT: free constexprs: NUM_SPLITS = 8 (pinned)
# STDOUT: NUM_SPLITS (constexpr) = free, pinned to 8
# --kernel naming a kernel compiles only its launches; a pinned free constexpr stays a symbol
