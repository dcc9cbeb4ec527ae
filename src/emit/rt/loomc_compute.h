// loomc_compute.h - written by loomc, shared by the compute kernels it emits (with the
// integer helpers of loomc_int.h): the tile blocks of the
// dataflow program's compute ops on the compute kernel API: a matmul block computed
// sub-block by sub-block in Dst, accumulated over K there, packed once per sub-block
// (adding to what the output pages hold under packer L1 accumulation); element-wise,
// SFPU, fill, copy, transpose, row reductions and masks one tile at a time through Dst;
// chains of them applied to a tile held in Dst and packed once.
#pragma once

#include <stdint.h>

#include "compute_kernel_api.h"
#include "compute_kernel_api/bcast.h"
#include "compute_kernel_api/cb_api.h"
#include "compute_kernel_api/common.h"
#include "compute_kernel_api/eltwise_binary.h"
#include "compute_kernel_api/eltwise_binary_sfpu.h"
#include "compute_kernel_api/eltwise_unary/binop_with_scalar.h"
#include "compute_kernel_api/eltwise_unary/eltwise_unary.h"
#include "compute_kernel_api/eltwise_unary/exp.h"
#include "compute_kernel_api/eltwise_unary/fill.h"
#include "compute_kernel_api/eltwise_unary/negative.h"
#include "compute_kernel_api/eltwise_unary/recip.h"
#include "compute_kernel_api/eltwise_unary/sqrt.h"
#include "compute_kernel_api/mask.h"
#include "compute_kernel_api/matmul.h"
#include "compute_kernel_api/pack.h"
#include "compute_kernel_api/reconfig_data_format.h"
#include "compute_kernel_api/reduce.h"
#include "compute_kernel_api/reg_api.h"
#include "compute_kernel_api/tile_move_copy.h"
#include "compute_kernel_api/transpose_wh.h"
#include "loomc_int.h"

namespace loomc {

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

// ---- one tile at a time through Dst -------------------------------------------------

// A float's bit pattern, as the SFPU's scalar parameters take it.
inline uint32_t bits(float x) {
    union {
        float f;
        uint32_t u;
    } v;
    v.f = x;
    return v.u;
}

// Pack Dst tile 0 to page `page` at the back of `out` (added to it under acc) and release Dst.
inline void pack_one(uint32_t out, int32_t page, bool acc) {
    tile_regs_commit();
    tile_regs_wait();
    pack_reconfig_data_format(out);
    if (acc) pack_reconfig_l1_acc(1);
    pack_tile<true>(0, out, static_cast<uint32_t>(page));
    if (acc) pack_reconfig_l1_acc(0);
    tile_regs_release();
}

// Pack Dst tile 0 to page `page` at the back of `out`, and again into page `spage` at the
// back of `sum` (added to what it holds under acc: packer L1 accumulation of a row's tiles),
// then release Dst.
inline void pack_sum(uint32_t out, int32_t page, uint32_t sum, int32_t spage, bool acc) {
    tile_regs_commit();
    tile_regs_wait();
    pack_reconfig_data_format(out);
    pack_tile<true>(0, out, static_cast<uint32_t>(page));
    pack_reconfig_data_format(sum);
    if (acc) pack_reconfig_l1_acc(1);
    pack_tile<true>(0, sum, static_cast<uint32_t>(spage));
    if (acc) pack_reconfig_l1_acc(0);
    tile_regs_release();
}

// Tile `t` of cb's front pages into Dst[d].
inline void load(uint32_t cb, int32_t t, uint32_t d) {
    reconfig_data_format_srca(cb);
    copy_tile_to_dst_init_short(cb);
    copy_tile(cb, static_cast<uint32_t>(t), d);
}

enum Binop { ADD, SUB, MUL, MAX };
enum Bcast { NO_BCAST, BCAST_COL, BCAST_ROW, BCAST_SCALAR };

// Which page of b goes with tile t of a rows x cols block under a broadcast: one per tile
// row (col), one per tile column (row), one for all (scalar).
inline int32_t bcast_page(Bcast bc, int32_t t, int32_t cols) {
    return bc == BCAST_COL ? t / cols : bc == BCAST_ROW ? t % cols : bc == BCAST_SCALAR ? 0 : t;
}

// Tile tb of b's front pages into Dst[d], broadcast as bc: its column 0 across the columns,
// its row 0 down the rows, or its element (0, 0) everywhere (NO_BCAST: the tile as it is).
inline void load_bcast(Bcast bc, uint32_t b, int32_t tb, uint32_t d) {
    uint32_t ib = static_cast<uint32_t>(tb);
    if (bc == NO_BCAST) {
        load(b, tb, d);
        return;
    }
    reconfig_data_format_srca(b);
    if (bc == BCAST_COL) unary_bcast_init<BroadcastType::COL>(b, b), unary_bcast<BroadcastType::COL>(b, ib, d);
    if (bc == BCAST_ROW) unary_bcast_init<BroadcastType::ROW>(b, b), unary_bcast<BroadcastType::ROW>(b, ib, d);
    if (bc == BCAST_SCALAR) unary_bcast_init<BroadcastType::SCALAR>(b, b), unary_bcast<BroadcastType::SCALAR>(b, ib, d);
}

// Dst[0] = Dst[0] op Dst[1], on the SFPU.
inline void sfpu_binary(Binop op) {
    if (op == ADD) add_binary_tile_init(), add_binary_tile(0, 1);
    if (op == SUB) sub_binary_tile_init(), sub_binary_tile(0, 1);
    if (op == MUL) mul_binary_tile_init(), mul_binary_tile(0, 1);
    if (op == MAX) max_tile_init(), max_tile(0, 1);
}

template <EltwiseBinaryType OP, BroadcastType BC>
inline void bcast_op(uint32_t a, int32_t ta, uint32_t b, int32_t tb) {
    init_bcast<OP, BC>(a, b);
    any_tile_bcast<OP, BC>(a, b, static_cast<uint32_t>(ta), static_cast<uint32_t>(tb), 0);
}

template <EltwiseBinaryType OP>
inline void binary_bc(Bcast bc, uint32_t a, int32_t ta, uint32_t b, int32_t tb) {
    if (bc == BCAST_COL)
        bcast_op<OP, BroadcastType::COL>(a, ta, b, tb);
    else if (bc == BCAST_ROW)
        bcast_op<OP, BroadcastType::ROW>(a, ta, b, tb);
    else
        bcast_op<OP, BroadcastType::SCALAR>(a, ta, b, tb);
}

// Dst[0] = a[ta] op b[tb] (b broadcast as bc; max on the SFPU, with both tiles in Dst).
inline void binary(Binop op, Bcast bc, uint32_t a, int32_t ta, uint32_t b, int32_t tb) {
    reconfig_data_format(a, b);
    if (op == MAX) {
        load(a, ta, 0);
        load_bcast(bc, b, tb, 1);
        sfpu_binary(MAX);
        return;
    }
    if (bc != NO_BCAST) {
        if (op == ADD) binary_bc<ELWADD>(bc, a, ta, b, tb);
        if (op == SUB) binary_bc<ELWSUB>(bc, a, ta, b, tb);
        if (op == MUL) binary_bc<ELWMUL>(bc, a, ta, b, tb);
        return;
    }
    uint32_t ia = static_cast<uint32_t>(ta), ib = static_cast<uint32_t>(tb);
    if (op == ADD) add_tiles_init(a, b), add_tiles(a, b, ia, ib, 0);
    if (op == SUB) sub_tiles_init(a, b), sub_tiles(a, b, ia, ib, 0);
    if (op == MUL) mul_tiles_init(a, b), mul_tiles(a, b, ia, ib, 0);
}

// Dst[0] = Dst[0] op b[tb], or b[tb] op Dst[0] (rev); Dst[1] is free.
inline void binary_dst(Binop op, bool rev, uint32_t b, int32_t tb) {
    uint32_t ib = static_cast<uint32_t>(tb);
    if (op == MAX) {  // symmetric
        load(b, tb, 1);
        sfpu_binary(MAX);
        return;
    }
    reconfig_data_format_srca(b);
    constexpr auto A = EltwiseBinaryReuseDestType::DEST_TO_SRCA, B = EltwiseBinaryReuseDestType::DEST_TO_SRCB;
    if (op == ADD) {
        if (rev) binary_dest_reuse_tiles_init<ELWADD, B>(b), binary_dest_reuse_tiles<ELWADD, B>(b, ib, 0);
        else binary_dest_reuse_tiles_init<ELWADD, A>(b), binary_dest_reuse_tiles<ELWADD, A>(b, ib, 0);
    }
    if (op == SUB) {
        if (rev) binary_dest_reuse_tiles_init<ELWSUB, B>(b), binary_dest_reuse_tiles<ELWSUB, B>(b, ib, 0);
        else binary_dest_reuse_tiles_init<ELWSUB, A>(b), binary_dest_reuse_tiles<ELWSUB, A>(b, ib, 0);
    }
    if (op == MUL) {
        if (rev) binary_dest_reuse_tiles_init<ELWMUL, B>(b), binary_dest_reuse_tiles<ELWMUL, B>(b, ib, 0);
        else binary_dest_reuse_tiles_init<ELWMUL, A>(b), binary_dest_reuse_tiles<ELWMUL, A>(b, ib, 0);
    }
}

// Dst[0] = Dst[0] op b[tb] broadcast as bc: the matrix engine pairs a broadcast operand only
// with a tile it unpacks, so the operand is broadcast into Dst[1] and the SFPU combines them.
inline void binary_dst_bcast(Binop op, Bcast bc, uint32_t b, int32_t tb) {
    load_bcast(bc, b, tb, 1);
    sfpu_binary(op);
}

enum Sfpu { EXP, EXP2, LOG, RECIP, SQRT, RSQRT, SIGMOID, NEG, SCALE, GTZ, GEZ, LTZ, LEZ, EQZ, NEZ };

// An SFPU function on Dst[d]: exp exact or in the chip's approximate mode; exp2 and sqrt as
// the kernel's math_approx_mode says (loomc emit keeps it off where there is a sqrt); rsqrt
// and sigmoid in their accurate modes (sigmoid_tile's fast_and_approx is false by default);
// scale multiplies by `scalar`.
inline void sfpu(Sfpu op, bool exact, float scalar, uint32_t d) {
    switch (op) {
    case EXP:
        if (exact) exp_tile_init<false>(), exp_tile<false>(d);
        else exp_tile_init<true>(), exp_tile<true>(d);
        break;
    case EXP2: exp2_tile_init(), exp2_tile(d); break;
    case LOG: log_tile_init(), log_tile(d); break;
    case RECIP: recip_tile_init(), recip_tile(d); break;
    case SQRT: sqrt_tile_init(), sqrt_tile(d); break;
    case RSQRT: rsqrt_tile_init<false>(), rsqrt_tile<false>(d); break;
    case SIGMOID: sigmoid_tile_init<false>(), sigmoid_tile(d); break;
    case NEG: negative_tile_init(), negative_tile(d); break;
    case SCALE: binop_with_scalar_tile_init(), mul_unary_tile(d, bits(scalar)); break;
    case GTZ: gtz_tile_init(), gtz_tile(d); break;
    case GEZ: gez_tile_init(), gez_tile(d); break;
    case LTZ: ltz_tile_init(), ltz_tile(d); break;
    case LEZ: lez_tile_init(), lez_tile(d); break;
    case EQZ: eqz_tile_init(), eqz_tile(d); break;
    case NEZ: nez_tile_init(), nez_tile(d); break;
    }
}

// A predicate of a mask: element (i, j) of the tensor (i = tile row * 32 + r, j = tile
// column * 32 + c) is kept when r_ * i + c_ * j + k_ >= 0.
struct Pred {
    int32_t r_, c_, k_;
};

// Whether the predicate holds on all, none or part of tile (ti, tj); for part, the constant
// of its elements' values r_ * r + c_ * c + k over the tile.
enum Cover { ALL, NONE, PART };
inline Cover cover(const Pred &p, int32_t ti, int32_t tj, int32_t *k) {
    *k = p.r_ * 32 * ti + p.c_ * 32 * tj + p.k_;
    int32_t lo = 31 * (p.r_ < 0 ? p.r_ : 0) + 31 * (p.c_ < 0 ? p.c_ : 0);
    int32_t hi = 31 * (p.r_ > 0 ? p.r_ : 0) + 31 * (p.c_ > 0 ? p.c_ : 0);
    return *k + lo >= 0 ? ALL : *k + hi < 0 ? NONE : PART;
}

// 1.0 where the predicate holds, else 0.0, into Dst[d] (Dst[d + 1] is free): the SFPU on the
// row and column index tiles of `iota` (pages 0 and 1 at its front).
inline void keep(uint32_t iota, const Pred &p, int32_t k, uint32_t d) {
    load(iota, 0, d);
    binop_with_scalar_tile_init();
    mul_unary_tile(d, bits(static_cast<float>(p.r_)));
    load(iota, 1, d + 1);
    binop_with_scalar_tile_init();
    mul_unary_tile(d + 1, bits(static_cast<float>(p.c_)));
    add_binary_tile_init();
    add_binary_tile(d, d + 1);
    binop_with_scalar_tile_init();
    add_unary_tile(d, bits(static_cast<float>(k)));
    gez_tile_init();
    gez_tile(d);
}

// Replace by `scalar` every element of the tile in Dst[0] whose indices fail p1 or p2 (tile
// (ti, tj) of the tensor); Dst[1..3] are free. Tiles the predicates cover whole are decided
// here, in integers; a tile on a predicate's edge is masked on the SFPU: the kept elements
// keep their bits, the others get `scalar` (log of the 0/1 mask adds -inf).
inline void mask(uint32_t iota, int32_t ti, int32_t tj, Pred p1, Pred p2, float scalar) {
    int32_t k1, k2;
    Cover c1 = cover(p1, ti, tj, &k1), c2 = cover(p2, ti, tj, &k2);
    if (c1 == ALL && c2 == ALL) return;
    if (c1 == NONE || c2 == NONE) {
        fill_tile_init();
        fill_tile(0, scalar);
        return;
    }
    if (c1 == PART && c2 == PART) {
        keep(iota, p1, k1, 1);
        keep(iota, p2, k2, 2);
        mul_binary_tile_init();
        mul_binary_tile(1, 2);
    } else {
        keep(iota, c1 == PART ? p1 : p2, c1 == PART ? k1 : k2, 1);
    }
    mask_tile_init();
    mask_tile(0, 1);
    if (scalar == 0.0f) return;
    if (scalar == -__builtin_inff() || scalar == __builtin_inff()) {
        log_tile_init();
        log_tile(1);  // 0 where kept, -inf elsewhere
        if (scalar > 0) negative_tile_init(), negative_tile(1);
    } else {
        // 1 - mask first, then times scalar: 0 where kept exactly, even in a 16-bit Dst
        // (scalar - scalar's rounding would not be 0 there)
        binop_with_scalar_tile_init();
        mul_unary_tile(1, bits(-1.0f));
        add_unary_tile(1, bits(1.0f));
        mul_unary_tile(1, bits(scalar));  // 0 where kept, scalar elsewhere
    }
    add_binary_tile_init();
    add_binary_tile(0, 1);
}

// The rows x cols tiles of a, masked as `mask` says, into out (the block's top-left tile is
// tile (row, col) of the tensor).
inline void mask_op(uint32_t iota, uint32_t a, uint32_t out, int32_t rows, int32_t cols, int32_t at, int32_t at_out,
                    int32_t row, int32_t col, Pred p1, Pred p2, float scalar) {
    for (int32_t t = 0; t < rows * cols; t++) {
        tile_regs_acquire();
        load(a, at + t, 0);
        mask(iota, row + t / cols, col + t % cols, p1, p2, scalar);
        pack_one(out, at_out + t, false);
    }
}

// n tiles of `value` into out's pages from at_out.
inline void fill(uint32_t out, int32_t n, float value, int32_t at_out) {
    for (int32_t t = 0; t < n; t++) {
        tile_regs_acquire();
        fill_tile_init();
        fill_tile(0, value);
        pack_one(out, at_out + t, false);
    }
}

inline void copy(uint32_t a, uint32_t out, int32_t n, int32_t at, int32_t at_out, bool acc) {
    for (int32_t t = 0; t < n; t++) {
        tile_regs_acquire();
        load(a, at + t, 0);
        pack_one(out, at_out + t, acc);
    }
}

inline void eltwise(Binop op, uint32_t a, uint32_t b, uint32_t out, int32_t rows, int32_t cols, Bcast bc, int32_t at,
                    int32_t at_b, int32_t at_out, bool acc) {
    for (int32_t t = 0; t < rows * cols; t++) {
        tile_regs_acquire();
        binary(op, bc, a, at + t, b, at_b + bcast_page(bc, t, cols));
        pack_one(out, at_out + t, acc);
    }
}

inline void sfpu_op(Sfpu op, bool exact, float scalar, uint32_t a, uint32_t out, int32_t n, int32_t at,
                    int32_t at_out) {
    for (int32_t t = 0; t < n; t++) {
        tile_regs_acquire();
        load(a, at + t, 0);
        sfpu(op, exact, scalar, 0);
        pack_one(out, at_out + t, false);
    }
}

// Each tile (r, c) of the rows x cols block to tile (c, r) of out, itself transposed.
inline void transpose(uint32_t a, uint32_t out, int32_t rows, int32_t cols, int32_t at, int32_t at_out) {
    for (int32_t r = 0; r < rows; r++)
        for (int32_t c = 0; c < cols; c++) {
            tile_regs_acquire();
            reconfig_data_format_srca(a);
            transpose_wh_init_short(a);
            transpose_wh_tile(a, static_cast<uint32_t>(at + r * cols + c), 0);
            pack_one(out, at_out + c * rows + r, false);
        }
}

// The unit tile the reductions scale by, made once into `scaler` (kept at its front).
inline void make_scaler(uint32_t scaler) {
    cb_reserve_back(scaler, 1);
    tile_regs_acquire();
    fill_tile_init();
    fill_tile(0, 1.0f);
    tile_regs_commit();
    tile_regs_wait();
    pack_reconfig_data_format(scaler);
    pack_tile<true>(0, scaler, 0);
    tile_regs_release();
    cb_push_back(scaler, 1);
    cb_wait_front(scaler, 1);
}

// Each row of cols tiles of a to one tile of out whose column 0 holds the row's max or sum.
// fold (a sum): the row's tiles are first added in Dst and that one tile, through the
// one-page fp32 CB `fold`, is reduced.
template <PoolType POOL>
inline void reduce_rows(uint32_t a, uint32_t out, int32_t rows, int32_t cols, int32_t at, int32_t at_out, bool fold,
                        uint32_t scaler, uint32_t fold_cb) {
    for (int32_t r = 0; r < rows; r++) {
        uint32_t src = a;
        int32_t first = at + r * cols, n = cols;
        if (fold && cols > 1) {
            tile_regs_acquire();
            load(a, first, 0);
            for (int32_t c = 1; c < cols; c++)
                binary_dst(ADD, false, a, first + c);
            cb_reserve_back(fold_cb, 1);
            tile_regs_commit();
            tile_regs_wait();
            pack_reconfig_data_format(fold_cb);
            pack_tile<true>(0, fold_cb, 0);
            tile_regs_release();
            cb_push_back(fold_cb, 1);
            cb_wait_front(fold_cb, 1);
            src = fold_cb, first = 0, n = 1;
        }
        tile_regs_acquire();
        reconfig_data_format(src, scaler);
        reduce_init<POOL, ReduceDim::REDUCE_ROW>(src, scaler, out);
        for (int32_t c = 0; c < n; c++)
            reduce_tile<POOL, ReduceDim::REDUCE_ROW>(src, scaler, static_cast<uint32_t>(first + c), 0, 0);
        reduce_uninit();
        pack_one(out, at_out + r, false);
        if (src == fold_cb) cb_pop_front(fold_cb, 1);
    }
}

// The block row maximum: row r of the rows x cols block of a (tile c of the row at page
// at + r * rs + (c / bw) * bs + c % bw of its front; 0 means cols for rs and bw, bw for bs: a
// row-major block) to one tile of out whose column 0 holds the row's maximum; seeded (b >= 0)
// with column 0 of b's page at_b + r, copied into Dst first for the reduction to take in, as
// TTNN's SDPA does with the previous maximum.
inline void rowmax(uint32_t a, uint32_t out, int32_t b, int32_t rows, int32_t cols, int32_t at, int32_t rs,
                   int32_t bw, int32_t bs, int32_t at_b, int32_t at_out, uint32_t scaler) {
    rs = rs ? rs : cols;
    bw = bw ? bw : cols;
    bs = bs ? bs : bw;
    for (int32_t r = 0; r < rows; r++) {
        tile_regs_acquire();
        if (b >= 0) load(static_cast<uint32_t>(b), at_b + r, 0);
        reconfig_data_format(a, scaler);
        reduce_init<PoolType::MAX, ReduceDim::REDUCE_ROW>(a, scaler, out);
        for (int32_t c = 0; c < cols; c++)
            reduce_tile<PoolType::MAX, ReduceDim::REDUCE_ROW>(
                a, scaler, static_cast<uint32_t>(at + r * rs + (c / bw) * bs + c % bw), 0, 0);
        reduce_uninit();
        pack_one(out, at_out + r, false);
    }
}

// A running value's current and next CB trade names at the end of a loop trip: the
// kernel's later ops read the new value where they read the old one.
inline void swap_cbs(uint32_t &a, uint32_t &b) {
    uint32_t t = a;
    a = b;
    b = t;
}

}  // namespace loomc
