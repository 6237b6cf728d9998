#!/usr/bin/env bash
# Runs as people run them: phases summed into one whole run, a batch
# ramp-up, a run length from --set or a sweep axis over the file's, FSDP
# with zero = 0, sample-based models reported per sample and per epoch, and
# compare's scaling efficiency within one GPU type.
# Usage: bash cli_runs.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
SCEN=$SRC/configs/scenarios/default.cfg

base='model = "gpt3-1.3b";
cluster = "dgx-a100-80gb";
cost = { usd_per_gpu_hour = 2.0; };'

# --- phases: 200e9 tokens at 512 x 1024 = 524,288 tokens a step is
# ceil(381,469.7) = 381,470 steps; 100e9 at 512 x 2048 is ceil(95,367.4) =
# 95,368; each phase is the scenario it overlays, run on its own
cat >"$TMP/ph.cfg" <<CFG
$base
training = { global_batch = 512; micro_batch = 4; seq_len = 2048; };
phases = (
  { name = "short context"; tokens = 200.0e9; seq_len = 1024; },
  { tokens = 100.0e9; parallel = { tp = 2; }; }
);
CFG
cat >"$TMP/ph0.cfg" <<CFG
$base
training = { global_batch = 512; micro_batch = 4; seq_len = 1024; tokens = 200.0e9; };
CFG
cat >"$TMP/ph1.cfg" <<CFG
$base
training = { global_batch = 512; micro_batch = 4; seq_len = 2048; tokens = 100.0e9; };
parallel = { tp = 2; };
CFG
ok phj run "$TMP/ph.cfg" --format json
ok ph0 run "$TMP/ph0.cfg" --format json
ok ph1 run "$TMP/ph1.cfg" --format json
py phj '
import json, sys, math
r = json.load(open(sys.argv[1]))
a, b = (json.load(open(p)) for p in sys.argv[2:4])
p = r["phases"]
assert [x["name"] for x in p] == ["short context", "phases[1]"], p
assert [x["steps"] for x in p] == [381470, 95368] and r["steps"] == 476838, (p, r["steps"])
assert [x["seq_len"] for x in p] == [1024, 2048], p
for x, s in zip(p, (a, b)):   # each phase is its own scenario, run alone
    for k in ("time_to_train_s", "cost_usd", "energy_kwh", "iteration_time_s", "checkpoints"):
        assert x[k] == s[k], (k, x[k], s[k])
for k in ("time_to_train_s", "cost_usd", "energy_kwh", "gpu_hours", "checkpoints", "failures_expected"):
    assert math.isclose(r[k], a[k] + b[k], rel_tol=1e-12), (k, r[k], a[k] + b[k])
# the per-iteration figures are the longest phase'"'"'s (the short one: 13.6 of 21.5 days)
assert a["time_to_train_s"] > b["time_to_train_s"] and r["iteration_time_s"] == a["iteration_time_s"], r
' "$TMP/ph0" "$TMP/ph1"
if ok phtext run "$TMP/ph.cfg"; then
	for s in 'Whole run (the sum of its phases)' 'Phases (each simulated on its own' 'short context' \
		'phases[1]' "per-iteration figures above: the longest phase's"; do
		grep -qF "$s" "$TMP/phtext" || fail "phases text lacks '$s'"
	done
fi

if ok phdump run "$TMP/ph.cfg" --dump-config; then
	grep -qF '# phase "short context":' "$TMP/phdump" || fail "--dump-config lacks the phase"
	grep -qE '^#   parallel.tp = 2  # .*ph.cfg:7 \(phases\[1\]\)$' "$TMP/phdump" ||
		fail "--dump-config lacks phases[1]'s tp: $(grep -A4 'phases\[1\]' "$TMP/phdump")"
fi
# a trace and a search want one phase
checks=$((checks + 2))
"$BIN" run "$TMP/ph.cfg" --trace "$TMP/t.json" >/dev/null 2>"$TMP/tr.err" && fail "a trace of phases ran"
grep -q 'phases.*expected a scenario of one phase' "$TMP/tr.err" || fail "trace of phases: $(cat "$TMP/tr.err")"
"$BIN" search "$TMP/ph.cfg" >/dev/null 2>"$TMP/se.err" && fail "a search of phases ran"
grep -q 'phases.*found a run in phases' "$TMP/se.err" || fail "search of phases: $(cat "$TMP/se.err")"

# --- ramp-up 32 -> 512 by 32 over 2e6 samples, then the full batch: the
# groups of check_scenario.c (rampup_phases): batches 64, 160, 288, 416 for
# 7640, 3167, 1780, 1245 steps, then 300e9 - 2e6 x 2048 = 295.904e9 tokens
# in ceil(295.904e9 / 1,048,576) = ceil(282,196.04) = 282,197 steps
cat >"$TMP/ramp.cfg" <<CFG
$base
training = { global_batch = 512; micro_batch = 4; seq_len = 2048; tokens = 300.0e9;
  rampup = { start = 32; increment = 32; samples = 2.0e6; }; };
CFG
ok ramp run "$TMP/ramp.cfg" --format json
py ramp '
import json, sys, math
r = json.load(open(sys.argv[1]))
p = r["phases"]
assert [x["global_batch"] for x in p] == [64, 160, 288, 416, 512], p
assert [x["steps"] for x in p] == [7640, 3167, 1780, 1245, 282197], p
assert r["steps"] == 296029, r["steps"]
assert math.isclose(r["time_to_train_s"], sum(x["time_to_train_s"] for x in p), rel_tol=1e-12)
# a smaller batch is a shorter step
t = [x["iteration_time_s"] for x in p]
assert t == sorted(t), t
assert r["warnings"] == [], r["warnings"]
'
ok ramp0 run "$SCEN" --format json
py ramp '
import json, sys
r, d = (json.load(open(p)) for p in sys.argv[1:3])
# the ramp costs time: its steps run at a lower MFU than the full batch
assert r["time_to_train_s"] > d["time_to_train_s"], (r["time_to_train_s"], d["time_to_train_s"])
' "$TMP/ramp0"

# --- a run length from --set replaces the file's, and the report says so
if ok ovr run "$SCEN" --set training.steps=1000; then
	grep -q "^note: training.tokens of .*default.cfg:18 gives way to --set training.steps=1000" "$TMP/ovr" ||
		fail "no override note: $(tail -3 "$TMP/ovr")"
	grep -q '^steps *1000$' "$TMP/ovr" || fail "steps not 1000: $(grep '^steps' "$TMP/ovr")"
fi
# ... and from a sweep axis
cat >"$TMP/sw.cfg" <<CFG
base = "$SCEN";
axes = { "training.epochs" = [1.0e-5, 2.0e-5]; };
CFG
if ok sw sweep "$TMP/sw.cfg" -j 1; then
	py sw '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["status"] for r in rows] == ["ok", "ok"], rows
# c4-tokens: 156e9 tokens / 2048 = 76,171,875 sequences an epoch; 1e-5 of
# it is 761.7 sequences, ceil(1.49) = 2 steps of 512; 2e-5 is 1523.4,
# ceil(2.98) = 3 steps
assert [float(r["steps"]) for r in rows] == [2, 3], [r["steps"] for r in rows]
assert all("training.tokens of" in r["notes"] and "gives way to --set training.epochs=" in r["notes"] for r in rows), rows[0]["notes"]
'
fi

# --- FSDP asked for with zero = 0 runs as NO_SHARD, with a warning
ok fsdp0 run "$SCEN" --set 'training.framework="fsdp"' --format json
py fsdp0 '
import json, sys
r = json.load(open(sys.argv[1]))
assert any("NO_SHARD" in w for w in r["warnings"]), r["warnings"]
'
ok fsdp3 run "$SCEN" --set 'training.framework="fsdp"' --set parallel.zero=3 --format json
py fsdp3 '
import json, sys
r = json.load(open(sys.argv[1]))
assert not any("NO_SHARD" in w for w in r["warnings"]), r["warnings"]
'

# --- a sample-based model: images/s, time and cost per epoch, no tokens.
# 90 epochs of imagenet-1k (1,281,167 images) at 2048 a step: ceil(56,301.5)
# = 56,302 steps, 56,302 x 2048 / 1,281,167 = 90.0008 epochs
cat >"$TMP/rn.cfg" <<CFG
model = "resnet50";
cluster = "dgx-a100-80gb";
training = { global_batch = 2048; micro_batch = 256; epochs = 90; precision = "fp16"; };
data = { dataset = "imagenet-1k"; workers_per_gpu = 16; };
cost = { usd_per_gpu_hour = 2.0; };
CFG
ok rnj run "$TMP/rn.cfg" --format json
py rnj '
import json, sys, math
r = json.load(open(sys.argv[1]))
assert r["unit"] == "images" and r["steps"] == 56302, (r["unit"], r["steps"])
e = 56302 * 2048 / 1281167
assert math.isclose(r["epochs"], e, rel_tol=1e-12), r["epochs"]
assert math.isclose(r["epoch_s"], r["time_to_train_s"] / e, rel_tol=1e-12), r["epoch_s"]
assert math.isclose(r["usd_per_epoch"], r["cost_usd"] / e, rel_tol=1e-12), r["usd_per_epoch"]
assert math.isclose(r["cost_usd"], r["gpu_hours"] * 2.0, rel_tol=1e-12), r["cost_usd"]
assert r["usd_per_mtokens"] == 0 and r["tokens_per_s"] == r["samples_per_s"], r
'
if ok rnt run "$TMP/rn.cfg"; then
	for s in 'images/s (' 'an epoch of 1281167 images in' 'time per epoch' 'cost per epoch'; do
		grep -qF "$s" "$TMP/rnt" || fail "image report lacks '$s'"
	done
	grep -qE 'tokens/s|cost per million tokens' "$TMP/rnt" && fail "image report speaks of tokens"
fi
ok rncsv run "$TMP/rn.cfg" --format csv
py rncsv '
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
assert r["unit"] == "images" and float(r["usd_per_epoch"]) > 0 and float(r["epoch_s"]) > 0, r
'

# --- compare: scaling efficiency only within one GPU type
EX=$SRC/examples
ok cmpgpu compare "$EX/buyers-guide/workstation.cfg" "$EX/buyers-guide/server.cfg" --format json
py cmpgpu '
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["comparison"]["scaling_efficiency"] for x in d] == [None, None], [x["comparison"] for x in d]
best = [k for x in d for k in x["comparison"]["best"]]
assert "samples_per_s" in best and "usd_per_epoch" in best and "tokens_per_s" not in best, best
'
ok cmpsame compare "$EX/4gpu-vs-16node/box-4xa100.cfg" "$EX/4gpu-vs-16node/dgx16-ib.cfg" --format json
py cmpsame '
import json, sys
a, b = json.load(open(sys.argv[1]))
assert a["comparison"]["scaling_efficiency"] == 1.0, a["comparison"]
want = (b["tokens_per_s"] / 128) / (a["tokens_per_s"] / 4)
assert abs(b["comparison"]["scaling_efficiency"] - want) < 1e-12, (b["comparison"], want)
'

# --- compare --format csv: a row per scenario, its name and file first, a
# column per metric (its unit in its name) with the figures run prints
X4=$EX/4gpu-vs-16node
ok cmpcsv compare "$X4/box-4xa100.cfg" "$X4/dgx16-ib.cfg" "$X4/dgx16-10gbe.cfg" --format csv
for f in box-4xa100 dgx16-ib dgx16-10gbe; do
	ok "run_$f" run "$X4/$f.cfg" --format csv
done
py cmpcsv '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
head = next(csv.reader(open(sys.argv[1])))
assert head[:2] == ["name", "file"], head[:4]
assert len(rows) == 3, len(rows)
for col in ("gpus", "iteration_time_s", "tokens_per_s", "scaling_efficiency", "mfu",
            "memory_per_gpu_bytes", "time_to_train_s", "energy_kwh", "cost_usd",
            "usd_per_mtokens", "best", "model.name", "parallel.dp"):
    assert col in head, col
for r, f, run in zip(rows, ["box-4xa100", "dgx16-ib", "dgx16-10gbe"], sys.argv[2:]):
    one = list(csv.DictReader(open(run)))[0]
    assert r["file"] == sys.argv[5] + "/" + f + ".cfg", (r["file"], f)
    assert r["name"] == one["name"], (r["name"], one["name"])
    for k in ("gpus", "iteration_time_s", "tokens_per_s", "mfu", "cost_usd", "energy_kwh"):
        assert float(r[k]) == float(one[k]), (f, k, r[k], one[k])
# 16 nodes on InfiniBand: 0.503 s against 12.9 s and 16.0 s, far beyond the bands
assert "iteration_time_s" in rows[1]["best"].split(";"), rows[1]["best"]
assert float(rows[0]["scaling_efficiency"]) == 1.0
' "$TMP/run_box-4xa100" "$TMP/run_dgx16-ib" "$TMP/run_dgx16-10gbe" "$X4"

# --- compare's verdicts follow the 80 % bands: a row's best wins alone
# where its band overlaps no other's; those whose bands overlap the best's
# tie; all of them overlapping is no clear winner; a row with fewer than
# two candidates (the reference's 100 % scaling efficiency) has none
ok cmp3 compare "$X4/box-4xa100.cfg" "$X4/dgx16-ib.cfg" "$X4/dgx16-10gbe.cfg" --format json
py cmp3 '
import json, sys
d = json.load(open(sys.argv[1]))
for key, lower in (("cost_usd", True), ("iteration_time_s", True), ("mfu", False),
                   ("time_to_train_s", True), ("tokens_per_s", False)):
    v = [x[key] for x in d]
    b = [(x[key + "_p10"], x[key + "_p90"]) for x in d]
    best = v.index(min(v) if lower else max(v))
    lead = [k for k in range(3) if k == best or (b[k][0] <= b[best][1] and b[best][0] <= b[k][1])]
    got_best = [k for k in range(3) if key in d[k]["comparison"]["best"]]
    got_tied = [k for k in range(3) if key in d[k]["comparison"]["tied"]]
    got_none = [k for k in range(3) if key in d[k]["comparison"]["no_clear_winner"]]
    if len(lead) == 1:
        assert (got_best, got_tied, got_none) == ([best], [], []), (key, got_best, got_tied, got_none)
    elif len(lead) < 3:
        assert (got_best, got_tied, got_none) == ([], lead, []), (key, got_best, got_tied, got_none)
    else:
        assert (got_best, got_tied, got_none) == ([], [], [0, 1, 2]), (key, got_best, got_tied, got_none)
# the box and 16 nodes on InfiniBand cost $656 and $831 with overlapping
# bands; 10 GbE costs $26,144, far beyond both: a tie of the two, not
# "no clear winner"
assert [x["comparison"]["tied"].count("cost_usd") for x in d] == [1, 1, 0], d[2]["comparison"]
# the box is the reference of scaling efficiency: InfiniBand 80 % against
# 10 GbE 3 % is the row
assert "scaling_efficiency" not in d[0]["comparison"]["best"] + d[0]["comparison"]["tied"]
assert "scaling_efficiency" in d[1]["comparison"]["best"], d[1]["comparison"]
'
ok cmp3t compare "$X4/box-4xa100.cfg" "$X4/dgx16-ib.cfg" "$X4/dgx16-10gbe.cfg"
RB=$EX/rent-or-buy
ok cmprb compare "$RB/rented.cfg" "$RB/cluster.cfg"
py cmp3t '
import re, sys
t = open(sys.argv[1]).read()
head = t.split("\n\n")[0]
assert all(len(l) <= 100 for l in head.split("\n")), [len(l) for l in head.split("\n")]
rows = {l.split("  ")[0]: l for l in t.split("\n")}
assert rows["cost (tied)"].rstrip().endswith("$26,152.76"), rows["cost (tied)"]
assert "13.97 MWh" in rows["energy (tied)"], rows["energy (tied)"]
assert rows["cost (tied)"].count(" *") == 2
assert "*" not in rows["scaling efficiency (same GPU type)"].split("%")[0], rows["scaling efficiency (same GPU type)"]
' 
py cmprb '
import sys
t = open(sys.argv[1]).read()
line = [l for l in t.split("\n") if l.startswith("scaling efficiency")][0]
assert "no clear winner" not in line and "*" not in line, line
assert [l for l in t.split("\n") if l.startswith("cost ")][0].endswith("$5,862.26 *")
'
# --- cost.utilisation: owned hardware busy half the year; configs/README.md
# quotes examples/rent-or-buy's break-even (28.5 months busy all year, 69.6
# busy half of it), each from the formula of sim/run/cost.h
ok util1 run "$RB/cluster.cfg" --format json
ok util5 run "$RB/cluster.cfg" --set cost.utilisation=0.5 --format json
py util1 '
import json, re, sys
readme = open(sys.argv[3]).read()
quoted = re.search(r"([0-9.]+) months busy all year, ([0-9.]+) months busy half of it", readme)
assert quoted, "configs/README.md no longer quotes the break-even"
for path, u, want in ((sys.argv[1], 1.0, quoted.group(1)), (sys.argv[2], 0.5, quoted.group(2))):
    r = json.load(open(path))
    o = r["scenario"]["cost"]["owned"]
    capital = 16 * (o["server_usd"] + o["network_usd"]) + o["storage_usd"]
    hours = r["time_to_train_s"] / 3600
    per_h = (capital / (o["years"] * 8766) + o["upkeep_usd_per_year"] / 8766) / u
    assert abs(r["cost_usd"] - (per_h * hours + r["energy_kwh"] * 0.0806)) < 1e-6 * r["cost_usd"], (u, r["cost_usd"])
    cloud = u * 16 * 14.75 * 730.5
    opex = o["upkeep_usd_per_year"] / 12 + u * r["avg_power_kw"] * 730.5 * 0.0806
    assert abs(r["breakeven_months"] - capital / (cloud - opex)) < 1e-9 * capital, (u, r["breakeven_months"])
    assert "%.1f" % r["breakeven_months"] == want, (u, r["breakeven_months"], want)
    assert r["utilisation"] == u and abs(r["usd_per_hour"] * hours - r["cost_usd"]) < 1e-6
' "$TMP/util5" "$SRC/configs/README.md"
ok utiltext run "$RB/cluster.cfg" --set cost.utilisation=0.5
py utiltext '
import sys
t = open(sys.argv[1]).read()
cost = [l for l in t.split("\n") if l.startswith("cost ")][0]
assert " per hour, " in cost and " per GPU-hour" in cost, cost
assert "busy 50 % of the year" in t, t
# examples/rent-or-buy/README.md quotes this run
readme = open(sys.argv[2]).read()
total = cost.split()[1]
months = [l for l in t.split("\n") if l.startswith("buying breaks even")][0].split()[-2]
assert "costs %s a run\nand breaks even after %s months" % (total, months) in readme, (total, months)
' "$RB/README.md"
finish
