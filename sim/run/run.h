/* Simulate a scenario: plan the ranks, build the iteration's task graph,
 * play it on the event engine, and measure the result.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_RUN_H
#define TS_RUN_RUN_H

#include "base/err.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "trace/trace.h"
#include "run/result.h"
#include "work/compute.h"

/* Simulate the job of plan p (borrowed) and fill `out` (every stable result
 * key); when `trace` is not NULL, every task of every simulated iteration is
 * recorded on it. Opens no file: everything read from the environment is
 * in the plan. Returns 0, or TS_EINVALID for a schedule the builders refuse,
 * TS_ELIMIT for a traced run (every micro-batch simulated) above
 * sim.max_memory (plan_check_size), or TS_ENOMEM, with `err` filled. Never
 * prints. Extension as ts_run. */
int run_plan(const struct ts_plan *p, struct ts_result *out, struct ts_trace *trace,
	     struct ts_error *err);

struct ts_graph;

/* Storage one simulation leaves to the next: the task graph's arrays,
 * reset (graph_reset) rather than freed, so that the runs of a sweep or a
 * search, and the two short runs of an extension, write into memory
 * already faulted in instead of having the kernel zero-fill fresh pages.
 * Zero-initialise it, pass it to run_plan_in as often as wanted (the
 * results are those of run_plan, bit for bit), free it with
 * run_arena_release. Owned by its user; one thread at a time. */
struct run_arena {
	struct ts_graph *g; /* a graph's storage, or NULL */
};

/* run_plan on the storage of arena a (not NULL), which keeps it for the
 * next call. Returns as run_plan. */
int run_plan_in(const struct ts_plan *p, struct run_arena *a, struct ts_result *out,
		struct ts_trace *trace, struct ts_error *err);

/* Free what arena a holds and empty it (a itself is the caller's). */
void run_arena_release(struct run_arena *a);

/* Plan scenario `sc` in an environment of its cluster's catalog (its root
 * directory for the storage catalog and datasets) and the efficiency
 * constants `calib`, then run_plan; the storage catalog is read once per
 * call (a sweep or a search builds its plans from one struct ts_env
 * instead). Simulate scenario `sc` with the efficiency constants `calib` and fill
 * `out` (every stable result key). When `trace` is not NULL, every task of
 * every simulated iteration is recorded on it (one track per stream).
 * A scenario that does not fit in memory is still simulated and reported
 * with fits = false. Returns 0, TS_EUNSUPPORTED for a setting not modelled
 * yet (the message names the key), TS_EINVALID for an inconsistent
 * scenario, the errors of plan_build and data_catalog_load, or TS_ENOMEM,
 * with `err` filled. Never prints.
 *
 * An iteration of m micro-batches has, once the pipeline is full, one
 * period per micro-batch, so its time and each part of it grow linearly in
 * m (for equal stages, (m + p - 1) x (t_f + t_b): Narayanan et al. 2021,
 * eq. 1), and so does what a GPipe stage holds at its peak. With
 * sc->sim.extrapolate (the default) and no trace, a long iteration is
 * simulated twice, with m1 and m2 micro-batches (multiples of the stage
 * count, see plan_extends in sim/plan/plan.h), and every time and memory
 * figure is read off the line through the two at m; the cost of a run then no longer grows
 * with the global batch. */
int ts_run(const struct ts_scenario *sc, const struct work_calib *calib, struct ts_result *out,
	   struct ts_trace *trace, struct ts_error *err);

/* Whether ts_run simulates scenario sc by extension (see ts_run), with the
 * micro-batches per iteration of the two short runs in *m1 < *m2 and the
 * scenario's own in *m (0 when the global batch gives none or too many). */
bool ts_run_extends(const struct ts_scenario *sc, uint32_t *m1, uint32_t *m2, uint32_t *m);

#endif
