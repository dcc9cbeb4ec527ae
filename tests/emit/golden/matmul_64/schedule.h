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
[[maybe_unused]] constexpr int64_t grid_x = 4;
// grid.y
[[maybe_unused]] constexpr int64_t grid_y = 1;
// depth.a
[[maybe_unused]] constexpr int64_t depth_a = 2;
// depth.b
[[maybe_unused]] constexpr int64_t depth_b = 2;
// depth.c
[[maybe_unused]] constexpr int64_t depth_c = 2;
// sub.h
[[maybe_unused]] constexpr int64_t sub_h = 1;
// sub.w
[[maybe_unused]] constexpr int64_t sub_w = 1;
}  // namespace loomc::schedule

// Why these values (what loomc's explanation says of the schedule):
// kernel matmul_kernel: HiFi2 math, Dst fp32 accumulation (4 tiles per half)
//   L1: 24576 of 1466080 usable bytes in 3 CBs (values never live at once share one)
//     bf16  a (load) 8192 B
//     bf16  b (load) 8192 B
//     fp32  acc (carried) 8192 B
// values (and what one step either way in the domain would do):
//   BLOCK_M                = 32      (64 breaks 'grid.x*grid.y <= programs flattened over the grid')
//   BLOCK_N                = 32      (64 breaks 'grid.x*grid.y <= programs flattened over the grid')
//   BLOCK_K                = 64      (32: +452 cycles)
//   grid.x                 = 4       (3: +640 cycles; 5 breaks 'grid.x*grid.y <= programs flattened over the grid')
//   grid.y                 = 1       (2 breaks 'grid.x*grid.y <= programs flattened over the grid')
//   depth.a                = 2       (1: +514 cycles; 3: +0 cycles)
//   depth.b                = 2       (1: +514 cycles; 3: +0 cycles)
//   depth.c                = 2       (1: +0 cycles)
//   sub.h                  = 1       (2 breaks 'sub.h divides the tile rows of acc')
//   sub.w                  = 1       (2 breaks 'sub.w divides the tile columns of acc')
// constraints (slack at these values; 0 = binding):
//   grid.x*grid.y <= programs flattened over the grid          slack 0  (binding)
//   sub.h divides the tile rows of acc                         slack 0  (binding)
//   sub.w divides the tile columns of acc                      slack 0  (binding)
//   sub.h*sub.w <= 4 Dst tiles (fp32 accumulation)             slack 3
//   L1 capacity (1466080 usable bytes)                         slack 1441504
// latency of matmul_kernel (cycles at these values; per execution of each level):
//   loop at line 28:
//     read a                                   351
//     DRAM banks' worth of bandwidth the readers of a get (of 12) 4
//     read b                                   351
//     DRAM banks' worth of bandwidth the readers of b get (of 12) 4
//       unpack                                   128
//       math                                     69
//       pack                                     64
//     compute                                  204
//       the first iteration                      1133
//       each later iteration                     702
//       all iterations, the loads run ahead      702
//     iterations                               1
//     all iterations                           1133
//     stages: reader 702, compute 204, writer 0: reader-bound
//   program:
//     write c                                  630
//     compute                                  1163
//     programs per core                        1
//     all programs of the busiest core         1793
//     stages: reader 0, compute 1163, writer 630: compute-bound
//   launch: kernel launch 1000 + busiest core 1793 = 2793; DRAM bandwidth bound 1000 + 188
//   total 2793: the per-core path dominates
// runner-up:
//   matmul_kernel: pid_m->x pid_n->y; a: mcast along y (edge sender); b: mcast along x (edge sender)
//     BLOCK_M=32 BLOCK_N=32 BLOCK_K=64 grid.x=2 grid.y=2 depth.a=2 depth.b=2 depth.c=2 sub.h=1 sub.w=1
//   predicted 2903 cycles: 110 more (+3.9%)
//   a close choice: the runner-up is within the model's error (8%) of the chosen schedule, so the model cannot be trusted to order the two (docs/scheduler.md, "Model quality"); 1 mapping other than the chosen one is that close (--top K lists the K best schedules)
//   where it is slower (chosen -> runner-up, cycles):
//     loop at line 28, read b (writer, NoC 1)              0 -> 812
//     loop at line 28, read a                              351 -> 780
//     loop at line 28, the first iteration                 1133 -> 1243
//     loop at line 28, each later iteration                702 -> 812
