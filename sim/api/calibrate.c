/* ts_calibrate_iteration and ts_calibrate_nccl: fit the efficiency
 * constants to one measured iteration time, or a link type's efficiency to
 * nccl-tests output, and write an overrides file for ts_env_load_calibration.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>

#include "api/api_int.h"
#include "base/units.h"
#include "io/calibcfg.h"
#include "io/nccltests.h"
#include "io/scenario.h"
#include "plan/env.h"
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
	char a[32], b[32];
	fprintf(report, "Calibration of %s to nccl-tests all-reduce %s (%u GPUs on %u node%s)\n\n",
		path, file, fit.gpus, fit.nodes, fit.nodes == 1 ? "" : "s");
	fprintf(report, "busbw plateau from %s: measured %.2f GB/s\n",
		ts_units_format(fit.from_bytes, TS_UNIT_BYTES, a, sizeof a),
		fit.measured_Bps / 1e9);
	fprintf(report, "%-12s %12s %12s %14s %14s\n", "link", "before", "fitted", "busbw before",
		"busbw fitted");
	snprintf(a, sizeof a, "%.2f GB/s", fit.before_Bps / 1e9);
	snprintf(b, sizeof b, "%.2f GB/s", fit.after_Bps / 1e9);
	fprintf(report, "%-12s %12.4f %12.4f %14s %14s\n", fit.link, fit.before_eff, fit.fitted_eff,
		a, b);
	fprintf(report,
		"fit: %zu plateaus simulated; the efficiency of the link the all-reduce is bound "
		"by (%s)\n",
		fit.evaluations, fit.nodes == 1 ? "the GPUs' own links" : "the NICs");
	if (fit.at_bound)
		fprintf(report,
			"note: the efficiency stopped at %g: the measurement is beyond what this "
			"link's efficiency explains\n",
			fit.fitted_eff);
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
	if (c1 < c0)
		snprintf(ratio, sizeof ratio, "1/%g of", c0 / c1);
	else
		snprintf(ratio, sizeof ratio, "%g times", c1 / c0);
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
	fprintf(report, "Calibration of %s to a measured iteration of %.6g s\n\n", path, measured);
	fprintf(report, "%-10s %14s %14s %12s\n", "constant", "before", "fitted", "elasticity");
	for (size_t i = 0; i < CALIB_NKEYS; i++) {
		size_t k = calib_key(i);
		fprintf(report, "%-10s %14.6g %14.6g %12.3f%s\n", work_calib_key(k),
			*work_calib_field(&calib, k), *work_calib_field(&fit.calib, k),
			fit.elasticity[i], k == fit.key ? "  fitted" : "");
	}
	fprintf(report, "\niteration time  before %.6g s (%+.1f %%), fitted %.6g s (%+.1f %%)\n",
		fit.before_s, 100.0 * (fit.before_s - measured) / measured, fit.after_s,
		100.0 * (fit.after_s - measured) / measured);
	fprintf(report,
		"fit: %zu simulations; one measurement moves one constant, the one the time "
		"depends on most (elasticity = d ln T / d ln c)\n",
		fit.evaluations);
	if (fit.at_bound)
		fprintf(report,
			"note: %s stopped at %g, %s its committed value: the measurement is "
			"beyond what this constant explains\n",
			work_calib_key(fit.key), c1, ratio);
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
