/* The result columns of a sweep's CSV rows: the writer that sim/sweep/
 * lays each point's row out with (the point, axes and status before, the
 * digest after are sweep/'s own).
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_SWEEPROW_H
#define TS_REPORT_SWEEPROW_H

#include "sweep/sweep.h"

/* report_csv_header, report_csv_row (with the point's scenario as
 * report_scenario_tree) and report_csv_ncols_skip, each leaving out the
 * scenario columns of the sweep's axes. Stateless: the rows of an OpenMP
 * sweep use it from every thread. */
extern const struct sweep_cols report_sweep_cols;

#endif
