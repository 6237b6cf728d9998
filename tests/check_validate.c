/* Checks of sim/run/validate: the validation rows load as the sources state
 * them, and the committed calibration predicts the held-out measurements.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "run/validate.h"
#include "testutil.h"
#include "work/compute.h"

/* Held-out vTrain rows: the MAPE sim/README.md states (11.59 %, "Current
 * figures": gemm_k0 from OpenXLA's H100 GEMM table, 9.45 % when it was
 * fitted on vTrain among others), to its rounding; a change of the model
 * that moves it updates both. */
#define HELD_OUT_MAPE 0.1159
/* DLE-BERT rows at sequence 128: not fitted, a different stack (PyTorch DDP,
 * APEX LAMB, NVIDIA's fused kernels) with the optimizer taken as Adam-like,
 * one published number per row. sim/README.md states their errors as -2.4
 * to +8.0 % (the masked-LM head on the masked positions only, as the
 * source's dense_sequence_output runs it; -11.3 to -4.8 % when the head ran
 * on every position): held to that range, to its rounding, both ways. */
#define BERT_SEQ128_LO (-0.0245)
#define BERT_SEQ128_HI 0.0805
/* DLE-BERT rows at sequence 512 (phase 2): LDDL pads each micro-batch only
 * to its longest sequence within bins of 64, modelled as 320 tokens
 * (sim/run/validate.c, BERT_P2_BINNED_SEQ, derived from LDDL's binning
 * figure, not from these rows); sim/README.md states +1.7 to +6.6 % (-46 to
 * -47 % when every micro-batch was taken as 512 tokens): held to that range,
 * to its rounding, both ways. */
#define BERT_SEQ512_LO 0.0165
#define BERT_SEQ512_HI 0.0665

static struct hw_catalog *cat;
static struct work_calib calib;
static struct val_row *rows;
static size_t nrows;

static void setup(void)
{
	struct ts_error e;
	char buf[1400];
	tu_load_hw(&cat, &calib);
	ck_assert_msg(val_load(tu_root(), &rows, &nrows, &e) == 0, "%s",
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

/* 240 vTrain rows with tp = pp = 1 (124 odd, 116 even) and 6 BERT rows; row
 * numbers are data lines; the scenarios say what the sources state. */
START_TEST(rows_load)
{
	size_t nv = 0, nodd = 0, nb = 0;
	for (size_t i = 0; i < nrows; i++) {
		if (rows[i].src == VAL_VTRAIN) {
			nv++;
			nodd += rows[i].fitting;
			ck_assert(rows[i].fitting == (rows[i].index % 2 == 1));
		} else {
			nb++;
			ck_assert(!rows[i].fitting);
		}
	}
	ck_assert_uint_eq(nv, 240);
	ck_assert_uint_eq(nodd, 124);
	ck_assert_uint_eq(nb, 6);
	/* data line 7 (file line 8): 4,32,2,2048,16,16,1024,1,4,1,406.355066 */
	const struct val_row *r = find("vtrain-0007");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->index, 7);
	ck_assert(r->fitting);
	ck_assert(fabs(r->measured - 0.406355066) < 1e-12);
	ck_assert_int_eq(r->metric, VAL_ITERATION_S);
	ck_assert_int_eq(r->hidden, 2048);
	ck_assert_int_eq(r->micro_batch, 2);
	ck_assert_ptr_nonnull(strstr(r->scenario, "recompute = \"full\""));
	ck_assert_ptr_nonnull(strstr(r->scenario, "bucket = \"none\""));
	ck_assert_ptr_nonnull(strstr(r->scenario, "overlap_grad_reduce = false"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "attention = \"unfused\""));
	ck_assert_ptr_nonnull(strstr(r->scenario, "vocab = 50257"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "gpus_per_node = 4"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "global_batch = 32"));
	r = find("DLE-BERT-007");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->metric, VAL_SAMPLES_PER_S);
	ck_assert(r->measured == 860.0);
	ck_assert_ptr_nonnull(strstr(r->scenario, "global_batch = 32768"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "micro_batch = 16"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "precision = \"tf32\""));
	ck_assert_ptr_nonnull(strstr(r->scenario, "framework = \"ddp\""));
	/* a phase-2 row: LDDL's binned micro-batches, the head on the masked
	 * positions (sim/run/validate.c) */
	ck_assert_ptr_nonnull(strstr(r->scenario, "seq_len = 320;"));
	ck_assert_ptr_nonnull(strstr(r->scenario, "mlm_head = \"masked\""));
}
END_TEST

/* Every row's prediction with the committed constants, printed for the CI
 * log; the held-out vTrain MAPE and the BERT rows within their bounds. */
START_TEST(predictions)
{
	double *pred = ts_calloc(nrows, sizeof *pred);
	ck_assert_ptr_nonnull(pred);
	struct ts_error e;
	char buf[1400];
	ck_assert_msg(val_predict_all(cat, &calib, rows, nrows, NULL, pred, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	printf("%-13s %-8s %-14s %12s %12s %8s\n", "id", "half", "metric", "predicted", "measured",
	       "error");
	for (size_t i = 0; i < nrows; i++) {
		const struct val_row *r = &rows[i];
		double k = r->metric == VAL_ITERATION_S ? 1e3 : 1.0;
		printf("%-13s %-8s %-14s %12.2f %12.2f %+7.1f%%\n", r->id,
		       r->src != VAL_VTRAIN ? "check"
		       : r->fitting	    ? "fit"
					    : "held-out",
		       r->metric == VAL_ITERATION_S ? "iteration_ms" : "samples_per_s", pred[i] * k,
		       r->measured * k, 100.0 * val_error(r, pred[i]));
	}
	struct val_summary s;
	val_summarize(rows, nrows, NULL, pred, &s);
	printf("vTrain MAPE: fitting (odd) %.2f %% of %zu rows, held-out (even) %.2f %% of %zu "
	       "rows; BERT MAPE %.2f %%\n",
	       100.0 * s.fitting.mape, s.fitting.n, 100.0 * s.held_out.mape, s.held_out.n,
	       100.0 * s.by_source[VAL_BERT].mape);
	ck_assert_uint_eq(s.held_out.n, 116);
	ck_assert_msg(s.held_out.mape <= HELD_OUT_MAPE, "held-out MAPE %.3f %% > %.2f %%",
		      100.0 * s.held_out.mape, 100.0 * HELD_OUT_MAPE);
	for (size_t i = 0; i < nrows; i++) {
		const struct val_row *r = &rows[i];
		if (r->src != VAL_BERT)
			continue;
		double err = val_error(r, pred[i]);
		bool p1 = strstr(r->scenario, "seq_len = 128;") != NULL;
		double lo = p1 ? BERT_SEQ128_LO : BERT_SEQ512_LO;
		double hi = p1 ? BERT_SEQ128_HI : BERT_SEQ512_HI;
		ck_assert_msg(err >= lo && err <= hi, "%s: %+.2f %%, stated %+.2f to %+.2f %%",
			      r->id, 100.0 * err, 100.0 * lo, 100.0 * hi);
	}
	ts_free(pred, nrows * sizeof *pred);
}
END_TEST

/* A bad file is an error naming it, never a crash. */
START_TEST(missing_root)
{
	struct val_row *r = (struct val_row *)1;
	size_t n = 7;
	struct ts_error e;
	ck_assert_int_eq(val_load("/nonexistent-trainsim-root", &r, &n, &e), TS_EIO);
	ck_assert_ptr_null(r);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(e.file, "ground_truth_single.csv"));
}
END_TEST

/* Held-out check at 8,192 and 16,384 H100 (configs/scenarios/llama3-405b-16k.cfg,
 * nothing fitted to it): the Llama 3 paper's Table 4 reports 430 and 400
 * TFLOP/s per GPU (43 % and 41 % BF16 MFU) for 405B at 8K context, TP 8,
 * PP 16, DP 64 and 128. trainsim gives 413 and 365 (-4.0 %, -8.8 %); the
 * test holds both within the project's 10 % and asks that the larger job
 * be the slower per GPU by at least half of the measured 7 %. */
START_TEST(llama3_405b_held_out)
{
	static const struct {
		const char *nodes, *dp;
		double measured; /* TFLOP/s per GPU */
	} cs[] = {{"nodes=1024", "parallel.dp=64", 430.0},
		  {"nodes=2048", "parallel.dp=128", 400.0}};
	char path[1024];
	snprintf(path, sizeof path, "%s/configs/scenarios/llama3-405b-16k.cfg", tu_root());
	double got[2];
	for (int i = 0; i < 2; i++) {
		struct ts_scenario *sc;
		struct ts_error e;
		struct ts_result r;
		const char *sets[] = {cs[i].nodes, cs[i].dp};
		ck_assert_msg(ts_scenario_load(cat, path, sets, 2, &sc, &e) == 0, "%s", e.msg);
		ck_assert_msg(ts_run(sc, &calib, &r, NULL, &e) == 0, "%s", e.msg);
		got[i] = r.tflops_per_gpu;
		double err = got[i] / cs[i].measured - 1.0;
		printf("Llama 3 405B, %s: %.1f TFLOP/s per GPU (measured %.0f, %+.1f %%)\n",
		       cs[i].dp, got[i], cs[i].measured, 100.0 * err);
		ck_assert_msg(fabs(err) <= 0.10, "%s: %+.1f %%", cs[i].dp, 100.0 * err);
		ts_scenario_destroy(sc);
	}
	ck_assert_msg(got[1] < got[0] * (1.0 - 0.035), "%.1f vs %.1f", got[1], got[0]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("validate");
	TCase *tc = tu_tcase("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rows_load);
	tcase_add_test(tc, predictions);
	tcase_add_test(tc, llama3_405b_held_out);
	suite_add_tcase(s, tc);
	TCase *te = tu_tcase("errors");
	tcase_add_test(te, missing_root);
	suite_add_tcase(s, te);
	return s;
}

int main(void)
{
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
