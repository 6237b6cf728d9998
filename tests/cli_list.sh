#!/usr/bin/env bash
# trainsim list: every kind as a table, CSV and JSON; bundled clusters,
# models, datasets and scenarios all listed, sorted, with the figures of their
# files; one entry of every kind field by field, each field with the value and
# line its file states and the source the file gives for it.
# Usage: bash cli_list.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

# every kind in every format; JSON and CSV agree on rows and columns
for k in gpus links clusters models datasets storage scenarios; do
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
assert a["bf16_TFLOPS"] == 312 and a["fp16_TFLOPS"] == 312, a
assert 79 < a["memory_GiB"] < 80 and a["sms"] == 108 and a["tdp_W"] == 400, a
assert "bf16_TFLOPS" not in g["V100-SXM2-32GB"], "V100 lists a bf16 rate"
'
py links.json '
import json, sys
l = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert l["nvlink3"]["bw_GBps"] == 300, l["nvlink3"]
assert 0 < l["nvlink3"]["efficiency"] <= 1 and l["nvlink3"]["latency_us"] > 0
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
assert abs(m["llama2-7b"]["params_billions"] - 6.738) < 0.001, m["llama2-7b"]
assert abs(m["gpt3-175b"]["params_billions"] - 174.6) < 0.1, m["gpt3-175b"]
'
checks=$((checks + 1))
grep -qE '^V100-SXM2-32GB +- +125\.0 ' "$TMP/gpus.txt" || fail "list gpus: V100 row does not show '-' for bf16"

# datasets and scenarios: every file, in file-name order
for k in datasets scenarios; do
	checks=$((checks + 1))
	want=$(cd "$SRC/configs/$k" && ls -1 *.cfg | sed 's/\.cfg$//' | LC_ALL=C sort)
	got=$(tail -n +3 "$TMP/$k.txt" | awk '{print $1}')
	[ "$want" = "$got" ] || fail "list $k: got [$got], expected [$want]"
done
py storage.json '
import json, sys
s = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert s["lustre"]["kind"] == "shared" and s["lustre"]["read"] == "100 GB/s", s["lustre"]
assert "write" not in s["nfs"], s["nfs"]
'

# one entry of each kind, field by field: the value and line its file
# states, a source for every field of the hardware catalog
detail() {
	local k=$1 name=$2
	ok "d-$k.json" list "$k" "$name" --format json || return
	ok "d-$k.txt" list "$k" "$name" || return
	py "d-$k.json" '
import json, re, sys
src, kind, name = sys.argv[2:5]
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert d["kind"] == kind and len(rows) >= 3, d
fields = [r["field"] for r in rows]
assert len(set(fields)) == len(fields), "a field twice"
assert not any(f.split(".")[-1] in ("source", "sources") or f.startswith("sources.") for f in fields), fields
checked = 0
for r in rows:
    r["value"] = str(r["value"]).lower() if isinstance(r["value"], bool) else str(r["value"])
    path, line = r["file"].rsplit(":", 1)
    text = open(src + "/" + path).read().splitlines()[int(line) - 1]
    key = re.sub(r"\[\d+\]$", "", r["field"].split(".")[-1])
    if re.match(r"^-?\d+$", r["value"]) or not re.match(r"^[-\d.e]+$", r["value"]):
        assert key in text and r["value"] in text, (r, text)
        checked += 1
assert checked >= 3, checked
if kind in ("gpus", "links", "storage"):
    assert all(r.get("source") for r in rows), [r for r in rows if not r.get("source")]
' "$SRC" "$k" "$name"
	py "d-$k.txt" '
import re, sys
t = open(sys.argv[1]).read()
head, _, notes = t.partition("\nsources:\n")
refs = set(re.findall(r"(?<=\s)\[(\d+)\](?=\s)", head))
listed = set(re.findall(r"^  \[(\d+)\] ", notes, re.M))
assert refs == listed and (refs or sys.argv[2] == "scenarios"), (refs, listed)
' "$k"
}
detail gpus A100-SXM4-80GB
detail links ib-ndr
detail storage lustre
detail clusters dgx-a100-80gb
detail models llama2-7b
detail datasets imagenet-1k
detail scenarios default
py d-gpus.json '
import json, sys
r = {x["field"]: x for x in json.load(open(sys.argv[1]))["rows"]}
assert r["memory"]["value"] == "85198045184 B" and "torch.cuda" in r["memory"]["source"], r["memory"]
assert r["peak.bf16"]["value"] == "312 TFLOP/s" and r["sms"]["value"] == 108, r["sms"]
'
# a name that is not there: exit 2 and the closest names
checks=$((checks + 1))
"$BIN" list gpus A100 >/dev/null 2>"$TMP/near.err"
[ $? -eq 2 ] && grep -q 'did you mean "A100-SXM4-' "$TMP/near.err" || fail "list gpus A100: $(cat "$TMP/near.err")"
checks=$((checks + 1))
"$BIN" list clusters ../models/gpt3-1.3b >/dev/null 2>"$TMP/path.err"
[ $? -eq 2 ] || fail "list clusters with a path outside its folder: $(cat "$TMP/path.err")"

# the version, as CMake's project() gives it
ok version --version
checks=$((checks + 1))
grep -qxE 'trainsim [0-9]+\.[0-9]+\.[0-9]+' "$TMP/version" || fail "--version printed: $(cat "$TMP/version")"

finish
