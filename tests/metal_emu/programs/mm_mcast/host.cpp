// host.cpp - test program: multicore matmul C = A B (bf16, M=64, K=128, N=96) on a 3x2
// grid, one output tile per core; the first core of each row reads the row's A tiles and
// multicasts them to the row with a sender/receiver semaphore handshake; every core reads
// its own B tiles. With the argument "fault", one receiver skips one semaphore increment,
// and the run must end in the watchdog's hang report; with "fault_rect", the multicast
// rectangle reaches one core past the row's receivers, which the emulator must report.
#include <cstdio>
#include <cstring>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/device.hpp>
#include <tt-metalium/host_api.hpp>

#include "../common.hpp"

using namespace tt;
using namespace tt::tt_metal;

int main(int argc, char **argv) {
    bool fault = argc > 1 && std::strcmp(argv[1], "fault") == 0;
    bool fault_rect = argc > 1 && std::strcmp(argv[1], "fault_rect") == 0;
    const uint32_t M = 64, K = 128, N = 96, Mt = M / 32, Kt = K / 32, Nt = N / 32;
    Device *device = CreateDevice(0);
    CommandQueue &cq = device->command_queue();
    Program program = CreateProgram();

    CoreRange all({0, 0}, {Nt - 1, Mt - 1});
    CoreRange senders({0, 0}, {0, Mt - 1});
    CoreRange receivers({1, 0}, {Nt - 1, Mt - 1});
    CoreCoord faulty = {Nt - 1, 0};

    const uint32_t tile = 2048;
    auto dram = [&](uint32_t tiles) {
        return CreateBuffer(InterleavedBufferConfig{device, tiles * tile, tile, BufferType::DRAM});
    };
    auto a_buf = dram(Mt * Kt), b_buf = dram(Kt * Nt), c_buf = dram(Mt * Nt);

    for (uint8_t cb : {CBIndex::c_0, CBIndex::c_1, CBIndex::c_16}) {
        CircularBufferConfig cfg = CircularBufferConfig(2 * tile, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile);
        CreateCircularBuffer(program, all, cfg);
    }
    uint32_t sender_sem = CreateSemaphore(program, all, 0);
    uint32_t receiver_sem = CreateSemaphore(program, all, 0);

    KernelHandle snd = CreateKernel(program, "programs/mm_mcast/kernels/reader_sender.cpp", senders,
                                    DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                       .noc = NOC::RISCV_0_default});
    std::vector<CoreRange> healthy;
    if (fault) {
        // all receivers but the faulty one
        healthy.push_back(CoreRange({1, 1}, {Nt - 1, Mt - 1}));
        if (Nt > 2) healthy.push_back(CoreRange({1, 0}, {Nt - 2, 0}));
    } else {
        healthy.push_back(receivers);
    }
    KernelHandle rcv = CreateKernel(program, "programs/mm_mcast/kernels/reader_receiver.cpp", CoreRangeSet(healthy),
                                    DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                       .noc = NOC::RISCV_1_default});
    KernelHandle rcv_bad = 0;
    if (fault)
        rcv_bad = CreateKernel(program, "programs/mm_mcast/kernels/reader_receiver.cpp", faulty,
                               DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                  .noc = NOC::RISCV_1_default,
                                                  .defines = {{"SKIP_SEM_INC", "1"}}});
    KernelHandle wr = CreateKernel(program, "programs/mm_single/kernels/writer.cpp", all,
                                   DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                      .noc = NOC::RISCV_0_default});
    CreateKernel(program, "programs/mm_single/kernels/compute.cpp", all,
                 ComputeConfig{.math_fidelity = MathFidelity::HiFi4, .compile_args = {1, Kt}});

    auto a = test::random_bf16(M * K, -1.0f, 1.0f, 3), b = test::random_bf16(K * N, -1.0f, 1.0f, 4);
    auto at = test::tilize(a, M, K), bt = test::tilize(b, K, N);
    EnqueueWriteBuffer(cq, a_buf, at, false);
    EnqueueWriteBuffer(cq, b_buf, bt, false);

    uint32_t a_addr = static_cast<uint32_t>(a_buf->address()), b_addr = static_cast<uint32_t>(b_buf->address());
    for (uint32_t m = 0; m < Mt; m++) {
        CoreCoord first = device->worker_core_from_logical_core({1, m});
        CoreCoord last = device->worker_core_from_logical_core({fault_rect ? Nt : Nt - 1, m});
        CoreCoord sender = device->worker_core_from_logical_core({0, m});
        for (uint32_t n = 0; n < Nt; n++) {
            CoreCoord core = {n, m};
            if (n == 0) {
                SetRuntimeArgs(program, snd, core,
                               {a_addr, b_addr, Kt, Nt, m, n, static_cast<uint32_t>(first.x),
                                static_cast<uint32_t>(first.y), static_cast<uint32_t>(last.x),
                                static_cast<uint32_t>(last.y), Nt - 1, sender_sem, receiver_sem});
            } else {
                std::vector<uint32_t> args = {b_addr, Kt, Nt, n, static_cast<uint32_t>(sender.x),
                                              static_cast<uint32_t>(sender.y), sender_sem, receiver_sem};
                SetRuntimeArgs(program, fault && core == faulty ? rcv_bad : rcv, core, args);
            }
            SetRuntimeArgs(program, wr, core, {static_cast<uint32_t>(c_buf->address()), 1u, m * Nt + n});
        }
    }
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
    bool ok = test::close(c, want, 0.02f, 0.06f, "mm_mcast");
    CloseDevice(device);
    return ok ? 0 : 1;
}
