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
/* Most --set overrides of a sweep's base. */
#define SWEEP_MAX_SETS 64

/* One axis: a dotted scenario key and its values. */
struct sweep_axis {
	char key[128]; /* "nodes", "parallel.bucket" */
	int line;      /* line of the axis in the sweep file, 0 when unknown */
	size_t n;      /* number of values */
	char **set;    /* each value as a --set right-hand side ("\"25 MiB\"", "8") (owned) */
	char **shown;  /* each value as the CSV shows it ("25 MiB", "8"; control characters
			* escaped, ts_escape_ctl) (owned) */
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
	size_t npoints;		    /* product of the axis lengths, or their common length (zip) */
	size_t nsets;		    /* number of base overrides */
	char *sets[SWEEP_MAX_SETS]; /* "key=value" laid over the base before the axes
				       (trainsim sweep --set), owned */
	size_t shard_k;		    /* the part run: points shard_k, shard_k + shard_n,
				       ... (0-based; 0 for the whole sweep) */
	size_t shard_n;		    /* number of parts the sweep is cut into; 0 or 1:
				       the whole sweep */
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

/* Lay sets[0..n) ("key=value", as ts_scenario_load takes them) over the
 * base of sp, before the axis values of each point; copied. Returns 0,
 * TS_ELIMIT (more than SWEEP_MAX_SETS in all), TS_EUSAGE (a set without
 * "=", or one of a key that is an axis: the axis would override it) or
 * TS_ENOMEM, with err keyed "--set". */
int sweepcfg_set_base(struct sweep_spec *sp, const char *const *sets, size_t n,
		      struct ts_error *err);

/* Run only part k (0-based) of n of sp: the points k, k + n, k + 2n, ...
 * (interleaved, so every part gets a like share of small and large
 * points). Returns 0 or TS_EUSAGE (k >= n, n == 0) with err keyed
 * "--shard". */
int sweepcfg_set_shard(struct sweep_spec *sp, size_t k, size_t n, struct ts_error *err);

/* Number of points of sp's part (all points when not sharded). */
size_t sweepcfg_shard_points(const struct sweep_spec *sp);

/* Free a sweep (NULL is fine). */
void sweepcfg_destroy(struct sweep_spec *sp);

/* Index of axis a's value at point i (i < npoints). */
size_t sweepcfg_value_index(const struct sweep_spec *sp, size_t i, size_t a);

#endif
