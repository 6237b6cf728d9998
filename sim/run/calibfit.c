/* Several constants fitted at once to a user's measurements: a profiler
 * trace's kernel time by op class, or a CSV of small runs.
 * SPDX-License-Identifier: MIT */

/*
 * Both fits are weighted nonlinear least squares in the logarithms of the
 * constants (GSL multifit_nlinear: Levenberg-Marquardt with geodesic
 * acceleration, a finite-difference Jacobian with a step of 1e-3 in ln c,
 * coarse enough for simulated times kept in integer nanoseconds). A data
 * residual is ln(predicted / measured) / sigma: for a trace class sigma is
 * its spread over the iterations (at least 2 %), for a run 3 % (an
 * assumption: the repeatability of a measured iteration time). Each
 * constant adds a prior residual (ln c - ln c0) / 1: the committed value
 * holds where the data say nothing (fewer runs than constants), and moves
 * freely where they speak, by far more than the prior's factor of e.
 *
 * Before the fit each candidate constant is probed (c x 1.1 and c / 1.1):
 * one the measurements do not depend on (elasticity below 0.01) is left at
 * the catalog's value and marked so, which is how a result tells measured
 * constants from catalog ones.
 *
 * No constant stops at an arbitrary bound. The fit may not push a
 * fraction of the hardware's peak above 1 (tc_sustain, the GPU's hbm_eff,
 * flash_eff): past it the model is evaluated at 1 and the excess costs a
 * steep penalty, so a fit that ends there says the measurement is faster
 * than the hardware allows, which is a contradiction of the model, and it
 * is refused naming the class. So is a measurement the fitted constants
 * still miss by more than the stated limit: the model lacks a term, and
 * the message names the term that dominates that prediction.
 *
 * The band of a constant is ln c +- 1.2816 sigma, sigma^2 the diagonal of
 * (J^T J)^-1 at the solution scaled by the mean squared data residual when
 * that exceeds 1 (the data scatter more than sigma says).
 */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/cluster.h"
#include "plan/env.h"
#include "run/run.h"
#include "run/calibfit.h"
#include "work/lnet.h"

#define Z80 1.2816
#define PRIOR_SIGMA 1.0
#define PENALTY 100.0
#define TRACE_SIGMA_MIN 0.02
#define RUN_SIGMA 0.03
#define TRACE_MISS_MAX 0.25
#define RUN_MISS_MAX 0.15
#define PROBE 1.1
#define ELASTIC_MIN 0.01

static const char *const param_keys[CALIBFIT_NPARAMS_] = {"tc_sustain", "gemm_k0", "hbm_eff",
							  "flash_eff", "launch_s"};
/* allowed values: fractions of a peak up to 1; gemm_k0 and launch_s as
 * work_calib_check allows */
static const double param_hi[CALIBFIT_NPARAMS_] = {1.0, 64.0, 1.0, 1.0, 1.0};

const char *calibfit_param_key(enum calibfit_param p)
{
	return (unsigned)p < CALIBFIT_NPARAMS_ ? param_keys[p] : "?";
}

static double *field(struct calibfit_consts *c, enum calibfit_param p)
{
	switch (p) {
	case CALIBFIT_TC_SUSTAIN:
		return &c->calib.tc_sustain;
	case CALIBFIT_GEMM_K0:
		return &c->calib.gemm_k0;
	case CALIBFIT_GPU_HBM:
		return &c->hbm_eff;
	case CALIBFIT_GPU_FLASH:
		return &c->flash_eff;
	default:
		return &c->calib.launch_s;
	}
}

double calibfit_get(const struct calibfit_consts *c, enum calibfit_param p)
{
	struct calibfit_consts t = *c;
	return *field(&t, p);
}

/* ------------------------------------------------------ the class model */

/* Add op cost oc, n times, to the classes: phases fwd (x nf), dgrad and
 * wgrad (x nb). */
static void add_op(const struct work_op_cost *oc, double nf, double nb, double out[])
{
	double f = oc->fwd_s * nf, b = (oc->dgrad_s + oc->wgrad_s) * nb;
	switch (oc->op.kind) {
	case WORK_GEMM:
	case WORK_ATTN_CORE:
		out[KINETO_GEMM] += f + b;
		break;
	case WORK_ATTN_FLASH:
		out[KINETO_ATTN_FWD] += f;
		out[KINETO_ATTN_BWD] += b;
		break;
	default:
		out[KINETO_MEMBOUND] += f + b;
	}
}

/* The classes of a layer-list model (sim/work/lnet.h): its ops for one
 * micro-batch x micro-batches, a full recomputation rerunning every
 * forward. A convolution's NCHW <-> NHWC transposes (transpose_bytes at the
 * achievable HBM bandwidth, in each phase it runs) are cuDNN's own
 * transpose kernels in a trace, so they go to memory-bound, not GEMM. */
static int lnet_class_times(const struct ts_plan *p, const struct hw_gpu_type *g,
			    const struct calibfit_consts *c, double out[], struct ts_error *err)
{
	const struct ts_scenario *sc = p->sc;
	struct work_lnet_op *ops = NULL;
	size_t n = 0;
	int rc = work_lnet_ops(&sc->model, sc->training.micro_batch, (int64_t)p->dp, p->dtype, g,
			       &c->calib, &ops, &n, err);
	if (rc)
		return rc;
	double mb = (double)p->accum;
	double rf = p->recompute == WORK_RECOMPUTE_FULL ? 1.0 : 0.0;
	double hbm = work_hbm_Bps(g, &c->calib);
	for (size_t i = 0; i < n; i++) {
		struct work_op_cost oc = ops[i].c;
		if (ops[i].transpose_bytes > 0.0 && hbm > 0.0) {
			double t = ops[i].transpose_bytes / hbm;
			double tb = (oc.op.dgrad_flops > 0.0 ? t : 0.0) + t;
			oc.fwd_s -= t;
			oc.dgrad_s -= oc.op.dgrad_flops > 0.0 ? t : 0.0;
			oc.wgrad_s -= t;
			out[KINETO_MEMBOUND] += t * mb * (1.0 + rf) + tb * mb;
		}
		add_op(&oc, mb * (1.0 + rf), mb, out);
	}
	ts_free(ops, n * sizeof *ops);
	double shard = sc->parallel.zero >= 1 && p->dp > 1 ? (double)p->dp : 1.0;
	out[KINETO_OPTIM] = work_optimizer_time(g, &c->calib, work_lnet_params(&sc->model) / shard,
						p->conv.optim_bytes_touched);
	return 0;
}

int calibfit_class_times(const struct ts_plan *p, const struct calibfit_consts *c,
			 double out[KINETO_CLASS_COUNT_], struct ts_error *err)
{
	const struct ts_scenario *sc = p->sc;
	for (int i = 0; i < KINETO_CLASS_COUNT_; i++)
		out[i] = 0.0;
	struct hw_gpu_type g = *p->gpu;
	g.hbm_eff = c->hbm_eff;
	g.flash_eff = c->flash_eff;
	if (sc->model.family == TS_FAMILY_LAYERS)
		return lnet_class_times(p, &g, c, out, err);
	if (sc->model.num_experts > 0 || p->costs.nops == 0)
		return ts_error_set(
		    err, TS_EUNSUPPORTED, sc->file, 0, "model",
		    "found a mixture-of-experts model, expected a dense transformer "
		    "or a layer-list model (a trace calibration maps kernels to the "
		    "ops of one; the experts' routed GEMMs and all-to-alls are not "
		    "mapped)");
	struct work_costs w;
	int rc = work_costs_compute(&sc->model, &p->shape, &g, &c->calib, &w, err);
	if (rc)
		return rc;
	uint32_t pp = sc->parallel.pp ? sc->parallel.pp : 1;
	double layers = 0.0;
	for (uint32_t j = 0; j < p->nchunks; j += pp)
		layers += (double)p->chunk_layers[j];
	double mb = (double)p->accum;
	for (size_t i = 0; i < w.nops; i++) {
		double rf = 0.0; /* forward reruns in backward */
		if (p->recompute == WORK_RECOMPUTE_FULL)
			rf = 1.0;
		else if (p->recompute == WORK_RECOMPUTE_SELECTIVE &&
			 w.ops[i].op.selective_bytes > 0.0)
			rf = 1.0;
		add_op(&w.ops[i], layers * mb * (1.0 + rf), layers * mb, out);
	}
	for (size_t i = 0; i < w.nembed_ops; i++)
		add_op(&w.embed_ops[i], mb, mb, out);
	if (pp == 1)
		for (size_t i = 0; i < w.nhead_ops; i++)
			add_op(&w.head_ops[i], mb, mb, out);
	double shard = sc->parallel.zero >= 1 && p->dp > 1 ? (double)p->dp : 1.0;
	double params =
	    (layers * w.layer_params + w.embed_params + (pp == 1 ? w.head_params : 0.0)) / shard;
	out[KINETO_OPTIM] = work_optimizer_time(&g, &c->calib, params, p->conv.optim_bytes_touched);
	return 0;
}

/* -------------------------------------------------------- the solver */

struct prob {
	struct calibfit_consts base;
	enum calibfit_param idx[CALIBFIT_NPARAMS_];
	double x0[CALIBFIT_NPARAMS_];
	size_t np, nd;
	/* data residuals ln(pred/meas)/sigma at constants c into r[0..nd) */
	int (*resid)(void *ud, const struct calibfit_consts *c, double *r);
	void *ud;
	int rc;
	size_t evals;
};

/* The constants at log values x (clamped to what the hardware allows) and
 * the excess beyond it, per parameter. */
static struct calibfit_consts at(const struct prob *pr, const double *x, double *excess)
{
	struct calibfit_consts c = pr->base;
	for (size_t i = 0; i < pr->np; i++) {
		double lhi = log(param_hi[pr->idx[i]]);
		double xi = x[i] > lhi ? lhi : x[i];
		if (excess)
			excess[i] = x[i] - xi;
		*field(&c, pr->idx[i]) = exp(xi);
	}
	return c;
}

static int prob_f(const gsl_vector *xv, void *ud, gsl_vector *f)
{
	struct prob *pr = ud;
	double x[CALIBFIT_NPARAMS_], ex[CALIBFIT_NPARAMS_];
	for (size_t i = 0; i < pr->np; i++)
		x[i] = gsl_vector_get(xv, i);
	struct calibfit_consts c = at(pr, x, ex);
	double r[256];
	pr->evals++;
	if (!pr->rc)
		pr->rc = pr->resid(pr->ud, &c, r);
	if (pr->rc)
		return GSL_EBADFUNC;
	for (size_t j = 0; j < pr->nd; j++)
		gsl_vector_set(f, j, r[j]);
	for (size_t i = 0; i < pr->np; i++)
		gsl_vector_set(f, pr->nd + i, (x[i] - pr->x0[i]) / PRIOR_SIGMA + PENALTY * ex[i]);
	return GSL_SUCCESS;
}

/* Probe the candidates cand[0..nc): keep those the data depend on, with
 * their elasticities into out->v. */
static int probe(struct prob *pr, const enum calibfit_param *cand, size_t nc, const double *sigma,
		 struct calibfit *out)
{
	double r0[256], ru[256], rd[256];
	pr->np = 0;
	for (size_t k = 0; k < nc; k++) {
		enum calibfit_param q = cand[k];
		struct calibfit_consts c = pr->base;
		double v = *field(&c, q);
		if (!(v > 0.0))
			continue;
		*field(&c, q) = fmin(v * PROBE, param_hi[q]);
		double up = *field(&c, q);
		int rc = pr->resid(pr->ud, &c, ru);
		*field(&c, q) = v / PROBE;
		if (!rc)
			rc = pr->resid(pr->ud, &c, rd);
		pr->evals += 2;
		if (rc)
			return rc;
		double e = 0.0, dl = log(up) - log(v / PROBE);
		for (size_t j = 0; j < pr->nd; j++) {
			double d = fabs(ru[j] - rd[j]) * sigma[j] / dl;
			e = d > e ? d : e;
		}
		out->v[q].elasticity = e;
		if (e >= ELASTIC_MIN) {
			pr->idx[pr->np] = q;
			pr->x0[pr->np++] = log(v);
		}
	}
	(void)r0;
	return 0;
}

/* n measurements identify at most n constants: keep the n the data depend
 * on most (largest elasticity) and leave the rest at the catalog's value.
 * With one run the others would move only as far as their prior lets the
 * one residual push them, a split the run cannot tell (one small run's
 * tc_sustain and gemm_k0 are one number), and a result would name them as
 * measured. */
static void keep_identified(struct prob *pr, size_t n, const struct calibfit *out)
{
	while (pr->np > n) {
		size_t w = 0;
		for (size_t i = 1; i < pr->np; i++)
			if (out->v[pr->idx[i]].elasticity < out->v[pr->idx[w]].elasticity)
				w = i;
		for (size_t i = w; i + 1 < pr->np; i++) {
			pr->idx[i] = pr->idx[i + 1];
			pr->x0[i] = pr->x0[i + 1];
		}
		pr->np--;
	}
}

/* Solve; fill out->fitted, out->v[] and rms figures. sigma[] are the data
 * residuals' sigmas (to turn them back into log errors). */
static int solve(struct prob *pr, const double *sigma, struct calibfit *out, struct ts_error *err)
{
	double r[256];
	int rc = pr->resid(pr->ud, &pr->base, r);
	pr->evals++;
	if (rc)
		return rc;
	double s = 0.0;
	for (size_t j = 0; j < pr->nd; j++)
		s += (r[j] * sigma[j]) * (r[j] * sigma[j]);
	out->rms_before = out->rms_after = sqrt(s / (double)pr->nd);
	out->fitted = pr->base;
	if (pr->np == 0)
		return 0;
	size_t n = pr->nd + pr->np, p = pr->np;
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	fp.trs = gsl_multifit_nlinear_trs_lmaccel;
	fp.h_df = 1e-3;
	gsl_multifit_nlinear_fdf fdf = {
	    .f = prob_f, .df = NULL, .fvv = NULL, .n = n, .p = p, .params = pr};
	gsl_multifit_nlinear_workspace *w =
	    gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, p);
	gsl_vector *x = gsl_vector_alloc(p);
	gsl_matrix *cov = gsl_matrix_alloc(p, p);
	if (!w || !x || !cov) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < p; i++)
		gsl_vector_set(x, i, pr->x0[i]);
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int info, st = gsl_multifit_nlinear_init(x, &fdf, w);
	if (st == GSL_SUCCESS)
		st = gsl_multifit_nlinear_driver(60, 1e-6, 1e-8, 0.0, NULL, NULL, &info, w);
	if (pr->rc) {
		gsl_set_error_handler(old);
		rc = pr->rc;
		goto done;
	}
	const gsl_vector *xs = gsl_multifit_nlinear_position(w);
	const gsl_vector *fs = gsl_multifit_nlinear_residual(w);
	gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
	gsl_set_error_handler(old);
	double xx[CALIBFIT_NPARAMS_], ex[CALIBFIT_NPARAMS_];
	for (size_t i = 0; i < p; i++)
		xx[i] = gsl_vector_get(xs, i);
	out->fitted = at(pr, xx, ex);
	s = 0.0;
	double chi = 0.0;
	rc = pr->resid(pr->ud, &out->fitted, r);
	pr->evals++;
	if (rc)
		goto done;
	for (size_t j = 0; j < pr->nd; j++) {
		s += (r[j] * sigma[j]) * (r[j] * sigma[j]);
		chi += gsl_vector_get(fs, j) * gsl_vector_get(fs, j);
	}
	out->rms_after = sqrt(s / (double)pr->nd);
	double scale = chi / (double)pr->nd > 1.0 ? chi / (double)pr->nd : 1.0;
	for (size_t i = 0; i < p; i++) {
		enum calibfit_param q = pr->idx[i];
		double sd = sqrt(fmax(0.0, gsl_matrix_get(cov, i, i)) * scale);
		struct calibfit_value *v = &out->v[q];
		v->fitted = true;
		v->value = exp(xx[i] - ex[i]);
		v->p10 = v->value * exp(-Z80 * sd);
		v->p90 = fmin(v->value * exp(Z80 * sd), param_hi[q]);
		if (ex[i] > 1e-3 || v->value >= param_hi[q] * (1.0 - 1e-6))
			v->p90 = v->value; /* at what the hardware allows: see the caller */
	}
done:
	gsl_vector_free(x);
	gsl_matrix_free(cov);
	gsl_multifit_nlinear_free(w);
	return rc;
}

static void init_values(struct calibfit *out)
{
	for (int q = 0; q < CALIBFIT_NPARAMS_; q++) {
		struct calibfit_value *v = &out->v[q];
		v->before = v->value = v->p10 = v->p90 = calibfit_get(&out->start, q);
	}
}

/* ---------------------------------------------------------- trace fit */

struct trace_ud {
	const struct ts_plan *plan;
	const struct calibfit *out;
	enum kineto_class cls[KINETO_CLASS_COUNT_];
	double sigma[KINETO_CLASS_COUNT_];
	size_t n;
	struct ts_error *err;
};

static int trace_resid(void *ud, const struct calibfit_consts *c, double *r)
{
	struct trace_ud *u = ud;
	double t[KINETO_CLASS_COUNT_];
	int rc = calibfit_class_times(u->plan, c, t, u->err);
	if (rc)
		return rc;
	for (size_t j = 0; j < u->n; j++) {
		enum kineto_class k = u->cls[j];
		r[j] = log(t[k] / u->out->cls[k].measured_s) / u->sigma[j];
	}
	return 0;
}

/* The class of the trace that a parameter is fitted on, for messages. */
static const char *param_class(enum calibfit_param q)
{
	switch (q) {
	case CALIBFIT_TC_SUSTAIN:
	case CALIBFIT_GEMM_K0:
		return "GEMM";
	case CALIBFIT_GPU_HBM:
		return "memory-bound";
	case CALIBFIT_GPU_FLASH:
		return "attention";
	default:
		return "host";
	}
}

/* Iteration time of sc with constants c (the GPU's fractions set in cat
 * at gi), s; restores nothing. */
static int iter_time(struct hw_catalog *cat, size_t gi, const struct ts_scenario *sc,
		     const struct calibfit_consts *c, double *t, struct ts_error *err)
{
	struct ts_result r;
	int rc = hw_catalog_set_gpu_eff(cat, gi, c->hbm_eff, c->flash_eff);
	if (rc)
		return ts_error_set(err, rc, NULL, 0, NULL,
				    "found hbm_eff %g, flash_eff %g, "
				    "expected fractions in (0, 1]",
				    c->hbm_eff, c->flash_eff);
	rc = ts_run(sc, &c->calib, &r, NULL, err);
	*t = rc ? 0.0 : r.iteration_time_s;
	return rc;
}

struct iter_ud {
	struct hw_catalog *cat;
	size_t gi;
	const struct ts_scenario *sc;
	double measured;
	struct ts_error *err;
};

static int iter_resid(void *ud, const struct calibfit_consts *c, double *r)
{
	struct iter_ud *u = ud;
	double t;
	int rc = iter_time(u->cat, u->gi, u->sc, c, &t, u->err);
	if (!rc)
		r[0] = log(t / u->measured) / TRACE_SIGMA_MIN;
	return rc;
}

int calibfit_trace(struct hw_catalog *cat, const struct ts_scenario *sc,
		   const struct work_calib *start, const struct kineto_trace *t,
		   struct calibfit *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	const struct hw_gpu_type *g0 = hw_cluster_gpu_type(sc->cluster);
	int gi = hw_catalog_find_gpu(cat, g0->name);
	if (gi < 0)
		return ts_error_set(err, TS_EUNKNOWN_NAME, sc->file, 0, "gpu",
				    "found GPU %s outside the catalog, expected a catalog GPU",
				    g0->name);
	snprintf(out->gpu, sizeof out->gpu, "%s", g0->name);
	const struct hw_gpu_type *g = hw_catalog_gpu(cat, (size_t)gi);
	double hbm0 = g->hbm_eff, flash0 = g->flash_eff;
	out->start.calib = *start;
	out->start.hbm_eff = hbm0 > 0.0 ? hbm0 : start->hbm_eff;
	out->start.flash_eff = flash0 > 0.0 ? flash0 : start->flash_eff;
	init_values(out);
	struct ts_env env;
	struct ts_plan *plan = NULL;
	int rc = env_wrap(cat, start, &env, err);
	if (rc)
		return rc;
	if ((rc = plan_build(&env, sc, &plan, err)))
		goto release;
	/* measured class times: means over the iterations and their spread */
	double n = (double)t->niters;
	for (int k = 0; k < KINETO_CLASS_COUNT_; k++) {
		double m = 0.0, v = 0.0;
		for (size_t i = 0; i < t->niters; i++)
			m += t->iters[i].class_s[k] / n;
		for (size_t i = 0; i < t->niters; i++)
			v += (t->iters[i].class_s[k] - m) * (t->iters[i].class_s[k] - m);
		out->cls[k].measured_s = m;
		out->cls[k].spread = m > 0.0 && t->niters > 1 ? sqrt(v / (n - 1.0)) / m : 0.0;
	}
	for (size_t i = 0; i < t->niters; i++)
		out->iter_measured_s += t->iters[i].dur_s / n;
	/* kernels no rule maps to an op class (a recommender's FBGEMM embedding
	 * kernels, a custom extension's) are reported and never guessed; when
	 * they are more than TRACE_MISS_MAX of the device time the fit would
	 * model, the classes it can fit do not describe the run */
	double mapped = 0.0;
	for (int k = 0; k < KINETO_CLASS_COUNT_; k++)
		if (k != KINETO_NCCL)
			mapped += t->class_s[k];
	if (t->class_s[KINETO_UNKNOWN] > TRACE_MISS_MAX * mapped && t->nunknown > 0) {
		rc = ts_error_set(
		    err, TS_EUNSUPPORTED, NULL, 0, "--trace",
		    "found %.1f %% of the kernel time outside NCCL in kernels no op class maps "
		    "(%zu names; the largest: %u x %.80s, %.6g s), expected at most %.0f %%: "
		    "trainsim has no term for them, so the classes it can fit do not describe "
		    "the traced run",
		    100.0 * t->class_s[KINETO_UNKNOWN] / mapped, t->nunknown + t->unknown_dropped,
		    t->unknown[0].count, t->unknown[0].name, t->unknown[0].time_s,
		    100.0 * TRACE_MISS_MAX);
		goto release;
	}
	double before[KINETO_CLASS_COUNT_];
	if ((rc = calibfit_class_times(plan, &out->start, before, err)))
		goto release;
	struct trace_ud u = {.plan = plan, .out = out, .err = err};
	for (int k = 0; k < KINETO_CLASS_COUNT_; k++) {
		out->cls[k].before_s = before[k];
		if (k == KINETO_NCCL || k == KINETO_UNKNOWN)
			continue;
		if (out->cls[k].measured_s > 0.0 && before[k] > 0.0) {
			out->cls[k].used = true;
			u.cls[u.n] = (enum kineto_class)k;
			u.sigma[u.n++] = fmax(TRACE_SIGMA_MIN, out->cls[k].spread);
		}
	}
	if (!u.n) {
		rc =
		    ts_error_set(err, TS_EINVALID, NULL, 0, "--trace",
				 "found no GEMM, attention, memory-bound or optimizer kernel that "
				 "trainsim also predicts for %s, expected a trace of this scenario",
				 sc->file);
		goto release;
	}
	out->rows = u.n;
	struct prob pr = {.base = out->start, .nd = u.n, .resid = trace_resid, .ud = &u};
	static const enum calibfit_param cand[] = {CALIBFIT_TC_SUSTAIN, CALIBFIT_GPU_HBM,
						   CALIBFIT_GPU_FLASH};
	if ((rc = probe(&pr, cand, 3, u.sigma, out)) || (rc = solve(&pr, u.sigma, out, err)))
		goto release;
	out->evaluations = pr.evals;
	double after[KINETO_CLASS_COUNT_];
	if ((rc = calibfit_class_times(plan, &out->fitted, after, err)))
		goto release;
	for (int k = 0; k < KINETO_CLASS_COUNT_; k++)
		out->cls[k].after_s = after[k];
	/* contradictions: a fraction pushed to what the hardware allows, a
	 * class the fitted constants still miss */
	for (size_t i = 0; i < pr.np; i++) {
		enum calibfit_param q = pr.idx[i];
		if (out->v[q].value >= param_hi[q] * (1.0 - 1e-6) &&
		    out->rms_after > TRACE_SIGMA_MIN) {
			rc = ts_error_set(err, TS_ERANGE, NULL, 0, "--trace",
					  "found %s kernels faster than %s = 1 allows on %s (the "
					  "GPU's whole peak or bandwidth), expected a trace the "
					  "model can explain: the catalog's peak or the scenario "
					  "(precision, shapes) does not match the traced run",
					  param_class(q), calibfit_param_key(q), out->gpu);
			goto release;
		}
	}
	for (size_t j = 0; j < u.n; j++) {
		enum kineto_class k = u.cls[j];
		double miss = after[k] / out->cls[k].measured_s - 1.0;
		if (fabs(miss) > TRACE_MISS_MAX) {
			rc = ts_error_set(err, TS_ERANGE, NULL, 0, "--trace",
					  "found %s kernels taking %.6g s per iteration where the "
					  "fitted constants predict %.6g s (%+.1f %%), expected "
					  "within %.0f %%: the model's %s term cannot explain them",
					  kineto_class_name(k), out->cls[k].measured_s, after[k],
					  100.0 * miss, 100.0 * TRACE_MISS_MAX,
					  kineto_class_name(k));
			goto release;
		}
	}
	/* the whole iteration: launch_s where the device classes do not
	 * explain the host step */
	if ((rc = iter_time(cat, (size_t)gi, sc, &out->start, &out->iter_before_s, err)) ||
	    (rc = iter_time(cat, (size_t)gi, sc, &out->fitted, &out->iter_after_s, err)))
		goto restore;
	if (fabs(log(out->iter_after_s / out->iter_measured_s)) > TRACE_SIGMA_MIN) {
		struct iter_ud iu = {cat, (size_t)gi, sc, out->iter_measured_s, err};
		double sig = TRACE_SIGMA_MIN;
		struct calibfit sub = *out;
		struct prob p2 = {.base = out->fitted, .nd = 1, .resid = iter_resid, .ud = &iu};
		static const enum calibfit_param lc[] = {CALIBFIT_LAUNCH_S};
		if ((rc = probe(&p2, lc, 1, &sig, &sub)) || (rc = solve(&p2, &sig, &sub, err)))
			goto restore;
		out->evaluations += p2.evals;
		out->v[CALIBFIT_LAUNCH_S] = sub.v[CALIBFIT_LAUNCH_S];
		out->v[CALIBFIT_LAUNCH_S].before = start->launch_s;
		out->fitted = sub.fitted;
		if ((rc = iter_time(cat, (size_t)gi, sc, &out->fitted, &out->iter_after_s, err)))
			goto restore;
	}
restore:
	hw_catalog_set_gpu_eff(cat, (size_t)gi, hbm0 > 0.0 ? hbm0 : out->start.hbm_eff, flash0);
release:
	plan_destroy(plan);
	env_release(&env);
	return rc;
}

/* ----------------------------------------------------------- runs fit */

struct runs_ud {
	const struct calibfit_run *runs;
	size_t n;
	struct ts_result *last; /* the results of the last evaluation */
	struct ts_error *err;
};

static double metric(const struct ts_result *r, int m)
{
	return m == 0 ? r->iteration_time_s : m == 1 ? r->samples_per_s : r->tokens_per_s;
}

static int runs_resid(void *ud, const struct calibfit_consts *c, double *r)
{
	struct runs_ud *u = ud;
	for (size_t j = 0; j < u->n; j++) {
		int rc = ts_run(u->runs[j].sc, &c->calib, &u->last[j], NULL, u->err);
		if (rc)
			return rc;
		double pred = metric(&u->last[j], u->runs[j].metric);
		/* time-like: ln(pred/meas); throughput the other way, so > 0 is slow */
		double e = log(pred / u->runs[j].measured);
		r[j] = (u->runs[j].metric == 0 ? e : -e) / RUN_SIGMA;
	}
	return 0;
}

/* The largest term of a predicted iteration, for messages; with
 * fixed_only, the largest the runs fit does not move (tc_sustain and
 * gemm_k0 move compute and recompute, launch_s the host's launches). Its
 * seconds into *s when s is not NULL. */
static const char *largest_term(const struct ts_result *r, bool fixed_only, double *s)
{
	const struct {
		const char *name;
		double v;
		bool fitted;
	} t[] = {{"compute", r->compute_s, true},
		 {"recompute", r->recompute_s, true},
		 {"exposed communication", r->exposed_comm_s, false},
		 {"pipeline bubble", r->bubble_s, false},
		 {"data stall", r->data_stall_s, false},
		 {"optimizer", r->optimizer_s, false},
		 {"other (host launches)", r->other_s, true}};
	size_t b = SIZE_MAX;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!(fixed_only && t[i].fitted) && (b == SIZE_MAX || t[i].v > t[b].v))
			b = i;
	if (s)
		*s = t[b].v;
	return t[b].name;
}

int calibfit_runs(const struct calibfit_run *runs, size_t n, const struct work_calib *start,
		  struct calibfit *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	if (n == 0 || n > 200)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "--runs",
				    "found %zu runs, expected 1 to 200", n);
	out->start.calib = *start;
	const struct hw_gpu_type *g = hw_cluster_gpu_type(runs[0].sc->cluster);
	out->start.hbm_eff = g->hbm_eff > 0.0 ? g->hbm_eff : start->hbm_eff;
	out->start.flash_eff = g->flash_eff > 0.0 ? g->flash_eff : start->flash_eff;
	snprintf(out->gpu, sizeof out->gpu, "%s", g->name);
	init_values(out);
	struct ts_result *res = ts_calloc(n, sizeof *res);
	double *sigma = ts_calloc(n, sizeof *sigma);
	int rc = 0;
	if (!res || !sigma) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto done;
	}
	for (size_t j = 0; j < n; j++) {
		sigma[j] = RUN_SIGMA;
		if (!(runs[j].measured > 0.0) || !isfinite(runs[j].measured)) {
			rc = ts_error_set(err, TS_ERANGE, NULL, 0, "--runs",
					  "%s: found %g, expected a positive measurement",
					  runs[j].label, runs[j].measured);
			goto done;
		}
	}
	struct runs_ud u = {runs, n, res, err};
	struct prob pr = {.base = out->start, .nd = n, .resid = runs_resid, .ud = &u};
	static const enum calibfit_param cand[] = {CALIBFIT_GEMM_K0, CALIBFIT_TC_SUSTAIN,
						   CALIBFIT_LAUNCH_S};
	if ((rc = probe(&pr, cand, 3, sigma, out)))
		goto done;
	keep_identified(&pr, n, out);
	if ((rc = solve(&pr, sigma, out, err)))
		goto done;
	out->rows = n;
	out->evaluations = pr.evals;
	double r[256];
	if ((rc = runs_resid(&u, &out->fitted, r)))
		goto done;
	for (size_t i = 0; i < pr.np; i++) {
		enum calibfit_param q = pr.idx[i];
		if (out->v[q].value >= param_hi[q] * (1.0 - 1e-6) && out->rms_after > RUN_SIGMA) {
			/* the run the bound leaves furthest off, and the term of its
			 * fastest prediction that no fitted constant moves */
			size_t w = 0;
			for (size_t j = 1; j < n; j++)
				if (r[j] > r[w])
					w = j;
			const struct ts_result *b = &res[w];
			double fixed = 0.0;
			const char *term = largest_term(b, true, &fixed);
			double miss = expm1(r[w] * RUN_SIGMA);
			double it = b->iteration_time_s;
			if (fixed > it * miss / (1.0 + miss))
				rc = ts_error_set(
				    err, TS_ERANGE, NULL, 0, "--runs",
				    "%s: found %.6g measured where the fastest the model reaches "
				    "(%s = %g, the GPU's whole sustained matmul rate) is %.6g "
				    "(%+.1f "
				    "%% in time), expected runs the model can explain: its %s "
				    "(%.4g s of a %.4g s iteration) is a term no fitted constant "
				    "moves, "
				    "and the run says it is smaller",
				    runs[w].label, runs[w].measured, calibfit_param_key(q),
				    param_hi[q], metric(b, runs[w].metric), 100.0 * miss, term,
				    fixed, it);
			else
				rc = ts_error_set(
				    err, TS_ERANGE, NULL, 0, "--runs",
				    "%s: found %.6g measured where the fastest the model reaches "
				    "(%s = %g, the GPU's whole sustained matmul rate) is %.6g "
				    "(%+.1f "
				    "%% in time), expected runs the model can explain: its compute "
				    "term (%.4g s of a %.4g s iteration) cannot be that fast on "
				    "the "
				    "catalog's peak, so the scenario (precision, shapes, "
				    "attention) "
				    "does not match what ran",
				    runs[w].label, runs[w].measured, calibfit_param_key(q),
				    param_hi[q], metric(b, runs[w].metric), 100.0 * miss,
				    b->compute_s + b->recompute_s, it);
			goto done;
		}
	}
	for (size_t j = 0; j < n; j++) {
		double miss = r[j] * RUN_SIGMA;
		if (fabs(miss) > log1p(RUN_MISS_MAX)) {
			rc = ts_error_set(
			    err, TS_ERANGE, NULL, 0, "--runs",
			    "%s: found %.6g measured where the fitted constants "
			    "predict %.6g (%+.1f %% in time), expected within %.0f %%: "
			    "the model's %s term cannot explain this run",
			    runs[j].label, runs[j].measured, metric(&res[j], runs[j].metric),
			    100.0 * expm1(miss), 100.0 * RUN_MISS_MAX,
			    largest_term(&res[j], false, NULL));
			goto done;
		}
	}
done:
	ts_free(res, n * sizeof *res);
	ts_free(sigma, n * sizeof *sigma);
	return rc;
}
