// schedule.h - written by loomc: the values of the schedule this program runs, each with
// the kernel symbol it sets and why it was chosen. The kernels carry them as the numbers
// of their loops and block shapes; these names are for the reader.
// Job: flash_attention.py on wormhole_n150, shape B=1,H=1,S=64,D=32; schedule: loom. Every launch runs in order on device 0.
#pragma once

#include <cstdint>

namespace loomc::schedule {
// B
[[maybe_unused]] constexpr int64_t B = 1;
// H
[[maybe_unused]] constexpr int64_t H = 1;
// S
[[maybe_unused]] constexpr int64_t S = 64;
// D
[[maybe_unused]] constexpr int64_t D = 32;
// BLOCK_M
[[maybe_unused]] constexpr int64_t BLOCK_M = 32;
// BLOCK_N
[[maybe_unused]] constexpr int64_t BLOCK_N = 64;
// grid.x
[[maybe_unused]] constexpr int64_t grid_x = 2;
// grid.y
[[maybe_unused]] constexpr int64_t grid_y = 1;
// depth.q
[[maybe_unused]] constexpr int64_t depth_q = 2;
// depth.k
[[maybe_unused]] constexpr int64_t depth_k = 2;
// depth.v
[[maybe_unused]] constexpr int64_t depth_v = 2;
// depth.o
[[maybe_unused]] constexpr int64_t depth_o = 2;
// sub.h
[[maybe_unused]] constexpr int64_t sub_h = 1;
// sub.w
[[maybe_unused]] constexpr int64_t sub_w = 1;
}  // namespace loomc::schedule

// Why these values (what loomc's explanation says of the schedule):
// kernel attention_fwd: HiFi2 math, Dst 16-bit accumulation (8 tiles per half)
//   L1: 77824 of 1466080 usable bytes in 16 CBs (values never live at once share one)
//     bf16  q (load) 4096 B
//     bf16  k (load) 8192 B
//     bf16  v (load) 8192 B
//     bf16  o (store) 4096 B
//     fp32  l_i (carried) 8192 B
//     fp32  acc (carried) 8192 B
//     fp32  m_i (carried) 4096 B
//     fp32  m_i (carried), next 4096 B
//     bf16  the value of line 51 4096 B, p 4096 B
//     bf16  s 4096 B, the value of line 61 2048 B
//     bf16  alpha 2048 B
//     bf16  the value of line 61 2048 B
//     fp32  a temporary of line 61 4096 B
//     bf16  a temporary of line 65 2048 B
//     bf16  the unit tile of row reductions (card) 2048 B
//     fp32  the index tiles of masks (card) 8192 B
// values (and what one step either way in the domain would do):
//   BLOCK_M                = 32      (64 breaks 'grid.x <= programs along x')
//   BLOCK_N                = 64      (32: +1622 cycles)
//   grid.x                 = 2       (1: +2815 cycles; 3 breaks 'grid.x <= programs along x')
//   grid.y                 = 1       (2 breaks 'grid.y <= programs along y')
//   depth.q                = 2       (1: +0 cycles; 3: +0 cycles)
//   depth.k                = 2       (1: +0 cycles; 3: +0 cycles)
//   depth.v                = 2       (1: +0 cycles; 3: +0 cycles)
//   depth.o                = 2       (1: +0 cycles)
//   sub.h                  = 1       (2 breaks 'sub.h divides the tile rows of the dot at line 51')
//   sub.w                  = 1       (2 breaks 'sub.w divides the tile columns of acc')
// constraints (slack at these values; 0 = binding):
//   grid.x <= programs along x                                 slack 0  (binding)
//   grid.y <= programs along y                                 slack 0  (binding)
//   sub.h divides the tile rows of the dot at line 51          slack 0  (binding)
//   sub.w divides the tile columns of the dot at line 51       slack 0  (binding)
//   sub.h divides the tile rows of acc                         slack 0  (binding)
//   sub.w divides the tile columns of acc                      slack 0  (binding)
//   sub.h*sub.w <= 8 Dst tiles (16-bit accumulation)           slack 7
//   L1 capacity (1466080 usable bytes)                         slack 1388256
// latency of attention_fwd (cycles at these values; per execution of each level):
//   loop start_n (line 48):
//     read k                                   351
//     DRAM banks' worth of bandwidth the readers of k get (of 12) 2
//     read v                                   351
//     DRAM banks' worth of bandwidth the readers of v get (of 12) 2
//       unpack                                   1882
//       math                                     1334
//       pack                                     1482
//     compute                                  2102
//       the first iteration                      2774
//       each later iteration                     2102
//       all iterations, the loads run ahead      2102
//     iterations                               1
//     all iterations                           2774
//     stages: reader 702, compute 2102, writer 0: compute-bound
//   program:
//     read q                                   580
//     DRAM banks' worth of bandwidth the readers of q get (of 12) 2
//     write o                                  564
//       unpack                                   298
//       math                                     660
//       pack                                     234
//     compute                                  3544
//     programs per core                        1
//     all programs of the busiest core         4688
//     stages: reader 580, compute 3544, writer 564: compute-bound
//   launch: kernel launch 1000 + busiest core 4688 = 5688; DRAM bandwidth bound 1000 + 94
//   total 5688: the per-core path dominates
// runner-up:
//   attention_fwd: start_m->x bh->y; q: dram; k: mcast along x (edge sender); v: mcast along x (edge sender)
//     BLOCK_M=32 BLOCK_N=64 grid.x=2 grid.y=1 depth.q=2 depth.k=2 depth.v=2 depth.o=2 sub.h=1 sub.w=1
//   predicted 5945 cycles: 257 more (+4.5%)
//   a close choice: the runner-up is within the model's error (8%) of the chosen schedule, so the model cannot be trusted to order the two (docs/scheduler.md, "Model quality"); 6 mappings other than the chosen one are that close (--top K lists the K best schedules)
//   where it is slower (chosen -> runner-up, cycles):
//     loop start_n (line 48), read v (writer, NoC 1)       0 -> 801
//     loop start_n (line 48), read k                       351 -> 673
//     loop start_n (line 48), the first iteration          2774 -> 3031
//     loop start_n (line 48), all iterations               2774 -> 3031
