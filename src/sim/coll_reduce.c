/* Reduction algorithms: reduce, allreduce, reduce_scatter(_block), scan and
 * exscan. A REDUCE op follows every receive whose data is combined; the
 * operator is unknown to a trace, so every algorithm is the commutative one. */
#include "coll_impl.h"
#include "mpicast/format.h"

/* Binomial tree toward relative rank 0: receive (and reduce) from children
 * v + 1, v + 2, v + 4, ... one at a time, then send to the parent. */
int coll_reduce_binomial(mc_coll_sched *s, int size, int rank, int root, int64_t n)
{
    int v = coll_rel(rank, root, size);
    for (int mask = 1; mask < size; mask *= 2) {
        if (v & mask) {
            COLL_TRY(coll_send(s, coll_abs(v - mask, root, size), n));
            return mc_coll_next(s);
        }
        if (v + mask < size) {
            COLL_TRY(coll_recv(s, coll_abs(v + mask, root, size), n));
            COLL_TRY(coll_reduce(s, n));
            COLL_TRY(mc_coll_next(s));
        }
    }
    return 0;
}

int coll_reduce_binomial_fn(const mc_coll_args *a, mc_coll_sched *s)
{
    return coll_reduce_binomial(s, a->size, a->rank, a->root, coll_unit(a));
}

/* Open MPI's basic linear reduce: the root receives and reduces every
 * contribution in turn. */
int coll_reduce_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t n = coll_unit(a);
    if (r != a->root) {
        COLL_TRY(coll_send(s, a->root, n));
        return mc_coll_next(s);
    }
    for (int i = 1; i < P; i++) {
        COLL_TRY(coll_recv(s, (r + i) % P, n));
        COLL_TRY(coll_reduce(s, n));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}

/* ------------------------------------------------ power-of-two folding */

/* MPICH's non-power-of-two scheme: with pof2 the largest power of two <= P
 * and rem = P - pof2, the even ranks below 2 rem hand their data to the next
 * odd rank and sit out; the others continue as "new ranks" 0 .. pof2-1. */
typedef struct fold {
    int pof2, rem, newrank; /* newrank -1: sits out */
} fold;

static fold fold_of(int size, int rank)
{
    fold f;
    f.pof2 = coll_pof2_floor(size);
    f.rem = size - f.pof2;
    if (rank < 2 * f.rem)
        f.newrank = rank % 2 ? rank / 2 : -1;
    else
        f.newrank = rank - f.rem;
    return f;
}

static int fold_real(const fold *f, int newrank)
{
    return newrank < f->rem ? newrank * 2 + 1 : newrank + f->rem;
}

/* The fold-in step: n bytes from each even rank < 2 rem to its odd partner. */
static int fold_in(mc_coll_sched *s, const fold *f, int rank, int64_t n)
{
    if (rank >= 2 * f->rem)
        return 0;
    if (rank % 2 == 0)
        COLL_TRY(coll_send(s, rank + 1, n));
    else {
        COLL_TRY(coll_recv(s, rank - 1, n));
        COLL_TRY(coll_reduce(s, n));
    }
    return mc_coll_next(s);
}

/* Virtual blocks 0 .. pof2-1 of the halving/doubling phases, and their
 * sizes: either n cut into pof2 near-equal blocks (Rabenseifner's allreduce)
 * or the blocks of the real ranks each new rank stands for (reduce_scatter:
 * new rank v < rem stands for real ranks 2v and 2v+1). */
typedef struct vblocks {
    const fold *f;
    int64_t n;               /* split mode when counts == NULL */
    const coll_counts *counts;
} vblocks;

static int vreal_lo(const fold *f, int v) { return v < f->rem ? 2 * v : v + f->rem; }

static int64_t vbytes(const vblocks *b, int lo, int hi)
{
    if (!b->counts)
        return coll_split_bytes(b->n, b->f->pof2, lo, hi);
    return coll_count_range(b->counts, vreal_lo(b->f, lo), vreal_lo(b->f, hi));
}

/* Recursive halving reduce-scatter among the new ranks, partner distance
 * pof2/2 first: each step sends the half of the current segment the partner
 * keeps and reduces the half received; new rank v ends with block v. */
static int halving(mc_coll_sched *s, const fold *f, const vblocks *b, int *lo_out)
{
    int v = f->newrank, lo = 0, hi = f->pof2;
    for (int mask = f->pof2 / 2; mask > 0; mask /= 2) {
        int mid = lo + mask, peer = fold_real(f, v ^ mask);
        int keep_lo = (v & mask) ? mid : lo, keep_hi = (v & mask) ? hi : mid;
        int give_lo = (v & mask) ? lo : mid, give_hi = (v & mask) ? mid : hi;
        int64_t got = vbytes(b, keep_lo, keep_hi);
        COLL_TRY(coll_send(s, peer, vbytes(b, give_lo, give_hi)));
        COLL_TRY(coll_recv(s, peer, got));
        COLL_TRY(coll_reduce(s, got));
        COLL_TRY(mc_coll_next(s));
        lo = keep_lo;
        hi = keep_hi;
    }
    *lo_out = lo;
    return 0;
}

/* Recursive doubling allgather among the new ranks, the inverse of halving:
 * partner distance 1 first, each step swaps the current segments. */
static int doubling(mc_coll_sched *s, const fold *f, const vblocks *b, int lo)
{
    int v = f->newrank, hi = lo + 1;
    for (int mask = 1; mask < f->pof2; mask *= 2) {
        int peer = fold_real(f, v ^ mask);
        int plo = (v & mask) ? lo - mask : hi, phi = (v & mask) ? lo : hi + mask;
        COLL_TRY(coll_send(s, peer, vbytes(b, lo, hi)));
        COLL_TRY(coll_recv(s, peer, vbytes(b, plo, phi)));
        COLL_TRY(mc_coll_next(s));
        lo = plo < lo ? plo : lo;
        hi = phi > hi ? phi : hi;
    }
    return 0;
}

/* The fold-out step: the odd partners return the n-byte result. */
static int fold_out(mc_coll_sched *s, const fold *f, int rank, int64_t n)
{
    if (rank >= 2 * f->rem)
        return 0;
    if (rank % 2)
        COLL_TRY(coll_send(s, rank - 1, n));
    else
        COLL_TRY(coll_recv(s, rank + 1, n));
    return mc_coll_next(s);
}

/* ------------------------------------------------------------ allreduce */

/* MPICH's recursive doubling: fold, log2(pof2) exchanges of the whole
 * vector with new rank v ^ 1, v ^ 2, ..., each followed by a reduction,
 * unfold. Over 6 ranks: 0 and 2 fold into 1 and 3; 1,3,4,5 exchange. */
int coll_allreduce_recursive_doubling(const mc_coll_args *a, mc_coll_sched *s)
{
    int r = a->rank;
    int64_t n = coll_unit(a);
    fold f = fold_of(a->size, r);
    COLL_TRY(fold_in(s, &f, r, n));
    if (f.newrank >= 0) {
        for (int mask = 1; mask < f.pof2; mask *= 2) {
            int peer = fold_real(&f, f.newrank ^ mask);
            COLL_TRY(coll_send(s, peer, n));
            COLL_TRY(coll_recv(s, peer, n));
            COLL_TRY(coll_reduce(s, n));
            COLL_TRY(mc_coll_next(s));
        }
    }
    return fold_out(s, &f, r, n);
}

/* Ring: reduce-scatter then allgather around the ring, P - 1 steps each, on
 * P blocks of n/P bytes (the first n % P blocks one byte more). In
 * reduce-scatter step k rank r passes block (r - k) on and reduces block
 * (r - k - 1); it ends owning block r + 1, which the allgather circulates. */
int coll_allreduce_ring_step(const mc_coll_args *a, int k, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t n = coll_unit(a);
    int right = (r + 1) % P, left = coll_mod(r - 1, P);
    if (k + 1 < P) {
        int sb = coll_mod(r - k, P), rb = coll_mod(r - k - 1, P);
        int64_t got = coll_split_bytes(n, P, rb, rb + 1);
        COLL_TRY(coll_send(s, right, coll_split_bytes(n, P, sb, sb + 1)));
        COLL_TRY(coll_recv(s, left, got));
        return coll_reduce(s, got);
    }
    k -= P - 1;
    int sb = coll_mod(r + 1 - k, P), rb = coll_mod(r - k, P);
    COLL_TRY(coll_send(s, right, coll_split_bytes(n, P, sb, sb + 1)));
    return coll_recv(s, left, coll_split_bytes(n, P, rb, rb + 1));
}

/* Rabenseifner: fold, recursive halving reduce-scatter over pof2 blocks,
 * recursive doubling allgather, unfold (MPICH's reduce_scatter_allgather). */
int coll_allreduce_rabenseifner(const mc_coll_args *a, mc_coll_sched *s)
{
    int r = a->rank;
    int64_t n = coll_unit(a);
    fold f = fold_of(a->size, r);
    vblocks b = {&f, n, NULL};
    COLL_TRY(fold_in(s, &f, r, n));
    if (f.newrank >= 0) {
        int lo;
        COLL_TRY(halving(s, &f, &b, &lo));
        COLL_TRY(doubling(s, &f, &b, lo));
    }
    return fold_out(s, &f, r, n);
}

/* Open MPI's nonoverlapping: binomial reduce to rank 0, binomial bcast. */
int coll_allreduce_nonoverlapping(const mc_coll_args *a, mc_coll_sched *s)
{
    int64_t n = coll_unit(a);
    COLL_TRY(coll_reduce_binomial(s, a->size, a->rank, 0, n));
    return coll_bcast_binomial(s, a->size, a->rank, 0, n);
}

/* ------------------------------------------------------ reduce_scatter */

/* Reduce_scatter gives rank i recvcounts[i] bytes; reduce_scatter_block
 * gives everyone one block of bytes. */
static coll_counts rs_counts(const mc_coll_args *a)
{
    coll_counts c = {NULL, coll_unit(a)};
    if (a->op == MC_OP_REDUCE_SCATTER)
        c.counts = a->recvcounts;
    return c;
}

/* MPICH's recursive halving with the fold: even ranks < 2 rem send their
 * whole vector to the odd neighbour; the pof2 new ranks halve over blocks
 * that stand for one or two real ranks; then the odd ranks hand the even
 * neighbour its block. */
int coll_reduce_scatter_recursive_halving(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    coll_counts c = rs_counts(a);
    fold f = fold_of(P, r);
    vblocks b = {&f, 0, &c};
    if (r < 2 * f.rem)
        COLL_TRY(fold_in(s, &f, r, coll_count_range(&c, 0, P)));
    if (f.newrank >= 0) {
        int lo;
        COLL_TRY(halving(s, &f, &b, &lo));
    }
    if (r < 2 * f.rem) {
        if (r % 2)
            COLL_TRY(coll_send(s, r - 1, coll_count(&c, r - 1)));
        else
            COLL_TRY(coll_recv(s, r + 1, coll_count(&c, r)));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}

/* Ring: in step k rank r passes its partial block (r - k - 1) to the right
 * and reduces block (r - k - 2) from the left; after P - 1 steps it holds
 * the full block r. */
int coll_reduce_scatter_ring_step(const mc_coll_args *a, int k, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    coll_counts c = rs_counts(a);
    int64_t got = coll_count(&c, coll_mod(r - k - 2, P));
    COLL_TRY(coll_send(s, (r + 1) % P, coll_count(&c, coll_mod(r - k - 1, P))));
    COLL_TRY(coll_recv(s, coll_mod(r - 1, P), got));
    return coll_reduce(s, got);
}

/* Open MPI's non-overlapping: binomial reduce of the whole vector to rank 0,
 * then a linear scatterv of the blocks. */
int coll_reduce_scatter_nonoverlapping(const mc_coll_args *a, mc_coll_sched *s)
{
    coll_counts c = rs_counts(a);
    COLL_TRY(coll_reduce_binomial(s, a->size, a->rank, 0, coll_count_range(&c, 0, a->size)));
    return coll_scatterv_linear(s, a->size, a->rank, 0, &c);
}

/* ------------------------------------------------------------ scan */

/* Open MPI's linear scan: rank r waits for the prefix of 0..r-1 from r-1,
 * combines its own value, passes the prefix on. Exscan's last rank has
 * nothing to combine (its result is what it received). */
int coll_scan_linear(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t n = coll_unit(a);
    if (r > 0) {
        COLL_TRY(coll_recv(s, r - 1, n));
        if (a->op == MC_OP_SCAN || r + 1 < P)
            COLL_TRY(coll_reduce(s, n));
        COLL_TRY(mc_coll_next(s));
    }
    if (r + 1 < P) {
        COLL_TRY(coll_send(s, r + 1, n));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}

/* MPICH's recursive doubling scan: exchange partial sums with r ^ mask;
 * everyone folds the partner's partial sum into its own, and a rank above
 * its partner also into its result (a second reduction). */
int coll_scan_recursive_doubling(const mc_coll_args *a, mc_coll_sched *s)
{
    int P = a->size, r = a->rank;
    int64_t n = coll_unit(a);
    for (int mask = 1; mask < P; mask *= 2) {
        int peer = r ^ mask;
        if (peer >= P)
            continue;
        COLL_TRY(coll_send(s, peer, n));
        COLL_TRY(coll_recv(s, peer, n));
        COLL_TRY(coll_reduce(s, n));
        if (peer < r)
            COLL_TRY(coll_reduce(s, n));
        COLL_TRY(mc_coll_next(s));
    }
    return 0;
}
