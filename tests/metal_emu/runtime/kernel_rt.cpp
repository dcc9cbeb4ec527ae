// kernel_rt.cpp - host emulation of TT-Metalium (test harness): what kernels call into:
// runtime args, CB rings with the real blocking and wrap rules, NOC reads and writes
// (unicast, multicast, interleaved pages), semaphores, and the compute engine on 32x32
// tiles (bf16 or fp32 CBs, a Dst register file, bf16 round-to-nearest-even on pack).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "emu.hpp"
#include "emu_sfpu_ops.h"

// loomc's own tile numerics (src/num/num.c, compiled with the runtime): the matrix engine's
// products at a fidelity and the packer's rounding, on row-major 32x32 tiles, so that a
// program computes here what loomc's simulator computes. The enums are passed as ints
// (arch_fidelity: LoFi 0, HiFi2 1, HiFi3 2, HiFi4 3; arch_format: bf16 0, fp32 1, bfp8_b 2,
// bfp4_b 3).
extern "C" void num_tile_matmul_acc(float *dst, const float *a, const float *b, int fidelity);
extern "C" void num_pack_tile(float *t, int format);
// num_binop: add 0, sub 1, mul 2, max 3; num_bcast: none 0, col 1, row 2, scalar 3;
// num_unop: exp 0, exp approx 1, exp2 2, exp2 approx 3, log 4, recip 5, neg 6, sqrt 7, rsqrt 8,
// sigmoid 9; num_reduce: max 0, sum 1
extern "C" void num_tile_binop(float *dst, const float *a, const float *b, int op, int bcast);
extern "C" void num_tile_unop(float *dst, const float *a, int op);
extern "C" void num_tile_scale(float *dst, const float *a, float s);
extern "C" void num_tile_reduce_row(float *dst, const float *a, int r, bool accumulate);
extern "C" void num_tile_transpose(float *dst, const float *a);

using namespace emu;

// ---- block floats -----------------------------------------------------------------------

namespace emu {

void bfp_encode_tile(const float *v, uint8_t *p, uint8_t fmt) {
    int bits = bfp_bits(fmt);
    uint8_t *data = p + 64;
    std::memset(data, 0, fmt == FMT_BFP8_B ? 1024 : 512);
    for (int b = 0; b < 64; b++) {
        uint32_t shared = 0;
        for (int i = 0; i < 16; i++) {
            uint32_t u;
            std::memcpy(&u, &v[16 * b + i], 4);
            if ((u & 0x7fffffffu) != 0 && ((u >> 23) & 0xffu) > shared) shared = (u >> 23) & 0xffu;
        }
        p[b] = static_cast<uint8_t>(shared);
        for (int i = 0; i < 16; i++) {
            float x = v[16 * b + i];
            float m = std::ldexp(std::fabs(x), -(static_cast<int>(shared) - 127 - (bits - 1)));
            uint32_t q = static_cast<uint32_t>(m);
            if (static_cast<float>(q) != m || q >= (1u << bits))
                fail("a block-float tile holds a value its format cannot (not rounded to it first)");
            uint32_t code = q == 0 ? 0 : ((std::signbit(x) ? 1u : 0u) << bits) | q;
            int k = 16 * b + i;
            if (fmt == FMT_BFP8_B)
                data[k] = static_cast<uint8_t>(code);
            else
                data[k / 2] |= static_cast<uint8_t>(code << (4 * (k % 2)));
        }
    }
}

void bfp_decode_tile(const uint8_t *p, float *v, uint8_t fmt) {
    int bits = bfp_bits(fmt);
    const uint8_t *data = p + 64;
    for (int k = 0; k < 1024; k++) {
        uint32_t code = fmt == FMT_BFP8_B ? data[k] : (data[k / 2] >> (4 * (k % 2))) & 0xfu;
        uint32_t q = code & ((1u << bits) - 1u);
        float m = std::ldexp(static_cast<float>(q), static_cast<int>(p[k / 16]) - 127 - (bits - 1));
        v[k] = (code >> bits) & 1u ? -m : m;
    }
}

}  // namespace emu

namespace {

using Lock = std::unique_lock<std::mutex>;

KernelThread &self() { return *t_self; }

std::string hex(uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

// block until pred() holds; desc() says what the thread waits on, for the watchdog
template <typename P, typename D>
void block(Lock &lk, P pred, D desc) {
    if (pred()) return;
    KernelThread &t = self();
    t.waiting = true;
    t.wait_what = desc();
    g_run.blocked++;
    while (!pred()) {
        if (g_run.abort) {
            g_run.blocked--;
            t.waiting = false;
            throw AbortRun{};
        }
        g_run.cv.wait_for(lk, std::chrono::milliseconds(5));
        t.wait_what = desc();
    }
    g_run.blocked--;
    t.waiting = false;
}

std::string pages(uint32_t n) { return std::to_string(n) + (n == 1 ? " page" : " pages"); }

void changed() {
    g_run.progress++;
    g_run.cv.notify_all();
}

CBState &cb_of(int cb, const char *what) {
    if (cb < 0 || cb >= kNumCBs) fail(std::string(what) + ": CB index " + std::to_string(cb) + " out of range");
    CBState &s = self().core->cb[cb];
    if (!s.configured) fail(std::string(what) + ": CB " + std::to_string(cb) + " is not configured on this core");
    return s;
}

uint32_t l1_addr(uint32_t offset) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(self().core->l1) + offset); }

// this core's L1 offset of a kernel's L1 address (a host pointer into its own L1)
uint32_t my_offset(uint32_t addr, const char *what) {
    Core *c = g_dev->core_of_l1_ptr(addr);
    if (c != self().core) {
        if (addr < g_dev->arch.l1_size) return addr;  // already an offset (e.g. a runtime arg)
        fail(std::string(what) + ": address " + hex(addr) + " is not in this core's L1");
    }
    return addr - static_cast<uint32_t>(reinterpret_cast<uintptr_t>(self().core->l1));
}

uint64_t enc(int x, int y, uint64_t off) { return (static_cast<uint64_t>((y << 6) | x) << kNocLocalBits) | off; }

constexpr uint64_t kMcastFlag = 1ull << 62;

// resolve a unicast NOC address to host memory of size bytes
uint8_t *resolve(uint64_t noc, uint32_t size, const char *what) {
    if (noc & kMcastFlag) fail(std::string(what) + ": a multicast address where a unicast one is needed");
    uint64_t off = noc & ((1ull << kNocLocalBits) - 1);
    int xy = static_cast<int>(noc >> kNocLocalBits);
    int x = xy & 63, y = (xy >> 6) & 63;
    if (x == 0) {
        if (y >= g_dev->arch.dram_banks) fail(std::string(what) + ": NOC (" + std::to_string(x) + "," + std::to_string(y) + ") is no DRAM bank");
        auto &bank = g_dev->dram[static_cast<size_t>(y)];
        if (off + size > bank.size())
            fail(std::string(what) + ": DRAM bank " + std::to_string(y) + " range " + hex(off) + "+" + std::to_string(size) + " is past any buffer");
        return bank.data() + off;
    }
    Core *c = g_dev->core_at_phys(x, y);
    if (!c) fail(std::string(what) + ": NOC (" + std::to_string(x) + "," + std::to_string(y) + ") is no worker core");
    if (off + size > g_dev->arch.l1_size) fail(std::string(what) + ": L1 range " + hex(off) + "+" + std::to_string(size) + " is past L1");
    return c->l1 + off;
}

uint8_t *local(uint32_t addr, uint32_t size, const char *what) {
    uint32_t off = my_offset(addr, what);
    if (static_cast<uint64_t>(off) + size > g_dev->arch.l1_size) fail(std::string(what) + ": L1 range past the end of L1");
    return self().core->l1 + off;
}

struct Rect {
    int x0, y0, x1, y1;
    uint64_t off;
};
Rect mcast_rect(uint64_t a) {
    uint64_t h = (a & ~kMcastFlag) >> kNocLocalBits;
    Rect r{static_cast<int>(h & 63), static_cast<int>((h >> 6) & 63), static_cast<int>((h >> 12) & 63),
           static_cast<int>((h >> 18) & 63), a & ((1ull << kNocLocalBits) - 1)};
    // NOC 1 programs give the rectangle from its far corner: accept either order
    if (r.x0 > r.x1) std::swap(r.x0, r.x1);
    if (r.y0 > r.y1) std::swap(r.y0, r.y1);
    return r;
}

std::vector<Core *> mcast_dests(uint64_t a, uint32_t num_dests, bool loopback, const char *what) {
    if (!(a & kMcastFlag)) fail(std::string(what) + ": not a multicast address (use get_noc_multicast_addr)");
    Rect r = mcast_rect(a);
    std::vector<Core *> out;
    for (int y = r.y0; y <= r.y1; y++)
        for (int x = r.x0; x <= r.x1; x++) {
            Core *c = g_dev->core_at_phys(x, y);
            if (!c) fail(std::string(what) + ": rectangle covers NOC (" + std::to_string(x) + "," + std::to_string(y) + "), no worker core");
            if (c == self().core && !loopback) continue;
            out.push_back(c);
        }
    if (out.size() != num_dests)
        fail(std::string(what) + ": num_dests is " + std::to_string(num_dests) + " but the rectangle holds " +
             std::to_string(out.size()) + " destination cores");
    return out;
}

std::string sem_name(const Core *c, const volatile uint32_t *p) {
    uintptr_t off = reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(c->l1);
    if (off >= kSemBase && off < kSemBase + kMaxSems * kSemStride && (off - kSemBase) % kSemStride == 0)
        return "semaphore " + std::to_string((off - kSemBase) / kSemStride);
    return "L1 word " + hex(off);
}

}  // namespace

// ---- args, coordinates ----

uint32_t emu_arg(int idx) {
    auto &a = self().rt_args;
    if (idx < 0 || static_cast<size_t>(idx) >= a.size())
        fail("get_arg_val(" + std::to_string(idx) + "): only " + std::to_string(a.size()) + " runtime args were set");
    return a[static_cast<size_t>(idx)];
}

uint32_t emu_common_arg(int idx) {
    auto &a = self().common_args;
    if (idx < 0 || static_cast<size_t>(idx) >= a.size())
        fail("get_common_arg_val(" + std::to_string(idx) + "): only " + std::to_string(a.size()) + " common args were set");
    return a[static_cast<size_t>(idx)];
}

uint8_t *emu_my_xy(int which) {
    static thread_local uint8_t xy[2][2];
    xy[0][0] = xy[0][1] = static_cast<uint8_t>(phys_x(self().core->lx));
    xy[1][0] = xy[1][1] = static_cast<uint8_t>(phys_y(self().core->ly));
    return xy[which];
}

// ---- CBs ----

uint32_t emu_cb_write_ptr(int cb) {
    Lock lk(g_run.mu);
    return l1_addr(cb_of(cb, "get_write_ptr").wr_ptr);
}

uint32_t emu_cb_read_ptr(int cb) {
    Lock lk(g_run.mu);
    return l1_addr(cb_of(cb, "get_read_ptr").rd_ptr);
}

void emu_cb_reserve_back(int cb, int n) {
    Lock lk(g_run.mu);
    CBState &s = cb_of(cb, "cb_reserve_back");
    auto free_pages = [&s] { return s.num_pages - (s.received - s.acked); };
    block(lk, [&] { return free_pages() >= static_cast<uint32_t>(n); },
          [&] {
              std::ostringstream o;
              o << "cb_reserve_back on CB " << cb << ": wants " << pages(static_cast<uint32_t>(n)) << " free, has "
                << free_pages() << " free (the CB holds " << pages(s.num_pages) << (static_cast<uint32_t>(n) > s.num_pages ? ": can never be satisfied" : "")
                << ")";
              return o.str();
          });
}

void emu_cb_push_back(int cb, int n) {
    Lock lk(g_run.mu);
    CBState &s = cb_of(cb, "cb_push_back");
    if (s.received - s.acked + static_cast<uint32_t>(n) > s.num_pages) {
        std::string m = "cb_push_back on CB " + std::to_string(cb) + ": pushes " + std::to_string(n) + " pages onto " +
                        std::to_string(s.received - s.acked) + " of " + std::to_string(s.num_pages) + " (more than reserved)";
        lk.unlock();
        fail(m);
    }
    s.received += static_cast<uint32_t>(n);
    s.pushes++;
    s.wr_ptr += static_cast<uint32_t>(n) * s.page_size;
    s.pack_tile_ptr = 0;
    if (s.wr_ptr > s.fifo_addr + s.fifo_size) {
        lk.unlock();
        fail("cb_push_back on CB " + std::to_string(cb) + ": the pages cross the end of the CB (a push must end at or before it)");
    }
    if (s.wr_ptr == s.fifo_addr + s.fifo_size) s.wr_ptr = s.fifo_addr;
    changed();
}

void emu_cb_wait_front(int cb, int n) {
    Lock lk(g_run.mu);
    CBState &s = cb_of(cb, "cb_wait_front");
    block(lk, [&] { return s.received - s.acked >= static_cast<uint32_t>(n); },
          [&] {
              std::ostringstream o;
              o << "cb_wait_front on CB " << cb << ": wants " << pages(static_cast<uint32_t>(n)) << ", has "
                << (s.received - s.acked) << " (the CB holds " << pages(s.num_pages) << (static_cast<uint32_t>(n) > s.num_pages ? ": can never be satisfied" : "")
                << ")";
              return o.str();
          });
}

void emu_cb_pop_front(int cb, int n) {
    Lock lk(g_run.mu);
    CBState &s = cb_of(cb, "cb_pop_front");
    if (static_cast<uint32_t>(n) > s.received - s.acked) {
        std::string m = "cb_pop_front on CB " + std::to_string(cb) + ": pops " + std::to_string(n) + " pages, only " +
                        std::to_string(s.received - s.acked) + " were pushed";
        lk.unlock();
        fail(m);
    }
    s.acked += static_cast<uint32_t>(n);
    s.pops++;
    s.rd_ptr += static_cast<uint32_t>(n) * s.page_size;
    if (s.rd_ptr > s.fifo_addr + s.fifo_size) {
        lk.unlock();
        fail("cb_pop_front on CB " + std::to_string(cb) + ": the pages cross the end of the CB");
    }
    if (s.rd_ptr == s.fifo_addr + s.fifo_size) s.rd_ptr = s.fifo_addr;
    changed();
}

bool emu_cb_pages_available_at_front(int cb, int n) {
    Lock lk(g_run.mu);
    CBState &s = cb_of(cb, "cb_pages_available_at_front");
    return s.received - s.acked >= static_cast<uint32_t>(n);
}

bool emu_cb_pages_reservable_at_back(int cb, int n) {
    Lock lk(g_run.mu);
    CBState &s = cb_of(cb, "cb_pages_reservable_at_back");
    return s.num_pages - (s.received - s.acked) >= static_cast<uint32_t>(n);
}

// ---- NOC ----

uint64_t emu_noc_addr_xy(uint32_t x, uint32_t y, uint32_t addr) {
    return enc(static_cast<int>(x), static_cast<int>(y), my_offset(addr, "get_noc_addr"));
}

uint64_t emu_noc_addr_local(uint32_t addr) {
    return enc(phys_x(self().core->lx), phys_y(self().core->ly), my_offset(addr, "get_noc_addr"));
}

uint64_t emu_noc_mcast_addr(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint32_t addr) {
    uint64_t h = (x0 & 63) | ((y0 & 63) << 6) | ((x1 & 63) << 12) | (static_cast<uint64_t>(y1 & 63) << 18);
    return kMcastFlag | (h << kNocLocalBits) | my_offset(addr, "get_noc_multicast_addr");
}

uint64_t emu_dram_page_addr(uint32_t base, uint32_t page_size, uint32_t id, uint32_t offset) {
    uint32_t banks = static_cast<uint32_t>(g_dev->arch.dram_banks);
    uint32_t aligned = (page_size + 31) / 32 * 32;
    return enc(0, static_cast<int>(id % banks), static_cast<uint64_t>(base) + static_cast<uint64_t>(id / banks) * aligned + offset);
}

uint64_t emu_l1_page_addr(uint32_t base, uint32_t page_size, uint32_t id, uint32_t offset) {
    (void)base, (void)page_size, (void)id, (void)offset;
    fail("interleaved L1 buffers are not emulated");
}

uint32_t emu_df_tile_size(uint8_t fmt) {
    switch (fmt) {
        case 0: case 8: case 24: return 4096;
        case 1: case 5: case 9: return 2048;
        case 30: return 1024;
        case 2: case 6: return 1088;
        case 3: case 7: return 576;
        default: fail("InterleavedAddrGenFast: data format " + std::to_string(fmt) + " has no tile size here");
    }
}

void emu_noc_read(uint64_t src, uint32_t dst_l1, uint32_t size) {
    uint8_t *d = local(dst_l1, size, "noc_async_read");
    Lock lk(g_run.mu);
    std::memmove(d, resolve(src, size, "noc_async_read"), size);
    changed();
}

void emu_check_trid(uint32_t trid, const char *call) {
    if (trid > 0xF)
        fail(std::string(call) + "(" + std::to_string(trid) + "): transaction ids are 0..15");
}

void emu_noc_write(uint32_t src_l1, uint64_t dst, uint32_t size) {
    uint8_t *s = local(src_l1, size, "noc_async_write");
    Lock lk(g_run.mu);
    std::memmove(resolve(dst, size, "noc_async_write"), s, size);
    changed();
}

void emu_noc_write_mcast(uint32_t src_l1, uint64_t dst_mcast, uint32_t size, uint32_t num_dests, bool loopback) {
    uint8_t *s = local(src_l1, size, "noc_async_write_multicast");
    auto dests = mcast_dests(dst_mcast, num_dests, loopback, "noc_async_write_multicast");
    uint64_t off = mcast_rect(dst_mcast).off;
    if (off + size > g_dev->arch.l1_size) fail("noc_async_write_multicast: L1 range past the end of L1");
    Lock lk(g_run.mu);
    for (Core *c : dests) std::memmove(c->l1 + off, s, size);
    changed();
}

// ---- semaphores ----

uint32_t emu_semaphore_addr(uint32_t id) {
    if (id >= kMaxSems) fail("get_semaphore(" + std::to_string(id) + "): no such semaphore");
    return l1_addr(kSemBase + id * kSemStride);
}

static volatile uint32_t *sem_ptr(volatile uint32_t *p, const char *what) {
    uint32_t a = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p));
    if (reinterpret_cast<uintptr_t>(p) > 0xffffffffu || g_dev->core_of_l1_ptr(a) != self().core)
        fail(std::string(what) + ": pointer is not in this core's L1");
    return p;
}

void emu_sem_wait(volatile uint32_t *addr, uint32_t val) {
    sem_ptr(addr, "noc_semaphore_wait");
    Lock lk(g_run.mu);
    block(lk, [&] { return *addr == val; },
          [&] {
              return "noc_semaphore_wait on " + sem_name(self().core, addr) + ": wants value " + std::to_string(val) +
                     ", has " + std::to_string(*addr);
          });
}

void emu_sem_wait_min(volatile uint32_t *addr, uint32_t val) {
    sem_ptr(addr, "noc_semaphore_wait_min");
    Lock lk(g_run.mu);
    block(lk, [&] { return *addr >= val; },
          [&] {
              return "noc_semaphore_wait_min on " + sem_name(self().core, addr) + ": wants value >= " +
                     std::to_string(val) + ", has " + std::to_string(*addr);
          });
}

void emu_sem_set(volatile uint32_t *addr, uint32_t val) {
    sem_ptr(addr, "noc_semaphore_set");
    Lock lk(g_run.mu);
    *addr = val;
    changed();
}

void emu_sem_inc(uint64_t addr, uint32_t incr) {
    Lock lk(g_run.mu);
    lk.unlock();
    uint8_t *p = resolve(addr, 4, "noc_semaphore_inc");
    if (reinterpret_cast<uintptr_t>(p) % 4) fail("noc_semaphore_inc: unaligned address");
    lk.lock();
    *reinterpret_cast<volatile uint32_t *>(p) += incr;
    changed();
}

void emu_sem_set_mcast(uint32_t src_l1, uint64_t dst_mcast, uint32_t num_dests, bool loopback) {
    uint8_t *s = local(src_l1, 4, "noc_semaphore_set_multicast");
    auto dests = mcast_dests(dst_mcast, num_dests, loopback, "noc_semaphore_set_multicast");
    uint64_t off = mcast_rect(dst_mcast).off;
    Lock lk(g_run.mu);
    for (Core *c : dests) std::memcpy(c->l1 + off, s, 4);
    changed();
}

void emu_sem_set_remote(uint32_t src_l1, uint64_t dst) {
    uint8_t *s = local(src_l1, 4, "noc_semaphore_set_remote");
    uint8_t *d = resolve(dst, 4, "noc_semaphore_set_remote");
    Lock lk(g_run.mu);
    std::memcpy(d, s, 4);
    changed();
}

// ---- compute ----

namespace {

constexpr int kTile = 1024;

struct ComputeState {
    std::vector<float> dst = std::vector<float>(16 * kTile, 0.0f);
    bool touched[16] = {};
    int phase = 0;  // 0 free, 1 math (acquired), 2 committed, 3 pack (waited), 4 legacy acquire_dst
    bool l1_acc = false;  // pack_reconfig_l1_acc: packs add to what the pages hold
};
ComputeState &cs() {
    KernelThread &t = self();
    if (!t.compute_state) t.compute_state = std::make_shared<ComputeState>();
    return *static_cast<ComputeState *>(t.compute_state.get());
}

float bf16_to_f(uint16_t b) {
    uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
uint16_t f_to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return static_cast<uint16_t>((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
}
float round_bf16(float f) { return bf16_to_f(f_to_bf16(f)); }

// stored position of element (r, c) of a tile: four 16x16 faces, row-major within a face
inline int tidx(int r, int c) { return (((r >> 4) << 1) | (c >> 4)) * 256 + (r & 15) * 16 + (c & 15); }

int dst_capacity() {
    bool fp32 = self().ccfg.fp32_dest_acc;
    return fp32 ? 4 : 8;  // half of Dst (double-buffered between math and pack)
}

void check_dst(uint32_t idst, const char *what, bool math) {
    ComputeState &c = cs();
    if (static_cast<int>(idst) >= dst_capacity())
        fail(std::string(what) + ": Dst index " + std::to_string(idst) + " but Dst holds " +
             std::to_string(dst_capacity()) + " tiles in this mode");
    if (math && c.phase != 1 && c.phase != 4)
        fail(std::string(what) + ": math on Dst outside tile_regs_acquire .. tile_regs_commit");
    if (!math && c.phase != 3 && c.phase != 4)
        fail(std::string(what) + ": pack from Dst outside tile_regs_wait .. tile_regs_release");
}

float *dst_tile(uint32_t idst) { return cs().dst.data() + idst * kTile; }

float dst_store(float v) { return self().ccfg.fp32_dest_acc ? v : round_bf16(v); }

// read tile `tile` past the front of a CB into floats (stored order)
void read_tile(uint32_t cb, uint32_t tile, float *out, const char *what) {
    Lock lk(g_run.mu);
    CBState &s = cb_of(static_cast<int>(cb), what);
    if (tile >= s.received - s.acked) {
        std::string m = std::string(what) + ": reads tile " + std::to_string(tile) + " of CB " + std::to_string(cb) +
                        " but only " + std::to_string(s.received - s.acked) + " pages are at its front (cb_wait_front first)";
        lk.unlock();
        fail(m);
    }
    // the unpacker addresses tile `tile` from the read pointer without wrapping: a tile past
    // the ring's end is not the CB's (on the card it reads whatever lies beyond)
    if (s.rd_ptr + (tile + 1) * s.page_size > s.fifo_addr + s.fifo_size) {
        std::string m = std::string(what) + ": reads tile " + std::to_string(tile) + " of CB " + std::to_string(cb) +
                        " past the end of its ring (the front is page " +
                        std::to_string((s.rd_ptr - s.fifo_addr) / s.page_size) + " of " + std::to_string(s.num_pages) +
                        "; tiles are not read across the end)";
        lk.unlock();
        fail(m);
    }
    uint32_t off = s.rd_ptr + tile * s.page_size;
    const uint8_t *p = self().core->l1 + off;
    if (s.format == FMT_FLOAT32) {
        std::memcpy(out, p, kTile * 4);
    } else if (s.format == FMT_BFP8_B || s.format == FMT_BFP4_B) {
        bfp_decode_tile(p, out, s.format);
    } else {
        for (int i = 0; i < kTile; i++) {
            uint16_t b;
            std::memcpy(&b, p + 2 * i, 2);
            out[i] = bf16_to_f(b);
        }
    }
}

}  // namespace

void emu_compute_init(uint32_t cb_in, uint32_t cb_out) {
    (void)cb_in, (void)cb_out;
    cs();
}

void emu_dst_acquire() {
    ComputeState &c = cs();
    if (c.phase != 0) fail("tile_regs_acquire: Dst is already acquired (release it first)");
    c.phase = 1;
}
void emu_dst_commit() {
    ComputeState &c = cs();
    if (c.phase != 1) fail("tile_regs_commit without tile_regs_acquire");
    c.phase = 2;
}
void emu_dst_wait() {
    ComputeState &c = cs();
    if (c.phase != 2) fail("tile_regs_wait without tile_regs_commit");
    c.phase = 3;
}
void emu_dst_release() {
    ComputeState &c = cs();
    if (c.phase != 3) fail("tile_regs_release without tile_regs_wait");
    c.phase = 0;
    std::fill(c.dst.begin(), c.dst.end(), 0.0f);  // the packer leaves Dst cleared
    for (bool &t : c.touched) t = false;
}

void emu_unpack_to_dst(uint32_t cb, uint32_t tile, uint32_t idst) {
    check_dst(idst, "copy_tile", true);
    float buf[kTile];
    read_tile(cb, tile, buf, "copy_tile");
    float *d = dst_tile(idst);
    for (int i = 0; i < kTile; i++) d[i] = dst_store(buf[i]);
    cs().touched[idst] = true;
}

// unary_bcast: tile `tile` of cb broadcast into Dst[idst] - its column 0 across the columns
// (COL), its row 0 down the rows (ROW) or its element (0, 0) everywhere (SCALAR); NONE copies
void emu_unary_bcast(uint32_t cb, uint32_t tile, uint32_t idst, int bcast) {
    check_dst(idst, "unary_bcast", true);
    float buf[kTile];
    read_tile(cb, tile, buf, "unary_bcast");
    float *d = dst_tile(idst);
    for (int r = 0; r < 32; r++)
        for (int c = 0; c < 32; c++) {
            int sr = bcast == 2 || bcast == 0 ? r : 0, sc = bcast == 1 || bcast == 0 ? c : 0;
            d[tidx(r, c)] = dst_store(buf[tidx(sr, sc)]);
        }
    cs().touched[idst] = true;
}

void emu_matmul(uint32_t cb0, uint32_t cb1, uint32_t t0, uint32_t t1, uint32_t idst, uint32_t transpose) {
    check_dst(idst, "matmul_tiles", true);
    static thread_local float a[kTile], b[kTile];
    read_tile(cb0, t0, a, "matmul_tiles");
    read_tile(cb1, t1, b, "matmul_tiles");
    float *d = dst_tile(idst);
    // row-major copies for loomc's numerics; b transposed within the tile when asked
    static thread_local float ar[kTile], br[kTile], dr[kTile];
    for (int r = 0; r < 32; r++)
        for (int c = 0; c < 32; c++) {
            ar[r * 32 + c] = a[tidx(r, c)];
            br[r * 32 + c] = transpose ? b[tidx(c, r)] : b[tidx(r, c)];
            dr[r * 32 + c] = d[tidx(r, c)];
        }
    // MathFidelity (LoFi 0, HiFi2 2, HiFi3 3, HiFi4 4) as loomc's arch_fidelity
    int f = self().ccfg.fidelity;
    num_tile_matmul_acc(dr, ar, br, f <= 0 ? 0 : f - 1);
    for (int r = 0; r < 32; r++)
        for (int c = 0; c < 32; c++) d[tidx(r, c)] = dst_store(dr[r * 32 + c]);
    cs().touched[idst] = true;
}

namespace {
// a tile (stored order: four faces) as loomc's numerics take it (row-major), and back into
// Dst with Dst's rounding
void to_rm(const float *t, float *rm) {
    for (int r = 0; r < 32; r++)
        for (int c = 0; c < 32; c++) rm[r * 32 + c] = t[tidx(r, c)];
}
void from_rm(const float *rm, float *t) {
    for (int r = 0; r < 32; r++)
        for (int c = 0; c < 32; c++) t[tidx(r, c)] = dst_store(rm[r * 32 + c]);
}
// EltwiseBinaryType (ELWMUL 0, ELWDIV 1, ELWADD 2, ELWSUB 3) and BroadcastType (NONE 0,
// ROW 1, COL 2, SCALAR 3) as loomc's num_binop and num_bcast
int num_op(int op, const char *what) {
    if (op == 1) fail(std::string(what) + ": division is not emulated");
    return op == 0 ? 2 : op == 2 ? 0 : 1;
}
int num_bc(int bcast) { return bcast == 1 ? 2 : bcast == 2 ? 1 : bcast; }
}  // namespace

void emu_binary(int op, uint32_t cb0, uint32_t cb1, uint32_t t0, uint32_t t1, uint32_t idst, int bcast) {
    check_dst(idst, "eltwise binary", true);
    static thread_local float a[kTile], b[kTile], ar[kTile], br[kTile], dr[kTile];
    read_tile(cb0, t0, a, "eltwise binary");
    read_tile(cb1, t1, b, "eltwise binary");
    to_rm(a, ar);
    to_rm(b, br);
    num_tile_binop(dr, ar, br, num_op(op, "eltwise binary"), num_bc(bcast));
    from_rm(dr, dst_tile(idst));
    cs().touched[idst] = true;
}

// reuse 1: Dst is the first operand (DEST_TO_SRCA), 2: the second (DEST_TO_SRCB)
void emu_binary_dest_reuse(int op, uint32_t cb, uint32_t t, uint32_t idst, int reuse) {
    check_dst(idst, "binary_dest_reuse_tiles", true);
    static thread_local float b[kTile], br[kTile], dr[kTile];
    read_tile(cb, t, b, "binary_dest_reuse_tiles");
    to_rm(b, br);
    to_rm(dst_tile(idst), dr);
    int o = num_op(op, "binary_dest_reuse_tiles");
    if (reuse == 2)
        num_tile_binop(dr, br, dr, o, 0);
    else
        num_tile_binop(dr, dr, br, o, 0);
    from_rm(dr, dst_tile(idst));
    cs().touched[idst] = true;
}

void emu_sfpu(int op, uint32_t idst, uint32_t param, bool approx) {
    check_dst(idst, "an SFPU call", true);
    static thread_local float dr[kTile];
    float *d = dst_tile(idst);
    to_rm(d, dr);
    float x;
    std::memcpy(&x, &param, 4);
    switch (op) {
    case EMU_EXP: num_tile_unop(dr, dr, approx ? 1 : 0); break;
    case EMU_EXP2: num_tile_unop(dr, dr, approx ? 3 : 2); break;
    case EMU_LOG: num_tile_unop(dr, dr, 4); break;
    case EMU_RECIP: num_tile_unop(dr, dr, 5); break;
    case EMU_NEG: num_tile_unop(dr, dr, 6); break;
    case EMU_SQRT:
    case EMU_RSQRT:
    case EMU_SIGMOID:
        if (approx) fail("the approximate mode of sqrt, rsqrt or sigmoid is not emulated");
        num_tile_unop(dr, dr, op == EMU_SQRT ? 7 : op == EMU_RSQRT ? 8 : 9);
        break;
    case EMU_MUL_SCALAR: num_tile_scale(dr, dr, x); break;
    case EMU_ADD_SCALAR:
        for (float &v : dr) v += x;
        break;
    case EMU_FILL:
        for (float &v : dr) v = x;
        break;
    case EMU_GTZ: for (float &v : dr) v = v > 0 ? 1.0f : 0.0f; break;
    case EMU_GEZ: for (float &v : dr) v = v >= 0 ? 1.0f : 0.0f; break;
    case EMU_LTZ: for (float &v : dr) v = v < 0 ? 1.0f : 0.0f; break;
    case EMU_LEZ: for (float &v : dr) v = v <= 0 ? 1.0f : 0.0f; break;
    case EMU_EQZ: for (float &v : dr) v = v == 0 ? 1.0f : 0.0f; break;
    case EMU_NEZ: for (float &v : dr) v = v != 0 ? 1.0f : 0.0f; break;
    default: fail("an SFPU call that is not emulated");
    }
    from_rm(dr, d);
    cs().touched[idst] = true;
}

// Dst[i0] = Dst[i0] op Dst[i1] (op: add 0, mul 2, max 3 as num_binop)
void emu_sfpu_binary(int op, uint32_t i0, uint32_t i1) {
    check_dst(i0, "an SFPU binary call", true);
    check_dst(i1, "an SFPU binary call", true);
    static thread_local float ar[kTile], br[kTile];
    to_rm(dst_tile(i0), ar);
    to_rm(dst_tile(i1), br);
    num_tile_binop(ar, ar, br, op, 0);
    from_rm(ar, dst_tile(i0));
}

// mask_tile: the data in Dst[idst] is zeroed where the mask in Dst[idst + 1] is 0
void emu_mask(uint32_t idst) {
    check_dst(idst, "mask_tile", true);
    check_dst(idst + 1, "mask_tile (its mask in the next Dst tile)", true);
    float *d = dst_tile(idst);
    const float *m = dst_tile(idst + 1);
    for (int i = 0; i < kTile; i++)
        if (m[i] == 0.0f) d[i] = 0.0f;
}

void emu_transpose(uint32_t cb, uint32_t t, uint32_t idst) {
    check_dst(idst, "transpose_wh_tile", true);
    static thread_local float a[kTile], ar[kTile], dr[kTile];
    read_tile(cb, t, a, "transpose_wh_tile");
    to_rm(a, ar);
    num_tile_transpose(dr, ar);
    from_rm(dr, dst_tile(idst));
    cs().touched[idst] = true;
}

void emu_unary(int op, uint32_t idst, bool approx) { emu_sfpu(op, idst, 0, approx); }

void emu_reduce(int pool, int dim, uint32_t cb, uint32_t cb_scaler, uint32_t t, uint32_t ts, uint32_t idst) {
    check_dst(idst, "reduce_tile", true);
    static thread_local float a[kTile], s[kTile];
    read_tile(cb, t, a, "reduce_tile");
    read_tile(cb_scaler, ts, s, "reduce_tile");
    float sc = s[0];
    float *d = dst_tile(idst);
    bool first = !cs().touched[idst];
    if (dim == 0 && sc == 1.0f) {  // a row reduction as loomc's numerics make it
        static thread_local float ar[kTile], dr[kTile];
        to_rm(a, ar);
        to_rm(d, dr);
        num_tile_reduce_row(dr, ar, pool == 2 ? 0 : 1, !first);
        from_rm(dr, d);
        cs().touched[idst] = true;
        return;
    }
    auto put = [&](int r, int c, float v) {
        float &o = d[tidx(r, c)];
        o = dst_store(pool == 2 ? (first ? v : std::max(o, v)) : o + v);
    };
    if (dim == 0) {  // REDUCE_ROW: one value per row, in column 0
        for (int r = 0; r < 32; r++) {
            float acc = pool == 2 ? -INFINITY : 0.0f;
            for (int c = 0; c < 32; c++) acc = pool == 2 ? std::max(acc, a[tidx(r, c)] * sc) : acc + a[tidx(r, c)] * sc;
            put(r, 0, acc);
        }
    } else if (dim == 1) {  // REDUCE_COL: one value per column, in row 0
        for (int c = 0; c < 32; c++) {
            float acc = pool == 2 ? -INFINITY : 0.0f;
            for (int r = 0; r < 32; r++) acc = pool == 2 ? std::max(acc, a[tidx(r, c)] * sc) : acc + a[tidx(r, c)] * sc;
            put(0, c, acc);
        }
    } else {
        float acc = pool == 2 ? -INFINITY : 0.0f;
        for (int i = 0; i < kTile; i++) acc = pool == 2 ? std::max(acc, a[i] * sc) : acc + a[i] * sc;
        put(0, 0, acc);
    }
    cs().touched[idst] = true;
}

void emu_pack(uint32_t idst, uint32_t cb, uint32_t out_tile, bool out_of_order) {
    check_dst(idst, "pack_tile", false);
    Lock lk(g_run.mu);
    CBState &s = cb_of(static_cast<int>(cb), "pack_tile");
    uint32_t pos = out_of_order ? out_tile : s.pack_tile_ptr++;
    uint32_t free_pages = s.num_pages - (s.received - s.acked);
    if (pos >= free_pages) {
        std::string m = "pack_tile: tile " + std::to_string(pos) + " of CB " + std::to_string(cb) + " but only " +
                        std::to_string(free_pages) + " pages are free at its back (cb_reserve_back first)";
        lk.unlock();
        fail(m);
    }
    if (s.wr_ptr + (pos + 1) * s.page_size > s.fifo_addr + s.fifo_size) {
        std::string m = "pack_tile: tile " + std::to_string(pos) + " of CB " + std::to_string(cb) +
                        " past the end of its ring (the back is page " +
                        std::to_string((s.wr_ptr - s.fifo_addr) / s.page_size) + " of " + std::to_string(s.num_pages) +
                        "; tiles are not packed across the end)";
        lk.unlock();
        fail(m);
    }
    uint32_t off = s.wr_ptr + pos * s.page_size;
    uint8_t *p = self().core->l1 + off;
    const float *d = dst_tile(idst);
    // the tile to store (plus what the page holds under L1 accumulation), rounded by the
    // packer as loomc's numerics round it (num_pack_tile: the order of elements does not matter)
    static thread_local float v[kTile];
    bool acc = cs().l1_acc, f32 = s.format == FMT_FLOAT32, bfp = s.format == FMT_BFP8_B || s.format == FMT_BFP4_B;
    static thread_local float old_tile[kTile];
    if (acc && bfp) bfp_decode_tile(p, old_tile, s.format);
    for (int i = 0; i < kTile; i++) {
        v[i] = d[i];
        if (!acc) continue;
        if (bfp) {
            v[i] += old_tile[i];
        } else if (f32) {
            float old;
            std::memcpy(&old, p + 4 * i, 4);
            v[i] += old;
        } else {
            uint16_t old;
            std::memcpy(&old, p + 2 * i, 2);
            v[i] += bf16_to_f(old);
        }
    }
    num_pack_tile(v, f32 ? 1 : s.format == FMT_BFP8_B ? 2 : s.format == FMT_BFP4_B ? 3 : 0);
    if (bfp) {
        bfp_encode_tile(v, p, s.format);
        return;
    }
    for (int i = 0; i < kTile; i++) {
        if (f32) {
            std::memcpy(p + 4 * i, &v[i], 4);
        } else {
            uint32_t u;
            std::memcpy(&u, &v[i], 4);
            uint16_t b = static_cast<uint16_t>(u >> 16);
            std::memcpy(p + 2 * i, &b, 2);
        }
    }
}

void emu_pack_l1_acc(bool on) { cs().l1_acc = on; }
