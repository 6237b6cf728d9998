/* The result columns of a sweep's CSV rows, from the one list of a
 * result's fields (report/report).
 * SPDX-License-Identifier: MIT */
#include <jansson.h>
#include <stdio.h>

#include "base/err.h"
#include "report/report.h"
#include "report/sweeprow.h"

static int sweep_header(FILE *f, const char *const *skip, size_t nskip)
{
	return report_csv_header(f, skip, nskip);
}

/* The point's scenario as the tree its columns are read from. */
static int sweep_row(FILE *f, const struct ts_result *r, const struct ts_scenario *sc,
		     const char *const *skip, size_t nskip)
{
	json_t *tree = report_scenario_tree(sc);
	if (!tree)
		return TS_ENOMEM;
	int rc = report_csv_row(r, tree, skip, nskip, f);
	json_decref(tree);
	return rc;
}

const struct sweep_cols report_sweep_cols = {
    .header = sweep_header,
    .row = sweep_row,
    .ncols = report_csv_ncols_skip,
};
