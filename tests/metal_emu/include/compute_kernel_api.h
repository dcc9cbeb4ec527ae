// compute_kernel_api.h - host emulation of TT-Metalium (test harness): the compute API's
// umbrella header (the SFPU unary operations and the common calls).
#pragma once

#include "compute_kernel_api/emu_compute.h"
