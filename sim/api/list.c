/* ts_list_write and ts_list_entry_write: the kind and name checked, then
 * the catalog's table written by report/list.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "api/api_int.h"
#include "report/list.h"

int ts_list_write(const ts_env *env, const char *kind, enum ts_format format, FILE *out)
{
	static const char *const kinds[] = {"gpus",	"links",   "clusters", "models",
					    "datasets", "storage", "scenarios"};
	if (!list_kind_known(kind)) {
		char near[160];
		near[0] = '\0';
		if (kind)
			ts_suggest(kind, kinds, sizeof kinds / sizeof kinds[0], 1, near,
				   sizeof near);
		return api_failf(TS_EUSAGE, NULL,
				 "found %s%s%s, expected gpus, links, clusters, models, "
				 "datasets, storage or scenarios%s%s",
				 kind ? "\"" : "no kind", kind ? kind : "", kind ? "\"" : "",
				 near[0] ? "; did you mean " : "", near);
	}
	struct ts_error err;
	ts_error_clear(&err);
	return list_write(env, kind, format, out, &err) ? api_fail(&err) : 0;
}

int ts_list_entry_write(const ts_env *env, const char *kind, const char *name,
			enum ts_format format, FILE *out)
{
	if (!list_kind_known(kind) || !name || !*name)
		return api_failf(TS_EUSAGE, NULL,
				 "found %s%s%s, expected gpus, links, storage, clusters, models, "
				 "datasets or scenarios and a name",
				 kind ? "\"" : "no kind", kind ? kind : "", kind ? "\"" : "");
	struct ts_error err;
	ts_error_clear(&err);
	return list_entry_write(env, kind, name, format, out, &err) ? api_fail(&err) : 0;
}
