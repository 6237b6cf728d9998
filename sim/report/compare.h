/* The writers of trainsim compare: text, CSV and JSON of a comparison
 * (run/compare) of results.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_COMPARE_H
#define TS_REPORT_COMPARE_H

#include <jansson.h>
#include <stdio.h>

#include "base/err.h"
#include "run/compare.h"
#include "run/result.h"

/* Write comparison c of results rs[0..c->n) (each simulated from the
 * resolved scenario scenarios[k], a report_scenario_tree, read from file
 * files[k]): text a row per compared figure and a column per scenario,
 * '*' on a winner and on each of a tie, and what would fit for each result
 * that does not; CSV a row per scenario ("name", "file", a column per
 * shown figure by its key, "best", "tied" and "no_clear_winner" as
 * ';'-separated keys, then the scenario's columns by key path); JSON a
 * list of the results as report_result_document writes them, each with
 * "comparison": {"scaling_efficiency", "best", "tied", "no_clear_winner"}.
 * Returns 0, TS_EIO or TS_ENOMEM, with err set. */
int report_compare_write(const struct compare *c, const struct ts_result *const *rs,
			 const json_t *const *scenarios, const char *const *files,
			 enum ts_format format, FILE *out, struct ts_error *err);

#endif
