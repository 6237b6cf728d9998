/* Sweep files: a base scenario (a path or an inline group) and axes of
 * values over any scenario key, combined as a product or zipped.
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_SWEEPCFG_H
#define TS_IO_SWEEPCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* Most axes, and most points of a sweep. */
#define SWEEP_MAX_AXES 16
#define SWEEP_MAX_POINTS 10000000

/* One axis: a dotted scenario key and its values. */
struct sweep_axis {
	char key[128]; /* "nodes", "parallel.bucket" */
	int line;      /* line of the axis in the sweep file, 0 when unknown */
	size_t n;      /* number of values */
	char **set;    /* each value as a --set right-hand side ("\"25 MiB\"", "8") (owned) */
	char **shown;  /* each value as the CSV shows it ("25 MiB", "8") (owned) */
};

/* A loaded sweep. Plain record, owned by whoever loaded it. */
struct sweep_spec {
	char file[256];	 /* the sweep file */
	char *base_path; /* the base scenario file (relative to the sweep file), or NULL */
	char *base_text; /* the inline base scenario as libconfig text, or NULL */
	int base_line;	 /* line of base in the sweep file, 0 when unknown */
	bool zip;	 /* true: point i takes value i of every axis */
	size_t naxes;
	struct sweep_axis axes[SWEEP_MAX_AXES];
	size_t npoints; /* product of the axis lengths, or their common length (zip) */
};

/* Load sweep file `path`:
 *   base = "scenario.cfg";            # or base = { model = "..."; ... };
 *   axes = { nodes = [1, 2, 4]; "parallel.bucket" = ["25 MiB", "none"];
 *            training = { micro_batch = [1, 2]; }; };   # nested = dotted
 *   zip = false;                      # default: the product
 * Values are scalars (integer, float, string, boolean), in an array or a
 * list. In the product the last axis varies fastest. Returns 0, or TS_EIO,
 * TS_ESYNTAX, TS_EUNKNOWN_KEY, TS_ETYPE, TS_EINVALID (no base, no axes, an
 * empty axis, two axes of one key (the message names both lines), zipped
 * axes of different lengths), TS_ELIMIT (too many axes or
 * points) or TS_ENOMEM with `err` naming file, line and key; *out is NULL
 * on failure. Free with sweepcfg_destroy. */
int sweepcfg_load(const char *path, struct sweep_spec **out, struct ts_error *err);

/* The same from text in memory; `label` names it in messages and relative
 * base paths are taken from the working directory. */
int sweepcfg_load_string(const char *text, const char *label, struct sweep_spec **out,
			 struct ts_error *err);

/* Free a sweep (NULL is fine). */
void sweepcfg_destroy(struct sweep_spec *sp);

/* Index of axis a's value at point i (i < npoints). */
size_t sweepcfg_value_index(const struct sweep_spec *sp, size_t i, size_t a);

#endif
