// host_api.hpp - host emulation of TT-Metalium (test harness): the host API subset that
// single-device programs use: device, program, interleaved buffers, circular buffers,
// semaphores, kernels with compile-time and runtime args, the command queue. Programs run
// on the host: the emulation checks their logic, not their timing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <tt-metalium/core_coord.hpp>

// Programs fill the config structs with designated initializers that leave members out.
// g++ 12 warns about each left-out member under -Wextra (in C++17 and C++20 alike), so the
// emulated API turns that one warning off for the programs that include it.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tt {

enum class DataFormat : uint8_t {
    Float32 = 0,
    Float16 = 1,
    Bfp8 = 2,
    Bfp4 = 3,
    Float16_b = 5,
    Bfp8_b = 6,
    Bfp4_b = 7,
    Int32 = 8,
    UInt16 = 9,
    UInt32 = 24,
    UInt8 = 30,
    Invalid = 0xff,
};

inline uint32_t tile_size(DataFormat f) {
    switch (f) {
        case DataFormat::Float32:
        case DataFormat::Int32:
        case DataFormat::UInt32: return 4096;
        case DataFormat::Float16:
        case DataFormat::Float16_b:
        case DataFormat::UInt16: return 2048;
        case DataFormat::UInt8: return 1024;
        case DataFormat::Bfp8:
        case DataFormat::Bfp8_b: return 1088;
        case DataFormat::Bfp4:
        case DataFormat::Bfp4_b: return 576;
        default: return 0;
    }
}

enum CBIndex : uint8_t {
    c_0, c_1, c_2, c_3, c_4, c_5, c_6, c_7, c_8, c_9, c_10, c_11, c_12, c_13, c_14, c_15,
    c_16, c_17, c_18, c_19, c_20, c_21, c_22, c_23, c_24, c_25, c_26, c_27, c_28, c_29, c_30, c_31,
};

enum class ARCH { GRAYSKULL = 1, WORMHOLE_B0 = 2, BLACKHOLE = 3, Invalid = 0xff };

namespace stl {
// a view over contiguous uint32_t values (vectors and initializer lists convert to it)
template <typename T>
class Span {
public:
    Span() = default;
    Span(const T *p, std::size_t n) : p_(p), n_(n) {}
    template <typename A>
    Span(const std::vector<std::remove_const_t<T>, A> &v) : p_(v.data()), n_(v.size()) {}
    // the list lives to the end of the call that takes the span
    Span(std::initializer_list<std::remove_const_t<T>> l) {
        p_ = l.begin();
        n_ = l.size();
    }
    const T *begin() const { return p_; }
    const T *end() const { return p_ + n_; }
    std::size_t size() const { return n_; }
    const T &operator[](std::size_t i) const { return p_[i]; }

private:
    const T *p_ = nullptr;
    std::size_t n_ = 0;
};
}  // namespace stl

namespace tt_metal {

using chip_id_t = int;
using DeviceAddr = uint64_t;
using KernelHandle = uintptr_t;
using CBHandle = uintptr_t;

enum class MathFidelity : uint8_t { LoFi = 0, HiFi2 = 2, HiFi3 = 3, HiFi4 = 4, Invalid = 0xff };
enum class DataMovementProcessor { RISCV_0 = 0, RISCV_1 = 1 };
enum NOC : uint8_t { RISCV_0_default = 0, RISCV_1_default = 1, NOC_0 = 0, NOC_1 = 1 };
enum NOC_MODE : uint8_t { DM_DEDICATED_NOC = 0, DM_DYNAMIC_NOC = 1 };
enum class BufferType { DRAM, L1, SYSTEM_MEMORY, L1_SMALL, TRACE };
enum class TensorMemoryLayout { INTERLEAVED = 0, SINGLE_BANK = 1, HEIGHT_SHARDED, WIDTH_SHARDED, BLOCK_SHARDED };
enum class CoreType { WORKER, ETH, PCIE, DRAM };
enum class UnpackToDestMode : uint8_t { Default, UnpackToDestFp32 };

class Device;
class Program;
class CommandQueue;

class Buffer {
public:
    DeviceAddr address() const { return address_; }
    DeviceAddr size() const { return size_; }
    DeviceAddr page_size() const { return page_size_; }
    uint32_t num_pages() const { return static_cast<uint32_t>(size_ / page_size_); }
    BufferType buffer_type() const { return type_; }
    Device *device() const { return device_; }
    // emulator internals
    Buffer(Device *d, DeviceAddr addr, DeviceAddr size, DeviceAddr page, BufferType t)
        : device_(d), address_(addr), size_(size), page_size_(page), type_(t) {}

private:
    Device *device_;
    DeviceAddr address_, size_, page_size_;
    BufferType type_;
};

struct InterleavedBufferConfig {
    Device *device;
    DeviceAddr size;
    DeviceAddr page_size;
    BufferType buffer_type = BufferType::DRAM;
    TensorMemoryLayout buffer_layout = TensorMemoryLayout::INTERLEAVED;
};

class CircularBufferConfig {
public:
    CircularBufferConfig(uint32_t total_size, const std::map<uint8_t, tt::DataFormat> &data_format_spec)
        : total_size_(total_size), formats_(data_format_spec) {}
    CircularBufferConfig &set_page_size(uint8_t buffer_index, uint32_t page_size) {
        page_sizes_[buffer_index] = page_size;
        return *this;
    }
    CircularBufferConfig &set_total_size(uint32_t total_size) {
        total_size_ = total_size;
        return *this;
    }
    uint32_t total_size() const { return total_size_; }
    const std::map<uint8_t, tt::DataFormat> &data_formats() const { return formats_; }
    const std::map<uint8_t, uint32_t> &page_sizes() const { return page_sizes_; }

private:
    uint32_t total_size_;
    std::map<uint8_t, tt::DataFormat> formats_;
    std::map<uint8_t, uint32_t> page_sizes_;
};

struct DataMovementConfig {
    DataMovementProcessor processor = DataMovementProcessor::RISCV_0;
    NOC noc = NOC::RISCV_0_default;
    NOC_MODE noc_mode = NOC_MODE::DM_DEDICATED_NOC;
    std::vector<uint32_t> compile_args;
    std::map<std::string, std::string> defines;
};

struct ReaderDataMovementConfig : DataMovementConfig {
    ReaderDataMovementConfig(std::vector<uint32_t> args = {}, std::map<std::string, std::string> defs = {}) {
        processor = DataMovementProcessor::RISCV_1;
        noc = NOC::RISCV_1_default;
        compile_args = std::move(args);
        defines = std::move(defs);
    }
};

struct WriterDataMovementConfig : DataMovementConfig {
    WriterDataMovementConfig(std::vector<uint32_t> args = {}, std::map<std::string, std::string> defs = {}) {
        processor = DataMovementProcessor::RISCV_0;
        noc = NOC::RISCV_0_default;
        compile_args = std::move(args);
        defines = std::move(defs);
    }
};

struct ComputeConfig {
    MathFidelity math_fidelity = MathFidelity::HiFi4;
    bool fp32_dest_acc_en = false;
    bool dst_full_sync_en = false;
    std::vector<UnpackToDestMode> unpack_to_dest_mode;
    bool bfp8_pack_precise = false;
    bool math_approx_mode = false;
    std::vector<uint32_t> compile_args;
    std::map<std::string, std::string> defines;
};

struct EthernetConfig {
    NOC noc = NOC::NOC_0;
    std::vector<uint32_t> compile_args;
    std::map<std::string, std::string> defines;
};

struct ProgramImpl;
class Program {
public:
    Program();
    ProgramImpl &impl() const { return *impl_; }

private:
    std::shared_ptr<ProgramImpl> impl_;
};

struct DeviceImpl;
class CommandQueue {
public:
    explicit CommandQueue(Device *d) : device_(d) {}
    Device *device() const { return device_; }

private:
    Device *device_;
};

class Device {
public:
    explicit Device(chip_id_t id);
    ~Device();
    Device(const Device &) = delete;
    Device &operator=(const Device &) = delete;
    chip_id_t id() const { return id_; }
    tt::ARCH arch() const;
    CoreCoord compute_with_storage_grid_size() const;
    CoreCoord logical_grid_size() const { return compute_with_storage_grid_size(); }
    CoreCoord worker_core_from_logical_core(const CoreCoord &logical_core) const;
    uint32_t num_dram_channels() const;
    uint32_t l1_size_per_core() const;
    CommandQueue &command_queue(size_t cq_id = 0);

private:
    chip_id_t id_;
    CommandQueue cq_;
};

using CoreSpec = std::variant<CoreCoord, CoreRange, CoreRangeSet>;

Device *CreateDevice(chip_id_t device_id, const uint8_t num_hw_cqs = 1, const size_t l1_small_size = 0,
                     const size_t trace_region_size = 0);
bool CloseDevice(Device *device);
size_t GetNumAvailableDevices();

Program CreateProgram();

KernelHandle CreateKernel(Program &program, const std::string &file_name, const CoreSpec &core_spec,
                          const std::variant<DataMovementConfig, ComputeConfig, EthernetConfig> &config);

CBHandle CreateCircularBuffer(Program &program, const CoreSpec &core_spec, const CircularBufferConfig &config);

uint32_t CreateSemaphore(Program &program, const std::variant<CoreRange, CoreRangeSet> &core_spec,
                         uint32_t initial_value, CoreType core_type = CoreType::WORKER);

std::shared_ptr<Buffer> CreateBuffer(const InterleavedBufferConfig &config);
void DeallocateBuffer(Buffer &buffer);

void SetRuntimeArgs(const Program &program, KernelHandle kernel, const CoreSpec &core_spec,
                    stl::Span<const uint32_t> runtime_args);
void SetRuntimeArgs(const Program &program, KernelHandle kernel, const std::vector<CoreCoord> &core_spec,
                    const std::vector<std::vector<uint32_t>> &runtime_args);
void SetCommonRuntimeArgs(const Program &program, KernelHandle kernel_id, stl::Span<const uint32_t> runtime_args);

using BufferRef = std::variant<std::reference_wrapper<Buffer>, std::shared_ptr<Buffer>>;

void EnqueueWriteBuffer(CommandQueue &cq, BufferRef buffer, const void *src, bool blocking);
template <typename DType>
void EnqueueWriteBuffer(CommandQueue &cq, BufferRef buffer, std::vector<DType> &src, bool blocking) {
    EnqueueWriteBuffer(cq, buffer, static_cast<const void *>(src.data()), blocking);
}
void EnqueueReadBuffer(CommandQueue &cq, BufferRef buffer, void *dst, bool blocking);
template <typename DType>
void EnqueueReadBuffer(CommandQueue &cq, std::shared_ptr<Buffer> buffer, std::vector<DType> &dst, bool blocking) {
    dst.resize(buffer->page_size() * buffer->num_pages() / sizeof(DType));
    EnqueueReadBuffer(cq, BufferRef(buffer), static_cast<void *>(dst.data()), blocking);
}
template <typename DType>
void EnqueueReadBuffer(CommandQueue &cq, Buffer &buffer, std::vector<DType> &dst, bool blocking) {
    dst.resize(buffer.page_size() * buffer.num_pages() / sizeof(DType));
    EnqueueReadBuffer(cq, BufferRef(std::ref(buffer)), static_cast<void *>(dst.data()), blocking);
}
void EnqueueProgram(CommandQueue &cq, Program &program, bool blocking);
void Finish(CommandQueue &cq);

}  // namespace tt_metal

// the old CB names
namespace CB {
enum : uint8_t { c_in0 = 0, c_in1 = 1, c_in2 = 2, c_in3 = 3, c_out0 = 16, c_out1 = 17, c_intermed0 = 24, c_intermed1 = 25 };
}

}  // namespace tt
