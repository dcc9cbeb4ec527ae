// l0_cores_0_0_writer.cpp - written by loomc: the writer kernel of core class cores_0_0, cores (0,0)..(3,0),
// of launch 0 (program matmul_kernel). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_c = loomc::tensor(0, 4096, tt::DataFormat::Float32, 2);
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    cb_wait_front(2, 1);
    // write cb=2 tensor=c row=(cy*4+cx)/2 col=(cy*4+cx)%2
    loomc::write_tiles(2, 0, dram_c, loomc::fdiv(cy * 4 + cx, 2), loomc::fmod(cy * 4 + cx, 2), 1, 1);
    noc_async_write_barrier();
    cb_pop_front(2, 1);
}
