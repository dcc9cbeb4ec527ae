// l0_cores_0_0_compute.cpp - written by loomc: the compute kernel of core class cores_0_0, cores (0,0)..(0,0),
// of launch 0 (program decode_split). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_compute.h"

namespace NAMESPACE {
void MAIN {
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    // CBs whose names trade places (a running value's current and next copy)
    uint32_t loomc_cb7 = 7;
    uint32_t loomc_cb8 = 8;
    binary_op_init_common(0, 0, 9);
    loomc::make_scaler(18);  // the unit tile of the row reductions
    cb_wait_front(19, 2);  // the index tiles of the masks (from the reader)

    cb_wait_front(0, 1);
    cb_reserve_back(9, 1);
    // mask a=0 out=9 p1r=-1 p1k=7 scalar=0
    loomc::mask_op(19, 0, 9, 1, 1, 0, 0, 0, 0, {-1, 0, 7}, {0, 0, 0}, 0.0f);
    cb_push_back(9, 1);
    cb_pop_front(0, 1);
    cb_wait_front(9, 1);
    cb_reserve_back(5, 1);
    // fill out=5 n=1
    loomc::fill(5, 1, 0.0f, 0);
    cb_push_back(5, 1);
    cb_reserve_back(6, 1);
    // fill out=6 n=1
    loomc::fill(6, 1, 0.0f, 0);
    cb_push_back(6, 1);
    cb_reserve_back(loomc_cb7, 1);
    // fill out=7 n=1 scalar=-inf
    loomc::fill(loomc_cb7, 1, -__builtin_inff(), 0);
    cb_push_back(loomc_cb7, 1);
    for (int32_t i0 = 0; i0 < (-1) * cx + (0 - loomc::fdiv(0 - loomc::min(64 * cx + 64, 64), 64)); i0++) {
        cb_wait_front(1, 2);
        cb_reserve_back(10, 2);
        // matmul a=9 b=1 out=10 m=1 k=1 nn=2 trans_b=1
        loomc::matmul(9, 1, 10, 1, 1, 2, 1, 1, true, 0, 0, 0, false);
        cb_push_back(10, 2);
        cb_pop_front(1, 2);
        cb_wait_front(10, 2);
        cb_reserve_back(11, 2);
        // chain a=10 out=11 cols=2
        for (int32_t loomc_tile = 0; loomc_tile < 1 * 2; loomc_tile++) {
            tile_regs_acquire();
            loomc::load(10, 0 + loomc_tile, 0);
            loomc::sfpu(loomc::SCALE, false, 0.255034862f, 0);
            loomc::mask(19, 0 + loomc_tile / 2, 0 + loomc_tile % 2, {0, -1, (-64) * i0 + (-64) * cx + 63}, {0, 0, 0}, -__builtin_inff());
            loomc::pack_one(11, 0 + loomc_tile, false);
        }
        cb_push_back(11, 2);
        cb_pop_front(10, 2);
        cb_wait_front(11, 2);
        cb_wait_front(loomc_cb7, 1);
        cb_reserve_back(loomc_cb8, 1);
        // rowmax a=11 out=8 cols=2 b=7
        loomc::rowmax(11, loomc_cb8, loomc_cb7, 1, 2, 0, 0, 0, 0, 0, 0, 18);
        cb_push_back(loomc_cb8, 1);
        cb_wait_front(loomc_cb8, 1);
        cb_reserve_back(10, 2);
        // chain a=7 out=10
        for (int32_t loomc_tile = 0; loomc_tile < 1 * 1; loomc_tile++) {
            tile_regs_acquire();
            loomc::binary(loomc::SUB, loomc::NO_BCAST, loomc_cb7, 0 + loomc_tile, loomc_cb8, 0 + loomc::bcast_page(loomc::NO_BCAST, loomc_tile, 1));
            loomc::sfpu(loomc::EXP2, false, 1.0f, 0);
            loomc::pack_one(10, 0 + loomc_tile, false);
        }
        cb_push_back(10, 2);
        cb_pop_front(loomc_cb7, 1);
        cb_reserve_back(12, 2);
        cb_reserve_back(14, 1);
        // pchain a=11 out=12 cols=2 sum=14
        for (int32_t loomc_tile = 0; loomc_tile < 1 * 2; loomc_tile++) {
            tile_regs_acquire();
            loomc::binary(loomc::SUB, loomc::BCAST_COL, 11, 0 + loomc_tile, loomc_cb8, 0 + loomc::bcast_page(loomc::BCAST_COL, loomc_tile, 2));
            loomc::sfpu(loomc::EXP2, false, 1.0f, 0);
            loomc::pack_sum(12, 0 + loomc_tile, 14, 0 + loomc_tile / 2, loomc_tile % 2 != 0 || false);
        }
        cb_push_back(12, 2);
        cb_push_back(14, 1);
        cb_pop_front(11, 2);
        cb_wait_front(5, 1);
        cb_wait_front(10, 2);
        cb_reserve_back(11, 2);
        // eltwise op=mul a=5 b=10 out=11
        loomc::eltwise(loomc::MUL, 5, 10, 11, 1, 1, loomc::NO_BCAST, 0, 0, 0, false);
        cb_push_back(11, 2);
        cb_pop_front(5, 1);
        cb_wait_front(12, 2);
        cb_wait_front(14, 1);
        cb_reserve_back(13, 1);
        // reduce op=sum a=14 out=13
        loomc::reduce_rows<PoolType::SUM>(14, 13, 1, 1, 0, 0, false, 18, 18);
        cb_push_back(13, 1);
        cb_pop_front(14, 1);
        cb_wait_front(11, 2);
        cb_wait_front(13, 1);
        cb_reserve_back(5, 1);
        // eltwise op=add a=11 b=13 out=5
        loomc::eltwise(loomc::ADD, 11, 13, 5, 1, 1, loomc::NO_BCAST, 0, 0, 0, false);
        cb_push_back(5, 1);
        cb_pop_front(11, 2);
        cb_pop_front(13, 1);
        cb_wait_front(6, 1);
        cb_reserve_back(11, 2);
        // eltwise op=mul a=6 b=10 out=11 bcast=col
        loomc::eltwise(loomc::MUL, 6, 10, 11, 1, 1, loomc::BCAST_COL, 0, 0, 0, false);
        cb_push_back(11, 2);
        cb_pop_front(6, 1);
        cb_pop_front(10, 2);
        cb_wait_front(2, 2);
        cb_reserve_back(10, 2);
        // matmul a=12 b=2 out=10 m=1 k=2 nn=1
        loomc::matmul(12, 2, 10, 1, 2, 1, 1, 1, false, 0, 0, 0, false);
        cb_push_back(10, 2);
        cb_pop_front(2, 2);
        cb_pop_front(12, 2);
        cb_wait_front(11, 2);
        cb_wait_front(10, 2);
        cb_reserve_back(6, 1);
        // eltwise op=add a=11 b=10 out=6
        loomc::eltwise(loomc::ADD, 11, 10, 6, 1, 1, loomc::NO_BCAST, 0, 0, 0, false);
        cb_push_back(6, 1);
        cb_pop_front(11, 2);
        cb_pop_front(10, 2);
        // cb_swap a=7 b=8
        loomc::swap_cbs(loomc_cb7, loomc_cb8);
    }
    cb_pop_front(9, 1);
    cb_wait_front(5, 1);
    cb_reserve_back(13, 1);
    // sfpu op=gtz a=5 out=13 n=1
    loomc::sfpu_op(loomc::GTZ, false, 1.0f, 5, 13, 1, 0, 0);
    cb_push_back(13, 1);
    cb_wait_front(13, 1);
    cb_reserve_back(14, 1);
    cb_reserve_back(15, 1);
    // fill out=15 n=1 scalar=1
    loomc::fill(15, 1, 1.0f, 0);
    cb_push_back(15, 1);
    cb_wait_front(15, 1);
    // eltwise op=sub a=5 b=15 out=14 bcast=scalar
    loomc::eltwise(loomc::SUB, 5, 15, 14, 1, 1, loomc::BCAST_SCALAR, 0, 0, 0, false);
    cb_pop_front(15, 1);
    cb_push_back(14, 1);
    cb_wait_front(14, 1);
    cb_reserve_back(16, 1);
    // eltwise op=mul a=13 b=14 out=16
    loomc::eltwise(loomc::MUL, 13, 14, 16, 1, 1, loomc::NO_BCAST, 0, 0, 0, false);
    cb_push_back(16, 1);
    cb_wait_front(16, 1);
    cb_reserve_back(10, 2);
    cb_reserve_back(17, 1);
    // fill out=17 n=1 scalar=1
    loomc::fill(17, 1, 1.0f, 0);
    cb_push_back(17, 1);
    cb_wait_front(17, 1);
    // eltwise op=add a=16 b=17 out=10 bcast=scalar
    loomc::eltwise(loomc::ADD, 16, 17, 10, 1, 1, loomc::BCAST_SCALAR, 0, 0, 0, false);
    cb_pop_front(17, 1);
    cb_push_back(10, 2);
    cb_pop_front(14, 1);
    cb_pop_front(16, 1);
    cb_pop_front(5, 1);
    cb_pop_front(13, 1);
    cb_wait_front(6, 1);
    cb_wait_front(10, 2);
    cb_reserve_back(3, 1);
    cb_reserve_back(14, 1);
    // sfpu op=recip a=10 out=14 n=1
    loomc::sfpu_op(loomc::RECIP, false, 1.0f, 10, 14, 1, 0, 0);
    cb_push_back(14, 1);
    cb_wait_front(14, 1);
    // eltwise op=mul a=6 b=14 out=3 bcast=col
    loomc::eltwise(loomc::MUL, 6, 14, 3, 1, 1, loomc::BCAST_COL, 0, 0, 0, false);
    cb_pop_front(14, 1);
    cb_push_back(3, 1);
    cb_pop_front(6, 1);
    cb_reserve_back(14, 1);
    // sfpu op=log a=10 out=14 n=1
    loomc::sfpu_op(loomc::LOG, false, 1.0f, 10, 14, 1, 0, 0);
    cb_push_back(14, 1);
    cb_wait_front(14, 1);
    cb_wait_front(loomc_cb7, 1);
    cb_reserve_back(13, 1);
    // chain a=14 out=13
    for (int32_t loomc_tile = 0; loomc_tile < 1 * 1; loomc_tile++) {
        tile_regs_acquire();
        loomc::load(14, 0 + loomc_tile, 0);
        loomc::sfpu(loomc::SCALE, false, 1.44269504f, 0);
        loomc::binary_dst(loomc::ADD, false, loomc_cb7, 0 + loomc_tile);
        loomc::pack_one(13, 0 + loomc_tile, false);
    }
    cb_pop_front(14, 1);
    cb_push_back(13, 1);
    cb_pop_front(loomc_cb7, 1);
    cb_pop_front(10, 2);
    cb_wait_front(13, 1);
    cb_reserve_back(4, 1);
    // transpose a=13 out=4
    loomc::transpose(13, 4, 1, 1, 0, 0);
    cb_push_back(4, 1);
    cb_pop_front(13, 1);
}
}  // namespace NAMESPACE
