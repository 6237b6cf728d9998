/* How long the work takes on a GPU: GEMM efficiency from tiles and waves,
 * flash attention and memory-bound ops, the named calibration constants, and
 * a memo of per-micro-batch costs for one (model, shape, GPU).
 * SPDX-License-Identifier: MIT */
#ifndef TS_WORK_COMPUTE_H
#define TS_WORK_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "work/model.h"
#include "work/ops.h"

/* The efficiency constants of the compute model. Plain record: a fitter may
 * change any field in memory and call work_costs_compute again. The values,
 * their sources and the rows they were fitted on live in
 * configs/calibration/compute.cfg; work_calib_defaults holds the same values. */
struct work_calib {
	double gemm_k0;	   /* exposed part of a GEMM tile's output write at HBM bandwidth,
			    * a fraction (work_gemm_k0 turns it into K0, elements) */
	double tile_m;	   /* GEMM output tile rows (along M), elements */
	double tile_n;	   /* GEMM output tile columns (along N), elements */
	double flash_eff;  /* flash attention: fraction of the dtype's dense peak, 0..1 */
	double hbm_eff;	   /* achievable fraction of hbm_Bps when the GPU gives none, 0..1 */
	double launch_s;   /* host time per kernel launch in eager PyTorch/Megatron, s */
	double tc_sustain; /* fraction of the catalog's best-case tensor-core rates
			    * (mamf_eff, flash_eff) sustained back to back in training, 0..1 */
	double comm_compute_slowdown; /* compute time added while a communication kernel
				       * runs beside it (TP overlap), fraction, 0..1 */
};

/* Whether v is an allowed value of constant i (the order of
 * work_calib_field): 0, or TS_ERANGE with "found ..., expected a number in
 * [lo, hi]" written into why (n bytes). */
int work_calib_check(size_t i, double v, char *why, size_t n);

/* Number of constants in struct work_calib and their keys in compute.cfg
 * ("gemm_k0", ..., in field order); for fitters and --dump-config. */
#define WORK_CALIB_COUNT 8
const char *work_calib_key(size_t i);
/* Pointer to the field of key i (NULL when i is out of range). */
double *work_calib_field(struct work_calib *c, size_t i);

/* The constants of configs/calibration/compute.cfg as compiled in. */
struct work_calib work_calib_defaults(void);

/* Load ROOT/configs/calibration/compute.cfg into *out. Each key is a group
 * `{ value = ...; source = "..."; }`; launch takes a time with a unit
 * ("4 us"), the others plain numbers. Every key is required. Returns 0, or
 * TS_EIO, TS_ESYNTAX, TS_EUNKNOWN_KEY (with the closest key suggested),
 * TS_ETYPE, TS_EUNIT, TS_ERANGE or TS_EINVALID (a missing key or source),
 * with `err` naming the file, line and key; *out is untouched on failure. */
int work_calib_load(const char *root, struct work_calib *out, struct ts_error *err);

/* Fraction of the dense peak of dtype d that a GEMM of M x N (reduction K)
 * reaches (DESIGN.md, "Models of the hardware and the work"):
 *   eta = tc_sustain · mamf_eff[d] · tiles/(ceil(tiles/SMs)·SMs) · K/(K + K0),
 *   tiles = ceil(M/tile_m) · ceil(N/tile_n), K0 = work_gemm_k0(g, d, c).
 * mamf_eff is the maximum achievable matmul fraction of the catalog, the
 * best iteration of a short benchmark; tc_sustain is the part of it that
 * kernels keep up back to back in a training step. Returns
 * 0..1; 0 when the GPU lacks dtype d or a size is not positive. */
double work_gemm_eff(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c,
		     double m, double n, double k);
/* The same for `batch` independent GEMMs launched together (their tiles share
 * the waves). */
double work_gemm_eff_batched(const struct hw_gpu_type *g, enum ts_dtype d,
			     const struct work_calib *c, double m, double n, double k,
			     double batch);

/* K0 of the K/(K + K0) factor of work_gemm_eff on g at precision d, in
 * elements of the reduction: the time a tile takes to write its outputs
 * (e bytes each, e = work_act_bytes(d)) at the tile's share of the output
 * bandwidth, as a count of main-loop steps at the GPU's best matmul rate,
 * times the calibration's gemm_k0 (the part of that write not hidden
 * behind other tiles' math, a fraction):
 *   K0 = gemm_k0 · e · peak[d] · mamf_eff[d] / (2 · bw),
 *   bw = min(hbm_Bps · hbm_eff, SMs · sm_out_Bps) (sm_out_Bps where the
 *   catalog gives it, else HBM alone).
 * The SM count and the tile size cancel. So K0 grows with the GPU's machine
 * balance (FLOP per byte): about 150 · gemm_k0 on A100 bf16, 270 · gemm_k0
 * on H100 SXM, where tensor cores doubled per SM and per clock and HBM did
 * not keep pace (NVIDIA, "GPU Performance Background User's Guide",
 * docs.nvidia.com/deeplearning/performance, "Understanding Performance":
 * arithmetic intensity against ops:byte ratio). On B200 HBM outgrew the
 * SMs' way out (7,040 GB/s achievable against 148 SMs x 22.33 GB/s, the
 * catalog's sm_out_bw), and the SMs set it: about 530 · gemm_k0 in bf16,
 * 1,040 · gemm_k0 in fp8 (outputs still 2-byte), as OpenXLA's measured
 * B200 table bears out (tests/check_compute.c, gemm_b200_published: with
 * the gemm_k0 of the H100 table, 8.3 % mean error in bf16 and 12.8 % in
 * fp8, against 12.2 and 20.0 % from HBM alone, the rule before
 * 2026-12-06). 0 when g lacks bandwidth. */
double work_gemm_k0(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c);

/* Query (forward) or key (backward) rows of one flash-attention thread
 * block: kBlockM = 128 for head dims up to 128 on A100 and H100
 * (flash-attention csrc/flash_attn/src/flash_fwd_launch_template.h,
 * run_mha_fwd_hdim64/128: Flash_fwd_kernel_traits<d, 128, ...>). */
#define WORK_FLASH_BLOCK 128.0

/* Fraction of the non-causal work a causal flash-attention kernel does on
 * seq_k keys: it skips the key blocks wholly above the diagonal and computes
 * the diagonal blocks in full with a mask (Dao 2023, FlashAttention-2,
 * https://arxiv.org/abs/2307.08691, section 3.1.1 "Causal masking"), so of
 * nb x nb blocks (nb = ceil(seq_k / WORK_FLASH_BLOCK)) it computes
 * nb(nb + 1)/2: (nb + 1)/(2 nb), 0.625 at 512 keys, 0.516 at 4,096, tending
 * to 1/2. With context parallelism the queries of a rank meet all seq_k keys
 * and the same count holds. 0.5 for a non-positive seq_k. */
double work_flash_causal_fraction(double seq_k);

/* Flash attention's rate at seq_k keys and head dimension hd relative to
 * its rate at 2,048 keys and head dimension 128, the point flash_eff
 * describes: FlashAttention-2's forward + backward on A100 80GB SXM4,
 * without causal mask, batch x seq_len = 16k tokens (Dao 2023,
 * arXiv 2307.08691, Figure 4 (a) and (b); the bars as the flash-attention
 * repository draws them, assets/flash2_a100_fwd_bwd_benchmark.png):
 *   seq_k       512   1k    2k    4k    8k    16k
 *   hd 64       132   153   162   171   175   176  TFLOP/s
 *   hd 128      150   173   187   196   201   203
 * (1k at hd 64 and 512 and 1k at hd 128 hide behind the legend and are read
 * off the bar heights.) Interpolated linearly in log2(seq_k) and in hd,
 * held flat outside 512-16k keys and 64-128 head dims (assumption: no figure
 * of the paper covers them). The same shape is taken for every GPU, its
 * level set by flash_eff (assumption: FlashAttention-3's Figure 5 plots
 * H100's kernels, not this table). 1 for a non-positive argument. */
double work_flash_shape(double seq_k, double hd);

/* Achievable HBM bandwidth of g, bytes/s: hbm_Bps x (the GPU's hbm_eff, or
 * the calibration's when the GPU gives none). */
double work_hbm_Bps(const struct hw_gpu_type *g, const struct work_calib *c);

/* Seconds op takes on g at precision d in phase ph, launches excluded:
 * - WORK_GEMM: FLOPs / (peak[d] · eta), eta of the phase's own shape
 *   (fwd M,N,K = m,n,k; dgrad dX = dY·W^T is m x k reducing over n; wgrad
 *   dW = X^T·dY is k x n reducing over m, the tokens), but never less than
 *   its bytes at achievable HBM bandwidth (a roofline);
 * - WORK_ATTN_CORE: its batched GEMMs at their eta (forward QK^T s x s x d
 *   and AV s x d x s; backward dP s x s x d and dQ, dK, dV s x d x s), each
 *   never faster than its operands at achievable HBM bandwidth, plus its
 *   element-wise bytes at HBM bandwidth; all of the FLOPs even when causal
 *   (the unfused path masks, it does not skip);
 * - WORK_ATTN_FLASH: FLOPs / (peak · flash_eff · work_flash_shape(seq_k,
 *   head dim) · tc_sustain), times work_flash_causal_fraction when causal;
 *   flash_eff is the GPU's catalog value when it gives one (it differs by
 *   generation: FlashAttention-2 reaches 50-73 % of A100 but 35 % of H100),
 *   else the calibration's;
 * - WORK_MEMBOUND, WORK_EMBED: bytes / (hbm_Bps · hbm_eff).
 * Attention runs in bf16 when d is fp8. Returns INFINITY when g lacks the
 * dtype, 0 for a phase with no work. */
double work_op_time(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c,
		    const struct work_op *op, enum work_phase ph);

/* Transformer Engine's TP communication overlap (userbuffers, Megatron-Core
 * and NeMo with parallel.tp_comm_overlap): the fraction by which op's
 * GEMM in phase ph runs longer while the collective it overlaps runs
 * beside it on the same GPU. Each overlapped GEMM role (qkv_fprop,
 * proj_dgrad, ...) has a method and a number of SMs that the comm kernel
 * holds, taken from NeMo's userbuffers configs for H100
 * (github.com/NVIDIA/NeMo, nemo/collections/llm/recipes/tp_overlap_configs/
 * userbuffers.py, commit 0594a700a7d4c17384982e4be3847f8ef2865f67):
 * - tp < 8: userbuffers_fp8_h100_h12288_tp4_mbs1_seqlen2048 (GPT-3 175B):
 *   qkv_dgrad bulk 4, qkv_wgrad bulk 4, fc1_dgrad bulk 2, fc1_wgrad bulk
 *   4, proj_fprop pipeline 24, fc2_fprop ring exchange 1;
 * - tp >= 8: userbuffers_fp8_h100_h16384_tp8_cp2_mbs1_seqlen8192 (Llama
 *   3.1 405B): qkv_dgrad bulk 2, qkv_wgrad bulk 24, fc1_dgrad bulk 2,
 *   fc1_wgrad bulk 2, proj_fprop pipeline 24, fc2_fprop pipeline 8;
 * - both: qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad ring exchange with
 *   num_sm 1 (RingExchangeOverlapCfg's default; Transformer Engine's
 *   initialize_ub defaults too, with use_ce: the copies run on copy
 *   engines, transformer_engine/pytorch/module/base.py).
 * A comm kernel on num_sm of the GPU's sms SMs leaves the GEMM the others,
 * so the GEMM takes sms / (sms - num_sm) times as long: the slowdown is
 * num_sm / (sms - num_sm), plus `extra` (compute.cfg
 * comm_compute_slowdown: contention for HBM and L2 beyond the SMs). A ring
 * exchange is charged its one SM (its copy-engine traffic on HBM is not
 * modelled). A bulk overlap is charged for the whole GEMM although its
 * collective may end sooner. Returns 0 for every other op and phase (the
 * weight gradients of proj and fc2, attention, memory-bound work) and for
 * tp <= 1 or sms <= num_sm. A parallel block's fused "qkv_fc1" counts as
 * qkv. */
double work_tpo_slowdown(const char *op_name, enum work_phase ph, uint32_t tp, uint32_t sms,
			 double extra);

/* An op with its times precomputed. */
struct work_op_cost {
	struct work_op op;
	double fwd_s, dgrad_s, wgrad_s; /* work_op_time per phase, s */
};

/* Costs of one micro-batch on one rank for one (model, shape, GPU, calib).
 * Plain record, no pointers: copy it freely. Seconds exclude kernel launches
 * (the host model adds kernels x launch_s) and all communication. */
struct work_costs {
	/* One transformer layer: seconds per phase, kernel launches, weight
	 * elements on this rank. */
	double layer_fwd_s, layer_dgrad_s, layer_wgrad_s;
	uint32_t layer_kernels_fwd, layer_kernels_bwd;
	double layer_params;
	/* Model FLOPs forward on this rank, work_layer_flops_per_token · T / t,
	 * and the FLOPs the ops execute (more when KV heads are replicated). */
	double layer_fwd_flops;
	double layer_exec_fwd_flops;
	/* Activations, bytes per micro-batch: the layer input (what full
	 * recompute keeps), the saved tensors without recompute, and by mode. */
	double layer_input_bytes;
	double layer_saved_bytes;
	double layer_act_bytes[WORK_RECOMPUTE_COUNT_];
	/* Seconds of forward rerun in backward, by recompute mode, and the
	 * FLOPs of the ops rerun (standard count, the sum of their fwd_flops:
	 * none 0; selective the unfused attention core, 0 with flash, which
	 * saves no scores; full every op of the layer; op each op's forward
	 * times its sac_rerun share). HFU counts these. */
	double layer_recompute_s[WORK_RECOMPUTE_COUNT_];
	double layer_recompute_flops[WORK_RECOMPUTE_COUNT_];
	/* Kernel launches of that rerun: the layer's forward launches for
	 * selective and full (as the schedule has always counted them), for
	 * op those of the ops it reruns (any share); 0 for none. */
	uint32_t layer_recompute_kernels[WORK_RECOMPUTE_COUNT_];

	/* Megatron tensor-parallel collectives per layer (of work_shape's
	 * tp_bytes-sized activations) after the forward and in the backward:
	 * 2 and 2 for a sequential block (dense or MoE); a parallel block
	 * (model.parallel_block) sums its attention and MLP outputs before one
	 * forward all-reduce (PaLM, Chowdhery et al. 2022, section 2), and with
	 * one shared norm its fused input GEMM needs one in backward: 1 and 1;
	 * with two norms 1 and 2. The ops' tp_fwd / tp_bwd place them. */
	uint32_t layer_tp_fwd, layer_tp_bwd;
	/* Expert parallelism (MoE models): bytes one rank puts into one
	 * all-to-all of one layer (dispatch or combine, T·top_k·cf·h
	 * activations of which (ep-1)/ep leave the rank) and the all-to-alls
	 * per layer forward (dispatch, combine) and backward (their
	 * gradients); 0 for dense models. The schedule runs them over the
	 * parallel.ep group inside DP. */
	double layer_a2a_bytes;
	uint32_t layer_a2a_fwd, layer_a2a_bwd;
	/* The buffers an all-to-all holds, bytes per rank, while an MoE
	 * layer's forward or backward runs: its input and its output at once,
	 * 2 x layer_a2a_bytes (Megatron-Core's MoEAlltoAllTokenDispatcher,
	 * megatron/core/transformer/moe/token_dispatcher.py: token_dispatch
	 * passes the permuted tokens to all_to_all, which allocates the
	 * received tokens beside them; token_combine the expert outputs and the
	 * tokens sent back; the gradients likewise); 0 for dense models. */
	double layer_a2a_buf_bytes;
	/* Context parallelism (ring attention): bytes of the K and V chunk one
	 * rank sends per ring step, steps per layer forward (cp - 1), and
	 * backward (cp - 1 steps of K, V plus their gradients, 2 x the bytes);
	 * 0 without cp. */
	double layer_cp_kv_bytes;
	uint32_t layer_cp_steps;
	double layer_cp_bwd_bytes;
	/* The buffers those exchanges hold while a layer's attention runs,
	 * bytes per rank, beside its saved activations (0 without cp).
	 * Forward: Transformer Engine's ring attention
	 * (AttnFuncWithCPAndKVP2P.forward, transformer_engine/pytorch/
	 * attention/dot_product_attention/context_parallel.py at 7d0365b)
	 * keeps a list of cp K, V buffers, the rank's own K, V copied into the
	 * first and each received block in a new one, all referenced until the
	 * forward returns: cp x layer_cp_kv_bytes (the whole sequence's K and
	 * V). Backward: two send/receive buffers, each a K, V block and its
	 * gradient (p2p_comm_buffers, 2 x 2 x layer_cp_kv_bytes), and dq_buffer,
	 * the size of the rank's queries. */
	double layer_cp_buf_fwd_bytes, layer_cp_buf_bwd_bytes;
	/* Context parallelism by all-to-alls instead (DeepSpeed-Ulysses;
	 * Megatron-Core's cp_comm_type "a2a"): bytes of the rank's Q, K and V
	 * (e x T x (heads + 2 x kv_heads) / tp x head_dim) that one all-to-all
	 * before the attention trades for all the sequence's tokens of heads
	 * / cp of them, and of its output (e x T x heads / tp x head_dim)
	 * that one after trades back; the backward trades their gradients.
	 * 0 without cp. */
	double layer_cp_a2a_in_bytes, layer_cp_a2a_out_bytes;

	/* Embedding (first stage); backward is its weight gradient. */
	double embed_fwd_s, embed_bwd_s;
	uint32_t embed_kernels_fwd, embed_kernels_bwd;
	double embed_params;
	double embed_saved_bytes;

	/* Head (last stage). head_params: final norm (BERT: MLM transform,
	 * pooler) and the output weight when untied; head_tied_params: the
	 * output matrix when tied (a copy when the embedding is on another rank).
	 * head_saved_bytes includes the fp32 softmax of the logits. */
	double head_fwd_s, head_dgrad_s, head_wgrad_s;
	uint32_t head_kernels_fwd, head_kernels_bwd;
	double head_params;
	double head_tied_params;
	double head_fwd_flops;
	double head_saved_bytes;

	/* The ops with their times, for op-granularity simulation: one layer,
	 * the embedding, the head. */
	struct work_op_cost ops[WORK_MAX_OPS];
	size_t nops;
	struct work_op_cost embed_ops[WORK_MAX_OPS];
	size_t nembed_ops;
	struct work_op_cost head_ops[WORK_MAX_OPS];
	size_t nhead_ops;
};

/* Fill *out for model m, shape s on GPU g with constants c. No allocation;
 * microseconds. Returns 0, or the errors of work_layer_ops, or
 * TS_EUNSUPPORTED when g has no peak for s->dtype, TS_EINVALID for a
 * calibration constant out of range; `err` filled (it may be NULL). */
int work_costs_compute(const struct ts_model *m, const struct work_shape *s,
		       const struct hw_gpu_type *g, const struct work_calib *c,
		       struct work_costs *out, struct ts_error *err);

/* Seconds of one optimizer step over params_on_rank parameters, each
 * touching bytes_per_param_touched bytes of HBM (mixed-precision Adam reads
 * and writes master weights and two moments, reads the gradient and writes
 * the low-precision weight: see work_fw_conventions' optim_bytes_touched).
 * Memory-bound: params · bytes / work_hbm_Bps; launches excluded (fused
 * multi-tensor kernels launch a handful). */
double work_optimizer_time(const struct hw_gpu_type *g, const struct work_calib *c,
			   double params_on_rank, double bytes_per_param_touched);

#endif
