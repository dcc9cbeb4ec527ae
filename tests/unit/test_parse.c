/* test_parse.c - the parser and fe_dump: precedence, statements, the forms
 * Triton kernels and launch specs use, locations, errors that name the
 * construct, the nesting limit, and that no input (truncated or mutated
 * kernels) makes it loop or crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "front/ast.h"

typedef struct parsed {
    fe_module *m;
    char *dump;   /* fe_dump text, heap ("" on failure) */
    char *errors; /* diagnostics text, heap */
    int nerrors;
    lm_arena arena;
} parsed;

static parsed parse_n(const char *src, size_t len)
{
    parsed r = {0};
    size_t elen = 0;
    FILE *f = open_memstream(&r.errors, &elen);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    lm_arena_init(&r.arena);
    r.m = fe_parse("t.py", src, len, &r.arena, &d);
    fclose(f);
    r.nerrors = d.nerrors;
    lm_buf b = {0};
    if (r.m)
        fe_dump(&b, r.m);
    r.dump = lm_xstrdup(lm_buf_str(&b));
    lm_buf_free(&b);
    /* a tree exactly when there were no errors, and then at most one error */
    assert_true((r.m != NULL) == (r.nerrors == 0));
    assert_true(r.nerrors <= 1);
    return r;
}

static parsed parse(const char *src) { return parse_n(src, strlen(src)); }

static void parsed_free(parsed *r)
{
    free(r->dump);
    free(r->errors);
    lm_arena_free(&r->arena);
}

/* The whole dump of `src` must be `want` (without the final newline). */
static void check_dump(const char *src, const char *want)
{
    parsed r = parse(src);
    if (!r.m)
        fail_msg("unexpected error for:\n%s\n%s", src, r.errors);
    size_t n = strlen(r.dump);
    assert_true(n > 0 && r.dump[n - 1] == '\n');
    r.dump[n - 1] = 0;
    if (strcmp(r.dump, want))
        fail_msg("dump of\n%s\nis\n%s\nexpected\n%s", src, r.dump, want);
    parsed_free(&r);
}

/* The dump of a one-statement module must be "(module\n  STMT)". */
static void check_stmt(const char *src, const char *stmt)
{
    lm_buf want = {0};
    lm_buf_printf(&want, "(module\n  %s)", stmt);
    check_dump(src, lm_buf_str(&want));
    lm_buf_free(&want);
}

/* The expression statement `src` must dump as `(expr EXPR)`. */
static void check_expr(const char *src, const char *expr)
{
    lm_buf want = {0};
    lm_buf_printf(&want, "(expr %s)", expr);
    check_stmt(src, lm_buf_str(&want));
    lm_buf_free(&want);
}

static void check_error(const char *src, const char *want)
{
    parsed r = parse(src);
    if (r.m)
        fail_msg("expected an error for:\n%s\ngot\n%s", src, r.dump);
    if (!strstr(r.errors, want))
        fail_msg("error for\n%s\nis\n%s\nexpected it to contain\n%s", src, r.errors, want);
    parsed_free(&r);
}

static void must_contain(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("expected to find\n%s\nin\n%s", part, text);
}

/* ---- expressions ---------------------------------------------------------- */

static void atoms(void **state)
{
    (void)state;
    check_expr("x\n", "(name x)");
    check_expr("42\n", "(int 42)");
    check_expr("0.5\n", "(float 0.5)");
    check_expr("1e-3\n", "(float 0.001)");
    check_expr("'a' \"b\"\n", "(str \"ab\")"); /* adjacent literals concatenate */
    check_expr("'q\"\\n'\n", "(str \"q\\\"\\n\")");
    check_expr("True\n", "True");
    check_expr("False\n", "False");
    check_expr("None\n", "None");
    check_expr("...\n", "...");
}

static void precedence(void **state)
{
    (void)state;
    check_expr("a + b * c\n", "(binop + (name a) (binop * (name b) (name c)))");
    check_expr("a - b - c\n", "(binop - (binop - (name a) (name b)) (name c))");
    check_expr("a * b // c % d / e @ f\n",
               "(binop @ (binop / (binop % (binop // (binop * (name a) (name b)) (name c)) (name d)) (name e)) (name f))");
    check_expr("a | b ^ c & d << e + f\n",
               "(binop | (name a) (binop ^ (name b) (binop & (name c) (binop << (name d) (binop + (name e) (name f))))))");
    check_expr("a >> 1 << 2\n", "(binop << (binop >> (name a) (int 1)) (int 2))");
    /* ** is right-associative and binds tighter than a unary minus on its left */
    check_expr("a ** b ** c\n", "(binop ** (name a) (binop ** (name b) (name c)))");
    check_expr("-2 ** 2\n", "(unop - (binop ** (int 2) (int 2)))");
    check_expr("2 ** -1\n", "(binop ** (int 2) (unop - (int 1)))");
    check_expr("-a * ~b + +c\n", "(binop + (binop * (unop - (name a)) (unop ~ (name b))) (unop + (name c)))");
    check_expr("(a + b) * c\n", "(binop * (binop + (name a) (name b)) (name c))");
    check_expr("x.y ** 2\n", "(binop ** (attr (name x) y) (int 2))");
}

static void booleans_and_comparisons(void **state)
{
    (void)state;
    check_expr("a < b\n", "(compare < (name a) (name b))");
    /* chains become `and`s of comparisons */
    check_expr("a < b <= c\n", "(boolop and (compare < (name a) (name b)) (compare <= (name b) (name c)))");
    check_expr("a == b != c > d\n",
               "(boolop and (boolop and (compare == (name a) (name b)) (compare != (name b) (name c))) "
               "(compare > (name c) (name d)))");
    check_expr("a in b\n", "(compare in (name a) (name b))");
    check_expr("a not in b\n", "(compare not in (name a) (name b))");
    check_expr("a is None\n", "(compare is (name a) None)");
    check_expr("a is not None\n", "(compare is not (name a) None)");
    check_expr("not a == b\n", "(unop not (compare == (name a) (name b)))");
    check_expr("a or b and not c\n", "(boolop or (name a) (boolop and (name b) (unop not (name c))))");
    check_expr("a and b and c\n", "(boolop and (boolop and (name a) (name b)) (name c))");
    check_expr("a + 1 < b * 2\n", "(compare < (binop + (name a) (int 1)) (binop * (name b) (int 2)))");
    check_expr("x & 1 == 0\n", "(compare == (binop & (name x) (int 1)) (int 0))");
}

static void conditional_and_lambda(void **state)
{
    (void)state;
    check_expr("a if c else b\n", "(ifexp (name a) (name c) (name b))");
    check_expr("a if c else b if d else e\n", "(ifexp (name a) (name c) (ifexp (name b) (name d) (name e)))");
    check_expr("x or y if c else z\n", "(ifexp (boolop or (name x) (name y)) (name c) (name z))");
    check_expr("lambda: 0\n", "(lambda (params) (int 0))");
    check_expr("lambda m, n=2: m * n\n", "(lambda (params (name m)) (kw n (int 2)) (binop * (name m) (name n)))");
    check_stmt("grid = lambda META: (cdiv(M, META['B']),)\n",
               "(assign (name grid) = (lambda (params (name META)) (tuple (call (name cdiv) (name M) "
               "(subscript (name META) (str \"B\"))))))");
}

static void tuples_and_lists(void **state)
{
    (void)state;
    check_expr("()\n", "(tuple)");
    check_expr("(x)\n", "(name x)");
    check_expr("(x,)\n", "(tuple (name x))");
    check_expr("(x, y,)\n", "(tuple (name x) (name y))");
    check_expr("x, y\n", "(tuple (name x) (name y))");
    check_expr("x,\n", "(tuple (name x))");
    check_expr("[]\n", "(list)");
    check_expr("[1, 2,]\n", "(list (int 1) (int 2))");
    check_expr("[[a], (b, c)]\n", "(list (list (name a)) (tuple (name b) (name c)))");
}

static void trailers(void **state)
{
    (void)state;
    check_expr("tl.load(p, mask=m, other=0.0)\n",
               "(call (attr (name tl) load) (name p) (kw mask (name m)) (kw other (float 0.0)))");
    check_expr("f()\n", "(call (name f))");
    check_expr("f(a, b,)\n", "(call (name f) (name a) (name b))");
    check_expr("a.b.c(d)(e)\n", "(call (call (attr (attr (name a) b) c) (name d)) (name e))");
    check_expr("k[grid](x, n=1)\n", "(call (subscript (name k) (name grid)) (name x) (kw n (int 1)))");
    check_expr("x.to(tl.float32).T\n", "(attr (call (attr (name x) to) (attr (name tl) float32)) T)");
}

static void subscripts(void **state)
{
    (void)state;
    check_expr("x[:, None]\n", "(subscript (name x) (slice - - -) None)");
    check_expr("x[None, :]\n", "(subscript (name x) None (slice - - -))");
    check_expr("x[i]\n", "(subscript (name x) (name i))");
    check_expr("x[i, j]\n", "(subscript (name x) (name i) (name j))");
    check_expr("x[(i, j)]\n", "(subscript (name x) (tuple (name i) (name j)))");
    check_expr("x[1:]\n", "(subscript (name x) (slice (int 1) - -))");
    check_expr("x[:n]\n", "(subscript (name x) (slice - (name n) -))");
    check_expr("x[::2]\n", "(subscript (name x) (slice - - (int 2)))");
    check_expr("x[a:b:c]\n", "(subscript (name x) (slice (name a) (name b) (name c)))");
    check_expr("x[a::]\n", "(subscript (name x) (slice (name a) - -))");
    check_expr("x[..., 0]\n", "(subscript (name x) ... (int 0))");
    check_expr("x[i][j]\n", "(subscript (subscript (name x) (name i)) (name j))");
    check_expr("x[i + 1 : n - 1]\n",
               "(subscript (name x) (slice (binop + (name i) (int 1)) (binop - (name n) (int 1)) -))");
}

/* ---- statements ------------------------------------------------------------- */

static void assignments(void **state)
{
    (void)state;
    check_stmt("x = 1\n", "(assign (name x) = (int 1))");
    check_stmt("a = b = 1\n", "(assign (name a) (name b) = (int 1))");
    check_stmt("a, b = x\n", "(assign (tuple (name a) (name b)) = (name x))");
    check_stmt("(a, b), c = x, y\n",
               "(assign (tuple (tuple (name a) (name b)) (name c)) = (tuple (name x) (name y)))");
    check_stmt("x.y[0] = z\n", "(assign (subscript (attr (name x) y) (int 0)) = (name z))");
    check_stmt("x += 1\n", "(augassign + (name x) (int 1))");
    check_stmt("x //= 2\n", "(augassign // (name x) (int 2))");
    check_stmt("x **= 2\n", "(augassign ** (name x) (int 2))");
    check_stmt("x >>= 2\n", "(augassign >> (name x) (int 2))");
    check_stmt("p.q @= m\n", "(augassign @ (attr (name p) q) (name m))");
    check_stmt("x: int\n", "(annassign (name x) (name int))");
    check_stmt("BLOCK: tl.constexpr = 64\n", "(annassign (name BLOCK) (attr (name tl) constexpr) = (int 64))");
}

static void simple_statements(void **state)
{
    (void)state;
    check_stmt("pass\n", "(pass)");
    check_stmt("return\n", "(return)");
    check_stmt("return a, b\n", "(return (tuple (name a) (name b)))");
    check_stmt("assert x > 0\n", "(assert (compare > (name x) (int 0)))");
    check_stmt("assert x, 'why'\n", "(assert (name x) (str \"why\"))");
    check_stmt("import triton\n", "(import (triton))");
    check_stmt("import triton.language as tl, numpy\n", "(import (triton.language as tl) (numpy))");
    check_stmt("from triton import language as tl, cdiv\n",
               "(import (from triton language as tl) (from triton cdiv))");
    check_stmt("from . import (a,\n  b,)\n", "(import (from . a) (from . b))");
    check_stmt("from ..pkg.mod import x\n", "(import (from ..pkg.mod x))");
    check_dump("x = 1; y = 2;\n", "(module\n  (assign (name x) = (int 1))\n  (assign (name y) = (int 2)))");
    check_stmt("'''docstring'''\n", "(expr (str \"docstring\"))");
}

static void compound_statements(void **state)
{
    (void)state;
    check_stmt("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n",
               "(if (name a)\n"
               "    (body\n"
               "      (assign (name x) = (int 1)))\n"
               "    (else\n"
               "      (if (name b)\n"
               "        (body\n"
               "          (assign (name x) = (int 2)))\n"
               "        (else\n"
               "          (assign (name x) = (int 3))))))");
    check_stmt("for i in range(0, n, 2):\n    continue\n",
               "(for (name i) (call (name range) (int 0) (name n) (int 2))\n"
               "    (body\n"
               "      (continue)))");
    check_stmt("for a, b in pairs:\n    break\n",
               "(for (tuple (name a) (name b)) (name pairs)\n"
               "    (body\n"
               "      (break)))");
    check_stmt("while i < n:\n    i += 1\n",
               "(while (compare < (name i) (name n))\n"
               "    (body\n"
               "      (augassign + (name i) (int 1))))");
    /* a suite on the header's own line */
    check_stmt("if x: return 1; y = 2\n",
               "(if (name x)\n"
               "    (body\n"
               "      (return (int 1))\n"
               "      (assign (name y) = (int 2))))");
}

static void definitions(void **state)
{
    (void)state;
    check_stmt("@triton.jit\n"
               "def k(x_ptr, n, BLOCK: tl.constexpr = 64, f=1.0) -> None:\n"
               "    \"\"\"Doc.\"\"\"\n"
               "    pass\n",
               "(def k\n"
               "    (decorators (attr (name triton) jit))\n"
               "    (params (x_ptr) (n) (BLOCK (attr (name tl) constexpr) = (int 64)) (f = (float 1.0)))\n"
               "    (returns None)\n"
               "    (body\n"
               "      (expr (str \"Doc.\"))\n"
               "      (pass)))");
    check_stmt("@triton.autotune(configs=[], key=['M'])\n@triton.jit(debug=True)\ndef k():\n  pass\n",
               "(def k\n"
               "    (decorators (call (attr (name triton) autotune) (kw configs (list)) (kw key (list (str \"M\")))) "
               "(call (attr (name triton) jit) (kw debug True)))\n"
               "    (params)\n"
               "    (body\n"
               "      (pass)))");
    check_stmt("def outer():\n    def inner(a):\n        return a\n",
               "(def outer\n"
               "    (params)\n"
               "    (body\n"
               "      (def inner\n"
               "        (params (a))\n"
               "        (body\n"
               "          (return (name a))))))");
}

static void rejected_constructs_are_kept(void **state)
{
    (void)state;
    /* parsed so the checker can name them where they matter */
    check_stmt("class A(B, metaclass=M):\n    x = 1\n",
               "(other class\n"
               "    (body\n"
               "      (assign (name x) = (int 1))))");
    check_stmt("with open(f) as g, h:\n    pass\n", "(other with\n    (body\n      (pass)))");
    check_stmt("try:\n    a\nexcept ValueError as e:\n    b\nfinally:\n    c\n",
               "(other try\n"
               "    (body\n"
               "      (expr (name a)))\n"
               "    (else\n"
               "      (expr (name b))\n"
               "      (expr (name c))))");
    check_stmt("global a, b\n", "(other global (name a) (name b))");
    check_stmt("nonlocal a\n", "(other nonlocal (name a))");
    check_stmt("del x[0], y\n", "(other del (tuple (subscript (name x) (int 0)) (name y)))");
    check_stmt("raise ValueError('no') from e\n", "(other raise (call (name ValueError) (str \"no\")))");
    check_stmt("yield x\n", "(other yield (name x))");
    check_stmt("async def f():\n    pass\n",
               "(other async\n"
               "    (body\n"
               "      (def f\n"
               "        (params)\n"
               "        (body\n"
               "          (pass)))))");
    check_stmt("while x:\n    pass\nelse:\n    y\n",
               "(while (name x)\n    (body\n      (pass))\n    (else\n      (expr (name y))))");
}

static void node_locations(void **state)
{
    (void)state;
    parsed r = parse("import triton\n\n@triton.jit\ndef k(a, B: int):\n    x = a  +  -b[1]\n    if x:\n        pass\n");
    assert_non_null(r.m);
    assert_int_equal(r.m->nbody, 2);
    const fe_stmt *def = r.m->body[1];
    assert_int_equal(def->kind, FE_S_DEF);
    assert_int_equal(def->loc.line, 3); /* the decorator starts the statement */
    assert_int_equal(def->fn->loc.line, 4);
    assert_int_equal(def->fn->params[1].loc.col, 10);
    assert_string_equal(def->fn->params[1].loc.file, "t.py");
    const fe_stmt *as = def->fn->body[0];
    assert_int_equal(as->loc.line, 5);
    assert_int_equal(as->loc.col, 5);
    const fe_expr *add = as->value;
    assert_int_equal(add->kind, FE_E_BINOP);
    assert_int_equal(add->loc.col, 9); /* its first token, `a` */
    assert_int_equal(add->b->kind, FE_E_UNOP);
    assert_int_equal(add->b->loc.col, 15);
    assert_int_equal(add->b->a->kind, FE_E_SUBSCRIPT);
    assert_int_equal(add->b->a->loc.col, 16);
    assert_int_equal(add->b->a->items[0]->loc.col, 18);
    assert_int_equal(def->fn->body[1]->loc.line, 6);
    assert_int_equal(def->fn->body[1]->body[0]->loc.line, 7);
    parsed_free(&r);
}

/* ---- errors ----------------------------------------------------------------- */

static void syntax_errors(void **state)
{
    (void)state;
    check_error("if x\n    y\n", "t.py:1:5: error: expected ':' at the end of the 'if' line, found end of line");
    check_error("def f()\n  pass\n", "expected ':' at the end of the 'def' line, found end of line");
    check_error("for i in x\n  pass\n", "expected ':' at the end of the 'for' line");
    check_error("for i x:\n  pass\n", "t.py:1:7: error: expected 'in' after the 'for' loop variable, found name 'x'");
    check_error("x = 1\n    y = 2\n", "t.py:2:5: error: unexpected indent");
    check_error("def f():\nreturn 1\n", "t.py:2:1: error: expected an indented block after function definition 'f' on line 1");
    check_error("if x:\n", "expected an indented block after 'if' statement on line 1");
    check_error("def f():\n    x = 1 +\n", "t.py:2:12: error: expected an expression, found end of line");
    check_error("f(a=1, b)\n", "t.py:1:8: error: positional argument follows keyword argument");
    check_error("f(a=1, a=2)\n", "keyword argument 'a' is repeated");
    check_error("def f(a=1, b):\n  pass\n", "parameter 'b' without a default follows a parameter with a default");
    check_error("def f(a, a):\n  pass\n", "duplicate parameter 'a'");
    check_error("@\ndef f():\n  pass\n", "t.py:1:2: error: a decorator must be a dotted name");
    check_error("@triton.jit\nx = 1\n", "t.py:2:1: error: expected 'def' or 'class' after the decorator, found name 'x'");
    check_error("@triton.jit()()\ndef f():\n  pass\n", "expected end of line after the decorator, found '('");
    check_error("x = {1: 2, 3}\n", "t.py:1:13: error: expected ':' after a key of the dict display");
    check_error("x = {1, 2: 3}\n", "t.py:1:10: error: expected ':' after a key of the dict display");
    /* host code's *args, **kw, bare * and /, unpacking and set displays
       parse; they are refused where a kernel or a launch spec uses them */
    check_error("lambda *a: 1\n", "'*a' parameters are not supported");
    check_dump("def f(a, *args, b=1, **kw):\n  assert a in {16, 32}\n  return g(*args, x=1, **kw)\n",
               "(module\n  (def f\n    (params (a) (b = (int 1)))\n    (body\n"
               "      (assert (compare in (name a) (set (int 16) (int 32))))\n"
               "      (return (call (name g) (unpack * (name args)) (unpack ** (name kw)) (kw x (int 1)))))))");
    check_error("x = {**a}\n", "t.py:1:6: error: unpacking with '**' is not supported");
    check_error("x = {k: 1 for k in y}\n", "t.py:1:11: error: comprehensions are not supported");
    check_error("x = {1: 2 3: 4}\n", "expected ',' or '}' in the dict display");
    check_error("f(i for i in y)\n", "generator expressions are not supported");
    check_error("(x := 1)\n", "assignment expressions (':=') are not supported");
    check_error("x = yield 1\n", "'yield' expressions are not supported");
    check_error("await x\n", "'await' is not supported");
    check_error("f(x) = 1\n", "t.py:1:1: error: cannot assign to a function call");
    check_error("1 = x\n", "cannot assign to a literal");
    check_error("None = x\n", "cannot assign to None");
    check_error("a + b = c\n", "cannot assign to an expression");
    check_error("a, b += 1\n", "a tuple cannot be the target of an augmented or annotated assignment");
    check_error("else:\n  pass\n", "t.py:1:1: error: 'else' without a matching 'if'");
    check_error("except:\n  pass\n", "'except' without a matching 'try'");
    check_error("x = class\n", "expected an expression, found keyword 'class'");
    check_error("def if(): pass\n", "expected a function name after 'def', found keyword 'if'");
    check_error("x.if\n", "expected an attribute name after '.', found keyword 'if'");
    check_error("x y\n", "t.py:1:3: error: expected end of line after the statement, found name 'y'");
    check_error("x[]\n", "empty subscript");
    check_error("from m import *\n", "'from m import *' is not supported");
    check_error("for x in y:\n  pass\nelse:\n  pass\n", "'else' after a 'for' loop is not supported");
    check_error("try:\n  pass\n", "expected 'except' or 'finally' after the 'try' block");
    check_error("async x\n", "expected 'def', 'for' or 'with' after 'async'");
    check_error("if x: for i in y: pass\n", "'for' cannot follow ':' on the same line");
    check_error("a if b\n", "expected 'else' in the conditional expression, found end of line");
    check_error("(a b)\n", "expected ',' or ')' in a parenthesised expression, found name 'b'");
    check_error("[a b]\n", "expected ',' or ']' in a list, found name 'b'");
    /* lexical errors come through fe_parse too */
    check_error("x = (1,\n", "t.py:1:5: error: '(' was never closed");
}

/* Build a string of n copies of `open`, `core`, then n copies of `close`. */
static char *nest(const char *open, const char *core, const char *close, int n)
{
    lm_buf b = {0};
    for (int i = 0; i < n; i++)
        lm_buf_puts(&b, open);
    lm_buf_puts(&b, core);
    for (int i = 0; i < n; i++)
        lm_buf_puts(&b, close);
    lm_buf_puts(&b, "\n");
    char *s = lm_xstrdup(lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

static void nesting_limit(void **state)
{
    (void)state;
    static const char *const deep[][3] = {
        {"(", "x", ")"}, {"[", "x", "]"}, {"f(", "x", ")"}, {"-", "x", ""}, {"not ", "x", ""},
        {"x[", "0", "]"}, {"lambda: ", "x", ""}, {"a if b else ", "c", ""}, {"2 ** ", "2", ""},
    };
    for (size_t k = 0; k < LM_COUNT(deep); k++) {
        /* 30 levels are fine; 100 and 100000 are reported, not a stack overflow */
        char *ok = nest(deep[k][0], deep[k][1], deep[k][2], 30);
        parsed r = parse(ok);
        if (!r.m)
            fail_msg("30 levels of %s failed: %s", deep[k][0], r.errors);
        parsed_free(&r);
        free(ok);
        int ns[] = {100, 100000};
        for (int i = 0; i < 2; i++) {
            char *bad = nest(deep[k][0], deep[k][1], deep[k][2], ns[i]);
            check_error(bad, "error: expression is nested too deeply: the limit is 64 levels");
            free(bad);
        }
    }
    /* long operator chains make the tree as deep as they are long */
    lm_buf b = {0};
    lm_buf_puts(&b, "x = a");
    for (int i = 0; i < 10000; i++)
        lm_buf_puts(&b, " + a");
    lm_buf_puts(&b, "\n");
    check_error(lm_buf_str(&b), "expression is nested too deeply");
    lm_buf_free(&b);
    lm_buf_puts(&b, "x = a");
    for (int i = 0; i < 40; i++)
        lm_buf_puts(&b, " + a");
    lm_buf_puts(&b, "\n");
    parsed r = parse(lm_buf_str(&b));
    assert_non_null(r.m);
    parsed_free(&r);
    lm_buf_free(&b);
    /* deeply nested blocks */
    for (int i = 0; i < 100; i++)
        lm_buf_printf(&b, "%*sif x:\n", i, "");
    lm_buf_printf(&b, "%*spass\n", 100, "");
    check_error(lm_buf_str(&b), "blocks are nested too deeply: the limit is 64 levels");
    lm_buf_free(&b);
    /* long elif chains nest too */
    lm_buf_puts(&b, "if a:\n  pass\n");
    for (int i = 0; i < 100; i++)
        lm_buf_puts(&b, "elif a:\n  pass\n");
    check_error(lm_buf_str(&b), "too many 'elif' clauses");
    lm_buf_free(&b);
}

/* ---- realistic kernels ------------------------------------------------------ */

/* The kernels live in tests/unit/data/ as real Python files (the test runs
 * from the repository root, as tests/run.sh does). */
static char *gemm_src, *attention_src;

static char *load(const char *path)
{
    char why[256];
    char *s = lm_read_file(path, NULL, why, sizeof why);
    if (!s)
        fprintf(stderr, "%s (run the test from the repository root)\n", why);
    return s;
}

static int load_kernels(void **state)
{
    (void)state;
    gemm_src = load("tests/unit/data/gemm_bp.py");
    attention_src = load("tests/unit/data/attention.py");
    return gemm_src && attention_src ? 0 : -1;
}

static int free_kernels(void **state)
{
    (void)state;
    free(gemm_src);
    free(attention_src);
    return 0;
}

static const fe_func *find_def(const fe_module *m, const char *name)
{
    for (int i = 0; i < m->nbody; i++)
        if (m->body[i]->kind == FE_S_DEF && !strcmp(m->body[i]->fn->name, name))
            return m->body[i]->fn;
    fail_msg("no def %s", name);
    return NULL;
}

static void gemm_kernel(void **state)
{
    (void)state;
    parsed r = parse(gemm_src);
    if (!r.m)
        fail_msg("%s", r.errors);
    assert_int_equal(r.m->nbody, 6); /* docstring, 3 imports, 2 defs */
    const fe_func *k = find_def(r.m, "gemm_bp");
    assert_int_equal(k->nparams, 16);
    assert_string_equal(k->params[15].name, "GROUP_M");
    assert_int_equal(k->params[15].deflt->ival, 8);
    assert_int_equal(k->ndecorators, 1);
    const fe_stmt *loop = k->body[11];
    assert_int_equal(loop->kind, FE_S_FOR);
    assert_int_equal(loop->nbody, 5);
    const fe_func *l = find_def(r.m, "gemm");
    assert_int_equal(l->nparams, 3);
    must_contain(r.dump, "(decorators (attr (name loomc) launch))");
    must_contain(r.dump, "(assign (name a_blk) = (call (attr (name tl) advance) (name a_blk) "
                         "(tuple (int 0) (name BLOCK_K))))");
    must_contain(r.dump, "(assign (name b_blk) = (call (attr (name tl) advance) (name b_blk) "
                         "(list (name BLOCK_K) (int 0))))");
    must_contain(r.dump, "(kw block_shape (tuple (name BLOCK_M) (name BLOCK_K)))");
    must_contain(r.dump, "(kw padding_option (str \"zero\"))");
    must_contain(r.dump, "(assign (name pid_m) = (binop + (name first_m) (binop % (binop % (name pid) (name width)) "
                         "(name rows))))");
    must_contain(r.dump, "(expr (call (subscript (name gemm_bp) (name grid)) (name a)");
    must_contain(r.dump, "(assign (name grid) = (tuple (binop * (call (attr (name tl) cdiv) (name M) (name BLOCK_M)) "
                         "(call (attr (name tl) cdiv) (name N) (name BLOCK_N)))))");
    parsed_free(&r);
}

static void attention_kernel(void **state)
{
    (void)state;
    parsed r = parse(attention_src);
    if (!r.m)
        fail_msg("%s", r.errors);
    const fe_func *k = find_def(r.m, "attn_fwd");
    assert_int_equal(k->nparams, 12);
    must_contain(r.dump, "(for (name start_n) (call (attr (name tl) range) (int 0) (name hi) (name BLOCK_N) "
                         "(kw num_stages (int 2)))");
    must_contain(r.dump, "(assign (name q) = (call (attr (name q_desc) load) (list (binop + (name base) "
                         "(binop * (name start_m) (name BLOCK_M))) (int 0))))");
    must_contain(r.dump, "(call (attr (name tl) where) (compare >= (subscript (name offs_m) (slice - - -) None) "
                         "(subscript (name offs_n) None (slice - - -))) (name qk) (unop - (float 1000000.0)))");
    must_contain(r.dump, "(assign (name hi) = (ifexp (binop * (binop + (name start_m) (int 1)) (name BLOCK_M)) "
                         "(name CAUSAL) (name S)))");
    must_contain(r.dump, "(call (attr (name tl) dot) (name q) (attr (name k) T))");
    must_contain(r.dump, "(kw acc (name acc))");
    must_contain(r.dump, "(expr (call (attr (name o_desc) store) (list");
    must_contain(r.dump, "(float 1.44269504)");
    /* the launch: a grid tuple in the subscript, D ** 0.5 binds tighter than / */
    must_contain(r.dump, "(call (subscript (name attn_fwd) (tuple (call (attr (name tl) cdiv) (name S) (name BLOCK_M)) "
                         "(binop * (name B) (name H)))) (name q) (name k) (name v) (name o) "
                         "(binop / (float 1.0) (binop ** (name D) (float 0.5))) (name B) (name H) (name S) "
                         "(kw HEAD_DIM (name D)) (kw CAUSAL (name CAUSAL)))");
    must_contain(r.dump, "(params (B) (H) (S) (D) (CAUSAL = (int 0)))");
    parsed_free(&r);
}

/* fe_dump must be a pure function of the tree. */
static void dump_is_stable(void **state)
{
    (void)state;
    parsed a = parse(attention_src), b = parse(attention_src);
    assert_non_null(a.m);
    assert_string_equal(a.dump, b.dump);
    parsed_free(&a);
    parsed_free(&b);
}

/* Every prefix of a real kernel, and many random single-byte mutations of
 * it, must parse or fail with exactly one error: no hang, no crash. */
static void robust_on_broken_input(void **state)
{
    (void)state;
    const char *const srcs[] = {gemm_src, attention_src};
    for (int s = 0; s < 2; s++) {
        size_t n = strlen(srcs[s]);
        for (size_t len = 0; len <= n; len += 3) {
            parsed r = parse_n(srcs[s], len);
            parsed_free(&r);
        }
        char *buf = malloc(n + 1);
        uint64_t seed = 12345 + (uint64_t)s;
        static const char pool[] = "()[]{}:,.=+-*/\\'\"#\n\t @!$x0 ";
        for (int i = 0; i < 2000; i++) {
            memcpy(buf, srcs[s], n + 1);
            for (int k = 0; k < 3; k++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                size_t at = (size_t)(seed >> 33) % n;
                buf[at] = pool[(seed >> 20) % (sizeof pool - 1)];
            }
            parsed r = parse_n(buf, n);
            parsed_free(&r);
        }
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(atoms),
        cmocka_unit_test(precedence),
        cmocka_unit_test(booleans_and_comparisons),
        cmocka_unit_test(conditional_and_lambda),
        cmocka_unit_test(tuples_and_lists),
        cmocka_unit_test(trailers),
        cmocka_unit_test(subscripts),
        cmocka_unit_test(assignments),
        cmocka_unit_test(simple_statements),
        cmocka_unit_test(compound_statements),
        cmocka_unit_test(definitions),
        cmocka_unit_test(rejected_constructs_are_kept),
        cmocka_unit_test(node_locations),
        cmocka_unit_test(syntax_errors),
        cmocka_unit_test(nesting_limit),
        cmocka_unit_test(gemm_kernel),
        cmocka_unit_test(attention_kernel),
        cmocka_unit_test(dump_is_stable),
        cmocka_unit_test(robust_on_broken_input),
    };
    return cmocka_run_group_tests(tests, load_kernels, free_kernels);
}
