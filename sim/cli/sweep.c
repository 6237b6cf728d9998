/* trainsim sweep: every point of a sweep file simulated in parallel, one CSV
 * row per point in point order, resumable.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

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
	    "usage: trainsim sweep SWEEP.cfg [-o RESULTS.csv] [-j THREADS] [--resume [--force]]\n"
	    "                      [--calib OVERRIDES.cfg]\n"
	    "  -o - (or no -o) writes the rows to standard output; -j4 and --jobs=4\n"
	    "  are -j 4\n"
	    "  --resume keeps the rows of RESULTS.csv made from the same base scenario,\n"
	    "  calibration and trainsim version (its first line records them), and refuses\n"
	    "  when one changed; --resume --force starts over\n");
}

/* Progress with an estimate of the time left, on a terminal only. */
static void progress(void *ud, size_t done, size_t total, double elapsed_s)
{
	size_t *first = ud;
	size_t ran = done - *first;
	double left = ran ? elapsed_s / (double)ran * (double)(total - done) : 0.0;
	fprintf(stderr, "\rtrainsim sweep: %zu/%zu points, %.2f ms/point, ETA %.0f s   ", done,
		total, ran ? 1e3 * elapsed_s / (double)ran : 0.0, left);
	if (done == total)
		fputc('\n', stderr);
}

int cli_sweep(int argc, char **argv)
{
	const char *path = NULL, *out_path = NULL, *calib_path = NULL;
	long threads = 0;
	bool out_dash = false; /* -o -: standard output */
	bool resume = false, force = false;
	enum { O_OUT = 1, O_JOBS, O_RESUME, O_FORCE, O_CALIB };
	static const struct cli_opt opts[] = {
	    {O_OUT, "--output", "-o", "a results file (- for standard output)"},
	    {O_JOBS, "--jobs", "-j", "a thread count"},
	    {O_RESUME, "--resume", NULL, NULL},
	    {O_FORCE, "--force", NULL, NULL},
	    {O_CALIB, "--calib", NULL, "an overrides file"},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "sweep", opts, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_ERR)
			return CLI_USAGE;
		if (id == CLI_OPT_HELP) {
			usage(stdout);
			return CLI_OK;
		}
		if (id == O_OUT) {
			out_path = strcmp(v, "-") ? v : NULL;
			out_dash = !out_path;
		} else if (id == O_JOBS) {
			if (cli_opt_long("sweep", "-j", v, 1, 1024, "a thread count from 1 to 1024",
					 &threads))
				return CLI_USAGE;
		} else if (id == O_RESUME) {
			resume = true;
		} else if (id == O_FORCE) {
			force = true;
		} else if (id == O_CALIB) {
			calib_path = v;
		} else if (!path) {
			path = v;
		} else {
			fprintf(stderr,
				"trainsim sweep: found a second sweep file \"%s\", "
				"expected one\n",
				v);
			return CLI_USAGE;
		}
	}
	if (resume && out_dash) {
		fprintf(stderr, "trainsim sweep: --resume: found -o -, expected -o RESULTS.csv to "
				"resume (standard output cannot be resumed)\n");
		return CLI_USAGE;
	}
	if (resume && !out_path) {
		fprintf(stderr, "trainsim sweep: --resume: found no -o, expected -o RESULTS.csv "
				"to resume\n");
		return CLI_USAGE;
	}
	if (force && !resume) {
		fprintf(stderr, "trainsim sweep: --force: found it without --resume, expected "
				"--resume --force (start a resumable output over)\n");
		return CLI_USAGE;
	}
	ts_env *env = NULL;
	ts_sweep *sw = NULL;
	ts_output *out = NULL;
	int rc = cli_env("sweep", calib_path, &env);
	if (rc)
		return rc;
	if (ts_sweep_open(env, path, &sw)) {
		rc = cli_fail("sweep");
		goto done;
	}
	/* the model and cluster files the base names (as point 0 reads them) */
	ts_scenario *p0 = NULL;
	if (ts_sweep_point_load(sw, 0, &p0))
		p0 = NULL;
	const struct ts_output_arg outs[] = {{"-o", out_path}};
	const struct ts_output_arg ins[] = {{NULL, path},
					    {"base", ts_sweep_base_path(sw)},
					    {"--calib", calib_path},
					    {"model", p0 ? ts_scenario_model_file(p0) : NULL},
					    {"cluster", p0 ? ts_scenario_cluster_file(p0) : NULL}};
	rc = cli_check_outputs("sweep", env, outs, 1, ins, 5);
	ts_scenario_free(p0);
	if (rc)
		goto done;
	size_t first = 0;
	if (ts_sweep_output_open(sw, out_path, resume && !force, &out, &first)) {
		rc = cli_fail("sweep");
		goto done;
	}
	bool tty = isatty(STDERR_FILENO);
	int w = ts_sweep_run(sw, first, (int)threads, ts_output_stream(out), tty ? progress : NULL,
			     &first);
	if (w == TS_EIO && out_path)
		ts_output_write_error(out, 0);
	if (!w) {
		w = ts_output_commit(out);
		out = NULL;
	}
	if (w)
		rc = cli_fail("sweep");
done:
	ts_output_abort(out); /* keeps the whole rows written so far, for --resume */
	ts_sweep_free(sw);
	ts_env_close(env);
	return rc;
}
