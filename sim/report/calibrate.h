/* The writers of trainsim calibrate: the report of each fit (to one
 * measured iteration, to nccl-tests output, to a profiler trace, to a CSV
 * of runs) from what sim/sweep/calibrate and run/calibfit computed. The
 * overrides file is written by io/calibcfg.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_CALIBRATE_H
#define TS_REPORT_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include "io/kineto.h"
#include "run/calibfit.h"
#include "sweep/calibrate.h"
#include "work/compute.h"

/* How fitted value c1 compares with committed value c0, as the report and
 * the refusal of a fit at its bound say it: "1/%g of" (c1 < c0) or "%g
 * times", into b (size n). */
void report_calibrate_ratio(char *b, size_t n, double c0, double c1);

/* The fit of a link type's efficiency to nccl-tests all-reduce output
 * `file` on scenario `path`: the plateau, the link's efficiency and busbw
 * before and fitted, the note when it stopped at a bound. Write errors are
 * left to the stream. */
void report_calibrate_nccl(FILE *out, const char *path, const char *file,
			   const struct calib_link_fit *fit);

/* The fit of scenario `path` to a measured iteration of `measured` s: each
 * candidate constant before (`before`) and fitted with its elasticity, the
 * iteration time before and fitted against the measurement, the note when
 * the constant stopped at a bound. Write errors are left to the stream. */
void report_calibrate_iteration(FILE *out, const char *path, double measured,
				const struct work_calib *before, const struct calib_fit *fit);

/* The trace part of a fit of scenario `path` to profiler trace t (read
 * from trace_path): the kernel time by op class, measured, with the catalog
 * and fitted constants; the unknown kernels, largest first; the NCCL
 * kernels left out. report_calibrate_fit and
 * report_calibrate_trace_iteration follow it. */
void report_calibrate_trace(FILE *out, const char *path, const char *trace_path,
			    const struct kineto_trace *t, const struct calibfit *f);

/* The constants of a multi-constant fit f (catalog, fitted, 80 % band,
 * elasticity, and where each came from: `what` for the fitted ones) and its
 * residual against the catalog's. */
void report_calibrate_fit(FILE *out, const struct calibfit *f, const char *what);

/* The traced iteration against the catalog's and the fitted prediction. */
void report_calibrate_trace_iteration(FILE *out, const struct calibfit *f);

/* One measured run of a fit to a CSV of runs, as predicted. */
struct report_calib_run {
	const char *label;  /* "FILE:LINE (scenario --set ...)" (borrowed) */
	const char *metric; /* iteration_time_s, samples_per_s or tokens_per_s */
	double measured;    /* the run's measured value, unit of the metric */
	double catalog;	    /* predicted with the catalog's constants */
	double fitted;	    /* predicted with the fitted constants */
};

/* The runs part of a fit to the n runs of CSV csv_path on GPU `gpu`: each
 * run measured, with the catalog's and the fitted prediction.
 * report_calibrate_fit follows it. */
void report_calibrate_runs(FILE *out, const char *csv_path, const char *gpu,
			   const struct report_calib_run *runs, size_t n);

#endif
