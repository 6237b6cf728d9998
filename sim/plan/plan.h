/* The plan of a scenario: every cross-key check and default, the
 * framework's conventions, per-op costs and the units of one micro-batch,
 * the resolved dataset, storage, drives and checkpoint target, built once
 * from a scenario and an environment. Everything below the plan (the
 * schedule, the input pipeline, the engine) takes what it needs from it and
 * opens no file; bad input is refused here, naming the file, line and key.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PLAN_PLAN_H
#define TS_PLAN_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "data/catalog.h"
#include "data/loader.h"
#include "io/scenario.h"
#include "par/unit.h"
#include "plan/env.h"
#include "work/compute.h"
#include "work/memory.h"

/* Most micro-batches per iteration and rank (gradient accumulation steps). */
#define PLAN_MAX_ACCUM (1 << 16)

/* A checked, resolved scenario. Owned by its builder's caller (free with
 * plan_destroy); borrows the environment and the scenario, which must
 * outlive it. Read-only once built: runs only read it. */
struct ts_plan {
	const struct ts_env *env;	/* borrowed */
	const struct ts_scenario *sc;	/* borrowed: model, cluster, settings */
	const struct work_calib *calib; /* borrowed: the compute constants */
	const struct hw_gpu_type *gpu;	/* the cluster's GPU type */
	struct hw_gpu_type gpu_run;	/* the GPU as it computes: gpu under power.gpu_limit
					 * (powercap_gpu; gpu itself without a limit); the
					 * per-op costs are of it, MFU and memory of gpu */
	double clock_ratio;		/* its sustained SM clock relative to the default
					 * limit's, 0..1 (1 without a limit) */
	enum ts_dtype dtype;		/* GEMM precision (the framework's default resolved) */
	struct work_fw_conventions conv;
	struct work_shape shape; /* one micro-batch on one rank */
	enum work_recompute recompute;
	uint32_t recompute_layers_n;   /* model layers that recompute (training.recompute_layers) */
	struct work_costs costs;       /* per-op costs (transformers; zero for layer lists); of a
					* layer with experts in a MoE model */
	struct work_costs dense_costs; /* of one of model.dense_layers (work_dense_model);
					* zero without them */
	double params;		       /* parameters of the model */
	uint32_t dp;		       /* data-parallel degree */
	uint32_t accum;		       /* micro-batches per rank and iteration */
	enum dp_granularity gran;
	bool class_mode;
	/* class mode: the stages of a node template whose GPUs are alike under
	 * its symmetry run as one class each (layout_merge, net_create_sym;
	 * true unless a test compares against the unmerged classes) */
	bool class_merge;
	struct dp_unit *units; /* one micro-batch in forward order (owned) */
	uint32_t nunits;
	uint32_t *chunk_layers;	      /* transformer layers of each virtual stage, chunk j of
				       * stage s at [j x pp + s] (plan_stage_layers; owned;
				       * zeros for layer-list models) */
	uint32_t nchunks;	      /* pp x interleave */
	double recompute_flops_mb;    /* layer-list models: forward FLOPs that full recompute
				       * reruns per micro-batch on a rank (0 otherwise) */
	double bucket_bytes;	      /* gradient bucket, framework default resolved; 0 = none */
	double first_bucket_bytes;    /* PyTorch DDP's first bucket; 0 = same */
	double straggle;	      /* mean straggler slowdown of a step, fraction
				       * (straggle_slowdown of the GPUs; each run's
				       * schedule uses it, so it is found once here) */
	bool overlap;		      /* gradient reduction overlaps backward */
	double optimizer_s_per_param; /* optimizer step on the GPU, s per parameter */
	uint32_t optimizer_kernels;
	struct data_input input; /* what the input pipeline reads */
	double nvme_read_Bps;	 /* offload = nvme: a node's drives, bytes/s; else 0 */
	double nvme_write_Bps;
	double ckpt_bytes;		  /* one checkpoint: weights and optimizer state, bytes */
	struct data_storage ckpt_storage; /* where checkpoints go (with checkpoints
					   * through the storage model) */
	bool ckpt_storage_set;		  /* ckpt_storage holds one */
	double est_bytes;		  /* what simulating the plan allocates at most, bytes
					   * (plan_estimate), without a trace */
	double est_trace_bytes;		  /* the same with a trace (every micro-batch simulated) */
	double max_memory;		  /* sim.max_memory resolved, bytes */
	/* a run in phases (ts_scenario.phases): the plan of each, owned */
	struct ts_plan *phases[TS_MAX_PHASES];
	uint32_t n_phases;
};

/* The shortest iterations simulated for an extension (plan_extends). */
#define PLAN_EXTRAP_M1 8u
#define PLAN_EXTRAP_DM 4u

/* The transformer layers of each of the pp x interleave virtual stages of
 * scenario sc, chunk j of stage s at out[j x pp + s] (pp x interleave
 * entries; the embedding joins the first, the head the last):
 * parallel.first_stage_layers / last_stage_layers as Megatron-LM's
 * --decoder-first/last-pipeline-num-layers (the other stages split the rest
 * evenly; with interleave v every stage's layers a multiple of v, each of
 * its chunks 1/v of them); parallel.account_for_embedding / account_for_loss
 * as Megatron-LM's --account-for-embedding/loss-in-pipeline-split (the
 * embedding and the loss count as a layer in an even split, the first and
 * last virtual stages build one layer fewer); neither, the even deal of
 * pipe_even_layers, which with interleaving must be exact. Returns 0, or
 * TS_EINVALID with `err` naming the key, its file and line, what was found
 * and what Megatron-LM expects. */
int plan_stage_layers(const struct ts_scenario *sc, uint32_t *out, struct ts_error *err);

/* Check scenario sc against environment env and resolve everything a run
 * needs: the settings trainsim does not model (plan_check_modelled), the
 * pairs of keys that contradict each other (offload without ZeRO, NVMe
 * offload without ZeRO-3, TP overlap without SP, interleaving that does not
 * split the layers), the precision (the framework's default on the GPU) and
 * the framework's conventions, the micro-batches per iteration, the per-op
 * costs and the units of one micro-batch, the dataset (read from
 * configs/datasets/ here, the only file a plan opens), the storage, the
 * NVMe drives of offload = "nvme", the checkpoint storage and the power
 * figures (power.node_max against the GPUs' draw, power.gpu_limit within
 * the GPU's catalog power_min and its TDP, refused with TS_ERANGE), and last the size of the run it
 * describes (plan_estimate, refused above sim.max_memory by plan_check_size). Borrows env and sc
 * (both must outlive the plan). Returns 0 with a new plan in *out, or TS_EUNSUPPORTED, TS_EINVALID,
 * TS_ERANGE, TS_ELIMIT, TS_EUNKNOWN_NAME (dataset or storage, with the closest names), the dataset
 * file's errors, or TS_ENOMEM, with `err` naming the scenario file and line of the key (or the
 * --set argument); *out is NULL then. */
int plan_build(const struct ts_env *env, const struct ts_scenario *sc, struct ts_plan **out,
	       struct ts_error *err);

/* Resolve what the input pipeline of scenario sc reads (plan_build's
 * dataset and storage): the only step of planning that opens a file (the
 * dataset's). Errors as plan_build's for data.dataset and data.storage. */
int plan_input(const struct ts_env *env, const struct ts_scenario *sc, struct data_input *out,
	       struct ts_error *err);

/* plan_build with the input already resolved (plan_input of a scenario
 * with the same data group and model family, borrowed only while
 * building): opens no file. A sweep or a search resolves its base's input
 * once and builds each point's plan with it. Errors as plan_build. */
int plan_build_with(const struct ts_env *env, const struct ts_scenario *sc,
		    const struct data_input *in, struct ts_plan **out, struct ts_error *err);

/* Refuse, with TS_EUNSUPPORTED naming the key and its scenario line, a
 * setting trainsim accepts but does not model: context, expert, tensor or
 * pipeline parallelism or ZeRO for a layer-list model; a parallel
 * attention+MLP block with tp > 1 at op granularity. Returns 0 when sc is
 * modelled. plan_build calls it first; validation uses it to tell "not
 * modelled yet" from a failure. */
int plan_check_modelled(const struct ts_scenario *sc, struct ts_error *err);

/* The storage checkpoints of sc are written to, looked up in catalog cat:
 * checkpoint.storage, else data.storage, else "local-nvme". Returns 0 with
 * *out, or TS_EUNKNOWN_NAME naming the key (and its scenario line) and the
 * closest names. */
int plan_ckpt_storage(const struct ts_scenario *sc, const struct data_catalog *cat,
		      const struct data_storage **out, struct ts_error *err);

/* Run-length units (training.tokens, samples or epochs, as the scenario
 * gives the run) that one optimizer step consumes; tokens scaled by
 * batch_share (the fraction of the global batch a step really trains, 1 for
 * the whole batch); 1 for steps or no run length. Epochs count passes over
 * the plan's resolved dataset. */
double plan_units_per_step(const struct ts_plan *p, double batch_share);

/* Whether a run of scenario sc is simulated by extension (sim/run/run.h,
 * ts_run): two short runs of *m1 < *m2 micro-batches per iteration, the
 * first with at least PLAN_EXTRAP_M1 micro-batches and two pipeline fills,
 * the second with at least PLAN_EXTRAP_DM and one fill more, both
 * multiples of the stage count; *m receives the scenario's own count (0
 * when the global batch gives none or too many). */
bool plan_extends(const struct ts_scenario *sc, uint32_t *m1, uint32_t *m2, uint32_t *m);

/* Whether stage granularity gives plan p the figures layer granularity
 * gives (iteration time, its breakdown, memory): equal up to the rounding
 * of each task's end to the nanosecond, which layer does at more tasks (at
 * most 1 ns per task on the critical path; measured 1e-9 to 3e-6 relative).
 * A stage's pass runs its compute as one task and, at its end, each unit's
 * tensor-parallel collectives back to back (struct coll_spec, count: the
 * latencies and sizes of the units' own), the last unit's apart: a
 * gradient reduction after the pass starts where layer's does. That is
 * layer's schedule when no other traffic shares the collectives' links:
 * tp = 1, or tp over a whole node (its peers' data-parallel and pipeline
 * traffic leaves through the node's NICs) without Megatron-Core's TP
 * communication overlap (whose GEMMs and collectives overlap unit by
 * unit); cp = ep = 1 (ring steps and all-to-alls per layer); no offload.
 * ZeRO-3 is no exception: its weights are gathered and freed per FSDP unit
 * (a layer) at every granularity, and a stage's pass is cut at each unit.
 * The default granularity (sim.granularity = "auto") is stage where this
 * holds, else layer. Measured on the validation sources
 * (tests/check_granularity.c checks every third single-node and every
 * second multi-node row): within 1e-6 wherever the rule holds (MPT and
 * TITAN's FSDP rows among them); outside it MEG24 with TP overlap +2.4 to
 * +4.8 %. A sufficient
 * condition: vTrain's multi-node rows with tp 2 or 4 on 8-GPU nodes also
 * match (within 1e-6). */
bool plan_stage_exact(const struct ts_plan *p);

/* Estimate, in bytes, what simulating plan p allocates at its peak: the
 * task graph of the largest run simulated (the m2 run of an extension, or
 * every micro-batch with a trace or without extension) and its records,
 * with `trace` true as a traced run simulates it. Not below the measured
 * peak (less the program's 4 MiB), and up to about 2.5 times it (see
 * plan.c). */
double plan_estimate(const struct ts_plan *p, bool trace);

/* Refuse, with TS_ELIMIT naming the key that drives the size (sim.mode in
 * full mode, sim.granularity at op granularity, sim.extrapolate = false
 * where the extension would simulate fewer micro-batches, else
 * training.iterations),
 * the estimate and the limit, a plan whose run (traced when `trace`) would
 * allocate more than sim.max_memory. Returns 0 when it fits. plan_build
 * checks the untraced run; a traced run checks again. */
int plan_check_size(const struct ts_plan *p, bool trace, struct ts_error *err);

/* Free a plan (NULL is fine). */
void plan_destroy(struct ts_plan *p);

#endif
