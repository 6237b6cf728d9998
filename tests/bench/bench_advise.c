/* Benchmark: trainsim advise on examples/what-to-buy (Llama-2-13B on 1T
 * tokens, deadline 30 days, rent and buy, the bundled catalog) on one
 * thread: options and layouts simulated per second, in wall and CPU time.
 * TS_BENCH_ADVISE_FULL=1 also times --full-search (every option searched at
 * its own size: minutes).
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "trainsim.h"

static int one(ts_env *env, const char *path, bool full)
{
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return 1;
	ts_advise_opts o = {.deadline_s = 30.0 * 86400.0,
			    .mode = TS_ADVISE_BOTH,
			    .format = TS_FORMAT_CSV,
			    .full_search = full};
	ts_advise_stats st;
	double w0 = bench_wall_s(), c0 = bench_cpu_s();
	int rc = ts_advise_run(env, path, NULL, 0, &o, null, &st);
	double w = bench_wall_s() - w0, c = bench_cpu_s() - c0;
	fclose(null);
	if (rc) {
		fprintf(stderr, "bench_advise: %s\n", ts_errmsg());
		return 1;
	}
	printf("advise %s (%s): %zu options (%zu fit), %zu searches, %zu layouts simulated "
	       "in %.2f s wall, %.2f s CPU: %.2f options/s and %.1f layouts/s of CPU\n",
	       path, full ? "--full-search" : "layouts carried over", st.options, st.evaluated,
	       st.searches, st.simulated, w, c, c > 0.0 ? (double)st.options / c : 0.0,
	       c > 0.0 ? (double)st.simulated / c : 0.0);
	return 0;
}

int main(void)
{
	const char *root = getenv("TS_SOURCE_DIR") ? getenv("TS_SOURCE_DIR") : TS_SOURCE_DIR;
	ts_env *env = NULL;
	if (ts_env_open(root, &env)) {
		fprintf(stderr, "bench_advise: %s\n", ts_errmsg());
		return 1;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/examples/what-to-buy/scenario.cfg", root);
	int rc = one(env, path, false);
	const char *full = getenv("TS_BENCH_ADVISE_FULL");
	if (!rc && full && !strcmp(full, "1"))
		rc = one(env, path, true);
	ts_env_close(env);
	return rc;
}
