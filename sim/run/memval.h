/* Memory validation: peak memory per GPU and fit verdicts predicted for
 * the public reports of tests/validation/ (memory_fit.csv, memory_peaks.csv),
 * as records: per row, per source, and a leave-one-source-out summary.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_MEMVAL_H
#define TS_RUN_MEMVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "work/compute.h"

/* Which figure a source measured. */
enum memval_figure {
	MEMVAL_ALLOCATED, /* torch.cuda.max_memory_allocated */
	MEMVAL_RESERVED,  /* torch.cuda.max_memory_reserved */
	MEMVAL_DEVICE,	  /* nvidia-smi / the device total */
	MEMVAL_FIGURE_COUNT_
};

/* What a source reports. */
enum memval_outcome {
	MEMVAL_MEASURED, /* a measured peak (it ran, so it also fits) */
	MEMVAL_TRAINED,	 /* it ran, no figure */
	MEMVAL_OOM,	 /* it ran out of memory */
	MEMVAL_OUTCOME_COUNT_
};

/* One report and its prediction. Plain record; strings owned by the set. */
struct memval_row {
	char id[48];
	char source[96]; /* the independent source (rows sharing it are left out together) */
	char url[256];	 /* where it is published */
	enum memval_figure figure;
	enum memval_outcome outcome;
	double measured_gib; /* GiB (2^30 bytes); 0 unless MEMVAL_MEASURED */
	bool pinned;	     /* a known gap of memory_fit.csv (expected on the wrong side) */
	char *scenario;	     /* the trainsim scenario text */
	/* the prediction (memval_predict) */
	bool run;	      /* simulated (false: a setting not modelled yet) */
	double predicted_gib; /* the figure the source measured, GiB */
	double capacity_gib;  /* usable memory of the GPU, GiB */
	char verdict[16];     /* "fits", "tight", "does not fit" */
	bool verdict_right;   /* fits/tight for measured and trained rows, not for oom ones */
	double error;	      /* (predicted - measured) / measured; 0 without a figure */
};

/* The rows of a validation set (owned). */
struct memval_set {
	struct memval_row *rows;
	size_t n, cap;
};

/* The rows of both files under data root `root` (memory_fit.csv first, its
 * source the URL; measured figures there are nvidia-smi's) into *set
 * (zeroed first). Returns 0, TS_EIO, TS_ESYNTAX (a missing column, a
 * figure, outcome or number that does not parse: file, line and column
 * named) or TS_ENOMEM; *set is empty on failure. Free with memval_free. */
int memval_load(const char *root, struct memval_set *set, struct ts_error *err);

/* Free the rows of set and zero it (a zeroed set is fine). */
void memval_free(struct memval_set *set);

/* Simulate every row with constants c on catalog cat and fill its
 * prediction (rows run in parallel with OpenMP; results do not depend on
 * the thread count). A row whose settings trainsim does not model yet is
 * left with run = false. Returns 0 or the first failing row's error. */
int memval_predict(const struct hw_catalog *cat, const struct work_calib *c,
		   struct memval_row *rows, size_t n, struct ts_error *err);

/* Errors of one source (or of all rows: source "all"). Fractions. */
struct memval_source {
	char source[96];
	int rows;	  /* rows run */
	int measured;	  /* of them with a measured figure */
	double mape;	  /* mean |error| over measured rows */
	double bias;	  /* mean signed error */
	double worst;	  /* largest |error| */
	int verdicts;	  /* rows with a verdict to check (all run rows but pinned) */
	int right;	  /* verdicts on the reported side ("tight" counts right when it ran) */
	double loso_band; /* the 80 % half-width in log units estimated from every other
			   * source's measured rows (80th percentile of |ln(pred/meas)|) */
	int loso_inside;  /* measured rows within exp(+-loso_band) of their measurement */
};

/* Summaries per source, in order of first appearance, into out[0..max)
 * (*n of them), and `all` over every row: its mape is the mean over
 * sources of their MAPE (each source weighs one), its loso_band the
 * pooled one and loso_inside the rows inside their own source's band.
 * Nothing in the memory model is fitted to these rows: the
 * leave-one-source-out figures are the band (the stated error), fitted
 * on the other sources. */
void memval_summarize(const struct memval_row *rows, size_t n, struct memval_source *out,
		      size_t max, size_t *nout, struct memval_source *all);

/* Names of a figure and an outcome ("allocated", "oom"). */
const char *memval_figure_name(enum memval_figure f);
const char *memval_outcome_name(enum memval_outcome o);

#endif
