#!/bin/bash
# What a command does with what its user left out: calibrate's default
# output file never replaces an existing one; --set GROUP={ ... } keeps the
# group's other keys.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
D=$SRC/configs/scenarios/default.cfg

# calibrate without -o writes ./calibration.cfg only when there is none, and
# its refusal names the default (no -o was given)
mkdir -p "$TMP/cal" && cd "$TMP/cal" || exit 1
checks=$((checks + 1))
"$BIN" calibrate "$D" --measured-iteration-s 7.1 >out 2>err && [ -s calibration.cfg ] ||
	fail "calibrate without -o and no calibration.cfg: exit $?: $(cat err)"
cp calibration.cfg first.cfg
checks=$((checks + 1))
"$BIN" calibrate "$D" --measured-iteration-s 9.9 >out 2>err
rc=$?
[ "$rc" -eq 1 ] && grep -qF -- '-o: found no -o and an existing "calibration.cfg" (the default)' err &&
	cmp -s calibration.cfg first.cfg ||
	fail "calibrate over an existing calibration.cfg without -o: exit $rc: $(cat err)"
checks=$((checks + 1))
cp "$D" calibration.cfg
"$BIN" calibrate calibration.cfg --measured-iteration-s 7.1 >out 2>err
rc=$?
[ "$rc" -eq 1 ] && grep -qF '(the default)' err && ! grep -qF -- '-o: found "calibration.cfg"' err &&
	cmp -s calibration.cfg "$D" ||
	fail "calibrate calibration.cfg without -o: exit $rc: $(cat err)"
checks=$((checks + 1))
cp first.cfg calibration.cfg
"$BIN" calibrate "$D" --measured-iteration-s 9.9 -o calibration.cfg >out 2>err && ! cmp -s calibration.cfg first.cfg ||
	fail "calibrate -o calibration.cfg does not replace it: $(cat err)"
cd "$SRC" || exit 1

# --set 'training={ micro_batch = 2; }' merges: default.cfg's global_batch and
# tokens stay, as with --set training.micro_batch=2
out=$("$BIN" run "$D" --set 'training={ micro_batch = 2; }' --dump-config 2>&1)
for want in 'training.micro_batch = 2  # --set training={ micro_batch = 2; }' \
	'training.global_batch = 512  # '"$D"':11' \
	'training.tokens = 300000000000  # '"$D"':18'; do
	checks=$((checks + 1))
	grep -qF "$want" <<<"$out" || fail "--set training={...} lost a key: no \"$want\" in: $(grep '^training' <<<"$out")"
done

finish
