/* ts_search_write: the fastest or cheapest modelled settings that fit,
 * as a ranked table.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "api/api_int.h"
#include "base/ts.h"
#include "base/units.h"
#include "plan/env.h"
#include "report/table.h"
#include "sweep/search.h"
#include "work/ops.h"

static void duration(char *b, size_t n, double s)
{
	if (s < 120.0)
		ts_units_format(s, TS_UNIT_TIME, b, n);
	else if (s < 172800.0)
		ts_units_format_num(b, n, "%.1f h", s / 3600.0);
	else
		ts_units_format_num(b, n, "%.1f days", s / 86400.0);
}

int ts_search_write(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
		    enum ts_objective objective, uint32_t max_gpus, int threads, size_t top,
		    FILE *out)
{
	struct search_result sr;
	struct ts_error err;
	ts_error_clear(&err);
	if (!path || !*path)
		return api_failf(TS_EUSAGE, NULL, "found %s, expected SCENARIO.cfg",
				 path ? "an empty file name" : "no scenario file");
	enum search_objective obj = objective == TS_OBJECTIVE_COST ? SEARCH_COST : SEARCH_TIME;
	if (search_run_env(env, path, sets, nsets, obj, max_gpus, threads, top, &sr, &err))
		return api_fail(&err);
	struct ts_table *t = NULL;
	int rc = 0;
	enum { NCOL = 15 };
	if (table_create(&t, NCOL)) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto done;
	}
	const char *const heads[NCOL] = {
	    "rank",	   "GPUs",	 "nodes",
	    "tp",	   "pp",	 "cp",
	    "dp",	   "ZeRO",	 "schedule",
	    "micro-batch", "recompute",	 "iteration",
	    "MFU",	   "memory/GPU", obj == SEARCH_COST ? "cost" : "time to train"};
	for (size_t k = 0; k < NCOL; k++)
		table_header(t, k, heads[k], k == 8 || k == 10 ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t i = 0; i < sr.ranked && i < top; i++) {
		const struct search_cand *c = &sr.c[i];
		const struct ts_result *r = &c->res;
		char a[64], b[64];
		table_add_row(t);
		table_cell(t, 0, "%zu", i + 1);
		table_cell(t, 1, "%u", r->gpus);
		table_cell(t, 2, "%u", c->nodes);
		table_cell(t, 3, "%u", c->tp);
		table_cell(t, 4, "%u", c->pp);
		table_cell(t, 5, "%u", c->cp);
		table_cell(t, 6, "%u", c->dp);
		table_cell(t, 7, "%d", c->zero);
		if (c->schedule == TS_SCHED_INTERLEAVED)
			table_cell(t, 8, "interleaved x%u", c->interleave);
		else
			table_cell(t, 8, "%s", c->pp > 1 ? ts_schedule_name(c->schedule) : "-");
		table_cell(t, 9, "%lld", (long long)c->micro_batch);
		/* the recompute modes that resolve to this same plan, one row */
		char rc_names[64] = "";
		for (int m = 0; m < WORK_RECOMPUTE_COUNT_; m++)
			if (c->recompute_equiv & (1u << m))
				snprintf(rc_names + strlen(rc_names),
					 sizeof rc_names - strlen(rc_names), "%s%s",
					 rc_names[0] ? " = " : "",
					 work_recompute_name((enum work_recompute)m));
		table_cell(t, 10, "%s", rc_names);
		table_cell(t, 11, "%s",
			   ts_units_format(r->iteration_time_s, TS_UNIT_TIME, a, sizeof a));
		table_cell(t, 12, "%.1f %%", 100.0 * r->mfu);
		table_cell(t, 13, "%.1f GiB%s", r->memory_per_gpu_bytes / (double)TS_GiB,
			   c->tight ? " tight" : "");
		if (obj == SEARCH_COST)
			table_cell(t, 14, "%s",
				   ts_units_format_num(
				       b, sizeof b, r->cost_usd > 0.0 ? "$%.0f" : "%.4g GPU-s/iter",
				       r->cost_usd > 0.0 ? r->cost_usd : c->score));
		else {
			duration(b, sizeof b, c->score);
			table_cell(t, 14, "%s", b);
		}
	}
	fprintf(out, "Search of %s by %s (stage granularity, class mode, two iterations)\n\n", path,
		obj == SEARCH_COST ? "cost" : "time to train");
	if (table_status(t) || table_print(t, out)) {
		rc = api_failf(TS_EIO, NULL, "writing the table failed");
		goto done;
	}
	fprintf(out,
		"\n%zu configurations: %zu pruned by the memory estimate, %zu simulated "
		"(%zu failed, %zu did not fit), %zu ranked",
		sr.n, sr.pruned, sr.simulated, sr.failed, sr.simulated - sr.failed - sr.ranked,
		sr.ranked);
	if (sr.tight)
		fprintf(out,
			" (%zu of them tight: within the memory model's error of capacity, "
			"a risk, ranked after those that fit)",
			sr.tight);
	if (sr.bounded)
		fprintf(out,
			"; %zu bounded out (their least possible iteration, compute alone, "
			"cannot enter the top %zu: not simulated)",
			sr.bounded, top);
	if (sr.aliases)
		fprintf(out,
			"; %zu the same plan as another (not simulated; listed in its row, as "
			"\"none = selective\")",
			sr.aliases);
	if (sr.layouts_skipped)
		fprintf(out, "; %zu GPU counts skipped (the scenario does not load with them)",
			sr.layouts_skipped);
	if (sr.degrees_skipped)
		fprintf(out, "; %zu (tp, cp, pp) skipped (dp does not divide the global batch)",
			sr.degrees_skipped);
	fprintf(out, "\n");
	fprintf(out, "simulated %zu in %.3f s: %.0f configurations per second\n", sr.simulated,
		sr.seconds, sr.seconds > 0.0 ? (double)sr.simulated / sr.seconds : 0.0);
	if (ferror(out) || fflush(out))
		rc = api_failf(TS_EIO, NULL, "writing the table failed");
done:
	table_destroy(t);
	search_result_free(&sr);
	return rc;
}
