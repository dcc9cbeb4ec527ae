// unary.cpp - test program kernel (element-wise): for each tile of CB 0, copies it into
// Dst, applies exp (OP_EXP) or the reciprocal (OP_RECIP) there and packs it into CB 16.
#include <cstdint>

#include "compute_kernel_api/eltwise_unary/eltwise_unary.h"
#include "compute_kernel_api/eltwise_unary/exp.h"
#include "compute_kernel_api/eltwise_unary/recip.h"
#include "compute_kernel_api/tile_move_copy.h"

namespace NAMESPACE {
void MAIN {
    constexpr uint32_t num_tiles = get_compile_time_arg_val(0);
    constexpr uint32_t cb_in = 0, cb_out = 16;

    init_sfpu(cb_in, cb_out);
#ifdef OP_EXP
    exp_tile_init<APPROX>();
#else
    recip_tile_init();
#endif
    for (uint32_t i = 0; i < num_tiles; i++) {
        cb_wait_front(cb_in, 1);
        tile_regs_acquire();
        copy_tile(cb_in, 0, 0);
#ifdef OP_EXP
        exp_tile<APPROX>(0);
#else
        recip_tile(0);
#endif
        tile_regs_commit();
        cb_pop_front(cb_in, 1);

        tile_regs_wait();
        cb_reserve_back(cb_out, 1);
        pack_tile(0, cb_out);
        cb_push_back(cb_out, 1);
        tile_regs_release();
    }
}
}  // namespace NAMESPACE
