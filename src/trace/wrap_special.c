/* mpicast tracer — the hand-written wrappers (Init, Init_thread, Finalize,
 * Pcontrol, Abort; C and Fortran) and the Fortran support the generated
 * wrappers use. */
#include "tracer.h"

#include <dlfcn.h>
#include <stddef.h>

/* ------------------------------------------------------------ Fortran support */

void *mct_f_resolve(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    return p ? p : dlsym(RTLD_DEFAULT, name);
}

/* The Fortran MPI_IN_PLACE / MPI_BOTTOM are addresses of common-block
 * variables, known only to the library's Fortran layer. */
const void *mct_f_buf(const void *p)
{
#if defined(OPEN_MPI)
    static const void *in_place, *bottom;
    static int looked;
    if (!looked) {
        in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
        bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
        looked = 1;
    }
    if (p && p == in_place)
        return MPI_IN_PLACE;
    if (p && p == bottom)
        return MPI_BOTTOM;
#elif defined(MPICH)
    static void *const *in_place, *const *bottom;
    static int looked;
    if (!looked) {
        in_place = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE");
        bottom = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_BOTTOM");
        looked = 1;
    }
    if (p && in_place && p == *in_place)
        return MPI_IN_PLACE;
    if (p && bottom && p == *bottom)
        return MPI_BOTTOM;
#endif
    return p;
}

int mct_f_status_ignore(const MPI_Fint *s)
{
    return s == MPI_F_STATUS_IGNORE;
}

int mct_f_statuses_ignore(const MPI_Fint *s)
{
    return s == MPI_F_STATUSES_IGNORE;
}

#if defined(MPICH)
int mct_f08_status_ignore(const MPI_Fint *s)
{
    return (const void *)s == (const void *)MPI_F08_STATUS_IGNORE;
}

int mct_f08_statuses_ignore(const MPI_Fint *s)
{
    return (const void *)s == (const void *)MPI_F08_STATUSES_IGNORE;
}
#endif

typedef void (*f_ierr_fn)(MPI_Fint *);
typedef void (*f_init_thread_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_abort_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* ------------------------------------------------------------ Init */

static int thread_level(void)
{
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    return level;
}

MCT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    if (mct_inside || mct_state != MCT_OFF)
        return PMPI_Init(argc, argv);
    int64_t t0 = mct_clock_start();
    mct_inside = 1;
    int rc = PMPI_Init(argc, argv);
    mct_inside = 0;
    if (rc == MPI_SUCCESS)
        mct_after_init(t0, MC_OP_INIT, MCT_RETADDR(), thread_level());
    return rc;
}

MCT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (mct_inside || mct_state != MCT_OFF)
        return PMPI_Init_thread(argc, argv, required, provided);
    int64_t t0 = mct_clock_start();
    mct_inside = 1;
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    mct_inside = 0;
    if (rc == MPI_SUCCESS)
        mct_after_init(t0, MC_OP_INIT, MCT_RETADDR(), *provided);
    return rc;
}

MCT_EXPORT void mpi_init_(MPI_Fint *ierr)
{
    f_ierr_fn real = (f_ierr_fn)mct_f_resolve("pmpi_init_");
    if (!real) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    if (mct_inside || mct_state != MCT_OFF) {
        real(ierr);
        return;
    }
    int64_t t0 = mct_clock_start();
    mct_inside = 1;
    real(ierr);
    mct_inside = 0;
    if (*ierr == MPI_SUCCESS)
        mct_after_init(t0, MC_OP_INIT, MCT_RETADDR(), thread_level());
}
MCT_EXPORT void mpi_init(MPI_Fint *) __attribute__((alias("mpi_init_")));
MCT_EXPORT void mpi_init__(MPI_Fint *) __attribute__((alias("mpi_init_")));
MCT_EXPORT void MPI_INIT(MPI_Fint *) __attribute__((alias("mpi_init_")));
#ifdef OPEN_MPI
MCT_EXPORT void ompi_init_f(MPI_Fint *) __attribute__((alias("mpi_init_")));
#endif

MCT_EXPORT void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    f_init_thread_fn real = (f_init_thread_fn)mct_f_resolve("pmpi_init_thread_");
    if (!real) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    if (mct_inside || mct_state != MCT_OFF) {
        real(required, provided, ierr);
        return;
    }
    int64_t t0 = mct_clock_start();
    mct_inside = 1;
    real(required, provided, ierr);
    mct_inside = 0;
    if (*ierr == MPI_SUCCESS)
        mct_after_init(t0, MC_OP_INIT, MCT_RETADDR(), (int)*provided);
}
MCT_EXPORT void mpi_init_thread(MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_init_thread_")));
MCT_EXPORT void mpi_init_thread__(MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_init_thread_")));
MCT_EXPORT void MPI_INIT_THREAD(MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_init_thread_")));
#ifdef OPEN_MPI
MCT_EXPORT void ompi_init_thread_f(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_init_thread_")));
#endif

/* ------------------------------------------------------------ Finalize */

MCT_EXPORT int MPI_Finalize(void)
{
    mct_frame f;
    if (!mct_enter(&f, MC_OP_FINALIZE, MCT_RETADDR()))
        return PMPI_Finalize();
    mctk_finalize();
    mct_before_finalize(&f);
    int rc = PMPI_Finalize();
    mct_after_finalize(&f);
    return rc;
}

MCT_EXPORT void mpi_finalize_(MPI_Fint *ierr)
{
    f_ierr_fn real = (f_ierr_fn)mct_f_resolve("pmpi_finalize_");
    if (!real) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    mct_frame f;
    if (!mct_enter(&f, MC_OP_FINALIZE, MCT_RETADDR())) {
        real(ierr);
        return;
    }
    mctk_finalize();
    mct_before_finalize(&f);
    real(ierr);
    mct_after_finalize(&f);
}
MCT_EXPORT void mpi_finalize(MPI_Fint *) __attribute__((alias("mpi_finalize_")));
MCT_EXPORT void mpi_finalize__(MPI_Fint *) __attribute__((alias("mpi_finalize_")));
MCT_EXPORT void MPI_FINALIZE(MPI_Fint *) __attribute__((alias("mpi_finalize_")));
#ifdef OPEN_MPI
MCT_EXPORT void ompi_finalize_f(MPI_Fint *) __attribute__((alias("mpi_finalize_")));
#endif

/* ------------------------------------------------------------ Pcontrol */

MCT_EXPORT int MPI_Pcontrol(const int level, ...)
{
    mct_pcontrol(level, MCT_RETADDR());
    return MPI_SUCCESS;
}

/* The Fortran MPI_PCONTROL(LEVEL) has no IERROR argument. */
MCT_EXPORT void mpi_pcontrol_(MPI_Fint *level)
{
    mct_pcontrol((int)*level, MCT_RETADDR());
}
MCT_EXPORT void mpi_pcontrol(MPI_Fint *) __attribute__((alias("mpi_pcontrol_")));
MCT_EXPORT void mpi_pcontrol__(MPI_Fint *) __attribute__((alias("mpi_pcontrol_")));
MCT_EXPORT void MPI_PCONTROL(MPI_Fint *) __attribute__((alias("mpi_pcontrol_")));
#ifdef OPEN_MPI
MCT_EXPORT void ompi_pcontrol_f(MPI_Fint *) __attribute__((alias("mpi_pcontrol_")));
#endif

/* ------------------------------------------------------------ Abort */

/* The run dies inside PMPI_Abort: write what we have first. */
MCT_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    mct_flush_now();
    return PMPI_Abort(comm, errorcode);
}

MCT_EXPORT void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    mct_flush_now();
    f_abort_fn real = (f_abort_fn)mct_f_resolve("pmpi_abort_");
    if (real)
        real(comm, errorcode, ierr);
    else
        *ierr = PMPI_Abort(PMPI_Comm_f2c(*comm), (int)*errorcode);
}
MCT_EXPORT void mpi_abort(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_abort_")));
MCT_EXPORT void mpi_abort__(MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_abort_")));
MCT_EXPORT void MPI_ABORT(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_abort_")));
#ifdef OPEN_MPI
MCT_EXPORT void ompi_abort_f(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_abort_")));
#endif

/* ------------------------------------------------------------ MPICH mpi_f08 */

#if defined(MPICH)
/* MPICH's mpi_f08 Init/Finalize call PMPI_Init/PMPI_Finalize directly, so
 * they are wrapped by name; every other f08 call reaches the C MPI_ wrappers.
 * Arguments are passed through unchanged (IERROR is optional: maybe NULL). */
typedef void (*f08_1_fn)(void *);
typedef void (*f08_3_fn)(void *, void *, void *);

static int initialized(void)
{
    int flag = 0;
    PMPI_Initialized(&flag);
    return flag;
}

MCT_EXPORT void mpi_init_f08_(void *ierror)
{
    f08_1_fn real = (f08_1_fn)mct_f_resolve("mpi_init_f08_");
    if (!real)
        return;
    if (mct_inside || mct_state != MCT_OFF) {
        real(ierror);
        return;
    }
    int64_t t0 = mct_clock_start();
    mct_inside = 1;
    real(ierror);
    mct_inside = 0;
    if (initialized())
        mct_after_init(t0, MC_OP_INIT, MCT_RETADDR(), thread_level());
}

MCT_EXPORT void mpi_init_thread_f08_(void *required, void *provided, void *ierror)
{
    f08_3_fn real = (f08_3_fn)mct_f_resolve("mpi_init_thread_f08_");
    if (!real)
        return;
    if (mct_inside || mct_state != MCT_OFF) {
        real(required, provided, ierror);
        return;
    }
    int64_t t0 = mct_clock_start();
    mct_inside = 1;
    real(required, provided, ierror);
    mct_inside = 0;
    if (initialized())
        mct_after_init(t0, MC_OP_INIT, MCT_RETADDR(), thread_level());
}

MCT_EXPORT void mpi_finalize_f08_(void *ierror)
{
    f08_1_fn real = (f08_1_fn)mct_f_resolve("mpi_finalize_f08_");
    if (!real)
        return;
    mct_frame f;
    if (!mct_enter(&f, MC_OP_FINALIZE, MCT_RETADDR())) {
        real(ierror);
        return;
    }
    mctk_finalize();
    mct_before_finalize(&f);
    real(ierror);
    mct_after_finalize(&f);
}

MCT_EXPORT void mpi_pcontrol_f08_(MPI_Fint *level)
{
    mct_pcontrol((int)*level, MCT_RETADDR());
    f08_1_fn real = (f08_1_fn)mct_f_resolve("mpi_pcontrol_f08_");
    if (real)
        real(level);
}

MCT_EXPORT void mpi_abort_f08_(void *comm, void *errorcode, void *ierror)
{
    mct_flush_now();
    f08_3_fn real = (f08_3_fn)mct_f_resolve("mpi_abort_f08_");
    if (real)
        real(comm, errorcode, ierror);
}
#endif
