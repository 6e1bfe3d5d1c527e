#!/usr/bin/env bash
# OTF2 export -> import keeps the communicators (issue 21 item 6): fft at 4
# ranks (Comm_split, Comm_free) and halo2d at 4 ranks (Cart_create) traced
# with Open MPI, exported and imported: meta.json's communicators are equal,
# every communicator call comes back with its comm, colour, key, members,
# shape and new communicator (`dump --no-times`; fft: the whole dump except
# the call sites, which OTF2 does not carry), and `extrapolate` of the
# imported fft trace writes the same trace as of the original.
# usage: test_otf2_roundtrip_comms.sh MPICAST FFT HALO2D
set -euo pipefail
M=$1 FFT=$2 HALO=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
T=$(mktemp -d /tmp/mc_otf2comm_XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
nosite() { "$M" dump --no-times "$1" | sed 's/ site=[0-9a-f]*//'; }
for ex in fft halo; do
    exe=$FFT; [ $ex = halo ] && exe=$HALO
    "$M" trace -o "$T/$ex" -- mpirun --oversubscribe -np 4 "$exe" > /dev/null
    "$M" export otf2 "$T/$ex" -o "$T/$ex.otf2" --quiet
    "$M" import otf2 "$T/$ex.otf2/traces.otf2" -o "$T/$ex.back" --quiet
    python3 - "$T/$ex/meta.json" "$T/$ex.back/meta.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["communicators"] for p in sys.argv[1:])
key = lambda c: c["id"]
assert len(a) > 2, f"only {len(a)} communicators traced"
assert sorted(a, key=key) == sorted(b, key=key), (a, b)
PY
    nosite "$T/$ex" > "$T/$ex.a"
    nosite "$T/$ex.back" > "$T/$ex.b"
    made=$(grep -cE ' (Comm_split|Cart_create|Comm_free) ' "$T/$ex.a" || true)
    [ "$made" -ge 4 ] || fail "$ex: only $made communicator calls traced"
    diff <(grep -E ' (Comm_split|Cart_create|Comm_free) ' "$T/$ex.a") \
         <(grep -E ' (Comm_split|Cart_create|Comm_free) ' "$T/$ex.b") \
        || fail "$ex: communicator calls differ after the round trip"
    # every event is on the same communicator
    diff <(grep -o '^[0-9]* [A-Za-z_]* comm=[^ ]*' "$T/$ex.a") \
         <(grep -o '^[0-9]* [A-Za-z_]* comm=[^ ]*' "$T/$ex.b") \
        || fail "$ex: an event's communicator differs after the round trip"
done
grep -q ' Cart_create .*newcomm=.*vals=0,1,2,3,2,2,2' "$T/halo.b" || fail "halo: no 2x2 Cartesian shape"
diff "$T/fft.a" "$T/fft.b" || fail "fft: dump differs after the round trip"
"$M" extrapolate "$T/fft" --ranks 8 -o "$T/fft.x" 2> "$T/err" || { cat "$T/err"; fail "extrapolate of the trace"; }
"$M" extrapolate "$T/fft.back" --ranks 8 -o "$T/fft.back.x" 2> "$T/err" \
    || { cat "$T/err"; fail "extrapolate of the round trip"; }
diff <(nosite "$T/fft.x") <(nosite "$T/fft.back.x") > /dev/null || fail "extrapolations differ"
[ "$(nosite "$T/fft.x" | cut -d' ' -f1 | sort -un | wc -l)" -eq 8 ] || fail "extrapolation is not 8 ranks"
echo ok
