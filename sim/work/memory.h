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
	double bucket_copy_bpp;	   /* gradient bucket copies, bytes per parameter (DDP, dp > 1) */
	double autocast_copy_bpp;  /* autocast's low-precision weight copies (DDP with AMP) */
	double ipg_bucket_elems;   /* DeepSpeed's contiguous reduction bucket, elements */
	double alloc_fraction;	   /* caching-allocator slack, fraction of the bytes held */
	double fp8_copy_bytes;	   /* of weight_bytes, fp8 weight copies (fp8 training) */
	bool adam8bit;		   /* the moments are 8-bit (work_fw_adam8bit) */
	double opt_states;	   /* per-parameter optimizer states besides a master copy:
				    * Adam's 2 moments, SGD's momentum buffer 1 or 0
				    * (work_fw_sgd) */
	double gather_bytes;	   /* bytes per parameter of the weights a ZeRO all-gather moves
				    * and a gathered unit holds: the compute copy's dtype
				    * (FSDP's MixedPrecision param_dtype, not its fp32 shard) */
	bool torch_optimizer;	   /* the step is torch.optim's (DDP, FSDP): foreach by default */
	double step_temp_bpp;	   /* bytes per parameter of the rank's optimizer shard that
				    * the step allocates and frees (work_step_temp_bytes) */
	double step_group_params;  /* ZeRO-3: the step's temporaries cover at most this many
				    * parameters at once (DeepSpeed's sub_group_size); 0: all */
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
 * the checkpoint); op, layer_input_bytes plus each op's sac_bytes (the
 * outputs op-level selective checkpointing keeps, ops.h). */
double work_activation_bytes(const struct work_op *ops, size_t n, double layer_input_bytes,
			     enum work_recompute r);

/* Turn Adam's state into bitsandbytes' 8-bit Adam (Dettmers et al. 2022,
 * "8-bit Optimizers via Block-wise Quantization", ICLR, §2: the two moments
 * in one byte each): the 8 bytes per parameter of fp32 moments become 2, the
 * fp32 master copy (if any) stays; the step touches 12 bytes fewer. */
void work_fw_adam8bit(struct work_fw_conventions *c);

/* Turn Adam's state into torch.optim.SGD's: with momentum one buffer per
 * parameter ("momentum_buffer", a copy of the gradient in the parameter's
 * dtype: fp32 beside a master copy), without momentum (torch's default,
 * momentum = 0) no state at all (torch.optim.SGD docs, the algorithm and
 * its state). The 8 bytes per parameter of fp32 moments become 4 or 0, the
 * master copy (if any) stays; the step reads and writes 8 or 16 bytes fewer,
 * but torch's own step with momentum (DDP, FSDP) makes three passes over
 * the buffer, 12 bytes more (torch/optim/sgd.py).
 * Apply before work_fw_no_master, which then keeps the buffer in the
 * training dtype. */
void work_fw_sgd(struct work_fw_conventions *c, bool momentum);

/* Train without an fp32 master copy ("pure" low-precision training): the
 * weights, their gradients and Adam's two moments all in the training
 * dtype, 2 + 2 + 4 = 8 bytes per parameter in bf16 (torchtune's default
 * bf16 full fine-tuning, "2 bytes per model parameter instead of 4",
 * torchtune Memory Optimization Overview; DeepSpeed's
 * bf16_master_weights_and_grads + bf16_optimizer_states,
 * DeepSpeedExamples training/bf16_master_weight; "x8 bytes per param,
 * instead of x18", huggingface/transformers#21312). No autocast copies
 * (the weights are already low precision); the gradients reduce in that
 * dtype. `precision` is the training's (fp8 trains bf16 weights); a no-op
 * for fp32/tf32 training, which keeps no master copy. */
void work_fw_no_master(struct work_fw_conventions *c, enum ts_dtype precision);

/* Megatron-Core's precision options as NVIDIA's performance recipes set
 * them (megatron/core/distributed DistributedDataParallelConfig;
 * Megatron-Bridge's bf16_with_fp8_mixed configs set fp8_param_gather and
 * grad_reduce_in_fp32 = False):
 * - grad_bf16: gradients accumulated and reduced in the weights' low
 *   precision (grad_reduce_in_fp32 = False): 2 bytes instead of 4, the step
 *   reading 2 fewer;
 * - fp8_params (fp8 training only; --fp8-param-gather, Transformer
 *   Engine's fp8_model_init): the weights are held as fp8 tensors (1 byte
 *   and a 1-byte transpose) with no bf16 copy, the fp32 master staying in
 *   the optimizer: 2 bytes fewer, and the step writes fp8 weights directly
 *   (2 fewer touched).
 * Either is a no-op where it does not apply (fp32 gradients of fp32
 * weights; fp8_params without fp8). */
void work_fw_precision_options(struct work_fw_conventions *c, bool grad_bf16, bool fp8_params);

/* Bytes of framework buffers one rank holds for the whole iteration besides
 * its weights, gradients and optimizer state: PyTorch DDP's gradient bucket
 * copies (bucket_copy_bpp per parameter, with dp > 1 only: one process
 * runs without DDP), autocast's weight copies (autocast_copy_bpp) and
 * DeepSpeed's contiguous reduction bucket (ipg_bucket_elems elements of the
 * gradient dtype, at most the rank's parameters). `params` are the rank's
 * parameters before data parallelism, dp the data-parallel ranks. */
double work_buffer_bytes(const struct work_fw_conventions *c, double params, int64_t dp);

/* Bytes the optimizer step allocates for itself and frees when it ends,
 * on a rank with `params` parameters before data parallelism under ZeRO
 * stage `zero` over `dp` ranks: step_temp_bpp per parameter of the rank's
 * optimizer shard (params / dp from stage 1, as the optimizer state), at
 * most step_group_params of them at once with ZeRO-3. They are:
 * - PyTorch's foreach Adam(W) (torch.optim's default on CUDA): one
 *   intermediate the size of the parameters in the moments' dtype, the
 *   square root of the second moment (torch/optim/adam.py,
 *   _multi_tensor_adam: exp_avg_sq_sqrt; "a minimum budget of 1
 *   intermediate", pytorch/pytorch#97712, since July 2023);
 * - DeepSpeed's mixed-precision step: the flat low-precision copy of the
 *   gradient partition and its fp32 conversion, both alive while it is
 *   converted (deepspeed/runtime/zero/stage_1_and_2.py, step:
 *   single_grad_partition = flatten(averaged_gradients).to(fp32); stage3.py,
 *   _prepare_fp32_grad_for_sub_group, one sub-group of sub_group_size = 1e9
 *   elements at a time).
 * Fused optimizers (Apex / Transformer Engine FusedAdam, Megatron's, 8-bit
 * Adam) update in place: 0. Nothing with the step on the host (offload):
 * the caller leaves it out. Returns bytes >= 0. */
double work_step_temp_bytes(const struct work_fw_conventions *c, double params, int zero,
			    int64_t dp);

/* GPU generations, for what the CUDA driver and libraries take. */
enum work_gpu_gen {
	WORK_GEN_VOLTA,
	WORK_GEN_TURING,
	WORK_GEN_AMPERE,
	WORK_GEN_ADA,
	WORK_GEN_HOPPER,
	WORK_GEN_BLACKWELL,
	WORK_GEN_OTHER, /* not an NVIDIA GPU (MI300X, TPU): Hopper's figures */
	WORK_GEN_COUNT_
};

/* The generation of a catalog GPU by its name ("V100-SXM2-16GB" -> Volta). */
enum work_gpu_gen work_gpu_generation(const char *gpu_name);

/* What a rank needs beyond the bytes its schedule holds. */
struct work_overhead_in {
	enum work_gpu_gen gen;
	uint32_t comms;	       /* NCCL communicators of more than one rank the rank is in */
	bool convs;	       /* the model runs cuDNN convolutions */
	double held_bytes;     /* peak bytes of the schedule (weights to buffers) */
	double alloc_fraction; /* the framework's allocator slack (conventions) */
	double ep_lib_bytes;   /* an expert-parallel library's own device buffers, outside
				* the caching allocator (work_deepep_buffer_bytes); 0: none */
};

/* The terms, bytes; total = their sum. */
struct work_overhead {
	double cuda_context; /* driver, kernels loaded, per-SM local memory */
	double workspaces;   /* cuBLAS / cuBLASLt workspaces, cuDNN's for convolutions */
	double nccl;	     /* NCCL channel buffers of every communicator, and DeepEP's */
	double allocator;    /* the caching allocator's reserved-but-unallocated slack */
	double total;
};

/* The overhead terms of one rank (each figure's source in memory.c). */
void work_overhead_bytes(const struct work_overhead_in *in, struct work_overhead *out);

/* Bytes of the NVLink and RDMA buffers DeepEP's normal (high-throughput)
 * kernels allocate once per GPU for an expert-parallel group of `ranks`
 * ranks, `hidden_bytes` bytes a token (Megatron-Core's fused_a2a.py:
 * hidden x max(element size, 2)): as Megatron-Core's get_buffer sizes
 * them, the larger of the dispatch and the combine configuration's
 * Config::get_nvl_buffer_size_hint plus the same of
 * get_rdma_buffer_size_hint (0 within 8 ranks), with DeepEP's default 20
 * SMs and its tuned configurations by rank count (deep_ep Buffer
 * get_dispatch_config / get_combine_config; csrc/legacy/config.hpp at
 * a1b3af3). They are cudaMalloc'd and NVSHMEM memory, outside PyTorch's
 * caching allocator. Returns -1 for a rank count DeepEP has no
 * configuration for (2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 144, 160). */
double work_deepep_buffer_bytes(double hidden_bytes, int ranks);

/* The memory model's stated error, as a fraction of the predicted peak:
 * a peak within this fraction of capacity, either side, is "tight". The
 * band is measured on tests/validation/memory_fit.csv (sim/README.md). */
#define WORK_MEM_ERROR 0.10

#endif
