// l1_cores_0_0_reader.cpp - written by loomc: the reader kernel of core class cores_0_0, cores (0,0)..(7,0),
// of launch 1 (program decode_combine). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_part = loomc::tensor(0, 4096, tt::DataFormat::Float32, 1);
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    cb_reserve_back(0, 1);
    // read_elems tensor=part row=32*cy+cx col=0 cols=32 cb=0
    loomc::read_elems(dram_part, 32 * cy + cx, 0, 1, 32, 1, 0, 0, 0, 0, 1, 4);
    noc_async_read_barrier();
    cb_push_back(0, 1);
}
