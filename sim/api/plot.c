/* ts_plot_prepare: the chart's data written by report/plot from the data
 * root's scripts.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "api/api_int.h"
#include "plan/env.h"
#include "report/plot.h"

int ts_plot_prepare(const ts_env *env, const char *kind, const char *csv_path,
		    const ts_plot_opts *o, FILE *data, FILE *settings, char *script, size_t n)
{
	struct ts_error err;
	ts_error_clear(&err);
	if (plot_prepare(env->root, kind, csv_path, o, data, settings, script, n, &err))
		return api_fail(&err);
	return 0;
}

int ts_plot_data(const ts_env *env, const char *kind, const char *csv_path, FILE *data,
		 char *script, size_t n)
{
	return ts_plot_prepare(env, kind, csv_path, NULL, data, NULL, script, n);
}
