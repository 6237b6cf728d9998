/* Search over the modelled settings.
 *
 * Layouts (GPU counts) are loaded once each through the scenario loader
 * with --set nodes / gpus_per_node / parallel.dp, so the cluster is built
 * and checked as for `trainsim run`; the candidates of a layout are plain
 * copies of its scenario with the training fields changed (the copies share
 * the layout's cluster read-only, and are never destroyed). The static
 * estimate uses the same per-micro-batch costs as the simulation
 * (work_costs_compute), computed once per (layout, micro-batch).
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/alloc.h"
#include "run/run.h"
#include "sweep/search.h"
#include "work/memory.h"

#define MAX_LAYOUTS 64
#define MAX_MB 16

static enum work_framework fw_of(enum ts_framework f)
{
	switch (f) {
	case TS_FW_DEEPSPEED: return WORK_FW_DEEPSPEED;
	case TS_FW_DDP: return WORK_FW_DDP;
	case TS_FW_FSDP: return WORK_FW_FSDP;
	default: return WORK_FW_MEGATRON;
	}
}

/* Static bytes per GPU of scenario sc with micro-batch mb and recompute rc,
 * or INFINITY when the costs cannot be computed. */
static double estimate(const struct ts_scenario *sc, const struct work_calib *calib, int64_t mb,
		       enum ts_recompute rc, double *cap)
{
	const struct hw_gpu_type *g = hw_cluster_gpu_type(sc->cluster);
	int prec = sc->training.precision;
	if (prec == TS_UNSET)
		prec = g->peak_flops[TS_BF16] > 0.0 ? TS_BF16 : TS_FP16;
	enum ts_dtype dt = (enum ts_dtype)prec;
	struct work_fw_conventions conv;
	struct work_static st;
	*cap = g->mem_bytes;
	if (work_fw_conventions(fw_of(sc->training.framework), dt, &conv) ||
	    work_static_bytes(&conv, ts_model_params(&sc->model), sc->parallel.zero,
			      sc->parallel.dp, &st, NULL))
		return INFINITY;
	struct work_shape shape = {
		.micro_batch = mb, .seq_len = sc->training.seq_len, .tp = 1, .sp = false,
		.dtype = dt,
		.flash = sc->training.flash_attention && dt != TS_FP32 && dt != TS_TF32,
		.causal = sc->model.family != TS_FAMILY_BERT,
	};
	struct work_costs *c = ts_malloc(sizeof *c);
	if (!c)
		return INFINITY;
	double act = INFINITY;
	if (!work_costs_compute(&sc->model, &shape, g, calib, c, NULL))
		act = (double)sc->model.layers * c->layer_act_bytes[(int)rc] +
		      c->embed_saved_bytes + c->head_saved_bytes;
	ts_free(c, sizeof *c);
	return st.total_bytes + act + work_reserve_bytes(&conv, g->mem_bytes);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct search_cand *x = a, *y = b;
	if (x->score < y->score)
		return -1;
	if (x->score > y->score)
		return 1;
	return 0; /* ties keep enumeration order (the sort is stable) */
}

int search_run(const struct hw_catalog *cat, const struct work_calib *calib, const char *path,
	       const char *const *sets, size_t nsets, enum search_objective obj, uint32_t max_gpus,
	       int threads, struct search_result *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	struct ts_scenario *base = NULL, *lay[MAX_LAYOUTS] = {0};
	uint32_t nl = 0;
	int rc = ts_scenario_load(cat, path, sets, nsets, &base, err);
	if (rc)
		return rc;
	uint32_t gpn = base->gpus_per_node;
	if (!max_gpus)
		max_gpus = base->gpus;
	const char **argv = ts_calloc(nsets + 3, sizeof *argv);
	char a_nodes[64], a_gpn[64], a_dp[64];
	size_t cap_c = 0;
	if (!argv)
		goto nomem;
	for (size_t i = 0; i < nsets; i++)
		argv[i] = sets[i];
	/* layouts: 1, 2, 4, ... GPUs of one node, then 2, 4, ... nodes */
	for (uint64_t g = 1; g <= max_gpus && nl < MAX_LAYOUTS; g *= 2) {
		uint32_t nodes = g <= gpn ? 1u : (uint32_t)(g / gpn);
		uint32_t per = g <= gpn ? (uint32_t)g : gpn;
		if (g > gpn && g % gpn)
			continue;
		if (base->training.global_batch % (int64_t)g) {
			out->layouts_skipped++;
			continue;
		}
		snprintf(a_nodes, sizeof a_nodes, "nodes=%u", nodes);
		snprintf(a_gpn, sizeof a_gpn, "gpus_per_node=%u", per);
		snprintf(a_dp, sizeof a_dp, "parallel.dp=%llu", (unsigned long long)g);
		argv[nsets] = a_nodes;
		argv[nsets + 1] = a_gpn;
		argv[nsets + 2] = a_dp;
		struct ts_error e2;
		if (ts_scenario_load(cat, path, argv, nsets + 3, &lay[nl], &e2)) {
			out->layouts_skipped++;
			continue;
		}
		lay[nl]->training.global_batch = base->training.global_batch;
		nl++;
		if (g >= (uint64_t)gpn * 65536)
			break;
	}
	/* candidates */
	for (uint32_t l = 0; l < nl; l++) {
		const struct ts_scenario *s = lay[l];
		int64_t per_rank = s->training.global_batch / (int64_t)s->parallel.dp;
		for (int64_t mb = 1; mb <= per_rank && mb <= (1 << (MAX_MB - 1)); mb *= 2) {
			if (per_rank % mb)
				continue;
			for (int r = 0; r < TS_RECOMPUTE_COUNT_; r++) {
				double capb;
				double est = estimate(s, calib, mb, (enum ts_recompute)r, &capb);
				for (int b = 0; b < 2; b++) {
					if (ts_grow((void **)&out->c, &cap_c, out->n + 1,
						    sizeof *out->c))
						goto nomem;
					struct search_cand *c = &out->c[out->n++];
					memset(c, 0, sizeof *c);
					*c = (struct search_cand){
						.nodes = s->nodes, .gpus_per_node = s->gpus_per_node,
						.tp = 1, .pp = 1, .cp = 1, .dp = s->parallel.dp,
						.interleave = 1, .micro_batch = mb,
						.recompute = (enum ts_recompute)r,
						.bucket_bytes = b ? 0 : TS_UNSET,
						.est_bytes = est, .capacity_bytes = capb,
						.pruned = !(est <= capb), .score = INFINITY};
					/* which layout: kept in rc until simulated */
					c->rc = (int)l;
					out->pruned += c->pruned;
				}
			}
		}
	}
	/* simulate */
	double t0 = now_s();
	long n = (long)out->n;
	struct search_cand *cs = out->c;
#ifdef _OPENMP
	int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
#else
	(void)threads;
#endif
	for (long i = 0; i < n; i++) {
		struct search_cand *c = &cs[i];
		if (c->pruned)
			continue;
		struct ts_scenario sc = *lay[c->rc];
		sc.training.micro_batch = c->micro_batch;
		sc.training.recompute = c->recompute;
		sc.parallel.bucket_bytes = c->bucket_bytes;
		sc.sim.granularity = TS_GRAN_STAGE; /* the coarsest level: milestones keep overlap */
		c->rc = ts_run(&sc, calib, &c->res, NULL, NULL);
	}
	out->seconds = now_s() - t0;
	for (size_t i = 0; i < out->n; i++) {
		struct search_cand *c = &out->c[i];
		if (c->pruned) {
			c->rc = 0;
			continue;
		}
		out->simulated++;
		if (c->rc) {
			out->failed++;
			continue;
		}
		const struct ts_result *r = &c->res;
		if (!r->fits)
			continue;
		double v = obj == SEARCH_COST
				   ? (r->cost_usd > 0.0 ? r->cost_usd : r->iteration_time_s * r->gpus)
				   : (r->time_to_train_s > 0.0 ? r->time_to_train_s
							       : r->iteration_time_s);
		if (isfinite(v)) {
			c->score = v;
			out->ranked++;
		}
	}
	/* rank by (score, enumeration order) into an array of exactly n */
	{
		size_t m = out->n ? out->n : 1;
		size_t *idx = ts_calloc(m, sizeof *idx);
		struct search_cand *ranked = ts_calloc(m, sizeof *ranked);
		if (!idx || !ranked) {
			ts_free(idx, m * sizeof *idx);
			ts_free(ranked, m * sizeof *ranked);
			goto nomem;
		}
		for (size_t i = 0; i < out->n; i++)
			idx[i] = i;
		/* insertion sort is stable; n is a few thousand at most */
		for (size_t i = 1; i < out->n; i++) {
			size_t k = idx[i], j = i;
			while (j > 0 && cmp_cand(&out->c[idx[j - 1]], &out->c[k]) > 0) {
				idx[j] = idx[j - 1];
				j--;
			}
			idx[j] = k;
		}
		for (size_t i = 0; i < out->n; i++)
			ranked[i] = out->c[idx[i]];
		ts_free(idx, m * sizeof *idx);
		ts_free(out->c, cap_c * sizeof *out->c);
		out->c = ranked;
	}
	rc = 0;
	goto done;
nomem:
	rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	ts_free(out->c, cap_c * sizeof *out->c);
	out->c = NULL;
	out->n = 0;
done:
	for (uint32_t l = 0; l < nl; l++)
		ts_scenario_destroy(lay[l]);
	ts_free(argv, (nsets + 3) * sizeof *argv);
	ts_scenario_destroy(base);
	return rc;
}

void search_result_free(struct search_result *r)
{
	if (r && r->c)
		ts_free(r->c, (r->n ? r->n : 1) * sizeof *r->c);
	if (r)
		memset(r, 0, sizeof *r);
}
