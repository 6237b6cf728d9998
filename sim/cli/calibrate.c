/* trainsim calibrate: fit the efficiency constants to one measured
 * iteration time, or a link type's efficiency to nccl-tests output, and
 * write an overrides file for run, compare, sweep and search.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: trainsim calibrate SCENARIO.cfg --measured-iteration-s SECONDS\n"
	    "                          [-o OVERRIDES.cfg] [--set KEY=VALUE]...\n"
	    "       trainsim calibrate SCENARIO.cfg --nccl-tests all_reduce_perf.txt\n"
	    "                          [-o OVERRIDES.cfg] [--set KEY=VALUE]...\n"
	    "       trainsim calibrate SCENARIO.cfg --trace TRACE.json[.gz]\n"
	    "                          [-o OVERRIDES.cfg] [--set KEY=VALUE]...\n"
	    "       trainsim calibrate --runs RUNS.csv [-o OVERRIDES.cfg]\n"
	    "\n"
	    "Fit the compute constant the scenario's iteration time depends on most to a\n"
	    "measured iteration, or the efficiency of the link an all-reduce is bound by to\n"
	    "nccl-tests output (its busbw plateau), and write the fit as an overrides file\n"
	    "that trainsim run|sweep|compare|search --calib OVERRIDES.cfg use. A profiler\n"
	    "trace or a CSV of small runs fits several constants at once, each with its\n"
	    "80 %% band, and marks them as measured: results made with the overrides say\n"
	    "so and narrow their band by what the fit taught.\n"
	    "\n"
	    "  --measured-iteration-s S  the measured mean iteration time, seconds\n"
	    "  --nccl-tests FILE         all_reduce_perf output (- for standard input), as\n"
	    "                            nccl-tests or trainsim collective --format\n"
	    "                            nccl-tests print it\n"
	    "  -o FILE                   the overrides (default calibration.cfg, refused\n"
	    "                            when that file exists unless -o names it); -\n"
	    "                            writes them to standard output and the report\n"
	    "                            to standard error\n"
	    "  --trace FILE              a PyTorch profiler trace of rank 0 of the scenario\n"
	    "                            (torch.profiler's Chrome trace JSON, .json.gz too;\n"
	    "                            a few iterations with prof.step())\n"
	    "  --runs FILE               a CSV of small runs: scenario,set,metric,value\n"
	    "                            (metric iteration_time_s, samples_per_s or\n"
	    "                            tokens_per_s; set: KEY=VALUE;KEY=VALUE)\n"
	    "  --set KEY=VALUE           override a key of the scenario (repeatable)\n"
	    "  SCENARIO.cfg              - reads the scenario from standard input\n"
	    "\n"
	    "example:\n"
	    "  trainsim calibrate configs/scenarios/default.cfg --measured-iteration-s 7.1\n"
	    "  all_reduce_perf -b 8 -e 8G -f 2 -g 8 |   # nccl-tests, on the machine\n"
	    "    trainsim calibrate configs/scenarios/default.cfg --nccl-tests - -o links.cfg\n");
}

int cli_calibrate(int argc, char **argv)
{
	/* Without -o the overrides go to calibration.cfg in the working folder,
	 * and only when no such file exists: a second calibration must not
	 * silently replace the first one's fit. */
	static const char default_out[] = "calibration.cfg";
	const char *path = NULL, *out_path = default_out, *meas = NULL, *nccl = NULL, *trace = NULL,
		   *runs = NULL;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	ts_env *env = NULL;
	char *buf = NULL; /* the overrides, until the fit succeeded */
	size_t len = 0;
	FILE *mem = NULL;
	if (!sets) {
		fprintf(stderr, "trainsim calibrate: out of memory\n");
		return CLI_BADINPUT;
	}
	enum { O_MEASURED = 1, O_OUT, O_NCCL, O_SET, O_TRACE, O_RUNS };
	static const struct cli_opt opts[] = {
	    {O_MEASURED, "--measured-iteration-s", NULL, "a number of seconds"},
	    {O_OUT, "--output", "-o", "an overrides file (- for standard output)"},
	    {O_NCCL, "--nccl-tests", NULL, "an all_reduce_perf output file (- for standard input)"},
	    {O_SET, "--set", NULL, "KEY=VALUE"},
	    {O_TRACE, "--trace", NULL, "a profiler trace (.json or .json.gz)"},
	    {O_RUNS, "--runs", NULL, "a CSV of runs"},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "calibrate", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP) {
			rc = p.rc;
			goto out;
		}
		if (id == O_OUT)
			out_path = v;
		else if (id == O_NCCL)
			nccl = v;
		else if (id == O_SET)
			sets[nsets++] = v;
		else if (id == O_MEASURED)
			meas = v;
		else if (id == O_TRACE)
			trace = v;
		else if (id == O_RUNS)
			runs = v;
		else if (!path)
			path = v;
		else {
			fprintf(stderr,
				"trainsim calibrate: found a second scenario \"%s\", "
				"expected one\n",
				v);
			goto out;
		}
	}
	int nmeas = !!meas + !!nccl + !!trace + !!runs;
	if ((!runs && (!path || !*path)) || (runs && path) || nmeas != 1) {
		fprintf(stderr,
			"trainsim calibrate: found %s, expected SCENARIO.cfg and one "
			"of --measured-iteration-s SECONDS, --nccl-tests FILE or --trace FILE, "
			"or --runs FILE alone\n",
			runs && path		     ? "a scenario with --runs"
			: !runs && (!path || !*path) ? "no scenario file"
			: nmeas > 1		     ? "two measurements"
						     : "no measurement");
		goto out;
	}
	if ((rc = cli_env("calibrate", NULL, &env)))
		goto out;
	bool out_default = out_path == default_out;
	if (out_default && access(default_out, F_OK) == 0) {
		fprintf(stderr,
			"trainsim calibrate: -o: found no -o and an existing \"%s\" (the default), "
			"expected -o naming the overrides file (-o %s to replace it)\n",
			default_out, default_out);
		rc = CLI_USAGE;
		goto out;
	}
	const struct ts_output_arg outs[] = {
	    {out_default ? "-o (default calibration.cfg)" : "-o", out_path}};
	const struct ts_output_arg ins[] = {
	    {NULL, path}, {"--nccl-tests", nccl}, {"--trace", trace}, {"--runs", runs}};
	if ((rc = cli_check_outputs("calibrate", env, outs, 1, ins, 4)))
		goto out;
	double measured = 0.0;
	if (meas) {
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
	/* The overrides are kept in memory and written only after a fit that
	 * succeeded, so a failure leaves an existing file as it was; with -o -
	 * they go to standard output and the report to standard error. */
	bool dash = !strcmp(out_path, "-");
	mem = dash ? NULL : open_memstream(&buf, &len);
	FILE *report = dash ? stderr : stdout;
	if (!dash && !mem) {
		fprintf(stderr, "trainsim calibrate: out of memory\n");
		rc = CLI_BADINPUT;
		goto out;
	}
	FILE *ov = dash ? stdout : mem;
	if (nccl)
		rc = ts_calibrate_nccl(env, path, sets, nsets, nccl, ov, report);
	else if (trace)
		rc = ts_calibrate_trace(env, path, sets, nsets, trace, ov, report);
	else if (runs)
		rc = ts_calibrate_runs(env, runs, ov, report);
	else
		rc = ts_calibrate_iteration(env, path, sets, nsets, measured, ov, report);
	if (rc) {
		rc = cli_fail("calibrate");
		goto out;
	}
	if (!dash) {
		/* a temporary file renamed onto OVERRIDES.cfg on success */
		ts_output *o = NULL;
		int bad = fclose(mem);
		mem = NULL;
		if (bad) {
			fprintf(stderr, "trainsim calibrate: out of memory\n");
			rc = CLI_BADINPUT;
			goto out;
		}
		if (ts_output_open(out_path, "-o", &o)) {
			rc = cli_fail("calibrate");
			goto out;
		}
		if (fwrite(buf, 1, len, ts_output_stream(o)) != len) {
			ts_output_write_error(o, errno);
			ts_output_abort(o);
			rc = cli_fail("calibrate");
			goto out;
		}
		if (ts_output_commit(o)) {
			rc = cli_fail("calibrate");
			goto out;
		}
		fprintf(report, "wrote %s (use: trainsim run|sweep|compare%s ... --calib %s)\n",
			out_path, meas ? "" : "|search", out_path);
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "trainsim calibrate: writing the report failed\n");
		rc = CLI_BADINPUT;
	}
out:
	if (mem)
		fclose(mem);
	free(buf);
	ts_env_close(env);
	free(sets);
	return rc;
}
