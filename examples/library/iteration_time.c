/* The iteration time of one scenario through libtrainsim's public API:
 *
 *   cc iteration_time.c $(pkg-config --cflags --libs trainsim) -o iteration_time
 *   ./iteration_time SCENARIO.cfg        # prints seconds, e.g. 0.853613209
 *
 * Exit codes: 0 ok, 1 usage, 2 the library's error (printed on stderr).
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

#include <trainsim.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SCENARIO.cfg\n", argv[0]);
		return 1;
	}
	ts_env *env = NULL;	/* data root: TS_DATA_DIR, else next to the library */
	ts_scenario *sc = NULL; /* the scenario file, no overrides */
	ts_plan *plan = NULL;
	ts_result *res = NULL;
	int rc = ts_env_open(NULL, &env);
	if (!rc)
		rc = ts_scenario_load_file(env, argv[1], NULL, 0, &sc);
	if (!rc)
		rc = ts_plan_build(env, sc, &plan);
	if (!rc)
		rc = ts_plan_simulate(plan, NULL, &res);
	if (rc)
		fprintf(stderr, "%s: %s (%s)\n", argv[0], ts_errmsg(), ts_strerror(rc));
	else
		printf("%.9g\n", ts_result_iteration_time_s(res));
	ts_result_free(res);
	ts_plan_free(plan);
	ts_scenario_free(sc);
	ts_env_close(env);
	return rc ? 2 : 0;
}
