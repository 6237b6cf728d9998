/* trainsim run: simulate one scenario and report it.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim run SCENARIO.cfg [--set KEY=VALUE]... [--format text|csv|json]\n"
		"                    [-o REPORT] [--trace OUT.json] [--dump-config]\n"
		"                    [--calib OVERRIDES.cfg]\n"
		"\n"
		"Simulate one scenario (a cluster, a model, a training setup) and report the\n"
		"iteration time, throughput, MFU, memory per GPU, the time to train, energy\n"
		"and cost, and where the iteration time goes.\n"
		"\n"
		"  SCENARIO.cfg      a scenario file (configs/README.md); - reads it from\n"
		"                    standard input\n"
		"  --set KEY=VALUE   override any key (repeatable): --set parallel.tp=8\n"
		"                    --set nodes=16 --set model=gpt3-175b\n"
		"  --format F        text (a report for people), csv or json (the stable\n"
		"                    result keys, for programs)\n"
		"  -o FILE           write the report (or --dump-config's scenario) to FILE\n"
		"                    (put in place only once whole), not standard output\n"
		"  --trace FILE      a Chrome trace of the simulated iterations for Perfetto\n"
		"                    (ui.perfetto.dev) or chrome://tracing; --trace - writes\n"
		"                    it to standard output and the report to standard error\n"
		"  --dump-config     print the resolved scenario with where every value came\n"
		"                    from (file, catalog source, default), then stop\n"
		"  --calib FILE      calibration overrides (as trainsim calibrate writes)\n"
		"\n"
		"Options take their value as --opt VALUE or --opt=VALUE. A setting that does\n"
		"not fit in GPU memory is a result (fits = false), not an error.\n"
		"\n"
		"example:\n"
		"  trainsim run configs/scenarios/default.cfg\n"
		"  trainsim run configs/scenarios/default.cfg --set nodes=4 --format json\n");
}

bool cli_refuse_stdin(const char *cmd, const char *path, const char *why)
{
	if (!path || strcmp(path, "-"))
		return false;
	fprintf(stderr,
		"trainsim %s: found \"-\", expected a scenario file (%s reads it %s; save "
		"standard input to a file)\n",
		cmd, cmd, why);
	return true;
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

int cli_check_outputs(const char *cmd, const ts_env *env, const struct ts_output_arg *outs,
		      size_t nout, const struct ts_output_arg *ins, size_t nin)
{
	/* every refusal of an output is a usage error (exit 1, as README.md
	 * says), a folder that does not exist or cannot be written as much as a
	 * directory or an input; only running out of memory is not */
	if (!ts_output_check(env, outs, nout, ins, nin))
		return CLI_OK;
	int rc = cli_fail(cmd);
	return ts_errcode() == TS_ENOMEM ? rc : CLI_USAGE;
}

int cli_run(int argc, char **argv)
{
	const char *path = NULL, *format = "text", *trace_path = NULL, *calib_path = NULL,
		   *out_path = NULL;
	bool dump = false;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets) {
		fprintf(stderr, "trainsim run: out of memory\n");
		return CLI_BADINPUT;
	}
	enum { O_SET = 1, O_FORMAT, O_TRACE, O_CALIB, O_DUMP, O_OUT };
	static const struct cli_opt opts[] = {
	    {O_SET, "--set", NULL, "KEY=VALUE"},
	    {O_FORMAT, "--format", NULL, "text, csv or json"},
	    {O_TRACE, "--trace", NULL, "an output file (- for standard output)"},
	    {O_CALIB, "--calib", NULL, "an overrides file"},
	    {O_DUMP, "--dump-config", NULL, NULL},
	    {O_OUT, "--output", "-o", "a report file (- for standard output)"},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "run", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP) {
			rc = p.rc;
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
		else if (id == O_OUT)
			out_path = strcmp(v, "-") ? v : NULL;
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
	if (dump && fmt == TS_FORMAT_CSV) {
		fprintf(stderr, "trainsim run: --format: found csv with --dump-config, expected "
				"text or json (a scenario is no table)\n");
		goto out;
	}
	ts_env *env = NULL;
	ts_scenario *sc = NULL;
	ts_plan *plan = NULL;
	ts_result *res = NULL;
	ts_output *tf = NULL, *ro = NULL; /* --trace, -o */
	if ((rc = cli_env("run", calib_path, &env)))
		goto out;
	if (ts_scenario_load_file(env, path, sets, nsets, &sc)) {
		rc = cli_fail("run");
		goto done;
	}
	const struct ts_output_arg outs[] = {{"--trace", dump ? NULL : trace_path},
					     {"-o", out_path}};
	const struct ts_output_arg ins[] = {{NULL, path},
					    {"--calib", calib_path},
					    {"model", ts_scenario_model_file(sc)},
					    {"cluster", ts_scenario_cluster_file(sc)}};
	if ((rc = cli_check_outputs("run", env, outs, 2, ins, 4)))
		goto done;
	/* -o: the report, through the output-file writer (a temporary file
	 * put in place once whole) */
	if (out_path && ts_output_open(out_path, "-o", &ro)) {
		rc = cli_fail("run");
		goto done;
	}
	if (dump) {
		rc = CLI_OK;
		FILE *o = ro ? ts_output_stream(ro) : stdout;
		if ((fmt == TS_FORMAT_JSON ? ts_scenario_write_json(sc, o)
					   : ts_scenario_write_config(sc, o)) ||
		    fflush(o)) {
			if (ro) {
				ts_output_write_error(ro, errno);
				rc = cli_fail("run");
			} else {
				fprintf(stderr,
					"trainsim run: writing the scenario to standard output "
					"failed (%s)\n",
					strerror(errno));
				rc = CLI_BADINPUT;
			}
		}
		goto done;
	}
	/* --trace -: the trace on standard output, the report on standard
	 * error; a trace file is written to a temporary file renamed on
	 * success, so a failure leaves whatever --trace named untouched */
	bool trace_stdout = trace_path && !strcmp(trace_path, "-");
	if (trace_path && ts_output_open(trace_path, "--trace", &tf)) {
		rc = cli_fail("run");
		goto done;
	}
	rc = CLI_OK;
	/* the trace first, so that a failure leaves nothing on stdout */
	if (ts_plan_build(env, sc, &plan) ||
	    ts_plan_simulate(plan, tf ? ts_output_stream(tf) : NULL, &res)) {
		if (tf && ts_errcode() == TS_EIO)
			ts_output_write_error(tf, errno);
		rc = cli_fail("run");
	}
	if (tf) {
		if (rc)
			ts_output_abort(tf);
		else if (ts_output_commit(tf))
			rc = cli_fail("run");
		tf = NULL;
	}
	/* a run that does not fit says what would */
	double fits = 1.0;
	if (!rc && !ts_result_get(res, "fits", &fits) && fits == 0.0 &&
	    ts_result_find_remedies(env, path, sets, nsets, res))
		rc = cli_fail("run");
	if (!rc && ro) {
		if (ts_result_write(res, fmt, ts_output_stream(ro))) {
			ts_output_write_error(ro, errno);
			rc = cli_fail("run");
		}
	} else if (!rc) {
		FILE *o = trace_stdout ? stderr : stdout;
		if (ts_result_write(res, fmt, o) || fflush(o)) {
			fprintf(stderr,
				"trainsim run: writing the report to standard %s failed (%s)\n",
				trace_stdout ? "error" : "output", strerror(errno));
			rc = CLI_BADINPUT;
		}
	}
done:
	if (ro) {
		if (rc)
			ts_output_abort(ro);
		else if (ts_output_commit(ro))
			rc = cli_fail("run");
	}
	ts_result_free(res);
	ts_plan_free(plan);
	ts_scenario_free(sc);
	ts_env_close(env);
out:
	free(sets);
	return rc;
}
