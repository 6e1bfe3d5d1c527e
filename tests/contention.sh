# Sourced by the bench tests: did something outside the test compete for
# the cores while it measured? The 1-minute load average lags by tens of
# seconds, so it misses a burst; this samples what the kernel reports now:
#  - runnable tasks (/proc/stat procs_running) beyond the test's own busy
#    ranks and the sampler, in more than a quarter of the samples (start-up
#    and MPI_Init alone reach 10-15 % on an idle 2-core machine);
#  - time stolen by the hypervisor (the cpu line's steal) above 2 %.
# contention_start before a measured run, contention_stop right after it,
# then contended (exit 0: yes, the reason in $contention_why). Needs $tmp.
#   contention_start 2; mpirun ...; contention_stop; ...; contended && skip
contention_start() { # OWN: runnable tasks the test itself keeps (its ranks)
    contention_own=$1
    contention_cpu0=$(awk '/^cpu / { print $2+$3+$4+$5+$6+$7+$8+$9, $9; exit }' /proc/stat)
    ( while :; do
          awk '/^procs_running/ { print $2 }' /proc/stat
          sleep 0.02
      done > "$tmp/running" ) &
    contention_pid=$!
}
contention_stop() {
    kill "$contention_pid" 2> /dev/null || true
    wait "$contention_pid" 2> /dev/null || true
    contention_pid=
    contention_cpu1=$(awk '/^cpu / { print $2+$3+$4+$5+$6+$7+$8+$9, $9; exit }' /proc/stat)
}
contended() {
    local limit=$((contention_own + 1)) # + the sampler's awk
    contention_why=$(awk -v lim="$limit" -v c0="$contention_cpu0" -v c1="$contention_cpu1" '
        $1 > lim { busy++ } { n++ }
        END {
            split(c0, a, " "); split(c1, b, " ")
            steal = b[1] > a[1] ? (b[2] - a[2]) / (b[1] - a[1]) : 0
            if (n && busy / n > 0.25)
                printf "other tasks runnable beside the ranks in %d of %d samples", busy, n
            else if (steal > 0.02)
                printf "%.0f %% of the CPU time stolen by the hypervisor", 100 * steal
        }' "$tmp/running")
    [ -n "$contention_why" ]
}
