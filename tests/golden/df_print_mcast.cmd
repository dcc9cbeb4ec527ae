sim tests/sim/mcast_gemm.df --arch wormhole_n150 --print
