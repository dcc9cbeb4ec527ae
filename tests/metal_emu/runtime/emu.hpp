// emu.hpp - internal state of the host emulation of TT-Metalium (test harness only):
// the device (cores with L1, DRAM banks), CB rings, semaphores, the per-thread kernel
// context and the watchdog's bookkeeping. Shared by the host API and kernel runtime.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace emu {

constexpr int kNumCBs = 32;
constexpr uint32_t kSemBase = 0x10000;     // semaphore region offset in every core's L1
constexpr uint32_t kSemStride = 16;        // one 4-byte semaphore per 16-byte slot
constexpr uint32_t kMaxSems = 16;
constexpr uint32_t kCBBase = 0x20000;      // first CB offset in every core's L1
constexpr int kNocLocalBits = 36;          // NOC address: (y << 6 | x) << 36 | local offset

// Data formats as the emulator stores them (values follow tt::DataFormat)
enum Fmt : uint8_t { FMT_FLOAT32 = 0, FMT_FLOAT16_B = 5, FMT_BFP8_B = 6, FMT_BFP4_B = 7, FMT_INVALID = 0xff };

// ---- block floats (bfp8_b, bfp4_b) ----
// A tile's page: its 64 shared exponents first, one byte for each 16 values of a face row
// (the tile in stored order: four 16 x 16 faces, row-major inside each), then the values:
// bfp8_b a byte each (sign in bit 7, 7 magnitude bits), bfp4_b a nibble each (sign in bit 3,
// 3 magnitude bits; the first value of a byte in its low nibble). A value is its magnitude
// times 2^(exponent - 127 - (bits - 1)). This is the layout tt-metal's host converters
// (bfloat8.hpp, bfloat4.hpp: pack_fp32_vec_as_bfp8_tiles ...) write.
inline int bfp_bits(uint8_t fmt) { return fmt == FMT_BFP8_B ? 7 : 3; }

// The stored-order tile v (1024 values already rounded to the format by loomc's numerics,
// num_round_array or num_pack_tile) into page p.
void bfp_encode_tile(const float *v, uint8_t *p, uint8_t fmt);
// Page p into the stored-order tile v.
void bfp_decode_tile(const uint8_t *p, float *v, uint8_t fmt);

struct CBState {
    bool configured = false;
    uint32_t fifo_addr = 0;   // offset in L1
    uint32_t fifo_size = 0;   // bytes
    uint32_t page_size = 0;
    uint32_t num_pages = 0;
    uint8_t format = FMT_INVALID;
    uint32_t received = 0, acked = 0;  // page counters
    uint32_t wr_ptr = 0, rd_ptr = 0;   // offsets in L1
    uint32_t pack_tile_ptr = 0;        // tiles packed since the last push (compute)
    uint32_t pushes = 0, pops = 0;     // cb_push_back and cb_pop_front calls
};

struct Core {
    int lx = 0, ly = 0;     // logical coordinates
    uint8_t *l1 = nullptr;  // host pointer, fits in 32 bits (see Device)
    CBState cb[kNumCBs];
};

struct Arch {
    const char *name;
    int grid_x, grid_y;
    uint32_t l1_size;
    int dram_banks;
};

struct Device {
    Arch arch{};
    std::vector<Core> cores;  // grid_x * grid_y, row-major by y
    uint8_t *l1_region = nullptr;
    size_t l1_region_size = 0;
    std::vector<std::vector<uint8_t>> dram;  // one array per bank
    uint64_t dram_next = 64;                 // next free offset (same in every bank)
    Core *core_at_logical(int x, int y);
    Core *core_at_phys(int x, int y);  // NOC coordinates
    Core *core_of_l1_ptr(uint32_t addr);  // which core's L1 holds this host address
};

// NOC coordinates: worker (x, y) logical is (x + 1, y + 1); DRAM bank b is (0, b)
inline int phys_x(int lx) { return lx + 1; }
inline int phys_y(int ly) { return ly + 1; }

enum Risc { RISC_BRISC = 0, RISC_NCRISC = 1, RISC_COMPUTE = 2 };
const char *risc_name(int r);

struct KernelThread;

// Global run state, guarded by mu
struct Run {
    std::mutex mu;
    std::condition_variable cv;
    uint64_t progress = 0;  // bumped by every state change
    int running = 0;        // threads not finished
    int blocked = 0;        // threads inside a blocking wait
    bool abort = false;     // a hang or an error: every thread unwinds
    std::string failure;    // first error message
    std::vector<KernelThread *> threads;
};
extern Run g_run;
extern Device *g_dev;

struct AbortRun {};  // thrown in kernel threads to unwind after a hang or an error
struct KernelError {  // thrown by a kernel call that finds an error; ends the run
    std::string msg;
};

// Per-thread context of a running kernel
struct ComputeCfg {
    bool fp32_dest_acc = false;
    bool approx = false;
    int fidelity = 4;
};

struct KernelThread {
    Core *core = nullptr;
    int risc = 0;
    int noc = 0;
    std::string kernel_name;
    std::vector<uint32_t> rt_args;
    std::vector<uint32_t> common_args;
    ComputeCfg ccfg;
    std::shared_ptr<void> compute_state;  // the compute engine's Dst and phase
    // what the thread waits on (valid while waiting)
    bool waiting = false;
    std::string wait_what;
    bool finished = false;
};
extern thread_local KernelThread *t_self;

[[noreturn]] void fail(const std::string &msg);  // error in a kernel: throws KernelError
std::string where(const KernelThread *t);

}  // namespace emu
