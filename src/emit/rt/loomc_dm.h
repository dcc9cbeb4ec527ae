// loomc_dm.h - written by loomc, shared by the data-movement kernels it emits (with the
// integer helpers of loomc_int.h): DRAM tensors through the
// interleaved address generator, tile blocks between DRAM and CB pages, and pages and
// semaphores to other cores over the NoC, with logical core coordinates mapped to NoC
// coordinates through the tables the host passes. Built on dataflow_api.h only.
#pragma once

#include <stdint.h>

#include "dataflow_api.h"
#include "loomc_int.h"

namespace loomc {

// A DRAM tensor: one tile a page, interleaved page by page over the DRAM banks; tile (r, c)
// of a tensor `tile_cols` tiles wide is page r * tile_cols + c. Its address is the common
// runtime argument `addr_arg`.
struct Tensor {
    InterleavedAddrGenFast<true> pages;
    int32_t tile_cols;
};
inline Tensor tensor(uint32_t addr_arg, uint32_t page_bytes, DataFormat format, int32_t tile_cols) {
    Tensor t = {{get_common_arg_val<uint32_t>(addr_arg), page_bytes, format}, tile_cols};
    return t;
}

// The rows x cols tile block whose top-left tile is (row, col), into the reserved pages of
// `cb` from page `at` on, in row-major order.
inline void read_tiles(const Tensor &t, int32_t row, int32_t col, int32_t rows, int32_t cols, uint32_t cb,
                       int32_t at) {
    uint32_t l1 = get_write_ptr(cb) + static_cast<uint32_t>(at) * t.pages.page_size;
    for (int32_t r = 0; r < rows; r++)
        for (int32_t c = 0; c < cols; c++, l1 += t.pages.page_size)
            noc_async_read_tile(static_cast<uint32_t>((row + r) * t.tile_cols + col + c), t.pages, l1);
}

// A CB's ring: its first page's L1 address (the write pointer before any push) and its
// size in bytes, for pages reserved past the end of the ring (read ahead) that wrap to its
// start.
struct Ring {
    uint32_t cb, base, bytes;
};
inline Ring ring(uint32_t cb, uint32_t bytes) {
    Ring r = {cb, get_write_ptr(cb), bytes};
    return r;
}

// read_tiles into a ring's pages from page `at` after its write pointer, wrapping at the
// ring's end (the reads carry the transaction id set before).
inline void read_tiles_ring(const Tensor &t, int32_t row, int32_t col, int32_t rows, int32_t cols, const Ring &ring,
                            int32_t at) {
    uint32_t end = ring.base + ring.bytes;
    uint32_t l1 = get_write_ptr(ring.cb) + static_cast<uint32_t>(at) * t.pages.page_size;
    while (l1 >= end)
        l1 -= ring.bytes;
    for (int32_t r = 0; r < rows; r++)
        for (int32_t c = 0; c < cols; c++) {
            noc_async_read_tile(static_cast<uint32_t>((row + r) * t.tile_cols + col + c), t.pages, l1);
            l1 += t.pages.page_size;
            if (l1 == end)
                l1 = ring.base;
        }
}

// Wait for the reads tagged with transaction id `trid`, or for every read when it is 0.
inline void read_barrier(int32_t trid) {
    if (trid != 0)
        noc_async_read_barrier_with_trid(static_cast<uint32_t>(trid));
    else
        noc_async_read_barrier();
}

// The front pages of `cb` from page `at` on, as the rows x cols tile block at (row, col).
inline void write_tiles(uint32_t cb, int32_t at, const Tensor &t, int32_t row, int32_t col, int32_t rows,
                        int32_t cols) {
    uint32_t l1 = get_read_ptr(cb) + static_cast<uint32_t>(at) * t.pages.page_size;
    for (int32_t r = 0; r < rows; r++)
        for (int32_t c = 0; c < cols; c++, l1 += t.pages.page_size)
            noc_async_write_tile(static_cast<uint32_t>((row + r) * t.tile_cols + col + c), t.pages, l1);
}

// Where element (r, c) of a tile lies in its page: bytes from the page's start, the tile
// stored as four 16 x 16 faces, row-major inside each (esize: bytes of an element).
inline uint32_t elem_offset(int32_t r, int32_t c, uint32_t esize) {
    uint32_t face = static_cast<uint32_t>(((r / 16) * 2) + c / 16);
    return (face * 256 + static_cast<uint32_t>((r % 16) * 16 + c % 16)) * esize;
}

// One step of an element move: the columns from j on that stay within one face row of the
// tensor's tile and of the block's tile.
inline int32_t run_length(int32_t left, int32_t tensor_col, int32_t block_col) {
    int32_t a = 16 - tensor_col % 16, b = 16 - block_col % 16;
    return left < a ? (left < b ? left : b) : (a < b ? a : b);
}

// The rows x cols elements of the tensor whose rows are row, row + rstride, ... and columns
// col ... into the reserved tile block of `cb` from page `at` (bw tiles wide), at its
// elements (er + i, ec + j); the block's other elements keep what they hold. One NoC read per
// run of a face row.
inline void read_elems(const Tensor &t, int32_t row, int32_t col, int32_t rows, int32_t cols, int32_t rstride,
                       uint32_t cb, int32_t at, int32_t er, int32_t ec, int32_t bw, uint32_t esize) {
    uint32_t page = t.pages.page_size, base = get_write_ptr(cb) + static_cast<uint32_t>(at) * page;
    for (int32_t i = 0; i < rows; i++) {
        int32_t tr = row + i * rstride, br = er + i;
        for (int32_t j = 0; j < cols;) {
            int32_t tc = col + j, bc = ec + j, n = run_length(cols - j, tc, bc);
            uint32_t src = static_cast<uint32_t>((tr / 32) * t.tile_cols + tc / 32);
            uint32_t dst = base + static_cast<uint32_t>((br / 32) * bw + bc / 32) * page +
                           elem_offset(br % 32, bc % 32, esize);
            noc_async_read(get_noc_addr(src, t.pages, elem_offset(tr % 32, tc % 32, esize)), dst,
                           static_cast<uint32_t>(n) * esize);
            j += n;
        }
    }
}

// read_elems into a ring's pages from page `at` after its write pointer, each page wrapping at
// the ring's end (the reads carry the transaction id set before).
inline void read_elems_ring(const Tensor &t, int32_t row, int32_t col, int32_t rows, int32_t cols, int32_t rstride,
                            const Ring &ring, int32_t at, int32_t er, int32_t ec, int32_t bw, uint32_t esize) {
    uint32_t page = t.pages.page_size, wr = get_write_ptr(ring.cb) - ring.base, pages = ring.bytes / page;
    for (int32_t i = 0; i < rows; i++) {
        int32_t tr = row + i * rstride, br = er + i;
        for (int32_t j = 0; j < cols;) {
            int32_t tc = col + j, bc = ec + j, n = run_length(cols - j, tc, bc);
            uint32_t src = static_cast<uint32_t>((tr / 32) * t.tile_cols + tc / 32);
            uint32_t p = (wr / page + static_cast<uint32_t>(at + (br / 32) * bw + bc / 32)) % pages;
            uint32_t dst = ring.base + p * page + elem_offset(br % 32, bc % 32, esize);
            noc_async_read(get_noc_addr(src, t.pages, elem_offset(tr % 32, tc % 32, esize)), dst,
                           static_cast<uint32_t>(n) * esize);
            j += n;
        }
    }
}

// The other way: elements (er + i, ec + j) of the front tile block of `cb` (from page `at`,
// bw tiles wide) to the tensor's rows row, row + rstride, ... and columns col ...
inline void write_elems(uint32_t cb, int32_t at, int32_t er, int32_t ec, int32_t bw, const Tensor &t, int32_t row,
                        int32_t col, int32_t rows, int32_t cols, int32_t rstride, uint32_t esize) {
    uint32_t page = t.pages.page_size, base = get_read_ptr(cb) + static_cast<uint32_t>(at) * page;
    for (int32_t i = 0; i < rows; i++) {
        int32_t tr = row + i * rstride, br = er + i;
        for (int32_t j = 0; j < cols;) {
            int32_t tc = col + j, bc = ec + j, n = run_length(cols - j, tc, bc);
            uint32_t dst = static_cast<uint32_t>((tr / 32) * t.tile_cols + tc / 32);
            uint32_t src = base + static_cast<uint32_t>((br / 32) * bw + bc / 32) * page +
                           elem_offset(br % 32, bc % 32, esize);
            noc_async_write(src, get_noc_addr(dst, t.pages, elem_offset(tr % 32, tc % 32, esize)),
                            static_cast<uint32_t>(n) * esize);
            j += n;
        }
    }
}

// The compute grid's NoC coordinates: common runtime args from `first` on, the NoC column
// of each logical column (w of them), then the NoC row of each logical row.
struct Grid {
    uint32_t first, w;
    uint32_t x(int32_t lx) const { return get_common_arg_val<uint32_t>(first + static_cast<uint32_t>(lx)); }
    uint32_t y(int32_t ly) const { return get_common_arg_val<uint32_t>(first + w + static_cast<uint32_t>(ly)); }
};

inline uint64_t core_addr(const Grid &g, int32_t x, int32_t y, uint32_t l1) { return get_noc_addr(g.x(x), g.y(y), l1); }

// A rectangle of logical cores (inclusive) as a multicast address: NOC 0 walks it from its
// low NoC corner, NOC 1 from its high one.
inline uint64_t rect_addr(const Grid &g, int32_t x0, int32_t y0, int32_t x1, int32_t y1, uint32_t l1) {
    uint32_t ax = g.x(x0), ay = g.y(y0), bx = g.x(x1), by = g.y(y1);
    uint32_t lox = ax < bx ? ax : bx, hix = ax < bx ? bx : ax, loy = ay < by ? ay : by, hiy = ay < by ? by : ay;
    if (noc_index == 0) return get_noc_multicast_addr(lox, loy, hix, hiy, l1);
    return get_noc_multicast_addr(hix, hiy, lox, loy, l1);
}

// Whether this core (cx, cy) lies in the rectangle, and how many cores a multicast to it
// reaches: the sender counts only when it writes itself too (loopback).
inline bool in_rect(int32_t cx, int32_t cy, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    return cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1;
}
inline uint32_t rect_dests(int32_t cx, int32_t cy, int32_t x0, int32_t y0, int32_t x1, int32_t y1, bool loopback) {
    uint32_t n = static_cast<uint32_t>((x1 - x0 + 1) * (y1 - y0 + 1));
    return in_rect(cx, cy, x0, y0, x1, y1) && !loopback ? n - 1 : n;
}

// n pages of `cb` from this core's write pointer + at to core (x, y), at its write pointer
// + dst_at. The destination's write pointer is this core's own: the cores that exchange
// pages through a CB reserve and push it in the same steps, so their rings stay in step
// (the CB has the same address on every core of the program).
inline void send_pages(const Grid &g, uint32_t cb, uint32_t page_bytes, int32_t at, int32_t n, int32_t x, int32_t y,
                       int32_t dst_at) {
    uint32_t wp = get_write_ptr(cb);
    noc_async_write(wp + static_cast<uint32_t>(at) * page_bytes,
                    core_addr(g, x, y, wp + static_cast<uint32_t>(dst_at) * page_bytes),
                    static_cast<uint32_t>(n) * page_bytes);
}

// Elements (er + i, ec + j) of the front tile block of `cb` (from page `at`, bw tiles wide)
// to core (x, y): into the block of CB `dcb` there, from its write pointer + dst_at (dbw
// tiles wide), at its elements (der + i, dec + j); both CBs hold tiles of `page` bytes. The
// destination's write pointer is this core's own for dcb: the CB exists here too, never
// reserved, so it sits where the receiver's does until the receiver pushes what it was
// sent. One NoC write per run of a face row.
inline void send_elems(const Grid &g, uint32_t cb, uint32_t page, int32_t at, int32_t er, int32_t ec, int32_t bw,
                       int32_t rows, int32_t cols, int32_t x, int32_t y, uint32_t dcb, int32_t dst_at, int32_t der,
                       int32_t dec, int32_t dbw, uint32_t esize) {
    uint32_t src0 = get_read_ptr(cb) + static_cast<uint32_t>(at) * page;
    uint32_t dst0 = get_write_ptr(dcb) + static_cast<uint32_t>(dst_at) * page;
    for (int32_t i = 0; i < rows; i++) {
        int32_t sr = er + i, dr = der + i;
        for (int32_t j = 0; j < cols;) {
            int32_t sc = ec + j, dc = dec + j, n = run_length(cols - j, sc, dc);
            uint32_t src = src0 + static_cast<uint32_t>((sr / 32) * bw + sc / 32) * page + elem_offset(sr % 32, sc % 32, esize);
            uint32_t dst = dst0 + static_cast<uint32_t>((dr / 32) * dbw + dc / 32) * page + elem_offset(dr % 32, dc % 32, esize);
            noc_async_write(src, core_addr(g, x, y, dst), static_cast<uint32_t>(n) * esize);
            j += n;
        }
    }
}

// The same to every core of a rectangle; this core is written too only with loopback.
inline void mcast_pages(const Grid &g, int32_t cx, int32_t cy, uint32_t cb, uint32_t page_bytes, int32_t at, int32_t n,
                        int32_t x0, int32_t y0, int32_t x1, int32_t y1, int32_t dst_at, bool loopback) {
    uint32_t wp = get_write_ptr(cb);
    uint32_t src = wp + static_cast<uint32_t>(at) * page_bytes, dst = wp + static_cast<uint32_t>(dst_at) * page_bytes;
    uint32_t bytes = static_cast<uint32_t>(n) * page_bytes;
    uint32_t dests = rect_dests(cx, cy, x0, y0, x1, y1, loopback);
    if (loopback && in_rect(cx, cy, x0, y0, x1, y1))
        noc_async_write_multicast_loopback_src(src, rect_addr(g, x0, y0, x1, y1, dst), bytes, dests);
    else
        noc_async_write_multicast(src, rect_addr(g, x0, y0, x1, y1, dst), bytes, dests);
}

inline volatile tt_l1_ptr uint32_t *sem_ptr(uint32_t sem) {
    return reinterpret_cast<volatile tt_l1_ptr uint32_t *>(get_semaphore(sem));
}

// Atomic add of `value` to semaphore `sem` of core (x, y).
inline void sem_inc(const Grid &g, uint32_t sem, int32_t value, int32_t x, int32_t y) {
    noc_semaphore_inc(core_addr(g, x, y, get_semaphore(sem)), static_cast<uint32_t>(value));
}

inline void sem_set(uint32_t sem, int32_t value) { noc_semaphore_set(sem_ptr(sem), static_cast<uint32_t>(value)); }

// Until this core's semaphore equals `value` (at_least: is at least it).
inline void sem_wait(uint32_t sem, int32_t value, bool at_least) {
    if (at_least)
        noc_semaphore_wait_min(sem_ptr(sem), static_cast<uint32_t>(value));
    else
        noc_semaphore_wait(sem_ptr(sem), static_cast<uint32_t>(value));
}

// Store `value` into semaphore `sem` of every core of a rectangle. The value goes out from
// this kernel's own scratch semaphore, so this core's `sem` keeps its value unless it is in
// the rectangle with loopback.
inline void sem_mcast(const Grid &g, int32_t cx, int32_t cy, uint32_t sem, uint32_t scratch, int32_t value, int32_t x0,
                      int32_t y0, int32_t x1, int32_t y1, bool loopback) {
    noc_semaphore_set(sem_ptr(scratch), static_cast<uint32_t>(value));
    uint32_t dests = rect_dests(cx, cy, x0, y0, x1, y1, loopback);
    uint64_t dst = rect_addr(g, x0, y0, x1, y1, get_semaphore(sem));
    if (loopback && in_rect(cx, cy, x0, y0, x1, y1))
        noc_semaphore_set_multicast_loopback_src(get_semaphore(scratch), dst, dests);
    else
        noc_semaphore_set_multicast(get_semaphore(scratch), dst, dests);
}

// The two index tiles a compute kernel's masks read, into `cb` (fp32 pages, pushed once):
// page 0 holds each element's row in the tile, page 1 its column (faces in stored order).
inline void iota_tiles(uint32_t cb) {
    cb_reserve_back(cb, 2);
    volatile tt_l1_ptr float *p = reinterpret_cast<volatile tt_l1_ptr float *>(get_write_ptr(cb));
    for (uint32_t i = 0; i < 1024; i++) {
        uint32_t face = i / 256, r = (face / 2) * 16 + (i % 256) / 16, c = (face % 2) * 16 + i % 16;
        p[i] = static_cast<float>(r);
        p[1024 + i] = static_cast<float>(c);
    }
    cb_push_back(cb, 2);
}

}  // namespace loomc
