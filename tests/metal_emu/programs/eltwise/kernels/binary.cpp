// binary.cpp - test program kernel (element-wise binary): for each pair of tiles of CB 0
// and CB 1, computes their sum (OP_ADD), product (OP_MUL), or the difference with CB 1's
// first row broadcast down the tile (OP_SUB_BCAST_ROW) in Dst and packs it into CB 16.
#include <cstdint>

#include "compute_kernel_api/bcast.h"
#include "compute_kernel_api/eltwise_binary.h"

namespace NAMESPACE {
void MAIN {
    constexpr uint32_t num_tiles = get_compile_time_arg_val(0);
    constexpr uint32_t cb_a = 0, cb_b = 1, cb_out = 16;

#if defined(OP_SUB_BCAST_ROW)
    init_bcast<EltwiseBinaryType::ELWSUB, BroadcastType::ROW>(cb_a, cb_b, cb_out);
#else
    binary_op_init_common(cb_a, cb_b, cb_out);
#if defined(OP_ADD)
    add_tiles_init(cb_a, cb_b);
#else
    mul_tiles_init(cb_a, cb_b);
#endif
#endif
    for (uint32_t i = 0; i < num_tiles; i++) {
        cb_wait_front(cb_a, 1);
        cb_wait_front(cb_b, 1);
        tile_regs_acquire();
#if defined(OP_SUB_BCAST_ROW)
        sub_tiles_bcast<BroadcastType::ROW>(cb_a, cb_b, 0, 0, 0);
#elif defined(OP_ADD)
        add_tiles(cb_a, cb_b, 0, 0, 0);
#else
        mul_tiles(cb_a, cb_b, 0, 0, 0);
#endif
        tile_regs_commit();
        cb_pop_front(cb_a, 1);
        cb_pop_front(cb_b, 1);

        tile_regs_wait();
        cb_reserve_back(cb_out, 1);
        pack_tile(0, cb_out);
        cb_push_back(cb_out, 1);
        tile_regs_release();
    }
}
}  // namespace NAMESPACE
