/* How much memory training holds per GPU: weights, gradients and optimizer
 * state by framework convention and ZeRO stage, saved activations by
 * recompute mode, and the reserve a framework cannot use.
 * SPDX-License-Identifier: MIT */
#ifndef TS_WORK_MEMORY_H
#define TS_WORK_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "work/ops.h"

enum work_framework {
	WORK_FW_MEGATRON,  /* Megatron-LM / Megatron-Core, Adam in mixed precision */
	WORK_FW_DEEPSPEED, /* DeepSpeed with ZeRO */
	WORK_FW_DDP,	   /* PyTorch DistributedDataParallel with AMP autocast */
	WORK_FW_FSDP,	   /* PyTorch FullyShardedDataParallel with MixedPrecision */
	WORK_FW_COUNT_
};

/* What a framework keeps per parameter and how it reduces gradients, with
 * Adam. Plain record; `source` is static text. */
struct work_fw_conventions {
	enum ts_dtype param_dtype;		      /* dtype of the weights the GEMMs read */
	enum ts_dtype grad_dtype;		      /* dtype gradients accumulate in */
	enum ts_dtype reduce_dtype;		      /* dtype of the data-parallel reduction */
	double bytes_per_param;			      /* weights + grads + optimizer before ZeRO */
	double weight_bytes, grad_bytes, optim_bytes; /* the split of bytes_per_param */
	double optim_bytes_touched; /* HBM bytes the Adam step moves per parameter */
	double bucket_bytes;	   /* default gradient bucket; 0 = one reduction per wrapped unit */
	double first_bucket_bytes; /* the first (last-layer) bucket */
	bool overlap_grad_reduce;  /* reductions overlap backward by default */
	double reserve_bytes;	   /* CUDA context, library workspaces, communication buffers */
	double reserve_fraction;   /* allocator fragmentation, fraction of capacity */
	const char *source;	   /* where these conventions come from */
};

/* Name of a framework ("megatron") and the inverse (-1 if unknown). */
const char *work_framework_name(enum work_framework fw);
int work_framework_parse(const char *s);

/* Fill *out with the defaults of framework fw training at precision
 * `precision` (the GEMM dtype of the scenario). fp8 trains with bf16
 * weights plus 2 bytes per parameter of fp8 weight copies (weight_bytes)
 * and 4 more bytes per parameter touched by the step (the weight cast).
 * Each figure's source is in memory.c and in out->source. Returns 0 or TS_EINVALID (unknown
 * framework or dtype). */
int work_fw_conventions(enum work_framework fw, enum ts_dtype precision,
			struct work_fw_conventions *out);

/* Bytes of weights, gradients and optimizer state on one rank. */
struct work_static {
	double weight_bytes, grad_bytes, optim_bytes;
	double total_bytes;
};

/* Static bytes of `params` parameters (those on this rank before data
 * parallelism) under ZeRO stage `zero` (0..3) over `dp` data-parallel ranks:
 * stage 1 shards the optimizer state, 2 also the gradients, 3 also the
 * weights, each by dp (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations
 * Toward Training Trillion Parameter Models", §5, Fig. 1,
 * https://arxiv.org/abs/1910.02054). Returns 0 or TS_ERANGE (zero outside
 * 0..3, dp < 1, params < 0) with `err` filled. */
int work_static_bytes(const struct work_fw_conventions *c, double params, int zero, int64_t dp,
		      struct work_static *out, struct ts_error *err);

/* Saved activation bytes of one layer per micro-batch (ops from
 * work_layer_ops) under recompute mode r: none, the sum of saved_bytes;
 * selective, that sum less each op's selective_bytes (Korthikanti et al.
 * 2022 §5: the attention scores, softmax and its dropout, 5·a·s²·b/t bytes
 * for fp16 MHA); full, only layer_input_bytes (the block's input, kept as
 * the checkpoint). */
double work_activation_bytes(const struct work_op *ops, size_t n, double layer_input_bytes,
			     enum work_recompute r);

/* Bytes a GPU of usable capacity `capacity_bytes` cannot give to training:
 * reserve_bytes + reserve_fraction · capacity. */
double work_reserve_bytes(const struct work_fw_conventions *c, double capacity_bytes);

#endif
