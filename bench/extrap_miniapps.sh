#!/usr/bin/env bash
# The mini-apps of issue 20 at a large process count (docs/extrapolation.md,
# "Performance"): each is traced at small P (Open MPI, oversubscribed), extrapolated
# to P (default 65536) and predicted with --no-breakdown; prints wall seconds and
# peak RSS of each step and the predicted time. A report, not a test.
#
# usage: bench/extrap_miniapps.sh BUILD_DIR [P] [NAME...]
#   NAME: wavefront cg2d cg_log2 mg mg_f halo2d_ceil fft (default: all but fft, whose
#   all-to-alls need about 2 GiB at 65536 ranks)
set -euo pipefail
build=${1:?usage: extrap_miniapps.sh BUILD_DIR [P] [NAME...]}
P=${2:-65536}
shift $(( $# >= 2 ? 2 : 1 ))
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(wavefront cg2d cg_log2 mg mg_f halo2d_ceil)
mpicast=$build/bin/mpicast
ex=$build/examples
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d /tmp/mc_miniapps_XXXXXX)
trap 'rm -rf "$work"' EXIT

# name: program, arguments, traced process counts
declare -A prog args small
prog[wavefront]=wavefront; args[wavefront]="-s 16 -i 2"; small[wavefront]="9"
prog[cg2d]=cg2d; args[cg2d]="-s 16 -i 2"; small[cg2d]="4 8 16"
prog[cg_log2]=cg_log2; args[cg_log2]="-s 16 -i 2 -x"; small[cg_log2]="4 8 16"
prog[fft]=fft; args[fft]="-s 8 -i 2 -V"; small[fft]="4 8 16"
prog[mg]=mg; args[mg]="-s 16 -i 2 -c"; small[mg]="16 64"
prog[mg_f]=mg_f; args[mg_f]="-s 16 -i 2 -c"; small[mg_f]="16 64"
# a fixed 1000 x 1000 grid in ceil blocks (3 x 3: 334 334 332; 6 x 6: 167 x 5, 165)
prog[halo2d_ceil]=halo2d; args[halo2d_ceil]="-s 1000 -i 2 -S -F"; small[halo2d_ceil]="9 36"

timed() { # label, command...: "label: W s, M MiB" on stderr
    local label=$1
    shift
    /usr/bin/time -f "$label %e %M" "$@" 2>"$work/time" >"$work/out" || {
        cat "$work/time" >&2
        return 1
    }
    tail -1 "$work/time"
}

printf '%-10s %-8s %-22s %-22s %s\n' mini-app traced extrapolate predict "predicted time"
for n in "${names[@]}"; do
    exe=$ex/${prog[$n]}
    [ -x "$exe" ] || { echo "$n: $exe not built, skipped"; continue; }
    traces=()
    for p in ${small[$n]}; do
        d=$work/$n-$p
        # shellcheck disable=SC2086
        "$mpicast" trace -o "$d" -- mpirun.openmpi --oversubscribe -np "$p" "$exe" ${args[$n]} \
            >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
        traces+=("$d")
    done
    if [ ${#traces[@]} -eq 1 ]; then # streamed: predict --ranks
        ext="(streamed)"
        read -r _ w m < <(timed predict "$mpicast" predict "${traces[0]}" --ranks "$P" --no-breakdown --json)
    else
        read -r _ we me < <(timed extrapolate "$mpicast" extrapolate "${traces[@]}" --ranks "$P" -o "$work/$n-x")
        ext=$(printf '%s s, %d MiB' "$we" $((me / 1024)))
        read -r _ w m < <(timed predict "$mpicast" predict "$work/$n-x" --no-breakdown --json)
        rm -rf "$work/$n-x"
    fi
    t=$(python3 -c 'import json,sys; print("%.4f ms" % (1e3 * json.load(open(sys.argv[1]))["predicted_time"]))' "$work/out")
    printf '%-10s %-8s %-22s %-22s %s\n' "$n" "${small[$n]// /,}" "$ext" \
        "$(printf '%s s, %d MiB' "$w" $((m / 1024)))" "$t"
    rm -rf "$work/$n"-*
done
