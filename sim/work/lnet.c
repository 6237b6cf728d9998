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

static const char *const op_names[TS_LOP_COUNT_] = {"conv",    "bn",	   "relu",	 "maxpool",
						    "avgpool", "linear",   "bottleneck", "patch",
						    "encoder", "layernorm"};

/* ---- the walk ------------------------------------------------------------ */

struct walk {
	const struct ts_model *m;
	double b;	 /* samples */
	double e, ew;	 /* activation and weight bytes per element */
	bool flash;	 /* attention as flash */
	bool transpose;	 /* NCHW activations around tensor-core convolutions */
	bool tokens;	 /* after a patch embedding */
	double C, H, W;	 /* image shape per sample */
	double T, D;	 /* tokens and width per sample */
	bool first_conv; /* no conv seen yet: no input gradient */
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
}

static void bottleneck(struct walk *w, double mid, double out, double stride)
{
	double C0 = w->C, H0 = w->H, W0 = w->W;
	conv(w, mid, 1.0, 1.0);
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
		conv(w, out, 1.0, stride);
		bn(w);
		w->C = C1;
		w->H = H1;
		w->W = W1;
	}
	mem(w, "add", img(w), 3.0, 0.0, 0.0, 0.0);
	relu(w);
}

static void encoder(struct walk *w, double heads, double f)
{
	double b = w->b, T = w->T, D = w->D, x = b * T * D;
	mem(w, "ln", x, 3.0, 5.0, 2.0 * D, x);
	gemm(w, "qkv", b * T, 3.0 * D, D, 3.0 * D * D + 3.0 * D, x, 3.0 * x);
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
	gemm(w, "proj", b * T, D, D, D * D + D, x, x);
	mem(w, "add", x, 3.0, 0.0, 0.0, 0.0);
	mem(w, "ln", x, 3.0, 5.0, 2.0 * D, x);
	gemm(w, "fc1", b * T, f, D, D * f + f, x, b * T * f);
	mem(w, "gelu", b * T * f, 2.0, 3.0, 0.0, b * T * f);
	gemm(w, "fc2", b * T, D, f, f * D + D, b * T * f, x);
	mem(w, "add", x, 3.0, 0.0, 0.0, 0.0);
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
	for (uint32_t i = 0; i < m->nlnet && !w->rc; i++) {
		const struct ts_layer *l = &m->lnet[i];
		bool image = l->op == TS_LOP_CONV || l->op == TS_LOP_BN ||
			     l->op == TS_LOP_MAXPOOL || l->op == TS_LOP_AVGPOOL ||
			     l->op == TS_LOP_BOTTLENECK || l->op == TS_LOP_PATCH;
		if (image && w->tokens)
			return fail_fit(w, l, "an image op after the patch embedding");
		if ((l->op == TS_LOP_ENCODER || l->op == TS_LOP_LAYERNORM) && !w->tokens)
			return fail_fit(w, l, "a token op before a patch embedding");
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
				double in = img(w);
				w->H = ceil(w->H / l->stride);
				w->W = ceil(w->W / l->stride);
				mem(w, "maxpool", in + img(w), 1.0, 1.0, 0.0, in);
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

int work_lnet_ops(const struct ts_model *m, int64_t micro_batch, enum ts_dtype d,
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
	return rc < 0 ? rc : 0;
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
	static const char *const keys[] = {"op",     "out",   "mid",   "kernel",
					   "stride", "heads", "repeat"};
	m->nlnet = 0;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(ll, (unsigned)i);
		snprintf(pre, sizeof pre, "%slayer_list.[%d].", prefix, i);
		if (!config_setting_is_group(e))
			return pfail(err, file, e, pre, "",
				     "found a value that is not a group, "
				     "expected { op = \"conv\"; ... }");
		int k = 0;
		if ((rc = cfg_check_keys(e, file, pre, keys, 7, err)) ||
		    (rc = cfg_get_enum(e, "op", true, op_names, TS_LOP_COUNT_, &k, file, pre, err)))
			return rc;
		struct ts_layer *l = &m->lnet[m->nlnet];
		memset(l, 0, sizeof *l);
		l->line = (int)config_setting_source_line(e);
		l->op = (enum ts_layer_op)k;
		bool need_out = k == TS_LOP_CONV || k == TS_LOP_LINEAR || k == TS_LOP_BOTTLENECK ||
				k == TS_LOP_PATCH;
		bool need_kernel = k == TS_LOP_CONV || k == TS_LOP_MAXPOOL || k == TS_LOP_PATCH;
		bool need_mid = k == TS_LOP_BOTTLENECK || k == TS_LOP_ENCODER;
		if ((rc = pint(e, "out", need_out, 1 << 20, file, pre, &l->out, err)) ||
		    (rc = pint(e, "kernel", need_kernel, 64, file, pre, &l->kernel, err)) ||
		    (rc = pint(e, "mid", need_mid, 1 << 20, file, pre, &l->mid, err)) ||
		    (rc = pint(e, "heads", k == TS_LOP_ENCODER, 4096, file, pre, &l->heads, err)) ||
		    (rc = pint(e, "stride", false, 64, file, pre, &l->stride, err)) ||
		    (rc = pint(e, "repeat", false, 1000, file, pre, &l->repeat, err)))
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
