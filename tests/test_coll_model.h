/* Abstract execution of collective schedules for the coll tests.
 *
 * Builds every rank's schedule for one call, pairs the i-th send from a to b
 * with the i-th receive at b from a (the engine's per-pair FIFO matching),
 * then runs the ranks round by round with the strictest semantics: an
 * operation completes only once its partner has posted the matching one
 * (its round has started), and a rank leaves a round when all its
 * operations have completed. Data flow is tracked as bitmasks of the ranks
 * whose contribution a rank holds: a message carries what the sender held
 * when its round started.
 */
#ifndef MPICAST_TEST_COLL_MODEL_H
#define MPICAST_TEST_COLL_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpicast/format.h"
#include "sim/coll.h"

#define MODEL_MAXP 64

typedef struct model {
    int P;
    mc_coll_sched s[MODEL_MAXP];
    int *match_round[MODEL_MAXP]; /* per op: the partner's round of the match */
    uint64_t mask[MODEL_MAXP];
    uint64_t *entry[MODEL_MAXP];  /* mask at the start of each round */
    int64_t sent[MODEL_MAXP], recvd[MODEL_MAXP], reduced[MODEL_MAXP];
    int64_t total_sent;
    int nrounds_max;
    char why[256];                /* first failure, "" if none */
} model;

static int model_round_of(const mc_coll_sched *s, int op)
{
    int k = 0;
    while (s->round_start[k + 1] <= op)
        k++;
    return k;
}

static int model_fail(model *m, const char *fmt, int a, int b, int c)
{
    snprintf(m->why, sizeof m->why, fmt, a, b, c);
    return -1;
}

/* Pairs sends and receives; checks peers, bytes and the one-op-per-peer-and-
 * kind-per-round rule that makes matching within a round unambiguous. */
static int model_match(model *m)
{
    int P = m->P;
    for (int a = 0; a < P; a++) {
        const mc_coll_sched *s = &m->s[a];
        m->match_round[a] = calloc((size_t)s->nops + 1, sizeof(int));
        for (int k = 0; k < s->nrounds; k++) {
            CHECK(s->round_start[k] < s->round_start[k + 1]); /* no empty rounds */
            for (int i = s->round_start[k]; i < s->round_start[k + 1]; i++)
                for (int j = s->round_start[k]; j < i; j++)
                    if (s->ops[i].kind != MC_COLL_REDUCE && s->ops[i].kind == s->ops[j].kind &&
                        s->ops[i].peer == s->ops[j].peer)
                        return model_fail(m, "rank %d round %d: two ops of one kind to peer %d",
                                          a, k, s->ops[i].peer);
        }
        CHECK_EQ_INT(s->round_start[0], 0);
        CHECK_EQ_INT(s->round_start[s->nrounds], s->nops);
    }
    for (int a = 0; a < P; a++) {
        const mc_coll_sched *s = &m->s[a];
        for (int i = 0; i < s->nops; i++) {
            const mc_coll_op *o = &s->ops[i];
            if (o->kind == MC_COLL_REDUCE) {
                m->reduced[a] += o->bytes;
                continue;
            }
            int b = o->peer;
            if (b < 0 || b >= P || b == a)
                return model_fail(m, "rank %d op %d: bad peer %d", a, i, b);
            if (o->bytes < 0)
                return model_fail(m, "rank %d op %d: negative bytes to %d", a, i, b);
            int seq = 0;
            for (int j = 0; j < i; j++)
                if (s->ops[j].kind == o->kind && s->ops[j].peer == b)
                    seq++;
            int want = o->kind == MC_COLL_SEND ? MC_COLL_RECV : MC_COLL_SEND;
            const mc_coll_sched *t = &m->s[b];
            int found = -1;
            for (int j = 0, n = 0; j < t->nops; j++)
                if (t->ops[j].kind == want && t->ops[j].peer == a && n++ == seq) {
                    found = j;
                    break;
                }
            if (found < 0)
                return model_fail(m, "rank %d op %d: no match at rank %d", a, i, b);
            if (t->ops[found].bytes != o->bytes)
                return model_fail(m, "rank %d op %d: bytes differ from the match at rank %d", a,
                                  i, b);
            m->match_round[a][i] = model_round_of(t, found);
            if (o->kind == MC_COLL_SEND) {
                m->sent[a] += o->bytes;
                m->total_sent += o->bytes;
            } else {
                m->recvd[a] += o->bytes;
            }
        }
    }
    return 0;
}

static int model_run(model *m)
{
    int P = m->P, cur[MODEL_MAXP] = {0};
    for (int r = 0; r < P; r++) {
        m->mask[r] = (uint64_t)1 << r;
        m->entry[r] = calloc((size_t)m->s[r].nrounds + 1, sizeof(uint64_t));
        m->entry[r][0] = m->mask[r];
        if (m->s[r].nrounds > m->nrounds_max)
            m->nrounds_max = m->s[r].nrounds;
    }
    for (int progress = 1; progress;) {
        progress = 0;
        for (int r = 0; r < P; r++) {
            const mc_coll_sched *s = &m->s[r];
            if (cur[r] >= s->nrounds)
                continue;
            int k = cur[r], ready = 1;
            for (int i = s->round_start[k]; i < s->round_start[k + 1] && ready; i++)
                if (s->ops[i].kind != MC_COLL_REDUCE && cur[s->ops[i].peer] < m->match_round[r][i])
                    ready = 0;
            if (!ready)
                continue;
            for (int i = s->round_start[k]; i < s->round_start[k + 1]; i++)
                if (s->ops[i].kind == MC_COLL_RECV)
                    m->mask[r] |= m->entry[s->ops[i].peer][m->match_round[r][i]];
            cur[r]++;
            m->entry[r][cur[r]] = m->mask[r];
            progress = 1;
        }
    }
    for (int r = 0; r < P; r++)
        if (cur[r] < m->s[r].nrounds)
            return model_fail(m, "deadlock: rank %d stuck in round %d of %d", r, cur[r],
                              m->s[r].nrounds);
    return 0;
}

/* Reductions only after data: a round's REDUCE bytes are at most twice its
 * received bytes (MPICH's scan reduces twice), and only in reduction ops. */
static int model_check_reduces(model *m, int op)
{
    int reducing = op == MC_OP_REDUCE || op == MC_OP_ALLREDUCE || op == MC_OP_REDUCE_SCATTER ||
                   op == MC_OP_REDUCE_SCATTER_BLOCK || op == MC_OP_SCAN || op == MC_OP_EXSCAN;
    for (int r = 0; r < m->P; r++) {
        const mc_coll_sched *s = &m->s[r];
        for (int k = 0; k < s->nrounds; k++) {
            int64_t in = 0, red = 0;
            for (int i = s->round_start[k]; i < s->round_start[k + 1]; i++) {
                if (s->ops[i].kind == MC_COLL_RECV)
                    in += s->ops[i].bytes;
                if (s->ops[i].kind == MC_COLL_REDUCE)
                    red += s->ops[i].bytes;
            }
            if (red && !reducing)
                return model_fail(m, "rank %d round %d: REDUCE in a non-reduction (op %d)", r, k,
                                  op);
            if (red > 2 * in)
                return model_fail(m, "rank %d round %d: reduces more than it received (%d)", r,
                                  k, (int)red);
        }
    }
    return 0;
}

/* Builds all ranks' schedules with args[r] and runs them. 0 or -1 (m->why). */
static int model_exec(model *m, const mc_coll_alg *alg, const mc_coll_args *args, int P)
{
    memset(m, 0, sizeof *m);
    m->P = P;
    CHECK(P >= 1 && P <= MODEL_MAXP);
    for (int r = 0; r < P; r++) {
        mc_error err = {0};
        if (mc_coll_build(alg, &args[r], &m->s[r], &err) != MC_OK)
            return model_fail(m, "build failed on rank %d (%d%d)", r, 0, 0);
    }
    if (model_match(m) || model_run(m))
        return -1;
    return model_check_reduces(m, mc_coll_blocking_op(args[0].op));
}

static void model_free(model *m)
{
    for (int r = 0; r < m->P; r++) {
        mc_coll_sched_free(&m->s[r]);
        free(m->match_round[r]);
        free(m->entry[r]);
    }
}

static uint64_t model_full(int P)
{
    return P >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << P) - 1;
}

#endif
