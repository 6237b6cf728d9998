#!/bin/bash
# trainsim sweep: the CSV is byte-identical on 1 and 2 threads; invalid points
# are rows, not failures; a sweep killed mid-way and resumed (and an output cut
# inside a row) equals an uninterrupted run; bad sweep files exit 2.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

# 4 x 2 x 3 = 24 points, the last value of parallel.bucket invalid
cat >"$TMP/sw.cfg" <<EOF
base = "$SRC/configs/scenarios/default.cfg";
axes = { nodes = [1, 2, 4, 8]; training = { micro_batch = [2, 4]; };
         "parallel.bucket" = ["25 MiB", "none", "bogus"]; };
EOF
ok one sweep "$TMP/sw.cfg" -j 1
ok two sweep "$TMP/sw.cfg" -j 2
checks=$((checks + 1))
cmp -s "$TMP/one" "$TMP/two" || fail "sweep on 1 and 2 threads differ"
py one '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 24, len(rows)
assert [int(r["point"]) for r in rows] == list(range(24))
# product order: the last axis fastest
assert [r["parallel.bucket"] for r in rows[:3]] == ["25 MiB", "none", "bogus"], rows[:3]
assert [r["nodes"] for r in rows[::6]] == ["1", "2", "4", "8"]
bad = [r for r in rows if r["parallel.bucket"] == "bogus"]
assert len(bad) == 8 and all(r["status"].startswith("invalid:") and "parallel.bucket" in r["status"] for r in bad)
assert all(r["iteration_time_s"] == "" for r in bad)
good = [r for r in rows if r["status"] == "ok"]
assert len(good) == 16
# nodes x 8 GPUs
assert all(int(r["gpus"]) == 8 * int(r["nodes"]) for r in good)
'

# zip: point i takes value i of every axis
cat >"$TMP/zip.cfg" <<EOF
base = { model = "gpt3-1.3b"; cluster = "dgx-a100-80gb"; training = { global_batch = 512; micro_batch = 4; }; };
axes = { nodes = [1, 2]; gpus_per_node = [4, 8]; };
zip = true;
EOF
ok zip sweep "$TMP/zip.cfg"
py zip '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["nodes"], r["gpus"]) for r in rows] == [("1", "4"), ("2", "16")], rows
'

# kill a longer sweep mid-way, resume, compare with the uninterrupted run
cat >"$TMP/long.cfg" <<EOF
base = "$SRC/configs/scenarios/default.cfg";
axes = { nodes = [1, 2, 3, 4, 5, 6, 7, 8]; training = { micro_batch = [1, 2, 4, 8]; };
         sim = { granularity = ["op"]; }; "parallel.bucket" = ["25 MiB", "100 MiB", "none"]; };
EOF
"$BIN" sweep "$TMP/long.cfg" -o "$TMP/full.csv" -j 2 2>/dev/null
"$BIN" sweep "$TMP/long.cfg" -o "$TMP/part.csv" -j 2 2>/dev/null &
pid=$!
for _ in $(seq 1 400); do
	[ -f "$TMP/part.csv" ] && [ "$(wc -l <"$TMP/part.csv")" -ge 6 ] && break
	sleep 0.01
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
checks=$((checks + 1))
lines=$(wc -l <"$TMP/part.csv")
full=$(wc -l <"$TMP/full.csv")
[ "$lines" -lt "$full" ] || echo "note: the sweep finished before it was killed ($lines lines)"
"$BIN" sweep "$TMP/long.cfg" -o "$TMP/part.csv" -j 2 --resume 2>"$TMP/resume.err" ||
	fail "resume exited $?: $(cat "$TMP/resume.err")"
cmp -s "$TMP/full.csv" "$TMP/part.csv" || fail "a killed and resumed sweep differs from an uninterrupted one"

# an output cut inside a row (as a kill during a write leaves it)
checks=$((checks + 1))
size=$(wc -c <"$TMP/full.csv")
head -c $((size / 2 + 17)) "$TMP/full.csv" >"$TMP/cut.csv"
"$BIN" sweep "$TMP/long.cfg" -o "$TMP/cut.csv" -j 1 --resume 2>/dev/null || fail "resume of a cut file failed"
cmp -s "$TMP/full.csv" "$TMP/cut.csv" || fail "resuming a file cut inside a row differs"
# resuming a complete file computes nothing and changes nothing
checks=$((checks + 1))
cp "$TMP/full.csv" "$TMP/again.csv"
"$BIN" sweep "$TMP/long.cfg" -o "$TMP/again.csv" --resume 2>/dev/null || fail "resume of a complete file failed"
cmp -s "$TMP/full.csv" "$TMP/again.csv" || fail "resuming a complete file changed it"

# rows that do not belong are computed again, from the first of them: a row
# of 16 fields and garbage (a damaged file), and the rows of a sweep with the
# same axes but other values (the same header)
checks=$((checks + 1))
{ head -n 4 "$TMP/full.csv"; sed -n 5p "$TMP/full.csv" | cut -d, -f1-16 | tr -d '\n'; printf 'garbage\n'; } >"$TMP/damaged.csv"
for j in 1 2; do
	cp "$TMP/damaged.csv" "$TMP/damaged$j.csv"
	"$BIN" sweep "$TMP/long.cfg" -o "$TMP/damaged$j.csv" -j $j --resume 2>"$TMP/damaged.err" ||
		fail "resume of a damaged file exited $?: $(cat "$TMP/damaged.err")"
	cmp -s "$TMP/full.csv" "$TMP/damaged$j.csv" || fail "resuming a file with a damaged row (-j $j) differs from an uninterrupted run"
done
sed 's/nodes = \[1, 2, 3, 4, 5, 6, 7, 8\]/nodes = [1, 3, 5, 7, 9, 11, 13, 15]/' "$TMP/long.cfg" >"$TMP/odd.cfg"
"$BIN" sweep "$TMP/odd.cfg" -o "$TMP/odd.csv" 2>/dev/null
checks=$((checks + 1))
head -n 1 "$TMP/odd.csv" | cmp -s - <(head -n 1 "$TMP/full.csv") || fail "the two sweeps' headers differ: the case below tests nothing"
checks=$((checks + 1))
"$BIN" sweep "$TMP/long.cfg" -o "$TMP/odd.csv" --resume 2>"$TMP/odd.err" ||
	fail "resume over another run's rows exited $?: $(cat "$TMP/odd.err")"
cmp -s "$TMP/full.csv" "$TMP/odd.csv" || fail "resuming over rows of other axis values kept them"

# another sweep's output is refused, not overwritten
checks=$((checks + 1))
"$BIN" sweep "$TMP/sw.cfg" -o "$TMP/full.csv" --resume 2>"$TMP/other.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "expected the header of sweep" "$TMP/other.err" ||
	fail "resume on another sweep's output: exit $rc: $(cat "$TMP/other.err")"
cmp -s "$TMP/full.csv" "$TMP/part.csv" || fail "a refused resume changed the file"

# a file that starts with a NUL byte (or has one in its header) is not a
# trainsim CSV: refused, exit 2, left as it was (it was overwritten, exit 0)
for what in start header; do
	checks=$((checks + 1))
	if [ $what = start ]; then
		{ printf '\0'; cat "$TMP/part.csv"; } >"$TMP/nul.csv"
	else
		{ printf 'point,no\0des\n'; tail -n +2 "$TMP/part.csv"; } >"$TMP/nul.csv"
	fi
	cp "$TMP/nul.csv" "$TMP/nul.keep"
	"$BIN" sweep "$TMP/long.cfg" -o "$TMP/nul.csv" --resume >/dev/null 2>"$TMP/nul.err"
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "nul.csv:[12]: found a NUL byte, expected \(a\|the header of a\) trainsim sweep CSV" "$TMP/nul.err" ||
		fail "resume over a NUL at the $what: exit $rc: $(cat "$TMP/nul.err")"
	cmp -s "$TMP/nul.csv" "$TMP/nul.keep" || fail "resume over a NUL at the $what changed the file"
done

# -o naming an input (the sweep file or its base) is refused, the input kept
cp "$SRC/configs/scenarios/default.cfg" "$TMP/own-base.cfg"
printf 'base = "own-base.cfg";\naxes = { nodes = [1, 2]; };\n' >"$TMP/own.cfg"
cp "$TMP/own.cfg" "$TMP/own.keep"
cp "$TMP/own-base.cfg" "$TMP/own-base.keep"
for o in "$TMP/own.cfg" "$TMP/./own-base.cfg"; do
	checks=$((checks + 1))
	"$BIN" sweep "$TMP/own.cfg" -o "$o" >"$TMP/own.out" 2>"$TMP/own.err"
	rc=$?
	[ "$rc" -eq 1 ] && grep -qF "\"$o\", the same file as the input" "$TMP/own.err" ||
		fail "sweep -o $o: exit $rc: $(cat "$TMP/own.err")"
	cmp -s "$TMP/own.cfg" "$TMP/own.keep" && cmp -s "$TMP/own-base.cfg" "$TMP/own-base.keep" ||
		fail "sweep -o $o changed its input"
done

# bad sweep files: one line naming file, line, key; exit 2
bad() {
	local name=$1 want=$2 text=$3 rc
	checks=$((checks + 1))
	printf '%s\n' "$text" >"$TMP/$name.cfg"
	"$BIN" sweep "$TMP/$name.cfg" >/dev/null 2>"$TMP/$name.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] || fail "$name: not one line: $(cat "$TMP/$name.err")"
	grep -qF -- "$want" "$TMP/$name.err" || fail "$name: lacks '$want': $(cat "$TMP/$name.err")"
}
bad nobase "found no base scenario" 'axes = { nodes = [1]; };'
bad noaxes "found no axes" 'base = "x.cfg";'
bad empty "empty.cfg:1" 'base = "x.cfg"; axes = { nodes = []; };'
bad zipn "expected 2 as on axis nodes" 'base = "x.cfg"; zip = true; axes = { nodes = [1, 2]; gpus_per_node = [1, 2, 4]; };'
# one count under its two names (the scenario's and its cluster's): every
# point would be invalid; refused naming both axes
bad alias 'alias.cfg:3: cluster.nodes: found axes "nodes" (line 2) and "cluster.nodes", which set the same count' \
	"$(printf 'base = "x.cfg";\naxes = { nodes = [1, 2];\n  "cluster.nodes" = [2, 4]; };')"
bad aliasgrp 'aliasgrp.cfg:1: nics_per_node: found axes "cluster.nics_per_node" (line 1) and "nics_per_node"' \
	'base = "x.cfg"; axes = { cluster = { nics_per_node = [4]; }; nics_per_node = [8]; };'
bad unknown "axis" 'base = "x.cfg"; axis = { nodes = [1]; };'
bad scalar "found 1" 'base = "x.cfg"; axes = { nodes = 1; };'
bad syntax "syntax.cfg:1" 'base = "x.cfg"; axes = { nodes = [1, 2; };'
# every point invalid for the same reason, known before any runs: an error,
# not a file of invalid rows
bad nokey 'nokey.cfg:2: nodez: found unknown key "nodez", expected a key of the file' \
	"base = \"$SRC/configs/scenarios/default.cfg\";
axes = { nodez = [1, 2]; };"
bad nokey2 'nokey2.cfg:2: training.micro_bach: found unknown key "micro_bach"' \
	"base = \"$SRC/configs/scenarios/default.cfg\";
axes = { training = { micro_bach = [1, 2]; }; };"
bad nobasefile "nobasefile.cfg:1: base: $TMP/nothere.cfg: cannot open the file" \
	'base = "nothere.cfg"; axes = { nodes = [1, 2]; };'
printf 'name = "x";\nmodle = "gpt3-1.3b";\n' >"$TMP/typo.cfg"
bad basekey "basekey.cfg:1: base: $TMP/typo.cfg:2: modle: found unknown key" \
	'base = "typo.cfg"; axes = { nodes = [1, 2]; };'
checks=$((checks + 1))
"$BIN" sweep "$TMP/nokey.cfg" -o "$TMP/nokey.csv" 2>/dev/null
[ -e "$TMP/nokey.csv" ] && fail "a sweep refused before its points wrote its output"
checks=$((checks + 1))
"$BIN" sweep "$TMP/sw.cfg" -j 0 >/dev/null 2>&1
[ $? -eq 1 ] || fail "-j 0 is not a usage error"
# progress: a live line on a terminal (script(1), of Debian's essential
# bsdutils, gives the sweep one), none with -q; the CSV is the same either way
command -v script >/dev/null || fail "script(1) is missing (Debian package bsdutils)"
if command -v script >/dev/null; then
	checks=$((checks + 2))
	script -qec "'$BIN' sweep '$TMP/sw.cfg' -j 1 -o '$TMP/tty.csv'" /dev/null >"$TMP/tty.err" 2>&1
	grep -q "24/24 points" "$TMP/tty.err" || fail "no progress line on a terminal: $(head -c 300 "$TMP/tty.err")"
	script -qec "'$BIN' sweep '$TMP/sw.cfg' -j 1 -q -o '$TMP/ttyq.csv'" /dev/null >"$TMP/ttyq.err" 2>&1
	[ -s "$TMP/ttyq.err" ] && fail "-q printed on a terminal: $(head -c 300 "$TMP/ttyq.err")"
	cmp -s "$TMP/tty.csv" "$TMP/ttyq.csv" || fail "-q changed the CSV"
fi
finish
