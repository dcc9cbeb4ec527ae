// l1_cores_0_0_compute.cpp - written by loomc: the compute kernel of core class cores_0_0, cores (0,0)..(7,0),
// of launch 1 (program decode_combine). Each core of the class runs it with its own coordinates
// (cx, cy) and the class's runtime args.
#include "loomc_compute.h"

namespace NAMESPACE {
void MAIN {
    binary_op_init_common(0, 0, 1);

    cb_wait_front(0, 1);
    cb_reserve_back(1, 1);
    // copy a=0 out=1 n=1
    loomc::copy(0, 1, 1, 0, 0, false);
    cb_push_back(1, 1);
    cb_pop_front(0, 1);
}
}  // namespace NAMESPACE
