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
	fprintf(
	    out,
	    "usage: trainsim sweep SWEEP.cfg [-o RESULTS.csv] [-j THREADS] [--set KEY=VALUE]...\n"
	    "                      [--shard K/N] [--resume [--force]] [--calib OVERRIDES.cfg] "
	    "[--quiet]\n"
	    "\n"
	    "Simulate every point of a sweep file (a base scenario and axes of values) in\n"
	    "parallel and write one CSV row per point, in point order: the point id, the\n"
	    "axis values, a status (\"ok\" or \"invalid: why\") and the result columns.\n"
	    "\n"
	    "  -o FILE          the results file (- or no -o: standard output), locked\n"
	    "                   while the sweep writes it; the last column, sweep_digest,\n"
	    "                   names the base, calibration, version (and part) of a row\n"
	    "  -j N             threads (default: all cores); -j4 and --jobs=4 are -j 4\n"
	    "  --set KEY=VALUE  override a key of the base scenario for every point\n"
	    "                   (repeatable; an axis key is refused)\n"
	    "  --shard K/N      run only part K of N (1 <= K <= N): the points K-1,\n"
	    "                   K-1+N, ... with their ids in the whole sweep; trainsim\n"
	    "                   merge joins the parts into the whole sweep's CSV\n"
	    "  --resume         keep the rows of RESULTS.csv made from the same base,\n"
	    "                   calibration, version and part, and run the rest; refused\n"
	    "                   when one changed; --resume --force starts over\n"
	    "  --calib FILE     calibration overrides (as trainsim calibrate writes)\n"
	    "  -q, --quiet      print nothing on standard error but errors\n"
	    "\n"
	    "Progress goes to standard error: a live line on a terminal; otherwise (a\n"
	    "batch job's log) a line a minute once a sweep has run for a minute\n"
	    "(--quiet: none).\n"
	    "\n"
	    "example:\n"
	    "  trainsim sweep examples/scaling-sweep/sweep.cfg -o scaling.csv\n"
	    "  for k in 1 2 3 4; do   # the same sweep in four parts (on four machines)\n"
	    "    trainsim sweep examples/scaling-sweep/sweep.cfg --shard $k/4 -o part$k.csv\n"
	    "  done\n"
	    "  trainsim merge part1.csv part2.csv part3.csv part4.csv -o scaling.csv\n");
}

/* Progress of a sweep: a live line with the time left on a terminal, a
 * line a minute in a log (none for a sweep shorter than a minute). */
struct progress_state {
	bool tty;
	bool started;
	size_t first;  /* points done before this run */
	double last_s; /* when the last log line was written */
};

static void progress(void *ud, size_t done, size_t total, double elapsed_s)
{
	struct progress_state *ps = ud;
	if (!ps->started) {
		ps->started = true;
		ps->first = done - 1;
	}
	size_t ran = done - ps->first;
	double left = ran ? elapsed_s / (double)ran * (double)(total - done) : 0.0;
	if (ps->tty) {
		fprintf(stderr, "\rtrainsim sweep: %zu/%zu points, %.2f ms/point, ETA %.0f s   ",
			done, total, ran ? 1e3 * elapsed_s / (double)ran : 0.0, left);
		if (done == total)
			fputc('\n', stderr);
	} else if (elapsed_s - ps->last_s >= 60.0 && done < total) {
		ps->last_s = elapsed_s;
		fprintf(stderr, "trainsim sweep: %zu/%zu points after %.0f s, ETA %.0f s\n", done,
			total, elapsed_s, left);
	}
}

/* Parse "K/N" into *k and *n; -1 after printing the error. */
static int parse_shard(const char *v, long *k, long *n)
{
	char *end;
	errno = 0;
	*k = strtol(v, &end, 10);
	if (end != v && *end == '/') {
		const char *d = end + 1;
		*n = strtol(d, &end, 10);
		if (end != d && !*end && !errno && *n >= 1 && *n <= 1000000 && *k >= 1 && *k <= *n)
			return 0;
	}
	fprintf(stderr,
		"trainsim sweep: --shard: found \"%s\", expected K/N with 1 <= K <= N <= 1000000 "
		"(part K of N, e.g. --shard 2/4)\n",
		v);
	return -1;
}

static int cli_sweep_run(const char *path, const char *out_path, bool out_dash,
			 const char *calib_path, const char **sets, size_t nsets, long shard_k,
			 long shard_n, long threads, bool resume, bool force, bool quiet);

int cli_sweep(int argc, char **argv)
{
	const char *path = NULL, *out_path = NULL, *calib_path = NULL;
	long threads = 0;
	bool out_dash = false; /* -o -: standard output */
	bool resume = false, force = false, quiet = false;
	long shard_k = 0, shard_n = 0;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	if (!sets) {
		fprintf(stderr, "trainsim sweep: out of memory\n");
		return CLI_BADINPUT;
	}
	enum { O_OUT = 1, O_JOBS, O_RESUME, O_FORCE, O_CALIB, O_SET, O_SHARD, O_QUIET };
	static const struct cli_opt opts[] = {
	    {O_OUT, "--output", "-o", "a results file (- for standard output)"},
	    {O_SET, "--set", NULL, "KEY=VALUE"},
	    {O_SHARD, "--shard", NULL, "K/N"},
	    {O_JOBS, "--jobs", "-j", "a thread count"},
	    {O_RESUME, "--resume", NULL, NULL},
	    {O_FORCE, "--force", NULL, NULL},
	    {O_CALIB, "--calib", NULL, "an overrides file"},
	    {O_QUIET, "--quiet", "-q", NULL},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "sweep", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP) {
			free(sets);
			return p.rc;
		}
		if (id == O_SET) {
			sets[nsets++] = v;
		} else if (id == O_SHARD) {
			if (parse_shard(v, &shard_k, &shard_n)) {
				free(sets);
				return CLI_USAGE;
			}
		} else if (id == O_OUT) {
			out_path = strcmp(v, "-") ? v : NULL;
			out_dash = !out_path;
		} else if (id == O_JOBS) {
			if (cli_opt_long("sweep", "-j", v, 1, 1024, "a thread count from 1 to 1024",
					 &threads)) {
				free(sets);
				return CLI_USAGE;
			}
		} else if (id == O_RESUME) {
			resume = true;
		} else if (id == O_FORCE) {
			force = true;
		} else if (id == O_QUIET) {
			quiet = true;
		} else if (id == O_CALIB) {
			calib_path = v;
		} else if (!path) {
			path = v;
		} else {
			fprintf(stderr,
				"trainsim sweep: found a second sweep file \"%s\", "
				"expected one\n",
				v);
			free(sets);
			return CLI_USAGE;
		}
	}
	int rc = cli_sweep_run(path, out_path, out_dash, calib_path, sets, nsets, shard_k, shard_n,
			       threads, resume, force, quiet);
	free(sets);
	return rc;
}

static int cli_sweep_run(const char *path, const char *out_path, bool out_dash,
			 const char *calib_path, const char **sets, size_t nsets, long shard_k,
			 long shard_n, long threads, bool resume, bool force, bool quiet)
{
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
	if (ts_sweep_open_with(env, path, sets, nsets, &sw) ||
	    (shard_n && ts_sweep_set_shard(sw, (size_t)shard_k, (size_t)shard_n))) {
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
	struct progress_state ps = {.tty = isatty(STDERR_FILENO)};
	int w = ts_sweep_run(sw, first, (int)threads, ts_output_stream(out),
			     quiet ? NULL : progress, &ps);
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
