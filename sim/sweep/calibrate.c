/* Calibration to one measurement: a sensitivity probe of each candidate
 * constant, then a one-dimensional root search on the most sensitive one in
 * log space (sim/sweep/calibrate.h says why one constant); and the
 * efficiency of a link type fitted to an nccl-tests busbw plateau.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "hw/cluster.h"
#include "net/coll.h"
#include "net/meter.h"
#include "net/net.h"
#include "run/run.h"
#include "sweep/calibrate.h"

static const size_t calib_keys[CALIB_NKEYS] = {0 /* gemm_k0 */, 5 /* launch_s */};

size_t calib_key(size_t i)
{
	return i < CALIB_NKEYS ? calib_keys[i] : 0;
}

/* Relative step of the sensitivity probe. */
#define PROBE 1.1

struct eval {
	const struct ts_scenario *sc;
	struct work_calib c;
	size_t key;
	double c0, log_meas;
	size_t n;
	int rc;
	struct ts_error *err;
};

/* Iteration time with constant e->key set to c0 x exp(x), s; NAN on error
 * (the first error is kept in e->rc and e->err). */
static double calib_time(struct eval *e, double x)
{
	struct ts_result r;
	if (e->rc)
		return (double)NAN;
	*work_calib_field(&e->c, e->key) = e->c0 * exp(x);
	e->n++;
	e->rc = ts_run(e->sc, &e->c, &r, NULL, e->err);
	return e->rc ? (double)NAN : r.iteration_time_s;
}

static double calib_resid(double x, void *ud)
{
	struct eval *e = ud;
	return log(calib_time(e, x)) - e->log_meas;
}

/* Brent's method on [lo, hi] where f changes sign; the root into *x. */
static int calib_root(struct eval *e, double lo, double hi, double *x)
{
	gsl_function fn = {.function = calib_resid, .params = e};
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (!s)
		return TS_ENOMEM;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int status = gsl_root_fsolver_set(s, &fn, lo, hi);
	for (int it = 0; status == GSL_SUCCESS && it < 200 && !e->rc; it++) {
		if ((status = gsl_root_fsolver_iterate(s)) != GSL_SUCCESS)
			break;
		status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
						gsl_root_fsolver_x_upper(s), 1e-9, 0.0);
		if (status == GSL_SUCCESS)
			break;
		status = status == GSL_CONTINUE ? GSL_SUCCESS : status;
	}
	*x = gsl_root_fsolver_root(s);
	gsl_set_error_handler(old);
	gsl_root_fsolver_free(s);
	return 0;
}

int calib_fit_iteration(const struct ts_scenario *sc, const struct work_calib *start,
			double measured_s, struct calib_fit *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	out->calib = *start;
	if (!(measured_s > 0.0) || !isfinite(measured_s))
		return ts_error_set(err, TS_ERANGE, NULL, 0, "--measured-iteration-s",
				    "found %g, expected a positive time in seconds", measured_s);
	struct eval e = {.sc = sc,
			 .c = *start,
			 .key = calib_keys[0],
			 .c0 = start->gemm_k0,
			 .log_meas = log(measured_s),
			 .err = err};
	double t0 = calib_time(&e, 0.0);
	if (e.rc)
		return e.rc;
	out->before_s = out->after_s = t0;
	double best = -1.0;
	for (size_t i = 0; i < CALIB_NKEYS; i++) {
		e.key = calib_keys[i];
		e.c0 = *work_calib_field(&e.c, e.key);
		double up = calib_time(&e, log(PROBE)), dn = calib_time(&e, -log(PROBE));
		*work_calib_field(&e.c, e.key) = e.c0;
		if (e.rc)
			return e.rc;
		out->elasticity[i] = fabs(log(up / dn)) / (2.0 * log(PROBE));
		if (out->elasticity[i] > best) {
			best = out->elasticity[i];
			out->key = e.key;
		}
	}
	out->evaluations = e.n;
	if (!(best > 1e-9))
		return ts_error_set(err, TS_EINVALID, sc->file, 0, NULL,
				    "found an iteration time that depends on neither gemm_k0 "
				    "nor launch_s, expected compute to take part of it");
	if (log(measured_s) == log(t0))
		return 0;
	e.key = out->key;
	e.c0 = *work_calib_field(&e.c, e.key);
	double lo = -log(CALIB_RANGE), hi = log(CALIB_RANGE), x;
	double flo = calib_resid(lo, &e), fhi = calib_resid(hi, &e);
	if (e.rc)
		return e.rc;
	if ((flo > 0.0) == (fhi > 0.0) && flo != 0.0 && fhi != 0.0) {
		x = fabs(flo) < fabs(fhi) ? lo : hi;
		out->at_bound = true;
	} else {
		int rc = calib_root(&e, lo, hi, &x);
		if (rc || e.rc)
			return rc ? ts_error_set(err, rc, NULL, 0, NULL, "out of memory") : e.rc;
	}
	out->after_s = calib_time(&e, x);
	if (e.rc)
		return e.rc;
	out->calib = e.c;
	out->evaluations = e.n;
	return 0;
}

/* ---- link efficiency from nccl-tests ----------------------------------- */

int calib_coll_busbw(const struct ts_scenario *sc, uint32_t gpus, double bytes, double *busbw_Bps,
		     struct ts_error *err)
{
	struct coll_meter *m = NULL;
	double t = 0.0;
	*busbw_Bps = 0.0;
	int rc = coll_meter_create(&m, sc->cluster, gpus, NET_CLASS, err);
	if (!rc)
		rc = coll_meter_run(m, COLL_ALL_REDUCE, bytes, COLL_ALGO_AUTO, COLL_PROTO_AUTO,
				    NULL, &t, err);
	coll_meter_destroy(m);
	if (!rc)
		*busbw_Bps = t > 0.0 ? bytes / t * coll_bus_factor(COLL_ALL_REDUCE, gpus) : 0.0;
	return rc;
}

struct nccl_eval {
	struct hw_catalog *cat;
	const char *path;
	const char *const *sets;
	size_t nsets;
	const struct nccl_table *t;
	size_t link;
	uint32_t gpus;
	double from_bytes, measured;
	size_t n;
	int rc;
	struct ts_error *err;
};

/* Predicted plateau busbw with link type e->link at efficiency eff,
 * bytes/s; NAN on error (kept in e->rc). */
static double nccl_plateau(struct nccl_eval *e, double eff)
{
	struct ts_scenario *sc = NULL;
	double sum = 0.0;
	size_t k = 0;
	if (e->rc)
		return (double)NAN;
	e->n++;
	if ((e->rc = hw_catalog_set_link_efficiency(e->cat, e->link, eff))) {
		ts_error_set(e->err, e->rc, NULL, 0, NULL, "found efficiency %g, expected (0, 1]",
			     eff);
		return (double)NAN;
	}
	if ((e->rc = ts_scenario_load(e->cat, e->path, e->sets, e->nsets, &sc, e->err)))
		return (double)NAN;
	for (size_t i = 0; i < e->t->n && !e->rc; i++) {
		double b = e->t->rows[i].bytes, bus;
		if (b < e->from_bytes)
			continue;
		if (!(e->rc = calib_coll_busbw(sc, e->gpus, b, &bus, e->err))) {
			sum += bus;
			k++;
		}
	}
	ts_scenario_destroy(sc);
	return e->rc || !k ? (double)NAN : sum / (double)k;
}

static double nccl_resid(double x, void *ud)
{
	struct nccl_eval *e = ud;
	return log(nccl_plateau(e, x)) - log(e->measured);
}

/* The link type an all-reduce over `gpus` GPUs of cluster c is bound by
 * (calib_fit_nccl says which); -1 when there is none. */
static int bound_link(const struct hw_cluster *c, uint32_t gpus)
{
	int first = -1;
	if (gpus <= hw_cluster_gpus_per_node(c)) {
		uint32_t g0 = hw_cluster_gpu(c, 0);
		for (uint32_t l = 0; l < hw_cluster_nlinks(c); l++) {
			const struct hw_link *k = hw_cluster_link(c, l);
			if (k->src != g0)
				continue;
			enum hw_dev_kind d = hw_cluster_device(c, k->dst)->kind;
			if (d == HW_DEV_GPU || d == HW_DEV_NVSWITCH)
				return (int)k->type;
			if (first < 0)
				first = (int)k->type;
		}
		return first;
	}
	for (uint32_t l = 0; l < hw_cluster_nlinks(c); l++) {
		const struct hw_link *k = hw_cluster_link(c, l);
		const struct hw_device *a = hw_cluster_device(c, k->src);
		if (a->node == 0 && a->kind == HW_DEV_NIC &&
		    hw_cluster_device(c, k->dst)->node == HW_FABRIC)
			return (int)k->type;
	}
	return -1;
}

bool calib_device_matches(const char *gpu, const char *device)
{
	if (!device || !*device)
		return true;
	const char *part = gpu;
	size_t l;
	for (;;) {
		l = strcspn(part, "-");
		if (strpbrk(part, "0123456789") && (size_t)(strpbrk(part, "0123456789") - part) < l)
			break;
		if (!part[l])
			return true; /* no part with a digit: nothing to compare */
		part += l + 1;
	}
	for (const char *d = device; *d; d++) {
		if (d != device && isalnum((unsigned char)d[-1]))
			continue;
		if (strncasecmp(d, part, l) == 0 && !isalnum((unsigned char)d[l]))
			return true;
	}
	return false;
}

int calib_fit_nccl(struct hw_catalog *cat, const char *path, const char *const *sets, size_t nsets,
		   const struct nccl_table *t, struct calib_link_fit *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	struct ts_scenario *sc = NULL;
	int rc = ts_scenario_load(cat, path, sets, nsets, &sc, err);
	if (rc)
		return rc;
	const char *gname = hw_cluster_gpu_type(sc->cluster)->name;
	if (t->other_line) {
		rc = ts_error_set(err, TS_EINVALID, t->path, (int)t->other_line, NULL,
				  "found a row with %s%s, expected the table of "
				  "all_reduce_perf (a reduction such as sum, root -1 if any)",
				  strcmp(t->other_redop, "root") ? "redop " : "a ",
				  strcmp(t->other_redop, "root") ? t->other_redop
								 : "root of 0 or more");
		goto out;
	}
	if (!calib_device_matches(gname, t->device)) {
		rc = ts_error_set(err, TS_EINVALID, t->path, 0, NULL,
				  "found ranks on %s, expected the GPUs of %s (%s): the fit "
				  "would give their link's efficiency to another GPU's",
				  t->device, path, gname);
		goto out;
	}
	uint32_t gpus = t->nranks ? t->nranks : sc->gpus;
	uint32_t gpn = hw_cluster_gpus_per_node(sc->cluster);
	if (gpus > hw_cluster_gpus(sc->cluster) || gpus < 2 || (gpus > gpn && gpus % gpn)) {
		rc = ts_error_set(err, TS_EINVALID, NULL, 0, "--nccl-tests",
				  "found %u ranks, expected 2 to the %u GPUs of %s, whole nodes "
				  "of %u beyond one",
				  gpus, hw_cluster_gpus(sc->cluster), hw_cluster_name(sc->cluster),
				  gpn);
		goto out;
	}
	int link = bound_link(sc->cluster, gpus);
	if (link < 0) {
		rc = ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "--nccl-tests",
				  "found no %s link in %s, expected one to fit",
				  gpus <= gpn ? "GPU" : "network", hw_cluster_name(sc->cluster));
		goto out;
	}
	const struct hw_link_type *lt = hw_catalog_link(cat, (size_t)link);
	snprintf(out->link, sizeof out->link, "%s", lt->name);
	out->link_index = (size_t)link;
	out->gpus = gpus;
	out->nodes = (gpus + gpn - 1) / gpn;
	out->before_eff = lt->efficiency;
	out->measured_Bps = nccltests_plateau(t, &out->from_bytes);
	if (!(out->measured_Bps > 0.0)) {
		rc = ts_error_set(err, TS_EINVALID, NULL, 0, "--nccl-tests",
				  "found a busbw plateau of 0, expected positive busbw at the "
				  "largest sizes");
		goto out;
	}
	struct nccl_eval e = {.cat = cat,
			      .path = path,
			      .sets = sets,
			      .nsets = nsets,
			      .t = t,
			      .link = (size_t)link,
			      .gpus = gpus,
			      .from_bytes = out->from_bytes,
			      .measured = out->measured_Bps,
			      .err = err};
	out->before_Bps = nccl_plateau(&e, out->before_eff);
	double flo = nccl_resid(CALIB_EFF_MIN, &e), fhi = nccl_resid(1.0, &e), x;
	if ((rc = e.rc))
		goto restore;
	if ((flo > 0.0) == (fhi > 0.0) && flo != 0.0 && fhi != 0.0) {
		x = fabs(flo) < fabs(fhi) ? CALIB_EFF_MIN : 1.0;
		out->at_bound = true;
	} else {
		gsl_function fn = {.function = nccl_resid, .params = &e};
		gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
		if (!s) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto restore;
		}
		gsl_error_handler_t *old = gsl_set_error_handler_off();
		int st = gsl_root_fsolver_set(s, &fn, CALIB_EFF_MIN, 1.0);
		for (int it = 0; st == GSL_SUCCESS && it < 200 && !e.rc; it++) {
			if ((st = gsl_root_fsolver_iterate(s)) != GSL_SUCCESS)
				break;
			st = gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
						    gsl_root_fsolver_x_upper(s), 1e-6, 0.0);
			if (st == GSL_SUCCESS)
				break;
			st = st == GSL_CONTINUE ? GSL_SUCCESS : st;
		}
		x = gsl_root_fsolver_root(s);
		gsl_set_error_handler(old);
		gsl_root_fsolver_free(s);
		if ((rc = e.rc))
			goto restore;
	}
	out->fitted_eff = x;
	out->after_Bps = nccl_plateau(&e, x);
	rc = e.rc;
	out->evaluations = e.n;
restore:
	hw_catalog_set_link_efficiency(cat, (size_t)link, out->before_eff);
out:
	ts_scenario_destroy(sc);
	return rc;
}
