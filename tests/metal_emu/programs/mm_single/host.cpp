// host.cpp - test program: single-core matmul C = A B (bf16, M=64, K=128, N=96) on the
// emulated device: reader -> compute (matmul_tiles over K in Dst) -> writer; the result
// is compared with a float reference within bf16 tolerance.
#include <cstdio>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/host_api.hpp>

#include "../common.hpp"

using namespace tt;
using namespace tt::tt_metal;

int main() {
    const uint32_t M = 64, K = 128, N = 96, Mt = M / 32, Kt = K / 32, Nt = N / 32;
    Device *device = CreateDevice(0);
    CommandQueue &cq = device->command_queue();
    Program program = CreateProgram();
    CoreCoord core = {0, 0};

    const uint32_t tile = 2048;
    auto dram = [&](uint32_t tiles) {
        return CreateBuffer(InterleavedBufferConfig{device, tiles * tile, tile, BufferType::DRAM});
    };
    auto a_buf = dram(Mt * Kt), b_buf = dram(Kt * Nt), c_buf = dram(Mt * Nt);

    for (uint8_t cb : {0, 1, 16}) {
        CircularBufferConfig cfg = CircularBufferConfig(2 * tile, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile);
        CreateCircularBuffer(program, core, cfg);
    }

    KernelHandle reader = CreateKernel(program, "programs/mm_single/kernels/reader.cpp", core,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                          .noc = NOC::RISCV_1_default,
                                                          .compile_args = {1, 1}});
    KernelHandle writer = CreateKernel(program, "programs/mm_single/kernels/writer.cpp", core,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                          .noc = NOC::RISCV_0_default});
    CreateKernel(program, "programs/mm_single/kernels/compute.cpp", core,
                 ComputeConfig{.math_fidelity = MathFidelity::HiFi4, .compile_args = {Mt * Nt, Kt}});

    auto a = test::random_bf16(M * K, -1.0f, 1.0f, 1), b = test::random_bf16(K * N, -1.0f, 1.0f, 2);
    auto at = test::tilize(a, M, K), bt = test::tilize(b, K, N);
    EnqueueWriteBuffer(cq, a_buf, at, false);
    EnqueueWriteBuffer(cq, b_buf, bt, false);
    SetRuntimeArgs(program, reader, core,
                   {static_cast<uint32_t>(a_buf->address()), static_cast<uint32_t>(b_buf->address()), Mt, Kt, Nt});
    SetRuntimeArgs(program, writer, core, {static_cast<uint32_t>(c_buf->address()), Mt * Nt, 0u});
    EnqueueProgram(cq, program, false);
    Finish(cq);

    std::vector<bfloat16> ct;
    EnqueueReadBuffer(cq, c_buf, ct, true);
    auto c = test::untilize(ct, M, N);
    std::vector<float> want(M * N);
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            float s = 0;
            for (uint32_t k = 0; k < K; k++) s += a[i * K + k].to_float() * b[k * N + j].to_float();
            want[i * N + j] = s;
        }
    // Dst in bf16 rounds each K-tile partial sum: allow a few bf16 ulps of the magnitude
    bool ok = test::close(c, want, 0.02f, 0.06f, "mm_single");
    CloseDevice(device);
    return ok ? 0 : 1;
}
