/* The simulated run's timeline: every slice goes to the caller's sink
 * (mc_sim_options.slice, exact picoseconds) and/or as Chrome trace-event
 * JSON (viewable in Perfetto) to mc_sim_options.timeline:
 * one process, one thread (track) per rank; complete ("X") slices of
 * category compute, mpi (a whole MPI call, named after it), comm (CPU work
 * for MPI inside or outside a call: send, recv, reduce, Test, Iprobe) and
 * wait (the parts of a call not covered by comm slices). Times in us. */
#include "sim_internal.h"

void sim_tl_begin(sim *S)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", S->tl);
    fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"mpicast predict\"}}",
          S->tl);
    for (int r = 0; r < S->n; r++)
        fprintf(S->tl,
                ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
                "\"args\":{\"name\":\"rank %d\"}}",
                r, r);
    S->tl_first = 0;
}

void sim_tl_slice(sim *S, int r, const char *name, const char *cat, int64_t t0, int64_t t1)
{
    if (t1 < t0)
        return;
    if (S->slice)
        S->slice(S->slice_ctx, r, name, cat, t0, t1);
    if (!S->tl)
        return;
    fprintf(S->tl,
            ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,"
            "\"ts\":%.6f,\"dur\":%.6f}",
            name, cat, r, (double)t0 * 1e-6, (double)(t1 - t0) * 1e-6);
}

void sim_tl_end(sim *S)
{
    fputs("\n]}\n", S->tl);
}
