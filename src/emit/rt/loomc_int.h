// loomc_int.h - written by loomc, shared by the kernels it emits: the integer semantics of
// the dataflow program's expressions (Python's floor division and modulo, min, max) on
// int32_t, and the runtime arguments as the signed values the host computed.
#pragma once

#include <stdint.h>

namespace loomc {

inline int32_t fdiv(int32_t a, int32_t b) {
    int32_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int32_t fmod(int32_t a, int32_t b) {
    int32_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline int32_t min(int32_t a, int32_t b) { return a < b ? a : b; }
inline int32_t max(int32_t a, int32_t b) { return a > b ? a : b; }

// Runtime argument i of this core, as the signed value the host computed.
inline int32_t arg(uint32_t i) { return static_cast<int32_t>(get_arg_val<uint32_t>(i)); }

}  // namespace loomc
