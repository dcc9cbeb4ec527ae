// host.cpp - host emulation of TT-Metalium (test harness): the host API. A device is a
// grid of cores with L1 byte arrays and DRAM banks; a program is run by building each
// kernel source once per distinct compile-time configuration (as the release's JIT build
// does), loading it, and running one thread per (core, RISC); a watchdog turns a hang
// into a named report. It checks a program's logic, not its timing.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include <tt-metalium/bfloat4.hpp>
#include <tt-metalium/bfloat8.hpp>
#include <tt-metalium/host_api.hpp>

#include "emu.hpp"

#ifndef EMU_INCLUDE_DIR
#define EMU_INCLUDE_DIR ""
#endif

namespace emu {

Run g_run;
Device *g_dev = nullptr;
thread_local KernelThread *t_self = nullptr;

static const Arch kArchs[] = {
    {"wormhole_b0", 8, 8, 1464 * 1024, 12},
    {"blackhole", 13, 10, 1536 * 1024, 8},
};

const char *risc_name(int r) {
    switch (r) {
        case RISC_BRISC: return "RISCV_0 (BRISC)";
        case RISC_NCRISC: return "RISCV_1 (NCRISC)";
        default: return "compute (TRISC)";
    }
}

std::string where(const KernelThread *t) {
    std::ostringstream o;
    o << "core (" << t->core->lx << "," << t->core->ly << ") " << risc_name(t->risc) << " running "
      << t->kernel_name;
    return o.str();
}

Core *Device::core_at_logical(int x, int y) {
    if (x < 0 || y < 0 || x >= arch.grid_x || y >= arch.grid_y) return nullptr;
    return &cores[static_cast<size_t>(y * arch.grid_x + x)];
}

Core *Device::core_at_phys(int x, int y) { return core_at_logical(x - 1, y - 1); }

Core *Device::core_of_l1_ptr(uint32_t addr) {
    uintptr_t a = addr, base = reinterpret_cast<uintptr_t>(l1_region);
    if (a < base || a >= base + l1_region_size) return nullptr;
    return &cores[(a - base) / arch.l1_size];
}

[[noreturn]] void fail(const std::string &msg) { throw KernelError{msg}; }

// a kernel thread stopped on an error: record the first one and stop the run
static void record_failure(const std::string &msg) {
    {
        std::lock_guard<std::mutex> lk(g_run.mu);
        if (g_run.failure.empty())
            g_run.failure = "emu: error: " + (t_self ? where(t_self) + ": " : std::string()) + msg;
        g_run.abort = true;
    }
    g_run.cv.notify_all();
}

}  // namespace emu

using namespace emu;

namespace tt::tt_metal {

struct KernelDef {
    std::string path;
    bool compute = false;
    int risc = 0;
    int noc = 0;
    std::vector<uint32_t> cargs;
    std::map<std::string, std::string> defines;
    ComputeCfg ccfg;
    std::vector<CoreCoord> cores;
    std::map<CoreCoord, std::vector<uint32_t>> rt;
    std::vector<uint32_t> common;
};

struct CBDef {
    std::vector<CoreCoord> cores;
    CircularBufferConfig cfg;
    uint32_t addr;
};

struct SemDef {
    std::vector<CoreCoord> cores;
    uint32_t init;
};

struct ProgramImpl {
    std::vector<KernelDef> kernels;
    std::vector<CBDef> cbs;
    std::vector<SemDef> sems;
    uint32_t cb_next = kCBBase;
};

Program::Program() : impl_(std::make_shared<ProgramImpl>()) {}
Program CreateProgram() { return Program(); }

static std::vector<CoreCoord> expand(const CoreSpec &spec) {
    std::set<CoreCoord> s;
    auto add = [&](const CoreRange &r) {
        for (size_t y = r.start_coord.y; y <= r.end_coord.y; y++)
            for (size_t x = r.start_coord.x; x <= r.end_coord.x; x++) s.insert({x, y});
    };
    if (auto c = std::get_if<CoreCoord>(&spec)) s.insert(*c);
    if (auto r = std::get_if<CoreRange>(&spec)) add(*r);
    if (auto rs = std::get_if<CoreRangeSet>(&spec))
        for (const auto &r : rs->ranges()) add(r);
    for (const auto &c : s)
        if (!g_dev || !g_dev->core_at_logical(static_cast<int>(c.x), static_cast<int>(c.y))) {
            std::fprintf(stderr, "emu: error: core (%zu,%zu) is outside the device's worker grid\n", c.x, c.y);
            std::exit(2);
        }
    return {s.begin(), s.end()};
}

[[noreturn]] static void host_fail(const std::string &msg) {
    std::fprintf(stderr, "emu: error: %s\n", msg.c_str());
    std::exit(2);
}

// ---- device ----

Device::Device(chip_id_t id) : id_(id), cq_(this) {}
Device::~Device() {}

tt::ARCH Device::arch() const {
    return std::strcmp(g_dev->arch.name, "blackhole") == 0 ? tt::ARCH::BLACKHOLE : tt::ARCH::WORMHOLE_B0;
}
CoreCoord Device::compute_with_storage_grid_size() const {
    return {static_cast<size_t>(g_dev->arch.grid_x), static_cast<size_t>(g_dev->arch.grid_y)};
}
CoreCoord Device::worker_core_from_logical_core(const CoreCoord &c) const {
    return {static_cast<size_t>(phys_x(static_cast<int>(c.x))), static_cast<size_t>(phys_y(static_cast<int>(c.y)))};
}
uint32_t Device::num_dram_channels() const { return static_cast<uint32_t>(g_dev->arch.dram_banks); }
uint32_t Device::l1_size_per_core() const { return g_dev->arch.l1_size; }
CommandQueue &Device::command_queue(size_t cq_id) {
    if (cq_id != 0) host_fail("the emulator has one command queue (0)");
    return cq_;
}

static Device *g_device_obj = nullptr;

Device *CreateDevice(chip_id_t device_id, const uint8_t num_hw_cqs, const size_t l1_small_size,
                     const size_t trace_region_size) {
    (void)num_hw_cqs, (void)l1_small_size, (void)trace_region_size;
    if (device_id != 0) host_fail("the emulator has one device (0)");
    if (g_dev) host_fail("CreateDevice: device 0 is already open");
    const char *an = std::getenv("EMU_ARCH");
    std::string want = an && *an ? an : "wormhole_b0";
    const Arch *arch = nullptr;
    for (const auto &a : kArchs)
        if (want == a.name) arch = &a;
    if (!arch) host_fail("EMU_ARCH=" + want + ": known are wormhole_b0 and blackhole");
    auto *d = new emu::Device();
    d->arch = *arch;
    size_t n = static_cast<size_t>(arch->grid_x * arch->grid_y);
    d->l1_region_size = n * arch->l1_size;
    // L1 addresses are 32-bit in kernels: keep every core's L1 below 4 GiB so that an L1
    // address is also a host pointer
    void *p = mmap(nullptr, d->l1_region_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) host_fail("cannot map L1 below 4 GiB");
    d->l1_region = static_cast<uint8_t *>(p);
    d->cores.resize(n);
    for (int y = 0; y < arch->grid_y; y++)
        for (int x = 0; x < arch->grid_x; x++) {
            Core &c = d->cores[static_cast<size_t>(y * arch->grid_x + x)];
            c.lx = x, c.ly = y;
            c.l1 = d->l1_region + static_cast<size_t>(y * arch->grid_x + x) * arch->l1_size;
        }
    d->dram.resize(static_cast<size_t>(arch->dram_banks));
    g_dev = d;
    g_device_obj = new Device(device_id);
    return g_device_obj;
}

bool CloseDevice(Device *device) {
    if (!device || device != g_device_obj) return false;
    munmap(g_dev->l1_region, g_dev->l1_region_size);
    delete g_dev;
    g_dev = nullptr;
    delete g_device_obj;
    g_device_obj = nullptr;
    return true;
}

size_t GetNumAvailableDevices() { return 1; }

// ---- buffers ----

std::shared_ptr<Buffer> CreateBuffer(const InterleavedBufferConfig &config) {
    if (!g_dev) host_fail("CreateBuffer before CreateDevice");
    if (config.buffer_type != BufferType::DRAM) host_fail("CreateBuffer: the emulator has interleaved DRAM buffers only");
    if (config.page_size == 0 || config.size % config.page_size != 0)
        host_fail("CreateBuffer: size " + std::to_string(config.size) + " is not a multiple of page size " +
                  std::to_string(config.page_size));
    uint64_t pages = config.size / config.page_size;
    uint64_t banks = static_cast<uint64_t>(g_dev->arch.dram_banks);
    uint64_t aligned_page = (config.page_size + 31) / 32 * 32;
    uint64_t per_bank = (pages + banks - 1) / banks * aligned_page;
    uint64_t addr = (g_dev->dram_next + 31) / 32 * 32;
    g_dev->dram_next = addr + per_bank;
    for (auto &b : g_dev->dram) b.resize(static_cast<size_t>(g_dev->dram_next), 0);
    return std::make_shared<Buffer>(config.device, addr, config.size, config.page_size, BufferType::DRAM);
}

void DeallocateBuffer(Buffer &buffer) { (void)buffer; }

static Buffer &deref(BufferRef &b) {
    if (auto r = std::get_if<std::reference_wrapper<Buffer>>(&b)) return r->get();
    return *std::get<std::shared_ptr<Buffer>>(b);
}

// interleaved mapping: page i in bank i % nbanks at address + (i / nbanks) * aligned page size
static uint8_t *dram_page(const Buffer &b, uint64_t page) {
    uint64_t banks = static_cast<uint64_t>(g_dev->arch.dram_banks);
    uint64_t aligned_page = (b.page_size() + 31) / 32 * 32;
    return g_dev->dram[page % banks].data() + b.address() + (page / banks) * aligned_page;
}

void EnqueueWriteBuffer(CommandQueue &cq, BufferRef buffer, const void *src, bool blocking) {
    (void)cq, (void)blocking;
    Buffer &b = deref(buffer);
    const uint8_t *s = static_cast<const uint8_t *>(src);
    for (uint64_t i = 0; i < b.num_pages(); i++) std::memcpy(dram_page(b, i), s + i * b.page_size(), b.page_size());
}

void EnqueueReadBuffer(CommandQueue &cq, BufferRef buffer, void *dst, bool blocking) {
    (void)cq, (void)blocking;
    Buffer &b = deref(buffer);
    uint8_t *d = static_cast<uint8_t *>(dst);
    for (uint64_t i = 0; i < b.num_pages(); i++) std::memcpy(d + i * b.page_size(), dram_page(b, i), b.page_size());
}

void Finish(CommandQueue &cq) { (void)cq; }

// ---- CBs, semaphores, kernels, args ----

CBHandle CreateCircularBuffer(Program &program, const CoreSpec &core_spec, const CircularBufferConfig &config) {
    ProgramImpl &p = program.impl();
    for (const auto &f : config.data_formats()) {
        if (f.first >= kNumCBs) host_fail("CreateCircularBuffer: CB index " + std::to_string(f.first) + " out of range");
        auto ps = config.page_sizes().find(f.first);
        if (ps == config.page_sizes().end() || ps->second == 0)
            host_fail("CreateCircularBuffer: CB " + std::to_string(f.first) + " has no page size");
        if (config.total_size() % ps->second != 0)
            host_fail("CreateCircularBuffer: CB " + std::to_string(f.first) + " total size " +
                      std::to_string(config.total_size()) + " is not a multiple of its page size " +
                      std::to_string(ps->second));
        if (f.second != tt::DataFormat::Float16_b && f.second != tt::DataFormat::Float32 &&
            f.second != tt::DataFormat::Bfp8_b && f.second != tt::DataFormat::Bfp4_b)
            host_fail("CreateCircularBuffer: CB " + std::to_string(f.first) +
                      ": the emulator's compute handles Float16_b, Float32, Bfp8_b and Bfp4_b only");
    }
    CBDef d{expand(core_spec), config, p.cb_next};
    p.cb_next += (config.total_size() + 31) / 32 * 32;
    if (p.cb_next > g_dev->arch.l1_size)
        host_fail("CreateCircularBuffer: CBs need " + std::to_string(p.cb_next) + " bytes of L1, a core has " +
                  std::to_string(g_dev->arch.l1_size));
    p.cbs.push_back(d);
    return p.cbs.size();
}

uint32_t CreateSemaphore(Program &program, const std::variant<CoreRange, CoreRangeSet> &core_spec,
                         uint32_t initial_value, CoreType core_type) {
    (void)core_type;
    ProgramImpl &p = program.impl();
    if (p.sems.size() >= kMaxSems) host_fail("CreateSemaphore: too many semaphores");
    CoreSpec cs = std::holds_alternative<CoreRange>(core_spec) ? CoreSpec(std::get<CoreRange>(core_spec))
                                                               : CoreSpec(std::get<CoreRangeSet>(core_spec));
    p.sems.push_back({expand(cs), initial_value});
    return static_cast<uint32_t>(p.sems.size() - 1);
}

KernelHandle CreateKernel(Program &program, const std::string &file_name, const CoreSpec &core_spec,
                          const std::variant<DataMovementConfig, ComputeConfig, EthernetConfig> &config) {
    KernelDef k;
    k.path = file_name;
    k.cores = expand(core_spec);
    if (auto dm = std::get_if<DataMovementConfig>(&config)) {
        k.risc = dm->processor == DataMovementProcessor::RISCV_0 ? RISC_BRISC : RISC_NCRISC;
        k.noc = dm->noc;
        k.cargs = dm->compile_args;
        k.defines = dm->defines;
    } else if (auto cc = std::get_if<ComputeConfig>(&config)) {
        k.compute = true;
        k.risc = RISC_COMPUTE;
        k.cargs = cc->compile_args;
        k.defines = cc->defines;
        k.ccfg.fp32_dest_acc = cc->fp32_dest_acc_en;
        k.ccfg.approx = cc->math_approx_mode;
        k.ccfg.fidelity = static_cast<int>(cc->math_fidelity);
    } else {
        host_fail("CreateKernel: " + file_name + ": Ethernet kernels are not emulated");
    }
    ProgramImpl &p = program.impl();
    for (const auto &o : p.kernels)
        for (const auto &c : k.cores)
            if (o.risc == k.risc && std::find(o.cores.begin(), o.cores.end(), c) != o.cores.end())
                host_fail("CreateKernel: " + file_name + " and " + o.path + " both on " + risc_name(k.risc) +
                          " of core (" + std::to_string(c.x) + "," + std::to_string(c.y) + ")");
    p.kernels.push_back(k);
    return p.kernels.size() - 1;
}

static KernelDef &kernel_of(const Program &program, KernelHandle h) {
    ProgramImpl &p = program.impl();
    if (h >= p.kernels.size()) host_fail("SetRuntimeArgs: no kernel " + std::to_string(h));
    return p.kernels[h];
}

void SetRuntimeArgs(const Program &program, KernelHandle kernel, const CoreSpec &core_spec,
                    stl::Span<const uint32_t> runtime_args) {
    KernelDef &k = kernel_of(program, kernel);
    for (const auto &c : expand(core_spec)) {
        if (std::find(k.cores.begin(), k.cores.end(), c) == k.cores.end())
            host_fail("SetRuntimeArgs: kernel " + k.path + " is not on core (" + std::to_string(c.x) + "," +
                      std::to_string(c.y) + ")");
        k.rt[c] = std::vector<uint32_t>(runtime_args.begin(), runtime_args.end());
    }
}

void SetRuntimeArgs(const Program &program, KernelHandle kernel, const std::vector<CoreCoord> &core_spec,
                    const std::vector<std::vector<uint32_t>> &runtime_args) {
    if (core_spec.size() != runtime_args.size()) host_fail("SetRuntimeArgs: cores and argument lists differ in number");
    for (size_t i = 0; i < core_spec.size(); i++) SetRuntimeArgs(program, kernel, core_spec[i], runtime_args[i]);
}

void SetCommonRuntimeArgs(const Program &program, KernelHandle kernel_id, stl::Span<const uint32_t> runtime_args) {
    kernel_of(program, kernel_id).common = std::vector<uint32_t>(runtime_args.begin(), runtime_args.end());
}

// ---- the kernel build ----

using Entry = void (*)();
static std::map<std::string, Entry> g_built;

static std::string shq(const std::string &s) {
    std::string o = "'";
    for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return o + "'";
}

static std::string resolve_kernel(const std::string &path) {
    auto exists = [](const std::string &p) { return access(p.c_str(), R_OK) == 0; };
    if (!path.empty() && path[0] == '/') return path;
    char cwd[4096];
    if (exists(path) && getcwd(cwd, sizeof cwd)) return std::string(cwd) + "/" + path;
    for (const char *var : {"TT_METAL_KERNEL_PATH", "TT_METAL_HOME"}) {
        const char *root = std::getenv(var);
        if (root && *root && exists(std::string(root) + "/" + path)) return std::string(root) + "/" + path;
    }
    host_fail("CreateKernel: kernel source " + path + " not found (relative to the working directory, "
              "TT_METAL_KERNEL_PATH or TT_METAL_HOME)");
}

static Entry build_kernel(const KernelDef &k) {
    std::string src = resolve_kernel(k.path);
    const char *inc_env = std::getenv("EMU_INCLUDE_DIR");
    std::string inc = inc_env && *inc_env ? inc_env : EMU_INCLUDE_DIR;
    const char *cxx_env = std::getenv("EMU_CXX");
    std::string cxx = cxx_env && *cxx_env ? cxx_env : "g++";
    const char *fl_env = std::getenv("EMU_KERNEL_CXXFLAGS");
    std::string flags = fl_env ? fl_env : "-O1";
    std::ostringstream defs;
    defs << " -DKERNEL_BUILD=1 -DNOC_INDEX=" << k.noc;
    defs << (k.risc == RISC_BRISC ? " -DCOMPILE_FOR_BRISC" : k.risc == RISC_NCRISC ? " -DCOMPILE_FOR_NCRISC" : " -DCOMPILE_FOR_TRISC");
    for (size_t i = 0; i < k.cargs.size(); i++) defs << " -DKERNEL_COMPILE_TIME_ARG_" << i << "=" << k.cargs[i] << "u";
    for (const auto &d : k.defines) defs << " " << shq("-D" + d.first + "=" + d.second);
    if (k.compute) {
        defs << " -DMATH_FIDELITY=" << k.ccfg.fidelity << " -DDST_ACCUM_MODE=" << (k.ccfg.fp32_dest_acc ? 1 : 0)
             << " -DAPPROX=" << (k.ccfg.approx ? "true" : "false");
    }
    std::string cmd_tail = " -std=c++17 -fPIC -shared " + flags + " -I" + shq(inc) + defs.str();
    std::string key = cxx + "|" + src + "|" + std::to_string(k.compute) + "|" + cmd_tail;
    auto it = g_built.find(key);
    if (it != g_built.end()) return it->second;

    const char *cache_env = std::getenv("EMU_KERNEL_CACHE");
    const char *tmp = std::getenv("TMPDIR");
    std::string cache = cache_env && *cache_env ? cache_env
                                                : std::string(tmp && *tmp ? tmp : "/tmp") + "/metal-emu-" + std::to_string(getuid());
    std::string mk = "mkdir -p " + shq(cache);
    if (std::system(mk.c_str()) != 0) host_fail("cannot create the kernel cache " + cache);
    char hex[32];
    std::snprintf(hex, sizeof hex, "%016zx", std::hash<std::string>{}(key));
    std::string base = cache + "/k" + hex;
    std::string wrapper = base + ".cpp", so = base + ".so";
    if (access(so.c_str(), R_OK) != 0) {
        std::string tmpw = base + "." + std::to_string(getpid()) + ".cpp";
        {
            std::ofstream w(tmpw);
            w << "// generated: one emulated build of " << k.path << "\n";
            w << "#include " << '"' << src << '"' << "\n";
            if (k.compute)
                w << "extern \"C\" void emu_kernel_entry() { NAMESPACE::MAIN; }\n";
            else
                w << "extern \"C\" void emu_kernel_entry() { kernel_main(); }\n";
        }
        std::string tmpso = base + "." + std::to_string(getpid()) + ".so";
        std::string cmd = cxx + cmd_tail + " " + shq(tmpw) + " -o " + shq(tmpso);
        if (std::system(cmd.c_str()) != 0) host_fail("kernel build failed: " + k.path + "\n  " + cmd);
        std::rename(tmpw.c_str(), wrapper.c_str());
        std::rename(tmpso.c_str(), so.c_str());
    }
    void *h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) host_fail(std::string("cannot load the built kernel ") + k.path + ": " + dlerror());
    void *sym = dlsym(h, "emu_kernel_entry");
    if (!sym) host_fail("built kernel " + k.path + " has no entry");
    Entry e = reinterpret_cast<Entry>(sym);
    g_built[key] = e;
    return e;
}

// ---- running a program ----

static std::string hang_report(bool all_blocked, double seconds) {
    std::ostringstream o;
    if (all_blocked)
        o << "emu: hang: every running kernel thread is blocked and nothing has changed\n";
    else
        o << "emu: hang: nothing has changed for " << seconds << " s (EMU_WATCHDOG_SECONDS)\n";
    for (const KernelThread *t : g_run.threads)
        if (!t->finished && t->waiting) o << "  " << where(t) << " waits in " << t->wait_what << "\n";
    for (const KernelThread *t : g_run.threads)
        if (!t->finished && !t->waiting) o << "  " << where(t) << " is running (not in a wait)\n";
    int done = 0;
    for (const KernelThread *t : g_run.threads) done += t->finished;
    o << "  (" << done << " of " << g_run.threads.size() << " kernel threads had finished)";
    return o.str();
}

// EMU_CB_COUNTS=FILE: after each program, one line per CB of each core it configured -
// "program x y cb pushes pops pages_pushed pages_popped" (logical x, y), the program counted
// from 0 in the order of EnqueueProgram calls; the file is started anew by program 0. loomc's
// tests compare these with the simulator's counts of the same dataflow program.
static void write_cb_counts(const ProgramImpl &p) {
    (void)p;
    static int program = 0;
    const char *path = std::getenv("EMU_CB_COUNTS");
    if (!path || !*path) return;
    FILE *f = std::fopen(path, program == 0 ? "w" : "a");
    if (!f) host_fail(std::string("cannot write EMU_CB_COUNTS file '") + path + "'");
    std::vector<const Core *> cores;
    for (const auto &c : g_dev->cores) cores.push_back(&c);
    std::sort(cores.begin(), cores.end(), [](const Core *a, const Core *b) {
        return a->ly != b->ly ? a->ly < b->ly : a->lx < b->lx;
    });
    for (const Core *c : cores)
        for (int i = 0; i < kNumCBs; i++) {
            const CBState &s = c->cb[i];
            if (!s.configured) continue;
            std::fprintf(f, "%d %d %d %d %u %u %u %u\n", program, c->lx, c->ly, i, s.pushes, s.pops, s.received, s.acked);
        }
    std::fclose(f);
    program++;
}

void EnqueueProgram(CommandQueue &cq, Program &program, bool blocking) {
    (void)cq, (void)blocking;
    ProgramImpl &p = program.impl();
    // CBs and semaphores are set up anew for every run
    for (auto &c : g_dev->cores)
        for (auto &cb : c.cb) cb = CBState{};
    for (const auto &d : p.cbs)
        for (const auto &cc : d.cores) {
            Core *c = g_dev->core_at_logical(static_cast<int>(cc.x), static_cast<int>(cc.y));
            for (const auto &f : d.cfg.data_formats()) {
                CBState &s = c->cb[f.first];
                if (s.configured)
                    host_fail("CreateCircularBuffer: CB " + std::to_string(f.first) + " configured twice on core (" +
                              std::to_string(cc.x) + "," + std::to_string(cc.y) + ")");
                s.configured = true;
                s.fifo_addr = d.addr;
                s.fifo_size = d.cfg.total_size();
                s.page_size = d.cfg.page_sizes().at(f.first);
                s.num_pages = s.fifo_size / s.page_size;
                s.format = static_cast<uint8_t>(f.second);
                s.wr_ptr = s.rd_ptr = d.addr;
            }
        }
    for (size_t i = 0; i < p.sems.size(); i++)
        for (const auto &cc : p.sems[i].cores) {
            Core *c = g_dev->core_at_logical(static_cast<int>(cc.x), static_cast<int>(cc.y));
            uint32_t v = p.sems[i].init;
            std::memcpy(c->l1 + kSemBase + i * kSemStride, &v, 4);
        }
    std::vector<std::unique_ptr<KernelThread>> kts;
    std::vector<Entry> entries;
    for (const auto &k : p.kernels) {
        Entry e = build_kernel(k);
        for (const auto &cc : k.cores) {
            auto t = std::make_unique<KernelThread>();
            t->core = g_dev->core_at_logical(static_cast<int>(cc.x), static_cast<int>(cc.y));
            t->risc = k.risc;
            t->noc = k.noc;
            t->kernel_name = k.path.substr(k.path.find_last_of('/') + 1);
            auto a = k.rt.find(cc);
            if (a != k.rt.end()) t->rt_args = a->second;
            t->common_args = k.common;
            t->ccfg = k.ccfg;
            kts.push_back(std::move(t));
            entries.push_back(e);
        }
    }
    g_run.threads.clear();
    for (auto &t : kts) g_run.threads.push_back(t.get());
    g_run.abort = false;
    g_run.failure.clear();
    g_run.blocked = 0;
    g_run.running = static_cast<int>(kts.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < kts.size(); i++) {
        KernelThread *t = kts[i].get();
        Entry e = entries[i];
        threads.emplace_back([t, e] {
            t_self = t;
            try {
                e();
            } catch (AbortRun &) {
            } catch (KernelError &ke) {
                record_failure(ke.msg);
            } catch (std::exception &ex) {
                record_failure(std::string("exception: ") + ex.what());
            }
            {
                std::lock_guard<std::mutex> lk(g_run.mu);
                t->finished = true;
                g_run.running--;
                g_run.progress++;
            }
            g_run.cv.notify_all();
        });
    }
    // the watchdog
    const char *ws = std::getenv("EMU_WATCHDOG_SECONDS");
    double limit = ws && *ws ? std::atof(ws) : 30.0;
    bool hang = false;
    {
        std::unique_lock<std::mutex> lk(g_run.mu);
        uint64_t last = g_run.progress;
        int stalls = 0;
        auto last_change = std::chrono::steady_clock::now();
        while (g_run.running > 0 && !g_run.abort) {
            g_run.cv.wait_for(lk, std::chrono::milliseconds(20));
            auto now = std::chrono::steady_clock::now();
            if (g_run.progress != last) {
                last = g_run.progress;
                last_change = now;
                stalls = 0;
                continue;
            }
            bool all_blocked = g_run.running > 0 && g_run.blocked == g_run.running;
            if (all_blocked) {
                if (++stalls >= 10) hang = true;  // 200 ms with every thread blocked, nothing changed
            } else {
                stalls = 0;
            }
            if (std::chrono::duration<double>(now - last_change).count() > limit) hang = true;
            if (hang) {
                g_run.failure = hang_report(all_blocked, limit);
                g_run.abort = true;
                g_run.cv.notify_all();
            }
        }
        // let every thread unwind; one spinning outside the API cannot, so give up on it
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (g_run.running > 0) {
            if (g_run.cv.wait_until(lk, deadline) == std::cv_status::timeout && g_run.running > 0) {
                std::fprintf(stderr, "%s\nemu: a kernel thread does not stop; exiting\n", g_run.failure.c_str());
                std::fflush(stderr);
                _exit(3);
            }
        }
    }
    for (auto &t : threads) t.join();
    g_run.threads.clear();
    if (!g_run.failure.empty()) {
        std::fprintf(stderr, "%s\n", g_run.failure.c_str());
        std::exit(hang ? 3 : 2);
    }
    write_cb_counts(p);
}

}  // namespace tt::tt_metal

// ---- tt-metal's host converters of block-float tiles (bfloat8.hpp, bfloat4.hpp) ----

// loomc's model of the host's conversion (src/num): n values rounded to a format, 16 at a time
extern "C" void num_round_array(float *x, int64_t n, int format);

namespace {

// Stored position (four 16 x 16 faces) of element (r, c) of a row-major tile.
size_t stored_index(int r, int c) { return static_cast<size_t>(((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16); }

uint8_t bfp_fmt(tt::DataFormat f, bool is_exp_a, const char *what) {
    if (is_exp_a || (f != tt::DataFormat::Bfp8_b && f != tt::DataFormat::Bfp4_b))
        tt::tt_metal::host_fail(std::string(what) + ": only the _b block-float formats (is_exp_a false) are emulated");
    return f == tt::DataFormat::Bfp8_b ? FMT_BFP8_B : FMT_BFP4_B;
}

}  // namespace

std::vector<uint32_t> emu_pack_bfp_tiles(tt::stl::Span<const float> v, bool row_major_input, bool is_exp_a,
                                         tt::DataFormat format) {
    uint8_t fmt = bfp_fmt(format, is_exp_a, "pack_fp32_vec_as_bfp_tiles");
    if (v.size() % 1024 != 0) tt::tt_metal::host_fail("pack_fp32_vec_as_bfp_tiles: the values are not whole tiles");
    uint32_t page = tt::tile_size(format);
    std::vector<uint32_t> out(v.size() / 1024 * page / 4);
    float tile[1024];
    for (size_t t = 0; t < v.size() / 1024; t++) {
        for (int r = 0; r < 32; r++)
            for (int c = 0; c < 32; c++) {
                size_t s = stored_index(r, c);
                tile[s] = v[t * 1024 + (row_major_input ? static_cast<size_t>(r * 32 + c) : s)];
            }
        num_round_array(tile, 1024, fmt == FMT_BFP8_B ? 2 : 3);
        bfp_encode_tile(tile, reinterpret_cast<uint8_t *>(out.data()) + t * page, fmt);
    }
    return out;
}

std::vector<float> emu_unpack_bfp_tiles(const std::vector<uint32_t> &tiles, bool row_major_output, bool is_exp_a,
                                        tt::DataFormat format) {
    uint8_t fmt = bfp_fmt(format, is_exp_a, "unpack_bfp_tiles_into_float_vec");
    uint32_t page = tt::tile_size(format);
    if (tiles.size() * 4 % page != 0) tt::tt_metal::host_fail("unpack_bfp_tiles_into_float_vec: the words are not whole tiles");
    size_t n = tiles.size() * 4 / page;
    std::vector<float> out(n * 1024);
    float tile[1024];
    for (size_t t = 0; t < n; t++) {
        bfp_decode_tile(reinterpret_cast<const uint8_t *>(tiles.data()) + t * page, tile, fmt);
        for (int r = 0; r < 32; r++)
            for (int c = 0; c < 32; c++) {
                size_t s = stored_index(r, c);
                out[t * 1024 + (row_major_output ? static_cast<size_t>(r * 32 + c) : s)] = tile[s];
            }
    }
    return out;
}
