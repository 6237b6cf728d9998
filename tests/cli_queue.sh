#!/bin/bash
# trainsim queue: the interface (JOBS.csv --cluster --nodes --policy -o
# --format json), EASY backfill against strict FIFO on a hand-made case,
# preemption's requeue and its figures by hand, two
# scenario jobs that share an oversubscribed fabric each taking longer
# together than alone (from trainsim's own simulation), a node-count sweep
# naming the smallest cluster, every JSON summary against its schema, and
# errors that name the file, line and column.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

# 2 nodes of 8 GPUs: A (8 GPUs, 100 s) runs; B (16 GPUs) waits for it, its
# reservation at 100 s; C (8 GPUs, limit 30 s) fits before it: backfill
# starts C at once (2 s), FIFO after B (150 s). D (200 s) would delay B:
# it waits under both.
cat >"$TMP/hand.csv" <<'CSV'
id,submit_s,gpus,duration_s,time_limit_s,user
A,0,8,100,100,ann
B,1,16,50,50,bo
C,2,8,30,30,ann
D,3,8,200,200,cy
CSV
for p in fifo backfill; do
	ok $p.json queue "$TMP/hand.csv" --cluster dgx-h100 --nodes 2 --policy $p \
		-o "$TMP/$p.csv" --format json --quiet
done
py backfill.csv '
import csv, sys
want = {"fifo": {"A": 0, "B": 100, "C": 150, "D": 150},
        "backfill": {"A": 0, "B": 100, "C": 2, "D": 150}}
for p in want:
    rows = {r["id"]: r for r in csv.DictReader(open(sys.argv[1].replace("backfill.csv", p + ".csv")))}
    for k, v in want[p].items():
        if float(rows[k]["start_s"]) != v:
            sys.exit("%s: %s starts at %s, expected %s" % (p, k, rows[k]["start_s"], v))
    for col in ("id", "submit_s", "start_s", "end_s", "gpus"):
        if col not in rows["A"]:
            sys.exit("no column " + col)
'
py backfill.json '
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("jobs", "utilisation", "mean_wait_s", "p90_wait_s", "makespan_s"):
    if k not in j:
        sys.exit("no key " + k)
# by hand: GPU-s 800 + 800 + 240 + 1600 = 3440 of 16 GPUs x 350 s
if j["jobs"] != 4 or abs(j["utilisation"] - 3440 / 5600) > 1e-9 or j["makespan_s"] != 350:
    sys.exit("jobs %r utilisation %r makespan %r" % (j["jobs"], j["utilisation"], j["makespan_s"]))
# waits 0, 99, 0, 147: mean 61.5
if abs(j["mean_wait_s"] - 61.5) > 1e-9:
    sys.exit("mean wait %r, expected 61.5" % j["mean_wait_s"])
'

# Preemption (--preempt) by hand on one node of 8 GPUs, checkpoints every
# 30 s, the default 600 s restart. L1 (4 GPUs, 100 s) runs from 0, L2 (4
# GPUs, 100 s) from 10; at 50 H (4 GPUs, 20 s, priority 10) does not fit and
# requeues the younger L2, which ran 40 s, keeps its checkpoint at 30 s and
# loses 10 s x 4 GPUs = 40 GPU-s; H runs 50-70; L2, back in its place ahead
# of E, restarts at 70 with 70 s of work and the 600 s restart: 70-740. E (4
# GPUs, 10 s, priority 0, at 55) may not preempt its own tier: it runs when
# L1 ends, 100-110. GPU-seconds of runs: 400 + 160 + 80 + 670 x 4 + 40 =
# 3360 of 8 GPUs x 740 s. Without --preempt: H 100-120, E 110-120, no loss.
cat >"$TMP/tiers.csv" <<'CSV'
id,submit_s,gpus,duration_s,priority
L1,0,4,100,0
L2,10,4,100,0
H,50,4,20,10
E,55,4,10,0
CSV
ok preempt.json queue "$TMP/tiers.csv" --cluster dgx-h100 --nodes 1 --preempt --checkpoint 30 \
	-o "$TMP/preempt.csv" --format json --quiet
ok nopreempt.json queue "$TMP/tiers.csv" --cluster dgx-h100 --nodes 1 --checkpoint 30 \
	-o "$TMP/nopreempt.csv" --format json --quiet
ok preempt.txt queue "$TMP/tiers.csv" --cluster dgx-h100 --nodes 1 --preempt --checkpoint 30 --quiet
ok nopreempt.txt queue "$TMP/tiers.csv" --cluster dgx-h100 --nodes 1 --checkpoint 30 --quiet
py preempt.json '
import csv, json, sys
d = sys.argv[1].rsplit("/", 1)[0]
want = {"preempt": {"L1": (0, 100, 0), "L2": (10, 740, 1), "H": (50, 70, 0), "E": (100, 110, 0)},
        "nopreempt": {"L1": (0, 100, 0), "L2": (10, 110, 0), "H": (100, 120, 0), "E": (110, 120, 0)}}
for p, w in want.items():
    rows = {r["id"]: r for r in csv.DictReader(open(d + "/" + p + ".csv"))}
    for k, (a, b, n) in w.items():
        got = (float(rows[k]["start_s"]), float(rows[k]["end_s"]), int(rows[k]["restarts"]))
        if got != (a, b, n):
            sys.exit("%s: %s runs %r (start, end, restarts), expected %r" % (p, k, got, (a, b, n)))
j = json.load(open(d + "/preempt.json"))
n = json.load(open(d + "/nopreempt.json"))
# the JSON prints reals to 10 significant digits: 1e-9 relative
if j["preempted"] != 1 or j["requeued"] != 0 or j["failures"] != 0:
    sys.exit("preempted %r requeued %r failures %r, expected 1, 0, 0" % (j["preempted"], j["requeued"], j["failures"]))
for k in ("preempt_lost_gpu_hours", "lost_gpu_hours"):
    if abs(j[k] - 40 / 3600) > 1e-9 * 40 / 3600:
        sys.exit("%s %r, expected 40 GPU-s" % (k, j[k]))
if abs(j["busy_gpu_hours"] - 3360 / 3600) > 1e-9 or j["makespan_s"] != 740:
    sys.exit("busy %r GPU-h, makespan %r: expected 3360 GPU-s, 740 s" % (j["busy_gpu_hours"], j["makespan_s"]))
if abs(j["utilisation"] - 3360 / (8 * 740)) > 1e-9:
    sys.exit("utilisation %r, expected 3360 / 5920" % j["utilisation"])
if n["preempted"] != 0 or n["preempt_lost_gpu_hours"] != 0 or n["lost_gpu_hours"] != 0:
    sys.exit("without --preempt: preempted %r, lost %r" % (n["preempted"], n["lost_gpu_hours"]))
'
checks=$((checks + 1))
head -n 1 "$TMP/preempt.txt" | grep -q ', preemption$' &&
	grep -q '^  preemption  *1 run requeued for a higher tier, 0.0111 GPU-h lost$' "$TMP/preempt.txt" ||
	fail "--preempt text: $(cat "$TMP/preempt.txt")"
checks=$((checks + 1))
grep -q 'preemption' "$TMP/nopreempt.txt" && fail "text without --preempt speaks of preemption"

# A trace's recorded starts (recorded_start_s) beside the replay, on one
# node of 8 GPUs under FIFO: A, B, C, D run 0-100, 100-150, 150-160,
# 160-170. Recorded for A, B and D (C has none): waits 0, 120, 0, mean 40,
# nearest-rank p50 0, p90 120; replayed for the same jobs 0, 90, 130: mean
# 73.33, p50 90, p90 130. A recorded start before the submit is an error.
cat >"$TMP/rec.csv" <<'CSV'
id,submit_s,gpus,duration_s,recorded_start_s
A,0,8,100,0
B,10,8,50,130
C,20,8,10,
D,30,4,10,30
CSV
ok rec.json queue "$TMP/rec.csv" --cluster dgx-h100 --nodes 1 --policy fifo -o "$TMP/rec.jobs.csv" \
	--format json --quiet
ok rec.txt queue "$TMP/rec.csv" --cluster dgx-h100 --nodes 1 --policy fifo --quiet
py rec.json '
import csv, json, sys
j = json.load(open(sys.argv[1]))
want = {"recorded_jobs": 3, "recorded_mean_wait_s": 40, "recorded_p50_wait_s": 0,
        "recorded_p90_wait_s": 120, "recorded_max_wait_s": 120, "replayed_mean_wait_s": 220 / 3,
        "replayed_p50_wait_s": 90, "replayed_p90_wait_s": 130}
for k, v in want.items():
    if abs(j[k] - v) > 1e-9 * max(1, v):  # reals printed to 10 significant digits
        sys.exit("%s %r, expected %r" % (k, j[k], v))
rows = {r["id"]: r for r in csv.DictReader(open(sys.argv[1].replace("rec.json", "rec.jobs.csv")))}
got = {k: rows[k]["recorded_start_s"] for k in "ABCD"}
if got != {"A": "0", "B": "130", "C": "", "D": "30"}:
    sys.exit("recorded_start_s column %r" % got)
'
checks=$((checks + 1))
grep -q '^  recorded wait     mean 40 s, p50 0 s, p90 2 min as the input records; replayed mean 1.22 min, p50 1.5 min, p90 2.17 min (3 jobs)$' \
	"$TMP/rec.txt" || fail "recorded waits in the text: $(cat "$TMP/rec.txt")"
checks=$((checks + 1))
grep -q 'recorded' "$TMP/preempt.txt" && fail "a list without recorded starts compares waits"
printf 'id,submit_s,gpus,duration_s,recorded_start_s\nj1,50,8,100,40\n' >"$TMP/early.csv"
checks=$((checks + 1))
"$BIN" queue "$TMP/early.csv" --cluster dgx-h100 --nodes 1 >/dev/null 2>"$TMP/e6"
[ $? -eq 2 ] && grep -q 'early.csv:2: recorded_start_s: found "40"' "$TMP/e6" ||
	fail "recorded start before submit: $(cat "$TMP/e6")"

# Partitions on 2 nodes of 8 GPUs under FIFO: a the first node (the
# default), b the rest (one node). X (a, 8 GPUs, 100 s) runs 0-100; Y (a)
# waits for it, 100-110, though b's node is free; Z (b) is not held behind
# Y: 2-12; W (b, 16 GPUs) asks for more than b holds and never runs; V
# (no partition: a) follows Y, 110-120. a: waits 0, 99, 106 (mean 68.33 s,
# p90 106 s), 800 + 80 + 40 GPU-s; b: 80 GPU-s, one job too big.
cat >"$TMP/parts.csv" <<'CSV'
id,submit_s,gpus,duration_s,partition
X,0,8,100,a
Y,1,8,10,a
Z,2,8,10,b
W,3,16,10,b
V,4,4,10,
CSV
ok parts.json queue "$TMP/parts.csv" --cluster dgx-h100 --nodes 2 --policy fifo --partitions a:1,b \
	-o "$TMP/parts.jobs.csv" --format json --quiet
ok parts.txt queue "$TMP/parts.csv" --cluster dgx-h100 --nodes 2 --policy fifo --partitions a:1,b --quiet
py parts.json '
import csv, json, sys
rows = {r["id"]: r for r in csv.DictReader(open(sys.argv[1].replace("parts.json", "parts.jobs.csv")))}
want = {"X": ("0", "100"), "Y": ("100", "110"), "Z": ("2", "12"), "W": ("", ""), "V": ("110", "120")}
got = {k: (rows[k]["start_s"], rows[k]["end_s"]) for k in want}
if got != want:
    sys.exit("runs %r, expected %r" % (got, want))
p = json.load(open(sys.argv[1]))["partitions"]
a, b = p
ok = (a["name"], a["nodes"], a["jobs"], a["too_big"], b["name"], b["nodes"], b["jobs"], b["too_big"]) == \
     ("a", 1, 3, 0, "b", 1, 1, 1)
# reals printed to 10 significant digits: 1e-9 relative
near = lambda x, y: abs(x - y) <= 1e-9 * max(1, abs(y))
ok = ok and near(a["mean_wait_s"], 205 / 3) and a["p90_wait_s"] == 106 and near(a["busy_gpu_hours"], 920 / 3600)
ok = ok and b["mean_wait_s"] == 0 and near(b["busy_gpu_hours"], 80 / 3600)
if not ok:
    sys.exit("partitions %r" % p)
'
checks=$((checks + 1))
grep -q '^  a  *1  *8  *3  *1.14 min  *1.77 min  *0.2556  *0$' "$TMP/parts.txt" &&
	grep -q '^  1 jobs ask for more GPUs than their partition has: never run$' "$TMP/parts.txt" ||
	fail "partitions in the text: $(cat "$TMP/parts.txt")"
checks=$((checks + 1))
"$BIN" queue "$TMP/parts.csv" --cluster dgx-h100 --nodes 2 --partitions a:1,c >/dev/null 2>"$TMP/e7"
[ $? -eq 2 ] && grep -q 'job Z asks for partition "b"' "$TMP/e7" || fail "unknown partition: $(cat "$TMP/e7")"
checks=$((checks + 1))
"$BIN" queue "$TMP/parts.csv" --cluster dgx-h100 --nodes 2 --partitions a:1,b:2 >/dev/null 2>"$TMP/e8"
[ $? -eq 1 ] && grep -q 'found partitions of 3 nodes on a cluster of 2' "$TMP/e8" ||
	fail "partitions over the cluster size: $(cat "$TMP/e8")"

# A Helios cluster_log.csv (made-up rows in its format, read by content)
# replayed with its virtual clusters as partitions on 2 DGX H100 nodes,
# FIFO: job 1 (vcA) 0-100, job 2 (vcA) waits for it (99 s), job 3 (vcB)
# runs at once; the CPU job 4 and the 0 s job 5 are skipped. Recorded
# waits 0, 99, 28 s: mean 42.33, nearest-rank p50 28, p90 99; replayed 0,
# 99, 0: mean 33, p50 0, p90 99.
cat >"$TMP/cluster_log.csv" <<'CSV'
job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
1,uA,vcA,8,16,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:40,100,0
2,uB,vcA,8,16,1,COMPLETED,2020-04-01 00:00:01,2020-04-01 00:01:40,2020-04-01 00:01:50,10,99
3,uB,vcB,8,16,1,FAILED,2020-04-01 00:00:02,2020-04-01 00:00:30,2020-04-01 00:00:40,10,28
4,uC,vcB,0,4,1,COMPLETED,2020-04-01 00:00:03,2020-04-01 00:00:03,2020-04-01 00:10:03,600,0
5,uC,vcB,4,8,1,CANCELLED,2020-04-01 00:00:04,2020-04-01 00:00:04,2020-04-01 00:00:04,0,0
CSV
ok helios.json queue "$TMP/cluster_log.csv" --cluster dgx-h100 --nodes 2 --policy fifo \
	--partitions vcA:1,vcB --format json --quiet
py helios.json '
import json, sys
j = json.load(open(sys.argv[1]))
want = {"jobs": 3, "recorded_jobs": 3, "recorded_mean_wait_s": 127 / 3, "recorded_p50_wait_s": 28,
        "recorded_p90_wait_s": 99, "replayed_mean_wait_s": 33, "replayed_p50_wait_s": 0,
        "replayed_p90_wait_s": 99}
for k, v in want.items():
    if abs(j[k] - v) > 1e-9 * max(1, v):  # reals printed to 10 significant digits
        sys.exit("%s %r, expected %r" % (k, j[k], v))
if [p["name"] for p in j["partitions"]] != ["vcA", "vcB"]:
    sys.exit("partitions %r" % j["partitions"])
'

# Two scenario jobs of 16 GPUs spread over two leaf switches of a 2:1
# oversubscribed fat-tree: each alone, then both at once sharing the uplinks.
# The scenario: GPT-3 1.3B with a small batch, so its gradient all-reduce
# weighs against its compute.
scen="$TMP/small-batch.cfg"
sed -e 's/global_batch = 512;/global_batch = 32;/' -e 's/micro_batch = 4;/micro_batch = 2;/' \
	"$SRC/configs/scenarios/default.cfg" >"$scen"
printf 'id,submit_s,gpus,duration_s,scenario,steps\nX,0,16,,%s,1000\n' "$scen" >"$TMP/one.csv"
printf 'id,submit_s,gpus,duration_s,scenario,steps\nX,0,16,,%s,1000\nY,0,16,,%s,1000\n' \
	"$scen" "$scen" >"$TMP/two.csv"
for n in one two; do
	ok $n.json queue "$TMP/$n.csv" --cluster fat-tree-a100 --nodes 4 --place spread \
		-o "$TMP/$n.jobs.csv" --format json --quiet
done
py two.jobs.csv '
import csv, sys
one = {r["id"]: r for r in csv.DictReader(open(sys.argv[1].replace("two.jobs", "one.jobs")))}
two = {r["id"]: r for r in csv.DictReader(open(sys.argv[1]))}
alone = float(one["X"]["run_s"])
for k in ("X", "Y"):
    r = two[k]
    if r["leaves"] != "2" or float(r["start_s"]) != 0:
        sys.exit("%s: leaves %s start %s, expected 2 leaves from 0" % (k, r["leaves"], r["start_s"]))
    if not float(r["run_s"]) > 1.05 * alone:
        sys.exit("%s: %s s together, %s s alone: expected longer together" % (k, r["run_s"], alone))
'

# A sweep names the smallest node count meeting the target: 40 jobs of
# 8 GPUs for 1 h, all at 0; the p90 wait is at most 1 h from 36 nodes on
# (36 start at once, 4 wait 1 h: p90 is the 36th wait, 0).
python3 -c '
print("id,submit_s,gpus,duration_s")
for i in range(40):
    print("j%d,0,8,3600" % i)' >"$TMP/burst.csv"
ok sweep.json queue "$TMP/burst.csv" --cluster dgx-h100 --nodes 30:40:2 --target-p90 1min \
	--format json --quiet
py sweep.json '
import json, sys
j = json.load(open(sys.argv[1]))
if j["chosen_nodes"] != 36 or j["nodes"] != 36 or len(j["sweep"]) != 6:
    sys.exit("chosen %r nodes %r points %d, expected 36" % (j["chosen_nodes"], j["nodes"], len(j["sweep"])))
'

# every JSON summary above against schema/queue.schema.json (needs python3's
# jsonschema, as tests/cli_schema.sh does: a schema left unchecked would pass
# unseen)
py sweep.json '
import json, sys, jsonschema
d = sys.argv[1].rsplit("/", 1)[0]
schema = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for name in ("fifo", "backfill", "preempt", "nopreempt", "rec", "parts", "helios", "one", "two", "sweep"):
    errs = sorted(v.iter_errors(json.load(open(d + "/" + name + ".json"))), key=lambda e: list(e.path))
    if errs:
        sys.exit("%s.json: %s at %s" % (name, errs[0].message, "/".join(map(str, errs[0].path))))
' "$SRC/schema/queue.schema.json"

# errors: the file, the line, the column, what was found and expected
printf 'id,submit_s,gpus,duration_s\nj1,0,8,100\nj2,5,eight,100\n' >"$TMP/bad.csv"
checks=$((checks + 1))
"$BIN" queue "$TMP/bad.csv" --cluster dgx-h100 --nodes 2 >/dev/null 2>"$TMP/e1"
[ $? -eq 2 ] && grep -q 'bad.csv:3: gpus: found "eight", expected a whole number of GPUs' "$TMP/e1" ||
	fail "bad gpus: $(cat "$TMP/e1")"
checks=$((checks + 1))
"$BIN" queue "$TMP/hand.csv" --cluster dgx-h100 --nodes 2 --policy lifo >/dev/null 2>"$TMP/e2"
[ $? -eq 1 ] && grep -q -- '--policy: found "lifo", expected fifo, backfill or priority' "$TMP/e2" ||
	fail "--policy lifo: $(cat "$TMP/e2")"
checks=$((checks + 1))
"$BIN" queue "$TMP/hand.csv" --cluster dgx-h100 >/dev/null 2>"$TMP/e3"
[ $? -eq 1 ] && grep -q -- 'found no --nodes' "$TMP/e3" || fail "no --nodes: $(cat "$TMP/e3")"
checks=$((checks + 1))
"$BIN" queue "$TMP/hand.csv" --cluster dgx-h9000 --nodes 2 >/dev/null 2>"$TMP/e4"
[ $? -eq 2 ] && grep -q 'dgx-h9000' "$TMP/e4" || fail "unknown cluster: $(cat "$TMP/e4")"
printf 'id,submit_s,gpus,duration_s,scenario,steps\nX,0,8,,nosuch.cfg,10\n' >"$TMP/nos.csv"
checks=$((checks + 1))
"$BIN" queue "$TMP/nos.csv" --cluster dgx-h100 --nodes 1 >/dev/null 2>"$TMP/e5"
[ $? -eq 2 ] && grep -q 'nosuch.cfg' "$TMP/e5" || fail "missing scenario: $(cat "$TMP/e5")"

# "-" is the job list on standard input, as run's and compare's "-" is the
# scenario: the same per-job starts as the file (the hand case above:
# backfill starts C at 2 s), a sacct export recognised by its content as
# from a file, and an error named "-" with its line
checks=$((checks + 1))
"$BIN" queue - --cluster dgx-h100 --nodes 2 -o "$TMP/stdin.csv" --quiet <"$TMP/hand.csv" >/dev/null 2>"$TMP/e6"
[ $? -eq 0 ] && cmp -s "$TMP/stdin.csv" "$TMP/backfill.csv" ||
	fail "queue - <hand.csv: per-job CSV differs from queue hand.csv: $(cat "$TMP/e6")"
printf 'JobID|User|Submit|Start|Elapsed|AllocTRES\n7|ann|2024-03-01T00:00:00|2024-03-01T00:00:00|01:00:00|gres/gpu=8\n' >"$TMP/s.txt"
checks=$((checks + 1))
"$BIN" queue - --cluster dgx-h100 --nodes 1 -o "$TMP/sacct.csv" --quiet <"$TMP/s.txt" >/dev/null 2>"$TMP/e7"
[ $? -eq 0 ] && grep -q '^7,' "$TMP/sacct.csv" || fail "queue - <sacct export: $(cat "$TMP/e7")"
checks=$((checks + 1))
printf 'id,submit_s,gpus,duration_s\nj1,0,8,100\nj2,5,eight,100\n' |
	"$BIN" queue - --cluster dgx-h100 --nodes 1 >/dev/null 2>"$TMP/e8"
[ $? -eq 2 ] && grep -q -- '^trainsim queue: -:3: gpus' "$TMP/e8" || fail "queue - bad row: $(cat "$TMP/e8")"

# --help's examples name files that exist
checks=$((checks + 1))
"$BIN" queue --help | grep -o 'examples/[^ ]*' | sort -u | while read -r f; do
	[ -e "$SRC/$f" ] || echo "$f"
done >"$TMP/missing"
[ -s "$TMP/missing" ] && fail "--help names missing files: $(cat "$TMP/missing")"
finish
