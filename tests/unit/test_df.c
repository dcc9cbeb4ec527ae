/* test_df.c - dataflow programs: the op table, expression evaluation and
 * folding, programmatic construction, the text form (round trips on every
 * program in tests/sim, canonical expressions, error messages from
 * in-memory text), binding of params and validation against a chip.
 * Expected values are derived here from the documented semantics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "df/df.h"

/* ---- helpers --------------------------------------------------------- */

/* Parse (and bind) text; errors go to a string the caller frees. */
static df_program *parse_text(const char *text, char **errs)
{
    size_t len = 0;
    FILE *f = open_memstream(errs, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    df_program *p = df_parse("t.df", text, strlen(text), &d);
    if (p && !df_bind(p, NULL, 0, &d)) {
        df_free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

static char *print_prog(const df_program *p)
{
    lm_buf b = {0};
    df_print(&b, p);
    char *s = lm_xstrdup(lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

/* The errors a text produces (never NULL; "" when it parses). */
static char *errors_of(const char *text)
{
    char *errs = NULL;
    df_program *p = parse_text(text, &errs);
    df_free(p);
    return errs;
}

static void assert_error(const char *text, const char *want)
{
    char *errs = errors_of(text);
    if (!strstr(errs, want))
        fail_msg("expected '%s' in:\n%s", want, errs);
    free(errs);
}

static const char *const PRELUDE = "program t\n"
                                   "param M = 2\n"
                                   "tensor A rows=M*32 cols=64 format=bf16 role=input\n"
                                   "sem s\n";

/* PRELUDE plus one class of one core with CB 0 and 16 and the given kernel. */
static char *with_kernel(const char *kernel, const char *body)
{
    lm_buf b = {0};
    lm_buf_printf(&b, "%sclass c x0=0 y0=0 x1=0 y1=0 {\n  cb 0 format=bf16 pages=4\n"
                      "  cb 16 format=bf16 pages=4\n  %s {\n%s\n  }\n}\n",
                  PRELUDE, kernel, body);
    char *s = lm_xstrdup(lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

static arch_desc *n150(void)
{
    lm_diag d;
    lm_diag_init(&d, stderr);
    arch_desc *a = arch_load("arch/wormhole_n150.yaml", &d);
    if (!a)
        fail_msg("cannot load arch/wormhole_n150.yaml");
    return a;
}

/* ---- op table ---------------------------------------------------------- */

static void op_table_is_consistent(void **state)
{
    (void)state;
    static const char *const xnames[] = {
#define X(e, s) s,
        DF_OPS(X)
#undef X
    };
    assert_int_equal(LM_COUNT(xnames), DF_NOPS);
    for (int i = 0; i < DF_NOPS; i++) {
        const df_opinfo *oi = &df_ops[i];
        assert_non_null(oi->name);
        assert_string_equal(oi->name, xnames[i]);
        assert_int_equal(df_op_lookup(oi->name), i);
        for (int j = 0; j < oi->nfields; j++) {
            const df_field *f = &oi->fields[j];
            /* required fields have no default, optional ones always have one */
            assert_true(f->required == (f->deflt == NULL));
            assert_true(f->offset + sizeof(int) <= sizeof(df_stmt));
            assert_ptr_equal(df_field_lookup((df_op)i, f->key), f);
            for (int k = 0; k < j; k++)
                assert_true(strcmp(oi->fields[k].key, f->key) != 0);
        }
    }
    assert_int_equal(df_op_lookup("cb_reserv"), DF_NOPS);
    assert_null(df_field_lookup(DF_READ, "n"));
    /* engines as on the chip */
    assert_int_equal(df_ops[DF_SEM_WAIT].engine, DF_ENGINE_DM);
    assert_int_equal(df_ops[DF_MCAST].engine, DF_ENGINE_DM);
    assert_int_equal(df_ops[DF_MATMUL].engine, DF_ENGINE_COMPUTE);
    assert_int_equal(df_ops[DF_CB_WAIT].engine, DF_ENGINE_ANY);
    assert_int_equal(df_ops[DF_FOR].engine, DF_ENGINE_ANY);
}

static void names_round_trip(void **state)
{
    (void)state;
    for (int f = 0; f < ARCH_NFORMATS; f++)
        assert_int_equal(df_format_parse(df_format_name((arch_format)f)), f);
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        assert_int_equal(df_fidelity_parse(df_fidelity_name((arch_fidelity)f)), f);
    for (int b = 0; b < DF_NBCASTS; b++)
        assert_int_equal(df_bcast_parse(df_bcast_name((df_bcast)b)), b);
    for (int s = 0; s < DF_NSFPUOPS; s++)
        assert_int_equal(df_sub_parse(DF_SFPU, df_sub_name(DF_SFPU, s)), s);
    assert_int_equal(df_sub_parse(DF_REDUCE, "sum"), DF_RSUM);
    assert_int_equal(df_sub_parse(DF_ELTWISE, "sum"), -1);
    assert_int_equal(df_format_parse("bf8"), -1);
}

static void stmt_defaults(void **state)
{
    (void)state;
    df_program *p = df_new("t");
    df_stmt *s = df_stmt_new(p, DF_MATMUL, (lm_loc){0});
    assert_int_equal(s->cb, -1);
    assert_int_equal(s->cb_b, -1);
    assert_int_equal(s->cb_out, -1);
    assert_int_equal(s->tensor, -1);
    assert_int_equal(s->sem, -1);
    assert_int_equal(s->var, -1);
    assert_null(s->m); /* required: unset */
    assert_non_null(s->sub_h);
    assert_int_equal(s->sub_h->kind, DF_X_CONST);
    assert_int_equal(s->sub_h->value, 1);
    assert_int_equal(s->acc->value, 0);
    assert_false(s->trans_b);
    s = df_stmt_new(p, DF_SFPU, (lm_loc){0});
    assert_true(s->scalar == 1.0); /* the scale factor defaults to identity */
    s = df_stmt_new(p, DF_FILL, (lm_loc){0});
    assert_true(s->scalar == 0.0);
    s = df_stmt_new(p, DF_ELTWISE, (lm_loc){0});
    assert_int_equal(s->bcast, DF_BC_NONE);
    assert_int_equal(s->sub, -1);
    s = df_stmt_new(p, DF_SEM_INC, (lm_loc){0});
    assert_int_equal(s->value->value, 1);
    df_free(p);
}

/* ---- expressions --------------------------------------------------------- */

static int64_t ev2(df_program *p, df_xkind k, int64_t a, int64_t b, bool *bad)
{
    /* through slots so that nothing is folded */
    int64_t slots[4] = {a, b, 0, 0};
    const df_expr *e = df_bin(p, k, df_slot(p, 0), df_slot(p, 1));
    return df_eval_checked(e, slots, bad);
}

static void eval_floor_semantics(void **state)
{
    (void)state;
    df_program *p = df_new("t");
    bool bad = false;
    /* floor division and modulo with the divisor's sign: a == (a/b)*b + a%b */
    const int64_t vals[] = {-7, -6, -1, 0, 1, 6, 7, 13, -13};
    const int64_t divs[] = {-3, -2, -1, 1, 2, 3, 5};
    for (size_t i = 0; i < LM_COUNT(vals); i++)
        for (size_t j = 0; j < LM_COUNT(divs); j++) {
            int64_t a = vals[i], b = divs[j];
            int64_t q = ev2(p, DF_X_DIV, a, b, &bad), r = ev2(p, DF_X_MOD, a, b, &bad);
            assert_int_equal(q * b + r, a);
            if (b > 0)
                assert_true(r >= 0 && r < b);
            else
                assert_true(r <= 0 && r > b);
        }
    assert_false(bad);
    assert_int_equal(ev2(p, DF_X_DIV, -7, 2, &bad), -4);
    assert_int_equal(ev2(p, DF_X_MOD, -7, 2, &bad), 1);
    assert_int_equal(ev2(p, DF_X_MOD, 7, -2, &bad), -1);
    assert_int_equal(ev2(p, DF_X_MIN, -7, 2, &bad), -7);
    assert_int_equal(ev2(p, DF_X_MAX, -7, 2, &bad), 2);
    assert_false(bad);
    df_free(p);
}

static void eval_failures_are_flagged_not_fatal(void **state)
{
    (void)state;
    df_program *p = df_new("t");
    bool bad = false;
    assert_int_equal(ev2(p, DF_X_DIV, 5, 0, &bad), 0);
    assert_true(bad);
    bad = false;
    assert_int_equal(ev2(p, DF_X_MOD, 5, 0, &bad), 0);
    assert_true(bad);
    bad = false;
    ev2(p, DF_X_DIV, INT64_MIN, -1, &bad);
    assert_true(bad);
    bad = false;
    assert_int_equal(ev2(p, DF_X_MOD, INT64_MIN, -1, &bad), 0); /* exact: no overflow */
    assert_false(bad);
    ev2(p, DF_X_MUL, INT64_MAX / 2 + 1, 2, &bad);
    assert_true(bad);
    ev2(p, DF_X_ADD, 1, 2, &bad); /* sticky */
    assert_true(bad);
    bad = false;
    ev2(p, DF_X_SUB, INT64_MIN, 1, &bad);
    assert_true(bad);
    /* the unchecked entry point gives the same value and does not trap */
    int64_t slots[2] = {9, 0};
    assert_int_equal(df_eval(df_bin(p, DF_X_DIV, df_slot(p, 0), df_slot(p, 1)), slots), 0);
    df_free(p);
}

static void bin_folds(void **state)
{
    (void)state;
    df_program *p = df_new("t");
    const df_expr *x = df_slot(p, 5);
    const df_expr *e = df_bin(p, DF_X_MUL, df_const(p, 6), df_const(p, 7));
    assert_int_equal(e->kind, DF_X_CONST);
    assert_int_equal(e->value, 42);
    e = df_bin(p, DF_X_DIV, df_const(p, -7), df_const(p, 2));
    assert_int_equal(e->value, -4);
    assert_ptr_equal(df_bin(p, DF_X_ADD, x, df_const(p, 0)), x);
    assert_ptr_equal(df_bin(p, DF_X_ADD, df_const(p, 0), x), x);
    assert_ptr_equal(df_bin(p, DF_X_SUB, x, df_const(p, 0)), x);
    assert_ptr_equal(df_bin(p, DF_X_MUL, df_const(p, 1), x), x);
    assert_ptr_equal(df_bin(p, DF_X_DIV, x, df_const(p, 1)), x);
    /* a division by zero is kept so that evaluation reports it */
    e = df_bin(p, DF_X_DIV, df_const(p, 1), df_const(p, 0));
    assert_int_equal(e->kind, DF_X_DIV);
    bool bad = false;
    df_eval_checked(e, NULL, &bad);
    assert_true(bad);
    assert_true(df_expr_uses_slots_from(df_bin(p, DF_X_ADD, x, df_const(p, 3)), 5));
    assert_false(df_expr_uses_slots_from(df_bin(p, DF_X_ADD, x, df_const(p, 3)), 6));
    df_free(p);
}

/* ---- construction -------------------------------------------------------- */

static void build_print_parse(void **state)
{
    (void)state;
    df_program *p = df_new("built");
    lm_loc nl = {0};
    assert_int_equal(df_add_param(p, "N", 3, nl), 0);
    assert_int_equal(df_add_param(p, "K", 2, nl), 1);
    const df_expr *N = df_slot(p, DF_SLOT_PARAM0), *K = df_slot(p, DF_SLOT_PARAM0 + 1);
    int t = df_add_tensor(p, "X", df_bin(p, DF_X_MUL, N, df_const(p, 32)), df_const(p, 32), ARCH_BF16,
                          DF_INPUT, nl);
    int s = df_add_sem(p, "go", NULL, nl);
    df_class *c = df_add_class(p, "row", df_const(p, 0), df_const(p, 0), df_bin(p, DF_X_SUB, N, df_const(p, 1)),
                               df_const(p, 0), nl);
    /* slots: cx, cy, the two params, then the arg, then loop variables */
    assert_int_equal(c->nslots, DF_SLOT_PARAM0 + 2);
    int arg = df_add_arg(p, c, "first", df_bin(p, DF_X_MUL, df_slot(p, DF_SLOT_CX), K));
    assert_int_equal(arg, DF_SLOT_PARAM0 + 2);
    df_add_cb(p, c, 0, ARCH_BF16, df_bin(p, DF_X_MUL, df_const(p, 2), K), nl);
    df_stmt *loop = df_for(p, c, "i", df_const(p, 0), K, NULL, nl);
    assert_int_equal(loop->var, arg + 1);
    assert_string_equal(c->slot_names[loop->var], "i");
    df_add_stmt(p, &c->kernels[DF_READER], loop);
    df_stmt *r = df_stmt_new(p, DF_CB_RESERVE, nl);
    r->cb = 0;
    r->n = df_const(p, 1);
    df_add_body(p, loop, r);
    df_stmt *rd = df_stmt_new(p, DF_READ, nl);
    rd->tensor = t;
    rd->cb = 0;
    rd->row = df_slot(p, DF_SLOT_CX);
    rd->col = df_bin(p, DF_X_ADD, df_slot(p, arg), df_slot(p, loop->var));
    df_add_body(p, loop, rd);
    df_stmt *inc = df_stmt_new(p, DF_SEM_INC, nl);
    inc->sem = s;
    inc->x = df_bin(p, DF_X_MOD, df_bin(p, DF_X_ADD, df_slot(p, DF_SLOT_CX), df_const(p, 1)), N);
    inc->y = df_const(p, 0);
    df_add_stmt(p, &c->kernels[DF_WRITER], inc);
    /* many statements: the arena-backed arrays grow */
    for (int i = 0; i < 100; i++) {
        df_stmt *b = df_stmt_new(p, DF_WRITE_BARRIER, nl);
        df_add_stmt(p, &c->kernels[DF_WRITER], b);
    }
    assert_int_equal(c->kernels[DF_WRITER].nbody, 101);
    lm_buf one = {0};
    df_print_stmt(&one, p, c, rd);
    lm_buf_puts(&one, " | ");
    df_print_stmt(&one, p, c, loop);
    lm_buf_puts(&one, " | ");
    df_print_expr(&one, p, NULL, c->x1_e);
    assert_string_equal(lm_buf_str(&one), "read tensor=X row=cx col=first+i cb=0 | for i lo=0 hi=K | N-1");
    lm_buf_free(&one);
    assert_int_equal(c->kernels[DF_WRITER].body[0]->op, DF_SEM_INC);

    char *text = print_prog(p);
    const char *want_head = "program built\n"
                            "param N = 3\n"
                            "param K = 2\n"
                            "\n"
                            "tensor X rows=N*32 cols=32 format=bf16 role=input\n"
                            "sem go\n"
                            "\n"
                            "class row x0=0 y0=0 x1=N-1 y1=0 {\n"
                            "  arg first = cx*K\n"
                            "  cb 0 format=bf16 pages=2*K\n"
                            "  reader {\n"
                            "    for i lo=0 hi=K {\n"
                            "      cb_reserve cb=0 n=1\n"
                            "      read tensor=X row=cx col=first+i cb=0\n"
                            "    }\n"
                            "  }\n"
                            "  writer {\n"
                            "    sem_inc sem=go x=(cx+1)%N y=0\n"
                            "    write_barrier\n";
    assert_memory_equal(text, want_head, strlen(want_head));
    char *errs = NULL;
    df_program *q = parse_text(text, &errs);
    assert_non_null(q);
    assert_string_equal(errs, "");
    char *again = print_prog(q);
    assert_string_equal(again, text);
    assert_int_equal(q->tensors[0].rows, 3 * 32);
    assert_int_equal(q->classes[0].x1, 2);
    assert_int_equal(q->classes[0].cbs[0].pages, 4);
    free(again);
    free(errs);
    free(text);
    df_free(q);
    df_free(p);
}

/* ---- text form ------------------------------------------------------------ */

/* Canonical printing of expressions: only the parentheses the tree needs,
 * constants folded, and the result parses back to the same text. */
static void expressions_print_canonically(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"(i+1)*2", "(i+1)*2"},
        {"i+(1+M)", "i+(1+M)"},
        {"(i+1)+M", "i+1+M"},
        {"i-(M-1)", "i-(M-1)"},
        {"i*(M*2)", "i*(M*2)"},
        {"i/M/2", "i/M/2"},
        {"i/(M/2)", "i/(M/2)"},
        {"-(i+1)", "-(i+1)"},
        {"-i*2", "-i*2"},
        {"-(i*2)", "-(i*2)"},
        {"i*-2", "i*(-2)"},
        {"i-(-3)", "i-(-3)"},
        {"min(i,max(M,3))%4", "min(i,max(M,3))%4"},
        {"2*16+1", "33"},
        {"i+0*M", "i+0*M"},
        {"i*1+0", "i"},
        {"((i))", "i"},
        {"-5%3", "1"},
        {"7/-2", "-4"},
    };
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        char body[160];
        snprintf(body, sizeof body, "    for i lo=0 hi=4 {\n      cb_reserve cb=0 n=%s\n    }", cases[i][0]);
        char *text = with_kernel("reader", body);
        char *errs = NULL;
        df_program *p = parse_text(text, &errs);
        if (!p)
            fail_msg("'%s' did not parse: %s", cases[i][0], errs);
        char *out = print_prog(p);
        char want[80];
        snprintf(want, sizeof want, " n=%s\n", cases[i][1]);
        if (!strstr(out, want))
            fail_msg("'%s' printed as:\n%s\nexpected%s", cases[i][0], out, want);
        char *errs2 = NULL;
        df_program *q = parse_text(out, &errs2);
        assert_non_null(q);
        char *out2 = print_prog(q);
        assert_string_equal(out, out2);
        free(out2);
        free(errs2);
        df_free(q);
        free(out);
        free(errs);
        free(text);
        df_free(p);
    }
}

static void defaults_are_omitted_and_fields_ordered(void **state)
{
    (void)state;
    char *text = with_kernel("reader", "    read cb=0 at=0 col=1 rows=1 tensor=A row=0 cols=2\n"
                                       "    mcast loopback=0 cb=0 n=2 x0=0 y0=0 x1=1 y1=0 dst_at=1");
    char *errs = NULL;
    df_program *p = parse_text(text, &errs);
    assert_non_null(p);
    char *out = print_prog(p);
    assert_non_null(strstr(out, "    read tensor=A row=0 col=1 cols=2 cb=0\n"));
    assert_non_null(strstr(out, "    mcast cb=0 n=2 x0=0 y0=0 x1=1 y1=0 dst_at=1\n"));
    free(out);
    free(errs);
    free(text);
    df_free(p);
}

/* Every hand-written program parses, and its canonical text is a fixed point. */
static void sim_programs_round_trip(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("tests/sim/*.df", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 4);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char why[256];
        size_t len;
        char *src = lm_read_file(g.gl_pathv[i], &len, why, sizeof why);
        assert_non_null(src);
        char *errs = NULL;
        df_program *p = parse_text(src, &errs);
        if (!p)
            fail_msg("%s: %s", g.gl_pathv[i], errs);
        char *once = print_prog(p);
        char *errs2 = NULL;
        df_program *q = parse_text(once, &errs2);
        if (!q)
            fail_msg("%s printed:\n%s\ndoes not parse: %s", g.gl_pathv[i], once, errs2);
        char *twice = print_prog(q);
        assert_string_equal(once, twice);
        free(twice);
        free(once);
        free(errs);
        free(errs2);
        df_free(q);
        df_free(p);
        free(src);
    }
    globfree(&g);
}

static void syntax_errors(void **state)
{
    (void)state;
    char *t;
    t = with_kernel("reader", "    cb_reserv cb=0 n=1");
    assert_error(t, "t.df:9:5: error: unknown op 'cb_reserv' (did you mean 'cb_reserve'?)");
    free(t);
    t = with_kernel("reader", "    cb_reserve cb=0");
    assert_error(t, "t.df:9:5: error: missing required key 'n' for 'cb_reserve'");
    free(t);
    t = with_kernel("reader", "    cb_reserve cb=0 n=1 n=2");
    assert_error(t, "t.df:9:25: error: duplicate key 'n'");
    free(t);
    t = with_kernel("reader", "    cb_reserve cb=0 n=1 count=2");
    assert_error(t, "t.df:9:25: error: unknown key 'count' for 'cb_reserve'");
    free(t);
    t = with_kernel("reader", "    cb_reserve cb=0 n=(M");
    assert_error(t, "t.df:9:25: error: bad expression '(M': expected ')' to close the '(' at column 23, found the end of the value");
    free(t);
    t = with_kernel("reader", "    cb_reserve cb=0 n=N");
    assert_error(t, "t.df:9:23: error: bad expression 'N': unknown name 'N' (did you mean 'M'?)");
    free(t);
    t = with_kernel("reader", "    cb_reserve cb=0 n=99999999999999999999");
    assert_error(t, "integer does not fit in 64 bits");
    free(t);
    t = with_kernel("reader", "    cb_reserve cb=0 n=1 extra");
    assert_error(t, "t.df:9:25: error: expected key=value, found 'extra'");
    free(t);
    t = with_kernel("compute", "    sem_set sem=s value=1");
    assert_error(t, "t.df:9:5: error: 'sem_set' is a data-movement op and cannot be used in a compute kernel");
    free(t);
    t = with_kernel("writer", "    reduce op=sum a=0 out=16");
    assert_error(t, "'reduce' is a compute op and cannot be used in a writer kernel");
    free(t);
    t = with_kernel("reader", "    for cx lo=0 hi=2 {\n    }");
    assert_error(t, "t.df:9:9: error: 'cx' is reserved and cannot name a loop variable");
    free(t);
    t = with_kernel("reader", "    cb_wait cb=0 n=1 {\n    }");
    assert_error(t, "unexpected '{': only 'for', 'chain' and 'pchain' open a block in a kernel");
    free(t);
    assert_error("program t\nclass c x0=0 y0=0 x1=0 y1=0 {\n  reader {\n", "t.df:3:10: error: '{' of this kernel is never closed");
    assert_error("program t\n}\n", "t.df:2:1: error: unmatched '}'");
    assert_error("", "t.df:1:1: error: empty program: expected 'program NAME'");
    assert_error("program t\nprogram u\n", "t.df:2:1: error: a second 'program' line");
    assert_error("program t\nparam M = x\n", "t.df:2:11: error: bad param value 'x': expected an integer");
    assert_error("program t\nparam M = 1 2\n", "t.df:2:13: error: unexpected '2' after the value");
    assert_error("program t\nparam M=1\nparam M=2\n", "t.df:3:7: error: duplicate name 'M'");
    assert_error("program t\ntensor T rows=32 cols=32 format=bf16\n", "t.df:2:1: error: missing required key 'role' for 'tensor'");
    assert_error("program t\ntensr T\n", "t.df:2:1: error: unknown item 'tensr' (did you mean 'tensor'?)");
    assert_error("program t\ncb_wait cb=0 n=1\n", "t.df:2:1: error: 'cb_wait' must be inside a class");
    assert_error("program t\nclass c x0=0 y0=0 x1=0 y1=0 {\n  reader {\n  }\n  reader {\n  }\n}\n",
                 "t.df:5:3: error: class 'c' has two reader kernels");
    assert_error("program t\nclass c x0=0 y0=0 x1=0 y1=0 {\n  reader {\n  }\n  arg a = 1\n}\n",
                 "t.df:5:3: error: arguments must be declared before the kernels");
    assert_error("program t\nparam M = 1\nclass c x0=0 y0=0 x1=0 y1=0 {\n  arg M = 1\n}\n",
                 "t.df:4:7: error: argument 'M' shadows a param");
    assert_error("program t\nclass c x0=0 y0=0 x1=0 y1=0 {\n  cb 1 format=bf16 pages=1\n  cb 1 format=bf16 pages=1\n}\n",
                 "t.df:4:6: error: CB 1 is declared twice in class 'c'");
    assert_error("program t\nclass c x0=0 y0=0 x1=1 y1=-1 {\n}\n", "y1 of class 'c' is -1; it must be in 0..63");
    assert_error("program t\nclass c x0=1 y0=0 x1=0 y1=0 {\n}\n", "class 'c' has an empty rectangle (1,0)-(0,0)");
    assert_error("program t\ntensor Q rows=32 cols=32 format=bf16 role=output\n"
                 "check attention out=Q q=Q k=Q v=Q batch=1 heads=1 kv_heads=1 seq_q=32 seq_k=32 dim=32\n",
                 "missing required key 'scale' for 'check attention'");
}

static void text_with_nul_and_junk_does_not_crash(void **state)
{
    (void)state;
    /* every prefix of a real program, and a few thousand single-byte
     * mutations of it, must give a program or errors, never a crash */
    char why[256];
    size_t len;
    char *src = lm_read_file("tests/sim/stream_matmul.df", &len, why, sizeof why);
    assert_non_null(src);
    char *buf = lm_xmalloc(len + 1);
    for (size_t cut = 0; cut <= len; cut += 7) {
        memcpy(buf, src, cut);
        buf[cut] = 0;
        char *e = errors_of(buf);
        free(e);
    }
    static const char junk[] = "{}#=()+-*/%,\n \t0aZ_";
    uint64_t rng = 12345;
    for (int i = 0; i < 3000; i++) {
        memcpy(buf, src, len + 1);
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        size_t at = (size_t)(rng >> 33) % len;
        buf[at] = junk[(rng >> 20) % (sizeof junk - 1)];
        char *e = errors_of(buf);
        free(e);
    }
    free(buf);
    free(src);
}

/* ---- binding and validation ------------------------------------------------- */

static df_program *load_prog(const char *path)
{
    char why[256];
    size_t len;
    char *src = lm_read_file(path, &len, why, sizeof why);
    if (!src)
        fail_msg("%s", why);
    lm_diag d;
    lm_diag_init(&d, stderr);
    df_program *p = df_parse(path, src, len, &d);
    free(src); /* the program keeps no pointer into the text */
    assert_non_null(p);
    return p;
}

static void bind_applies_overrides(void **state)
{
    (void)state;
    df_program *p = load_prog("tests/sim/mcast_gemm.df");
    const char *ov[] = {"GX=8", "GY=8", "PM=16", "PN=16", "KT=128"};
    lm_diag d;
    lm_diag_init(&d, stderr);
    assert_true(df_bind(p, ov, 5, &d));
    /* the 4096-cube: M = GY*PM*32, N = GX*PN*32, K = KT*32 */
    assert_int_equal(p->tensors[0].rows, 4096);
    assert_int_equal(p->tensors[0].cols, 4096);
    assert_int_equal(p->tensors[1].cols, 4096);
    assert_int_equal(p->classes[3].x1, 7);
    assert_int_equal(p->classes[3].y1, 7);
    arch_desc *a = n150();
    assert_true(df_validate(p, a, &d));
    assert_int_equal(d.nerrors, 0);

    char *errs = NULL;
    size_t elen;
    FILE *f = open_memstream(&errs, &elen);
    lm_diag_init(&d, f);
    const char *bad[] = {"GZ=8", "PM=x", "=3"};
    assert_false(df_bind(p, bad, 3, &d));
    fclose(f);
    assert_non_null(strstr(errs, "unknown param 'GZ' in override 'GZ=8' (did you mean 'GX'?)"));
    assert_non_null(strstr(errs, "bad value in param override 'PM=x'"));
    assert_non_null(strstr(errs, "bad param override '=3'"));
    free(errs);
    arch_free(a);
    df_free(p);
}

static void validate_l1_capacity(void **state)
{
    (void)state;
    arch_desc *a = n150();
    int64_t usable = a->l1_bytes - a->l1_reserved_bytes;
    /* mcast_gemm's CBs: 2*PM*KW + 2*KW*PN bf16 pages and PM*PN fp32 pages.
     * Find the largest square block PM = PN = P that fits with KW = 2 and
     * check that it validates and P+1 does not. */
    int64_t P = 1;
    while ((2 * (P + 1) * 2 + 2 * 2 * (P + 1)) * a->tile_bytes[ARCH_BF16] + (P + 1) * (P + 1) * a->tile_bytes[ARCH_FP32] <= usable)
        P++;
    for (int64_t pm = P; pm <= P + 1; pm++) {
        df_program *p = load_prog("tests/sim/mcast_gemm.df");
        char o1[32], o2[32];
        snprintf(o1, sizeof o1, "PM=%lld", (long long)pm);
        snprintf(o2, sizeof o2, "PN=%lld", (long long)pm);
        /* keep sub-blocks dividing the block: 1x1 */
        const char *ov[] = {o1, o2, "SH=1", "SW=1", "GX=2", "GY=2"};
        char *errs = NULL;
        size_t elen;
        FILE *f = open_memstream(&errs, &elen);
        lm_diag d;
        lm_diag_init(&d, f);
        assert_true(df_bind(p, ov, 6, &d));
        bool ok = df_validate(p, a, &d);
        fclose(f);
        if (pm == P)
            assert_true(ok);
        else {
            assert_false(ok);
            assert_non_null(strstr(errs, "more than the"));
        }
        free(errs);
        df_free(p);
    }
    arch_free(a);
}

static void validate_catches_per_core_operands(void **state)
{
    (void)state;
    arch_desc *a = n150();
    static const char *const cases[][2] = {
        {"    sem_inc sem=s x=cx+1 y=0", "sem_inc: core (8,0) is outside the 8x8 core grid (on core (7,0) of class 'c')"},
        {"    sem_mcast sem=s value=1 x0=1 y0=0 x1=0 y1=0", "sem_mcast: empty rectangle (1,0)-(0,0)"},
        {"    cb_reserve cb=0 n=5", "cb_reserve of 5 pages can never complete: CB 0 has 4 pages"},
        {"    cb_reserve cb=0 n=1+(cx-3)/(cx-3)", "an operand of 'cb_reserve' divides by zero or overflows (on core (3,0) of class 'c')"},
        {"    cb_reserve cb=0 n=1\n    read tensor=A row=M col=0 cb=0", "read: tile block at (2,0) of 1x1 tiles is outside tensor 'A' (2x2 tiles)"},
        {"    send cb=0 n=2 at=3 x=0 y=0", "send: pages 3..4 of CB 0, which has 4 pages"},
        {"    for i lo=0 hi=cx {\n      cb_reserve cb=0 n=1\n    }", ""}, /* empty on core 0 only: fine */
    };
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        lm_buf b = {0};
        lm_buf_printf(&b, "%sclass c x0=0 y0=0 x1=7 y1=0 {\n  cb 0 format=bf16 pages=4\n  reader {\n%s\n  }\n}\n",
                      PRELUDE, cases[i][0]);
        char *errs = NULL;
        df_program *p = parse_text(lm_buf_str(&b), &errs);
        if (!p)
            fail_msg("%s", errs);
        free(errs);
        size_t elen;
        FILE *f = open_memstream(&errs, &elen);
        lm_diag d;
        lm_diag_init(&d, f);
        d.no_caret = true;
        bool ok = df_validate(p, a, &d);
        fclose(f);
        if (!cases[i][1][0]) {
            if (!ok)
                fail_msg("unexpected: %s", errs);
        } else if (ok || !strstr(errs, cases[i][1]))
            fail_msg("case %zu: expected '%s' in:\n%s", i, cases[i][1], errs);
        free(errs);
        lm_buf_free(&b);
        df_free(p);
    }
    arch_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(op_table_is_consistent),
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(stmt_defaults),
        cmocka_unit_test(eval_floor_semantics),
        cmocka_unit_test(eval_failures_are_flagged_not_fatal),
        cmocka_unit_test(bin_folds),
        cmocka_unit_test(build_print_parse),
        cmocka_unit_test(expressions_print_canonically),
        cmocka_unit_test(defaults_are_omitted_and_fields_ordered),
        cmocka_unit_test(sim_programs_round_trip),
        cmocka_unit_test(syntax_errors),
        cmocka_unit_test(text_with_nul_and_junk_does_not_crash),
        cmocka_unit_test(bind_applies_overrides),
        cmocka_unit_test(validate_l1_capacity),
        cmocka_unit_test(validate_catches_per_core_operands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
