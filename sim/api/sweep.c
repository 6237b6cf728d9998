/* The public sweep calls: a sweep file loaded and checked once, resumed
 * and run into a CSV stream.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "io/sweepcfg.h"
#include "plan/env.h"
#include "sweep/sweep.h"

int ts_sweep_open(const ts_env *env, const char *path, ts_sweep **out)
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
		rc = sweep_check(sw->sp, env->cat, &err);
	if (rc) {
		ts_sweep_free(sw);
		return api_fail(&err);
	}
	*out = sw;
	return 0;
}

const char *ts_sweep_base_path(const ts_sweep *sw)
{
	return sw->sp->base_path;
}

int ts_sweep_resume_point(const ts_sweep *sw, const char *csv_path, size_t *first, long *keep)
{
	struct ts_error err;
	ts_error_clear(&err);
	return sweep_resume_scan(sw->sp, csv_path, first, keep, &err) ? api_fail(&err) : 0;
}

int ts_sweep_write_header(const ts_sweep *sw, FILE *out)
{
	char *head = ts_malloc(SWEEP_ROW_MAX);
	int rc = 0;
	if (!head)
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
	else if (sweep_csv_header(sw->sp, head, SWEEP_ROW_MAX) || fputs(head, out) == EOF ||
		 fflush(out))
		rc = api_failf(TS_EIO, NULL, "writing the header failed");
	ts_free(head, SWEEP_ROW_MAX);
	return rc;
}

int ts_sweep_run(const ts_sweep *sw, size_t first, int threads, FILE *out, ts_progress_fn progress,
		 void *user)
{
	struct ts_error err;
	ts_error_clear(&err);
	if (sweep_run(sw->sp, sw->env->cat, &sw->env->calib, first, threads, out, progress, user,
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
