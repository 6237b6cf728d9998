/* The result of simulating a scenario: the stable result keys of DESIGN.md
 * ("The scenario keys and the result keys"). Plain record.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_RESULT_H
#define TS_RUN_RESULT_H

#include <stdbool.h>
#include <stdint.h>

/* Bumped on any incompatible change of the JSON/CSV output. */
#define TS_SCHEMA_VERSION 2

/* Memory of the worst rank at its peak, by kind, bytes. */
struct ts_mem_breakdown {
	double weights;	     /* parameters (this rank's shard) */
	double gradients;    /* gradients */
	double optimizer;    /* optimizer state (fp32 master, moments) */
	double activations;  /* saved activations at the peak */
	double logits;	     /* fp32 logits and loss buffers */
	double buffers;	     /* communication buckets and prefetch buffers */
	double reserve;	     /* what the schedule does not hold: the four below */
	double cuda_context; /* CUDA driver context (by GPU generation) */
	double workspaces;   /* cuBLAS/cuBLASLt and cuDNN workspaces */
	double nccl;	     /* NCCL channel buffers of the rank's communicators */
	double allocator;    /* caching-allocator slack (fraction of held, by framework) */
};

/* One change that makes a scenario that does not fit fit (sim/sweep/remedy.h).
 * Plain record. */
struct ts_remedy {
	char change[96];	      /* what changes, in words ("ZeRO stage 1 -> 3") */
	char set[160];		      /* the --set overrides that make it, space-separated */
	uint32_t gpus;		      /* GPUs of the changed run */
	double memory_per_gpu_bytes;  /* its peak per GPU (device total), bytes */
	double memory_capacity_bytes; /* usable bytes of its GPU */
	double iteration_time_s;      /* its iteration time, s */
	double time_change;	      /* iteration_time_s / the original's - 1 */
};

/* Most changes a result lists. */
#define REMEDY_MAX 6

/* What would fit, as remedy_find found it. Plain record. */
struct ts_remedies {
	uint32_t n; /* changes that fit, fastest first */
	struct ts_remedy r[REMEDY_MAX];
};

/* Most phases a result breaks a run into (TS_MAX_PHASES of sim/io/scenario.h). */
#define TS_RESULT_MAX_PHASES 12

/* One phase of a run in phases (sim/run/run.h, run_plan). Plain record. */
struct ts_phase_result {
	char name[64];		 /* "phases[0]", the phase's name, or "ramp-up 1/4 (batch 32-96)" */
	double global_batch;	 /* samples per iteration */
	double seq_len;		 /* tokens per sample (1 for a sample-based model) */
	double steps;		 /* iterations */
	double tokens;		 /* steps x global_batch x seq_len */
	double samples;		 /* steps x global_batch */
	double iteration_time_s; /* s */
	double time_to_train_s, gpu_hours, energy_kwh, cost_usd; /* the phase's share */
	double checkpoints, failures_expected;
	bool fits;
};

/* Three quantiles of one figure's distribution, in the figure's unit. */
struct ts_band {
	double p10, p50, p90;
};

/* The headline figures a band is given for (JSON KEY_p10, KEY_p50, KEY_p90). */
struct ts_bands {
	struct ts_band iteration_time_s, samples_per_s, tokens_per_s, tflops_per_gpu, mfu,
	    time_to_train_s, cost_usd, gpu_energy_kwh, memory_per_gpu_bytes;
};

struct ts_result {
	char name[160];			     /* scenario name */
	char gpu[48];			     /* the cluster's GPU type ("A100-SXM4-80GB") */
	uint32_t gpus;			     /* GPUs in the job */
	double iteration_time_s;	     /* mean over steady iterations (warm-up excluded), s */
	double samples_per_s;		     /* whole job */
	double tokens_per_s;		     /* whole job */
	double model_flops_per_iteration;    /* from the dimensions, no recompute, causal
					      * attention at half (as the kernels skip the
					      * masked half), FLOP */
	double hardware_flops_per_iteration; /* with recompute, same count, FLOP */
	double tflops_per_gpu;		     /* model FLOPs / iteration time / GPUs / 1e12 */
	double mfu;			     /* fraction 0-1 of dense bf16/fp16 peak */
	double mfu_palm;	       /* same with attention counted in full, causal or not (PaLM,
					* Chowdhery et al. 2022, app. B; Megatron, Korthikanti et al.
					* 2022): equal to mfu without a causal mask, fraction 0-1 */
	double hfu;		       /* same, counting recomputed FLOPs */
	double memory_per_gpu_bytes;   /* peak of the worst rank, reserve included: the
					* device total nvidia-smi shows */
	double memory_allocated_bytes; /* of it, what PyTorch's caching allocator gives
					* tensors (torch.cuda.max_memory_allocated) */
	double memory_reserved_bytes;  /* and what it reserves, slack included
					* (torch.cuda.max_memory_reserved) */
	double memory_capacity_bytes;  /* usable bytes of that GPU */
	bool fits;		       /* memory_per_gpu_bytes <= memory_capacity_bytes:
					* memory_verdict is "fits" or "tight" */
	char memory_verdict[16];       /* "fits", "tight" (fits, but the band of
					* memory_error reaches capacity) or "does not fit" */
	double memory_headroom_gib;    /* capacity - need, GiB (negative: short by) */
	double memory_error;	       /* the memory model's stated error, fraction of need */
	char memory_largest_term[16];  /* the largest term of memory_breakdown */
	struct ts_mem_breakdown mem;   /* the peak, by kind */
	/* critical-path attribution on the rank that finishes last; the seven
	 * sum exactly to iteration_time_s */
	double compute_s, recompute_s, exposed_comm_s, bubble_s, data_stall_s, optimizer_s, other_s;
	/* whole run (0 when the scenario gives no run length) */
	double steps; /* iterations in the run */
	double time_to_train_s, gpu_hours, energy_kwh, cost_usd;
	/* whole run, continued (sim/run/cost.h) */
	double checkpoints;	       /* checkpoints written in the run */
	double checkpoint_bytes;       /* one checkpoint (weights and optimizer state), bytes */
	double checkpoint_s;	       /* time writing checkpoints, s (part of time_to_train_s) */
	double checkpoint_interval_s;  /* training time between checkpoints, s (0: none) */
	double failures_expected;      /* interruptions expected in the run */
	double failure_s;	       /* work lost and restarts, s (part of time_to_train_s) */
	double failure_lost_each_s;    /* work one interruption loses, s (half a segment) */
	double failure_restart_each_s; /* one restart, s (failures.restart) */
	double job_mtbf_s;	       /* mean time between interruptions of the job, s (0: none) */
	/* energy at three levels (sim/run/cost.h); energy_kwh = facility */
	double gpu_energy_kwh;	    /* GPU boards by state (busy, communicating, idle), kWh */
	double it_energy_kwh;	    /* GPUs + hosts + NICs + switch ports, kWh */
	double facility_energy_kwh; /* IT x PUE, kWh */
	double node_hours;	    /* nodes x time to train, h */
	double avg_power_kw;	    /* mean facility power while training (PUE included), kW */
	double usd_per_mtokens;	    /* cost_usd per million training tokens, US$ */
	double usd_per_hour;	    /* cost_usd per hour of the run (wall clock), US$/h */
	double usd_per_gpu_hour;    /* cost_usd per GPU-hour of the run, US$ */
	double utilisation;	    /* owned: share of the year the hardware is busy
				     * (cost.utilisation), its cost spread over those hours;
				     * 0 = not owned */
	double breakeven_months;    /* owned: months of use after which buying is cheaper than the
				     * cloud price; 0 = not applicable, -1 = never */
	char bottleneck[160];	    /* one line: what sets the pace */
	char not_modelled[512];	    /* keys accepted but not modelled, comma-separated */
	char warnings[512];	    /* whole-run warnings, comma-separated */
	char notes[512];	    /* how the scenario was read (a run length from --set that
				     * replaced the file's), comma-separated */
	/* what the model trains on: "tokens" (a transformer), or the unit a
	 * sample-based model declares ("images", "samples"); the throughput and
	 * price of such a model are per sample and per epoch */
	char unit[16];
	bool per_sample;      /* unit is not tokens */
	double epoch_samples; /* samples in one epoch (the dataset's), 0 = unknown */
	double epochs;	      /* epochs in the run (steps x batch / epoch_samples) */
	double epoch_s;	      /* time per epoch, s: time_to_train_s / epochs with a run
			       * length, else epoch_samples / samples_per_s */
	double usd_per_epoch; /* cost_usd / epochs, US$ (0 without a run length or a price) */
	/* a run in phases: the whole-run fields above are their sums, the
	 * per-iteration ones those of the longest phase */
	/* when it does not fit and remedies were looked for (remedy_find):
	 * the changes that fit; NULL when not looked for. Borrowed: the
	 * caller of remedy_find owns it (a pointer, so that the many results
	 * of a search stay small) */
	const struct ts_remedies *remedies;
	uint32_t n_phases;
	struct ts_phase_result phases[TS_RESULT_MAX_PHASES];
	/* the simulation's own spread of the headline figures over its
	 * replicas (sim/run/run.c); with one replica every quantile is the
	 * figure itself */
	struct ts_bands spread;
	/* the reported 80 % band: the spread combined with the model error
	 * that validation measured for the run's regime (sim/run/band.h);
	 * p50 is the spread's, never shifted by a bias */
	struct ts_bands band;
	char band_regime[32];	/* the regime whose error it carries ("A/single/megatron",
				 * a coarser one with stars, or "none" without a table) */
	double band_time_error; /* that regime's 80 % half-width of
				 * ln(measured/predicted time), log units (narrowed by a
				 * calibration from measurements: band_calibrated) */
	/* A calibration from the user's measurements (an overrides file with a
	 * fit group, sim/io/calibcfg.h): the constants it fitted, ", "-separated
	 * ("" without one: every constant is the catalog's), its residual and
	 * the regime's error before it narrowed the band, log units. */
	char calib_measured[160];
	double calib_residual;
	double calib_band_before;
	char granularity[8]; /* the task size simulated: "op", "layer" or "stage" (what
			      * sim.granularity = "auto" resolved to), "mixed" for phases
			      * simulated at different ones */
};

#endif
