// l0_cores_0_0_compute.cpp - written by loomc: the compute kernel of core class cores_0_0, cores (0,0)..(3,0),
// of launch 0 (program matmul_kernel). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_compute.h"

namespace NAMESPACE {
void MAIN {
    mm_init(0, 1, 2, 0);

    cb_reserve_back(2, 1);
    for (int32_t i0 = 0; i0 < 1; i0++) {
        cb_wait_front(0, 2);
        cb_wait_front(1, 2);
        // matmul a=0 b=1 out=2 m=1 k=2 nn=1 acc=min(i0,1)
        loomc::matmul(0, 1, 2, 1, 2, 1, 1, 1, false, 0, 0, 0, loomc::min(i0, 1) != 0);
        cb_pop_front(0, 2);
        cb_pop_front(1, 2);
    }
    cb_push_back(2, 1);
}
}  // namespace NAMESPACE
