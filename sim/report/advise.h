/* The writers of trainsim advise: the options that sim/sweep/advise
 * evaluated (struct advise_result) as text for people, CSV and JSON.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_ADVISE_H
#define TS_REPORT_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "sweep/advise.h"
#include "trainsim.h"

/* "buy" for ADVISE_BUY, else "rent" (a static string). */
const char *report_advise_mode_name(int m);

/* Whether option i of ar has its scenario exported (--export): evaluated,
 * and on the frontier or recommended (cheapest, fastest, cheapest to rent
 * or to buy). */
bool report_advise_exported(const struct advise_result *ar, size_t i);

/* The file option o's scenario is exported to under folder dir (NULL: the
 * current one), "DIR/NODETYPE-Nn-MODE.cfg", into b (size n). */
void report_advise_export_name(const struct advise_result *ar, const struct advise_option *o,
			       const char *dir, char *b, size_t n);

/* Write the advice ar for the ask a on scenario `path` as format (text:
 * the recommendations, the frontier, the options with their bands and the
 * buyer's checks by node type; CSV: one line per option; JSON: one object
 * with the ask and the options). `candidates` is the node-type catalog
 * named (NULL: the bundled one), `dir` the --export folder (NULL: none;
 * the exported options' files are named). Write errors are left to the
 * stream. Returns 0, or TS_ENOMEM / TS_EIO (JSON) with err set. */
int report_advise_write(const struct advise_result *ar, const struct advise_ask *a,
			const char *path, const char *candidates, const char *dir,
			enum ts_format format, FILE *out, struct ts_error *err);

#endif
