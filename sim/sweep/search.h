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
#include "run/result.h"
#include "work/compute.h"

enum search_objective { SEARCH_TIME, SEARCH_COST };

/* One candidate setting. Plain record. The degrees that are not modelled
 * yet (tp, pp, cp, ZeRO, schedule, interleave) are fields already and stay
 * at 1 / 0 / 1f1b: the enumeration gains a dimension when they are. */
struct search_cand {
	uint32_t nodes, gpus_per_node; /* layout */
	uint32_t tp, pp, cp, dp;       /* degrees; tp = pp = cp = 1 today */
	int zero;		       /* ZeRO stage; 0 today */
	uint32_t interleave;	       /* virtual stages; 1 today */
	int64_t micro_batch;	       /* sequences per micro-batch */
	enum ts_recompute recompute;   /* none | selective | full */
	int64_t bucket_bytes;	       /* TS_UNSET: the framework's; 0: one reduction */
	double est_bytes;	       /* static memory estimate per GPU, bytes */
	double capacity_bytes;	       /* usable bytes of the GPU */
	bool pruned;		       /* est_bytes > capacity: not simulated */
	int rc;			       /* ts_run status of a simulated candidate */
	double score;		       /* objective: lower is better; INFINITY if not ranked */
	struct ts_result res;	       /* the simulated result */
};

/* What a search did. Plain record owned by the caller; free with
 * search_result_free. */
struct search_result {
	struct search_cand *c; /* candidates ranked: best first, then the rest */
	size_t n;	       /* candidates enumerated */
	size_t layouts_skipped; /* GPU counts whose dp does not divide the global batch */
	size_t pruned;	       /* not simulated: the static estimate does not fit */
	size_t simulated;      /* simulated */
	size_t failed;	       /* simulated with an error (not ranked) */
	size_t ranked;	       /* simulated, fits and has a score */
	double seconds;	       /* wall time of the simulations, s */
};

/* Search scenario file `path` (with `sets` as --set arguments, catalog
 * `cat`, constants `calib`): for every GPU count of the layouts (one node
 * with 1, 2, 4, ... of its GPUs, then 2, 4, 8, ... whole nodes, up to
 * max_gpus, 0 = the scenario's own GPUs) with dp = GPUs, every power-of-two
 * micro-batch that divides global_batch / dp, recompute none, selective and
 * full, and the framework's gradient bucket or one reduction after
 * backward. The global batch is the scenario's. Candidates whose static
 * estimate (work_static_bytes + layers x saved activations + embedding and
 * head + reserve, sim/work/memory.h) exceeds the GPU are pruned; the rest
 * are simulated at stage granularity on `threads` OpenMP threads (0: the
 * default), each on a copy of its layout's scenario. Ranked by time to train (iteration time
 * without a run length) or cost (GPU-seconds per iteration without a
 * price); ties keep enumeration order. Returns 0, or the errors of
 * ts_scenario_load for the base scenario, TS_ENOMEM. */
int search_run(const struct hw_catalog *cat, const struct work_calib *calib, const char *path,
	       const char *const *sets, size_t nsets, enum search_objective obj, uint32_t max_gpus,
	       int threads, struct search_result *out, struct ts_error *err);

void search_result_free(struct search_result *r);

#endif
