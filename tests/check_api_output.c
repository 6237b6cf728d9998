/* The public output calls of trainsim.h, as a program on the library meets
 * them: outputs inside the bundled data refused, "-" as standard output, a
 * file replaced only on commit, and a sweep's results file resumed only with
 * the calibration that made its rows.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* access */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "trainsim.h"

static const char *dir; /* the test's scratch folder */

static void setup(void)
{
	dir = tu_scratch("check_api_output");
}

static void teardown(void)
{
	tu_scratch_remove();
}

static ts_env *env_open(void)
{
	ts_env *env = NULL;
	ck_assert_msg(ts_env_open(tu_root(), &env) == 0, "%s", ts_errmsg());
	return env;
}

/* An output inside the data root's models/ is refused before it exists; an
 * output that is an input is refused naming both; "-" is never refused. */
START_TEST(check_refuses_bundled_and_inputs)
{
	ts_env *env = env_open();
	char path[4096];
	snprintf(path, sizeof path, "%s/models/no-such-output.cfg", ts_env_root(env));
	struct ts_output_arg outs[] = {{"-o", path}};
	ck_assert_int_eq(ts_output_check(env, outs, 1, NULL, 0), TS_EUSAGE);
	ck_assert_ptr_nonnull(strstr(ts_errmsg(), "-o"));
	ck_assert_ptr_nonnull(strstr(ts_errmsg(), "models"));
	ck_assert_int_ne(access(path, F_OK), 0);

	tu_put("in.cfg", "x = 1;\n");
	struct ts_output_arg same[] = {{"--trace", tu_at("in.cfg")}};
	struct ts_output_arg ins[] = {{NULL, tu_at("in.cfg")}};
	ck_assert_int_eq(ts_output_check(env, same, 1, ins, 1), TS_EUSAGE);
	ck_assert_ptr_nonnull(strstr(ts_errmsg(), "--trace"));
	ck_assert_str_eq(tu_get("in.cfg"), "x = 1;\n");

	struct ts_output_arg dash[] = {{"-o", "-"}, {"--trace", tu_at("new.json")}};
	ck_assert_int_eq(ts_output_check(env, dash, 2, ins, 1), 0);
	ts_env_close(env);
}
END_TEST

/* An aborted output leaves the old file; a committed one replaces it; no
 * temporary file stays behind either way. */
START_TEST(check_commit_and_abort)
{
	tu_put("out.txt", "old\n");
	ts_output *o = NULL;
	ck_assert_int_eq(ts_output_open(tu_at("out.txt"), "-o", &o), 0);
	ck_assert_str_ne(ts_output_file(o), tu_at("out.txt"));
	fputs("half", ts_output_stream(o));
	ts_output_abort(o);
	ck_assert_str_eq(tu_get("out.txt"), "old\n");

	ck_assert_int_eq(ts_output_open(tu_at("out.txt"), "-o", &o), 0);
	fputs("new\n", ts_output_stream(o));
	ck_assert_int_eq(ts_output_commit(o), 0);
	ck_assert_str_eq(tu_get("out.txt"), "new\n");

	char cmd[160];
	snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = out.txt", dir);
	ck_assert_int_eq(system(cmd), 0);

	ck_assert_int_eq(ts_output_open("-", NULL, &o), 0);
	ck_assert_ptr_eq(ts_output_stream(o), stdout);
	ck_assert_ptr_null(ts_output_file(o));
	ck_assert_int_eq(ts_output_commit(o), 0);
	ck_assert_int_eq(ts_output_open("", "-o", &o), TS_EUSAGE);
	ck_assert_ptr_null(o);
}
END_TEST

/* A sweep's results file ends each row with its digest; after a full run a
 * resume has nothing left to do (first = both points); with a calibration
 * overrides file the digest differs and the resume is refused naming the
 * calibration. */
START_TEST(check_sweep_output_digest)
{
	tu_put("base.cfg", "model = \"gpt3-1.3b\";\ncluster = \"dgx-a100-80gb\";\nnodes = 1;\n"
			   "gpus_per_node = 8;\n"
			   "training = { global_batch = 64; micro_batch = 4; iterations = 2; };\n");
	tu_put("sw.cfg", "base = \"base.cfg\";\naxes = { nodes = [1, 2]; };\n");
	tu_put("cal.cfg", "gemm_k0 = { value = 0.6; };\n");
	ts_env *env = env_open();
	ts_sweep *sw = NULL;
	ck_assert_msg(ts_sweep_open(env, tu_at("sw.cfg"), &sw) == 0, "%s", ts_errmsg());
	ts_output *o = NULL;
	size_t first = 7;
	ck_assert_msg(ts_sweep_output_open(sw, tu_at("r.csv"), false, &o, &first) == 0, "%s",
		      ts_errmsg());
	ck_assert_uint_eq(first, 0);
	ck_assert_str_eq(ts_output_file(o), tu_at("r.csv"));
	ck_assert_int_eq(ts_sweep_run(sw, first, 1, ts_output_stream(o), NULL, NULL), 0);
	ck_assert_int_eq(ts_output_commit(o), 0);
	/* the header first (pandas reads it with its defaults), the digest last in
	 * every row */
	static char line[16384];
	FILE *f = fopen(tu_at("r.csv"), "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	ck_assert_int_eq(strncmp(line, "point,nodes,status,", 19), 0);
	ck_assert_str_eq(strrchr(line, ','), ",sweep_digest\n");
	for (int row = 0; row < 2; row++) {
		ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
		const char *c = strrchr(line, ',') + 1;
		ck_assert_msg(!strncmp(c, "base ", 5) && strstr(c, "; calibration ") &&
				  strstr(c, "; version "),
			      "%s", c);
	}
	ck_assert_ptr_null(fgets(line, sizeof line, f));
	fclose(f);

	ck_assert_int_eq(ts_sweep_output_open(sw, tu_at("r.csv"), true, &o, &first), 0);
	ck_assert_uint_eq(first, 2);
	ts_output_abort(o);
	ts_sweep_free(sw);
	ts_env_close(env);

	env = env_open();
	ck_assert_msg(ts_env_load_calibration(env, tu_at("cal.cfg")) == 0, "%s", ts_errmsg());
	ck_assert_int_eq(ts_sweep_open(env, tu_at("sw.cfg"), &sw), 0);
	ck_assert_int_eq(ts_sweep_output_open(sw, tu_at("r.csv"), true, &o, &first), TS_EINVALID);
	ck_assert_ptr_null(o);
	ck_assert_msg(strstr(ts_errmsg(), "the calibration") != NULL, "%s", ts_errmsg());
	ts_sweep_free(sw);
	ts_env_close(env);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api_output");
	TCase *tc = tu_tcase("output");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, check_refuses_bundled_and_inputs);
	tcase_add_test(tc, check_commit_and_abort);
	tcase_add_test(tc, check_sweep_output_digest);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
