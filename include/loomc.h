/* loomc.h - the public interface of libloomc, the library behind the loomc
 * command. loomc compiles Triton-style tile kernels for spatial dataflow
 * accelerators (Tenstorrent Wormhole, Blackhole) without tuning, and
 * simulates the result.
 *
 * The command-line tool (src/cli/) is a thin layer over these calls; each
 * stage's own header (one per stage under src/) is internal.
 */
#ifndef LOOMC_H
#define LOOMC_H

#define LOOMC_VERSION "0.1.0"

/* Exit statuses used by every entry point. */
enum {
    LOOMC_OK = 0,        /* success */
    LOOMC_EUSER = 1,     /* bad input: reported as file:line:col: error: ... */
    LOOMC_EINTERNAL = 2, /* a bug in loomc, reported with where it happened */
};

const char *loomc_version(void);

#endif
