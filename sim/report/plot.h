/* The data of a chart of results (trainsim plot): the whitespace-separated
 * columns and the gnuplot settings a bundled script (plots/KIND.gp) reads.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_PLOT_H
#define TS_REPORT_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "trainsim.h"

/* ts_plot_prepare (include/trainsim.h) with the data root `root`: write
 * the data of chart `kind` of the results CSV csv_path to data, its
 * settings to settings (may be NULL) and the script's path into script
 * (size n). Returns 0, TS_EUSAGE (an unknown kind, an option the kind does
 * not take, a control character in an option), TS_EIO, TS_ESYNTAX,
 * TS_EINVALID (a missing column, no row to plot) or TS_ENOMEM, with err
 * set. */
int plot_prepare(const char *root, const char *kind, const char *csv_path, const ts_plot_opts *o,
		 FILE *data, FILE *settings, char *script, size_t n, struct ts_error *err);

#endif
