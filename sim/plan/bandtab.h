/* The model error that validation measured, by regime: the table of
 * configs/calibration/bands.cfg (written by `trainsim validate --bands`,
 * loaded with the environment), its keys and its lookup. What a run does
 * with it is sim/run/band.h.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PLAN_BANDTAB_H
#define TS_PLAN_BANDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "work/memory.h"

/* The 90th percentile of the standard normal: an 80 % central band is
 * centre ± BAND_Z · sigma. */
#define BAND_Z 1.2815515655446004
/* Fewest residuals a regime needs to carry a band of its own; fewer fall
 * back to the next coarser regime (band_lookup). */
#define BAND_MIN_ROWS 8
/* Most regimes a table holds. */
#define BAND_MAX_REGIMES 48
/* Longest regime key, with its NUL ("A/single/megatron"). */
#define BAND_KEY_MAX 32
/* Levels of regimes, finest first: generation, scale and framework family;
 * scale and family; family; everything (band_regime_key). */
#define BAND_LEVELS 4

/* The model error of one regime: the distribution of
 * r = ln(measured time / predicted time) over its validation rows. Plain
 * record. */
struct band_regime {
	char key[BAND_KEY_MAX]; /* "A/single/megatron"; a pooled level is a star */
	uint32_t rows;		/* residuals it was estimated from */
	double err80;		/* 80th percentile of |r|: the 80 % half-width, log units */
	double bias;		/* median r (> 0: runs slower than predicted); reported,
				 * never applied */
	char sources[160];	/* the sources the rows came from, comma-separated */
};

/* A table of regimes. Plain record. */
struct band_table {
	size_t n;
	struct band_regime r[BAND_MAX_REGIMES];
};

/* The regime key of a run into buf (n bytes, at least BAND_KEY_MAX) at
 * level (0 finest .. BAND_LEVELS-1, every part pooled as a star): the GPU generation (the
 * first letter of the GPU type's name: "A" for A100, "H" for H100, "V",
 * "L", "R" ...), "single" or "multi" node, and the framework family
 * ("megatron" for Megatron and DeepSpeed, "pytorch" for DDP and FSDP). */
void band_regime_key(char *buf, size_t n, int level, const char *gpu_name, uint32_t nodes,
		     enum work_framework fw);

/* The finest regime of t with at least BAND_MIN_ROWS rows among the
 * BAND_LEVELS keys of a run (band_regime_key); NULL when t is NULL or holds
 * none of them. */
const struct band_regime *band_lookup(const struct band_table *t, const char *gpu_name,
				      uint32_t nodes, enum work_framework fw);

/* The finest regime of t with at least BAND_MIN_ROWS rows among the keys
 * key[0..BAND_LEVELS) (a band_resid's); NULL when none. */
const struct band_regime *band_lookup_keys(const struct band_table *t,
					   const char (*key)[BAND_KEY_MAX]);

/* One residual for band_table_build. Plain record. */
struct band_resid {
	char key[BAND_LEVELS][BAND_KEY_MAX]; /* its regime at each level */
	const char *source;		     /* the source it comes from (borrowed) */
	double r;			     /* ln(measured time / predicted time) */
};

/* Build the table of every regime, at every level, that holds at least
 * BAND_MIN_ROWS of the residuals res[0..n) whose source is not `exclude`
 * (NULL excludes none: leave-one-source-out passes the source whose band is
 * wanted). Percentiles are GSL's (linear interpolation between order
 * statistics). Returns 0, TS_ELIMIT with err set when more than
 * BAND_MAX_REGIMES qualify, or TS_ENOMEM. */
int band_table_build(const struct band_resid *res, size_t n, const char *exclude,
		     struct band_table *out, struct ts_error *err);

/* How the 80 % band covers one source's residuals. Plain record. */
struct band_coverage {
	size_t rows;	   /* the source's residuals */
	size_t inside;	   /* of them, inside their band */
	size_t no_band;	   /* of them, with no regime of enough other rows */
	double coverage;   /* inside / rows, fraction 0-1 */
	double median_hw;  /* median half-width (p90 - p10) / 2 / p50 of their bands, fraction */
	char regimes[160]; /* the regimes their bands came from, comma-separated */
};

/* Leave-one-source-out check of the bands on the residuals of `source`: the
 * table is built from the other sources' residuals only (band_table_build
 * with exclude = source), and each of the source's residuals is inside
 * when |r| <= err80 of its regime (band_lookup_keys): the band of a figure
 * without spread, as sim/run/band.h combines it. Returns 0 or the
 * errors of band_table_build. */
int band_coverage_of(const struct band_resid *res, size_t n, const char *source,
		     struct band_coverage *out, struct ts_error *err);

/* Load the regime table of ROOT/configs/calibration/bands.cfg into *out.
 * A missing file is no error: *out is left empty (n = 0) and *found false;
 * a run then carries only the simulation's spread. Returns 0, or TS_ESYNTAX,
 * TS_ETYPE, TS_ERANGE, TS_EUNKNOWN_KEY, TS_EINVALID (a regime without a key
 * or a key twice) or TS_ELIMIT with err naming file, line and key. */
int band_table_load(const char *root, struct band_table *out, bool *found, struct ts_error *err);

/* Write t as the libconfig text band_table_load reads, to f, after a comment
 * header `header` (lines already starting with "#"). Returns 0 or TS_EIO. */
int band_table_write(const struct band_table *t, const char *header, void *f);

#endif
