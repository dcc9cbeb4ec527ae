// compute.cpp - test program kernel (matmul): for each of its output tiles, accumulates
// the K products of A and B tiles in Dst and packs the sum into CB 16.
#include <cstdint>

#include "compute_kernel_api/matmul.h"
#include "compute_kernel_api/tile_move_copy.h"

namespace NAMESPACE {
void MAIN {
    constexpr uint32_t num_out_tiles = get_compile_time_arg_val(0);
    constexpr uint32_t Kt = get_compile_time_arg_val(1);
    constexpr uint32_t cb_a = 0, cb_b = 1, cb_out = 16;

    mm_init(cb_a, cb_b, cb_out);
    for (uint32_t t = 0; t < num_out_tiles; t++) {
        tile_regs_acquire();
        for (uint32_t k = 0; k < Kt; k++) {
            cb_wait_front(cb_a, 1);
            cb_wait_front(cb_b, 1);
            matmul_tiles(cb_a, cb_b, 0, 0, 0, false);
            cb_pop_front(cb_a, 1);
            cb_pop_front(cb_b, 1);
        }
        tile_regs_commit();
        tile_regs_wait();
        cb_reserve_back(cb_out, 1);
        pack_tile(0, cb_out);
        cb_push_back(cb_out, 1);
        tile_regs_release();
    }
}
}  // namespace NAMESPACE
