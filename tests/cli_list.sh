#!/usr/bin/env bash
# trainsim list: every kind as a table, CSV and JSON; bundled clusters and
# models all listed, sorted, with the figures of their files.
# Usage: bash cli_list.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

# every kind in every format; JSON and CSV agree on rows and columns
for k in gpus links clusters models; do
	ok "$k.txt" list "$k" || continue
	ok "$k.csv" list "$k" --format csv || continue
	ok "$k.json" list "$k" --format json || continue
	py "$k.json" '
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.reader(open(sys.argv[1][:-5] + ".csv", newline="")))
assert d["schema_version"] >= 1 and d["kind"] == sys.argv[2], d.get("kind")
assert len(d["rows"]) == len(rows) - 1 >= 1, (len(d["rows"]), len(rows))
assert all(len(r) == len(rows[0]) for r in rows), "ragged CSV"
assert [r["name"] for r in d["rows"]] == [r[0] for r in rows[1:]]
' "$k"
done

# the bundled clusters and models, all of them, in file-name order
checks=$((checks + 1))
want=$(cd "$SRC/configs/clusters" && ls -1 *.cfg | sed 's/\.cfg$//' | LC_ALL=C sort)
got=$(tail -n +3 "$TMP/clusters.txt" | awk '{print $1}')
[ "$want" = "$got" ] || fail "list clusters: got [$got], expected [$want]"
checks=$((checks + 1))
want=$(cd "$SRC/models" && ls -1 *.cfg | sed 's/\.cfg$//' | LC_ALL=C sort)
got=$(tail -n +3 "$TMP/models.txt" | awk '{print $1}')
[ "$want" = "$got" ] || fail "list models: got [$got], expected [$want]"

py gpus.json '
import json, sys
g = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
a = g["A100-SXM4-80GB"]
assert a["bf16(TFLOP/s)"] == 312 and a["fp16(TFLOP/s)"] == 312, a
assert 79 < a["memory(GiB)"] < 80 and a["sms"] == 108 and a["tdp(W)"] == 400, a
assert "bf16(TFLOP/s)" not in g["V100-SXM2-32GB"], "V100 lists a bf16 rate"
'
py links.json '
import json, sys
l = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert l["nvlink3"]["bw(GB/s)"] == 300, l["nvlink3"]
assert 0 < l["nvlink3"]["efficiency"] <= 1 and l["nvlink3"]["latency(us)"] > 0
'
py clusters.json '
import json, sys
c = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
d = c["dgx-a100-80gb"]
assert (d["nodes"], d["gpus_per_node"], d["gpu"], d["nics_per_node"], d["nic"]) == \
       (1, 8, "A100-SXM4-80GB", 8, "ib-hdr"), d
assert d["description"].startswith("NVIDIA DGX A100"), d["description"]
assert c["rtx4090-x4"]["gpus_per_node"] == 4
'
py models.json '
import json, sys
m = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
l = m["llama2-70b"]
assert (l["layers"], l["hidden"], l["heads"], l["kv_heads"], l["ffn"], l["vocab"]) == \
       (80, 8192, 64, 8, 28672, 32000), l
assert abs(m["llama2-7b"]["params(B)"] - 6.738) < 0.001, m["llama2-7b"]
assert abs(m["gpt3-175b"]["params(B)"] - 174.6) < 0.1, m["gpt3-175b"]
'
checks=$((checks + 1))
grep -qE '^V100-SXM2-32GB +- +125\.0 ' "$TMP/gpus.txt" || fail "list gpus: V100 row does not show '-' for bf16"

# the version, as CMake's project() gives it
ok version --version
checks=$((checks + 1))
grep -qxE 'trainsim [0-9]+\.[0-9]+\.[0-9]+' "$TMP/version" || fail "--version printed: $(cat "$TMP/version")"

finish
