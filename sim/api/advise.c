/* The public face of advise: the options evaluated by sim/sweep/advise,
 * written by report/advise (text, CSV, JSON), and the scenarios of the
 * recommended options exported.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "plan/env.h"
#include "report/advise.h"
#include "sweep/advise.h"

/* Check the files ar's export writes into dir as -o's report is checked
 * (ts_output_check): none may lie in the bundled folders or be the scenario
 * `path`, the catalog `cat` or the overrides file of env. Returns 0,
 * TS_EUSAGE, TS_EIO or TS_ENOMEM (recorded, keyed --export). Writes
 * nothing. */
static int check_exports(const ts_env *env, const struct advise_result *ar, const char *path,
			 const char *cat, const char *dir)
{
	size_t n = 0;
	for (size_t i = 0; i < ar->n; i++)
		n += report_advise_exported(ar, i);
	if (!n)
		return 0;
	struct ts_output_arg *outs = ts_calloc(n, sizeof *outs);
	char(*names)[1200] = ts_calloc(n, sizeof *names);
	int rc = 0;
	if (!outs || !names)
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0, k = 0; !rc && i < ar->n; i++) {
		if (!report_advise_exported(ar, i))
			continue;
		report_advise_export_name(ar, &ar->o[i], dir, names[k], sizeof names[k]);
		outs[k] = (struct ts_output_arg){"--export", names[k]};
		k++;
	}
	const struct ts_output_arg ins[] = {
	    {NULL, path}, {"--candidates", cat}, {"--calib", env->calib_path}};
	if (!rc)
		rc = ts_output_check(env, outs, n, ins, 3);
	ts_free(outs, n * sizeof *outs);
	ts_free(names, n * sizeof *names);
	return rc;
}

/* ---- the call ------------------------------------------------------------------ */

void ts_advise_frontier(const double *time_s, const double *cost_usd, size_t n, bool *on)
{
	bool *ok = n ? ts_calloc(n, sizeof *ok) : NULL;
	if (n && !ok) { /* without room: every finite point is its own judge */
		for (size_t i = 0; i < n; i++)
			on[i] = false;
		return;
	}
	for (size_t i = 0; i < n; i++)
		ok[i] = !isnan(time_s[i]) && !isnan(cost_usd[i]);
	advise_frontier(time_s, cost_usd, ok, n, on);
	ts_free(ok, n * sizeof *ok);
}

int ts_advise_run(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
		  const ts_advise_opts *o, FILE *out, ts_advise_stats *stats)
{
	if (!path || !*path)
		return api_failf(TS_EUSAGE, NULL, "found %s, expected SCENARIO.cfg",
				 path ? "an empty file name" : "no scenario file");
	if (o->format != TS_FORMAT_TEXT && o->format != TS_FORMAT_CSV &&
	    o->format != TS_FORMAT_JSON)
		return api_failf(TS_EUSAGE, "--format",
				 "found format %d, expected text, csv or json", (int)o->format);
	if (o->mode < 0 || o->mode > TS_ADVISE_BOTH)
		return api_failf(TS_EUSAGE, "--mode", "found mode %d, expected rent, buy or both",
				 (int)o->mode);
	if (o->deadline_s < 0.0 || o->budget_usd < 0.0 || o->power_limit_w < 0.0 ||
	    !isfinite(o->deadline_s) || !isfinite(o->budget_usd) || !isfinite(o->power_limit_w))
		return api_failf(TS_EUSAGE,
				 o->deadline_s < 0.0 || !isfinite(o->deadline_s) ? "--deadline"
				 : o->budget_usd < 0.0 || !isfinite(o->budget_usd)
				     ? "--budget"
				     : "--power-limit",
				 "found a negative or infinite value, expected a positive one");
	if (o->export_dir) {
		struct stat st;
		if (stat(o->export_dir, &st) || !S_ISDIR(st.st_mode))
			return api_failf(TS_EUSAGE, "--export",
					 "found %s, expected an existing folder", o->export_dir);
	}
	char cat[4096];
	if (o->candidates)
		snprintf(cat, sizeof cat, "%s", o->candidates);
	else
		snprintf(cat, sizeof cat, "%s/configs/catalog/candidates.cfg", env->root);
	struct advise_ask ask = {.deadline_s = o->deadline_s,
				 .budget_usd = o->budget_usd,
				 .mode = o->mode ? (int)o->mode : ADVISE_BOTH,
				 .power_w = o->power_limit_w,
				 .per_rack = o->power_per_rack,
				 .max_gpus = o->max_gpus,
				 .full_search = o->full_search,
				 .transfer_top = o->transfer_top};
	struct advise_result *ar = ts_calloc(1, sizeof *ar);
	if (!ar)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	struct ts_error err;
	ts_error_clear(&err);
	int rc = advise_run(env, path, sets, nsets, cat, &ask, ar, &err);
	if (rc) {
		ts_free(ar, sizeof *ar);
		return api_fail(&err);
	}
	/* the scenarios of the recommended and frontier options */
	const char **argv = ts_calloc(nsets + ADVISE_MAX_SETS + 4, sizeof *argv);
	if (!argv)
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
	if (!rc && o->export_dir)
		rc = check_exports(env, ar, path, cat, o->export_dir);
	for (size_t i = 0; !rc && o->export_dir && i < ar->n; i++) {
		if (!report_advise_exported(ar, i))
			continue;
		const struct advise_option *op = &ar->o[i];
		size_t k = 0;
		for (size_t s = 0; s < nsets; s++)
			argv[k++] = sets[s];
		for (size_t s = 0; s < op->nsets; s++)
			argv[k++] = op->sets[s];
		/* the name says which option it is (the source scenario's name
		 * would not) */
		char name[300];
		snprintf(name, sizeof name, "name=\"%s on %u x %s, %s\"", ar->model_name, op->nodes,
			 ar->cat.t[op->type].name, report_advise_mode_name(op->mode));
		for (char *q = name + 6; q[1]; q++)
			if (*q == '"' || *q == '\\')
				*q = '\'';
		argv[k++] = name;
		char p[1200];
		report_advise_export_name(ar, op, o->export_dir, p, sizeof p);
		rc = api_search_export(path, argv, k, &op->cand, SEARCH_TIME, p);
	}
	ts_free(argv, (nsets + ADVISE_MAX_SETS + 4) * sizeof *argv);
	if (!rc) {
		if (report_advise_write(ar, &ask, path, o->candidates, o->export_dir, o->format,
					out, &err))
			rc = api_fail(&err);
		if (!rc && (fflush(out) || ferror(out)))
			rc = api_failf(TS_EIO, NULL, "writing the advice failed (%s)",
				       strerror(errno));
	}
	if (stats) {
		size_t nev = 0;
		for (size_t i = 0; i < ar->n; i++)
			nev += ar->o[i].evaluated;
		*stats = (ts_advise_stats){.options = ar->n,
					   .evaluated = nev,
					   .searches = ar->searches,
					   .simulated = ar->simulated,
					   .seconds = ar->seconds,
					   .cpu_seconds = ar->cpu_seconds};
	}
	advise_result_free(ar);
	ts_free(ar, sizeof *ar);
	return rc;
}
