// l0_cores_0_0_compute.cpp - written by loomc: the compute kernel of core class cores_0_0, cores (0,0)..(1,0),
// of launch 0 (program attention_fwd). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_compute.h"

namespace NAMESPACE {
void MAIN {
    // CBs whose names trade places (a running value's current and next copy)
    uint32_t loomc_cb6 = 6;
    uint32_t loomc_cb7 = 7;
    binary_op_init_common(4, 4, 4);
    loomc::make_scaler(14);  // the unit tile of the row reductions

    cb_wait_front(0, 1);
    cb_reserve_back(4, 1);
    // fill out=4 n=1
    loomc::fill(4, 1, 0.0f, 0);
    cb_push_back(4, 1);
    cb_reserve_back(5, 1);
    // fill out=5 n=1
    loomc::fill(5, 1, 0.0f, 0);
    cb_push_back(5, 1);
    cb_reserve_back(loomc_cb6, 1);
    // fill out=6 n=1 scalar=-inf
    loomc::fill(loomc_cb6, 1, -__builtin_inff(), 0);
    cb_push_back(loomc_cb6, 1);
    for (int32_t i0 = 0; i0 < 1; i0++) {
        cb_wait_front(1, 2);
        cb_reserve_back(8, 2);
        // matmul a=0 b=1 out=8 m=1 k=1 nn=2 trans_b=1
        loomc::matmul(0, 1, 8, 1, 1, 2, 1, 1, true, 0, 0, 0, false);
        cb_push_back(8, 2);
        cb_pop_front(1, 2);
        cb_wait_front(8, 2);
        cb_wait_front(loomc_cb6, 1);
        cb_reserve_back(loomc_cb7, 1);
        // rowmax a=8 out=7 cols=2 b=6
        loomc::rowmax(8, loomc_cb7, loomc_cb6, 1, 2, 0, 0, 0, 0, 0, 0, 14);
        cb_push_back(loomc_cb7, 1);
        cb_wait_front(loomc_cb7, 1);
        cb_reserve_back(10, 1);
        // pchain a=6 out=10 scale=0.25503486164919736
        for (int32_t loomc_tile = 0; loomc_tile < 1 * 1; loomc_tile++) {
            tile_regs_acquire();
            loomc::binary(loomc::SUB, loomc::NO_BCAST, loomc_cb6, 0 + loomc_tile, loomc_cb7, 0 + loomc::bcast_page(loomc::NO_BCAST, loomc_tile, 1));
            loomc::sfpu(loomc::SCALE, false, 0.255034862f, 0);
            loomc::sfpu(loomc::EXP2, false, 1.0f, 0);
            loomc::pack_one(10, 0 + loomc_tile, false);
        }
        cb_push_back(10, 1);
        cb_pop_front(loomc_cb6, 1);
        cb_reserve_back(9, 2);
        cb_reserve_back(12, 1);
        // pchain a=8 out=9 cols=2 scale=0.25503486164919736 sum=12
        for (int32_t loomc_tile = 0; loomc_tile < 1 * 2; loomc_tile++) {
            tile_regs_acquire();
            loomc::binary(loomc::SUB, loomc::BCAST_COL, 8, 0 + loomc_tile, loomc_cb7, 0 + loomc::bcast_page(loomc::BCAST_COL, loomc_tile, 2));
            loomc::sfpu(loomc::SCALE, false, 0.255034862f, 0);
            loomc::sfpu(loomc::EXP2, false, 1.0f, 0);
            loomc::pack_sum(9, 0 + loomc_tile, 12, 0 + loomc_tile / 2, loomc_tile % 2 != 0 || false);
        }
        cb_push_back(9, 2);
        cb_push_back(12, 1);
        cb_pop_front(8, 2);
        cb_wait_front(4, 1);
        cb_wait_front(10, 1);
        cb_reserve_back(8, 2);
        // eltwise op=mul a=4 b=10 out=8
        loomc::eltwise(loomc::MUL, 4, 10, 8, 1, 1, loomc::NO_BCAST, 0, 0, 0, false);
        cb_push_back(8, 2);
        cb_pop_front(4, 1);
        cb_wait_front(9, 2);
        cb_wait_front(12, 1);
        cb_reserve_back(11, 1);
        // reduce op=sum a=12 out=11
        loomc::reduce_rows<PoolType::SUM>(12, 11, 1, 1, 0, 0, false, 14, 14);
        cb_push_back(11, 1);
        cb_pop_front(12, 1);
        cb_wait_front(8, 2);
        cb_wait_front(11, 1);
        cb_reserve_back(4, 1);
        // eltwise op=add a=8 b=11 out=4
        loomc::eltwise(loomc::ADD, 8, 11, 4, 1, 1, loomc::NO_BCAST, 0, 0, 0, false);
        cb_push_back(4, 1);
        cb_pop_front(8, 2);
        cb_pop_front(11, 1);
        cb_wait_front(5, 1);
        cb_reserve_back(5, 1);
        // eltwise op=mul a=5 b=10 out=5 bcast=col
        loomc::eltwise(loomc::MUL, 5, 10, 5, 1, 1, loomc::BCAST_COL, 0, 0, 0, false);
        cb_pop_front(5, 1);
        cb_pop_front(10, 1);
        cb_wait_front(2, 2);
        // matmul a=9 b=2 out=5 m=1 k=2 nn=1 acc=1
        loomc::matmul(9, 2, 5, 1, 2, 1, 1, 1, false, 0, 0, 0, true);
        cb_push_back(5, 1);
        cb_pop_front(2, 2);
        cb_pop_front(9, 2);
        // cb_swap a=6 b=7
        loomc::swap_cbs(loomc_cb6, loomc_cb7);
    }
    cb_pop_front(0, 1);
    cb_wait_front(loomc_cb6, 1);
    cb_pop_front(loomc_cb6, 1);
    cb_wait_front(4, 1);
    cb_wait_front(5, 1);
    cb_reserve_back(13, 1);
    // sfpu op=recip a=4 out=13 n=1
    loomc::sfpu_op(loomc::RECIP, false, 1.0f, 4, 13, 1, 0, 0);
    cb_push_back(13, 1);
    cb_wait_front(13, 1);
    cb_reserve_back(3, 1);
    // eltwise op=mul a=5 b=13 out=3 bcast=col
    loomc::eltwise(loomc::MUL, 5, 13, 3, 1, 1, loomc::BCAST_COL, 0, 0, 0, false);
    cb_pop_front(13, 1);
    cb_push_back(3, 1);
    cb_pop_front(4, 1);
    cb_pop_front(5, 1);
}
}  // namespace NAMESPACE
