/* The environment: the data root's catalogs, opened once.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "io/calibcfg.h"
#include "plan/env.h"

int env_open(const char *root, struct ts_env **out, struct ts_error *err)
{
	int rc;
	*out = NULL;
	if (!root) {
		const char *e = getenv("TS_DATA_DIR");
		root = e && *e ? e : TS_SOURCE_DIR;
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
	*out = env;
	return 0;
fail:
	env_destroy(env);
	return rc;
}

int env_apply_calib(struct ts_env *env, const char *path, struct ts_error *err)
{
	return calibcfg_apply(path, env->cat, &env->calib, err);
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
	ts_free(env, sizeof *env);
}
