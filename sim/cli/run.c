/* trainsim run: simulate one scenario and report it.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim run SCENARIO.cfg [--set KEY=VALUE]... [--format text|csv|json]\n"
		"                    [--trace OUT.json] [--dump-config] [--calib OVERRIDES.cfg]\n");
}

int cli_fail(const char *cmd)
{
	fprintf(stderr, "trainsim %s: %s\n", cmd, ts_errmsg());
	return ts_errcode() == TS_EUSAGE ? CLI_USAGE : CLI_BADINPUT;
}

int cli_env(const char *cmd, const char *calib, ts_env **env)
{
	if (ts_env_open(NULL, env))
		return cli_fail(cmd);
	if (calib && ts_env_load_calibration(*env, calib)) {
		ts_env_close(*env);
		*env = NULL;
		return cli_fail(cmd);
	}
	return CLI_OK;
}

int cli_check_output(const char *cmd, const char *out, const char *const *inputs, size_t n)
{
	struct stat so, si;
	if (!out || stat(out, &so) != 0)
		return CLI_OK;
	for (size_t i = 0; i < n; i++) {
		if (inputs[i] && stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino) {
			fprintf(stderr,
				"trainsim %s: -o: found \"%s\", the same file as the input \"%s\", "
				"expected another file (writing it would destroy the input)\n",
				cmd, out, inputs[i]);
			return CLI_USAGE;
		}
	}
	return CLI_OK;
}

int cli_run(int argc, char **argv)
{
	const char *path = NULL, *format = "text", *trace_path = NULL, *calib_path = NULL;
	bool dump = false;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets)
		return CLI_BADINPUT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(sets);
			return CLI_OK;
		} else if (!strcmp(a, "--dump-config")) {
			dump = true;
		} else if (!strcmp(a, "--set") || !strcmp(a, "--format") || !strcmp(a, "--trace") ||
			   !strcmp(a, "--calib")) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"trainsim run: %s: found nothing, expected %s after it\n",
					a,
					!strcmp(a, "--set")	? "KEY=VALUE"
					: !strcmp(a, "--trace") ? "an output file"
					: !strcmp(a, "--calib") ? "an overrides file"
								: "text, csv or json");
				goto out;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--set"))
				sets[nsets++] = v;
			else if (!strcmp(a, "--trace"))
				trace_path = v;
			else if (!strcmp(a, "--calib"))
				calib_path = v;
			else
				format = v;
		} else if (!strncmp(a, "--set=", 6)) {
			sets[nsets++] = a + 6;
		} else if (!strncmp(a, "--format=", 9)) {
			format = a + 9;
		} else if (!strncmp(a, "--trace=", 8)) {
			trace_path = a + 8;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim run: found unknown option \"%s\", expected --set, "
				"--format, --trace, --calib or --dump-config (see trainsim run "
				"--help)\n",
				a);
			goto out;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr,
				"trainsim run: found a second scenario \"%s\", expected one "
				"(use trainsim compare for several)\n",
				a);
			goto out;
		}
	}
	if (!path || !*path) {
		fprintf(stderr, "trainsim run: found %s, expected SCENARIO.cfg\n",
			path ? "an empty file name" : "no scenario file");
		goto out;
	}
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt)) {
		rc = cli_fail("run");
		goto out;
	}
	ts_env *env = NULL;
	ts_scenario *sc = NULL;
	ts_plan *plan = NULL;
	ts_result *res = NULL;
	FILE *tf = NULL;
	if ((rc = cli_env("run", calib_path, &env)))
		goto out;
	if (ts_scenario_load_file(env, path, sets, nsets, &sc)) {
		rc = cli_fail("run");
		goto done;
	}
	if (dump) {
		rc = CLI_OK;
		if (ts_scenario_write_config(sc, stdout))
			rc = cli_fail("run");
		goto done;
	}
	if (trace_path) {
		tf = fopen(trace_path, "w");
		if (!tf) {
			fprintf(stderr,
				"trainsim run: --trace: found \"%s\", which cannot be "
				"written (%s), expected a writable file\n",
				trace_path, strerror(errno));
			rc = CLI_BADINPUT;
			goto done;
		}
	}
	rc = CLI_OK;
	/* the trace first, so that a failure leaves nothing on stdout */
	if (ts_plan_build(env, sc, &plan) || ts_plan_simulate(plan, tf, &res))
		rc = cli_fail("run");
	if (tf && fclose(tf) && !rc) {
		fprintf(stderr, "trainsim run: --trace: writing \"%s\" failed\n", trace_path);
		rc = CLI_BADINPUT;
	}
	if (tf && rc)
		remove(trace_path);
	if (!rc && ts_result_write(res, fmt, stdout))
		rc = cli_fail("run");
done:
	ts_result_free(res);
	ts_plan_free(plan);
	ts_scenario_free(sc);
	ts_env_close(env);
out:
	free(sets);
	return rc;
}
