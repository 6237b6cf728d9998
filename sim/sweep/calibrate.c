/* Calibration to one measurement: a sensitivity probe of each candidate
 * constant, then a one-dimensional root search on the most sensitive one in
 * log space (sim/sweep/calibrate.h says why one constant).
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <string.h>

#include "run/run.h"
#include "sweep/calibrate.h"

static const size_t calib_keys[CALIB_NKEYS] = {0 /* gemm_k0 */, 5 /* launch_s */};

size_t calib_key(size_t i) { return i < CALIB_NKEYS ? calib_keys[i] : 0; }

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
	struct eval e = {.sc = sc, .c = *start, .key = calib_keys[0], .c0 = start->gemm_k0,
			 .log_meas = log(measured_s), .err = err};
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
