// l0_cores_0_0_writer.cpp - written by loomc: the writer kernel of core class cores_0_0, cores (0,0)..(1,0),
// of launch 0 (program attention_fwd). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_o = loomc::tensor(0, 2048, tt::DataFormat::Float16_b, 1);
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    cb_wait_front(3, 1);
    // write cb=3 tensor=o row=2*cy+cx col=0
    loomc::write_tiles(3, 0, dram_o, 2 * cy + cx, 0, 1, 1);
    noc_async_write_barrier();
    cb_pop_front(3, 1);
}
