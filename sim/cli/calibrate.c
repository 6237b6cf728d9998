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

int cli_calibrate(int argc, char **argv)
{
	const char *path = NULL, *out_path = "calibration.cfg", *meas = NULL, *nccl = NULL;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets)
		return CLI_BADINPUT;
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
	double measured = 0.0;
	if (!nccl) {
		char *end;
		errno = 0;
		measured = strtod(meas, &end);
		if (errno || end == meas || *end || !isfinite(measured) || !(measured > 0.0)) {
			fprintf(stderr,
				"trainsim calibrate: --measured-iteration-s: found \"%s\", "
				"expected a positive number of seconds\n",
				meas);
			rc = CLI_BADINPUT;
			goto out;
		}
	}
	ts_env *env = NULL;
	if ((rc = cli_env("calibrate", NULL, &env)))
		goto out;
	if (nccl)
		rc = ts_calibrate_nccl(env, path, sets, nsets, nccl, out_path, stdout);
	else
		rc = ts_calibrate_iteration(env, path, sets, nsets, measured, out_path, stdout);
	if (rc)
		rc = cli_fail("calibrate");
	ts_env_close(env);
out:
	free(sets);
	return rc;
}
