/* Monte-Carlo replicas of a run: the variability of a real job (GPU speed
 * spread, straggler nodes, slow links, kernel jitter, network noise,
 * failures) drawn per replica, and the quantiles of a figure over them.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_MC_H
#define TS_RUN_MC_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "io/scenario.h"
#include "run/result.h"

/* What the draws of every replica of one run depend on (mc_params_init). */
struct mc_params {
	uint64_t gpus, nodes;	   /* the job's */
	double sd;		   /* per-GPU speed spread, fraction (sim.straggler_sd) */
	double head_pace;	   /* 1 + sd E[max of gpus normals]: the headline's pace */
	double jitter;		   /* per-iteration compute jitter of a rank, CV (sim.jitter) */
	double net_noise;	   /* per-transfer bandwidth CV (sim.net_noise) */
	double slow_node_p;	   /* per node and run (sim.slow_node_probability) */
	double slow_node_slowdown; /* fraction (sim.slow_node_slowdown) */
	double slow_link_p;	   /* per node and run (sim.slow_link_probability) */
	double slow_link_bw;	   /* fraction of bandwidth left (sim.slow_link_bandwidth) */
	double iters;		   /* iterations a figure averages over, >= 1 */
	double gmax_mean, gmax_sd; /* of the maximum of `gpus` standard normals */
	double nmax_mean, nmax_sd; /* of the maximum of `nodes` standard normals */
};

/* One replica's draws, as multipliers of the headline run's parts. */
struct mc_draw {
	double compute; /* of compute_s and recompute_s; 1 = the headline's */
	double comm;	/* of exposed_comm_s; 1 = the headline's */
};

/* A random stream on the stack: gsl_rng_taus2 (L'Ecuyer 1996, period
 * 2^88) in storage of its own, so that seeding a replica allocates
 * nothing. Initialise with mc_rng_seed, use .r. */
struct mc_rng {
	gsl_rng r;
	unsigned long state[4];
};

/* The parameters of scenario sc's replicas (borrowed), whose figures
 * average over `iters` iterations (the run's steps; 1 without a run
 * length). head_straggle is the mean straggler slowdown the headline ran
 * with (fraction; ts_plan.straggle, straggle_slowdown of the job's GPUs),
 * so that the replicas spread around that very pace. Costs two quadratures
 * of sim/work/straggle.h (about 0.2 ms each) for each of jitter and
 * net_noise when set, none otherwise; allocates nothing. */
void mc_params_init(const struct ts_scenario *sc, double iters, double head_straggle,
		    struct mc_params *out);

/* The seed of replica `replica` of a run with master seed `seed`:
 * splitmix64 (Steele, Lea and Flood 2014) of the two, so that replicas get
 * unrelated streams and a replica's stream depends on nothing else (not
 * the thread that draws it). */
uint64_t mc_seed(uint64_t seed, uint64_t replica);

/* Seed stream m with `seed`. */
void mc_rng_seed(struct mc_rng *m, uint64_t seed);

/* Draw one replica (r borrowed): the job's compute runs at the pace of its
 * slowest GPU, 1 + sd x (the maximum of `gpus` normals, drawn exactly in
 * one draw: straggle_max_draw), or at 1 + slow_node_slowdown when one of
 * the nodes (a binomial count) is a straggler, whichever is slower; kernel
 * jitter adds jitter x (the mean over `iters` iterations of the maximum
 * over the ranks, by its normal limit); relative to the headline's pace.
 * Exposed communication runs 1 / slow_link_bw slower when one node's link
 * is slow (a binomial count), and net_noise x (the mean over `iters`
 * iterations of the maximum over the nodes) slower for the noise of a
 * shared fabric. Deterministic for a given stream state. */
void mc_draw(const struct mc_params *p, gsl_rng *r, struct mc_draw *out);

/* p10, p50 and p90 of v[0..n) (n >= 1; v sorted in place):
 * gsl_stats_quantile_from_sorted_data, linear interpolation between the
 * order statistics at (n - 1) q (Hyndman and Fan 1996, type 7). */
void mc_band(double *v, size_t n, struct ts_band *out);

#endif
