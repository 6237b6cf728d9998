/* What a transformer computes: the ops of one block, of the embedding and of
 * the output head on one rank, each with its FLOPs, HBM bytes, GEMM shape,
 * parameters and saved activations; and the model FLOPs per token.
 * SPDX-License-Identifier: MIT */
#ifndef TS_WORK_OPS_H
#define TS_WORK_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "work/model.h"

/* Most ops one call fills: a block has at most 21 (latent attention, MoE
 * with shared experts, fp8), the head 9 (with multi-token prediction), the
 * embedding 4. */
#define WORK_MAX_OPS 24

enum work_op_kind {
	WORK_GEMM,	 /* dense matmul with weights: batch x (m x k)·(k x n) */
	WORK_ATTN_FLASH, /* fused attention (FlashAttention): softmax(QK^T)V in one kernel */
	WORK_ATTN_CORE,	 /* unfused softmax(QK^T)V: two batched GEMMs + softmax (+ dropout) */
	WORK_MEMBOUND,	 /* norms, activations, residual adds, dropout, rotary, softmax, loss */
	WORK_EMBED,	 /* table gather */
	WORK_OP_KIND_COUNT_
};

/* The phases an op runs in: forward, input gradient, weight gradient. */
enum work_phase { WORK_FWD, WORK_DGRAD, WORK_WGRAD, WORK_PHASE_COUNT_ };

/* Activation recomputation (Korthikanti et al. 2022, "Reducing Activation
 * Recomputation in Large Transformer Models", https://arxiv.org/abs/2205.05198):
 * none keeps every saved tensor; selective drops the attention scores,
 * softmax and dropout tensors and recomputes them in backward; full keeps
 * only each block's input and reruns the block's forward in backward.
 *
 * op is the op-level selective activation checkpointing of PyTorch-native
 * stacks (torch.utils.checkpoint with a selective-checkpoint policy,
 * https://docs.pytorch.org/docs/stable/checkpoint.html; torchtitan's
 * activation_checkpoint.mode = "selective", selective_ac_option = "op",
 * torchtitan/distributed/activation_checkpoint.py): each block is a
 * checkpoint that keeps its input and the outputs of the ops the policy
 * must save (every odd-numbered weight matmul of the block, counted in the
 * module's call order from 1, the flash/efficient attention output and
 * its log-sum-exp, the sequence-parallel reduce-scatter outputs) and
 * reruns every other op of the block in backward (see work_op.sac_bytes
 * and sac_rerun). Listed last so the order of the first three (lighter to
 * heavier recompute) stays. */
enum work_recompute {
	WORK_RECOMPUTE_NONE,
	WORK_RECOMPUTE_SELECTIVE,
	WORK_RECOMPUTE_FULL,
	WORK_RECOMPUTE_OP,
	WORK_RECOMPUTE_COUNT_
};

/* One op on one rank for one micro-batch. Plain record.
 *
 * GEMM shape: Y[m x n] = X[m x k] · W[k x n], `batch` times; m is the token
 * dimension (micro_batch · seq_len) for weight GEMMs. For WORK_ATTN_CORE and
 * WORK_ATTN_FLASH, m x n x k = s x s x head_dim describes QK^T, batch =
 * micro_batch · heads on this rank (AV is s x head_dim x s).
 *
 * Bytes: for a GEMM, its operands and result; for WORK_ATTN_CORE, the
 * element-wise kernels between the two batched GEMMs (scale-mask-softmax,
 * dropout), whose GEMMs are timed by FLOPs; for flash, Q, K, V and O; for
 * memory-bound ops and gathers, everything they read and write.
 *
 * FLOPs are matmul FLOPs only (2 per multiply-add), as the standard model
 * FLOPs count them: element-wise ops carry 0 FLOPs and are timed by bytes.
 * fwd_flops of attention is the full 4·s·(heads·head_dim) per token even
 * when causal; with flash the compute model executes the blocks on and below
 * the diagonal (work_flash_causal_fraction, about half). */
struct work_op {
	char name[24]; /* "qkv", "attn", "fc1", ... */
	enum work_op_kind kind;
	double m, n, k, batch;	/* GEMM shape, elements (see above) */
	double fwd_flops;	/* forward FLOPs (standard count) */
	double fwd_bytes;	/* HBM bytes moved forward */
	double dgrad_flops;	/* input-gradient FLOPs (flash: 2.5 x fwd, recompute included) */
	double wgrad_flops;	/* weight-gradient FLOPs */
	double dgrad_bytes;	/* HBM bytes of the input-gradient kernels */
	double wgrad_bytes;	/* HBM bytes of the weight-gradient kernels */
	double params;		/* weight elements of this op on this rank */
	double saved_bytes;	/* activation bytes kept for backward per micro-batch */
	double selective_bytes; /* the part of saved_bytes that selective recompute drops */
	/* Op-level selective checkpointing (WORK_RECOMPUTE_OP): the bytes of
	 * this op's outputs the policy keeps per micro-batch (the block's input
	 * is work_costs.layer_input_bytes, not an op's), and the share 0..1 of
	 * its forward that backward reruns (1 for an op the policy does not
	 * save; for a GEMM that stands for several PyTorch matmuls, fused QKV
	 * or SwiGLU's two input projections, the share of its output columns
	 * whose matmuls are rerun; 0 for flash attention). */
	double sac_bytes;
	double sac_rerun;
	uint32_t kernels;     /* kernel launches forward */
	uint32_t bwd_kernels; /* kernel launches backward (dgrad + wgrad) */
	bool causal;	      /* attention with a causal mask (flash executes about half) */
	/* Megatron tensor-parallel collectives (all-reduce, or with sequence
	 * parallelism reduce-scatter / all-gather) after this op's forward and
	 * after its input gradient: the row-parallel GEMMs' forward (proj,
	 * fc2) and the column-parallel GEMMs' backward (qkv, fc1) in a
	 * sequential block; only fc2 forward and the fused qkv_fc1 backward in a
	 * parallel block with one norm. 0 when tp = 1 too (the schedule skips
	 * them), and 0 on expert GEMMs. */
	uint8_t tp_fwd, tp_bwd;
	/* Bytes this rank puts into an all-gather over the data-parallel
	 * group after the forward (and the reduce-scatter of their gradients
	 * after the backward): CLIP's embeddings for its contrastive loss
	 * (sim/work/lnet.c); 0 for every other op. */
	double dp_gather_bytes;
};

/* The work one rank does for one micro-batch. Plain record. */
/* How the loss holds its logits (training.cross_entropy), bytes per logit
 * held from the loss's forward to its backward:
 * - FUSED (default): a vocabulary-parallel cross-entropy in fp32 that keeps
 *   only its softmax and makes the gradient in place (Megatron-LM's
 *   vocab_parallel_cross_entropy; torchtitan's loss on the logits cast to
 *   fp32, the bf16 logits deleted): 4;
 * - UPCAST: eager Hugging Face causal LMs, which cast the logits to fp32
 *   and keep them in the model's output while the loss's log-softmax keeps
 *   its own fp32 output (transformers' LlamaForCausalLM, logits.float()),
 *   and whose log-softmax backward makes a third fp32 copy while both are
 *   held: 4 + 4 + 4 = 12 at the head's backward, which follows the last
 *   forward when every activation is held;
 * - CHUNKED: a fused linear cross-entropy (Liger's, Cut Cross-Entropy)
 *   that never holds the whole logits: 0. */
enum work_xent { WORK_XENT_FUSED, WORK_XENT_UPCAST, WORK_XENT_CHUNKED, WORK_XENT_COUNT_ };

/* Name of a cross-entropy form ("fused") and bytes per logit it holds. */
const char *work_xent_name(enum work_xent x);
double work_xent_bytes_per_logit(enum work_xent x);

struct work_shape {
	int64_t micro_batch; /* sequences per micro-batch, b */
	int64_t seq_len;     /* tokens per sequence, s */
	int64_t tp;	     /* tensor-parallel degree t (1 = none) */
	bool sp;	     /* sequence parallelism: norms and dropout split over s */
	enum ts_dtype dtype; /* compute precision of the GEMMs (fp8: activations stay bf16) */
	bool flash;	     /* flash attention (needs fp16, bf16 or fp8 precision) */
	bool causal;	     /* causal mask (decoders); BERT is bidirectional */
	int64_t cp;	     /* context-parallel degree (ring attention); 0 or 1 = none */
	int64_t ep;	     /* expert-parallel degree (MoE models only); 0 or 1 = none */
	enum work_xent xent; /* how the loss holds its logits (default fused) */
	bool mlm_masked;     /* BERT: the masked-LM head (transform, logits, loss) runs on
			      * the masked positions only, WORK_MLM_MASKED_FRACTION of the
			      * tokens (DeepLearningExamples' dense_sequence_output); false:
			      * on every position (Hugging Face's BertForPreTraining) */
};

/* Fraction of a sequence's tokens BERT masks and predicts: "we mask 15% of
 * all WordPiece tokens in each sequence at random" (Devlin et al. 2019,
 * https://arxiv.org/abs/1810.04805, section 3.1; masked_lm_prob = 0.15 in
 * google-research/bert's create_pretraining_data.py and in NVIDIA
 * DeepLearningExamples' LDDL preprocessor). The cap max_predictions_per_seq
 * (20 at 128 tokens, 80 at 512) lies above 15 % of a full sequence (19.2,
 * 76.8), so it does not bind. */
#define WORK_MLM_MASKED_FRACTION 0.15

/* Fill ops[0..*n) with one transformer block on one rank, in execution
 * order. TP splits heads and the MLP's inner width Megatron-style (QKV and
 * fc1 column-parallel, output projection and fc2 row-parallel; KV heads fewer
 * than tp are replicated, one per rank); with sp the norms, dropouts and the
 * inputs of the column-parallel GEMMs are split over the sequence. TP
 * communication is not an op here (the schedule adds it).
 *
 * Context parallelism (cp > 1, ring attention: Liu et al. 2023,
 * https://arxiv.org/abs/2310.01889; Megatron-Core's load-balanced causal
 * split) gives each rank s/cp query tokens of every sequence: every op runs
 * on b·s/cp tokens, and attention computes its s/cp queries against all s
 * keys (op m = s/cp, n = s), reading the other ranks' K and V chunks; the
 * KV exchange itself is the schedule's (work_costs.layer_cp_*).
 *
 * A model with experts replaces the MLP by a router, a top-k, a permutation
 * and E/ep batched expert GEMMs of cf·T·top_k·ep/E tokens each, and its
 * shared experts by a dense MLP of shared_experts x moe_ffn_hidden (see
 * moe_mlp in ops.c); the all-to-all is the schedule's (work_costs.layer_a2a_*).
 * This is a MoE layer; a model's dense_layers are the ops of the same model
 * with num_experts = 0 (work_dense_model). Latent attention (kv_lora_rank
 * > 0) replaces QKV, rotary, attention and projection by mla_attention's
 * ops (ops.c).
 * With fp8 a "fp8_cast" op carries Transformer Engine's cast-transposes of
 * the GEMM inputs (forward) and output gradients (backward).
 *
 * Saved bytes follow Korthikanti et al. 2022 §4 (per layer, 2-byte
 * activations, 1-byte dropout masks): with multi-head attention, GeLU,
 * dropout and no flash they sum to s·b·h·(34 + 5·a·s/h) for t = 1,
 * s·b·h·(10 + 24/t + 5·a·s/(h·t)) with TP and s·b·h/t·(34 + 5·a·s/h) with
 * sequence parallelism. Per-token norm statistics are left out as they are.
 * Dropout is present for the GPT and BERT families (their published training
 * used it) and absent for Llama.
 *
 * A parallel block (model.parallel_block: PaLM, Chowdhery et al. 2022,
 * https://arxiv.org/abs/2204.02311, section 2 "Parallel Layers"; GPT-J, Wang
 * and Komatsuzaki 2021; GPT-NeoX; Falcon) computes x + attn(n(x)) +
 * mlp(n'(x)): with one shared norm the QKV and first MLP GEMMs read the same
 * normalised input and run as one GEMM "qkv_fc1" of width (q + 2·kv + fc1)/t,
 * whose input is saved once; with two norms (GPT-NeoX) they stay two GEMMs
 * and only the second norm's input (the same x) is not saved again; one
 * residual add takes both branches; the output GEMMs stay two (PaLM fuses
 * the input projections). FLOPs are those of the sequential block.
 *
 * Op-level selective checkpointing (WORK_RECOMPUTE_OP) counts the block's
 * PyTorch matmuls in the order a PyTorch module calls them: Q, K and V
 * apart for the llama and bert families (Hugging Face's and torchtitan's
 * modules), one fused QKV matmul for gpt (GPT-2's c_attn, GPT-NeoX's and
 * Falcon's query_key_value); the output projection; SwiGLU's w1 then w3,
 * or GeLU's one; the second MLP projection; latent attention as
 * torchtitan's DeepSeek-V3 (wq_a, wq_b, wkv_a, wkv_b, wo); a MoE router
 * rerun and not counted, the routed experts' grouped matmuls rerun, the
 * shared experts counted. The odd-numbered matmuls' outputs are kept
 * (sac_bytes), the even-numbered rerun; flash attention keeps its output
 * and log-sum-exp, the unfused core is rerun whole; with sequence
 * parallelism each row-parallel op's reduce-scatter output (T/t x h) is
 * kept too; norms, rotary, activations, residual adds, dropout, fp8 casts,
 * top-k and the permutation are rerun. Llama-3-8B at b = 1, s = 8192, bf16,
 * t = 1 keeps q, v, w1, w2 and the attention output: 2·(4096 + 1024 +
 * 14336 + 4096 + 4096)·8192 + 4·32·8192 bytes besides the block's input.
 *
 * Returns 0, TS_EINVALID (a shape size < 1, tp not dividing heads, kv_heads
 * or ffn_hidden evenly, cp not splitting seq_len into cp (causal: 2·cp)
 * chunks, ep > 1 without experts or not dividing them, flash with fp32/tf32) or TS_ELIMIT (max too
 * small), with `err` filled (it may be NULL). */
int work_layer_ops(const struct ts_model *m, const struct work_shape *s, struct work_op *ops,
		   size_t max, size_t *n, struct ts_error *err);

/* The embedding on the first stage: vocab-parallel word gather (V/t rows per
 * rank), learned positions (and BERT's token types and embedding LayerNorm),
 * dropout. Same errors as work_layer_ops. */
int work_embed_ops(const struct ts_model *m, const struct work_shape *s, struct work_op *ops,
		   size_t max, size_t *n, struct ts_error *err);

/* The head on the last stage: final norm (BERT: the MLM transform dense +
 * GeLU + LayerNorm), the vocab-parallel logits GEMM (2·h·V FLOPs per token)
 * and softmax/cross-entropy in fp32, whose fp32 softmax is saved (4·s·b·V/t
 * bytes, Korthikanti et al. 2022 §4.3). The output weight counts in the
 * logits op's `params` only when not tied; when tied, work_head_tied_params
 * gives its size. Same errors as work_layer_ops. */
int work_head_ops(const struct ts_model *m, const struct work_shape *s, struct work_op *ops,
		  size_t max, size_t *n, struct ts_error *err);

/* The model whose layer ops are those of m's dense_layers: m with its
 * experts removed (num_experts, top_k, shared experts 0; the MLP of
 * ffn_hidden) into *out. Returns false when m has no dense layers. */
bool work_dense_model(const struct ts_model *m, struct ts_model *out);

/* Elements of the output matrix a last stage holds when embeddings are tied
 * (a copy of the word embedding, V·h/t on this rank); 0 when untied. */
double work_head_tied_params(const struct ts_model *m, const struct work_shape *s);

/* Model FLOPs of one layer's forward per token, from the dimensions:
 * QKV 2·h·(q + 2·kv_heads·head_dim), output projection 2·q·h, MLP 2·3·h·f
 * (SwiGLU) or 2·2·h·f (GeLU), attention core 4·s·q, with q = heads·head_dim.
 * With experts the MLP counts top_k + shared_experts times at
 * moe_ffn_hidden plus the router's 2·h·E (the capacity factor's padding is
 * not model FLOPs). With latent attention (c = kv_lora_rank, cq =
 * q_lora_rank, r rotary, v = heads·v_head_dim): 2·h·cq + 2·cq·q (or 2·h·q
 * without cq), 2·h·(c + r) + 2·c·heads·(head_dim - r + v_head_dim), output
 * 2·v·h, attention 2·s·(q + v). A layer with experts; see
 * work_dense_layer_flops_per_token for the dense_layers. */
double work_layer_flops_per_token(const struct ts_model *m, int64_t seq_len);

/* The same for one of the model's dense_layers (a dense MLP of ffn_hidden
 * in a model with experts); work_layer_flops_per_token for a dense model. */
double work_dense_layer_flops_per_token(const struct ts_model *m, int64_t seq_len);

/* Forward FLOPs per token of the mtp_depth multi-token prediction modules:
 * each one MoE block, the 2h x h projection (2·2h·h) and the shared
 * head's logits (2·h·V). 0 without them. */
double work_mtp_flops_per_token(const struct ts_model *m, int64_t seq_len);

/* Model FLOPs per token of one training step, forward and backward, no
 * recomputation: 3 x ((layers - dense_layers) x work_layer_flops_per_token
 * + dense_layers x work_dense_layer_flops_per_token + 2·h·V logits
 * [+ 2·h·h BERT MLM transform] + work_mtp_flops_per_token). For GPT models
 * this equals the per-token form of Korthikanti et al. 2022's
 * 72·B·s·l·h²·(1 + s/(6h) + V/(12·h·l)). */
double work_model_flops_per_token(const struct ts_model *m, int64_t seq_len);
/* The attention-core part of work_model_flops_per_token: 3 x (layers +
 * mtp_depth) x 2·s·(q + q_v) (QK^T over q = heads·head_dim and AV over q_v =
 * heads·v_head_dim with latent attention, q otherwise; forward and
 * backward), FLOPs per token; 0 for
 * layer-list models. A causal mask lets a kernel skip half of it: trainsim's
 * model FLOPs (result key model_flops_per_iteration, mfu) count half of
 * this when the attention is causal, as FlashAttention's benchmarks count
 * causal FLOPs (flash-attention benchmarks/benchmark_flash_attention.py:
 * 4·b·s²·h·d / 2 when causal); mfu_palm counts it in full. */
double work_attn_flops_per_token(const struct ts_model *m, int64_t seq_len);
/* The BERT masked-LM head's part of work_model_flops_per_token: 3 x (2·h·V
 * logits + 2·h·h transform) FLOPs per token; 0 for other families. With
 * work_shape.mlm_masked the head runs on WORK_MLM_MASKED_FRACTION of the
 * tokens, and the model FLOPs (model_flops_per_iteration, mfu, mfu_palm)
 * count only that fraction of this. */
double work_mlm_head_flops_per_token(const struct ts_model *m);

/* Bytes of one activation element at compute precision `d` (fp8 keeps
 * activations in bf16, tf32 in fp32). */
double work_act_bytes(enum ts_dtype d);

/* Name of a kind ("gemm"), phase ("dgrad") or recompute mode ("selective");
 * "?" when out of range. work_recompute_parse returns -1 when unknown. */
const char *work_op_kind_name(enum work_op_kind k);
const char *work_phase_name(enum work_phase p);
const char *work_recompute_name(enum work_recompute r);
int work_recompute_parse(const char *s);

#endif
