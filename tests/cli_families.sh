#!/bin/bash
# trainsim validate --families on NVIDIA DeepLearningExamples' BERT-Large
# pre-training (tests/validation/measurements.csv, 1 and 8 A100 80GB, phases 1
# and 2): each phase calibrated on its 1-GPU run and the 8-GPU run predicted.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
ok fam validate --families --source bert
out="$TMP/fam"
# two families: the phases differ in sequence length (128, 512)
grep -q '^family 1: bert | bert-large | dgx-a100-80gb | tf32 | ddp | seq 128$' "$out" ||
	fail "family 1: $(grep '^family' "$out")"
grep -q '^family 2: bert | bert-large | dgx-a100-80gb | tf32 | ddp | seq 512$' "$out" ||
	fail "family 2: $(grep '^family' "$out")"
checks=$((checks + 1))
# phase 1: the fit reproduces the 1-GPU run (317 sequences/s) to 1 %, and the
# 8-GPU run (2,505 sequences/s, measured by NVIDIA) lands within the issue's
# 3 %; with the committed constants it is more than 5 % off
line1=$(grep '^  DLE-BERT-001 ' "$out")
line3=$(grep '^  DLE-BERT-003 ' "$out")
awk -v l="$line1" 'BEGIN { split(l, f, " "); e = f[7] + 0; exit !(e < 1 && e > -1) }' ||
	fail "DLE-BERT-001 fitted: $line1"
awk -v l="$line3" 'BEGIN { split(l, f, " "); m = f[3]; p = f[6];
	exit !(m == 2505 && p > m * 0.97 && p < m * 1.03) }' || fail "DLE-BERT-003 fitted: $line3"
awk -v l="$line3" 'BEGIN { split(l, f, " "); e = f[5] + 0; exit !(e < -5 || e > 5) }' ||
	fail "DLE-BERT-003 catalog: $line3"
checks=$((checks + 1))
# phase 2 is predicted about 45 % slow with the committed constants; no
# tc_sustain up to the GPU's whole matmul rate explains its 1-GPU run (110
# sequences/s), and its predicted iteration is all compute, so the fit
# refuses naming the run, the bound and the compute term
grep -q 'not calibrated: DLE-BERT-005: found 110 measured where the fastest the model reaches (tc_sustain = 1, ' "$out" ||
	fail "phase 2: $(sed -n '/^family 2/,$p' "$out")"
grep -q 'its compute term (.* s of a .* s iteration) cannot be that fast on the catalog.s peak' "$out" ||
	fail "phase 2's term: $(sed -n '/^family 2/,$p' "$out")"
# one run identifies one constant: the phase-1 fit moves tc_sustain alone
grep -q '^  tc_sustain ' "$out" || fail "phase 1 fitted no tc_sustain"
if sed -n '/^family 1/,/^family 2/p' "$out" | grep -qE '^  (gemm_k0|launch_s) '; then
	fail "phase 1 fitted more constants than its one run identifies"
fi
grep -q '^1 of 2 families calibrated' "$out" || fail "summary: $(tail -1 "$out")"
checks=$((checks + 1))
# --families takes no --fit or --format
"$BIN" validate --families --fit >/dev/null 2>"$TMP/e1" && fail "--families --fit accepted"
grep -q -- '--families: found it with --fit' "$TMP/e1" || fail "--fit: $(cat "$TMP/e1")"
checks=$((checks + 1))
finish
