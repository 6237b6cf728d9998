/* Compute time of the ops on a GPU, the calibration constants it depends on,
 * and the per-micro-batch cost memo.
 * SPDX-License-Identifier: MIT */

/*
 * Three regimes (DESIGN.md, "Models of the hardware and the work"):
 * - GEMMs run at the dtype's dense peak times eta, where eta is the maximum
 *   achievable matmul fraction (a measured catalog figure: the best shape
 *   and the best iteration of a benchmark) times the fraction of it that
 *   kernels sustain back to back in a training step (tc_sustain: clocks
 *   drop at the power limit, real shapes miss the best one), reduced by wave
 *   quantisation (the last wave of output tiles leaves SMs idle) and by a
 *   fixed per-tile cost worth K0 elements of reduction, which makes short-K
 *   GEMMs slow: the exposed part (gemm_k0) of writing the tile's outputs
 *   at the lower of HBM bandwidth and the SMs' own way out, so K0 follows
 *   the GPU's FLOP per byte of that bandwidth (work_gemm_k0).
 *   Thin GEMMs are held to the roofline: never faster than their bytes at
 *   achievable HBM bandwidth.
 * - Flash attention runs at a fixed fraction of the peak (times tc_sustain,
 *   as GEMMs); causal, it skips the key blocks above the diagonal and
 *   computes the diagonal ones in full (work_flash_causal_fraction).
 * - Everything else streams bytes at achievable HBM bandwidth.
 * Nothing here knows about launches, streams or communication: a kernel's
 * time is its device time, and the host model adds launch costs.
 *
 * work_costs_compute fills a fixed-size record from stack arrays: no
 * allocation, a few dozen divisions, so a fitter can re-run it for every
 * trial value of the constants.
 */
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "base/units.h"
#include "base/cfg.h"
#include "work/compute.h"
#include "work/memory.h"

/* ------------------------------------------------------------ constants */

static const char *const calib_keys[WORK_CALIB_COUNT] = {
    "gemm_k0", "tile_m",   "tile_n",	 "flash_eff",
    "hbm_eff", "launch_s", "tc_sustain", "comm_compute_slowdown",
};

const char *work_calib_key(size_t i)
{
	return i < WORK_CALIB_COUNT ? calib_keys[i] : NULL;
}

double *work_calib_field(struct work_calib *c, size_t i)
{
	switch (i) {
	case 0:
		return &c->gemm_k0;
	case 1:
		return &c->tile_m;
	case 2:
		return &c->tile_n;
	case 3:
		return &c->flash_eff;
	case 4:
		return &c->hbm_eff;
	case 5:
		return &c->launch_s;
	case 6:
		return &c->tc_sustain;
	case 7:
		return &c->comm_compute_slowdown;
	default:
		return NULL;
	}
}

/* SMs a userbuffers comm kernel holds beside each GEMM role, by phase
 * (fwd, dgrad, wgrad); 0 = not overlapped. Sources: work_tpo_slowdown. */
struct tpo_role {
	const char *op;
	double sm[2][WORK_PHASE_COUNT_]; /* [tp >= 8][phase] */
};

static const struct tpo_role tpo_roles[] = {
    {"qkv", {{1.0, 4.0, 4.0}, {1.0, 2.0, 24.0}}},
    {"proj", {{24.0, 1.0, 0.0}, {24.0, 1.0, 0.0}}},
    {"fc1", {{1.0, 2.0, 4.0}, {1.0, 2.0, 2.0}}},
    {"fc2", {{1.0, 1.0, 0.0}, {8.0, 1.0, 0.0}}},
};

double work_tpo_slowdown(const char *op_name, enum work_phase ph, uint32_t tp, uint32_t sms,
			 double extra)
{
	if (tp <= 1 || !op_name || ph >= WORK_PHASE_COUNT_)
		return 0.0;
	const char *name = strcmp(op_name, "qkv_fc1") ? op_name : "qkv";
	for (size_t i = 0; i < sizeof tpo_roles / sizeof tpo_roles[0]; i++) {
		if (strcmp(tpo_roles[i].op, name))
			continue;
		double n = tpo_roles[i].sm[tp >= 8][ph];
		if (n <= 0.0 || (double)sms <= n)
			return 0.0;
		return n / ((double)sms - n) + extra;
	}
	return 0.0;
}

/* Keep in step with configs/calibration/compute.cfg (a test compares them);
 * the sources are there. */
struct work_calib work_calib_defaults(void)
{
	struct work_calib c = {
	    .gemm_k0 = 0.929,
	    .tile_m = 128.0,
	    .tile_n = 128.0,
	    .flash_eff = 0.60,
	    .hbm_eff = 0.88,
	    .launch_s = 73.59e-6,
	    .tc_sustain = 0.7932,
	    .comm_compute_slowdown = 0.0,
	};
	return c;
}

int work_calib_check(size_t i, double v, char *why, size_t n)
{
	static const double lo[WORK_CALIB_COUNT] = {0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0};
	/* gemm_k0 is a fraction of a tile's output write (work_gemm_k0); 64 is
	 * far above any fit (0.47 jointly, 30 at calibrate's bound of 64 times it) and below
	 * the element counts it was given in before (60 to 660) */
	static const double hi[WORK_CALIB_COUNT] = {64.0, 4096.0, 4096.0, 1.0, 1.0, 1.0, 1.0, 1.0};
	static const int lo_open[WORK_CALIB_COUNT] = {0, 0, 0, 1, 1, 0, 1, 0};
	if (!isfinite(v) || v < lo[i] || (lo_open[i] && v == lo[i]) || v > hi[i]) {
		snprintf(
		    why, n, "found %g, expected a number in %s%g, %g]%s", v, lo_open[i] ? "(" : "[",
		    lo[i], hi[i],
		    i == 0 && v > hi[i]
			? " (gemm_k0 is the unhidden fraction of a GEMM tile's output write, "
			  "no longer a count of elements of K: see configs/calibration/compute.cfg)"
			: "");
		return TS_ERANGE;
	}
	return 0;
}

static int calib_validate(const struct work_calib *c, struct ts_error *err)
{
	struct work_calib tmp = *c;
	for (size_t i = 0; i < WORK_CALIB_COUNT; i++) {
		char why[300];
		int rc = work_calib_check(i, *work_calib_field(&tmp, i), why, sizeof why);
		if (rc)
			return ts_error_set(err, TS_EINVALID, NULL, 0, calib_keys[i], "%s", why);
	}
	return 0;
}

/* -------------------------------------------------------------- loading */

/* Read one `{ value = ...; source = "..."; [fitted_on = "...";] }` group. */
static int load_one(const char *file, const config_setting_t *grp, size_t i, double *out,
		    struct ts_error *err)
{
	static const char *const inner[] = {"value", "source", "fitted_on"};
	const char *key = calib_keys[i];
	char why[300], text[4096], vkey[CFG_KEY_MAX];
	const config_setting_t *v;
	int rc;
	if (!config_setting_is_group(grp))
		return cfg_fail(err, TS_ETYPE, grp, file, key,
				"found %s, expected a group { value = ...; source = \"...\"; }",
				cfg_type_name(grp));
	if ((rc = cfg_check_keys(grp, file, key, inner, 3, err)) ||
	    (rc = cfg_get_string(grp, "source", true, text, sizeof text, file, key, err)) ||
	    (rc = cfg_get_string(grp, "fitted_on", false, text, sizeof text, file, key, err)) < 0 ||
	    (rc = cfg_member(grp, "value", true, file, key, "a number", &v, err)))
		return rc;
	cfg_key_join(vkey, key, "value");
	double x;
	switch (config_setting_type(v)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		x = (double)config_setting_get_int64(v);
		break;
	case CONFIG_TYPE_FLOAT:
		x = config_setting_get_float(v);
		break;
	case CONFIG_TYPE_STRING: /* only launch_s takes a unit */
		if (i != 5)
			return cfg_fail(err, TS_ETYPE, v, file, vkey,
					"found %s, expected a plain number",
					cfg_found(v, text, sizeof text));
		rc =
		    ts_units_parse(config_setting_get_string(v), TS_UNIT_TIME, &x, why, sizeof why);
		if (rc)
			return cfg_fail(err, rc, v, file, vkey, "%s", why);
		break;
	default:
		return cfg_fail(err, TS_ETYPE, v, file, vkey, "found %s, expected a number",
				cfg_type_name(v));
	}
	rc = work_calib_check(i, x, why, sizeof why);
	if (rc)
		return cfg_fail(err, rc, v, file, vkey, "%s", why);
	*out = x;
	return 0;
}

int work_calib_load(const char *root, struct work_calib *out, struct ts_error *err)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/configs/calibration/compute.cfg", root ? root : ".");
	config_t cfg;
	config_init(&cfg);
	int rc = cfg_load_file(&cfg, path, err);
	if (rc)
		goto done;
	const config_setting_t *top = config_root_setting(&cfg);
	if ((rc = cfg_check_keys(top, path, "", calib_keys, WORK_CALIB_COUNT, err)))
		goto done;
	struct work_calib tmp;
	for (size_t i = 0; i < WORK_CALIB_COUNT; i++) {
		const config_setting_t *grp = config_setting_get_member(top, calib_keys[i]);
		if (!grp) {
			rc = ts_error_set(err, TS_EINVALID, path, 0, calib_keys[i],
					  "missing constant, expected a group "
					  "{ value = ...; source = \"...\"; }");
			goto done;
		}
		rc = load_one(path, grp, i, work_calib_field(&tmp, i), err);
		if (rc)
			goto done;
	}
	*out = tmp;
done:
	config_destroy(&cfg);
	return rc;
}

/* ------------------------------------------------------------- the model */

double work_gemm_eff_batched(const struct hw_gpu_type *g, enum ts_dtype d,
			     const struct work_calib *c, double m, double n, double k, double batch)
{
	if ((unsigned)d >= TS_DTYPE_COUNT_ || g->peak_flops[d] <= 0.0 || g->mamf_eff[d] <= 0.0)
		return 0.0;
	if (!(m > 0.0 && n > 0.0 && k > 0.0 && batch > 0.0) || g->sms == 0)
		return 0.0;
	double sms = (double)g->sms;
	double tiles = ceil(m / c->tile_m) * ceil(n / c->tile_n) * ceil(batch);
	double waves = ceil(tiles / sms);
	double k0 = work_gemm_k0(g, d, c);
	double eta = c->tc_sustain * g->mamf_eff[d] * (tiles / (waves * sms)) * (k / (k + k0));
	return eta > 1.0 ? 1.0 : eta;
}

double work_gemm_k0(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c)
{
	if ((unsigned)d >= TS_DTYPE_COUNT_)
		return 0.0;
	double bw = work_hbm_Bps(g, c);
	if (!(bw > 0.0))
		return 0.0;
	/* a tile's main loop does 2·tm·tn FLOPs per element of K at the
	 * matmul rate; writing its tm·tn outputs of e bytes at the tile's
	 * share of the output bandwidth takes as long as e·rate/(2·bw)
	 * elements of K (the SM count and the tile size cancel); the outputs
	 * leave at the lower of achievable HBM bandwidth and the SMs' own
	 * way out where the catalog gives it */
	double sm_bw = (double)g->sms * g->sm_out_Bps;
	if (sm_bw > 0.0 && sm_bw < bw)
		bw = sm_bw;
	double rate = g->peak_flops[d] * g->mamf_eff[d];
	return c->gemm_k0 * work_act_bytes(d) * rate / (2.0 * bw);
}

double work_flash_causal_fraction(double seq_k)
{
	if (!(seq_k > 0.0))
		return 0.5;
	double nb = ceil(seq_k / WORK_FLASH_BLOCK);
	return (nb + 1.0) / (2.0 * nb);
}

/* FlashAttention-2 forward + backward on A100, TFLOP/s (compute.h) */
static const double flash_seq[6] = {512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0};
static const double flash_hd64[6] = {132.0, 153.0, 162.0, 171.0, 175.0, 176.0};
static const double flash_hd128[6] = {150.0, 173.0, 187.0, 196.0, 201.0, 203.0};

/* the table at seq_k keys (log-linear, flat outside) */
static double flash_at(const double *t, double seq_k)
{
	if (seq_k <= flash_seq[0])
		return t[0];
	for (int i = 1; i < 6; i++)
		if (seq_k <= flash_seq[i]) {
			double u = log2(seq_k / flash_seq[i - 1]);
			return t[i - 1] + u * (t[i] - t[i - 1]);
		}
	return t[5];
}

double work_flash_shape(double seq_k, double hd)
{
	if (!(seq_k > 0.0) || !(hd > 0.0))
		return 1.0;
	double v = (hd - 64.0) / 64.0;
	v = v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
	double r = (1.0 - v) * flash_at(flash_hd64, seq_k) + v * flash_at(flash_hd128, seq_k);
	return r / flash_hd128[2];
}

double work_gemm_eff(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c,
		     double m, double n, double k)
{
	return work_gemm_eff_batched(g, d, c, m, n, k, 1.0);
}

double work_hbm_Bps(const struct hw_gpu_type *g, const struct work_calib *c)
{
	double eff = g->hbm_eff > 0.0 ? g->hbm_eff : c->hbm_eff;
	return g->hbm_Bps * eff;
}

/* Seconds of `flops` of batched GEMMs of one shape. */
static double gemm_s(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c,
		     double flops, double m, double n, double k, double batch)
{
	if (flops <= 0.0)
		return 0.0;
	double eta = work_gemm_eff_batched(g, d, c, m, n, k, batch);
	return eta > 0.0 ? flops / (g->peak_flops[d] * eta) : HUGE_VAL;
}

static double bytes_s(const struct hw_gpu_type *g, const struct work_calib *c, double bytes)
{
	if (bytes <= 0.0)
		return 0.0;
	double bw = work_hbm_Bps(g, c);
	return bw > 0.0 ? bytes / bw : HUGE_VAL;
}

/* Seconds of `count` batched attention GEMMs of one shape sharing `flops`,
 * held to the roofline of their operands: each reads an s x s score (or
 * probability) matrix and writes or reads the s x d ones, so with head_dim
 * 64-128 they are as much memory- as compute-bound. */
static double attn_gemm_s(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c,
			  double flops, double m, double n, double k, double batch, double count)
{
	double t = gemm_s(g, d, c, flops, m, n, k, batch);
	double tb = bytes_s(g, c, count * batch * work_act_bytes(d) * (m * k + k * n + m * n));
	return t > tb ? t : tb;
}

double work_op_time(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c,
		    const struct work_op *op, enum work_phase ph)
{
	if ((unsigned)d >= TS_DTYPE_COUNT_ || (unsigned)ph >= WORK_PHASE_COUNT_)
		return HUGE_VAL;
	double flops = ph == WORK_FWD	  ? op->fwd_flops
		       : ph == WORK_DGRAD ? op->dgrad_flops
					  : op->wgrad_flops;
	double bytes = ph == WORK_FWD	  ? op->fwd_bytes
		       : ph == WORK_DGRAD ? op->dgrad_bytes
					  : op->wgrad_bytes;
	enum ts_dtype da = d == TS_FP8 ? TS_BF16 : d; /* attention stays in bf16 under fp8 */
	switch (op->kind) {
	case WORK_GEMM: {
		double t;
		if (ph == WORK_FWD)
			t = gemm_s(g, d, c, flops, op->m, op->n, op->k, op->batch);
		else if (ph == WORK_DGRAD)
			t = gemm_s(g, d, c, flops, op->m, op->k, op->n, op->batch);
		else
			t = gemm_s(g, d, c, flops, op->k, op->n, op->m, op->batch);
		double tb = bytes_s(g, c, bytes);
		return t > tb ? t : tb;
	}
	case WORK_ATTN_CORE: {
		double s = op->m, hd = op->k, B = op->batch;
		double t = bytes_s(g, c, bytes);
		if (ph == WORK_FWD) /* QK^T (s x s x d), AV (s x d x s) */
			t += attn_gemm_s(g, da, c, flops / 2.0, s, s, hd, B, 1.0) +
			     attn_gemm_s(g, da, c, flops / 2.0, s, hd, s, B, 1.0);
		else if (ph == WORK_DGRAD) /* dP (s x s x d); dV, dQ, dK (s x d x s) */
			t += attn_gemm_s(g, da, c, flops / 4.0, s, s, hd, B, 1.0) +
			     attn_gemm_s(g, da, c, 3.0 * flops / 4.0, s, hd, s, B, 3.0);
		return t;
	}
	case WORK_ATTN_FLASH: {
		if (flops <= 0.0)
			return 0.0;
		double eff = (g->flash_eff > 0.0 ? g->flash_eff : c->flash_eff) *
			     work_flash_shape(op->n, op->k);
		double peak = g->peak_flops[da] * eff * c->tc_sustain;
		if (!(peak > 0.0))
			return HUGE_VAL;
		return (op->causal ? work_flash_causal_fraction(op->n) : 1.0) * flops / peak;
	}
	case WORK_MEMBOUND:
	case WORK_EMBED:
	default:
		return bytes_s(g, c, bytes);
	}
}

double work_optimizer_time(const struct hw_gpu_type *g, const struct work_calib *c,
			   double params_on_rank, double bytes_per_param_touched)
{
	return bytes_s(g, c, params_on_rank * bytes_per_param_touched);
}

/* ------------------------------------------------------------------ memo */

/* Time every op of ops[0..n) into costs[]; sum phases and kernels. */
static void cost_ops(const struct hw_gpu_type *g, enum ts_dtype d, const struct work_calib *c,
		     const struct work_op *ops, size_t n, struct work_op_cost *costs, double *fwd,
		     double *dgrad, double *wgrad, uint32_t *kf, uint32_t *kb, double *params)
{
	*fwd = *dgrad = *wgrad = *params = 0.0;
	*kf = *kb = 0;
	for (size_t i = 0; i < n; i++) {
		struct work_op_cost *oc = &costs[i];
		oc->op = ops[i];
		oc->fwd_s = work_op_time(g, d, c, &ops[i], WORK_FWD);
		oc->dgrad_s = work_op_time(g, d, c, &ops[i], WORK_DGRAD);
		oc->wgrad_s = work_op_time(g, d, c, &ops[i], WORK_WGRAD);
		*fwd += oc->fwd_s;
		*dgrad += oc->dgrad_s;
		*wgrad += oc->wgrad_s;
		*kf += ops[i].kernels;
		*kb += ops[i].bwd_kernels;
		*params += ops[i].params;
	}
}

int work_costs_compute(const struct ts_model *m, const struct work_shape *s,
		       const struct hw_gpu_type *g, const struct work_calib *c,
		       struct work_costs *out, struct ts_error *err)
{
	int rc = calib_validate(c, err);
	if (rc)
		return rc;
	if ((unsigned)s->dtype >= TS_DTYPE_COUNT_ || g->peak_flops[s->dtype] <= 0.0 ||
	    g->mamf_eff[s->dtype] <= 0.0)
		return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "training.precision",
				    "GPU %s has no %s tensor-core peak in the catalog", g->name,
				    ts_dtype_name(s->dtype));
	if (s->dtype == TS_FP8 && g->peak_flops[TS_BF16] <= 0.0)
		return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "training.precision",
				    "fp8 on %s: attention needs a bf16 peak, the catalog has none",
				    g->name);
	if (!(g->hbm_Bps > 0.0) || g->sms == 0)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "gpu",
				    "GPU %s has no memory bandwidth or SM count", g->name);

	struct work_op ops[WORK_MAX_OPS];
	size_t n;
	memset(out, 0, sizeof *out);

	rc = work_layer_ops(m, s, ops, WORK_MAX_OPS, &n, err);
	if (rc)
		return rc;
	cost_ops(g, s->dtype, c, ops, n, out->ops, &out->layer_fwd_s, &out->layer_dgrad_s,
		 &out->layer_wgrad_s, &out->layer_kernels_fwd, &out->layer_kernels_bwd,
		 &out->layer_params);
	out->nops = n;
	double cp = s->cp > 1 ? (double)s->cp : 1.0;
	double T = (double)s->micro_batch * (double)s->seq_len / cp; /* tokens on this rank */
	double t = (double)s->tp;
	double e = work_act_bytes(s->dtype);
	out->layer_fwd_flops = work_layer_flops_per_token(m, s->seq_len) * T / t;
	for (size_t i = 0; i < n; i++)
		out->layer_exec_fwd_flops += ops[i].fwd_flops;
	out->layer_input_bytes = e * (s->sp ? T / t : T) * (double)m->hidden;
	for (int r = 0; r < WORK_RECOMPUTE_COUNT_; r++)
		out->layer_act_bytes[r] =
		    work_activation_bytes(ops, n, out->layer_input_bytes, (enum work_recompute)r);
	out->layer_saved_bytes = out->layer_act_bytes[WORK_RECOMPUTE_NONE];
	out->layer_recompute_s[WORK_RECOMPUTE_FULL] = out->layer_fwd_s;
	out->layer_recompute_flops[WORK_RECOMPUTE_FULL] = out->layer_exec_fwd_flops;
	for (size_t i = 0; i < n; i++)
		if (ops[i].selective_bytes > 0.0) {
			out->layer_recompute_s[WORK_RECOMPUTE_SELECTIVE] += out->ops[i].fwd_s;
			out->layer_recompute_flops[WORK_RECOMPUTE_SELECTIVE] += ops[i].fwd_flops;
		}
	for (size_t i = 0; i < n; i++)
		if (ops[i].sac_rerun > 0.0) {
			out->layer_recompute_s[WORK_RECOMPUTE_OP] +=
			    ops[i].sac_rerun * out->ops[i].fwd_s;
			out->layer_recompute_flops[WORK_RECOMPUTE_OP] +=
			    ops[i].sac_rerun * ops[i].fwd_flops;
			out->layer_recompute_kernels[WORK_RECOMPUTE_OP] += ops[i].kernels;
		}
	out->layer_recompute_kernels[WORK_RECOMPUTE_FULL] = out->layer_kernels_fwd;
	if (out->layer_recompute_s[WORK_RECOMPUTE_SELECTIVE] > 0.0)
		out->layer_recompute_kernels[WORK_RECOMPUTE_SELECTIVE] = out->layer_kernels_fwd;
	out->layer_tp_fwd = m->parallel_block ? 1u : 2u;
	out->layer_tp_bwd =
	    m->parallel_block && m->parallel_norms == 1 && m->num_experts == 0 ? 1u : 2u;
	if (m->num_experts > 0) {
		out->layer_a2a_bytes =
		    e * T * (double)m->top_k * m->capacity_factor * (double)m->hidden;
		out->layer_a2a_fwd = 2;
		out->layer_a2a_bwd = 2;
		out->layer_a2a_buf_bytes = 2.0 * out->layer_a2a_bytes;
	}
	if (cp > 1.0) {
		int64_t kv_l = m->kv_heads >= s->tp ? m->kv_heads / s->tp : 1;
		out->layer_cp_kv_bytes = e * T * 2.0 * (double)(kv_l * m->head_dim);
		out->layer_cp_steps = (uint32_t)(cp - 1.0);
		out->layer_cp_bwd_bytes = 2.0 * out->layer_cp_kv_bytes;
		int64_t q_l = m->heads >= s->tp ? m->heads / s->tp : 1;
		out->layer_cp_buf_fwd_bytes = cp * out->layer_cp_kv_bytes;
		out->layer_cp_buf_bwd_bytes =
		    2.0 * out->layer_cp_bwd_bytes + e * T * (double)(q_l * m->head_dim);
		out->layer_cp_a2a_out_bytes = e * T * (double)(q_l * m->head_dim);
		out->layer_cp_a2a_in_bytes = out->layer_cp_a2a_out_bytes + out->layer_cp_kv_bytes;
	}

	rc = work_embed_ops(m, s, ops, WORK_MAX_OPS, &n, err);
	if (rc)
		return rc;
	double dg, wg;
	cost_ops(g, s->dtype, c, ops, n, out->embed_ops, &out->embed_fwd_s, &dg, &wg,
		 &out->embed_kernels_fwd, &out->embed_kernels_bwd, &out->embed_params);
	out->embed_bwd_s = dg + wg;
	out->nembed_ops = n;
	for (size_t i = 0; i < n; i++)
		out->embed_saved_bytes += ops[i].saved_bytes;

	rc = work_head_ops(m, s, ops, WORK_MAX_OPS, &n, err);
	if (rc)
		return rc;
	cost_ops(g, s->dtype, c, ops, n, out->head_ops, &out->head_fwd_s, &out->head_dgrad_s,
		 &out->head_wgrad_s, &out->head_kernels_fwd, &out->head_kernels_bwd,
		 &out->head_params);
	out->nhead_ops = n;
	out->head_tied_params = work_head_tied_params(m, s);
	double h = (double)m->hidden;
	out->head_fwd_flops = T * 2.0 * h * (double)m->vocab / t;
	if (m->family == TS_FAMILY_BERT)
		out->head_fwd_flops += T * 2.0 * h * h;
	for (size_t i = 0; i < n; i++)
		out->head_saved_bytes += ops[i].saved_bytes;
	return 0;
}
