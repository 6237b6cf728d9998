/* ts_calibrate_iteration, ts_calibrate_nccl, ts_calibrate_trace and
 * ts_calibrate_runs: fit the efficiency constants to one measured iteration
 * time, a link type's efficiency to nccl-tests output, several constants to
 * a profiler trace or to a CSV of small runs, and write an overrides file for
 * ts_env_load_calibration (io/calibcfg); the report of each fit is written
 * by report/calibrate. SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "base/csv.h"
#include "io/kineto.h"
#include "run/calibfit.h"
#include "base/units.h"
#include "io/calibcfg.h"
#include "io/nccltests.h"
#include "hw/cluster.h"
#include "io/scenario.h"
#include "plan/env.h"
#include "report/calibrate.h"
#include "run/run.h"
#include "sweep/calibrate.h"
#include "work/compute.h"

/* A fit whose constant stopped at a bound and still misses the measurement
 * by more than this fraction is refused: the overrides would be wrong. */
#define CALIB_MISS_MAX 0.05

/* The status of a calibration once its outputs are written: `written` is
 * the status of writing the overrides, which are then flushed, and the report
 * is flushed only when they were. Returns 0 or TS_EIO naming the output. */
static int finish_outputs(int written, FILE *overrides, FILE *report)
{
	if (written || fflush(overrides) || ferror(overrides))
		return api_failf(TS_EIO, NULL, "writing the overrides failed");
	if (ferror(report) || fflush(report))
		return api_failf(TS_EIO, NULL, "writing the report failed");
	return 0;
}

int ts_calibrate_nccl(ts_env *env, const char *path, const char *const *sets, size_t nsets,
		      const char *file, FILE *overrides, FILE *report)
{
	struct nccl_table t;
	struct calib_link_fit fit;
	struct ts_error err;
	int rc = 0;
	ts_error_clear(&err);
	if (nccltests_read(file, &t, &err))
		return api_fail(&err);
	if (calib_fit_nccl(env->cat, path, sets, nsets, &t, &fit, &err)) {
		rc = api_fail(&err);
		goto done;
	}
	/* as --measured-iteration-s: an efficiency stopped at its bound that
	 * still misses the measured plateau is refused, not written */
	double miss = (fit.after_Bps - fit.measured_Bps) / fit.measured_Bps;
	if (fit.at_bound && fabs(miss) > CALIB_MISS_MAX) {
		rc = api_failf(TS_ERANGE, "--nccl-tests",
			       "%s: found a busbw plateau of %.5g GB/s, expected one %s's %s "
			       "can reach: its efficiency hit its %s bound %g, where the "
			       "plateau is %.5g GB/s (%+.1f %%); nothing written",
			       file, fit.measured_Bps / 1e9, path, fit.link,
			       fit.fitted_eff >= 1.0 ? "upper" : "lower", fit.fitted_eff,
			       fit.after_Bps / 1e9, 100.0 * miss);
		goto done;
	}
	report_calibrate_nccl(report, path, file, &fit);
	char src[600];
	snprintf(src, sizeof src,
		 "trainsim calibrate %s --nccl-tests %s: busbw %.4g GB/s over %u "
		 "GPUs",
		 path, file, fit.measured_Bps / 1e9, fit.gpus);
	rc = finish_outputs(calibcfg_write_link(overrides, fit.link, fit.fitted_eff,
						"trainsim calibration overrides: use with --calib",
						src),
			    overrides, report);
done:
	nccltests_free(&t);
	return rc;
}

int ts_calibrate_iteration(ts_env *env, const char *path, const char *const *sets, size_t nsets,
			   double measured, FILE *overrides, FILE *report)
{
	if (!isfinite(measured) || !(measured > 0.0))
		return api_failf(TS_ERANGE, "--measured-iteration-s",
				 "found %g, expected a positive number of seconds", measured);
	struct ts_scenario *sc = NULL;
	struct work_calib calib = env->calib;
	struct ts_error err;
	int rc = 0;
	ts_error_clear(&err);
	struct calib_fit fit;
	if (ts_scenario_load(env->cat, path, sets, nsets, &sc, &err) ||
	    calib_fit_iteration(sc, &calib, measured, &fit, &err)) {
		rc = api_fail(&err);
		goto done;
	}
	double c0 = *work_calib_field(&calib, fit.key), c1 = *work_calib_field(&fit.calib, fit.key);
	char ratio[64];
	report_calibrate_ratio(ratio, sizeof ratio, c0, c1);
	double miss = (fit.after_s - measured) / measured;
	if (fit.at_bound && fabs(miss) > CALIB_MISS_MAX) {
		rc = api_failf(
		    TS_ERANGE, "--measured-iteration-s",
		    "found %.6g s, expected a time the scenario %s can reach: %s hit its %s bound "
		    "%g (%s its committed value %g), where the best reachable iteration is %.6g s "
		    "(%+.1f %%); nothing written",
		    measured, path, work_calib_key(fit.key), c1 < c0 ? "lower" : "upper", c1, ratio,
		    c0, fit.after_s, 100.0 * miss);
		goto done;
	}
	report_calibrate_iteration(report, path, measured, &calib, &fit);
	char src[400];
	snprintf(src, sizeof src, "trainsim calibrate %s --measured-iteration-s %.9g", path,
		 measured);
	rc = finish_outputs(calibcfg_write(overrides, &fit.calib, &fit.key, 1,
					   "trainsim calibration overrides: use with --calib", src),
			    overrides, report);
done:
	ts_scenario_destroy(sc);
	return rc;
}

/* ---- several constants at once: a profiler trace, a CSV of runs -------- */

/* work_calib index of a fitted parameter; -1 for the GPU's own fractions. */
static int calib_index(enum calibfit_param q)
{
	switch (q) {
	case CALIBFIT_TC_SUSTAIN:
		return 6;
	case CALIBFIT_GEMM_K0:
		return 0;
	case CALIBFIT_LAUNCH_S:
		return 5;
	default:
		return -1;
	}
}

/* The constants table of a fit (report/calibrate) and its overrides; src
 * names the data. */
static int write_fit(const struct calibfit *f, const char *what, const char *src, FILE *overrides,
		     FILE *report)
{
	report_calibrate_fit(report, f, what);
	struct calibcfg_fit cf = {.present = true,
				  .before = f->rms_before,
				  .residual = f->rms_after,
				  .rows = (int)f->rows};
	size_t keys[CALIBFIT_NPARAMS_], nk = 0;
	bool gpu = false;
	for (int q = 0; q < CALIBFIT_NPARAMS_; q++) {
		if (!f->v[q].fitted)
			continue;
		size_t len = strlen(cf.measured);
		snprintf(cf.measured + len, sizeof cf.measured - len, "%s%s", len ? ", " : "",
			 calibfit_param_key(q));
		int k = calib_index(q);
		if (k >= 0)
			keys[nk++] = (size_t)k;
		else
			gpu = true;
	}
	int rc = calibcfg_write(overrides, &f->fitted.calib, keys, nk,
				"trainsim calibration overrides: use with --calib", src);
	if (!rc && gpu)
		rc = calibcfg_write_gpu(overrides, f->gpu, f->fitted.hbm_eff,
					f->v[CALIBFIT_GPU_FLASH].fitted ? f->fitted.flash_eff : 0.0,
					src);
	if (!rc && cf.measured[0])
		rc = calibcfg_write_fit(overrides, &cf);
	return rc;
}

int ts_calibrate_trace(ts_env *env, const char *path, const char *const *sets, size_t nsets,
		       const char *trace_path, FILE *overrides, FILE *report)
{
	struct kineto_trace t;
	struct ts_scenario *sc = NULL;
	struct calibfit *f = NULL;
	struct ts_error err;
	int rc = 0;
	ts_error_clear(&err);
	if (kineto_read(trace_path, &t, &err))
		return api_fail(&err);
	if (!(f = ts_calloc(1, sizeof *f))) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto done;
	}
	if (ts_scenario_load(env->cat, path, sets, nsets, &sc, &err)) {
		rc = api_fail(&err);
		goto done;
	}
	const char *gname = hw_cluster_gpu_type(sc->cluster)->name;
	if (!calib_device_matches(gname, t.device)) {
		rc = api_failf(TS_EINVALID, "--trace",
			       "%s: found a trace of %s, expected one of the GPUs of %s (%s): "
			       "its kernel times would be fitted to another GPU's constants",
			       trace_path, t.device, path, gname);
		goto done;
	}
	if (calibfit_trace(env->cat, sc, &env->calib, &t, f, &err)) {
		rc = api_fail(&err);
		goto done;
	}
	report_calibrate_trace(report, path, trace_path, &t, f);
	char src[600];
	snprintf(src, sizeof src, "trainsim calibrate %s --trace %s: %zu iterations", path,
		 trace_path, t.niters);
	if ((rc = write_fit(f, "trace", src, overrides, report)))
		goto written;
	report_calibrate_trace_iteration(report, f);
written:
	rc = finish_outputs(rc, overrides, report);
done:
	ts_scenario_destroy(sc);
	if (f)
		ts_free(f, sizeof *f);
	kineto_free(&t);
	return rc;
}

/* Most runs, and --set overrides of one run, in a runs CSV. */
#define RUNS_MAX 64
#define RUN_SETS_MAX 32

int ts_calibrate_runs(ts_env *env, const char *csv_path, FILE *overrides, FILE *report)
{
	static const char *const names[] = {"scenario", "set", "metric", "value"};
	static const char *const metrics[] = {"iteration_time_s", "samples_per_s", "tokens_per_s"};
	struct csv c = {0};
	struct ts_error err;
	struct calibfit_run *runs = ts_calloc(RUNS_MAX, sizeof *runs);
	struct ts_scenario **scs = ts_calloc(RUNS_MAX, sizeof *scs);
	struct calibfit *f = ts_calloc(1, sizeof *f);
	struct report_calib_run *rows = ts_calloc(RUNS_MAX, sizeof *rows);
	size_t n = 0;
	int rc = 0, col[4];
	ts_error_clear(&err);
	if (!runs || !scs || !f || !rows) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto done;
	}
	if (csv_open(&c, csv_path, 4096, 8, &err)) {
		rc = api_fail(&err);
		goto done;
	}
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", csv_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[1] = '\0';
	else
		dir[0] = '\0';
	for (int r; (r = csv_row(&c, names, 4, col, &err)) != 0;) {
		if (r < 0) {
			rc = api_fail(&err);
			goto done;
		}
		if (n == RUNS_MAX) {
			rc = api_failf(TS_ELIMIT, "--runs",
				       "%s:%d: found more than %d runs, expected "
				       "at most that",
				       csv_path, c.lineno, RUNS_MAX);
			goto done;
		}
		struct calibfit_run *run = &runs[n];
		const char *scen = c.f[col[0]], *metric = c.f[col[2]], *value = c.f[col[3]];
		run->metric = -1;
		for (int m = 0; m < 3; m++)
			if (!strcmp(metric, metrics[m]))
				run->metric = m;
		char *end;
		run->measured = strtod(value, &end);
		if (run->metric < 0 || end == value || *end || !(run->measured > 0.0) ||
		    !isfinite(run->measured)) {
			rc = api_failf(TS_ESYNTAX, "--runs",
				       "%s:%d: found metric \"%.40s\" value \"%.40s\", expected "
				       "iteration_time_s, samples_per_s or tokens_per_s and a "
				       "positive number",
				       csv_path, c.lineno, metric, value);
			goto done;
		}
		char file[1200], setbuf[2048];
		snprintf(file, sizeof file, "%s%s", scen[0] == '/' ? "" : dir, scen);
		snprintf(setbuf, sizeof setbuf, "%s", c.f[col[1]]);
		const char *sets[RUN_SETS_MAX];
		size_t ns = 0;
		for (char *tok = strtok(setbuf, ";"); tok && ns < RUN_SETS_MAX;
		     tok = strtok(NULL, ";"))
			if (*tok)
				sets[ns++] = tok;
		if (ts_scenario_load(env->cat, file, sets, ns, &scs[n], &err)) {
			/* the row that named the scenario and its --set, then what
			 * the scenario's loader found */
			char msg[900];
			rc = api_failf(err.code, "--runs", "%s:%d: %s", csv_path, c.lineno,
				       ts_error_format(&err, msg, sizeof msg));
			goto done;
		}
		run->sc = scs[n];
		snprintf(run->label, sizeof run->label, "%s:%d (%.60s%s%.60s)", csv_path, c.lineno,
			 scen, ns ? " --set " : "", c.f[col[1]]);
		n++;
	}
	/* The bounds of --measured-iteration-s: a run more than CALIB_RANGE
	 * times off the catalog's prediction in time needs some constant beyond
	 * CALIB_RANGE times its committed value (each constant's elasticity of the
	 * time is at most 1), so it is refused before the fit, naming its row;
	 * after the fit every fitted constant is held to that range too. */
	double pred[RUNS_MAX];
	for (size_t i = 0; i < n; i++) {
		struct ts_result a;
		if (ts_run(runs[i].sc, &env->calib, &a, NULL, &err)) {
			rc = api_fail(&err);
			goto done;
		}
		pred[i] = runs[i].metric == 0	? a.iteration_time_s
			  : runs[i].metric == 1 ? a.samples_per_s
						: a.tokens_per_s;
		double slower =
		    runs[i].metric == 0 ? runs[i].measured / pred[i] : pred[i] / runs[i].measured;
		if (!(slower <= CALIB_RANGE && slower >= 1.0 / CALIB_RANGE)) {
			rc = api_failf(TS_ERANGE, "--runs",
				       "%s: %s: found %.6g where the catalog's constants predict "
				       "%.6g (%.3g times %s in time), expected a run within %g "
				       "times of it, as a constant may move at most %g times its "
				       "committed value; nothing written",
				       runs[i].label, metrics[runs[i].metric], runs[i].measured,
				       pred[i], slower >= 1.0 ? slower : 1.0 / slower,
				       slower >= 1.0 ? "slower" : "faster", CALIB_RANGE,
				       CALIB_RANGE);
			goto done;
		}
	}
	if (calibfit_runs(runs, n, &env->calib, f, &err)) {
		rc = api_fail(&err);
		goto done;
	}
	for (int q = 0; q < CALIBFIT_NPARAMS_; q++) {
		const struct calibfit_value *v = &f->v[q];
		if (v->fitted && v->before > 0.0 &&
		    !(v->value <= v->before * CALIB_RANGE && v->value >= v->before / CALIB_RANGE)) {
			rc = api_failf(
			    TS_ERANGE, "--runs",
			    "%s: %s: found a fitted %g, %.3g times its committed value "
			    "%g, expected at most %g times either way (the bound of "
			    "--measured-iteration-s): the runs are not what the "
			    "scenarios describe; nothing written",
			    csv_path, calibfit_param_key((enum calibfit_param)q), v->value,
			    v->value > v->before ? v->value / v->before : v->before / v->value,
			    v->before, CALIB_RANGE);
			goto done;
		}
	}
	struct work_calib fitted = f->fitted.calib;
	for (size_t i = 0; i < n; i++) {
		struct ts_result b;
		if (ts_run(runs[i].sc, &fitted, &b, NULL, &err)) {
			rc = api_fail(&err);
			goto done;
		}
		double va = pred[i];
		double vb = runs[i].metric == 0	  ? b.iteration_time_s
			    : runs[i].metric == 1 ? b.samples_per_s
						  : b.tokens_per_s;
		rows[i] = (struct report_calib_run){runs[i].label, metrics[runs[i].metric],
						    runs[i].measured, va, vb};
	}
	report_calibrate_runs(report, csv_path, f->gpu, rows, n);
	char src[600];
	snprintf(src, sizeof src, "trainsim calibrate --runs %s: %zu runs", csv_path, n);
	rc = finish_outputs(write_fit(f, "runs", src, overrides, report), overrides, report);
done:
	csv_close(&c);
	for (size_t i = 0; i < n && scs; i++)
		ts_scenario_destroy(scs[i]);
	if (scs && n < RUNS_MAX && scs[n])
		ts_scenario_destroy(scs[n]);
	ts_free(runs, RUNS_MAX * sizeof *runs);
	ts_free(scs, RUNS_MAX * sizeof *scs);
	ts_free(f, sizeof *f);
	ts_free(rows, RUNS_MAX * sizeof *rows);
	return rc;
}
