/* Searching the training settings of a scenario: enumerate what trainsim
 * models, prune what cannot fit in memory by a static estimate, simulate
 * the rest in parallel, rank by time to train or cost.
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_SEARCH_H
#define TS_SWEEP_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "plan/env.h"
#include "data/loader.h"
#include "run/result.h"
#include "work/compute.h"

enum search_objective { SEARCH_TIME, SEARCH_COST };

/* One candidate setting. Plain record. */
struct search_cand {
	uint32_t nodes, gpus_per_node; /* layout */
	uint32_t tp, pp, cp, dp;       /* degrees */
	int zero;		       /* ZeRO stage 0..3 */
	enum ts_schedule schedule;     /* 1f1b, or interleaved (pp > 1) */
	uint32_t interleave;	       /* model chunks per stage: 1, or 2 when interleaved */
	int64_t micro_batch;	       /* sequences per micro-batch */
	enum work_recompute recompute; /* none | selective | full | op */
	double est_bytes;	       /* static memory estimate per GPU, bytes */
	double capacity_bytes;	       /* usable bytes of the GPU */
	bool pruned;		       /* est_bytes > capacity: not simulated */
	bool alias;		       /* its resolved plan is that of an earlier candidate
					* (same_as): not simulated, not ranked, its result
					* copied; e.g. selective recompute with flash
					* attention, which keeps no scores, is "none" */
	size_t same_as;		       /* an alias: index, in enumeration order, of the
					* candidate it equals (itself otherwise) */
	unsigned recompute_equiv;      /* bit r set: recompute mode r resolves to this
					* candidate's plan (its own bit included) */
	bool tight;		       /* ranked, but its memory is within the memory
					* model's error of capacity: ranked after every
					* candidate that fits clearly */
	double lower_s;		       /* proven lower bound of its iteration time, s
					* (search_run's comment says why); 0: none */
	bool bounded;		       /* not simulated: its lower bound shows it cannot
					* enter the top N (search_run_env's top) */
	bool layer_figures;	       /* simulated at layer granularity where stage would
					* not give layer's figures (plan_stage_exact);
					* false: at stage (search_opts.layer_figures) */
	bool at_layer;		       /* simulated at layer granularity (layer_figures and
					* not plan_stage_exact); else at stage */
	int rc;			       /* ts_run status of a simulated candidate */
	double score;		       /* objective: lower is better; INFINITY if not ranked */
	struct ts_result res;	       /* the simulated result */
};

/* Most GPU counts (layouts) a search tries. */
#define SEARCH_MAX_LAYOUTS 64

/* A GPU count the search skipped, and why. Plain record. */
struct search_skip {
	uint32_t gpus, nodes, gpus_per_node; /* the layout tried */
	char why[1024];			     /* the loader's error (file:line: key: what
					      * was found, what was expected) */
};

/* Degrees (tp, cp, pp, dp) on gpus GPUs the search skipped: dp does not
 * divide the global batch. Plain record. */
struct search_skip_degrees {
	uint32_t gpus, tp, cp, pp, dp;
};

/* What a search did. Plain record owned by the caller; free with
 * search_result_free. */
struct search_result {
	struct search_cand *c;	/* candidates ranked: best first, then the rest */
	size_t n;		/* candidates enumerated */
	size_t layouts_skipped; /* GPU counts that could not be loaded */
	size_t degrees_skipped; /* (tp, cp, pp, dp) whose dp does not divide the global batch */
	size_t pruned;		/* not simulated: the static estimate does not fit */
	size_t simulated;	/* simulated */
	size_t aliases;		/* not simulated nor ranked: the plan of another candidate,
				 * whose recompute_equiv lists them */
	size_t bounded;		/* not simulated: bounded out of the top N by their lower
				 * bound (0 in an exhaustive search) */
	size_t bound_broken;	/* simulated candidates whose score fell below the floor
				 * of their lower bound (0 unless the bound is wrong;
				 * the search then simulates every candidate) */
	size_t failed;		/* simulated with an error (not ranked) */
	size_t ranked;		/* simulated, fits and has a score */
	size_t tight;		/* of the ranked, those whose memory is tight */
	double seconds;		/* wall time of the simulations, s */
	int64_t global_batch;	/* the scenario's global batch, sequences */
	size_t resumed;		/* of the simulated, those taken from hooks->known */
	struct search_skip skips[SEARCH_MAX_LAYOUTS]; /* the layouts_skipped, in order */
	struct search_skip_degrees *skipped_degrees;  /* the degrees_skipped, in order (owned) */
	size_t skipped_degrees_cap;		      /* its allocated elements */
};

/* What a caller of search_run_hooks follows and keeps (every member may be
 * NULL). Called from the simulating threads one at a time (in an OpenMP
 * critical section), so they need no lock of their own. */
struct search_hooks {
	/* a candidate's result from an earlier run: true and *res, *rc
	 * filled when user has it (it is then not simulated again) */
	bool (*known)(void *user, const struct search_cand *c, struct ts_result *res, int *rc);
	/* candidate c was just simulated (status rc, result res) */
	void (*done)(void *user, const struct search_cand *c, int rc, const struct ts_result *res);
	/* done of total candidates to simulate, after elapsed_s seconds */
	void (*progress)(void *user, size_t done, size_t total, double elapsed_s);
	void *user;
};

/* Most pipeline stages the search tries; a stage holds at least
 * SEARCH_MIN_LAYERS_UNEVEN layers when pp does not divide the layers. */
#define SEARCH_MAX_PP 64
#define SEARCH_MIN_LAYERS_UNEVEN 4
/* Most context-parallel ranks the search tries (powers of two). */
#define SEARCH_MAX_CP 16

/* Search scenario file `path` (with `sets` as --set arguments, catalog
 * `cat`, constants `calib`). Enumeration, in this order:
 * - GPU count g: one node with 1, 2, 4, ... of its GPUs, then 2, 4, 8, ...
 *   whole nodes, up to max_gpus (0 = the scenario's own GPUs);
 * - tp: divisors of the attention heads that divide the GPUs used per node
 *   (a tensor-parallel group stays in one node, on NVLink) and g;
 * - cp: powers of two up to SEARCH_MAX_CP dividing g / tp, for
 *   transformers whose sequence splits into cp chunks (2 cp when causal:
 *   ring attention's load balancing, sim/work/ops.c);
 * - pp: divisors of g / (tp x cp) up to SEARCH_MAX_PP and the layer count,
 *   where pp divides the layers or every stage gets at least
 *   SEARCH_MIN_LAYERS_UNEVEN of them (uneven splits, sim/par/pipe.h);
 * - dp = g / (tp x cp x pp), which must divide the global batch;
 * - micro-batch: powers of two dividing global_batch / dp;
 * - schedule: 1f1b; with pp > 1 also interleaved with 2 chunks per stage
 *   when the micro-batches per iteration are a multiple of pp and the
 *   layers a multiple of 2 x pp (whole layers per virtual stage);
 * - ZeRO stage, when dp > 1, by framework: megatron 0..3 (1 the
 *   distributed optimizer, 2 and 3 Megatron-FSDP's optim_grads and
 *   optim_grads_params; 0, 1 with pp > 1, Megatron-FSDP being documented
 *   without pipeline stages), deepspeed 0..3 (0, 1 with pp > 1: DeepSpeed's
 *   pipeline engine does not take stages 2 and 3), fsdp 0, 2, 3 (NO_SHARD,
 *   SHARD_GRAD_OP, FULL_SHARD), ddp 0; layer-list models only tp = pp = 1
 *   and ZeRO 0;
 * - recompute: none, selective, full, and op (PyTorch's op-level selective
 *   checkpointing) when the framework is PyTorch-native (ddp, fsdp) and
 *   the model a transformer.
 * The static estimate of a candidate is the larger of its first and last
 * pipeline stage: work_static_bytes of the stage's parameters (embedding
 * or head plus ceil(layers / (pp x v)) x v layers, split by tp) under its
 * ZeRO stage, plus saved activations of the micro-batches in flight
 * (1 without a pipeline; 1F1B min(pp, m) on the first stage and 1 on the
 * last; interleaved min(2 (pp - 1) + (v - 1) pp + 1, m v) chunks on the
 * first, Narayanan et al. 2021 §2.2), plus the framework's buffers and the
 * overhead terms (work_overhead_bytes);
 * candidates above the GPU's capacity are pruned. The rest are simulated
 * in class mode at stage granularity over two iterations (the first a
 * warm-up) on `threads` OpenMP threads (0: the default), each on a copy
 * of its layout's scenario. Candidates whose resolved plans are the same
 * are simulated and ranked once: the settings a candidate resolves to are
 * its layout, degrees, ZeRO stage, schedule, micro-batch and what its
 * recompute mode does (per-layer saved bytes, rerun seconds and FLOPs);
 * a recompute mode that does what a lighter one does (selective with flash
 * attention, which keeps no scores; any mode of a layer-list model, which
 * recomputes nothing) is an alias of the lighter one's candidate, which
 * lists it in recompute_equiv. Ranked by time to train (iteration time
 * without a run length) or cost (GPU-seconds per iteration without a
 * price); ties keep enumeration order.
 *
 * With top > 0 the search is exact for the first `top` ranks and simulates
 * fewer: each candidate has a proven lower bound of its iteration time
 * (lower_s; sim/sweep/search.c, lower_bound, gives the proof), from the
 * same per-op costs the simulation runs (work_costs_compute): with one
 * stage, m micro-batches of every layer, the embedding and the head, the
 * floor of the tensor-parallel collectives of m - 1 of them (bytes / the
 * GPU's summed link bandwidth) and the optimizer step; with pp stages, the
 * last stage's m micro-batches with its TP floor, then the pipeline drain
 * (the last micro-batch's backward down the pp - 1 chunks below it, the
 * drain half of Narayanan et al. 2021's (pp - 1) / v bubble, section 2.2)
 * and stage 0's optimizer step. The forward (fill) half is left out: the
 * simulation does not hold a stage at the iteration's end for the others,
 * so an early stage may fill before the measured iteration starts. Time to
 * train is at least steps x iteration (checkpoints and failures add), cost
 * at least the hourly rate x steps x iteration. Candidates are simulated
 * in increasing order of that bound, and the search stops once
 * `top` candidates fit clearly (tier 0) and the next bound exceeds the
 * top-th score: no candidate left can rank before it. The rest are marked
 * bounded (not simulated, not ranked). Models with experts (whose dense
 * and expert layers differ) and layer lists get no bound (0): every
 * candidate is simulated. Should a simulated score fall below its bound
 * (a bound that does not hold), the rest are simulated as with top = 0.
 * top = 0: every candidate that fits the estimate is simulated.
 * Returns 0, or the errors of ts_scenario_load for the base scenario,
 * TS_ENOMEM. */
int search_run(const struct hw_catalog *cat, const struct work_calib *calib, const char *path,
	       const char *const *sets, size_t nsets, enum search_objective obj, uint32_t max_gpus,
	       int threads, size_t top, struct search_result *out, struct ts_error *err);

/* search_run in environment env (borrowed): its catalog, constants and
 * storage catalog; the dataset is read once, and no candidate opens a
 * file. Same errors, and those of plan_input for the base scenario. */
int search_run_env(const struct ts_env *env, const char *path, const char *const *sets,
		   size_t nsets, enum search_objective obj, uint32_t max_gpus, int threads,
		   size_t top, struct search_result *out, struct ts_error *err);

/* search_run_env with hooks h (NULL: none): the results h->known gives are
 * taken and counted in out->resumed, the others simulated and passed to
 * h->done; h->progress follows the count against the candidates that may
 * need simulating (with top > 0 the search can stop before it reaches
 * them all: the rest are bounded out). Same errors. */
int search_run_hooks(const struct ts_env *env, const char *path, const char *const *sets,
		     size_t nsets, enum search_objective obj, uint32_t max_gpus, int threads,
		     size_t top, const struct search_hooks *h, struct search_result *out,
		     struct ts_error *err);

/* What a search does. Plain record. */
struct search_opts {
	enum search_objective obj; /* what ranks first */
	uint32_t max_gpus;	   /* most GPUs tried (0: the scenario's) */
	int threads;		   /* OpenMP threads (0: the default) */
	size_t top;		   /* exact for this many ranks, simulating fewer (0: every
				    * candidate; search_run) */
	/* false: every candidate at stage granularity (search_run). true:
	 * the figures of layer granularity, `trainsim run`'s default: stage
	 * where it gives them (plan_stage_exact: no TP, CP or EP collective
	 * inside a layer, ZeRO below 3, no offload, no gradient reduction
	 * overlapping the backward), layer elsewhere, where stage differs by
	 * -5 to +20 % (tests/check_granularity.c) and costs less CPU. The
	 * lower bound holds at both levels (its proof uses only what both
	 * do), so the first `top` ranks are exact at layer's figures. */
	bool layer_figures;
};

/* search_run_hooks with options o (borrowed). Same errors. */
int search_run_opts(const struct ts_env *env, const char *path, const char *const *sets,
		    size_t nsets, const struct search_opts *o, const struct search_hooks *h,
		    struct search_result *out, struct ts_error *err);

/* Simulate candidate c on layout scenario `layout` (its nodes and GPUs per
 * node; c's degrees, micro-batch, ZeRO stage, schedule and recompute mode
 * replace the layout's; two iterations, class mode, stage granularity, or
 * layer where c->layer_figures asks for it and stage would differ)
 * with input `in` (plan_input of the search's scenario): plan_build_with,
 * then run_plan, into *out. Opens no file. Returns 0 or their errors. */
int search_candidate_run(const struct ts_env *env, const struct ts_scenario *layout,
			 const struct data_input *in, const struct search_cand *c,
			 struct ts_result *out, struct ts_error *err);

void search_result_free(struct search_result *r);

/* The --set values that load a scenario as the search's layout of `nodes`
 * nodes of gpn GPUs each: pure data parallelism over the nodes x gpn GPUs
 * (a global batch of one sample per GPU, micro-batch 1, no TP, PP, ZeRO or
 * interleaving), whose checks every layout passes; the degrees and the real
 * global batch are set per candidate afterwards. Writes SEARCH_LAYOUT_SETS
 * pointers into sets, into buf's strings or static ones (valid while buf
 * lives). Allocates nothing. */
#define SEARCH_LAYOUT_SETS 10
struct search_layout_buf {
	char nodes[32], gpn[32], dp[48], gb[64];
};
void search_layout_sets(uint32_t nodes, uint32_t gpn, struct search_layout_buf *buf,
			const char *sets[SEARCH_LAYOUT_SETS]);

#endif
