/* arch.c - hardware descriptions: the names of storage formats and math
 * fidelities, the figures derived from a description, and its release.
 * Reading a description is arch_yaml.c (the schema, its checker and
 * arch_parse), finding one by name arch_load.c, printing it arch_print.c.
 */
#include "arch/arch_int.h"

#include <stdlib.h>

/* ---- names of formats and fidelities -------------------------------- */

const char *const arch_format_names[ARCH_NFORMATS] = {"bf16", "fp32", "bfp8_b", "bfp4_b"};
/* TTNN's spellings, accepted as aliases. */
static const char *const format_aliases[ARCH_NFORMATS] = {"bfloat16", "float32", "bfloat8_b",
                                                         "bfloat4_b"};
const char *const arch_fidelity_names[ARCH_NFIDELITIES] = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};

const char *arch_format_name(arch_format f)
{
    LM_ASSERT(f >= 0 && f < ARCH_NFORMATS);
    return arch_format_names[f];
}

static bool ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

bool arch_format_parse(const char *s, arch_format *f)
{
    for (int i = 0; i < ARCH_NFORMATS; i++)
        if (ieq(s, arch_format_names[i]) || ieq(s, format_aliases[i])) {
            *f = (arch_format)i;
            return true;
        }
    return false;
}

const char *arch_fidelity_name(arch_fidelity f)
{
    LM_ASSERT(f >= 0 && f < ARCH_NFIDELITIES);
    return arch_fidelity_names[f];
}

bool arch_fidelity_parse(const char *s, arch_fidelity *f)
{
    for (int i = 0; i < ARCH_NFIDELITIES; i++)
        if (ieq(s, arch_fidelity_names[i])) {
            *f = (arch_fidelity)i;
            return true;
        }
    return false;
}

/* ---- release ---------------------------------------------------------- */

void arch_free(arch_desc *a)
{
    if (!a)
        return;
    free((char *)a->name);
    free((char *)a->file);
    free((char *)a->description);
    free(a);
}

/* ---- derived figures ------------------------------------------------- */

int64_t arch_usable_l1(const arch_desc *a) { return a->l1_bytes - a->l1_reserved_bytes; }

int arch_num_cores(const arch_desc *a) { return a->grid_w * a->grid_h; }

double arch_peak_tflops(const arch_desc *a, arch_fidelity f)
{
    LM_ASSERT(f >= 0 && f < ARCH_NFIDELITIES);
    double per_core = (double)a->fpu_flops_per_cycle / (double)(f + 1);
    return per_core * arch_num_cores(a) * a->clock_ghz * 1e9 / 1e12;
}

double arch_dram_read_bpc(const arch_desc *a) { return a->num_dram_banks * a->dram_bank_read_bpc; }

double arch_dram_write_bpc(const arch_desc *a)
{
    return a->num_dram_banks * a->dram_bank_write_bpc;
}

arch_xy arch_core_noc(const arch_desc *a, int x, int y)
{
    LM_ASSERT(x >= 0 && x < a->grid_w && y >= 0 && y < a->grid_h);
    return (arch_xy){a->core_noc_x[x], a->core_noc_y[y]};
}
