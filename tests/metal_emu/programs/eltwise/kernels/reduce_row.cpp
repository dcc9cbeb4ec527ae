// reduce_row.cpp - test program kernel (reduce): for each row of Wt tiles in CB 0,
// accumulates a row reduction (sum, or max when compile-time arg 1 is 1) of every tile
// scaled by CB 2's scaler into one Dst tile and packs it (column 0 holds the result).
#include <cstdint>

#include "compute_kernel_api/reduce.h"

namespace NAMESPACE {
void MAIN {
    constexpr uint32_t Ht = get_compile_time_arg_val(0) >> 16;
    constexpr uint32_t Wt = get_compile_time_arg_val(0) & 0xffff;
    constexpr PoolType pool = get_compile_time_arg_val(1) == 1 ? PoolType::MAX : PoolType::SUM;
    constexpr uint32_t cb_in = 0, cb_scaler = 2, cb_out = 16;

    reduce_init<pool, ReduceDim::REDUCE_ROW>(cb_in, cb_scaler, cb_out);
    cb_wait_front(cb_scaler, 1);
    for (uint32_t h = 0; h < Ht; h++) {
        tile_regs_acquire();
        for (uint32_t w = 0; w < Wt; w++) {
            cb_wait_front(cb_in, 1);
            reduce_tile<pool, ReduceDim::REDUCE_ROW>(cb_in, cb_scaler, 0, 0, 0);
            cb_pop_front(cb_in, 1);
        }
        tile_regs_commit();
        tile_regs_wait();
        cb_reserve_back(cb_out, 1);
        pack_tile(0, cb_out);
        cb_push_back(cb_out, 1);
        tile_regs_release();
    }
    reduce_uninit();
}
}  // namespace NAMESPACE
