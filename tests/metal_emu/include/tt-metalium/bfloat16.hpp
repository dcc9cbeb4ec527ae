// bfloat16.hpp - host emulation of TT-Metalium (test harness): the host-side bfloat16
// value type (conversion from float rounds to nearest even; NaN stays NaN).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

class bfloat16 {
public:
    bfloat16() = default;
    explicit bfloat16(uint16_t bits) : v_(bits) {}
    bfloat16(float f) : v_(from_float(f)) {}
    bfloat16(double d) : v_(from_float(static_cast<float>(d))) {}
    float to_float() const {
        uint32_t u = static_cast<uint32_t>(v_) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    explicit operator float() const { return to_float(); }
    uint16_t to_uint16() const { return v_; }
    bool operator==(const bfloat16 &o) const { return v_ == o.v_; }
    bool operator!=(const bfloat16 &o) const { return v_ != o.v_; }
    static uint16_t from_float(float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return static_cast<uint16_t>((u >> 16) | 0x40);
        u += 0x7fffu + ((u >> 16) & 1u);
        return static_cast<uint16_t>(u >> 16);
    }

private:
    uint16_t v_ = 0;
};

inline uint32_t pack_two_bfloat16_into_uint32(std::pair<bfloat16, bfloat16> two) {
    return static_cast<uint32_t>(two.first.to_uint16()) | (static_cast<uint32_t>(two.second.to_uint16()) << 16);
}
