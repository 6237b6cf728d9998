/* The reported 80 % band (sim/run/band.c): the combination of a spread with
 * a model error, computed by hand; regime keys and the fallback to coarser
 * regimes; leave-one-source-out tables; coverage; the memory verdict from
 * the memory band; the bands.cfg reader, its errors, and the committed
 * table.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "run/band.h"
#include "testutil.h"

START_TEST(combine_by_hand)
{
	/* a point spread and err80 = ln 1.2: the band is p50/1.2 .. p50*1.2 */
	struct ts_band b = band_combine((struct ts_band){10.0, 10.0, 10.0}, log(1.2));
	ck_assert(tu_relerr(b.p10, 10.0 / 1.2) < 1e-12);
	ck_assert(tu_relerr(b.p50, 10.0) < 1e-12);
	ck_assert(tu_relerr(b.p90, 12.0) < 1e-12);
	/* a spread of ln 1.2 either side and the same model error: the
	 * half-widths add in quadrature, ln 1.2 x sqrt 2 */
	b = band_combine((struct ts_band){10.0 / 1.2, 10.0, 12.0}, log(1.2));
	ck_assert(tu_relerr(b.p90, 10.0 * exp(sqrt(2.0) * log(1.2))) < 1e-12);
	ck_assert(tu_relerr(b.p10, 10.0 * exp(-sqrt(2.0) * log(1.2))) < 1e-12);
	/* an asymmetric spread keeps its p50 as the centre: no bias shift */
	b = band_combine((struct ts_band){9.0, 10.0, 14.0}, 0.0);
	ck_assert(tu_relerr(b.p50, 10.0) < 1e-12);
	ck_assert(tu_relerr(b.p90, 10.0 * exp(0.5 * log(14.0 / 9.0))) < 1e-12);
	/* a figure not computed (0) keeps its spread */
	b = band_combine((struct ts_band){0.0, 0.0, 0.0}, 0.3);
	ck_assert(b.p10 == 0.0 && b.p90 == 0.0);
}
END_TEST

START_TEST(apply_reciprocal_and_memory)
{
	struct ts_result r;
	memset(&r, 0, sizeof r);
	r.spread.iteration_time_s = (struct ts_band){2.0, 2.0, 2.0};
	r.spread.samples_per_s = (struct ts_band){50.0, 50.0, 50.0};
	r.spread.memory_per_gpu_bytes = (struct ts_band){100.0, 100.0, 100.0};
	struct band_regime rg = {.key = "A/single/megatron", .rows = 20, .err80 = log(1.25)};
	band_apply(&r, &rg, log(1.1));
	/* time 2 s +-25 % in log; throughput the reciprocal: 50 / 1.25 .. 50 x 1.25 */
	ck_assert(tu_relerr(r.band.iteration_time_s.p90, 2.5) < 1e-12);
	ck_assert(tu_relerr(r.band.samples_per_s.p10, 40.0) < 1e-12);
	ck_assert(tu_relerr(r.band.samples_per_s.p10 * r.band.iteration_time_s.p90, 100.0) < 1e-12);
	ck_assert(tu_relerr(r.band.memory_per_gpu_bytes.p90, 110.0) < 1e-12);
	ck_assert_str_eq(r.band_regime, "A/single/megatron");
	/* no table: the band is the spread */
	band_apply(&r, NULL, 0.0);
	ck_assert(r.band.iteration_time_s.p90 == 2.0);
	ck_assert_str_eq(r.band_regime, "none");
}
END_TEST

START_TEST(memory_verdict)
{
	/* need 100, band 100/1.1 .. 110 */
	struct ts_band m = {100.0 / 1.1, 100.0, 110.0};
	ck_assert_str_eq(band_memory_verdict(m, 100.0, 120.0), "fits");
	ck_assert_str_eq(band_memory_verdict(m, 100.0, 105.0), "tight");
	ck_assert_str_eq(band_memory_verdict(m, 100.0, 100.0), "tight");
	/* needing more than capacity never fits, inside the band or not: a
	 * result's `fits` (need <= capacity) agrees with the verdict */
	ck_assert_str_eq(band_memory_verdict(m, 100.0, 95.0), "does not fit");
	ck_assert_str_eq(band_memory_verdict(m, 100.0, 80.0), "does not fit");
}
END_TEST

START_TEST(regime_keys)
{
	char k[BAND_KEY_MAX];
	band_regime_key(k, sizeof k, 0, "A100-SXM4-80GB", 1, WORK_FW_DEEPSPEED);
	ck_assert_str_eq(k, "A/single/megatron");
	band_regime_key(k, sizeof k, 0, "H100-SXM5-80GB", 6, WORK_FW_FSDP);
	ck_assert_str_eq(k, "H/multi/fsdp");
	band_regime_key(k, sizeof k, 1, "H100-SXM5-80GB", 6, WORK_FW_FSDP);
	ck_assert_str_eq(k, "*/multi/fsdp");
	band_regime_key(k, sizeof k, 2, "H100-SXM5-80GB", 6, WORK_FW_DDP);
	ck_assert_str_eq(k, "*/*/ddp");
	band_regime_key(k, sizeof k, 3, "H100-SXM5-80GB", 6, WORK_FW_DDP);
	ck_assert_str_eq(k, "*/*/*");
}
END_TEST

/* n residuals of source src on an A100 in one node under Megatron, the
 * i-th of value r0 x (i + 1). */
static void fill(struct band_resid *res, size_t n, const char *src, uint32_t nodes,
		 enum work_framework fw, double r0)
{
	for (size_t i = 0; i < n; i++) {
		for (int l = 0; l < BAND_LEVELS; l++)
			band_regime_key(res[i].key[l], BAND_KEY_MAX, l, "A100", nodes, fw);
		res[i].source = src;
		res[i].r = r0 * (double)(i + 1);
	}
}

START_TEST(table_fallback_and_loso)
{
	struct band_resid res[30];
	/* 10 single-node Megatron rows of source a: |r| 0.01..0.10; 5 of
	 * source b on FSDP (too few for a regime of their own); 15 multi-node
	 * Megatron rows of source c: 0.02..0.30 */
	fill(res, 10, "a", 1, WORK_FW_MEGATRON, 0.01);
	fill(res + 10, 5, "b", 1, WORK_FW_FSDP, -0.1);
	fill(res + 15, 15, "c", 4, WORK_FW_MEGATRON, 0.02);
	struct band_table t;
	struct ts_error e;
	ck_assert_int_eq(band_table_build(res, 30, NULL, &t, &e), 0);
	const struct band_regime *g = band_lookup(&t, "A100", 1, WORK_FW_MEGATRON);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->key, "A/single/megatron");
	ck_assert_uint_eq(g->rows, 10);
	/* 80th percentile of 0.01..0.10 (GSL: 0.01 + 0.8 x 9 x 0.01) */
	ck_assert(fabs(g->err80 - 0.082) < 1e-12);
	ck_assert(fabs(g->bias - 0.055) < 1e-12);
	ck_assert_str_eq(g->sources, "a");
	/* FSDP has 5 rows: no regime of its own at any level but the last */
	g = band_lookup(&t, "A100", 1, WORK_FW_FSDP);
	ck_assert_str_eq(g->key, "*/*/*");
	ck_assert_uint_eq(g->rows, 30);
	ck_assert_str_eq(g->sources, "a,b,c");
	/* leave a out: its regime has no other rows, so single-node Megatron
	 * falls back to Megatron at any scale (source c alone) */
	ck_assert_int_eq(band_table_build(res, 30, "a", &t, &e), 0);
	g = band_lookup(&t, "A100", 1, WORK_FW_MEGATRON);
	ck_assert_str_eq(g->key, "*/*/megatron");
	ck_assert_str_eq(g->sources, "c");
	/* coverage of a against c's band: c's err80 = 0.02 + 0.8 x 14 x 0.02
	 * = 0.244 covers all of a's 0.01..0.10 */
	struct band_coverage cv;
	ck_assert_int_eq(band_coverage_of(res, 30, "a", &cv, &e), 0);
	ck_assert_uint_eq(cv.rows, 10);
	ck_assert_uint_eq(cv.inside, 10);
	ck_assert(fabs(cv.median_hw - sinh(0.244)) < 1e-9);
	ck_assert_str_eq(cv.regimes, "*/*/megatron");
	/* coverage of c against a and b: Megatron at any scale is a alone,
	 * err80 0.082, so c's 0.02, 0.04, 0.06, 0.08 are inside */
	ck_assert_int_eq(band_coverage_of(res, 30, "c", &cv, &e), 0);
	ck_assert_str_eq(cv.regimes, "*/*/megatron");
	ck_assert_uint_eq(cv.rows, 15);
	ck_assert_uint_eq(cv.inside, 4);
}
END_TEST

/* Write text as ROOT/configs/calibration/bands.cfg of a scratch root. */
static const char *root_with(const char *text)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", tu_at("configs"));
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s", tu_at("configs/calibration"));
	mkdir(dir, 0700);
	tu_put("configs/calibration/bands.cfg", text);
	return tu_at("");
}

START_TEST(load_and_errors)
{
	struct band_table t;
	struct ts_error e;
	bool found = true;
	char buf[1400];
	/* no file: no error, no table */
	ck_assert_int_eq(band_table_load(tu_at("nothing-here"), &t, &found, &e), 0);
	ck_assert(!found);
	ck_assert_uint_eq(t.n, 0);
	const char *root =
	    root_with("time_error = (\n"
		      "  { regime = \"A/single/megatron\"; rows = 9; err80 = 0.17; "
		      "bias = -0.02; sources = \"vtrain\"; },\n"
		      "  { regime = \"*/*/*\"; rows = 40; err80 = 0.2; bias = 0.0; }\n"
		      ");\n");
	ck_assert_int_eq(band_table_load(root, &t, &found, &e), 0);
	ck_assert(found);
	ck_assert_uint_eq(t.n, 2);
	ck_assert(fabs(t.r[0].err80 - 0.17) < 1e-15);
	ck_assert_str_eq(band_lookup(&t, "A100", 2, WORK_FW_DDP)->key, "*/*/*");
	/* a misspelt key: named with its line and the closest */
	root = root_with("time_error = (\n  { regime = \"x\"; rows = 9; err8 = 0.1; "
			 "bias = 0.0; }\n);\n");
	ck_assert_int_eq(band_table_load(root, &t, &found, &e), TS_EUNKNOWN_KEY);
	ts_error_format(&e, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "bands.cfg:2") && strstr(buf, "err80"), "%s", buf);
	/* a missing err80 */
	root = root_with("time_error = ( { regime = \"x\"; rows = 9; bias = 0.0; } );\n");
	ck_assert_int_eq(band_table_load(root, &t, &found, &e), TS_EINVALID);
	ts_error_format(&e, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "err80"), "%s", buf);
	/* out of range */
	root = root_with("time_error = ( { regime = \"x\"; rows = 9; err80 = -0.1; "
			 "bias = 0.0; } );\n");
	ck_assert_int_eq(band_table_load(root, &t, &found, &e), TS_ERANGE);
	/* a regime twice */
	root = root_with("time_error = ( { regime = \"x\"; rows = 9; err80 = 0.1; bias = 0.0; },"
			 "{ regime = \"x\"; rows = 9; err80 = 0.1; bias = 0.0; } );\n");
	ck_assert_int_eq(band_table_load(root, &t, &found, &e), TS_EINVALID);
	ts_error_format(&e, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "second time"), "%s", buf);
	ck_assert_uint_eq(t.n, 0);
}
END_TEST

START_TEST(write_reads_back)
{
	struct band_resid res[12];
	fill(res, 12, "a", 1, WORK_FW_MEGATRON, 0.01);
	struct band_table t, back;
	struct ts_error e;
	ck_assert_int_eq(band_table_build(res, 12, NULL, &t, &e), 0);
	root_with("");
	FILE *f = fopen(tu_at("configs/calibration/bands.cfg"), "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(band_table_write(&t, "# test\n", f), 0);
	fclose(f);
	bool found;
	ck_assert_int_eq(band_table_load(tu_at(""), &back, &found, &e), 0);
	ck_assert_uint_eq(back.n, t.n);
	for (size_t i = 0; i < t.n; i++) {
		ck_assert_str_eq(back.r[i].key, t.r[i].key);
		ck_assert(fabs(back.r[i].err80 - t.r[i].err80) < 1e-4);
	}
}
END_TEST

START_TEST(committed_table)
{
	/* the table in the source tree reads, and every run finds a regime */
	struct band_table t;
	struct ts_error e;
	bool found;
	char buf[1400];
	ck_assert_msg(band_table_load(tu_root(), &t, &found, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	ck_assert(found);
	ck_assert_ptr_nonnull(band_lookup(&t, "B200", 16, WORK_FW_DDP));
	for (size_t i = 0; i < t.n; i++)
		ck_assert_uint_ge(t.r[i].rows, BAND_MIN_ROWS);
}
END_TEST

static void scratch_setup(void)
{
	tu_scratch("check_band");
}

/* A calibration from measurements narrows the band by the variance it
 * explained, never below its residual, never wider than the regime's.
 * Regime err80 0.3632 (A/single/megatron), z = 1.2815516 (BAND_Z): sigma =
 * 0.3632 / z = 0.2834065; before 0.2824, after 0.0529: sigma'^2 =
 * 0.0803192 - (0.0797498 - 0.0027984) = 0.0033679 > 0.0529^2, sigma' =
 * 0.0580334, err80' = z x 0.0580334 = 0.0743728. With before 0.5 the floor
 * holds: err80' = z x 0.0529 = 0.0677941. With before < after nothing is
 * explained and err80 stays 0.3632. */
START_TEST(calibrated_by_hand)
{
	struct ts_result r;
	memset(&r, 0, sizeof r);
	r.spread.iteration_time_s = (struct ts_band){10.0, 10.0, 10.0};
	r.band_time_error = 0.3632;
	band_calibrated(&r, 0.2824, 0.0529);
	ck_assert_double_eq_tol(r.band_time_error, 0.0743728, 2e-7);
	ck_assert_double_eq_tol(r.calib_band_before, 0.3632, 1e-12);
	ck_assert_double_eq_tol(r.band.iteration_time_s.p90, 10.0 * exp(0.0743728), 1e-5);
	r.band_time_error = 0.3632;
	band_calibrated(&r, 0.5, 0.0529);
	ck_assert_double_eq_tol(r.band_time_error, 0.0677941, 2e-7);
	r.band_time_error = 0.3632;
	band_calibrated(&r, 0.01, 0.0529);
	ck_assert_double_eq_tol(r.band_time_error, 0.3632, 1e-12);
}
END_TEST

/* The fast end held at the hardware's floor: a band 4-6-9 s whose floor is
 * 5 s moves every fast end by 5 / 4 = 1.25: the MFU band 0.4-0.6-0.9 ends at
 * 0.9 / 1.25 = 0.72 (= 0.6 x 6 / 5, the MFU at the floor), cost's p10 100 ->
 * 125; the slow ends and p50s stay; a floor below p10 changes nothing. */
START_TEST(cap_at_peak_by_hand)
{
	struct ts_result r;
	memset(&r, 0, sizeof r);
	r.band.iteration_time_s = (struct ts_band){4.0, 6.0, 9.0};
	r.band.mfu = (struct ts_band){0.4, 0.6, 0.9};
	r.band.cost_usd = (struct ts_band){100.0, 150.0, 225.0};
	r.band.tflops_per_gpu = (struct ts_band){100.0, 150.0, 225.0};
	band_cap_peak(&r, 5.0);
	ck_assert_double_eq_tol(r.band.iteration_time_s.p10, 5.0, 1e-12);
	ck_assert_double_eq_tol(r.band.iteration_time_s.p90, 9.0, 1e-12);
	ck_assert_double_eq_tol(r.band.mfu.p90, 0.72, 1e-12);
	ck_assert_double_eq_tol(r.band.mfu.p10, 0.4, 1e-12);
	ck_assert_double_eq_tol(r.band.tflops_per_gpu.p90, 180.0, 1e-9);
	ck_assert_double_eq_tol(r.band.cost_usd.p10, 125.0, 1e-9);
	ck_assert_double_eq_tol(r.band.cost_usd.p50, 150.0, 1e-12);
	band_cap_peak(&r, 3.0);
	ck_assert_double_eq_tol(r.band.iteration_time_s.p10, 5.0, 1e-12);
	ck_assert_double_eq_tol(r.band.mfu.p90, 0.72, 1e-12);
	band_cap_peak(&r, 0.0);
	ck_assert_double_eq_tol(r.band.mfu.p90, 0.72, 1e-12);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("band");
	TCase *tc = tu_tcase("band");
	tcase_add_checked_fixture(tc, scratch_setup, tu_scratch_remove);
	tcase_add_test(tc, combine_by_hand);
	tcase_add_test(tc, apply_reciprocal_and_memory);
	tcase_add_test(tc, memory_verdict);
	tcase_add_test(tc, regime_keys);
	tcase_add_test(tc, table_fallback_and_loso);
	tcase_add_test(tc, load_and_errors);
	tcase_add_test(tc, write_reads_back);
	tcase_add_test(tc, committed_table);
	tcase_add_test(tc, calibrated_by_hand);
	tcase_add_test(tc, cap_at_peak_by_hand);
	suite_add_tcase(s, tc);
	return tu_run(s) ? 1 : 0;
}
