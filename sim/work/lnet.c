/* Layer-list models: parsing, and one walk over the list that yields every
 * op with its shape, FLOPs, bytes, parameters and saved activations.
 * SPDX-License-Identifier: MIT */

/* The walk keeps the shape of one sample: channels x height x width in
 * the convolutional part, tokens x width after a patch embedding. Each
 * entry turns into ops (a bottleneck block into its three convolutions,
 * norms, activations, the projection shortcut of its first block and the
 * residual add); the same walk counts parameters and FLOPs (batch 1, not
 * stored), checks that an entry fits the shape before it (at parse time),
 * and fills the op list of a micro-batch. */
#define _POSIX_C_SOURCE 200809L

#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/cfg.h"
#include "base/suggest.h"
#include "work/lnet.h"

static const char *const op_names[TS_LOP_COUNT_] = {
    "conv",   "bn",	   "relu",	 "maxpool",	 "avgpool",	"linear",  "bottleneck",
    "patch",  "encoder",   "layernorm",	 "latent_patch", "dit_cond",	"dit",	   "dit_final",
    "tokens", "conformer", "transducer", "text",	 "contrastive", "unet_in", "unet_cond",
    "res",    "res_cat",   "xattn",	 "push",	 "down",	"up",	   "unet_out"};

/* ---- the walk ------------------------------------------------------------ */

struct walk {
	const struct ts_model *m;
	double b;	  /* samples */
	double e, ew;	  /* activation and weight bytes per element */
	bool flash;	  /* attention as flash */
	bool transpose;	  /* NCHW activations around tensor-core convolutions */
	bool tokens;	  /* after a patch embedding */
	double C, H, W;	  /* image shape per sample */
	double T, D;	  /* tokens and width per sample */
	double gh, gw, p; /* patch grid and patch size of a latent_patch */
	double dp;	  /* data-parallel ranks a contrastive loss gathers over */
	double tW;	  /* width of a text tower's output; 0 before one */
	double temb;	  /* width of a UNet's time embedding; 0 before unet_cond */
	double skip[TS_MAX_LAYER_ENTRIES][3]; /* skips kept: channels, height, width */
	uint32_t nskip;
	bool first_conv; /* no conv seen yet: no input gradient */
	bool in_saved;	 /* the current tensor is already saved for backward by the op
			  * that made it (an in-place ReLU keeps its output): an op
			  * that saves it again shares the storage, PyTorch's saved
			  * tensors being references */
	uint32_t block;
	/* sinks */
	struct work_lnet_op *ops;
	size_t n, cap;
	bool store;
	int rc;
	double params, flops;
	const struct ts_layer *bad; /* entry that does not fit */
	char why[160];
	char bad_dim;		 /* 'h' or 'w' when the image's size made it not fit */
	double bad_at, bad_need; /* that size at the entry, and the size it needs */
};

static void emit(struct walk *w, const struct work_op *op)
{
	w->params += op->params;
	w->flops += op->fwd_flops;
	if (!w->store || w->rc)
		return;
	if (ts_grow((void **)&w->ops, &w->cap, w->n + 1, sizeof *w->ops)) {
		w->rc = TS_ENOMEM;
		return;
	}
	memset(&w->ops[w->n], 0, sizeof w->ops[w->n]);
	w->ops[w->n].c.op = *op;
	w->ops[w->n].block = w->block;
	w->n++;
}

/* A GEMM with weights: Y[m x n] = X[m x k] W[k x n]; in/out elements of its
 * activations. */
static void gemm(struct walk *w, const char *name, double m, double n, double k, double params,
		 double in, double out)
{
	struct work_op op = {.kind = WORK_GEMM, .m = m, .n = n, .k = k, .batch = 1.0};
	snprintf(op.name, sizeof op.name, "%s", name);
	double f = 2.0 * m * n * k;
	op.fwd_flops = f;
	op.dgrad_flops = w->first_conv ? 0.0 : f;
	op.wgrad_flops = f;
	op.fwd_bytes = (in + out) * w->e + params * w->ew;
	op.dgrad_bytes = w->first_conv ? 0.0 : (in + out) * w->e + params * w->ew;
	op.wgrad_bytes = (in + out) * w->e + params * w->ew;
	op.params = params;
	op.saved_bytes = in * w->e;
	op.kernels = 1;
	op.bwd_kernels = w->first_conv ? 1 : 2;
	emit(w, &op);
}

/* A memory-bound op over `elems` elements: fwd and bwd passes over them. */
static void mem(struct walk *w, const char *name, double elems, double fwd, double bwd,
		double params, double saved)
{
	struct work_op op = {.kind = WORK_MEMBOUND, .batch = 1.0};
	snprintf(op.name, sizeof op.name, "%s", name);
	op.fwd_bytes = fwd * elems * w->e;
	op.dgrad_bytes = bwd * elems * w->e;
	op.params = params;
	op.saved_bytes = saved * w->e;
	op.kernels = 1;
	op.bwd_kernels = 1;
	emit(w, &op);
	w->in_saved = false; /* its output is a new tensor */
}

static double img(const struct walk *w)
{
	return w->b * w->C * w->H * w->W;
}

static void conv(struct walk *w, double out, double k, double s)
{
	double Ho = ceil(w->H / s), Wo = ceil(w->W / s);
	double in = img(w), params = w->C * k * k * out, o = w->b * out * Ho * Wo;
	bool first = w->first_conv;
	size_t at = w->n;
	gemm(w, "conv", w->b * Ho * Wo, out, w->C * k * k, params, in, o);
	if (w->in_saved && w->store && !w->rc && w->n == at + 1) {
		w->ops[at].shared_in_bytes = w->ops[at].c.op.saved_bytes;
		w->ops[at].c.op.saved_bytes = 0.0;
	}
	w->in_saved = false;
	if (w->transpose && w->store && !w->rc && w->n == at + 1) {
		/* one copy in and one out per phase, each a read and a write */
		struct work_lnet_op *x = &w->ops[at];
		x->transpose_bytes = 2.0 * (in + o) * w->e;
		x->c.op.kernels += 2;
		x->c.op.bwd_kernels += first ? 2 : 4;
	}
	w->first_conv = false;
	w->C = out;
	w->H = Ho;
	w->W = Wo;
}

static void bn(struct walk *w)
{
	/* statistics pass + normalise pass forward; two passes over x and dy
	 * backward plus the write of dx */
	mem(w, "bn", img(w), 3.0, 5.0, 2.0 * w->C, img(w));
}

static void relu(struct walk *w)
{
	mem(w, "relu", img(w), 2.0, 3.0, 0.0, img(w));
	w->in_saved = true;
}

static void bottleneck(struct walk *w, double mid, double out, double stride)
{
	double C0 = w->C, H0 = w->H, W0 = w->W;
	conv(w, mid, 1.0, 1.0); /* saves the block input (unless already saved) */
	bn(w);
	relu(w);
	conv(w, mid, 3.0, stride); /* v1.5: the stride sits in the 3x3 conv */
	bn(w);
	relu(w);
	conv(w, out, 1.0, 1.0);
	bn(w);
	if (C0 != out || stride != 1.0) { /* projection shortcut */
		double C1 = w->C, H1 = w->H, W1 = w->W;
		w->C = C0;
		w->H = H0;
		w->W = W0;
		w->in_saved = true; /* the block input, saved by its first conv */
		conv(w, out, 1.0, stride);
		bn(w);
		w->C = C1;
		w->H = H1;
		w->W = W1;
	}
	mem(w, "add", img(w), 3.0, 0.0, 0.0, 0.0);
	relu(w);
}

/* Self-attention over the w->T tokens of width w->D in `heads` heads. */
static void attn_core(struct walk *w, double heads)
{
	double b = w->b, T = w->T, D = w->D, x = b * T * D;
	struct work_op a = {.m = T, .n = T, .k = D / heads, .batch = b * heads};
	snprintf(a.name, sizeof a.name, "attn");
	a.fwd_flops = 4.0 * b * T * T * D;
	if (w->flash) {
		a.kind = WORK_ATTN_FLASH;
		a.dgrad_flops = 2.5 * a.fwd_flops;
		a.fwd_bytes = 4.0 * x * w->e;
		a.dgrad_bytes = 8.0 * x * w->e;
		a.saved_bytes = 4.0 * x * w->e;
	} else {
		double sc = b * heads * T * T;
		a.kind = WORK_ATTN_CORE;
		a.dgrad_flops = 2.0 * a.fwd_flops;
		a.fwd_bytes = 2.0 * sc * w->e;
		a.dgrad_bytes = 3.0 * sc * w->e;
		a.saved_bytes = (sc + 3.0 * x) * w->e;
	}
	a.kernels = w->flash ? 1 : 3;
	a.bwd_kernels = w->flash ? 1 : 4;
	emit(w, &a);
}

static void encoder(struct walk *w, double heads, double f)
{
	double b = w->b, T = w->T, D = w->D, x = b * T * D;
	mem(w, "ln", x, 3.0, 5.0, 2.0 * D, x);
	gemm(w, "qkv", b * T, 3.0 * D, D, 3.0 * D * D + 3.0 * D, x, 3.0 * x);
	attn_core(w, heads);
	gemm(w, "proj", b * T, D, D, D * D + D, x, x);
	mem(w, "add", x, 3.0, 0.0, 0.0, 0.0);
	mem(w, "ln", x, 3.0, 5.0, 2.0 * D, x);
	gemm(w, "fc1", b * T, f, D, D * f + f, x, b * T * f);
	mem(w, "gelu", b * T * f, 2.0, 3.0, 0.0, b * T * f);
	gemm(w, "fc2", b * T, D, f, f * D + D, b * T * f, x);
	mem(w, "add", x, 3.0, 0.0, 0.0, 0.0);
}

/* A DiT block with adaLN-Zero (Peebles and Xie 2023, "Scalable Diffusion
 * Models with Transformers", https://arxiv.org/abs/2212.09748, section 3.2
 * and Figure 3): the conditioning c (D per sample) is regressed through SiLU
 * and a linear layer into 6 D shift, scale and gate values; each of the two
 * sublayers is a LayerNorm without affine parameters, a modulation
 * x·(1 + scale) + shift, the sublayer (attention; an MLP of f with GeLU),
 * and a gated residual add. Parameters 4D² + 4D (attention) + 2Df + f + D
 * (MLP) + 6D² + 6D (adaLN); FLOPs per sample 2·(12D²T + 2T²D + 6D²) with
 * f = 4D: the paper's 118.6 Gflops of DiT-XL/2 count multiply-adds. */
static void dit_block(struct walk *w, double heads, double f)
{
	double b = w->b, T = w->T, D = w->D, x = b * T * D;
	gemm(w, "adaln", b, 6.0 * D, D, 6.0 * D * D + 6.0 * D, b * D, 6.0 * b * D);
	mem(w, "ln", x, 3.0, 5.0, 0.0, x);
	mem(w, "modulate", x, 2.0, 3.0, 0.0, 0.0);
	gemm(w, "qkv", b * T, 3.0 * D, D, 3.0 * D * D + 3.0 * D, x, 3.0 * x);
	attn_core(w, heads);
	gemm(w, "proj", b * T, D, D, D * D + D, x, x);
	mem(w, "gate_add", x, 3.0, 4.0, 0.0, x);
	mem(w, "ln", x, 3.0, 5.0, 0.0, x);
	mem(w, "modulate", x, 2.0, 3.0, 0.0, 0.0);
	gemm(w, "fc1", b * T, f, D, D * f + f, x, b * T * f);
	mem(w, "gelu", b * T * f, 2.0, 3.0, 0.0, b * T * f);
	gemm(w, "fc2", b * T, D, f, f * D + D, b * T * f, x);
	mem(w, "gate_add", x, 3.0, 4.0, 0.0, x);
}

/* DiT's conditioning (section 3.2): the timestep's sine-cosine embedding of
 * `freq` elements through a two-layer MLP (SiLU between) to D, and the
 * class label's row of a table of `classes` x D (classes + 1 rows with the
 * null class of classifier-free guidance), summed into c. */
static void dit_cond(struct walk *w, double classes, double freq)
{
	double b = w->b, D = w->D;
	gemm(w, "t_embed", b, D, freq, freq * D + D, b * freq, b * D);
	mem(w, "silu", b * D, 2.0, 3.0, 0.0, b * D);
	gemm(w, "t_mlp", b, D, D, D * D + D, b * D, b * D);
	mem(w, "y_embed", b * D, 3.0, 2.0, classes * D, 0.0);
}

/* DiT's final layer: adaLN (shift and scale, 2D), LayerNorm, modulation and
 * a linear layer to p²·out per token, rearranged into an image of `out`
 * channels (DiT predicts noise and variance: twice the latent's channels). */
static void dit_final(struct walk *w, double p, double out)
{
	double b = w->b, T = w->T, D = w->D, x = b * T * D, n = p * p * out;
	gemm(w, "adaln", b, 2.0 * D, D, 2.0 * D * D + 2.0 * D, b * D, 2.0 * b * D);
	mem(w, "ln", x, 3.0, 5.0, 0.0, x);
	mem(w, "modulate", x, 2.0, 3.0, 0.0, 0.0);
	gemm(w, "final", b * T, n, D, D * n + n, x, b * T * n);
	w->tokens = false;
	w->C = out;
	w->H = w->gh * w->p;
	w->W = w->gw * w->p;
}

/* Conformer (Gulati et al. 2020, "Conformer: Convolution-augmented
 * Transformer for Speech Recognition", https://arxiv.org/abs/2005.08100,
 * section 2 and Figures 1-4): two half-step feed-forward modules (LayerNorm,
 * D -> f, Swish, f -> D) around multi-head self-attention with relative
 * sinusoidal positions (Transformer-XL: a D x D projection of the 2T - 1
 * relative positions and two D-wide biases; the scores QK^T and the position
 * scores QP^T, so 2·T²·D multiply-adds more than plain attention, unfused)
 * and a convolution module (LayerNorm, pointwise D -> 2D, GLU, depthwise
 * convolution of kernel K along time, BatchNorm, Swish, pointwise D -> D),
 * then a LayerNorm. Parameters 24D² + (K + 32)·D. The depthwise
 * convolution (2·T·D·K FLOPs, 0.3 % of a block at D 512) is timed by its
 * bytes and carries no model FLOPs. */
static void ffn_half(struct walk *w, double f)
{
	double b = w->b, T = w->T, D = w->D, x = b * T * D;
	mem(w, "ln", x, 3.0, 5.0, 2.0 * D, x);
	gemm(w, "ffn1", b * T, f, D, D * f + f, x, b * T * f);
	mem(w, "swish", b * T * f, 2.0, 3.0, 0.0, b * T * f);
	gemm(w, "ffn2", b * T, D, f, f * D + D, b * T * f, x);
	mem(w, "add", x, 3.0, 1.0, 0.0, 0.0);
}

static void conformer(struct walk *w, double heads, double f, double K)
{
	double b = w->b, T = w->T, D = w->D, x = b * T * D;
	ffn_half(w, f);
	/* self-attention with relative positions */
	mem(w, "ln", x, 3.0, 5.0, 2.0 * D, x);
	gemm(w, "qkv", b * T, 3.0 * D, D, 3.0 * D * D + 3.0 * D, x, 3.0 * x);
	gemm(w, "pos", 2.0 * T - 1.0, D, D, D * D + 2.0 * D, (2.0 * T - 1.0) * D,
	     (2.0 * T - 1.0) * D);
	double sc = b * heads * T * T;
	struct work_op a = {
	    .kind = WORK_ATTN_CORE, .m = T, .n = T, .k = D / heads, .batch = b * heads};
	snprintf(a.name, sizeof a.name, "attn_relpos");
	a.fwd_flops = 6.0 * b * T * T * D; /* QK^T, QP^T, AV */
	a.dgrad_flops = 2.0 * a.fwd_flops;
	a.fwd_bytes = 3.0 * sc * w->e; /* two score tensors summed, softmax */
	a.dgrad_bytes = 4.0 * sc * w->e;
	a.saved_bytes = (sc + 4.0 * x) * w->e;
	a.kernels = 5;
	a.bwd_kernels = 7;
	emit(w, &a);
	gemm(w, "proj", b * T, D, D, D * D + D, x, x);
	mem(w, "add", x, 3.0, 1.0, 0.0, 0.0);
	/* convolution module */
	mem(w, "ln", x, 3.0, 5.0, 2.0 * D, x);
	gemm(w, "pw1", b * T, 2.0 * D, D, 2.0 * D * D + 2.0 * D, x, 2.0 * x);
	mem(w, "glu", x, 3.0, 4.0, 0.0, 2.0 * x);
	mem(w, "depthwise", x, 2.0, 4.0, D * K + D, x);
	mem(w, "bn", x, 3.0, 5.0, 2.0 * D, x);
	mem(w, "swish", x, 2.0, 3.0, 0.0, x);
	gemm(w, "pw2", b * T, D, D, D * D + D, x, x);
	mem(w, "add", x, 3.0, 1.0, 0.0, 0.0);
	ffn_half(w, f);
	mem(w, "ln", x, 3.0, 5.0, 2.0 * D, x);
}

/* An RNN transducer's prediction and joint networks (Graves 2012,
 * https://arxiv.org/abs/1211.3711; the Conformer paper's single-LSTM
 * decoder, section 3.1): the U labels' embeddings (V x H), one LSTM layer
 * of H (the input projection for all steps at once, then the recurrent
 * GEMM step by step: U launches; its serial dependency is not modelled
 * beyond them), projections of the T encoder frames and the U prediction
 * states to H, tanh of their sum over every (frame, label) pair, a linear
 * H -> V there, and the transducer loss over the T·U·V logits
 * (memory-bound). Parameters V·H + 8H² + 8H + D·H + H + H² + H + H·V + V. */
static void transducer(struct walk *w, double V, double H, double U)
{
	double b = w->b, T = w->T, D = w->D;
	mem(w, "label_embed", b * U * H, 3.0, 2.0, V * H, 0.0);
	gemm(w, "lstm_x", b * U, 4.0 * H, H, 4.0 * H * H + 8.0 * H, b * U * H, 4.0 * b * U * H);
	struct work_op r = {.kind = WORK_GEMM, .m = b, .n = 4.0 * H, .k = H, .batch = U};
	snprintf(r.name, sizeof r.name, "lstm_h");
	r.fwd_flops = r.dgrad_flops = r.wgrad_flops = 2.0 * b * 4.0 * H * H * U;
	r.fwd_bytes = r.dgrad_bytes = r.wgrad_bytes =
	    (U * (b * H + 4.0 * b * H) + 4.0 * H * H) * w->e;
	r.params = 4.0 * H * H;
	r.saved_bytes = 6.0 * b * U * H * w->e; /* states and gates */
	r.kernels = (uint32_t)U;
	r.bwd_kernels = 2u * (uint32_t)U;
	emit(w, &r);
	gemm(w, "enc_proj", b * T, H, D, D * H + H, b * T * D, b * T * H);
	gemm(w, "pred_proj", b * U, H, H, H * H + H, b * U * H, b * U * H);
	double J = b * T * U; /* (frame, label) pairs */
	mem(w, "joint_tanh", J * H, 3.0, 3.0, 0.0, J * H);
	gemm(w, "joint_out", J, V, H, H * V + V, J * H, J * V);
	mem(w, "rnnt_loss", J * V, 4.0, 4.0, 0.0, J * V);
	w->tokens = false;
	w->C = V;
	w->H = w->W = 1.0;
}

/* Block r of a CLIP text tower (Radford et al. 2021, "Learning Transferable
 * Visual Models From Natural Language Supervision",
 * https://arxiv.org/abs/2103.00020, section 2.4): `context` tokens of
 * `width` W embedded from a table of `out` rows with learned positions
 * (first block), pre-LN transformer blocks (the encoder's ops; its causal
 * mask halves no FLOPs here), a final LayerNorm (last block). The image
 * tower's token state is kept aside meanwhile. */
static void text_block(struct walk *w, const struct ts_layer *l, int32_t r)
{
	double T0 = w->T, D0 = w->D, b = w->b;
	double W = l->width, ctx = l->context;
	w->T = ctx;
	w->D = W;
	if (r == 0) {
		mem(w, "token_embed", b * ctx * W, 3.0, 2.0, (double)l->out * W, 0.0);
		mem(w, "text_pos", b * ctx * W, 3.0, 1.0, ctx * W, 0.0);
	}
	encoder(w, l->heads, l->mid);
	if (r == l->repeat - 1) {
		mem(w, "ln", b * ctx * W, 3.0, 5.0, 2.0 * W, b * ctx * W);
		w->tW = W;
	}
	w->T = T0;
	w->D = D0;
}

/* CLIP's contrastive loss (section 2.3 and Figure 3; "each GPU computes
 * only the subset of pairwise similarities necessary for its local batch
 * of embeddings", section 2.5): the image tower's class token (width D)
 * and the text tower's end token (width tW) projected to E without bias
 * and normalised; every rank's embeddings all-gathered over the dp
 * data-parallel ranks (b·E per tower; the reduce-scatter of their
 * gradients in backward: sim/par/pipe.c); the logits of the b local images
 * against the B = b·dp texts and of the b local texts against the B images
 * (no weights: backward computes the gradients of both operands), the
 * temperature (1 parameter) and the two cross-entropies over 2·b·B logits.
 * work_lnet_fwd_flops (batch 1) counts each sample against its own pair;
 * the simulated ops count the whole b x B. */
static void contrastive(struct walk *w, double E)
{
	double b = w->b, D = w->D, W = w->tW, B = w->b * w->dp;
	gemm(w, "img_proj", b, E, D, D * E, b * D, b * E);
	gemm(w, "txt_proj", b, E, W, W * E, b * W, b * E);
	size_t at = w->n;
	mem(w, "normalize", 2.0 * b * E, 3.0, 4.0, 0.0, 2.0 * b * E);
	if (w->store && !w->rc && w->n == at + 1)
		w->ops[at].c.op.dp_gather_bytes = 2.0 * b * E * w->e;
	struct work_op op = {.kind = WORK_GEMM, .m = b, .n = B, .k = E, .batch = 2.0};
	snprintf(op.name, sizeof op.name, "clip_logits");
	op.fwd_flops = 2.0 * 2.0 * b * B * E;
	op.dgrad_flops = 2.0 * op.fwd_flops;
	op.fwd_bytes = 2.0 * (b * E + B * E + b * B) * w->e;
	op.dgrad_bytes = 2.0 * op.fwd_bytes;
	op.saved_bytes = 2.0 * (b + B) * E * w->e;
	op.kernels = 2;
	op.bwd_kernels = 4;
	emit(w, &op);
	mem(w, "clip_loss", 2.0 * b * B, 4.0, 3.0, 1.0, 2.0 * b * B);
	w->tokens = false;
	w->C = E;
	w->H = w->W = 1.0;
}

/* ---- the SDXL UNet (Podell et al. 2023, https://arxiv.org/abs/2307.01952) */

/* A convolution with a bias of `out` (the UNet's convolutions have them). */
static void conv_bias(struct walk *w, double out, double k, double s)
{
	double Ho = ceil(w->H / s), Wo = ceil(w->W / s);
	double in = img(w), o = w->b * out * Ho * Wo;
	gemm(w, "conv", w->b * Ho * Wo, out, w->C * k * k, w->C * k * k * out + out, in, o);
	w->first_conv = false;
	w->C = out;
	w->H = Ho;
	w->W = Wo;
}

/* GroupNorm (statistics and normalise passes, as batch norm) and SiLU. */
static void gn_silu(struct walk *w)
{
	mem(w, "gn", img(w), 3.0, 5.0, 2.0 * w->C, img(w));
	mem(w, "silu", img(w), 2.0, 3.0, 0.0, img(w));
}

/* A ResNet block of the UNet (diffusers' ResnetBlock2D): GroupNorm, SiLU,
 * 3x3 convolution to out, the time embedding projected to out and added,
 * GroupNorm, SiLU, 3x3 convolution, and a 1x1 shortcut when the channels
 * change; the input may carry `skip` channels concatenated from the down
 * path. Parameters 2·Ci + 9·Ci·Co + Co + temb·Co + Co + 2·Co + 9·Co² + Co
 * (+ Ci·Co + Co). */
static void unet_res(struct walk *w, double out)
{
	double Ci = w->C, H = w->H, W = w->W, b = w->b;
	gn_silu(w);
	conv_bias(w, out, 3.0, 1.0);
	gemm(w, "temb_proj", b, out, w->temb, w->temb * out + out, b * w->temb, b * out);
	mem(w, "temb_add", img(w), 3.0, 1.0, 0.0, 0.0);
	gn_silu(w);
	conv_bias(w, out, 3.0, 1.0);
	if (Ci != out) {
		double C1 = w->C;
		w->C = Ci;
		w->H = H;
		w->W = W;
		conv_bias(w, out, 1.0, 1.0);
		w->C = C1;
	}
	mem(w, "add", img(w), 3.0, 1.0, 0.0, 0.0);
}

/* Attention of nq query tokens against nk key tokens of width C in `heads`
 * heads (flash at fp16/bf16). */
static void unet_attn_core(struct walk *w, const char *name, double nq, double nk, double C,
			   double heads)
{
	double b = w->b, q = b * nq * C, kv = b * nk * C;
	struct work_op a = {.m = nq, .n = nk, .k = C / heads, .batch = b * heads};
	snprintf(a.name, sizeof a.name, "%s", name);
	a.fwd_flops = 4.0 * b * nq * nk * C;
	if (w->flash) {
		a.kind = WORK_ATTN_FLASH;
		a.dgrad_flops = 2.5 * a.fwd_flops;
		a.fwd_bytes = (2.0 * q + 2.0 * kv) * w->e;
		a.dgrad_bytes = 2.0 * a.fwd_bytes;
		a.saved_bytes = (2.0 * q + 2.0 * kv) * w->e;
	} else {
		double sc = b * heads * nq * nk;
		a.kind = WORK_ATTN_CORE;
		a.dgrad_flops = 2.0 * a.fwd_flops;
		a.fwd_bytes = 2.0 * sc * w->e;
		a.dgrad_bytes = 3.0 * sc * w->e;
		a.saved_bytes = (sc + q + 2.0 * kv) * w->e;
	}
	a.kernels = w->flash ? 1 : 3;
	a.bwd_kernels = w->flash ? 1 : 4;
	emit(w, &a);
}

/* Block r of a UNet transformer (diffusers' Transformer2DModel with
 * BasicTransformerBlocks, linear projections): on the first, GroupNorm and
 * proj_in over the H·W tokens of the image's C channels; each block
 * self-attention (q, k, v without bias), cross-attention to the text
 * encoders' `ctx` tokens of width Dc (k, v from them), and a GEGLU
 * feed-forward of 4C; on the last, proj_out and the residual add.
 * Parameters per block 2C + 4C² + C + 2C + 2C² + 2·Dc·C + C + 2C + 12C² + 9C,
 * and 2C + 2C² + 2C once. */
static void unet_xattn(struct walk *w, const struct ts_layer *l, int32_t r)
{
	double b = w->b, C = w->C, N = w->H * w->W, x = b * N * C;
	double ctx = l->context, Dc = l->width, heads = l->heads;
	if (r == 0) {
		mem(w, "gn", x, 3.0, 5.0, 2.0 * C, x);
		gemm(w, "proj_in", b * N, C, C, C * C + C, x, x);
	}
	mem(w, "ln", x, 3.0, 5.0, 2.0 * C, x);
	gemm(w, "qkv", b * N, 3.0 * C, C, 3.0 * C * C, x, 3.0 * x);
	unet_attn_core(w, "self_attn", N, N, C, heads);
	gemm(w, "attn_out", b * N, C, C, C * C + C, x, x);
	mem(w, "add", x, 3.0, 1.0, 0.0, 0.0);
	mem(w, "ln", x, 3.0, 5.0, 2.0 * C, x);
	gemm(w, "q", b * N, C, C, C * C, x, x);
	gemm(w, "kv_ctx", b * ctx, 2.0 * C, Dc, 2.0 * Dc * C, b * ctx * Dc, 2.0 * b * ctx * C);
	unet_attn_core(w, "cross_attn", N, ctx, C, heads);
	gemm(w, "attn_out", b * N, C, C, C * C + C, x, x);
	mem(w, "add", x, 3.0, 1.0, 0.0, 0.0);
	mem(w, "ln", x, 3.0, 5.0, 2.0 * C, x);
	gemm(w, "ff1", b * N, 8.0 * C, C, 8.0 * C * C + 8.0 * C, x, 8.0 * x);
	mem(w, "geglu", 4.0 * x, 3.0, 5.0, 0.0, 8.0 * x);
	gemm(w, "ff2", b * N, C, 4.0 * C, 4.0 * C * C + C, 4.0 * x, x);
	mem(w, "add", x, 3.0, 1.0, 0.0, 0.0);
	if (r == l->repeat - 1) {
		gemm(w, "proj_out", b * N, C, C, C * C + C, x, x);
		mem(w, "add", x, 3.0, 1.0, 0.0, 0.0);
	}
}

/* SDXL's conditioning (section 2.2): the timestep's sinusoidal embedding of
 * `freq` channels through a two-layer MLP (SiLU) to `out`, and the pooled
 * text embedding with the size and crop conditionings (`width` in all,
 * 2816) through another, added: per sample, tiny. */
static void unet_cond(struct walk *w, double out, double freq, double add)
{
	double b = w->b;
	gemm(w, "time_mlp1", b, out, freq, freq * out + out, b * freq, b * out);
	gemm(w, "time_mlp2", b, out, out, out * out + out, b * out, b * out);
	gemm(w, "add_mlp1", b, out, add, add * out + out, b * add, b * out);
	gemm(w, "add_mlp2", b, out, out, out * out + out, b * out, b * out);
	w->temb = out;
}

static bool fail_fit(struct walk *w, const struct ts_layer *l, const char *why)
{
	w->bad = l;
	snprintf(w->why, sizeof w->why, "%s", why);
	return false;
}

/* An entry whose kernel k (stride s) meets an image of w->H x w->W: false
 * (w->bad, w->why, w->bad_dim) when the kernel is larger than the image or,
 * for a patch embedding, does not tile it; an empty output is never built. */
static bool fits_image(struct walk *w, const struct ts_layer *l, double k, bool tile)
{
	for (int d = 0; d < 2; d++) {
		double x = d ? w->W : w->H;
		const char *nm = d ? "width" : "height";
		char why[160];
		if (tile ? fmod(x, k) == 0.0 : k <= x)
			continue;
		if (tile)
			snprintf(why, sizeof why,
				 "an image %s of %.0f that a patch of %.0f does not divide", nm, x,
				 k);
		else
			snprintf(why, sizeof why,
				 "an image %s of %.0f smaller than the kernel of %.0f", nm, x, k);
		w->bad_dim = d ? 'w' : 'h';
		w->bad_at = x;
		w->bad_need = k;
		return fail_fit(w, l, why);
	}
	return true;
}

/* Walk the whole list; false (w->bad, w->why) when an entry does not fit. */
static bool walk_all(struct walk *w)
{
	const struct ts_model *m = w->m;
	w->C = m->in_c;
	w->H = m->in_h;
	w->W = m->in_w;
	w->tokens = false;
	w->first_conv = true;
	w->in_saved = false;
	for (uint32_t i = 0; i < m->nlnet && !w->rc; i++) {
		const struct ts_layer *l = &m->lnet[i];
		bool image = l->op == TS_LOP_CONV || l->op == TS_LOP_BN ||
			     l->op == TS_LOP_MAXPOOL || l->op == TS_LOP_AVGPOOL ||
			     l->op == TS_LOP_BOTTLENECK || l->op == TS_LOP_PATCH ||
			     l->op == TS_LOP_LATENT_PATCH || l->op == TS_LOP_UNET_IN ||
			     l->op == TS_LOP_RES || l->op == TS_LOP_RES_CAT ||
			     l->op == TS_LOP_XATTN || l->op == TS_LOP_DOWN || l->op == TS_LOP_UP ||
			     l->op == TS_LOP_UNET_OUT;
		if (image && w->tokens)
			return fail_fit(w, l, "an image op after the patch embedding");
		if ((l->op == TS_LOP_ENCODER || l->op == TS_LOP_LAYERNORM ||
		     l->op == TS_LOP_DIT_COND || l->op == TS_LOP_DIT || l->op == TS_LOP_DIT_FINAL ||
		     l->op == TS_LOP_CONFORMER || l->op == TS_LOP_TRANSDUCER ||
		     l->op == TS_LOP_TEXT || l->op == TS_LOP_CONTRASTIVE) &&
		    !w->tokens)
			return fail_fit(w, l, "a token op before a patch embedding");
		if ((l->op == TS_LOP_DIT_COND || l->op == TS_LOP_DIT ||
		     l->op == TS_LOP_DIT_FINAL) &&
		    !(w->p > 0.0))
			return fail_fit(w, l,
					"a DiT op after a ViT patch embedding (expected "
					"latent_patch)");
		for (int32_t r = 0; r < (l->repeat > 0 ? l->repeat : 1); r++) {
			w->block++;
			switch (l->op) {
			case TS_LOP_CONV:
				if (!fits_image(w, l, l->kernel, false))
					return false;
				conv(w, l->out, l->kernel, l->stride);
				break;
			case TS_LOP_BN:
				bn(w);
				break;
			case TS_LOP_RELU:
				if (w->tokens)
					mem(w, "relu", w->b * w->T * w->D, 2.0, 3.0, 0.0,
					    w->b * w->T * w->D);
				else
					relu(w);
				break;
			case TS_LOP_LAYERNORM:
				mem(w, "ln", w->b * w->T * w->D, 3.0, 5.0, 2.0 * w->D,
				    w->b * w->T * w->D);
				break;
			case TS_LOP_MAXPOOL: {
				if (!fits_image(w, l, l->kernel, false))
					return false;
				/* saves its input (shared with the ReLU before it) and
				 * the int64 index of every output element
				 * (max_pool2d_with_indices) */
				double in = img(w), shared = w->in_saved ? 0.0 : in;
				w->H = ceil(w->H / l->stride);
				w->W = ceil(w->W / l->stride);
				mem(w, "maxpool", in + img(w), 1.0, 1.0, 0.0,
				    shared + img(w) * 8.0 / w->e);
				w->in_saved = false;
				break;
			}
			case TS_LOP_AVGPOOL: {
				double in = img(w);
				w->H = w->W = 1.0;
				mem(w, "avgpool", in + img(w), 1.0, 1.0, 0.0, 0.0);
				break;
			}
			case TS_LOP_LINEAR: {
				double k = w->tokens ? w->D : w->C * w->H * w->W;
				gemm(w, "linear", w->b, l->out, k, k * l->out + l->out, w->b * k,
				     w->b * l->out);
				w->tokens = false;
				w->C = l->out;
				w->H = w->W = 1.0;
				break;
			}
			case TS_LOP_BOTTLENECK:
				if (!fits_image(w, l, 3.0, false)) /* its 3x3 convolution */
					return false;
				bottleneck(w, l->mid, l->out, r == 0 ? l->stride : 1.0);
				break;
			case TS_LOP_PATCH: {
				double p = l->kernel;
				if (!fits_image(w, l, p, true))
					return false;
				double np = (w->H / p) * (w->W / p), D = l->out;
				gemm(w, "patch", w->b * np, D, w->C * p * p,
				     w->C * p * p * D + D + (np + 2.0) * D, img(w), w->b * np * D);
				w->first_conv = false;
				w->tokens = true;
				w->T = np + 1.0;
				w->D = D;
				mem(w, "pos", w->b * w->T * w->D, 3.0, 1.0, 0.0, 0.0);
				break;
			}
			case TS_LOP_ENCODER:
				if (fmod(w->D, l->heads) != 0.0)
					return fail_fit(w, l, "heads that do not divide the width");
				encoder(w, l->heads, l->mid);
				break;
			case TS_LOP_LATENT_PATCH: {
				double p = l->kernel;
				if (!fits_image(w, l, p, true))
					return false;
				w->gh = w->H / p;
				w->gw = w->W / p;
				w->p = p;
				double np = w->gh * w->gw, D = l->out;
				gemm(w, "patch", w->b * np, D, w->C * p * p, w->C * p * p * D + D,
				     img(w), w->b * np * D);
				w->first_conv = false;
				w->tokens = true;
				w->T = np;
				w->D = D;
				mem(w, "pos", w->b * w->T * w->D, 3.0, 1.0, 0.0, 0.0);
				break;
			}
			case TS_LOP_DIT_COND:
				dit_cond(w, l->out, l->mid);
				break;
			case TS_LOP_TOKENS: {
				if (w->tokens)
					return fail_fit(w, l, "tokens after tokens");
				double k = w->C * w->W, T = w->H;
				gemm(w, "tokens", w->b * T, l->out, k, k * l->out + l->out, img(w),
				     w->b * T * l->out);
				w->tokens = true;
				w->T = T;
				w->D = l->out;
				break;
			}
			case TS_LOP_CONFORMER:
				if (fmod(w->D, l->heads) != 0.0)
					return fail_fit(w, l, "heads that do not divide the width");
				conformer(w, l->heads, l->mid, l->kernel);
				break;
			case TS_LOP_TRANSDUCER:
				transducer(w, l->out, l->mid, l->labels);
				break;
			case TS_LOP_TEXT:
				if (l->width % l->heads != 0)
					return fail_fit(w, l, "heads that do not divide the width");
				text_block(w, l, r);
				break;
			case TS_LOP_UNET_IN:
				if (!fits_image(w, l, 3.0, false))
					return false;
				conv_bias(w, l->out, 3.0, 1.0);
				if (w->nskip < TS_MAX_LAYER_ENTRIES) {
					w->skip[w->nskip][0] = w->C;
					w->skip[w->nskip][1] = w->H;
					w->skip[w->nskip++][2] = w->W;
				}
				break;
			case TS_LOP_UNET_COND:
				unet_cond(w, l->out, l->mid, l->width);
				break;
			case TS_LOP_RES:
			case TS_LOP_RES_CAT:
				if (!(w->temb > 0.0))
					return fail_fit(w, l, "a res block before unet_cond");
				if (l->op == TS_LOP_RES_CAT) {
					if (w->nskip == 0)
						return fail_fit(w, l,
								"no skip left to concatenate");
					w->nskip--;
					if (w->skip[w->nskip][1] != w->H ||
					    w->skip[w->nskip][2] != w->W)
						return fail_fit(w, l, "a skip of another size");
					w->C += w->skip[w->nskip][0];
				}
				unet_res(w, l->out);
				break;
			case TS_LOP_XATTN:
				if (fmod(w->C, l->heads) != 0.0)
					return fail_fit(w, l,
							"heads that do not divide the channels");
				unet_xattn(w, l, r);
				break;
			case TS_LOP_PUSH:
				if (w->nskip >= TS_MAX_LAYER_ENTRIES)
					return fail_fit(w, l, "too many skips kept");
				w->skip[w->nskip][0] = w->C;
				w->skip[w->nskip][1] = w->H;
				w->skip[w->nskip++][2] = w->W;
				break;
			case TS_LOP_DOWN:
				if (!fits_image(w, l, 3.0, false))
					return false;
				conv_bias(w, w->C, 3.0, 2.0);
				break;
			case TS_LOP_UP:
				mem(w, "upsample", img(w) * 5.0, 1.0, 1.0, 0.0, 0.0);
				w->H *= 2.0;
				w->W *= 2.0;
				conv_bias(w, w->C, 3.0, 1.0);
				break;
			case TS_LOP_UNET_OUT:
				gn_silu(w);
				conv_bias(w, l->out, 3.0, 1.0);
				break;
			case TS_LOP_CONTRASTIVE:
				if (!(w->tW > 0.0))
					return fail_fit(w, l,
							"a contrastive loss without a text tower");
				contrastive(w, l->out);
				break;
			case TS_LOP_DIT:
				if (fmod(w->D, l->heads) != 0.0)
					return fail_fit(w, l, "heads that do not divide the width");
				dit_block(w, l->heads, l->mid);
				break;
			case TS_LOP_DIT_FINAL:
				if (l->kernel != (int32_t)w->p)
					return fail_fit(w, l,
							"a kernel other than the latent's patch");
				dit_final(w, l->kernel, l->out);
				break;
			default:
				break;
			}
		}
	}
	/* a list of parameter-free entries (or none that compute) would run as
	 * a model of no work: never a valid model */
	if (!w->rc && !(w->params > 0.0 && w->flops > 0.0) && m->nlnet > 0)
		return fail_fit(w, &m->lnet[m->nlnet - 1], "no entry with parameters and FLOPs");
	return true;
}

static void walk_init(struct walk *w, const struct ts_model *m, double b, enum ts_dtype d)
{
	memset(w, 0, sizeof *w);
	w->m = m;
	w->b = b;
	w->dp = 1.0;
	w->e = work_act_bytes(d);
	w->ew = ts_dtype_bytes(d);
	w->flash = d == TS_FP16 || d == TS_BF16 || d == TS_FP8;
	w->transpose = m->lnet_nchw && d != TS_FP32;
}

double work_lnet_params(const struct ts_model *m)
{
	struct walk w;
	walk_init(&w, m, 1.0, TS_BF16);
	walk_all(&w);
	return w.params;
}

double work_lnet_fwd_flops(const struct ts_model *m)
{
	struct walk w;
	walk_init(&w, m, 1.0, TS_BF16);
	walk_all(&w);
	return w.flops;
}

/* Weight gradient of a convolution with split-K: dW = X^T dY is a small
 * K x N output reduced over M = batch x pixels, far fewer output tiles than
 * SMs; cuDNN and cuBLAS split such a reduction into S chunks computed side
 * by side and summed. S = ceil(SMs / tiles), keeping each chunk at least
 * 4 x K0 long (so K/(K+K0) stays at 0.8 or more); each chunk is timed by
 * work_gemm_eff_batched and the whole never faster than its bytes at HBM
 * bandwidth. A modelling choice, not fitted to any measurement. */
static double split_k_wgrad_s(const struct hw_gpu_type *g, enum ts_dtype d,
			      const struct work_calib *c, const struct work_op *op)
{
	double tiles = ceil(op->k / c->tile_m) * ceil(op->n / c->tile_n);
	double S = fmin(ceil((double)g->sms / tiles), floor(op->m / (4.0 * work_gemm_k0(g, d, c))));
	if (!(S > 1.0) || !(op->wgrad_flops > 0.0))
		return INFINITY;
	double eff = work_gemm_eff_batched(g, d, c, op->k, op->n, op->m / S, S);
	if (!(eff > 0.0))
		return INFINITY;
	return fmax(op->wgrad_flops / (g->peak_flops[d] * eff),
		    op->wgrad_bytes / work_hbm_Bps(g, c));
}

int work_lnet_ops(const struct ts_model *m, int64_t micro_batch, int64_t dp, enum ts_dtype d,
		  const struct hw_gpu_type *g, const struct work_calib *c,
		  struct work_lnet_op **ops, size_t *n, struct ts_error *err)
{
	*ops = NULL;
	*n = 0;
	if ((unsigned)d >= TS_DTYPE_COUNT_ || !(g->peak_flops[d] > 0.0))
		return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "training.precision",
				    "GPU %s has no %s peak in the catalog", g->name,
				    ts_dtype_name(d));
	struct walk w;
	walk_init(&w, m, (double)micro_batch, d);
	w.dp = dp > 1 ? (double)dp : 1.0;
	w.store = true;
	walk_all(&w);
	if (w.rc) {
		ts_free(w.ops, w.cap * sizeof *w.ops);
		return ts_error_set(err, w.rc, NULL, 0, NULL, "out of memory");
	}
	/* fp32 GEMMs run on the CUDA cores: the tensor-core factors of the
	 * calibration do not apply (see lnet.h) */
	struct work_calib cc = *c;
	if (d == TS_FP32) /* K0 follows the CUDA cores' rate (work_gemm_k0) */
		cc.tc_sustain = 1.0;
	double hbm = work_hbm_Bps(g, c);
	for (size_t i = 0; i < w.n; i++) {
		struct work_op_cost *oc = &w.ops[i].c;
		oc->fwd_s = work_op_time(g, d, &cc, &oc->op, WORK_FWD);
		oc->dgrad_s = work_op_time(g, d, &cc, &oc->op, WORK_DGRAD);
		oc->wgrad_s = work_op_time(g, d, &cc, &oc->op, WORK_WGRAD);
		if (oc->op.kind == WORK_GEMM)
			oc->wgrad_s = fmin(oc->wgrad_s, split_k_wgrad_s(g, d, &cc, &oc->op));
		if (w.ops[i].transpose_bytes > 0.0 && hbm > 0.0) {
			double t = w.ops[i].transpose_bytes / hbm;
			oc->fwd_s += t;
			oc->dgrad_s += oc->op.dgrad_flops > 0.0 ? t : 0.0;
			oc->wgrad_s += t;
		}
	}
	/* hand over an array of exactly n */
	if (w.n < w.cap) {
		struct work_lnet_op *a = ts_realloc(w.ops, w.cap * sizeof *a, w.n * sizeof *a);
		if (a || w.n == 0) {
			w.ops = a;
			w.cap = w.n;
		}
	}
	if (w.cap != w.n) {
		ts_free(w.ops, w.cap * sizeof *w.ops);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	*ops = w.ops;
	*n = w.n;
	return 0;
}

/* ---- parsing ------------------------------------------------------------- */

static int pfail(struct ts_error *err, const char *file, const config_setting_t *s,
		 const char *prefix, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int pfail(struct ts_error *err, const char *file, const config_setting_t *s,
		 const char *prefix, const char *key, const char *fmt, ...)
{
	char k[200], msg[400];
	va_list ap;
	snprintf(k, sizeof k, "%s%s", prefix, key);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ts_error_set(err, TS_EINVALID, file, s ? (int)config_setting_source_line(s) : 0, k,
			    "%s", msg);
}

/* A positive integer member of at most max (0 when absent and not
 * required): 0 or an error. */
static int pint(const config_setting_t *g, const char *name, bool required, int32_t max,
		const char *file, const char *prefix, int32_t *out, struct ts_error *err)
{
	uint32_t v = 0;
	int rc = cfg_get_uint(g, name, required, 1, (uint32_t)max, &v, file, prefix, err);
	*out = rc == 0 ? (int32_t)v : 0;
	return rc < 0 ? rc : 0;
}

int work_lnet_parse_layout(const void *setting, const char *file, const char *prefix,
			   struct ts_model *m, struct ts_error *err)
{
	static const char *const formats[] = {"nhwc", "nchw"};
	int f = 0;
	int rc = cfg_get_enum(setting, "memory_format", false, formats, 2, &f, file, prefix, err);
	if (rc == 0) /* absent: as it is */
		m->lnet_nchw = f == 1;
	if (rc < 0)
		return rc;
	/* what one sample is, for throughput and price per sample: a
	 * plural noun of letters ("images", "scenes"); absent: as it is */
	char unit[sizeof m->sample_unit];
	rc = cfg_get_string(setting, "unit", false, unit, sizeof unit, file, prefix, err);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		char k[CFG_KEY_MAX];
		int line = cfg_line(config_setting_get_member(setting, "unit"));
		cfg_key_join(k, prefix, "unit");
		for (const char *c = unit; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || *c == '-'))
				return ts_error_set(
				    err, TS_EINVALID, file, line, k,
				    "found \"%s\", expected a plural noun in lower-case "
				    "letters such as \"images\" or \"samples\"",
				    unit);
		if (!strcmp(unit, "tokens"))
			return ts_error_set(
			    err, TS_EINVALID, file, line, k,
			    "found \"tokens\", expected a sample unit (a layer-list "
			    "model trains on samples: \"images\", \"samples\")");
		snprintf(m->sample_unit, sizeof m->sample_unit, "%s", unit);
	}
	return 0;
}

/* Walk the list over the input once: an entry that does not fit the shape
 * before it is bad input. When the input group `in` is in this file and its
 * size is what the entry cannot take, the error names input.height or
 * input.width (a ViT's image that its patch does not divide); otherwise the
 * entry, located in `file` when the list is in it (list_here): a list from
 * a base model's file has its lines in that file. */
static int check_fit(const struct ts_model *m, const char *file, const char *prefix,
		     const config_setting_t *in, bool list_here, struct ts_error *err)
{
	struct walk w;
	walk_init(&w, m, 1.0, TS_BF16);
	if (walk_all(&w))
		return 0;
	char k[200];
	int idx = (int)(w.bad - m->lnet);
	int v = w.bad_dim == 'h' ? m->in_h : m->in_w;
	if (w.bad_dim && in && (!list_here || w.bad_at == (double)v)) {
		const char *dim = w.bad_dim == 'h' ? "height" : "width";
		const config_setting_t *s = config_setting_get_member(in, dim);
		snprintf(k, sizeof k, "%sinput.%s", prefix, dim);
		return ts_error_set(
		    err, TS_EINVALID, file, (int)config_setting_source_line(s ? s : in), k,
		    "found %d, which reaches layer_list.[%d] (%s, kernel %.0f) as %.0f, expected a "
		    "%s %s",
		    v, idx, op_names[w.bad->op], w.bad_need, w.bad_at, dim,
		    w.bad->op == TS_LOP_PATCH
			? "that the patch size divides (e.g. a multiple of it)"
			: "at least the kernel's size there");
	}
	snprintf(k, sizeof k, "%slayer_list.[%d]", prefix, idx);
	return ts_error_set(err, TS_EINVALID, list_here ? file : NULL, list_here ? w.bad->line : 0,
			    k,
			    "found %s (entry %s), expected a list whose entries fit the shape "
			    "before them",
			    w.why, op_names[w.bad->op]);
}

int work_lnet_parse(const void *setting, const char *file, const char *prefix, struct ts_model *m,
		    struct ts_error *err)
{
	const config_setting_t *g = setting;
	const config_setting_t *in = config_setting_get_member(g, "input");
	const config_setting_t *ll = config_setting_get_member(g, "layer_list");
	char pre[200];
	int rc;
	if (in) {
		snprintf(pre, sizeof pre, "%sinput.", prefix);
		if (!config_setting_is_group(in))
			return pfail(err, file, in, prefix, "input",
				     "found a value that is not a group, expected input = { "
				     "channels = 3; height = 224; width = 224; }");
		if ((rc = pint(in, "channels", true, 1 << 20, file, pre, &m->in_c, err)) ||
		    (rc = pint(in, "height", true, 1 << 20, file, pre, &m->in_h, err)) ||
		    (rc = pint(in, "width", true, 1 << 20, file, pre, &m->in_w, err)))
			return rc;
	}
	if (!ll && !m->in_c)
		return pfail(err, file, g, prefix, "layer_list",
			     "found input without a layer list, expected layer_list");
	if (!ll)
		return m->nlnet ? check_fit(m, file, prefix, in, false, err) : 0;
	if (!config_setting_is_list(ll))
		return pfail(err, file, ll, prefix, "layer_list",
			     "found a value that is not a list, expected layer_list = ( { op = "
			     "\"conv\"; ... }, ... )");
	int n = config_setting_length(ll);
	if (n < 1 || n > TS_MAX_LAYER_ENTRIES) {
		pfail(err, file, ll, prefix, "layer_list", "found %d entries, expected 1 to %d", n,
		      TS_MAX_LAYER_ENTRIES);
		return err ? (err->code = TS_ELIMIT) : TS_ELIMIT;
	}
	static const char *const keys[] = {"op",    "out",    "mid",	"kernel", "stride",
					   "heads", "repeat", "labels", "width",  "context"};
	m->nlnet = 0;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(ll, (unsigned)i);
		snprintf(pre, sizeof pre, "%slayer_list.[%d].", prefix, i);
		if (!config_setting_is_group(e))
			return pfail(err, file, e, pre, "",
				     "found a value that is not a group, "
				     "expected { op = \"conv\"; ... }");
		int k = 0;
		if ((rc = cfg_check_keys(e, file, pre, keys, 10, err)) ||
		    (rc = cfg_get_enum(e, "op", true, op_names, TS_LOP_COUNT_, &k, file, pre, err)))
			return rc;
		struct ts_layer *l = &m->lnet[m->nlnet];
		memset(l, 0, sizeof *l);
		l->line = (int)config_setting_source_line(e);
		l->op = (enum ts_layer_op)k;
		bool need_out = k == TS_LOP_CONV || k == TS_LOP_LINEAR || k == TS_LOP_BOTTLENECK ||
				k == TS_LOP_PATCH || k == TS_LOP_LATENT_PATCH ||
				k == TS_LOP_DIT_COND || k == TS_LOP_DIT_FINAL ||
				k == TS_LOP_TOKENS || k == TS_LOP_TRANSDUCER || k == TS_LOP_TEXT ||
				k == TS_LOP_CONTRASTIVE || k == TS_LOP_UNET_IN ||
				k == TS_LOP_UNET_COND || k == TS_LOP_RES || k == TS_LOP_RES_CAT ||
				k == TS_LOP_UNET_OUT;
		bool need_kernel = k == TS_LOP_CONV || k == TS_LOP_MAXPOOL || k == TS_LOP_PATCH ||
				   k == TS_LOP_LATENT_PATCH || k == TS_LOP_DIT_FINAL ||
				   k == TS_LOP_CONFORMER;
		bool need_mid = k == TS_LOP_BOTTLENECK || k == TS_LOP_ENCODER ||
				k == TS_LOP_DIT_COND || k == TS_LOP_DIT || k == TS_LOP_CONFORMER ||
				k == TS_LOP_TRANSDUCER || k == TS_LOP_TEXT || k == TS_LOP_UNET_COND;
		bool need_heads = k == TS_LOP_ENCODER || k == TS_LOP_DIT || k == TS_LOP_CONFORMER ||
				  k == TS_LOP_TEXT || k == TS_LOP_XATTN;
		if ((rc = pint(e, "out", need_out, 1 << 20, file, pre, &l->out, err)) ||
		    (rc = pint(e, "kernel", need_kernel, 64, file, pre, &l->kernel, err)) ||
		    (rc = pint(e, "mid", need_mid, 1 << 20, file, pre, &l->mid, err)) ||
		    (rc = pint(e, "heads", need_heads, 4096, file, pre, &l->heads, err)) ||
		    (rc = pint(e, "stride", false, 64, file, pre, &l->stride, err)) ||
		    (rc = pint(e, "repeat", false, 1000, file, pre, &l->repeat, err)) ||
		    (rc = pint(e, "labels", k == TS_LOP_TRANSDUCER, 1 << 16, file, pre, &l->labels,
			       err)) ||
		    (rc = pint(e, "width",
			       k == TS_LOP_TEXT || k == TS_LOP_XATTN || k == TS_LOP_UNET_COND,
			       1 << 20, file, pre, &l->width, err)) ||
		    (rc = pint(e, "context", k == TS_LOP_TEXT || k == TS_LOP_XATTN, 1 << 20, file,
			       pre, &l->context, err)))
			return rc;
		if (!l->stride)
			l->stride = k == TS_LOP_MAXPOOL ? l->kernel : 1;
		if (!l->repeat)
			l->repeat = 1;
		m->nlnet++;
	}
	if (!m->in_c)
		return pfail(err, file, g, prefix, "input",
			     "found a layer list without input, expected input = { channels; "
			     "height; width; }");
	return check_fit(m, file, prefix, in, true, err);
}
