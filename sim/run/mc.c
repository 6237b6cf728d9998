/* Monte-Carlo replicas of a run (sim/run/mc.h).
 *
 * The engine plays the deterministic run once (the headline); a replica
 * draws what varies from one real run of the job to the next and applies
 * it to that run's critical path: the compute on it runs at the pace of
 * the replica's slowest GPU (a synchronous step waits for its slowest
 * rank), the exposed communication at the pace of its slowest link and
 * its noisiest transfer, and the whole run meets the replica's own
 * failures (sim/run/cost.h, cost_whole_run_drawn). Replicas cost a few
 * microseconds each, none of them allocates, and each draws from its own
 * stream seeded from (scenario seed, replica index), so the quantiles are
 * the same whatever thread draws which replica.
 *
 * The maximum of n normals is drawn in one step by inverting its
 * distribution function Phi^n; the mean over many iterations of such a
 * maximum (kernel jitter, network noise, fresh every iteration) by its
 * normal limit, mean E[max] and standard deviation sd[max] / sqrt(iters).
 * SPDX-License-Identifier: MIT */
#include "base/hash.h"
#include "run/mc.h"

#include <assert.h>
#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "work/straggle.h"

void mc_params_init(const struct ts_scenario *sc, double iters, double head_straggle,
		    struct mc_params *out)
{
	const struct ts_simopts *o = &sc->sim;
	*out = (struct mc_params){
	    .gpus = sc->gpus > 0 ? sc->gpus : 1,
	    .nodes = sc->nodes > 0 ? sc->nodes : 1,
	    .sd = o->straggler_sd,
	    .jitter = o->jitter,
	    .net_noise = o->net_noise,
	    .slow_node_p = o->slow_node_p,
	    .slow_node_slowdown = o->slow_node_slowdown,
	    .slow_link_p = o->slow_link_p,
	    .slow_link_bw = o->slow_link_bw > 0.0 ? o->slow_link_bw : 1.0,
	    .iters = iters >= 1.0 ? iters : 1.0,
	};
	/* the headline's pace, as sim/run/run.c gives it to the schedule */
	out->head_pace = 1.0 + head_straggle;
	if (out->jitter > 0.0) {
		out->gmax_mean = straggle_expected_max(out->gpus);
		out->gmax_sd = straggle_max_sd(out->gpus);
	}
	if (out->net_noise > 0.0 && out->nodes > 1) {
		out->nmax_mean = straggle_expected_max(out->nodes);
		out->nmax_sd = straggle_max_sd(out->nodes);
	}
}

uint64_t mc_seed(uint64_t seed, uint64_t replica)
{
	return hash_splitmix64(hash_splitmix64(seed) ^ (replica * HASH_GOLDEN_GAMMA));
}

void mc_rng_seed(struct mc_rng *m, uint64_t seed)
{
	assert(gsl_rng_taus2->size <= sizeof m->state);
	m->r.type = gsl_rng_taus2;
	m->r.state = m->state;
	/* taus2 takes 32 bits of its seed: fold the upper half in */
	gsl_rng_set(&m->r, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
}

/* The mean over p->iters iterations of the maximum of n normals, fresh
 * each iteration, by its normal limit. */
static double mean_of_max(gsl_rng *r, double mean, double sd, double iters)
{
	return mean + sd / sqrt(iters) * gsl_ran_ugaussian(r);
}

void mc_draw(const struct mc_params *p, gsl_rng *r, struct mc_draw *out)
{
	/* one draw of each kind, always in this order */
	double u = gsl_rng_uniform_pos(r);
	unsigned int slow_nodes =
	    p->slow_node_p > 0.0 ? gsl_ran_binomial(r, p->slow_node_p, (unsigned int)p->nodes) : 0;
	unsigned int slow_links =
	    p->slow_link_p > 0.0 ? gsl_ran_binomial(r, p->slow_link_p, (unsigned int)p->nodes) : 0;
	double jit =
	    p->jitter > 0.0 ? p->jitter * mean_of_max(r, p->gmax_mean, p->gmax_sd, p->iters) : 0.0;
	double noise = p->net_noise > 0.0 && p->nodes > 1
			   ? p->net_noise * mean_of_max(r, p->nmax_mean, p->nmax_sd, p->iters)
			   : 0.0;
	double pace = p->sd > 0.0 ? 1.0 + p->sd * straggle_max_draw(u, p->gpus) : 1.0;
	if (slow_nodes > 0)
		pace = fmax(pace, 1.0 + p->slow_node_slowdown);
	/* a GPU more than twice as fast as the median is no draw of a
	 * sd <= 0.5 normal that matters; keep the pace positive */
	pace = fmax(pace, 0.5);
	out->compute = pace * (1.0 + fmax(jit, 0.0)) / p->head_pace;
	out->comm = (slow_links > 0 ? 1.0 / p->slow_link_bw : 1.0) * (1.0 + fmax(noise, 0.0));
}

void mc_band(double *v, size_t n, struct ts_band *out)
{
	assert(n >= 1);
	gsl_sort(v, 1, n);
	out->p10 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.1);
	out->p50 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.5);
	out->p90 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.9);
}
