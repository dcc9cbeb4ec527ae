// reader.cpp - test program kernel (single-core matmul): for each output tile (m, n),
// reads the K tiles of row m of A and column n of B from DRAM into CB 0 and CB 1.
#include <cstdint>

#include "dataflow_api.h"

void kernel_main() {
    uint32_t a_addr = get_arg_val<uint32_t>(0);
    uint32_t b_addr = get_arg_val<uint32_t>(1);
    uint32_t Mt = get_arg_val<uint32_t>(2);
    uint32_t Kt = get_arg_val<uint32_t>(3);
    uint32_t Nt = get_arg_val<uint32_t>(4);

    constexpr uint32_t cb_a = 0, cb_b = 1;
    constexpr bool a_dram = get_compile_time_arg_val(0) == 1;
    constexpr bool b_dram = get_compile_time_arg_val(1) == 1;
    const uint32_t tile_bytes = 2048;
    const InterleavedAddrGenFast<a_dram> a = {a_addr, tile_bytes, DataFormat::Float16_b};
    const InterleavedAddrGenFast<b_dram> b = {b_addr, tile_bytes, DataFormat::Float16_b};

    for (uint32_t m = 0; m < Mt; m++)
        for (uint32_t n = 0; n < Nt; n++)
            for (uint32_t k = 0; k < Kt; k++) {
                cb_reserve_back(cb_a, 1);
                noc_async_read_tile(m * Kt + k, a, get_write_ptr(cb_a));
                noc_async_read_barrier();
                cb_push_back(cb_a, 1);

                cb_reserve_back(cb_b, 1);
                noc_async_read_tile(k * Nt + n, b, get_write_ptr(cb_b));
                noc_async_read_barrier();
                cb_push_back(cb_b, 1);
            }
}
