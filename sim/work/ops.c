/* The ops of a transformer block, its embedding and its head on one rank:
 * FLOPs, bytes, GEMM shapes, parameters and saved activations.
 * SPDX-License-Identifier: MIT */

/*
 * Notation (all element counts): b micro-batch, s sequence, T = b·s tokens,
 * h hidden, H query heads, d head_dim, q = H·d, f ffn_hidden, V vocabulary,
 * t tensor-parallel degree. On one rank: query width q/t, KV width kv/t
 * (one KV head when kv_heads < t: Megatron replicates them), MLP width f/t.
 * The "sequence region" (norms, residual dropout-adds, the saved inputs of the
 * column-parallel GEMMs) holds T/t tokens with sequence parallelism and all T
 * without; Korthikanti et al. 2022 (https://arxiv.org/abs/2205.05198) §4.2
 * is the reference for which tensors each op keeps.
 *
 * Invariants the tests pin: the layer ops' fwd_flops sum to
 * work_layer_flops_per_token · T / t when t divides kv_heads; their params at
 * t = 1 plus the embedding's and the head's sum to ts_model_params; their
 * saved bytes for GPT with MHA and no flash sum to Korthikanti's
 * s·b·h·(34 + 5·a·s/h) family of formulas.
 *
 * HBM bytes of element-wise kernels count one read of each input and one
 * write of each output; backward reads the saved input and the incoming
 * gradient and writes the outgoing one. Kernel counts are those of
 * Megatron-LM's fused kernels (bias-GeLU, bias-dropout-add,
 * scale-mask-softmax, fused LayerNorm); they feed the host launch model.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "work/lnet.h"
#include "work/ops.h"

/* Bytes per logit of Megatron's vocab-parallel cross-entropy forward, pass by
 * pass: cast fp16->fp32 (2 read + 4 write), max (4), subtract max (4 + 4),
 * exp (4 + 4), sum (4), divide by the sum into the saved softmax (4 + 4):
 * 38. Backward: softmax - one-hot (4 + 4), scale by the loss gradient
 * (4 + 4), cast to the GEMM dtype (4 + 2): 22. Estimates from the kernel
 * sequence, not measured. */
#define XENT_FWD_BYTES_PER_LOGIT 38.0
#define XENT_BWD_BYTES_PER_LOGIT 22.0
#define XENT_FWD_KERNELS 8u
#define XENT_BWD_KERNELS 3u
/* FlashAttention-2's backward FLOPs are 2.5 x its forward: 5 matmuls
 * (QK^T recomputed, dV, dP, dQ, dK) against 2 (Dao 2023, "FlashAttention-2",
 * https://arxiv.org/abs/2307.08691, §4.1). */
#define FLASH_BWD_FLOP_RATIO 2.5
/* Bytes of a dropout mask element (Megatron keeps a byte mask). */
#define MASK_BYTES 1.0
/* Bytes of the fp32 log-sum-exp flash attention keeps per row. */
#define LSE_BYTES 4.0

/* Everything the op builders need, derived once from model and shape. */
struct dims {
	double b, s, T, h, q, d, f, V, t;
	double sq;		   /* query tokens per sequence on this rank: s / cp */
	double cp;		   /* context-parallel degree */
	double E, ep;		   /* experts (0 = dense MLP) and expert-parallel degree */
	double topk, cf;	   /* experts per token, capacity factor */
	bool fp8;		   /* GEMM inputs cast to fp8 */
	double heads_l;		   /* query heads on this rank */
	double ql, kvl;		   /* query and KV widths on this rank */
	double fl;		   /* MLP width on this rank */
	double fel;		   /* one expert's width on this rank (moe_ffn_hidden / t) */
	double S;		   /* shared experts */
	bool mla;		   /* multi-head latent attention */
	double c, cq;		   /* KV and query latent widths (replicated on TP ranks) */
	double r;		   /* rotary part of a query/key head */
	double dv;		   /* value head width */
	double qlv;		   /* value (and attention output) width on this rank */
	double kvlv;		   /* value width of the KV heads on this rank */
	double latent_norm_params; /* the latent norms' parameters */
	double Ts;		   /* tokens in the sequence region on this rank */
	double e;		   /* activation bytes */
	double bias;		   /* 1 with biases */
	bool drop;		   /* dropout layers present */
	bool swiglu;
	bool rope;
	bool bert;
	bool flash;
	bool causal;
	bool sp;	    /* sequence parallelism with t > 1 */
	bool split_qkv;	    /* PyTorch modules project Q, K and V apart (op SAC) */
	double norm_params; /* parameters of one norm */
};

/* An op list under construction; mm counts the PyTorch matmuls of the
 * block so far (op-level selective checkpointing, sac_mm). */
struct list {
	struct work_op *ops;
	size_t max, n;
	int rc;
	unsigned mm;
};

/* --------------------------------------------------------------- names */

static const char *const kind_names[WORK_OP_KIND_COUNT_] = {"gemm", "attn_flash", "attn_core",
							    "membound", "embed"};
static const char *const phase_names[WORK_PHASE_COUNT_] = {"fwd", "dgrad", "wgrad"};
static const char *const recompute_names[WORK_RECOMPUTE_COUNT_] = {"none", "selective", "full",
								   "op"};

const char *work_op_kind_name(enum work_op_kind k)
{
	return (unsigned)k < WORK_OP_KIND_COUNT_ ? kind_names[k] : "?";
}

const char *work_phase_name(enum work_phase p)
{
	return (unsigned)p < WORK_PHASE_COUNT_ ? phase_names[p] : "?";
}

const char *work_recompute_name(enum work_recompute r)
{
	return (unsigned)r < WORK_RECOMPUTE_COUNT_ ? recompute_names[r] : "?";
}

int work_recompute_parse(const char *s)
{
	for (int i = 0; i < WORK_RECOMPUTE_COUNT_; i++)
		if (s && strcasecmp(s, recompute_names[i]) == 0)
			return i;
	return -1;
}

double work_act_bytes(enum ts_dtype d)
{
	if (d == TS_FP8)
		return ts_dtype_bytes(TS_BF16);
	return ts_dtype_bytes(d);
}

/* ---------------------------------------------------------- model FLOPs */

/* Forward FLOPs per token of one block: `moe` with the model's experts
 * (when it has any), else a dense MLP of ffn_hidden. */
static double block_flops(const struct ts_model *m, int64_t seq_len, bool moe)
{
	double h = (double)m->hidden;
	double q = (double)m->heads * (double)m->head_dim;
	double kv = (double)m->kv_heads * (double)m->head_dim;
	double f = (double)m->ffn_hidden;
	bool swiglu = m->activation == TS_ACT_SWIGLU;
	double mlp = swiglu ? 2.0 * 3.0 * h * f : 2.0 * 2.0 * h * f;
	if (moe && m->num_experts > 0) { /* top_k and shared experts per token, the router */
		double fe = (double)m->moe_ffn_hidden;
		double one = swiglu ? 2.0 * 3.0 * h * fe : 2.0 * 2.0 * h * fe;
		mlp =
		    (double)(m->top_k + m->shared_experts) * one + 2.0 * h * (double)m->num_experts;
	}
	if (m->kv_lora_rank > 0) {
		double H = (double)m->heads, c = (double)m->kv_lora_rank;
		double cq = (double)m->q_lora_rank, r = (double)m->qk_rope_head_dim;
		double qv = H * (double)m->v_head_dim, d = (double)m->head_dim;
		double qproj = cq > 0.0 ? 2.0 * h * cq + 2.0 * cq * q : 2.0 * h * q;
		double kvproj = 2.0 * h * (c + r) + 2.0 * c * H * (d - r + (double)m->v_head_dim);
		return qproj + kvproj + 2.0 * qv * h + mlp + 2.0 * (double)seq_len * (q + qv);
	}
	return 2.0 * h * (q + 2.0 * kv) + 2.0 * q * h + mlp + 4.0 * (double)seq_len * q;
}

double work_layer_flops_per_token(const struct ts_model *m, int64_t seq_len)
{
	return block_flops(m, seq_len, true);
}

double work_dense_layer_flops_per_token(const struct ts_model *m, int64_t seq_len)
{
	return block_flops(m, seq_len, false);
}

double work_mtp_flops_per_token(const struct ts_model *m, int64_t seq_len)
{
	if (m->family == TS_FAMILY_LAYERS || m->mtp_depth <= 0)
		return 0.0;
	double h = (double)m->hidden;
	/* the block, the 2h x h projection, the shared head's logits */
	return (double)m->mtp_depth *
	       (block_flops(m, seq_len, true) + 2.0 * 2.0 * h * h + 2.0 * h * (double)m->vocab);
}

double work_model_flops_per_token(const struct ts_model *m, int64_t seq_len)
{
	if (m->family == TS_FAMILY_LAYERS) /* a sample is one "token" */
		return 3.0 * work_lnet_fwd_flops(m);
	double h = (double)m->hidden;
	double head = 2.0 * h * (double)m->vocab;
	if (m->family == TS_FAMILY_BERT)
		head += 2.0 * h * h; /* MLM transform dense */
	double D = m->num_experts > 0 ? (double)m->dense_layers : 0.0;
	double fwd = ((double)m->layers - D) * work_layer_flops_per_token(m, seq_len) + head;
	if (D > 0.0)
		fwd += D * work_dense_layer_flops_per_token(m, seq_len);
	fwd += work_mtp_flops_per_token(m, seq_len);
	return 3.0 * fwd;
}

double work_mlm_head_flops_per_token(const struct ts_model *m)
{
	if (m->family != TS_FAMILY_BERT)
		return 0.0;
	double h = (double)m->hidden;
	return 3.0 * (2.0 * h * (double)m->vocab + 2.0 * h * h);
}

double work_attn_flops_per_token(const struct ts_model *m, int64_t seq_len)
{
	if (m->family == TS_FAMILY_LAYERS)
		return 0.0;
	double q = (double)m->heads * (double)m->head_dim;
	/* scores over head_dim, values over v_head_dim (latent attention),
	 * as block_flops counts them; the multi-token prediction blocks too */
	double qv = m->kv_lora_rank > 0 ? (double)m->heads * (double)m->v_head_dim : q;
	double blocks = (double)m->layers + (m->mtp_depth > 0 ? (double)m->mtp_depth : 0.0);
	return 3.0 * blocks * 2.0 * (double)seq_len * (q + qv);
}

/* ------------------------------------------------------------ checking */

static int dims_init(const struct ts_model *m, const struct work_shape *s, struct dims *g,
		     struct ts_error *err)
{
	if (s->micro_batch < 1 || s->seq_len < 1 || s->tp < 1 || s->cp < 0 || s->ep < 0)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "work_shape",
				    "micro_batch %lld, seq_len %lld, tp %lld, cp %lld, ep %lld: "
				    "expected each >= 1 (cp, ep: 0 means 1)",
				    (long long)s->micro_batch, (long long)s->seq_len,
				    (long long)s->tp, (long long)s->cp, (long long)s->ep);
	int64_t cp = s->cp > 1 ? s->cp : 1, ep = s->ep > 1 ? s->ep : 1;
	if (s->seq_len % (s->causal && cp > 1 ? 2 * cp : cp) != 0)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel.cp",
				    "found cp = %lld, which does not split seq_len = %lld into %s "
				    "chunks; expected a cp that does",
				    (long long)cp, (long long)s->seq_len,
				    s->causal ? "2 x cp equal (load-balanced causal)" : "cp equal");
	if (ep > 1 && m->num_experts == 0)
		return ts_error_set(
		    err, TS_EINVALID, NULL, 0, "parallel.ep",
		    "found ep = %lld with %s, which has no experts; expected ep = 1", (long long)ep,
		    m->name);
	if (ep > 1 && m->num_experts % ep != 0)
		return ts_error_set(
		    err, TS_EINVALID, NULL, 0, "parallel.ep",
		    "found ep = %lld, which does not divide the %lld experts of %s; "
		    "expected a divisor of %lld",
		    (long long)ep, (long long)m->num_experts, m->name, (long long)m->num_experts);
	if ((unsigned)s->dtype >= TS_DTYPE_COUNT_)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "work_shape.dtype",
				    "dtype %d: expected one of fp32, tf32, fp16, bf16, fp8",
				    (int)s->dtype);
	if (m->hidden < 1 || m->heads < 1 || m->kv_heads < 1 || m->head_dim < 1 ||
	    m->ffn_hidden < 1 || m->vocab < 1 || m->layers < 1)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "model",
				    "model '%s' has a dimension < 1", m->name);
	int64_t t = s->tp;
	if (m->heads % t != 0)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel.tp",
				    "tp = %lld does not divide the %lld heads of %s", (long long)t,
				    (long long)m->heads, m->name);
	if (m->ffn_hidden % t != 0)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel.tp",
				    "tp = %lld does not divide ffn_hidden = %lld of %s",
				    (long long)t, (long long)m->ffn_hidden, m->name);
	if (m->num_experts > 0 && m->moe_ffn_hidden % t != 0)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel.tp",
				    "tp = %lld does not divide moe_ffn_hidden = %lld of %s",
				    (long long)t, (long long)m->moe_ffn_hidden, m->name);
	if (m->kv_heads % t != 0 && t % m->kv_heads != 0)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel.tp",
				    "tp = %lld and kv_heads = %lld of %s: expected one to divide "
				    "the other",
				    (long long)t, (long long)m->kv_heads, m->name);
	if (s->flash && (s->dtype == TS_FP32 || s->dtype == TS_TF32))
		return ts_error_set(err, TS_EINVALID, NULL, 0, "training.precision",
				    "flash attention runs in fp16 or bf16, found %s",
				    ts_dtype_name(s->dtype));

	memset(g, 0, sizeof *g);
	g->b = (double)s->micro_batch;
	g->s = (double)s->seq_len;
	g->cp = (double)cp;
	g->sq = g->s / g->cp;
	g->T = g->b * g->sq;
	g->E = (double)m->num_experts;
	g->ep = (double)ep;
	g->topk = (double)m->top_k;
	g->cf = m->capacity_factor;
	g->fp8 = s->dtype == TS_FP8;
	g->h = (double)m->hidden;
	g->d = (double)m->head_dim;
	g->q = (double)m->heads * g->d;
	g->f = (double)m->ffn_hidden;
	g->V = (double)m->vocab;
	g->t = (double)t;
	g->heads_l = (double)(m->heads / t);
	g->ql = g->heads_l * g->d;
	int64_t kv_l = m->kv_heads >= t ? m->kv_heads / t : 1;
	g->kvl = (double)kv_l * g->d;
	g->fl = (double)(m->ffn_hidden / t);
	g->fel = (double)(m->moe_ffn_hidden / t);
	g->S = (double)m->shared_experts;
	g->mla = m->kv_lora_rank > 0;
	g->c = (double)m->kv_lora_rank;
	g->cq = (double)m->q_lora_rank;
	g->r = (double)m->qk_rope_head_dim;
	g->dv = g->mla ? (double)m->v_head_dim : g->d;
	g->qlv = g->heads_l * g->dv;
	g->kvlv = (double)kv_l * g->dv;
	g->Ts = s->sp ? g->T / g->t : g->T;
	g->e = work_act_bytes(s->dtype);
	g->bias = m->bias ? 1.0 : 0.0;
	g->drop = m->family != TS_FAMILY_LLAMA;
	g->swiglu = m->activation == TS_ACT_SWIGLU;
	g->rope = m->position == TS_POS_ROPE;
	g->bert = m->family == TS_FAMILY_BERT;
	g->flash = s->flash;
	g->causal = s->causal;
	g->sp = s->sp && t > 1;
	/* Hugging Face's and torchtitan's Llama (q_proj, k_proj, v_proj; wq,
	 * wk, wv) and Hugging Face's BERT (query, key, value) project apart;
	 * GPT-2's c_attn, GPT-NeoX's and Falcon's query_key_value fuse them */
	g->split_qkv = m->family == TS_FAMILY_LLAMA || m->family == TS_FAMILY_BERT;
	g->norm_params = m->norm == TS_NORM_RMSNORM ? g->h : 2.0 * g->h;
	g->latent_norm_params = (m->norm == TS_NORM_RMSNORM ? 1.0 : 2.0) * (g->c + g->cq);
	return 0;
}

/* ------------------------------------------------------------- builders */

static struct work_op *add(struct list *L, const char *name, enum work_op_kind kind)
{
	if (L->rc)
		return NULL;
	if (L->n >= L->max) {
		L->rc = TS_ELIMIT;
		return NULL;
	}
	struct work_op *op = &L->ops[L->n++];
	memset(op, 0, sizeof *op);
	snprintf(op->name, sizeof op->name, "%s", name);
	op->kind = kind;
	op->batch = 1.0;
	op->sac_rerun = 1.0; /* op SAC reruns what it does not save */
	return op;
}

/* Op-level selective checkpointing (WORK_RECOMPUTE_OP; ops.h) of the GEMM
 * op, which stands for `parts` PyTorch matmuls of output widths w[i]
 * (elements per row) that are the k[i]-th matmuls of the block (from 1):
 * the policy keeps the outputs of the odd-numbered ones and reruns the
 * even-numbered ones (torchtitan's "save every other mm", its counter
 * reset at each block's forward); sac_rerun is the rerun share of the
 * columns, which is the share of the FLOPs and the time. */
static void sac_parts(struct work_op *op, const struct dims *g, const double *w, const unsigned *k,
		      int parts)
{
	double all = 0.0, rerun = 0.0;
	op->sac_bytes = 0.0;
	for (int i = 0; i < parts; i++) {
		all += w[i];
		if (k[i] % 2)
			op->sac_bytes += g->e * op->m * op->batch * w[i];
		else
			rerun += w[i];
	}
	op->sac_rerun = all > 0.0 ? rerun / all : 1.0;
}

/* sac_parts for the op just added, its matmuls the block's next ones. */
static void sac_mm(struct list *L, const struct dims *g, const double *w, int parts)
{
	if (L->rc || L->n == 0 || parts > 6)
		return;
	unsigned k[6];
	for (int i = 0; i < parts; i++)
		k[i] = ++L->mm;
	sac_parts(&L->ops[L->n - 1], g, w, k, parts);
}

/* The input projections' matmuls of the op just added: Q, K and V apart or
 * fused (dims.split_qkv), then the MLP's first (SwiGLU: w1 then w3, as
 * w2(silu(w1(x)) * w3(x)) calls them; fc1_n 0 when not fused in). */
static void sac_inputs(struct list *L, const struct dims *g, double fc1_n)
{
	double w[6];
	int n = 0;
	if (g->split_qkv) {
		w[n++] = g->ql;
		w[n++] = g->kvl;
		w[n++] = g->kvlv;
	} else {
		w[n++] = g->ql + g->kvl + g->kvlv;
	}
	if (fc1_n > 0.0) {
		if (g->swiglu) {
			w[n++] = fc1_n / 2.0;
			w[n++] = fc1_n / 2.0;
		} else {
			w[n++] = fc1_n;
		}
	}
	sac_mm(L, g, w, n);
}

/* The MLP's first projection (SwiGLU: w1, w3) of width fc1_n. */
static void sac_fc1(struct list *L, const struct dims *g, double fc1_n)
{
	double w[2] = {fc1_n / 2.0, fc1_n / 2.0};
	if (g->swiglu)
		sac_mm(L, g, w, 2);
	else
		sac_mm(L, g, &fc1_n, 1);
}

/* One matmul of width n (an output projection). */
static void sac_one(struct list *L, const struct dims *g, double n)
{
	sac_mm(L, g, &n, 1);
}

/* A weight GEMM Y[m x n] = X[m x k]·W[k x n]; dgrad and wgrad have the
 * forward's FLOPs and touch the same three matrices. */
static void gemm(struct list *L, const char *name, const struct dims *g, double m, double n,
		 double k, double params, double saved)
{
	struct work_op *op = add(L, name, WORK_GEMM);
	if (!op)
		return;
	op->m = m;
	op->n = n;
	op->k = k;
	op->fwd_flops = 2.0 * m * n * k;
	op->dgrad_flops = op->fwd_flops;
	op->wgrad_flops = op->fwd_flops;
	op->fwd_bytes = g->e * (m * k + k * n + m * n);
	op->dgrad_bytes = op->fwd_bytes;
	op->wgrad_bytes = op->fwd_bytes;
	op->params = params;
	/* fp8: Transformer Engine's Linear saves its input for the weight
	 * gradient as the fp8 cast it fed the GEMM (the forward's Float8Tensor
	 * and its transpose: one byte an element; transformer_engine/pytorch/
	 * module/linear.py), not the 16-bit activation */
	op->saved_bytes = g->fp8 ? saved / g->e : saved;
	op->kernels = 1;
	op->bwd_kernels = 2;
}

/* `batch` GEMMs of one shape launched together (grouped expert GEMMs); the
 * caller sets params and saved bytes. */
static struct work_op *batched(struct list *L, const char *name, const struct dims *g, double m,
			       double n, double k, double batch)
{
	struct work_op *op = add(L, name, WORK_GEMM);
	if (!op)
		return NULL;
	op->m = m;
	op->n = n;
	op->k = k;
	op->batch = batch;
	op->fwd_flops = 2.0 * m * n * k * batch;
	op->dgrad_flops = op->fwd_flops;
	op->wgrad_flops = op->fwd_flops;
	op->fwd_bytes = g->e * (m * k + k * n + m * n) * batch;
	op->dgrad_bytes = op->fwd_bytes;
	op->wgrad_bytes = op->fwd_bytes;
	op->kernels = 1;
	op->bwd_kernels = 2;
	return op;
}

/* An element-wise or reduction kernel timed by its bytes. */
static void membound(struct list *L, const char *name, double fwd_bytes, double bwd_bytes,
		     double params, double saved, uint32_t kernels, uint32_t bwd_kernels)
{
	struct work_op *op = add(L, name, WORK_MEMBOUND);
	if (!op)
		return;
	op->fwd_bytes = fwd_bytes;
	op->dgrad_bytes = bwd_bytes;
	op->params = params;
	op->saved_bytes = saved;
	op->kernels = kernels;
	op->bwd_kernels = bwd_kernels;
}

/* A norm over `tokens` rows of h: reads x, writes y, keeps x; backward reads
 * x and dy and writes dx (the parameter gradients are a second kernel). */
static void norm(struct list *L, const char *name, const struct dims *g, double tokens)
{
	double x = g->e * tokens * g->h;
	membound(L, name, 2.0 * x, 3.0 * x, g->norm_params, x, 1, 2);
}

/* The residual add after a sublayer on the sequence region: Megatron's fused
 * bias-dropout-add when the model has dropout (keeps the byte mask), a plain
 * add otherwise (its backward passes the gradient through unchanged). */
static void residual(struct list *L, const char *name, const struct dims *g)
{
	double n = g->Ts * g->h;
	if (g->drop)
		membound(L, name, (3.0 * g->e + MASK_BYTES) * n, (2.0 * g->e + MASK_BYTES) * n, 0.0,
			 MASK_BYTES * n, 1, 1);
	else
		membound(L, name, 3.0 * g->e * n, 0.0, 0.0, 0.0, 1, 0);
}

static void attention(struct list *L, const struct dims *g)
{
	double B = g->b * g->heads_l; /* batched heads */
	double S2 = B * g->sq * g->s; /* score elements: local queries x all keys */
	double qkv = g->e * g->T * (g->ql + g->kvl + g->kvlv);
	struct work_op *op = add(L, "attn", g->flash ? WORK_ATTN_FLASH : WORK_ATTN_CORE);
	if (!op)
		return;
	op->m = g->sq;
	op->n = g->s;
	op->k = g->d;
	op->batch = B;
	op->causal = g->causal;
	op->fwd_flops = 4.0 * g->s * g->T * g->ql; /* QK^T and AV: 2 x 2·s·d per head and token */
	if (g->mla) /* QK^T over the query/key head, AV over the value head */
		op->fwd_flops = 2.0 * g->s * g->T * (g->ql + g->qlv);
	if (g->flash) {
		double lse = LSE_BYTES * B * g->sq;
		double o = g->e * g->T * g->qlv;
		op->dgrad_flops = FLASH_BWD_FLOP_RATIO * op->fwd_flops;
		/* ring attention reads the other ranks' K and V chunks as they arrive */
		double kv_remote = g->e * g->b * (g->s - g->sq) * (g->kvl + g->kvlv);
		op->fwd_bytes = qkv + o + lse + kv_remote;
		op->dgrad_bytes = 2.0 * qkv + 2.0 * o + lse + 2.0 * kv_remote;
		op->saved_bytes = qkv + lse; /* O is kept as the projection's input */
		op->sac_bytes = o + lse;     /* op SAC keeps its outputs, reruns nothing */
		op->sac_rerun = 0.0;
		op->kernels = (uint32_t)g->cp; /* one per ring step */
		/* dot(dO, O) preprocessing, main kernel per ring step, dQ conversion */
		op->bwd_kernels = 2u + (uint32_t)g->cp;
	} else {
		/* Forward: scale-mask-softmax reads the scores and writes the
		 * probabilities; dropout reads them and writes its output and mask.
		 * Backward: dropout's reads the gradient and mask and writes one;
		 * softmax's reads y and dy and writes dx. */
		double drop = g->drop ? 1.0 : 0.0;
		op->dgrad_flops = 2.0 * op->fwd_flops;
		op->fwd_bytes = S2 * (2.0 * g->e + drop * (2.0 * g->e + MASK_BYTES));
		op->dgrad_bytes = S2 * (3.0 * g->e + drop * (2.0 * g->e + MASK_BYTES));
		/* Korthikanti §4.2: Q, K (for QK^T), V and the dropout output (for AV),
		 * the softmax output, the dropout mask: 6sbh + 5as^2b in fp16 for MHA. */
		op->selective_bytes = S2 * (g->e + drop * (g->e + MASK_BYTES));
		op->saved_bytes = qkv + op->selective_bytes;
		op->kernels = g->drop ? 4u : 3u;     /* QK^T, softmax, [dropout,] AV */
		op->bwd_kernels = g->drop ? 6u : 5u; /* 4 batched GEMMs, softmax, [dropout] */
	}
}

/* Mark the op just added as followed by tensor-parallel collectives. */
static void tp_after(struct list *L, uint8_t fwd, uint8_t bwd)
{
	if (!L->rc && L->n > 0) {
		L->ops[L->n - 1].tp_fwd = fwd;
		L->ops[L->n - 1].tp_bwd = bwd;
	}
}

/* The MLP's activation over `tokens` rows of `width` (the local MLP or
 * expert width). */
static void activation(struct list *L, const struct dims *g, double tokens, double width)
{
	double u = g->e * tokens * width;
	if (g->swiglu)
		membound(L, "swiglu", 3.0 * u, 5.0 * u, 0.0, 2.0 * u, 1, 1);
	else
		membound(L, "gelu", 2.0 * u, 3.0 * u, 0.0, u, 1, 1);
}

/* A mixture-of-experts MLP (GShard, Lepikhin et al. 2020,
 * https://arxiv.org/abs/2006.16668; Switch, Fedus et al. 2021,
 * https://arxiv.org/abs/2101.03961): a router GEMM (h x E, replicated on TP
 * ranks) with its softmax/top-k, the permutation of token copies into
 * expert order and back, and E/ep local experts as batched GEMMs. With
 * expert parallelism inside data parallelism each of the ep ranks routes
 * its T tokens to all E experts, so a rank's experts receive
 * T·top_k·cf tokens in all (cf·T·top_k·ep/E each): the expert FLOPs per
 * rank equal those without ep, and the all-to-all (the schedule's) moves
 * T·top_k·cf·h activations per rank each way. */
static void moe_mlp(struct list *L, const struct dims *g, double x_in)
{
	double El = g->E / g->ep;	    /* experts on this rank */
	double Tr = g->T * g->topk * g->cf; /* token copies this rank's experts take */
	double Te = Tr / El;		    /* tokens per local expert */
	double fc1_n = (g->swiglu ? 2.0 : 1.0) * g->fel;
	double mlp_bias = g->bias * (g->swiglu ? 2.0 * g->fel : g->fel);
	gemm(L, "router", g, g->T, g->E, g->h, g->h * g->E, x_in);
	/* op SAC: the router's matmul is rerun and not counted (torchtitan
	 * forces it, force_recompute_mm_shapes_by_fqns = ["moe.router.gate"]);
	 * the experts' grouped matmuls (torch._grouped_mm) are not among the
	 * saved ops: rerun, not counted; the shared experts' are counted */
	/* softmax over E logits, top-k and the gate weights: fp32 logits read
	 * and probabilities written, indices and gates kept for backward */
	membound(L, "topk", 8.0 * g->T * g->E, 8.0 * g->T * g->E, 0.0, 8.0 * g->T * g->topk, 2, 2);
	/* dispatch: gather T·h into Tr·h rows; combine: read Tr·h and the gates,
	 * write T·h (backward: the same traffic in reverse) */
	double perm = g->e * g->h * (g->T + Tr);
	membound(L, "permute", 2.0 * perm, 2.0 * perm, 0.0, 0.0, 2, 2);
	struct work_op *op = batched(L, "expert_fc1", g, Te, fc1_n, g->h, El);
	if (op) {
		op->params = El * (g->h * fc1_n + mlp_bias);
		op->saved_bytes = g->e * Tr * g->h;
	}
	activation(L, g, Tr, g->fel);
	op = batched(L, "expert_fc2", g, Te, g->h, g->fel, El);
	if (op) {
		op->params = El * (g->fel * g->h + g->bias * g->h);
		op->saved_bytes =
		    g->e * Tr * g->fel + g->e * Tr * g->h; /* input, output for gates */
	}
	if (g->S > 0.0) {
		/* shared experts (DeepSeekMoE): a dense MLP of S experts' width
		 * that every token passes through, split over TP ranks as a
		 * dense MLP (its own all-reduces); its input is the router's */
		double w = g->S * g->fel;
		double n1 = (g->swiglu ? 2.0 : 1.0) * w;
		gemm(L, "shared_fc1", g, g->T, n1, g->h,
		     g->h * n1 + g->bias * (g->swiglu ? 2.0 * w : w), 0.0);
		sac_fc1(L, g, n1);
		tp_after(L, 0, 1);
		activation(L, g, g->T, w);
		gemm(L, "shared_fc2", g, g->T, g->h, w, w * g->h + g->bias * g->h, g->e * g->T * w);
		sac_one(L, g, g->h);
		tp_after(L, 1, 0);
	}
}

/* Transformer Engine's fp8 casts of one layer (Micikevicius et al. 2022,
 * "FP8 Formats for Deep Learning", https://arxiv.org/abs/2209.05433; TE's
 * fused cast-transpose): forward, each GEMM input read in bf16 and written
 * as fp8 and as its fp8 transpose for the weight gradient (2 + 1 + 1 bytes
 * per element, the amax reduction fused in); backward, each GEMM's output
 * gradient the same. Weight casts happen once per iteration and are
 * counted with the optimizer step (memory.c). The ops' saved tensors stay
 * at bf16 size (an upper bound: TE may keep the fp8 copies instead). */
static void fp8_casts(struct list *L, const struct dims *g, double attn_in, double attn_out,
		      double fc1_n)
{
	double mlp_in, mlp_mid, mlp_out1, mlp_out2;
	if (g->E > 0.0) {
		double Tr = g->T * g->topk * g->cf;
		double fe1 = (g->swiglu ? 2.0 : 1.0) * g->fel;
		mlp_in = Tr * g->h + g->T * g->h; /* experts' input, router's input */
		mlp_mid = Tr * g->fel + g->T * g->S * g->fel;
		mlp_out1 = Tr * fe1 + g->T * g->E + g->T * g->S * fe1;
		mlp_out2 = Tr * g->h + (g->S > 0.0 ? g->T * g->h : 0.0);
	} else {
		mlp_in = g->T * g->h;
		mlp_mid = g->T * g->fl;
		mlp_out1 = g->T * fc1_n;
		mlp_out2 = g->T * g->h;
	}
	double fwd = g->T * attn_in + mlp_in + mlp_mid;	    /* GEMM inputs */
	double bwd = g->T * attn_out + mlp_out1 + mlp_out2; /* output grads */
	membound(L, "fp8_cast", 4.0 * fwd, 4.0 * bwd, 0.0, 0.0, 4, 4);
}

/* -------------------------------------------------------------- layers */

/* Widths per token of the outputs of the latent attention's input GEMMs:
 * the down projection (query and KV latents, the shared rotary key), the
 * query and the KV up projections. */
static double mla_out(const struct dims *g)
{
	return g->cq + g->c + g->r + g->ql + g->heads_l * (g->d - g->r + g->dv);
}

/* Multi-head latent attention (see ts_model in model.h; DeepSeek-V2 §2.1,
 * DeepSeek-V3 §2.1.1), as Megatron-Core's MLASelfAttention runs it: one
 * down projection of h into the query latent (cq), the KV latent (c) and
 * the shared rotary key (r), replicated on TP ranks; RMSNorms of both
 * latents; the column-parallel up projections of the query latent into
 * heads x head_dim and of the KV latent into heads x (the key's non-rotary
 * part + the value head); rotary embedding of the queries' and the shared
 * key's rotary parts; attention with head_dim for QK^T and v_head_dim for
 * AV; the row-parallel output projection. Without a query latent (cq 0)
 * the query is projected from h. TP: the up projections' input gradients
 * are summed over the ranks before the replicated down projection's (one
 * collective backward, counted at the down projection) and the output
 * projection's forward is all-reduced. */
static void mla_attention(struct list *L, const struct dims *g, double x_in)
{
	double a = g->cq + g->c + g->r;
	double kvb_n = g->heads_l * (g->d - g->r + g->dv);
	gemm(L, "qkv_a", g, g->T, a, g->h, g->h * a + g->bias * a, x_in);
	size_t at = L->n - 1;
	tp_after(L, 0, 1);
	double lat = g->e * g->T * (g->cq + g->c);
	membound(L, "latent_norm", 2.0 * lat, 3.0 * lat, g->latent_norm_params, lat,
		 g->cq > 0.0 ? 2u : 1u, g->cq > 0.0 ? 4u : 2u);
	if (g->cq > 0.0)
		gemm(L, "q_b", g, g->T, g->ql, g->cq, g->cq * g->ql + g->bias * g->ql,
		     g->e * g->T * g->cq);
	else
		gemm(L, "q", g, g->T, g->ql, g->h, g->h * g->ql + g->bias * g->ql, 0.0);
	gemm(L, "kv_b", g, g->T, kvb_n, g->c, g->c * kvb_n + g->bias * kvb_n, g->e * g->T * g->c);
	/* op SAC: torchtitan's DeepSeek-V3 attention calls wq_a, wq_b, wkv_a,
	 * wkv_b (or wq, wkv_a, wkv_b without a query latent), then wo; qkv_a
	 * here is wq_a and wkv_a in one GEMM */
	if (!L->rc) { /* qkv_a, latent_norm, q_b (or q), kv_b from `at` */
		bool cq = g->cq > 0.0;
		double wa[2] = {g->cq, g->c + g->r}, wq = g->ql, wkv = kvb_n;
		unsigned ka[2] = {1u, cq ? 3u : 2u}, kq = cq ? 2u : 1u, kkv = cq ? 4u : 3u;
		sac_parts(&L->ops[at], g, cq ? wa : wa + 1, cq ? ka : ka + 1, cq ? 2 : 1);
		sac_parts(&L->ops[at + 2], g, &wq, &kq, 1);
		sac_parts(&L->ops[at + 3], g, &wkv, &kkv, 1);
		L->mm = kkv;
	}
	double qk = g->e * g->T * (g->heads_l * g->r + g->r);
	membound(L, "rope", 2.0 * qk, 2.0 * qk, 0.0, 0.0, 2, 2);
	attention(L, g);
	gemm(L, "proj", g, g->T, g->h, g->qlv, g->qlv * g->h + g->bias * g->h,
	     g->e * g->T * g->qlv);
	sac_one(L, g, g->h);
	tp_after(L, 1, 0);
}

/* A parallel block (see work_layer_ops in ops.h): norms 1 shares the norm
 * and fuses the input GEMMs, norms 2 keeps two norms of the same x. The one
 * residual add reads x and both branch outputs and writes y (with dropout,
 * one byte mask per branch). */
static void parallel_block(struct list *L, const struct dims *g, int64_t norms, double qkv_n,
			   double fc1_n, double mlp_bias, double x_in)
{
	double x = g->e * g->Ts * g->h;
	bool fused = norms == 1 && g->E == 0.0;
	norm(L, "norm1", g, g->Ts);
	if (norms == 2) /* reads the x norm1 keeps: nothing more saved */
		membound(L, "norm2", 2.0 * x, 3.0 * x, g->norm_params, 0.0, 1, 2);
	/* op SAC: PyTorch modules call the attention's projections and its
	 * output projection before the MLP's (GPT-J, Falcon), so the fused
	 * GEMM's MLP part holds the matmuls after proj */
	unsigned nfc1 = g->swiglu ? 2u : 1u;
	if (fused) {
		gemm(L, "qkv_fc1", g, g->T, qkv_n + fc1_n, g->h,
		     g->h * (qkv_n + fc1_n) + g->bias * qkv_n + mlp_bias, x_in);
		if (!L->rc) {
			double w[5] = {g->ql + g->kvl + g->kvlv};
			unsigned k[5] = {1u}, nq = 1u;
			if (g->split_qkv) {
				w[0] = g->ql, w[1] = g->kvl, w[2] = g->kvlv;
				k[1] = 2u, k[2] = 3u, nq = 3u;
			}
			for (unsigned i = 0; i < nfc1; i++) {
				w[nq + i] = fc1_n / (double)nfc1;
				k[nq + i] = nq + 2u + i;
			}
			sac_parts(&L->ops[L->n - 1], g, w, k, (int)(nq + nfc1));
			L->mm = nq;
		}
	} else {
		gemm(L, "qkv", g, g->T, qkv_n, g->h, g->h * qkv_n + g->bias * qkv_n, x_in);
		sac_inputs(L, g, 0.0);
	}
	tp_after(L, 0, 1);
	if (g->rope) {
		double qk = g->e * g->T * (g->ql + g->kvl);
		membound(L, "rope", 2.0 * qk, 2.0 * qk, 0.0, 0.0, 2, 2);
	}
	attention(L, g);
	gemm(L, "proj", g, g->T, g->h, g->ql, g->ql * g->h + g->bias * g->h, g->e * g->T * g->ql);
	sac_one(L, g, g->h);
	if (fused)
		L->mm += nfc1;
	if (g->E > 0.0) {
		/* the experts are not split over TP ranks: the attention branch's
		 * row-parallel output is the block's one forward all-reduce */
		tp_after(L, 1, 0);
		/* with one norm the router reads the input qkv saved */
		moe_mlp(L, g, norms == 1 ? 0.0 : x_in);
	} else {
		if (!fused) {
			gemm(L, "fc1", g, g->T, fc1_n, g->h, g->h * fc1_n + mlp_bias, x_in);
			sac_fc1(L, g, fc1_n);
			tp_after(L, 0, 1);
		}
		activation(L, g, g->T, g->fl);
		gemm(L, "fc2", g, g->T, g->h, g->fl, g->fl * g->h + g->bias * g->h,
		     g->e * g->T * g->fl);
		sac_one(L, g, g->h);
		tp_after(L, 1, 0);
	}
	if (g->fp8)
		fp8_casts(L, g, g->h + g->ql, qkv_n + g->h, fc1_n);
	double n = g->Ts * g->h;
	if (g->drop)
		membound(L, "resid", (4.0 * g->e + 2.0 * MASK_BYTES) * n,
			 (3.0 * g->e + 2.0 * MASK_BYTES) * n, 0.0, 2.0 * MASK_BYTES * n, 1, 1);
	else
		membound(L, "resid", 4.0 * g->e * n, 0.0, 0.0, 0.0, 1, 0);
}

/* Op SAC with sequence parallelism: the reduce-scatter after each
 * row-parallel op's forward is a saved op too (its output, T/t tokens of
 * h, is kept besides the matmul's); without it the collective is an
 * all-reduce, which the policy reruns. */
static void sac_reduce_scatter(struct list *L, const struct dims *g)
{
	if (L->rc || !g->sp)
		return;
	for (size_t i = 0; i < L->n; i++)
		L->ops[i].sac_bytes += (double)L->ops[i].tp_fwd * g->e * g->Ts * g->h;
}

static int finish(struct list *L, size_t *n, struct ts_error *err, const char *what)
{
	if (L->rc)
		return ts_error_set(err, L->rc, NULL, 0, NULL,
				    "%s needs more than the %zu op slots given (WORK_MAX_OPS = %d)",
				    what, L->max, WORK_MAX_OPS);
	*n = L->n;
	return 0;
}

int work_layer_ops(const struct ts_model *m, const struct work_shape *s, struct work_op *ops,
		   size_t max, size_t *n, struct ts_error *err)
{
	struct dims g;
	int rc = dims_init(m, s, &g, err);
	if (rc)
		return rc;
	struct list L = {ops, max, 0, 0, 0};
	double x_in = g.e * g.Ts * g.h; /* a sequence-region activation */
	double qkv_n = g.ql + 2.0 * g.kvl;
	double fc1_n = (g.swiglu ? 2.0 : 1.0) * g.fl;
	double mlp_bias = g.bias * (g.swiglu ? 2.0 * g.fl : g.fl);

	if (m->parallel_block && !g.bert) {
		parallel_block(&L, &g, m->parallel_norms, qkv_n, fc1_n, mlp_bias, x_in);
		sac_reduce_scatter(&L, &g);
		return finish(&L, n, err, "a transformer layer");
	}
	/* BERT is post-LN: the norms follow the residual adds. */
	if (!g.bert)
		norm(&L, "norm1", &g, g.Ts);
	if (g.mla) {
		mla_attention(&L, &g, x_in);
	} else {
		gemm(&L, "qkv", &g, g.T, qkv_n, g.h, g.h * qkv_n + g.bias * qkv_n, x_in);
		sac_inputs(&L, &g, 0.0);
		tp_after(&L, 0, 1);
		if (g.rope) {
			double qk = g.e * g.T * (g.ql + g.kvl);
			membound(&L, "rope", 2.0 * qk, 2.0 * qk, 0.0, 0.0, 2, 2);
		}
		attention(&L, &g);
		gemm(&L, "proj", &g, g.T, g.h, g.ql, g.ql * g.h + g.bias * g.h, g.e * g.T * g.ql);
		sac_one(&L, &g, g.h);
		tp_after(&L, 1, 0);
	}
	residual(&L, "resid1", &g);
	norm(&L, g.bert ? "norm1" : "norm2", &g, g.Ts);
	if (g.E > 0.0) {
		moe_mlp(&L, &g, x_in);
	} else {
		gemm(&L, "fc1", &g, g.T, fc1_n, g.h, g.h * fc1_n + mlp_bias, x_in);
		sac_fc1(&L, &g, fc1_n);
		tp_after(&L, 0, 1);
		activation(&L, &g, g.T, g.fl);
		gemm(&L, "fc2", &g, g.T, g.h, g.fl, g.fl * g.h + g.bias * g.h, g.e * g.T * g.fl);
		sac_one(&L, &g, g.h);
		tp_after(&L, 1, 0);
	}
	if (g.fp8) {
		if (g.mla)
			fp8_casts(&L, &g, g.h + g.cq + g.c + g.qlv, mla_out(&g) + g.h, fc1_n);
		else
			fp8_casts(&L, &g, g.h + g.ql, qkv_n + g.h, fc1_n);
	}
	residual(&L, "resid2", &g);
	if (g.bert)
		norm(&L, "norm2", &g, g.Ts);
	sac_reduce_scatter(&L, &g);
	return finish(&L, n, err, "a transformer layer");
}

/* A gathered table of `rows` x h: forward reads the rows and writes them;
 * the weight gradient reads dY and read-modify-writes fp32 gradient rows. */
static void gather(struct list *L, const char *name, const struct dims *g, double params,
		   uint32_t kernels)
{
	struct work_op *op = add(L, name, WORK_EMBED);
	if (!op)
		return;
	op->m = g->T;
	op->n = g->h;
	op->fwd_bytes = 2.0 * g->e * g->T * g->h;
	op->wgrad_bytes = (g->e + 8.0) * g->T * g->h;
	op->params = params;
	op->kernels = kernels;
	op->bwd_kernels = 3; /* index sort, segment sums, scatter into the table */
}

int work_embed_ops(const struct ts_model *m, const struct work_shape *s, struct work_op *ops,
		   size_t max, size_t *n, struct ts_error *err)
{
	struct dims g;
	int rc = dims_init(m, s, &g, err);
	if (rc)
		return rc;
	struct list L = {ops, max, 0, 0, 0};
	/* Vocab-parallel gather: mask out-of-range ids, gather, zero the masked rows. */
	gather(&L, "embed", &g, g.V * g.h / g.t, g.t > 1.0 ? 3u : 1u);
	if (m->position == TS_POS_LEARNED || g.bert) {
		double table = m->position == TS_POS_LEARNED
				   ? (double)(s->seq_len > m->seq_len ? s->seq_len : m->seq_len)
				   : 0.0;
		double tables = (table > 0.0 ? 1.0 : 0.0) + (g.bert ? 1.0 : 0.0);
		double params = table * g.h + (g.bert ? 2.0 * g.h : 0.0); /* BERT: 2 token types */
		double x = g.e * g.T * g.h;
		struct work_op *op = add(&L, "pos", WORK_MEMBOUND);
		if (op) {
			op->fwd_bytes =
			    x * (1.0 + 2.0 * tables); /* read tables and word rows, write */
			op->wgrad_bytes = tables * (g.e + 8.0) * g.T * g.h;
			op->params = params;
			op->kernels = 2u * (uint32_t)tables;
			op->bwd_kernels = 3u * (uint32_t)tables;
		}
	}
	if (g.bert)
		norm(&L, "embed_norm", &g, g.Ts);
	if (g.drop) {
		double n2 = g.Ts * g.h;
		membound(&L, "embed_drop", (2.0 * g.e + MASK_BYTES) * n2,
			 (2.0 * g.e + MASK_BYTES) * n2, 0.0, MASK_BYTES * n2, 1, 1);
	}
	return finish(&L, n, err, "the embedding");
}

double work_head_tied_params(const struct ts_model *m, const struct work_shape *s)
{
	double t = s->tp > 0 ? (double)s->tp : 1.0;
	return m->tied_embeddings ? (double)m->vocab * (double)m->hidden / t : 0.0;
}

int work_head_ops(const struct ts_model *m, const struct work_shape *s, struct work_op *ops,
		  size_t max, size_t *n, struct ts_error *err)
{
	struct dims g;
	int rc = dims_init(m, s, &g, err);
	if (rc)
		return rc;
	struct list L = {ops, max, 0, 0, 0};
	double x_in = g.e * g.Ts * g.h;
	double Vl = g.V / g.t;
	double Th = g.T; /* rows the output head computes */
	if (g.bert && s->mlm_masked) {
		/* DeepLearningExamples' BertPreTrainingHeads with
		 * sequence_output_is_dense (run_pretraining.py's default): an
		 * index_select of the masked rows (labels != -1) feeds the head,
		 * whose backward scatters their gradient back */
		Th = g.T * WORK_MLM_MASKED_FRACTION;
		double xs = g.e * Th * g.h;
		membound(&L, "mlm_select", 2.0 * xs, g.e * g.T * g.h + xs, 0.0, 0.0, 2, 2);
		x_in = xs;
	}
	if (g.bert) {
		/* MLM transform (dense h x h, GeLU, LayerNorm), replicated on TP ranks. */
		double x = g.e * Th * g.h;
		gemm(&L, "mlm_dense", &g, Th, g.h, g.h, g.h * g.h + g.h, x_in);
		membound(&L, "mlm_gelu", 2.0 * x, 3.0 * x, 0.0, x, 1, 1);
		norm(&L, "mlm_norm", &g, Th);
	} else {
		norm(&L, "final_norm", &g, g.Ts);
	}
	double out_params = (m->tied_embeddings ? 0.0 : g.h * Vl) + (g.bert ? Vl : 0.0);
	gemm(&L, "logits", &g, Th, Vl, g.h, out_params, x_in);
	membound(&L, "xent", XENT_FWD_BYTES_PER_LOGIT * Th * Vl, XENT_BWD_BYTES_PER_LOGIT * Th * Vl,
		 0.0, work_xent_bytes_per_logit(s->xent) * Th * Vl, XENT_FWD_KERNELS,
		 XENT_BWD_KERNELS);
	if (m->mtp_depth > 0) {
		/* Multi-token prediction (DeepSeek-V3 §2.2) besides its blocks
		 * (the schedule's, as layers of the last stage): per module the
		 * next tokens' embedding rows, the norms of them and of the
		 * hidden state, the 2h x h projection of both, the final norm and
		 * the shared output head with its loss; the D modules' ops as one
		 * of D x the tokens (same FLOPs and bytes). */
		double D = (double)m->mtp_depth, TD = g.T * D;
		struct work_op *op = add(&L, "mtp_embed", WORK_EMBED);
		if (op) {
			op->m = TD;
			op->n = g.h;
			op->fwd_bytes = 2.0 * g.e * TD * g.h;
			op->wgrad_bytes = (g.e + 8.0) * TD * g.h;
			op->kernels = g.t > 1.0 ? 3u : 1u;
			op->bwd_kernels = 3;
		}
		double x2 = g.e * TD * g.h;
		membound(&L, "mtp_norms", 4.0 * x2, 6.0 * x2, 2.0 * D * g.norm_params, 2.0 * x2, 2,
			 4);
		gemm(&L, "mtp_proj", &g, TD, g.h, 2.0 * g.h, D * 2.0 * g.h * g.h, 2.0 * x2);
		membound(&L, "mtp_final_norm", 2.0 * x2, 3.0 * x2, D * g.norm_params, x2, 1, 2);
		gemm(&L, "mtp_logits", &g, TD, Vl, g.h, 0.0, x2);
		membound(&L, "mtp_xent", XENT_FWD_BYTES_PER_LOGIT * TD * Vl,
			 XENT_BWD_BYTES_PER_LOGIT * TD * Vl, 0.0, 4.0 * TD * Vl, XENT_FWD_KERNELS,
			 XENT_BWD_KERNELS);
	}
	if (g.bert) {
		/* Pooler (dense h x h + tanh on the first token) and the 2-way
		 * next-sentence classifier: b rows only. */
		gemm(&L, "pooler", &g, g.b, g.h, g.h, g.h * g.h + g.h + 2.0 * g.h + 2.0,
		     g.e * g.b * g.h);
	}
	return finish(&L, n, err, "the head");
}

const char *work_xent_name(enum work_xent x)
{
	static const char *const names[WORK_XENT_COUNT_] = {"fused", "upcast", "chunked"};
	return (unsigned)x < WORK_XENT_COUNT_ ? names[x] : "?";
}

double work_xent_bytes_per_logit(enum work_xent x)
{
	static const double b[WORK_XENT_COUNT_] = {4.0, 12.0, 0.0};
	return (unsigned)x < WORK_XENT_COUNT_ ? b[x] : 4.0;
}

bool work_dense_model(const struct ts_model *m, struct ts_model *out)
{
	if (m->num_experts == 0 || m->dense_layers == 0)
		return false;
	*out = *m;
	out->num_experts = out->top_k = out->shared_experts = out->dense_layers = 0;
	out->moe_ffn_hidden = 0;
	out->capacity_factor = 0.0;
	return true;
}
