/* Calibration overrides: a file of efficiency constants (the format of
 * configs/calibration/compute.cfg, any subset of its keys) applied on top
 * of the bundled calibration, as `trainsim calibrate` writes it.
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_CALIBCFG_H
#define TS_IO_CALIBCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "work/compute.h"

/* What a calibration from measurements taught, as its overrides file's
 * `fit` group says (`trainsim calibrate --trace/--runs` write it): which
 * constants came from the user's measurements and how well they fit.
 * Plain record. */
struct calibcfg_fit {
	bool present;	    /* the file has a fit group */
	char measured[160]; /* the constants fitted on measurements, ", "-separated */
	double before;	    /* rms of ln(predicted / measured) with the catalog's constants */
	double residual;    /* the same with the fitted ones (the fit's residual), log units */
	int rows;	    /* measurements fitted (trace classes or runs) */
};

/* Apply overrides file `path` to *c and to catalog `cat`: each top-level
 * key is a constant of work_calib_key, a group { value = ...; source =
 * "..."; } whose value is a number (launch_s also a time with a unit,
 * "4 us"), or `links`, a list of { name = "nvlink3"; efficiency = 0.8;
 * source = "..."; } that replaces link types' efficiencies in cat
 * (hw_catalog_set_link_efficiency; links given an efficiency of their own
 * in a cluster file keep it); `gpus`, a list of { name = "A100-SXM4-80GB";
 * hbm_eff = 0.8; flash_eff = 0.5; source = "..."; } that replaces GPU
 * types' achievable fractions in cat (hw_catalog_set_gpu_eff; flash_eff
 * optional); `fit`, a group { measured = "tc_sustain, hbm_eff"; before =
 * 0.12; residual = 0.01; rows = 4; }, read into *fit (may be NULL; absent:
 * fit->present false). Constants not named keep their value.
 * Returns 0, or TS_EIO, TS_ESYNTAX, TS_EUNKNOWN_KEY (with the closest key),
 * TS_EUNKNOWN_NAME (no such link type), TS_ETYPE, TS_EUNIT or TS_ERANGE
 * (not finite, negative; an efficiency outside (0, 1]) with `err` naming
 * file, line and key; *c and cat are untouched on failure. */
int calibcfg_apply(const char *path, struct hw_catalog *cat, struct work_calib *c,
		   struct calibcfg_fit *fit, struct ts_error *err);

/* Write an overrides file holding the constants keys[0..n) of c, each with
 * `source` (one line, quoted for libconfig). Returns 0 or TS_EIO. */
int calibcfg_write(FILE *out, const struct work_calib *c, const size_t *keys, size_t n,
		   const char *header, const char *source);

/* Write an overrides file holding the efficiency `efficiency` of link type
 * `link` with `source`. Returns 0 or TS_EIO. */
int calibcfg_write_link(FILE *out, const char *link, double efficiency, const char *header,
			const char *source);

/* Append to an overrides file a `gpus` entry setting GPU type `gpu`'s
 * hbm_eff and flash_eff (0: not written) with `source`. Returns 0 or TS_EIO. */
int calibcfg_write_gpu(FILE *out, const char *gpu, double hbm_eff, double flash_eff,
		       const char *source);

/* Append the `fit` group of *fit. Returns 0 or TS_EIO. */
int calibcfg_write_fit(FILE *out, const struct calibcfg_fit *fit);

#endif
