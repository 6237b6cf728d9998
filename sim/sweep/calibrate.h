/* Calibrating the compute constants to a user's own measurement: one
 * measured iteration time of one scenario moves the one constant that time
 * depends on most, and leaves the others at their committed values.
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_CALIBRATE_H
#define TS_SWEEP_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/nccltests.h"
#include "io/scenario.h"
#include "work/compute.h"

/* Constants one measurement may move: gemm_k0 and launch_s (tile_n, the
 * third constant `trainsim validate --fit` fits, is a GEMM tile width, a
 * discrete kernel choice that one number cannot pin). */
#define CALIB_NKEYS 2
/* Index into work_calib_key/work_calib_field of candidate i < CALIB_NKEYS. */
size_t calib_key(size_t i);

/* The fitted constant stays within [c0 / CALIB_RANGE, c0 x CALIB_RANGE] of
 * its committed value c0: beyond that a measurement says more about what
 * trainsim does not model than about the constant. */
#define CALIB_RANGE 64.0

/* Result of calib_fit_iteration. Plain record. */
struct calib_fit {
	struct work_calib calib;	/* the start with the fitted constant replaced */
	size_t key;			/* work_calib index of the constant fitted */
	double elasticity[CALIB_NKEYS]; /* d ln T / d ln c of candidate i at the start */
	double before_s;		/* predicted iteration time at the start, s */
	double after_s;			/* ... with the fitted constants, s */
	size_t evaluations;		/* simulations run */
	bool at_bound;			/* the measurement lies beyond CALIB_RANGE: the
					 * constant stops at the nearer bound */
};

/* Fit scenario sc (borrowed) to a measured iteration of measured_s seconds,
 * starting from the committed constants *start.
 *
 * One number fixes one degree of freedom: with three free constants every
 * point of a two-dimensional surface of equal time fits, and a simplex
 * lands anywhere on it (on GPT-3 1.3B, launch_s went from 78 us to 2.7 us).
 * So the fit moves one constant, the candidate of largest elasticity
 * e = |d ln T / d ln c| (central difference over c x 1.1 and c / 1.1): a
 * relative time error dT/T asks for dc/c = (dT/T) / e, smallest where e is
 * largest, so this is the single-constant solution nearest the committed
 * constants. T(c) is monotone in each candidate (a larger K0 lowers GEMM
 * efficiency, a longer launch delays every kernel); the root of
 * ln T(c0 e^x) = ln measured is found with GSL's Brent solver on x in
 * [-ln CALIB_RANGE, ln CALIB_RANGE] to 1e-9 in x. A measurement equal to
 * the prediction returns *start unchanged. Deterministic.
 * Returns 0, TS_ERANGE (measured_s not positive), TS_EINVALID (the
 * iteration depends on none of the candidates) or the errors of ts_run,
 * with `err` filled. */
int calib_fit_iteration(const struct ts_scenario *sc, const struct work_calib *start,
			double measured_s, struct calib_fit *out, struct ts_error *err);

/* Result of calib_fit_nccl. Plain record. */
struct calib_link_fit {
	char link[48];	     /* link type fitted ("nvlink3", "ib-hdr") */
	size_t link_index;   /* its catalog index */
	uint32_t gpus;	     /* ranks of the all-reduce */
	uint32_t nodes;	     /* nodes they span */
	double from_bytes;   /* smallest size of the plateau, bytes */
	double measured_Bps; /* measured plateau busbw, bytes/s */
	double before_eff;   /* the catalog's efficiency */
	double before_Bps;   /* predicted plateau busbw with it, bytes/s */
	double fitted_eff;   /* the efficiency whose prediction matches */
	double after_Bps;    /* predicted plateau busbw with it, bytes/s */
	size_t evaluations;  /* plateaus simulated */
	bool at_bound;	     /* the measurement lies beyond (CALIB_EFF_MIN, 1]:
			      * the efficiency stops at the nearer bound */
};

/* Lowest link efficiency the nccl-tests fit tries. */
#define CALIB_EFF_MIN 0.01

/* Predicted busbw of an all-reduce of `bytes` over the first `gpus` GPUs
 * of scenario sc's cluster (class mode when they fill whole nodes), as
 * nccl-tests defines it: bytes / time x 2 (n - 1) / n, bytes/s, into
 * *busbw_Bps. Returns 0, TS_ENOMEM or the errors of coll_start. */
int calib_coll_busbw(const struct ts_scenario *sc, uint32_t gpus, double bytes, double *busbw_Bps,
		     struct ts_error *err);

/* Fit the efficiency of the link type an all-reduce of scenario file
 * `path` (with `sets`) is bound by to the nccl-tests table t: the GPUs'
 * own link (NVLink, or the first link of GPU 0) when the ranks fit in one
 * node, else the type of node 0's first NIC. The ranks are t->nranks (the
 * file's "# Rank" lines), else the scenario's GPUs; more than one node
 * takes whole nodes. The plateau (nccltests_plateau) is simulated at the
 * same sizes with the cluster rebuilt from catalog cat for each candidate
 * efficiency e; busbw(e) is monotone in e, and GSL's Brent solver finds
 * busbw(e) = measured on [CALIB_EFF_MIN, 1] to 1e-6 in e. cat is left with
 * its efficiency unchanged. Deterministic. Returns 0, TS_EINVALID (no
 * plateau, more ranks than the scenario's GPUs, or ranks that are not
 * whole nodes, a table that is not an all-reduce's (a row without a
 * reduction or with a root column), ranks on another GPU than the
 * scenario's (calib_device_matches); file and line named), TS_EUNSUPPORTED (no link to fit), or the
 * errors of ts_scenario_load and calib_coll_busbw, with `err` filled. */
/* Whether a measurement's device name (a trace's deviceProperties name, an
 * nccl-tests "# Rank" line's device) can be catalog GPU `gpu`: the first
 * '-'-separated part of gpu that holds a digit ("A100" of
 * "A100-SXM4-80GB", "4090" of "RTX-4090", "MI300X") appears in device as a
 * word, case aside ("NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 4090"). The
 * vendor's names differ from the catalog's ("NVIDIA H100 80GB HBM3" for
 * H100-SXM5-80GB), so the form factor and memory are not compared. An empty
 * device (not recorded) matches. */
bool calib_device_matches(const char *gpu, const char *device);

int calib_fit_nccl(struct hw_catalog *cat, const char *path, const char *const *sets, size_t nsets,
		   const struct nccl_table *t, struct calib_link_fit *out, struct ts_error *err);

#endif
