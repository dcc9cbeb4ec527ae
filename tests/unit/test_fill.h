/* test_fill.h - the first chunk's fill of a tile op as the model prices it,
 * derived case by case for the unit tests of the model (the model writes
 * it as one expression, sched_op_time).
 */
#ifndef TEST_FILL_H
#define TEST_FILL_H

#include <stdint.h>

/* A tile op of u, m and p cycles (unpack, math, pack) in chunks of s units
 * each: its first chunk passes the three stages, math following the
 * unpacker unit by unit and pack taking the chunk after math. Beyond the
 * slowest stage that chunk adds: with unpack the slowest, one unit's math
 * (m / s) and the pack; with math the slowest, one unit's unpack and the
 * pack; with pack the slowest, the longer of the whole unpack with math's
 * last unit and unpack's first unit with the whole math. Whole cycles,
 * rounded up. */
static inline int64_t test_op_fill(int64_t u, int64_t m, int64_t p, int64_t s)
{
    int64_t us = (u + s - 1) / s, ms = (m + s - 1) / s;
    if (u >= m && u >= p)
        return ms + p;
    if (m >= u && m >= p)
        return us + p;
    return u + ms > us + m ? u + ms : us + m;
}

#endif
