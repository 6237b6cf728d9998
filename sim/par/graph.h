/* The task graph of a training iteration and its execution on the fluid
 * engine: tasks on streams (FIFO per GPU stream or communicator), explicit
 * dependencies, memory counters, and the record of what ran when.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PAR_GRAPH_H
#define TS_PAR_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/ts.h"
#include "engine/fluid.h"
#include "net/coll.h"

/* What a task is, for the time breakdown. */
enum graph_kind {
	GRAPH_COMPUTE,	 /* forward / backward kernels */
	GRAPH_RECOMPUTE, /* forward re-run inside backward */
	GRAPH_OPTIMIZER, /* optimizer step */
	GRAPH_COMM,	 /* a collective (gradient reduction, parameter gather) */
	GRAPH_P2P,	 /* pipeline send/receive */
	GRAPH_DATA,	 /* waiting for the input pipeline */
	GRAPH_HOST,	 /* kernel launches on the host thread */
	GRAPH_MARK,	 /* zero-time synchronisation point */
	GRAPH_KIND_COUNT_
};

/* Memory categories of a pool (as in struct ts_mem_breakdown). */
enum graph_mem {
	GRAPH_MEM_WEIGHTS,
	GRAPH_MEM_GRADIENTS,
	GRAPH_MEM_OPTIMIZER,
	GRAPH_MEM_ACTIVATIONS,
	GRAPH_MEM_LOGITS,
	GRAPH_MEM_BUFFERS,
	GRAPH_MEM_COUNT_
};

#define GRAPH_NONE UINT32_MAX

/* A task to add. Exactly one of: a compute/delay task (coll == NULL) whose
 * work is `seconds` of exclusive use of resource `res` (a GPU's SMs, capacity
 * 1 per member) by `mult` members, or of nothing when res is GRAPH_NONE (a
 * pure delay); or a collective (coll != NULL; its ranks are copied and its
 * done/ctx/arg are the graph's). */
struct graph_task_spec {
	enum graph_kind kind;
	uint32_t stream;   /* GRAPH_NONE: runs as soon as its dependencies are done */
	const char *label; /* static string, for traces ("fwd L3") */
	double seconds;	   /* >= 0 */
	uint32_t res;	   /* fluid resource or GRAPH_NONE */
	uint32_t mult;	   /* members of the rank class, >= 1 */
	const struct coll_spec *coll;
	/* 0, or a key naming coll's ranks: collectives of one graph with the
	 * same nonzero key have the same ranks, which the graph then stores
	 * once (and passes to the collective model with a key of their own) */
	uint32_t ranks_key;
	/* memory: `alloc` bytes of category alloc_cat are taken from `pool` when
	 * the task starts; `free` bytes of free_cat go back when it ends */
	uint32_t pool; /* GRAPH_NONE for no memory effect */
	enum graph_mem alloc_cat, free_cat;
	double alloc, free;
	uint32_t tag; /* caller's tag, kept in the record */
	/* A task on several resources at once (an input-pipeline stage: a
	 * storage read on a device and network links, a decode on a CPU pool, a
	 * copy over PCIe). When nuses > 0 the task is `work` units (bytes,
	 * core-seconds) on uses[0..nuses) (copied), at most `bound` units/s per
	 * member (0 = no bound), starting `latency` ns after it is released;
	 * `res` and `seconds` are then ignored. */
	const struct fluid_use *uses;
	uint32_t nuses;
	double work, bound;
	ts_time latency;
	/* The task does not start before this simulated time, ns (0: no such
	 * bound), as if it also waited for a task ending then (the graph runs
	 * from time 0); a start it delays has no blocker (the wait is charged
	 * to GRAPH_MARK). Not for collectives or multi-resource tasks. */
	ts_time not_before;
	/* The task does not end before this simulated time, ns (0: no such
	 * bound): its work and memory end when they end, its successors are
	 * released at the bound when that is later, as if a zero-time mark
	 * after it also waited for a task ending then; the breakdown charges
	 * the time between to GRAPH_MARK. Not for collectives or
	 * multi-resource tasks. */
	ts_time end_not_before;
};

/* What happened to a task. Times in ns. */
struct graph_rec {
	enum graph_kind kind;
	uint32_t stream;
	uint32_t tag;
	uint32_t blocker; /* the dependency that was done last (a mark passes on its own
			   * blocker), or GRAPH_NONE */
	const char *label;
	ts_time ready; /* when its last dependency was done */
	ts_time start, end;
};

/* Time of one stream in a window, split by what it was doing or waiting
 * for: busy by the kind of the running task; idle by the kind of the task
 * that the next one waited for. The entries sum to the window. */
struct graph_breakdown {
	ts_time busy[GRAPH_KIND_COUNT_];
	ts_time wait[GRAPH_KIND_COUNT_];
	ts_time idle; /* after the stream's last task in the window */
};

struct ts_graph;

/* Create an empty graph over fluid model f and collective launcher cc (both
 * borrowed; cc may be NULL if no collective is added). Returns 0/TS_ENOMEM. */
int graph_create(struct ts_graph **out, struct ts_fluid *f, struct ts_coll *cc);
void graph_destroy(struct ts_graph *g);

/* Empty g (no task, stream, pool or collective; not run; no detail kept,
 * no observer) and bind it to fluid model f and collective launcher cc
 * (borrowed, as graph_create), keeping its storage: the next graph built on
 * it writes into memory already faulted in instead of fresh pages. The
 * result is the graph graph_create returns, with capacity. Never fails. */
void graph_reset(struct ts_graph *g, struct ts_fluid *f, struct ts_coll *cc);

/* Add a stream (FIFO: its tasks start one at a time, in the order added).
 * `name` is static. */
int graph_stream(struct ts_graph *g, const char *name, uint32_t *id);
const char *graph_stream_name(const struct ts_graph *g, uint32_t stream);
uint32_t graph_nstreams(const struct ts_graph *g);

/* Add a memory pool (one rank's device memory, or one rank class's, per
 * member), starting at `base` bytes of category `cat` (static state such as
 * weights held from the start). */
int graph_pool(struct ts_graph *g, const char *name, uint32_t *id);
int graph_pool_add(struct ts_graph *g, uint32_t pool, enum graph_mem cat, double bytes);

/* Add a task. Returns 0, TS_ENOMEM, or TS_EINVALID for a malformed spec. */
int graph_task(struct ts_graph *g, const struct graph_task_spec *spec, uint32_t *id);

/* `after` may start only once `before` is done. */
int graph_dep(struct ts_graph *g, uint32_t before, uint32_t after);

/* Run every task to completion. Returns 0, TS_ENOMEM, or TS_EINVALID if
 * some tasks never ran (a cycle, or a collective that could not start);
 * `err` names the first such task. May be called once. */
int graph_run(struct ts_graph *g, struct ts_error *err);

uint32_t graph_ntasks(const struct ts_graph *g);
const struct graph_rec *graph_rec(const struct ts_graph *g, uint32_t task);

/* Peak bytes of a pool and the split by category at that moment. */
double graph_pool_peak(const struct ts_graph *g, uint32_t pool, double at_peak[GRAPH_MEM_COUNT_]);

/* Current bytes of a pool (its base before the run). */
double graph_pool_now(const struct ts_graph *g, uint32_t pool);

/* --- what traces show (nothing of it is kept or called unless asked for) */

/* Details of a task for a trace's slice arguments. */
struct graph_detail {
	double flops;		 /* FLOPs of a compute task, per member */
	double bytes;		 /* bytes of a collective or transfer, per rank */
	uint32_t iter, mb;	 /* iteration and micro-batch, or GRAPH_NONE */
	uint32_t layer0, layer1; /* first and last layer it works on, or GRAPH_NONE */
	uint32_t owner;		 /* rank class that issued it, or GRAPH_NONE */
	uint32_t peer;		 /* pipeline transfer: receiving class, or GRAPH_NONE */
	uint8_t pass;		 /* 0: none, 1: a forward pass, 2: a backward pass */
};

/* Keep a struct graph_detail per task from now on (graph_set_detail);
 * without this call graph_set_detail is never needed and nothing is kept.
 * Returns 0. */
int graph_keep_detail(struct ts_graph *g);
bool graph_keeps_detail(const struct ts_graph *g);

/* Bytes at most the details of `tasks` tasks take (times 2 for the
 * doubling of their arrays), for a traced run's estimate. */
double graph_detail_bytes(double tasks);

/* Set task's details (copied). Returns 0, TS_ENOMEM, or TS_EINVALID for an
 * unknown task or a graph that keeps none. */
int graph_set_detail(struct ts_graph *g, uint32_t task, const struct graph_detail *d);

/* A task's details, or NULL when none were set. */
const struct graph_detail *graph_detail(const struct ts_graph *g, uint32_t task);

/* The ranks of a collective task (*ranks: valid while g lives) and their
 * number; 0 for a task that is no collective. */
uint32_t graph_coll_ranks(const struct ts_graph *g, uint32_t task, const uint32_t **ranks);

/* Observer of a run (for traces): on_task when a task starts (end false)
 * and when it ends (end true), on_pool when a pool's bytes change to
 * `bytes`; t in ns. Either may be NULL. */
struct graph_observer {
	void (*on_task)(void *ud, uint32_t task, bool end, ts_time t);
	void (*on_pool)(void *ud, uint32_t pool, double bytes, ts_time t);
	void *ud;
};

/* Set (copied) or clear (NULL) the observer. */
void graph_set_observer(struct ts_graph *g, const struct graph_observer *obs);

/* The bytes graph g's arrays hold (their capacity, used or not). */
size_t graph_storage_bytes(const struct ts_graph *g);

/* The bytes of g's records in use (tasks, streams, pools, collectives and
 * their ranks, uses, dependencies and successors, details): the memory a
 * run touches for its graph, which graph_bytes estimates. */
size_t graph_used_bytes(const struct ts_graph *g);

/* Bytes at most that a graph of `tasks` tasks and `deps` dependencies,
 * with `colls` collectives over `coll_ranks` ranks in all, touches once
 * built: the sizes of its task, edge, successor, collective and rank
 * records, times 1.25. Its arrays grow by doubling and may hold up to
 * twice what they need, but capacity never written is not resident (large
 * arrays are mapped and grown in place); the 25 % covers the allocator and
 * the copies a growing array leaves behind (peak RSS against the records
 * in use, 14 configurations in sim/plan/plan.c: 1.00 to 1.06 above a few
 * MiB). For estimating a run's size before building it. */
double graph_bytes(double tasks, double deps, double colls, double coll_ranks);

/* Split stream `stream`'s time in (t0, t1] (see struct graph_breakdown). */
void graph_breakdown(const struct ts_graph *g, uint32_t stream, ts_time t0, ts_time t1,
		     struct graph_breakdown *out);

#endif
