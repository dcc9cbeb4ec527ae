// schedule.h - written by loomc: the values of the schedule this program runs, each with
// the kernel symbol it sets and why it was chosen. The kernels carry them as the numbers
// of their loops and block shapes; these names are for the reader.
// Job: matmul.py on wormhole_n150, shape M=64,N=64,K=64; schedule: loom. Every launch runs in order on device 0.
#pragma once

#include <cstdint>

namespace loomc::schedule {
// M
[[maybe_unused]] constexpr int64_t M = 64;
// N
[[maybe_unused]] constexpr int64_t N = 64;
// K
[[maybe_unused]] constexpr int64_t K = 64;
// BLOCK_M
[[maybe_unused]] constexpr int64_t BLOCK_M = 32;
// BLOCK_N
[[maybe_unused]] constexpr int64_t BLOCK_N = 32;
// BLOCK_K
[[maybe_unused]] constexpr int64_t BLOCK_K = 64;
// grid.x
[[maybe_unused]] constexpr int64_t grid_x = 2;
// grid.y
[[maybe_unused]] constexpr int64_t grid_y = 2;
// depth.a
[[maybe_unused]] constexpr int64_t depth_a = 1;
// depth.b
[[maybe_unused]] constexpr int64_t depth_b = 1;
// depth.c
[[maybe_unused]] constexpr int64_t depth_c = 1;
// sub.h
[[maybe_unused]] constexpr int64_t sub_h = 1;
// sub.w
[[maybe_unused]] constexpr int64_t sub_w = 1;
}  // namespace loomc::schedule

// Why these values (what loomc's explanation says of the schedule):
// kernel matmul_kernel: HiFi2 math, Dst fp32 accumulation (4 tiles per half)
//   L1: 12288 of 1466080 usable bytes in 3 CBs (values never live at once share one)
//     bf16  a (load) 4096 B
//     bf16  b (load) 4096 B
//     fp32  acc (carried) 4096 B
// values (and what one step either way in the domain would do):
//   BLOCK_M                = 32      (64 breaks 'grid.x <= programs along x')
//   BLOCK_N                = 32      (64 breaks 'grid.y <= programs along y')
//   BLOCK_K                = 64      (32: +438 cycles)
//   grid.x                 = 2       (1: +1640 cycles; 3 breaks 'grid.x <= programs along x')
//   grid.y                 = 2       (1: +1640 cycles; 3 breaks 'grid.y <= programs along y')
//   depth.a                = 1       (2: +0 cycles)
//   depth.b                = 1       (2: +0 cycles)
//   depth.c                = 1       (2: +0 cycles)
//   sub.h                  = 1       (2 breaks 'sub.h divides the tile rows of acc')
//   sub.w                  = 1       (2 breaks 'sub.w divides the tile columns of acc')
// constraints (slack at these values; 0 = binding):
//   grid.x <= programs along x                                 slack 0  (binding)
//   grid.y <= programs along y                                 slack 0  (binding)
//   sub.h divides the tile rows of acc                         slack 0  (binding)
//   sub.w divides the tile columns of acc                      slack 0  (binding)
//   sub.h*sub.w <= 4 Dst tiles (fp32 accumulation)             slack 3
//   L1 capacity (1466080 usable bytes)                         slack 1453792
// latency of matmul_kernel (cycles at these values; per execution of each level):
//   loop at line 28:
//     read a                                   786
//     read b (writer, NoC 1)                   786
//       unpack                                   128
//       math                                     69
//       pack                                     64
//     compute                                  204
//       all iterations, the loads run ahead      914
//     iterations                               1
//     all iterations                           1123
//     stages: reader 786, compute 204, writer 786: reader-bound
//   program:
//     write c                                  487
//     compute                                  1153
//     programs per core                        1
//     all programs of the busiest core         1640
//     stages: reader 0, compute 1153, writer 487: compute-bound
//   launch: kernel launch 1000 + busiest core 1640 = 2640; DRAM bandwidth bound 1000 + 127
//   total 2640: the per-core path dominates
// runner-up:
//   matmul_kernel: pid_m->x pid_n->y; a: mcast along y (edge sender); b: mcast along x (interior sender)
//     BLOCK_M=32 BLOCK_N=32 BLOCK_K=64 grid.x=2 grid.y=2 depth.a=1 depth.b=1 depth.c=1 sub.h=1 sub.w=1
//   predicted 2877 cycles: 237 more (+9.0%)
//   where it is slower (chosen -> runner-up, cycles):
//     loop at line 28, read b (writer, NoC 1)              786 -> 1023
//     loop at line 28, all iterations, the loads run ahead 914 -> 1151
//     loop at line 28, all iterations                      1123 -> 1360
//     program, compute                                     1153 -> 1390
