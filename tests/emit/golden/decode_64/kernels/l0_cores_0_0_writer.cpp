// l0_cores_0_0_writer.cpp - written by loomc: the writer kernel of core class cores_0_0, cores (0,0)..(0,0),
// of launch 0 (program decode_split_decode_combine). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_dm.h"

void kernel_main() {
    // semaphore ids (compile-time args)
    constexpr uint32_t sem_fused_ready = get_compile_time_arg_val(2);
    constexpr uint32_t sem_fused_valid = get_compile_time_arg_val(3);
    // DRAM tensors (their addresses are common runtime args)
    const loomc::Tensor dram_o = loomc::tensor(0, 2048, tt::DataFormat::Float16_b, 1);
    // NoC coordinates of the grid's 8 columns and 8 rows (common runtime args)
    const loomc::Grid grid = {1, 8};
    // this core (runtime args)
    const int32_t cx = loomc::arg(0);
    const int32_t cy = loomc::arg(1);

    loomc::sem_wait(sem_fused_ready, loomc::min(loomc::max(1 - cy, 0) * 8, 8), false);
    cb_wait_front(3, 1);
    for (int32_t q = 0; q < 8; q++) {
        // send_elems cb=3 er=q cols=32 x=q%8 y=cy dcb=16 dst_at=q/8 der=cx
        loomc::send_elems(grid, 3, 4096, 0, q, 0, 1, 1, 32, loomc::fmod(q, 8), cy, 16, loomc::fdiv(q, 8), cx, 0, 1, 4);
    }
    noc_async_write_barrier();
    cb_pop_front(3, 1);
    cb_wait_front(4, 1);
    for (int32_t q = 0; q < 8; q++) {
        // send_elems cb=4 ec=q cols=min(1,8-q) x=q%8 y=cy dcb=15 dst_at=q/8 der=cx
        loomc::send_elems(grid, 4, 4096, 0, 0, q, 1, 1, loomc::min(1, 8 - q), loomc::fmod(q, 8), cy, 15, loomc::fdiv(q, 8), cx, 0, 1, 4);
        // sem_inc sem=fused_valid x=q%8 y=cy
        loomc::sem_inc(grid, sem_fused_valid, 1, loomc::fmod(q, 8), cy);
    }
    noc_async_write_barrier();
    cb_pop_front(4, 1);
    for (int32_t j = 0; j < loomc::max(loomc::fdiv(loomc::max(1 - cy, 0) * 8 + 7 - cx, 8), 0); j++) {
        cb_wait_front(17, 1);
        // write_elems cb=17 tensor=o row=8*(cy+(cx+8*j)/8%1)+(cx+8*j)%8 col=0 cols=32
        loomc::write_elems(17, 0, 0, 0, 1, dram_o, 8 * (cy + loomc::fmod(loomc::fdiv(cx + 8 * j, 8), 1)) + loomc::fmod(cx + 8 * j, 8), 0, 1, 32, 1, 2);
        noc_async_write_barrier();
        cb_pop_front(17, 1);
    }
}
