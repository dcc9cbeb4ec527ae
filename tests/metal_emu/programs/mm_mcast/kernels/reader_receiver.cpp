// reader_receiver.cpp - test program kernel (multicore matmul): on the other cores of a
// row, makes room for each A tile, tells the row's sender (one increment of its sender
// semaphore), waits for the sender to flag the tile landed, and reads its own B tiles.
#include <cstdint>

#include "dataflow_api.h"

void kernel_main() {
    uint32_t b_addr = get_arg_val<uint32_t>(0);
    uint32_t Kt = get_arg_val<uint32_t>(1);
    uint32_t Nt = get_arg_val<uint32_t>(2);
    uint32_t n = get_arg_val<uint32_t>(3);
    uint32_t sender_x = get_arg_val<uint32_t>(4);
    uint32_t sender_y = get_arg_val<uint32_t>(5);
    uint32_t sender_sem_addr = get_semaphore(get_arg_val<uint32_t>(6));
    uint32_t receiver_sem_addr = get_semaphore(get_arg_val<uint32_t>(7));

    constexpr uint32_t cb_a = 0, cb_b = 1, tile_bytes = 2048;
    constexpr uint32_t INVALID = 0, VALID = 1;
    const InterleavedAddrGenFast<true> b = {b_addr, tile_bytes, DataFormat::Float16_b};
    volatile tt_l1_ptr uint32_t *receiver_sem = reinterpret_cast<volatile tt_l1_ptr uint32_t *>(receiver_sem_addr);
    uint64_t sender_sem_noc = get_noc_addr(sender_x, sender_y, sender_sem_addr);

    for (uint32_t k = 0; k < Kt; k++) {
        cb_reserve_back(cb_a, 1);
        noc_semaphore_set(receiver_sem, INVALID);
#ifdef SKIP_SEM_INC
        // the planted fault: this core forgets to tell the sender at the second tile
        if (k != 1)
#endif
            noc_semaphore_inc(sender_sem_noc, 1);
        noc_semaphore_wait(receiver_sem, VALID);
        cb_push_back(cb_a, 1);

        cb_reserve_back(cb_b, 1);
        noc_async_read_tile(k * Nt + n, b, get_write_ptr(cb_b));
        noc_async_read_barrier();
        cb_push_back(cb_b, 1);
    }
}
