#!/usr/bin/env python3
# Cut a torch.profiler (Kineto) Chrome trace down to the steps and fields
# trainsim's trace reader uses: the ProfilerStep#N events of the chosen steps,
# the GPU kernels launched in them and their launches (cuda_runtime), each
# with only the args trainsim reads; deviceProperties kept.
# SPDX-License-Identifier: MIT
# Usage: trim.py IN.json[.gz] OUT.json STEP [STEP...]
import gzip
import json
import sys

KERNEL_ARGS = ("correlation", "stream", "device", "Collective name", "In msg nelems",
               "Out msg nelems", "Group size", "dtype")

src, dst, steps = sys.argv[1], sys.argv[2], set(sys.argv[3:])
opener = gzip.open if src.endswith(".gz") else open
with opener(src, "rt") as f:
    d = json.load(f)
ev = d["traceEvents"]
spans = [(e["ts"], e["ts"] + e["dur"]) for e in ev
         if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
         and e.get("cat") != "gpu_user_annotation" and e["name"][13:] in steps]
inside = lambda t: any(a <= t <= b for a, b in spans)
keep, corr = [], set()
launched = {e["args"]["correlation"] for e in ev
            if e.get("cat") == "kernel" and "correlation" in e.get("args", {})}
for e in ev:
    if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and inside(e["ts"]):
        c = e.get("args", {}).get("correlation")
        if c in launched:
            corr.add(c)
            keep.append({k: e[k] for k in ("ph", "cat", "name", "pid", "tid", "ts", "dur")}
                        | {"args": {"correlation": c}})
for e in ev:
    if e.get("ph") != "X":
        continue
    if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") != "gpu_user_annotation" \
            and e["name"][13:] in steps:
        keep.append({k: e[k] for k in ("ph", "cat", "name", "pid", "tid", "ts", "dur")})
    elif e.get("cat") == "kernel" and e.get("args", {}).get("correlation") in corr:
        a = {k: v for k, v in e["args"].items() if k in KERNEL_ARGS}
        keep.append({k: e[k] for k in ("ph", "cat", "name", "pid", "tid", "ts", "dur")} | {"args": a})
out = {"schemaVersion": d.get("schemaVersion", 1)}
if "deviceProperties" in d:
    out["deviceProperties"] = [{k: p[k] for k in ("id", "name", "totalGlobalMem", "computeMajor",
                                                   "computeMinor", "numSms") if k in p}
                               for p in d["deviceProperties"]]
out["traceEvents"] = sorted(keep, key=lambda e: e["ts"])
with open(dst, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
