/* A rank that fork()s with events still in its buffer (issue 26): the
 * child must not write the parent's events again. Exactly 2 ranks.
 * usage: trace_fork N   (N messages from rank 0 to rank 1 before the fork;
 * after it, N more and a Barrier) */
#include <mpi.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void messages(int rank, int n)
{
    int buf = 0;
    for (int i = 0; i < n; i++) {
        if (rank == 0)
            MPI_Send(&buf, 1, MPI_INT, 1, i, MPI_COMM_WORLD);
        else
            MPI_Recv(&buf, 1, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 10;
    if (size != 2 || n < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    messages(rank, n);
    pid_t pid = fork();
    if (pid == 0)
        exit(0); /* exit(), not _exit(): the atexit handlers run in the child */
    if (pid > 0)
        waitpid(pid, NULL, 0);
    messages(rank, n);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return pid < 0;
}
