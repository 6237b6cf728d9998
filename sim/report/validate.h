/* The writers of trainsim validate: time predictions against published
 * measurements (run/validate, run/loso, the bands of plan/bandtab) and
 * memory predictions against public reports (run/memval), as tables.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_VALIDATE_H
#define TS_REPORT_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "plan/bandtab.h"
#include "run/loso.h"
#include "run/memval.h"
#include "run/validate.h"
#include "work/compute.h"

/* The header of the bands file (configs/calibration/bands.cfg) that
 * trainsim validate --bands writes, and of the leave-one-source-out file
 * (configs/calibration/loso.cfg) of trainsim validate --loso. */
extern const char report_bands_header[];
extern const char report_loso_header[];

/* What one validation computed (every pointer borrowed). */
struct report_validation {
	const struct val_row *rows;	   /* [n] the measurements */
	size_t n;			   /* rows */
	const bool *use;		   /* [n] rows asked for (their source) */
	const double *pred;		   /* [n] predictions (NaN: not modelled) */
	const struct val_summary *summary; /* the error statistics of the rows used */
	const struct band_resid *res;	   /* [nres] leave-one-source-out residuals, or
					    * NULL: no coverage table (one source) */
	size_t nres;			   /* residuals */
	const struct loso_table *loso;	   /* each source's plain and
					    * leave-one-source-out errors */
	const bool *pick;		   /* [VAL_SOURCE_COUNT_] sources shown */
	const bool *have;		   /* [VAL_SOURCE_COUNT_] sources whose refit
					    * constants are stored */
};

/* Write a validation as tables (text) or CSV: the rows (predicted and
 * measured iteration time in ms or the row's own figure, error in %), the
 * statistics per source, half and vTrain group, the bands' coverage per
 * source on its unseen rows when v->res is set, and the
 * leave-one-source-out table with the mean of the sources (in text, a last
 * line with that headline). Returns 0 or TS_EIO (TS_ENOMEM, TS_EINVALID of
 * a coverage), with err set. */
int report_validate_write(const struct report_validation *v, bool csv, FILE *out,
			  struct ts_error *err);

/* Write a refit of the constants (trainsim validate --fit): rows,
 * evaluations, the mean per-source MAPE before and after, each constant
 * with its value before (start). Returns 0 or TS_EIO. */
int report_val_fit(const struct val_fit_result *fr, const struct work_calib *start, FILE *out);

/* Write the leave-one-source-out refits t (trainsim validate --loso): in
 * text a line with the start and the control fit on every source, then the
 * table. Returns 0 or TS_EIO, with err set. */
int report_loso_write(const struct loso_table *t, bool csv, FILE *out, struct ts_error *err);

/* Write the memory validation: one row per report of set (predicted and
 * measured GiB, error, capacity, verdict, whether it is right), then per
 * source src[0..nsrc) and over all of them (all) the MAPE, bias and worst
 * error of the measured peaks, the verdicts right and the 80 % band from
 * the other sources; in text a last line with the leave-one-source-out
 * headline. Returns 0, TS_EIO or TS_ENOMEM, with err set. */
int report_memval_write(const struct memval_set *set, const struct memval_source *src, size_t nsrc,
			const struct memval_source *all, bool csv, FILE *out, struct ts_error *err);

#endif
