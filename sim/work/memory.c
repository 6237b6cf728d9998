/* Memory per GPU: framework conventions for weights, gradients and Adam
 * state, ZeRO sharding, saved activations by recompute mode, the reserve.
 * SPDX-License-Identifier: MIT */

/*
 * Bytes per parameter before ZeRO, Adam in mixed precision:
 *
 *   framework  precision      weights grads optimizer               total
 *   megatron   bf16           2       4     12 (fp32 master, m, v)  18
 *   megatron   fp8            2+2     4     12                      20
 *   megatron   fp16           2       2     16 (+ fp32 main grads)  20
 *   megatron   fp32/tf32      4       4      8 (m, v)               16
 *   deepspeed  fp16/bf16      2       2     12                      16
 *   ddp (AMP)  any            4       4      8                      16
 *   fsdp       any            4       4      8 (all sharded)        16
 *
 * Megatron: the distributed-optimizer page of Megatron Core lists 20, 18 and
 * 16 bytes for (fp16 param, fp16 grads), (fp16/bf16 param, fp32 grads) and
 * (fp32, fp32), and 4 + 16/d, 6 + 12/d, 8 + 8/d sharded
 * (https://docs.nvidia.com/megatron-core/developer-guide/latest/distrib_optimizer.html);
 * Megatron accumulates and all-reduces bf16 gradients in fp32
 * (--accumulate-allreduce-grads-in-fp32 is forced on for bf16).
 * DeepSpeed: 2Ψ + 2Ψ + KΨ with K = 12 (Rajbhandari et al. 2020, §3.1).
 * DDP: AMP keeps fp32 weights and gradients; autocast's low-precision weight
 * copies are transient. FSDP: the same 16 bytes, all of them sharded when
 * the schedule passes ZeRO stage 3. With fp8 every framework adds 2 bytes
 * of fp8 weight copies (see FP8_WEIGHT_COPY_BYTES).
 */
#include <string.h>
#include <strings.h>

#include "work/memory.h"

/* Reserve, the same for every framework (assumptions, to be checked against
 * measured out-of-memory boundaries):
 * - 1 GiB absolute: a PyTorch process's CUDA context alone takes 700-800 MiB
 *   of device memory (723 MiB in discuss.pytorch.org/t/73021, "~700+MB" in
 *   discuss.pytorch.org/t/81330); cuBLAS workspaces and NCCL's per-channel
 *   buffers take a few hundred MiB more.
 * - 5 % of capacity: slack of PyTorch's caching allocator (rounded block
 *   sizes, fragmentation between free blocks). */
#define RESERVE_BYTES (1024.0 * 1024.0 * 1024.0)
#define RESERVE_FRACTION 0.05
#define MiB (1024.0 * 1024.0)

static const char *const fw_names[WORK_FW_COUNT_] = {"megatron", "deepspeed", "ddp", "fsdp"};

const char *work_framework_name(enum work_framework fw)
{
	return (unsigned)fw < WORK_FW_COUNT_ ? fw_names[fw] : "?";
}

int work_framework_parse(const char *s)
{
	for (int i = 0; i < WORK_FW_COUNT_; i++)
		if (s && strcasecmp(s, fw_names[i]) == 0)
			return i;
	return -1;
}

static void split(struct work_fw_conventions *c, double w, double g, double o)
{
	c->weight_bytes = w;
	c->grad_bytes = g;
	c->optim_bytes = o;
	c->bytes_per_param = w + g + o;
}

static int conventions(enum work_framework fw, enum ts_dtype precision,
		       struct work_fw_conventions *out)
{
	if ((unsigned)precision >= TS_DTYPE_COUNT_ || (unsigned)fw >= WORK_FW_COUNT_)
		return TS_EINVALID;
	bool half = precision == TS_FP16 || precision == TS_BF16 || precision == TS_FP8;
	/* fp8 trains with bf16 weights (fp8 is a GEMM-input cast). */
	enum ts_dtype lowp = precision == TS_FP8 ? TS_BF16 : precision;
	memset(out, 0, sizeof *out);
	out->reserve_bytes = RESERVE_BYTES;
	out->reserve_fraction = RESERVE_FRACTION;
	switch (fw) {
	case WORK_FW_MEGATRON:
		/* Buckets: Megatron-Core's DDP uses max(40M, 1M x dp) elements per
		 * bucket with --overlap-grad-reduce and a single bucket without it,
		 * which is the default; 40M fp32 elements are given here. */
		out->overlap_grad_reduce = false;
		if (!half) {
			out->param_dtype = out->grad_dtype = out->reduce_dtype = TS_FP32;
			split(out, 4.0, 4.0, 8.0);
			/* grad read 4, weight read/write 8, m and v read/write 16 */
			out->optim_bytes_touched = 28.0;
		} else if (lowp == TS_FP16) {
			out->param_dtype = out->grad_dtype = out->reduce_dtype = TS_FP16;
			split(out, 2.0, 2.0, 16.0);
			/* fp16 grad read 2 and fp32 copy written 4; Adam reads it 4,
			 * master 8, m and v 16; fp16 weight written 2 */
			out->optim_bytes_touched = 36.0;
		} else {
			out->param_dtype = TS_BF16;
			out->grad_dtype = out->reduce_dtype = TS_FP32;
			split(out, 2.0, 4.0, 12.0);
			/* fp32 grad read 4, master 8, m and v 16, bf16 weight written 2 */
			out->optim_bytes_touched = 30.0;
		}
		out->bucket_bytes = 40e6 * ts_dtype_bytes(out->grad_dtype);
		out->first_bucket_bytes = out->bucket_bytes;
		out->source =
		    "Megatron Core distributed optimizer guide (20/18/16 bytes per "
		    "parameter; 4+16/d, 6+12/d, 8+8/d sharded); buckets of "
		    "max(40M, 1M x dp) elements when --overlap-grad-reduce, off by default";
		return 0;
	case WORK_FW_DEEPSPEED:
		/* Buckets: reduce_bucket_size defaults to 5e8 elements; overlap_comm
		 * defaults to false (DeepSpeed configuration JSON docs). */
		if (half) {
			out->param_dtype = out->grad_dtype = out->reduce_dtype = lowp;
			split(out, 2.0, 2.0, 12.0);
			/* low-precision grad read 2, fp32 master 8, m and v 16, weight written 2 */
			out->optim_bytes_touched = 28.0;
		} else {
			out->param_dtype = out->grad_dtype = out->reduce_dtype = TS_FP32;
			split(out, 4.0, 4.0, 8.0);
			out->optim_bytes_touched = 28.0;
		}
		out->bucket_bytes = 5e8 * ts_dtype_bytes(out->grad_dtype);
		out->first_bucket_bytes = out->bucket_bytes;
		out->overlap_grad_reduce = false;
		out->source = "Rajbhandari et al. 2020 (ZeRO), section 3.1: 2 + 2 + 12 bytes per "
			      "parameter for mixed-precision Adam; DeepSpeed config docs: "
			      "reduce_bucket_size 5e8 elements, overlap_comm false";
		return 0;
	case WORK_FW_DDP:
		out->param_dtype = out->grad_dtype = out->reduce_dtype = TS_FP32;
		split(out, 4.0, 4.0, 8.0);
		out->optim_bytes_touched = 28.0; /* grad 4, weight r/w 8, m and v r/w 16 */
		out->bucket_bytes = 25.0 * MiB;
		out->first_bucket_bytes = 1.0 * MiB;
		out->overlap_grad_reduce = true;
		out->source =
		    "PyTorch AMP keeps fp32 weights and grads (4 + 4) and Adam's two fp32 "
		    "moments (8); PyTorch DDP docs: bucket_cap_mb = 25, first bucket 1 MiB "
		    "(_DEFAULT_FIRST_BUCKET_BYTES), reductions overlap backward";
		return 0;
	case WORK_FW_FSDP:
		out->param_dtype = lowp;
		out->grad_dtype = TS_FP32;
		out->reduce_dtype = lowp;
		split(out, 4.0, 4.0, 8.0);
		out->optim_bytes_touched = 28.0;
		out->bucket_bytes = 0.0; /* one reduce-scatter per wrapped unit */
		out->first_bucket_bytes = 0.0;
		out->overlap_grad_reduce = true;
		out->source = "PyTorch FSDP with MixedPrecision: sharded fp32 weights, grads and "
			      "Adam moments (16 bytes per parameter / dp), compute copies in "
			      "param_dtype, reduce_dtype defaulting to param_dtype; one "
			      "reduce-scatter per FSDP unit";
		return 0;
	default:
		return TS_EINVALID;
	}
}

/* fp8 (Transformer Engine): the GEMMs read fp8 copies of the bf16 weights
 * and their transposes (1 + 1 bytes per parameter, kept across the
 * micro-batches of an iteration, as Megatron's is_first_microbatch caching
 * does), cast once per iteration after the optimizer step: read 2, write
 * 1 + 1 bytes per parameter more for the step. */
#define FP8_WEIGHT_COPY_BYTES 2.0
#define FP8_WEIGHT_CAST_BYTES 4.0

int work_fw_conventions(enum work_framework fw, enum ts_dtype precision,
			struct work_fw_conventions *out)
{
	int rc = conventions(fw, precision, out);
	if (rc || precision != TS_FP8)
		return rc;
	split(out, out->weight_bytes + FP8_WEIGHT_COPY_BYTES, out->grad_bytes, out->optim_bytes);
	out->optim_bytes_touched += FP8_WEIGHT_CAST_BYTES;
	return 0;
}

int work_static_bytes(const struct work_fw_conventions *c, double params, int zero, int64_t dp,
		      struct work_static *out, struct ts_error *err)
{
	if (zero < 0 || zero > 3)
		return ts_error_set(err, TS_ERANGE, NULL, 0, "parallel.zero",
				    "found %d, expected 0, 1, 2 or 3", zero);
	if (dp < 1)
		return ts_error_set(err, TS_ERANGE, NULL, 0, "parallel.dp",
				    "found %lld, expected a positive integer", (long long)dp);
	if (!(params >= 0.0))
		return ts_error_set(err, TS_ERANGE, NULL, 0, NULL,
				    "parameter count %g, expected >= 0", params);
	double d = (double)dp;
	out->weight_bytes = params * c->weight_bytes / (zero >= 3 ? d : 1.0);
	out->grad_bytes = params * c->grad_bytes / (zero >= 2 ? d : 1.0);
	out->optim_bytes = params * c->optim_bytes / (zero >= 1 ? d : 1.0);
	out->total_bytes = out->weight_bytes + out->grad_bytes + out->optim_bytes;
	return 0;
}

double work_activation_bytes(const struct work_op *ops, size_t n, double layer_input_bytes,
			     enum work_recompute r)
{
	if (r == WORK_RECOMPUTE_FULL)
		return layer_input_bytes;
	double sum = 0.0;
	for (size_t i = 0; i < n; i++) {
		sum += ops[i].saved_bytes;
		if (r == WORK_RECOMPUTE_SELECTIVE)
			sum -= ops[i].selective_bytes;
	}
	return sum;
}

double work_reserve_bytes(const struct work_fw_conventions *c, double capacity_bytes)
{
	return c->reserve_bytes + c->reserve_fraction * capacity_bytes;
}
