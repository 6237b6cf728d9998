/* trainsim sweep: every point of a sweep file simulated in parallel, one CSV
 * row per point in point order, resumable.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim sweep SWEEP.cfg [-o RESULTS.csv] [-j THREADS] [--resume]\n"
		     "                      [--calib OVERRIDES.cfg]\n"
		     "  -o - (or no -o) writes the rows to standard output; -j4 and --jobs=4\n"
		     "  are -j 4\n");
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
	bool resume = false;
	enum { O_OUT = 1, O_JOBS, O_RESUME, O_CALIB };
	static const struct cli_opt opts[] = {
	    {O_OUT, "--output", "-o", "a results file (- for standard output)"},
	    {O_JOBS, "--jobs", "-j", "a thread count"},
	    {O_RESUME, "--resume", NULL, NULL},
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
	ts_env *env = NULL;
	ts_sweep *sw = NULL;
	FILE *out = stdout;
	int rc = cli_env("sweep", calib_path, &env);
	if (rc)
		return rc;
	if (ts_sweep_open(env, path, &sw)) {
		rc = cli_fail("sweep");
		goto done;
	}
	const char *inputs[] = {path, ts_sweep_base_path(sw), calib_path};
	if ((rc = cli_check_output("sweep", out_path, inputs, 3)))
		goto done;
	size_t first = 0;
	long keep = 0;
	if (resume && ts_sweep_resume_point(sw, out_path, &first, &keep)) {
		rc = cli_fail("sweep");
		goto done;
	}
	if (out_path) {
		if (resume && keep > 0 && truncate(out_path, keep)) {
			fprintf(stderr, "trainsim sweep: -o: cannot truncate \"%s\" (%s)\n",
				out_path, strerror(errno));
			rc = CLI_BADINPUT;
			goto done;
		}
		out = fopen(out_path, resume && keep > 0 ? "a" : "w");
		if (!out) {
			fprintf(stderr,
				"trainsim sweep: -o: found \"%s\", which cannot be written (%s), "
				"expected a writable file\n",
				out_path, strerror(errno));
			rc = CLI_BADINPUT;
			out = stdout;
			goto done;
		}
	}
	if (!(resume && keep > 0) && ts_sweep_write_header(sw, out)) {
		rc = cli_fail("sweep");
		goto done;
	}
	bool tty = isatty(STDERR_FILENO);
	if (ts_sweep_run(sw, first, (int)threads, out, tty ? progress : NULL, &first))
		rc = cli_fail("sweep");
done:
	if (out != stdout && fclose(out) && !rc) {
		fprintf(stderr, "trainsim sweep: writing \"%s\" failed\n", out_path);
		rc = CLI_BADINPUT;
	}
	ts_sweep_free(sw);
	ts_env_close(env);
	return rc;
}
