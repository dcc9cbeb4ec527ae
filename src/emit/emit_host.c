/* emit_host.c - the host side of an emitted program: host.cpp (open the
 * device, create the job's DRAM tensors, upload the inputs, create and run
 * each launch's program - CBs, semaphores, kernels with their compile-time
 * and runtime args - read the outputs back), schedule.h (the schedule's
 * values as named constants with where they come from), CMakeLists.txt and
 * a README for the user with a card.
 */
#include "emit/emit_int.h"

#include <stdlib.h>
#include <string.h>

#define P(...) lm_buf_printf(b, __VA_ARGS__)

/* The job's DRAM tensors: every tensor of every launch, once by name, in
 * order of first appearance (a scratch tensor carries data between launches
 * in the same buffer). */
typedef struct tensor_list {
    const df_tensor *t[1024];
    int n;
} tensor_list;

static void job_tensors(const emit_launch *l, int n, tensor_list *out)
{
    out->n = 0;
    for (int i = 0; i < n; i++)
        for (int t = 0; t < l[i].p->ntensors; t++) {
            const df_tensor *dt = &l[i].p->tensors[t];
            bool seen = false;
            for (int j = 0; j < out->n && !seen; j++)
                seen = !strcmp(out->t[j]->name, dt->name);
            if (!seen && out->n < (int)LM_COUNT(out->t))
                out->t[out->n++] = dt;
        }
}

static int job_index(const tensor_list *tl, const char *name)
{
    for (int j = 0; j < tl->n; j++)
        if (!strcmp(tl->t[j]->name, name))
            return j;
    return -1;
}

static const char *fidelity(arch_fidelity f)
{
    static const char *const names[] = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};
    return f < ARCH_NFIDELITIES ? names[f] : "HiFi4";
}

static void file_comment(lm_buf *b, const emit_job *j)
{
    P("// Job: %s on %s, shape %s; schedule: %s. Every launch runs in order on device 0.\n", j->kernel,
      j->arch->name, j->shape, j->origin);
}

/* ---- one launch -------------------------------------------------------------- */

static void class_ranges(lm_buf *b, const df_program *p)
{
    P("    // the core classes: rectangles of logical cores\n");
    for (int c = 0; c < p->nclasses; c++) {
        const df_class *dc = &p->classes[c];
        P("    const CoreRange %s({%d, %d}, {%d, %d});\n", dc->name, dc->x0, dc->y0, dc->x1, dc->y1);
    }
    P("    const CoreRangeSet all(std::vector<CoreRange>{");
    for (int c = 0; c < p->nclasses; c++)
        P("%s%s", c ? ", " : "", p->classes[c].name);
    P("});\n");
}

static bool declares(const df_class *c, int id)
{
    for (int i = 0; i < c->ncbs; i++)
        if (c->cbs[i].id == id)
            return true;
    return false;
}

/* Each CB id once for every class that declares it alike, so that it has
 * the same L1 address on all of them (the cores exchanging its pages), and
 * for the classes that send elements into it (emit_sends_elems_to). */
static void cbs(lm_buf *b, const df_program *p, const arch_desc *a)
{
    P("    // circular buffers: one tile a page\n");
    /* first[c]: index of class c's first CB in `done` (every class's CBs, in order) */
    int *first = lm_xcalloc((size_t)p->nclasses + 1, sizeof *first);
    for (int c = 0; c < p->nclasses; c++)
        first[c + 1] = first[c] + p->classes[c].ncbs;
    bool *done = lm_xcalloc((size_t)first[p->nclasses] + 1, sizeof *done);
    bool *sent = lm_xcalloc((size_t)p->nclasses * (size_t)a->num_cbs + 1, sizeof *sent);
    for (int c = 0; c < p->nclasses; c++)
        for (int i = 0; i < p->classes[c].ncbs; i++) {
            if (done[first[c] + i])
                continue;
            const df_cb *cb = &p->classes[c].cbs[i];
            P("    CreateCircularBuffer(program, CoreRangeSet(std::vector<CoreRange>{");
            bool lead = true;
            for (int c2 = c; c2 < p->nclasses; c2++)
                for (int i2 = 0; i2 < p->classes[c2].ncbs; i2++) {
                    const df_cb *o = &p->classes[c2].cbs[i2];
                    if (done[first[c2] + i2] || o->id != cb->id || o->format != cb->format || o->pages != cb->pages)
                        continue;
                    done[first[c2] + i2] = true;
                    P("%s%s", lead ? "" : ", ", p->classes[c2].name);
                    lead = false;
                }
            for (int c2 = 0; c2 < p->nclasses; c2++) {
                bool *s = &sent[(size_t)c2 * (size_t)a->num_cbs + (size_t)cb->id];
                if (!*s && !declares(&p->classes[c2], cb->id) && emit_sends_elems_to(&p->classes[c2], cb->id)) {
                    *s = true;
                    P(", %s", p->classes[c2].name);
                }
            }
            int64_t page = a->tile_bytes[cb->format];
            P("}),\n                         CircularBufferConfig(%lld * %lld, {{%d, %s}}).set_page_size(%d, %lld));\n",
              (long long)cb->pages, (long long)page, cb->id, emit_format(cb->format), cb->id, (long long)page);
        }
    free(sent);
    free(done);
    free(first);
}

/* The extra CBs of each class (emit_class_extras), on its own cores. */
static void extra_cbs(lm_buf *b, const emit_launch *l, const arch_desc *a)
{
    for (int c = 0; c < l->p->nclasses; c++) {
        const emit_extras *x = &l->extras[c];
        struct {
            int id;
            arch_format f;
            int pages;
            const char *what;
        } e[] = {{x->scaler, ARCH_BF16, 1, "the unit tile of the row reductions"},
                 {x->fold, ARCH_FP32, 1, "a folded row sum on its way to the reduction"},
                 {x->iota, ARCH_FP32, 2, "the index tiles of the masks"}};
        for (size_t i = 0; i < LM_COUNT(e); i++)
            if (e[i].id >= 0 && !declares(&l->p->classes[c], e[i].id))
                P("    CreateCircularBuffer(program, %s, CircularBufferConfig(%d * %lld, {{%d, %s}}).set_page_size(%d, "
                  "%lld));  // %s\n",
                  l->p->classes[c].name, e[i].pages, (long long)a->tile_bytes[e[i].f], e[i].id, emit_format(e[i].f),
                  e[i].id, (long long)a->tile_bytes[e[i].f], e[i].what);
    }
}

static bool any_scratch(const emit_launch *l, df_kernel_kind k)
{
    for (int c = 0; c < l->p->nclasses; c++)
        if (l->kinfo[c][k].scratch_sem)
            return true;
    return false;
}

static void sems(lm_buf *b, const emit_launch *l)
{
    const df_program *p = l->p;
    P("    // semaphores: one word on every core of the program\n");
    for (int s = 0; s < p->nsems; s++)
        P("    const uint32_t sem_%s = CreateSemaphore(program, all, %lld);\n", p->sems[s].name,
          (long long)p->sems[s].init);
    for (int k = 0; k < DF_NKERNELS; k++)
        if (any_scratch(l, (df_kernel_kind)k))
            P("    const uint32_t scratch_%s = CreateSemaphore(program, all, 0);  // the %s's multicast source\n",
              df_kernel_name((df_kernel_kind)k), df_kernel_name((df_kernel_kind)k));
}

static void kernel_create(lm_buf *b, const emit_launch *l, int launch, const df_class *c, df_kernel_kind k,
                          const emit_kinfo *ki)
{
    lm_buf f = {0};
    emit_kernel_file(&f, launch, c, k);
    P("        const KernelHandle %s = CreateKernel(program, LOOMC_KERNELS \"/%s\", %s,\n", df_kernel_name(k),
      lm_buf_str(&f), c->name);
    lm_buf_free(&f);
    if (k == DF_COMPUTE) {
        P("            ComputeConfig{.math_fidelity = MathFidelity::%s, .fp32_dest_acc_en = %s, .math_approx_mode = "
          "%s});\n",
          fidelity(c->fidelity), c->fp32_acc ? "true" : "false", ki->approx_exp ? "true" : "false");
        return;
    }
    /* the reader on RISCV_0 with NOC 0, the writer on RISCV_1 with NOC 1, as the simulator runs them */
    bool rd = k == DF_READER;
    P("            DataMovementConfig{.processor = DataMovementProcessor::%s, .noc = NOC::%s,\n",
      rd ? "RISCV_0" : "RISCV_1", rd ? "NOC_0" : "NOC_1");
    P("                               .compile_args = {");
    for (int s = 0; s < l->p->nsems; s++)
        P("%ssem_%s", s ? ", " : "", l->p->sems[s].name);
    if (ki->scratch_sem)
        P("%sscratch_%s", l->p->nsems ? ", " : "", df_kernel_name(k));
    P("}});\n");
    /* common runtime args: the tensors it reaches, then the NoC tables */
    P("        SetCommonRuntimeArgs(program, %s, loomc_common({", df_kernel_name(k));
    bool first = true;
    for (int t = 0; t < l->p->ntensors; t++)
        if (ki->tensors[t]) {
            P("%st[%d].address()", first ? "" : ", ", t);
            first = false;
        }
    P("}, %s));\n", ki->noc ? "noc" : "{}");
}

static void runtime_args(lm_buf *b, const df_program *p, const df_class *c, const emit_kinfo *ki)
{
    P("        for (int64_t cy = %d; cy <= %d; cy++)\n", c->y0, c->y1);
    P("            for (int64_t cx = %d; cx <= %d; cx++) {\n", c->x0, c->x1);
    int first_arg = DF_SLOT_PARAM0 + p->nparams;
    for (int i = 0; i < c->nargs; i++) {
        P("                const int64_t %s = ", emit_name(c, first_arg + i));
        emit_host_expr(b, c, c->args[i]);
        P(";\n");
    }
    P("                const std::vector<uint32_t> args = {static_cast<uint32_t>(cx), static_cast<uint32_t>(cy)");
    for (int i = 0; i < c->nargs; i++)
        P(", static_cast<uint32_t>(%s)", emit_name(c, first_arg + i));
    P("};\n");
    for (int k = 0; k < DF_NKERNELS; k++)
        if (ki[k].present)
            P("                SetRuntimeArgs(program, %s, CoreCoord(cx, cy), args);\n",
              df_kernel_name((df_kernel_kind)k));
    P("            }\n");
}

static void launch_fn(lm_buf *b, const emit_job *j, const emit_launch *l, int launch, const tensor_list *tl)
{
    const df_program *p = l->p;
    P("\n// launch %d: program %s, %d core class%s\n", launch, p->name, p->nclasses, p->nclasses == 1 ? "" : "es");
    P("static void launch_%d(Device *device, CommandQueue &cq, const std::vector<loomc::Tensor> &job) {\n", launch);
    P("    Program program = CreateProgram();\n");
    /* the program's tensors by its own index */
    P("    const std::vector<loomc::Tensor> t = {");
    for (int i = 0; i < p->ntensors; i++)
        P("%sjob[%d]", i ? ", " : "", job_index(tl, p->tensors[i].name));
    P("};\n");
    for (int i = 0; i < p->nparams && p->nclasses > 0; i++)
        P("    [[maybe_unused]] constexpr int64_t %s = %lld;  // param\n",
          emit_name(&p->classes[0], DF_SLOT_PARAM0 + i), (long long)p->params[i].value);
    class_ranges(b, p);
    cbs(b, p, j->arch);
    extra_cbs(b, l, j->arch);
    sems(b, l);
    P("    const std::vector<uint32_t> noc = noc_tables(device);\n");
    for (int c = 0; c < p->nclasses; c++) {
        const df_class *dc = &p->classes[c];
        P("\n    {  // class %s\n", dc->name);
        for (int k = 0; k < DF_NKERNELS; k++)
            if (l->kinfo[c][k].present)
                kernel_create(b, l, launch, dc, (df_kernel_kind)k, &l->kinfo[c][k]);
        runtime_args(b, p, dc, l->kinfo[c]);
        P("    }\n");
    }
    P("    EnqueueProgram(cq, program, false);\n");
    P("}\n");
}

/* ---- the whole host program ------------------------------------------------------ */

static void host_prelude(lm_buf *b, const emit_job *j)
{
    P("// host.cpp - written by loomc: the host program of a job for a TT-Metalium device.\n");
    file_comment(b, j);
    P("// It opens device 0, creates the job's DRAM tensors, uploads the inputs from\n"
      "// INPUTS/NAME.f32, runs the launches in order and writes the outputs to OUTPUTS/NAME.f32\n"
      "// (little-endian float32, the tensor's rows x cols elements row-major; README.md).\n"
      "// Usage: loomc_job [INPUTS [OUTPUTS]]   (default: inputs outputs)\n");
    P("#include <cstdint>\n#include <string>\n#include <vector>\n\n");
    P("#include <tt-metalium/device.hpp>\n#include <tt-metalium/host_api.hpp>\n\n");
    P("#include \"loomc_host.h\"\n#include \"schedule.h\"\n\n");
    P("using namespace tt;\nusing namespace tt::tt_metal;\n\n");
    P("// where the kernel sources are (CMakeLists.txt sets it to this folder's kernels/)\n"
      "#ifndef LOOMC_KERNELS\n#define LOOMC_KERNELS \"kernels\"\n#endif\n\n");
    P("// the compute grid the job was scheduled for (%s)\n", j->arch->name);
    P("constexpr uint32_t GRID_W = %d, GRID_H = %d;\n\n", j->arch->grid_w, j->arch->grid_h);
    P("// the NoC coordinates of the grid's columns, then of its rows\n"
      "static std::vector<uint32_t> noc_tables(Device *device) {\n"
      "    std::vector<uint32_t> v;\n"
      "    for (uint32_t x = 0; x < GRID_W; x++) v.push_back(device->worker_core_from_logical_core({x, 0}).x);\n"
      "    for (uint32_t y = 0; y < GRID_H; y++) v.push_back(device->worker_core_from_logical_core({0, y}).y);\n"
      "    return v;\n"
      "}\n\n");
    P("// a kernel's common runtime args: the addresses of the tensors it reaches, then the NoC tables\n"
      "static std::vector<uint32_t> loomc_common(std::vector<uint32_t> addresses, const std::vector<uint32_t> &noc) {\n"
      "    addresses.insert(addresses.end(), noc.begin(), noc.end());\n"
      "    return addresses;\n"
      "}\n");
}

static void host_main(lm_buf *b, const emit_job *j, int n, const tensor_list *tl)
{
    P("\nint main(int argc, char **argv) {\n");
    P("    const std::string inputs = argc > 1 ? argv[1] : \"inputs\", outputs = argc > 2 ? argv[2] : \"outputs\";\n");
    P("    Device *device = CreateDevice(0);\n");
    P("    const CoreCoord grid = device->compute_with_storage_grid_size();\n");
    P("    if (grid.x < GRID_W || grid.y < GRID_H)\n"
      "        loomc::fail(\"the device's compute grid is \" + std::to_string(grid.x) + \"x\" + std::to_string(grid.y) +\n"
      "                    \", the job was scheduled for \" + std::to_string(GRID_W) + \"x\" + std::to_string(GRID_H));\n");
    P("    CommandQueue &cq = device->command_queue();\n\n");
    P("    // the job's DRAM tensors: name, rows, columns (elements), storage format, bytes of a tile\n");
    P("    const std::vector<loomc::Tensor> job = {\n");
    for (int i = 0; i < tl->n; i++) {
        const df_tensor *t = tl->t[i];
        P("        loomc::make_tensor(device, \"%s\", %lld, %lld, %s, %lld),  // %s\n", t->name, (long long)t->rows,
          (long long)t->cols, emit_format(t->format), (long long)j->arch->tile_bytes[t->format],
          df_role_name(t->role));
    }
    P("    };\n");
    for (int i = 0; i < tl->n; i++)
        if (tl->t[i]->role == DF_INPUT)
            P("    loomc::upload(cq, job[%d], inputs);\n", i);
    P("\n");
    for (int l = 0; l < n; l++)
        P("    launch_%d(device, cq, job);\n", l);
    P("    Finish(cq);\n\n");
    for (int i = 0; i < tl->n; i++)
        if (tl->t[i]->role == DF_OUTPUT)
            P("    loomc::download(cq, job[%d], outputs);\n", i);
    P("    CloseDevice(device);\n    return 0;\n}\n");
}

void emit_host(lm_buf *b, const emit_job *j, const emit_launch *l, int n)
{
    tensor_list *tl = lm_xcalloc(1, sizeof *tl);
    job_tensors(l, n, tl);
    host_prelude(b, j);
    for (int i = 0; i < n; i++)
        launch_fn(b, j, &l[i], i, tl);
    host_main(b, j, n, tl);
    free(tl);
}

/* ---- schedule.h, CMakeLists.txt, README.md ------------------------------------------ */

void emit_schedule_header(lm_buf *b, const emit_job *j)
{
    P("// schedule.h - written by loomc: the values of the schedule this program runs, each with\n"
      "// the kernel symbol it sets and why it was chosen. The kernels carry them as the numbers\n"
      "// of their loops and block shapes; these names are for the reader.\n");
    file_comment(b, j);
    P("#pragma once\n\n#include <cstdint>\n\nnamespace loomc::schedule {\n");
    for (int i = 0; i < j->nvalues; i++) {
        const emit_value *v = &j->values[i];
        lm_buf id = {0};
        for (const char *c = v->name; *c; c++)
            lm_buf_putc(&id, (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c
                                                                                                           : '_');
        P("// %s", v->name);
        if (v->why && *v->why)
            P(": %s", v->why);
        P("\n[[maybe_unused]] constexpr int64_t %s = %lld;\n", lm_buf_str(&id), (long long)v->value);
        lm_buf_free(&id);
    }
    P("}  // namespace loomc::schedule\n");
    if (!j->explain || !*j->explain)
        return;
    P("\n// Why these values (what loomc's explanation says of the schedule):\n");
    for (const char *line = j->explain; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        P("//%s%.*s\n", len ? " " : "", (int)len, line);
        line += len + (end ? 1 : 0);
    }
}

void emit_cmake(lm_buf *b, const emit_job *j, const emit_launch *l, int n)
{
    (void)l, (void)n;
    P("# CMakeLists.txt - written by loomc: builds the host program of the job against an installed\n"
      "# tt-metal (find_package(TT-Metalium), as the release's programming examples do).\n");
    P("# Job: %s on %s, shape %s.\n", j->kernel, j->arch->name, j->shape);
    P("cmake_minimum_required(VERSION 3.16)\n"
      "project(loomc_job LANGUAGES CXX)\n"
      "set(CMAKE_CXX_STANDARD 20)\n"
      "set(CMAKE_CXX_STANDARD_REQUIRED ON)\n"
      "find_package(TT-Metalium REQUIRED)\n"
      "add_executable(loomc_job host.cpp)\n"
      "target_link_libraries(loomc_job PRIVATE TT::Metalium)\n"
      "# the kernels are built by tt-metal when the program runs, from this folder's kernels/\n"
      "target_compile_definitions(loomc_job PRIVATE LOOMC_KERNELS=\"${CMAKE_CURRENT_SOURCE_DIR}/kernels\")\n");
}

void emit_readme(lm_buf *b, const emit_job *j)
{
    P("# A TT-Metalium program written by loomc\n\n");
    P("Job: `%s` on `%s`, shape `%s`; schedule: %s.\n\n", j->kernel, j->arch->name, j->shape, j->origin);
    P("- `host.cpp`: the host program; `schedule.h`: the schedule's values and why they were chosen;\n"
      "  `loomc_host.h`: its helpers (tensors, files).\n"
      "- `kernels/`: one reader, compute and writer kernel per core class and launch, and the helpers\n"
      "  they share (`loomc_dm.h`, `loomc_compute.h`).\n\n");
    P("Build against an installed tt-metal and run (loomc's docs/emit.md has the details):\n\n"
      "```sh\n"
      "cmake -B build -DCMAKE_PREFIX_PATH=/path/to/tt-metal/install && cmake --build build\n"
      "mkdir -p outputs && build/loomc_job inputs outputs\n"
      "```\n\n");
    P("Inputs are `inputs/NAME.f32` for each input tensor, outputs `outputs/NAME.f32`: little-endian\n"
      "float32, the tensor's rows x columns row-major (the sizes are in host.cpp). `loomc run --check\n"
      "--save-data DIR` writes the inputs loomc checks with and the reference outputs.\n");
}
