/* ttnn_decode_prog.c - TTNN's SDPA decode kernels (flash decode) written
 * directly as a dataflow program (in progress).
 */
#include "ttnn/ttnn_int.h"

#include <stdio.h>

struct df_program *ttnn_sdpa_decode_program(const ttnn_decode_config *cfg, const ttnn_kernel_io *io,
                                            arch_fidelity fidelity, bool fp32_acc, const arch_desc *a, char *why,
                                            size_t whylen)
{
    (void)cfg, (void)io, (void)fidelity, (void)fp32_acc, (void)a;
    snprintf(why, whylen, "TTNN's SDPA decode kernel program is not written yet");
    return NULL;
}
