// schedule.h - written by loomc: the values of the schedule this program runs, each with
// the kernel symbol it sets and why it was chosen. The kernels carry them as the numbers
// of their loops and block shapes; these names are for the reader.
// Job: flash_decode.py on wormhole_n150, shape B=1,H=8,HKV=1,S=64,D=32; schedule: loom. Every launch runs in order on device 0.
#pragma once

#include <cstdint>

namespace loomc::schedule {
// B
[[maybe_unused]] constexpr int64_t B = 1;
// H
[[maybe_unused]] constexpr int64_t H = 8;
// HKV
[[maybe_unused]] constexpr int64_t HKV = 1;
// S
[[maybe_unused]] constexpr int64_t S = 64;
// D
[[maybe_unused]] constexpr int64_t D = 32;
// BLOCK_N
[[maybe_unused]] constexpr int64_t BLOCK_N = 64;
// NUM_SPLITS
[[maybe_unused]] constexpr int64_t NUM_SPLITS = 1;
// grid.x
[[maybe_unused]] constexpr int64_t grid_x = 1;
// grid.y
[[maybe_unused]] constexpr int64_t grid_y = 1;
// depth.q
[[maybe_unused]] constexpr int64_t depth_q = 2;
// depth.k
[[maybe_unused]] constexpr int64_t depth_k = 2;
// depth.v
[[maybe_unused]] constexpr int64_t depth_v = 2;
// depth.part
[[maybe_unused]] constexpr int64_t depth_part = 2;
// depth.lse
[[maybe_unused]] constexpr int64_t depth_lse = 2;
// sub.h
[[maybe_unused]] constexpr int64_t sub_h = 1;
// sub.w
[[maybe_unused]] constexpr int64_t sub_w = 1;
// depth.o
[[maybe_unused]] constexpr int64_t depth_o = 2;
}  // namespace loomc::schedule

// Why these values (what loomc's explanation says of the schedule):
// kernel decode_split: HiFi2 math, Dst fp32 accumulation (4 tiles per half)
//   L1: 114688 of 1466080 usable bytes in 20 CBs (values never live at once share one)
//     bf16  q (load) 4096 B
//     bf16  k (load) 8192 B
//     bf16  v (load) 8192 B
//     fp32  part (store) 8192 B
//     fp32  lse (store) 8192 B
//     fp32  l_i (carried) 8192 B
//     fp32  acc (carried) 8192 B
//     fp32  m_i (carried) 4096 B
//     fp32  m_i (carried), next 4096 B
//     bf16  q (masked copy) 2048 B
//     fp32  the value of line 54 8192 B, rescale 4096 B, the value of line 61 4096 B, l_safe 4096 B
//     fp32  scores 8192 B, the value of line 60 4096 B, the value of line 61 4096 B
//     bf16  p 4096 B
//     fp32  the value of line 60 4096 B, the value of line 67 4096 B, lse 4096 B
//     fp32  a temporary of line 60 4096 B, a temporary of line 67 4096 B, a temporary of line 68 4096 B, a temporary of line 69 4096 B
//     fp32  a temporary of line 67 4096 B
//     fp32  a temporary of line 67 4096 B
//     fp32  a temporary of line 67 4096 B
//     bf16  the unit tile of row reductions (card) 2048 B
//     fp32  the index tiles of masks (card) 8192 B
// kernel decode_combine: HiFi2 math, Dst 16-bit accumulation (8 tiles per half)
//   L1: 12288 of 1466080 usable bytes in 2 CBs (values never live at once share one)
//     fp32  part (load) 8192 B
//     bf16  o (store) 4096 B
// values (and what one step either way in the domain would do):
//   BLOCK_N                = 64      (32: +1991 cycles)
//   NUM_SPLITS             = 1       (2: +7514 cycles)
//   decode_split.grid.x    = 1       (2 breaks 'decode_split: grid.x <= programs along x')
//   decode_split.grid.y    = 1       (2 breaks 'decode_split: grid.y <= programs along y')
//   decode_split.depth.q   = 2       (1: +0 cycles; 3: +0 cycles)
//   decode_split.depth.k   = 2       (1: +0 cycles; 3: +0 cycles)
//   decode_split.depth.v   = 2       (1: +0 cycles; 3: +0 cycles)
//   decode_split.depth.part = 2       (1: +0 cycles)
//   decode_split.depth.lse = 2       (1: +0 cycles)
//   decode_split.sub.h     = 1       (2 breaks 'decode_split: sub.h divides the tile rows of the dot at line 54')
//   decode_split.sub.w     = 1       (2 breaks 'decode_split: sub.w divides the tile columns of the dot at line 61')
//   decode_combine.grid.x  = 8       (7: +557 cycles)
//   decode_combine.grid.y  = 1       (2 breaks 'decode_combine: grid.y <= programs along y')
//   decode_combine.depth.lse = 1       (2 breaks 'decode_combine: depth.lse is 1 where nothing reads lse (not loaded)')
//   decode_combine.depth.part = 2       (1: +0 cycles; 3: +0 cycles)
//   decode_combine.depth.o = 2       (1: +0 cycles)
// constraints (slack at these values; 0 = binding):
//   decode_split: grid.y <= programs along y                   slack 0  (binding)
//   decode_split: grid.x <= programs along x                   slack 0  (binding)
//   decode_split: sub.h divides the tile rows of the dot at line 54 slack 0  (binding)
//   decode_split: sub.w divides the tile columns of the dot at line 54 slack 0  (binding)
//   decode_split: sub.h divides the tile rows of the dot at line 61 slack 0  (binding)
//   decode_split: sub.w divides the tile columns of the dot at line 61 slack 0  (binding)
//   decode_combine: grid.y <= programs along y                 slack 0  (binding)
//   decode_combine: grid.x <= programs along x                 slack 0  (binding)
//   decode_combine: depth.lse is 1 where nothing reads lse (not loaded) slack 0  (binding)
//   decode_split: sub.h*sub.w <= 4 Dst tiles (fp32 accumulation) slack 3
//   decode_split: L1 capacity (1466080 usable bytes)           slack 1351392
//   decode_combine: L1 capacity (1466080 usable bytes)         slack 1453792
// latency of decode_split (cycles at these values; per execution of each level):
//   loop n (line 51):
//     read k                                   323
//     DRAM banks' worth of bandwidth the readers of k get (of 12) 2
//     read v                                   323
//     DRAM banks' worth of bandwidth the readers of v get (of 12) 2
//       unpack                                   2510
//       math                                     1375
//       pack                                     2030
//     compute                                  2762
//       the first iteration                      3377
//       each later iteration                     2762
//       all iterations, the loads run ahead      2762
//     iterations                               1
//     programs along split that run an iteration 1
//     all iterations                           3377
//     stages: reader 646, compute 2762, writer 0: compute-bound
//   program:
//     read q                                   967
//     DRAM banks' worth of bandwidth the readers of q get (of 12) 1
//     write part                               977
//     write lse                                557
//       unpack                                   1378
//       math                                     1884
//       pack                                     1314
//     compute                                  6123
//     programs per core                        1
//     all programs of the busiest core         8624
//     stages: reader 967, compute 6123, writer 1534: compute-bound
//   launch: kernel launch 1000 + busiest core 8624 = 9624; DRAM bandwidth bound 1000 + 38
//   total 9624: the per-core path dominates
// latency of decode_combine (cycles at these values; per execution of each level):
//   program:
//     read lse                                 0
//     DRAM banks' worth of bandwidth the readers of lse get (of 12) 1
//     read part                                547
//     DRAM banks' worth of bandwidth the readers of part get (of 12) 1
//     write o                                  557
//       unpack                                   32
//       math                                     8
//       pack                                     32
//     compute                                  358
//     programs per core                        1
//     all programs of the busiest core         1402
//     stages: reader 547, compute 358, writer 557: writer-bound
//   launch: kernel launch 1000 + busiest core 1402 = 2402; DRAM bandwidth bound 1000 + 7
//   total 2402: the per-core path dominates
// runner-up:
//   decode_split: kv->xy split->xy; q: dram; k: dram; v: dram
//   decode_combine: kv->y row->x; lse: dram; part: dram
//     BLOCK_N=64 NUM_SPLITS=1 decode_split.grid.x=1 decode_split.grid.y=1 decode_split.depth.q=2 decode_split.depth.k=2 decode_split.depth.v=2 decode_split.depth.part=2 decode_split.depth.lse=2 decode_split.sub.h=1 decode_split.sub.w=1 decode_combine.grid.x=8 decode_combine.grid.y=1 decode_combine.depth.lse=1 decode_combine.depth.part=2 decode_combine.depth.o=2
//   predicted 12026 cycles, a tie on every tie-break; the chosen one comes first in enumeration order
//   a close choice: the runner-up is within the model's error (8%) of the chosen schedule, so the model cannot be trusted to order the two (docs/scheduler.md, "Model quality"); 1 mapping other than the chosen one is that close (--top K lists the K best schedules)
