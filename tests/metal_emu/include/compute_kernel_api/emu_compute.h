// emu_compute.h - host emulation of TT-Metalium (test harness): the compute kernel API on
// 32x32 tiles: Dst register file, unpack (copy), matmul, element-wise binary, SFPU unary
// (exp, recip), reduce, broadcast, pack. The unpack, math and pack threads of a Tensix
// core run here as one host thread, so the Dst handshake calls only check their order.
#pragma once

#include <cstdint>

#include "emu_kernel.h"
#include "emu_sfpu_ops.h"

#ifndef NAMESPACE
#define NAMESPACE emu_compute_ns
#endif
#ifndef MAIN
#define MAIN emu_compute_main()
#endif

enum PoolType { SUM, AVG, MAX };
enum ReduceDim { REDUCE_ROW, REDUCE_COL, REDUCE_SCALAR };
enum BroadcastType { NONE, ROW, COL, SCALAR };
enum EltwiseBinaryType { ELWMUL, ELWDIV, ELWADD, ELWSUB };
enum class VectorMode { None = 0, R = 1, C = 2, RC = 4, RC_custom = 6, Invalid = 0xff };
namespace tt {
enum class DstMode { Full, Half, Tile, NUM_DST_MODES };
}

// the host passes REDUCE_OP / REDUCE_DIM as kernel defines; these are the defaults
#ifndef REDUCE_OP
#define REDUCE_OP PoolType::SUM
#endif
#ifndef REDUCE_DIM
#define REDUCE_DIM ReduceDim::REDUCE_ROW
#endif

// runtime pieces (defined by the emulator's runtime)
void emu_dst_acquire();
void emu_dst_commit();
void emu_dst_wait();
void emu_dst_release();
void emu_unpack_to_dst(uint32_t cb, uint32_t tile, uint32_t idst);
void emu_matmul(uint32_t cb0, uint32_t cb1, uint32_t t0, uint32_t t1, uint32_t idst, uint32_t transpose);
void emu_binary(int op, uint32_t cb0, uint32_t cb1, uint32_t t0, uint32_t t1, uint32_t idst, int bcast);
void emu_binary_dest_reuse(int op, uint32_t cb, uint32_t t, uint32_t idst, int reuse);
void emu_sfpu(int op, uint32_t idst, uint32_t param, bool approx);
void emu_sfpu_binary(int op, uint32_t i0, uint32_t i1);
void emu_unary_bcast(uint32_t cb, uint32_t tile, uint32_t idst, int bcast);
void emu_mask(uint32_t idst);
void emu_transpose(uint32_t cb, uint32_t t, uint32_t idst);
void emu_unary(int op, uint32_t idst, bool approx);
void emu_reduce(int pool, int dim, uint32_t cb, uint32_t cb_scaler, uint32_t t, uint32_t ts, uint32_t idst);
void emu_pack(uint32_t idst, uint32_t cb, uint32_t out_tile, bool out_of_order);
void emu_pack_l1_acc(bool on);
void emu_compute_init(uint32_t cb_in, uint32_t cb_out);

enum class EltwiseBinaryReuseDestType { NONE = 0, DEST_TO_SRCA = 1, DEST_TO_SRCB = 2 };
#ifndef APPROX
#define APPROX false
#endif

namespace ckernel {

// Dst register handshake
ALWI void tile_regs_acquire() { emu_dst_acquire(); }
ALWI void tile_regs_commit() { emu_dst_commit(); }
ALWI void tile_regs_wait() { emu_dst_wait(); }
ALWI void tile_regs_release() { emu_dst_release(); }
ALWI void acquire_dst(tt::DstMode mode = tt::DstMode::Half) {
    (void)mode;
    emu_dst_acquire();
    emu_dst_commit();
    emu_dst_wait();
}
ALWI void release_dst(tt::DstMode mode = tt::DstMode::Half) {
    (void)mode;
    emu_dst_release();
}

// init calls configure hardware formats on a card; the emulator reads formats from the CBs
ALWI void unary_op_init_common(uint32_t icb, uint32_t ocb = 16) { emu_compute_init(icb, ocb); }
ALWI void binary_op_init_common(uint32_t icb0, uint32_t icb1, uint32_t ocb = 16) {
    (void)icb1;
    emu_compute_init(icb0, ocb);
}
ALWI void init_sfpu(uint32_t icb, uint32_t ocb = 16) { emu_compute_init(icb, ocb); }

// tile_move_copy.h
ALWI void copy_tile_init() {}
ALWI void copy_tile_init(uint32_t cbid) { (void)cbid; }
ALWI void copy_tile_to_dst_init_short(uint32_t cbid = 0, uint32_t transpose = 0) { (void)cbid, (void)transpose; }
ALWI void copy_tile(uint32_t in_cb_id, uint32_t in_tile_index, uint32_t dst_tile_index) {
    emu_unpack_to_dst(in_cb_id, in_tile_index, dst_tile_index);
}

// matmul.h
ALWI void mm_init(uint32_t in0_cb_id = 0, uint32_t in1_cb_id = 1, uint32_t out_cb_id = 16,
                  const uint32_t transpose = 0) {
    (void)in1_cb_id, (void)transpose;
    emu_compute_init(in0_cb_id, out_cb_id);
}
ALWI void mm_init_short(uint32_t in0_cb_id = 0, uint32_t in1_cb_id = 1, const uint32_t transpose = 0) {
    (void)in0_cb_id, (void)in1_cb_id, (void)transpose;
}
ALWI void mm_init_short_with_dt(uint32_t in0_cb_id = 0, uint32_t in1_cb_id = 1, uint32_t c_in_old_srca = 2,
                                const uint32_t transpose = 0) {
    (void)in0_cb_id, (void)in1_cb_id, (void)c_in_old_srca, (void)transpose;
}
ALWI void matmul_tiles(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t in0_tile_index, uint32_t in1_tile_index,
                       uint32_t idst, const uint32_t transpose) {
    emu_matmul(in0_cb_id, in1_cb_id, in0_tile_index, in1_tile_index, idst, transpose);
}

// eltwise_binary.h
ALWI void add_tiles_init(uint32_t icb0 = 0, uint32_t icb1 = 1, bool acc_to_dest = false) {
    (void)icb0, (void)icb1, (void)acc_to_dest;
}
ALWI void sub_tiles_init(uint32_t icb0 = 0, uint32_t icb1 = 1, bool acc_to_dest = false) {
    (void)icb0, (void)icb1, (void)acc_to_dest;
}
ALWI void mul_tiles_init(uint32_t icb0 = 0, uint32_t icb1 = 1) { (void)icb0, (void)icb1; }
ALWI void add_tiles_init_nof() {}
ALWI void sub_tiles_init_nof() {}
ALWI void mul_tiles_init_f() {}
ALWI void add_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
    emu_binary(ELWADD, icb0, icb1, itile0, itile1, idst, NONE);
}
ALWI void sub_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
    emu_binary(ELWSUB, icb0, icb1, itile0, itile1, idst, NONE);
}
ALWI void mul_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
    emu_binary(ELWMUL, icb0, icb1, itile0, itile1, idst, NONE);
}

// bcast.h: in1 is broadcast (a row, a column or a scalar of its tile)
template <EltwiseBinaryType tBcastOp, BroadcastType tBcastDim>
ALWI void init_bcast(uint32_t icb0, uint32_t icb1, uint32_t ocb = 16) {
    (void)icb1;
    emu_compute_init(icb0, ocb);
}
template <EltwiseBinaryType tBcastOp, BroadcastType tBcastDim>
ALWI void any_tile_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
    emu_binary(tBcastOp, icb0, icb1, itile0, itile1, idst, tBcastDim);
}
template <BroadcastType tBcastDim>
ALWI void add_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
    emu_binary(ELWADD, icb0, icb1, itile0, itile1, idst, tBcastDim);
}
template <BroadcastType tBcastDim>
ALWI void sub_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
    emu_binary(ELWSUB, icb0, icb1, itile0, itile1, idst, tBcastDim);
}
template <BroadcastType tBcastDim>
ALWI void mul_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
    emu_binary(ELWMUL, icb0, icb1, itile0, itile1, idst, tBcastDim);
}
// bcast.h: a tile broadcast into Dst (its column, row or scalar), for the SFPU binaries
template <BroadcastType tBcastDim>
ALWI void unary_bcast_init(uint32_t icb, uint32_t ocb) {
    emu_compute_init(icb, ocb);
}
template <BroadcastType tBcastDim>
ALWI void unary_bcast(uint32_t icb, uint32_t in_tile_index, uint32_t dst_tile_index) {
    emu_unary_bcast(icb, in_tile_index, dst_tile_index, tBcastDim);
}
template <BroadcastType tBcastDim>
ALWI void add_bcast_init_short(uint32_t icb0 = 0, uint32_t icb1 = 1) { (void)icb0, (void)icb1; }
template <BroadcastType tBcastDim>
ALWI void sub_bcast_init_short(uint32_t icb0 = 0, uint32_t icb1 = 1) { (void)icb0, (void)icb1; }
template <BroadcastType tBcastDim>
ALWI void mul_bcast_init_short(uint32_t icb0 = 0, uint32_t icb1 = 1) { (void)icb0, (void)icb1; }
ALWI void mul_tiles_bcast_scalar_init_short(uint32_t icb0 = 0, uint32_t icb1 = 1) { (void)icb0, (void)icb1; }
ALWI void mul_tiles_bcast_scalar(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
    emu_binary(ELWMUL, icb0, icb1, itile0, itile1, idst, SCALAR);
}

// eltwise_unary/exp.h, eltwise_unary/recip.h
template <bool approx = false, bool fast_and_approx = true, uint32_t scale = 0x3F800000>
ALWI void exp_tile_init() {}
template <bool approx = false, bool fast_and_approx = true>
ALWI void exp_tile(uint32_t idst, int vector_mode = (int)VectorMode::RC) {
    (void)fast_and_approx, (void)vector_mode;
    emu_unary(EMU_EXP, idst, approx);
}
ALWI void recip_tile_init() {}
ALWI void recip_tile(uint32_t idst) { emu_unary(EMU_RECIP, idst, false); }

// compute_kernel_api.h (exp2, log; exp2 follows the kernel's math_approx_mode),
// eltwise_unary/negative.h
ALWI void exp2_tile_init() {}
ALWI void exp2_tile(uint32_t idst) { emu_sfpu(EMU_EXP2, idst, 0, APPROX); }
ALWI void log_tile_init() {}
ALWI void log_tile(uint32_t idst) { emu_sfpu(EMU_LOG, idst, 0, false); }
ALWI void negative_tile_init() {}
ALWI void negative_tile(uint32_t idst) { emu_sfpu(EMU_NEG, idst, 0, false); }

// compute_kernel_api.h (rsqrt and sigmoid with their mode as a template argument),
// eltwise_unary/sqrt.h (sqrt follows the kernel's math_approx_mode); only the accurate
// modes are emulated
template <bool fast_and_approx = true>
ALWI void rsqrt_tile_init() {}
template <bool fast_and_approx = true>
ALWI void rsqrt_tile(uint32_t idst) { emu_sfpu(EMU_RSQRT, idst, 0, fast_and_approx); }
template <bool fast_and_approx = false>
ALWI void sigmoid_tile_init() {}
template <int vec_mode = (int)VectorMode::RC, bool fast_and_approx = false>
ALWI void sigmoid_tile(uint32_t idst) {
    static_assert(vec_mode == (int)VectorMode::RC, "only whole tiles are emulated");
    emu_sfpu(EMU_SIGMOID, idst, 0, fast_and_approx);
}
ALWI void sqrt_tile_init() {}
ALWI void sqrt_tile(uint32_t idst) { emu_sfpu(EMU_SQRT, idst, 0, APPROX); }

// eltwise_unary/binop_with_scalar.h: the scalar is a float's bit pattern
ALWI void binop_with_scalar_tile_init() {}
ALWI void mul_unary_tile(uint32_t idst, uint32_t param1) { emu_sfpu(EMU_MUL_SCALAR, idst, param1, false); }
ALWI void add_unary_tile(uint32_t idst, uint32_t param1) { emu_sfpu(EMU_ADD_SCALAR, idst, param1, false); }

// eltwise_unary/fill.h
ALWI void fill_tile_init() {}
ALWI void fill_tile(uint32_t idst, float param0) {
    uint32_t bits;
    std::memcpy(&bits, &param0, 4);
    emu_sfpu(EMU_FILL, idst, bits, false);
}

// comparisons with zero (compute_kernel_api.h): 1.0 where true, else 0.0
ALWI void gtz_tile_init() {}
ALWI void gtz_tile(uint32_t idst) { emu_sfpu(EMU_GTZ, idst, 0, false); }
ALWI void gez_tile_init() {}
ALWI void gez_tile(uint32_t idst) { emu_sfpu(EMU_GEZ, idst, 0, false); }
ALWI void ltz_tile_init() {}
ALWI void ltz_tile(uint32_t idst) { emu_sfpu(EMU_LTZ, idst, 0, false); }
ALWI void lez_tile_init() {}
ALWI void lez_tile(uint32_t idst) { emu_sfpu(EMU_LEZ, idst, 0, false); }
ALWI void eqz_tile_init() {}
ALWI void eqz_tile(uint32_t idst) { emu_sfpu(EMU_EQZ, idst, 0, false); }
ALWI void nez_tile_init() {}
ALWI void nez_tile(uint32_t idst) { emu_sfpu(EMU_NEZ, idst, 0, false); }

// eltwise_binary_sfpu.h (add, sub, mul) and compute_kernel_api.h (max): Dst[idst0] = Dst[idst0] op
// Dst[idst1]
ALWI void add_binary_tile_init() {}
ALWI void add_binary_tile(uint32_t idst0, uint32_t idst1) { emu_sfpu_binary(0, idst0, idst1); }
ALWI void sub_binary_tile_init() {}
ALWI void sub_binary_tile(uint32_t idst0, uint32_t idst1) { emu_sfpu_binary(1, idst0, idst1); }
ALWI void mul_binary_tile_init() {}
ALWI void mul_binary_tile(uint32_t idst0, uint32_t idst1) { emu_sfpu_binary(2, idst0, idst1); }
ALWI void max_tile_init() {}
ALWI void max_tile(uint32_t idst0, uint32_t idst1) { emu_sfpu_binary(3, idst0, idst1); }

// mask.h: Dst[idst_data] is zeroed where the mask, in Dst[idst_data + 1], is 0 (the release
// reads the mask from the next tile whatever idst2_mask says)
ALWI void mask_tile_init() {}
ALWI void mask_tile(uint32_t idst_data, uint32_t idst2_mask) {
    (void)idst2_mask;
    emu_mask(idst_data);
}

// transpose_wh.h
ALWI void transpose_wh_init(uint32_t icb, uint32_t ocb = 16) { emu_compute_init(icb, ocb); }
ALWI void transpose_wh_init_short(uint32_t icb) { (void)icb; }
ALWI void transpose_wh_tile(uint32_t icb, uint32_t itile, uint32_t idst) { emu_transpose(icb, itile, idst); }

// eltwise_binary.h: a binary op with Dst as one operand and a CB tile as the other
template <EltwiseBinaryType eltwise_binary_type = ELWADD,
          EltwiseBinaryReuseDestType binary_reuse_dest = EltwiseBinaryReuseDestType::NONE>
ALWI void binary_dest_reuse_tiles_init(uint32_t icb0) { (void)icb0; }
template <EltwiseBinaryType eltwise_binary_type = ELWADD,
          EltwiseBinaryReuseDestType binary_reuse_dest = EltwiseBinaryReuseDestType::NONE>
ALWI void binary_dest_reuse_tiles(uint32_t in_cb_id, uint32_t in_tile_index, uint32_t dst_tile_index) {
    emu_binary_dest_reuse(eltwise_binary_type, in_cb_id, in_tile_index, dst_tile_index,
                          static_cast<int>(binary_reuse_dest));
}

// reduce.h: out = reduce(in * scaler) along rows (result in column 0), columns (row 0)
// or both (element 0,0); the scaler tile's element (0,0) is the scale
template <PoolType reduce_type = REDUCE_OP, ReduceDim reduce_dim = REDUCE_DIM>
ALWI void reduce_init(uint32_t icb, uint32_t icb_scaler, uint32_t ocb = 16) {
    (void)icb_scaler;
    emu_compute_init(icb, ocb);
}
template <PoolType reduce_type = REDUCE_OP, ReduceDim reduce_dim = REDUCE_DIM>
ALWI void reduce_init_delta(uint32_t icb = 0, uint32_t icb_scaler = 1, uint32_t ocb = 16) {
    (void)icb, (void)icb_scaler, (void)ocb;
}
ALWI void reduce_revert_delta(uint32_t ocb = 16) { (void)ocb; }
ALWI void reduce_uninit() {}
template <PoolType reduce_type = REDUCE_OP, ReduceDim reduce_dim = REDUCE_DIM>
ALWI void reduce_tile(uint32_t icb, uint32_t icb_scaler, uint32_t itile, uint32_t itile_scaler, uint32_t idst) {
    emu_reduce(reduce_type, reduce_dim, icb, icb_scaler, itile, itile_scaler, idst);
}

// reconfig_data_format.h: the unpacker's source formats (the emulator reads formats from the CBs)
ALWI void reconfig_data_format(uint32_t srca_new_operand, uint32_t srcb_new_operand) {
    (void)srca_new_operand, (void)srcb_new_operand;
}
ALWI void reconfig_data_format_srca(uint32_t srca_new_operand) { (void)srca_new_operand; }
ALWI void reconfig_data_format_srcb(uint32_t srcb_new_operand) { (void)srcb_new_operand; }

// pack.h
ALWI void pack_reconfig_data_format(uint32_t new_ocb) { (void)new_ocb; }
// packer L1 accumulation: while on, pack_tile adds the tile to what the output page holds
ALWI void pack_reconfig_l1_acc(const uint32_t l1_acc_en) { emu_pack_l1_acc(l1_acc_en != 0); }
template <bool out_of_order_output = false>
ALWI void pack_tile(uint32_t ifrom_dst, uint32_t icb, std::uint32_t output_tile_index = 0) {
    emu_pack(ifrom_dst, icb, output_tile_index, out_of_order_output);
}

}  // namespace ckernel

using namespace ckernel;
