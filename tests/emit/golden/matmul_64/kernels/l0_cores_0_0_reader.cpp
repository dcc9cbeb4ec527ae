// l0_cores_0_0_reader.cpp - written by loomc: the reader kernel of core class cores_0_0, cores (0,0)..(0,0),
// of launch 0 (program matmul_kernel). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // semaphore ids (compile-time args)
    constexpr uint32_t sem_a_ready = get_compile_time_arg_val(0);
    constexpr uint32_t sem_a_valid = get_compile_time_arg_val(1);
    // this kernel's own word, the source of its semaphore multicasts
    constexpr uint32_t sem_scratch = get_compile_time_arg_val(4);
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_a = loomc::tensor(0, 2048, tt::DataFormat::Float16_b, 2);
    // NoC coordinates of the grid's 8 columns and 8 rows (common runtime args)
    const loomc::Grid grid = {1, 8};
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    for (int32_t i0 = 0; i0 < 1; i0++) {
        cb_reserve_back(0, 2);
        // read tensor=a row=cx col=2*i0 cols=2 cb=0
        loomc::read_tiles(dram_a, cx, 2 * i0, 1, 2, 0, 0);
        noc_async_read_barrier();
        loomc::sem_wait(sem_a_ready, 1, false);
        loomc::sem_set(sem_a_ready, 0);
        // mcast cb=0 n=2 x0=cx y0=1 x1=cx y1=1
        loomc::mcast_pages(grid, cx, cy, 0, 2048, 0, 2, cx, 1, cx, 1, 0, false);
        // sem_mcast sem=a_valid value=1 x0=cx y0=1 x1=cx y1=1
        loomc::sem_mcast(grid, cx, cy, sem_a_valid, sem_scratch, 1, cx, 1, cx, 1, false);
        cb_push_back(0, 2);
    }
    noc_async_write_barrier();
}
