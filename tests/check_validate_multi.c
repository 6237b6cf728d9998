/* Validation on the multi-GPU sources: Megatron-Core on H100 (MEG24),
 * MosaicML MPT with FSDP, torchtitan with FSDP2, vTrain's multi-node runs.
 * Every row is a scenario; the test prints prediction, measurement and
 * error per row and the MAPE per source and per half, and fails when the
 * held-out half of a source (the rows val_fit does not use; all of vTrain
 * multi-node) or a whole source exceeds 15 %. The compute
 * constants are fitted on the fitting halves of MEG24, MPT and TITAN
 * (configs/calibration/compute.cfg).
 * The bands: every row of every source (the three files and
 * measurements_new.csv), predicted leave-one-source-out (a fitted source's
 * rows with the constants refit without it, configs/calibration/loso.cfg),
 * against the 80 % band estimated from the other sources: coverage and
 * median half-width pinned at the figures sim/README.md documents;
 * configs/calibration/loso.cfg's errors must be those its constants give,
 * configs/calibration/bands.cfg the table these rows give (regenerate with
 * `trainsim validate --loso configs/calibration/loso.cfg`, then `trainsim
 * validate --bands configs/calibration/bands.cfg`), and a stack or GPU the
 * set knows poorly must get a wider band.
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
#include "plan/bandtab.h"
#include "run/loso.h"
#include "run/validate.h"
#include "work/compute.h"
#include "testutil.h"

/* The aim for every source: a source's MAPE at most 15 %, whole sources and
 * held-out halves alike, without exception. Rows far off within a source
 * that meets it: MEG24-004 (TP 8 without PP, -20 %) exposes the fp32
 * gradient reduce-scatter that only the last of four micro-batches'
 * backward can hide, and the sources give neither the micro-batch size
 * nor the NCCL setting (sim/README.md,
 * Validation). */
#define MAPE_AIM 0.15
/* Each source held to the MAPE sim/README.md states ("Current figures"),
 * whole and held-out half (vTrain multi-node: its even rows), plus
 * MAPE_ROUNDING for the two decimals it prints: a change that moves one
 * updates both. */
#define MAPE_ROUNDING 0.0005
static const struct {
	enum val_source src;
	double whole, held_out;
} documented[] = {{VAL_MEG24, 0.0922, 0.1078},
		  {VAL_MPT, 0.0980, 0.1027},
		  {VAL_TITAN, 0.0632, 0.0695},
		  {VAL_VTRAIN_MULTI, 0.1233, 0.1289}};

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
		for (size_t d = 0; d < sizeof documented / sizeof documented[0]; d++) {
			if (documented[d].src != (enum val_source)k)
				continue;
			if (st->mape > documented[d].whole + MAPE_ROUNDING ||
			    ho->mape > documented[d].held_out + MAPE_ROUNDING) {
				printf("FAIL: %s MAPE %.2f %% (held-out %.2f %%) above the "
				       "documented %.2f %% (%.2f %%)\n",
				       val_source_name((enum val_source)k), 100.0 * st->mape,
				       100.0 * ho->mape, 100.0 * documented[d].whole,
				       100.0 * documented[d].held_out);
				failures++;
			}
		}
	}
	ts_free(pred, nrows * sizeof *pred);
	ck_assert_msg(failures == 0, "%d source(s) above their MAPE bound", failures);
}
END_TEST

/* Fewest rows for a source's own coverage to be pinned: with 3-12 rows a
 * share moves in steps of 8-33 %; they count in the pooled share. */
#define BAND_MIN_CHECK 20
/* How far a coverage or a median half-width may move from the figure
 * sim/README.md ("Bands") documents before the test asks for the README to
 * be brought up to date, percentage points. */
#define BAND_PIN_MARGIN 0.05

/* The leave-one-source-out coverage of the 80 % bands as sim/README.md
 * documents it (2026-12-06, gemm_k0 from OpenXLA's H100 GEMM table; before, TP overlap per GEMM;
 * 2026-12-05: bands from leave-one-source-out residuals, measurements_new.csv included, measured
 * Blackwell and fp8 matmul rates), per source with enough rows and pooled: coverage and median
 * half-width in percent. Half of vTrain's rows, predicted with launch_s and tc_sustain refit
 * without vTrain (gemm_k0 is no longer refit), fall inside the band the other sources give (none
 * did when gemm_k0 rested on vTrain alone); MPT's band is wide from the H100 FSDP rows of the new
 * sources. */
static const struct {
	const char *source;
	double coverage, half_width;
} band_pins[] = {
    {"vtrain", 49.2, 16.4},
    {"mpt", 93.2, 20.8},
    {"vtrain-multi", 61.5, 13.0},
};
/* 62.9 before the DLE BERT phase-2 rows ran LDDL's binned lengths and the
 * masked-LM head on the masked positions (their six rows 3 of 6 -> 6 of 6) */
/* 63.5 before AutoModel's DeepSeek-V3 and Kimi K2 rows ran its interleaved
 * pipeline with recomputation (their three rows 1 of 3 -> 2 of 3); 63.8
 * before Blackwell's K0 came from its SMs' way out (the Blackwell rows'
 * errors shrink, and with them the multi-node Megatron band, err80 0.171
 * -> 0.164, that vTrain's multi-node rows are held to: 78.9 -> 61.5 %) */
#define BAND_POOLED_PIN 60.2

START_TEST(bands_cover)
{
	struct ts_error e;
	char buf[1400];
	struct val_row *all = NULL;
	size_t n = 0;
	ck_assert_msg(val_load_all(tu_root(), &all, &n, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	double *pred = ts_calloc(n, sizeof *pred), *loso = ts_calloc(n, sizeof *loso);
	bool *unseen = ts_calloc(n, sizeof *unseen);
	ck_assert(pred && loso && unseen);
	ck_assert_msg(val_predict_all(cat, &calib, all, n, NULL, pred, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	/* every row of a fitted source with the constants refit without it */
	struct loso_table stored;
	bool found = false;
	ck_assert_msg(loso_load(tu_root(), &stored, &found, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	ck_assert(found);
	ck_assert_msg(loso_predict(cat, &calib, &stored, all, n, pred, loso, unseen, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(unseen[i], "%s: not out of sample", all[i].id);
	/* loso.cfg's errors are the ones its constants give (the refits
	 * themselves: `cmake --build BUILD --target check-loso`) */
	struct loso_table live = {0};
	loso_errors(all, n, pred, loso, &live);
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++) {
		const char *nm = val_source_name((enum val_source)k);
		const struct loso_source *a = &live.s[k], *b = &stored.s[k];
		ck_assert_msg(a->present && b->present, "%s: not in loso.cfg", nm);
		ck_assert_uint_eq(a->rows, b->rows);
		ck_assert(a->refit == b->refit);
		ck_assert_msg(fabs(a->mape - b->mape) < 1e-4 &&
				  fabs(a->plain_mape - b->plain_mape) < 1e-4 &&
				  fabs(a->speed_bias - b->speed_bias) < 1e-4 &&
				  fabs(a->plain_speed_bias - b->plain_speed_bias) < 1e-4,
			      "loso.cfg %s: MAPE %.4f (plain %.4f), the rows give %.4f (%.4f): "
			      "regenerate it (trainsim validate --loso)",
			      nm, b->mape, b->plain_mape, a->mape, a->plain_mape);
		/* nothing fitted on a checked source: its figure is the plain one */
		if (!a->refit)
			ck_assert(a->mape == a->plain_mape);
	}
	double hm, hp;
	ck_assert_uint_eq(loso_headline(&live, &hm, &hp), VAL_SOURCE_COUNT_);
	printf("leave-one-source-out: %.2f %% mean of %d sources' MAPE (%.2f %% plain)\n",
	       100.0 * hm, VAL_SOURCE_COUNT_, 100.0 * hp);

	struct band_resid *res = NULL;
	size_t nres = 0;
	ck_assert_msg(val_residuals(cat, all, n, loso, unseen, &res, &nres, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	int failures = 0;
	size_t pooled_rows = 0, pooled_in = 0;
	printf("%-27s %5s %8s %11s  %s\n", "source", "rows", "coverage", "half-width", "regimes");
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++) {
		struct band_coverage cv;
		const char *nm = val_source_name((enum val_source)k);
		ck_assert_int_eq(band_coverage_of(res, nres, nm, &cv, &e), 0);
		ck_assert_uint_gt(cv.rows, 0);
		ck_assert_uint_eq(cv.no_band, 0);
		pooled_rows += cv.rows;
		pooled_in += cv.inside;
		printf("%-27s %5zu %7.1f%% %10.1f%%  %s\n", nm, cv.rows, 100.0 * cv.coverage,
		       100.0 * cv.median_hw, cv.regimes);
		if (cv.rows < BAND_MIN_CHECK)
			continue;
		bool pinned = false;
		for (size_t j = 0; j < sizeof band_pins / sizeof band_pins[0]; j++) {
			if (strcmp(band_pins[j].source, nm))
				continue;
			pinned = true;
			if (fabs(100.0 * cv.coverage - band_pins[j].coverage) > BAND_PIN_MARGIN ||
			    fabs(100.0 * cv.median_hw - band_pins[j].half_width) >
				BAND_PIN_MARGIN) {
				printf("FAIL: %s coverage %.1f %%, half-width %.1f %%: documented "
				       "%.1f and %.1f %% (sim/README.md, Bands)\n",
				       nm, 100.0 * cv.coverage, 100.0 * cv.median_hw,
				       band_pins[j].coverage, band_pins[j].half_width);
				failures++;
			}
		}
		if (!pinned) {
			printf("FAIL: %s has %zu rows and no documented coverage\n", nm, cv.rows);
			failures++;
		}
	}
	double pooled = (double)pooled_in / (double)pooled_rows;
	printf("all                         %5zu %7.1f%%\n", pooled_rows, 100.0 * pooled);
	if (fabs(100.0 * pooled - BAND_POOLED_PIN) > BAND_PIN_MARGIN) {
		printf("FAIL: pooled coverage %.1f %%, documented %.1f %%\n", 100.0 * pooled,
		       BAND_POOLED_PIN);
		failures++;
	}
	/* the committed table is the one these rows give */
	struct band_table want, have;
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
	/* a stack or GPU the set knows poorly gets a wider band than one it
	 * knows well: PyTorch-native FSDP on H100 nodes and Blackwell (B200,
	 * GB200: no regime of their own, the pooled multi-node one) against
	 * Megatron on H100 nodes */
	const struct band_regime *h_meg = band_lookup(&want, "H100", 8, WORK_FW_MEGATRON),
				 *h_fsdp = band_lookup(&want, "H100", 8, WORK_FW_FSDP),
				 *b_meg = band_lookup(&want, "B200", 8, WORK_FW_MEGATRON),
				 *gb_meg = band_lookup(&want, "GB200", 8, WORK_FW_MEGATRON);
	ck_assert(h_meg && h_fsdp && b_meg && gb_meg);
	printf("bands: H100 Megatron %s %.3f, H100 FSDP %s %.3f, B200 %s %.3f, GB200 %s %.3f\n",
	       h_meg->key, h_meg->err80, h_fsdp->key, h_fsdp->err80, b_meg->key, b_meg->err80,
	       gb_meg->key, gb_meg->err80);
	ck_assert_str_eq(h_meg->key, "H/multi/megatron");
	/* 1.44 x since TP overlap is charged per GEMM (2026-12-06: H100
	 * Megatron's band widened from 0.130 to 0.159 as MEG24 turned too
	 * fast); 1.84 x before */
	ck_assert(h_fsdp->err80 > 1.4 * h_meg->err80);
	/* Blackwell takes the pooled multi-node Megatron band, wider than H100
	 * Megatron's but (since the measured Blackwell and fp8 matmul rates of
	 * 2026-12-05) only by about 13 % (sim/README.md, Bands) */
	ck_assert(b_meg->err80 > h_meg->err80);
	ck_assert(gb_meg->err80 > h_meg->err80);
	ts_free(res, nres * sizeof *res);
	ts_free(pred, n * sizeof *pred);
	ts_free(loso, n * sizeof *loso);
	ts_free(unseen, n * sizeof *unseen);
	val_rows_free(all, n);
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
