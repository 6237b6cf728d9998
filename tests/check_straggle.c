/* Stragglers: the expected maximum of n standard normals against its closed
 * forms and published values, and the mean slowdown of a synchronous job of
 * n GPUs growing with n.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "testutil.h"
#include "work/compute.h"
#include "work/straggle.h"

static struct hw_catalog *cat;
static struct work_calib calib;

/* Closed forms: E[max of 2] = 1/sqrt(pi), E[max of 3] = 3/(2 sqrt(pi))
 * (the maximum of two is |Z1 - Z2|/2 plus the mean; David and Nagaraja,
 * Order Statistics, 3rd ed., 2003, section 3.2). Larger n: the expected
 * largest of n normals as tabulated by Harter (1961, "Expected values of
 * normal order statistics", Biometrika 48): n = 5: 1.16296, n = 10:
 * 1.53875, n = 100: 2.50759, n = 1000: 3.24144. */
START_TEST(expected_max_known_values)
{
	ck_assert(straggle_expected_max(0) == 0.0);
	ck_assert(straggle_expected_max(1) == 0.0);
	struct {
		uint64_t n;
		double want, tol;
	} cs[] = {
	    {2, 0.56418958354775628, 1e-9}, /* 1/sqrt(pi) */
	    {3, 0.84628437532163443, 1e-9}, /* 3/(2 sqrt(pi)) */
	    {5, 1.16296, 1e-5},
	    {10, 1.53875, 1e-5},
	    {100, 2.50759, 1e-5},
	    {1000, 3.24144, 1e-5},
	};
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		double e = straggle_expected_max(cs[i].n);
		ck_assert_msg(fabs(e - cs[i].want) < cs[i].tol, "n = %llu: %.9f, want %.9f",
			      (unsigned long long)cs[i].n, e, cs[i].want);
	}
}
END_TEST

/* The slowdown grows with the job's GPU count, slower and slower (about
 * sigma sqrt(2 ln n)), and is sigma x E[max] exactly: one GPU loses
 * nothing, one DGX (8) 1.42 sigma, 16,384 GPUs (Llama 3 405B) 3.97 sigma,
 * below sigma sqrt(2 ln n) = 4.4 sigma. No sigma, no slowdown. */
START_TEST(slowdown_grows_with_gpus)
{
	ck_assert(straggle_slowdown(1, STRAGGLE_SIGMA) == 0.0);
	ck_assert(straggle_slowdown(16384, 0.0) == 0.0);
	double prev = 0.0, prev_step = INFINITY;
	for (uint64_t n = 2; n <= 65536; n *= 2) {
		double s = straggle_slowdown(n, 0.01);
		ck_assert(s == 0.01 * straggle_expected_max(n));
		ck_assert_msg(s > prev, "n = %llu: %.6f after %.6f", (unsigned long long)n, s,
			      prev);
		ck_assert_msg(s - prev < prev_step || n == 2, "n = %llu: steps must shrink",
			      (unsigned long long)n);
		ck_assert(s < 0.01 * sqrt(2.0 * log((double)n)));
		prev_step = s - prev;
		prev = s;
	}
	ck_assert(fabs(straggle_expected_max(8) - 1.4236) < 1e-4);
	double big = straggle_expected_max(16384);
	ck_assert_msg(big > 3.8 && big < 4.0, "%.4f", big);
}
END_TEST

static double run_sd(const char *set, struct ts_result *r)
{
	char path[1024];
	struct ts_scenario *sc;
	struct ts_error e;
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", tu_root());
	const char *sets[] = {set};
	ck_assert_msg(ts_scenario_load(cat, path, sets, set ? 1 : 0, &sc, &e) == 0, "%s", e.msg);
	ck_assert_msg(ts_run(sc, &calib, r, NULL, &e) == 0, "%s", e.msg);
	ts_scenario_destroy(sc);
	return r->compute_s;
}

/* sim.straggler_sd through a whole run: the bundled scenario (8 GPUs, pure
 * DP) computes 1 + sd x E[max of 8] = 1 + 1.4236 sd times as long as with
 * every GPU at the median (sd = 0), each task rounded up to a nanosecond;
 * the default is STRAGGLE_SIGMA; a spread beyond 0.5 is refused naming the
 * key. */
START_TEST(scenario_key)
{
	struct ts_result r0, r1, rd;
	double c0 = run_sd("sim.straggler_sd=0", &r0);
	double c1 = run_sd("sim.straggler_sd=0.05", &r1);
	double cd = run_sd(NULL, &rd);
	double k = straggle_expected_max(8);
	ck_assert_msg(fabs(c1 / c0 - (1.0 + 0.05 * k)) < 1e-6, "%.9f", c1 / c0);
	ck_assert_msg(fabs(cd / c0 - (1.0 + STRAGGLE_SIGMA * k)) < 1e-6, "%.9f", cd / c0);
	ck_assert(r1.iteration_time_s > rd.iteration_time_s &&
		  rd.iteration_time_s > r0.iteration_time_s);
	char path[1024];
	struct ts_scenario *sc = NULL;
	struct ts_error e;
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", tu_root());
	const char *bad[] = {"sim.straggler_sd=0.7"};
	ck_assert_int_eq(ts_scenario_load(cat, path, bad, 1, &sc, &e), TS_ERANGE);
	char buf[1400];
	ts_error_format(&e, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "sim.straggler_sd") && strstr(buf, "0.5"), "%s", buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("straggle");
	TCase *tc = tu_tcase("straggle");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, expected_max_known_values);
	tcase_add_test(tc, slowdown_grows_with_gpus);
	tcase_add_test(tc, scenario_key);
	suite_add_tcase(s, tc);
	return tu_run(s) ? 1 : 0;
}
