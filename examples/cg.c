/* cg: conjugate gradients on the 5-point Laplacian of a (SIZE*ranks) x SIZE grid.
 *
 * The grid is cut into horizontal strips of SIZE rows, one per rank (non-periodic).
 * Each iteration exchanges the boundary rows of the search direction with the rank
 * above and the rank below as NAS CG does: MPI_Irecv from each neighbour, MPI_Send to
 * each neighbour, MPI_Wait on each receive (ranks at the top and bottom have one
 * neighbour, a single rank has none); then the matrix-vector product and two dot
 * products, each finished by an MPI_Allreduce of one double. One more Allreduce before
 * the loop computes the initial residual.
 *
 * usage: cg [-s SIZE] [-i ITERS]     (defaults 64, 30) */
#include <math.h>

#include "ex_common.h"

enum { TAG_UP = 1, TAG_DOWN = 2 };

typedef struct {
    int n;            /* rows per rank = columns */
    int up, down;     /* neighbour ranks, -1 if none */
} strip;

/* p has n+2 rows: row 0 and row n+1 are ghosts filled from the neighbours. */
static void exchange_rows(const strip *s, double *p)
{
    MPI_Request req[2];
    int nreq = 0, n = s->n;
    if (s->up >= 0)
        MPI_Irecv(p, n, MPI_DOUBLE, s->up, TAG_DOWN, MPI_COMM_WORLD, &req[nreq++]);
    if (s->down >= 0)
        MPI_Irecv(p + (size_t)(n + 1) * n, n, MPI_DOUBLE, s->down, TAG_UP, MPI_COMM_WORLD,
                  &req[nreq++]);
    if (s->up >= 0)
        MPI_Send(p + n, n, MPI_DOUBLE, s->up, TAG_UP, MPI_COMM_WORLD);
    if (s->down >= 0)
        MPI_Send(p + (size_t)n * n, n, MPI_DOUBLE, s->down, TAG_DOWN, MPI_COMM_WORLD);
    for (int i = 0; i < nreq; i++)
        MPI_Wait(&req[i], MPI_STATUS_IGNORE);
}

/* q = A p on the interior rows; zero Dirichlet values outside the grid. */
static void apply_laplacian(int n, const double *p, double *q)
{
    for (int i = 1; i <= n; i++) {
        for (int j = 0; j < n; j++) {
            const double *c = p + (size_t)i * n + j;
            double left = j > 0 ? c[-1] : 0.0, right = j < n - 1 ? c[1] : 0.0;
            q[(size_t)(i - 1) * n + j] = 4.0 * c[0] - left - right - c[-n] - c[n];
        }
    }
}

static double global_dot(const double *a, const double *b, size_t len)
{
    double local = 0.0, global = 0.0;
    for (size_t k = 0; k < len; k++)
        local += a[k] * b[k];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = 64, .iters = 30};
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i ITERS]", 4096, &args) != 0) {
        MPI_Finalize();
        return 2;
    }
    strip s = {.n = args.size, .up = rank > 0 ? rank - 1 : -1,
               .down = rank < nranks - 1 ? rank + 1 : -1};
    int n = s.n;
    size_t len = (size_t)n * n;
    double *x = ex_alloc(len), *r = ex_alloc(len), *q = ex_alloc(len);
    double *p = ex_alloc(len + 2 * (size_t)n);   /* with ghost rows */
    double *pi = p + n;                            /* p's interior */

    for (size_t k = 0; k < len; k++)
        r[k] = pi[k] = 1.0;   /* b = 1, x = 0 */
    double rr = global_dot(r, r, len);
    for (int it = 0; it < args.iters; it++) {
        exchange_rows(&s, p);
        apply_laplacian(n, p, q);
        double pq = global_dot(pi, q, len);
        double alpha = pq != 0.0 ? rr / pq : 0.0;
        for (size_t k = 0; k < len; k++) {
            x[k] += alpha * pi[k];
            r[k] -= alpha * q[k];
        }
        double rr_new = global_dot(r, r, len);
        double beta = rr != 0.0 ? rr_new / rr : 0.0;
        for (size_t k = 0; k < len; k++)
            pi[k] = r[k] + beta * pi[k];
        rr = rr_new;
    }
    if (rank == 0)
        printf("cg ranks=%d size=%d iters=%d residual=%.6E\n", nranks, n, args.iters, sqrt(rr));
    free(x);
    free(r);
    free(q);
    free(p);
    MPI_Finalize();
    return 0;
}
