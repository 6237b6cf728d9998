/* trainsim search: the fastest or cheapest modelled settings that fit.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ts.h"
#include "base/units.h"
#include "cli/cli.h"
#include "hw/catalog.h"
#include "report/table.h"
#include "sweep/search.h"
#include "work/compute.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim search SCENARIO.cfg [--objective time|cost] [--top N]\n"
		     "                       [--max-gpus N] [-j THREADS] [--set KEY=VALUE]...\n"
		     "                       [--calib OVERRIDES.cfg]\n"
		     "  enumerates the GPU count, tensor, pipeline and data parallelism, the\n"
		     "  micro-batch, the pipeline schedule (1f1b, interleaved), the ZeRO stages\n"
		     "  the framework takes, recompute and context parallelism (cp, powers of\n"
		     "  two up to 16); prunes what cannot fit by a static memory estimate and\n"
		     "  simulates the rest\n");
}

static int parse_count(const char *opt, const char *v, long max, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > max) {
		fprintf(stderr,
			"trainsim search: %s: found \"%s\", expected an integer from 1 "
			"to %ld\n",
			opt, v, max);
		return CLI_USAGE;
	}
	*out = n;
	return 0;
}

static void duration(char *b, size_t n, double s)
{
	if (s < 120.0)
		ts_units_format(s, TS_UNIT_TIME, b, n);
	else if (s < 172800.0)
		ts_units_format_num(b, n, "%.1f h", s / 3600.0);
	else
		ts_units_format_num(b, n, "%.1f days", s / 86400.0);
}

int cli_search(int argc, char **argv)
{
	const char *path = NULL, *objective = "time", *calib_path = NULL;
	long top = 10, max_gpus = 0, threads = 0;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets)
		return CLI_BADINPUT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			rc = CLI_OK;
			goto out;
		} else if (!strcmp(a, "--objective") || !strcmp(a, "--top") ||
			   !strcmp(a, "--max-gpus") || !strcmp(a, "-j") || !strcmp(a, "--set") ||
			   !strcmp(a, "--calib")) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"trainsim search: %s: found nothing, expected a "
					"value after it\n",
					a);
				goto out;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--objective"))
				objective = v;
			else if (!strcmp(a, "--set"))
				sets[nsets++] = v;
			else if (!strcmp(a, "--calib"))
				calib_path = v;
			else if (parse_count(a, v,
					     !strcmp(a, "--max-gpus") ? 1L << 26
					     : !strcmp(a, "-j")	      ? 1024
								      : 1L << 20,
					     !strcmp(a, "--top")	? &top
					     : !strcmp(a, "--max-gpus") ? &max_gpus
									: &threads))
				goto out;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim search: found unknown option \"%s\", expected "
				"--objective, --top, --max-gpus, -j, --set or --calib\n",
				a);
			goto out;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr,
				"trainsim search: found a second scenario \"%s\", expected "
				"one\n",
				a);
			goto out;
		}
	}
	if (!path || !*path) {
		fprintf(stderr, "trainsim search: found %s, expected SCENARIO.cfg\n",
			path ? "an empty file name" : "no scenario file");
		goto out;
	}
	if (strcmp(objective, "time") && strcmp(objective, "cost")) {
		fprintf(stderr,
			"trainsim search: --objective: found \"%s\", expected time or "
			"cost\n",
			objective);
		goto out;
	}
	struct hw_catalog *cat = NULL;
	struct work_calib calib;
	if ((rc = cli_load_common("search", &cat, &calib)))
		goto out;
	if ((rc = cli_apply_calib("search", calib_path, cat, &calib))) {
		hw_catalog_destroy(cat);
		goto out;
	}
	struct search_result sr;
	struct ts_error err;
	enum search_objective obj = strcmp(objective, "cost") ? SEARCH_TIME : SEARCH_COST;
	if (search_run(cat, &calib, path, sets, nsets, obj, (uint32_t)max_gpus, (int)threads, &sr,
		       &err)) {
		rc = cli_print_error("search", &err);
		hw_catalog_destroy(cat);
		goto out;
	}
	struct ts_table *t = NULL;
	rc = CLI_OK;
	enum { NCOL = 15 };
	if (table_create(&t, NCOL)) {
		rc = CLI_BADINPUT;
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
	for (size_t i = 0; i < sr.ranked && i < (size_t)top; i++) {
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
		table_cell(t, 10, "%s", work_recompute_name(c->recompute));
		table_cell(t, 11, "%s",
			   ts_units_format(r->iteration_time_s, TS_UNIT_TIME, a, sizeof a));
		table_cell(t, 12, "%.1f %%", 100.0 * r->mfu);
		table_cell(t, 13, "%.1f GiB", r->memory_per_gpu_bytes / (double)TS_GiB);
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
	printf("Search of %s by %s (stage granularity, class mode, two iterations)\n\n", path,
	       obj == SEARCH_COST ? "cost" : "time to train");
	if (table_status(t) || table_print(t, stdout)) {
		rc = CLI_BADINPUT;
		goto done;
	}
	printf("\n%zu configurations: %zu pruned by the memory estimate, %zu simulated "
	       "(%zu failed, %zu did not fit), %zu ranked",
	       sr.n, sr.pruned, sr.simulated, sr.failed,
	       sr.simulated + sr.aliases - sr.failed - sr.ranked, sr.ranked);
	if (sr.aliases)
		printf("; %zu identical to a lighter recompute mode (copied, not simulated)",
		       sr.aliases);
	if (sr.layouts_skipped)
		printf("; %zu GPU counts skipped (the scenario does not load with them)",
		       sr.layouts_skipped);
	if (sr.degrees_skipped)
		printf("; %zu (tp, cp, pp) skipped (dp does not divide the global batch)",
		       sr.degrees_skipped);
	printf("\n");
	printf("simulated %zu in %.3f s: %.0f configurations per second\n", sr.simulated,
	       sr.seconds, sr.seconds > 0.0 ? (double)sr.simulated / sr.seconds : 0.0);
	if (fflush(stdout))
		rc = CLI_BADINPUT;
done:
	table_destroy(t);
	search_result_free(&sr);
	hw_catalog_destroy(cat);
out:
	free(sets);
	return rc;
}
