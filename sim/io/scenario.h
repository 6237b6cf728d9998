/* A training scenario: the resolved model, cluster, training, parallel, data,
 * cost and simulation settings of one scenario file plus its --set
 * overrides, with where every value came from (--dump-config).
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_SCENARIO_H
#define TS_IO_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "work/memory.h"
#include "work/model.h"

/* Marker of a value left for the framework's defaults to fill (precision,
 * gradient bucket, overlap). */
#define TS_UNSET (-1)

/* adam8bit: bitsandbytes' 8-bit Adam(W), one byte per moment */
/* sgd: torch.optim.SGD with momentum (one state per parameter);
 * sgd-nomomentum: momentum = 0, no state (work_fw_sgd) */
enum ts_optimizer {
	TS_OPT_ADAM,
	TS_OPT_ADAMW,
	TS_OPT_SGD,
	TS_OPT_ADAM8BIT,
	TS_OPT_SGD_NOMOMENTUM,
	TS_OPT_COUNT_
};
/* training.optimizer_impl: how torch.optim runs the step (the `foreach` and
 * `fused` arguments of torch.optim.Adam(W); torchtitan's
 * optimizer.implementation): foreach over all tensors at once (PyTorch's
 * default on CUDA since 2.0), one fused kernel, or a loop over tensors */
enum ts_optimizer_impl {
	TS_OPTIMPL_FOREACH,
	TS_OPTIMPL_FUSED,
	TS_OPTIMPL_FORLOOP,
	TS_OPTIMPL_COUNT_
};
enum ts_offload { TS_OFFLOAD_NONE, TS_OFFLOAD_CPU, TS_OFFLOAD_NVME, TS_OFFLOAD_COUNT_ };
enum ts_schedule { TS_SCHED_GPIPE, TS_SCHED_1F1B, TS_SCHED_INTERLEAVED, TS_SCHED_COUNT_ };
/* How the transformer layers are dealt to the pp x interleave virtual
 * stages when no first/last or account_for key says (plan_stage_layers):
 * EVEN, the extra layers to the middle stages, and with interleaving an
 * exact split; FRONT, L / V each and the first L mod V virtual stages one
 * more, as PyTorch pipelining is split by NeMo AutoModel. */
enum ts_layer_split { TS_SPLIT_EVEN, TS_SPLIT_FRONT, TS_SPLIT_COUNT_ };
/* How an MoE layer's tokens reach their experts over the expert-parallel
 * group: ALLTOALL, NCCL all-to-alls (Megatron-Core's alltoall token
 * dispatcher); DEEPEP, DeepEP's dispatch and combine kernels (Megatron-Core's
 * flex dispatcher with moe_enable_deepep), which hold their own NVLink and
 * RDMA buffers for the whole run. */
enum ts_ep_dispatcher { TS_DISPATCH_ALLTOALL, TS_DISPATCH_DEEPEP, TS_DISPATCH_COUNT_ };
/* How context parallelism shares the sequence's attention: P2P, a ring
 * passing K, V blocks (ring attention; Megatron-Core's cp_comm_type
 * "p2p"); A2A, all-to-alls that give each rank the whole sequence for
 * heads / cp of the heads (DeepSpeed-Ulysses; cp_comm_type "a2a"). */
enum ts_cp_comm { TS_CP_P2P, TS_CP_A2A, TS_CP_COMM_COUNT_ };
/* auto: stage where stage gives layer's figures (plan_stage_exact), else
 * layer; the plan resolves it */
enum ts_granularity { TS_GRAN_OP, TS_GRAN_LAYER, TS_GRAN_STAGE, TS_GRAN_AUTO, TS_GRAN_COUNT_ };
enum ts_sim_mode { TS_MODE_CLASS, TS_MODE_FULL, TS_MODE_COUNT_ };
/* Which run length was given (at most one of them). */
enum ts_run_unit {
	TS_RUN_NONE,
	TS_RUN_TOKENS,
	TS_RUN_SAMPLES,
	TS_RUN_EPOCHS,
	TS_RUN_STEPS,
	TS_RUN_COUNT_
};

/* Names as written in scenario files ("cpu", "1f1b", ...). The framework and
 * the recompute mode are work/'s own enums (work_framework_name,
 * work_recompute_name): one vocabulary from the file to the model. */
const char *ts_optimizer_name(enum ts_optimizer o);
const char *ts_offload_name(enum ts_offload o);
const char *ts_schedule_name(enum ts_schedule s);
const char *ts_granularity_name(enum ts_granularity g);
const char *ts_sim_mode_name(enum ts_sim_mode m);
const char *ts_run_unit_name(enum ts_run_unit u);

/* training = { ... } */
struct ts_training {
	enum work_framework framework; /* default megatron */
	int64_t global_batch; /* sequences (samples) per iteration; default micro_batch x dp */
	int64_t micro_batch;  /* sequences per micro-batch per DP rank; default 1 */
	int64_t seq_len;      /* tokens per sequence; default the model's seq_len */
	int precision;	      /* enum ts_dtype of the GEMMs, or TS_UNSET (framework default) */
	enum ts_optimizer optimizer;   /* default adam */
	enum work_recompute recompute; /* default none */
	enum work_xent xent;	       /* cross_entropy: how the loss holds the logits
					* (fused | upcast | chunked; default fused) */
	bool mlm_masked;	       /* mlm_head = "masked": BERT's masked-LM head runs on
					* the masked positions only (work_shape.mlm_masked);
					* default "all" */
	int grad_reduce_in_fp32;       /* 1, 0 (gradients in the weights' low precision), or
					* TS_UNSET = the framework's */
	bool fp8_params;	       /* fp8 training holds its weights in fp8 (default false) */
	int64_t recompute_layers;      /* with full recompute, only the first N layers of each
					* pipeline chunk (Megatron --recompute-num-layers with
					* --recompute-method block); 0 = every layer */
	int64_t recompute_interval;    /* with full recompute, only every N-th layer of each
					* rank's layers, counted from 1 in their order on the
					* rank (torchtitan's layer-level selective
					* checkpointing, selective_ac_option = "N"); the others
					* keep all; 0 or 1 = every layer */
	int64_t activation_offload_layers; /* the first N transformer layers copy their
					    * saved activations to host memory in forward and back
					    * in backward (Megatron-Core's cpu_offloading with
					    * cpu_offloading_num_layers, Transformer Engine's CPU
					    * offload; pipe_job.act_offload_layers); 0 = none */
	int optimizer_impl;		   /* enum ts_optimizer_impl, or TS_UNSET: the framework's
					    * (torch.optim's foreach for ddp and fsdp; Megatron's and
					    * DeepSpeed's own fused step) */
	bool master_weights;		   /* default true: an fp32 master copy of low-precision
					    * weights; false keeps weights, gradients and Adam's
					    * moments in the training dtype (work_fw_no_master) */
	bool flash_attention; /* attention = "flash" (default) | "unfused" (softmax(QK^T)V as
			       * batched GEMMs, as Megatron ran before FlashAttention) */
	int64_t iterations;   /* simulated iterations, the first a warm-up; default 3 */
	/* training.rampup = { start; increment; samples | tokens; }: the batch
	 * grows from start by increment to global_batch over the ramp's samples
	 * (Megatron-LM's --rampup-batch-size); 0 = no ramp-up. The loader turns a
	 * ramp into phases (ts_scenario.phases). */
	int64_t rampup_start;	   /* first batch of the ramp, samples */
	int64_t rampup_increment;  /* batch added at each increment, samples */
	double rampup_samples;	   /* samples the ramp lasts (tokens / seq_len) */
	enum ts_run_unit run_unit; /* which of tokens | samples | epochs | steps was given */
	double run_length; /* amount of run_unit (tokens, samples, epochs or steps); 0 if none */
};

/* parallel = { ... } */
struct ts_parallel {
	uint32_t tp;		   /* tensor-parallel degree; default 1 */
	uint32_t pp;		   /* pipeline stages; default 1 */
	uint32_t dp;		   /* data-parallel degree; default GPUs / (tp x pp x cp) */
	uint32_t cp;		   /* context-parallel degree (ring attention); default 1 */
	uint32_t ep;		   /* expert-parallel degree, inside DP; default 1 */
	bool sp;		   /* sequence parallelism with TP; default false */
	bool tp_comm_overlap;	   /* Megatron-Core's TP communication overlap; default false */
	int reshard_after_forward; /* ZeRO-3: 1 free a unit's gathered weights after its
				    * forward, 0 keep them to its backward, TS_UNSET = the
				    * framework's (FSDP: true without pipelining, false with,
				    * as torchtitan's default policy; others true) */
	int fsdp_version;	   /* training.framework = "fsdp", zero = 3: 1 for FSDP1
				    * (FullyShardedDataParallel), 2 for FSDP2 (fully_shard),
				    * TS_UNSET = not said (as 2); the gathers' prefetch is the
				    * same for both unless limit_all_gathers is 0 */
	int limit_all_gathers;	   /* FSDP1's rate limiter: 1 on (PyTorch's default), 0 off
				    * (every all-gather issued as soon as the gather stream
				    * is free), TS_UNSET = on */
	int zero;		   /* ZeRO stage 0..3 (3 = fully sharded); default 0, 3 for
				    * training.framework = "fsdp" (FULL_SHARD, FSDP's default) */
	enum ts_offload offload;   /* default none; cpu | nvme (optimizer state) */
	enum ts_schedule schedule; /* pipeline schedule; default 1f1b */
	uint32_t interleave;	   /* virtual stages per GPU; default 1 */
	/* Uneven pipeline stages, as Megatron-LM's options: transformer layers
	 * on the first / last pipeline stage (--decoder-first-pipeline-num-layers,
	 * --decoder-last-pipeline-num-layers), 0 = not set; the embedding and
	 * the loss counted as one layer each in the split
	 * (--account-for-embedding-in-pipeline-split,
	 * --account-for-loss-in-pipeline-split). Neither: the layers are dealt
	 * out as evenly as possible (sim/par/pipe.h, pipe_split). The plan
	 * checks them against pp and interleave (plan_stage_layers). */
	uint32_t first_stage_layers, last_stage_layers;
	bool account_embedding, account_loss;
	/* parallel.layer_split: the split without those keys; default even */
	enum ts_layer_split layer_split;
	/* parallel.ep_dispatcher: how MoE tokens reach their experts; default
	 * alltoall */
	enum ts_ep_dispatcher ep_dispatcher;
	/* parallel.cp_comm: how context parallelism communicates; default p2p */
	enum ts_cp_comm cp_comm;
	/* parallel.flushes: the iteration's micro-batches run as this many
	 * pipeline schedules one after the other (NeMo AutoModel runs each
	 * of its gradient-accumulation steps as one schedule.step); default
	 * 1, one schedule (Megatron-LM); the plan checks it (plan_build) */
	uint32_t flushes;
	int64_t bucket_bytes;	 /* gradient bucket, bytes; 0 = "none" (one reduction after
				  * backward); TS_UNSET = framework default */
	int overlap_grad_reduce; /* 1, 0, or TS_UNSET = framework default */
};

/* data = { ... }: the input pipeline (sim/data/loader.h) */
struct ts_data {
	char dataset[64];	  /* configs/datasets/NAME.cfg; "" = the default (c4-tokens for
				   * transformers, synthetic for layer-list models) */
	char storage[64];	  /* storage of configs/hardware/storage.cfg; "" = local-nvme */
	uint32_t workers_per_gpu; /* CPU decode workers per GPU; default 4 */
	uint32_t prefetch;	  /* batches prefetched per worker; default 2 */
	bool pinned;		  /* batches in pinned host memory; default true */
};

/* cost = { ... } (read by sim/io/costcfg.c; sources in configs/README.md) */
struct ts_cost {
	double usd_per_gpu_hour;    /* cloud price, US$ per GPU-hour; 0 = not given */
	double usd_per_node_hour;   /* cloud price, US$ per node-hour (added to the GPU price) */
	bool owned;		    /* cost.owned given: the hardware is bought */
	double server_usd;	    /* owned: purchase price of one node, US$ */
	double network_usd;	    /* owned: network per node (NICs, cables, switch share), US$ */
	double storage_usd;	    /* owned: storage for the whole job, US$ */
	double years;		    /* owned: amortisation period, years (default 4) */
	double upkeep_usd_per_year; /* owned: support, space, staff for the job's hardware */
	double utilisation;	    /* owned: share of the year the hardware is busy, (0, 1]
				     * (default 1; 0 counts as 1): its yearly cost is spread
				     * over the busy hours */
	double usd_per_kwh;	    /* electricity, US$/kWh (default 0.0806, EIA 2023) */
	double pue;		    /* power usage effectiveness (default 1.58, Uptime 2023) */
};

/* checkpoint = { ... }: written during the run, size from the model. */
struct ts_checkpoint {
	double interval_steps; /* a checkpoint every N iterations; 0 = none or by time */
	double interval_s;     /* a checkpoint every N seconds of training; 0 = none or by steps */
	double write_Bps;      /* bandwidth the job writes a checkpoint at, bytes/s; 0 = through
				* the storage model (sim/run/cost.h) */
	char storage[64];      /* storage type written to; "" = data.storage (or local-nvme) */
	bool interval_auto;    /* interval = "auto": Young's optimum (sim/run/cost.h) */
	bool interval_none;    /* interval = "none": no checkpoints even with failures modelled
				* (without an interval, failures modelled checkpoint at
				* Young's optimum) */
};

/* failures = { ... }: interruptions of the whole run (sim/run/cost.h). */
struct ts_failures {
	double gpu_mtbf_s;  /* mean time between failures of one GPU, s; 0 = none */
	double node_mtbf_s; /* of one node beyond its GPUs, s; 0 = none */
	double restart_s;   /* from a failure to training again (reschedule, reload), s */
};

/* power = { ... }: node-level power by state (sim/run/cost.h). */
struct ts_power {
	double node_max_w;    /* rated power of one node, W; 0 = GPUs x (TDP + host per GPU) */
	double gpu_comm_frac; /* GPU draw while only communicating, fraction of TDP */
	double gpu_idle_frac; /* GPU draw while idle (bubble, stall), fraction of TDP */
	double nic_w;	      /* one NIC, W */
	double switch_port_w; /* one fabric switch port, W */
	double gpu_limit_w;   /* power.gpu_limit: every GPU's board power limit (nvidia-smi
			       * -pl), W; 0 = none (the default limit, the TDP). Lowers the
			       * SM clock of compute-bound kernels (sim/hw/powercap.h) and
			       * caps the power the energy model charges */
};

/* Replicas of a run by default (sim.samples): a replica costs a few
 * microseconds (sim/README.md, "Variability"), so 200 keep p10 and p90
 * within about 0.12 standard deviations of the figure's (the standard
 * error of a sample quantile, sqrt(q (1 - q) / N) / phi(z_q)) and cost
 * well under a millisecond a run. */
#define MC_SAMPLES_DEFAULT 200u

/* sim = { ... } */
struct ts_simopts {
	enum ts_granularity granularity; /* task size; default auto */
	enum ts_sim_mode mode;		 /* rank classes or every rank; default class */
	bool extrapolate;    /* many micro-batches: simulate two short iterations and extend
			      * their steady state (sim/run/run.h); default true */
	double max_memory;   /* bytes a run may allocate (sim/plan/plan.h, the size
			      * estimate); 0 = unset: half the machine's physical memory */
	double straggler_sd; /* spread of GPU compute speeds, standard deviation as a
			      * fraction of the median, 0-0.5 (sim/work/straggle.h);
			      * default STRAGGLE_SIGMA, 0 = every GPU at the median */
	/* Monte-Carlo replicas of the run (sim/run/mc.h), seeded from `seed` */
	uint32_t samples;	   /* replicas, 1-100000; default MC_SAMPLES_DEFAULT; 1 =
				    * the deterministic run alone */
	double jitter;		   /* per-iteration compute time of a rank, coefficient of
				    * variation, 0-0.5; default 0 */
	double net_noise;	   /* bandwidth of a transfer on a shared fabric, coefficient
				    * of variation, 0-0.5; default 0 */
	double slow_node_p;	   /* chance that a node runs slow for a whole run, 0-1;
				    * default 0 */
	double slow_node_slowdown; /* how much slower such a node computes, fraction 0-10;
				    * default 0.1 */
	double slow_link_p;	   /* chance that a node's fabric link runs degraded for a
				    * whole run, 0-1; default 0 */
	double slow_link_bw;	   /* bandwidth such a link keeps, fraction (0, 1];
				    * default 0.5 */
};

/* Most phases of one scenario, user phases and ramp-up groups together. */
#define TS_MAX_PHASES 12
/* Most batch sizes a ramp-up is simulated at (ts_scenario.phases). */
#define TS_RAMPUP_GROUPS 4

/* Where one resolved value came from. */
struct ts_scenario_origin {
	char key[64];	 /* dotted key ("parallel.dp") */
	char value[200]; /* the value as a scenario file would write it */
	char where[300]; /* "file:line", "--set ...", "default", "derived: ...",
			  * or the cluster/model it came from */
};

/* A resolved scenario. Plain record, owned (with the cluster and the arrays)
 * by whoever loaded it; free with ts_scenario_destroy. */
struct ts_scenario {
	char name[160];		    /* default "MODEL on CLUSTER" */
	char file[256];		    /* file it was read from, or the label of a string */
	char model_file[2048];	    /* model file named by a path (model = "my.cfg"), else "" */
	char cluster_file[2048];    /* cluster file named by a path, else "" */
	char *cluster_text;	    /* an inline cluster group as one line of
				     * libconfig text (cfg_setting_text; owned), else NULL */
	char *model_text;	    /* the model line's value as libconfig text when
				     * the model's name does not give it: an inline
				     * group on one line, a file by absolute path
				     * (owned), else NULL */
	struct ts_model model;	    /* resolved model */
	struct hw_cluster *cluster; /* resolved cluster, owned */
	uint32_t nodes;		    /* nodes in the job (the cluster's unless overridden) */
	uint32_t gpus_per_node;	    /* GPUs used per node */
	uint32_t nics_per_node;	    /* NICs per node */
	uint32_t gpus;		    /* nodes x gpus_per_node */
	struct ts_training training;
	struct ts_parallel parallel;
	struct ts_data data;
	struct ts_cost cost;
	struct ts_checkpoint checkpoint;
	struct ts_failures failures;
	struct ts_power power;
	struct ts_simopts sim;
	uint64_t seed;	     /* master seed of the random streams; default 1 */
	char **not_modelled; /* "parallel.cp = 2", ...: accepted, not modelled (owned) */
	size_t n_not_modelled;
	struct ts_scenario_origin
	    *origins; /* every resolved top-level value, in file order (owned) */
	size_t n_origins;
	size_t cap_origins; /* allocated slots of origins */
	/* Said about the load, for the report (comma-separated, no comma inside
	 * one): a run length from --set or a sweep axis that replaced the
	 * file's (training.steps over training.tokens). */
	char notes[512];
	/* A run in phases: phases = ( { ... }, ... ) (each an overlay of
	 * training and parallel keys on this scenario, with its own run
	 * length) or training.rampup (TS_RAMPUP_GROUPS batch sizes, then the
	 * full batch); each phase a whole scenario of its own, owned. The run
	 * is their sum (sim/run/run.h); this scenario itself has no run
	 * length then. n_phases = 0: a run of one phase. */
	struct ts_scenario *phases[TS_MAX_PHASES];
	uint32_t n_phases;
	char phase_name[64]; /* a phase: "phases[1]", the phase's name, or "ramp-up 1/4" */
};

/* Load a scenario file and resolve it against the hardware catalog `cat`
 * (borrowed; must outlive the scenario; its root directory holds models/
 * and configs/clusters/). `sets` are nsets --set arguments "key.path=value",
 * applied in order to the parsed file before it is interpreted. Relative
 * model or cluster paths are taken from the scenario file's directory.
 * On success *out is a new scenario. On failure *out is NULL and the return
 * is TS_EIO (missing file), TS_ESYNTAX (file or --set), TS_EUNKNOWN_KEY
 * (with the closest key), TS_ETYPE, TS_ERANGE (zero or negative sizes...),
 * TS_EUNKNOWN_NAME (model, cluster, framework, precision... with close
 * matches), TS_EUNIT, TS_EINVALID (parallel degrees or batch sizes that do
 * not divide), TS_EUNSUPPORTED (@include), TS_ELIMIT or TS_ENOMEM, with the
 * one-line detail in `err` (may be NULL). Never prints. */
int ts_scenario_load(const struct hw_catalog *cat, const char *path, const char *const *sets,
		     size_t nsets, struct ts_scenario **out, struct ts_error *err);

/* The same from scenario text in memory; `label` names it in messages
 * (NULL: "<string>"); relative paths are taken from the working directory. */
int ts_scenario_load_string(const struct hw_catalog *cat, const char *text, const char *label,
			    const char *const *sets, size_t nsets, struct ts_scenario **out,
			    struct ts_error *err);

/* Free a scenario and everything it owns (NULL is fine). */
void ts_scenario_destroy(struct ts_scenario *s);

/* Print the resolved scenario, one "key = value  # origin" line per value
 * (model keys included), the keys not modelled, and the cluster's
 * description, for --dump-config. Returns 0 or TS_EIO (write failed). */
int ts_scenario_dump(const struct ts_scenario *s, FILE *out);

/* What a run of s may allocate, bytes: sim.max_memory, or when it is not
 * given half of the memory this process may use: the least of physical
 * memory (sysconf(_SC_PHYS_PAGES) x sysconf(_SC_PAGESIZE); 8 GiB when the
 * system does not tell), the address-space limit (getrlimit RLIMIT_AS,
 * ulimit -v) and the memory limit of its cgroup (memory.max of cgroup v2,
 * memory.limit_in_bytes of v1), found on the first call of the process. */
double ts_scenario_max_memory(const struct ts_scenario *s);

/* Where ts_scenario_max_memory's figure comes from, for messages:
 * "sim.max_memory", or "half of the machine's physical memory", "half of
 * the address-space limit (ulimit -v)", "half of the cgroup's memory limit
 * (memory.max)". A static string. */
const char *ts_scenario_max_memory_from(const struct ts_scenario *s);

/* The ts_scenario_dump text of s in memory: *text a NUL-terminated string
 * of *len bytes, allocated with malloc and owned by the caller (free()).
 * Returns 0, or TS_ENOMEM or TS_EIO with *text NULL. */
int ts_scenario_dump_text(const struct ts_scenario *s, char **text, size_t *len);

/* Fill `err` with an error about scenario key `key` (dotted, as in
 * origins[]), placed where that key was set: its file and line, or the
 * --set argument that set it, else the scenario file. For checks made after
 * loading (by the planner, the input pipeline) so their messages point at
 * the scenario like the loader's do. Returns `code`. */
int ts_scenario_error(const struct ts_scenario *s, struct ts_error *err, int code, const char *key,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The keys not modelled, joined by ", ", into buf (size n). Returns buf. */
char *ts_scenario_not_modelled(const struct ts_scenario *s, char *buf, size_t n);

#endif
