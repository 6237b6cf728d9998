/* Search over the modelled settings.
 *
 * Layouts (GPU counts) are loaded once each through the scenario loader
 * with --set nodes / gpus_per_node / parallel.dp, so the cluster is built
 * and checked as for `trainsim run`; the candidates of a layout are plain
 * copies of its scenario with the training fields changed (the copies share
 * the layout's cluster read-only, and are never destroyed). The static
 * estimate uses the same per-micro-batch costs as the simulation
 * (work_costs_compute), computed once per (tp, micro-batch): they depend on
 * the model, the shape and the GPU, not on the GPU count.
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
#include "par/pipe.h"
#include "plan/plan.h"
#include "run/cost.h"
#include "run/run.h"
#include "sweep/search.h"
#include "work/memory.h"
#include "work/ops.h"

#define MAX_LAYOUTS SEARCH_MAX_LAYOUTS
#define MAX_MB 16
#define MAX_TP 32
#define MAX_CP 5 /* cp = 1, 2, 4, 8, 16 */
/* Most micro-batches per iteration and rank (as sim/run/run.c). */
#define MAX_ACCUM (1 << 16)

/* Per-(tp, cp, micro-batch) costs, computed on first use. */
struct costs_cache {
	struct work_costs *c[MAX_TP][MAX_CP][MAX_MB];
	bool bad[MAX_TP][MAX_CP][MAX_MB]; /* work_costs_compute failed */
};

static const struct work_costs *costs_get(struct costs_cache *cc, const struct ts_scenario *sc,
					  const struct work_calib *calib, enum ts_dtype dt,
					  uint32_t ti, uint32_t tp, uint32_t ci, uint32_t cp,
					  uint32_t mi, int64_t mb)
{
	if (cc->c[ti][ci][mi] || cc->bad[ti][ci][mi])
		return cc->c[ti][ci][mi];
	const struct hw_gpu_type *g = hw_cluster_gpu_type(sc->cluster);
	struct work_shape shape = {
	    .micro_batch = mb,
	    .seq_len = sc->training.seq_len,
	    .tp = tp,
	    .cp = cp,
	    .sp = sc->parallel.sp && tp > 1,
	    .dtype = dt,
	    .flash = sc->training.flash_attention && dt != TS_FP32 && dt != TS_TF32,
	    .causal = sc->model.family != TS_FAMILY_BERT,
	    .xent = sc->training.xent,
	    .mlm_masked = sc->training.mlm_masked,
	};
	struct work_costs *c = ts_malloc(sizeof *c);
	if (c && work_costs_compute(&sc->model, &shape, g, calib, c, NULL)) {
		ts_free(c, sizeof *c);
		c = NULL;
	}
	cc->bad[ti][ci][mi] = !c;
	return cc->c[ti][ci][mi] = c;
}

static void costs_free(struct costs_cache *cc)
{
	for (uint32_t i = 0; i < MAX_TP; i++)
		for (uint32_t k = 0; k < MAX_CP; k++)
			for (uint32_t j = 0; j < MAX_MB; j++)
				ts_free(cc->c[i][k][j], sizeof *cc->c[i][k][j]);
}

/* The training dtype of scenario sc (the loader's default when unset). */
static enum ts_dtype dtype_of(const struct ts_scenario *sc)
{
	const struct hw_gpu_type *g = hw_cluster_gpu_type(sc->cluster);
	int prec = sc->training.precision;
	if (prec == TS_UNSET)
		prec = g->peak_flops[TS_BF16] > 0.0 ? TS_BF16 : TS_FP16;
	return (enum ts_dtype)prec;
}

/* Static bytes per GPU of candidate x (search_run's comment says how) with
 * per-micro-batch costs c (NULL: unknown, INFINITY) and m micro-batches
 * per iteration. */
static double estimate(const struct ts_scenario *sc, const struct work_fw_conventions *conv,
		       const struct work_costs *c, const struct search_cand *x, int64_t m)
{
	if (!c)
		return INFINITY;
	double L = (double)sc->model.layers, v = (double)x->interleave, pp = (double)x->pp;
	double lpc = ceil(L / (pp * v)); /* layers per chunk, the fuller chunks */
	double act = c->layer_act_bytes[(int)x->recompute];
	double first_p, last_p, first_a, last_a;
	if (x->pp == 1) {
		first_p = last_p = c->embed_params + L * c->layer_params + c->head_params;
		first_a = last_a = L * act + c->embed_saved_bytes + c->head_saved_bytes;
	} else {
		double in0 = x->schedule == TS_SCHED_INTERLEAVED
				 ? fmin(2.0 * (pp - 1.0) + (v - 1.0) * pp + 1.0, (double)m * v)
				 : fmin(pp, (double)m) * v;
		first_p = c->embed_params + lpc * v * c->layer_params;
		last_p = c->head_params + lpc * v * c->layer_params;
		first_a = in0 * lpc * act + ceil(in0 / v) * c->embed_saved_bytes;
		last_a = v * lpc * act + c->head_saved_bytes;
	}
	struct work_static s0, s1;
	if (work_static_bytes(conv, first_p, x->zero, x->dp, &s0, NULL) ||
	    work_static_bytes(conv, last_p, x->zero, x->dp, &s1, NULL))
		return INFINITY;
	/* the larger of the backward's peak (activations held) and the step's
	 * (its temporaries instead; none with the step on the host) */
	bool host = sc->parallel.offload != TS_OFFLOAD_NONE;
	double t0 = host ? 0.0 : work_step_temp_bytes(conv, first_p, x->zero, x->dp);
	double t1 = host ? 0.0 : work_step_temp_bytes(conv, last_p, x->zero, x->dp);
	double held =
	    fmax(s0.total_bytes + work_buffer_bytes(conv, first_p, (int64_t)x->dp * x->cp) +
		     fmax(first_a, t0),
		 s1.total_bytes + work_buffer_bytes(conv, last_p, (int64_t)x->dp * x->cp) +
		     fmax(last_a, t1));
	struct work_overhead oh;
	uint32_t comms = (uint32_t)(x->tp > 1) + (uint32_t)(x->pp > 1) + (uint32_t)(x->cp > 1) +
			 (uint32_t)(x->dp * x->cp > 1);
	work_overhead_bytes(&(struct work_overhead_in){.gen = work_gpu_generation(
							   hw_cluster_gpu_type(sc->cluster)->name),
						       .comms = comms,
						       .convs = false,
						       .held_bytes = held,
						       .alloc_fraction = conv->alloc_fraction},
			    &oh);
	return held + oh.total;
}

/* What the lower bound of a candidate needs beyond its costs: the
 * optimizer's seconds per parameter on one GPU (0 with offload, whose step
 * runs on the host), and the tensor-parallel collectives' floor. */
struct bound_in {
	double opt_s_per_param; /* work_optimizer_time per parameter, s; 0: none */
	double gpu_Bps;		/* the larger of a GPU's summed outgoing and incoming
				 * link bandwidths, bytes/s (0: no TP floor) */
	bool nvls;		/* all-reduce may reduce in the NVSwitch */
	bool tp_overlap;	/* TP collectives run beside compute: no TP floor */
	bool sp;		/* sequence parallelism: reduce-scatter + all-gather */
	double act_bytes;	/* bytes of one activation element */
	int64_t seq_len;	/* tokens per sequence */
};

/* Seconds one rank of a tensor-parallel group of x->tp ranks spends, at the
 * least, in the collectives of one layer and micro-batch, forward and
 * backward (layer_tp_fwd + layer_tp_bwd of them, each of an activation
 * b s h / cp). Each rank of a reduce-scatter or all-gather of B bytes over
 * t ranks sends or receives (t - 1) / t B, an all-reduce without in-network
 * reduction 2 (t - 1) / t B on every algorithm NCCL runs (Patarasuk and
 * Yuan 2009, "Bandwidth optimal all-reduce algorithms for clusters of
 * workstations", the lower bound of section 3; NCCL's ring reaches it, its
 * trees send more), and no rank moves bytes faster than the sum of its
 * links' bandwidths. Sequence parallelism runs a reduce-scatter then an
 * all-gather, one after the other (sim/par/pipe.c, tp_issue). */
static double tp_floor_s(const struct ts_model *md, const struct work_costs *c,
			 const struct search_cand *x, const struct bound_in *b)
{
	if (x->tp < 2 || b->tp_overlap || !(b->gpu_Bps > 0.0))
		return 0.0;
	double t = (double)x->tp;
	double B = (double)x->micro_batch * (double)b->seq_len / (double)x->cp *
		   (double)md->hidden * b->act_bytes;
	double f = b->sp || !b->nvls ? 2.0 * (t - 1.0) / t : (t - 1.0) / t;
	return (double)(c->layer_tp_fwd + c->layer_tp_bwd) * f * B / b->gpu_Bps;
}

/* A lower bound of the iteration time of candidate x, with per-micro-batch
 * costs c and m micro-batches per iteration; 0 when there is none (layer
 * lists; experts, whose dense and expert layers differ and whose expert
 * parallelism changes the per-rank costs).
 *
 * What the simulation does (sim/par/pipe.c): each GPU runs its compute
 * units one at a time on its compute stream at these same durations
 * (sim/plan/plan.c, make_units), later only slowed; a segment's TP
 * collectives run after it and the next segment waits for them; each
 * stage's optimizer step runs on its compute stream after its last
 * backward, and its next iteration's forwards after that step; a chunk's
 * backward of a micro-batch starts once the chunk above has sent its
 * gradient; the measured iteration runs from the end of the last
 * optimizer step of one iteration (iteration end) to that of the next.
 * Stages do not wait for one another between iterations, so a stage
 * other than the last may start its next iteration before that mark.
 *
 * One stage (pp = 1): all of its next iteration comes after the mark: m
 * micro-batches of every layer's forward, backward and recompute, the
 * embedding and the head, the TP collectives of all but the last
 * micro-batch (the step waits for the gradient reduction, not for them),
 * and the optimizer step over its parameters (/ dp cp with ZeRO >= 1).
 *
 * A pipeline (pp stages, v chunks each, chunk c on stage c mod pp): the
 * last stage's first forward of an iteration waits for the forwards of the
 * stages before it, each after its own step, one of which ends at the
 * mark; so all of the last stage's work of the iteration follows the mark:
 * W = m (its layers' compute + the head) + TP floor of m - 1 micro-batches.
 * Its last task is the backward of the last micro-batch on chunk pp - 1
 * (1F1B and interleaved 1F1B end so: sim/par/pipe.c, stage_order); from
 * the gradient it sends (after its dgrad, at the latest its last layer's
 * wgrad before the end), the backward of that micro-batch runs down
 * chunks pp - 2 .. 0 one after the other, each at least its layers' dgrad
 * and wgrad less one layer's wgrad, chunk 0 whole with the embedding, and
 * stage 0's optimizer step follows. Hence
 *   T >= max(W + step(last stage), W - w + drain + step(stage 0)),
 * the drain being (pp - 1) / (pp v) of a micro-batch's backward: the
 * fill-and-drain bubble of 1F1B, (pp - 1) (tf + tb) for v = 1 and / v
 * interleaved (Narayanan et al. 2021, "Efficient Large-Scale Language
 * Model Training on GPU Clusters Using Megatron-LM", section 2.2), less
 * its forward half, which a stage that starts its iteration early may
 * hide. With extrapolation (sim.extrapolate) the iteration is carried
 * along the line through two shorter runs in the steady state, whose
 * slope is the last stage's period per micro-batch, at least its work per
 * micro-batch. Layers per chunk as the plan deals them
 * (pipe_even_layers); embedding and head parameters are left out of the
 * steps (fewer parameters: a smaller step). */
static double lower_bound(const struct ts_model *md, const struct work_costs *c,
			  const struct search_cand *x, int64_t m, const struct bound_in *b)
{
	if (!c || md->family == TS_FAMILY_LAYERS || md->num_experts > 0)
		return 0.0;
	int r = (int)x->recompute;
	uint32_t p = x->pp, V = x->pp * x->interleave, L = (uint32_t)md->layers;
	double layer =
	    c->layer_fwd_s + c->layer_dgrad_s + c->layer_wgrad_s + c->layer_recompute_s[r];
	double head = c->head_fwd_s + c->head_dgrad_s + c->head_wgrad_s;
	double tp = tp_floor_s(md, c, x, b), mm = (double)m;
	double step = b->opt_s_per_param * c->layer_params /
		      (x->zero >= 1 ? (double)x->dp * (double)x->cp : 1.0);
	double lb;
	if (p == 1) {
		lb = mm * ((double)L * layer + c->embed_fwd_s + c->embed_bwd_s + head) +
		     (mm - 1.0) * (double)L * tp + (double)L * step;
	} else {
		double l_last = 0.0, l_first = 0.0, drain = 0.0;
		for (uint32_t j = 0; j < x->interleave; j++) {
			l_last += (double)pipe_even_layers(L, V, j * p + p - 1);
			l_first += (double)pipe_even_layers(L, V, j * p);
		}
		for (uint32_t k = 0; k + 1 < p; k++) {
			double d = (double)pipe_even_layers(L, V, k) *
				   (c->layer_dgrad_s + c->layer_wgrad_s);
			drain += k ? fmax(d - c->layer_wgrad_s, 0.0) : d + c->embed_bwd_s;
		}
		double W = mm * (l_last * layer + head) + (mm - 1.0) * l_last * tp;
		lb = fmax(W + l_last * step, W - c->layer_wgrad_s + drain + l_first * step);
	}
	return isfinite(lb) && lb > 0.0 ? lb : 0.0;
}

/* The least score (objective) of a candidate on layout s whose iteration
 * takes at least T seconds, for a run of `steps` optimizer steps (0: no run
 * length): time to train is steps x T plus checkpoints and failures
 * (sim/run/cost.c); cost is the hourly rate x hours plus energy, or T x GPUs
 * without a price. 0 when no bound is known (an owned cluster priced by its
 * energy alone). */
static double score_floor(enum search_objective obj, const struct ts_scenario *s, double steps,
			  double T)
{
	if (obj == SEARCH_TIME)
		return steps > 0.0 ? steps * T : T;
	if (!(steps > 0.0))
		return T * (double)s->gpus;
	const struct ts_cost *c = &s->cost;
	double nodes = (double)s->nodes, rate;
	if (c->owned)
		rate = ((nodes * (c->server_usd + c->network_usd) + c->storage_usd) /
			    (c->years * 8766.0) +
			c->upkeep_usd_per_year / 8766.0) /
		       cost_utilisation(c);
	else
		rate = (double)s->gpus * c->usd_per_gpu_hour + nodes * c->usd_per_node_hour;
	double f = rate * steps * T / 3600.0;
	return isfinite(f) && f > 0.0 ? f : 0.0;
}

/* The score of a simulated result r: lower is better, INFINITY when r has
 * none. */
/* The p50 of band b, or x when the result carries no band. */
static double p50_or(struct ts_band b, double x)
{
	return b.p50 > 0.0 ? b.p50 : x;
}

/* Ranked by the p50 of the reported band (sim/run/band.h) of time to
 * train (or iteration time) or cost (or GPU-seconds per iteration). */
static double score_of(enum search_objective obj, const struct ts_result *r)
{
	const struct ts_bands *b = &r->band;
	double it = p50_or(b->iteration_time_s, r->iteration_time_s);
	double v =
	    obj == SEARCH_COST
		? (r->cost_usd > 0.0 ? p50_or(b->cost_usd, r->cost_usd) : it * r->gpus)
		: (r->time_to_train_s > 0.0 ? p50_or(b->time_to_train_s, r->time_to_train_s) : it);
	return isfinite(v) ? v : (double)INFINITY;
}

/* Recompute modes a and b save, rerun and recount the same per layer. */
static bool same_rc(const struct work_costs *c, int a, int b)
{
	return c->layer_act_bytes[a] == c->layer_act_bytes[b] &&
	       c->layer_recompute_s[a] == c->layer_recompute_s[b] &&
	       c->layer_recompute_flops[a] == c->layer_recompute_flops[b];
}

/* ZeRO stages framework fw takes with dp ranks and pp stages, into z;
 * returns how many. */
static int zero_stages(enum work_framework fw, const struct ts_model *m, uint32_t dp, uint32_t pp,
		       int z[4])
{
	int n = 0;
	z[n++] = 0;
	if (dp < 2 || m->family == TS_FAMILY_LAYERS)
		return n;
	switch (fw) {
	case WORK_FW_DEEPSPEED:
	case WORK_FW_MEGATRON:
		/* DeepSpeed's ZeRO 1-3, its pipeline engine with ZeRO 0-1
		 * only; Megatron-LM's distributed optimizer (ZeRO-1) and its
		 * Megatron-FSDP (megatron/core/distributed/fsdp,
		 * --use-custom-fsdp --data-parallel-sharding-strategy
		 * optim_grads | optim_grads_params: ZeRO-2 | 3), searched
		 * without pipeline stages: Megatron-LM's validate_args does not
		 * refuse Megatron-FSDP with pp > 1, but its Megatron-FSDP guide
		 * (docs/discussions/megatron-fsdp-user-guide at 1775482c)
		 * documents no such configuration */
		z[n++] = 1;
		if (pp == 1) {
			z[n++] = 2;
			z[n++] = 3;
		}
		break;
	case WORK_FW_FSDP:
		z[n++] = 2;
		z[n++] = 3;
		break;
	case WORK_FW_DDP:
		break;
	default:
		z[n++] = 1;
		break;
	}
	return n;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Ranked first, those that fit; then those whose memory is tight (within
 * the memory model's error of capacity: a risk, not a pass); then the rest. */
static int tier(const struct search_cand *x)
{
	return !isfinite(x->score) ? 2 : x->tight ? 1 : 0;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct search_cand *x = a, *y = b;
	if (tier(x) != tier(y))
		return tier(x) < tier(y) ? -1 : 1;
	if (x->score < y->score)
		return -1;
	if (x->score > y->score)
		return 1;
	return 0; /* ties keep enumeration order (the sort is stable) */
}

/* What one enumeration of search_run shares: the base scenario, its
 * costs cache, constants, conventions and dtype. */
struct enum_ctx {
	const struct ts_scenario *base;
	struct costs_cache *cache;
	const struct work_calib *calib;
	const struct work_fw_conventions *conv;
	enum ts_dtype dt;
	double opt_s_per_param; /* work_optimizer_time per parameter, s; 0: offload */
	bool layer_figures;	/* search_opts.layer_figures */
};

/* The larger of the summed outgoing and incoming bandwidths of the links
 * of the first GPU of cluster cl, bytes/s: no rank of a collective moves
 * its bytes faster (every GPU of a bundled node is alike). */
static double gpu_link_Bps(const struct hw_cluster *cl)
{
	uint32_t dev = hw_cluster_gpu(cl, 0), n = hw_cluster_nlinks(cl);
	double out = 0.0, in = 0.0;
	for (uint32_t i = 0; dev != UINT32_MAX && i < n; i++) {
		const struct hw_link *k = hw_cluster_link(cl, i);
		out += k->src == dev ? k->bw_Bps : 0.0;
		in += k->dst == dev ? k->bw_Bps : 0.0;
	}
	return fmax(out, in);
}

/* Append to out the candidates of degrees (tp, cp, pp, dp) on layout s
 * (index l; ti, ci: the cache indices of tp and cp): micro-batches,
 * schedules, ZeRO stages and recompute modes (search_run's list), each
 * with its static estimate. Returns 0 or TS_ENOMEM. */
static int add_degrees(struct search_result *out, size_t *cap_c, const struct enum_ctx *x,
		       const struct ts_scenario *s, uint32_t l, uint32_t ti, uint32_t tp,
		       uint32_t ci, uint32_t cp, uint32_t pp, uint32_t dp)
{
	const struct ts_model *md = &x->base->model;
	bool layers_only = md->family == TS_FAMILY_LAYERS;
	enum work_framework fw = x->base->training.framework;
	bool pytorch = fw == WORK_FW_DDP || fw == WORK_FW_FSDP;
	uint32_t L = (uint32_t)md->layers;
	int zs[4], nz = zero_stages(x->base->training.framework, md, dp, pp, zs);
	int64_t per_rank = x->base->training.global_batch / (int64_t)dp;
	const struct bound_in bin = {
	    .opt_s_per_param = x->opt_s_per_param,
	    .gpu_Bps = gpu_link_Bps(s->cluster),
	    .nvls = hw_cluster_nvls(s->cluster),
	    .tp_overlap = x->base->parallel.tp_comm_overlap,
	    .sp = x->base->parallel.sp && tp > 1,
	    .act_bytes = work_act_bytes(x->dt),
	    .seq_len = x->base->training.seq_len,
	};
	uint32_t mi = 0;
	for (int64_t mb = 1; mb <= per_rank && mi < MAX_MB; mb *= 2, mi++) {
		int64_t m = per_rank / mb;
		if (per_rank % mb || m > MAX_ACCUM)
			continue;
		const struct work_costs *wc =
		    layers_only
			? NULL
			: costs_get(x->cache, x->base, x->calib, x->dt, ti, tp, ci, cp, mi, mb);
		/* interleaved x2: whole layers per virtual stage, m a multiple
		 * of the stages (as sim/run/run.c checks) */
		int nsched = pp > 1 && m % pp == 0 && L % (2 * pp) == 0 ? 2 : 1;
		for (int sch = 0; sch < nsched; sch++)
			for (int zi = 0; zi < nz; zi++)
				for (int r = 0; r < WORK_RECOMPUTE_COUNT_; r++) {
					/* selective recompute is the transformer's
					 * (plan_check_modelled refuses it on a layer list) */
					if (layers_only && r == WORK_RECOMPUTE_SELECTIVE)
						continue;
					/* op-level checkpointing is PyTorch's
					 * (plan.c refuses it elsewhere) */
					if (r == WORK_RECOMPUTE_OP && (layers_only || !pytorch))
						continue;
					if (ts_grow((void **)&out->c, cap_c, out->n + 1,
						    sizeof *out->c))
						return TS_ENOMEM;
					struct search_cand *c = &out->c[out->n++];
					*c = (struct search_cand){
					    .nodes = s->nodes,
					    .gpus_per_node = s->gpus_per_node,
					    .tp = tp,
					    .pp = pp,
					    .cp = cp,
					    .dp = dp,
					    .zero = zs[zi],
					    .schedule = sch ? TS_SCHED_INTERLEAVED : TS_SCHED_1F1B,
					    .interleave = sch ? 2u : 1u,
					    .micro_batch = mb,
					    .recompute = (enum work_recompute)r,
					    .capacity_bytes =
						hw_cluster_gpu_type(s->cluster)->mem_bytes,
					    .layer_figures = x->layer_figures,
					    .score = INFINITY};
					/* layer lists: the simulation checks memory */
					c->est_bytes =
					    layers_only ? 0.0 : estimate(s, x->conv, wc, c, m);
					c->pruned = !(c->est_bytes <= c->capacity_bytes);
					c->lower_s = lower_bound(md, wc, c, m, &bin);
					/* the lightest mode that resolves to the same plan:
					 * the candidates of r' < r are the r - r' before
					 * (layer lists: none and full only, which differ) */
					int r0 = r;
					for (int q = 0; q < r && r0 == r; q++)
						if (!layers_only && wc && same_rc(wc, q, r))
							r0 = q;
					c->alias = r0 < r;
					c->same_as = out->n - 1 - (size_t)(r - r0);
					c->recompute_equiv = 1u << r;
					out->c[c->same_as].recompute_equiv |= 1u << r;
					c->rc =
					    (int)l; /* which layout: kept in rc until simulated */
					out->pruned += c->pruned;
				}
	}
	return 0;
}

/* search_candidate_run_in into *out, or with out NULL only planned;
 * *at_layer (may be NULL) receives whether it runs at layer granularity. */
static int candidate_run(const struct ts_env *env, const struct ts_scenario *layout,
			 const struct data_input *in, const struct search_cand *c,
			 struct ts_result *out, bool *at_layer, struct run_arena *a,
			 struct ts_error *err)
{
	struct ts_scenario sc = *layout;
	sc.training.micro_batch = c->micro_batch;
	sc.training.recompute = c->recompute;
	/* the candidates' modes are the enumerated ones, on every layer (the
	 * static estimate and the lower bound count them so) */
	sc.training.recompute_interval = 0;
	/* activation offload goes with one stage and (Megatron) no recompute:
	 * the candidates hold their activations (as the estimate counts them) */
	sc.training.activation_offload_layers = 0;
	sc.training.iterations = 2; /* a warm-up, then the one measured */
	sc.parallel.tp = c->tp;
	sc.parallel.pp = c->pp;
	sc.parallel.cp = c->cp;
	sc.parallel.dp = c->dp;
	sc.parallel.zero = c->zero;
	/* the scenario's uneven stages hold for its own pipeline only */
	if (c->pp != layout->parallel.pp || c->interleave != layout->parallel.interleave) {
		sc.parallel.first_stage_layers = sc.parallel.last_stage_layers = 0;
		sc.parallel.account_embedding = sc.parallel.account_loss = false;
	}
	/* and so do its flushes: a candidate runs its micro-batches as one */
	sc.parallel.flushes = 1;
	sc.parallel.schedule = c->schedule;
	sc.parallel.interleave = c->interleave;
	sc.sim.granularity = TS_GRAN_STAGE; /* the coarsest level: milestones keep overlap */
	sc.sim.mode = TS_MODE_CLASS;
	struct ts_plan *p = NULL;
	if (out)
		memset(out, 0, sizeof *out);
	int rc = plan_build_with(env, &sc, in, &p, err);
	bool layer = !rc && c->layer_figures && !plan_stage_exact(p);
	if (at_layer)
		*at_layer = layer;
	/* layer's figures: layer where stage would not give them */
	if (layer && out) {
		plan_destroy(p);
		p = NULL;
		sc.sim.granularity = TS_GRAN_LAYER;
		rc = plan_build_with(env, &sc, in, &p, err);
	}
	if (!rc && out)
		rc = a ? run_plan_in(p, a, out, NULL, err) : run_plan(p, out, NULL, err);
	plan_destroy(p);
	return rc;
}

int search_candidate_run(const struct ts_env *env, const struct ts_scenario *layout,
			 const struct data_input *in, const struct search_cand *c,
			 struct ts_result *out, struct ts_error *err)
{
	return candidate_run(env, layout, in, c, out, NULL, NULL, err);
}

/* Order of the simulation: by key (the score floor per unit of steps), ties
 * by enumeration order. */
struct order {
	double key;
	size_t i;   /* the candidate */
	uint32_t l; /* its layout */
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Simulate the candidates of out that are neither pruned nor aliases, in
 * increasing order of their score floor, on `threads` threads (0: the
 * default), a round of one per thread at a time; with top > 0 stop once
 * top of them fit clearly and every floor left exceeds the top-th score,
 * and mark the rest bounded (search_run_env). Hooks h (may be NULL) give
 * known results and follow each one finished (search_run_hooks; t0: the
 * start, for the progress). Each candidate's rc holds its layout's index
 * until it is simulated. Returns 0 or TS_ENOMEM. */
static int simulate(const struct ts_env *env, struct ts_scenario *const *lay,
		    const struct data_input *in, enum search_objective obj, size_t top, int threads,
		    const struct search_hooks *h, double t0, struct search_result *out)
{
	struct search_cand *cs = out->c;
	size_t n = 0, cap = out->n ? out->n : 1;
	struct order *ord = ts_calloc(cap, sizeof *ord);
	double *best = ts_calloc(top ? top : 1, sizeof *best); /* tier-0 scores, ascending */
	if (!ord || !best) {
		ts_free(ord, cap * sizeof *ord);
		ts_free(best, (top ? top : 1) * sizeof *best);
		return TS_ENOMEM;
	}
	for (size_t i = 0; i < out->n; i++)
		if (!cs[i].pruned && !cs[i].alias)
			ord[n++] =
			    (struct order){score_floor(obj, lay[cs[i].rc], 1.0, cs[i].lower_s), i,
					   (uint32_t)cs[i].rc};
	qsort(ord, n, sizeof *ord, cmp_order);
#ifdef _OPENMP
	int nt = threads > 0 ? threads : omp_get_max_threads();
#else
	int nt = 1;
	(void)threads;
#endif
	/* each thread's task-graph storage, kept from candidate to candidate */
	struct run_arena *arenas = ts_calloc((size_t)nt, sizeof *arenas);
	if (!arenas) {
		ts_free(ord, cap * sizeof *ord);
		ts_free(best, (top ? top : 1) * sizeof *best);
		return TS_ENOMEM;
	}
	size_t nb = 0, done = 0, ndone = 0; /* ndone: candidates finished, for h */
	double steps = -1.0;		    /* the run's steps, from the first result */
	bool sound = true;		    /* every score so far at least its floor */
	while (done < n) {
		if (top && sound && nb == top && steps >= 0.0) {
			double lo = INFINITY;
			for (size_t k = done; k < n; k++) {
				const struct search_cand *c = &cs[ord[k].i];
				lo = fmin(lo, score_floor(obj, lay[ord[k].l], steps, c->lower_s));
			}
			if (lo > best[top - 1])
				break;
		}
		size_t end = done + (size_t)nt < n ? done + (size_t)nt : n;
		long a = (long)done, b = (long)end;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
#endif
		for (long k = a; k < b; k++) {
			struct search_cand *c = &cs[ord[k].i];
			bool known = false;
			if (h && h->known) {
#pragma omp critical(search_hooks)
				known = h->known(h->user, c, &c->res, &c->rc);
			}
#ifdef _OPENMP
			struct run_arena *ar = &arenas[omp_get_thread_num()];
#else
			struct run_arena *ar = &arenas[0];
#endif
			if (!known)
				c->rc = candidate_run(env, lay[ord[k].l], in, c, &c->res,
						      &c->at_layer, ar, NULL);
			else if (c->layer_figures) /* which level gave them */
				candidate_run(env, lay[ord[k].l], in, c, NULL, &c->at_layer, NULL,
					      NULL);
			if (h) {
#pragma omp critical(search_hooks)
				{
					ndone++;
					if (known)
						out->resumed++;
					else if (h->done)
						h->done(h->user, c, c->rc, &c->res);
					if (h->progress)
						h->progress(h->user, ndone, n, now_s() - t0);
				}
			}
		}
		for (size_t k = done; k < end; k++) {
			const struct search_cand *c = &cs[ord[k].i];
			if (c->rc)
				continue;
			const struct ts_result *r = &c->res;
			if (steps < 0.0)
				steps = r->steps;
			double v = score_of(obj, r);
			if (isfinite(v) &&
			    v < score_floor(obj, lay[ord[k].l], r->steps, c->lower_s) *
				    (1.0 - 1e-12)) {
				sound = false;
				out->bound_broken++;
			}
			if (!top || !r->fits || !isfinite(v) || !strcmp(r->memory_verdict, "tight"))
				continue;
			if (nb < top)
				nb++;
			else if (!(v < best[top - 1]))
				continue;
			size_t j = nb - 1;
			for (; j > 0 && best[j - 1] > v; j--)
				best[j] = best[j - 1];
			best[j] = v;
		}
		done = end;
	}
	for (size_t k = done; k < n; k++)
		cs[ord[k].i].bounded = true;
	for (int t = 0; t < nt; t++)
		run_arena_release(&arenas[t]);
	ts_free(arenas, (size_t)nt * sizeof *arenas);
	ts_free(ord, cap * sizeof *ord);
	ts_free(best, (top ? top : 1) * sizeof *best);
	return 0;
}

int search_run(const struct hw_catalog *cat, const struct work_calib *calib, const char *path,
	       const char *const *sets, size_t nsets, enum search_objective obj, uint32_t max_gpus,
	       int threads, size_t top, struct search_result *out, struct ts_error *err)
{
	struct ts_env env;
	memset(out, 0, sizeof *out);
	int rc = env_wrap(cat, calib, &env, err);
	if (!rc)
		rc = search_run_env(&env, path, sets, nsets, obj, max_gpus, threads, top, out, err);
	env_release(&env);
	return rc;
}

int search_run_env(const struct ts_env *env, const char *path, const char *const *sets,
		   size_t nsets, enum search_objective obj, uint32_t max_gpus, int threads,
		   size_t top, struct search_result *out, struct ts_error *err)
{
	return search_run_hooks(env, path, sets, nsets, obj, max_gpus, threads, top, NULL, out,
				err);
}

void search_layout_sets(uint32_t nodes, uint32_t gpn, struct search_layout_buf *buf,
			const char *sets[SEARCH_LAYOUT_SETS])
{
	uint64_t g = (uint64_t)nodes * gpn;
	snprintf(buf->nodes, sizeof buf->nodes, "nodes=%u", nodes);
	snprintf(buf->gpn, sizeof buf->gpn, "gpus_per_node=%u", gpn);
	snprintf(buf->dp, sizeof buf->dp, "parallel.dp=%llu", (unsigned long long)g);
	snprintf(buf->gb, sizeof buf->gb, "training.global_batch=%llu", (unsigned long long)g);
	const char *fix[SEARCH_LAYOUT_SETS] = {buf->nodes,
					       buf->gpn,
					       buf->dp,
					       buf->gb,
					       "training.micro_batch=1",
					       "parallel.tp=1",
					       "parallel.pp=1",
					       "parallel.zero=0",
					       "parallel.interleave=1",
					       "parallel.schedule=1f1b"};
	for (size_t k = 0; k < SEARCH_LAYOUT_SETS; k++)
		sets[k] = fix[k];
}

int search_run_hooks(const struct ts_env *env, const char *path, const char *const *sets,
		     size_t nsets, enum search_objective obj, uint32_t max_gpus, int threads,
		     size_t top, const struct search_hooks *h, struct search_result *out,
		     struct ts_error *err)
{
	const struct search_opts o = {
	    .obj = obj, .max_gpus = max_gpus, .threads = threads, .top = top};
	return search_run_opts(env, path, sets, nsets, &o, h, out, err);
}

int search_run_opts(const struct ts_env *env, const char *path, const char *const *sets,
		    size_t nsets, const struct search_opts *o, const struct search_hooks *h,
		    struct search_result *out, struct ts_error *err)
{
	enum search_objective obj = o->obj;
	uint32_t max_gpus = o->max_gpus;
	int threads = o->threads;
	size_t top = o->top;
	memset(out, 0, sizeof *out);
	const struct hw_catalog *cat = env->cat;
	const struct work_calib *calib = &env->calib;
	struct ts_scenario *base = NULL, *lay[MAX_LAYOUTS] = {0};
	struct costs_cache *cache = NULL;
	struct data_input input;
	uint32_t nl = 0;
	int rc = ts_scenario_load(cat, path, sets, nsets, &base, err);
	if (rc)
		return rc;
	if (base->n_phases) { /* a candidate would change the base, not its phases */
		rc = ts_error_set(err, TS_EUNSUPPORTED, base->file, 0,
				  base->training.rampup_start ? "training.rampup" : "phases",
				  "found a run in phases, expected one phase to search (search a "
				  "phase on its own with --set)");
		ts_scenario_destroy(base);
		return rc;
	}
	/* the dataset, read once for every candidate */
	if ((rc = plan_input(env, base, &input, err))) {
		ts_scenario_destroy(base);
		return rc;
	}
	uint32_t gpn = base->gpus_per_node;
	out->global_batch = base->training.global_batch;
	if (!max_gpus)
		max_gpus = base->gpus;
	enum { NFIX = SEARCH_LAYOUT_SETS };
	const char **argv = ts_calloc(nsets + NFIX, sizeof *argv);
	struct search_layout_buf lb;
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
		/* the degrees are set per candidate */
		search_layout_sets(nodes, per, &lb, argv + nsets);
		struct ts_error e2;
		if (ts_scenario_load(cat, path, argv, nsets + NFIX, &lay[nl], &e2)) {
			struct search_skip *k = &out->skips[out->layouts_skipped++];
			*k = (struct search_skip){(uint32_t)g, nodes, per, ""};
			ts_error_format(&e2, k->why, sizeof k->why);
			continue;
		}
		lay[nl]->training.global_batch = base->training.global_batch;
		nl++;
		if (g >= (uint64_t)gpn * 65536)
			break;
	}
	/* candidates */
	struct work_fw_conventions conv;
	enum ts_dtype dt = dtype_of(base);
	if (work_fw_conventions(base->training.framework, dt, &conv)) {
		rc = ts_scenario_error(base, err, TS_EINVALID, "training.framework",
				       "found %s with %s, expected a framework/precision pair it "
				       "supports",
				       work_framework_name(base->training.framework),
				       ts_dtype_name(dt));
		goto done;
	}
	if (base->training.optimizer == TS_OPT_ADAM8BIT)
		work_fw_adam8bit(&conv);
	else if (base->training.optimizer == TS_OPT_SGD ||
		 base->training.optimizer == TS_OPT_SGD_NOMOMENTUM)
		work_fw_sgd(&conv, base->training.optimizer == TS_OPT_SGD);
	if (!base->training.master_weights)
		work_fw_no_master(&conv, dt);
	work_fw_precision_options(&conv, base->training.grad_reduce_in_fp32 == 0,
				  base->training.fp8_params);
	cache = ts_calloc(1, sizeof *cache);
	if (!cache)
		goto nomem;
	const struct ts_model *md = &base->model;
	bool layers_only = md->family == TS_FAMILY_LAYERS;
	uint32_t L = (uint32_t)md->layers;
	int64_t gb = base->training.global_batch;
	/* the optimizer step on the GPU (offload: on the host, no floor) */
	double opt_pp = base->parallel.offload == TS_OFFLOAD_NONE
			    ? work_optimizer_time(hw_cluster_gpu_type(base->cluster), calib, 1.0,
						  conv.optim_bytes_touched)
			    : 0.0;
	const struct enum_ctx ctx = {.base = base,
				     .cache = cache,
				     .calib = calib,
				     .conv = &conv,
				     .dt = dt,
				     .opt_s_per_param = isfinite(opt_pp) ? opt_pp : 0.0,
				     .layer_figures = o->layer_figures};
	for (uint32_t l = 0; l < nl; l++) {
		const struct ts_scenario *s = lay[l];
		uint32_t g = s->gpus, ti = 0;
		for (uint32_t tp = 1; tp <= s->gpus_per_node && ti < MAX_TP; tp++) {
			if (s->gpus_per_node % tp || g % tp || (md->heads > 0 && md->heads % tp) ||
			    (layers_only && tp > 1))
				continue;
			for (uint32_t cp = 1, ci = 0; cp <= SEARCH_MAX_CP && ci < MAX_CP;
			     cp *= 2, ci++) {
				/* ring attention: the sequence in 2 cp chunks when causal
				 * (sim/work/ops.c) */
				int64_t chunks =
				    md->family != TS_FAMILY_BERT ? 2 * (int64_t)cp : cp;
				if ((g / tp) % cp ||
				    (cp > 1 && (layers_only || base->training.seq_len % chunks)))
					continue;
				uint32_t gp = g / tp / cp; /* GPUs for pp x dp */
				for (uint32_t pp = 1; pp <= gp && pp <= SEARCH_MAX_PP && pp <= L;
				     pp++) {
					if (gp % pp || (layers_only && pp > 1) ||
					    (L % pp && L / pp < SEARCH_MIN_LAYERS_UNEVEN))
						continue;
					uint32_t dp = gp / pp;
					if (gb % (int64_t)dp) {
						if (ts_grow((void **)&out->skipped_degrees,
							    &out->skipped_degrees_cap,
							    out->degrees_skipped + 1,
							    sizeof *out->skipped_degrees))
							goto nomem;
						out->skipped_degrees[out->degrees_skipped++] =
						    (struct search_skip_degrees){g, tp, cp, pp, dp};
						continue;
					}
					if (add_degrees(out, &cap_c, &ctx, s, l, ti, tp, ci, cp, pp,
							dp))
						goto nomem;
				}
			}
			ti++;
		}
	}
	/* simulate, in increasing order of the lower bounds */
	double t0 = now_s();
	if (simulate(env, lay, &input, obj, top, threads, h, t0, out))
		goto nomem;
	out->seconds = now_s() - t0;
	for (size_t i = 0; i < out->n; i++) {
		struct search_cand *c = &out->c[i];
		if (c->pruned) {
			c->rc = 0;
			continue;
		}
		if (c->alias) { /* listed in its equal's row, not ranked itself */
			c->rc = out->c[c->same_as].rc;
			c->res = out->c[c->same_as].res;
			c->bounded = out->c[c->same_as].bounded;
			c->at_layer = out->c[c->same_as].at_layer;
			out->aliases++;
			continue;
		}
		if (c->bounded) {
			c->rc = 0;
			out->bounded++;
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
		double v = score_of(obj, r);
		if (isfinite(v)) {
			c->score = v;
			c->tight = !strcmp(r->memory_verdict, "tight");
			out->ranked++;
			out->tight += c->tight;
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
	if (rc && out->skipped_degrees) {
		ts_free(out->skipped_degrees,
			out->skipped_degrees_cap * sizeof *out->skipped_degrees);
		out->skipped_degrees = NULL;
		out->skipped_degrees_cap = out->degrees_skipped = 0;
	}
	if (cache) {
		costs_free(cache);
		ts_free(cache, sizeof *cache);
	}
	for (uint32_t l = 0; l < nl; l++)
		ts_scenario_destroy(lay[l]);
	ts_free(argv, (nsets + NFIX) * sizeof *argv);
	ts_scenario_destroy(base);
	return rc;
}

void search_result_free(struct search_result *r)
{
	if (r && r->c)
		ts_free(r->c, (r->n ? r->n : 1) * sizeof *r->c);
	if (r && r->skipped_degrees)
		ts_free(r->skipped_degrees, r->skipped_degrees_cap * sizeof *r->skipped_degrees);
	if (r)
		memset(r, 0, sizeof *r);
}
