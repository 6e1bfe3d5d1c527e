/* master_worker: rank 0 hands out ITERS tasks of SIZE doubles to the other ranks.
 *
 * The master sends one task to each worker (at most ITERS in all), then receives
 * results with MPI_ANY_SOURCE and MPI_ANY_TAG; each result (one double, tag
 * RESULT_TAG + task) is answered with the next task to the worker that sent it, or with
 * an empty message tagged STOP_TAG once no task is left. Task t is sent with tag
 * TASK_TAG + t; workers receive from rank 0 with MPI_ANY_TAG and leave on STOP_TAG.
 * Which worker gets which task depends on timing; the totals do not. With one rank
 * the master does every task itself.
 *
 * usage: master_worker [-s SIZE] [-i TASKS]     (defaults 1024 doubles, 40 tasks) */
#include <math.h>

#include "ex_common.h"

enum { STOP_TAG = 1, TASK_TAG = 100, RESULT_TAG = 20000, MAX_TASKS = 10000 };

/* The task: fill the payload from the task number (master side). */
static void make_task(double *payload, int m, int task)
{
    for (int i = 0; i < m; i++)
        payload[i] = (double)(task + 1) / (i + 1);
}

/* The work (worker side): a few flops per element. */
static double do_task(const double *payload, int m)
{
    double acc = 0.0;
    for (int i = 0; i < m; i++)
        acc += sqrt(payload[i] * payload[i] + 1.0);
    return acc;
}

static void send_task(double *payload, int m, int task, int worker)
{
    make_task(payload, m, task);
    MPI_Send(payload, m, MPI_DOUBLE, worker, TASK_TAG + task, MPI_COMM_WORLD);
}

/* Returns the sum of the results, added in task order so it does not depend on
 * which worker finished first. */
static double master(int m, int ntasks, int nworkers)
{
    double *payload = ex_alloc((size_t)m), *result = ex_alloc((size_t)ntasks);
    int next = 0;
    if (nworkers == 0) {
        for (; next < ntasks; next++) {
            make_task(payload, m, next);
            result[next] = do_task(payload, m);
        }
    }
    for (int w = 1; w <= nworkers && next < ntasks; w++)
        send_task(payload, m, next++, w);
    for (int done = 0; done < ntasks && nworkers > 0; done++) {
        double value;
        MPI_Status st;
        MPI_Recv(&value, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        result[st.MPI_TAG - RESULT_TAG] = value;
        if (next < ntasks)
            send_task(payload, m, next++, st.MPI_SOURCE);
    }
    /* Every worker gets exactly one stop, also a worker that never got a task. */
    for (int w = 1; w <= nworkers; w++)
        MPI_Send(NULL, 0, MPI_DOUBLE, w, STOP_TAG, MPI_COMM_WORLD);
    double sum = 0.0;
    for (int t = 0; t < ntasks; t++)
        sum += result[t];
    free(payload);
    free(result);
    return sum;
}

static void worker(int m)
{
    double *payload = ex_alloc((size_t)m);
    for (;;) {
        MPI_Status st;
        MPI_Recv(payload, m, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == STOP_TAG)
            break;
        double value = do_task(payload, m);
        int task = st.MPI_TAG - TASK_TAG;
        MPI_Send(&value, 1, MPI_DOUBLE, 0, RESULT_TAG + task, MPI_COMM_WORLD);
    }
    free(payload);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ex_args args = {.size = 1024, .iters = 40};
    if (ex_parse_args(argc, argv, "[-s SIZE] [-i TASKS]", 1 << 24, &args) != 0 ||
        args.iters > MAX_TASKS) {
        if (rank == 0 && args.iters > MAX_TASKS)
            fprintf(stderr, "%s: at most %d tasks\n", argv[0], MAX_TASKS);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        double sum = master(args.size, args.iters, nranks - 1);
        printf("master_worker ranks=%d size=%d tasks=%d checksum=%.12E\n", nranks, args.size,
               args.iters, sum);
    } else {
        worker(args.size);
    }
    MPI_Finalize();
    return 0;
}
