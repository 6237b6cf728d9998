#!/bin/bash
# The one option parser of every command: -j4 is -j 4, --opt=value is
# --opt value, "-" as an output is standard output (no file named "-"),
# "--" ends the options, a switch refuses a value, an unknown option lists
# the command's options; and every command answers --help.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
cd "$TMP" || exit 1
S=$SRC/configs/scenarios/default.cfg
cat >sw.cfg <<CFG
base = "$S";
axes = { nodes = [1, 2]; training = { micro_batch = [2, 4]; }; };
CFG

# same bytes: -j 2, -j2, --jobs 2, --jobs=2; -o - and no -o
ok sw-space sweep sw.cfg -j 2
ok sw-attached sweep sw.cfg -j2
ok sw-long sweep sw.cfg --jobs=2
ok sw-dash sweep sw.cfg -j 2 -o -
for v in sw-attached sw-long sw-dash; do
	checks=$((checks + 1))
	cmp -s "$TMP/sw-space" "$TMP/$v" || fail "sweep $v differs from sweep -j 2"
done
checks=$((checks + 1))
[ -e "$TMP/-" ] && fail "sweep -o - wrote a file named \"-\""
checks=$((checks + 1))
"$BIN" sweep sw.cfg -o - --resume >/dev/null 2>err
[ $? -eq 1 ] && grep -q -- '--resume: found -o -' err || fail "sweep -o - --resume: $(cat err)"

# --format=json is --format json; --set=KEY=VALUE is --set KEY=VALUE
ok run-space run "$S" --format json --set training.micro_batch=2
ok run-eq run "$S" --format=json --set=training.micro_batch=2
checks=$((checks + 1))
cmp -s "$TMP/run-space" "$TMP/run-eq" || fail "run --format=json differs from --format json"
py run-eq 'import json,sys; json.load(open(sys.argv[1]))["iteration_time_s"]'

# calibrate -o -: the overrides on stdout (the report on stderr), then
# --calib=FILE reads them
"$BIN" calibrate "$S" --measured-iteration-s=7.0 -o - >fit.cfg 2>fit.err
checks=$((checks + 1))
[ $? -eq 0 ] || fail "calibrate -o -: $(head -c 400 fit.err)"
checks=$((checks + 1))
grep -q 'source = "trainsim calibrate' fit.cfg || fail "calibrate -o - wrote no overrides on stdout"
checks=$((checks + 1))
grep -q '^Calibration of' fit.err || fail "calibrate -o - wrote no report on stderr"
checks=$((checks + 1))
[ -e "$TMP/-" ] && fail "calibrate -o - wrote a file named \"-\""
ok run-calib run "$S" --format json --calib=fit.cfg
py run-calib 'import json,sys
t = json.load(open(sys.argv[1]))["iteration_time_s"]
assert abs(t - 7.0) / 7.0 < 0.05, "--calib=FILE: iteration %g s, expected about 7 s" % t'

# run --trace -: the trace on stdout (Chrome trace JSON), the report on stderr
"$BIN" run "$S" --trace - >trace.json 2>report.txt
checks=$((checks + 1))
[ $? -eq 0 ] || fail "run --trace -: $(head -c 400 report.txt)"
py trace.json 'import json,sys; d = json.load(open(sys.argv[1])); assert d["traceEvents"], "no events"'
checks=$((checks + 1))
grep -q 'iteration' report.txt || fail "run --trace - wrote no report on stderr"

# short options with attached values, long ones with '='
ok coll collective --cluster=dgx-a100-80gb -b8 -e1M -f4 -g8 --format=csv
py coll 'import csv,sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["size_bytes"]) for r in rows] == [8 * 4**k for k in range(9)], [r["size_bytes"] for r in rows]'
ok list list gpus --format=csv
ok search search "$S" -j1 --top=2 --max-gpus=8

# "--" ends the options: a scenario file named "-x.cfg"
cp "$S" ./-x.cfg
ok dashdash run --format json -- -x.cfg

expect_usage() {
	local needle=$1
	shift
	checks=$((checks + 1))
	"$BIN" "$@" >out 2>err
	local rc=$?
	[ "$rc" -eq 1 ] || fail "trainsim $*: exit $rc, expected 1: $(cat err)"
	[ -s out ] && fail "trainsim $*: printed on stdout"
	grep -qF -- "$needle" err || fail "trainsim $*: message lacks '$needle': $(cat err)"
}
expect_usage '--dump-config: found the value "yes", expected none' run "$S" --dump-config=yes
expect_usage 'found unknown option "--bogus", expected --set, --format, --trace, --calib, --dump-config or --output' \
	run "$S" --bogus
expect_usage '-j: found "0", expected a thread count from 1 to 1024' sweep sw.cfg -j0
expect_usage '--calib: found nothing, expected an overrides file' compare "$S" "$S" --calib
expect_usage 'found unknown option "-x"' sweep sw.cfg -x
# -o=FILE would make a file named "=FILE": refused, naming both spellings
expect_usage '-o: found "-o=q3.csv", expected a results file (- for standard output) as "-o q3.csv" or "--output=q3.csv"' sweep sw.cfg -o=q3.csv
checks=$((checks + 1))
[ -e "=q3.csv" ] && fail "sweep -o=q3.csv made a file named =q3.csv"
for c in run compare sweep search calibrate validate collective list plot; do
	checks=$((checks + 1))
	"$BIN" $c --help >out 2>err
	[ $? -eq 0 ] && grep -q "^usage: trainsim $c" out && [ ! -s err ] ||
		fail "trainsim $c --help: no usage on stdout"
done
# a count written as a whole float is that count, in an option as in --set
# and in a scenario file: --nodes 1e2 is --nodes 100, -g 8.0 is -g 8,
# --set nodes=2e0 is nodes=2, queue --nodes 2e0:4.0 is 2:4
ok coll-int collective --cluster dgx-h100 --nodes 100 -g 8 -e 1M
ok coll-exp collective --cluster dgx-h100 --nodes 1e2 -g 8.0 -e 1M
checks=$((checks + 1))
cmp -s coll-int coll-exp || fail "collective --nodes 1e2 -g 8.0 differs from --nodes 100 -g 8"
ok coll-set collective --cluster dgx-h100 --set nodes=2 -e 1M
ok coll-setexp collective --cluster dgx-h100 --set nodes=2e0 -e 1M
checks=$((checks + 1))
cmp -s coll-set coll-setexp || fail "collective --set nodes=2e0 differs from nodes=2"
ok run-set run "$S" --set nodes=2
ok run-setexp run "$S" --set nodes=2e0
checks=$((checks + 1))
cmp -s run-set run-setexp || fail "run --set nodes=2e0 differs from nodes=2"
ok q-int queue --synthetic 20 --cluster dgx-h100 --nodes 2:4 -q
ok q-exp queue --synthetic 20 --cluster dgx-h100 --nodes 2e0:4.0 -q
checks=$((checks + 1))
cmp -s q-int q-exp || fail "queue --nodes 2e0:4.0 differs from 2:4"
finish
