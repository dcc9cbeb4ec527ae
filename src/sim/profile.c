/* profile.c - simulated runs as a device-profile CSV in the column layout
 * of tt-metal's device profiler log (profile_log_device.csv), so that the
 * scripts users run on a card's profile read a simulated run too.
 *
 * The layout followed is the one tt-metal's tt_metal/impl/profiler/
 * profiler.cpp writes (writeCSVHeader, dumpDeviceResultsToCSV) in the
 * releases whose header has the "trace id" and "trace id counter" columns:
 * a line "ARCH: NAME, CHIP_FREQ[MHz]: F, Max Compute Cores: N", then
 *
 *   PCIe slot, core_x, core_y, RISC processor type, timer_id,
 *   time[cycles since reset], data, run host ID, trace id,
 *   trace id counter, zone name, type, source line, source file, meta data
 *
 * and one row per zone start or end. What loomc writes into it:
 *   - per core (core_x, core_y: its NoC 0 coordinates) and per RISC, the
 *     firmware zone (NAME-FW: from the run's start) and the kernel zone
 *     (NAME-KERNEL: from the kernel's launch) of each run, both ending
 *     when that engine finished its kernel;
 *   - the RISCs as the emitted program places the kernels (emit_host.c):
 *     the reader on BRISC (RISCV_0), the writer on NCRISC (RISCV_1), and
 *     unpack, math and pack on TRISC_0, TRISC_1 and TRISC_2;
 *   - times in whole simulated cycles from the first run's start; runs of
 *     a job follow each other (run host ID counts them from 1);
 *   - timer_id a fixed number per zone (a card's are hashes of the zone's
 *     source location), data 0, no trace ids, source line 0, and as source
 *     file "firmware" for the FW zones and the program's name for the
 *     kernel zones.
 * ARCH is the description's name, not a chip family. Every time is a
 * simulated one, not a measurement.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <string.h>

/* The engines' RISCs, in the order their rows are written. */
static const struct {
    sim_engine_kind engine;
    const char *risc, *zone; /* RISC processor type, zone name prefix */
    int timer;               /* timer_id of its FW zone; KERNEL is timer + 1 */
} RISCS[] = {
    {SIM_READER, "BRISC", "BRISC", 1},
    {SIM_WRITER, "NCRISC", "NCRISC", 3},
    {SIM_UNPACK, "TRISC_0", "TRISC", 5},
    {SIM_MATH, "TRISC_1", "TRISC", 5},
    {SIM_PACK, "TRISC_2", "TRISC", 5},
};

void sim_profile_header(FILE *f, const arch_desc *a)
{
    fprintf(f, "ARCH: %s, CHIP_FREQ[MHz]: %.0f, Max Compute Cores: %d\n", a->name, a->clock_ghz * 1000,
            a->grid_w * a->grid_h);
    fputs("PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, "
          "trace id, trace id counter, zone name, type, source line, source file, meta data\n",
          f);
}

/* One zone's start and end rows. */
static void zone(FILE *f, int nx, int ny, const char *risc, int timer, long long t0, long long t1, int run,
                 const char *prefix, const char *kind, const char *file)
{
    static const char *const types[] = {"ZONE_START", "ZONE_END"};
    long long t[] = {t0, t1};
    for (int i = 0; i < 2; i++)
        fprintf(f, "0,%d,%d,%s,%d,%lld,0,%d,,,%s-%s,%s,0,%s,\n", nx, ny, risc, timer, t[i], run, prefix, kind,
                types[i], file);
}

void sim_profile_rows(FILE *f, const sim_result *r, const arch_desc *a, int run_id, double base)
{
    /* a program's name is an identifier; a comma would break the row */
    const char *file = r->program && !strchr(r->program, ',') ? r->program : "program";
    long long start = llround(base), launch = llround(base + r->kernel_start);
    for (int i = 0; i < r->ncores; i++) {
        const sim_core_stat *c = &r->cores[i];
        int nx = a->core_noc_x[c->x], ny = a->core_noc_y[c->y];
        for (size_t k = 0; k < LM_COUNT(RISCS); k++) {
            long long end = llround(base + c->done[RISCS[k].engine]);
            if (end < launch)
                end = launch; /* an engine with nothing to do ends as it starts */
            zone(f, nx, ny, RISCS[k].risc, RISCS[k].timer, start, end, run_id, RISCS[k].zone, "FW", "firmware");
            zone(f, nx, ny, RISCS[k].risc, RISCS[k].timer + 1, launch, end, run_id, RISCS[k].zone, "KERNEL", file);
        }
    }
}
