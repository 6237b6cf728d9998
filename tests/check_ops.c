/* Ops of a transformer: model FLOPs per token against published and
 * hand-counted figures, op lists that agree with them and with the
 * parameter count, tensor-parallel splits, and bad shapes.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "work/memory.h"
#include "work/model.h"
#include "work/ops.h"
#include "testutil.h"

static struct work_shape shape(int64_t b, int64_t s, int64_t tp, bool sp)
{
	struct work_shape w = {.micro_batch = b,
			       .seq_len = s,
			       .tp = tp,
			       .sp = sp,
			       .dtype = TS_BF16,
			       .flash = false,
			       .causal = true};
	return w;
}

static size_t layer(const struct ts_model *m, const struct work_shape *s, struct work_op *ops)
{
	size_t n = 0;
	struct ts_error e;
	char buf[1200];
	int rc = work_layer_ops(m, s, ops, WORK_MAX_OPS, &n, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, buf, sizeof buf));
	return n;
}

static const struct work_op *find(const struct work_op *ops, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ops[i].name, name) == 0)
			return &ops[i];
	ck_abort_msg("no op %s", name);
	return NULL;
}

/* GPT-3 175B: Korthikanti et al. 2022 (https://arxiv.org/abs/2205.05198,
 * §6 / Appendix) count 72·B·s·l·h²·(1 + s/(6h) + V/(12·h·l)) model FLOPs per
 * iteration without recomputation; per token divide by B·s. Same dimensions,
 * same terms: must agree to rounding (relative 1e-12). */
START_TEST(flops_gpt3_korthikanti)
{
	struct ts_model m = tu_model("gpt3-175b");
	double l = 96, h = 12288, s = 2048, V = 50257;
	double want = 72.0 * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * h * l));
	double got = work_model_flops_per_token(&m, 2048);
	ck_assert_msg(tu_relerr(got, want) < 1e-12, "%.6e vs %.6e", got, want);
	/* and at another sequence length, where the s/(6h) term changes */
	s = 8192;
	want = 72.0 * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * h * l));
	ck_assert(tu_relerr(work_model_flops_per_token(&m, 8192), want) < 1e-12);
}
END_TEST

/* Llama-2-70B, seq 4096, by hand: h = 8192, 64 query heads of 128, 8 KV
 * heads (KV width 1024), f = 28672 (SwiGLU), V = 32000, 80 layers.
 *   QKV   2·8192·(8192 + 2·1024)   =   167,772,160
 *   proj  2·8192·8192              =   134,217,728
 *   MLP   2·3·8192·28672           = 1,409,286,144
 *   attn  4·4096·8192              =   134,217,728
 *   layer                          = 1,845,493,760  x 80 = 147,639,500,800
 *   logits 2·8192·32000            =       524,288,000
 *   forward 148,163,788,800; x 3 (fwd + bwd) = 444,491,366,400 per token.
 * (6·N with N = 68.98e9 would give 4.14e11: the difference is attention.) */
START_TEST(flops_llama2_70b)
{
	struct ts_model m = tu_model("llama2-70b");
	ck_assert(work_layer_flops_per_token(&m, 4096) == 1845493760.0);
	ck_assert(work_model_flops_per_token(&m, 4096) == 444491366400.0);
}
END_TEST

/* BERT-large, seq 512, by hand: h = 1024, 16 heads, f = 4096 (GeLU),
 * V = 30522, 24 layers.
 *   layer 6h² + 2h² + 16h² + 4·512·h = 27,262,976  x 24 = 654,311,424
 *   head  MLM transform 2h² = 2,097,152; logits 2·h·V = 62,509,056
 *   forward 718,917,632; x 3 = 2,156,752,896 per token. */
START_TEST(flops_bert_large)
{
	struct ts_model m = tu_model("bert-large");
	ck_assert(work_layer_flops_per_token(&m, 512) == 27262976.0);
	ck_assert(work_model_flops_per_token(&m, 512) == 2156752896.0);
	/* the attention core alone: 3 x 24 x 4·512·1024 = 150,994,944 per token */
	ck_assert(work_attn_flops_per_token(&m, 512) == 150994944.0);
}
END_TEST

/* The attention core a causal mask halves, by hand: GPT-3 1.3B at 2,048
 * tokens, 3 x 24 layers x 4·2048·2048 = 1,207,959,552 FLOPs per token of
 * work_model_flops_per_token's 3 x (24 x 117,440,512 + 205,852,672) =
 * 9,073,274,880; causal, the kernels' count is 9,073,274,880 - 603,979,776
 * = 8,469,295,104. At 32,768 tokens the attention is 3 x 24 x
 * 4·32768·2048 = 19,327,352,832 of 27,192,668,160 (71 %): counted in full
 * it overstates a causal model's FLOPs by 1.5513x. Layer-list models have
 * none. */
START_TEST(flops_attention_core)
{
	struct ts_model m = tu_model("gpt3-1.3b");
	ck_assert(work_attn_flops_per_token(&m, 2048) == 1207959552.0);
	ck_assert(work_model_flops_per_token(&m, 2048) == 9073274880.0);
	double causal =
	    work_model_flops_per_token(&m, 2048) - 0.5 * work_attn_flops_per_token(&m, 2048);
	ck_assert(causal == 8469295104.0);
	ck_assert(work_attn_flops_per_token(&m, 32768) == 19327352832.0);
	double full = work_model_flops_per_token(&m, 32768);
	ck_assert(full == 27192668160.0);
	ck_assert(fabs(full / (full - 0.5 * 19327352832.0) - 1.5513) < 1e-4);
	struct ts_model r = tu_model("resnet50");
	ck_assert(work_attn_flops_per_token(&r, 224) == 0.0);
}
END_TEST

/* The ops of one layer sum to the model FLOPs per layer x tokens / tp. */
static const struct {
	const char *model;
	int64_t b, s, tp;
	bool sp, flash;
} split_cases[] = {
    {"gpt3-175b", 1, 2048, 1, false, false}, {"gpt3-175b", 2, 2048, 8, true, true},
    {"llama2-70b", 1, 4096, 8, true, true},  {"llama3-8b", 4, 8192, 4, false, true},
    {"bert-large", 8, 512, 2, false, false}, {"llama2-7b", 1, 4096, 1, false, true},
};

START_TEST(layer_ops_sum_to_model_flops)
{
	size_t i = (size_t)_i;
	struct ts_model m = tu_model(split_cases[i].model);
	struct work_shape s =
	    shape(split_cases[i].b, split_cases[i].s, split_cases[i].tp, split_cases[i].sp);
	s.flash = split_cases[i].flash;
	struct work_op ops[WORK_MAX_OPS];
	size_t n = layer(&m, &s, ops);
	double sum = 0.0;
	for (size_t j = 0; j < n; j++)
		sum += ops[j].fwd_flops;
	double want = work_layer_flops_per_token(&m, s.seq_len) *
		      (double)(s.micro_batch * s.seq_len) / (double)s.tp;
	ck_assert_msg(tu_relerr(sum, want) < 1e-12, "%s: %.6e vs %.6e", split_cases[i].model, sum,
		      want);
	/* backward GEMMs: dgrad = wgrad = forward */
	const struct work_op *fc1 = find(ops, n, "fc1");
	ck_assert(fc1->dgrad_flops == fc1->fwd_flops && fc1->wgrad_flops == fc1->fwd_flops);
	const struct work_op *attn = find(ops, n, "attn");
	ck_assert(attn->wgrad_flops == 0.0);
	/* flash backward 2.5 x forward (Dao 2023, §4.1); unfused 2 x */
	ck_assert(attn->dgrad_flops == (s.flash ? 2.5 : 2.0) * attn->fwd_flops);
}
END_TEST

/* Layer, embedding and head parameters at tp = 1 add up to the model's
 * parameter count (ts_model_params, pinned to published counts in
 * check_model.c), with the output matrix counted once when tied. */
START_TEST(params_add_up)
{
	const char *all[] = {"gpt3-1.3b", "gpt3-175b",	 "llama2-7b", "llama2-70b",
			     "llama3-8b", "llama3-405b", "bert-large"};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		struct ts_model m = tu_model(all[i]);
		struct work_shape s = shape(1, m.seq_len, 1, false);
		struct work_op ops[WORK_MAX_OPS];
		size_t n;
		double lp = 0, ep = 0, hp = 0;
		n = layer(&m, &s, ops);
		for (size_t j = 0; j < n; j++)
			lp += ops[j].params;
		ck_assert_int_eq(work_embed_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
		for (size_t j = 0; j < n; j++)
			ep += ops[j].params;
		ck_assert_int_eq(work_head_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
		for (size_t j = 0; j < n; j++)
			hp += ops[j].params;
		double got = (double)m.layers * lp + ep + hp;
		double want = ts_model_params(&m);
		ck_assert_msg(got == want, "%s: %.0f vs %.0f", all[i], got, want);
		ck_assert(work_head_tied_params(&m, &s) ==
			  (m.tied_embeddings ? (double)m.vocab * (double)m.hidden : 0.0));
	}
}
END_TEST

/* GPT-3 175B layer on tp = 8, by hand (Megatron: column-parallel QKV and fc1
 * split weights and biases, row-parallel proj and fc2 split weights and keep
 * the full bias, norms replicated):
 *   (3h² + 3h + h² + 4h² + 4h + 4h²)/8 + 2h + 2·2h = 12h²/8 + 7h/8 + 6h. */
START_TEST(tp_splits_params)
{
	struct ts_model m = tu_model("gpt3-175b");
	struct work_shape s = shape(1, 2048, 8, true);
	struct work_op ops[WORK_MAX_OPS];
	size_t n = layer(&m, &s, ops);
	double h = 12288, p = 0;
	for (size_t j = 0; j < n; j++)
		p += ops[j].params;
	ck_assert(p == 12.0 * h * h / 8.0 + 7.0 * h / 8.0 + 6.0 * h);
	const struct work_op *qkv = find(ops, n, "qkv");
	ck_assert(qkv->m == 2048.0 && qkv->n == 3.0 * h / 8.0 && qkv->k == h);
	const struct work_op *fc2 = find(ops, n, "fc2");
	ck_assert(fc2->m == 2048.0 && fc2->n == h && fc2->k == 4.0 * h / 8.0);
}
END_TEST

/* Llama-2-70B on tp = 16: 8 KV heads cannot be split 16 ways, so each rank
 * holds one (replicated twice, as Megatron does): QKV width per rank is
 * 64/16·128 + 2·128 = 768 columns, more than the model's share 10240/16 = 640. */
START_TEST(gqa_replicates_kv_heads)
{
	struct ts_model m = tu_model("llama2-70b");
	struct work_shape s = shape(1, 4096, 16, true);
	struct work_op ops[WORK_MAX_OPS];
	size_t n = layer(&m, &s, ops);
	const struct work_op *qkv = find(ops, n, "qkv");
	ck_assert(qkv->n == 768.0);
	ck_assert(qkv->fwd_flops == 2.0 * 4096.0 * 8192.0 * 768.0);
	/* SwiGLU: fc1 holds gate and up, 2 x 28672/16 columns */
	ck_assert(find(ops, n, "fc1")->n == 2.0 * 1792.0);
	ck_assert(find(ops, n, "rope")->kind == WORK_MEMBOUND);
}
END_TEST

/* Korthikanti et al. 2022 §4.3, with sequence parallelism: the final norm
 * and the output projection keep 2sbh/t each and the cross-entropy the fp32
 * logits 4sbv/t, together 4sbh/t·(1 + v/h); the embedding keeps its dropout
 * mask, sbh/t. GPT-3 175B, b = 1, s = 2048, t = 8. */
START_TEST(head_and_embed_saved)
{
	struct ts_model m = tu_model("gpt3-175b");
	struct work_shape s = shape(1, 2048, 8, true);
	s.dtype = TS_FP16;
	struct work_op ops[WORK_MAX_OPS];
	size_t n;
	double sb = 2048.0, h = 12288, V = 50257, t = 8, sum = 0;
	ck_assert_int_eq(work_head_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
	for (size_t j = 0; j < n; j++)
		sum += ops[j].saved_bytes;
	ck_assert(tu_relerr(sum, 4.0 * sb * h / t * (1.0 + V / h)) < 1e-12);
	const struct work_op *lg = find(ops, n, "logits");
	ck_assert(lg->params == 0.0); /* tied */
	ck_assert(lg->fwd_flops == 2.0 * sb * h * V / t);
	ck_assert(find(ops, n, "xent")->saved_bytes == 4.0 * sb * V / t);
	/* training.cross_entropy: eager Hugging Face models hold the fp32
	 * logits, the log-softmax's fp32 output and its fp32 gradient (12
	 * bytes per logit); a fused linear cross-entropy none */
	s.xent = WORK_XENT_UPCAST;
	ck_assert_int_eq(work_head_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
	ck_assert(find(ops, n, "xent")->saved_bytes == 12.0 * sb * V / t);
	s.xent = WORK_XENT_CHUNKED;
	ck_assert_int_eq(work_head_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
	ck_assert(find(ops, n, "xent")->saved_bytes == 0.0);
	s.xent = WORK_XENT_FUSED;
	sum = 0;
	ck_assert_int_eq(work_embed_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
	for (size_t j = 0; j < n; j++)
		sum += ops[j].saved_bytes;
	ck_assert(sum == sb * h / t);
}
END_TEST

/* training.mlm_head = "masked": BERT's masked-LM head on the masked 15 % of
 * the tokens only (Devlin et al. 2019 §3.1; DeepLearningExamples'
 * dense_sequence_output). BERT-large, b = 16, s = 512, t = 1, fp16: 8,192
 * tokens, 1,228.8 of them masked; h = 1,024, V = 30,522. Logits 2·1,228.8·
 * 1,024·30,522 = 7.681e10 FLOPs forward (5.121e11 on all tokens), the
 * transform 2·1,228.8·1,024² = 2.577e9; the loss keeps 4 bytes per logit of
 * the masked rows; the select reads and writes the masked rows (2·2·1,228.8·
 * 1,024 bytes). The model FLOPs drop by 0.85 of the head's 3·(2hV + 2h²)
 * per token, 1.647e8. */
START_TEST(mlm_head_masked)
{
	struct ts_model m = tu_model("bert-large");
	struct work_shape s = shape(16, 512, 1, false);
	s.dtype = TS_FP16;
	s.causal = false;
	struct work_op ops[WORK_MAX_OPS];
	size_t n;
	double T = 16.0 * 512.0, Tm = 0.15 * T, h = 1024.0, V = 30522.0;
	ck_assert_int_eq(work_head_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
	ck_assert(tu_relerr(find(ops, n, "logits")->fwd_flops, 2.0 * T * h * V) < 1e-12);
	s.mlm_masked = true;
	ck_assert_int_eq(work_head_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
	ck_assert(tu_relerr(find(ops, n, "logits")->fwd_flops, 2.0 * Tm * h * V) < 1e-12);
	ck_assert(tu_relerr(find(ops, n, "logits")->fwd_flops, 7.681e10) < 1e-3);
	ck_assert(tu_relerr(find(ops, n, "mlm_dense")->fwd_flops, 2.577e9) < 1e-3);
	ck_assert(tu_relerr(find(ops, n, "xent")->saved_bytes, 4.0 * Tm * V) < 1e-12);
	ck_assert(tu_relerr(find(ops, n, "mlm_select")->fwd_bytes, 2.0 * 2.0 * Tm * h) < 1e-12);
	/* the pooler still sees every sequence's first token */
	ck_assert(find(ops, n, "pooler")->m == 16.0);
	double head = work_mlm_head_flops_per_token(&m);
	ck_assert(tu_relerr(0.85 * head, 1.647e8) < 1e-3);
	struct ts_model g = tu_model("gpt3-1.3b");
	ck_assert(work_mlm_head_flops_per_token(&g) == 0.0);
}
END_TEST

/* Flash attention keeps Q, K, V and the fp32 log-sum-exp (4 bytes per row
 * and head) instead of the s x s tensors: a GPT layer without TP keeps
 * 34·s·b·h + 4·a·s·b bytes. GPT-3 1.3B: h = 2048, a = 16 (models/gpt3-1.3b.cfg). */
START_TEST(flash_saved)
{
	struct ts_model m = tu_model("gpt3-1.3b");
	struct work_shape s = shape(2, 2048, 1, false);
	s.flash = true;
	struct work_op ops[WORK_MAX_OPS];
	size_t n = layer(&m, &s, ops);
	double sum = 0, sel = 0;
	for (size_t j = 0; j < n; j++) {
		sum += ops[j].saved_bytes;
		sel += ops[j].selective_bytes;
	}
	double sbh = 2.0 * 2048.0 * (double)m.hidden;
	ck_assert(tu_relerr(sum, 34.0 * sbh + 4.0 * (double)m.heads * 2048.0 * 2.0) < 1e-12);
	ck_assert(sel == 0.0);
	const struct work_op *a = find(ops, n, "attn");
	ck_assert_int_eq(a->kind, WORK_ATTN_FLASH);
	ck_assert(a->causal);
	ck_assert(a->batch == 2.0 * (double)m.heads && a->m == 2048.0 && a->k == 128.0);
}
END_TEST

/* Op-level selective checkpointing (training.recompute = "op"; torchtitan's
 * policy, torchtitan/distributed/activation_checkpoint.py: save every
 * matmul's output but every second one, counted per block, and the flash
 * attention outputs), by hand for Llama-3-8B, b = 1, s = 8192, bf16 (2
 * bytes), flash, t = 1: h = 4096, q = 32 x 128 = 4096, kv = 8 x 128 = 1024,
 * f = 14336, T = 8192 tokens. The block's matmuls in call order: 1 wq
 * (4096 wide) kept, 2 wk (1024) rerun, 3 wv (1024) kept, 4 wo (4096) rerun,
 * 5 w1 (14336) kept, 6 w3 (14336) rerun, 7 w2 (4096) kept. Kept per token:
 *   block input 2·4096  =  8,192
 *   wq          2·4096  =  8,192
 *   wv          2·1024  =  2,048
 *   attention   2·4096  =  8,192   (output)
 *   log-sum-exp 4·32    =    128
 *   w1          2·14336 = 28,672
 *   w2          2·4096  =  8,192
 *   total                 63,616 bytes x 8192 tokens = 521,142,272 bytes
 * (497 MiB) per layer, against 8192·8192 = 67,108,864 (64 MiB) under full.
 * Rerun: wk, wo, w3, 2·T·h·(1024 + 4096 + 14336) = 1,305,670,057,984
 * FLOPs; the flash attention not at all.
 * With TP 2 and sequence parallelism, per token on a rank: input 4096/2·2
 * = 4,096, wq 2·2048 = 4,096, wv 2·512 = 1,024, attention 2·2048 + 4·16 =
 * 4,160, w1 2·7168 = 14,336, w2 (its partial sum over all T) 2·4096 =
 * 8,192, the two reduce-scatter outputs 2 x 2·4096/2 = 8,192: 44,096 bytes
 * x 8192 = 361,234,432. */
START_TEST(op_sac_llama3_8b)
{
	struct ts_model m = tu_model("llama3-8b");
	struct work_shape s = shape(1, 8192, 1, false);
	s.flash = true;
	struct work_op ops[WORK_MAX_OPS];
	size_t n = layer(&m, &s, ops);
	double input = 2.0 * 8192.0 * 4096.0;
	ck_assert(work_activation_bytes(ops, n, input, WORK_RECOMPUTE_OP) == 521142272.0);
	ck_assert(work_activation_bytes(ops, n, input, WORK_RECOMPUTE_FULL) == 67108864.0);
	double rerun = 0.0;
	for (size_t j = 0; j < n; j++)
		rerun += ops[j].sac_rerun * ops[j].fwd_flops;
	ck_assert_msg(tu_relerr(rerun, 1305670057984.0) < 1e-12, "%.17g", rerun);
	ck_assert(find(ops, n, "attn")->sac_rerun == 0.0);
	ck_assert(find(ops, n, "norm1")->sac_rerun == 1.0 && find(ops, n, "norm1")->sac_bytes == 0);
	/* qkv: wk of q + k + v = 1024 / 6144 rerun; fc1: w3, half */
	ck_assert(tu_relerr(find(ops, n, "qkv")->sac_rerun, 1024.0 / 6144.0) < 1e-15);
	ck_assert(find(ops, n, "fc1")->sac_rerun == 0.5);
	ck_assert(find(ops, n, "proj")->sac_rerun == 1.0 && find(ops, n, "fc2")->sac_rerun == 0.0);

	s = shape(1, 8192, 2, true);
	s.flash = true;
	n = layer(&m, &s, ops);
	ck_assert(work_activation_bytes(ops, n, input / 2.0, WORK_RECOMPUTE_OP) == 361234432.0);
}
END_TEST

/* GPT family: one fused QKV matmul (GPT-2's c_attn), GeLU: GPT-3 1.3B (h
 * 2048, 16 heads, f 8192), b = 1, s = 2048, flash: 1 qkv kept (3·2048
 * wide), 2 proj rerun, 3 fc1 kept (8192), 4 fc2 rerun; kept per token: input
 * 2·2048 = 4,096, qkv 2·6144 = 12,288, attention 2·2048 + 4·16 = 4,160, fc1
 * 2·8192 = 16,384: 36,928 bytes x 2048 = 75,628,544; the dropout masks
 * are rerun (regenerated from the saved RNG state). */
START_TEST(op_sac_gpt_fused_qkv)
{
	struct ts_model m = tu_model("gpt3-1.3b");
	struct work_shape s = shape(1, 2048, 1, false);
	s.flash = true;
	struct work_op ops[WORK_MAX_OPS];
	size_t n = layer(&m, &s, ops);
	double input = 2.0 * 2048.0 * 2048.0;
	ck_assert(work_activation_bytes(ops, n, input, WORK_RECOMPUTE_OP) == 75628544.0);
	ck_assert(find(ops, n, "qkv")->sac_rerun == 0.0 && find(ops, n, "fc1")->sac_rerun == 0.0);
	ck_assert(find(ops, n, "proj")->sac_rerun == 1.0 && find(ops, n, "fc2")->sac_rerun == 1.0);
}
END_TEST

START_TEST(bad_shapes)
{
	struct ts_model m = tu_model("gpt3-175b");
	struct work_op ops[WORK_MAX_OPS];
	size_t n;
	struct ts_error e;
	struct work_shape s = shape(1, 2048, 5, false); /* 96 heads on 5 ranks */
	ck_assert_int_eq(work_layer_ops(&m, &s, ops, WORK_MAX_OPS, &n, &e), TS_EINVALID);
	ck_assert_str_eq(e.key, "parallel.tp");
	ck_assert(strstr(e.msg, "96 heads") != NULL);
	s = shape(0, 2048, 1, false);
	ck_assert_int_eq(work_layer_ops(&m, &s, ops, WORK_MAX_OPS, &n, &e), TS_EINVALID);
	s = shape(1, 2048, 1, false);
	s.dtype = TS_FP32;
	s.flash = true;
	ck_assert_int_eq(work_layer_ops(&m, &s, ops, WORK_MAX_OPS, &n, &e), TS_EINVALID);
	ck_assert_str_eq(e.key, "training.precision");
	s.dtype = TS_BF16;
	ck_assert_int_eq(work_layer_ops(&m, &s, ops, 3, &n, &e), TS_ELIMIT);
	ck_assert_int_eq(work_head_ops(&m, &s, ops, 1, &n, NULL), TS_ELIMIT);
	/* names */
	ck_assert_str_eq(work_recompute_name(WORK_RECOMPUTE_SELECTIVE), "selective");
	ck_assert_int_eq(work_recompute_parse("FULL"), WORK_RECOMPUTE_FULL);
	ck_assert_int_eq(work_recompute_parse("some"), -1);
	ck_assert_str_eq(work_op_kind_name(WORK_ATTN_FLASH), "attn_flash");
	ck_assert_str_eq(work_phase_name(WORK_WGRAD), "wgrad");
}
END_TEST

/* Every bundled model and layout fits in WORK_MAX_OPS; kernels are counted. */
START_TEST(op_lists_fit)
{
	const char *all[] = {"gpt3-175b", "llama2-70b", "bert-large"};
	for (size_t i = 0; i < 3; i++) {
		struct ts_model m = tu_model(all[i]);
		for (int fl = 0; fl < 2; fl++) {
			struct work_shape s = shape(1, 1024, 1, false);
			s.flash = fl;
			struct work_op ops[WORK_MAX_OPS];
			size_t n = layer(&m, &s, ops);
			ck_assert_uint_le(n, WORK_MAX_OPS);
			for (size_t j = 0; j < n; j++)
				ck_assert_uint_ge(ops[j].kernels, 1);
			ck_assert_int_eq(work_embed_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
			ck_assert_int_eq(work_head_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
		}
	}
}
END_TEST

/* A model from a Hugging Face config.json of tests/data/hf/. */
static struct ts_model load_hf(const char *dir)
{
	char name[1200];
	snprintf(name, sizeof name, "hf:%s/tests/data/hf/%s/config.json", tu_root(), dir);
	return tu_model(name);
}

struct sums {
	double params, flops, saved;
	unsigned kernels, tp_fwd, tp_bwd;
	size_t n;
};

static struct sums layer_sums(const struct ts_model *m, const struct work_shape *s,
			      struct work_op *ops)
{
	struct sums x = {0};
	x.n = layer(m, s, ops);
	for (size_t i = 0; i < x.n; i++) {
		x.params += ops[i].params;
		x.flops += ops[i].fwd_flops;
		x.saved += ops[i].saved_bytes;
		x.kernels += ops[i].kernels;
		x.tp_fwd += ops[i].tp_fwd;
		x.tp_bwd += ops[i].tp_bwd;
	}
	return x;
}

/* Parallel blocks against the same model made sequential, b = 1, s = 2048,
 * t = 1, bf16 (2-byte activations), no flash:
 * - Falcon-7B (one shared LayerNorm, no dropout): QKV and fc1 run as one GEMM
 *   of width 4544 + 2·64 + 18176 = 22848; the second norm's input and fc1's
 *   input are not saved, 2 · 2·2048·4544 bytes less; one GEMM, one norm and
 *   one residual add fewer (3 kernels); one TP collective each way, not two.
 * - Pythia-1.4B (two LayerNorms of the same x, dropout): only the second
 *   norm's input, 2·2048·2048 bytes less; the residual masks are the same
 *   two; one collective forward, two backward.
 * Model FLOPs are the sequential block's; layer, embedding and head
 * parameters add up to ts_model_params (one norm fewer for Falcon). */
START_TEST(parallel_block_ops)
{
	static const struct {
		const char *dir;
		double saved_less;
		unsigned kernels_less, tp_fwd, tp_bwd;
	} cases[] = {{"falcon-7b", 2.0 * 2.0 * 2048.0 * 4544.0, 3, 1, 1},
		     {"pythia-1.4b", 2.0 * 2048.0 * 2048.0, 1, 1, 2}};
	for (size_t i = 0; i < 2; i++) {
		struct ts_model par = load_hf(cases[i].dir), seq = par;
		ck_assert(par.parallel_block);
		seq.parallel_block = false;
		seq.parallel_norms = 0;
		struct work_shape s = shape(1, 2048, 1, false);
		struct work_op ops[WORK_MAX_OPS];
		struct sums q = layer_sums(&seq, &s, ops);
		struct sums p = layer_sums(&par, &s, ops);
		ck_assert_msg(p.flops == q.flops, "%s", cases[i].dir);
		ck_assert(tu_relerr(p.flops, work_layer_flops_per_token(&par, 2048) * 2048.0) <
			  1e-12);
		ck_assert_msg(q.saved - p.saved == cases[i].saved_less, "%s: %.0f", cases[i].dir,
			      q.saved - p.saved);
		ck_assert_uint_eq(q.kernels - p.kernels, cases[i].kernels_less);
		ck_assert_uint_eq(q.tp_fwd, 2);
		ck_assert_uint_eq(q.tp_bwd, 2);
		ck_assert_uint_eq(p.tp_fwd, cases[i].tp_fwd);
		ck_assert_uint_eq(p.tp_bwd, cases[i].tp_bwd);
		size_t n;
		double ep = 0, hp = 0;
		ck_assert_int_eq(work_embed_ops(&par, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
		for (size_t j = 0; j < n; j++)
			ep += ops[j].params;
		ck_assert_int_eq(work_head_ops(&par, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
		for (size_t j = 0; j < n; j++)
			hp += ops[j].params;
		ck_assert(p.params * (double)par.layers + ep + hp == ts_model_params(&par));
		ck_assert(ts_model_params(&seq) - ts_model_params(&par) ==
			  (i == 0 ? 32.0 * 2.0 * 4544.0 : 0.0));
	}
	struct ts_model f = load_hf("falcon-7b");
	struct work_shape s = shape(1, 2048, 1, false);
	struct work_op ops[WORK_MAX_OPS];
	size_t n = layer(&f, &s, ops);
	const struct work_op *fused = find(ops, n, "qkv_fc1");
	ck_assert(fused->n == 4544.0 + 128.0 + 18176.0 && fused->k == 4544.0);
	ck_assert(fused->tp_bwd == 1 && find(ops, n, "fc2")->tp_fwd == 1);
	ck_assert(find(ops, n, "proj")->tp_fwd == 0);
	for (size_t j = 0; j < n; j++)
		ck_assert_msg(strcmp(ops[j].name, "fc1") && strcmp(ops[j].name, "norm2") &&
				  strcmp(ops[j].name, "resid1"),
			      "%s in a fused parallel block", ops[j].name);
}
END_TEST

/* ALiBi (Press et al. 2022) has no position parameters and no rotary kernel;
 * everything else equals the rotary model: BLOOM-176B with position = rope
 * has the same parameters and FLOPs and one "rope" op more; with learned
 * positions it has seq_len·h = 2048·14336 parameters more. */
/* DeepSeek-V3's ops (models/deepseek-v3.cfg; per-token forward FLOPs by
 * hand, s = 4096, h 7168, q = 128·192, v = 128·128):
 *   latent attention 2h·1536 + 2·1536·q + 2h·576 + 2·512·128·256 + 2v·h
 *                    + 2·s·(q + v)                         =   709,754,880
 *   MoE layer        attention + 9·6·h·2048 + 2·h·256      = 1,506,148,352
 *   dense layer      attention + 6·h·18432                 = 1,502,478,336
 *   MTP module       MoE layer + 4h² + 2·h·V               = 3,565,027,328
 *   step             3·(58 MoE + 3 dense + 2·h·V + MTP)    = 291,847,274,496
 * (97.3 GFLOP forward per token: 2.6 x 37.6B active parameters with the
 * attention at 4K). The layer ops' FLOPs sum to these on 1 and 8 TP ranks,
 * and their parameters (58 MoE layers and the MTP block, 3 dense layers,
 * embedding, head with the MTP projection and norms) to ts_model_params;
 * on t ranks each rank also runs the replicated latent down projection
 * (2h·(1536 + 512 + 64) per token) and router (2h·256) whole, (1 - 1/t) of
 * them beyond the model FLOPs / t. */
START_TEST(deepseek_v3_ops)
{
	struct ts_model m = tu_model("deepseek-v3");
	ck_assert_double_eq(work_layer_flops_per_token(&m, 4096), 1506148352.0);
	ck_assert_double_eq(work_dense_layer_flops_per_token(&m, 4096), 1502478336.0);
	ck_assert_double_eq(work_mtp_flops_per_token(&m, 4096), 3565027328.0);
	ck_assert_double_eq(work_model_flops_per_token(&m, 4096), 291847274496.0);
	struct ts_model dm;
	ck_assert(work_dense_model(&m, &dm));
	ck_assert_double_eq(work_layer_flops_per_token(&dm, 4096), 1502478336.0);
	for (int64_t tp = 1; tp <= 8; tp *= 8) {
		struct work_shape s = shape(1, 4096, tp, tp > 1);
		s.flash = true;
		struct work_op ops[WORK_MAX_OPS];
		const struct ts_model *which[2] = {&m, &dm};
		double per_token[2] = {1506148352.0, 1502478336.0};
		double lp[2] = {0.0, 0.0};
		for (int w = 0; w < 2; w++) {
			size_t n = layer(which[w], &s, ops);
			double sum = 0.0;
			for (size_t j = 0; j < n; j++) {
				sum += ops[j].fwd_flops;
				lp[w] += ops[j].params;
			}
			double t = (double)tp, h = 7168.0;
			double repl =
			    2.0 * h * (1536.0 + 512.0 + 64.0) + (w == 0 ? 2.0 * h * 256.0 : 0.0);
			double want = (per_token[w] / t + repl * (1.0 - 1.0 / t)) * 4096.0;
			ck_assert_msg(tu_relerr(sum, want) < 1e-12, "tp %lld: %.6e vs %.6e",
				      (long long)tp, sum, want);
			/* MoE: the shared experts and the attention each end in
			 * one forward all-reduce and start with one backward */
			unsigned f = 0, b = 0;
			for (size_t j = 0; j < n; j++) {
				f += ops[j].tp_fwd;
				b += ops[j].tp_bwd;
			}
			ck_assert_uint_eq(f, 2);
			ck_assert_uint_eq(b, 2);
		}
		if (tp > 1)
			continue;
		size_t n;
		double ep = 0.0, hp = 0.0;
		ck_assert_int_eq(work_embed_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
		for (size_t j = 0; j < n; j++)
			ep += ops[j].params;
		ck_assert_int_eq(work_head_ops(&m, &s, ops, WORK_MAX_OPS, &n, NULL), 0);
		for (size_t j = 0; j < n; j++)
			hp += ops[j].params;
		ck_assert_ptr_nonnull(find(ops, n, "mtp_logits"));
		double got = (61.0 - 3.0 + 1.0) * lp[0] + 3.0 * lp[1] + ep + hp;
		ck_assert_msg(got == ts_model_params(&m), "%.0f vs %.0f", got, ts_model_params(&m));
	}
}
END_TEST

START_TEST(alibi_no_position_work)
{
	struct ts_model a = load_hf("bloom"), r = a, l = a;
	ck_assert_int_eq(a.position, TS_POS_ALIBI);
	ck_assert_str_eq(ts_model_position_name(TS_POS_ALIBI), "alibi");
	r.position = TS_POS_ROPE;
	l.position = TS_POS_LEARNED;
	ck_assert(ts_model_params(&a) == ts_model_params(&r));
	ck_assert(ts_model_params(&l) - ts_model_params(&a) == 2048.0 * 14336.0);
	struct work_shape s = shape(1, 2048, 8, false);
	struct work_op ops[WORK_MAX_OPS];
	struct sums x = layer_sums(&a, &s, ops);
	for (size_t j = 0; j < x.n; j++)
		ck_assert_msg(strcmp(ops[j].name, "rope"), "rope op in an ALiBi model");
	struct sums y = layer_sums(&r, &s, ops);
	ck_assert(x.flops == y.flops && x.params == y.params);
	ck_assert_uint_eq(y.n, x.n + 1);
	ck_assert(work_model_flops_per_token(&a, 2048) == work_model_flops_per_token(&r, 2048));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ops");
	TCase *t = tu_tcase("ops");
	tcase_add_test(t, flops_gpt3_korthikanti);
	tcase_add_test(t, flops_llama2_70b);
	tcase_add_test(t, flops_bert_large);
	tcase_add_test(t, mlm_head_masked);
	tcase_add_test(t, flops_attention_core);
	tcase_add_loop_test(t, layer_ops_sum_to_model_flops, 0,
			    (int)(sizeof split_cases / sizeof split_cases[0]));
	tcase_add_test(t, params_add_up);
	tcase_add_test(t, tp_splits_params);
	tcase_add_test(t, gqa_replicates_kv_heads);
	tcase_add_test(t, head_and_embed_saved);
	tcase_add_test(t, flash_saved);
	tcase_add_test(t, op_sac_llama3_8b);
	tcase_add_test(t, op_sac_gpt_fused_qkv);
	tcase_add_test(t, bad_shapes);
	tcase_add_test(t, op_lists_fit);
	tcase_add_test(t, parallel_block_ops);
	tcase_add_test(t, alibi_no_position_work);
	tcase_add_test(t, deepseek_v3_ops);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
