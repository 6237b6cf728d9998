/* Leave-one-source-out validation of iteration time: the fitted compute
 * constants refit without each source they are fitted on, the source's
 * errors with them, and the table of configs/calibration/loso.cfg that
 * `trainsim validate --loso` writes and `trainsim validate` reads.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_LOSO_H
#define TS_RUN_LOSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "run/validate.h"
#include "work/compute.h"

/* The table under the data root. */
#define LOSO_CFG "configs/calibration/loso.cfg"

/* The start of every refit (val_fit_keys order: launch_s in seconds,
 * tc_sustain), the same for every left-out source and for the
 * in-sample control, so that no refit starts from constants fitted on the
 * source it is checked on (loso.c says why these values). */
extern const double loso_start[VAL_FIT_COUNT];

/* One source's leave-one-source-out figures. Plain record. */
struct loso_source {
	bool present;		 /* the table holds this source */
	bool refit;		 /* a fitted source (val_source_fitted): its constants
				  * were refit without it; else nothing is fitted on it
				  * and its figures are the plain ones */
	double k[VAL_FIT_COUNT]; /* refit only: the constants fitted without it, in
				  * val_fit_keys order (launch_s in seconds) */
	double fit_mape;	 /* refit only: the mean per-source MAPE of the other
				  * sources' fitting halves at k, fraction */
	uint32_t evaluations;	 /* refit only: objective evaluations of its fit */
	uint32_t rows;		 /* the source's rows with a prediction */
	double mape;		 /* MAPE of all its rows with the constants fitted
				  * without it (plain: the committed ones), fraction */
	double speed_bias;	 /* mean over its rows of predicted speed / measured
				  * speed - 1 (> 0: predicted too fast), fraction */
	double plain_mape;	 /* MAPE of all its rows with the committed constants */
	double plain_speed_bias; /* speed_bias with the committed constants */
};

/* The leave-one-source-out table. Plain record. */
struct loso_table {
	struct loso_source s[VAL_SOURCE_COUNT_]; /* by enum val_source */
	double all_k[VAL_FIT_COUNT];		 /* the in-sample control: every fitted source's
						  * fitting half, from loso_start */
	double all_fit_mape;			 /* its mean per-source MAPE on those halves */
	bool has_all;				 /* all_k and all_fit_mape are set */
};

/* Means over the sources present: *mape of the leave-one-source-out MAPEs,
 * *plain of the plain ones; returns how many sources (0: both 0). */
size_t loso_headline(const struct loso_table *t, double *mape, double *plain);

/* Refit the constants of val_fit_keys once without each fitted source
 * (val_fit_without, starting from `base` with loso_start's values) and
 * once with all of them (the control), and fill *out for every source of
 * rows[0..n): the refit constants, and, from plain[] (every row predicted
 * with `base`, NAN for a row not modelled), the plain and the
 * leave-one-source-out errors. Each refit simulates the other sources'
 * fitting halves some 50 times: minutes, not seconds. Returns 0 or the
 * errors of val_fit_without and val_predict_all. */
int loso_fit(const struct hw_catalog *cat, const struct work_calib *base,
	     const struct val_row *rows, size_t n, const double *plain, struct loso_table *out,
	     struct ts_error *err);

/* Leave-one-source-out predictions from table t: for each row of a source
 * that t refit, its prediction with `base` and that source's constants into
 * loso[i], unseen[i] true; for the other rows loso[i] = plain[i], unseen[i]
 * = true for a source nothing is fitted on and val_unseen otherwise (a
 * fitted source the table lacks keeps its held-out half only). t may be
 * NULL (no table). A row with plain[i] NAN (not asked for, or not
 * modelled) stays NAN. Returns 0 or the errors of val_predict_all. */
int loso_predict(const struct hw_catalog *cat, const struct work_calib *base,
		 const struct loso_table *t, const struct val_row *rows, size_t n,
		 const double *plain, double *loso, bool *unseen, struct ts_error *err);

/* Fill rows, mape, speed_bias, plain_mape and plain_speed_bias of t->s[]
 * for every source with a row in rows[0..n) (marking it present, refit
 * when val_source_fitted) from plain[] and loso[] (NAN: no prediction,
 * skipped). */
void loso_errors(const struct val_row *rows, size_t n, const double *plain, const double *loso,
		 struct loso_table *t);

/* Load ROOT/LOSO_CFG into *out. A missing file is no error: *found false,
 * *out empty. Returns 0, or TS_ESYNTAX, TS_ETYPE, TS_ERANGE,
 * TS_EUNKNOWN_KEY, TS_EINVALID (an unknown source, one twice, a refit
 * source without its constants) with err naming file, line and key. */
int loso_load(const char *root, struct loso_table *out, bool *found, struct ts_error *err);

/* Write t as the libconfig text loso_load reads, after the comment header
 * `header` (lines starting with "#"), to f. Returns 0 or TS_EIO. */
int loso_write(const struct loso_table *t, const char *header, void *f);

#endif
