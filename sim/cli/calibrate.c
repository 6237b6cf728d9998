/* trainsim calibrate: fit the efficiency constants to one measured
 * iteration time and write an overrides file for run, sweep and compare.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cli/cli.h"
#include "hw/catalog.h"
#include "io/calibcfg.h"
#include "io/scenario.h"
#include "run/run.h"
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

/* Simulated iteration time of scenario `path` with constants c. */
static int predict(const struct hw_catalog *cat, const char *path, const char *const *sets,
		   size_t nsets, const struct work_calib *c, double *t, struct ts_error *err)
{
	struct ts_scenario *sc = NULL;
	struct ts_result r;
	int rc = ts_scenario_load(cat, path, sets, nsets, &sc, err);
	if (!rc)
		rc = ts_run(sc, c, &r, NULL, err);
	ts_scenario_destroy(sc);
	if (!rc)
		*t = r.iteration_time_s;
	return rc;
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
	struct work_calib calib;
	if ((rc = cli_load_common("calibrate", &cat, &calib)))
		goto out;
	struct ts_error err;
	ts_error_clear(&err);
	/* the scenario as text with the --set values applied, for one row */
	struct val_fit_result fit;
	double before = 0.0, after = 0.0;
	char *text = NULL;
	FILE *f = fopen(path, "r");
	if (!f) {
		rc = predict(cat, path, sets, nsets, &calib, &before, &err); /* names the error */
		rc = rc ? cli_print_error("calibrate", &err) : CLI_BADINPUT;
		goto done;
	}
	size_t cap = 1u << 20, len = fread(text = ts_malloc(cap + 1), 1, cap, f);
	fclose(f);
	if (!text) {
		rc = CLI_BADINPUT;
		goto done;
	}
	text[len] = '\0';
	if ((rc = predict(cat, path, sets, nsets, &calib, &before, &err)) ||
	    (rc = calib_fit_iteration(cat, &calib, text, path, measured, &fit, &err)) ||
	    (rc = predict(cat, path, sets, nsets, &fit.calib, &after, &err))) {
		rc = cli_print_error("calibrate", &err);
		goto done;
	}
	printf("Calibration of %s to a measured iteration of %.6g s\n\n", path, measured);
	printf("%-10s %14s %14s\n", "constant", "before", "fitted");
	for (size_t i = 0; i < VAL_FIT_COUNT; i++) {
		size_t k = val_fit_keys[i];
		printf("%-10s %14.6g %14.6g\n", work_calib_key(k), *work_calib_field(&calib, k),
		       *work_calib_field(&fit.calib, k));
	}
	printf("\niteration time  before %.6g s (%+.1f %%), fitted %.6g s (%+.1f %%)\n", before,
	       100.0 * (before - measured) / measured, after,
	       100.0 * (after - measured) / measured);
	printf("fit: %zu evaluations; one measurement fixes one combination of the "
	       "constants\n", fit.evaluations);
	FILE *o = fopen(out_path, "w");
	char src[400];
	snprintf(src, sizeof src, "trainsim calibrate %s --measured-iteration-s %.9g", path,
		 measured);
	if (!o || calibcfg_write(o, &fit.calib, val_fit_keys, VAL_FIT_COUNT,
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
	ts_free(text, (1u << 20) + 1);
	hw_catalog_destroy(cat);
out:
	return rc;
}
