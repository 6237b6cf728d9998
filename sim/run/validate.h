/* Validation against published measurements: the rows of
 * tests/validation/ as scenarios, their predictions and errors, the summary
 * statistics, and the fit of calibration constants on the fitting rows.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_VALIDATE_H
#define TS_RUN_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "run/band.h"
#include "work/compute.h"

/* Files under the data root. */
#define VAL_VTRAIN_CSV "tests/validation/vtrain/ground_truth_single.csv"
#define VAL_MEASUREMENTS_CSV "tests/validation/measurements.csv"
#define VAL_VTRAIN_MULTI_CSV "tests/validation/vtrain/ground_truth_multi.csv"
#define VAL_MULTI_CSV "tests/validation/measurements_multi.csv"
#define VAL_NEW_CSV "tests/validation/measurements_new.csv"

/* Where a row comes from. */
enum val_source {
	VAL_VTRAIN,	  /* vTrain single-node Megatron-DeepSpeed runs (Bang et al. 2024) */
	VAL_BERT,	  /* NVIDIA DeepLearningExamples BERT-Large pre-training, one node */
	VAL_MEG24,	  /* Megatron-LM README, Megatron-Core r0.8.0 on H100 (2024) */
	VAL_MPT,	  /* MosaicML llm-foundry MPT benchmarks, PyTorch FSDP */
	VAL_TITAN,	  /* PyTorch torchtitan docs/performance.md, FSDP2 on 64 A100 */
	VAL_VTRAIN_MULTI, /* vTrain multi-node Megatron-DeepSpeed runs, 64-512 A100 */
	/* measurements_new.csv, one per source_key (val_load_new): */
	VAL_MLPERF41,  /* MLPerf Training v4.1, NVIDIA GPT-3 175B (H100, B200) */
	VAL_MLPERF50,  /* MLPerf Training v5.0, Llama 3.1 405B (H100, GB200) */
	VAL_IBM_FSDP,  /* PyTorch blog "Maximizing training throughput using PyTorch
			* FSDP" (IBM and Meta, 2024), Table 1 (H100, A100) */
	VAL_AUTOMODEL, /* NeMo AutoModel performance summary, FSDP2 (H100) */
	VAL_SOURCE_COUNT_
};

/* What a row measures. */
enum val_metric {
	VAL_ITERATION_S,	  /* seconds per training iteration */
	VAL_SAMPLES_PER_S,	  /* sequences per second, whole job */
	VAL_TFLOPS_PER_GPU,	  /* the source's model FLOPs per iteration / time / GPUs, 1e12/s */
	VAL_MFU_PERCENT,	  /* the source's model FLOPs / (time x GPUs x its peak), percent */
	VAL_TOKENS_PER_S_PER_GPU, /* tokens per second per GPU */
	VAL_METRIC_COUNT_
};

/* One measured run turned into a scenario. Plain record. */
struct val_row {
	char id[32];		/* "vtrain-0071", "DLE-BERT-001" */
	char source[32];	/* "vtrain" or "bert" (val_source_name) */
	enum val_source src;	/* the same as an enum */
	int index;		/* vTrain: data line number in the CSV, 1-based (header
				 * excluded); BERT: data line number in measurements.csv */
	double measured;	/* the measurement in the metric's unit (s, samples/s) */
	enum val_metric metric; /* what measured and the prediction are */
	bool fitting;		/* in the fitting half (odd vTrain, vTrain multi-node, MEG24
				 * and TITAN numbers; every other MPT row): val_fit uses it */
	int64_t hidden;		/* model hidden size (for grouping errors) */
	int64_t micro_batch;	/* sequences per micro-batch (for grouping errors) */
	int64_t gpus;		/* GPUs of the run */
	char scenario[1024];	/* scenario text for ts_scenario_load_string */
	/* Multi-GPU sources (val_load_multi) only: */
	char needs[24];	     /* "tp/pp/zero" parts the row needs beyond data parallelism */
	double source_flops; /* model FLOPs per iteration by the source's own formula */
	double source_peak;  /* the dense peak the source's MFU divides by, FLOP/s */
	const char *formula; /* that formula as text (static) */
};

/* "vtrain", "bert", "meg24", "mpt", "titan", "vtrain-multi", then the
 * source_key of each source of measurements_new.csv ("mlperf-training-v4.1",
 * "mlperf-training-v5.0", "pytorch-blog-fsdp-ibm-2024",
 * "nemo-automodel-perf"); "?" out of range. */
const char *val_source_name(enum val_source s);

/* The source named `name` (val_source_name) into *out; false when none. */
bool val_source_parse(const char *name, enum val_source *out);

/* Whether val_fit fits on the source's fitting half (vTrain, MEG24, MPT,
 * TITAN); the other sources are checked only. */
bool val_source_fitted(enum val_source s);
/* "iteration_s", "samples_per_s", "tflops_per_gpu", "mfu_percent",
 * "tokens_per_s_per_gpu"; "?" out of range. */
const char *val_metric_name(enum val_metric m);

/* Read ROOT/VAL_VTRAIN_CSV (rows with tensor and pipeline parallel size 1)
 * and ROOT/VAL_MEASUREMENTS_CSV (the DLE-BERT rows) into a new array *rows of
 * *n rows, vTrain rows first in file order. Every row's scenario states the
 * source's settings (see validate.c). The caller frees *rows with
 * val_rows_free. Returns 0, or TS_EIO (a file missing), TS_ESYNTAX (a line
 * that does not parse; `err` names file and line), TS_ELIMIT (a scenario text
 * too long) or TS_ENOMEM; *rows is NULL and *n 0 on failure. */
int val_load(const char *root, struct val_row **rows, size_t *n, struct ts_error *err);

/* Read the multi-GPU sources: ROOT/VAL_MULTI_CSV (the MEG24, MPT and TITAN
 * rows of the shared measurements, in file order) and ROOT/VAL_VTRAIN_MULTI_CSV
 * (every row), into a new array as val_load does. Each row's scenario states
 * its source's settings and the assumptions where the source is silent
 * (validate.c); `needs` names the tp, pp and zero it uses; source_flops is
 * the source's own FLOP formula for the row (`formula`). Same errors as
 * val_load. */
int val_load_multi(const char *root, struct val_row **rows, size_t *n, struct ts_error *err);

/* Read ROOT/VAL_NEW_CSV (tests/validation/README.md describes it) into a new
 * array as val_load does: each row's `scenario` column is its scenario, its
 * `source_key` its source (one of VAL_MLPERF41 .. VAL_AUTOMODEL; another
 * key is TS_ESYNTAX naming it), its `figure` what it is compared on
 * (tokens_per_s_per_gpu or iteration_s) and `value` the measurement. No
 * row is fitting. Same errors as val_load. */
int val_load_new(const char *root, struct val_row **rows, size_t *n, struct ts_error *err);

/* Every row of the three above in one array (val_load's, val_load_multi's,
 * then val_load_new's, each in file order), freed with val_rows_free. Same
 * errors. */
int val_load_all(const char *root, struct val_row **rows, size_t *n, struct ts_error *err);

/* Free what val_load returned (NULL is fine). */
void val_rows_free(struct val_row *rows, size_t n);

/* Simulate row r with the constants c on catalog cat and put the predicted
 * value of r->metric in *predicted; a row whose settings trainsim does not
 * model yet (plan_check_modelled) gets NAN and is no failure. Returns 0 or
 * the errors of ts_scenario_load_string and ts_run, with `err` filled (may
 * be NULL). */
struct ts_result;

/* Load scenario text `text` (labelled `label` in messages) on catalog cat
 * and simulate it with constants c into *res: 0 with *modelled true, 0
 * with *modelled false when a setting is not modelled yet
 * (plan_check_modelled: nothing simulated, no failure), or the errors of
 * ts_scenario_load_string and ts_run with `err` filled (may be NULL). The
 * one way every validation row is run (time and memory). */
int val_run_text(const struct hw_catalog *cat, const struct work_calib *c, const char *text,
		 const char *label, struct ts_result *res, bool *modelled, struct ts_error *err);

int val_predict(const struct hw_catalog *cat, const struct work_calib *c, const struct val_row *r,
		double *predicted, struct ts_error *err);

/* val_predict for rows[i] with use == NULL or use[i] true, into pred[i] (the
 * others are left alone). Rows run in parallel (OpenMP); results do not
 * depend on the thread count. A row whose settings trainsim does not model
 * yet gets pred[i] = NAN (val_predict) and is no failure (val_summarize
 * counts it as not run). On failure
 * returns the error of the first failing row by index. */
int val_predict_all(const struct hw_catalog *cat, const struct work_calib *c,
		    const struct val_row *rows, size_t n, const bool *use, double *pred,
		    struct ts_error *err);

/* Whether no constant was fitted on row r: the held-out halves of the
 * fitted sources, every row of the check-only ones (BERT, vTrain
 * multi-node). */
bool val_unseen(const struct val_row *r);

/* The residuals the bands are estimated from (sim/run/band.h): for every
 * row i with pred[i] finite and unseen[i] (NULL: val_unseen), r =
 * ln(measured time / predicted time) (throughput rows by the reciprocal),
 * its source and its regime at every level (the scenario's GPU type, nodes
 * and framework), into a new array *out of *n_out (free with ts_free(*out,
 * *n_out x size), NULL when empty). Leave-one-source-out predictions
 * (sim/run/loso.h) make every row of a source unseen. Returns 0, the
 * scenario's load error, or TS_ENOMEM. */
int val_residuals(const struct hw_catalog *cat, const struct val_row *rows, size_t n,
		  const double *pred, const bool *unseen, struct band_resid **out, size_t *n_out,
		  struct ts_error *err);

/* Signed relative error of a prediction, (predicted - measured) / measured. */
double val_error(const struct val_row *r, double predicted);

/* Errors of a set of rows: count, mean signed and mean absolute error
 * (fractions, not percent; MAPE = mape x 100 %), the worst absolute error. */
struct val_err_stats {
	size_t n;
	double mean;	/* mean signed relative error */
	double mape;	/* mean absolute relative error */
	double worst;	/* largest absolute relative error */
	size_t not_run; /* rows without a prediction (NAN: not modelled yet) */
};

/* Most distinct values of a grouping key kept by val_summarize. */
#define VAL_MAX_GROUPS 16

/* A group of vTrain rows sharing one value of a key. */
struct val_group {
	int64_t key; /* hidden size or micro-batch */
	struct val_err_stats e;
};

/* What the validation report prints after the rows. Plain record. */
struct val_summary {
	struct val_err_stats by_source[VAL_SOURCE_COUNT_];
	struct val_err_stats half[VAL_SOURCE_COUNT_][2]; /* per source: [0] fitting
							  * half, [1] the others */
	struct val_err_stats fitting;			 /* odd-numbered vTrain rows */
	struct val_err_stats held_out;			 /* even-numbered vTrain rows */
	struct val_group by_hidden[VAL_MAX_GROUPS];	 /* vTrain rows, ascending key */
	size_t n_hidden;
	struct val_group by_micro_batch[VAL_MAX_GROUPS]; /* vTrain rows, ascending key */
	size_t n_micro_batch;
};

/* Summarise the errors of rows[i] against pred[i] for the rows with
 * use == NULL or use[i] true (a NAN prediction counts in not_run only). Groups beyond
 * VAL_MAX_GROUPS distinct keys are dropped (not the case for the bundled data). */
void val_summarize(const struct val_row *rows, size_t n, const bool *use, const double *pred,
		   struct val_summary *out);

/* The constants the fit adjusts, as work_calib_field indices, and their
 * count. */
#define VAL_FIT_COUNT 2
extern const size_t val_fit_keys[VAL_FIT_COUNT];

/* Result of val_fit. */
struct val_fit_result {
	struct work_calib calib; /* the start with the fitted constants replaced */
	double mape_before;	 /* mean per-source MAPE on the fitting rows at the start */
	double mape_after;	 /* ... with the fitted constants */
	size_t evaluations;	 /* objective evaluations (each simulates every fitting row) */
	size_t rows;		 /* fitting rows used */
};

/* Fit the VAL_FIT_COUNT constants of val_fit_keys (launch_s, tc_sustain;
 * gemm_k0, taken from a published GEMM table, and tile_n stay at *start's), starting from *start,
 * by minimising the mean over the sources vTrain, MEG24, MPT and TITAN of each source's MAPE on its
 * fitting half (rows with `fitting`: rows from val_load and val_load_multi together): a scan of
 * tc_sustain over 0.6-1.0, then GSL's Nelder-Mead simplex (nmsimplex2) in normalised coordinates,
 * each constant kept inside its bounds (validate.c), at most 60 iterations. Only the fitting rows
 * are simulated. Deterministic. mape_before and mape_after are that mean. Returns 0, TS_EINVALID
 * (no fitting rows), TS_ENOMEM or the errors of val_predict. */
int val_fit(const struct hw_catalog *cat, const struct work_calib *start,
	    const struct val_row *rows, size_t n, struct val_fit_result *out, struct ts_error *err);

/* val_fit without the rows of source `without` (VAL_SOURCE_COUNT_: none):
 * the mean is over the other fitted sources. TS_EINVALID when no fitting
 * rows remain. */
int val_fit_without(const struct hw_catalog *cat, const struct work_calib *start,
		    const struct val_row *rows, size_t n, enum val_source without,
		    struct val_fit_result *out, struct ts_error *err);

#endif
