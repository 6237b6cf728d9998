/* Internals shared by the files of the public API's implementation
 * (sim/api/): the handles that are the facade's own, and the thread-local
 * error that ts_errmsg() reports.
 * SPDX-License-Identifier: MIT */
#ifndef TS_API_API_INT_H
#define TS_API_API_INT_H

#include "base/err.h"
#include "trainsim.h"

struct ts_scenario;
struct sweep_spec;

/* A plan (ts_plan) is the library's own: struct ts_plan of plan/plan.h,
 * built by plan_build and run by run_plan. */

/* A sweep file loaded and checked against an environment (borrowed). */
struct ts_sweep {
	const struct ts_env *env;
	struct sweep_spec *sp;
};

/* A result handed out by ts_plan_simulate: the record (first, so a
 * ts_result * is the address of an api_result) and the resolved scenario
 * it was simulated from (report_scenario_tree, owned), which its JSON and
 * CSV carry. */
#include <jansson.h>

#include "run/result.h"
struct api_result {
	struct ts_result r;
	json_t *scenario;
	char file[256];		/* the scenario's file ("-" for standard input) */
	struct ts_remedies rem; /* what r.remedies points at, once looked for */
};

/* The scenario of a result made by ts_plan_simulate (borrowed). */
static inline const json_t *api_result_scenario(const ts_result *r)
{
	return ((const struct api_result *)(const void *)r)->scenario;
}

/* The file the scenario of a result made by ts_plan_simulate was read
 * from (borrowed). */
static inline const char *api_result_file(const ts_result *r)
{
	return ((const struct api_result *)(const void *)r)->file;
}

/* An output file (report/outfile), or standard output when of is NULL. */
struct outfile;
struct ts_output {
	struct outfile *of;
};

/* Make *out a ts_output over of (NULL: standard output); on TS_ENOMEM of
 * is aborted. Returns 0 or TS_ENOMEM (recorded). */
int api_output_wrap(struct outfile *of, ts_output **out);

/* Record e as this thread's last error (what ts_errmsg() and ts_errcode()
 * report) and return its code. */
int api_fail(const struct ts_error *e);

/* Record a new error (as ts_error_set) as this thread's last one and return
 * code. */
int api_failf(int code, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The table printer's output for a format: 0 text, 1 CSV. */
struct ts_table;
int api_table_write(const struct ts_table *t, enum ts_format format, const char *kind, FILE *out);

/* Write scenario `path` with `sets` and the settings of search candidate c
 * as the search simulated it (two iterations, class mode, stage
 * granularity) to file dst, so that `trainsim run dst` reproduces c's
 * figures (sim/api/search.c). Returns 0, the scenario's errors, TS_EIO or
 * TS_ENOMEM (recorded). */
#include "sweep/search.h"
int api_search_export(const char *path, const char *const *sets, size_t nsets,
		      const struct search_cand *c, enum search_objective obj, const char *dst);

#endif
