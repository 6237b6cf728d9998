#!/bin/bash
# Golden test of examples/scaling-sweep: GPT-3 1.3B from 8 to 512 GPUs, the
# sweep's CSV (regenerate: see tests/examplelib.bash); the plot is drawn when
# gnuplot is installed.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" sweep sweep.cfg
}
check_example scaling-sweep
# the prose quotes this sweep's and sweep-tp.cfg's figures, and scaling
# efficiencies made from them: each row's samples_per_s over nodes x the
# one-node samples_per_s of its tp (in %, as whole and one-decimal figures),
# and each tp's one-node shortfall against tp 1 (in %)
checks=$((checks + 1))
(cd "$SRC/examples/scaling-sweep" && "$BIN" sweep sweep-tp.cfg) >"$TMP/tp.csv" 2>"$TMP/tp.err" ||
	fail "sweep sweep-tp.cfg: $(head -c 300 "$TMP/tp.err")"
python3 - "$TMP/out" "$TMP/tp.csv" >"$TMP/derived" <<'PY' || fail "no efficiencies from the sweeps"
import csv, sys
for f in sys.argv[1:]:
    rows = list(csv.DictReader(open(f)))
    one = {r.get("parallel.tp", "1"): float(r["samples_per_s"]) for r in rows if r["nodes"] == "1"}
    for r in rows:
        tp = r.get("parallel.tp", "1")
        e = 100 * float(r["samples_per_s"]) / (int(r["nodes"]) * one[tp])
        print("efficiency nodes=%s tp=%s: %.0f %.1f" % (r["nodes"], tp, e, e))
    for tp, v in one.items():
        print("one node, tp=%s against tp=1: %.0f %% less" % (tp, 100 * (1 - v / one["1"])))
PY
cat "$TMP/out" "$TMP/tp.csv" "$TMP/derived" >"$TMP/prose.out"
PROSE_OUT=$TMP/prose.out check_prose scaling-sweep
if command -v gnuplot >/dev/null; then
	checks=$((checks + 1))
	(cd "$SRC/examples/scaling-sweep" && "$BIN" sweep sweep.cfg -o "$TMP/r.csv" &&
		"$BIN" plot scaling "$TMP/r.csv" --log-x -o "$TMP/s.png" &&
		"$BIN" plot breakdown "$TMP/r.csv" -o "$TMP/b.png" &&
		"$BIN" sweep sweep-tp.cfg -o "$TMP/rtp.csv" &&
		"$BIN" plot scaling "$TMP/rtp.csv" --log-x \
			--title "GPT-3 1.3B on DGX A100: data and tensor parallelism" -o "$TMP/tp.png") ||
		fail "the README's plot commands failed"
	[ -s "$TMP/s.png" ] && [ -s "$TMP/b.png" ] && [ -s "$TMP/tp.png" ] ||
		fail "a plot command of the README wrote no image"
fi
finish
