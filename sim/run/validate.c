/* Validation rows as scenarios, their predictions, error statistics and the
 * calibration fit.
 * SPDX-License-Identifier: MIT */

/*
 * Each measured run becomes a scenario text with the settings its source
 * states, and assumptions where the source is silent:
 *
 * vTrain (tests/validation/vtrain/README.md): Megatron-DeepSpeed GPT runs in
 * one node of A100s. Stated: full activation checkpointing, no gradient
 * bucketing. Assumed: fp16 (the Megatron-DeepSpeed GPT default), vocabulary
 * 50,257, unfused attention (Megatron before FlashAttention), one all-reduce
 * after backward, the first `GPUs` GPUs of a DGX A100 40GB (vTrain says A100,
 * 8 per node). Compared on iteration time. Rows are numbered by data line,
 * 1-based, so odd (fitting) and even (held-out) rows are well defined.
 *
 * DLE-BERT (tests/validation/measurements.csv): NVIDIA DeepLearningExamples
 * BERT-Large pre-training in PyTorch on a DGX A100 80GB, 1 or 8 GPUs, as the
 * README's tables state them: sequence length, per-GPU batch, gradient
 * accumulation, tf32 or fp16. Assumed: PyTorch DDP conventions, unfused
 * attention (2021 containers), and LAMB treated as Adam-like (the same
 * per-parameter state and a memory-bound step). Compared on samples/s.
 *
 * All scenarios run at layer granularity in rank-class mode with two
 * iterations (one warm-up, one measured: the schedule is deterministic, so
 * later iterations repeat the second).
 *
 * The fit minimises the mean over sources of the mean absolute percentage
 * error on each source's fitting half (vTrain single-node, MEG24, MPT,
 * TITAN; vTrain multi-node is checked only, fit_sources says why), so that a source with many rows
 * does not outweigh one with few, with GSL's Nelder-Mead simplex (nmsimplex2): the objective is a
 * sum of maxima (host launch stream against GPU stream, wave quantisation),
 * so it has kinks where gradients would mislead, and three constants are
 * few enough for a simplex. Coordinates are normalised by a typical step
 * per constant; a point outside a constant's bounds is evaluated at the
 * bound plus a penalty growing with the distance, so the simplex stays
 * inside.
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "base/file.h"
#include "plan/plan.h"
#include "io/scenario.h"
#include "run/run.h"
#include "run/validate.h"

static const char *const source_names[VAL_SOURCE_COUNT_] = {"vtrain",
							    "bert",
							    "meg24",
							    "mpt",
							    "titan",
							    "vtrain-multi",
							    "mlperf-training-v4.1",
							    "mlperf-training-v5.0",
							    "pytorch-blog-fsdp-ibm-2024",
							    "nemo-automodel-perf"};
static const char *const metric_names[VAL_METRIC_COUNT_] = {
    "iteration_s", "samples_per_s", "tflops_per_gpu", "mfu_percent", "tokens_per_s_per_gpu"};

const char *val_source_name(enum val_source s)
{
	return (unsigned)s < VAL_SOURCE_COUNT_ ? source_names[s] : "?";
}

const char *val_metric_name(enum val_metric m)
{
	return (unsigned)m < VAL_METRIC_COUNT_ ? metric_names[m] : "?";
}

bool val_source_parse(const char *name, enum val_source *out)
{
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++)
		if (!strcmp(name, source_names[k])) {
			*out = (enum val_source)k;
			return true;
		}
	return false;
}

/* ------------------------------------------------------------- reading */

/* Most fields of one CSV line we read, and its longest line. */
#define MAX_FIELDS 32
#define LINE_MAX_ 4096

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = (int64_t)v;
	return 0;
}

static int parse_f64(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

struct rows {
	struct val_row *r;
	size_t n, cap;
};

static struct val_row *push(struct rows *v)
{
	if (ts_grow((void **)&v->r, &v->cap, v->n + 1, sizeof *v->r))
		return NULL;
	struct val_row *r = &v->r[v->n++];
	memset(r, 0, sizeof *r);
	return r;
}

static int scenario_text(struct val_row *r, struct ts_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int scenario_text(struct val_row *r, struct ts_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(r->scenario, sizeof r->scenario, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof r->scenario)
		return ts_error_set(err, TS_ELIMIT, NULL, 0, NULL,
				    "row %s: scenario text longer than %zu bytes", r->id,
				    sizeof r->scenario);
	return 0;
}

/* GPUs, global batch, micro batch, hidden, heads, layers, seq, tp, dp, pp, ms */
static int load_vtrain(const char *path, struct rows *v, struct ts_error *err)
{
	struct csv c;
	int rc = csv_open(&c, path, LINE_MAX_, MAX_FIELDS, err);
	if (rc) {
		csv_close(&c);
		return rc;
	}
	while ((rc = csv_next(&c, err)) > 0) {
		int lineno = c.lineno, nf = c.nf;
		char **f = c.f;
		if (lineno == 1)
			continue; /* header */
		int64_t x[10];
		double ms;
		bool ok = nf == 11;
		for (int i = 0; ok && i < 10; i++)
			ok = parse_i64(f[i], &x[i]) == 0 && x[i] > 0;
		if (ok)
			ok = parse_f64(f[10], &ms) == 0 && ms > 0.0;
		if (!ok) {
			rc = ts_error_set(err, TS_ESYNTAX, path, lineno, NULL,
					  "expected 11 positive numbers (GPUs, global batch, "
					  "micro batch, hidden, heads, layers, sequence, tp, dp, "
					  "pp, iteration ms)");
			break;
		}
		int64_t gpus = x[0], gb = x[1], mb = x[2], h = x[3], a = x[4], L = x[5], s = x[6];
		if (x[7] != 1 || x[9] != 1)
			continue; /* tensor or pipeline parallel: not modelled yet */
		struct val_row *r = push(v);
		if (!r) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			break;
		}
		r->index = lineno - 1;
		snprintf(r->id, sizeof r->id, "vtrain-%04d", r->index);
		snprintf(r->source, sizeof r->source, "%s", source_names[VAL_VTRAIN]);
		r->src = VAL_VTRAIN;
		r->measured = ms / 1000.0;
		r->metric = VAL_ITERATION_S;
		r->fitting = r->index % 2 == 1;
		r->hidden = h;
		r->micro_batch = mb;
		r->gpus = gpus;
		rc = scenario_text(
		    r, err,
		    "name = \"%s\";\n"
		    "model = { family = \"gpt\"; layers = %lld; hidden = %lld; heads = %lld;"
		    " vocab = 50257; seq_len = %lld; };\n"
		    "cluster = \"dgx-a100-40gb\";\n"
		    "gpus_per_node = %lld;\n"
		    "training = { framework = \"megatron\"; global_batch = %lld;"
		    " micro_batch = %lld; seq_len = %lld; precision = \"fp16\";"
		    " recompute = \"full\"; attention = \"unfused\"; iterations = 2; };\n"
		    "parallel = { tp = 1; pp = 1; bucket = \"none\";"
		    " overlap_grad_reduce = false; };\n"
		    "sim = { granularity = \"layer\"; mode = \"class\"; };\n",
		    r->id, (long long)L, (long long)h, (long long)a, (long long)s, (long long)gpus,
		    (long long)gb, (long long)mb, (long long)s);
		if (rc)
			break;
	}
	csv_close(&c);
	return rc;
}

/* The tokens a DLE-BERT phase-2 micro-batch is padded to. The README's
 * phase-2 rows (sequence 512) read LDDL's binned shards: scripts/configs/
 * pretrain_config.sh (DeepLearningExamples a9e2c1d5, the commit that
 * published the rows) sets phase2_bin_size = 64 "for improved throughput"
 * in every DGX A100 80GB config; LDDL draws each iteration's micro-batches
 * from one length bin and pads them only to their longest sequence, rounded
 * up to a multiple of 8 (Tools/lddl/lddl/torch/bert.py,
 * sequence_length_alignment = 8). Wikipedia's sequences at 512 are more than
 * half padding (Krell et al. 2021, https://arxiv.org/abs/2107.02027,
 * abstract), so a micro-batch is far shorter than 512 on average. The
 * length distribution is not published; its effect is: LDDL's README
 * figure "Performance vs. Bin Size on BERT Phase 2 Pretraining, 32 Nodes in
 * Selene" (Tools/lddl/docs/images/binning_perf.gif at a9e2c1d5) times the
 * same training at 2,565 s unbinned and 1,483 s with bins of 64 (1.73x).
 * 320 is the multiple of 8 at which trainsim's own model of that run (32
 * DGX A100 80GB nodes, the README's fp16 recipe: 32 sequences per GPU,
 * 32,768 a step, the masked-LM head on the masked positions) takes the
 * measured fraction of its 512-token iteration time: 0.5675 of it at 320
 * and 0.6046 at 328 against 1,483 / 2,565 = 0.578. Derived from that figure
 * alone, not from the rows it is applied to. */
#define BERT_P2_MAX_SEQ 512
#define BERT_P2_BINNED_SEQ 320

/* Columns of measurements.csv that we read, by header name. */
enum { M_ID, M_GPUS, M_PREC, M_SEQ, M_MB, M_ACC, M_GB, M_METRIC, M_VALUE, M_NCOLS };
static const char *const mcols[M_NCOLS] = {
    "id",	    "gpus",   "precision", "seq_len", "micro_batch_per_gpu", "accumulation_steps",
    "global_batch", "metric", "value"};

static int load_measurements(const char *path, struct rows *v, struct ts_error *err)
{
	struct csv c;
	int rc = csv_open(&c, path, LINE_MAX_, MAX_FIELDS, err);
	if (rc) {
		csv_close(&c);
		return rc;
	}
	int col[M_NCOLS];
	while ((rc = csv_row(&c, mcols, M_NCOLS, col, err)) > 0) {
		int lineno = c.lineno, nf = c.nf;
		char **f = c.f;
		int64_t gpus = 0, seq = 0, mb = 0, acc = 0, gb = 0;
		double value = 0.0;
		bool ok = true;
		for (int k = 0; ok && k < M_NCOLS; k++)
			ok = col[k] < nf;
		ok = ok && parse_i64(f[col[M_GPUS]], &gpus) == 0 && gpus > 0 &&
		     parse_i64(f[col[M_SEQ]], &seq) == 0 && seq > 0 &&
		     parse_i64(f[col[M_MB]], &mb) == 0 && mb > 0 &&
		     parse_i64(f[col[M_ACC]], &acc) == 0 && acc > 0 &&
		     parse_i64(f[col[M_GB]], &gb) == 0 && gb == gpus * mb * acc &&
		     parse_f64(f[col[M_VALUE]], &value) == 0 && value > 0.0 &&
		     !strcmp(f[col[M_METRIC]], "samples_per_s") &&
		     (!strcmp(f[col[M_PREC]], "tf32") || !strcmp(f[col[M_PREC]], "fp16")) &&
		     strlen(f[col[M_ID]]) < sizeof v->r->id && strlen(f[col[M_ID]]) > 0;
		if (!ok) {
			rc = ts_error_set(err, TS_ESYNTAX, path, lineno, NULL,
					  "expected positive gpus, seq_len, micro_batch_per_gpu, "
					  "accumulation_steps, value; global_batch = gpus x "
					  "micro-batch x accumulation; precision tf32 or fp16; "
					  "metric samples_per_s");
			break;
		}
		struct val_row *r = push(v);
		if (!r) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			break;
		}
		snprintf(r->id, sizeof r->id, "%s", f[col[M_ID]]);
		snprintf(r->source, sizeof r->source, "%s", source_names[VAL_BERT]);
		r->src = VAL_BERT;
		r->index = lineno - 1;
		r->measured = value;
		r->metric = VAL_SAMPLES_PER_S;
		r->fitting = false;
		r->hidden = 1024; /* models/bert-large.cfg */
		r->micro_batch = mb;
		r->gpus = gpus;
		rc = scenario_text(r, err,
				   "name = \"%s\";\n"
				   "model = \"bert-large\";\n"
				   "cluster = \"dgx-a100-80gb\";\n"
				   "gpus_per_node = %lld;\n"
				   "training = { framework = \"ddp\"; global_batch = %lld;"
				   " micro_batch = %lld; seq_len = %lld; precision = \"%s\";"
				   " optimizer = \"adam\"; recompute = \"none\";"
				   " attention = \"unfused\"; mlm_head = \"masked\";"
				   " iterations = 2; };\n"
				   "parallel = { tp = 1; pp = 1; };\n"
				   "sim = { granularity = \"layer\"; mode = \"class\"; };\n",
				   r->id, (long long)gpus, (long long)gb, (long long)mb,
				   (long long)(seq == BERT_P2_MAX_SEQ ? BERT_P2_BINNED_SEQ : seq),
				   f[col[M_PREC]]);
		if (rc)
			break;
	}
	csv_close(&c);
	return rc;
}

/* Load the rows of two files (`a` then `b`, relative to root, read by fa and
 * fb) into an exactly sized array, so val_rows_free needs only the count. */
static int load_pair(const char *root, const char *a,
		     int (*fa)(const char *, struct rows *, struct ts_error *), const char *b,
		     int (*fb)(const char *, struct rows *, struct ts_error *),
		     struct val_row **rows, size_t *n, struct ts_error *err)
{
	struct rows v = {0};
	char path[1024];
	*rows = NULL;
	*n = 0;
	snprintf(path, sizeof path, "%s/%s", root ? root : ".", a);
	int rc = fa(path, &v, err);
	if (!rc) {
		snprintf(path, sizeof path, "%s/%s", root ? root : ".", b);
		rc = fb(path, &v, err);
	}
	if (rc) {
		ts_free(v.r, v.cap * sizeof *v.r);
		return rc;
	}
	struct val_row *out = v.n ? ts_realloc(v.r, v.cap * sizeof *v.r, v.n * sizeof *v.r) : NULL;
	if (v.n && !out) {
		ts_free(v.r, v.cap * sizeof *v.r);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	if (!v.n)
		ts_free(v.r, v.cap * sizeof *v.r);
	*rows = out;
	*n = v.n;
	return 0;
}

int val_load(const char *root, struct val_row **rows, size_t *n, struct ts_error *err)
{
	return load_pair(root, VAL_VTRAIN_CSV, load_vtrain, VAL_MEASUREMENTS_CSV, load_measurements,
			 rows, n, err);
}

/* ------------------------------------------------- multi-GPU sources */

/* The FLOP formulas of the sources (measurements.md, "Standard FLOP
 * counts"), per iteration of B sequences of s tokens, l layers, hidden h,
 * vocabulary V, N parameters. */
static const char *const formula_megatron =
    "Megatron (Korthikanti et al. 2022): 72 B s l h^2 (1 + s/(6h) + V/(12 h l))";
static const char *const formula_mosaic = "MosaicML llm-foundry: (6 N s + 12 l h s^2) per sequence";
static const char *const formula_titan =
    "torchtitan: (6 N + 12 l h s) per token, N without the embedding";
static const char *const formula_vtrain = "none: compared on iteration time";

static double flops_megatron(double B, double s, double l, double h, double V)
{
	return 72.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * h * l));
}

/* Append "/part" (or "part") to needs. */
static void need(char *needs, size_t n, bool cond, const char *part)
{
	if (!cond)
		return;
	size_t k = strlen(needs);
	snprintf(needs + k, n - k, "%s%s", k ? "/" : "", part);
}

/* vTrain multi-node: params, GPUs, global batch, micro batch, hidden,
 * heads, layers, seq, tp, dp, pp, ms. Settings as the single-node rows
 * (validate.c head comment), plus: nodes of 8 A100 40GB with 4 x 200 Gb/s
 * HDR (vTrain's configs state 8 GPUs and 800 Gbit/s per node), 1F1B, no
 * sequence parallelism (Megatron-DeepSpeed's default). */
static int load_vtrain_multi(const char *path, struct rows *v, struct ts_error *err)
{
	struct csv c;
	int rc = csv_open(&c, path, LINE_MAX_, MAX_FIELDS, err);
	if (rc) {
		csv_close(&c);
		return rc;
	}
	while ((rc = csv_next(&c, err)) > 0) {
		int lineno = c.lineno, nf = c.nf;
		char **f = c.f;
		if (lineno == 1)
			continue; /* header */
		int64_t x[10] = {0};
		double pb = 0.0, ms = 0.0;
		bool ok = nf == 12 && parse_f64(f[0], &pb) == 0 && pb > 0.0;
		for (int i = 0; ok && i < 10; i++)
			ok = parse_i64(f[i + 1], &x[i]) == 0 && x[i] > 0;
		if (ok)
			ok = parse_f64(f[11], &ms) == 0 && ms > 0.0;
		int64_t gpus = ok ? x[0] : 0, gb = x[1], mb = x[2], h = x[3], a = x[4], L = x[5],
			s = x[6], tp = x[7], dp = x[8], pp = x[9];
		if (ok)
			ok = gpus == tp * dp * pp && gpus % 8 == 0;
		if (!ok) {
			rc = ts_error_set(
			    err, TS_ESYNTAX, path, lineno, NULL,
			    "expected parameters (B) and 11 positive numbers (GPUs, "
			    "global batch, micro batch, hidden, heads, layers, "
			    "sequence, tp, dp, pp, iteration ms), GPUs = tp x dp x pp, "
			    "a multiple of 8");
			break;
		}
		struct val_row *r = push(v);
		if (!r) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			break;
		}
		r->index = lineno - 1;
		snprintf(r->id, sizeof r->id, "vtrain-m-%03d", r->index);
		snprintf(r->source, sizeof r->source, "%s", source_names[VAL_VTRAIN_MULTI]);
		r->src = VAL_VTRAIN_MULTI;
		r->measured = ms / 1000.0;
		r->metric = VAL_ITERATION_S;
		r->hidden = h;
		r->micro_batch = mb;
		r->gpus = gpus;
		r->formula = formula_vtrain;
		r->fitting = r->index % 2 == 1;
		need(r->needs, sizeof r->needs, tp > 1, "tp");
		need(r->needs, sizeof r->needs, pp > 1, "pp");
		rc = scenario_text(
		    r, err,
		    "name = \"%s\";\n"
		    "model = { family = \"gpt\"; layers = %lld; hidden = %lld; heads = %lld;"
		    " vocab = 50257; seq_len = %lld; };\n"
		    "cluster = \"dgx-a100-40gb\"; nodes = %lld; gpus_per_node = 8;\n"
		    "training = { framework = \"megatron\"; global_batch = %lld;"
		    " micro_batch = %lld; seq_len = %lld; precision = \"fp16\";"
		    " recompute = \"full\"; attention = \"unfused\"; iterations = 2; };\n"
		    "parallel = { tp = %lld; pp = %lld; dp = %lld; schedule = \"1f1b\";"
		    " bucket = \"none\"; overlap_grad_reduce = false; };\n"
		    "sim = { granularity = \"layer\"; mode = \"class\"; };\n",
		    r->id, (long long)L, (long long)h, (long long)a, (long long)s,
		    (long long)(gpus / 8), (long long)gb, (long long)mb, (long long)s,
		    (long long)tp, (long long)pp, (long long)dp);
		if (rc)
			break;
	}
	csv_close(&c);
	return rc;
}

/* Columns of measurements_multi.csv that we read, by header name. */
enum {
	X_ID,
	X_LAYERS,
	X_HIDDEN,
	X_HEADS,
	X_SEQ,
	X_GB,
	X_MB,
	X_TP,
	X_PP,
	X_DP,
	X_RECOMPUTE,
	X_GPUS,
	X_GPU,
	X_METRIC,
	X_VALUE,
	X_PARAMS,
	X_NCOLS
};
static const char *const xcols[X_NCOLS] = {
    "id", "layers",    "hidden", "heads",    "seq_len", "global_batch", "micro_batch",	 "tp", "pp",
    "dp", "recompute", "gpus",	 "gpu_type", "metric",	"value",	"model_params_B"};

/* One MEG24 row: Megatron-Core GPT on H100 (dgx-h100: 8 H100 SXM and 8 x 400
 * Gb/s NDR per node; the README states neither). Stated: TP, PP, DP,
 * batch, vocabulary 131,072, sequence 4,096, and the overlaps the README
 * names: DP grad-reduce and param-gather (--overlap-grad-reduce
 * --overlap-param-gather, which need the distributed optimizer: zero = 1),
 * TP communication (--tp-comm-overlap, which needs sequence parallelism:
 * sp and tp_comm_overlap with TP) and PP communication "enabled by
 * default". Megatron-LM keeps overlap_p2p_comm only with the interleaved
 * schedule (megatron/training/arguments.py, r0.8: "Setting
 * args.overlap_p2p_comm to False since non-interleaved schedule does not
 * support overlapping p2p communication"), so the PP rows ran interleaved.
 * Assumed: bf16 (the README says the MFU is against the bf16 peak), flash
 * attention, micro-batch 1 (Megatron-LM's own GPT-3 175B example script),
 * GPT defaults (GeLU, LayerNorm, learned positions, 4h MLP), and one layer
 * per virtual stage: the virtual stage size is not stated, and for the
 * 119B and 462B rows (23 and 7 layers per stage) it is the only one
 * interleaving admits. The strong-scaling rows (MFU) state no TP/PP: the
 * weak-scaling 177B row's TP 8, PP 6 is taken (96 GPUs: DP 2, 576
 * micro-batches per pipeline; 4,608 GPUs: DP 96, 12 per pipeline). */
static int row_meg24(struct val_row *r, char **f, const int *col, struct ts_error *err)
{
	int64_t L = 0, h = 0, a = 0, s = 0, gb = 0, gpus = 0, tp = 8, pp = 6;
	bool ok = parse_i64(f[col[X_LAYERS]], &L) == 0 && parse_i64(f[col[X_HIDDEN]], &h) == 0 &&
		  parse_i64(f[col[X_HEADS]], &a) == 0 && parse_i64(f[col[X_SEQ]], &s) == 0 &&
		  parse_i64(f[col[X_GB]], &gb) == 0 && parse_i64(f[col[X_GPUS]], &gpus) == 0;
	if (ok && *f[col[X_TP]])
		ok = parse_i64(f[col[X_TP]], &tp) == 0 && parse_i64(f[col[X_PP]], &pp) == 0;
	if (!ok || L < 1 || h < 1 || a < 1 || s < 1 || gb < 1 || gpus < 1 || tp < 1 || pp < 1 ||
	    gpus % 8 || gpus % (tp * pp) || gb % (gpus / (tp * pp)))
		return TS_ESYNTAX;
	int64_t dp = gpus / (tp * pp), m = gb / dp;
	/* interleaved 1F1B wants whole layers per virtual stage and a
	 * multiple of pp micro-batches (Megatron-Core r0.8) */
	int64_t vpp = pp > 1 && L % pp == 0 && L / pp > 1 && m % pp == 0 ? L / pp : 1;
	r->src = VAL_MEG24;
	r->metric = !strcmp(f[col[X_METRIC]], "mfu_percent") ? VAL_MFU_PERCENT : VAL_TFLOPS_PER_GPU;
	r->hidden = h;
	r->micro_batch = 1;
	r->gpus = gpus;
	r->formula = formula_megatron;
	r->source_flops = flops_megatron((double)gb, (double)s, (double)L, (double)h, 131072.0);
	r->source_peak = 989e12;
	need(r->needs, sizeof r->needs, tp > 1, "tp");
	need(r->needs, sizeof r->needs, pp > 1, "pp");
	need(r->needs, sizeof r->needs, true, "zero");
	return scenario_text(
	    r, err,
	    "name = \"%s\";\n"
	    "model = { family = \"gpt\"; layers = %lld; hidden = %lld; heads = %lld;"
	    " vocab = 131072; seq_len = %lld; };\n"
	    "cluster = \"dgx-h100\"; nodes = %lld; gpus_per_node = 8;\n"
	    "training = { framework = \"megatron\"; global_batch = %lld; micro_batch = 1;"
	    " seq_len = %lld; precision = \"bf16\"; recompute = \"none\"; attention = \"flash\";"
	    " iterations = 2; };\n"
	    "parallel = { tp = %lld; pp = %lld; dp = %lld; sp = %s; tp_comm_overlap = %s; zero = 1;"
	    " schedule = \"%s\"; interleave = %lld; overlap_grad_reduce = true; };\n"
	    "sim = { granularity = \"%s\"; mode = \"class\"; };\n",
	    r->id, (long long)L, (long long)h, (long long)a, (long long)s, (long long)(gpus / 8),
	    (long long)gb, (long long)s, (long long)tp, (long long)pp, (long long)dp,
	    tp > 1 ? "true" : "false", tp > 1 ? "true" : "false", vpp > 1 ? "interleaved" : "1f1b",
	    (long long)vpp, pp > 1 ? "stage" : "layer");
}

/* One MPT row: llm-foundry with PyTorch FSDP FULL_SHARD (zero = 3),
 * FlashAttention, bf16, activation checkpointing as the row states, the
 * yaml's dimensions (vocabulary 50,368, 4h MLP, no biases, ALiBi: no
 * position parameters, modelled as rotary). A100 sections: DGX A100 nodes
 * (8 x 200 Gb/s = the stated 1600 Gbps RoCE); H100 sections: dgx-h100 (the
 * network is not stated). */
static int row_mpt(struct val_row *r, char **f, const int *col, struct ts_error *err)
{
	int64_t L = 0, h = 0, a = 0, s = 0, gb = 0, mb = 0, gpus = 0;
	double nb = 0.0;
	bool ok = parse_i64(f[col[X_LAYERS]], &L) == 0 && parse_i64(f[col[X_HIDDEN]], &h) == 0 &&
		  parse_i64(f[col[X_HEADS]], &a) == 0 && parse_i64(f[col[X_SEQ]], &s) == 0 &&
		  parse_i64(f[col[X_GB]], &gb) == 0 && parse_i64(f[col[X_MB]], &mb) == 0 &&
		  parse_i64(f[col[X_GPUS]], &gpus) == 0 && parse_f64(f[col[X_PARAMS]], &nb) == 0;
	const char *gpu = f[col[X_GPU]];
	const char *cluster = strstr(gpu, "H100")	 ? "dgx-h100"
			      : strstr(gpu, "A100 80GB") ? "dgx-a100-80gb"
			      : strstr(gpu, "A100 40GB") ? "dgx-a100-40gb"
							 : NULL;
	if (!ok || !cluster || L < 1 || h < 1 || a < 1 || s < 1 || mb < 1 || gpus < 1 ||
	    !(nb > 0.0) || (gpus > 8 && gpus % 8) || gb % (mb * gpus) != 0)
		return TS_ESYNTAX;
	bool full = !strncmp(f[col[X_RECOMPUTE]], "full", 4);
	r->src = VAL_MPT;
	r->metric = VAL_TOKENS_PER_S_PER_GPU;
	r->hidden = h;
	r->micro_batch = mb;
	r->gpus = gpus;
	r->formula = formula_mosaic;
	r->source_flops = (double)gb * (6.0 * nb * 1e9 * (double)s +
					12.0 * (double)L * (double)h * (double)s * (double)s);
	r->source_peak = strstr(gpu, "H100") ? 989e12 : 312e12;
	need(r->needs, sizeof r->needs, true, "zero");
	int64_t gpn = gpus < 8 ? gpus : 8;
	return scenario_text(
	    r, err,
	    "name = \"%s\";\n"
	    "model = { family = \"gpt\"; layers = %lld; hidden = %lld; heads = %lld;"
	    " vocab = 50368; seq_len = %lld; position = \"rope\"; bias = false; };\n"
	    "cluster = \"%s\"; nodes = %lld; gpus_per_node = %lld;\n"
	    "training = { framework = \"fsdp\"; global_batch = %lld; micro_batch = %lld;"
	    " seq_len = %lld; precision = \"bf16\"; recompute = \"%s\"; attention = \"flash\";"
	    " iterations = 2; };\n"
	    "parallel = { zero = 3; };\n"
	    "sim = { granularity = \"layer\"; mode = \"class\"; };\n",
	    r->id, (long long)L, (long long)h, (long long)a, (long long)s, cluster,
	    (long long)(gpus / gpn), (long long)gpn, (long long)gb, (long long)mb, (long long)s,
	    full ? "full" : "none");
}

/* One TITAN row: torchtitan FSDP2 (zero = 3) on 8 DGX A100 80GB nodes
 * (the network is not stated), bf16, flash (SDPA), the public Llama
 * configs (models/llama3-8b, llama3-70b, llama2-13b, llama2-70b).
 * Activation checkpointing: "full" is full; "selective (layer)"
 * checkpoints every second layer and "selective (op)" reruns every op but
 * the saved outputs of every second matmul and of attention (torchtitan's
 * op policy), so both rerun about half a forward, which trainsim cannot
 * say: both are taken as full (an upper bound on the rerun; the two rows of
 * each model measure within 4 % of each other). trainsim's "selective"
 * would rerun nothing here, since flash attention saves no scores. */
static int row_titan(struct val_row *r, char **f, const int *col, struct ts_error *err)
{
	int64_t L = 0, h = 0, s = 0, gb = 0, mb = 0, gpus = 0;
	double nb = 0.0;
	bool ok = parse_i64(f[col[X_LAYERS]], &L) == 0 && parse_i64(f[col[X_HIDDEN]], &h) == 0 &&
		  parse_i64(f[col[X_SEQ]], &s) == 0 && parse_i64(f[col[X_GB]], &gb) == 0 &&
		  parse_i64(f[col[X_MB]], &mb) == 0 && parse_i64(f[col[X_GPUS]], &gpus) == 0 &&
		  parse_f64(f[col[X_PARAMS]], &nb) == 0;
	const char *model = s == 8192 && h == 4096   ? "llama3-8b"
			    : s == 8192 && h == 8192 ? "llama3-70b"
			    : s == 4096 && h == 5120 ? "llama2-13b"
			    : s == 4096 && h == 8192 ? "llama2-70b"
						     : NULL;
	if (!ok || !model || L < 1 || mb < 1 || gpus < 1 || !(nb > 0.0) || gpus % 8 ||
	    gb % (mb * gpus) != 0)
		return TS_ESYNTAX;
	const char *rc_in = f[col[X_RECOMPUTE]];
	const char *rc = !strcmp(rc_in, "none") ? "none" : "full";
	r->src = VAL_TITAN;
	r->metric = VAL_TOKENS_PER_S_PER_GPU;
	r->hidden = h;
	r->micro_batch = mb;
	r->gpus = gpus;
	r->formula = formula_titan;
	/* N as the table rounds it (8, 13, 70 B): the implied-MFU column only */
	r->source_flops =
	    (double)gb * (double)s * (6.0 * nb * 1e9 + 12.0 * (double)L * (double)h * (double)s);
	r->source_peak = 312e12;
	need(r->needs, sizeof r->needs, true, "zero");
	return scenario_text(r, err,
			     "name = \"%s\";\n"
			     "model = { base = \"%s\"; seq_len = %lld; };\n"
			     "cluster = \"dgx-a100-80gb\"; nodes = %lld; gpus_per_node = 8;\n"
			     "training = { framework = \"fsdp\"; global_batch = %lld;"
			     " micro_batch = %lld; seq_len = %lld; precision = \"bf16\";"
			     " recompute = \"%s\"; attention = \"flash\"; iterations = 2; };\n"
			     "parallel = { zero = 3; };\n"
			     "sim = { granularity = \"layer\"; mode = \"class\"; };\n",
			     r->id, model, (long long)s, (long long)(gpus / 8), (long long)gb,
			     (long long)mb, (long long)s, rc);
}

static int load_multi_measurements(const char *path, struct rows *v, struct ts_error *err)
{
	struct csv c;
	int rc = csv_open(&c, path, LINE_MAX_, MAX_FIELDS, err);
	if (rc) {
		csv_close(&c);
		return rc;
	}
	int col[X_NCOLS];
	while ((rc = csv_row(&c, xcols, X_NCOLS, col, err)) > 0) {
		int lineno = c.lineno, nf = c.nf;
		char **f = c.f;
		bool ok = true;
		for (int k = 0; ok && k < X_NCOLS; k++)
			ok = col[k] < nf;
		const char *id = ok ? f[col[X_ID]] : "";
		if (!ok || strlen(id) >= sizeof v->r->id) {
			rc = ts_error_set(err, TS_ESYNTAX, path, lineno, NULL,
					  "expected %d columns and an id of at most %zu characters",
					  X_NCOLS, sizeof v->r->id - 1);
			break;
		}
		int (*row)(struct val_row *, char **, const int *, struct ts_error *) =
		    !strncmp(id, "MEG24-", 6)	? row_meg24
		    : !strncmp(id, "MPT-", 4)	? row_mpt
		    : !strncmp(id, "TITAN-", 6) ? row_titan
						: NULL;
		if (!row)
			continue; /* another source's row */
		double value;
		if (parse_f64(f[col[X_VALUE]], &value) || !(value > 0.0)) {
			rc = ts_error_set(err, TS_ESYNTAX, path, lineno, "value",
					  "found \"%s\", expected a positive number",
					  f[col[X_VALUE]]);
			break;
		}
		struct val_row *r = push(v);
		if (!r) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			break;
		}
		snprintf(r->id, sizeof r->id, "%s", id);
		r->index = lineno - 1;
		r->measured = value;
		rc = row(r, f, col, err);
		if (rc == TS_ESYNTAX)
			rc = ts_error_set(
			    err, TS_ESYNTAX, path, lineno, NULL,
			    "row %s: expected whole-number layers, hidden, heads, "
			    "seq_len, global_batch, micro_batch (MPT, TITAN), gpus "
			    "(whole nodes of 8), tp and pp (MEG24; both or neither), a "
			    "known GPU or model, and global_batch divisible by the "
			    "data-parallel ranks",
			    id);
		if (rc)
			break;
		snprintf(r->source, sizeof r->source, "%s", source_names[r->src]);
		/* Fitting half: odd id numbers; MPT's ids are all odd (the source's
		 * other sections were not kept), so there every other row in id
		 * order: MPT-001, -005, -009, ... */
		int num = atoi(strchr(id, '-') + 1);
		r->fitting = r->src == VAL_MPT ? ((num + 1) / 2) % 2 == 1 : num % 2 == 1;
	}
	csv_close(&c);
	return rc;
}

int val_load_multi(const char *root, struct val_row **rows, size_t *n, struct ts_error *err)
{
	return load_pair(root, VAL_MULTI_CSV, load_multi_measurements, VAL_VTRAIN_MULTI_CSV,
			 load_vtrain_multi, rows, n, err);
}

/* ----------------------------------------- measurements_new.csv sources */

/* Columns of measurements_new.csv that we read, by header name. */
enum {
	N_ID,
	N_HIDDEN,
	N_MB,
	N_TP,
	N_PP,
	N_GPUS,
	N_SOURCE,
	N_EP,
	N_FIGURE,
	N_VALUE,
	N_SCEN,
	N_NCOLS
};
static const char *const ncols[N_NCOLS] = {"id",     "hidden", "micro_batch", "tp",
					   "pp",     "gpus",   "source_key",  "ep",
					   "figure", "value",  "scenario"};

/* Each row of measurements_new.csv states its own scenario (the file's
 * README gives the assumptions row by row in `notes`): the row is compared
 * on its `figure`, tokens per second per GPU (trainsim's tokens_per_s over
 * the row's GPUs) or seconds per iteration, never on a TFLOP/s figure that
 * a source counts its own way. */
static int load_new(const char *path, struct rows *v, struct ts_error *err)
{
	struct csv c;
	int rc = csv_open(&c, path, LINE_MAX_, MAX_FIELDS, err);
	if (rc) {
		csv_close(&c);
		return rc;
	}
	int col[N_NCOLS];
	while ((rc = csv_row(&c, ncols, N_NCOLS, col, err)) > 0) {
		int lineno = c.lineno, nf = c.nf;
		char **f = c.f;
		bool ok = true;
		for (int k = 0; ok && k < N_NCOLS; k++)
			ok = col[k] < nf;
		const char *id = ok ? f[col[N_ID]] : "";
		if (!ok || !*id || strlen(id) >= sizeof v->r->id) {
			rc = ts_error_set(err, TS_ESYNTAX, path, lineno, NULL,
					  "expected %d columns and an id of 1 to %zu characters",
					  N_NCOLS, sizeof v->r->id - 1);
			break;
		}
		enum val_source src;
		if (!val_source_parse(f[col[N_SOURCE]], &src) || src < VAL_MLPERF41) {
			rc = ts_error_set(err, TS_ESYNTAX, path, lineno, "source_key",
					  "row %s: found \"%s\", expected mlperf-training-v4.1, "
					  "mlperf-training-v5.0, pytorch-blog-fsdp-ibm-2024 or "
					  "nemo-automodel-perf (a new source needs its own "
					  "val_source)",
					  id, f[col[N_SOURCE]]);
			break;
		}
		const char *fig = f[col[N_FIGURE]];
		int64_t h = 0, mb = 0, tp = 1, pp = 1, ep = 1, gpus = 0;
		double value = 0.0;
		ok = (!strcmp(fig, "iteration_s") || !strcmp(fig, "tokens_per_s_per_gpu")) &&
		     parse_f64(f[col[N_VALUE]], &value) == 0 && value > 0.0 &&
		     parse_i64(f[col[N_GPUS]], &gpus) == 0 && gpus > 0 &&
		     parse_i64(f[col[N_HIDDEN]], &h) == 0 && h > 0 &&
		     parse_i64(f[col[N_MB]], &mb) == 0 && mb > 0 &&
		     (!*f[col[N_TP]] || parse_i64(f[col[N_TP]], &tp) == 0) &&
		     (!*f[col[N_PP]] || parse_i64(f[col[N_PP]], &pp) == 0) &&
		     (!*f[col[N_EP]] || parse_i64(f[col[N_EP]], &ep) == 0) && *f[col[N_SCEN]];
		if (!ok) {
			rc = ts_error_set(err, TS_ESYNTAX, path, lineno, NULL,
					  "row %s: expected figure iteration_s or "
					  "tokens_per_s_per_gpu, a positive value, whole-number "
					  "gpus, hidden and micro_batch, tp, pp and ep empty or "
					  "whole numbers, and a scenario",
					  id);
			break;
		}
		struct val_row *r = push(v);
		if (!r) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			break;
		}
		snprintf(r->id, sizeof r->id, "%s", id);
		snprintf(r->source, sizeof r->source, "%s", source_names[src]);
		r->src = src;
		r->index = lineno - 1;
		r->measured = value;
		r->metric =
		    !strcmp(fig, "iteration_s") ? VAL_ITERATION_S : VAL_TOKENS_PER_S_PER_GPU;
		r->fitting = false;
		r->hidden = h;
		r->micro_batch = mb;
		r->gpus = gpus;
		r->formula = "none: compared on the source's own figure";
		need(r->needs, sizeof r->needs, tp > 1, "tp");
		need(r->needs, sizeof r->needs, pp > 1, "pp");
		need(r->needs, sizeof r->needs, ep > 1, "ep");
		if ((rc = scenario_text(r, err, "%s\n", f[col[N_SCEN]])))
			break;
	}
	csv_close(&c);
	return rc;
}

int val_load_new(const char *root, struct val_row **rows, size_t *n, struct ts_error *err)
{
	struct rows v = {0};
	char path[1024];
	*rows = NULL;
	*n = 0;
	snprintf(path, sizeof path, "%s/%s", root ? root : ".", VAL_NEW_CSV);
	int rc = load_new(path, &v, err);
	if (rc) {
		ts_free(v.r, v.cap * sizeof *v.r);
		return rc;
	}
	struct val_row *out = v.n ? ts_realloc(v.r, v.cap * sizeof *v.r, v.n * sizeof *v.r) : NULL;
	if (v.n && !out) {
		ts_free(v.r, v.cap * sizeof *v.r);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	if (!v.n)
		ts_free(v.r, v.cap * sizeof *v.r);
	*rows = out;
	*n = v.n;
	return 0;
}

int val_load_all(const char *root, struct val_row **rows, size_t *n, struct ts_error *err)
{
	int (*const load[3])(const char *, struct val_row **, size_t *,
			     struct ts_error *) = {val_load, val_load_multi, val_load_new};
	struct val_row *part[3] = {NULL, NULL, NULL};
	size_t np[3] = {0, 0, 0}, total = 0;
	int rc = 0;
	*rows = NULL;
	*n = 0;
	for (int k = 0; k < 3 && !rc; k++) {
		rc = load[k](root, &part[k], &np[k], err);
		total += np[k];
	}
	struct val_row *all = NULL;
	if (!rc && total && !(all = ts_malloc(total * sizeof *all)))
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	size_t at = 0;
	for (int k = 0; k < 3; k++) {
		if (all && np[k])
			memcpy(all + at, part[k], np[k] * sizeof *all);
		at += np[k];
		val_rows_free(part[k], np[k]);
	}
	if (!rc) {
		*rows = all;
		*n = total;
	}
	return rc;
}

void val_rows_free(struct val_row *rows, size_t n)
{
	ts_free(rows, n * sizeof *rows);
}

/* ---------------------------------------------------------- predicting */

int val_run_text(const struct hw_catalog *cat, const struct work_calib *c, const char *text,
		 const char *label, struct ts_result *res, bool *modelled, struct ts_error *err)
{
	struct ts_scenario *sc = NULL;
	*modelled = false;
	int rc = ts_scenario_load_string(cat, text, label, NULL, 0, &sc, err);
	if (rc)
		return rc;
	/* not modelled yet: reported, not a failure */
	if (plan_check_modelled(sc, NULL) != TS_EUNSUPPORTED) {
		*modelled = true;
		rc = ts_run(sc, c, res, NULL, err);
	}
	ts_scenario_destroy(sc);
	return rc;
}

int val_predict(const struct hw_catalog *cat, const struct work_calib *c, const struct val_row *r,
		double *predicted, struct ts_error *err)
{
	struct ts_result res;
	bool modelled;
	int rc = val_run_text(cat, c, r->scenario, r->id, &res, &modelled, err);
	if (rc)
		return rc;
	if (!modelled) {
		*predicted = NAN;
		return 0;
	}
	double T = res.iteration_time_s;
	switch (r->metric) {
	case VAL_SAMPLES_PER_S:
		*predicted = res.samples_per_s;
		break;
	case VAL_TFLOPS_PER_GPU: /* the source's FLOPs, trainsim's time */
		*predicted = r->source_flops / T / (double)r->gpus / 1e12;
		break;
	case VAL_MFU_PERCENT:
		*predicted = 100.0 * r->source_flops / (T * (double)r->gpus * r->source_peak);
		break;
	case VAL_TOKENS_PER_S_PER_GPU:
		*predicted = res.tokens_per_s / (double)r->gpus;
		break;
	case VAL_ITERATION_S:
	default:
		*predicted = T;
		break;
	}
	return 0;
}

int val_predict_all(const struct hw_catalog *cat, const struct work_calib *c,
		    const struct val_row *rows, size_t n, const bool *use, double *pred,
		    struct ts_error *err)
{
	int *rcs = ts_calloc(n ? n : 1, sizeof *rcs);
	if (!rcs)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	long nn = (long)n;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic)
#endif
	for (long i = 0; i < nn; i++) {
		if (use && !use[i])
			continue;
		struct ts_error e = {0};
		rcs[i] = val_predict(cat, c, &rows[i], &pred[i], &e);
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (rcs[i]) /* again, single-threaded, for the message */
			rc = val_predict(cat, c, &rows[i], &pred[i], err);
	ts_free(rcs, (n ? n : 1) * sizeof *rcs);
	return rc;
}

bool val_unseen(const struct val_row *r)
{
	return !r->fitting || r->src == VAL_BERT || r->src == VAL_VTRAIN_MULTI;
}

int val_residuals(const struct hw_catalog *cat, const struct val_row *rows, size_t n,
		  const double *pred, const bool *unseen, struct band_resid **out, size_t *n_out,
		  struct ts_error *err)
{
	*out = NULL;
	*n_out = 0;
	struct band_resid *res = ts_calloc(n ? n : 1, sizeof *res);
	if (!res)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct val_row *r = &rows[i];
		if (!isfinite(pred[i]) || !(pred[i] > 0.0) || !(unseen ? unseen[i] : val_unseen(r)))
			continue;
		struct ts_scenario *sc = NULL;
		int rc = ts_scenario_load_string(cat, r->scenario, r->id, NULL, 0, &sc, err);
		if (rc) {
			ts_free(res, (n ? n : 1) * sizeof *res);
			return rc;
		}
		const struct hw_gpu_type *g = hw_cluster_gpu_type(sc->cluster);
		for (int l = 0; l < BAND_LEVELS; l++)
			band_regime_key(res[m].key[l], BAND_KEY_MAX, l, g ? g->name : "", sc->nodes,
					sc->training.framework);
		ts_scenario_destroy(sc);
		res[m].source = val_source_name(r->src);
		/* a time: measured over predicted; a rate: predicted over measured */
		res[m].r = r->metric == VAL_ITERATION_S ? log(r->measured / pred[i])
							: log(pred[i] / r->measured);
		m++;
	}
	if (!m) {
		ts_free(res, (n ? n : 1) * sizeof *res);
		return 0;
	}
	/* shrink to fit, so the caller frees *n_out elements */
	struct band_resid *fit = ts_malloc(m * sizeof *fit);
	if (!fit) {
		ts_free(res, (n ? n : 1) * sizeof *res);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	memcpy(fit, res, m * sizeof *fit);
	ts_free(res, (n ? n : 1) * sizeof *res);
	*out = fit;
	*n_out = m;
	return 0;
}

double val_error(const struct val_row *r, double predicted)
{
	return (predicted - r->measured) / r->measured;
}

/* ---------------------------------------------------------- statistics */

static void acc_add(struct val_err_stats *s, double e)
{
	double a = fabs(e);
	s->mean += e;
	s->mape += a;
	if (a > s->worst)
		s->worst = a;
	s->n++;
}

static void acc_done(struct val_err_stats *s)
{
	if (s->n) {
		s->mean /= (double)s->n;
		s->mape /= (double)s->n;
	}
}

static void group_add(struct val_group *g, size_t *ng, int64_t key, double e)
{
	size_t i = 0;
	while (i < *ng && g[i].key < key)
		i++;
	if (i == *ng || g[i].key != key) {
		if (*ng == VAL_MAX_GROUPS)
			return;
		memmove(&g[i + 1], &g[i], (*ng - i) * sizeof *g);
		memset(&g[i], 0, sizeof *g);
		g[i].key = key;
		(*ng)++;
	}
	acc_add(&g[i].e, e);
}

void val_summarize(const struct val_row *rows, size_t n, const bool *use, const double *pred,
		   struct val_summary *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		if (use && !use[i])
			continue;
		const struct val_row *r = &rows[i];
		if (isnan(pred[i])) {
			if ((unsigned)r->src < VAL_SOURCE_COUNT_)
				out->by_source[r->src].not_run++;
			continue;
		}
		double e = val_error(r, pred[i]);
		if ((unsigned)r->src < VAL_SOURCE_COUNT_) {
			acc_add(&out->by_source[r->src], e);
			acc_add(&out->half[r->src][r->fitting ? 0 : 1], e);
		}
		if (r->src != VAL_VTRAIN)
			continue;
		acc_add(r->fitting ? &out->fitting : &out->held_out, e);
		group_add(out->by_hidden, &out->n_hidden, r->hidden, e);
		group_add(out->by_micro_batch, &out->n_micro_batch, r->micro_batch, e);
	}
	for (int s = 0; s < VAL_SOURCE_COUNT_; s++) {
		acc_done(&out->by_source[s]);
		acc_done(&out->half[s][0]);
		acc_done(&out->half[s][1]);
	}
	acc_done(&out->fitting);
	acc_done(&out->held_out);
	for (size_t i = 0; i < out->n_hidden; i++)
		acc_done(&out->by_hidden[i].e);
	for (size_t i = 0; i < out->n_micro_batch; i++)
		acc_done(&out->by_micro_batch[i].e);
}

/* ---------------------------------------------------------------- fit */

/* gemm_k0 is not fitted here: it comes from OpenXLA's published H100 GEMM
 * table (configs/calibration/compute.cfg), so no source's iteration times
 * decide it and leaving a source out cannot move it. */
const size_t val_fit_keys[VAL_FIT_COUNT] = {5 /* launch_s */, 6 /* tc_sustain */};

/* The sources the fit spans: each weighs the same in the objective, however
 * many rows it has (vTrain's 124 fitting rows would drown MPT's 22). vTrain's
 * multi-node rows are left out: up to 512 GPUs with pipeline schedules, one
 * pass over their fitting half takes 15-30 s, too slow for the hundred
 * passes of a fit, so all 109 are checked, none fitted. */
static const enum val_source fit_sources[] = {VAL_VTRAIN, VAL_MEG24, VAL_MPT, VAL_TITAN};
#define FIT_NSRC (sizeof fit_sources / sizeof fit_sources[0])

bool val_source_fitted(enum val_source s)
{
	for (size_t i = 0; i < FIT_NSRC; i++)
		if (fit_sources[i] == s)
			return true;
	return false;
}

/* Bounds and normalising step of each constant of struct work_calib, in
 * work_calib_field order: wide enough to hold every physically sensible
 * value, narrow enough that the simplex cannot wander into nonsense. */
static const double fit_lo[WORK_CALIB_COUNT] = {0.0, 16.0, 16.0, 0.05, 0.3, 0.0, 0.3, 0.0};
static const double fit_hi[WORK_CALIB_COUNT] = {8.0, 512.0, 512.0, 1.0, 1.0, 500e-6, 1.0, 1.0};
static const double fit_step[WORK_CALIB_COUNT] = {0.4, 64.0, 64.0, 0.1, 0.05, 10e-6, 0.05, 0.05};

/* The start scan over tc_sustain (the others at the start values), then at
 * most FIT_ITERS simplex iterations: each evaluation simulates 156 rows,
 * so the fit is held to about a hundred of them. */
static const double fit_scan[] = {0.6, 0.7, 0.8, 0.9, 1.0};
#define FIT_ITERS 60

struct fit_ctx {
	const struct hw_catalog *cat;
	struct work_calib base; /* centre of the normalised coordinates */
	const struct val_row *rows;
	size_t n;
	const bool *use;
	double *pred;
	size_t evals;
	int rc;
	struct ts_error *err;
};

/* Constants of point x (normalised) into *c; returns the distance outside
 * the bounds (0 inside). */
static double point_calib(const struct fit_ctx *f, const gsl_vector *x, struct work_calib *c)
{
	double out = 0.0;
	struct work_calib b = f->base;
	*c = f->base;
	for (size_t i = 0; i < VAL_FIT_COUNT; i++) {
		size_t k = val_fit_keys[i];
		double v = *work_calib_field(&b, k) + fit_step[k] * gsl_vector_get(x, i);
		if (v < fit_lo[k]) {
			out += (fit_lo[k] - v) / fit_step[k];
			v = fit_lo[k];
		} else if (v > fit_hi[k]) {
			out += (v - fit_hi[k]) / fit_step[k];
			v = fit_hi[k];
		}
		*work_calib_field(c, k) = v;
	}
	return out;
}

/* Mean over fit_sources of each source's MAPE on its fitting half. */
static double fit_mape(struct fit_ctx *f, const struct work_calib *c)
{
	if (f->rc)
		return GSL_POSINF;
	f->evals++;
	f->rc = val_predict_all(f->cat, c, f->rows, f->n, f->use, f->pred, f->err);
	if (f->rc)
		return GSL_POSINF;
	struct val_summary s;
	val_summarize(f->rows, f->n, f->use, f->pred, &s);
	double sum = 0.0;
	size_t k = 0;
	for (size_t i = 0; i < FIT_NSRC; i++)
		if (s.half[fit_sources[i]][0].n) {
			sum += s.half[fit_sources[i]][0].mape;
			k++;
		}
	return k ? sum / (double)k : HUGE_VAL;
}

static double fit_objective(const gsl_vector *x, void *params)
{
	struct fit_ctx *f = params;
	struct work_calib c;
	double outside = point_calib(f, x, &c);
	return fit_mape(f, &c) + outside;
}

/* Smallest gain in the objective (a fraction: 0.01 points of MAPE) for
 * which a new point replaces the best one. The objective is flat near its
 * minimum, so without it a fit started from its own result would
 * wander along the flat; with it, `trainsim validate --fit` started from
 * the committed constants gives them back. */
#define FIT_MIN_GAIN 1e-4

/* The start (objective start_m), the scan points, then the simplex from
 * the best of them, into *best (its objective in *best_m). Returns 0 or
 * the first error. */
static int fit_run(struct fit_ctx *f, double start_m, struct work_calib *best, double *best_m)
{
	struct work_calib c = f->base;
	*best = f->base;
	*best_m = start_m;
	for (size_t i = 0; i < sizeof fit_scan / sizeof fit_scan[0] && !f->rc; i++) {
		c.tc_sustain = fit_scan[i];
		double m = fit_mape(f, &c);
		if (m < *best_m - FIT_MIN_GAIN) {
			*best_m = m;
			*best = c;
		}
	}
	if (f->rc)
		return f->rc;
	f->base = *best;

	gsl_multimin_function fn = {.f = fit_objective, .n = VAL_FIT_COUNT, .params = f};
	gsl_vector *x = gsl_vector_calloc(VAL_FIT_COUNT);
	gsl_vector *step = gsl_vector_alloc(VAL_FIT_COUNT);
	gsl_multimin_fminimizer *m =
	    gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, VAL_FIT_COUNT);
	int rc = 0;
	if (!x || !step || !m) {
		rc = ts_error_set(f->err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	/* one normalising step per constant: 10 us of launch_s, 0.05 of
	 * tc_sustain */
	gsl_vector_set_all(step, 1.0);
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int status = gsl_multimin_fminimizer_set(m, &fn, x, step);
	for (int it = 0; status == GSL_SUCCESS && it < FIT_ITERS && !f->rc; it++) {
		if (gsl_multimin_fminimizer_iterate(m))
			break;
		/* stop when the simplex is smaller than 5 % of a step */
		if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 5e-2) == GSL_SUCCESS)
			break;
	}
	gsl_set_error_handler(old);
	if (f->rc) {
		rc = f->rc;
		goto out;
	}
	if (gsl_multimin_fminimizer_minimum(m) < *best_m - FIT_MIN_GAIN) {
		point_calib(f, gsl_multimin_fminimizer_x(m), best);
		*best_m = fit_mape(f, best);
		rc = f->rc;
	}
out:
	if (m)
		gsl_multimin_fminimizer_free(m);
	gsl_vector_free(x);
	gsl_vector_free(step);
	return rc;
}

int val_fit(const struct hw_catalog *cat, const struct work_calib *start,
	    const struct val_row *rows, size_t n, struct val_fit_result *out, struct ts_error *err)
{
	return val_fit_without(cat, start, rows, n, VAL_SOURCE_COUNT_, out, err);
}

int val_fit_without(const struct hw_catalog *cat, const struct work_calib *start,
		    const struct val_row *rows, size_t n, enum val_source without,
		    struct val_fit_result *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	out->calib = *start;
	bool *use = ts_calloc(n ? n : 1, sizeof *use);
	double *pred = ts_calloc(n ? n : 1, sizeof *pred);
	int rc = 0;
	if (!use || !pred) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < FIT_NSRC; k++)
			use[i] = use[i] || rows[i].src == fit_sources[k];
		use[i] = use[i] && rows[i].fitting && rows[i].src != without;
		out->rows += use[i];
	}
	if (!out->rows) {
		rc = ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				  "no fitting rows (the fitting halves of vTrain, MEG24, MPT and "
				  "TITAN%s%s) to fit on",
				  without < VAL_SOURCE_COUNT_ ? " but " : "",
				  without < VAL_SOURCE_COUNT_ ? source_names[without] : "");
		goto done;
	}
	struct fit_ctx f = {
	    .cat = cat, .base = *start, .rows = rows, .n = n, .use = use, .pred = pred, .err = err};
	out->mape_before = fit_mape(&f, start);
	rc = fit_run(&f, out->mape_before, &out->calib, &out->mape_after);
	if (!rc)
		rc = f.rc;
	out->evaluations = f.evals;
done:
	ts_free(use, (n ? n : 1) * sizeof *use);
	ts_free(pred, (n ? n : 1) * sizeof *pred);
	return rc;
}
