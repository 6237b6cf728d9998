#!/usr/bin/env bash
# trainsim collective as a user meets it: the nccl-tests columns, JSON and
# CSV, busbw of a large all-reduce on a DGX A100 inside what NVLink3 allows,
# and time that grows with size. Usage: bash cli_collective.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

DGX=(collective --cluster dgx-a100-80gb)

# --- the text table carries the nccl-tests columns, one row per size
if ok text "${DGX[@]}" -b 8 -e 1G -f 4; then
	for col in 'size(B)' 'count(elements)' 'type' 'redop' 'time(us)' 'algbw(GB/s)' 'busbw(GB/s)'; do
		grep -qF -- "$col" "$TMP/text" || fail "table lacks the column $col"
	done
	grep -qF '# Avg bus bandwidth' "$TMP/text" || fail "table lacks the average bus bandwidth line"
	# 2^3, 2^5, ..., 2^29: 14 sizes
	n=$(grep -cE '^ *[0-9]+ +[0-9]+ +float' "$TMP/text")
	[ "$n" -eq 14 ] || fail "-b 8 -e 1G -f 4: $n rows, expected 14"
fi

# --- JSON: rows with the same columns; busbw at 8 GiB within NVLink3; time grows
if ok json "${DGX[@]}" -b 1M -e 8G -f 2 --format json; then
	py json '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] >= 1 and d["cluster"] == "dgx-a100-80gb" and d["gpus"] == 8, d
rows = d["rows"]
assert len(rows) == 14, "%d rows from 1M to 8G by 2, expected 14" % len(rows)
sizes = [r["size_bytes"] for r in rows]
assert sizes == [2**20 * 2**i for i in range(14)], sizes
t = [r["time_us"] for r in rows]
assert all(b > a for a, b in zip(t, t[1:])), "time does not grow with size: %s" % t
big = rows[-1]
assert big["size_bytes"] == 8 * 2**30
# a ring cannot move more than one NVLink3 direction (300 GB/s) per GPU
assert 150 <= big["busbw_GBps"] <= 300, "busbw at 8 GiB is %r GB/s, expected 150-300" % big["busbw_GBps"]
# algbw = size / time, busbw = algbw x 2(n-1)/n for all-reduce on 8 ranks
alg = big["size_bytes"] / (big["time_us"] * 1e-6) / 1e9
assert abs(alg - big["algbw_GBps"]) <= 0.01 * alg, (alg, big["algbw_GBps"])
assert abs(big["busbw_GBps"] - big["algbw_GBps"] * 14 / 8) <= 0.02, big
for r in rows:
    for k in ("time_us", "algbw_GBps", "busbw_GBps"):
        assert isinstance(r[k], (int, float)) and r[k] >= 0, (k, r)
'
fi

# --- CSV: header and rows of the same width
if ok csv "${DGX[@]}" -b 8 -e 64M -f 8 --format csv; then
	py csv '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0][:7] == ["size_bytes", "count_elements", "type", "redop", "time_us", "algbw_GBps", "busbw_GBps"], rows[0]
assert len(rows) == 9, "%d lines, expected a header and 8 sizes (2^3 .. 2^24)" % len(rows)
assert all(len(r) == len(rows[0]) for r in rows), "ragged CSV"
'
fi

# --- other operations, a factor below 2, part of the cluster, two nodes
for op in all_gather reduce_scatter broadcast; do
	ok "op_$op" "${DGX[@]}" --op "$op" -b 1K -e 64M -f 8 || true
done
if ok slow "${DGX[@]}" -b 1 -e 64 -f 1.5; then
	n=$(grep -cE '^ *[0-9]+ +[0-9]+ +float' "$TMP/slow")
	# 1 2 3 4 6 9 13 19 28 42 63, rounded down to whole 4-byte elements
	# 0 0 0 4 4 8 12 16 28 40 60, each size once and 0 B left out (NCCL
	# launches nothing for a count of 0): 7 rows
	[ "$n" -eq 7 ] || fail "-b 1 -e 64 -f 1.5: $n rows, expected 7"
fi
ok part "${DGX[@]}" -g 3 -e 1M || true
if ok nodes "${DGX[@]}" --nodes 2 -b 1G -e 1G --format json; then
	py nodes '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gpus"] == 16 and d["nodes"] == 2, d
bw = d["rows"][0]["busbw_GBps"]
# between nodes the rings run over eight 200 Gb/s HDR NICs per node: at
# most 8 x 25 GB/s (nccl-tests on two DGX A100 report about 180-190)
assert 100 < bw <= 200, "busbw %r GB/s on two nodes, expected 100-200" % bw
'
fi
ok pcie collective --cluster rtx4090-x4 -e 1M || true
# sizes that all round to 0 B are refused: NCCL's taskAppend (src/enqueue.cc)
# returns at once for a count of 0, so there is nothing to time
checks=$((checks + 1))
"$BIN" "${DGX[@]}" -b 0 -e 0 >"$TMP/zero" 2>"$TMP/zero.err"
[ $? -eq 2 ] && [ ! -s "$TMP/zero" ] && grep -qF -- '-e: found sizes 0 to 0 bytes' "$TMP/zero.err" ||
	fail "-b 0 -e 0: $(cat "$TMP/zero" "$TMP/zero.err")"

# --- --set takes any cluster key, laid over the file like a scenario's inline
# cluster. 8 RTX 5090 bouncing through host memory run at half of one PCIe 5
# x16 direction (63 GB/s x 0.89 / 2 = 28.0: two ring edges per switch uplink);
# with peer-to-peer the edges stay under their switch or cross each uplink
# once: 63 x 0.89 = 56.1.
BUS='import json, sys; d = json.load(open(sys.argv[1])); bw = d["rows"][0]["busbw_GBps"]'
if ok p2p_off collective --cluster pcie-8gpu -b 8G -e 8G --format json; then
	py p2p_off "$BUS"'
assert abs(bw - 28.04) <= 0.3, "busbw %r GB/s, expected 63 x 0.89 / 2 = 28.0" % bw'
fi
if ok p2p_on collective --cluster pcie-8gpu -b 8G -e 8G --set node.p2p=true --format json; then
	py p2p_on "$BUS"'
assert abs(bw - 56.07) <= 0.6, "busbw %r GB/s with node.p2p=true, expected 63 x 0.89 = 56.1" % bw'
fi
# "cluster." in front is accepted as in trainsim run --set; a count key still works
ok p2p_prefix collective --cluster pcie-8gpu -b 8G -e 8G --set cluster.node.p2p=true \
	--set gpus_per_node=4 --format json &&
	py p2p_prefix "$BUS"'
assert d["gpus"] == 4, d["gpus"]
assert abs(bw - 56.07) <= 0.6, "busbw %r GB/s, expected 56.1" % bw'
# 4 DGX A100 on a fat-tree, two nodes per leaf: a ring crosses the spine from
# 8 NICs per leaf. 4:1 leaves 4 uplinks for those 8 rings, which halves them
# against 1:1 (full mode: class mode does not split an oversubscribed leaf).
FT=(--nodes 4 -b 1G -e 1G --mode full --format json --set fabric.topology=fat-tree
	--set fabric.nodes_per_leaf=2)
if ok ft1 "${DGX[@]}" "${FT[@]}" --set fabric.oversubscription=1 &&
	ok ft4 "${DGX[@]}" "${FT[@]}" --set fabric.oversubscription=4; then
	py ft4 '
import json, sys
one = json.load(open(sys.argv[1].replace("ft4", "ft1")))["rows"][0]["busbw_GBps"]
four = json.load(open(sys.argv[1]))["rows"][0]["busbw_GBps"]
assert abs(four / one - 0.5) <= 0.05, "4:1 gives %r of 1:1 (%r vs %r GB/s), expected 0.5" % (four / one, four, one)'
fi
# bad keys and values: one line naming the key, exit 2
for bad in fabric.oversubscriptoin=2 'node.p2p="yes"' 'fabric=(' gpus_per_node=0; do
	checks=$((checks + 1))
	"$BIN" "${DGX[@]}" --set "$bad" >"$TMP/badset" 2>"$TMP/badset.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "--set $bad: exit $rc, expected 2"
	[ "$(wc -l <"$TMP/badset.err")" -eq 1 ] || fail "--set $bad: not one line: $(cat "$TMP/badset.err")"
	grep -q -- '--set' "$TMP/badset.err" || fail "--set $bad: the message does not name --set"
done
grep -q 'oversubscription' <("$BIN" "${DGX[@]}" --set fabric.oversubscriptoin=2 2>&1) ||
	fail "--set fabric.oversubscriptoin=2: no suggestion of oversubscription"

# sizes are whole float elements, as nccl-tests aligns them: -f 1.5 from 8 B
# gives 8, 12, 18, 27, 40, 60 B, rounded down to 4 B: 8 12 16 24 40 60 with
# counts 2 3 4 6 10 15; an all_to_all on 8 GPUs from 1 to 64 B rounds to
# whole elements per rank (32 B): 32 and 64 B once each, 0 B left out
checks=$((checks + 1))
got=$("$BIN" collective --cluster dgx-a100-80gb -b 8 -e 64 -f 1.5 | awk '$1 ~ /^[0-9]+$/ { printf "%s/%s ", $1, $2 }')
[ "$got" = "8/2 12/3 16/4 24/6 40/10 60/15 " ] || fail "-f 1.5 sizes/counts: $got"
checks=$((checks + 1))
got=$("$BIN" collective --cluster dgx-a100-80gb --op all_to_all -b 1 -e 64 | awk '$1 ~ /^[0-9]+$/ { printf "%s/%s ", $1, $2 }')
[ "$got" = "32/1 64/2 " ] || fail "all_to_all 1 to 64 B sizes/counts: $got"

finish
