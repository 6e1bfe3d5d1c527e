/* mpicast _profile-rank — internal: one rank of `mpicast trace --mode
 * profile`. The launcher starts this instead of the program
 * (`mpirun -np N mpicast _profile-rank DIR RATE ./app ARGS`); it runs
 *
 *     valgrind --tool=lackey --trace-mem=yes --log-fd=W ./app ARGS
 *
 * with W the write end of a pipe whose read end it analyses as the data
 * arrives (src/profile/analyse.c), so the access stream — gigabytes for a
 * short run — never touches the disk. The rank's profile (site ids as
 * keys) goes to DIR/cpu-profile-rank-N.txt only when the program exited 0
 * and reached MPI_Finalize; `mpicast trace` then joins the ranks' files
 * with the trace's site keys into DIR/cpu-profile.txt. Exit status: the
 * program's (as valgrind reports it), 128+N if it was killed by signal N. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "mpicast/outfile.h"
#include "mpicast/profile.h"

/* The child: valgrind with lackey, its log on fd `w`; dies with us. */
static void exec_valgrind(int w, pid_t parent, char **prog)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(128 + SIGKILL);
    char logfd[32];
    snprintf(logfd, sizeof logfd, "--log-fd=%d", w);
    int n = 0;
    while (prog[n])
        n++;
    char **argv = calloc((size_t)n + 7, sizeof *argv);
    if (!argv)
        _exit(127);
    int k = 0;
    argv[k++] = "valgrind";
    argv[k++] = "--tool=lackey";
    argv[k++] = "--trace-mem=yes";
    argv[k++] = "--trace-sched=yes"; /* thread switches: only the MPI thread counts */
    argv[k++] = logfd;
    for (int i = 0; i < n; i++)
        argv[k++] = prog[i];
    argv[k] = NULL;
    execvp("valgrind", argv);
    fprintf(stderr, "mpicast: valgrind: cannot run: %s\n", strerror(errno));
    _exit(127);
}

static int write_rank_file(const char *dir, mc_prof *p, int rank)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/cpu-profile-rank-%d.txt", dir, rank);
    mc_out o = {0};
    mc_error err = {0};
    if (mc_out_open(&o, path, MC_OUT_PRIVATE, &err) != MC_OK)
        return cli_fail(&err);
    if (mc_prof_write(p, o.f, &err) != MC_OK) {
        mc_out_abort(&o);
        return cli_fail(&err);
    }
    if (mc_out_commit(&o, &err) != MC_OK)
        return cli_fail(&err);
    return 0;
}

/* MPICAST_PROFILE_STATS=1 (bench/profile_overhead.py): what the analyser
 * cost next to Valgrind, on stderr. */
static void print_stats(const mc_prof_result *res)
{
    const char *e = getenv("MPICAST_PROFILE_STATS");
    if (!e || strcmp(e, "1") != 0)
        return;
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    double cs = (double)self.ru_utime.tv_sec + (double)self.ru_stime.tv_sec +
                (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
    double ck = (double)kids.ru_utime.tv_sec + (double)kids.ru_stime.tv_sec +
                (double)(kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
    fprintf(stderr, "mpicast: profile stats: rank %d lines %llu analyser_cpu_s %.2f "
            "analyser_maxrss_kib %ld valgrind_cpu_s %.2f valgrind_maxrss_kib %ld\n",
            res->rank, (unsigned long long)res->lines_read, cs, self.ru_maxrss, ck,
            kids.ru_maxrss);
}

int cmd_profile_rank(int argc, char **argv)
{
    if (argc < 4)
        return cli_usage_error("_profile-rank: internal command of 'mpicast trace --mode "
                               "profile' (DIR RATE PROGRAM [ARGS...])");
    const char *dir = argv[1];
    char *end;
    double rate = strtod(argv[2], &end);
    if (*end || !(rate > 0 && rate <= 1))
        return cli_usage_error("_profile-rank: bad sample rate '%s'", argv[2]);
    int fds[2];
    if (pipe(fds) != 0) {
        fprintf(stderr, "mpicast: pipe: %s\n", strerror(errno));
        return CLI_BAD_INPUT;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mpicast: fork: %s\n", strerror(errno));
        return CLI_BAD_INPUT;
    }
    if (pid == 0)
        exec_valgrind(fds[1], parent, argv + 3);
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    static char buf[1 << 20];
    if (in)
        setvbuf(in, buf, _IOFBF, sizeof buf);
    mc_prof_opts opts = {rate};
    mc_prof_result res;
    mc_error err = {0};
    mc_prof *p = in ? mc_prof_analyse(in, &opts, &res, &err) : NULL;
    if (in)
        fclose(in);
    else
        close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status)
             : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : CLI_BAD_INPUT;
    if (p)
        print_stats(&res);
    if (!p) {
        cli_fail(&err);
        return rc ? rc : CLI_BAD_INPUT;
    }
    /* Only a whole run is a profile: a failed rank leaves no file, and
     * `mpicast trace` then writes no cpu-profile.txt. */
    if (rc == 0 && res.rank >= 0 && res.finalized && write_rank_file(dir, p, res.rank) != 0)
        rc = CLI_BAD_INPUT;
    if (rc == 0 && res.rank < 0)
        fprintf(stderr, "mpicast: _profile-rank: no tracer markers in the access stream "
                "(not an MPI program, or the tracer was built without valgrind.h)\n");
    mc_prof_destroy(p);
    return rc;
}
