// l1_cores_0_0_writer.cpp - written by loomc: the writer kernel of core class cores_0_0, cores (0,0)..(7,0),
// of launch 1 (program decode_combine). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_o = loomc::tensor(0, 2048, tt::DataFormat::Float16_b, 1);
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    cb_wait_front(1, 1);
    // write_elems cb=1 tensor=o row=8*cy+cx col=0 cols=32
    loomc::write_elems(1, 0, 0, 0, 1, dram_o, 8 * cy + cx, 0, 1, 32, 1, 2);
    noc_async_write_barrier();
    cb_pop_front(1, 1);
}
