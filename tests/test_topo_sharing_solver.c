/* The topo model's sharing solver (src/net/topo_share.c) on systems solved
 * by hand, driven through topo_solver.h without the simulator: two flows
 * on one link, a parking-lot chain, a tapered tree and a tree with a flow
 * held back elsewhere. Max-min fairness gives each flow the values below;
 * exact must reach them from any start, local, bottleneck and route when
 * the flows start together and, on these systems, one by one too. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#define MPICAST_NET_INTERNAL /* white-box: the solver's internal interface */
#include "net/topo_solver.h"

#define C 5e-3 /* link capacity, B/ps (5 GB/s) */
#define NMODES 4
static const char *const modes[NMODES] = {"exact", "local", "bottleneck", "route"};

static void check_rate(double got, double want, const char *mode, int flow)
{
    if (!(fabs(got - want) <= 1e-12 * want)) {
        fprintf(stderr, "%s: flow %d at %.17g, expected %.17g\n", mode, flow, got, want);
        CHECK(0);
    }
}

/* A system: links with capacities, flows with routes, the max-min rates. */
typedef struct sys {
    int nlinks, nflows;
    double cap[16];
    int32_t route[16][16];
    int nroute[16];
    double want[16];
} sys;

/* Every flow started together, rated once. */
static void check_together(const sys *s, const char *mode)
{
    const int32_t *routes[16];
    for (int i = 0; i < s->nflows; i++)
        routes[i] = s->route[i];
    double rate[16];
    mc_error err = {0};
    CHECK_EQ_INT(topo_solve(s->cap, s->nlinks, s->nflows, routes, s->nroute, mode, rate, &err),
                 MC_OK);
    for (int i = 0; i < s->nflows; i++)
        check_rate(rate[i], s->want[i], mode, i);
}

/* The flows started one by one in the order given, each start rated
 * alone, as the model rates starts at different instants. */
static void check_one_by_one(const sys *s, const char *mode, const int *order)
{
    mc_error err = {0};
    topo_solver *v = topo_solver_create(s->cap, s->nlinks, 16, mode, &err);
    CHECK(v != NULL);
    int32_t id[16];
    for (int k = 0; k < s->nflows; k++) {
        int i = order[k];
        id[i] = topo_solver_start(v, s->route[i], s->nroute[i]);
        CHECK(id[i] >= 0);
        CHECK_EQ_INT(topo_solver_rate(v), 0);
    }
    for (int i = 0; i < s->nflows; i++)
        check_rate(topo_solver_rate_of(v, id[i]), s->want[i], mode, i);
    topo_solver_destroy(v);
}

static void check_all(const sys *s, const int *order)
{
    for (int m = 0; m < NMODES; m++) {
        check_together(s, modes[m]);
        check_one_by_one(s, modes[m], order);
    }
}

/* Two flows on one link: C/2 each; when one ends, the other gets C. */
static void two_flows_one_link(void)
{
    sys s = {.nlinks = 1, .nflows = 2, .cap = {C}, .nroute = {1, 1}, .want = {C / 2, C / 2}};
    check_all(&s, (int[]){0, 1});
    for (int m = 0; m < NMODES; m++) {
        mc_error err = {0};
        topo_solver *v = topo_solver_create(s.cap, 1, 1, modes[m], &err);
        CHECK(v != NULL);
        int32_t a = topo_solver_start(v, s.route[0], 1);
        CHECK_EQ_INT(topo_solver_rate(v), 0);
        check_rate(topo_solver_rate_of(v, a), C, modes[m], 0); /* alone: all of it */
        int32_t b = topo_solver_start(v, s.route[1], 1);
        CHECK_EQ_INT(topo_solver_rate(v), 0);
        check_rate(topo_solver_rate_of(v, b), C / 2, modes[m], 1);
        CHECK_EQ_INT(topo_solver_end(v, a), 0);
        CHECK_EQ_INT(topo_solver_rate(v), 0);
        CHECK(isnan(topo_solver_rate_of(v, a)));
        check_rate(topo_solver_rate_of(v, b), C, modes[m], 1);
        topo_solver_destroy(v);
    }
}

/* Parking lot: n links in a row, a long flow over all of them and a short
 * one on each: every link is shared by two flows, every flow gets C/2. */
static void parking_lot(void)
{
    enum { N = 5 };
    sys s = {.nlinks = N, .nflows = N + 1};
    for (int l = 0; l < N; l++) {
        s.cap[l] = C;
        s.route[0][l] = l;
        s.route[1 + l][0] = l;
        s.nroute[1 + l] = 1;
    }
    s.nroute[0] = N;
    for (int i = 0; i <= N; i++)
        s.want[i] = C / 2;
    check_all(&s, (int[]){0, 1, 2, 3, 4, 5});
    check_all(&s, (int[]){5, 3, 1, 0, 2, 4}); /* the long flow amid the short ones */
}

/* A tree: 4 leaf links of capacity C into an uplink of capacity up; flow i
 * over leaf i and the uplink. Flow 0 crosses a slow link (C/8) first
 * when slow is set. */
static sys tree(double up, int slow)
{
    sys s = {.nlinks = 6, .nflows = 4, .cap = {C, C, C, C, up, C / 8}};
    for (int i = 0; i < 4; i++) {
        s.route[i][0] = i;
        s.route[i][1] = 4;
        s.nroute[i] = 2;
    }
    if (slow) {
        s.route[0][2] = 5;
        s.nroute[0] = 3;
    }
    return s;
}

static void tapered_tree(void)
{
    /* uplink as fast as a leaf (tapered 4:1): C/4 each */
    sys s = tree(C, 0);
    for (int i = 0; i < 4; i++)
        s.want[i] = C / 4;
    check_all(&s, (int[]){0, 1, 2, 3});
    /* tapered 2:1: the uplink holds them at 2C/4 */
    s = tree(2 * C, 0);
    for (int i = 0; i < 4; i++)
        s.want[i] = 2 * C / 4;
    check_all(&s, (int[]){3, 2, 1, 0});
    /* flow 0 held at C/8 by its slow link: the other three share the rest
     * of the uplink, (C - C/8) / 3 = 7C/24 each, more than C/4 */
    s = tree(C, 1);
    s.want[0] = C / 8;
    for (int i = 1; i < 4; i++)
        s.want[i] = 7 * C / 24;
    check_all(&s, (int[]){0, 1, 2, 3});
    check_all(&s, (int[]){1, 2, 3, 0});
}

/* What the interface refuses: more capacity classes than the model has, a
 * route naming no link or one twice. */
static void refusals(void)
{
    mc_error err = {0};
    const double caps[4] = {C, 2 * C, 3 * C, 4 * C};
    CHECK(topo_solver_create(caps, 4, 2, "exact", &err) == NULL);
    CHECK_EQ_INT(err.code, MC_ERR_PLATFORM);
    topo_solver *v = topo_solver_create(caps, 3, 2, "exact", &err);
    CHECK(v != NULL);
    CHECK_EQ_INT(topo_solver_start(v, (int32_t[]){0, 0}, 2), -1);
    CHECK_EQ_INT(topo_solver_start(v, (int32_t[]){3}, 1), -1);
    CHECK_EQ_INT(topo_solver_end(v, 0), -1);
    topo_solver_destroy(v);
}

int main(void)
{
    two_flows_one_link();
    parking_lot();
    tapered_tree();
    refusals();
    printf("ok\n");
    return 0;
}
