/* trainsim calibrate: fit the efficiency constants to one measured
 * iteration time and write an overrides file for run, sweep and compare.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/catalog.h"
#include "io/calibcfg.h"
#include "io/scenario.h"
#include "sweep/calibrate.h"
#include "work/compute.h"

int cli_apply_calib(const char *cmd, const char *path, struct work_calib *calib)
{
	struct ts_error err;
	if (!path)
		return CLI_OK;
	if (calibcfg_apply(path, calib, &err))
		return cli_print_error(cmd, &err);
	return CLI_OK;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim calibrate SCENARIO.cfg --measured-iteration-s SECONDS\n"
		     "                          [-o OVERRIDES.cfg]\n"
		     "  writes the fitted constants to OVERRIDES.cfg (default "
		     "calibration.cfg);\n"
		     "  trainsim run|sweep|compare --calib OVERRIDES.cfg use them\n");
}

int cli_calibrate(int argc, char **argv)
{
	const char *path = NULL, *out_path = "calibration.cfg", *meas = NULL;
	const char *const *sets = NULL;
	size_t nsets = 0;
	int rc = CLI_USAGE;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return CLI_OK;
		} else if (!strcmp(a, "--measured-iteration-s") || !strcmp(a, "-o")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "trainsim calibrate: %s: found nothing, expected "
						"a value after it\n", a);
				goto out;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "-o"))
				out_path = v;
			else
				meas = v;
		} else if (!strcmp(a, "--nccl-tests")) {
			fprintf(stderr, "trainsim calibrate: --nccl-tests: not supported yet, "
					"expected --measured-iteration-s\n");
			goto out;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim calibrate: found unknown option \"%s\", expected "
				"--measured-iteration-s or -o\n",
				a);
			goto out;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr, "trainsim calibrate: found a second scenario \"%s\", "
					"expected one\n", a);
			goto out;
		}
	}
	if (!path || !*path || !meas) {
		fprintf(stderr, "trainsim calibrate: found %s, expected SCENARIO.cfg "
				"--measured-iteration-s SECONDS\n",
			!path || !*path ? "no scenario file" : "no measurement");
		goto out;
	}
	char *end;
	errno = 0;
	double measured = strtod(meas, &end);
	if (errno || end == meas || *end || !isfinite(measured) || !(measured > 0.0)) {
		fprintf(stderr, "trainsim calibrate: --measured-iteration-s: found \"%s\", "
				"expected a positive number of seconds\n", meas);
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
	if (ts_scenario_load(cat, path, sets, nsets, &sc, &err) ||
	    calib_fit_iteration(sc, &calib, measured, &fit, &err)) {
		rc = cli_print_error("calibrate", &err);
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
	       "depends on most (elasticity = d ln T / d ln c)\n", fit.evaluations);
	if (fit.at_bound)
		printf("note: %s stopped at %g, %g times its committed value: the measurement is "
		       "beyond what this constant explains\n", work_calib_key(fit.key),
		       *work_calib_field(&fit.calib, fit.key), CALIB_RANGE);
	FILE *o = fopen(out_path, "w");
	char src[400];
	snprintf(src, sizeof src, "trainsim calibrate %s --measured-iteration-s %.9g", path,
		 measured);
	if (!o || calibcfg_write(o, &fit.calib, &fit.key, 1,
				 "trainsim calibration overrides: use with --calib", src) ||
	    fclose(o)) {
		fprintf(stderr, "trainsim calibrate: -o: writing \"%s\" failed\n", out_path);
		rc = CLI_BADINPUT;
		goto done;
	}
	printf("wrote %s (use: trainsim run|sweep|compare ... --calib %s)\n", out_path,
	       out_path);
	rc = fflush(stdout) ? CLI_BADINPUT : CLI_OK;
done:
	ts_scenario_destroy(sc);
	hw_catalog_destroy(cat);
out:
	return rc;
}
