#!/bin/bash
# trainsim compare, search, calibrate and plot: tables and formats, the best
# of a row, search ranking and pruning, calibration overrides used by run,
# plots through gnuplot and a clear message without it, usage errors.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
EX="$SRC/examples/4gpu-vs-16node"
SCEN="$SRC/configs/scenarios/default.cfg"

# bad CODE NEEDLE ARGS...: trainsim ARGS exits CODE with one line on stderr
# holding NEEDLE and nothing on stdout.
bad() {
	local code=$1 needle=$2 rc
	shift 2
	checks=$((checks + 1))
	"$BIN" "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ "$rc" -eq "$code" ] && [ ! -s "$TMP/bad.out" ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] &&
		grep -qF -- "$needle" "$TMP/bad.err" ||
		fail "trainsim $*: exit $rc, expected $code with '$needle': $(head -c 400 "$TMP/bad.err")"
}

# compare: JSON rows with a best column; 16 IB nodes are faster beyond their
# bands; the box is cheaper, but within the bands: no clear winner
ok cmpjson compare "$EX/box-4xa100.cfg" "$EX/dgx16-ib.cfg" "$EX/dgx16-10gbe.cfg" --format json
py cmpjson '
import json, sys
d = json.load(open(sys.argv[1]))
# a list of results, each a whole run result with its scenario
assert isinstance(d, list) and len(d) == 3, type(d)
r = {x["name"]: x for x in d}
assert all(x["schema_version"] >= 2 and x["trainsim_version"] and x["scenario"]["cluster"] for x in d)
assert r["4x A100 box"]["gpus"] == 4 and r["16 DGX A100 on InfiniBand"]["gpus"] == 128
assert "iteration_time_s" in r["16 DGX A100 on InfiniBand"]["comparison"]["best"], r["16 DGX A100 on InfiniBand"]["comparison"]
assert not any("cost_usd" in x["comparison"]["best"] for x in d), d[0]["comparison"]
# the box ($656) and InfiniBand ($831) tie within their bands; 10 GbE
# ($26,144) is far beyond both: a tie, not "no clear winner"
assert [("cost_usd" in x["comparison"]["tied"]) for x in d] == [True, True, False], [x["comparison"] for x in d]
assert not any("cost_usd" in x["comparison"]["no_clear_winner"] for x in d), d[0]["comparison"]
assert all("memory_per_gpu_bytes" in x["comparison"]["no_clear_winner"] for x in d), d[0]["comparison"]
assert "iteration_time_s" not in r["4x A100 box"]["comparison"]["no_clear_winner"]
# scaling efficiency: tokens/s per GPU relative to the first result
e = (r["16 nodes on 10 GbE"]["tokens_per_s"] / 128) / (r["4x A100 box"]["tokens_per_s"] / 4)
assert abs(r["16 nodes on 10 GbE"]["comparison"]["scaling_efficiency"] - e) < 1e-12 * e
assert r["4x A100 box"]["comparison"]["scaling_efficiency"] == 1.0
assert not any("gpus" in x["comparison"]["best"] for x in d)
'
ok cmpcsv compare "$EX/box-4xa100.cfg" "$EX/dgx16-ib.cfg" --format csv
py cmpcsv '
import csv, sys
head = next(csv.reader(open(sys.argv[1])))
rows = list(csv.DictReader(open(sys.argv[1])))
# a row per scenario: name and file, the 12 metrics, the verdicts, then
# the scenario by key path
assert [x["name"] for x in rows] == ["4x A100 box", "16 DGX A100 on InfiniBand"], rows
assert head[:3] == ["name", "file", "gpus"] and head.index("bottleneck") == 13, head[:16]
assert head[14:17] == ["best", "tied", "no_clear_winner"] and head[17] == "model.name", head[14:18]
assert [x["model.name"] for x in rows] == ["gpt3-1.3b"] * 2 and rows[1]["nodes"] == "16"
assert [x["gpus"] for x in rows] == ["4", "128"] and rows[1]["parallel.tp"] == "1"
'
# scenarios named as the table's own keys, or alike, each keep a row (CSV)
# or column (text) of their own
# (global batches 256, 128, 32: the last iteration is 3.6x shorter than the
# next, beyond the 80 % band of one A100 node under Megatron, a factor 1.44
# either way)
for nb in best:256 metric:128 best:32; do
	printf 'name = "%s";\nmodel = "gpt3-1.3b"; cluster = "dgx-a100-80gb";\n' "${nb%:*}"
	printf 'training = { global_batch = %d; micro_batch = 4; tokens = 1.0e9; };\n' "${nb#*:}"
done | csplit -s -z -f "$TMP/named" -b '%d.cfg' - '/^name/' '{*}'
ok cmpnames compare "$TMP/named0.cfg" "$TMP/named1.cfg" "$TMP/named2.cfg" --format json
py cmpnames '
import json, sys
d = json.load(open(sys.argv[1]))
# the results keep their own names, in order
assert [x["name"] for x in d] == ["best", "metric", "best"], [x["name"] for x in d]
# global batch 32, the shortest iteration
assert "iteration_time_s" in d[2]["comparison"]["best"], [x["comparison"] for x in d]
'
ok cmpnamescsv compare "$TMP/named0.cfg" "$TMP/named1.cfg" "$TMP/named2.cfg" --format csv
py cmpnamescsv '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [x["name"] for x in rows] == ["best", "metric", "best"], rows
assert "iteration_time_s" in rows[2]["best"].split(";"), rows[2]["best"]
'
ok cmptext compare "$EX/box-4xa100.cfg" "$EX/dgx16-ib.cfg" --set training.tokens=1e9
checks=$((checks + 1))
grep -q "iteration time .* \*" "$TMP/cmptext" || fail "compare text marks no best iteration time"

# search: every candidate ranked is at most --max-gpus, the best first
ok search search "$SCEN" --max-gpus 16 --top 5 --quiet # no progress line on a loaded machine
checks=$((checks + 1))
grep -q "configurations: .* pruned by the memory estimate, .* simulated" "$TMP/search" ||
	fail "search lacks its summary: $(tail -2 "$TMP/search")"
py search '
import sys, re
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split() for l in lines if re.match(r"^\s*\d+\s+\d+\s+\d+", l)]
assert 1 <= len(rows) <= 5, rows
assert all(int(r[1]) <= 16 for r in rows)
# ranked by time to train: the 16-GPU layouts come first
assert rows[0][1] == "16", rows[0]
'
# the search prunes micro-batches that cannot fit (GPT-3 1.3B, micro-batch 64 is > 80 GB)
ok prune search "$SCEN" --max-gpus 8 --set training.global_batch=512
checks=$((checks + 1))
grep -qE "[1-9][0-9]* pruned" "$TMP/prune" || fail "nothing pruned: $(tail -1 "$TMP/prune")"

# calibrate, then run with the overrides: the measured time comes back
CAL="$TMP/cal.cfg"
cat >"$TMP/node.cfg" <<EOF
model = "gpt3-1.3b"; cluster = "dgx-a100-80gb";
training = { global_batch = 64; micro_batch = 4; };
EOF
ok calib calibrate "$TMP/node.cfg" --measured-iteration-s 0.9 -o "$CAL"
ok runcal run "$TMP/node.cfg" --calib "$CAL" --format json
py runcal '
import json, sys
r = json.load(open(sys.argv[1]))
assert abs(r["iteration_time_s"] - 0.9) < 0.009, r["iteration_time_s"]   # within 1 %
'
# a measurement no value of the constant reaches: exit 2, nothing written
bad 2 'hit its lower bound' calibrate "$TMP/node.cfg" --measured-iteration-s 1e-9 -o "$TMP/far.cfg"
checks=$((checks + 1))
grep -qF '1/64 of its committed value' "$TMP/bad.err" && grep -qF 'best reachable iteration is' "$TMP/bad.err" ||
	fail "calibrate out of reach: $(cat "$TMP/bad.err")"
checks=$((checks + 1))
[ -e "$TMP/far.cfg" ] && fail "calibrate out of reach wrote its overrides"
bad 2 'hit its upper bound' calibrate "$TMP/node.cfg" --measured-iteration-s 1e9 -o "$TMP/far.cfg"
# -o naming the scenario is refused, the scenario kept
cp "$TMP/node.cfg" "$TMP/node.keep"
bad 1 'the same file as the input' calibrate "$TMP/node.cfg" --measured-iteration-s 1 -o "$TMP/node.cfg"
checks=$((checks + 1))
cmp -s "$TMP/node.cfg" "$TMP/node.keep" || fail "calibrate -o SCENARIO changed the scenario"
checks=$((checks + 1))
printf 'gemm_k0 = { value = -3.0; };\n' >"$TMP/badcal.cfg"
"$BIN" run "$TMP/node.cfg" --calib "$TMP/badcal.cfg" >/dev/null 2>"$TMP/badcal.err"
[ $? -eq 2 ] && grep -q "badcal.cfg:1.*gemm_k0.value.*-3" "$TMP/badcal.err" ||
	fail "a negative constant: $(cat "$TMP/badcal.err")"
checks=$((checks + 1))
"$BIN" calibrate "$TMP/node.cfg" --measured-iteration-s -1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "a negative measurement is not exit 2"

# plot: an image from a sweep CSV; without gnuplot a one-line message, exit 2
"$BIN" run "$SCEN" --format csv >"$TMP/r.csv"
if command -v gnuplot >/dev/null; then
	for k in scaling breakdown frontier memory; do
		checks=$((checks + 1))
		"$BIN" plot $k "$TMP/r.csv" -o "$TMP/$k.svg" 2>"$TMP/plot.err" || fail "plot $k: $(cat "$TMP/plot.err")"
		grep -q "<svg" "$TMP/$k.svg" || fail "plot $k wrote no SVG"
	done
	checks=$((checks + 1))
	grep -q "time to train (hours)" "$TMP/frontier.svg" || fail "frontier lacks its axis label"
fi
checks=$((checks + 1))
PATH=/nonexistent "$BIN" plot scaling "$TMP/r.csv" -o "$TMP/x.png" 2>"$TMP/nognu.err"
[ $? -eq 2 ] && grep -q "found no gnuplot" "$TMP/nognu.err" ||
	fail "without gnuplot: $(cat "$TMP/nognu.err")"
checks=$((checks + 1))
"$BIN" plot pie "$TMP/r.csv" -o "$TMP/x.png" 2>/dev/null
[ $? -eq 1 ] || fail "an unknown plot kind is not a usage error"

# usage errors
# more threads than libgomp can start crashed it
bad 1 '-j: found "1000000", expected an integer from 1 to 1024' search "$SCEN" -j 1000000
bad 1 '-j: found "1025", expected a thread count from 1 to 1024' sweep "$SRC/examples/scaling-sweep/sweep.cfg" -j 1025
# help texts say what is modelled and which sources there are
checks=$((checks + 1))
"$BIN" search --help | grep -q "not modelled" && fail "search --help says something is not modelled"
checks=$((checks + 1))
"$BIN" help | grep -qF "meg24|mpt|titan|vtrain-multi|mlperf-training-v4.1|" &&
	"$BIN" help | grep -qF "pytorch-blog-fsdp-ibm-2024|nemo-automodel-perf|all]" ||
	fail "help lacks the validation sources"
for args in "compare $SCEN" "search $SCEN --objective speed" "sweep" "calibrate $SCEN"; do
	checks=$((checks + 1))
	# shellcheck disable=SC2086
	"$BIN" $args >/dev/null 2>&1
	[ $? -eq 1 ] || fail "trainsim $args is not a usage error"
done
finish
