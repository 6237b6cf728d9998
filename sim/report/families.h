/* The scaling-family table of trainsim validate --families.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_FAMILIES_H
#define TS_REPORT_FAMILIES_H

#include <stdio.h>

#include "run/families.h"

/* Write per family (fam_compute) its smallest run, the fitted constants
 * with their 80 % bands, each run's measurement and prediction before and
 * after, the larger runs' mean absolute error before and after, and
 * whether it calibrated (else why, naming the run and the term); a last
 * line counts the families calibrated and the larger runs' MAPE over all.
 * Returns 0 or TS_EIO. */
int report_families_write(const struct val_row *rows, const struct fam_family *f, size_t n,
			  FILE *out);

#endif
