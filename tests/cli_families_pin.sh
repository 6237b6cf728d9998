#!/bin/bash
# The scaling-family table of sim/README.md ("Scaling families"), pinned:
# trainsim validate --families on each source that runs in seconds (BERT,
# MEG24, NeMo AutoModel, vTrain, MPT), each family's larger runs' MAPE
# before and after calibrating on its smallest run, and each source's
# summary, as the committed tree printed them (the measurements are the
# sources' own, tests/validation/). A change to the model or the constants
# that moves a figure fails here: update the table and this list together.
# The MLPerf families take most of the six minutes --families needs and are
# not pinned.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
while read -r src fam rest; do
	[ -s "$TMP/$src" ] || ok "$src" validate --families --source "$src"
	if [ "$fam" = all ]; then
		got=$(grep 'families calibrated' "$TMP/$src")
	else
		got=$(awk -v f="$fam" '/^family /{ k = $2 } /^  larger runs:/ && k == f { sub(/^  /, ""); print }' "$TMP/$src")
	fi
	checks=$((checks + 1))
	[ "$got" = "$rest" ] || fail "$src family $fam: found '$got', expected '$rest'"
done <<'PINS'
bert 1: larger runs: 1, MAPE 2.41 % before, 0.19 % after
bert 2: larger runs: 1, MAPE 2.56 % before, 0.89 % after
bert all 2 of 2 families calibrated; larger runs' MAPE 2.48 % before (2 runs), 0.54 % after (2 runs)
meg24 1: larger runs: 2, MAPE 12.05 % before, 2.35 % after
meg24 all 1 of 1 families calibrated; larger runs' MAPE 12.05 % before (2 runs), 2.35 % after (2 runs)
nemo-automodel-perf 1: larger runs: 1, MAPE 16.54 % before, none after
nemo-automodel-perf all 0 of 1 families calibrated; larger runs' MAPE 16.54 % before (1 runs), 0.00 % after (0 runs)
vtrain 1: larger runs: 29, MAPE 17.60 % before, 12.35 % after
vtrain 2: larger runs: 29, MAPE 6.61 % before, 7.26 % after
vtrain 3: larger runs: 29, MAPE 20.34 % before, none after
vtrain 4: larger runs: 29, MAPE 6.37 % before, 6.34 % after
vtrain 5: larger runs: 29, MAPE 6.70 % before, 9.53 % after
vtrain 6: larger runs: 29, MAPE 19.69 % before, 11.59 % after
vtrain 7: larger runs: 29, MAPE 13.88 % before, 6.64 % after
vtrain 8: larger runs: 29, MAPE 6.35 % before, 7.52 % after
vtrain all 7 of 8 families calibrated; larger runs' MAPE 12.19 % before (232 runs), 8.75 % after (203 runs)
mpt 1: larger runs: 2, MAPE 2.29 % before, 2.26 % after
mpt 2: larger runs: 2, MAPE 3.10 % before, 9.32 % after
mpt 3: larger runs: 1, MAPE 0.88 % before, 2.11 % after
mpt 4: larger runs: 3, MAPE 19.36 % before, 5.71 % after
mpt 5: larger runs: 2, MAPE 17.52 % before, 3.09 % after
mpt 6: larger runs: 1, MAPE 34.13 % before, 0.34 % after
mpt 7: larger runs: 1, MAPE 9.14 % before, 0.91 % after
mpt 8: larger runs: 2, MAPE 8.16 % before, 1.13 % after
mpt 9: larger runs: 1, MAPE 4.71 % before, 0.09 % after
mpt 10: larger runs: 2, MAPE 13.34 % before, 12.34 % after
mpt 11: larger runs: 1, MAPE 2.78 % before, 0.39 % after
mpt 12: larger runs: 2, MAPE 1.49 % before, 4.28 % after
mpt 13: larger runs: 1, MAPE 5.97 % before, 3.62 % after
mpt all 13 of 13 families calibrated; larger runs' MAPE 9.88 % before (21 runs), 4.26 % after (21 runs)
PINS
finish
