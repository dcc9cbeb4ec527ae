// compute_kernel_api/eltwise_unary/sqrt.h - host emulation of TT-Metalium (test harness):
// this header's part of the compute API; the whole emulated compute API lives in
// emu_compute.h.
#pragma once

#include "compute_kernel_api/emu_compute.h"
