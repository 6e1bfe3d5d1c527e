#!/usr/bin/env bash
# The leave-one-out check of extrapolation rules (issue 20 item 2), on the
# cg_log2 mini-app: log2(P) exchange steps inside each of 2 outer iterations.
#
# A hand rule `repeat SITE:LAW` applies to every run of the block when its
# runs repeat alike (one per outer iteration). The right law (log2p) from P=4
# and 8 reproduces the real 16-rank run event for event. A wrong one (p:
# P copies) writes 16 Irecv per rank at P=16 where the real run has 8 when
# given one trace; with two traces (P=4 and 8) the check rebuilds P=8 from
# P=4 and refuses the rule with exit 1, naming the first differing event:
# rank 0, event 11, where the rebuilt trace has a fourth Irecv and the real
# one the Allreduce. With the one trace the pseudo-trace is written, marked
# unchecked in meta.json and by one warning line naming the rule. Inference
# from the same two traces finds the block in every outer iteration and
# reproduces the real P=16 run.
#
# usage: test_extrap_loo_repeat.sh MPICAST CG_LOG2_EXE
set -u
MPICAST=$1
EXE=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for p in 4 8 16; do
    "$MPICAST" trace -o "$tmp/t$p" -- mpirun.openmpi --oversubscribe -np $p "$EXE" -s 16 -i 2 \
        > "$tmp/trace$p.log" 2>&1 || { cat "$tmp/trace$p.log"; fail "trace at P=$p"; }
done
"$MPICAST" dump --no-times "$tmp/t4" > "$tmp/d4" || fail "dump t4"
irecv=$(awk '$1 == 0 && $2 == "Irecv" { sub("site=", "", $NF); print $NF; exit }' "$tmp/d4")
allred=$(awk '$1 == 0 && $2 == "Allreduce" { n++; if (n == 2) { sub("site=", "", $NF); print $NF; exit } }' "$tmp/d4")
[ -n "$irecv" ] && [ -n "$allred" ] || fail "no Irecv/Allreduce site in the P=4 trace"
irecv_count() { "$MPICAST" dump --no-times "$1" | grep -c '^0 Irecv'; }
[ "$(irecv_count "$tmp/t16")" = 8 ] || fail "the real P=16 run has $(irecv_count "$tmp/t16") Irecv on rank 0, expected 8"

# (a) two traces: the wrong rule is refused with the first differing event
out=$("$MPICAST" extrapolate "$tmp/t4" "$tmp/t8" --ranks 16 -o "$tmp/x2" \
      --rule "repeat=$irecv:p" 2>&1)
rc=$?
echo "$out"
[ $rc = 1 ] || fail "wrong repeat rule on two traces: exit $rc, expected 1"
[ ! -e "$tmp/x2" ] || fail "a refused extrapolation left its output directory"
echo "$out" | grep -Eq "leave-one-out check: $tmp/t8 \(P=8\) rebuilt from $tmp/t4 \(P=4\) differs at rank 0, event 11 \(Allreduce, site $allred, cg_log2\.c:[0-9]+ in main\): Irecv in the model, Allreduce in the trace" \
    || fail "the refusal does not name rank 0, event 11 (Allreduce, site $allred, cg_log2.c:LINE in main)"
echo "$out" | grep -q "stated: repeat $irecv:p" || fail "the refusal does not name the rule"
# the right rule: every run of the block, the real 16-rank trace
"$MPICAST" extrapolate "$tmp/t4" "$tmp/t8" --ranks 16 -o "$tmp/xr" \
    --rule "repeat=$irecv:log2p" 2> "$tmp/errr" || { cat "$tmp/errr"; fail "right rule: exit $?"; }
"$MPICAST" dump --no-times "$tmp/t16" > "$tmp/d16"
"$MPICAST" dump --no-times "$tmp/xr" > "$tmp/dxr"
diff "$tmp/d16" "$tmp/dxr" > "$tmp/diff" || { head "$tmp/diff"; fail "the pseudo-trace of the stated log2p rule differs from the real P=16 trace"; }

# (b) inference from the same two traces: the block recurs in every outer
# iteration and is repeated log2(P) times in each; the check passes and the
# pseudo-trace at P=16 is the real 16-rank trace, event for event
"$MPICAST" extrapolate "$tmp/t4" "$tmp/t8" --ranks 16 -o "$tmp/xi" 2> "$tmp/erri" \
    || { cat "$tmp/erri"; fail "inference from t4 t8: exit $?"; }
[ ! -s "$tmp/erri" ] || fail "inference from t4 t8 (checked) printed: $(cat "$tmp/erri")"
"$MPICAST" dump --no-times "$tmp/xi" > "$tmp/dxi"
diff "$tmp/d16" "$tmp/dxi" > "$tmp/diff" || { head "$tmp/diff"; fail "inferred pseudo-trace differs from the real P=16 trace"; }
[ "$(irecv_count "$tmp/xi")" = 8 ] || fail "inferred pseudo-trace: $(irecv_count "$tmp/xi") Irecv on rank 0"
grep -q '"checked": "yes: 2 of 2 input traces rebuilt from the others, 252 events equal"' "$tmp/xi/meta.json" \
    || fail "meta.json of the inferred pseudo-trace: $(grep -o '"checked": "[^"]*"' "$tmp/xi/meta.json")"
"$MPICAST" extrapolate "$tmp/t4" "$tmp/t8" --ranks 16 --explain > "$tmp/explain" || fail "--explain: exit $?"
grep -q "^check: $tmp/t4 (P=4) rebuilt from $tmp/t8 (P=8): 68 events equal" "$tmp/explain" \
    || fail "--explain does not report the check of t4"
grep -q "the block recurs in 2 runs" "$tmp/explain" || fail "--explain does not show the runs"

# --explain with two traces refuses the same way
"$MPICAST" extrapolate "$tmp/t4" "$tmp/t8" --ranks 16 --explain --rule "repeat=$irecv:p" \
    > /dev/null 2>&1
[ $? = 1 ] || fail "--explain with the wrong rule on two traces is not refused"

# one trace: written, but unchecked, and said so on one line
"$MPICAST" extrapolate "$tmp/t4" --ranks 16 -o "$tmp/x1" --rule "repeat=$irecv:p" \
    2> "$tmp/err1" || fail "one trace with a rule: exit $?"
cat "$tmp/err1"
[ "$(wc -l < "$tmp/err1")" = 1 ] || fail "expected one warning line on stderr"
grep -q "warning: extrapolate: unchecked: one trace: repeat $irecv:p not checked" "$tmp/err1" \
    || fail "the warning does not name the unchecked rule"
grep -q '"checked": "no: one trace: repeat' "$tmp/x1/meta.json" || fail "meta.json lacks checked: no"
[ "$(irecv_count "$tmp/x1")" = 16 ] || fail "the unchecked pseudo-trace has $(irecv_count "$tmp/x1") Irecv on rank 0 (the wrong rule's: 16)"
"$MPICAST" extrapolate "$tmp/t4" --ranks 16 -o "$tmp/x1r" --rule "repeat=$irecv:log2p" \
    2> /dev/null || fail "one trace with the right rule: exit $?"
[ "$(irecv_count "$tmp/x1r")" = 8 ] || fail "one trace, the right rule: $(irecv_count "$tmp/x1r") Irecv on rank 0, expected 8"
"$MPICAST" extrapolate "$tmp/t4" --ranks 16 --explain --rule "repeat=$irecv:log2p" 2>/dev/null \
    | grep -q "^check: none (one trace: repeat $irecv:log2p not checked" \
    || fail "--explain does not say the rules are unchecked"
# predict --ranks and sweep --ranks extrapolate one trace: they say so too
"$MPICAST" predict "$tmp/t4" --ranks 16 --rule "repeat=$irecv:log2p" > /dev/null 2> "$tmp/errp" \
    || fail "predict --ranks with a rule: exit $?"
grep -q "warning: predict: unchecked: one trace: repeat $irecv:log2p" "$tmp/errp" \
    || fail "predict --ranks does not warn about the unchecked rule"
"$MPICAST" sweep "$tmp/t4" --ranks 4,16 --rule "repeat=$irecv:log2p" > /dev/null 2> "$tmp/errs" \
    || fail "sweep --ranks with a rule: exit $?"
grep -q "warning: sweep: unchecked: one trace: repeat $irecv:log2p" "$tmp/errs" \
    || fail "sweep --ranks does not warn about the unchecked rule"
"$MPICAST" predict "$tmp/t4" --ranks 16 > /dev/null 2> "$tmp/errq" || fail "predict --ranks: exit $?"
[ ! -s "$tmp/errq" ] || fail "predict --ranks without rules warned: $(cat "$tmp/errq")"
echo "test_extrap_loo_repeat: ok"
