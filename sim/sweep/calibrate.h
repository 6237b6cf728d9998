/* Calibrating the efficiency constants to a user's own measurement: one
 * measured iteration time of one scenario, fitted with validate's fitter.
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_CALIBRATE_H
#define TS_SWEEP_CALIBRATE_H

#include <stddef.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "run/validate.h"
#include "work/compute.h"

/* The scenario text `text` (a scenario file's content) without comments and
 * with runs of blank space collapsed, into buf (size n). Returns 0 or
 * TS_ELIMIT when it does not fit. */
int calib_compact(const char *text, char *buf, size_t n);

/* Fit the constants of val_fit_keys (gemm_k0, launch_s, tile_n) so that
 * scenario `text` (labelled `label` in messages; named models and clusters
 * resolve in the catalog, relative paths from the working directory)
 * simulates an iteration of `measured_s` seconds, starting from *start,
 * with val_fit (GSL Nelder-Mead after a grid; deterministic). One
 * measurement fixes one combination of the constants: the fit matches the
 * time, and among the constants that do, it keeps the first the search
 * reaches. Returns 0, TS_ERANGE (measured_s not positive), TS_ELIMIT (the
 * scenario longer than a validation row holds without comments), or the
 * errors of ts_scenario_load_string and ts_run, with `err` filled. */
int calib_fit_iteration(const struct hw_catalog *cat, const struct work_calib *start,
			const char *text, const char *label, double measured_s,
			struct val_fit_result *out, struct ts_error *err);

#endif
