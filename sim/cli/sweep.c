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

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim sweep SWEEP.cfg [-o RESULTS.csv] [-j THREADS] [--resume]\n"
		     "                      [--calib OVERRIDES.cfg]\n");
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
	bool resume = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return CLI_OK;
		} else if (!strcmp(a, "--resume")) {
			resume = true;
		} else if (!strcmp(a, "-o") || !strcmp(a, "-j") || !strcmp(a, "--calib")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "trainsim sweep: %s: found nothing, expected %s\n",
					a, !strcmp(a, "-j") ? "a thread count" : "a file name");
				return CLI_USAGE;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "-o")) {
				out_path = v;
			} else if (!strcmp(a, "--calib")) {
				calib_path = v;
			} else {
				char *end;
				errno = 0;
				threads = strtol(v, &end, 10);
				if (errno || *end || end == v || threads < 1 || threads > 1024) {
					fprintf(stderr,
						"trainsim sweep: -j: found \"%s\", expected a "
						"thread count from 1 to 1024\n",
						v);
					return CLI_USAGE;
				}
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim sweep: found unknown option \"%s\", expected -o, -j, "
				"--resume or --calib (see trainsim sweep --help)\n",
				a);
			return CLI_USAGE;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr,
				"trainsim sweep: found a second sweep file \"%s\", "
				"expected one\n",
				a);
			return CLI_USAGE;
		}
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
