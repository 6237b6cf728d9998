#!/usr/bin/env bash
# The catalog entries and bundled clusters people buy and rent: trainsim run
# on every new bundled cluster, with every new GPU type and with every new
# link type as the NIC, exits 0 with a finite, positive iteration time; the
# list commands show them; and two runs relate as the datasheets say: an H800
# node is slower than a DGX H100 only where NVLink limits (tensor parallel),
# and an MI300X, whose achievable matmul rate equals an H100's, is faster on
# the memory-bound optimizer step by its HBM bandwidth ratio (5,300 / 3,350).
# Usage: bash cli_catalog.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
SCEN=$SRC/configs/scenarios/default.cfg
# a short GPT-3 1.3B step: 2 micro-batches of 1 x 512 tokens per rank
SHORT=(--set model=gpt3-1.3b --set training.seq_len=512 --set training.micro_batch=1
	--set training.iterations=2 --set sim.granularity=stage --format json)

# finite NAME: the JSON result $TMP/NAME has a finite, positive iteration time
finite() {
	py "$1" '
import json, math, sys
d = json.load(open(sys.argv[1]))
t = d["iteration_time_s"]
assert isinstance(t, (int, float)) and math.isfinite(t) and t > 0, "iteration_time_s %r" % t
assert d["gpus"] == int(sys.argv[2]), "gpus %r, want %s" % (d["gpus"], sys.argv[2])
' "$2"
}

# --- every new bundled cluster: NAME NODES GPUS_PER_NODE PRECISION
while read -r name nodes gpn prec; do
	g=$((nodes * gpn))
	ok "cl-$name" run "$SCEN" "${SHORT[@]}" --set cluster="$name" --set nodes="$nodes" \
		--set gpus_per_node="$gpn" --set training.precision="$prec" \
		--set training.global_batch=$((2 * g)) && finite "cl-$name" "$g"
done <<'EOF'
aws-p3-16xlarge 2 8 fp16
aws-p4d-24xlarge 2 8 bf16
aws-p5-48xlarge 2 8 bf16
azure-nd-h100-v5 2 8 bf16
azure-nd-mi300x-v5 2 8 bf16
hgx-h800 2 8 bf16
tpu-v5p-64 64 1 bf16
gb200-nvl72 1 72 bf16
gcp-a3-ultragpu-8g 2 8 bf16
EOF

# --- every new GPU type on a PCIe workstation: NAME PRECISION
while read -r gpu prec; do
	ok "gpu-$gpu" run "$SCEN" "${SHORT[@]}" \
		--set "cluster={ base = \"rtx4090-x4\"; gpu = \"$gpu\"; }" --set nodes=1 \
		--set gpus_per_node=2 --set training.precision="$prec" --set training.global_batch=4 &&
		finite "gpu-$gpu" 2
done <<'EOF'
H800-SXM5-80GB bf16
H20 bf16
GH200-96GB bf16
GB200 bf16
H100-SXM5-96GB bf16
MI325X bf16
A100-PCIe-40GB bf16
V100-SXM2-16GB fp16
T4 fp16
L4 bf16
RTX-3090-Ti bf16
RTX-2080-Ti fp16
EOF

# H100 NVL cards come in pairs joined by NVLink bridges (600 GB/s): the
# bridged PCIe pair with its GPUs replaced
ok gpu-H100-NVL-94GB run "$SCEN" "${SHORT[@]}" \
	--set 'cluster={ base = "h100-pcie-bridged"; gpu = "H100-NVL-94GB"; }' --set nodes=1 \
	--set gpus_per_node=2 --set training.global_batch=4 && finite gpu-H100-NVL-94GB 2

# --- every new link type as the NIC between two DGX A100 nodes
for nic in nvlink4-h800 nvlink-c2c efa-100g opa-100 roce-40g eth-1g eth-100m tpu-ici-v5p-x6; do
	ok "nic-$nic" run "$SCEN" "${SHORT[@]}" \
		--set "cluster={ base = \"dgx-a100-80gb\"; nic = \"$nic\"; }" --set nodes=2 \
		--set training.global_batch=32 && finite "nic-$nic" 16
done
# the slowest link is the slowest run: 100 Mb/s Ethernet below 1 GbE below 40 GbE RoCE
py nic-eth-100m '
import json, os, sys
d = os.path.dirname(sys.argv[1])
t = {n: json.load(open(os.path.join(d, "nic-" + n)))["iteration_time_s"]
     for n in ("eth-100m", "eth-1g", "roce-40g")}
assert t["eth-100m"] > t["eth-1g"] > t["roce-40g"], t
'

# --- trainsim list shows them (it reads the catalog and configs/clusters/)
ok gpus.json list gpus --format json && py gpus.json '
import json, sys
g = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
for n in ("H800-SXM5-80GB", "H20", "GH200-96GB", "GB200", "A100-PCIe-40GB",
          "V100-SXM2-16GB", "T4", "L4", "RTX-3090-Ti", "RTX-2080-Ti", "H100-SXM5-96GB",
          "H100-NVL-94GB", "MI325X"):
    assert n in g, "list gpus lacks %s" % n
assert g["H20"]["bf16_TFLOPS"] == 148 and g["H20"]["tdp_W"] == 400, g["H20"]
assert "bf16_TFLOPS" not in g["T4"] and g["T4"]["fp16_TFLOPS"] == 65, g["T4"]
# NVIDIA: H100 NVL 1,671 TFLOP/s bf16 with sparsity, 3.9 TB/s, 400 W at most;
# AMD: MI325X 1,307.4 dense, 6 TB/s; PyTorch: 184.31 GiB on a GB200 GPU
n = g["H100-NVL-94GB"]
assert n["bf16_TFLOPS"] == 1671 / 2 and n["hbm_GBps"] == 3900 and n["tdp_W"] == 400, n
m = g["MI325X"]
assert m["bf16_TFLOPS"] == 1307.4 and m["hbm_GBps"] == 6000 and m["memory_GiB"] == 255.98, m
assert g["GB200"]["memory_GiB"] == 184.31 and g["GB200"]["tdp_W"] == 1200, g["GB200"]
'
ok links.json list links --format json && py links.json '
import json, sys
l = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
for n in ("nvlink4-h800", "nvlink-c2c", "efa-100g", "opa-100", "roce-40g", "eth-1g",
          "eth-100m", "tpu-ici-v5p-x6"):
    assert n in l, "list links lacks %s" % n
assert l["efa-100g"]["bw_GBps"] == 12.5 and l["efa-100g"]["efficiency"] == 0.85, l["efa-100g"]
'
ok clusters.json list clusters --format json && py clusters.json '
import json, sys
c = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
p5 = c["aws-p5-48xlarge"]
assert (p5["gpu"], p5["gpus_per_node"], p5["nic"], p5["nics_per_node"]) == \
       ("H100-SXM5-80GB", 8, "efa-100g", 32), p5
t = c["tpu-v5p-64"]
assert (t["nodes"], t["gpus_per_node"], t["gpu"]) == (64, 1, "TPU-v5p"), t
assert c["azure-nd-mi300x-v5"]["gpu"] == "MI300X"
'

# --- H800 against H100: equal compute, 4/9 of the NVLink. A tensor-parallel
# step (GPT-3 6.7B, TP=8, large enough not to be launch-bound) inside one
# node exposes more communication on the H800 and takes longer; the compute
# part is the same. The exposed communication grows by at most 900 / 400 (the
# bandwidth-bound part scales by it, latencies do not).
for c in dgx-h100 hgx-h800; do
	ok "tp-$c" run "$SCEN" --set model=gpt3-6.7b --set cluster="$c" --set nodes=1 \
		--set gpus_per_node=8 --set parallel.tp=8 --set training.micro_batch=4 \
		--set training.global_batch=8 --set training.iterations=2 --format json
done
py tp-hgx-h800 '
import json, os, sys
h800 = json.load(open(sys.argv[1]))
h100 = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "tp-dgx-h100")))
assert abs(h800["compute_s"] - h100["compute_s"]) <= 1e-9 * h100["compute_s"], \
    (h800["compute_s"], h100["compute_s"])
assert h800["exposed_comm_s"] > h100["exposed_comm_s"], (h800["exposed_comm_s"], h100["exposed_comm_s"])
assert h800["iteration_time_s"] > h100["iteration_time_s"], \
    (h800["iteration_time_s"], h100["iteration_time_s"])
r = h800["exposed_comm_s"] / h100["exposed_comm_s"]
assert 1.5 < r <= 900 / 400 * (1 + 1e-9), "exposed communication H800/H100 %.3f" % r
'

# --- MI300X against H100 on one GPU each (no interconnect involved). Their
# achievable matmul rates agree within 1 % (781.9 of 1,300 against 792.1 of
# 989 TFLOP/s, F1); their HBM bandwidths differ by 5,300 / 3,350. The
# optimizer step streams the parameters and Adam state, so it is memory-bound
# and must take 3,350 / 5,300 of the H100's time on the MI300X; the whole
# step, whose elementwise kernels are memory-bound too, must be shorter.
for c in azure-nd-h100-v5 azure-nd-mi300x-v5; do
	ok "mb-$c" run "$SCEN" --set model=gpt3-1.3b --set cluster="$c" --set nodes=1 \
		--set gpus_per_node=1 --set training.micro_batch=8 --set training.global_batch=8 \
		--set training.iterations=2 --format json
done
py mb-azure-nd-mi300x-v5 '
import json, os, sys
m = json.load(open(sys.argv[1]))
h = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "mb-azure-nd-h100-v5")))
r = h["optimizer_s"] / m["optimizer_s"]
assert abs(r / (5300 / 3350) - 1) < 0.01, "optimizer H100/MI300X %.4f, want %.4f" % (r, 5300 / 3350)
assert m["iteration_time_s"] < h["iteration_time_s"], (m["iteration_time_s"], h["iteration_time_s"])
'

finish
