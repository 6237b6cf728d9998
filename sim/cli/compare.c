/* trainsim compare: several scenarios side by side (text: a column each;
 * CSV: a row each), the best of each row marked.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim compare A.cfg B.cfg [C.cfg ...] [--set KEY=VALUE]...\n"
		     "                        [--format text|csv|json] [--calib OVERRIDES.cfg]\n"
		     "\n"
		     "Simulate two or more scenarios and show them side by side: time per\n"
		     "iteration, throughput, scaling efficiency (throughput per GPU relative to\n"
		     "the first scenario), memory, time to train, energy and cost; '*' marks the\n"
		     "best of a row.\n"
		     "\n"
		     "  A.cfg ...         scenario files; one of them may be - (standard input)\n"
		     "  --set KEY=VALUE   override a key of every scenario (repeatable)\n"
		     "  --format F        text, csv or json\n"
		     "  --calib FILE      calibration overrides (as trainsim calibrate writes)\n"
		     "\n"
		     "example:\n"
		     "  cd examples/4gpu-vs-16node\n"
		     "  trainsim compare box-4xa100.cfg dgx16-ib.cfg dgx16-10gbe.cfg\n");
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
	enum { O_SET = 1, O_FORMAT, O_CALIB };
	static const struct cli_opt opts[] = {{O_SET, "--set", NULL, "KEY=VALUE"},
					      {O_FORMAT, "--format", NULL, "text, csv or json"},
					      {O_CALIB, "--calib", NULL, "an overrides file"},
					      {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "compare", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP) {
			rc = p.rc;
			goto out;
		}
		if (id == O_SET)
			sets[nsets++] = v;
		else if (id == O_FORMAT)
			format = v;
		else if (id == O_CALIB)
			calib_path = v;
		else
			paths[np++] = v;
	}
	if (np < 2) {
		fprintf(stderr, "trainsim compare: found %zu scenario%s, expected at least two\n",
			np, np == 1 ? "" : "s");
		goto out;
	}
	size_t dashes = 0;
	for (size_t i = 0; i < np; i++)
		dashes += !strcmp(paths[i], "-");
	if (dashes > 1) {
		fprintf(stderr,
			"trainsim compare: found standard input (-) %zu times, expected it once "
			"(it can be read only once)\n",
			dashes);
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
		/* a scenario that does not fit says what would */
		double fits = 1.0;
		if (!e && !ts_result_get(res[k], "fits", &fits) && fits == 0.0)
			e = ts_result_find_remedies(env, paths[k], sets, nsets, res[k]);
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
