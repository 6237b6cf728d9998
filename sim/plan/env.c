/* The environment: the data root's catalogs, opened once.
 *
 * The data root, when the caller names none: $TS_DATA_DIR when set (a user
 * who sets it means it), else ../share/trainsim next to the file this code
 * was loaded from (libtrainsim.so, or the executable it is linked into:
 * dladdr on a function of this file), else the source tree the library was
 * built from. A directory counts when it holds configs/hardware/.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "io/calibcfg.h"
#include "plan/env.h"

/* Whether dir holds the hardware catalog. */
static bool is_data_root(const char *dir)
{
	char p[PATH_MAX + 32];
	struct stat st;
	snprintf(p, sizeof p, "%s/configs/hardware", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ../share/trainsim next to the file that holds this code, into buf;
 * "" when that file cannot be known. */
static void installed_root(char *buf, size_t n)
{
	Dl_info info;
	char real[PATH_MAX];
	buf[0] = '\0';
	if (!dladdr((void *)(uintptr_t)env_open, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, real))
		return;
	char *slash = strrchr(real, '/'); /* the file's directory (bin/ or lib/) */
	if (!slash)
		return;
	*slash = '\0';
	slash = strrchr(real, '/'); /* its parent: the prefix */
	if (slash)
		*slash = '\0';
	snprintf(buf, n, "%s/share/trainsim", slash == real ? "" : real);
}

int env_find_root(char *buf, size_t n, struct ts_error *err)
{
	const char *e = getenv("TS_DATA_DIR");
	char inst[PATH_MAX + 32];
	installed_root(inst, sizeof inst);
	if (e && *e) {
		if (is_data_root(e)) {
			snprintf(buf, n, "%s", e);
			return 0;
		}
	} else if (inst[0] && is_data_root(inst)) {
		snprintf(buf, n, "%s", inst);
		return 0;
	} else if (is_data_root(TS_SOURCE_DIR)) {
		snprintf(buf, n, "%s", TS_SOURCE_DIR);
		return 0;
	}
	return ts_error_set(err, TS_EIO, NULL, 0, "data directory",
			    "cannot open the hardware catalog directory: found no "
			    "configs/hardware in %s%s (searched first when set), in %s (next "
			    "to the library) or in %s (the source tree), expected one of them "
			    "to hold configs/ and models/ (set TS_DATA_DIR to such a directory)",
			    e && *e ? "TS_DATA_DIR=" : "", e && *e ? e : "TS_DATA_DIR (not set)",
			    inst[0] ? inst : "../share/trainsim", TS_SOURCE_DIR);
}

int env_open(const char *root, struct ts_env **out, struct ts_error *err)
{
	int rc;
	char found[PATH_MAX + 32];
	*out = NULL;
	if (!root) {
		if ((rc = env_find_root(found, sizeof found, err)))
			return rc;
		root = found;
	}
	struct ts_env *env = ts_calloc(1, sizeof *env);
	if (!env || !(env->root = ts_strdup(root))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto fail;
	}
	if ((rc = hw_catalog_load(env->root, &env->cat, err)))
		goto fail;
	if ((rc = data_catalog_load(env->root, &env->data, err)))
		goto fail;
	if ((rc = work_calib_load(env->root, &env->calib, err)))
		goto fail;
	bool have_bands = false;
	if (!(env->bands = ts_calloc(1, sizeof *env->bands))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto fail;
	}
	if ((rc = band_table_load(env->root, env->bands, &have_bands, err)))
		goto fail;
	if (!have_bands) {
		ts_free(env->bands, sizeof *env->bands);
		env->bands = NULL;
	}
	*out = env;
	return 0;
fail:
	env_destroy(env);
	return rc;
}

int env_apply_calib(struct ts_env *env, const char *path, struct ts_error *err)
{
	int rc = calibcfg_apply(path, env->cat, &env->calib, &env->fit, err);
	if (rc)
		return rc;
	char *copy = ts_strdup(path);
	if (!copy)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	if (env->calib_path)
		ts_free(env->calib_path, strlen(env->calib_path) + 1);
	env->calib_path = copy;
	return 0;
}

int env_wrap(const struct hw_catalog *cat, const struct work_calib *calib, struct ts_env *env,
	     struct ts_error *err)
{
	const char *root = hw_catalog_root(cat);
	/* read-only: the casts only fit struct ts_env's owning fields, which
	 * env_release leaves alone */
	*env = (struct ts_env){
	    .root = (char *)(root ? root : "."), .cat = (struct hw_catalog *)cat, .calib = *calib};
	return data_catalog_load(env->root, &env->data, err);
}

void env_release(struct ts_env *env)
{
	data_catalog_destroy(env->data);
	env->data = NULL;
}

void env_destroy(struct ts_env *env)
{
	if (!env)
		return;
	hw_catalog_destroy(env->cat);
	data_catalog_destroy(env->data);
	if (env->root)
		ts_free(env->root, strlen(env->root) + 1);
	if (env->calib_path)
		ts_free(env->calib_path, strlen(env->calib_path) + 1);
	if (env->bands)
		ts_free(env->bands, sizeof *env->bands);
	ts_free(env, sizeof *env);
}
