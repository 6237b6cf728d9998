#!/bin/bash
# examples/slurm run locally, the job array emulated by a loop: the merged CSV
# equals the unsharded sweep byte for byte (to a file and to standard output),
# whatever the order of the parts; a part run twice, cut short or missing, a
# part of another setup and a locked part file are refused, nothing written.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

EX=$SRC/examples/slurm
export TRAINSIM=$BIN SWEEP=$EX/sweep.cfg OUT=$TMP/results

checks=$((checks + 1))
"$BIN" sweep "$SWEEP" -o "$TMP/whole.csv" -j 2 2>"$TMP/whole.err" || fail "the unsharded sweep: $(cat "$TMP/whole.err")"
# the array's tasks, last first: the parts do not depend on the order they run in
for k in 4 3 2 1; do
	checks=$((checks + 1))
	SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_COUNT=4 bash "$EX/sweep.sbatch" 2>"$TMP/task$k.err" ||
		fail "sweep.sbatch task $k: $(cat "$TMP/task$k.err")"
done
checks=$((checks + 1))
bash "$EX/merge.sbatch" 2>"$TMP/merge.err" || fail "merge.sbatch: $(cat "$TMP/merge.err")"
checks=$((checks + 1))
cmp -s "$TMP/whole.csv" "$OUT/sweep.csv" || fail "the merged CSV differs from the unsharded run"
py whole.csv '
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
assert [int(r["point"]) for r in rows] == list(range(40)), [r["point"] for r in rows]
assert sum(r["status"] == "ok" for r in rows) >= 30, "too few ok rows to compare"
'
# each part holds its own points, interleaved, ids from the whole sweep
py results/part-2.csv '
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("point,") and lines[0].endswith(",sweep_digest"), lines[0][:80]
assert all("; shard 2/4 of 40 points; axes " in l.rsplit(",", 1)[1] for l in lines[1:]), lines[1][-120:]
assert [int(l.split(",")[0]) for l in lines[1:]] == list(range(1, 40, 4)), lines[1:]
'
# an array counted from 0 (--array=0-3) gives the same parts
checks=$((checks + 1))
for k in 0 1 2 3; do
	OUT=$TMP/zero SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=4 \
		bash "$EX/sweep.sbatch" 2>>"$TMP/zero.err"
done
for k in 1 2 3 4; do cmp -s "$OUT/part-$k.csv" "$TMP/zero/part-$k.csv" || fail "--array=0-3: part $k differs"; done
# to standard output, in any order, one part from standard input: the bytes
# of the unsharded sweep's standard output
checks=$((checks + 1))
"$BIN" sweep "$SWEEP" >"$TMP/whole.out" 2>/dev/null
"$BIN" merge "$OUT/part-3.csv" - "$OUT/part-1.csv" "$OUT/part-4.csv" <"$OUT/part-2.csv" >"$TMP/merged.out" 2>"$TMP/m.err" ||
	fail "merge to standard output: $(cat "$TMP/m.err")"
cmp -s "$TMP/whole.out" "$TMP/merged.out" || fail "merge to standard output differs from sweep to standard output"
# the merged file resumes as the whole sweep's own: nothing to do, nothing changed
checks=$((checks + 1))
cp "$OUT/sweep.csv" "$TMP/again.csv"
"$BIN" sweep "$SWEEP" -o "$TMP/again.csv" --resume 2>"$TMP/again.err" || fail "resume of the merged file: $(cat "$TMP/again.err")"
cmp -s "$OUT/sweep.csv" "$TMP/again.csv" || fail "resuming the merged file changed it"
# a re-run task resumes its complete part and changes nothing
checks=$((checks + 1))
cp "$OUT/part-3.csv" "$TMP/part-3.keep"
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4 bash "$EX/sweep.sbatch" 2>/dev/null || fail "re-run of task 3"
cmp -s "$OUT/part-3.csv" "$TMP/part-3.keep" || fail "a re-run task changed its complete part"
# a part cut inside a row (a killed task) resumes to the same bytes
checks=$((checks + 1))
head -c $(($(wc -c <"$OUT/part-3.csv") - 40)) "$TMP/part-3.keep" >"$OUT/part-3.csv"
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4 bash "$EX/sweep.sbatch" 2>/dev/null || fail "resume of task 3"
cmp -s "$OUT/part-3.csv" "$TMP/part-3.keep" || fail "a resumed part differs from an uninterrupted one"

# refusals: exit 2, one line naming the file, no output written
refused() {
	local name=$1 want=$2 rc
	shift 2
	checks=$((checks + 1))
	rm -f "$TMP/bad.csv"
	"$BIN" merge "$@" -o "$TMP/bad.csv" 2>"$TMP/$name.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2: $(cat "$TMP/$name.err")"
	grep -qF -- "$want" "$TMP/$name.err" || fail "$name: lacks '$want': $(cat "$TMP/$name.err")"
	[ -e "$TMP/bad.csv" ] && fail "$name: a refused merge wrote its output"
}
P="$OUT/part"
refused missing "part 4/4 is missing" "$P-1.csv" "$P-2.csv" "$P-3.csv"
refused twice "part-2.csv:2: sweep_digest: found part 2/4, which" "$P-1.csv" "$P-2.csv" "$P-2.csv" "$P-3.csv" "$P-4.csv"
head -n 6 "$P-4.csv" >"$TMP/short.csv"
refused short "short.csv:7: found 5 of the 10 rows of part 4/4" "$P-1.csv" "$P-2.csv" "$P-3.csv" "$TMP/short.csv"
refused whole "whole.csv:2: sweep_digest: found \"base " "$TMP/whole.csv"
"$BIN" sweep "$SWEEP" --shard 4/4 --set training.seq_len=1024 -o "$TMP/other.csv" 2>/dev/null
refused otherbase "other.csv:2: sweep_digest: found part 4/4 of another base scenario (or --set)" "$P-1.csv" "$P-2.csv" "$P-3.csv" "$TMP/other.csv"
sed 's/micro_batch = \[1, 2\]/micro_batch = [1, 4]/' "$SWEEP" >"$EX/.axes-test.cfg"
"$BIN" sweep "$EX/.axes-test.cfg" --shard 4/4 -o "$TMP/axes.csv" 2>/dev/null
rm -f "$EX/.axes-test.cfg"
refused otheraxes "axes.csv:2: sweep_digest: found part 4/4 of another sweep (other axes)" "$P-1.csv" "$P-2.csv" "$P-3.csv" "$TMP/axes.csv"
# a row with one field more than the header (an empty one after "ok") would shift the merged columns
sed '3s/,ok,/,ok,,/' "$P-2.csv" >"$TMP/extra.csv"
cmp -s "$P-2.csv" "$TMP/extra.csv" && fail "extra: the edit did not apply"
nf=$(head -n 1 "$P-2.csv" | tr -cd , | wc -c)
refused extra "extra.csv:3: found $((nf + 2)) fields, expected $((nf + 1)) as the header has" "$P-1.csv" "$TMP/extra.csv" "$P-3.csv" "$P-4.csv"

# what cannot be a part is refused at once, never read without bound (each
# under a memory and a time limit, so a reader that runs away fails here)
bounded() {
	local name=$1 want=$2 rc
	shift 2
	checks=$((checks + 1))
	rm -f "$TMP/bad.csv"
	(ulimit -v 2000000 && timeout 20 "$BIN" merge "$@" -o "$TMP/bad.csv") 2>"$TMP/$name.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2: $(head -c 300 "$TMP/$name.err")"
	grep -qF -- "$want" "$TMP/$name.err" || fail "$name: lacks '$want': $(head -c 300 "$TMP/$name.err")"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] || fail "$name: not one line: $(head -c 300 "$TMP/$name.err")"
	[ -e "$TMP/bad.csv" ] && fail "$name: a refused merge wrote its output"
}
bounded devzero "/dev/zero: found something that is not a regular file" /dev/zero "$P-1.csv"
mkfifo "$TMP/fifo"
bounded fifo "fifo: found something that is not a regular file" "$TMP/fifo" "$P-1.csv"
bounded stdinzero "standard input:1: found a NUL byte" - "$P-1.csv" </dev/zero
yes | bounded stdinyes 'standard input:2: sweep_digest: found "y", expected the digest of one part' - "$P-1.csv"
# a true header and first row, then rows without end: cut at the rows the part can hold
{ head -n 2 "$P-2.csv" && yes "$(sed -n 3p "$P-2.csv")"; } |
	bounded endless "standard input: found more than" "$P-1.csv" - "$P-3.csv" "$P-4.csv"

# --set of an axis key, a bad --shard: usage errors
checks=$((checks + 1))
"$BIN" sweep "$SWEEP" --set nodes=2 >/dev/null 2>"$TMP/setaxis.err"
[ $? -eq 1 ] && grep -q 'a key that is an axis' "$TMP/setaxis.err" || fail "--set of an axis: $(cat "$TMP/setaxis.err")"
for s in 0/4 5/4 4 a/b 1/0; do
	checks=$((checks + 1))
	"$BIN" sweep "$SWEEP" --shard "$s" >/dev/null 2>"$TMP/shard.err"
	[ $? -eq 1 ] && grep -q "expected K/N" "$TMP/shard.err" || fail "--shard $s: $(cat "$TMP/shard.err")"
done
# --set reaches every point: a larger global batch, a longer iteration
py whole.csv '
import csv, subprocess, sys
def rows(extra):
    out = subprocess.run([sys.argv[2], "sweep", sys.argv[3], "--shard", "1/8"] + extra,
                         capture_output=True, text=True, check=True).stdout
    return [r for r in csv.DictReader(l for l in out.splitlines() if not l.startswith("#")) if r["status"] == "ok"]
a, b = rows([]), rows(["--set", "training.global_batch=2048"])
assert [r["point"] for r in a] == [r["point"] for r in b] and a, ([r["point"] for r in a], [r["point"] for r in b])
assert all(float(y["iteration_time_s"]) > float(x["iteration_time_s"]) for x, y in zip(a, b)), "--set changed nothing"
' "$BIN" "$SWEEP"

# a part file locked by another writer is refused, not interleaved
if command -v flock >/dev/null; then
	checks=$((checks + 1))
	cp "$TMP/part-3.keep" "$TMP/locked.csv"
	flock "$TMP/locked.csv" sleep 5 &
	lockpid=$!
	sleep 0.5
	"$BIN" sweep "$SWEEP" --shard 3/4 --resume -o "$TMP/locked.csv" 2>"$TMP/lock.err"
	rc=$?
	kill "$lockpid" 2>/dev/null
	wait "$lockpid" 2>/dev/null
	[ "$rc" -eq 2 ] && grep -q "locked by another process" "$TMP/lock.err" ||
		fail "a locked part: exit $rc: $(cat "$TMP/lock.err")"
	cmp -s "$TMP/locked.csv" "$TMP/part-3.keep" || fail "a refused writer changed the locked part"
fi
# every figure of the README's prose is the sweep's (its point count, its
# axes' values in sweep.cfg) or an input
. "$(dirname "$0")/examplelib.bash"
PROSE_OUT=$TMP/whole.out check_prose slurm
finish
