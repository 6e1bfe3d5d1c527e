#!/usr/bin/env bash
# Runs every libFuzzer target of BUILD for SECONDS each, one after the other
# (one process each: the machine is shared). The corpus grows in
# BUILD/fuzz/corpus/<target>; a crash, leak, timeout or out-of-memory input
# (one input over 60 s or 1 GiB) is saved as BUILD/fuzz/crashes/<target>-* and
# the script exits 1.
# usage: fuzz/run.sh BUILD SECONDS [TARGET...]
set -uo pipefail
build=${1:?usage: fuzz/run.sh BUILD SECONDS [TARGET...]}
secs=${2:?usage: fuzz/run.sh BUILD SECONDS [TARGET...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(rank_file meta tit replay platform model)
  for t in extrap_rules cpu_profile dumpi; do
    [ -x "$build/fuzz/fuzz_$t" ] && targets+=("$t")
  done
fi
mkdir -p "$build/fuzz/crashes"
# absolute paths: the targets change into a private temporary directory
out=$(cd "$build/fuzz" && pwd)
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
for t in "${targets[@]}"; do
  corpus="$out/corpus/$t"
  mkdir -p "$corpus"
  extra=()
  [ -d "$here/regress/$t" ] && extra+=("$here/regress/$t")
  log="$out/$t.log"
  start=$(date +%s)
  "$out/fuzz_$t" "$corpus" "$out/seeds/$t" "${extra[@]}" \
      -max_total_time="$secs" -timeout=60 -rss_limit_mb=1024 -malloc_limit_mb=1024 \
      -close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$out/crashes/$t-" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "fuzz $t: ${runs:-?} runs in $(( $(date +%s) - start )) s, $cov, corpus $(ls "$corpus" | wc -l) files, exit $rc"
  if [ $rc -ne 0 ]; then
    failed=1
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written|#[0-9]+ +0x' "$log" | head -30
  fi
done
exit $failed
