/* Validation on the multi-GPU sources: Megatron-Core on H100 (MEG24),
 * MosaicML MPT with FSDP, torchtitan with FSDP2, vTrain's multi-node runs.
 * Every row is a scenario; the test prints prediction, measurement and
 * error per row and the MAPE per source and per half, and fails when the
 * held-out half of a source (the rows val_fit does not use; all of vTrain
 * multi-node) or a whole source exceeds 15 %. The compute
 * constants are fitted on the fitting halves of MEG24, MPT and TITAN
 * (configs/calibration/compute.cfg).
 * The bands: on the unseen rows of every source (both files), the 80 %
 * band estimated from the other sources must cover 70-90 % of the rows of
 * every source with enough of them to tell, and of all pooled, with a
 * median half-width of at most 20 %; and configs/calibration/bands.cfg
 * must be the table these rows give (regenerate with `trainsim validate
 * --bands configs/calibration/bands.cfg`).
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "hw/catalog.h"
#include "run/validate.h"
#include "work/compute.h"
#include "testutil.h"

/* The aim of issue 5: a source's MAPE at most 15 %, whole sources and
 * held-out halves alike, without exception. Rows far off within a source
 * that meets it: MEG24-004 (TP 8 without PP, -20 %) exposes the fp32
 * gradient reduce-scatter that only the last of four micro-batches'
 * backward can hide, and the sources give neither the micro-batch size
 * nor the NCCL setting (sim/README.md,
 * Validation). */
#define MAPE_AIM 0.15

static struct hw_catalog *cat;
static struct work_calib calib;
static struct val_row *rows;
static size_t nrows;

static void setup(void)
{
	struct ts_error e;
	char buf[1400];
	tu_load_hw(&cat, &calib);
	ck_assert_msg(val_load_multi(tu_root(), &rows, &nrows, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
}

static void teardown(void)
{
	val_rows_free(rows, nrows);
	hw_catalog_destroy(cat);
}

static const struct val_row *find(const char *id)
{
	for (size_t i = 0; i < nrows; i++)
		if (!strcmp(rows[i].id, id))
			return &rows[i];
	return NULL;
}

/* 11 MEG24, 44 MPT, 8 TITAN rows (measurements.csv), 109 vTrain rows; the
 * scenarios and the source FLOP formulas say what the sources state. */
START_TEST(rows_load)
{
	size_t by[VAL_SOURCE_COUNT_] = {0};
	for (size_t i = 0; i < nrows; i++)
		by[rows[i].src]++;
	ck_assert_uint_eq(by[VAL_MEG24], 11);
	ck_assert_uint_eq(by[VAL_MPT], 44);
	ck_assert_uint_eq(by[VAL_TITAN], 8);
	ck_assert_uint_eq(by[VAL_VTRAIN_MULTI], 109);
	/* MEG24-001: 72·B·s·l·h²·(1 + s/(6h) + V/(12hl)) with B 192, s 4096,
	 * l 24, h 2048, V 131072 = 5.6999e15 x 1.5556 = 8.8665e15 FLOPs; 408.8
	 * TFLOP/s on 48 GPUs is then 0.452 s per iteration. */
	const struct val_row *r = find("MEG24-001");
	ck_assert_ptr_nonnull(r);
	double want = 72.0 * 192 * 4096 * 24 * 2048.0 * 2048.0 *
		      (1.0 + 4096.0 / (6.0 * 2048) + 131072.0 / (12.0 * 2048 * 24));
	ck_assert(tu_relerr(r->source_flops, want) < 1e-12);
	ck_assert(tu_relerr(r->source_flops, 8.8665e15) < 1e-4);
	ck_assert_int_eq(r->metric, VAL_TFLOPS_PER_GPU);
	ck_assert_str_eq(r->needs, "zero");
	ck_assert_ptr_nonnull(strstr(r->scenario, "vocab = 131072"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "cluster = \"dgx-h100\"; nodes = 6;"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "sp = false; tp_comm_overlap = false"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "schedule = \"1f1b\"; interleave = 1;"));
	/* the overlaps the README names: TP communication (which needs sp),
	 * PP communication (only with the interleaved schedule: 7 layers per
	 * stage, one per virtual stage) */
	r = find("MEG24-009");
	ck_assert_str_eq(r->needs, "tp/pp/zero");
	ck_assert_ptr_nonnull(strstr(r->scenario, "tp = 8; pp = 16; dp = 48; sp = true;"
						  " tp_comm_overlap = true; zero = 1;"
						  " schedule = \"interleaved\"; interleave = 7;"));
	/* strong scaling at 4,608 GPUs: TP 8, PP 6 assumed, DP 96, 12
	 * micro-batches per pipeline, 16 layers per stage */
	r = find("MEG24-011");
	ck_assert_ptr_nonnull(strstr(r->scenario, "tp = 8; pp = 6; dp = 96;"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "interleave = 16;"));
	/* MPT-065: 3B on 64 A100 40GB, micro-batch 6, no checkpointing; its MFU
	 * by the README's formula is the stated 55.94 % */
	r = find("MPT-065");
	ck_assert_int_eq(r->metric, VAL_TOKENS_PER_S_PER_GPU);
	ck_assert(r->measured == 9736.0);
	ck_assert_ptr_nonnull(strstr(r->scenario, "cluster = \"dgx-a100-40gb\"; nodes = 8;"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "zero = 3"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "recompute = \"none\""));
	double mfu = r->source_flops / (384.0 * 2048.0 / 9736.0 / 64.0) / 64.0 / 312e12;
	ck_assert_msg(fabs(mfu - 0.5594) < 0.002, "MPT-065 MFU by its formula %.4f", mfu);
	/* torchtitan's op-level selective checkpointing reruns about half a
	 * forward: taken as full, as the layer-level one */
	r = find("TITAN-002");
	ck_assert_ptr_nonnull(strstr(r->scenario, "base = \"llama3-8b\""));
	ck_assert_ptr_nonnull(strstr(r->scenario, "recompute = \"full\""));
	ck_assert(!r->fitting);
	ck_assert(find("TITAN-001")->fitting);
	/* halves: odd ids; MPT (all ids odd) every other row */
	ck_assert(find("MEG24-011")->fitting);
	ck_assert(!find("MEG24-010")->fitting);
	ck_assert(find("MPT-001")->fitting);
	ck_assert(!find("MPT-003")->fitting);
	ck_assert(find("MPT-085")->fitting);
	ck_assert(!find("MPT-087")->fitting);
	size_t fit_by[VAL_SOURCE_COUNT_] = {0};
	for (size_t i = 0; i < nrows; i++)
		fit_by[rows[i].src] += rows[i].fitting;
	ck_assert_uint_eq(fit_by[VAL_MEG24], 6);
	ck_assert_uint_eq(fit_by[VAL_MPT], 22);
	ck_assert_uint_eq(fit_by[VAL_TITAN], 4);
	ck_assert_uint_eq(fit_by[VAL_VTRAIN_MULTI], 55);
	r = find("vtrain-m-001");
	ck_assert(fabs(r->measured - 3.5665) < 1e-12);
	ck_assert_ptr_nonnull(strstr(r->scenario, "nodes = 8; gpus_per_node = 8"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "tp = 1; pp = 1; dp = 64"));
}
END_TEST

START_TEST(predictions)
{
	double *pred = ts_calloc(nrows, sizeof *pred);
	ck_assert_ptr_nonnull(pred);
	struct ts_error e;
	char buf[1400];
	ck_assert_msg(val_predict_all(cat, &calib, rows, nrows, NULL, pred, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	printf("%-13s %-13s %-21s %12s %12s %8s\n", "id", "source", "metric", "predicted",
	       "measured", "error");
	for (size_t i = 0; i < nrows; i++) {
		const struct val_row *r = &rows[i];
		double k = r->metric == VAL_ITERATION_S ? 1e3 : 1.0;
		if (isnan(pred[i]))
			printf("%-13s %-13s %-21s needs %s (not modelled)\n", r->id, r->source,
			       k > 1.0 ? "iteration_ms" : val_metric_name(r->metric), r->needs);
		else
			printf("%-13s %-13s %-21s %12.1f %12.1f %+7.1f%%\n", r->id, r->source,
			       k > 1.0 ? "iteration_ms" : val_metric_name(r->metric), pred[i] * k,
			       r->measured * k, 100.0 * val_error(r, pred[i]));
	}
	struct val_summary s;
	val_summarize(rows, nrows, NULL, pred, &s);
	int failures = 0;
	for (int k = VAL_MEG24; k < VAL_SOURCE_COUNT_; k++) {
		const struct val_err_stats *st = &s.by_source[k];
		if (st->not_run)
			printf("%-13s %zu rows not run: their parallelism is not modelled yet\n",
			       val_source_name((enum val_source)k), st->not_run);
		if (!st->n)
			continue;
		const struct val_err_stats *fh = &s.half[k][0], *ho = &s.half[k][1];
		printf("%-13s MAPE %5.1f %% of %zu rows (mean %+5.1f %%, worst %.1f %%)%s\n",
		       val_source_name((enum val_source)k), 100.0 * st->mape, st->n,
		       100.0 * st->mean, 100.0 * st->worst,
		       st->mape > MAPE_AIM ? ": ABOVE THE 15 % AIM" : "");
		printf("              %s half %5.1f %% of %zu rows, held-out half %5.1f %% of "
		       "%zu rows\n",
		       k == VAL_VTRAIN_MULTI ? "odd (not fitted)" : "fitting", 100.0 * fh->mape,
		       fh->n, 100.0 * ho->mape, ho->n);
		/* vTrain multi-node is not fitted at all: both halves are held out */
		if (ho->n && ho->mape > MAPE_AIM) {
			printf("FAIL: %s held-out MAPE %.1f %% > 15 %%\n",
			       val_source_name((enum val_source)k), 100.0 * ho->mape);
			failures++;
		}
		if (st->mape > MAPE_AIM) {
			printf("FAIL: %s MAPE %.1f %% > 15 %%\n",
			       val_source_name((enum val_source)k), 100.0 * st->mape);
			failures++;
		}
	}
	ts_free(pred, nrows * sizeof *pred);
	ck_assert_msg(failures == 0, "%d source(s) above their MAPE bound", failures);
}
END_TEST

/* Fewest unseen rows for a source's own coverage to be checked: with 4
 * rows (TITAN) or 5 (MEG24) a share moves in steps of 20-25 %, so 70-90 %
 * cannot be told from chance; they count in the pooled share. */
#define BAND_MIN_CHECK 20

START_TEST(bands_cover)
{
	struct ts_error e;
	char buf[1400];
	struct val_row *single = NULL, *all = NULL;
	size_t ns = 0;
	ck_assert_msg(val_load(tu_root(), &single, &ns, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	size_t n = ns + nrows;
	all = ts_malloc(n * sizeof *all);
	double *pred = ts_calloc(n, sizeof *pred);
	ck_assert(all && pred);
	memcpy(all, single, ns * sizeof *all);
	memcpy(all + ns, rows, nrows * sizeof *all);
	ck_assert_msg(val_predict_all(cat, &calib, all, n, NULL, pred, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	struct band_resid *res = NULL;
	size_t nres = 0;
	ck_assert_msg(val_residuals(cat, all, n, pred, &res, &nres, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	int failures = 0;
	size_t pooled_rows = 0, pooled_in = 0;
	printf("%-13s %5s %8s %11s  %s\n", "source", "rows", "coverage", "half-width", "regimes");
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++) {
		struct band_coverage cv;
		const char *nm = val_source_name((enum val_source)k);
		ck_assert_int_eq(band_coverage_of(res, nres, nm, &cv, &e), 0);
		ck_assert_uint_gt(cv.rows, 0);
		ck_assert_uint_eq(cv.no_band, 0);
		pooled_rows += cv.rows;
		pooled_in += cv.inside;
		printf("%-13s %5zu %7.1f%% %10.1f%%  %s\n", nm, cv.rows, 100.0 * cv.coverage,
		       100.0 * cv.median_hw, cv.regimes);
		if (cv.median_hw > 0.20) {
			printf("FAIL: %s median half-width %.1f %% > 20 %%\n", nm,
			       100.0 * cv.median_hw);
			failures++;
		}
		if (cv.rows >= BAND_MIN_CHECK && (cv.coverage < 0.70 || cv.coverage > 0.90)) {
			printf("FAIL: %s coverage %.1f %% outside 70-90 %%\n", nm,
			       100.0 * cv.coverage);
			failures++;
		}
	}
	double pooled = (double)pooled_in / (double)pooled_rows;
	printf("all           %5zu %7.1f%%\n", pooled_rows, 100.0 * pooled);
	if (pooled < 0.70 || pooled > 0.90) {
		printf("FAIL: pooled coverage %.1f %% outside 70-90 %%\n", 100.0 * pooled);
		failures++;
	}
	/* the committed table is the one these rows give */
	struct band_table want, have;
	bool found = false;
	ck_assert_int_eq(band_table_build(res, nres, NULL, &want, &e), 0);
	ck_assert_msg(band_table_load(tu_root(), &have, &found, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	ck_assert(found);
	ck_assert_uint_eq(have.n, want.n);
	for (size_t i = 0; i < want.n; i++) {
		ck_assert_str_eq(have.r[i].key, want.r[i].key);
		ck_assert_uint_eq(have.r[i].rows, want.r[i].rows);
		ck_assert_msg(fabs(have.r[i].err80 - want.r[i].err80) < 6e-5,
			      "bands.cfg %s: err80 %.4f, the rows give %.4f (regenerate it)",
			      want.r[i].key, have.r[i].err80, want.r[i].err80);
	}
	ts_free(res, nres * sizeof *res);
	ts_free(pred, n * sizeof *pred);
	ts_free(all, n * sizeof *all);
	val_rows_free(single, ns);
	ck_assert_msg(failures == 0, "%d band check(s) failed", failures);
}
END_TEST

START_TEST(missing_files)
{
	struct val_row *r = (struct val_row *)1;
	size_t n = 7;
	struct ts_error e;
	ck_assert_int_eq(val_load_multi("/nonexistent-trainsim-root", &r, &n, &e), TS_EIO);
	ck_assert_ptr_null(r);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(e.file, "measurements_multi.csv"));
}
END_TEST

/* A row with micro-batch 0 is an error naming the file and line, not a
 * division by zero. */
START_TEST(bad_row)
{
	char dir[] = "/tmp/trainsim-valmulti-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/tests", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/tests/validation", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/tests/validation/measurements_multi.csv", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"id,model_params_B,layers,hidden,heads,seq_len,global_batch,micro_batch,tp,pp,dp,"
		"recompute,gpus,gpu_type,metric,value\n"
		"MPT-999,1.3,24,2048,16,2048,512,0,1,1,8,none,8,A100 40GB,"
		"tokens_per_s_per_gpu,100\n");
	fclose(f);
	struct val_row *r = NULL;
	size_t n = 0;
	struct ts_error e;
	ck_assert_int_eq(val_load_multi(dir, &r, &n, &e), TS_ESYNTAX);
	ck_assert_int_eq(e.line, 2);
	ck_assert_ptr_nonnull(strstr(e.msg, "MPT-999"));
	ck_assert_ptr_null(r);
	remove(path);
	snprintf(path, sizeof path, "%s/tests/validation", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/tests", dir);
	rmdir(path);
	rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("validate_multi");
	TCase *tc = tu_tcase("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rows_load);
	tcase_add_test(tc, predictions);
	tcase_add_test(tc, bands_cover);
	suite_add_tcase(s, tc);
	TCase *te = tu_tcase("errors");
	tcase_add_test(te, missing_files);
	tcase_add_test(te, bad_row);
	suite_add_tcase(s, te);
	return s;
}

int main(void)
{
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
