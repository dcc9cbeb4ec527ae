/* example.c - a program using libloomc through <loomc.h> alone: compile a
 * matrix product kernel for a chip, list the best schedules, simulate the
 * best one on inputs of its own, check the outputs against a plain C
 * product, and show the structured diagnostic of a malformed kernel.
 *
 *   cc example.c $(pkg-config --cflags --libs loomc) -o example
 *   ./example matmul.py [ARCH]        (ARCH: default wormhole_n150)
 *
 * Exit status 0 when everything behaved as described, 1 otherwise.
 * docs/library.md walks through it.
 */
#include <loomc.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 64, N = 96, K = 80 };

/* The diagnostics of the last call, as a compiler prints them. */
static void print_diags(const loomc_ctx *c)
{
    static const char *const sev[] = {"error", "warning", "note", "internal error"};
    for (int i = 0; i < loomc_diag_count(c); i++) {
        const loomc_diag *d = loomc_diag_get(c, i);
        if (d->file && d->line > 0)
            fprintf(stderr, "%s:%d:%d: ", d->file, d->line, d->col);
        else if (d->file)
            fprintf(stderr, "%s: ", d->file);
        fprintf(stderr, "%s: %s\n", sev[d->severity], d->message);
    }
}

/* f rounded to bfloat16 (to nearest, ties to even), as a float. */
static float to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fff + ((u >> 16) & 1);
    u &= 0xffff0000u;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The schedules the compilation kept, best first. */
static void print_schedules(const loomc_ctx *c)
{
    for (int r = 0; r < loomc_schedule_count(c); r++) {
        const loomc_schedule *s = loomc_schedule_get(c, r);
        printf("schedule %d: %lld cycles predicted\n", s->rank, s->predicted_cycles);
        for (int l = 0; l < s->nlaunches; l++) {
            const loomc_launch *la = &s->launches[l];
            printf("  %s: %s\n   ", la->kernel, la->mapping);
            for (int v = 0; v < la->nvalues; v++)
                printf(" %s=%lld", la->values[v].name, la->values[v].value);
            printf("\n");
        }
    }
    const char *why = loomc_schedule_get(c, 0)->explanation;
    printf("why schedule 0, first line: %.*s\n", (int)strcspn(why, "\n"), why);
}

/* Simulate the best schedule on A and B of our own; compare C with a plain
 * product. HiFi4 multiplies bf16 values exactly and the chip accumulates
 * in fp32 in K order, so each element of C may differ from the exact sum
 * only by the rounding of K fp32 additions: |c - ref| <= K * 2^-24 *
 * sum_k |a_ik * b_kj| (the standard bound for recursive summation). */
static int simulate_and_check(loomc_ctx *c)
{
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            a[i * K + k] = to_bf16(sinf(0.37f * (float)i + 0.11f * (float)k));
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
            b[k * N + j] = to_bf16(cosf(0.23f * (float)k - 0.19f * (float)j) / 3.0f);
    loomc_input in[2] = {{"a", a, (long long)M * K}, {"b", b, (long long)K * N}};
    int rc = loomc_simulate(c, 0, LOOMC_SIM_FUNCTIONAL, in, 2);
    const loomc_tensor *out = rc == LOOMC_OK ? loomc_output_find(c, "c") : NULL;
    int bad = 0;
    if (!out || out->rank != 2 || out->shape[0] != M || out->shape[1] != N) {
        print_diags(c);
        fprintf(stderr, "example: no output c of %d x %d\n", M, N);
        bad = 1;
    }
    double worst = 0; /* the largest error as a share of its bound */
    for (int i = 0; !bad && i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                ref += (double)a[i * K + k] * b[k * N + j];
                mag += fabs((double)a[i * K + k] * b[k * N + j]);
            }
            double bound = K * ldexp(1.0, -24) * mag, err = fabs(out->data[i * N + j] - ref);
            if (err > bound) {
                fprintf(stderr, "example: c[%d][%d] = %.9g, the product is %.9g: error %.3g over the bound %.3g\n",
                        i, j, out->data[i * N + j], ref, err, bound);
                bad = 1;
                break;
            }
            if (bound > 0 && err / bound > worst)
                worst = err / bound;
        }
    if (!bad)
        printf("functional simulation: %.0f simulated cycles; c matches the C product "
               "(largest error %.2f of its bound)\n", loomc_sim_get(c)->cycles, worst);
    free(a);
    free(b);
    return bad;
}

/* A kernel with a character Python does not have: the diagnostic must
 * point at it, line and column as counted in the text. */
static int malformed(loomc_ctx *c)
{
    const char *src = "import triton\n"
                      "import triton.language as tl\n"
                      "\n"
                      "@triton.jit\n"
                      "def k(x_ptr):\n"
                      "    y = 1 $ 2\n";
    int line = 1, col = 1;
    for (const char *p = src; *p != '$'; p++) {
        col = *p == '\n' ? 1 : col + 1;
        line += *p == '\n';
    }
    if (loomc_load_kernel_string(c, "bad.py", src) != LOOMC_OK || loomc_compile(c, 1) != LOOMC_EUSER) {
        fprintf(stderr, "example: the malformed kernel was not refused\n");
        return 1;
    }
    const loomc_diag *d = loomc_diag_get(c, 0);
    print_diags(c);
    if (!d || d->severity != LOOMC_ERROR || !d->file || strcmp(d->file, "bad.py") || d->line != line ||
        d->col != col) {
        fprintf(stderr, "example: expected an error at bad.py:%d:%d\n", line, col);
        return 1;
    }
    printf("malformed kernel: error at %s:%d:%d, as expected\n", d->file, d->line, d->col);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: example MATMUL.py [ARCH]\n");
        return 1;
    }
    printf("libloomc %s\n", loomc_version());
    loomc_ctx *c = loomc_ctx_new();
    if (!c)
        return 1;
    /* each call returns LOOMC_OK (0) or why not */
    int bad = loomc_load_kernel_file(c, argv[1]) || loomc_set_arch(c, argc > 2 ? argv[2] : "wormhole_n150") ||
              loomc_bind_shape(c, "M", M) || loomc_bind_shape(c, "N", N) || loomc_bind_shape(c, "K", K) ||
              loomc_set_fidelity(c, "HiFi4") || loomc_compile(c, 3);
    if (bad) {
        print_diags(c);
        loomc_ctx_free(c);
        return 1;
    }
    print_schedules(c);
    bad = simulate_and_check(c);
    if (!bad && loomc_simulate(c, 0, LOOMC_SIM_TIMING, NULL, 0) == LOOMC_OK)
        printf("timing-only simulation: %.0f simulated cycles\n", loomc_sim_get(c)->cycles);
    else if (!bad) {
        print_diags(c);
        bad = 1;
    }
    bad |= malformed(c);
    loomc_ctx_free(c);
    return bad;
}
