// dataflow_api.h - host emulation of TT-Metalium (test harness): the data movement kernel
// API: CB ring calls, L1 pointers, NOC reads and writes (unicast, multicast, through the
// interleaved address generators), barriers and semaphores.
#pragma once

#include <cstdint>

#include "emu_kernel.h"

namespace tt {
enum class DataFormat : uint8_t { Float32 = 0, Float16 = 1, Bfp8 = 2, Bfp4 = 3, Float16_b = 5, Bfp8_b = 6, Bfp4_b = 7, UInt32 = 24, Invalid = 0xff };
}
using tt::DataFormat;

#ifndef NOC_INDEX
#define NOC_INDEX 0
#endif
constexpr uint8_t noc_index = NOC_INDEX;
#define my_x (emu_my_xy(0))
#define my_y (emu_my_xy(1))

// runtime pieces
uint64_t emu_noc_addr_xy(uint32_t x, uint32_t y, uint32_t addr);
uint64_t emu_noc_addr_local(uint32_t addr);
uint64_t emu_noc_mcast_addr(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint32_t addr);
uint64_t emu_dram_page_addr(uint32_t base, uint32_t page_size, uint32_t id, uint32_t offset);
uint64_t emu_l1_page_addr(uint32_t base, uint32_t page_size, uint32_t id, uint32_t offset);
void emu_noc_read(uint64_t src, uint32_t dst_l1, uint32_t size);
void emu_noc_write(uint32_t src_l1, uint64_t dst, uint32_t size);
void emu_noc_write_mcast(uint32_t src_l1, uint64_t dst_mcast, uint32_t size, uint32_t num_dests, bool loopback);
uint32_t emu_semaphore_addr(uint32_t id);
void emu_sem_wait(volatile uint32_t *addr, uint32_t val);
void emu_sem_wait_min(volatile uint32_t *addr, uint32_t val);
void emu_sem_set(volatile uint32_t *addr, uint32_t val);
void emu_sem_inc(uint64_t addr, uint32_t incr);
void emu_sem_set_mcast(uint32_t src_l1, uint64_t dst_mcast, uint32_t num_dests, bool loopback);
void emu_sem_set_remote(uint32_t src_l1, uint64_t dst);
uint32_t emu_df_tile_size(uint8_t fmt);

inline uint32_t get_write_ptr(uint32_t operand) { return emu_cb_write_ptr(operand); }
inline uint32_t get_read_ptr(uint32_t operand) { return emu_cb_read_ptr(operand); }

inline uint64_t get_noc_addr(uint32_t noc_x, uint32_t noc_y, uint32_t addr, uint8_t noc = noc_index) {
    (void)noc;
    return emu_noc_addr_xy(noc_x, noc_y, addr);
}
inline uint64_t get_noc_addr(uint32_t addr, uint8_t noc = noc_index) {
    (void)noc;
    return emu_noc_addr_local(addr);
}
inline uint64_t get_noc_multicast_addr(uint32_t noc_x_start, uint32_t noc_y_start, uint32_t noc_x_end,
                                       uint32_t noc_y_end, uint32_t addr, uint8_t noc = noc_index) {
    (void)noc;
    return emu_noc_mcast_addr(noc_x_start, noc_y_start, noc_x_end, noc_y_end, addr);
}

template <bool DRAM>
struct InterleavedAddrGen {
    uint32_t bank_base_address;
    uint32_t page_size;
    uint64_t get_noc_addr(const uint32_t id, const uint32_t offset = 0, uint8_t noc = noc_index) const {
        (void)noc;
        return DRAM ? emu_dram_page_addr(bank_base_address, page_size, id, offset)
                    : emu_l1_page_addr(bank_base_address, page_size, id, offset);
    }
};

template <bool DRAM, uint32_t tile_hw = 1024>
struct InterleavedAddrGenFast {
    uint32_t bank_base_address;
    uint32_t page_size;
    DataFormat data_format;
    uint64_t get_noc_addr(const uint32_t id, const uint32_t offset = 0, uint8_t noc = noc_index) const {
        (void)noc;
        uint32_t ps = emu_df_tile_size(static_cast<uint8_t>(data_format));
        return DRAM ? emu_dram_page_addr(bank_base_address, ps, id, offset)
                    : emu_l1_page_addr(bank_base_address, ps, id, offset);
    }
};

template <bool DRAM>
inline uint64_t get_noc_addr(const uint32_t id, const InterleavedAddrGen<DRAM> &s, uint32_t offset = 0,
                             uint8_t noc = noc_index) {
    return s.get_noc_addr(id, offset, noc);
}
template <bool DRAM, uint32_t tile_hw>
inline uint64_t get_noc_addr(const uint32_t id, const InterleavedAddrGenFast<DRAM, tile_hw> &s, uint32_t offset = 0,
                             uint8_t noc = noc_index) {
    return s.get_noc_addr(id, offset, noc);
}

inline void noc_async_read(uint64_t src_noc_addr, uint32_t dst_local_l1_addr, uint32_t size,
                           uint8_t noc = noc_index) {
    (void)noc;
    emu_noc_read(src_noc_addr, dst_local_l1_addr, size);
}
inline void noc_async_write(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size,
                            uint8_t noc = noc_index) {
    (void)noc;
    emu_noc_write(src_local_l1_addr, dst_noc_addr, size);
}
template <bool DRAM, uint32_t tile_hw>
inline void noc_async_read_tile(const uint32_t id, const InterleavedAddrGenFast<DRAM, tile_hw> &s,
                                uint32_t dst_local_l1_addr, uint32_t offset = 0, uint8_t noc = noc_index) {
    emu_noc_read(s.get_noc_addr(id, offset, noc), dst_local_l1_addr, s.page_size);
}
template <bool DRAM, uint32_t tile_hw>
inline void noc_async_write_tile(const uint32_t id, const InterleavedAddrGenFast<DRAM, tile_hw> &s,
                                 uint32_t src_local_l1_addr, uint8_t noc = noc_index) {
    emu_noc_write(src_local_l1_addr, s.get_noc_addr(id, 0, noc), s.page_size);
}
template <bool DRAM>
inline void noc_async_read_page(const uint32_t id, const InterleavedAddrGen<DRAM> &s, uint32_t dst_local_l1_addr,
                                uint32_t offset = 0, uint8_t noc = noc_index) {
    emu_noc_read(s.get_noc_addr(id, offset, noc), dst_local_l1_addr, s.page_size);
}
template <bool DRAM>
inline void noc_async_write_page(const uint32_t id, const InterleavedAddrGen<DRAM> &s, uint32_t src_local_l1_addr,
                                 uint32_t write_size_bytes = 0, uint32_t offset = 0, uint8_t noc = noc_index) {
    emu_noc_write(src_local_l1_addr, s.get_noc_addr(id, offset, noc), write_size_bytes ? write_size_bytes : s.page_size);
}

inline void noc_async_write_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast, uint32_t size,
                                      uint32_t num_dests, bool linked = false, bool multicast_path_reserve = true,
                                      uint8_t noc = noc_index) {
    (void)linked, (void)multicast_path_reserve, (void)noc;
    emu_noc_write_mcast(src_local_l1_addr, dst_noc_addr_multicast, size, num_dests, false);
}
inline void noc_async_write_multicast_loopback_src(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                                   uint32_t size, uint32_t num_dests, bool linked = false,
                                                   bool multicast_path_reserve = true, uint8_t noc = noc_index) {
    (void)linked, (void)multicast_path_reserve, (void)noc;
    emu_noc_write_mcast(src_local_l1_addr, dst_noc_addr_multicast, size, num_dests, true);
}

// every NOC transfer completes when issued, so barriers have nothing left to wait for
inline void noc_async_read_barrier(uint8_t noc = noc_index) { (void)noc; }
// Transaction ids: the id later reads carry, and a barrier for the reads of one id. The
// NoC counts ids 0..NOC_MAX_TRANSACTION_ID (0xF); another id is an error here.
void emu_check_trid(uint32_t trid, const char *call);
inline void noc_async_read_set_trid(uint32_t trid = 0, uint8_t noc = noc_index) {
    (void)noc;
    emu_check_trid(trid, "noc_async_read_set_trid");
}
inline void noc_async_read_barrier_with_trid(uint32_t trid, uint8_t noc = noc_index) {
    (void)noc;
    emu_check_trid(trid, "noc_async_read_barrier_with_trid");
}
inline void noc_async_write_barrier(uint8_t noc = noc_index) { (void)noc; }
inline void noc_async_writes_flushed(uint8_t noc = noc_index) { (void)noc; }
inline void noc_async_atomic_barrier(uint8_t noc = noc_index) { (void)noc; }

enum class ProgrammableCoreType { TENSIX = 0, ACTIVE_ETH = 1, IDLE_ETH = 2 };
template <ProgrammableCoreType type = ProgrammableCoreType::TENSIX>
inline uint32_t get_semaphore(uint32_t semaphore_id) {
    static_assert(type == ProgrammableCoreType::TENSIX, "the emulator has Tensix cores only");
    return emu_semaphore_addr(semaphore_id);
}

inline void noc_semaphore_wait(volatile tt_l1_ptr uint32_t *sem_addr, uint32_t val) { emu_sem_wait(sem_addr, val); }
inline void noc_semaphore_wait_min(volatile tt_l1_ptr uint32_t *sem_addr, uint32_t val) {
    emu_sem_wait_min(sem_addr, val);
}
inline void noc_semaphore_set(volatile tt_l1_ptr uint32_t *sem_addr, uint32_t val) { emu_sem_set(sem_addr, val); }
inline void noc_semaphore_inc(uint64_t addr, uint32_t incr, uint8_t noc_id = noc_index) {
    (void)noc_id;
    emu_sem_inc(addr, incr);
}
inline void noc_semaphore_set_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                        uint32_t num_dests, bool linked = false, bool multicast_path_reserve = true,
                                        uint8_t noc = noc_index) {
    (void)linked, (void)multicast_path_reserve, (void)noc;
    emu_sem_set_mcast(src_local_l1_addr, dst_noc_addr_multicast, num_dests, false);
}
inline void noc_semaphore_set_multicast_loopback_src(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                                     uint32_t num_dests, bool linked = false,
                                                     bool multicast_path_reserve = true, uint8_t noc = noc_index) {
    (void)linked, (void)multicast_path_reserve, (void)noc;
    emu_sem_set_mcast(src_local_l1_addr, dst_noc_addr_multicast, num_dests, true);
}
inline void noc_semaphore_set_remote(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint8_t noc = noc_index) {
    (void)noc;
    emu_sem_set_remote(src_local_l1_addr, dst_noc_addr);
}
