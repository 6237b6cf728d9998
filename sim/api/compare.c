/* ts_compare_write: the results compared by run/compare, written by
 * report/compare.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "report/compare.h"
#include "run/compare.h"

int ts_compare_write(const ts_result *const *rs, size_t np, enum ts_format format, FILE *out)
{
	if (np < 2)
		return api_failf(TS_EUSAGE, NULL, "found %zu scenario%s, expected at least two", np,
				 np == 1 ? "" : "s");
	const json_t **scen = ts_calloc(np, sizeof *scen);
	const char **files = ts_calloc(np, sizeof *files);
	struct compare *c = NULL;
	int rc = 0;
	if (!scen || !files || compare_make(rs, np, &c)) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < np; k++) {
		scen[k] = api_result_scenario(rs[k]);
		files[k] = api_result_file(rs[k]);
	}
	struct ts_error err;
	ts_error_clear(&err);
	if (report_compare_write(c, rs, scen, files, format, out, &err))
		rc = api_fail(&err);
out:
	compare_destroy(c);
	ts_free(scen, np * sizeof *scen);
	ts_free(files, np * sizeof *files);
	return rc;
}
