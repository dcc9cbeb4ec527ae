// l0_cores_0_0_writer.cpp - written by loomc: the writer kernel of core class cores_0_0, cores (0,0)..(0,0),
// of launch 0 (program decode_split). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_part = loomc::tensor(0, 4096, tt::DataFormat::Float32, 1);
    const loomc::Tensor dram_lse = loomc::tensor(1, 4096, tt::DataFormat::Float32, 1);
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    cb_wait_front(3, 1);
    // write_elems cb=3 tensor=part row=32*cy+32*cx col=0 rows=8 cols=32
    loomc::write_elems(3, 0, 0, 0, 1, dram_part, 32 * cy + 32 * cx, 0, 8, 32, 1, 4);
    noc_async_write_barrier();
    cb_pop_front(3, 1);
    cb_wait_front(4, 1);
    // write_elems cb=4 tensor=lse row=32*cy+cx col=0 cols=8
    loomc::write_elems(4, 0, 0, 0, 1, dram_lse, 32 * cy + cx, 0, 1, 8, 1, 4);
    noc_async_write_barrier();
    cb_pop_front(4, 1);
}
