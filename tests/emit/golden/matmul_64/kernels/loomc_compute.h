// loomc_compute.h - written by loomc, shared by the compute kernels it emits: Python's
// floor division and modulo (the dataflow program's / and %), and the tile blocks of the
// dataflow program's compute ops on the compute kernel API: a matmul block computed
// sub-block by sub-block in Dst, accumulated over K there, packed once per sub-block
// (adding to what the output pages hold under packer L1 accumulation).
#pragma once

#include <stdint.h>

#include "compute_kernel_api/cb_api.h"
#include "compute_kernel_api/common.h"
#include "compute_kernel_api/matmul.h"
#include "compute_kernel_api/pack.h"
#include "compute_kernel_api/reg_api.h"

namespace loomc {

inline int32_t fdiv(int32_t a, int32_t b) {
    int32_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int32_t fmod(int32_t a, int32_t b) {
    int32_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline int32_t min(int32_t a, int32_t b) { return a < b ? a : b; }
inline int32_t max(int32_t a, int32_t b) { return a > b ? a : b; }

inline int32_t arg(uint32_t i) { return static_cast<int32_t>(get_arg_val<uint32_t>(i)); }

// out[m x n] (=|+=) a[m x k] * b[k x n] on tile blocks: a's block at its front from page
// at_a, b's from at_b (trans_b: b holds the n x k block of B^T, each tile transposed by the
// matrix engine), the result into out's reserved pages from at_out, one sub_h x sub_w
// sub-block of Dst at a time. acc: packer L1 accumulation (add to the pages).
inline void matmul(uint32_t a, uint32_t b, uint32_t out, int32_t m, int32_t k, int32_t n, int32_t sub_h, int32_t sub_w,
                   bool trans_b, int32_t at_a, int32_t at_b, int32_t at_out, bool acc) {
    mm_init_short(a, b, trans_b ? 1 : 0);
    pack_reconfig_data_format(out);
    pack_reconfig_l1_acc(acc ? 1 : 0);
    for (int32_t sh = 0; sh < m; sh += sub_h)
        for (int32_t sw = 0; sw < n; sw += sub_w) {
            tile_regs_acquire();
            for (int32_t kk = 0; kk < k; kk++)
                for (int32_t i = 0; i < sub_h; i++)
                    for (int32_t j = 0; j < sub_w; j++) {
                        int32_t ta = at_a + (sh + i) * k + kk;
                        int32_t tb = trans_b ? at_b + (sw + j) * k + kk : at_b + kk * n + sw + j;
                        matmul_tiles(a, b, static_cast<uint32_t>(ta), static_cast<uint32_t>(tb),
                                     static_cast<uint32_t>(i * sub_w + j), trans_b ? 1 : 0);
                    }
            tile_regs_commit();
            tile_regs_wait();
            for (int32_t i = 0; i < sub_h; i++)
                for (int32_t j = 0; j < sub_w; j++)
                    pack_tile<true>(static_cast<uint32_t>(i * sub_w + j), out,
                                    static_cast<uint32_t>(at_out + (sh + i) * n + sw + j));
            tile_regs_release();
        }
    pack_reconfig_l1_acc(0);
}

}  // namespace loomc
