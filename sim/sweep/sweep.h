/* Running sweeps: each point of a sweep file loaded as the base scenario
 * with the axis values as --set overrides, simulated in parallel (OpenMP),
 * written as CSV rows in point order; resuming an interrupted output.
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_SWEEP_H
#define TS_SWEEP_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "io/sweepcfg.h"
#include "plan/env.h"
#include "run/result.h"
#include "work/compute.h"

/* Longest CSV row of one point, bytes. */
#define SWEEP_ROW_MAX 16384

/* The writer of a row's result columns. sweep/ lays out the fields that
 * are its own (the point, the axis values, the status, the digest) and
 * leaves the result's columns to the layer above (report/, which knows
 * the list of a result's fields): each function writes to f, `skip` being
 * the scenario keys the row leaves out (the axes, which have their own
 * columns). The functions are called from several OpenMP threads at once
 * and must keep no state. */
struct sweep_cols {
	/* the result columns' header line, ending in "\n"; 0 or TS_EIO */
	int (*header)(FILE *f, const char *const *skip, size_t nskip);
	/* the result r of scenario sc (the point as loaded) as one line under
	 * that header, ending in "\n"; 0, TS_ENOMEM or TS_EIO */
	int (*row)(FILE *f, const struct ts_result *r, const struct ts_scenario *sc,
		   const char *const *skip, size_t nskip);
	/* the number of fields of that header and of every row */
	size_t (*ncols)(const char *const *skip, size_t nskip);
};

/* Seed of the random streams of point i of a sweep whose scenario seed is
 * `seed`: splitmix64 of seed ^ (i x golden ratio), so points get unrelated
 * streams that do not depend on which thread runs them (STYLE.md, "Parallel
 * sweeps"). */
uint64_t sweep_point_seed(uint64_t seed, uint64_t i);

/* Load point i of sp: the base scenario with one --set "key=value" per axis,
 * its seed replaced by sweep_point_seed. Same errors as ts_scenario_load
 * (the message names the --set argument of an invalid value). */
int sweep_point_load(const struct sweep_spec *sp, const struct hw_catalog *cat, size_t i,
		     struct ts_scenario **out, struct ts_error *err);

/* Refuse a sweep whose every point is invalid for a reason that does not
 * depend on the axis values: the base scenario cannot be read (missing, a
 * syntax error, an unknown key) or an axis is not a scenario key. Loads
 * point 0 (nothing runs). Returns 0, or the error of point 0 (TS_EIO,
 * TS_ESYNTAX, TS_EUNKNOWN_KEY, ...) with `err` naming the sweep file and
 * the line of its base (key "base") or of the axis (the axis key), its
 * message holding point 0's. Other errors of point 0 are left to the
 * rows: they may be of one combination of values only. */
int sweep_check(const struct sweep_spec *sp, const struct hw_catalog *cat, struct ts_error *err);

/* Write the CSV header into buf (size n, NUL-terminated, ending in "\n"):
 * "point", the axis keys, "status", then the result columns of cols, and
 * last "sweep_digest" (the digest of what made the row:
 * sweep_digest_text). Returns 0, TS_ELIMIT (too long) or TS_EIO. */
int sweep_csv_header(const struct sweep_spec *sp, const struct sweep_cols *cols, char *buf,
		     size_t n);

/* Simulate point i and write its CSV row into buf (size n): the index, the
 * axis values, "ok" and the result (written by cols), or "invalid: MESSAGE" and empty result
 * columns when the point does not load or run (not an error of the sweep),
 * and last the field `digest` (sweep_digest_text; NULL: empty).
 * `res` (may be NULL) receives the result. Returns 0, or TS_ENOMEM / TS_ELIMIT
 * / TS_EIO when the row itself cannot be made. */
int sweep_point_row(const struct sweep_spec *sp, const struct sweep_cols *cols,
		    const struct hw_catalog *cat, const struct work_calib *calib, size_t i,
		    const char *digest, char *buf, size_t n, struct ts_result *res);

/* Called after each row is written, in point order, from one thread at a
 * time: `done` rows of `total` written, `elapsed_s` seconds since the start. */
typedef void (*sweep_progress_fn)(void *ud, size_t done, size_t total, double elapsed_s);

/* Simulate points first..npoints-1 (of a part of a sharded sweep: first,
 * first + shard_n, ... below npoints) on `threads` OpenMP threads (0: the
 * default) and append their rows, each ending in the sweep's digest
 * (sweep_digest of sp in the environment run, as sweep_digest_text), to
 * `out` in point order, each row written
 * and flushed as soon as it and every earlier row are done, so an
 * interrupted sweep leaves a prefix of whole rows (and at most one partial
 * row). Each point has its own scenario, cluster and simulation; the output
 * is the same bytes for any thread count. Returns 0, TS_EIO when writing
 * fails, or the error of sweep_point_row. Never prints. */
int sweep_run(const struct sweep_spec *sp, const struct sweep_cols *cols,
	      const struct hw_catalog *cat, const struct work_calib *calib, size_t first,
	      int threads, FILE *out, sweep_progress_fn progress, void *ud, struct ts_error *err);

/* What determines a sweep's rows besides its axes, written in the last
 * column of every row ("sweep_digest") so that --resume never mixes rows of
 * two setups and trainsim merge tells the parts of one sweep. A column, not
 * a comment line above the header: pandas.read_csv and other CSV readers
 * read the file with their defaults, and a row copied alone keeps it. */
struct sweep_digest {
	uint64_t base;	  /* FNV-1a 64 of the resolved base scenario: its --dump-config
			   * text without the comments saying where each value came
			   * from; of its text when it does not load without the axes */
	uint64_t calib;	  /* FNV-1a 64 of the compute constants in use and of the bytes
			   * of the calibration overrides file (when one is given) */
	char version[32]; /* the trainsim version */
	/* one part of a sharded sweep (written only when shard_n > 1), so that
	 * trainsim merge can tell the parts of one sweep */
	size_t shard_k; /* the part, 0-based */
	size_t shard_n; /* number of parts; 0 or 1: the whole sweep */
	size_t npoints; /* points of the whole sweep */
	uint64_t axes;	/* FNV-1a 64 of the axes: zip, each key and its values */
};

/* Fill *d for sweep sp run with catalog cat, constants calib and the
 * overrides file calib_path (NULL: none). Returns 0, or TS_EIO (the base or
 * calib_path cannot be read) or TS_ENOMEM with `err` set. */
int sweep_digest(const struct sweep_spec *sp, const struct hw_catalog *cat,
		 const struct work_calib *calib, const char *calib_path, struct sweep_digest *d,
		 struct ts_error *err);

/* Fold the model-error table t (NULL: none, which leaves d alone) into d's
 * calibration hash: results carry bands from it, so a sweep resumed under
 * another table is refused like one under other constants. */
void sweep_digest_bands(struct sweep_digest *d, const struct band_table *t);

/* Most bytes of sweep_digest_text, its NUL included. */
#define SWEEP_DIGEST_MAX 160

/* The digest as the field of column "sweep_digest" ("base 0123456789abcdef;
 * calibration ...; version 0.1.0"; for a part of a sharded sweep then
 * "; shard K/N of P points; axes 0123456789abcdef", K counted from 1: no
 * comma, quote or newline, so the field needs no quoting) into buf (size
 * n). Returns 0 or TS_ELIMIT. */
int sweep_digest_text(const struct sweep_digest *d, char *buf, size_t n);

/* Whether the len bytes at s are a digest as sweep_digest_text writes it,
 * and its parts into *d (shard_n 0 when it names no part). */
bool sweep_digest_parse(const char *s, size_t len, struct sweep_digest *d);

/* The last field of the CSV line at `line` (up to its "\n" or NUL): its
 * start, and its length into *len (the digest of a sweep's row). */
const char *sweep_row_digest(const char *line, size_t *len);

/* Check the result figures of one row of a sweep's CSV read back (a part
 * to merge, a file to resume): `head` is the header line and `row` the row
 * (each up to its "\n" or NUL), `path` and `line` name it. In a row whose
 * status is "ok", every result field from the column "name" on that reads
 * as a number must be finite and >= 0 (memory_headroom_gib, negative when
 * the run does not fit, and breakeven_months, -1 for never, excepted:
 * finite, >= -1e15 and >= -1); text columns (sim/report/report.c's STR and
 * list fields) are not numbers and skipped. Returns 0, TS_EINVALID naming
 * path:line, the column (its name and number) and what was found, or
 * TS_ENOMEM. */
int sweep_row_check(const char *head, const char *row, const char *path, int line,
		    struct ts_error *err);
/* sweep_run in environment env (borrowed: catalog, constants, storage
 * catalog): the dataset of the base is read once (from point `first`), and
 * a point that names the same dataset plans with it; each point's
 * scenario is still loaded from the base text with its --set values. Same
 * returns as sweep_run. */
int sweep_run_env(const struct sweep_spec *sp, const struct sweep_cols *cols,
		  const struct ts_env *env, size_t first, int threads, FILE *out,
		  sweep_progress_fn progress, void *ud, struct ts_error *err);

/* Look at an existing output file `path` of sweep sp (its result columns
 * those of cols): when it is missing or
 * empty (or holds only its header), *done = 0 and *keep = 0; when it
 * starts with sp's header, *done is the number of whole rows that follow
 * in order (point 0, 1, ...; of a part of a sharded sweep, its points
 * shard_k, shard_k + shard_n, ...), each with its point's index, its axis
 * values, as many fields as the header and (when d is not NULL) the
 * digest d in its last field, and *keep the byte offset just after the
 * last of them: the first row that is not (a partial last row, another
 * run's row, a damaged one) and all after it are to be computed again.
 * Returns 0, TS_EINVALID when the header is another sweep's (or the
 * digest line above the header that trainsim wrote before the column), or
 * when the first row's digest is damaged or not d (the message says which
 * of the base scenario, the calibration and the version changed, or which
 * part), or TS_EIO. */
int sweep_resume_scan(const struct sweep_spec *sp, const struct sweep_cols *cols, const char *path,
		      const struct sweep_digest *d, size_t *done, long *keep, struct ts_error *err);

#endif
