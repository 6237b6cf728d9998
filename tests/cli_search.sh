#!/bin/bash
# trainsim search as a tool: --format csv and json agree with the table, the
# exported winner runs to the search's figures, -o OUT keeps OUT.state and
# --resume takes it (and refuses other inputs), progress on a terminal only,
# the reason for every GPU count skipped.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
cat >"$TMP/s.cfg" <<'CFG'
model = "gpt3-1.3b";
cluster = "dgx-a100-80gb";
nodes = 1;
training = { framework = "megatron"; global_batch = 8; micro_batch = 1; seq_len = 2048; };
CFG
S="$TMP/s.cfg"

# the three formats rank the same candidates
ok text search "$S" --max-gpus 4 --top 5 -j2
ok csv search "$S" --max-gpus 4 --top 5 -j2 --format csv
ok json search "$S" --max-gpus 4 --top 5 -j2 --format json --export-best "$TMP/best.cfg"
py json '
import csv, json, re, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
text = open(sys.argv[3]).read()
assert d["kind"] == "search" and d["objective"] == "time", d.keys()
c = d["counts"]
assert c["configurations"] == 315, c
assert c["pruned"] + c["simulated"] + c["bounded"] + c["aliases"] == c["configurations"], c
assert c["ranked"] + c["failed"] + c["did_not_fit"] == c["simulated"], c
assert len(d["candidates"]) == len(rows) == 5
for j, r in zip(d["candidates"], rows):
    s = j["settings"]
    for k in ("gpus", "tp", "pp", "cp", "dp", "zero", "micro_batch"):
        assert int(r[k]) == s[k], (k, r, s)
    assert float(r["iteration_time_s"]) == j["result"]["iteration_time_s"], r
m = re.search(r"^(\d+) configurations: (\d+) pruned", text, re.M)
assert m and int(m.group(1)) == c["configurations"] and int(m.group(2)) == c["pruned"], m
' "$TMP/csv" "$TMP/text"

# the winner, run: the search's iteration time and memory (run prints 10 digits)
ok run run "$TMP/best.cfg" --format json
py run '
import json, sys
r = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))["candidates"][0]
for k in ("iteration_time_s", "memory_per_gpu_bytes"):
    assert abs(r[k] - b["result"][k]) <= 1e-9 * b["result"][k], (k, r[k], b["result"][k])
assert r["gpus"] == b["settings"]["gpus"], r["gpus"]
' "$TMP/json"

# --granularity layer: GPT-3 13B's winner takes tensor parallelism inside the
# node (which stage does not give as layer does), runs at layer granularity,
# is exported so, and runs to the search's figures too
ok ljson search "$S" --max-gpus 4 --top 5 -j2 --format json --granularity layer \
	--set 'model="gpt3-13b"' --export-best "$TMP/lbest.cfg"
grep -q '^  granularity = "layer";' "$TMP/lbest.cfg" || fail "$(grep granularity "$TMP/lbest.cfg")"
ok lrun run "$TMP/lbest.cfg" --format json
py lrun '
import json, sys
r = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))["candidates"][0]
for k in ("iteration_time_s", "memory_per_gpu_bytes"):
    assert abs(r[k] - b["result"][k]) <= 1e-9 * b["result"][k], (k, r[k], b["result"][k])
' "$TMP/ljson"

# a model file named relative to the scenario: the export, elsewhere, still finds it
mkdir -p "$TMP/sub/m" "$TMP/elsewhere"
cp "$SRC/models/gpt3-1.3b.cfg" "$TMP/sub/m/mine.cfg"
sed 's|^model = .*|model = "m/mine.cfg";|' "$S" >"$TMP/sub/s.cfg"
(cd "$TMP" && "$BIN" search sub/s.cfg --max-gpus 2 -j2 --export-best elsewhere/b.cfg >/dev/null 2>"$TMP/rel.err") ||
	fail "search with a relative model: $(cat "$TMP/rel.err")"
grep -q "^model = \"/.*/sub/m/mine.cfg\";" "$TMP/elsewhere/b.cfg" || fail "$(grep model "$TMP/elsewhere/b.cfg")"
ok rel run "$TMP/elsewhere/b.cfg"

# -o OUT keeps OUT.state; --resume takes it: nothing simulated again, same rows
"$BIN" search "$S" --max-gpus 4 --top 5 -j2 --format csv -o "$TMP/out.csv" >"$TMP/o" 2>&1 ||
	fail "search -o: $(cat "$TMP/o")"
[ ! -s "$TMP/o" ] && [ -s "$TMP/out.csv.state" ] && cmp -s "$TMP/out.csv" "$TMP/csv" ||
	fail "search -o: not the report in OUT and its state in OUT.state"
n=$(($(wc -l <"$TMP/out.csv.state") - 1))
head -n 11 "$TMP/out.csv.state" >"$TMP/cut" && mv "$TMP/cut" "$TMP/out.csv.state"
"$BIN" search "$S" --max-gpus 4 --top 5 -j2 --format csv -o "$TMP/out2.csv" >/dev/null 2>&1
cp "$TMP/out.csv.state" "$TMP/out2.csv.state"
"$BIN" search "$S" --max-gpus 4 --top 5 -j2 --format csv -o "$TMP/out2.csv" --resume 2>"$TMP/r.err" ||
	fail "resume: $(cat "$TMP/r.err")"
cmp -s "$TMP/out2.csv" "$TMP/csv" || fail "a resumed search ranks otherwise"
"$BIN" search "$S" --max-gpus 4 --top 5 -j2 -o "$TMP/out2.txt" >/dev/null 2>&1
cp "$TMP/out.csv.state" "$TMP/out2.txt.state"
"$BIN" search "$S" --max-gpus 4 --top 5 -j2 -o "$TMP/out2.txt" --resume 2>/dev/null
grep -q "(10 of them taken from the state file)" "$TMP/out2.txt" ||
	fail "resume does not say what it took: $(tail -3 "$TMP/out2.txt")"
[ "$(($(wc -l <"$TMP/out2.txt.state") - 1))" -eq "$n" ] || fail "the resumed state is not whole"
"$BIN" search "$S" --max-gpus 4 -o "$TMP/out2.txt" --resume --set training.global_batch=16 \
	>/dev/null 2>"$TMP/r.err" && fail "resumed a search of other inputs"
grep -q "out2.txt.state: found the state of a search with other inputs" "$TMP/r.err" ||
	fail "resume of other inputs: $(cat "$TMP/r.err")"
# a record changed on disk (its result's bytes set to 0xff, the line's form
# kept) is refused by its checksum, naming file and line, not ranked
awk 'NR == 3 { gsub(/[0-9a-f]/, "f", $13) } { print }' "$TMP/out.csv.state" >"$TMP/out2.txt.state"
cmp -s "$TMP/out.csv.state" "$TMP/out2.txt.state" && fail "the record was not changed"
"$BIN" search "$S" --max-gpus 4 --top 5 -j2 -o "$TMP/out2.txt" --resume >/dev/null 2>"$TMP/r.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "out2.txt.state:3: found a candidate's result whose checksum does not match" "$TMP/r.err" ||
	fail "resume of a changed record: exit $rc: $(cat "$TMP/r.err")"
"$BIN" search "$S" --resume >/dev/null 2>"$TMP/r.err" && fail "resumed without -o"
grep -q -- "--resume: found no -o, expected -o OUT" "$TMP/r.err" || fail "$(cat "$TMP/r.err")"

# a state file that cannot be written (a file size limit: EFBIG): the
# message says why, and no empty state file is left (its first write
# failed); a resumed search's rewrite that fails keeps the old state whole
# (limit: bash's 1024-byte blocks; stderr through a pipe, which has none)
limited() { # BLOCKS ARGS...
	local blocks=$1
	shift
	bash -c 'trap "" XFSZ; ulimit -f "$0"; exec "$@"' "$blocks" "$BIN" search "$S" --max-gpus 4 \
		--top 5 -j2 "$@" 2>&1 >/dev/null | cat >"$TMP/lim.err"
	return "${PIPESTATUS[0]}"
}
checks=$((checks + 1))
rm -f "$TMP"/lim.txt*
limited 0 -o "$TMP/lim.txt"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'writing ".*lim.txt.state" failed (File too large)' "$TMP/lim.err" ||
	fail "state write at a 0-byte limit: exit $rc: $(cat "$TMP/lim.err")"
[ -e "$TMP/lim.txt.state" ] && fail "a failed state write left $(wc -c <"$TMP/lim.txt.state") bytes"
[ -n "$(ls -A "$TMP" | grep '^\.lim\.txt')" ] && fail "a failed state write left $(ls -A "$TMP" | grep '^\.lim')"
checks=$((checks + 1))
cp "$TMP/out.csv.state" "$TMP/lim.txt.state"
limited 1 -o "$TMP/lim.txt" --resume
rc=$?
[ "$rc" -eq 2 ] && grep -q 'writing ".*lim.txt.state" failed (File too large)' "$TMP/lim.err" ||
	fail "a resumed state rewrite at a 1-block limit: exit $rc: $(cat "$TMP/lim.err")"
cmp -s "$TMP/out.csv.state" "$TMP/lim.txt.state" || fail "a failed rewrite of the state changed it"

# progress: nothing on stderr without a terminal (above); a live line with
# the time left on one
if script -qec "true" /dev/null >/dev/null 2>&1; then
	script -qec "'$BIN' search '$S' --max-gpus 2 -j2 >/dev/null" "$TMP/tty" >/dev/null 2>&1
	grep -q "trainsim search: .*candidates, .* ETA" "$TMP/tty" ||
		fail "no progress on a terminal: $(head -c 300 "$TMP/tty")"
	script -qec "'$BIN' search '$S' --max-gpus 2 -j2 --quiet >/dev/null" "$TMP/tty" >/dev/null 2>&1
	grep -q "ETA" "$TMP/tty" && fail "progress on a terminal with --quiet"
	checks=$((checks + 2))
fi

# a cluster fixing its nodes: every GPU count skipped, and why
cat >"$TMP/inl.cfg" <<'CFG'
model = "gpt3-1.3b";
cluster = { base = "dgx-a100-80gb"; nodes = 2; };
training = { framework = "megatron"; global_batch = 48; micro_batch = 1; seq_len = 2048; };
CFG
# no candidate fits: the report says so and what would fit, exit status 3
"$BIN" search "$TMP/inl.cfg" --max-gpus 16 >"$TMP/inl" 2>"$TMP/inl.err"
rc=$?
checks=$((checks + 1))
[ "$rc" -eq 3 ] || fail "a search where nothing fits: exit $rc, expected 3"
grep -q "^trainsim search: no setting fits in GPU memory$" "$TMP/inl.err" ||
	fail "a search where nothing fits: $(cat "$TMP/inl.err")"
grep -q "^No configuration fits in GPU memory" "$TMP/inl" || fail "no line says nothing fits"
[ "$(grep -c "^skipped .* GPUs .*inl.cfg:2: cluster.nodes: found it beside" "$TMP/inl")" -eq 5 ] ||
	fail "skipped GPU counts without their reason: $(tail -6 "$TMP/inl")"
"$BIN" search "$TMP/inl.cfg" --max-gpus 16 --export-best "$TMP/none.cfg" >/dev/null 2>"$TMP/e.err" &&
	fail "exported a winner of nothing"
grep -q -- "--export-best: found no candidate that fits" "$TMP/e.err" || fail "$(cat "$TMP/e.err")"
"$BIN" search "$S" --format yaml >/dev/null 2>"$TMP/f.err" && fail "took --format yaml"
grep -q "yaml" "$TMP/f.err" || fail "--format yaml: $(cat "$TMP/f.err")"
"$BIN" search "$S" --granularity op >/dev/null 2>"$TMP/g.err" && fail "took --granularity op"
grep -q -- '--granularity: found "op", expected auto, layer (the same: run.s figures) or stage' "$TMP/g.err" ||
	fail "--granularity op: $(cat "$TMP/g.err")"
# --granularity auto is the default (run's figures): the same table
"$BIN" search "$S" --max-gpus 4 --top 5 -j2 --format csv --granularity auto >"$TMP/auto.csv" 2>/dev/null ||
	fail "--granularity auto refused"
cmp -s "$TMP/auto.csv" "$TMP/csv" || fail "--granularity auto differs from the default"
# a model too large for every setting of one GPU: the table is empty, the
# report says what would fit (simulated: the scenario on a GPU with more
# memory or more GPUs, there more nodes with ZeRO-3 and full
# recomputation), the status is 3 in every format
cat >"$TMP/big.cfg" <<'CFG'
model = "llama2-7b";
cluster = "dgx-a100-40gb";
nodes = 1;
gpus_per_node = 1;
training = { framework = "megatron"; global_batch = 8; micro_batch = 8; seq_len = 2048; };
parallel = { zero = 0; };
CFG
for f in text json; do
	"$BIN" search "$TMP/big.cfg" --max-gpus 1 --format $f >"$TMP/big.$f" 2>"$TMP/big.err"
	rc=$?
	checks=$((checks + 1))
	[ "$rc" -eq 3 ] || fail "--format $f, nothing fits: exit $rc ($(cat "$TMP/big.err"))"
done
grep -q "^  1 -> .* nodes (.* GPUs), ZeRO-3, full recomputation: " "$TMP/big.text" ||
	fail "no remedy: $(cat "$TMP/big.text")"
# run's remedies for Llama-2-13B on one DGX A100 40GB at 4,096 tokens,
# global batch 64, ZeRO-2, micro-batch 1: neither ZeRO-3 nor full
# recomputation alone fits, both together do (32.1 GiB) and beat more TP
# (TP 8, 20.29 s), so they are offered beside it and lead the list; with
# them set, run fits, at the remedy's iteration time
SCEN=$SRC/configs/scenarios/default.cfg
L13="--set model=llama2-13b --set cluster=dgx-a100-40gb --set training.seq_len=4096 --set training.global_batch=64 --set training.micro_batch=1"
checks=$((checks + 2))
"$BIN" run "$SCEN" $L13 --set parallel.zero=2 >"$TMP/l13.run" 2>&1
rem=$(grep -A1 '^what would fit' "$TMP/l13.run" | grep '^  ZeRO stage 3 and full recomputation: ')
[ -n "$rem" ] && grep -q '^  TP 1 -> 8 ' "$TMP/l13.run" ||
	fail "run's remedies at ZeRO-2 do not lead with ZeRO-3 and full recomputation: $(grep -A4 'what would fit' "$TMP/l13.run")"
it=$("$BIN" run "$SCEN" $L13 --set parallel.zero=3 --set training.recompute=full | awk '/^iteration time/ {print $3}')
case "$rem" in *"iteration $it s "*) ;; *) fail "the remedy's iteration ($rem) is not run's ($it s)" ;; esac

finish
