// host.cpp - written by loomc: the host program of a job for a TT-Metalium device.
// Job: flash_attention.py on wormhole_n150, shape B=1,H=1,S=64,D=32; schedule: loom. Every launch runs in order on device 0.
// It opens device 0, creates the job's DRAM tensors, uploads the inputs from
// INPUTS/NAME.f32, runs the launches in order and writes the outputs to OUTPUTS/NAME.f32
// (little-endian float32, the tensor's rows x cols elements row-major; README.md).
// Usage: loomc_job [INPUTS [OUTPUTS]]   (default: inputs outputs)
#include <cstdint>
#include <string>
#include <vector>

#include <tt-metalium/device.hpp>
#include <tt-metalium/host_api.hpp>

#include "loomc_host.h"
#include "schedule.h"

using namespace tt;
using namespace tt::tt_metal;

// where the kernel sources are (CMakeLists.txt sets it to this folder's kernels/)
#ifndef LOOMC_KERNELS
#define LOOMC_KERNELS "kernels"
#endif

// the compute grid the job was scheduled for (wormhole_n150)
constexpr uint32_t GRID_W = 8, GRID_H = 8;

// the NoC coordinates of the grid's columns, then of its rows
static std::vector<uint32_t> noc_tables(Device *device) {
    std::vector<uint32_t> v;
    for (uint32_t x = 0; x < GRID_W; x++) v.push_back(device->worker_core_from_logical_core({x, 0}).x);
    for (uint32_t y = 0; y < GRID_H; y++) v.push_back(device->worker_core_from_logical_core({0, y}).y);
    return v;
}

// a kernel's common runtime args: the addresses of the tensors it reaches, then the NoC tables
static std::vector<uint32_t> loomc_common(std::vector<uint32_t> addresses, const std::vector<uint32_t> &noc) {
    addresses.insert(addresses.end(), noc.begin(), noc.end());
    return addresses;
}

// launch 0: program attention_fwd, 1 core class
static void launch_0(Device *device, CommandQueue &cq, const std::vector<loomc::Tensor> &job) {
    Program program = CreateProgram();
    const std::vector<loomc::Tensor> t = {job[0], job[1], job[2], job[3]};
    // the core classes: rectangles of logical cores
    const CoreRange cores_0_0({0, 0}, {1, 0});
    const CoreRangeSet all(std::vector<CoreRange>{cores_0_0});
    // circular buffers: one tile a page
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(2 * 2048, {{0, tt::DataFormat::Float16_b}}).set_page_size(0, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(4 * 2048, {{1, tt::DataFormat::Float16_b}}).set_page_size(1, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(4 * 2048, {{2, tt::DataFormat::Float16_b}}).set_page_size(2, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(2 * 4096, {{4, tt::DataFormat::Float32}}).set_page_size(4, 4096));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(2 * 4096, {{5, tt::DataFormat::Float32}}).set_page_size(5, 4096));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(1 * 4096, {{6, tt::DataFormat::Float32}}).set_page_size(6, 4096));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(1 * 4096, {{7, tt::DataFormat::Float32}}).set_page_size(7, 4096));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(2 * 2048, {{3, tt::DataFormat::Float16_b}}).set_page_size(3, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(2 * 2048, {{8, tt::DataFormat::Float16_b}}).set_page_size(8, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(2 * 2048, {{9, tt::DataFormat::Float16_b}}).set_page_size(9, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(1 * 2048, {{10, tt::DataFormat::Float16_b}}).set_page_size(10, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(1 * 2048, {{11, tt::DataFormat::Float16_b}}).set_page_size(11, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(1 * 4096, {{12, tt::DataFormat::Float32}}).set_page_size(12, 4096));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(1 * 2048, {{13, tt::DataFormat::Float16_b}}).set_page_size(13, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(1 * 2048, {{14, tt::DataFormat::Float16_b}}).set_page_size(14, 2048));
    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{cores_0_0}),
                         CircularBufferConfig(2 * 4096, {{15, tt::DataFormat::Float32}}).set_page_size(15, 4096));
    // semaphores: one word on every core of the program
    const std::vector<uint32_t> noc = noc_tables(device);

    {  // class cores_0_0
        const KernelHandle reader = CreateKernel(program, LOOMC_KERNELS "/l0_cores_0_0_reader.cpp", cores_0_0,
            DataMovementConfig{.processor = DataMovementProcessor::RISCV_0, .noc = NOC::NOC_0,
                               .compile_args = {}});
        SetCommonRuntimeArgs(program, reader, loomc_common({t[0].address(), t[1].address(), t[2].address()}, {}));
        const KernelHandle compute = CreateKernel(program, LOOMC_KERNELS "/l0_cores_0_0_compute.cpp", cores_0_0,
            ComputeConfig{.math_fidelity = MathFidelity::HiFi2, .fp32_dest_acc_en = false, .math_approx_mode = true});
        const KernelHandle writer = CreateKernel(program, LOOMC_KERNELS "/l0_cores_0_0_writer.cpp", cores_0_0,
            DataMovementConfig{.processor = DataMovementProcessor::RISCV_1, .noc = NOC::NOC_1,
                               .compile_args = {}});
        SetCommonRuntimeArgs(program, writer, loomc_common({t[3].address()}, {}));
        for (int64_t cy = 0; cy <= 0; cy++)
            for (int64_t cx = 0; cx <= 1; cx++) {
                const std::vector<uint32_t> args = {static_cast<uint32_t>(cx), static_cast<uint32_t>(cy)};
                SetRuntimeArgs(program, reader, CoreCoord(cx, cy), args);
                SetRuntimeArgs(program, compute, CoreCoord(cx, cy), args);
                SetRuntimeArgs(program, writer, CoreCoord(cx, cy), args);
            }
    }
    EnqueueProgram(cq, program, false);
}

int main(int argc, char **argv) {
    const std::string inputs = argc > 1 ? argv[1] : "inputs", outputs = argc > 2 ? argv[2] : "outputs";
    Device *device = CreateDevice(0);
    const CoreCoord grid = device->compute_with_storage_grid_size();
    if (grid.x < GRID_W || grid.y < GRID_H)
        loomc::fail("the device's compute grid is " + std::to_string(grid.x) + "x" + std::to_string(grid.y) +
                    ", the job was scheduled for " + std::to_string(GRID_W) + "x" + std::to_string(GRID_H));
    CommandQueue &cq = device->command_queue();

    // the job's DRAM tensors: name, rows, columns (elements), storage format, bytes of a tile
    const std::vector<loomc::Tensor> job = {
        loomc::make_tensor(device, "q", 64, 32, tt::DataFormat::Float16_b, 2048),  // input
        loomc::make_tensor(device, "k", 64, 32, tt::DataFormat::Float16_b, 2048),  // input
        loomc::make_tensor(device, "v", 64, 32, tt::DataFormat::Float16_b, 2048),  // input
        loomc::make_tensor(device, "o", 64, 32, tt::DataFormat::Float16_b, 2048),  // output
    };
    loomc::upload(cq, job[0], inputs);
    loomc::upload(cq, job[1], inputs);
    loomc::upload(cq, job[2], inputs);

    launch_0(device, cq, job);
    Finish(cq);

    loomc::download(cq, job[3], outputs);
    CloseDevice(device);
    return 0;
}
