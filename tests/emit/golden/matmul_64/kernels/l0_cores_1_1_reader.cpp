// l0_cores_1_1_reader.cpp - written by loomc: the reader kernel of core class cores_1_1, cores (1,1)..(1,1),
// of launch 0 (program matmul_kernel). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // semaphore ids (compile-time args)
    constexpr uint32_t sem_a_ready = get_compile_time_arg_val(0);
    constexpr uint32_t sem_a_valid = get_compile_time_arg_val(1);
    // NoC coordinates of the grid's 8 columns and 8 rows (common runtime args)
    const loomc::Grid grid = {0, 8};
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);

    for (int32_t i0 = 0; i0 < 1; i0++) {
        cb_reserve_back(0, 2);
        loomc::sem_set(sem_a_valid, 0);
        // sem_inc sem=a_ready x=cx y=0
        loomc::sem_inc(grid, sem_a_ready, 1, cx, 0);
        loomc::sem_wait(sem_a_valid, 1, false);
        cb_push_back(0, 2);
    }
    noc_async_write_barrier();
}
