// l0_cores_1_0_writer.cpp - written by loomc: the writer kernel of core class cores_1_0, cores (1,0)..(1,0),
// of launch 0 (program attention_fwd). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // semaphore ids (compile-time args)
    constexpr uint32_t sem_v_ready = get_compile_time_arg_val(2);
    constexpr uint32_t sem_v_valid = get_compile_time_arg_val(3);
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_o = loomc::tensor(0, 2048, tt::DataFormat::Float16_b, 1);
    // NoC coordinates of the grid's 8 columns and 8 rows (common runtime args)
    const loomc::Grid grid = {1, 8};
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    for (int32_t i0 = 0; i0 < 1; i0++) {
        cb_reserve_back(2, 2);
        loomc::sem_set(sem_v_valid, 0);
        // sem_inc sem=v_ready x=0 y=cy
        loomc::sem_inc(grid, sem_v_ready, 1, 0, cy);
        loomc::sem_wait(sem_v_valid, 1, false);
        cb_push_back(2, 2);
    }
    cb_wait_front(3, 1);
    // write cb=3 tensor=o row=2*cy+cx col=0
    loomc::write_tiles(3, 0, dram_o, 2 * cy + cx, 0, 1, 1);
    noc_async_write_barrier();
    cb_pop_front(3, 1);
    noc_async_write_barrier();
}
