/* Calibration overrides: a file of efficiency constants (the format of
 * configs/calibration/compute.cfg, any subset of its keys) applied on top
 * of the bundled calibration, as `trainsim calibrate` writes it.
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_CALIBCFG_H
#define TS_IO_CALIBCFG_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "work/compute.h"

/* Apply overrides file `path` to *c: each top-level key is a constant of
 * work_calib_key, a group { value = ...; source = "..."; } whose value is a
 * number (launch_s also a time with a unit, "4 us"). Constants not named
 * keep their value. Returns 0, or TS_EIO, TS_ESYNTAX, TS_EUNKNOWN_KEY (with
 * the closest key), TS_ETYPE, TS_EUNIT or TS_ERANGE (not finite, negative)
 * with `err` naming file, line and key; *c is untouched on failure. */
int calibcfg_apply(const char *path, struct work_calib *c, struct ts_error *err);

/* Write an overrides file holding the constants keys[0..n) of c, each with
 * `source` (one line, quoted for libconfig). Returns 0 or TS_EIO. */
int calibcfg_write(FILE *out, const struct work_calib *c, const size_t *keys, size_t n,
		   const char *header, const char *source);

#endif
