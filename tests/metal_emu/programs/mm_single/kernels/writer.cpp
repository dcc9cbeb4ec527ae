// writer.cpp - test program kernel: writes num_tiles tiles from CB 16 to DRAM, starting at
// tile start_id of the output buffer.
#include <cstdint>

#include "dataflow_api.h"

void kernel_main() {
    uint32_t dst_addr = get_arg_val<uint32_t>(0);
    uint32_t num_tiles = get_arg_val<uint32_t>(1);
    uint32_t start_id = get_arg_val<uint32_t>(2);

    constexpr uint32_t cb_out = 16;
    const InterleavedAddrGenFast<true> d = {dst_addr, 2048, DataFormat::Float16_b};
    for (uint32_t i = 0; i < num_tiles; i++) {
        cb_wait_front(cb_out, 1);
        noc_async_write_tile(start_id + i, d, get_read_ptr(cb_out));
        noc_async_write_barrier();
        cb_pop_front(cb_out, 1);
    }
}
