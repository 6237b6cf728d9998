/* What would fit: single changes of a scenario that does not fit in GPU
 * memory, each simulated, the fastest that fit kept.
 * SPDX-License-Identifier: MIT */

/*
 * The changes people make when a run does not fit, in the order a
 * practitioner's guide lists them (shard the optimizer state and
 * gradients, then the weights; recompute activations; smaller
 * micro-batches with more accumulation; more tensor or pipeline
 * parallelism; offload; more GPUs; a GPU with more memory). Each kind is
 * tried at its smallest step first and stepped further only while it
 * still does not fit (the micro-batch halved down to 1, TP doubled within
 * a node, PP and the node count doubled up to 8 times), so what is kept is
 * the least change of that kind that fits. Every candidate is the
 * scenario loaded again with --set overrides (the same path a user would
 * take to try it) and simulated in full, so its memory and iteration time
 * are trainsim's own, not a formula. Where neither a ZeRO stage nor
 * recomputation alone fits, both together are tried on the same GPUs
 * beside the other kinds (more TP may fit but run slower). When no single
 * change fits, more GPUs and then a GPU with more memory are tried again
 * with ZeRO-3 and full recomputation, so that two changes are offered
 * where one is not enough.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/cluster.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "run/run.h"
#include "sweep/remedy.h"
#include "work/memory.h"

#define MAX_SETS 5
#define MAX_CAND 24

struct cand {
	char change[96];
	char set[MAX_SETS][64];
	int nset;
	int group; /* 0: the same GPUs, 1: more or other hardware */
	bool fits;
	uint32_t gpus;
	double mem, cap, T;
};

struct ctx {
	const struct ts_env *env;
	const char *path;
	const char *const *sets;
	size_t nsets;
	struct ts_result *res; /* scratch */
};

/* Load the scenario with c's overrides, simulate it, fill c. Returns
 * whether it ran (a refused layout or a failed run: false). */
static bool try_cand(struct ctx *x, struct cand *c)
{
	const char *argv[64 + MAX_SETS + 1];
	size_t n = 0;
	for (size_t i = 0; i < x->nsets && n < 64; i++)
		argv[n++] = x->sets[i];
	for (int i = 0; i < c->nset; i++)
		argv[n++] = c->set[i];
	argv[n++] = "sim.samples=1";
	struct ts_scenario *sc = NULL;
	struct ts_plan *p = NULL;
	struct ts_error e;
	bool ok = false;
	if (ts_scenario_load(x->env->cat, x->path, argv, n, &sc, &e))
		return false;
	sc->sim.mode = TS_MODE_CLASS;
	if (!plan_build(x->env, sc, &p, &e) && !run_plan(p, x->res, NULL, &e)) {
		ok = true;
		c->fits = x->res->fits;
		c->gpus = x->res->gpus;
		c->mem = x->res->memory_per_gpu_bytes;
		c->cap = x->res->memory_capacity_bytes;
		c->T = x->res->iteration_time_s;
	}
	plan_destroy(p);
	ts_scenario_destroy(sc);
	return ok;
}

static struct cand *add(struct cand *cs, int *n, int group, const char *change)
{
	if (*n >= MAX_CAND)
		return NULL;
	struct cand *c = &cs[(*n)++];
	memset(c, 0, sizeof *c);
	c->group = group;
	snprintf(c->change, sizeof c->change, "%s", change);
	return c;
}

static void set(struct cand *c, const char *fmt, long long v)
{
	if (c && c->nset < MAX_SETS)
		snprintf(c->set[c->nset++], sizeof c->set[0], fmt, v);
}

/* Try candidate c (already filled) and drop it unless it fits. */
static bool keep(struct ctx *x, struct cand *cs, int *n)
{
	struct cand *c = &cs[*n - 1];
	if (try_cand(x, c) && c->fits)
		return true;
	(*n)--;
	return false;
}

/* A parallel degree doubled (up to max) with dp = GPUs / (degree x rest)
 * until it fits: key's format sets the degree. */
static void more_degree(struct ctx *x, struct cand *cs, int *n, const char *name, const char *key,
			uint32_t cur, uint32_t max, uint32_t rest, uint32_t dp)
{
	uint32_t gpus = dp * cur * rest;
	for (uint32_t d = cur * 2; d <= max; d *= 2) {
		uint32_t mp = d * rest;
		if (gpus % mp)
			break;
		char w[96];
		snprintf(w, sizeof w, "%s %u -> %u (DP %u -> %u)", name, cur, d, dp, gpus / mp);
		struct cand *c = add(cs, n, 0, w);
		set(c, key, d);
		set(c, "parallel.dp=%lld", gpus / mp);
		if (keep(x, cs, n))
			break;
	}
}

/* A bundled cluster and its GPU. */
struct bigger {
	char cluster[64], gpu[48];
	bool other_gen; /* not the scenario GPU's generation */
	size_t prefix;	/* characters its GPU's name shares with the scenario's */
	double mem;
};

/* The scenario GPU's generation first, then the least memory. */
static int cmp_bigger(const void *a, const void *b)
{
	const struct bigger *x = a, *y = b;
	if (x->other_gen != y->other_gen)
		return x->other_gen - y->other_gen;
	/* memories within 4 GiB are one size (A100 80GB SXM4 and PCIe): the
	 * closer variant (the same form factor) first */
	double gx = floor(x->mem / (4.0 * 1073741824.0)), gy = floor(y->mem / (4.0 * 1073741824.0));
	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (x->prefix != y->prefix)
		return x->prefix > y->prefix ? -1 : 1;
	return (x->mem > y->mem) - (x->mem < y->mem);
}

/* The bundled clusters with at least the scenario's GPUs per node and a
 * GPU of more memory from the same maker, one per GPU type, the same
 * generation first and then the least memory, into out[0..max); returns
 * how many. */
static size_t bigger_gpus(const struct ts_env *env, const struct ts_scenario *sc,
			  struct bigger *out, size_t max)
{
	enum { MAXC = 96 };
	char(*names)[64] = ts_malloc(MAXC * sizeof *names);
	if (!names)
		return 0;
	size_t nc = hw_cluster_bundled(env->cat, names, MAXC), k = 0;
	const struct hw_gpu_type *g0 = hw_cluster_gpu_type(sc->cluster);
	bool amd0 = !strncmp(g0->name, "MI", 2);
	for (size_t i = 0; i < nc && k < max; i++) {
		struct hw_cluster *cl = NULL;
		struct ts_error e;
		if (hw_cluster_load(env->cat, names[i], NULL, &cl, &e))
			continue;
		const struct hw_gpu_type *g = hw_cluster_gpu_type(cl);
		bool same = false;
		for (size_t j = 0; j < k; j++)
			same = same || !strcmp(out[j].gpu, g->name);
		if (!same && !strncmp(g->name, "MI", 2) == amd0 &&
		    hw_cluster_gpus_per_node(cl) >= sc->gpus_per_node &&
		    g->mem_bytes > g0->mem_bytes * 1.01) {
			snprintf(out[k].cluster, sizeof out[k].cluster, "%s", names[i]);
			snprintf(out[k].gpu, sizeof out[k].gpu, "%s", g->name);
			size_t pre = 0;
			while (g->name[pre] && g->name[pre] == g0->name[pre])
				pre++;
			out[k].prefix = pre;
			out[k].other_gen =
			    work_gpu_generation(g->name) != work_gpu_generation(g0->name);
			out[k++].mem = g->mem_bytes;
		}
		hw_cluster_destroy(cl);
	}
	ts_free(names, MAXC * sizeof *names);
	qsort(out, k, sizeof *out, cmp_bigger);
	return k;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->group != y->group)
		return x->group - y->group;
	return (x->T > y->T) - (x->T < y->T);
}

int remedy_find(const struct ts_env *env, const char *path, const char *const *sets, size_t nsets,
		struct ts_result *base, struct ts_remedies *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	base->remedies = NULL;
	if (base->fits)
		return 0;
	struct ts_scenario *sc = NULL;
	int rc = ts_scenario_load(env->cat, path, sets, nsets, &sc, err);
	if (rc)
		return rc;
	struct cand *cs = ts_calloc(MAX_CAND, sizeof *cs);
	struct ts_result *scratch = ts_malloc(sizeof *scratch);
	if (!cs || !scratch) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto done;
	}
	struct ctx x = {env, path, sets, nsets, scratch};
	const struct ts_parallel *par = &sc->parallel;
	const struct ts_training *tr = &sc->training;
	uint32_t gpus = sc->nodes * sc->gpus_per_node, dpcp = par->dp * par->cp;
	int n = 0;
	char w[96];
	/* ZeRO, one stage up at a time (sharding needs data parallelism) */
	bool zero_fits = false, recompute_fits = false;
	for (int z = par->zero + 1; dpcp > 1 && z <= 3; z++) {
		snprintf(w, sizeof w, "ZeRO stage %d -> %d", par->zero, z);
		set(add(cs, &n, 0, w), "parallel.zero=%lld", z);
		if ((zero_fits = keep(&x, cs, &n)))
			break;
	}
	/* recomputation, lighter to heavier: PyTorch's op-level checkpointing
	 * (ddp, fsdp on a transformer) between selective and full */
	enum work_recompute ladder[WORK_RECOMPUTE_COUNT_];
	int nl = 0, at = -1;
	ladder[nl++] = WORK_RECOMPUTE_NONE;
	ladder[nl++] = WORK_RECOMPUTE_SELECTIVE;
	if ((tr->framework == WORK_FW_DDP || tr->framework == WORK_FW_FSDP) &&
	    sc->model.family != TS_FAMILY_LAYERS)
		ladder[nl++] = WORK_RECOMPUTE_OP;
	ladder[nl++] = WORK_RECOMPUTE_FULL;
	for (int i = 0; i < nl; i++)
		if (ladder[i] == tr->recompute)
			at = i;
	for (int i = at + 1; at >= 0 && i < nl; i++) {
		snprintf(w, sizeof w, "recompute %s -> %s", work_recompute_name(tr->recompute),
			 work_recompute_name(ladder[i]));
		struct cand *c = add(cs, &n, 0, w);
		if (c && c->nset < MAX_SETS)
			snprintf(c->set[c->nset++], sizeof c->set[0], "training.recompute=\"%s\"",
				 work_recompute_name(ladder[i]));
		if ((recompute_fits = keep(&x, cs, &n)))
			break;
	}
	/* a smaller micro-batch, more accumulation steps */
	for (int64_t mb = tr->micro_batch / 2; mb >= 1; mb /= 2) {
		snprintf(w, sizeof w, "micro-batch %lld -> %lld", (long long)tr->micro_batch,
			 (long long)mb);
		set(add(cs, &n, 0, w), "training.micro_batch=%lld", mb);
		if (keep(&x, cs, &n))
			break;
	}
	/* more tensor parallelism within a node, more pipeline stages (DP
	 * shrinks) */
	more_degree(&x, cs, &n, "TP", "parallel.tp=%lld", par->tp, sc->gpus_per_node,
		    par->pp * par->cp, par->dp);
	more_degree(&x, cs, &n, "PP", "parallel.pp=%lld", par->pp, par->pp * 8, par->tp * par->cp,
		    par->dp);
	/* the optimizer state (and, with ZeRO-3, the weights) to CPU memory */
	if (par->offload == TS_OFFLOAD_NONE) {
		int z = par->zero ? par->zero : 2;
		snprintf(w, sizeof w, "offload to CPU memory (ZeRO-%d)", z);
		struct cand *c = add(cs, &n, 0, w);
		if (c && c->nset < MAX_SETS)
			snprintf(c->set[c->nset++], sizeof c->set[0], "parallel.offload=\"cpu\"");
		set(c, "parallel.zero=%lld", z);
		keep(&x, cs, &n);
	}
	/* both shardings together, where neither alone fits: on the same GPUs
	 * this may beat what else fits (more TP, more stages, offload), so it
	 * is tried beside them and ranked with them */
	if (!zero_fits && !recompute_fits && dpcp > 1 &&
	    (par->zero < 3 || tr->recompute != WORK_RECOMPUTE_FULL)) {
		struct cand *c = add(cs, &n, 0, "ZeRO stage 3 and full recomputation");
		set(c, "parallel.zero=%lld", 3);
		if (c && c->nset < MAX_SETS)
			snprintf(c->set[c->nset++], sizeof c->set[0],
				 "training.recompute=\"full\"");
		keep(&x, cs, &n);
	}
	/* more GPUs: DP grows (the shards shrink with ZeRO) */
	for (uint32_t k = 2; k <= 8; k *= 2) {
		uint32_t nodes = sc->nodes * k;
		snprintf(w, sizeof w, "%u -> %u nodes (%u GPUs, DP %u -> %u)", sc->nodes, nodes,
			 gpus * k, par->dp, par->dp * k);
		struct cand *c = add(cs, &n, 1, w);
		set(c, "nodes=%lld", nodes);
		set(c, "parallel.dp=%lld", par->dp * k);
		if (keep(&x, cs, &n))
			break;
	}
	/* the same layout on a GPU with more memory, the least that fits */
	struct bigger bg[16];
	size_t nb = bigger_gpus(env, sc, bg, 16);
	for (size_t i = 0; i < nb; i++) {
		snprintf(w, sizeof w, "more GPU memory: %.30s (%.40s)", bg[i].gpu, bg[i].cluster);
		struct cand *c = add(cs, &n, 1, w);
		if (c && c->nset < MAX_SETS)
			snprintf(c->set[c->nset++], sizeof c->set[0], "cluster=\"%.50s\"",
				 bg[i].cluster);
		if (keep(&x, cs, &n))
			break;
	}
	/* nothing alone fits: more GPUs, then a GPU with more memory, each
	 * with the heaviest sharding and recomputation (ZeRO-3 where there is
	 * data parallelism, full recomputation), so that the answer is not
	 * empty where two changes would do */
	for (uint32_t k = 2; n == 0 && k <= 8; k *= 2) {
		uint32_t nodes = sc->nodes * k;
		snprintf(w, sizeof w, "%u -> %u nodes (%u GPUs), ZeRO-3, full recomputation",
			 sc->nodes, nodes, gpus * k);
		struct cand *c = add(cs, &n, 1, w);
		set(c, "nodes=%lld", nodes);
		set(c, "parallel.dp=%lld", par->dp * k);
		set(c, "parallel.zero=%lld", 3);
		if (c && c->nset < MAX_SETS)
			snprintf(c->set[c->nset++], sizeof c->set[0],
				 "training.recompute=\"full\"");
		/* the micro-batch halved until it divides the batch per DP rank */
		int64_t ranks = (int64_t)par->dp * k, mb = tr->micro_batch;
		if (tr->global_batch % ranks) {
			n--; /* the batch does not split over that many ranks */
			break;
		}
		while (mb > 1 && (tr->global_batch / ranks) % mb)
			mb /= 2;
		if (mb != tr->micro_batch)
			set(c, "training.micro_batch=%lld", mb);
		if (keep(&x, cs, &n))
			break;
	}
	for (size_t i = 0; n == 0 && i < nb; i++) {
		snprintf(w, sizeof w, "%.30s (%.30s), full recomputation%s", bg[i].gpu,
			 bg[i].cluster, dpcp > 1 ? ", ZeRO-3" : "");
		struct cand *c = add(cs, &n, 1, w);
		if (c && c->nset < MAX_SETS)
			snprintf(c->set[c->nset++], sizeof c->set[0], "cluster=\"%.50s\"",
				 bg[i].cluster);
		if (c && c->nset < MAX_SETS)
			snprintf(c->set[c->nset++], sizeof c->set[0],
				 "training.recompute=\"full\"");
		if (dpcp > 1)
			set(c, "parallel.zero=%lld", 3);
		if (keep(&x, cs, &n))
			break;
	}
	qsort(cs, (size_t)n, sizeof *cs, cmp_cand);
	for (int i = 0; i < n && out->n < REMEDY_MAX; i++) {
		struct ts_remedy *r = &out->r[out->n++];
		memset(r, 0, sizeof *r);
		snprintf(r->change, sizeof r->change, "%s", cs[i].change);
		size_t k = 0;
		for (int j = 0; j < cs[i].nset && k < sizeof r->set; j++)
			k += (size_t)snprintf(r->set + k, sizeof r->set - k, "%s%s", j ? " " : "",
					      cs[i].set[j]);
		r->gpus = cs[i].gpus;
		r->memory_per_gpu_bytes = cs[i].mem;
		r->memory_capacity_bytes = cs[i].cap;
		r->iteration_time_s = cs[i].T;
		r->time_change = cs[i].T / base->iteration_time_s - 1.0;
	}
	base->remedies = out;
done:
	if (scratch)
		ts_free(scratch, sizeof *scratch);
	if (cs)
		ts_free(cs, MAX_CAND * sizeof *cs);
	ts_scenario_destroy(sc);
	return rc;
}
