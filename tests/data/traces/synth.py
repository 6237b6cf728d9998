#!/usr/bin/env python3
# Write a synthetic torch.profiler (Kineto) Chrome trace: STEPS iterations of
# STEP_MS on the host, each with the given kernel time per class, split into
# kernels with names of the kind real traces carry, one launch each, run
# back to back on one stream (NCCL on another), with a deterministic +-1 %
# variation per step. For tests and examples that need a trace of a known
# make-up; it is not a measurement.
# SPDX-License-Identifier: MIT
# Usage: synth.py OUT.json STEPS STEP_MS GEMM ATTN_FWD ATTN_BWD MEMBOUND OPTIM NCCL UNKNOWN
#        (kernel time per iteration and class, ms)
import json
import sys

out, steps, step_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
ms = [float(x) for x in sys.argv[4:11]]
names = [("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4", 40),
         ("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, true>(Flash_fwd_params)", 8),
         ("void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128>>(Flash_bwd_params)", 8),
         ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>", 60),
         ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor<float, 4>>", 4),
         ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 4),
         ("void my_extension::custom_fused_kernel<256>(float*, int)", 2)]
ev, corr, t0 = [], 0, 1_000_000.0
for s in range(steps):
    wiggle = 1.0 + 0.01 * (((s * 7) % 3) - 1)
    start = t0 + s * step_ms * 1e3
    ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 10}", "pid": 1,
               "tid": 1, "ts": start, "dur": step_ms * 1e3 * wiggle})
    gpu, host, nccl_t = start + 50.0, start + 20.0, start + 100.0
    for (name, count), total in zip(names, ms):
        if total <= 0:
            continue
        dur = total * 1e3 * wiggle / count
        for _ in range(count):
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": 1, "ts": host, "dur": 4.0, "args": {"correlation": corr}})
            host += 5.0
            args = {"correlation": corr, "stream": 7}
            if name.startswith("nccl"):
                args.update({"stream": 20, "Collective name": "allreduce",
                             "In msg nelems": 20971520, "Out msg nelems": 20971520,
                             "Group size": 8, "dtype": "BFloat16"})
                ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 20,
                           "ts": nccl_t, "dur": dur, "args": args})
                nccl_t += dur
            else:
                ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                           "ts": gpu, "dur": dur, "args": args})
                gpu += dur
with open(out, "w") as f:
    json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}],
               "traceEvents": ev}, f, separators=(",", ":"))
    f.write("\n")
