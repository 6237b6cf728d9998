/* Validation on the sources of tests/validation/measurements_new.csv
 * (MLPerf Training v4.1 GPT-3 175B and v5.0 Llama 3.1 405B, the PyTorch
 * FSDP blog of IBM and Meta, NeMo AutoModel's performance summary): every
 * row loads as its source_key, figure and scenario say, every row runs,
 * and each source's MAPE and speed bias stay at the figures sim/README.md
 * documents (Validation, "Four newer sources"), within a stated margin.
 * Nothing is fitted on these rows: their errors are held out.
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
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/validate.h"
#include "testutil.h"
#include "work/compute.h"

/* How far a source's MAPE or speed bias may move from its documented
 * figure before the test asks for sim/README.md to be brought up to date
 * (a model change that moves them is worth a line there), percentage
 * points. */
#define MARGIN_PTS 0.01 /* the documented figures' two decimals */

/* Each source's rows, MAPE on each row's own figure and mean speed bias
 * (predicted speed / measured speed - 1, > 0: predicted too fast), in
 * percent, as sim/README.md documents them (2026-12-06, gemm_k0 from OpenXLA's H100 GEMM table and
 * Blackwell's K0 set by its SMs' way out, gpus.cfg sm_out_bw: MLPerf v4.1 11.71 -> 9.84 %, v5.0
 * 11.15 -> 8.45 %; the committed constants of configs/calibration/compute.cfg). */
static const struct {
	enum val_source src;
	size_t rows;
	double mape, speed_bias;
} documented[] = {
    {VAL_MLPERF41, 3, 9.84, -6.34},
    {VAL_MLPERF50, 12, 8.45, +5.27},
    {VAL_IBM_FSDP, 8, 17.73, +14.44},
    {VAL_AUTOMODEL, 6, 29.62, -12.56},
};

static struct hw_catalog *cat;
static struct work_calib calib;
static struct val_row *rows;
static size_t nrows;

static void setup(void)
{
	struct ts_error e;
	char buf[1400];
	tu_load_hw(&cat, &calib);
	ck_assert_msg(val_load_new(tu_root(), &rows, &nrows, &e) == 0, "%s",
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

/* 29 rows (tests/validation/README.md): 3 MLPerf v4.1, 12 MLPerf v5.0, 8 of
 * the FSDP blog, 6 of AutoModel; none fitting; each scenario runs as many
 * GPUs as its row says (the per-GPU figure divides by them). */
START_TEST(rows_load)
{
	size_t by[VAL_SOURCE_COUNT_] = {0};
	for (size_t i = 0; i < nrows; i++) {
		by[rows[i].src]++;
		ck_assert(!rows[i].fitting);
		ck_assert(val_unseen(&rows[i]));
		ck_assert(!val_source_fitted(rows[i].src));
		ck_assert_str_eq(rows[i].source, val_source_name(rows[i].src));
		struct ts_scenario *sc = NULL;
		struct ts_error e;
		char buf[1400];
		ck_assert_msg(ts_scenario_load_string(cat, rows[i].scenario, rows[i].id, NULL, 0,
						      &sc, &e) == 0,
			      "%s", ts_error_format(&e, buf, sizeof buf));
		ck_assert_msg((int64_t)sc->gpus == rows[i].gpus, "%s: scenario %u GPUs, row %lld",
			      rows[i].id, sc->gpus, (long long)rows[i].gpus);
		ts_scenario_destroy(sc);
	}
	ck_assert_uint_eq(nrows, 29);
	for (size_t j = 0; j < sizeof documented / sizeof documented[0]; j++)
		ck_assert_uint_eq(by[documented[j].src], documented[j].rows);
	/* MLPT41-001: B200 preview, 64 GPUs, 36.234 s per step */
	const struct val_row *r = find("MLPT41-001");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->src, VAL_MLPERF41);
	ck_assert_str_eq(r->source, "mlperf-training-v4.1");
	ck_assert_int_eq(r->metric, VAL_ITERATION_S);
	ck_assert(r->measured == 36.234);
	ck_assert_int_eq(r->gpus, 64);
	ck_assert_int_eq(r->index, 1);
	ck_assert_str_eq(r->needs, "tp/pp");
	ck_assert_ptr_nonnull(strstr(r->scenario, "cluster = \"dgx-b200\""));
	/* IBMFSDP-001: 7,500 tokens/s/GPU on 96 H100 */
	r = find("IBMFSDP-001");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->src, VAL_IBM_FSDP);
	ck_assert_int_eq(r->metric, VAL_TOKENS_PER_S_PER_GPU);
	ck_assert(r->measured == 7500.0);
	ck_assert_int_eq(r->gpus, 96);
	/* AUTOMODEL-001: DeepSeek V3 on 1,024 H100, 37.87 s per step, EP 64 */
	r = find("AUTOMODEL-001");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->src, VAL_AUTOMODEL);
	ck_assert_str_eq(r->source, "nemo-automodel-perf");
	ck_assert(r->measured == 37.87);
	ck_assert_str_eq(r->needs, "pp/ep");
	r = find("MLPT50-012");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->src, VAL_MLPERF50);
	ck_assert_int_eq(r->gpus, 2496);
}
END_TEST

/* Every row runs (a row that stops running fails here), and each source's
 * MAPE and speed bias are the documented ones within MARGIN_PTS. */
START_TEST(predictions)
{
	double *pred = ts_calloc(nrows, sizeof *pred);
	ck_assert_ptr_nonnull(pred);
	struct ts_error e;
	char buf[1400];
	ck_assert_msg(val_predict_all(cat, &calib, rows, nrows, NULL, pred, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	printf("%-14s %-27s %-21s %12s %12s %8s\n", "id", "source", "figure", "predicted",
	       "measured", "error");
	int failures = 0;
	double ape[VAL_SOURCE_COUNT_] = {0}, sp[VAL_SOURCE_COUNT_] = {0};
	size_t cnt[VAL_SOURCE_COUNT_] = {0};
	for (size_t i = 0; i < nrows; i++) {
		const struct val_row *r = &rows[i];
		if (!isfinite(pred[i]) || !(pred[i] > 0.0)) {
			printf("FAIL: %s did not run (needs %s)\n", r->id, r->needs);
			failures++;
			continue;
		}
		double err = val_error(r, pred[i]);
		double speed =
		    r->metric == VAL_ITERATION_S ? r->measured / pred[i] : pred[i] / r->measured;
		printf("%-14s %-27s %-21s %12.3f %12.3f %+7.1f%%\n", r->id, r->source,
		       val_metric_name(r->metric), pred[i], r->measured, 100.0 * err);
		ape[r->src] += fabs(err);
		sp[r->src] += speed - 1.0;
		cnt[r->src]++;
	}
	for (size_t j = 0; j < sizeof documented / sizeof documented[0]; j++) {
		enum val_source s = documented[j].src;
		ck_assert_uint_eq(cnt[s], documented[j].rows);
		double mape = 100.0 * ape[s] / (double)cnt[s],
		       bias = 100.0 * sp[s] / (double)cnt[s];
		printf("%-27s MAPE %6.2f %% (documented %.2f), speed bias %+6.2f %% (%+.2f)\n",
		       val_source_name(s), mape, documented[j].mape, bias,
		       documented[j].speed_bias);
		if (fabs(mape - documented[j].mape) > MARGIN_PTS ||
		    fabs(bias - documented[j].speed_bias) > MARGIN_PTS) {
			printf("FAIL: %s moved by more than %.0f points from its documented "
			       "figures (sim/README.md, Validation)\n",
			       val_source_name(s), MARGIN_PTS);
			failures++;
		}
	}
	/* what the errors say, row by row: the GB200 rows 10-14 % too fast
	 * (their time measured over predicted, 1.108-1.132; 15-25 % while K0
	 * followed HBM bandwidth on Blackwell too, 5-15 % while every op of an
	 * overlapped segment was charged 12 %, which hid part of it), the
	 * FSDP blog's H100 rows too fast */
	for (size_t i = 0; i < nrows; i++) {
		const struct val_row *r = &rows[i];
		if (strstr(r->scenario, "type = \"GB200\"")) {
			double speed = r->measured / pred[i];
			ck_assert_msg(speed > 1.10 && speed < 1.14, "%s: %.3f x measured speed",
				      r->id, speed);
		}
		if (r->src == VAL_IBM_FSDP && strstr(r->scenario, "dgx-h100"))
			ck_assert_msg(pred[i] > 1.15 * r->measured, "%s: %.0f of %.0f tokens/s",
				      r->id, pred[i], r->measured);
	}
	ts_free(pred, nrows * sizeof *pred);
	ck_assert_msg(failures == 0, "%d check(s) failed", failures);
}
END_TEST

START_TEST(missing_file)
{
	struct val_row *r = (struct val_row *)1;
	size_t n = 7;
	struct ts_error e;
	ck_assert_int_eq(val_load_new("/nonexistent-trainsim-root", &r, &n, &e), TS_EIO);
	ck_assert_ptr_null(r);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(e.file, "measurements_new.csv"));
}
END_TEST

/* A file in a temporary root with the columns val_load_new reads, one
 * data line `line`; returns the error of val_load_new. */
static int load_one(const char *line, struct ts_error *e)
{
	char dir[] = "/tmp/trainsim-valnew-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/tests", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/tests/validation", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/tests/validation/measurements_new.csv", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "id,hidden,micro_batch,tp,pp,gpus,source_key,ep,figure,value,scenario\n%s\n",
		line);
	fclose(f);
	struct val_row *r = NULL;
	size_t n = 0;
	int rc = val_load_new(dir, &r, &n, e);
	val_rows_free(r, n);
	remove(path);
	snprintf(path, sizeof path, "%s/tests/validation", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/tests", dir);
	rmdir(path);
	rmdir(dir);
	return rc;
}

/* A source_key without a source of its own, or a figure trainsim does not
 * compare on, is an error naming the row; a good line loads. */
START_TEST(bad_rows)
{
	struct ts_error e;
	ck_assert_int_eq(load_one("X-1,1024,1,1,1,8,mlperf-training-v5.0,,iteration_s,1.5,"
				  "\"model = \"\"gpt3-1.3b\"\";\"",
				  &e),
			 0);
	ck_assert_int_eq(load_one("X-1,1024,1,1,1,8,someone-else,,iteration_s,1.5,m", &e),
			 TS_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(e.msg, "someone-else"));
	ck_assert_int_eq(e.line, 2);
	ck_assert_int_eq(
	    load_one("X-2,1024,1,1,1,8,mlperf-training-v5.0,,tflops_per_gpu,400,m", &e),
	    TS_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(e.msg, "X-2"));
	/* the old sources' names are not source keys of this file */
	ck_assert_int_eq(load_one("X-3,1024,1,1,1,8,vtrain,,iteration_s,1.5,m", &e), TS_ESYNTAX);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("validate_new");
	TCase *tc = tu_tcase("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rows_load);
	tcase_add_test(tc, predictions);
	suite_add_tcase(s, tc);
	TCase *te = tu_tcase("errors");
	tcase_add_test(te, missing_file);
	tcase_add_test(te, bad_rows);
	suite_add_tcase(s, te);
	return s;
}

int main(void)
{
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
