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
#include "report/outfile.h"
#include "sweep/sweep.h"
#include "work/compute.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: trainsim sweep SWEEP.cfg [-o RESULTS.csv] [-j THREADS] [--resume [--force]]\n"
	    "                      [--calib OVERRIDES.cfg]\n"
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
	bool resume = false, force = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return CLI_OK;
		} else if (!strcmp(a, "--resume")) {
			resume = true;
		} else if (!strcmp(a, "--force")) {
			force = true;
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
				"--resume, --force or --calib (see trainsim sweep --help)\n",
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
	if (force && !resume) {
		fprintf(stderr, "trainsim sweep: --force: found it without --resume, expected "
				"--resume --force (start a resumable output over)\n");
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
	struct outfile *of = NULL;
	FILE *out = stdout;
	char *head = NULL;
	if (sweepcfg_load(path, &sp, &err)) {
		rc = cli_print_error("sweep", &err);
		goto done;
	}
	/* the model and cluster files the base names (as point 0 reads them) */
	struct ts_scenario *p0 = NULL;
	if (sp->npoints && sweep_point_load(sp, cat, 0, &p0, &err))
		p0 = NULL;
	const struct outfile_arg outs[] = {{"-o", out_path}};
	const struct outfile_arg ins[] = {{NULL, path},
					  {"base", sp->base_path},
					  {"--calib", calib_path},
					  {"model", p0 ? p0->model_file : NULL},
					  {"cluster", p0 ? p0->cluster_file : NULL}};
	rc = cli_check_outputs("sweep", outs, 1, ins, 5);
	ts_scenario_destroy(p0);
	if (rc)
		goto done;
	if (sweep_check(sp, cat, &err)) {
		rc = cli_print_error("sweep", &err);
		goto done;
	}
	size_t first = 0;
	long keep = 0;
	struct sweep_digest dg;
	if (!(head = ts_malloc(SWEEP_ROW_MAX))) {
		fprintf(stderr, "trainsim sweep: out of memory\n");
		rc = CLI_BADINPUT;
		goto done;
	}
	if (out_path) {
		/* locked before the scan, so that no other writer moves the rows
		 * between the scan and the cut */
		if (sweep_digest(sp, cat, &calib, calib_path, &dg, &err) ||
		    outfile_open_locked(out_path, "-o", &of, &err) ||
		    (resume && !force &&
		     sweep_resume_scan(sp, out_path, &dg, &first, &keep, &err)) ||
		    outfile_truncate(of, keep, &err)) {
			rc = cli_print_error("sweep", &err);
			goto done;
		}
		out = outfile_stream(of);
	}
	if (!keep &&
	    ((out_path &&
	      (sweep_digest_line(&dg, head, SWEEP_ROW_MAX) || fputs(head, out) == EOF)) ||
	     sweep_csv_header(sp, head, SWEEP_ROW_MAX) || fputs(head, out) == EOF || fflush(out))) {
		if (of)
			outfile_write_error(of, errno, &err);
		else
			ts_error_set(&err, TS_EIO, NULL, 0, NULL,
				     "writing the header to standard output failed (%s)",
				     strerror(errno));
		rc = cli_print_error("sweep", &err);
		goto done;
	}
	bool tty = isatty(STDERR_FILENO);
	int w = sweep_run(sp, cat, &calib, first, (int)threads, out, tty ? progress : NULL, &first,
			  &err);
	if (w == TS_EIO && of)
		outfile_write_error(of, 0, &err);
	if (!w && of) {
		w = outfile_commit(of, &err);
		of = NULL;
	}
	if (w)
		rc = cli_print_error("sweep", &err);
done:
	outfile_abort(of); /* keeps the whole rows written so far, for --resume */
	ts_free(head, SWEEP_ROW_MAX);
	sweepcfg_destroy(sp);
	hw_catalog_destroy(cat);
	return rc;
}
