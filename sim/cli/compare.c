/* trainsim compare: several scenarios side by side, one column each, the
 * best of each row marked.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim compare A.cfg B.cfg [C.cfg ...] [--set KEY=VALUE]...\n"
		     "                        [--format text|csv|json] [--calib OVERRIDES.cfg]\n"
		     "  --set applies to every scenario; scaling efficiency is throughput per GPU\n"
		     "  relative to the first scenario; '*' marks the best of a row\n");
}

int cli_compare(int argc, char **argv)
{
	const char *format = "text", *calib_path = NULL;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	const char **paths = calloc((size_t)argc, sizeof *paths);
	size_t nsets = 0, np = 0;
	int rc = CLI_USAGE;
	ts_result **res = NULL;
	ts_env *env = NULL;
	if (!sets || !paths) {
		rc = CLI_BADINPUT;
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			rc = CLI_OK;
			goto out;
		} else if (!strcmp(a, "--set") || !strcmp(a, "--format") || !strcmp(a, "--calib")) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"trainsim compare: %s: found nothing, expected a "
					"value after it\n",
					a);
				goto out;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--set"))
				sets[nsets++] = v;
			else if (!strcmp(a, "--calib"))
				calib_path = v;
			else
				format = v;
		} else if (!strncmp(a, "--set=", 6)) {
			sets[nsets++] = a + 6;
		} else if (!strncmp(a, "--format=", 9)) {
			format = a + 9;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim compare: found unknown option \"%s\", expected "
				"--set, --format or --calib\n",
				a);
			goto out;
		} else {
			paths[np++] = a;
		}
	}
	if (np < 2) {
		fprintf(stderr, "trainsim compare: found %zu scenario%s, expected at least two\n",
			np, np == 1 ? "" : "s");
		goto out;
	}
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt)) {
		rc = cli_fail("compare");
		goto out;
	}
	if ((rc = cli_env("compare", calib_path, &env)))
		goto out;
	res = calloc(np, sizeof *res);
	if (!res) {
		rc = CLI_BADINPUT;
		goto out;
	}
	for (size_t k = 0; k < np; k++) {
		ts_scenario *sc = NULL;
		ts_plan *plan = NULL;
		if (!*paths[k]) {
			fprintf(stderr, "trainsim compare: found an empty file name, expected "
					"SCENARIO.cfg\n");
			rc = CLI_USAGE;
			goto out;
		}
		int e = ts_scenario_load_file(env, paths[k], sets, nsets, &sc) ||
			ts_plan_build(env, sc, &plan) || ts_plan_simulate(plan, NULL, &res[k]);
		ts_plan_free(plan);
		ts_scenario_free(sc);
		if (e) {
			rc = cli_fail("compare");
			goto out;
		}
	}
	rc = ts_compare_write((const ts_result *const *)res, np, fmt, stdout) ? cli_fail("compare")
									      : CLI_OK;
out:
	for (size_t k = 0; res && k < np; k++)
		ts_result_free(res[k]);
	free(res);
	ts_env_close(env);
	free(sets);
	free(paths);
	return rc;
}
