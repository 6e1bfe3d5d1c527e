#!/usr/bin/env bash
# The replay loop's prefetches must reach the machine code. GCC treats a
# function that only reads memory and prefetches as pure and drops calls to
# it: from session 1 to 3, sim_prefetch_ahead compiled to nothing and every
# "prefetching changed nothing" measurement measured no prefetching at all.
# This fails if the run loop (mc_sim_run, with sim_prefetch_ahead inlined, or
# beside it in an unoptimised build) holds fewer prefetch instructions than
# the stages of sim_prefetch_ahead issue.
set -euo pipefail
: "${MPICAST:?}"
case "$(uname -m)" in
  x86_64) insn='prefetch' ;;
  aarch64) insn='prfm' ;;
  *) echo "SKIP: no prefetch mnemonic known for $(uname -m)"; exit 77 ;;
esac
command -v objdump >/dev/null || { echo "SKIP: no objdump"; exit 77; }
n=$(objdump -d --no-show-raw-insn "$MPICAST" |
    awk '/^[0-9a-f]+ <(mc_sim_run|sim_p[a-z_]*[.a-z0-9]*)>:$/ { in_fn = 1; next }
         /^[0-9a-f]+ <.*>:$/ { in_fn = 0 }
         in_fn' | grep -c "$insn" || true)
echo "run loop: $n prefetch instructions"
if [ "$n" -lt 4 ]; then
  echo "FAIL: the run loop's prefetches were compiled away (see sim_prefetch_ahead)"
  exit 1
fi
