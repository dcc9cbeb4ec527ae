// common.hpp - helpers shared by the emulator's test programs (not part of the emulated
// API): tile layout conversion, deterministic inputs, bf16 comparison.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tt-metalium/bfloat16.hpp>

namespace test {

// row-major rows x cols -> tiles in row-major tile order, each tile four 16x16 faces
inline std::vector<bfloat16> tilize(const std::vector<bfloat16> &m, uint32_t rows, uint32_t cols) {
    std::vector<bfloat16> out(m.size());
    uint32_t tc = cols / 32;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            uint32_t t = (r / 32) * tc + c / 32, tr = r % 32, tcol = c % 32;
            uint32_t i = ((tr / 16) * 2 + tcol / 16) * 256 + (tr % 16) * 16 + tcol % 16;
            out[t * 1024 + i] = m[r * cols + c];
        }
    return out;
}

inline std::vector<bfloat16> untilize(const std::vector<bfloat16> &t, uint32_t rows, uint32_t cols) {
    std::vector<bfloat16> out(t.size());
    uint32_t tc = cols / 32;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            uint32_t ti = (r / 32) * tc + c / 32, tr = r % 32, tcol = c % 32;
            uint32_t i = ((tr / 16) * 2 + tcol / 16) * 256 + (tr % 16) * 16 + tcol % 16;
            out[r * cols + c] = t[ti * 1024 + i];
        }
    return out;
}

// a small linear congruential generator: the same inputs on every run
inline std::vector<bfloat16> random_bf16(size_t n, float lo, float hi, uint32_t seed) {
    std::vector<bfloat16> v(n);
    uint32_t s = seed;
    for (auto &x : v) {
        s = s * 1664525u + 1013904223u;
        x = bfloat16(lo + (hi - lo) * static_cast<float>(s >> 8) / 16777216.0f);
    }
    return v;
}

// every |got - want| <= atol + rtol * |want|; prints the worst miss
inline bool close(const std::vector<bfloat16> &got, const std::vector<float> &want, float rtol, float atol,
                  const char *name) {
    size_t bad = 0, worst = 0;
    float worst_err = 0;
    for (size_t i = 0; i < want.size(); i++) {
        float g = got[i].to_float(), w = want[i];
        float err = std::fabs(g - w);
        if (!(err <= atol + rtol * std::fabs(w))) bad++;
        if (!(err <= worst_err)) worst_err = err, worst = i;
    }
    if (bad) {
        std::printf("%s: %zu of %zu values off; worst at %zu: got %g want %g\n", name, bad, want.size(), worst,
                    got[worst].to_float(), want[worst]);
        return false;
    }
    std::printf("%s: %zu values match (worst error %g)\n", name, want.size(), worst_err);
    return true;
}

}  // namespace test
