/* The writers of trainsim search: the candidates that sim/sweep/search
 * simulated and ranked (struct search_result), and the best of them as a
 * scenario file.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_SEARCH_H
#define TS_REPORT_SEARCH_H

#include <libconfig.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "run/result.h"
#include "sweep/search.h"
#include "trainsim.h"

/* Write the first `top` ranked candidates of sr, searched on scenario
 * `path` by objective obj, as format: text (the ranked table with each
 * score's 80 % band, the counts, why anything was skipped), CSV (one line
 * per candidate, numbers with 17 digits) or JSON (the counts, the skipped
 * layouts, the candidates). When nothing fits, nofit (NULL: not known) is
 * the scenario as given, simulated, with its memory remedies, which the
 * text and JSON name. Returns 0, or TS_ENOMEM / TS_EIO with err set. */
int report_search_write(const struct search_result *sr, const char *path, enum search_objective obj,
			size_t top, const struct ts_result *nofit, enum ts_format format, FILE *out,
			struct ts_error *err);

/* Write the scenario file of candidate c (best of a search of `path` with
 * `sets` by obj) to f: comment lines saying what it is and how it was
 * simulated, then every setting of cfg (the scenario with c's settings
 * applied) so that it parses back to the same values (floats with 17
 * digits, strings escaped, 64-bit integers with their L). Returns 0, or
 * TS_EIO when the stream has an error. */
int report_search_scenario(const char *path, const char *const *sets, size_t nsets,
			   const struct search_cand *c, enum search_objective obj,
			   const config_t *cfg, FILE *f);

#endif
