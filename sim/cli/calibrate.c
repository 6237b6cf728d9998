/* trainsim calibrate: fit the efficiency constants to one measured
 * iteration time, or a link type's efficiency to nccl-tests output, and
 * write an overrides file for run, compare, sweep and search.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/catalog.h"
#include "base/units.h"
#include "io/calibcfg.h"
#include "io/nccltests.h"
#include "io/scenario.h"
#include "sweep/calibrate.h"
#include "work/compute.h"

int cli_apply_calib(const char *cmd, const char *path, struct hw_catalog *cat,
		    struct work_calib *calib)
{
	struct ts_error err;
	if (!path)
		return CLI_OK;
	if (calibcfg_apply(path, cat, calib, &err))
		return cli_print_error(cmd, &err);
	return CLI_OK;
}

/* A fit whose constant stopped at a bound and still misses the measurement
 * by more than this fraction is refused: the overrides would be wrong. */
#define CALIB_MISS_MAX 0.05

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim calibrate SCENARIO.cfg --measured-iteration-s SECONDS\n"
		     "                          [-o OVERRIDES.cfg] [--set KEY=VALUE]...\n"
		     "       trainsim calibrate SCENARIO.cfg --nccl-tests all_reduce_perf.txt\n"
		     "                          [-o OVERRIDES.cfg] [--set KEY=VALUE]...\n"
		     "  writes the fitted constants (or the link efficiency that makes the\n"
		     "  simulated all-reduce busbw plateau match nccl-tests') to OVERRIDES.cfg\n"
		     "  (default calibration.cfg); trainsim run|sweep|compare|search\n"
		     "  --calib OVERRIDES.cfg use them\n");
}

/* --nccl-tests: fit the bound link type's efficiency, print, write. */
static int calibrate_nccl(const char *path, const char **sets, size_t nsets, const char *file,
			  const char *out_path)
{
	struct hw_catalog *cat = NULL;
	struct nccl_table t;
	struct calib_link_fit fit;
	struct ts_error err;
	int rc = cli_load_common("calibrate", &cat, NULL);
	if (rc)
		return rc;
	ts_error_clear(&err);
	if (nccltests_read(file, &t, &err)) {
		rc = cli_print_error("calibrate", &err);
		goto done;
	}
	if (calib_fit_nccl(cat, path, (const char *const *)sets, nsets, &t, &fit, &err)) {
		rc = cli_print_error("calibrate", &err);
		goto done;
	}
	char a[32], b[32];
	printf("Calibration of %s to nccl-tests all-reduce %s (%u GPUs on %u node%s)\n\n", path,
	       file, fit.gpus, fit.nodes, fit.nodes == 1 ? "" : "s");
	printf("busbw plateau from %s: measured %.2f GB/s\n",
	       ts_units_format(fit.from_bytes, TS_UNIT_BYTES, a, sizeof a), fit.measured_Bps / 1e9);
	printf("%-12s %12s %12s %14s %14s\n", "link", "before", "fitted", "busbw before",
	       "busbw fitted");
	snprintf(a, sizeof a, "%.2f GB/s", fit.before_Bps / 1e9);
	snprintf(b, sizeof b, "%.2f GB/s", fit.after_Bps / 1e9);
	printf("%-12s %12.4f %12.4f %14s %14s\n", fit.link, fit.before_eff, fit.fitted_eff, a, b);
	printf("fit: %zu plateaus simulated; the efficiency of the link the all-reduce is bound "
	       "by (%s)\n",
	       fit.evaluations, fit.nodes == 1 ? "the GPUs' own links" : "the NICs");
	if (fit.at_bound)
		printf("note: the efficiency stopped at %g: the measurement is beyond what this "
		       "link's efficiency explains\n",
		       fit.fitted_eff);
	FILE *o = fopen(out_path, "w");
	char src[600];
	snprintf(src, sizeof src,
		 "trainsim calibrate %s --nccl-tests %s: busbw %.4g GB/s over %u "
		 "GPUs",
		 path, file, fit.measured_Bps / 1e9, fit.gpus);
	if (!o ||
	    calibcfg_write_link(o, fit.link, fit.fitted_eff,
				"trainsim calibration overrides: use with --calib", src) ||
	    fclose(o)) {
		fprintf(stderr, "trainsim calibrate: -o: writing \"%s\" failed\n", out_path);
		rc = CLI_BADINPUT;
		goto done;
	}
	printf("wrote %s (use: trainsim run|sweep|compare|search ... --calib %s)\n", out_path,
	       out_path);
	rc = fflush(stdout) ? CLI_BADINPUT : CLI_OK;
done:
	nccltests_free(&t);
	hw_catalog_destroy(cat);
	return rc;
}

int cli_calibrate(int argc, char **argv)
{
	const char *path = NULL, *out_path = "calibration.cfg", *meas = NULL, *nccl = NULL;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets) {
		fprintf(stderr, "trainsim calibrate: out of memory\n");
		return CLI_BADINPUT;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			rc = CLI_OK;
			goto out;
		} else if (!strcmp(a, "--measured-iteration-s") || !strcmp(a, "-o") ||
			   !strcmp(a, "--nccl-tests") || !strcmp(a, "--set")) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"trainsim calibrate: %s: found nothing, expected "
					"a value after it\n",
					a);
				goto out;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "-o"))
				out_path = v;
			else if (!strcmp(a, "--nccl-tests"))
				nccl = v;
			else if (!strcmp(a, "--set"))
				sets[nsets++] = v;
			else
				meas = v;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim calibrate: found unknown option \"%s\", expected "
				"--measured-iteration-s, --nccl-tests, --set or -o\n",
				a);
			goto out;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr,
				"trainsim calibrate: found a second scenario \"%s\", "
				"expected one\n",
				a);
			goto out;
		}
	}
	if (!path || !*path || (!meas) == (!nccl)) {
		fprintf(stderr,
			"trainsim calibrate: found %s, expected SCENARIO.cfg and one "
			"of --measured-iteration-s SECONDS or --nccl-tests FILE\n",
			!path || !*path ? "no scenario file"
			: meas		? "two measurements"
					: "no measurement");
		goto out;
	}
	const char *inputs[] = {path, nccl};
	if ((rc = cli_check_output("calibrate", out_path, inputs, 2)))
		goto out;
	if (nccl) {
		rc = calibrate_nccl(path, sets, nsets, nccl, out_path);
		goto out;
	}
	char *end;
	errno = 0;
	double measured = strtod(meas, &end);
	if (errno || end == meas || *end || !isfinite(measured) || !(measured > 0.0)) {
		fprintf(stderr,
			"trainsim calibrate: --measured-iteration-s: found \"%s\", "
			"expected a positive number of seconds\n",
			meas);
		rc = CLI_BADINPUT;
		goto out;
	}
	struct hw_catalog *cat = NULL;
	struct ts_scenario *sc = NULL;
	struct work_calib calib;
	if ((rc = cli_load_common("calibrate", &cat, &calib)))
		goto out;
	struct ts_error err;
	ts_error_clear(&err);
	struct calib_fit fit;
	if (ts_scenario_load(cat, path, (const char *const *)sets, nsets, &sc, &err) ||
	    calib_fit_iteration(sc, &calib, measured, &fit, &err)) {
		rc = cli_print_error("calibrate", &err);
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
		fprintf(stderr,
			"trainsim calibrate: --measured-iteration-s: found %.6g s, expected a time "
			"the scenario %s can reach: %s hit its %s bound %g (%s its committed value "
			"%g), where the best reachable iteration is %.6g s (%+.1f %%); nothing "
			"written\n",
			measured, path, work_calib_key(fit.key), c1 < c0 ? "lower" : "upper", c1,
			ratio, c0, fit.after_s, 100.0 * miss);
		rc = CLI_BADINPUT;
		goto done;
	}
	printf("Calibration of %s to a measured iteration of %.6g s\n\n", path, measured);
	printf("%-10s %14s %14s %12s\n", "constant", "before", "fitted", "elasticity");
	for (size_t i = 0; i < CALIB_NKEYS; i++) {
		size_t k = calib_key(i);
		printf("%-10s %14.6g %14.6g %12.3f%s\n", work_calib_key(k),
		       *work_calib_field(&calib, k), *work_calib_field(&fit.calib, k),
		       fit.elasticity[i], k == fit.key ? "  fitted" : "");
	}
	printf("\niteration time  before %.6g s (%+.1f %%), fitted %.6g s (%+.1f %%)\n",
	       fit.before_s, 100.0 * (fit.before_s - measured) / measured, fit.after_s,
	       100.0 * (fit.after_s - measured) / measured);
	printf("fit: %zu simulations; one measurement moves one constant, the one the time "
	       "depends on most (elasticity = d ln T / d ln c)\n",
	       fit.evaluations);
	if (fit.at_bound)
		printf("note: %s stopped at %g, %s its committed value: the measurement is "
		       "beyond what this constant explains\n",
		       work_calib_key(fit.key), c1, ratio);
	FILE *o = fopen(out_path, "w");
	char src[400];
	snprintf(src, sizeof src, "trainsim calibrate %s --measured-iteration-s %.9g", path,
		 measured);
	if (!o ||
	    calibcfg_write(o, &fit.calib, &fit.key, 1,
			   "trainsim calibration overrides: use with --calib", src) ||
	    fclose(o)) {
		fprintf(stderr, "trainsim calibrate: -o: writing \"%s\" failed\n", out_path);
		rc = CLI_BADINPUT;
		goto done;
	}
	printf("wrote %s (use: trainsim run|sweep|compare ... --calib %s)\n", out_path, out_path);
	rc = fflush(stdout) ? CLI_BADINPUT : CLI_OK;
done:
	ts_scenario_destroy(sc);
	hw_catalog_destroy(cat);
out:
	free(sets);
	return rc;
}
