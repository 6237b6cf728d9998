/* The public sweep calls: a sweep file loaded and checked once, resumed
 * and run into a CSV stream.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "io/sweepcfg.h"
#include "plan/env.h"
#include "report/outfile.h"
#include "report/sweeprow.h"
#include "sweep/merge.h"
#include "sweep/sweep.h"

int ts_sweep_open(const ts_env *env, const char *path, ts_sweep **out)
{
	return ts_sweep_open_with(env, path, NULL, 0, out);
}

int ts_sweep_open_with(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
		       ts_sweep **out)
{
	struct ts_error err;
	ts_error_clear(&err);
	*out = NULL;
	if (!path || !*path)
		return api_failf(TS_EUSAGE, NULL, "found %s, expected SWEEP.cfg",
				 path ? "an empty file name" : "no sweep file");
	ts_sweep *sw = ts_calloc(1, sizeof *sw);
	if (!sw)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	sw->env = env;
	int rc = sweepcfg_load(path, &sw->sp, &err);
	if (!rc)
		rc = sweepcfg_set_base(sw->sp, sets, nsets, &err);
	if (!rc)
		rc = sweep_check(sw->sp, env->cat, &err);
	if (rc) {
		ts_sweep_free(sw);
		return api_fail(&err);
	}
	*out = sw;
	return 0;
}

int ts_sweep_set_shard(ts_sweep *sw, size_t k, size_t n)
{
	struct ts_error err;
	ts_error_clear(&err);
	if (k < 1 || sweepcfg_set_shard(sw->sp, k - 1, n, &err))
		return api_failf(TS_EUSAGE, "--shard",
				 "found %zu/%zu, expected K/N with 1 <= K <= N", k, n);
	return 0;
}

size_t ts_sweep_points(const ts_sweep *sw)
{
	return sweepcfg_shard_points(sw->sp);
}

int ts_sweep_merge(const char *const *parts, size_t n, bool digest, FILE *out)
{
	struct ts_error err;
	ts_error_clear(&err);
	(void)digest; /* a file and standard output get the same bytes */
	return sweep_merge(parts, n, out, &err) ? api_fail(&err) : 0;
}

const char *ts_sweep_base_path(const ts_sweep *sw)
{
	return sw->sp->base_path;
}

int ts_sweep_point_load(const ts_sweep *sw, size_t i, ts_scenario **out)
{
	struct ts_error err;
	ts_error_clear(&err);
	*out = NULL;
	if (i >= sw->sp->npoints)
		return api_failf(TS_ERANGE, NULL, "found point %zu, expected one below %zu", i,
				 sw->sp->npoints);
	return sweep_point_load(sw->sp, sw->env->cat, i, out, &err) ? api_fail(&err) : 0;
}

/* Write the CSV header to out (the digest is the last column of each row). */
static int write_head(const ts_sweep *sw, FILE *out, struct ts_error *err)
{
	char *head = ts_malloc(SWEEP_ROW_MAX);
	int rc = 0;
	if (!head)
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	else if (sweep_csv_header(sw->sp, &report_sweep_cols, head, SWEEP_ROW_MAX) ||
		 fputs(head, out) == EOF || fflush(out))
		rc = TS_EIO;
	ts_free(head, SWEEP_ROW_MAX);
	return rc;
}

int ts_sweep_output_open(const ts_sweep *sw, const char *path, bool resume, ts_output **out,
			 size_t *first)
{
	struct ts_error err;
	ts_error_clear(&err);
	*out = NULL;
	*first = 0;
	int rc;
	struct sweep_digest dg;
	if (!path || !strcmp(path, "-")) {
		*first = sw->sp->shard_k;
		if ((rc = write_head(sw, stdout, &err)) == TS_EIO)
			return api_failf(TS_EIO, NULL,
					 "writing the header to standard output failed (%s)",
					 strerror(errno));
		return rc ? api_fail(&err) : api_output_wrap(NULL, out);
	}
	/* locked before the scan, so that no other writer moves the rows
	 * between the scan and the cut */
	struct outfile *of = NULL;
	long keep = 0;
	if (sweep_digest(sw->sp, sw->env->cat, &sw->env->calib, sw->env->calib_path, &dg, &err) ||
	    (sweep_digest_bands(&dg, sw->env->bands), false) ||
	    outfile_open_locked(path, "-o", &of, &err) ||
	    (resume &&
	     sweep_resume_scan(sw->sp, &report_sweep_cols, path, &dg, first, &keep, &err)) ||
	    outfile_truncate(of, keep, &err))
		goto fail;
	if (!keep && (rc = write_head(sw, outfile_stream(of), &err))) {
		if (rc == TS_EIO)
			outfile_write_error(of, errno, &err);
		goto fail;
	}
	/* rows done of this part, as the point to run next */
	*first = sw->sp->shard_k + *first * (sw->sp->shard_n > 1 ? sw->sp->shard_n : 1);
	return api_output_wrap(of, out);
fail:
	*first = 0;
	outfile_abort(of);
	return api_fail(&err);
}

int ts_sweep_run(const ts_sweep *sw, size_t first, int threads, FILE *out, ts_progress_fn progress,
		 void *user)
{
	struct ts_error err;
	ts_error_clear(&err);
	if (sweep_run_env(sw->sp, &report_sweep_cols, sw->env, first, threads, out, progress, user,
			  &err))
		return api_fail(&err);
	return 0;
}

void ts_sweep_free(ts_sweep *sw)
{
	if (!sw)
		return;
	sweepcfg_destroy(sw->sp);
	ts_free(sw, sizeof *sw);
}
