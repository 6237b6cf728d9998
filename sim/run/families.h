/* Scaling families of the validation rows: the same model, GPU type,
 * framework and precision at growing GPU counts. Each family is calibrated
 * on its smallest modelled run (calibfit_runs: gemm_k0, tc_sustain,
 * launch_s) and its larger runs are predicted with the committed and with
 * the fitted constants ("measure small, predict big").
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_FAMILIES_H
#define TS_RUN_FAMILIES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "run/validate.h"
#include "run/calibfit.h"
#include "work/compute.h"

/* Most runs of one family kept (larger families are cut, the rest named
 * in fam_family.dropped). */
#define FAM_MEMBERS_MAX 48

/* One family. Plain record. */
struct fam_family {
	char key[512];			 /* "source | model | cluster | precision | framework" */
	size_t base;			 /* index into the rows of the smallest modelled run */
	size_t n;			 /* runs of the family, base among them */
	size_t row[FAM_MEMBERS_MAX];	 /* indices into the rows, by GPUs */
	double before[FAM_MEMBERS_MAX];	 /* predicted in the row's metric, committed constants (NAN:
					    not modelled) */
	double after[FAM_MEMBERS_MAX];	 /* ... with the family's fit */
	size_t dropped;			 /* runs beyond FAM_MEMBERS_MAX */
	bool calibrated;		 /* calibfit_runs accepted the smallest run */
	char why[800];			 /* when not: its message (names the run and the term) */
	struct calibfit fit;		 /* when calibrated */
	struct val_err_stats err_before; /* larger runs, committed constants */
	struct val_err_stats err_after;	 /* larger runs, fitted constants */
};

/* Group rows[0..n) (val_load_all) of `source` (NULL or "all": every
 * source) into families of at least two GPU counts, calibrate each on its
 * smallest modelled run with constants c as the start and predict every
 * run before and after. New array in *out of *nout families (free with
 * ts_free(*out, *nout x sizeof **out)). Returns 0, TS_ENOMEM or the error
 * of loading or running a scenario; a family whose fit is refused is no
 * failure (calibrated false, why filled). */
int fam_compute(const struct hw_catalog *cat, const struct work_calib *c,
		const struct val_row *rows, size_t n, const char *source, struct fam_family **out,
		size_t *nout, struct ts_error *err);

#endif
