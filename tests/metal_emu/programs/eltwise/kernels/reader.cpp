// reader.cpp - test program kernel (element-wise and reduce): reads num_tiles input tiles
// (bf16, or fp32 when compile-time arg 0 is 1) from DRAM into CB 0; when compile-time
// arg 1 is 1, first fills one scaler tile in CB 2 with the bf16 bits given as arg 2;
// when compile-time arg 2 is 1, also reads the tiles of a second input (arg 3) into CB 1.
#include <cstdint>

#include "dataflow_api.h"

void kernel_main() {
    uint32_t src_addr = get_arg_val<uint32_t>(0);
    uint32_t num_tiles = get_arg_val<uint32_t>(1);
    constexpr bool fp32 = get_compile_time_arg_val(0) == 1;
    constexpr bool scaler = get_compile_time_arg_val(1) == 1;
    constexpr bool two = get_compile_time_arg_val(2) == 1;
    constexpr uint32_t cb_in = 0, cb_in2 = 1, cb_scaler = 2;

    if constexpr (scaler) {
        uint32_t bits = get_arg_val<uint32_t>(2);
        cb_reserve_back(cb_scaler, 1);
        volatile tt_l1_ptr uint16_t *p = reinterpret_cast<volatile tt_l1_ptr uint16_t *>(get_write_ptr(cb_scaler));
        for (uint32_t i = 0; i < 1024; i++) p[i] = static_cast<uint16_t>(bits);
        cb_push_back(cb_scaler, 1);
    }

    constexpr uint32_t tile_bytes = fp32 ? 4096 : 2048;
    const InterleavedAddrGenFast<true> s = {src_addr, tile_bytes, fp32 ? DataFormat::Float32 : DataFormat::Float16_b};
    const InterleavedAddrGenFast<true> s2 = {two ? get_arg_val<uint32_t>(3) : 0u, tile_bytes, DataFormat::Float16_b};
    for (uint32_t i = 0; i < num_tiles; i++) {
        cb_reserve_back(cb_in, 1);
        noc_async_read_tile(i, s, get_write_ptr(cb_in));
        noc_async_read_barrier();
        cb_push_back(cb_in, 1);
        if constexpr (two) {
            cb_reserve_back(cb_in2, 1);
            noc_async_read_tile(i, s2, get_write_ptr(cb_in2));
            noc_async_read_barrier();
            cb_push_back(cb_in2, 1);
        }
    }
}
