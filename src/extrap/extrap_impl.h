/* Internal to the extrapolation module: the model of a program on a process
 * grid (grid geometry, communicator and peer descriptors, event templates per
 * rank class) shared by the builder (model.c and the files of its steps, see
 * "Building the model" below), the generator (gen.c) and the rules (rules.c). */
#ifndef MPICAST_EXTRAP_IMPL_H
#define MPICAST_EXTRAP_IMPL_H

#ifndef MPICAST_EXTRAP_INTERNAL
#error "extrap_impl.h is internal to src/extrap"
#endif

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "mpicast/extrap.h"
#include "mpicast/model.h"

#define MAXD MC_EXTRAP_MAXDIMS
#define NCAT 4                 /* position categories per dimension */
#define MAXCLASS 256           /* NCAT ^ MAXD */
/* World rank 0 is a class of its own: it is often a root, and the other
 * ranks of its position class may then still be all alike. */
#define ORIGIN MAXCLASS
#define NCLASSES (MAXCLASS + 1)

/* Position of a coordinate along one dimension. */
enum { CAT_LO = 0, CAT_INT = 1, CAT_HI = 2, CAT_SINGLE = 3 };

typedef struct xgrid {
    int nd;
    int P;
    int dims[MAXD];
    int wrap[MAXD]; /* offsets wrap around (periodic, or a 1-D ring) */
} xgrid;

void grid_coords(const xgrid *g, int r, int *c);
int grid_rank(const xgrid *g, const int *c);
int grid_class(const xgrid *g, int r);
/* Members, lowest member and rank of `r` in the sub-grid keeping dims `keep`. */
int grid_sub_size(const xgrid *g, unsigned keep);
int grid_sub_lowest(const xgrid *g, unsigned keep, int r);
int grid_sub_lowest_at(const xgrid *g, unsigned keep, const int *c); /* c: r's coordinates */
int grid_sub_member(const xgrid *g, unsigned keep, int r, int k);
int grid_sub_index(const xgrid *g, unsigned keep, int r);
int grid_fixed_index(const xgrid *g, unsigned keep, int r);
/* Class name ("lo,int" ...) into buf. */
void class_name(int nd, int cls, char *buf, size_t len);

/* Communicator descriptor: what a communicator id stands for. */
enum { CD_WORLD = 0, CD_SELF, CD_GRID };
typedef struct cdesc {
    int kind;
    unsigned keep;  /* CD_GRID: dimensions kept (all: the whole grid) */
    uint32_t seq;   /* high 32 bits of the id */
} cdesc;

/* Peer descriptor. */
enum { PD_LIT = 0, PD_REL, PD_ABS, PD_ABS_END, PD_CROOT, PD_CROOT_END, PD_COMMSIZE, PD_XOR,
       PD_NPB_TRANSPOSE };

/* NPB CG's transpose partner of world rank r among P = 2^k ranks (-1 when P
 * is not a power of two): the ranks form nprows x npcols, npcols =
 * 2^ceil(k/2) (nprows or 2 nprows), rank = row * npcols + col; a square
 * grid pairs (row, col) with (col, row), the 2:1 grid pairs by NPB's
 * exch_proc = 2 (((r/2) mod nprows) nprows + (r/2) / nprows) + r mod 2. */
static inline int extrap_npb_transpose(int r, int P)
{
    if (P < 1 || (P & (P - 1)) || r < 0 || r >= P)
        return -1;
    int l = 0;
    while ((1 << l) < P)
        l++;
    int nc = 1 << ((l + 1) / 2), nr = P / nc;
    if (nr == nc)
        return (r % nr) * nr + r / nr;
    return 2 * (((r / 2) % nr) * nr + (r / 2) / nr) + r % 2;
}
typedef struct pdesc {
    int kind;
    int32_t v[MAXD]; /* REL: offsets; ABS/CROOT: index; LIT: value; XOR: k, then the
                      * direction in which k moves with the copy of a repeated block (0:
                      * fixed; 1: rank XOR 2^(k + copy); -1: 2^(k + copies-1 - copy),
                      * extrap_copy_pos) */
    int32_t xk;      /* the members' peer is their rank XOR 2^xk (all of them), or -1:
                      * lets a repeated block whose copy c talks to rank XOR 2^(xk+c)
                      * be recognised (NPB-CG's reduction exchange, recursive doubling) */
    uint32_t amb;    /* REL: dimensions (bit d) where the offset is n/2 of a periodic
                      * dimension of even n, so -n/2 as well: decided by another trace
                      * (merge_class), else refused */
} pdesc;

/* How Comm_split's colour (tag) and key (bytes) follow from the position. */
enum { SK_LIT = 0, SK_FIXED_INDEX, SK_KEPT_INDEX, SK_WORLD_RANK };

/* One event of a class template. */
typedef struct tev {
    mc_event e;         /* literal fields; e.vals owned */
    int comm;           /* index into the model's cdescs */
    int newcomm;        /* index, or -1: e.newcomm literal */
    int cart;           /* vals end with ndims, dims, periods */
    int color, key;     /* SK_* for Comm_split */
    uint32_t copy;      /* copy of a repeated block it belongs to (extrap_expand), else 0 */
    uint32_t ncopies;   /* copies of that block at the P expanded for */
    int8_t tdir;        /* tags that move with the copy (NPB CG tags each step with its
                         * index): 1 up, -1 down (extrap_copy_pos), on e.tag (tmask bit
                         * 0) and completion entry q's tag (bit q + 1) */
    uint32_t tmask;
    int8_t sdir;        /* sizes that double (1) or halve (-1) from copy to copy (recursive
                         * halving, multigrid levels): number slot s (bit s of smask) is
                         * num[s] * 2^(sdir * copy) */
    uint32_t smask;
    uint32_t varr;      /* per-rank-count collective: its arrays of counts (0-2), each of
                         * one value for every comm rank (vals regenerated): array a is
                         * num[2 + a] for every rank (VK_EQUAL), or num[2 + a] *
                         * extrap_share(N, c, k) with N = num[2 + varr + a] (VK_BLOCK);
                         * or an Alltoallv that transposes A x B items of u bytes from
                         * blocks of A to blocks of B (VK_XPOSE, both arrays): num[2] u,
                         * num[3] 0, num[4] B, num[5] A (0: not shown by the trace, and
                         * num[3] then u times the items per rank of the other) */
    uint8_t vkind[2];
    uint8_t vlast[2];   /* VK_BLOCK array a (VK_XPOSE: [0] B, [1] A): how its items are
                         * dealt out (XD_FIRST, XD_LAST, XD_CEIL: extrap_share) */
    uint8_t nrd;        /* the arrays' other readings (rd): the traced counts fit more
                         * than one distribution or item size (FFTW's ceil blocks and a
                         * balanced split can give the same counts at one comm size) */
    struct xread *rd;
    uint8_t own[2];     /* slot s (bytes, bytes2) is array own[s] - 1's entry at the rank's
                         * own comm rank (a VK_BLOCK array: Allgatherv's send block), or 0 */
    uint8_t vhide;      /* the array is the root's (a Gatherv or Scatterv of a non-root
                         * rank, which passes none): generated for the own entry only */
    uint32_t npeer;     /* peer slots: [0] peer, [1] peer2, [2+k] completion k's source */
    pdesc *peer;
    uint32_t nnum;      /* number slots: [0] bytes, [1] bytes2, [2+k] completion k's bytes
                         * or array k's per-rank count (varr), then [2+varr+k] array k's
                         * number of items (VK_BLOCK, else 0) */
    int64_t *num;       /* value at the representative's P */
    uint8_t *law;       /* mc_extrap_law per slot */
    uint8_t *sclass;    /* mc_extrap_sizeclass per slot */
    uint16_t *alt;      /* per slot: every law that fits the traces (bit per law) */
    mc_fit *fit;        /* per slot where law is MC_LAW_FIT, else NULL: the model family
                         * of P that gives the size (fitted.c) */
    int64_t csize;      /* size of e.comm at the representative's P */
    int32_t baseP;      /* the representative's P */
    uint8_t loop;       /* folded input: 1, 2 in the main loop's first and second
                         * iteration, else 0 (fold.c) */
    int16_t *share;     /* per number slot: the block share (x->share) that gives its
                         * size at each rank, num[s] holding its unit; -1 none. NULL:
                         * none in any slot (share.c) */
    /* Sizes that follow the data (rule `sizes data`, classes.c): slot s (bit s of
     * dmask) differs between the class's members and is dsz[j * nnum + s] for
     * row j of dnm (xclass.dmidx numbers them), scaled by the slot's law. */
    uint32_t dmask, dnm;
    int64_t *dsz;
} tev;

/* Slot s of t may follow the data under `sizes data`: a point-to-point size or
 * a completion's received bytes. */
static inline int extrap_data_slot(const tev *t, uint32_t s)
{
    mc_op_kind k = mc_op_kind_of(t->e.op);
    return s < 32 && s < t->nnum && !t->varr && t->newcomm < 0 && t->sclass[s] == MC_SC_P2P &&
           (k == MC_KIND_P || k == MC_KIND_W);
}

/* ------------------------------------------------------------ block shares
 * (share.c; issue 20). A message size that is u bytes times the rank's
 * blocks of N_d items dealt out along grid dimensions d (extrap_share: the
 * first N mod n coordinates one more, the last, or blocks of ceil(N/n)):
 * the faces of a fixed global grid that the process grid does not divide,
 * which differ between ranks (a 2-d face follows one dimension, a 3-d face
 * two). N_d is the same in every trace (a fixed global size); the traces
 * give it as a range [nlo, nhi], every value of which must give the same
 * sizes at the target. */
typedef struct xsread {
    int nd;                 /* dimensions it follows: d[0 .. nd) (a 3-d face: two) */
    int d[MC_EXTRAP_MAXDIMS];
    uint8_t last[MC_EXTRAP_MAXDIMS]; /* how items are dealt out: XD_FIRST, XD_LAST, XD_CEIL */
    int64_t u, nlo[MC_EXTRAP_MAXDIMS], nhi[MC_EXTRAP_MAXDIMS];
} xsread;

/* One sizes' share: the reading the slots take (r), and the other readings
 * the traces fit as well (a balanced split and ceil blocks, items of one
 * size or of twice it: 32 32 32 16 bytes on 4 coordinates are 7 items of
 * 16 B balanced and 14 of 8 B in ceil blocks), which must give the same
 * sizes at the target. more: the traces fit more ceil readings than were
 * enumerated (only a traced grid is then safe). */
#define XSHARE_ALT 15
typedef struct xshare {
    xsread r;
    int nalt, more;
    xsread alt[XSHARE_ALT];
} xshare;


/* Whether two templates' slots have the same block shares (share.c). */
static inline int extrap_same_shares(const tev *a, const tev *b)
{
    for (uint32_t s = 0; s < a->nnum || s < b->nnum; s++) {
        int sa = a->share && s < a->nnum ? a->share[s] : -1;
        int sb = b->share && s < b->nnum ? b->share[s] : -1;
        if (sa != sb)
            return 0;
    }
    return 1;
}

/* Arrays of per-rank counts: one count for every rank, or a block
 * distribution of N items of u bytes whose first N mod c ranks hold one more. */
enum { VK_EQUAL = 0, VK_BLOCK, VK_XPOSE };

/* a * b for a, b >= 0, INT64_MAX when it does not fit (a corrupt trace's
 * counts must not overflow). */
static inline int64_t extrap_mul(int64_t a, int64_t b)
{
    return a > 0 && b > INT64_MAX / a ? INT64_MAX : a * b;
}

/* Greatest common divisor of a, b >= 0 (gcd(0, b) = b). */
static inline int64_t extrap_gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* How N items are dealt out over c ranks: the first N mod c one more
 * (PETSc's split), the last N mod c (2DECOMP&FFT's distribute), or blocks
 * of ceil(N/c) from the first rank on, the rest to the next and none after
 * (FFTW-MPI's default block, ScaLAPACK's block distribution). */
enum { XD_FIRST = 0, XD_LAST = 1, XD_CEIL = 2 };

static inline const char *extrap_dist_name(int mode)
{
    return mode == XD_CEIL ? "ceil" : mode == XD_LAST ? "last" : "first";
}

/* Items of comm rank j when N are dealt out over c ranks in mode `mode`. */
static inline int64_t extrap_share(int64_t N, int64_t c, int64_t j, int mode)
{
    if (c <= 0 || N < 0)
        return 0;
    if (mode == XD_CEIL) {
        int64_t B = N / c + (N % c != 0), left = N - j * B;
        return left < 0 ? 0 : left < B ? left : B;
    }
    return N / c + (mode == XD_LAST ? j >= c - N % c : j < N % c);
}

/* One reading of a per-rank-count collective's arrays (tev.rd): the values
 * its array slots num[2 .. 2 + 2 varr) and vlast would have. */
#define XREAD_MAX 16
typedef struct xread {
    int64_t num[4];
    uint8_t last[2];
} xread;

/* Whether two templates have the same other readings of their arrays. */
static inline int extrap_same_readings(const tev *a, const tev *b)
{
    if (a->nrd != b->nrd)
        return 0;
    for (uint32_t k = 0; k < a->nrd; k++)
        if (memcmp(a->rd[k].num, b->rd[k].num, sizeof a->rd[k].num) ||
            memcmp(a->rd[k].last, b->rd[k].last, sizeof a->rd[k].last))
            return 0;
    return 1;
}

/* Position of copy `copy` of `ncopies` in a progression of direction dir:
 * up from the first copy, or down to the last. */
static inline int extrap_copy_pos(int dir, uint32_t copy, uint32_t ncopies)
{
    return dir > 0 ? (int)copy : dir < 0 ? (int)ncopies - 1 - (int)copy : 0;
}

/* What number slot s of t is, for messages. */
static inline const char *extrap_slot_name(const tev *t, uint32_t s)
{
    return s == 0 ? "size" : s == 1 || !t->varr ? "received size"
           : s < 2 + t->varr ? "per-rank count" : "number of items dealt out";
}

/* A block of events repeated a number of times that depends on P:
 * ev[start .. start + len) is one copy; copies = a * f(P) (law); each copy's
 * request ids advance by nreq. */
#define MAXREP 8
typedef struct xrep {
    uint32_t start, len, nreq;
    uint32_t first_req;  /* lowest request id created in the block */
    uint32_t found_at;   /* start when found, before later blocks were compressed:
                          * a rebuild applies the blocks in that order */
    int law;
    double a;
    mc_fit fit; /* law MC_LAW_FIT: the copies as a model family of P (fitted.c) */
    /* Other laws that fit the traced counts as well (-1: none): a target
     * P where one gives another count is refused (gen.c). */
    int alt_law[2];
    double alt_a[2];
    /* Runs of the block (log2 P exchanges inside an outer loop): nruns >=
     * 2: every run j, ev[run[j] .. + len) one copy whose lowest created
     * request id is run[nruns + j], repeats the same number of times
     * (malloc'd, 2 * nruns entries); 0: the one run at start. */
    uint32_t nruns;
    uint32_t *run;
} xrep;

typedef struct xclass {
    int present;
    int trace;          /* representative's trace */
    int rank;           /* representative's rank there */
    int nmembers;       /* members in that trace */
    uint32_t n;
    tev *ev;
    int burst_law;      /* mc_extrap_law of the compute bursts */
    /* Blocks of events repeated a number of times that depends on P (issue
     * 20), in the order they were found (MAXREP at most). */
    int nrep;
    xrep rep[MAXREP];
    /* An exchange with rank XOR 2^k done once in every trace, where a law
     * gives the same count at every traced P (log2cols at P <= 4): it may
     * be a loop of one step; a target where the law gives more is refused
     * (gen.c). once_law 0: none. */
    int once_law;
    uint32_t once_at;
    /* Measured only (bursts are timings, not applied): the class's total
     * compute per rank ~ P^burst_alpha over the traces (burst_npts of them). */
    double burst_alpha;
    int burst_npts;
    /* compute=fit (fitted.c): the family mpicast model selects for the
     * class's compute per rank against P, by leave-one-out over the traces;
     * burst_fit.ok is 0 under any other compute law. */
    mc_fit burst_fit;
    int burst_runner;       /* the runner-up family, -1: none */
    double burst_runner_cv; /* its held-out error, % */
    /* Folded input: the main loop's iterations (the same in every trace),
     * of which the template holds two (ev[].loop); 0: not folded. */
    uint64_t loop_n;
    /* Coarse levels (depth.c): the rank's levels are inserted before
     * template events dpos[0 .. ndpos), ascending; dknown 0 when no traced
     * member showed where (then none may have levels). */
    int dknown;
    uint32_t ndpos;
    uint32_t *dpos;
    /* Sizes that follow the data (tev.dsz): the member number of each rank of
     * the representative's trace, -1 for the ranks of other classes; NULL
     * without rule `sizes data`. */
    int32_t *dmidx;
    int dnrows;         /* rows of tev.dsz: the members, and rank 0 (classes.c) */
} xclass;

/* The block of C one of whose runs holds position i, or -1. */
int extrap_rep_of(const xclass *C, uint32_t i);

/* ------------------------------------------------------------ coarse levels
 * (depth.c; issue 20, multigrid). A block of events that rank r does once
 * per level j = 1 .. m(r), m(r) = min(nu(r), cap(P)): nu(r) is the smallest
 * 2-adic valuation of r's grid coordinates along the dimensions of `mask` (a
 * coordinate 0 is a multiple of every 2^j), so level j runs on the ranks
 * whose coordinates are all multiples of 2^j; cap(P) is floor(log2 of the
 * smallest of those dimensions) + b, or a constant b. Level j's events talk
 * to grid offsets v * 2^(j-1) (or v) and their tags move by a step per
 * level. Everything is inferred from the traces; rules that also fit them
 * (alternatives) must agree at the target P, else it is refused. */
#define XD_MAXALT 8
enum { XD_CAP_LOG2MIN = 0, XD_CAP_CONST = 1 };
typedef struct xdpeer {
    int nalt;                      /* rank peers: offsets that fit (the first is used) */
    int32_t v[XD_MAXALT][MAXD];    /* level 1's offset */
    uint8_t dbl[XD_MAXALT];        /* 1: doubled at each level; 0: the same */
} xdpeer;
typedef struct xdepth {
    uint32_t len;                  /* events per level; 0: no coarse levels */
    unsigned mask;                 /* dimensions whose coordinates count */
    int cap_law, cap_b;            /* XD_CAP_*, cap(P) as above */
    int alt_law, alt_b;            /* another cap law that fits the traces, or -1 */
    tev *ev;                       /* level 1's events */
    xdpeer *peer;                  /* [2 * len]: peer slots 0 and 1 of each */
    uint8_t *tfit;                 /* [2 * len]: tag / tag2 steps per level that fit
                                    * (bit 0: 0, bit 1: +1, bit 2: -1; the lowest is used) */
    uint32_t nruns;                /* runs per rank that has levels (outer iterations) */
    int obs_trace, obs_rank;       /* where level 1's events were read (messages) */
    uint32_t obs_index;            /* ... from that rank's event obs_index on */
} xdepth;

/* Tag step per level of fit bits (bit 0: 0, bit 1: +1, bit 2: -1). */
static inline int extrap_depth_step(uint8_t fit)
{
    return (fit & 1u) ? 0 : (fit & 2u) ? 1 : -1;
}

struct mc_extrap {
    mc_extrap_rules rules;
    int ntraces;
    char **paths;
    int *tP;                    /* P of each trace */
    xgrid *tgrid;               /* grid of each trace */
    int nd;
    int periodic[MAXD];
    int from_dims_create;       /* traced dims were MPI_Dims_create's */
    char grid_source[128];      /* how the grid was found */
    cdesc *cd;
    int ncd;
    xclass cls[NCLASSES];       /* position classes, then ORIGIN */
    int homogeneous[MAXD];      /* position along d does not matter */
    uint64_t explained;         /* events regenerated exactly */
    /* Leave-one-out check (check.c): traces rebuilt from the others and
     * found equal, the events compared, and the rules not checked. */
    int checked;
    int folded;                 /* inputs whose main loops were folded (fold.c) */
    uint64_t checked_events;
    char unchecked[512];        /* "" when checked */
    char *notes;                /* inference notes for --explain (malloc'd) */
    mc_meta **meta;             /* each trace's meta data (call sites), or NULL */
    xdepth depth;               /* coarse levels (depth.c); len 0: none */
    xshare *share;              /* block shares (share.c), nshare of them */
    int nshare;
    uint64_t *share_key;        /* the slots they were found at, sorted (a leave-one-out
                                 * rebuild takes them as inferred), nshare_key of them, */
    int16_t *share_of;          /* and the share of each */
    uint32_t nshare_key;
};

/* Folded inputs (fold.c). A trace of more events than inference holds
 * comfortably is loop-compressed (means) into a private temporary
 * directory, and each rank's main loop is read as two iterations: the
 * first with its own times, the second with the mean of the others. The
 * classes' templates then carry the two (tev.loop), the generator repeats
 * the second N - 1 times, and the leave-one-out check compares the full
 * streams. Request ids after the loop are renumbered as in a run of two
 * iterations, so the model is that of a consistent shorter run. */
typedef struct xfold_rank {
    uint64_t first, iterations;  /* iterations 0: no loop folded */
    uint32_t period, req_first, req_count;
} xfold_rank;
typedef struct xfold {
    char dir[4096];              /* the compressed copy; "": not folded */
    int nranks, looped;          /* ranks, and those with a loop folded */
    uint64_t events;             /* events of the input */
    xfold_rank *rank;
} xfold;
/* Input events from which a build folds (MPICAST_EXTRAP_FOLD, default 5e5). */
uint64_t extrap_fold_threshold(void);
/* step(ctx) after each rank compressed (may be NULL). data_sizes (rule
 * sizes data): iterations that differ only in point-to-point sizes are
 * alike, and the folded loop's sizes are their mean (MC_COMPRESS_SIZES_MEAN). */
mc_err extrap_fold(const char *trace, int nranks, int data_sizes, void (*step)(void *ctx),
                   void *ctx, xfold *f, mc_error *err);
void extrap_fold_free(xfold *f);
/* tev.loop of event i of rank r as the folded copy delivers it. */
int extrap_fold_tag(const xfold *f, int r, uint64_t i);
/* Renumbers the request ids of event i of rank r after the folded loop. */
void extrap_fold_renumber(const xfold *f, int r, uint64_t i, mc_event *e);
/* The second iteration of a class's events at P, which the generator
 * repeats: ev[a .. b), creating request ids first_req .. + nreq - 1. */
typedef struct xloop {
    uint32_t a, b, first_req, nreq;
} xloop;
/* 1 with *out filled, 0 when ev has no folded loop, -1 when the two
 * iterations are not one after the other (or their ids not consecutive). */
int extrap_fold_region(const tev *ev, uint32_t n, xloop *out);

/* Target grid of a P-rank run. */
mc_err extrap_target_grid(const mc_extrap *x, int P, xgrid *g, mc_error *err);
/* Class key of rank r: its position class, homogeneous dimensions merged. */
int extrap_class_key(const mc_extrap *x, const xgrid *g, int r);
/* Class whose template rank r of grid g follows, or -1. */
int extrap_class_for(const mc_extrap *x, const xgrid *g, int r);
/* Law factor f(P, c, d). */
double law_f(int law, double P, double c, int d);
/* Comm id of descriptor cd for rank r of grid g. */
uint64_t cdesc_id(const cdesc *cd, const xgrid *g, int r);
/* The same with r's grid coordinates c already known (unused for world and self). */
uint64_t cdesc_id_at(const cdesc *cd, const xgrid *g, int r, const int *c);
int cdesc_size(const cdesc *cd, const xgrid *g);
int cdesc_member(const cdesc *cd, const xgrid *g, int r, int k);
/* Rank of world rank r in its communicator of descriptor cd. */
int cdesc_rank(const cdesc *cd, const xgrid *g, int r);

/* The events of class C at P: the template, or with the repetitions
 * expanded (then *owned is set and extrap_expanded_free releases it). Fails
 * if the repetition count at P is not a whole number. */
mc_err extrap_expand(const mc_extrap *x, const xclass *C, int P, tev **ev, uint32_t *n,
                     int *owned, mc_error *err);
void extrap_expanded_free(tev *ev, uint32_t n);
/* Repetition inference over one class's templates in several traces
 * (model.c calls it when their lengths differ): compresses each to one copy. */
int extrap_find_repetition(mc_extrap *x, int cls, xclass *per, const char *cname,
                           mc_error *err);

/* Loops whose copies step through rank XOR 2^k and that repeat as often in
 * every trace, where a law of P fits the count as well as a constant (NPB
 * CG's row reduction traced at P=8 and 16: 2 steps, log2cols(P) = 2 at
 * both): compressed as repeated blocks of constant count with that law as
 * the alternative, so a target where they part is refused (gen.c). */
int extrap_find_fixed_loops(mc_extrap *x, xclass *per, const char *cname, mc_error *err);

/* The block ev[start .. start+L) of one class's templates repeats a *
 * law(P) times (a from the largest trace): compresses each to one copy;
 * all_runs: every later run of the block too (each as many times). */
int extrap_apply_repetition(mc_extrap *x, xclass *per, uint32_t start, uint32_t L, int law,
                            const mc_fit *fit, /* law MC_LAW_FIT (inherited), else NULL */
                            int all_runs, const char *cname, mc_error *err);

/* Builds and verifies a model (model.c); inherit: a model of more traces
 * whose inferred laws and repetitions are taken as stated (NULL: none);
 * folds: one per trace (NULL: none folded). Without folds, an input past
 * extrap_fold_threshold() fails with *fold_wanted set (if non-NULL). */
mc_extrap *extrap_build_model(const char *const *traces, int ntraces,
                              const mc_extrap_rules *rules, const mc_extrap *inherit,
                              const xfold *folds, int *fold_wanted, mc_error *err);
/* Event e of trace k for messages: its operation and call site, "Sendrecv,
 * site 1a2b3c, mg.c:120 in restrict" (the file and function where the trace
 * resolved them; the site id is what --rule repeat= takes). */
const char *extrap_op_at(const mc_extrap *x, int k, const mc_event *e, char *buf, size_t len);
/* "mg.c:120 in restrict" for a call site of meta m, or "" when m does not resolve it. */
const char *extrap_site_where(const mc_meta *m, int32_t site, char *buf, size_t len);
#define EXTRAP_OP_AT_MAX 256
#define OPAT(x, k, e) extrap_op_at((x), (k), (e), (char[EXTRAP_OP_AT_MAX]){0}, EXTRAP_OP_AT_MAX)

/* Appends a line to the --explain notes. */
void extrap_note(mc_extrap *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Applies the stated repeat rules to one class's templates (compressing
 * each to one copy of the block). */
int extrap_stated_repetition(mc_extrap *x, xclass *per, const char *cname, mc_error *err);

/* Event generation for rank r (gen.c). vbuf: growable per-rank buffer for
 * remapped values; members: values of a comm-management event, or NULL to
 * have them generated into *vbuf too. t_prev_end: the rank's clock. */
typedef struct genbuf {
    int64_t *v;
    uint32_t cap;
} genbuf;
/* compute=fit: fit class R's compute per rank over the traces (per[], as
 * merged), or take it from the model I of every trace in a leave-one-out
 * rebuild; the factor of one burst at P (fitted.c). */
int extrap_burst_fit(const mc_extrap *x, const xclass *per, xclass *R, const xclass *I,
                     const char *cname, mc_error *err);
double extrap_burst_factor(const xclass *C, const tev *t, int P, int64_t ct, int nd);
/* Refuses a target P where a fitted compute model is not positive, or a
 * fitted size is negative. */
mc_err extrap_fit_check(const mc_extrap *x, int P, mc_error *err);
/* A size slot no one-factor law explains: 1 when the model family selected
 * for the n traced values v at P, fitted on all but one, gives that one to
 * the byte, for each (*fit: fitted on all);
 * -1 when another candidate does too but parts from it below 64 x the
 * largest P (*other: that family); 0 otherwise. */
int extrap_size_fit(const double *v, const double *P, int n, mc_fit *fit, int *other);
/* Slot s of t: law f fitted (allocates t->fit); -1 out of memory. */
int extrap_set_fit(tev *t, uint32_t s, const mc_fit *f);
/* Slot s of t at P under its fitted law. */
int64_t extrap_fit_size(const tev *t, uint32_t s, int P);
/* size.p2p=fit with rule sizes data: slot s of the representative's event t
 * (event i of every trace's template) follows the model family that
 * leave-one-out selects for its mean over the members, trace by trace
 * (three traces or more; per: every trace's template of the class). */
int extrap_data_fit(const mc_extrap *x, const xclass *per, tev *t, uint32_t i, uint32_t s,
                    const char *cname, mc_error *err);
/* A member's traced size v of data slot s at P: v times fit(P) / fit(baseP). */
int64_t extrap_fit_rescale(const tev *t, uint32_t s, int64_t v, int P);
/* A held-out error (%) for messages: rounding noise of an exact fit is 0. */
double extrap_pct(double v);
/* Copies of block B at P (a·law(P), or its fitted family), not rounded. */
double extrap_rep_copies(const mc_extrap *x, const xrep *B, int P);
/* B's law for messages: "2 x log2p(P)" or "fit (linear: P - 1, ...)". */
void extrap_rep_law_str(const xrep *B, char *buf, size_t len);
/* The law of slot s for --explain: its name, or the fitted family and formula. */
void extrap_law_str(const tev *t, uint32_t s, char *buf, size_t len);

mc_err extrap_gen(const mc_extrap *x, const xgrid *g, int r, const tev *t, const xclass *C,
                  int64_t t_prev_end, mc_event *out, genbuf *vb, const int64_t *shared_vals,
                  mc_error *err);
/* Values of a comm-management event (members + Cartesian suffix). */
mc_err extrap_comm_vals(const mc_extrap *x, const xgrid *g, int r, const tev *t, genbuf *vb,
                        uint32_t *n, mc_error *err);
/* Events equal in everything but times. */
int extrap_event_equal(const mc_event *a, const mc_event *b, char *why, size_t len);
/* The same; data: point-to-point sizes and completions' received bytes aside
 * (rule sizes data). */
int extrap_event_equal_as(const mc_event *a, const mc_event *b, int data, char *why,
                          size_t len);
/* Point-to-point bytes of e (sent, received, completed): what rule `sizes
 * data` takes from the traced ranks. */
static inline double extrap_p2p_bytes(const mc_event *e)
{
    double v = mc_event_p2p_size(e, MC_FIELD_BYTES) ? (double)e->bytes + (double)e->bytes2 : 0;
    for (uint32_t i = 3; i < e->nvals; i += 4)
        v += mc_event_p2p_size(e, i) ? (double)e->vals[i] : 0;
    return v;
}

/* ------------------------------------------------------------ building the model
 * model.c drives it (extrap_build_model): read.c reads every rank of every
 * trace, grid.c finds the process grid, abstract.c abstracts each rank's
 * events, classes.c groups the ranks into position classes (and finds the
 * homogeneous dimensions), merge.c merges each class across the traces and
 * fits its laws, verify.c regenerates every trace from the model. */

/* In a function with an `mc_error *err` that returns int: a usage error, -1. */
#define FAIL(...) return (mc_error_set(err, MC_ERR_USAGE, __VA_ARGS__), -1)

#define EXTRAP_AMBIGUOUS                                                                  \
    "the peer offset is ambiguous on a periodic dimension with an even number of ranks "     \
    "(+n/2 = -n/2): trace a run with at least 3 (and an odd number of) ranks along each "    \
    "periodic dimension"

typedef struct rawrank {
    mc_event *ev;
    uint32_t n, cap;
} rawrank;

/* What a peer could be for one rank: a literal, a grid offset, rank XOR. */
typedef struct pcand {
    int32_t lit;
    int isrank, far, amb;
    int32_t rel[MAXD];
    int32_t xr;         /* rank XOR peer */
    uint32_t ambd;      /* the dimensions where the offset is ambiguous (amb) */
} pcand;

/* An event of one rank, abstracted, before the class decides. */
typedef struct aev {
    tev t;
    pcand *pc;          /* t.npeer candidates */
    unsigned colmask, keymask;
} aev;

/* Coarse levels of one traced rank (depth.c): m levels in each of nruns
 * runs, inserted before its stripped events pos[0 .. nruns); known 0: none
 * and no place known. */
typedef struct xdrank {
    int m, known;
    uint32_t nruns;
    uint32_t *pos;
    uint32_t *at;       /* where each run starts among the events as read */
} xdrank;

typedef struct xbuild {
    mc_extrap *x;
    rawrank **raw;      /* [trace][rank] (coarse levels stripped, depth.c) */
    rawrank **full;     /* [trace][rank] as read, when levels were stripped (NULL: raw) */
    xdrank **drank;     /* [trace][rank] coarse levels, or NULL */
    aev ***abs;         /* [trace][rank] -> array */
    uint64_t total, max_events; /* input events read, and the most held */
    /* A leave-one-out rebuild (check.c): the model of every trace, whose
     * inferred laws and repetitions the rebuild takes as stated. */
    const mc_extrap *inherit;
    const xfold *folds; /* one per trace, or NULL */
    int fold_wanted;    /* unfolded input past extrap_fold_threshold() */
    char *notes;
    size_t nnotes, capnotes;
} xbuild;

static inline int extrap_is_completion(int op)
{
    return mc_op_has(op, MC_OPF_COMPLETION);
}

static inline int extrap_is_creation(int op)
{
    return mc_op_kind_of(op) == MC_KIND_M && op != MC_OP_COMM_FREE;
}

/* Rank r's event number in trace k as read (what `mpicast dump` numbers from
 * 0) of its event i in b->raw (coarse levels stripped, folded loops). */
uint64_t extrap_event_no(const xbuild *b, int k, int r, uint32_t i);

/* read.c: input events inference may hold; trace k into b->raw[k]. */
uint64_t extrap_max_events_held(void);
mc_err extrap_read_trace(xbuild *b, int k, mc_error *err);

/* grid.c: the process grid of every trace (x->nd, x->periodic, x->tgrid). */
mc_err extrap_find_grid(xbuild *b, mc_error *err);
/* Keep mask under which members m[0 .. n) are r's sub-grid, or -1. */
int extrap_find_keep(const xgrid *g, int r, const int64_t *m, int n);
/* Members listed by a comm-creation event. */
int extrap_members_count(const mc_event *e);

/* abstract.c: every rank of trace k into b->abs[k]. */
mc_err extrap_abstract_trace(xbuild *b, int k, mc_error *err);

/* classes.c: the class templates of every trace (per[k][cls]). */
mc_err extrap_classify(xbuild *b, xclass (*per)[NCLASSES], mc_error *err);
/* Sets x->homogeneous from the templates of every trace. */
void extrap_find_homogeneous(mc_extrap *x, xclass (*per)[NCLASSES]);
/* "class (lo,int)" or "class (rank 0)" into buf, for messages. */
void extrap_class_str(const mc_extrap *x, int cls, char *buf, size_t len);
void extrap_tev_free(tev *t);
/* Deep copy (the abstract events stay for a second classification). */
int extrap_tev_copy(tev *d, const tev *s);

/* merge.c: class cls of every trace (per[k]) into x->cls[cls]; per's
 * representative is moved out of per, the rest stays the caller's. */
int extrap_merge_class(xbuild *b, int cls, xclass *per, mc_error *err);

/* depth.c: coarse levels. extrap_depth_find strips them from every rank of
 * every trace (b->raw, b->abs; the events as read stay in b->full) and
 * infers their rule into x->depth (or takes the inherited one); 0 also when
 * there are none (or they are not recognised: the classes then say what
 * differs). */
int extrap_depth_find(xbuild *b, mc_error *err);
void extrap_depth_free_build(xbuild *b);
void extrap_depth_free(xdepth *d);
/* The class template of members mem[0 .. nm) of trace k: where their levels go. */
int extrap_depth_class(const xbuild *b, int k, const int *mem, int nm, xclass *out,
                       const char *cname, mc_error *err);
/* Levels of rank r of grid g: m(r). */
int extrap_depth_levels(const mc_extrap *x, const xgrid *g, int r);
/* Block events before template event pos of class C for a rank of m levels. */
uint32_t extrap_depth_here(const mc_extrap *x, const xclass *C, uint32_t pos, int m);
/* The idx-th block event at an insertion point (level idx / len + 1) as a
 * template: *t shares x's arrays but its peers (pd, 2 slots) and tags. */
void extrap_depth_event(const mc_extrap *x, uint32_t idx, tev *t, pdesc *pd);
/* The target grid g: the rule gives one answer there, and every rank with
 * levels has a class that knows where they go. */
mc_err extrap_depth_check(const mc_extrap *x, const xgrid *g, mc_error *err);
/* --explain lines. */
void extrap_depth_explain(const mc_extrap *x, FILE *out);

/* share.c: block shares (xshare above). */
/* Finds the slots whose sizes differ between the ranks of a trace as block
 * shares, and sets them to their unit with t->share (b->abs, after the
 * coarse levels are stripped): then the ranks of a class agree. 0, or -1
 * (err set: out of memory). */
int extrap_share_find(xbuild *b, mc_error *err);
/* Size of share model i for the rank at coordinates c of grid g (N: nlo). */
int64_t extrap_share_size(const mc_extrap *x, int i, const xgrid *g, const int *c);
/* Refuses a target grid where the traces' range of N, or another reading
 * they fit, gives other sizes. */
mc_err extrap_share_check(const mc_extrap *x, const xgrid *g, mc_error *err);
/* "8 B x the rank's block of N=10 items along dimension 1 (the first N mod n one more)". */
void extrap_share_str(const mc_extrap *x, int i, char *buf, size_t len);

/* verify.c: the model regenerates every rank of every trace exactly. */
mc_err extrap_verify(xbuild *b, mc_error *err);

#endif
