/* trainsim sweep: every point of a sweep file simulated in parallel, one CSV
 * row per point in point order, resumable.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "cli/cli.h"
#include "hw/catalog.h"
#include "io/sweepcfg.h"
#include "sweep/sweep.h"
#include "work/compute.h"

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
	if (!path || !*path) {
		fprintf(stderr, "trainsim sweep: found %s, expected SWEEP.cfg\n",
			path ? "an empty file name" : "no sweep file");
		return CLI_USAGE;
	}
	if (resume && !out_path) {
		fprintf(stderr, "trainsim sweep: --resume: found no -o, expected -o RESULTS.csv "
				"to resume\n");
		return CLI_USAGE;
	}
	struct hw_catalog *cat = NULL;
	struct work_calib calib;
	int rc = cli_load_common("sweep", &cat, &calib);
	if (rc)
		return rc;
	if ((rc = cli_apply_calib("sweep", calib_path, cat, &calib))) {
		hw_catalog_destroy(cat);
		return rc;
	}
	struct sweep_spec *sp = NULL;
	struct ts_error err;
	FILE *out = stdout;
	char *head = NULL;
	if (sweepcfg_load(path, &sp, &err)) {
		rc = cli_print_error("sweep", &err);
		goto done;
	}
	const char *inputs[] = {path, sp->base_path, calib_path};
	if ((rc = cli_check_output("sweep", out_path, inputs, 3)))
		goto done;
	if (sweep_check(sp, cat, &err)) {
		rc = cli_print_error("sweep", &err);
		goto done;
	}
	size_t first = 0;
	long keep = 0;
	if (resume && sweep_resume_scan(sp, out_path, &first, &keep, &err)) {
		rc = cli_print_error("sweep", &err);
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
	if (!(resume && keep > 0)) {
		if (!(head = ts_malloc(SWEEP_ROW_MAX)) ||
		    sweep_csv_header(sp, head, SWEEP_ROW_MAX) || fputs(head, out) == EOF ||
		    fflush(out)) {
			fprintf(stderr, "trainsim sweep: writing the header failed\n");
			rc = CLI_BADINPUT;
			goto done;
		}
	}
	bool tty = isatty(STDERR_FILENO);
	if (sweep_run(sp, cat, &calib, first, (int)threads, out, tty ? progress : NULL, &first,
		      &err))
		rc = cli_print_error("sweep", &err);
done:
	if (out != stdout && fclose(out) && !rc) {
		fprintf(stderr, "trainsim sweep: writing \"%s\" failed\n", out_path);
		rc = CLI_BADINPUT;
	}
	ts_free(head, SWEEP_ROW_MAX);
	sweepcfg_destroy(sp);
	hw_catalog_destroy(cat);
	return rc;
}
