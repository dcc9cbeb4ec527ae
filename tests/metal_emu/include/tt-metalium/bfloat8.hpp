// bfloat8.hpp - host emulation of TT-Metalium (test harness): tt-metal's host converters
// between float vectors and bfp8_b tiles (64 shared exponents, then the values; emu.hpp
// describes the layout). Only the _b formats (is_exp_a false) are emulated; the conversion
// rounds as loomc's numerics model the host's (src/num: num_round_array).
#pragma once

#include <cstdint>
#include <vector>

#include <tt-metalium/host_api.hpp>

std::vector<uint32_t> emu_pack_bfp_tiles(tt::stl::Span<const float> v, bool row_major_input, bool is_exp_a,
                                         tt::DataFormat format);
std::vector<float> emu_unpack_bfp_tiles(const std::vector<uint32_t> &tiles, bool row_major_output, bool is_exp_a,
                                        tt::DataFormat format);

inline std::vector<uint32_t> pack_fp32_vec_as_bfp8_tiles(tt::stl::Span<const float> fp32_vec, bool row_major_input,
                                                         bool is_exp_a) {
    return emu_pack_bfp_tiles(fp32_vec, row_major_input, is_exp_a, tt::DataFormat::Bfp8_b);
}

inline std::vector<float> unpack_bfp8_tiles_into_float_vec(const std::vector<uint32_t> &bfp_tiles,
                                                            bool row_major_output, bool is_exp_a) {
    return emu_unpack_bfp_tiles(bfp_tiles, row_major_output, is_exp_a, tt::DataFormat::Bfp8_b);
}
