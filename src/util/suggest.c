/* suggest.c - "did you mean": the edit distance and the two rules that pick
 * a suggestion among the names a misspelt word could have meant (base.h).
 *
 * Keys of a configuration file (LM_NEAR_KEY) allow a distance that grows
 * with the word, prefer a name that extends or shortens it, and take an
 * abbreviation for the one key it starts. Names in a program (LM_NEAR_NAME)
 * allow about one slip in three characters, count a truncated name as one
 * slip, and keep the first name offered on a tie, so that the suggestion
 * depends on nothing but declaration order.
 */
#include "util/base.h"

#include <string.h>

/* Words longer than this never get suggestions. */
enum { EDIT_MAX = 64 };

int lm_edit_distance(const char *a, int la, const char *b, int lb)
{
    if (la > EDIT_MAX || lb > EDIT_MAX)
        return LM_EDIT_FAR;
    int prev[EDIT_MAX + 1], cur[EDIT_MAX + 1];
    for (int j = 0; j <= lb; j++)
        prev[j] = j;
    for (int i = 1; i <= la; i++) {
        cur[0] = i;
        for (int j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = LM_MIN(sub, LM_MIN(del, ins));
        }
        memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
    }
    return prev[lb];
}

void lm_near_init(lm_near *s, const char *want, int wlen, lm_near_rule rule)
{
    *s = (lm_near){.want = want, .wlen = wlen, .rule = rule, .score = 999, .dist = 99};
    if (rule == LM_NEAR_NAME) {
        s->dist = wlen / 3 + 1; /* anything farther is not a typo */
        if (s->dist > 3)
            s->dist = 3;
        s->dist++;
    }
}

/* name starts with the wanted word, or the wanted word starts with name */
static bool extends(const lm_near *s, const char *name, int nl)
{
    return nl >= s->wlen && !memcmp(name, s->want, (size_t)s->wlen);
}

static bool shortens(const lm_near *s, const char *name, int nl)
{
    return nl <= s->wlen && !memcmp(name, s->want, (size_t)nl);
}

static void offer_key(lm_near *s, const char *name, int nl)
{
    int d = lm_edit_distance(s->want, s->wlen, name, nl);
    int score = 2 * d - (extends(s, name, nl) || shortens(s, name, nl));
    if (score < s->score) {
        s->score = score;
        s->dist = d;
        s->best = name;
    }
    if (extends(s, name, nl)) {
        s->nabbrev++;
        s->abbrev = name;
    }
}

static void offer_name(lm_near *s, const char *name, int nl)
{
    int d = lm_edit_distance(s->want, s->wlen, name, nl);
    /* a truncated name ('bfp8' for 'bfp8_b') is the likeliest slip */
    if (s->wlen >= 2 && nl > s->wlen && !memcmp(name, s->want, (size_t)s->wlen))
        d = 1;
    if (d < s->dist) {
        s->dist = d;
        s->best = name;
    }
}

void lm_near_offer(lm_near *s, const char *name)
{
    int nl = (int)strlen(name);
    if (s->rule == LM_NEAR_KEY)
        offer_key(s, name, nl);
    else
        offer_name(s, name, nl);
}

const char *lm_near_best(const lm_near *s)
{
    if (s->rule == LM_NEAR_NAME)
        return s->best;
    int limit = s->wlen <= 3 ? 1 : s->wlen <= 8 ? 2 : 3;
    if (s->best && s->dist <= limit)
        return s->best;
    /* An abbreviation ("perf") names the one key it starts. */
    return s->wlen >= 3 && s->nabbrev == 1 ? s->abbrev : NULL;
}

const char *lm_closest(const char *s, const char *const *names, int n, lm_near_rule rule)
{
    lm_near near;
    lm_near_init(&near, s, (int)strlen(s), rule);
    for (int i = 0; i < n; i++)
        lm_near_offer(&near, names[i]);
    return lm_near_best(&near);
}
