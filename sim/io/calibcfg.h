/* Calibration overrides: a file of efficiency constants (the format of
 * configs/calibration/compute.cfg, any subset of its keys) applied on top
 * of the bundled calibration, as `trainsim calibrate` writes it.
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_CALIBCFG_H
#define TS_IO_CALIBCFG_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "work/compute.h"

/* Apply overrides file `path` to *c and to catalog `cat`: each top-level
 * key is a constant of work_calib_key, a group { value = ...; source =
 * "..."; } whose value is a number (launch_s also a time with a unit,
 * "4 us"), or `links`, a list of { name = "nvlink3"; efficiency = 0.8;
 * source = "..."; } that replaces link types' efficiencies in cat
 * (hw_catalog_set_link_efficiency; links given an efficiency of their own
 * in a cluster file keep it). Constants not named keep their value.
 * Returns 0, or TS_EIO, TS_ESYNTAX, TS_EUNKNOWN_KEY (with the closest key),
 * TS_EUNKNOWN_NAME (no such link type), TS_ETYPE, TS_EUNIT or TS_ERANGE
 * (not finite, negative; an efficiency outside (0, 1]) with `err` naming
 * file, line and key; *c and cat are untouched on failure. */
int calibcfg_apply(const char *path, struct hw_catalog *cat, struct work_calib *c,
		   struct ts_error *err);

/* Write an overrides file holding the constants keys[0..n) of c, each with
 * `source` (one line, quoted for libconfig). Returns 0 or TS_EIO. */
int calibcfg_write(FILE *out, const struct work_calib *c, const size_t *keys, size_t n,
		   const char *header, const char *source);

/* Write an overrides file holding the efficiency `efficiency` of link type
 * `link` with `source`. Returns 0 or TS_EIO. */
int calibcfg_write_link(FILE *out, const char *link, double efficiency, const char *header,
			const char *source);

#endif
