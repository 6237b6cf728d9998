/* Calibration to one measurement (sim/sweep/calibrate.c): a measurement
 * equal to trainsim's own prediction returns the committed constants; a
 * prediction made with one constant changed brings that constant back;
 * only the most sensitive constant moves; bad and unreachable measurements.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <string.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "sweep/calibrate.h"
#include "testutil.h"

static struct hw_catalog *cat;
static struct work_calib committed;

static void setup(void)
{
	struct ts_error err;
	ck_assert_int_eq(hw_catalog_load(tu_root(), &cat, &err), 0);
	ck_assert_int_eq(work_calib_load(tu_root(), &committed, &err), 0);
}

static void teardown(void) { hw_catalog_destroy(cat); }

/* A small model on one GPU: kernels are short, the host launching them
 * sets the pace (launch_s dominates). */
#define LAUNCH_BOUND                                                                               \
	"model = { base = \"gpt3-1.3b\"; layers = 4; hidden = 512; heads = 8; };\n"               \
	"cluster = \"dgx-a100-80gb\"; nodes = 1; gpus_per_node = 1;\n"                            \
	"training = { global_batch = 4; micro_batch = 1; seq_len = 512; };\n"
/* GPT-3 1.3B on one GPU: large GEMMs, only K0 of the candidates matters. */
#define GEMM_BOUND                                                                                 \
	"model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1; gpus_per_node = 1;\n"     \
	"training = { global_batch = 4; micro_batch = 4; seq_len = 2048; };\n"

static struct ts_scenario *load(const char *text)
{
	struct ts_scenario *s = NULL;
	struct ts_error e;
	int rc = ts_scenario_load_string(cat, text, "c.cfg", NULL, 0, &s, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	return s;
}

static double predict(const struct ts_scenario *s, const struct work_calib *c)
{
	struct ts_result r;
	struct ts_error e;
	ck_assert_int_eq(ts_run(s, c, &r, NULL, &e), 0);
	return r.iteration_time_s;
}

/* Calibrating on trainsim's own prediction returns the committed constants
 * bit for bit (the residual is zero at the start). */
START_TEST(test_own_prediction)
{
	const char *texts[] = {LAUNCH_BOUND, GEMM_BOUND};
	for (size_t k = 0; k < 2; k++) {
		struct ts_scenario *s = load(texts[k]);
		struct calib_fit fit;
		struct ts_error e;
		double t = predict(s, &committed);
		ck_assert_int_eq(calib_fit_iteration(s, &committed, t, &fit, &e), 0);
		ck_assert(memcmp(&fit.calib, &committed, sizeof committed) == 0);
		ck_assert_double_eq_tol(fit.after_s, t, 1e-15);
		ck_assert(!fit.at_bound);
		ts_scenario_destroy(s);
	}
}
END_TEST

/* A launch-bound job measured 30 % slower per launch: the prediction with
 * launch_s x 1.3 as the measurement brings launch_s x 1.3 back (to 1e-6),
 * and K0 stays committed. */
START_TEST(test_recovers_launch)
{
	struct ts_scenario *s = load(LAUNCH_BOUND);
	struct work_calib slow = committed;
	slow.launch_s *= 1.3;
	double meas = predict(s, &slow);
	struct calib_fit fit;
	struct ts_error e;
	ck_assert_int_eq(calib_fit_iteration(s, &committed, meas, &fit, &e), 0);
	ck_assert_uint_eq(fit.key, calib_key(1));
	/* host-bound: T proportional to launch_s, elasticity 1 (to 2 %) */
	ck_assert_double_eq_tol(fit.elasticity[1], 1.0, 0.02);
	ck_assert(fit.elasticity[0] < fit.elasticity[1]);
	ck_assert(tu_relerr(fit.calib.launch_s, slow.launch_s) < 1e-6);
	ck_assert(fit.calib.gemm_k0 == committed.gemm_k0);
	ck_assert(tu_relerr(fit.after_s, meas) < 1e-8);
	ts_scenario_destroy(s);
}
END_TEST

/* A GEMM-bound job: the host is ahead, launch_s does not matter
 * (elasticity 0), K0 is fitted; a prediction with K0 x 2 brings K0 x 2
 * back to 1e-6 and launch_s stays committed. */
START_TEST(test_recovers_k0)
{
	struct ts_scenario *s = load(GEMM_BOUND);
	struct work_calib slow = committed;
	slow.gemm_k0 *= 2.0;
	double meas = predict(s, &slow);
	struct calib_fit fit;
	struct ts_error e;
	ck_assert_int_eq(calib_fit_iteration(s, &committed, meas, &fit, &e), 0);
	ck_assert_uint_eq(fit.key, calib_key(0));
	ck_assert(fit.elasticity[0] > 0.0);
	ck_assert_double_eq_tol(fit.elasticity[1], 0.0, 1e-6);
	ck_assert(tu_relerr(fit.calib.gemm_k0, slow.gemm_k0) < 1e-6);
	ck_assert(fit.calib.launch_s == committed.launch_s);
	ts_scenario_destroy(s);
}
END_TEST

/* 100 times slower than predicted is beyond launch_s x 64: the fit stops
 * at the bound and says so. */
START_TEST(test_unreachable)
{
	struct ts_scenario *s = load(LAUNCH_BOUND);
	struct calib_fit fit;
	struct ts_error e;
	double t = predict(s, &committed);
	ck_assert_int_eq(calib_fit_iteration(s, &committed, 100.0 * t, &fit, &e), 0);
	ck_assert(fit.at_bound);
	ck_assert(tu_relerr(fit.calib.launch_s, committed.launch_s * CALIB_RANGE) < 1e-12);
	ck_assert_int_eq(calib_fit_iteration(s, &committed, -1.0, &fit, &e), TS_ERANGE);
	ck_assert(strstr(e.msg, "positive") != NULL);
	ts_scenario_destroy(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calibrate");
	TCase *tc = tcase_create("calibrate");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_own_prediction);
	tcase_add_test(tc, test_recovers_launch);
	tcase_add_test(tc, test_recovers_k0);
	tcase_add_test(tc, test_unreachable);
	suite_add_tcase(s, tc);
	return tu_run(s) ? 1 : 0;
}
