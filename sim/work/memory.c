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
#include <math.h>
#include <string.h>
#include <strings.h>

#include "work/memory.h"

/* Caching-allocator slack, the bytes PyTorch's allocator has reserved from
 * the driver beyond those its tensors hold at the peak (block rounding,
 * free blocks split between segments), as a fraction of the bytes held.
 * Assumptions, checked against tests/validation/memory_fit.csv (sim/README.md,
 * "Memory as frameworks allocate it"), ordered by how each framework lays
 * out its long-lived tensors:
 * - Megatron-Core keeps weights and gradients in contiguous per-bucket
 *   buffers (megatron/core/distributed/param_and_grad_buffer.py) and frees
 *   pipeline outputs early (deallocate_pipeline_outputs): 3 %;
 * - DeepSpeed copies gradients into a contiguous buffer as they are made
 *   ("contiguous_gradients: ... Avoids memory fragmentation during backward
 *   pass", DeepSpeed configuration JSON docs): 5 %;
 * - FSDP all-gathers and frees a flat parameter per unit every pass, across
 *   two streams, the pattern its rate limiter (limit_all_gathers) exists
 *   for (Zhao et al. 2023, "PyTorch FSDP", VLDB, §4.4): 8 %;
 * - plain DDP with autocast allocates and frees a low-precision weight
 *   copy per layer and pass: 8 %. */
#define ALLOC_MEGATRON 0.03
#define ALLOC_DEEPSPEED 0.05
#define ALLOC_FSDP 0.08
#define ALLOC_DDP 0.08
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
		out->alloc_fraction = ALLOC_MEGATRON;
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
		/* contiguous_gradients (default true) reduces through one
		 * buffer of reduce_bucket_size = 5e8 elements (two with
		 * overlap_comm), allocated once (DeepSpeed configuration JSON
		 * docs; deepspeed/runtime/zero/stage_1_and_2.py, ipg_buffer) */
		out->ipg_bucket_elems = 5e8;
		/* allgather_bucket_size (5e8) only chunks the gather of the
		 * updated weights into the flat low-precision buffer already
		 * counted as weights: no buffer of its own */
		out->alloc_fraction = ALLOC_DEEPSPEED;
		/* the step's flat low-precision gradient copy and its fp32
		 * conversion (work_step_temp_bytes), one ZeRO-3 sub-group
		 * (sub_group_size, 1e9 elements by default) at a time */
		out->step_temp_bpp = half ? ts_dtype_bytes(lowp) + 4.0 : 0.0;
		out->step_group_params = 1e9;
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
		/* DDP copies each gradient into its bucket's flat buffer unless
		 * gradient_as_bucket_view = True (default False; the DDP docs:
		 * the view "can reduce peak memory usage, where the saved memory
		 * size will be equal to the total gradients size") */
		out->bucket_copy_bpp = out->grad_bytes;
		/* autocast casts each fp32 weight to the low precision at its
		 * first use in the forward and keeps the copy, saved for the
		 * backward, until the step (torch.autocast's weight cast cache;
		 * the Hugging Face guide's "6 bytes per parameter for mixed
		 * precision training") */
		out->autocast_copy_bpp = half ? 2.0 : 0.0;
		out->alloc_fraction = ALLOC_DDP;
		/* foreach Adam's square-root intermediate, fp32 moments */
		out->torch_optimizer = true;
		out->step_temp_bpp = 4.0;
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
		out->alloc_fraction = ALLOC_FSDP;
		out->torch_optimizer = true;
		out->step_temp_bpp = 4.0; /* as DDP's */
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
	if (rc)
		return rc;
	out->gather_bytes = ts_dtype_bytes(out->param_dtype);
	out->opt_states = 2.0; /* Adam's m and v */
	if (precision != TS_FP8)
		return rc;
	split(out, out->weight_bytes + FP8_WEIGHT_COPY_BYTES, out->grad_bytes, out->optim_bytes);
	out->fp8_copy_bytes = FP8_WEIGHT_COPY_BYTES;
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
	if (r == WORK_RECOMPUTE_OP) {
		double kept = layer_input_bytes;
		for (size_t i = 0; i < n; i++)
			kept += ops[i].sac_bytes;
		return kept;
	}
	double sum = 0.0;
	for (size_t i = 0; i < n; i++) {
		sum += ops[i].saved_bytes;
		if (r == WORK_RECOMPUTE_SELECTIVE)
			sum -= ops[i].selective_bytes;
	}
	return sum;
}

void work_fw_adam8bit(struct work_fw_conventions *c)
{
	c->adam8bit = true;
	/* m and v: 4 + 4 bytes fp32 -> 1 + 1 (block-wise quantised, the
	 * per-block scales are 2 x 4 bytes per 2048 elements: below 0.01) */
	double o = c->optim_bytes - 6.0;
	split(c, c->weight_bytes, c->grad_bytes, o > 0.0 ? o : 0.0);
	/* reads and writes of m and v: 16 bytes -> 4 */
	c->optim_bytes_touched -= 12.0;
	/* bitsandbytes updates in place, one fused kernel per tensor */
	if (c->torch_optimizer)
		c->step_temp_bpp = 0.0;
}

/* Bytes per parameter that torch's three-pass SGD momentum step moves
 * beyond a fused one (work_fw_sgd), for 4-byte states. */
#define SGD_PASSES_BYTES 12.0

void work_fw_sgd(struct work_fw_conventions *c, bool momentum)
{
	double gone = c->opt_states - (momentum ? 1.0 : 0.0);
	if (c->adam8bit || gone <= 0.0)
		return; /* already not Adam's fp32 moments */
	/* each fp32 state is 4 bytes held and 4 + 4 read and written by the step */
	split(c, c->weight_bytes, c->grad_bytes, c->optim_bytes - 4.0 * gone);
	c->optim_bytes_touched -= 8.0 * gone;
	c->opt_states -= gone;
	/* torch.optim.SGD's foreach and for-loop steps with momentum make
	 * three passes (torch/optim/sgd.py: buf.mul_(momentum),
	 * buf.add_(grad), param.add_(buf)): the buffer is read and written,
	 * read with the gradient and written, then read with the weight, 12
	 * bytes more than one fused pass's 20 (its fused=True step is not
	 * told apart) */
	if (c->torch_optimizer && momentum)
		c->optim_bytes_touched += SGD_PASSES_BYTES;
	/* torch's foreach SGD updates buffers and weights in place: no
	 * intermediate without weight decay (torch/optim/sgd.py,
	 * _multi_tensor_sgd) */
	if (c->torch_optimizer)
		c->step_temp_bpp = 0.0;
}

void work_fw_no_master(struct work_fw_conventions *c, enum ts_dtype precision)
{
	/* the training dtype: fp8 trains bf16 weights (a GEMM-input cast) */
	enum ts_dtype lowp = precision == TS_FP8 ? TS_BF16 : precision;
	double b = ts_dtype_bytes(lowp);
	if (b >= 4.0)
		return;
	/* 8-bit Adam keeps its 1 + 1 bytes of moments; SGD's momentum buffer
	 * (if any) is in the training dtype, as the weights it follows */
	double moments = c->adam8bit ? 2.0 : c->opt_states * b;
	c->param_dtype = c->grad_dtype = c->reduce_dtype = lowp;
	c->gather_bytes = b;
	split(c, b + c->fp8_copy_bytes, b, moments);
	/* grad read b, weight read/write 2b, moments read/write twice theirs,
	 * the fp8 cast (if any) as before */
	c->optim_bytes_touched =
	    3.0 * b + 2.0 * moments + (c->fp8_copy_bytes > 0.0 ? FP8_WEIGHT_CAST_BYTES : 0.0) +
	    (c->torch_optimizer && c->opt_states == 1.0 ? SGD_PASSES_BYTES * b / 4.0 : 0.0);
	c->bucket_copy_bpp = c->bucket_copy_bpp > 0.0 ? b : 0.0;
	c->autocast_copy_bpp = 0.0;
	/* PyTorch's foreach intermediate is in the moments' dtype; DeepSpeed
	 * converts no gradient to fp32 (bf16_master_weights_and_grads) */
	c->step_temp_bpp = c->torch_optimizer && !c->adam8bit && c->opt_states == 2.0 ? b : 0.0;
}

void work_fw_precision_options(struct work_fw_conventions *c, bool grad_bf16, bool fp8_params)
{
	double pb = ts_dtype_bytes(c->param_dtype);
	if (grad_bf16 && pb < 4.0 && c->grad_bytes > pb) {
		c->optim_bytes_touched -= c->grad_bytes - pb;
		c->grad_dtype = c->reduce_dtype = c->param_dtype;
		split(c, c->weight_bytes, pb, c->optim_bytes);
		if (c->bucket_copy_bpp > 0.0)
			c->bucket_copy_bpp = pb;
	}
	if (fp8_params && c->fp8_copy_bytes > 0.0 && c->weight_bytes > c->fp8_copy_bytes) {
		split(c, c->fp8_copy_bytes, c->grad_bytes, c->optim_bytes);
		c->optim_bytes_touched -= 2.0;
		c->gather_bytes = 1.0; /* --fp8-param-gather: the gathers move fp8 */
	}
}

double work_buffer_bytes(const struct work_fw_conventions *c, double params, int64_t dp)
{
	double ipg = c->ipg_bucket_elems < params ? c->ipg_bucket_elems : params;
	return params * ((dp > 1 ? c->bucket_copy_bpp : 0.0) + c->autocast_copy_bpp) +
	       ipg * ts_dtype_bytes(c->grad_dtype);
}

double work_step_temp_bytes(const struct work_fw_conventions *c, double params, int zero,
			    int64_t dp)
{
	double shard = zero >= 1 && dp > 1 ? params / (double)dp : params;
	if (zero >= 3 && c->step_group_params > 0.0 && shard > c->step_group_params)
		shard = c->step_group_params;
	return shard > 0.0 ? shard * c->step_temp_bpp : 0.0;
}

enum work_gpu_gen work_gpu_generation(const char *n)
{
	static const struct {
		const char *prefix;
		enum work_gpu_gen gen;
	} t[] = {
	    {"V100", WORK_GEN_VOLTA},	 {"T4", WORK_GEN_TURING},    {"RTX-20", WORK_GEN_TURING},
	    {"A100", WORK_GEN_AMPERE},	 {"A10", WORK_GEN_AMPERE},   {"A40", WORK_GEN_AMPERE},
	    {"RTX-30", WORK_GEN_AMPERE}, {"RTX-A", WORK_GEN_AMPERE}, {"L4", WORK_GEN_ADA},
	    {"RTX-40", WORK_GEN_ADA},	 {"H1", WORK_GEN_HOPPER},    {"H2", WORK_GEN_HOPPER},
	    {"H8", WORK_GEN_HOPPER},	 {"GH", WORK_GEN_HOPPER},    {"B1", WORK_GEN_BLACKWELL},
	    {"B2", WORK_GEN_BLACKWELL},	 {"GB", WORK_GEN_BLACKWELL}, {"RTX-50", WORK_GEN_BLACKWELL},
	};
	for (size_t i = 0; n && i < sizeof t / sizeof t[0]; i++)
		if (!strncasecmp(n, t[i].prefix, strlen(t[i].prefix)))
			return t[i].gen;
	return WORK_GEN_OTHER;
}

/* CUDA context of a PyTorch process, by the generation and the CUDA
 * release its runs used. Before CUDA 11.7 every kernel of every library
 * loaded into the context at start: 1343 MiB on a V100 with CUDA 11.2 in
 * the Hugging Face "Model training anatomy" guide (nvidia-smi after
 * torch.ones(1).to("cuda")), ">1000MB" in pytorch/pytorch#107667. From
 * 11.7 kernels load lazily (the default in PyTorch): "around 400MB"
 * (pytorch/pytorch#109888, 2023). Volta and Turing runs are taken as the
 * former (NGC containers of their time, CUDA 11.0-11.2), Ampere and Ada as
 * the latter, Hopper and later at 0.5 GiB (CUDA 12: the local memory the
 * driver reserves per resident thread grows with 132 SMs against 108;
 * an assumption). */
static const double CONTEXT_GIB[WORK_GEN_COUNT_] = {1.31, 1.31, 0.40, 0.40, 0.50, 0.50, 0.50};

/* cuBLAS workspace per handle and stream: PyTorch's default is
 * ":4096:2:16:8" (2 x 4096 KiB + 8 x 16 KiB, about 8 MiB) before Hopper and
 * 32 MiB on Hopper and later (aten/src/ATen/cuda/CublasHandlePool.cpp,
 * getChosenWorkspaceSize; CUBLAS_WORKSPACE_CONFIG in PyTorch's
 * "Reproducibility" note); cuBLASLt takes as much again. Two streams issue
 * GEMMs (the compute stream and a side stream: backward's or TP overlap's). */
#define CUBLAS_MIB_PRE_HOPPER 8.0
#define CUBLAS_MIB_HOPPER 32.0
/* cuDNN's convolution workspace with cudnn.benchmark: the fastest
 * algorithm whose workspace fits is chosen, per convolution shape; the
 * largest of them is held by the allocator. Assumption: 256 MiB. */
#define CUDNN_WORKSPACE_MIB 256.0
/* NCCL: every channel of a communicator holds a receive buffer per peer
 * of NCCL_BUFFSIZE (default 4 MiB, NCCL environment-variable docs) for
 * the Simple protocol, LL128 about as much again (NCCL_LL128_BUFFSIZE):
 * rings have 2 peers (previous, next), and NCCL opens up to
 * NCCL_MAX_NCHANNELS channels; 16 channels per communicator is assumed
 * (NCCL_DEBUG=INFO logs of 8-GPU NVLink nodes show 16-32 "coll channels"). */
#define NCCL_BUFFSIZE_MIB 4.0
#define NCCL_PROTOCOL_BUFFERS 2.0
#define NCCL_PEERS 2.0
#define NCCL_CHANNELS 16.0

void work_overhead_bytes(const struct work_overhead_in *in, struct work_overhead *out)
{
	enum work_gpu_gen g = (unsigned)in->gen < WORK_GEN_COUNT_ ? in->gen : WORK_GEN_OTHER;
	double cublas = g >= WORK_GEN_HOPPER ? CUBLAS_MIB_HOPPER : CUBLAS_MIB_PRE_HOPPER;
	out->cuda_context = CONTEXT_GIB[g] * 1024.0 * MiB;
	out->workspaces = (2.0 * 2.0 * cublas + (in->convs ? CUDNN_WORKSPACE_MIB : 0.0)) * MiB;
	out->nccl = (double)in->comms * NCCL_CHANNELS * NCCL_PEERS * NCCL_PROTOCOL_BUFFERS *
			NCCL_BUFFSIZE_MIB * MiB +
		    (in->ep_lib_bytes > 0.0 ? in->ep_lib_bytes : 0.0);
	out->allocator = in->alloc_fraction * (in->held_bytes > 0.0 ? in->held_bytes : 0.0);
	out->total = out->cuda_context + out->workspaces + out->nccl + out->allocator;
}

/* DeepEP (deepseek-ai/DeepEP; deep_ep Buffer and csrc/legacy/config.hpp at
 * a1b3af3): the normal kernels run on num_sms = 20 SMs (Buffer.num_sms),
 * num_sms / 2 channels; each configuration is (NVL chunked receive
 * tokens, RDMA chunked send tokens, RDMA chunked receive tokens), the
 * latter rounded up to a multiple of the former (Config's constructor).
 * The hints reserve per channel and peer: for NVLink, 2 x RDMA ranks + 3
 * ints, and per receive token the hidden bytes, an 8-byte SourceMeta, 128
 * top-k indices (8 bytes, int64) and weights (4) and 128 scales (4); for
 * RDMA (more than 8 ranks), 2 x (8 x 2 + 2) ints and per receive token,
 * twice, the hidden bytes, the SourceMeta, the top-k indices, weights and
 * scales and an int4 (16); each rounded up to 128 bytes. */
#define DEEPEP_SMS 20
#define DEEPEP_NVL_PEERS 8
#define DEEPEP_MAX_TOPK 128.0
#define DEEPEP_MAX_SCALES 128.0
#define DEEPEP_SOURCE_META 8.0
#define DEEPEP_TOPK_IDX 8.0

struct deepep_cfg {
	int ranks;
	int nvl_recv, rdma_send, rdma_recv;
};

/* deep_ep Buffer.get_dispatch_config and get_combine_config */
static const struct deepep_cfg DEEPEP_DISPATCH[] = {
    {2, 256, 6, 128},	{4, 256, 6, 128},    {8, 256, 6, 128},	  {16, 288, 20, 128},
    {24, 288, 8, 128},	{32, 288, 8, 128},   {48, 288, 8, 128},	  {64, 288, 8, 128},
    {96, 480, 12, 128}, {128, 560, 12, 128}, {144, 720, 12, 128}, {160, 720, 12, 128}};
static const struct deepep_cfg DEEPEP_COMBINE[] = {
    {2, 256, 6, 128},  {4, 256, 6, 128},   {8, 256, 6, 128},   {16, 288, 12, 128},
    {24, 288, 8, 128}, {32, 288, 8, 128},  {48, 288, 8, 128},  {64, 288, 8, 128},
    {96, 480, 8, 128}, {128, 560, 8, 128}, {144, 720, 8, 128}, {160, 720, 8, 128}};

static double round128(double x)
{
	return ceil(x / 128.0) * 128.0;
}

static double deepep_hint(const struct deepep_cfg *c, double hidden_bytes, bool rdma)
{
	int n = c->ranks, rdma_ranks = n / DEEPEP_NVL_PEERS > 1 ? n / DEEPEP_NVL_PEERS : 1;
	int nvl_ranks = n < DEEPEP_NVL_PEERS ? n : DEEPEP_NVL_PEERS;
	double ch = DEEPEP_SMS / 2;
	double per_token = hidden_bytes + DEEPEP_SOURCE_META + DEEPEP_MAX_TOPK * DEEPEP_TOPK_IDX +
			   DEEPEP_MAX_TOPK * 4.0 + DEEPEP_MAX_SCALES * 4.0;
	if (!rdma)
		return round128(ch * nvl_ranks *
				((2.0 * rdma_ranks + 3.0) * 4.0 + (double)c->nvl_recv * per_token));
	if (n <= DEEPEP_NVL_PEERS)
		return 0.0;
	double recv = ceil((double)c->rdma_recv / c->rdma_send) * c->rdma_send;
	return round128(
	    ch * rdma_ranks *
	    ((DEEPEP_NVL_PEERS * 2.0 + 2.0) * 2.0 * 4.0 + recv * 2.0 * (per_token + 16.0)));
}

double work_deepep_buffer_bytes(double hidden_bytes, int ranks)
{
	for (size_t i = 0; i < sizeof DEEPEP_DISPATCH / sizeof DEEPEP_DISPATCH[0]; i++) {
		if (DEEPEP_DISPATCH[i].ranks != ranks)
			continue;
		const struct deepep_cfg *d = &DEEPEP_DISPATCH[i], *c = &DEEPEP_COMBINE[i];
		return fmax(deepep_hint(d, hidden_bytes, false),
			    deepep_hint(c, hidden_bytes, false)) +
		       fmax(deepep_hint(d, hidden_bytes, true), deepep_hint(c, hidden_bytes, true));
	}
	return -1.0;
}
