// l0_cores_0_0_reader.cpp - written by loomc: the reader kernel of core class cores_0_0, cores (0,0)..(0,0),
// of launch 0 (program attention_fwd). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // semaphore ids (compile-time args)
    constexpr uint32_t sem_k_ready = get_compile_time_arg_val(0);
    constexpr uint32_t sem_k_valid = get_compile_time_arg_val(1);
    // this kernel's own word, the source of its semaphore multicasts
    constexpr uint32_t sem_scratch = get_compile_time_arg_val(4);
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_q = loomc::tensor(0, 2048, tt::DataFormat::Float16_b, 1);
    const loomc::Tensor dram_k = loomc::tensor(1, 2048, tt::DataFormat::Float16_b, 1);
    // NoC coordinates of the grid's 8 columns and 8 rows (common runtime args)
    const loomc::Grid grid = {2, 8};
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    cb_reserve_back(0, 1);
    // read tensor=q row=2*cy+cx col=0 cb=0
    loomc::read_tiles(dram_q, 2 * cy + cx, 0, 1, 1, 0, 0);
    noc_async_read_barrier();
    cb_push_back(0, 1);
    for (int32_t i0 = 0; i0 < 1; i0++) {
        cb_reserve_back(1, 2);
        // read tensor=k row=2*cy+2*i0 col=0 rows=2 cb=1
        loomc::read_tiles(dram_k, 2 * cy + 2 * i0, 0, 2, 1, 1, 0);
        noc_async_read_barrier();
        loomc::sem_wait(sem_k_ready, 1, false);
        loomc::sem_set(sem_k_ready, 0);
        // mcast cb=1 n=2 x0=1 y0=cy x1=1 y1=cy
        loomc::mcast_pages(grid, cx, cy, 1, 2048, 0, 2, 1, cy, 1, cy, 0, false);
        // sem_mcast sem=k_valid value=1 x0=1 y0=cy x1=1 y1=cy
        loomc::sem_mcast(grid, cx, cy, sem_k_valid, sem_scratch, 1, 1, cy, 1, cy, false);
        cb_push_back(1, 2);
    }
    noc_async_write_barrier();
}
