/* LRU stack distances over last-access times (the classic Bennett-Kruskal
 * method): every line keeps the time of its last access, and a Fenwick tree
 * marks the times that are some line's last access. The stack distance of
 * an access to a line last touched at t is the number of marks after t —
 * the distinct lines touched since — one O(log n) query. Times are
 * renumbered (compacted) when they run past the tree's capacity, so memory
 * stays proportional to the distinct lines, not to the accesses.
 * Also the histogram buckets and SHARDS sampling. */
#include "mpicast/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ buckets */

static uint64_t uppers[MC_PROF_NBUCKETS];
static int nuppers;

static void init_uppers(void)
{
    if (nuppers)
        return;
    int n = 0;
    for (uint64_t u = 1; u <= 16; u++)
        uppers[n++] = u;
    for (int k = 33; n < MC_PROF_NBUCKETS; k++) {
        double v = ceil(pow(2.0, k / 8.0));
        uppers[n++] = v < 1.8e19 ? (uint64_t)v : UINT64_MAX;
    }
    nuppers = n;
}

uint64_t mc_prof_bucket_upper(int i)
{
    init_uppers();
    return i >= 0 && i < MC_PROF_NBUCKETS ? uppers[i] : UINT64_MAX;
}

int mc_prof_bucket_of(double d)
{
    init_uppers();
    if (d < 16)
        return d < 0 ? 0 : (int)d;
    int lo = 16, hi = MC_PROF_NBUCKETS - 1; /* first upper > d */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if ((double)uppers[mid] > d)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int mc_prof_bucket_with_upper(uint64_t upper)
{
    init_uppers();
    int lo = 0, hi = MC_PROF_NBUCKETS - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (uppers[mid] == upper)
            return mid;
        if (uppers[mid] < upper)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* ------------------------------------------------------------ sampling */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

int mc_prof_sampled(uint64_t line, double rate)
{
    if (rate >= 1.0)
        return 1;
    return (double)(mix64(line) & 0xffffff) < rate * 16777216.0;
}

/* ------------------------------------------------------------ the stack */

typedef struct slot {
    uint64_t key;  /* line + 1; 0 = empty */
    uint64_t time; /* last access, 1-based */
} slot;

struct mc_prof_stack {
    slot *tab;
    size_t cap, used; /* hash table: power of two, used <= cap/2 */
    int32_t *tree;    /* Fenwick tree over times 1..tcap */
    uint64_t tcap, now;
    uint64_t last;    /* key of the most recent access (0: none) */
};

static size_t hash_of(uint64_t key, size_t cap)
{
    return (size_t)(mix64(key) & (cap - 1));
}

mc_prof_stack *mc_prof_stack_create(void)
{
    mc_prof_stack *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cap = 1024;
    s->tcap = 4096;
    s->tab = calloc(s->cap, sizeof *s->tab);
    s->tree = calloc(s->tcap + 1, sizeof *s->tree);
    if (!s->tab || !s->tree) {
        mc_prof_stack_destroy(s);
        return NULL;
    }
    return s;
}

void mc_prof_stack_destroy(mc_prof_stack *s)
{
    if (!s)
        return;
    free(s->tab);
    free(s->tree);
    free(s);
}

uint64_t mc_prof_stack_lines(const mc_prof_stack *s)
{
    return s->used;
}

static void tree_add(mc_prof_stack *s, uint64_t i, int32_t v)
{
    for (; i <= s->tcap; i += i & (~i + 1))
        s->tree[i] += v;
}

static int64_t tree_prefix(const mc_prof_stack *s, uint64_t i)
{
    int64_t sum = 0;
    for (; i > 0; i -= i & (~i + 1))
        sum += s->tree[i];
    return sum;
}

static int grow_table(mc_prof_stack *s)
{
    size_t cap = s->cap * 2;
    slot *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->tab[i].key)
            continue;
        size_t h = hash_of(s->tab[i].key, cap);
        while (t[h].key)
            h = (h + 1) & (cap - 1);
        t[h] = s->tab[i];
    }
    free(s->tab);
    s->tab = t;
    s->cap = cap;
    return 0;
}

static int cmp_time(const void *a, const void *b)
{
    uint64_t x = (*(slot *const *)a)->time, y = (*(slot *const *)b)->time;
    return x < y ? -1 : x > y;
}

/* Renumbers the last-access times 1..used in their order and rebuilds the
 * tree with room for as many new accesses again (at least 4096). */
static int compact(mc_prof_stack *s)
{
    slot **order = malloc((s->used ? s->used : 1) * sizeof *order);
    uint64_t tcap = s->used * 2 < 4096 ? 4096 : s->used * 2;
    int32_t *tree = calloc(tcap + 1, sizeof *tree);
    if (!order || !tree) {
        free(order);
        free(tree);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < s->cap; i++)
        if (s->tab[i].key)
            order[n++] = &s->tab[i];
    qsort(order, n, sizeof *order, cmp_time);
    for (size_t i = 0; i < n; i++)
        order[i]->time = i + 1;
    /* a tree of all ones at 1..n, built in O(tcap) */
    for (uint64_t i = 1; i <= tcap; i++) {
        tree[i] += i <= n ? 1 : 0;
        uint64_t j = i + (i & (~i + 1));
        if (j <= tcap)
            tree[j] += tree[i];
    }
    free(order);
    free(s->tree);
    s->tree = tree;
    s->tcap = tcap;
    s->now = n;
    return 0;
}

int64_t mc_prof_stack_access(mc_prof_stack *s, uint64_t line)
{
    if (s->now >= s->tcap && compact(s) != 0)
        return -2;
    uint64_t key = line + 1;
    if (key == 0)
        key = 1; /* line UINT64_MAX shares line 0's slot: never seen in practice */
    /* The same line again (most accesses: the next instruction, the next
     * element): distance 0, and its place on top of the stack is unchanged,
     * so neither the table nor the tree needs touching. */
    if (key == s->last)
        return 0;
    s->last = key;
    uint64_t t = ++s->now;
    size_t h = hash_of(key, s->cap);
    while (s->tab[h].key && s->tab[h].key != key)
        h = (h + 1) & (s->cap - 1);
    if (s->tab[h].key) {
        uint64_t old = s->tab[h].time;
        int64_t d = (int64_t)s->used - tree_prefix(s, old);
        tree_add(s, old, -1);
        tree_add(s, t, 1);
        s->tab[h].time = t;
        return d;
    }
    if ((s->used + 1) * 2 > s->cap) {
        if (grow_table(s) != 0) {
            s->now--;
            s->last = 0;
            return -2;
        }
        h = hash_of(key, s->cap);
        while (s->tab[h].key)
            h = (h + 1) & (s->cap - 1);
    }
    s->tab[h].key = key;
    s->tab[h].time = t;
    s->used++;
    tree_add(s, t, 1);
    return -1;
}
