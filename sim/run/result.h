/* The result of simulating a scenario: the stable result keys of DESIGN.md
 * ("The scenario keys and the result keys"). Plain record.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_RESULT_H
#define TS_RUN_RESULT_H

#include <stdbool.h>
#include <stdint.h>

/* Bumped on any incompatible change of the JSON/CSV output. */
#define TS_SCHEMA_VERSION 1

/* Memory of the worst rank at its peak, by kind, bytes. */
struct ts_mem_breakdown {
	double weights;	    /* parameters (this rank's shard) */
	double gradients;   /* gradients */
	double optimizer;   /* optimizer state (fp32 master, moments) */
	double activations; /* saved activations at the peak */
	double logits;	    /* fp32 logits and loss buffers */
	double buffers;	    /* communication buckets and prefetch buffers */
	double reserve;	    /* framework/allocator reserve */
};

struct ts_result {
	char name[160];			     /* scenario name */
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
	double mfu_palm;	      /* same with attention counted in full, causal or not (PaLM,
				       * Chowdhery et al. 2022, app. B; Megatron, Korthikanti et al.
				       * 2022): equal to mfu without a causal mask, fraction 0-1 */
	double hfu;		      /* mfu counting recomputed FLOPs */
	double memory_per_gpu_bytes;  /* peak of the worst rank, reserve included */
	double memory_capacity_bytes; /* usable bytes of that GPU */
	bool fits;		      /* memory_per_gpu_bytes <= memory_capacity_bytes */
	struct ts_mem_breakdown mem;  /* the peak, by kind */
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
	double breakeven_months;    /* owned: months of use after which buying is cheaper than the
				     * cloud price; 0 = not applicable, -1 = never */
	char bottleneck[160];	    /* one line: what sets the pace */
	char not_modelled[512];	    /* keys accepted but not modelled, comma-separated */
	char warnings[256];	    /* whole-run warnings, comma-separated */
};

#endif
