/* Calibrating several constants at once to what a user measured on the
 * hardware they have: the kernel time of each op class in a PyTorch
 * profiler trace, or the iteration times (or throughputs) of a few small
 * runs; a nonlinear least-squares fit with a band for each constant and
 * the residual, refused only when the data contradict the model.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_CALIBFIT_H
#define TS_RUN_CALIBFIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/kineto.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "work/compute.h"

/* The constants a fit may move. GPU_HBM and GPU_FLASH are the GPU type's
 * own achievable fractions (hw_gpu_type.hbm_eff, .flash_eff), which take
 * precedence over work_calib's; the others are work_calib fields. */
enum calibfit_param {
	CALIBFIT_TC_SUSTAIN, /* work_calib.tc_sustain: GEMM (and flash) sustained fraction */
	CALIBFIT_GEMM_K0,    /* work_calib.gemm_k0: short-K GEMM cost */
	CALIBFIT_GPU_HBM,    /* the GPU's hbm_eff: memory-bound kernels */
	CALIBFIT_GPU_FLASH,  /* the GPU's flash_eff: fused attention */
	CALIBFIT_LAUNCH_S,   /* work_calib.launch_s: host time per kernel */
	CALIBFIT_NPARAMS_
};

/* Key of a parameter as an overrides file and a report name it ("tc_sustain",
 * "gemm_k0", "hbm_eff", "flash_eff", "launch_s"). */
const char *calibfit_param_key(enum calibfit_param p);

/* A set of constants: work_calib and the GPU type's two fractions. */
struct calibfit_consts {
	struct work_calib calib;
	double hbm_eff;	  /* the GPU's, 0..1 */
	double flash_eff; /* the GPU's, or the calibration's when the GPU gives none */
};

/* Value of parameter p in c. */
double calibfit_get(const struct calibfit_consts *c, enum calibfit_param p);

/* One fitted constant. Plain record. */
struct calibfit_value {
	bool fitted;	   /* moved by the data (else the catalog's) */
	double before;	   /* the catalog's value */
	double value;	   /* fitted (or before) */
	double p10, p90;   /* 80 % band of the fitted value from the fit's covariance */
	double elasticity; /* d ln(measured figure) / d ln(constant), largest over the data */
};

/* Per-class comparison of a trace fit, seconds per iteration on the
 * traced rank. */
struct calibfit_class {
	bool used;	   /* measured and predicted both positive: a residual */
	double measured_s; /* mean over the trace's iterations */
	double spread;	   /* relative standard deviation over the iterations */
	double before_s;   /* predicted with the catalog's constants */
	double after_s;	   /* predicted with the fitted ones */
};

/* Result of a fit. Plain record. */
struct calibfit {
	struct calibfit_consts start, fitted;
	struct calibfit_value v[CALIBFIT_NPARAMS_];
	struct calibfit_class cls[KINETO_CLASS_COUNT_]; /* trace fits */
	size_t rows;					/* measurements that entered the fit */
	double rms_before;	/* rms of ln(predicted / measured) with the catalog's constants */
	double rms_after;	/* ... with the fitted ones: the residual of the fit */
	double iter_measured_s; /* trace: mean host step; runs: 0 */
	double iter_before_s, iter_after_s; /* trace: ts_run's iteration before and after */
	size_t evaluations;		    /* model evaluations */
	char gpu[48];			    /* the GPU type whose fractions were fitted */
};

/* Predicted kernel time per iteration of each class on rank 0 (the first
 * pipeline stage) of plan p with constants c, s, into out: GEMM (the
 * unfused attention core's batched GEMMs and softmax included, as its
 * kernels are), flash forward and backward, memory-bound (with the
 * embedding), optimizer; layers x micro-batches x (forward, input and
 * weight gradients, recomputation). A layer-list model (family "layers")
 * maps its convolutions and linear layers to GEMM and their NCHW <-> NHWC
 * transposes, norms, pools and activations to memory-bound. NCCL and
 * unknown are 0. Returns 0, TS_EUNSUPPORTED (a mixture-of-experts model)
 * or the errors of work_costs_compute and work_lnet_ops. */
int calibfit_class_times(const struct ts_plan *p, const struct calibfit_consts *c,
			 double out[KINETO_CLASS_COUNT_], struct ts_error *err);

/* Fit tc_sustain, the GPU's hbm_eff and flash_eff (those the trace has
 * kernels of) to the per-class kernel time of trace t for scenario sc
 * (the traced rank's scenario), then launch_s so that the simulated
 * iteration matches the trace's mean host step when the device classes
 * alone do not. cat is the scenario's catalog: its GPU's fractions are set
 * during the fit and restored. Refused (TS_ERANGE) only when the data
 * contradict the model: a class that needs a fraction above 1 of the
 * GPU's peak or bandwidth, or a class still more than 25 % off after the
 * fit, naming the class and constant. Refused (TS_EUNSUPPORTED) when
 * kernels no op class maps take more than 25 % of the kernel time outside
 * NCCL, naming their share and the largest. Returns 0, that, or the errors of
 * plan_build, calibfit_class_times and ts_run. */
int calibfit_trace(struct hw_catalog *cat, const struct ts_scenario *sc,
		   const struct work_calib *start, const struct kineto_trace *t,
		   struct calibfit *out, struct ts_error *err);

/* One small run: a scenario with --set overrides and what was measured. */
struct calibfit_run {
	const struct ts_scenario *sc; /* borrowed */
	char label[160];	      /* for messages: "runs.csv:3 (file --set ...)" */
	int metric;		      /* 0 iteration_time_s, 1 samples_per_s, 2 tokens_per_s */
	double measured;	      /* in the metric's unit */
};

/* Fit gemm_k0, tc_sustain and launch_s (those the runs' times depend on)
 * to runs[0..n) by weighted nonlinear least squares in log space (GSL
 * multifit_nlinear, trust region with geodesic acceleration), each
 * constant held to its committed value by a weak prior (a factor of e at
 * one sigma) so that fewer runs than constants still fit, and never at a
 * bound. Refused (TS_ERANGE) only when the data contradict the model: a
 * run still more than 15 % off after the fit (naming the run and the
 * largest term of its predicted iteration) or a constant beyond what the
 * hardware allows. cat's GPU fractions are not touched. */
int calibfit_runs(const struct calibfit_run *runs, size_t n, const struct work_calib *start,
		  struct calibfit *out, struct ts_error *err);

#endif
