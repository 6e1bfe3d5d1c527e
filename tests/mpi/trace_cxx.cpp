// A C++ program for the tracer's call-site names: MPI calls made from a
// namespaced member function and a template, whose mangled symbols
// (_ZN7physics6Solver8exchangeEi, ...) must reach meta.json demangled.
#include <mpi.h>
#include <cstdio>

namespace physics {
struct Solver {
    int rank = 0, size = 1;
    void exchange(int tag)
    {
        int v = rank, w = 0;
        MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, tag, &w, 1, MPI_INT,
                     (rank + size - 1) % size, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
};

template <typename T> T total(T x)
{
    T y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return y;
}
} // namespace physics

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    physics::Solver s;
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    for (int i = 0; i < 3; i++)
        s.exchange(i);
    double t = physics::total<double>(1.0);
    if (s.rank == 0)
        std::printf("total %g\n", t);
    MPI_Finalize();
    return 0;
}
