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
# phase 2 runs LDDL's binned micro-batches, 320 tokens (sim/run/validate.c)
grep -q '^family 2: bert | bert-large | dgx-a100-80gb | tf32 | ddp | seq 320$' "$out" ||
	fail "family 2: $(grep '^family' "$out")"
checks=$((checks + 1))
# phase 1: the fit reproduces the 1-GPU run (317 sequences/s) to 1 %, and the
# 8-GPU run (2,505 sequences/s, measured by NVIDIA) lands within the issue's
# 3 %; with the committed constants it is within 3 % too (-2.4 %: the
# masked-LM head on the masked positions only; -11.3 % when it ran on all)
line1=$(grep '^  DLE-BERT-001 ' "$out")
line3=$(grep '^  DLE-BERT-003 ' "$out")
awk -v l="$line1" 'BEGIN { split(l, f, " "); e = f[7] + 0; exit !(e < 1 && e > -1) }' ||
	fail "DLE-BERT-001 fitted: $line1"
awk -v l="$line3" 'BEGIN { split(l, f, " "); m = f[3]; p = f[6];
	exit !(m == 2505 && p > m * 0.97 && p < m * 1.03) }' || fail "DLE-BERT-003 fitted: $line3"
awk -v l="$line3" 'BEGIN { split(l, f, " "); e = f[5] + 0; exit !(e > -3 && e < 3) }' ||
	fail "DLE-BERT-003 catalog: $line3"
checks=$((checks + 1))
# phase 2, at the binned length and with the head on the masked positions
# only: the fit reproduces its 1-GPU run (110 sequences/s) to 1 % and the
# 8-GPU run (860, measured by NVIDIA) lands within 3 %; before, no
# tc_sustain up to the GPU's whole matmul rate reached the 1-GPU run
line5=$(grep '^  DLE-BERT-005 ' "$out")
line7=$(grep '^  DLE-BERT-007 ' "$out")
awk -v l="$line5" 'BEGIN { split(l, f, " "); e = f[7] + 0; exit !(e < 1 && e > -1) }' ||
	fail "DLE-BERT-005 fitted: $line5"
awk -v l="$line7" 'BEGIN { split(l, f, " "); m = f[3]; p = f[6];
	exit !(m == 860 && p > m * 0.97 && p < m * 1.03) }' || fail "DLE-BERT-007 fitted: $line7"
# one run identifies one constant: the phase-1 fit moves tc_sustain alone
grep -q '^  tc_sustain ' "$out" || fail "phase 1 fitted no tc_sustain"
if sed -n '/^family 1/,/^family 2/p' "$out" | grep -qE '^  (gemm_k0|launch_s) '; then
	fail "phase 1 fitted more constants than its one run identifies"
fi
grep -q '^2 of 2 families calibrated' "$out" || fail "summary: $(tail -1 "$out")"
checks=$((checks + 1))
# --families takes no --fit or --format
"$BIN" validate --families --fit >/dev/null 2>"$TMP/e1" && fail "--families --fit accepted"
grep -q -- '--families: found it with --fit' "$TMP/e1" || fail "--fit: $(cat "$TMP/e1")"
checks=$((checks + 1))
finish
