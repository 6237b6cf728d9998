#!/bin/bash
# Formats both ways: collective --format nccl-tests prints what nccl-tests
# prints (commented header, Rank lines, 13 columns with root and in-place)
# and calibrate --nccl-tests reads it back (the fit of a link to its own
# simulated table changes nothing; a table scaled down fits a lower
# efficiency); "-" is standard input for scenario, sweep and nccl-tests files.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

ok nccl collective --cluster dgx-a100-80gb --nodes 2 -b 8 -e 1G -f 2 --format nccl-tests
ok ncclcsv collective --cluster dgx-a100-80gb --nodes 2 -b 8 -e 1G -f 2 --format csv
py nccl '
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split() for l in lines if l.strip() and not l.startswith("#")]
comments = [l for l in lines if l.startswith("#")]
# every line but the rows is a comment (or blank), as nccl-tests parsers expect
assert all(not l.strip() or l.startswith("#") or len(l.split()) == 13 for l in lines), lines
assert lines[0].startswith("# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor)"), lines[0]
ranks = [l for l in comments if l.split()[1:2] == ["Rank"]]
assert len(ranks) == 16 and ranks[9].split()[2] == "9", ranks
head = [l for l in comments if " redop " in l]
assert len(head) == 1 and head[0].split()[1:] == ["size", "count", "type", "redop", "root",
    "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"], head
assert any("out-of-place" in l and "in-place" in l for l in comments)
assert len(rows) == 28, len(rows)
for r in rows:
    assert r[2] == "float" and r[3] == "sum" and r[4] == "-1", r
    assert r[5:8] == r[9:12], r  # one simulated figure for both places
# the same figures as the csv table
table = list(csv.DictReader(open(sys.argv[2])))
assert [int(r[0]) for r in rows] == [int(t["size_bytes"]) for t in table]
assert all(abs(float(r[7]) - float(t["busbw_GBps"])) <= 0.005 for r, t in zip(rows, table))
avg = [l for l in comments if l.startswith("# Avg bus bandwidth")]
assert len(avg) == 1 and abs(float(avg[0].split(":")[1]) - sum(float(r[7]) for r in rows) / len(rows)) < 0.01, avg
' "$TMP/ncclcsv"
# broadcast and reduce name their root, as nccl-tests does
ok bcast collective --cluster dgx-a100-80gb -b 1M -e 4M --op broadcast --format nccl-tests
py bcast '
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
assert rows and all(r[3] == "none" and r[4] == "0" for r in rows), rows
'

# round trip: calibrating a link to trainsim's own nccl-tests table (read
# from standard input) fits the efficiency it already has
cat >"$TMP/s.cfg" <<CFG
model = "gpt3-1.3b"; cluster = "dgx-a100-80gb"; nodes = 2;
training = { global_batch = 256; micro_batch = 2; };
CFG
checks=$((checks + 1))
"$BIN" calibrate "$TMP/s.cfg" --nccl-tests - -o "$TMP/same.cfg" <"$TMP/nccl" >"$TMP/same.txt" 2>"$TMP/same.err" ||
	fail "calibrate --nccl-tests - exited $?: $(cat "$TMP/same.err")"
py same.txt '
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"^(\S+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+) GB/s\s+([0-9.]+) GB/s$", t, re.M)
assert m, t
before, fitted = float(m.group(2)), float(m.group(3))
assert abs(fitted - before) <= 0.002 * before, (before, fitted)
'
# a table whose bus bandwidths are 20 % lower fits a lower efficiency
awk '/^#/ || !NF { print; next } { $7 *= 0.8; $8 *= 0.8; $11 *= 0.8; $12 *= 0.8; print }' "$TMP/nccl" >"$TMP/slow.txt"
checks=$((checks + 1))
"$BIN" calibrate "$TMP/s.cfg" --nccl-tests "$TMP/slow.txt" -o "$TMP/slow.cfg" >"$TMP/slow.out" 2>"$TMP/slow.err" ||
	fail "calibrate on the slower table exited $?: $(cat "$TMP/slow.err")"
py slow.out '
import re, sys
m = re.search(r"^(\S+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+) GB/s\s+([0-9.]+) GB/s$", open(sys.argv[1]).read(), re.M)
before, fitted = float(m.group(2)), float(m.group(3))
assert 0.7 * before < fitted < 0.9 * before, (before, fitted)
'

# "-" is standard input for a scenario and a sweep file
ok runfile run "$TMP/s.cfg" --format json
checks=$((checks + 1))
"$BIN" run - --format json <"$TMP/s.cfg" >"$TMP/runstdin" 2>"$TMP/runstdin.err" || fail "run -: $(cat "$TMP/runstdin.err")"
cmp -s "$TMP/runfile" "$TMP/runstdin" || fail "run - differs from run FILE"
checks=$((checks + 1))
printf 'base = "%s";\naxes = { nodes = [1, 2]; };\n' "$TMP/s.cfg" >"$TMP/sw.cfg"
"$BIN" sweep "$TMP/sw.cfg" >"$TMP/swfile" 2>/dev/null
"$BIN" sweep - <"$TMP/sw.cfg" >"$TMP/swstdin" 2>"$TMP/swstdin.err" || fail "sweep -: $(cat "$TMP/swstdin.err")"
cmp -s "$TMP/swfile" "$TMP/swstdin" || fail "sweep - differs from sweep FILE"
# an error in standard input names it as "-" with its line
checks=$((checks + 1))
printf 'model = "gpt3-1.3b";\ncluster = "dgx-a100-80gb";\ntrainin = {};\n' | "$BIN" run - >/dev/null 2>"$TMP/bad.err"
[ $? -eq 2 ] && grep -q '^trainsim run: -:3: trainin: found unknown key' "$TMP/bad.err" || fail "run - with a typo: $(cat "$TMP/bad.err")"
# --format other than the four is a usage error naming them
checks=$((checks + 1))
"$BIN" collective --cluster dgx-a100-80gb --format nccl >/dev/null 2>"$TMP/fmt.err"
[ $? -eq 1 ] && grep -q 'expected text, csv, json or nccl-tests' "$TMP/fmt.err" || fail "--format nccl: $(cat "$TMP/fmt.err")"
finish
