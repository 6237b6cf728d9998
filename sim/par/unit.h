/* The work of one micro-batch as the schedule builder takes it: units in
 * forward order (their times, kernels, gradients, activations and the
 * collectives they end with) and the input pipeline that feeds them. The
 * plan makes them (sim/plan), sim/par/pipe.h turns them into a task graph.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PAR_UNIT_H
#define TS_PAR_UNIT_H

#include <stdint.h>

#include "par/graph.h" /* graph_mem, fluid_use, ts_time */

/* How coarse the tasks are (DESIGN.md, "Granularity"). */
enum dp_granularity { DP_GRAN_OP, DP_GRAN_LAYER, DP_GRAN_STAGE };

/* One piece of a micro-batch's work on one rank, in forward order (the
 * embedding, each op or layer, the head). Times are seconds on one GPU for
 * one micro-batch. */
struct dp_unit {
	const char *label;	 /* static, for traces */
	double fwd_s;		 /* forward */
	double dgrad_s, wgrad_s; /* backward: input gradient, weight gradient */
	double recompute_s;	 /* forward re-run before this unit's backward */
	/* TP communication overlap (pipe_job.tp_overlap): seconds the
	 * overlapped GEMMs of fwd_s, dgrad_s, wgrad_s and recompute_s add
	 * while their collectives run beside them (work_tpo_slowdown per GEMM
	 * and phase, summed over the unit's ops); 0 without it */
	double tpo_fwd_s, tpo_dgrad_s, tpo_wgrad_s, tpo_rec_s;
	uint32_t kernels_rec;	  /* kernel launches of that re-run */
	double recompute_bytes;	  /* activations the re-run makes again, held from its
				   * start to the end of this unit's backward */
	uint32_t kernels_fwd;	  /* kernel launches of the forward */
	uint32_t kernels_bwd;	  /* kernel launches of the backward (and recompute) */
	double grad_bytes;	  /* gradient bytes this unit's weights produce, as reduced */
	double act_bytes;	  /* bytes kept from forward to backward */
	enum graph_mem act_cat;	  /* category of act_bytes (activations, or logits) */
	uint16_t layer;		  /* which layer it belongs to (0 for embed, L+1 for head) */
	double params;		  /* weight elements on this rank (ZeRO, pipeline stages) */
	uint8_t tp_fwd, tp_bwd;	  /* tensor-parallel collectives after its forward, after
				   * its backward (Megatron-LM: 2 and 2 per layer) */
	uint8_t a2a_fwd, a2a_bwd; /* MoE all-to-alls over the expert-parallel group after
				   * its forward, after its backward */
	double ring_fwd_s;	  /* context parallelism: seconds of fwd_s (attention) that
				   * run chunk by chunk beside the ring of K, V transfers */
	double ring_bwd_s;	  /* the same of dgrad_s (attention backward) */
	double dp_gather_bytes;	  /* bytes this rank puts into an all-gather over the
				   * data-parallel group after its forward (CLIP's
				   * embeddings for the contrastive loss), and into the
				   * reduce-scatter of their gradients after its
				   * backward; 0 = none */
	/* FLOPs on this rank per micro-batch (standard count), for traces */
	double fwd_flops, dgrad_flops, wgrad_flops, recompute_flops;
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

/* The input pipeline of every rank class (sim/data/loader.h builds it;
 * sim/par/pipe.h puts it in the schedule).
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

#endif
