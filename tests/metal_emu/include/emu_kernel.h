// emu_kernel.h - host emulation of TT-Metalium (test harness): what every emulated kernel
// sees: the device-side attributes as no-ops, runtime and compile-time arguments, the CB
// calls shared by data movement and compute kernels, and the entry point that the
// emulator's kernel build wraps around a kernel source.
#pragma once

#include <cstdint>
#include <cstring>

#define FORCE_INLINE inline __attribute__((always_inline))
#define ALWI inline __attribute__((always_inline))
#define tt_l1_ptr
#define tt_reg_ptr
#define DPRINT emu_dprint()
#define ENDL() "\n"

// runtime pieces the kernel calls into (defined by the emulator's runtime)
uint32_t emu_arg(int idx);
uint32_t emu_common_arg(int idx);
uint32_t emu_cb_write_ptr(int cb);
uint32_t emu_cb_read_ptr(int cb);
void emu_cb_reserve_back(int cb, int n);
void emu_cb_push_back(int cb, int n);
void emu_cb_wait_front(int cb, int n);
void emu_cb_pop_front(int cb, int n);
bool emu_cb_pages_available_at_front(int cb, int n);
bool emu_cb_pages_reservable_at_back(int cb, int n);
uint8_t *emu_my_xy(int which);

// Compile-time args come in as -DKERNEL_COMPILE_TIME_ARG_<i>=<value>, one build of the
// kernel per distinct argument vector, as the release's JIT build passes them.
#define get_compile_time_arg_val(arg_idx) KERNEL_COMPILE_TIME_ARG_##arg_idx

template <typename T>
inline T get_arg_val(int arg_idx) {
    static_assert(sizeof(T) == 4, "only 4-byte runtime args");
    uint32_t v = emu_arg(arg_idx);
    T t;
    std::memcpy(&t, &v, 4);
    return t;
}

template <typename T>
inline T get_common_arg_val(int arg_idx) {
    static_assert(sizeof(T) == 4, "only 4-byte runtime args");
    uint32_t v = emu_common_arg(arg_idx);
    T t;
    std::memcpy(&t, &v, 4);
    return t;
}

inline void cb_reserve_back(int32_t operand, int32_t num_pages) { emu_cb_reserve_back(operand, num_pages); }
inline void cb_push_back(int32_t operand, int32_t num_pages) { emu_cb_push_back(operand, num_pages); }
inline void cb_wait_front(int32_t operand, int32_t num_pages) { emu_cb_wait_front(operand, num_pages); }
inline void cb_pop_front(int32_t operand, int32_t num_pages) { emu_cb_pop_front(operand, num_pages); }
inline bool cb_pages_available_at_front(int32_t operand, int32_t num_pages) {
    return emu_cb_pages_available_at_front(operand, num_pages);
}
inline bool cb_pages_reservable_at_back(int32_t operand, int32_t num_pages) {
    return emu_cb_pages_reservable_at_back(operand, num_pages);
}

// DPRINT << a << b: a sink that discards (the emulator has no debug print server)
struct EmuDprint {
    template <typename T>
    EmuDprint &operator<<(const T &) { return *this; }
};
inline EmuDprint emu_dprint() { return EmuDprint{}; }
