/* test_limits.c - every limit of docs/limits.md, on both sides of the line:
 * the largest input within a limit is accepted, the first one past it is
 * rejected with a message that names the limit. Inputs too big or too
 * repetitive for tests/expect/ files are generated here (the file size, the
 * token, parameter, argument, function, launch, name and op counts), and so
 * are the simulator budgets, on a one-core chip described in the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arch/arch.h"
#include "df/df.h"
#include "driver/driver.h"
#include "front/ast.h"
#include "sim/sim.h"

/* ---- helpers ------------------------------------------------------------------- */

/* A temporary file holding `len` bytes of `text` (or of 'x' when text is
 * NULL); the caller unlinks and frees the path. */
static char *tmp_file(const char *text, size_t len)
{
    const char *dir = getenv("TMPDIR");
    lm_buf b = {0};
    lm_buf_printf(&b, "%s/loomc_limits_XXXXXX", dir && *dir ? dir : "/tmp");
    char *path = lm_xstrdup(lm_buf_str(&b));
    lm_buf_free(&b);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    if (text) {
        assert_int_equal(fwrite(text, 1, len, f), len);
    } else {
        char chunk[4096];
        memset(chunk, 'x', sizeof chunk);
        for (size_t done = 0; done < len;) {
            size_t n = LM_MIN(sizeof chunk, len - done);
            assert_int_equal(fwrite(chunk, 1, n, f), n);
            done += n;
        }
    }
    assert_int_equal(fclose(f), 0);
    return path;
}

/* fe_parse on text; returns the messages (heap, "" when it parsed). */
static char *parse_errors(const char *text)
{
    char *msgs = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&msgs, &n);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    lm_arena a;
    lm_arena_init(&a);
    fe_module *m = fe_parse("t.py", text, strlen(text), &a, &d);
    fclose(f);
    assert_true((m != NULL) == (d.nerrors == 0));
    lm_arena_free(&a);
    return msgs;
}

static void parses(const char *text)
{
    char *e = parse_errors(text);
    if (*e)
        fail_msg("unexpected error: %s", e);
    free(e);
}

static void parse_fails_with(const char *text, const char *want)
{
    char *e = parse_errors(text);
    if (!strstr(e, want))
        fail_msg("expected an error containing '%s', got '%s'", want, e);
    free(e);
}

/* drv_compile (what `loomc ir` runs) on a kernel file with the given
 * bindings; returns the messages (heap, "" on success). */
static char *compile_errors(const char *text, const fe_kv *shapes, int nshapes, const fe_kv *consts, int nconsts)
{
    char *path = tmp_file(text, strlen(text));
    char *msgs = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&msgs, &n);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    drv_opts o = {.path = path};
    o.launch.shapes = shapes;
    o.launch.nshapes = nshapes;
    o.launch.consts = consts;
    o.launch.nconsts = nconsts;
    drv_result r;
    bool ok = drv_compile(&r, &o, &d);
    drv_free(&r);
    fclose(f);
    assert_true(ok == (d.nerrors == 0));
    unlink(path);
    free(path);
    return msgs;
}

static void compiles(const char *text, const fe_kv *shapes, int nshapes, const fe_kv *consts, int nconsts)
{
    char *e = compile_errors(text, shapes, nshapes, consts, nconsts);
    if (*e)
        fail_msg("unexpected error: %s", e);
    free(e);
}

static void compile_fails_with(const char *text, const fe_kv *shapes, int nshapes, const fe_kv *consts,
                               int nconsts, const char *want)
{
    char *e = compile_errors(text, shapes, nshapes, consts, nconsts);
    if (!strstr(e, want))
        fail_msg("expected an error containing '%s', got '%s'", want, e);
    free(e);
}

#define HEADER "import triton\nimport triton.language as tl\nimport loomc\n\n"

/* A one-dimensional copy kernel; BODY lines go before its load, SPEC lines
 * before its launch. */
static char *copy_kernel(const char *body, const char *spec)
{
    lm_buf b = {0};
    lm_buf_printf(&b,
                  HEADER "@triton.jit\n"
                         "def k(x_ptr, y_ptr, M, BLOCK: tl.constexpr):\n"
                         "    pid = tl.program_id(0)\n"
                         "    xb = tl.make_block_ptr(base=x_ptr, shape=(M,), strides=(1,), offsets=(pid * BLOCK,),\n"
                         "                           block_shape=(BLOCK,), order=(0,))\n"
                         "    yb = tl.make_block_ptr(base=y_ptr, shape=(M,), strides=(1,), offsets=(pid * BLOCK,),\n"
                         "                           block_shape=(BLOCK,), order=(0,))\n"
                         "%s"
                         "    x = tl.load(xb, boundary_check=(0,))\n"
                         "    tl.store(yb, x, boundary_check=(0,))\n\n\n"
                         "@loomc.launch\n"
                         "def spec(M):\n"
                         "    x = loomc.tensor((M,), tl.float32)\n"
                         "    y = loomc.output((M,), tl.float32)\n"
                         "%s"
                         "    k[(triton.cdiv(M, BLOCK),)](x, y, M)\n",
                  body, spec);
    char *s = lm_xstrdup(lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

static const fe_kv M64[] = {{"M", 64}};
static const fe_kv BLOCK32[] = {{"BLOCK", 32}};

/* ---- files and tokens ------------------------------------------------------------- */

static void file_size(void **st)
{
    (void)st;
    char why[512];
    size_t len = 0;
    char *path = tmp_file(NULL, LM_MAX_FILE_BYTES);
    char *s = lm_read_file(path, &len, why, sizeof why);
    assert_non_null(s);
    assert_int_equal(len, LM_MAX_FILE_BYTES);
    free(s);
    unlink(path);
    free(path);

    path = tmp_file(NULL, LM_MAX_FILE_BYTES + 1);
    assert_null(lm_read_file(path, &len, why, sizeof why));
    assert_non_null(strstr(why, "is larger than the limit of 16777216 bytes"));
    unlink(path);
    free(path);
}

/* Each line `x = 1` is four tokens: name, '=', integer, end of line. */
static void token_count(void **st)
{
    (void)st;
    lm_buf b = {0};
    for (int i = 0; i < FE_MAX_TOKENS / 4 - 1; i++)
        lm_buf_puts(&b, "x = 1\n");
    parses(lm_buf_str(&b)); /* one short of the limit, plus the end of file */
    lm_buf_puts(&b, "x = 1\n");
    parse_fails_with(lm_buf_str(&b), "the file has more than 1000000 tokens; that is the limit");
    lm_buf_free(&b);
}

static void identifier_length(void **st)
{
    (void)st;
    char name[FE_MAX_IDENT + 8];
    memset(name, 'a', sizeof name);
    lm_buf b = {0};
    lm_buf_printf(&b, "%.*s = 1\n", (int)FE_MAX_IDENT, name);
    parses(lm_buf_str(&b));
    lm_buf_free(&b);
    lm_buf_printf(&b, "%.*s = 1\n", (int)FE_MAX_IDENT + 1, name);
    parse_fails_with(lm_buf_str(&b), "identifier is 256 characters long; the limit is 255");
    lm_buf_free(&b);
}

/* Brackets count one level each; 64 fit, with the statement's own level
 * the 64th bracket is one too many. */
static void nesting_depth(void **st)
{
    (void)st;
    lm_buf b = {0};
    lm_buf_printf(&b, "x = %s1%s\n", "((((((((((((((((((((((((((((((", "))))))))))))))))))))))))))))))");
    parses(lm_buf_str(&b));
    lm_buf_free(&b);
    lm_buf_puts(&b, "x = ");
    for (int i = 0; i < 1000; i++)
        lm_buf_putc(&b, '(');
    lm_buf_putc(&b, '1');
    for (int i = 0; i < 1000; i++)
        lm_buf_putc(&b, ')');
    lm_buf_putc(&b, '\n');
    parse_fails_with(lm_buf_str(&b), "expression is nested too deeply: the limit is 64 levels");
    lm_buf_free(&b);
    /* blocks: each `if` one level deeper */
    for (int i = 0; i < 100; i++)
        lm_buf_printf(&b, "%*sif x:\n", i, "");
    lm_buf_printf(&b, "%*spass\n", 100, "");
    parse_fails_with(lm_buf_str(&b), "blocks are nested too deeply: the limit is 64 levels");
    lm_buf_free(&b);
}

/* ---- the parser's counts ------------------------------------------------------- */

static void parameters(void **st)
{
    (void)st;
    for (int n = FE_MAX_PARAMS; n <= FE_MAX_PARAMS + 1; n++) {
        lm_buf b = {0};
        lm_buf_puts(&b, "def f(");
        for (int i = 0; i < n; i++)
            lm_buf_printf(&b, "%sp%d", i ? ", " : "", i);
        lm_buf_puts(&b, "):\n    pass\n");
        if (n == FE_MAX_PARAMS)
            parses(lm_buf_str(&b));
        else
            parse_fails_with(lm_buf_str(&b), "more than 255 parameters");
        lm_buf_free(&b);
    }
}

static void arguments(void **st)
{
    (void)st;
    for (int kw = 0; kw < 2; kw++) {
        for (int n = FE_MAX_ARGS; n <= FE_MAX_ARGS + 1; n++) {
            lm_buf b = {0};
            lm_buf_puts(&b, "f(");
            for (int i = 0; i < n; i++)
                lm_buf_printf(&b, kw ? "%sa%d=1" : "%s%d", i ? ", " : "", i);
            lm_buf_puts(&b, ")\n");
            if (n == FE_MAX_ARGS)
                parses(lm_buf_str(&b));
            else
                parse_fails_with(lm_buf_str(&b), "more than 255 arguments in one call");
            lm_buf_free(&b);
        }
    }
}

static void functions(void **st)
{
    (void)st;
    lm_buf b = {0};
    for (int i = 0; i < FE_MAX_FUNCS; i++)
        lm_buf_printf(&b, "def f%d():\n    pass\n", i);
    parses(lm_buf_str(&b));
    lm_buf_puts(&b, "@triton.jit\ndef one_more():\n    pass\n");
    parse_fails_with(lm_buf_str(&b), "t.py:513:1: error: more than 256 functions in one file");
    lm_buf_free(&b);
}

/* ---- launch specs and the checker ------------------------------------------------ */

static void launches(void **st)
{
    (void)st;
    for (int n = FE_MAX_LAUNCHES; n <= FE_MAX_LAUNCHES + 1; n++) {
        lm_buf spec = {0};
        for (int i = 1; i < n; i++)
            lm_buf_puts(&spec, "    k[(triton.cdiv(M, BLOCK),)](x, y, M)\n");
        char *text = copy_kernel("", lm_buf_str(&spec));
        if (n == FE_MAX_LAUNCHES)
            compiles(text, M64, 1, BLOCK32, 1);
        else
            compile_fails_with(text, M64, 1, BLOCK32, 1, "launch spec 'spec' launches more than 64 kernels");
        free(text);
        lm_buf_free(&spec);
    }
}

/* The kernel binds x_ptr, y_ptr, M, BLOCK, pid, xb, yb and x besides the
 * generated names. */
static void kernel_names(void **st)
{
    (void)st;
    for (int n = FE_MAX_NAMES - 8; n <= FE_MAX_NAMES - 7; n++) {
        lm_buf body = {0};
        for (int i = 0; i < n; i++)
            lm_buf_printf(&body, "    v%d = %d\n", i, i);
        char *text = copy_kernel(lm_buf_str(&body), "");
        if (n == FE_MAX_NAMES - 8)
            compiles(text, M64, 1, BLOCK32, 1);
        else
            compile_fails_with(text, M64, 1, BLOCK32, 1, "kernel 'k' binds more than 512 names; that is the limit");
        free(text);
        lm_buf_free(&body);
    }
}

/* The spec binds x and y besides the generated names. */
static void spec_names(void **st)
{
    (void)st;
    for (int n = FE_MAX_NAMES - 2; n <= FE_MAX_NAMES - 1; n++) {
        lm_buf spec = {0};
        for (int i = 0; i < n; i++)
            lm_buf_printf(&spec, "    v%d = %d\n", i, i);
        char *text = copy_kernel("", lm_buf_str(&spec));
        if (n == FE_MAX_NAMES - 2)
            compiles(text, M64, 1, BLOCK32, 1);
        else
            compile_fails_with(text, M64, 1, BLOCK32, 1, "launch spec 'spec' assigns more than 512 names");
        free(text);
        lm_buf_free(&spec);
    }
}

/* `acc = acc * 2.0` adds a multiplication (its constant is shared), so the
 * op count grows by one a line. */
static void kernel_ops(void **st)
{
    (void)st;
    for (int n = 100; n <= FE_MAX_OPS; n += FE_MAX_OPS - 100) {
        lm_buf body = {0};
        lm_buf_puts(&body, "    acc = tl.zeros((BLOCK,), dtype=tl.float32)\n");
        for (int i = 0; i < n; i++)
            lm_buf_puts(&body, "    acc = acc * 2.0\n");
        lm_buf_puts(&body, "    tl.store(yb, acc, boundary_check=(0,))\n");
        char *text = copy_kernel(lm_buf_str(&body), "");
        if (n == 100)
            compiles(text, M64, 1, BLOCK32, 1);
        else
            compile_fails_with(text, M64, 1, BLOCK32, 1,
                               "kernel 'k' has more than 5000 Tile IR operations; that is the limit");
        free(text);
        lm_buf_free(&body);
    }
}

/* ---- values ------------------------------------------------------------------------ */

static void size_values(void **st)
{
    (void)st;
    char *text = copy_kernel("", "");
    fe_kv m = {"M", FE_MAX_SIZE};
    compiles(text, &m, 1, BLOCK32, 1);
    m.value = FE_MAX_SIZE + 1;
    compile_fails_with(text, &m, 1, BLOCK32, 1, "size M is 2147483648; the limit is 2147483647 (2**31 - 1)");
    m.value = INT64_MAX;
    compile_fails_with(text, &m, 1, BLOCK32, 1, "size M is 9223372036854775807; the limit is 2147483647");
    m.value = 0;
    compile_fails_with(text, &m, 1, BLOCK32, 1, "size M must be at least 1, got 0");

    fe_kv b = {"BLOCK", FE_MAX_SIZE + 1};
    compile_fails_with(text, M64, 1, &b, 1, "--const BLOCK=2147483648 is out of range; the limit is 2147483647");
    b.value = INT64_MIN;
    compile_fails_with(text, M64, 1, &b, 1, "--const BLOCK=-9223372036854775808 is out of range");
    free(text);
}

/* Dimensions computed in the spec: each within 2**31 - 1, the tensor within
 * 2**40 elements, with the products checked. */
static void tensor_sizes(void **st)
{
    (void)st;
    char *text = copy_kernel("", "    big = loomc.scratch((M * M,), tl.float32)\n");
    fe_kv m = {"M", 46340}; /* 46340**2 < 2**31 - 1 < 46341**2 */
    compiles(text, &m, 1, BLOCK32, 1);
    m.value = 46341;
    compile_fails_with(text, &m, 1, BLOCK32, 1, "dimension 0 of the tensor is 2147488281; the limit is 2147483647");
    free(text);

    text = copy_kernel("", "    big = loomc.scratch((M, M, 4), tl.float32)\n");
    m.value = 1 << 19; /* 2**19 * 2**19 * 4 = 2**40 */
    compiles(text, &m, 1, BLOCK32, 1);
    m.value = (1 << 19) + 1;
    compile_fails_with(text, &m, 1, BLOCK32, 1, "the tensor has more than 1099511627776 (2**40) elements");
    free(text);

    /* six dimensions of 2**31 - 1 overflow any 64-bit product */
    text = copy_kernel("", "    big = loomc.scratch((M, M, M, M, M, M), tl.float32)\n");
    m.value = FE_MAX_SIZE;
    compile_fails_with(text, &m, 1, BLOCK32, 1, "the tensor has more than 1099511627776 (2**40) elements");
    free(text);
}

static void tile_elements(void **st)
{
    (void)st;
    char *text = copy_kernel("", "");
    fe_kv b = {"BLOCK", FE_MAX_TILE_ELEMS};
    compiles(text, M64, 1, &b, 1);
    b.value = 2 * FE_MAX_TILE_ELEMS;
    compile_fails_with(text, M64, 1, &b, 1, "has more than 1048576 elements; that is the limit (Triton's)");
    free(text);

    /* two tiles within the limit whose broadcast is not */
    text = copy_kernel("    r = tl.arange(0, 2048)[:, None] + tl.arange(0, 1024)[None, :]\n"
                       "    tl.store(yb, tl.sum(tl.sum(r, axis=1), axis=0) + tl.zeros((BLOCK,), dtype=tl.float32),"
                       " boundary_check=(0,))\n",
                       "");
    compile_fails_with(text, M64, 1, BLOCK32, 1, "a tile of shape [2048, 1024] has more than 1048576 elements");
    free(text);
}

/* ---- dataflow programs ----------------------------------------------------------- */

/* df_parse on text; returns the messages (heap, "" when it parsed). */
static char *df_errors(const char *text)
{
    char *msgs = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&msgs, &n);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    df_program *p = df_parse("t.df", text, strlen(text), &d);
    fclose(f);
    assert_true((p != NULL) == (d.nerrors == 0));
    df_free(p);
    return msgs;
}

/* `count` items made by `fmt` (given the index twice) after the program
 * line must parse; one more must fail with `want`. */
static void df_count_limit(const char *fmt, int count, const char *want)
{
    lm_buf b = {0};
    lm_buf_puts(&b, "program p\n"
                    "tensor A rows=32 cols=32 format=bf16 role=input\n"
                    "tensor C rows=32 cols=32 format=fp32 role=output\n");
    for (int i = 0; i < count; i++)
        lm_buf_printf(&b, fmt, i, i % 64, i / 64);
    char *e = df_errors(lm_buf_str(&b));
    if (*e)
        fail_msg("unexpected error: %s", e);
    free(e);
    lm_buf_printf(&b, fmt, count, 0, 0);
    e = df_errors(lm_buf_str(&b));
    if (!strstr(e, want))
        fail_msg("expected an error containing '%s', got '%s'", want, e);
    free(e);
    lm_buf_free(&b);
}

static void dataflow_counts(void **st)
{
    (void)st;
    /* the program already has two tensors */
    df_count_limit("tensor T%d rows=32 cols=32 format=bf16 role=scratch\n", 1022, "more than 1024 tensors");
    df_count_limit("sem S%d\n", 1024, "more than 1024 semaphores");
    df_count_limit("check matmul out=C a=A b=A\n", 256, "more than 256 checks");
    df_count_limit("class c%d x0=%d y0=%d x1=0 y1=0 {\n}\n", 4096, "more than 4096 classes");
    df_count_limit("param P%d = 1\n", 254, "too many params: every class has room for 256 variables");
}

/* ---- the simulator's budgets, on a one-core chip ---------------------------------- */

static const char one_core_yaml[] =
    "name: one_core\n"
    "structure:\n"
    "  clock_ghz: 1.0\n"
    "  grid: {width: 1, height: 1, noc_x: [1], noc_y: [1]}\n"
    "  l1: {bytes: 1499136, reserved_bytes: 33056, circular_buffers: 32}\n"
    "  tile:\n"
    "    height: 32\n"
    "    width: 32\n"
    "    bytes: {bf16: 2048, fp32: 4096, bfp8_b: 1088, bfp4_b: 576}\n"
    "  fpu: {flops_per_cycle: 4096}\n"
    "  dst: {half_sync_tiles_16b: 8, half_sync_tiles_32b: 4}\n"
    "  noc:\n"
    "    count: 2\n"
    "    width: 3\n"
    "    height: 3\n"
    "    torus: true\n"
    "    link_bytes_per_cycle: 32\n"
    "    max_packet_bytes: 8192\n"
    "    header_flits: 1\n"
    "    max_transaction_ids: 15\n"
    "    multicast: {rectangle: true, strided: false, l_shape: false}\n"
    "  dram:\n"
    "    alignment_bytes: 32\n"
    "    bank_bytes: 1073741824\n"
    "    banks: [[0, 0]]\n"
    "performance:\n"
    "  dram: {bank_read_bytes_per_cycle: 22.25, bank_write_bytes_per_cycle: 21.24, read_latency_cycles: 400,"
    " write_latency_cycles: 400}\n"
    "  core: {read_bytes_per_cycle: 37, write_bytes_per_cycle: 31}\n"
    "  noc: {hop_cycles: 9, inject_cycles: 5, eject_cycles: 5, command_cycles: 20}\n"
    "  multicast: {setup_cycles: 50, bytes_per_cycle: 22}\n"
    "  compute:\n"
    "    matmul_tile_cycles: {LoFi: 16, HiFi2: 32, HiFi3: 48, HiFi4: 64}\n"
    "    matmul_rows_granule: 8\n"
    "    eltwise_tile_cycles: 8\n"
    "    bcast_tile_cycles: 8\n"
    "    reduce_tile_cycles: 32\n"
    "    sfpu_exp_tile_cycles: 256\n"
    "    sfpu_exp_exact_tile_cycles: 768\n"
    "    sfpu_recip_tile_cycles: 512\n"
    "    sfpu_sqrt_tile_cycles: 896\n"
    "    sfpu_rsqrt_tile_cycles: 1024\n"
    "    sfpu_sigmoid_tile_cycles: 1355\n"
    "    unpack_bytes_per_cycle: 64\n"
    "    pack_bytes_per_cycle: 64\n"
    "  overhead: {kernel_launch_cycles: 1000, cb_handshake_cycles: 30, semaphore_cycles: 10, barrier_cycles: 10,"
    " dst_handoff_cycles: 16, op_init_cycles: 70}\n";

/* One tile copied from DRAM to DRAM through the core, checked. */
static const char copy_program[] = "tensor A rows=32 cols=32 format=bf16 role=input seed=1\n"
                                   "tensor B rows=32 cols=32 format=bf16 role=output\n"
                                   "sem s\n"
                                   "class c x0=0 y0=0 x1=0 y1=0 {\n"
                                   "  cb 0 format=bf16 pages=1\n"
                                   "  reader {\n"
                                   "    for i lo=0 hi=N {\n"
                                   "      sem_set sem=s value=i\n"
                                   "    }\n"
                                   "    cb_reserve cb=0 n=1\n"
                                   "    read tensor=A row=0 col=0 cb=0\n"
                                   "    read_barrier\n"
                                   "    cb_push cb=0 n=1\n"
                                   "  }\n"
                                   "  writer {\n"
                                   "    cb_wait cb=0 n=1\n"
                                   "    write cb=0 tensor=B row=0 col=0\n"
                                   "    write_barrier\n"
                                   "    cb_pop cb=0 n=1\n"
                                   "  }\n"
                                   "}\n";

/* Simulate copy_program with param N (the spin loop) under options o;
 * returns the messages (heap, "" on success). */
static char *simulate(int64_t n, const sim_options *o, double *cycles)
{
    char *msgs = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&msgs, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    arch_desc *a = arch_parse("one_core.yaml", one_core_yaml, sizeof one_core_yaml - 1, &d);
    assert_non_null(a);
    assert_int_equal(arch_num_cores(a), 1);
    lm_buf text = {0};
    lm_buf_printf(&text, "program copy\nparam N = %lld\n%s", (long long)n, copy_program);
    df_program *p = df_parse("copy.df", lm_buf_str(&text), text.len, &d);
    assert_non_null(p);
    assert_true(df_bind(p, NULL, 0, &d));
    assert_true(df_validate(p, a, &d));
    sim_result *r = sim_run(p, a, o, &d);
    if (r && cycles)
        *cycles = r->cycles;
    sim_result_free(r);
    df_free(p);
    arch_free(a);
    lm_buf_free(&text);
    fclose(f);
    assert_true((r != NULL) == (d.nerrors == 0));
    return msgs;
}

static void one_core_chip(void **st)
{
    (void)st;
    sim_options o = {.check = true};
    double cycles = 0;
    char *e = simulate(1, &o, &cycles);
    if (*e)
        fail_msg("unexpected error: %s", e);
    free(e);
    assert_true(cycles > 1000); /* at least the kernel launch */
}

static void sim_budgets(void **st)
{
    (void)st;
    /* events: each sem_set is one; a budget of 100 stops 1000 of them */
    sim_options o = {.max_events = 100};
    char *e = simulate(1000, &o, NULL);
    assert_non_null(strstr(e, "simulation stopped after 100 events"));
    assert_non_null(strstr(e, "the event budget is spent"));
    free(e);
    /* cycles: the kernel launch alone costs 1000 */
    o = (sim_options){.max_cycles = 500};
    e = simulate(1, &o, NULL);
    assert_non_null(strstr(e, "past the budget of 500 cycles"));
    free(e);
    /* functional data: two tensors of one 32 x 32 tile each hold 2 x 1024
       elements; a budget of exactly that runs, one element less refuses
       before simulating, and a timing-only run holds no data */
    o = (sim_options){.max_data_elems = 2048, .check = true};
    e = simulate(1, &o, NULL);
    if (*e)
        fail_msg("unexpected error: %s", e);
    free(e);
    o = (sim_options){.max_data_elems = 2047, .check = true};
    e = simulate(1, &o, NULL);
    assert_non_null(strstr(e, "a functional simulation would hold 2048 tensor elements (padded to whole tiles), more "
                              "than the limit of 2047"));
    assert_non_null(strstr(e, "--timing-only"));
    free(e);
    o = (sim_options){.max_data_elems = 2047, .timing_only = true};
    e = simulate(1, &o, NULL);
    if (*e)
        fail_msg("unexpected error: %s", e);
    free(e);
    /* the defaults are what docs/limits.md says */
    assert_int_equal(SIM_DEFAULT_MAX_EVENTS, 400000000);
    assert_true(SIM_DEFAULT_MAX_CYCLES == 1e12);
    assert_int_equal(SIM_DEFAULT_MAX_DATA_ELEMS, (int64_t)1 << 27);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(file_size),     cmocka_unit_test(token_count),  cmocka_unit_test(identifier_length),
        cmocka_unit_test(nesting_depth), cmocka_unit_test(parameters),   cmocka_unit_test(arguments),
        cmocka_unit_test(functions),     cmocka_unit_test(launches),     cmocka_unit_test(kernel_names),
        cmocka_unit_test(spec_names),    cmocka_unit_test(kernel_ops),   cmocka_unit_test(size_values),
        cmocka_unit_test(tensor_sizes),  cmocka_unit_test(tile_elements), cmocka_unit_test(dataflow_counts),
        cmocka_unit_test(one_core_chip), cmocka_unit_test(sim_budgets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
