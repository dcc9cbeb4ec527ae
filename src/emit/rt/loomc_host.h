// loomc_host.h - written by loomc, the host side of the programs it emits: the job's DRAM
// tensors (tile layout: 32 x 32 tiles in four 16 x 16 faces, row-major inside a face;
// bf16 or fp32 storage, or block floats through tt-metal's own converters), their upload from and download to files of little-endian float32
// values (the tensor's rows x cols elements, row-major), and the integer helpers of the
// runtime arguments (Python's floor division and modulo).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <tt-metalium/bfloat4.hpp>
#include <tt-metalium/bfloat8.hpp>
#include <tt-metalium/host_api.hpp>

namespace loomc {

inline int64_t fdiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t fmod(int64_t a, int64_t b) {
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline int64_t min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t max(int64_t a, int64_t b) { return a > b ? a : b; }

[[noreturn]] inline void fail(const std::string &what) {
    std::fprintf(stderr, "error: %s\n", what.c_str());
    std::exit(1);
}

// A DRAM tensor of the job: rows x cols elements stored as tiles, one tile a page,
// interleaved over the DRAM banks.
struct Tensor {
    std::string name;
    uint32_t rows, cols;
    tt::DataFormat format;
    uint32_t page_bytes;
    std::shared_ptr<tt::tt_metal::Buffer> buffer;
    uint32_t tile_rows() const { return (rows + 31) / 32; }
    uint32_t tile_cols() const { return (cols + 31) / 32; }
    uint32_t address() const { return static_cast<uint32_t>(buffer->address()); }
};

inline Tensor make_tensor(tt::tt_metal::Device *device, const char *name, uint32_t rows, uint32_t cols,
                          tt::DataFormat format, uint32_t page_bytes) {
    Tensor t{name, rows, cols, format, page_bytes, nullptr};
    uint64_t pages = static_cast<uint64_t>(t.tile_rows()) * t.tile_cols();
    t.buffer = tt::tt_metal::CreateBuffer(
        tt::tt_metal::InterleavedBufferConfig{device, pages * page_bytes, page_bytes, tt::tt_metal::BufferType::DRAM});
    return t;
}

// bf16 from fp32, rounding to nearest even (a NaN stays a quiet NaN).
inline uint16_t to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return static_cast<uint16_t>((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
}
inline float from_bf16(uint16_t h) {
    uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Where element (r, c) of the tensor is stored: its tile's page, then its place in the
// tile's faces.
inline size_t element_slot(const Tensor &t, uint32_t r, uint32_t c) {
    size_t tile = static_cast<size_t>(r / 32) * t.tile_cols() + c / 32;
    uint32_t tr = r % 32, tc = c % 32;
    uint32_t face = (tr / 16) * 2 + tc / 16;
    return tile * 1024 + face * 256 + (tr % 16) * 16 + tc % 16;
}

inline std::vector<float> read_floats(const std::string &path, size_t count) {
    std::vector<float> v(count);
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) fail("cannot read '" + path + "'");
    size_t got = std::fread(v.data(), sizeof(float), count, f);
    bool more = std::fgetc(f) != EOF;
    std::fclose(f);
    if (got != count || more)
        fail("'" + path + "' does not hold " + std::to_string(count) + " float32 values");
    return v;
}

inline void write_floats(const std::string &path, const std::vector<float> &v) {
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(v.data(), sizeof(float), v.size(), f) != v.size() || std::fclose(f) != 0)
        fail("cannot write '" + path + "'");
}

inline bool block_float(const Tensor &t) {
    return t.format == tt::DataFormat::Bfp8_b || t.format == tt::DataFormat::Bfp4_b;
}

// Upload dir/NAME.f32 (rows x cols values) into the tensor's tiles; the padding of the
// last tile row and column is zero.
inline void upload(tt::tt_metal::CommandQueue &cq, const Tensor &t, const std::string &dir) {
    std::vector<float> v = read_floats(dir + "/" + t.name + ".f32", static_cast<size_t>(t.rows) * t.cols);
    size_t slots = static_cast<size_t>(t.tile_rows()) * t.tile_cols() * 1024;
    if (block_float(t)) {
        // the tiles in stored order, then packed by tt-metal's host converter
        std::vector<float> tiles(slots, 0.0f);
        for (uint32_t r = 0; r < t.rows; r++)
            for (uint32_t c = 0; c < t.cols; c++)
                tiles[element_slot(t, r, c)] = v[static_cast<size_t>(r) * t.cols + c];
        std::vector<uint32_t> words = t.format == tt::DataFormat::Bfp8_b
                                          ? pack_fp32_vec_as_bfp8_tiles(tiles, false, false)
                                          : pack_fp32_vec_as_bfp4_tiles(tiles, false, false);
        tt::tt_metal::EnqueueWriteBuffer(cq, t.buffer, words, true);
        return;
    }
    std::vector<uint32_t> words(t.format == tt::DataFormat::Float32 ? slots : slots / 2, 0);
    for (uint32_t r = 0; r < t.rows; r++)
        for (uint32_t c = 0; c < t.cols; c++) {
            float x = v[static_cast<size_t>(r) * t.cols + c];
            size_t s = element_slot(t, r, c);
            if (t.format == tt::DataFormat::Float32)
                std::memcpy(&words[s], &x, 4);
            else
                words[s / 2] |= static_cast<uint32_t>(to_bf16(x)) << (16 * (s % 2));
        }
    tt::tt_metal::EnqueueWriteBuffer(cq, t.buffer, words, true);
}

// Download the tensor into dir/NAME.f32 (rows x cols values, the padding left out).
inline void download(tt::tt_metal::CommandQueue &cq, const Tensor &t, const std::string &dir) {
    std::vector<uint32_t> words;
    tt::tt_metal::EnqueueReadBuffer(cq, t.buffer, words, true);
    std::vector<float> tiles;
    if (t.format == tt::DataFormat::Bfp8_b)
        tiles = unpack_bfp8_tiles_into_float_vec(words, false, false);
    else if (t.format == tt::DataFormat::Bfp4_b)
        tiles = unpack_bfp4_tiles_into_float_vec(words, false, false);
    std::vector<float> v(static_cast<size_t>(t.rows) * t.cols);
    for (uint32_t r = 0; r < t.rows; r++)
        for (uint32_t c = 0; c < t.cols; c++) {
            size_t s = element_slot(t, r, c);
            float x;
            if (block_float(t))
                x = tiles[s];
            else if (t.format == tt::DataFormat::Float32)
                std::memcpy(&x, &words[s], 4);
            else
                x = from_bf16(static_cast<uint16_t>(words[s / 2] >> (16 * (s % 2))));
            v[static_cast<size_t>(r) * t.cols + c] = x;
        }
    write_floats(dir + "/" + t.name + ".f32", v);
}

}  // namespace loomc
