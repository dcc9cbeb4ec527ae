// reader_sender.cpp - test program kernel (multicore matmul): on the first core of a row,
// reads each A tile of the row's output from DRAM, waits until every receiver in the row
// has room (the sender semaphore counts them), multicasts the tile into the receivers'
// CB 0 and then flags the receivers' semaphore VALID; reads its own B tiles.
#include <cstdint>

#include "dataflow_api.h"

void kernel_main() {
    uint32_t a_addr = get_arg_val<uint32_t>(0);
    uint32_t b_addr = get_arg_val<uint32_t>(1);
    uint32_t Kt = get_arg_val<uint32_t>(2);
    uint32_t Nt = get_arg_val<uint32_t>(3);
    uint32_t m = get_arg_val<uint32_t>(4);
    uint32_t n = get_arg_val<uint32_t>(5);
    uint32_t mcast_x0 = get_arg_val<uint32_t>(6);
    uint32_t mcast_y0 = get_arg_val<uint32_t>(7);
    uint32_t mcast_x1 = get_arg_val<uint32_t>(8);
    uint32_t mcast_y1 = get_arg_val<uint32_t>(9);
    uint32_t num_receivers = get_arg_val<uint32_t>(10);
    uint32_t sender_sem_addr = get_semaphore(get_arg_val<uint32_t>(11));
    uint32_t receiver_sem_addr = get_semaphore(get_arg_val<uint32_t>(12));

    constexpr uint32_t cb_a = 0, cb_b = 1, tile_bytes = 2048;
    constexpr uint32_t VALID = 1;
    const InterleavedAddrGenFast<true> a = {a_addr, tile_bytes, DataFormat::Float16_b};
    const InterleavedAddrGenFast<true> b = {b_addr, tile_bytes, DataFormat::Float16_b};

    volatile tt_l1_ptr uint32_t *sender_sem = reinterpret_cast<volatile tt_l1_ptr uint32_t *>(sender_sem_addr);
    volatile tt_l1_ptr uint32_t *receiver_sem = reinterpret_cast<volatile tt_l1_ptr uint32_t *>(receiver_sem_addr);
    // the value multicast into every receiver's semaphore
    noc_semaphore_set(receiver_sem, VALID);

    for (uint32_t k = 0; k < Kt; k++) {
        cb_reserve_back(cb_a, 1);
        uint32_t l1 = get_write_ptr(cb_a);
        noc_async_read_tile(m * Kt + k, a, l1);
        noc_async_read_barrier();

        noc_semaphore_wait(sender_sem, num_receivers);
        noc_semaphore_set(sender_sem, 0);
        uint64_t data_mcast = get_noc_multicast_addr(mcast_x0, mcast_y0, mcast_x1, mcast_y1, l1);
        noc_async_write_multicast(l1, data_mcast, tile_bytes, num_receivers);
        uint64_t sem_mcast = get_noc_multicast_addr(mcast_x0, mcast_y0, mcast_x1, mcast_y1, receiver_sem_addr);
        noc_semaphore_set_multicast(receiver_sem_addr, sem_mcast, num_receivers);
        noc_async_write_barrier();
        cb_push_back(cb_a, 1);

        cb_reserve_back(cb_b, 1);
        noc_async_read_tile(k * Nt + n, b, get_write_ptr(cb_b));
        noc_async_read_barrier();
        cb_push_back(cb_b, 1);
    }
}
