/* The environment a plan is built in: the data root and everything read
 * from it once (hardware catalog, storage catalog, compute calibration and
 * any calibration overrides), shared read-only by every plan built from it.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PLAN_ENV_H
#define TS_PLAN_ENV_H

#include "base/err.h"
#include "data/catalog.h"
#include "hw/catalog.h"
#include "io/calibcfg.h"
#include "plan/bandtab.h"
#include "work/compute.h"

/* Everything below is owned by the environment and read-only once it is
 * open: plans, sweeps and searches only read it, so one environment may be
 * shared by OpenMP threads. */
struct ts_env {
	char *root;		   /* data root: holds configs/ and models/ (owned) */
	struct hw_catalog *cat;	   /* GPUs, links and link efficiencies */
	struct data_catalog *data; /* storage types (datasets are read by the plan) */
	struct work_calib calib;   /* compute constants, overrides applied */
	char *calib_path;	   /* the last overrides file applied, NULL if none
				    * (owned; its bytes enter a sweep's digest) */
	struct band_table *bands;  /* model error by regime (configs/calibration/bands.cfg),
				    * NULL when the data root has none (owned) */
	struct calibcfg_fit fit;   /* what the last overrides file's calibration from
				    * measurements taught (fit.present false: none) */
};

/* Find the data root when none is given, into buf (size n): $TS_DATA_DIR
 * when set (then it must hold configs/hardware/), else ../share/trainsim
 * next to the library's (or executable's) own file, else the source tree
 * the library was built from; the first that holds configs/hardware/.
 * Returns 0, or TS_EIO with `err` naming all three places. */
int env_find_root(char *buf, size_t n, struct ts_error *err);

/* Open the environment rooted at `root` (NULL: env_find_root): load the hardware catalog,
 * the storage catalog, the compute calibration and the model-error table
 * (optional: band_table_load). Returns 0, or the error
 * of the file that failed (TS_EIO, TS_ESYNTAX, ...) with `err` naming file,
 * line and key; *out is NULL on failure. Free with env_destroy. */
int env_open(const char *root, struct ts_env **out, struct ts_error *err);

/* Apply a calibration overrides file (as written by `trainsim calibrate`)
 * to the environment's compute constants and link efficiencies. Only before
 * the environment is shared; the path is kept (calib_path). Returns 0, the
 * file's error with `err`, or TS_ENOMEM. */
int env_apply_calib(struct ts_env *env, const char *path, struct ts_error *err);

/* Fill *env with an environment around hardware catalog cat and constants
 * calib that the caller keeps (cat is borrowed and must outlive env; calib
 * is copied): the storage catalog is read from cat's root (or "."). For
 * callers that hold a catalog and constants rather than an opened
 * environment; it has no model-error table (bands NULL), so runs in it
 * carry only their spread. Returns 0 or the storage catalog's error; release with
 * env_release (not env_destroy). */
int env_wrap(const struct hw_catalog *cat, const struct work_calib *calib, struct ts_env *env,
	     struct ts_error *err);

/* Release what env_wrap loaded (the storage catalog). */
void env_release(struct ts_env *env);

/* Free the environment (NULL is fine). */
void env_destroy(struct ts_env *env);

#endif
