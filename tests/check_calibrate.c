/* Calibration to one measurement (sim/sweep/calibrate.c): a measurement
 * equal to trainsim's own prediction returns the committed constants; a
 * prediction made with one constant changed brings that constant back;
 * only the most sensitive constant moves; bad and unreachable measurements.
 * Link efficiency from nccl-tests: a table trainsim wrote at a known
 * efficiency gives that efficiency back, in one node and across two.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "sweep/calibrate.h"
#include "testutil.h"

static struct hw_catalog *cat;
static struct work_calib committed;

/* A small model on one GPU: kernels are short, the host launching them
 * sets the pace (launch_s dominates). */
#define LAUNCH_BOUND                                                                               \
	"model = { base = \"gpt3-1.3b\"; layers = 4; hidden = 512; heads = 8; };\n"                \
	"cluster = \"dgx-a100-80gb\"; nodes = 1; gpus_per_node = 1;\n"                             \
	"training = { global_batch = 4; micro_batch = 1; seq_len = 512; };\n"
/* GPT-3 1.3B on one GPU: large GEMMs, only K0 of the candidates matters. */
#define GEMM_BOUND                                                                                 \
	"model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1; gpus_per_node = 1;\n"      \
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
 * launch_s x 1.3 as the measurement brings launch_s x 1.3 back (to 1e-5: the
 * search stops when the time matches, in whole nanoseconds, to 1e-8, and a
 * few microseconds of the step are not host-bound),
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
	ck_assert(tu_relerr(fit.calib.launch_s, slow.launch_s) < 1e-5);
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

/* Write an all_reduce_perf table of `gpus` ranks from 1 MiB to 8 GiB (x2),
 * busbw predicted by trainsim for scenario file `scen` with link type
 * `link` at efficiency eff, as nccl-tests prints it (13 fields, GB/s with
 * 4 decimals), to a temporary file; its path into out. */
static void synth(const char *scen, const char *link, double eff, uint32_t gpus, char *out,
		  size_t n)
{
	struct ts_error e;
	struct ts_scenario *s = NULL;
	int k = hw_catalog_find_link(cat, link);
	ck_assert_int_ge(k, 0);
	double keep = hw_catalog_link(cat, (size_t)k)->efficiency;
	ck_assert_int_eq(hw_catalog_set_link_efficiency(cat, (size_t)k, eff), 0);
	ck_assert_int_eq(ts_scenario_load(cat, scen, NULL, 0, &s, &e), 0);
	snprintf(out, n, "/tmp/check_nccl_XXXXXX");
	int fd = mkstemp(out);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 8589934592 step: 2(factor)\n");
	for (uint32_t r = 0; r < gpus; r++)
		fprintf(f,
			"#  Rank %2u Group  0 Pid  4242 on node%u device  %u [0x07] "
			"NVIDIA A100-SXM4-80GB\n",
			r, r / 8, r % 8);
	fprintf(f, "#       size         count      type   redop    root     time   algbw   "
		   "busbw #wrong     time   algbw   busbw #wrong\n");
	for (double b = 1048576.0; b <= 8589934592.0; b *= 2.0) {
		double bus;
		ck_assert_int_eq(calib_coll_busbw(s, gpus, b, &bus, &e), 0);
		double alg = bus / (2.0 * (gpus - 1) / gpus), us = b / alg * 1e6;
		fprintf(f,
			"%12.0f %12.0f     float     sum      -1 %8.2f %7.4f %7.4f      0 "
			"%8.2f %7.4f %7.4f      0\n",
			b, b / 4.0, us, alg / 1e9, bus / 1e9, us, alg / 1e9, bus / 1e9);
	}
	fprintf(f, "# Avg bus bandwidth    : 0\n");
	ck_assert_int_eq(fclose(f), 0);
	ts_scenario_destroy(s);
	ck_assert_int_eq(hw_catalog_set_link_efficiency(cat, (size_t)k, keep), 0);
}

static void fit_back(const char *text, const char *link, double eff, uint32_t gpus)
{
	char scen[64], table[64];
	tu_tmpfile("check_nccl_scen", text, scen, sizeof scen);
	synth(scen, link, eff, gpus, table, sizeof table);
	struct nccl_table t;
	struct calib_link_fit fit;
	struct ts_error e;
	ck_assert_int_eq(nccltests_read(table, &t, &e), 0);
	ck_assert_uint_eq(t.nranks, gpus);
	ck_assert_uint_eq(t.n, 14);
	double before = hw_catalog_link(cat, (size_t)hw_catalog_find_link(cat, link))->efficiency;
	ck_assert_int_eq(calib_fit_nccl(cat, scen, NULL, 0, &t, &fit, &e), 0);
	ck_assert_str_eq(fit.link, link);
	ck_assert_uint_eq(fit.gpus, gpus);
	ck_assert_double_eq_tol(fit.from_bytes, 1073741824.0, 0.5); /* 8 GiB / 8 */
	ck_assert(!fit.at_bound);
	/* busbw printed to 1e-4 GB/s of some 10-200 GB/s: 1e-5 relative */
	ck_assert_double_eq_tol(fit.fitted_eff, eff, 1e-4);
	ck_assert_double_eq_tol(fit.after_Bps / fit.measured_Bps, 1.0, 1e-5);
	/* the catalog is left as it was */
	ck_assert_double_eq_tol(
	    hw_catalog_link(cat, (size_t)hw_catalog_find_link(cat, link))->efficiency, before,
	    1e-15);
	nccltests_free(&t);
	unlink(table);
	unlink(scen);
}

START_TEST(test_nccl_nvlink)
{
	fit_back("model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n", "nvlink3", 0.55, 8);
}
END_TEST

START_TEST(test_nccl_nic)
{
	fit_back("model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n", "ib-hdr", 0.6,
		 16);
}
END_TEST

START_TEST(test_nccl_bad_row)
{
	char path[64];
	tu_tmpfile("check_nccl_bad", "# size count type\n  1048576 262144 float sum -1 12.0\n",
		   path, sizeof path);
	struct nccl_table t;
	struct ts_error e;
	ck_assert_int_eq(nccltests_read(path, &t, &e), TS_ESYNTAX);
	char line[1400];
	ts_error_format(&e, line, sizeof line);
	ck_assert_msg(strstr(line, ":2") && strstr(line, "found 6 fields"), "%s", line);
	ck_assert_ptr_null(t.rows);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calibrate");
	TCase *tc = tu_tcase("calibrate");
	tu_hw_fixture(tc, &cat, &committed);
	tcase_add_test(tc, test_own_prediction);
	tcase_add_test(tc, test_recovers_launch);
	tcase_add_test(tc, test_recovers_k0);
	tcase_add_test(tc, test_unreachable);
	tcase_add_test(tc, test_nccl_nvlink);
	tcase_add_test(tc, test_nccl_nic);
	tcase_add_test(tc, test_nccl_bad_row);
	suite_add_tcase(s, tc);
	return tu_run(s) ? 1 : 0;
}
