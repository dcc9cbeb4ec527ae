// l1_cores_0_0_compute.cpp - written by loomc: the compute kernel of core class cores_0_0, cores (0,0)..(7,0),
// of launch 1 (program decode_combine). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_compute.h"

namespace NAMESPACE {
void MAIN {
    binary_op_init_common(0, 0, 7);
    loomc::make_scaler(12);  // the unit tile of the row reductions
    cb_wait_front(13, 2);  // the index tiles of the masks (from the reader)

    cb_wait_front(0, 1);
    cb_reserve_back(7, 1);
    // transpose a=0 out=7
    loomc::transpose(0, 7, 1, 1, 0, 0);
    cb_push_back(7, 1);
    cb_wait_front(7, 1);
    cb_reserve_back(8, 1);
    // mask a=7 out=8 p1c=-1 p1k=1
    loomc::mask_op(13, 7, 8, 1, 1, 0, 0, 0, 0, {0, -1, 1}, {0, 0, 0}, -__builtin_inff());
    cb_push_back(8, 1);
    cb_wait_front(8, 1);
    cb_reserve_back(3, 1);
    // rowmax a=8 out=3
    loomc::rowmax(8, 3, -1, 1, 1, 0, 0, 0, 0, 0, 0, 12);
    cb_push_back(3, 1);
    cb_pop_front(7, 1);
    cb_pop_front(8, 1);
    cb_wait_front(3, 1);
    cb_reserve_back(4, 1);
    // chain a=0 out=4
    for (int32_t loomc_tile = 0; loomc_tile < 1 * 1; loomc_tile++) {
        tile_regs_acquire();
        loomc::binary(loomc::SUB, loomc::BCAST_SCALAR, 0, 0 + loomc_tile, 3, 0 + loomc::bcast_page(loomc::BCAST_SCALAR, loomc_tile, 1));
        loomc::sfpu(loomc::EXP2, false, 1.0f, 0);
        loomc::pack_one(4, 0 + loomc_tile, false);
    }
    cb_push_back(4, 1);
    cb_pop_front(0, 1);
    cb_pop_front(3, 1);
    cb_wait_front(1, 1);
    cb_wait_front(4, 1);
    cb_reserve_back(3, 1);
    // eltwise op=mul a=1 b=4 out=3 bcast=col
    loomc::eltwise(loomc::MUL, 1, 4, 3, 1, 1, loomc::BCAST_COL, 0, 0, 0, false);
    cb_push_back(3, 1);
    cb_pop_front(1, 1);
    cb_wait_front(3, 1);
    cb_reserve_back(9, 1);
    // transpose a=3 out=9
    loomc::transpose(3, 9, 1, 1, 0, 0);
    cb_push_back(9, 1);
    cb_wait_front(9, 1);
    cb_reserve_back(10, 1);
    // mask a=9 out=10 p1c=-1 p1k=1 scalar=0
    loomc::mask_op(13, 9, 10, 1, 1, 0, 0, 0, 0, {0, -1, 1}, {0, 0, 0}, 0.0f);
    cb_push_back(10, 1);
    cb_wait_front(10, 1);
    cb_reserve_back(5, 1);
    // reduce op=sum a=10 out=5
    loomc::reduce_rows<PoolType::SUM>(10, 5, 1, 1, 0, 0, false, 12, 12);
    cb_push_back(5, 1);
    cb_pop_front(9, 1);
    cb_pop_front(10, 1);
    cb_pop_front(3, 1);
    cb_reserve_back(7, 1);
    // transpose a=4 out=7
    loomc::transpose(4, 7, 1, 1, 0, 0);
    cb_push_back(7, 1);
    cb_wait_front(7, 1);
    cb_reserve_back(8, 1);
    // mask a=7 out=8 p1c=-1 p1k=1 scalar=0
    loomc::mask_op(13, 7, 8, 1, 1, 0, 0, 0, 0, {0, -1, 1}, {0, 0, 0}, 0.0f);
    cb_push_back(8, 1);
    cb_wait_front(8, 1);
    cb_reserve_back(3, 1);
    // reduce op=sum a=8 out=3
    loomc::reduce_rows<PoolType::SUM>(8, 3, 1, 1, 0, 0, false, 12, 12);
    cb_push_back(3, 1);
    cb_pop_front(7, 1);
    cb_pop_front(8, 1);
    cb_pop_front(4, 1);
    cb_wait_front(5, 1);
    cb_wait_front(3, 1);
    cb_reserve_back(11, 1);
    // sfpu op=recip a=3 out=11 n=1
    loomc::sfpu_op(loomc::RECIP, false, 1.0f, 3, 11, 1, 0, 0);
    cb_push_back(11, 1);
    cb_wait_front(11, 1);
    cb_reserve_back(6, 1);
    // eltwise op=mul a=5 b=11 out=6 bcast=scalar
    loomc::eltwise(loomc::MUL, 5, 11, 6, 1, 1, loomc::BCAST_SCALAR, 0, 0, 0, false);
    cb_pop_front(11, 1);
    cb_push_back(6, 1);
    cb_pop_front(5, 1);
    cb_pop_front(3, 1);
    cb_wait_front(6, 1);
    cb_reserve_back(2, 1);
    // transpose a=6 out=2
    loomc::transpose(6, 2, 1, 1, 0, 0);
    cb_push_back(2, 1);
    cb_pop_front(6, 1);
}
}  // namespace NAMESPACE
