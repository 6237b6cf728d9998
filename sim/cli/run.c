/* trainsim run: simulate one scenario and report it.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim run SCENARIO.cfg [--set KEY=VALUE]... [--format text|csv|json]\n"
		"                    [--trace OUT.json] [--dump-config] [--calib OVERRIDES.cfg]\n"
		"  options take their value as --opt VALUE or --opt=VALUE; --trace - writes\n"
		"  the trace to standard output and the report to standard error\n");
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
	enum { O_SET = 1, O_FORMAT, O_TRACE, O_CALIB, O_DUMP };
	static const struct cli_opt opts[] = {
	    {O_SET, "--set", NULL, "KEY=VALUE"},
	    {O_FORMAT, "--format", NULL, "text, csv or json"},
	    {O_TRACE, "--trace", NULL, "an output file (- for standard output)"},
	    {O_CALIB, "--calib", NULL, "an overrides file"},
	    {O_DUMP, "--dump-config", NULL, NULL},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "run", opts, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_ERR)
			goto out;
		if (id == CLI_OPT_HELP) {
			usage(stdout);
			rc = CLI_OK;
			goto out;
		}
		if (id == O_SET)
			sets[nsets++] = v;
		else if (id == O_FORMAT)
			format = v;
		else if (id == O_TRACE)
			trace_path = v;
		else if (id == O_CALIB)
			calib_path = v;
		else if (id == O_DUMP)
			dump = true;
		else if (!path)
			path = v;
		else {
			fprintf(stderr,
				"trainsim run: found a second scenario \"%s\", expected one "
				"(use trainsim compare for several)\n",
				v);
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
	/* --trace -: the trace on standard output, the report on standard error */
	bool trace_stdout = trace_path && !strcmp(trace_path, "-");
	if (trace_stdout) {
		tf = stdout;
	} else if (trace_path) {
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
	if (tf && !trace_stdout && fclose(tf) && !rc) {
		fprintf(stderr, "trainsim run: --trace: writing \"%s\" failed\n", trace_path);
		rc = CLI_BADINPUT;
	}
	if (tf && !trace_stdout && rc)
		remove(trace_path);
	if (!rc && ts_result_write(res, fmt, trace_stdout ? stderr : stdout))
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
