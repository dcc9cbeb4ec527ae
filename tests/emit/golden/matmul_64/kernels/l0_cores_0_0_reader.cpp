// l0_cores_0_0_reader.cpp - written by loomc: the reader kernel of core class cores_0_0, cores (0,0)..(3,0),
// of launch 0 (program matmul_kernel). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_a = loomc::tensor(0, 2048, tt::DataFormat::Float16_b, 2);
    const loomc::Tensor dram_b = loomc::tensor(1, 2048, tt::DataFormat::Float16_b, 2);
    // rings of the CBs read ahead into, from their first page (no push has moved them yet)
    const loomc::Ring ring_0 = loomc::ring(0, 8192);
    const loomc::Ring ring_1 = loomc::ring(1, 8192);
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    cb_reserve_back(0, 2);
    // read tensor=a row=(cy*4+cx)/2 col=0 cols=2 cb=0 trid=1
    noc_async_read_set_trid(1);
    loomc::read_tiles_ring(dram_a, loomc::fdiv(cy * 4 + cx, 2), 0, 1, 2, ring_0, 0);
    noc_async_read_set_trid(0);
    cb_reserve_back(1, 2);
    // read tensor=b row=0 col=(cy*4+cx)%2 rows=2 cb=1 trid=3
    noc_async_read_set_trid(3);
    loomc::read_tiles_ring(dram_b, 0, loomc::fmod(cy * 4 + cx, 2), 2, 1, ring_1, 0);
    noc_async_read_set_trid(0);
    for (int32_t i0 = 0; i0 < 1; i0++) {
        for (int32_t when0 = 0; when0 < loomc::min(loomc::max(1 - i0 - 1, 0), 1); when0++) {
            cb_reserve_back(0, 4);
            // read tensor=a row=(cy*4+cx)/2 col=2*(i0+1) cols=2 cb=0 at=2 trid=1+(i0+1)%2
            noc_async_read_set_trid(1 + loomc::fmod(i0 + 1, 2));
            loomc::read_tiles_ring(dram_a, loomc::fdiv(cy * 4 + cx, 2), 2 * (i0 + 1), 1, 2, ring_0, 2);
            noc_async_read_set_trid(0);
        }
        loomc::read_barrier(1 + loomc::fmod(i0, 2));
        cb_push_back(0, 2);
        for (int32_t when1 = 0; when1 < loomc::min(loomc::max(1 - i0 - 1, 0), 1); when1++) {
            cb_reserve_back(1, 4);
            // read tensor=b row=2*(i0+1) col=(cy*4+cx)%2 rows=2 cb=1 at=2 trid=3+(i0+1)%2
            noc_async_read_set_trid(3 + loomc::fmod(i0 + 1, 2));
            loomc::read_tiles_ring(dram_b, 2 * (i0 + 1), loomc::fmod(cy * 4 + cx, 2), 2, 1, ring_1, 2);
            noc_async_read_set_trid(0);
        }
        loomc::read_barrier(3 + loomc::fmod(i0, 2));
        cb_push_back(1, 2);
    }
}
