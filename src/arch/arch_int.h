/* arch_int.h - what the files of src/arch share beyond arch.h: the names
 * of the storage formats and math fidelities (arch.c), which the checker
 * (arch_yaml.c) and the printers (arch_print.c) index directly.
 */
#ifndef LOOMC_ARCH_INT_H
#define LOOMC_ARCH_INT_H

#include "arch/arch.h"

extern const char *const arch_format_names[ARCH_NFORMATS];    /* bf16, fp32, bfp8_b, bfp4_b */
extern const char *const arch_fidelity_names[ARCH_NFIDELITIES]; /* LoFi .. HiFi4 */

#endif
