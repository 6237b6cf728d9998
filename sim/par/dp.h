/* Data-parallel training as a task graph: forward and backward of every
 * micro-batch on each rank's compute stream, gradient buckets reduced on the
 * communicator's stream as soon as they are ready, the optimizer step, and
 * the memory each task takes and gives back.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PAR_DP_H
#define TS_PAR_DP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "net/coll.h"
#include "par/graph.h"

/* How coarse the tasks are (DESIGN.md, "Granularity"). */
enum dp_granularity { DP_GRAN_OP, DP_GRAN_LAYER, DP_GRAN_STAGE };

/* One piece of a micro-batch's work on one rank, in forward order (the
 * embedding, each op or layer, the head). Times are seconds on one GPU for
 * one micro-batch. */
struct dp_unit {
	const char *label;	  /* static, for traces */
	double fwd_s;		  /* forward */
	double dgrad_s, wgrad_s;  /* backward: input gradient, weight gradient */
	double recompute_s;	  /* forward re-run before this unit's backward */
	uint32_t kernels_fwd;	  /* kernel launches of the forward */
	uint32_t kernels_bwd;	  /* kernel launches of the backward (and recompute) */
	double grad_bytes;	  /* gradient bytes this unit's weights produce, as reduced */
	double act_bytes;	  /* bytes kept from forward to backward */
	enum graph_mem act_cat;	  /* category of act_bytes (activations, or logits) */
	uint16_t layer;		  /* which layer it belongs to (0 for embed, L+1 for head) */
	double params;		  /* weight elements on this rank (ZeRO, pipeline stages) */
	uint8_t tp_fwd, tp_bwd;	  /* tensor-parallel collectives after its forward, after
				   * its backward (Megatron-LM: 2 and 2 per layer); 0 for
				   * dp_build */
	uint8_t a2a_fwd, a2a_bwd; /* MoE all-to-alls over the expert-parallel group after
				   * its forward, after its backward; 0 for dp_build */
	double ring_fwd_s;	  /* context parallelism: seconds of fwd_s (attention) that
				   * run chunk by chunk beside the ring of K, V transfers */
	double ring_bwd_s;	  /* the same of dgrad_s (attention backward) */
};

/* Most stages of an input pipeline (read, decode, host-to-device copy). */
#define DP_DATA_MAX_STAGES 4

/* One stage of the input pipeline of a rank class, for one batch: a task on
 * several fluid resources at once (graph_task_spec.uses). */
struct dp_data_stage {
	const char *label;	      /* static: names the stage's stream ("data read") */
	double work;		      /* units per batch per member (bytes, core-seconds) */
	double bound;		      /* most units/s per member, 0 = none */
	ts_time latency;	      /* ns before the work starts (request latency) */
	const struct fluid_use *uses; /* resources and coefficients (borrowed) */
	uint32_t nuses;		      /* >= 1 unless bound > 0 */
};

/* The input pipeline of every rank class (sim/data/loader.h builds it).
 * Each stage has its own stream per class, so stage s of batch i+1 overlaps
 * stage s+1 of batch i (the workers of a PyTorch DataLoader read, decode and
 * copy different batches at once). Batch i's first stage may start once
 * batch i - queue has been taken by the GPU (the prefetch queue); the first
 * forward task of batch i, and the host thread that launches it, wait for
 * its last stage; the wait is charged to GRAPH_DATA. */
struct dp_data {
	const struct dp_data_stage *stages; /* stage s of class k at [k * nstages + s] */
	uint32_t nstages;		    /* 1..DP_DATA_MAX_STAGES */
	uint32_t queue;			    /* batches loaded ahead, >= 1 */
};

/* A data-parallel job for the graph builder. */
struct dp_job {
	const struct dp_unit *units; /* forward order */
	uint32_t nunits;
	enum dp_granularity gran;  /* op/layer units as given; stage merges them */
	uint32_t accum;		   /* micro-batches per rank per iteration, >= 1 */
	uint32_t iterations;	   /* >= 1; the first is a warm-up */
	double bucket_bytes;	   /* gradient bucket; 0 = one reduction after backward */
	double first_bucket_bytes; /* PyTorch DDP's smaller first bucket; 0 = same */
	bool overlap;		   /* reduce buckets during backward */
	double optimizer_s;	   /* optimizer step, s */
	uint32_t optimizer_kernels;
	double launch_s; /* host time per kernel launch, s */
	/* ranks and placement */
	const uint32_t *ranks; /* the DP group, global GPU ranks, node-contiguous */
	uint32_t dp;	       /* ranks in the group */
	bool class_mode;       /* one rank class of dp members, or dp classes of one */
	uint32_t coll_mult;    /* class mode: node-local pieces of the group (nodes spanned) */
	/* memory held throughout, per rank, bytes */
	double weights_bytes, grads_bytes, optimizer_bytes;
	/* input pipeline; NULL: every batch is ready when the GPU wants it */
	const struct dp_data *data;
};

/* What the builder made, for measuring. */
struct dp_built {
	uint32_t compute_stream; /* the compute stream of rank class 0 */
	uint32_t pool;		 /* memory pool of rank class 0 */
	uint32_t *iter_end;	 /* per iteration: the optimizer task of class 0 (owned) */
	uint32_t niter;
	uint32_t buckets;			   /* gradient buckets per iteration */
	uint32_t gpu_res;			   /* fluid resource of class 0's GPUs */
	uint32_t data_streams[DP_DATA_MAX_STAGES]; /* input-pipeline streams of class 0 */
};

/* Add the job's tasks to graph g. `cat` fluid resources for the GPUs are
 * created in `f`. Returns 0, TS_ENOMEM, or TS_EINVALID (empty job) with err
 * filled. Free `out` with dp_built_free. */
int dp_build(struct ts_graph *g, struct ts_fluid *f, const struct dp_job *job, struct dp_built *out,
	     struct ts_error *err);
void dp_built_free(struct dp_built *b);

/* Bucket assignment in reverse parameter order, as PyTorch DDP does it:
 * tensors (here: units with gradients, last unit first) fill a bucket until
 * it holds at least `cap` bytes (the first bucket at least `first`); a unit
 * bigger than the cap ends up alone in its bucket. Writes, per unit, its
 * bucket index (0 = first reduced), and returns the number of buckets
 * (0 when no unit has gradients). cap == 0 puts everything in one bucket. */
uint32_t dp_assign_buckets(const struct dp_unit *units, uint32_t n, double cap, double first,
			   uint32_t *bucket_of);

#endif
