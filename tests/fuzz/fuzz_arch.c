/* fuzz_arch.c - libFuzzer harness for hardware descriptions: arch_parse on
 * arbitrary YAML text, then, for a description it accepts, the derived
 * figures and both printers of `loomc arch`. Seeds: arch/ and the YAML
 * error corpus (tests/fuzz/corpus.sh).
 */
#include "fuzz_common.h"

#include "arch/arch.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LM_MAX_FILE_BYTES)
        return -1;
    char *text = fz_text(data, size);
    lm_diag d;
    fz_diag(&d);
    lm_diag_add_source(&d, "arch.yaml", text, size);
    arch_desc *a = arch_parse("arch.yaml", text, size, &d);
    if (a) {
        fz_require_clean(&d, "arch_parse");
        volatile double sink = 0;
        sink += (double)arch_usable_l1(a) + arch_num_cores(a) + arch_dram_read_bpc(a) + arch_dram_write_bpc(a);
        for (int f = 0; f < ARCH_NFIDELITIES; f++)
            sink += arch_peak_tflops(a, (arch_fidelity)f);
        for (int x = 0; x < a->grid_w; x++)
            for (int y = 0; y < a->grid_h; y++)
                sink += arch_core_noc(a, x, y).x;
        (void)sink;
        lm_buf b = {0};
        arch_print(&b, a);
        arch_print_json(&b, a);
        lm_buf_free(&b);
        arch_free(a);
    } else {
        fz_require_error(&d, "arch_parse");
    }
    free(text);
    return 0;
}
