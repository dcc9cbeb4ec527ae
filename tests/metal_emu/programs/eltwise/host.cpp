// host.cpp - test program: element-wise and reduce operations on one core, by mode:
//   exp          exp, exact, bf16 CBs and bf16 Dst
//   exp_approx   exp in approximate mode (math_approx_mode)
//   exp_fp32     exp on an fp32 input CB with fp32 Dst accumulation
//   recip        reciprocal
//   add, mul     element-wise sum and product of two bf16 inputs
//   sub_bcast_row  A minus the first row of each B tile, broadcast down the tile
//   reduce_sum   row sums of a 64x128 bf16 matrix (scaler 1)
//   reduce_max   row maxima, scaled by 0.5
//   fault_cb     the reader is given one tile too few: the run must end in the watchdog's
//                hang report naming the compute kernel's wait on CB 0
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/host_api.hpp>

#include "../common.hpp"

using namespace tt;
using namespace tt::tt_metal;

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "exp";
    bool reduce = mode.rfind("reduce", 0) == 0;
    bool fp32 = mode == "exp_fp32";
    bool binary = mode == "add" || mode == "mul" || mode == "sub_bcast_row";
    const uint32_t rows = reduce ? 64 : 32, cols = 128, Ht = rows / 32, Wt = cols / 32, n_in = Ht * Wt;
    const uint32_t n_out = reduce ? Ht : n_in;
    const uint32_t in_tile = fp32 ? 4096 : 2048, out_tile = 2048;

    Device *device = CreateDevice(0);
    CommandQueue &cq = device->command_queue();
    Program program = CreateProgram();
    CoreCoord core = {1, 2};

    auto in_buf = CreateBuffer(InterleavedBufferConfig{device, n_in * in_tile, in_tile, BufferType::DRAM});
    auto out_buf = CreateBuffer(InterleavedBufferConfig{device, n_out * out_tile, out_tile, BufferType::DRAM});
    CreateCircularBuffer(program, core,
                         CircularBufferConfig(2 * in_tile, {{CBIndex::c_0, fp32 ? DataFormat::Float32 : DataFormat::Float16_b}})
                             .set_page_size(CBIndex::c_0, in_tile));
    CreateCircularBuffer(program, core,
                         CircularBufferConfig(2 * out_tile, {{CBIndex::c_16, DataFormat::Float16_b}})
                             .set_page_size(CBIndex::c_16, out_tile));
    auto in2_buf = CreateBuffer(InterleavedBufferConfig{device, n_in * out_tile, out_tile, BufferType::DRAM});
    if (binary)
        CreateCircularBuffer(program, core,
                             CircularBufferConfig(2 * out_tile, {{CBIndex::c_1, DataFormat::Float16_b}})
                                 .set_page_size(CBIndex::c_1, out_tile));
    if (reduce)
        CreateCircularBuffer(program, core,
                             CircularBufferConfig(out_tile, {{CBIndex::c_2, DataFormat::Float16_b}})
                                 .set_page_size(CBIndex::c_2, out_tile));

    KernelHandle reader = CreateKernel(program, "programs/eltwise/kernels/reader.cpp", core,
                                       ReaderDataMovementConfig({fp32 ? 1u : 0u, reduce ? 1u : 0u, binary ? 1u : 0u}));
    KernelHandle writer = CreateKernel(program, "programs/mm_single/kernels/writer.cpp", core, WriterDataMovementConfig{});
    if (binary)
        CreateKernel(program, "programs/eltwise/kernels/binary.cpp", core,
                     ComputeConfig{.compile_args = {n_in},
                                   .defines = {{mode == "add" ? "OP_ADD" : mode == "mul" ? "OP_MUL" : "OP_SUB_BCAST_ROW", "1"}}});
    else if (reduce)
        CreateKernel(program, "programs/eltwise/kernels/reduce_row.cpp", core,
                     ComputeConfig{.compile_args = {(Ht << 16) | Wt, mode == "reduce_max" ? 1u : 0u}});
    else
        CreateKernel(program, "programs/eltwise/kernels/unary.cpp", core,
                     ComputeConfig{.fp32_dest_acc_en = fp32,
                                   .math_approx_mode = mode == "exp_approx",
                                   .compile_args = {n_in},
                                   .defines = {{mode == "recip" ? "OP_RECIP" : "OP_EXP", "1"}}});

    float lo = mode == "recip" ? 0.25f : reduce ? -1.0f : -4.0f, hi = mode == "recip" ? 4.0f : reduce ? 1.0f : 2.5f;
    auto x = test::random_bf16(rows * cols, lo, hi, 7);
    std::vector<float> xf(x.size());
    uint32_t s = 11;
    for (size_t i = 0; i < x.size(); i++) {
        xf[i] = x[i].to_float();
        if (fp32) {  // fp32 inputs carry bits below bf16's
            s = s * 1664525u + 1013904223u;
            xf[i] += static_cast<float>(s >> 8) / 16777216.0f * 1e-3f;
        }
    }
    std::vector<bfloat16> xt = test::tilize(x, rows, cols);
    auto x2 = test::random_bf16(rows * cols, -2.0f, 2.0f, 9);
    auto x2t = test::tilize(x2, rows, cols);
    EnqueueWriteBuffer(cq, in2_buf, x2t, false);
    if (fp32) {
        // element-wise: tile layout does not matter for the comparison, so keep row-major
        EnqueueWriteBuffer(cq, in_buf, xf, false);
    } else {
        EnqueueWriteBuffer(cq, in_buf, xt, false);
    }
    float scaler = mode == "reduce_max" ? 0.5f : 1.0f;
    uint32_t reader_tiles = mode == "fault_cb" ? n_in - 1 : n_in;  // the planted fault
    SetRuntimeArgs(program, reader, core,
                   {static_cast<uint32_t>(in_buf->address()), reader_tiles, static_cast<uint32_t>(bfloat16(scaler).to_uint16()),
                    static_cast<uint32_t>(in2_buf->address())});
    SetRuntimeArgs(program, writer, core, {static_cast<uint32_t>(out_buf->address()), n_out, 0u});
    EnqueueProgram(cq, program, false);
    Finish(cq);

    std::vector<bfloat16> yt;
    EnqueueReadBuffer(cq, out_buf, yt, true);
    bool ok;
    if (reduce) {
        auto y = test::untilize(yt, rows, 32);
        std::vector<bfloat16> col0(rows);
        std::vector<float> want(rows);
        for (uint32_t r = 0; r < rows; r++) {
            col0[r] = y[r * 32];
            float acc = mode == "reduce_max" ? -INFINITY : 0.0f;
            for (uint32_t c = 0; c < cols; c++)
                acc = mode == "reduce_max" ? std::max(acc, xf[r * cols + c] * scaler) : acc + xf[r * cols + c];
            want[r] = acc;
        }
        ok = test::close(col0, want, 0.01f, 0.05f, mode.c_str());
    } else {
        auto y = fp32 ? yt : test::untilize(yt, rows, cols);
        std::vector<float> want(xf.size());
        for (size_t i = 0; i < xf.size(); i++) {
            float b = x2[i].to_float(), brow = x2[(i / cols / 32 * 32) * cols + i % cols].to_float();
            want[i] = mode == "recip" ? 1.0f / xf[i]
                      : mode == "add" ? xf[i] + b
                      : mode == "mul" ? xf[i] * b
                      : mode == "sub_bcast_row" ? xf[i] - brow
                                                : std::exp(xf[i]);
        }
        if (fp32) {
            // exact fp32 path: one rounding, on pack
            ok = test::close(y, want, 1.0f / 256, 0.0f, mode.c_str());
        } else {
            // the approximate exp is loomc's model of the SFPU's fast mode: within 3.1% plus
            // the bf16 rounding of the result (docs/numerics.md)
            float rtol = mode == "exp_approx" ? 0.035f : 1.0f / 256;
            ok = test::close(y, want, rtol, 1e-6f, mode.c_str());
        }
    }
    CloseDevice(device);
    return ok ? 0 : 1;
}
