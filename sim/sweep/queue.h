/* A shared cluster's queue: a list of jobs scheduled on N nodes by a
 * Slurm-like policy (strict FIFO, EASY backfill, priority with fair-share),
 * with node placement, gang-scheduled multi-node jobs, node failures with
 * restart from a checkpoint, and jobs whose run time comes from trainsim's
 * own simulation of their scenario and stretches while they share an
 * oversubscribed fabric. The answer is data: per-job times and the
 * figures a buyer asks for (utilisation, waits, makespan, fragmentation).
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_QUEUE_H
#define TS_SWEEP_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/jobs.h"

enum queue_policy {
	QUEUE_FIFO = 0,	    /* strict FIFO: no job starts before an earlier one */
	QUEUE_BACKFILL = 1, /* EASY backfill over FIFO order */
	QUEUE_PRIORITY = 2, /* multifactor priority (fair-share, age, job's own) with
			     * EASY backfill over priority order */
};

enum queue_place {
	QUEUE_PACKED = 0, /* best fit: the node with the fewest free GPUs that hold the
			   * job; a multi-node job on as few leaf switches as it can */
	QUEUE_SPREAD = 1, /* worst fit: the node with the most free GPUs; a multi-node
			   * job one node per leaf switch in turn */
};

/* Where a scenario job runs: the key of its simulated run time. */
struct queue_shape {
	uint32_t scenario;	/* index in the job list's scenarios */
	uint32_t nodes;		/* nodes it runs on */
	uint32_t gpus_per_node; /* GPUs it uses on each */
	uint32_t leaves;	/* leaf switches its nodes hang from (1 on a one-switch
				 * fabric) */
	uint32_t share;		/* multi-leaf jobs sharing its leaves' uplinks, itself
				 * included (1: alone) */
};

/* What the simulation of one shape gives. */
struct queue_rt {
	double step_s;		/* time of one training step (iteration), s */
	double tokens_per_step; /* tokens one step trains (0: the scenario counts samples) */
};

/* Simulate scenario sh->scenario on shape sh (its leaf uplinks' capacity
 * divided by sh->share) into *rt. Returns 0 or an error with err filled. */
typedef int (*queue_rt_fn)(void *ctx, const struct queue_shape *sh, struct queue_rt *rt,
			   struct ts_error *err);

/* Scenario run times, simulated once per distinct shape and kept; shared
 * by the points of a node-count sweep (lookups are serialised, so points
 * may run on several threads). Opaque. */
struct queue_cache;

/* Create a cache over fn(ctx, ...). Returns 0 or TS_ENOMEM. */
int queue_cache_create(queue_rt_fn fn, void *ctx, struct queue_cache **out);
void queue_cache_destroy(struct queue_cache *c);
/* Shapes simulated so far. */
size_t queue_cache_simulated(const struct queue_cache *c);

/* The cluster and the policy of one run. Plain record. */
struct queue_cfg {
	uint32_t nodes;		 /* nodes, >= 1 */
	uint32_t gpus_per_node;	 /* GPUs per node, >= 1 */
	uint32_t nodes_per_leaf; /* nodes per leaf switch of a fat-tree; 0: one switch (or
				  * none), so no job's traffic meets another's */
	enum queue_policy policy;
	enum queue_place place;
	uint32_t bf_depth;    /* waiting jobs backfill tries per pass (Slurm's
			       * bf_max_job_test; 0: 500) */
	bool failures;	      /* model node failures */
	double node_mtbf_s;   /* a node's mean time between failures, s (all causes) */
	double repair_s;      /* a failed node is down this long, s */
	double restart_s;     /* a failed job's restart (reschedule, reload), s of run time */
	double checkpoint_s;  /* a job checkpoints every this much run time, s; a failure
			       * loses the run since the last (0: no checkpoints: all of it) */
	uint64_t seed;	      /* the failure stream's seed */
	bool preempt;	      /* a waiting job may requeue running jobs of a lower tier
			       * (their jobs_job.priority) to start: they lose the run
			       * since their last checkpoint (checkpoint_s) and pay
			       * restart_s, as on a failure (Slurm's PreemptMode=REQUEUE) */
	double fs_halflife_s; /* fair-share usage decay half-life, s (0: 7 days, Slurm's
			       * PriorityDecayHalfLife default) */
	double prio_calc_s;   /* priorities recomputed every this long, s (0: 300, Slurm's
			       * PriorityCalcPeriod default) */
	double w_fairshare;   /* weight of the fair-share factor (0: 10000) */
	double w_age;	      /* weight of the age factor (0: 1000) */
	double max_age_s;     /* age at which the age factor reaches 1, s (0: 7 days,
			       * Slurm's PriorityMaxAge) */
	uint32_t nparts;      /* partitions (Slurm's): 0 or 1, one of every node */
	const char *const *part_names; /* [nparts] their names (borrowed) */
	const uint32_t *part_nodes;    /* [nparts] their nodes, consecutive in this
					* order, summing to `nodes`; a job runs only on
					* its partition's nodes (jobs_job.partition by
					* name; none: the first, the default) */
	bool detail;		       /* keep per-job times and the timeline */
	struct queue_cache *cache;     /* scenario run times (borrowed; needed when a job has
					* a scenario) */
};

/* Wait statistics of jobs of GPU counts lo..hi. */
struct queue_size_stats {
	uint32_t lo, hi;      /* GPU counts, inclusive (hi UINT32_MAX: no upper end) */
	size_t jobs;	      /* jobs of that size that ran */
	double mean_wait_s;   /* mean wait, s */
	double p50_wait_s;    /* median wait, s */
	double p90_wait_s;    /* 90th percentile of the wait, s */
	double max_wait_s;    /* longest wait, s */
	double mean_slowdown; /* mean bounded slowdown (10 s bound) */
};

/* One job's outcome (detail). Times on the input's clock, s. */
struct queue_job_out {
	double start_s;	   /* first start; NAN when it never ran */
	double end_s;	   /* end of its last run */
	double alone_s;	   /* its run time alone on its first placement, s */
	uint32_t nodes;	   /* nodes of its last placement */
	uint32_t leaves;   /* leaf switches of its last placement */
	uint32_t restarts; /* runs ended by a failure or a preemption */
	int state;	   /* QUEUE_DONE, QUEUE_TIMEOUT, QUEUE_TOO_BIG */
};
enum { QUEUE_DONE = 0, QUEUE_TIMEOUT = 1, QUEUE_TOO_BIG = 2 };

/* A point of the timeline (detail): the state from t_s until the next. */
struct queue_sample {
	double t_s;	 /* on the input's clock, s */
	uint32_t busy;	 /* GPUs running jobs */
	uint32_t queued; /* jobs waiting */
	uint32_t down;	 /* GPUs on failed nodes */
};

#define QUEUE_SIZES 5

/* One partition's figures. */
struct queue_part_stats {
	uint32_t nodes, gpus; /* its nodes and GPUs */
	size_t jobs;	      /* jobs asking for it that ran */
	size_t too_big;	      /* jobs asking for more than it holds: never run */
	double mean_wait_s;   /* mean wait of its jobs, s */
	double p90_wait_s;    /* 90th percentile (nearest rank) of their wait, s */
	double busy_gpu_s;    /* GPU-seconds of the final runs of its jobs */
};

/* The figures of one run. Plain record; free with queue_stats_free. */
struct queue_stats {
	uint32_t nodes, gpus; /* the cluster simulated */
	size_t jobs;	      /* jobs in the list */
	size_t ran;	      /* of them, ran to their end or time limit */
	size_t too_big;	      /* asked for more GPUs than the cluster has: never run */
	size_t timed_out;     /* stopped at their time limit */
	size_t waited;	      /* started later than submitted */
	size_t failures;      /* node failures */
	size_t requeued;      /* job runs ended by a failure and requeued */
	size_t preempted;     /* job runs ended by a preemption and requeued */
	double utilisation;   /* GPU-seconds busy / (GPUs x makespan) */
	double mean_wait_s, p50_wait_s, p90_wait_s, max_wait_s; /* waits to first start, s */
	double mean_completion_s;				/* submit to end, s */
	double mean_slowdown;	   /* bounded slowdown max(1, (end - submit) / max(alone, 10 s)) */
	double mean_stretch;	   /* run time / run time alone, mean over jobs that ran */
	double makespan_s;	   /* first submit to last end, s */
	double fragmentation;	   /* GPU-seconds idle while a job waits / (GPUs x makespan) */
	double mean_queue;	   /* time-mean of the jobs waiting */
	double busy_gpu_s;	   /* GPU-seconds of runs (lost ones included) */
	double lost_gpu_s;	   /* GPU-seconds of runs lost to failures and preemptions */
	double preempt_lost_gpu_s; /* of them, lost to preemptions */
	/* jobs that ran whose input records a start (jobs_job.rec_start_s): the
	 * waits it records and those replayed here, over those jobs, s */
	size_t recorded;
	double rec_mean_wait_s, rec_p50_wait_s, rec_p90_wait_s, rec_max_wait_s;
	double replay_mean_wait_s, replay_p50_wait_s, replay_p90_wait_s;
	struct queue_part_stats *part; /* [npart] with partitions (owned) */
	size_t npart;
	struct queue_size_stats size[QUEUE_SIZES];
	size_t nsize;		   /* classes with jobs */
	double *user_gpu_s;	   /* [users + 1]: GPU-seconds per user of the list, the last
				    * for jobs without a user (owned) */
	size_t nusers;		   /* entries of user_gpu_s */
	struct queue_job_out *job; /* [jobs], with detail (owned) */
	struct queue_sample *tl;   /* timeline, with detail (owned) */
	size_t ntl, captl;
	uint64_t events; /* events simulated */
};

/* Schedule the jobs of l on the cluster of c and measure. Returns 0, or
 * TS_EINVALID (no job; a scenario job without c->cache), a scenario's
 * error from the cache, TS_ELIMIT (time beyond 292 years), TS_ENOMEM, with
 * err filled; out is then freed. */
int queue_run(const struct jobs_list *l, const struct queue_cfg *c, struct queue_stats *out,
	      struct ts_error *err);

void queue_stats_free(struct queue_stats *s);

/* Duration distributions of a synthetic mix. */
enum queue_dist {
	QUEUE_DIST_EXP = 0,	  /* exponential of mean a */
	QUEUE_DIST_LOGNORMAL = 1, /* lognormal of median a and log-sd b */
	QUEUE_DIST_FIXED = 2,	  /* always a */
	QUEUE_DIST_UNIFORM = 3,	  /* uniform on [a, b] */
};

#define QUEUE_MIX_SIZES 16
/* Most jobs of a synthetic mix: 2^20. Measured on the default dgx-h100
 * mix at 64 nodes, the queue model takes about 460 bytes and 10 us a job
 * (1048576 jobs: 0.48 GB, 10 s; 4194304: 1.8 GB, 41 s), so a count the
 * option accepts finishes in seconds; a longer list comes from a file. */
#define QUEUE_SYNTH_MAX ((size_t)1 << 20)

/* A synthetic job mix. Plain record. */
struct queue_mix {
	size_t jobs;			     /* jobs to draw */
	double rate_per_s;		     /* Poisson arrivals, jobs/s */
	uint32_t size_gpus[QUEUE_MIX_SIZES]; /* job sizes, GPUs */
	double size_weight[QUEUE_MIX_SIZES]; /* their relative frequencies */
	size_t nsizes;
	enum queue_dist dist; /* run time distribution */
	double a, b;	      /* its parameters, s (b: lognormal's log-sd) */
	uint32_t users;	      /* jobs spread uniformly over users u1..uN (0: none) */
	double limit_factor;  /* time limit = factor x run time (0: no limit) */
	uint64_t seed;
};

/* The mean run time of m's distribution, s. */
double queue_mix_mean_s(const struct queue_mix *m);

/* Draw m's jobs into l (ids 1..n) from GSL streams seeded from m->seed
 * (one for arrivals, sizes, run times and users each). Returns 0,
 * TS_ERANGE (a parameter out of range, named; "rate" when the arrivals
 * would span more than the 292 years of simulated time) or TS_ENOMEM. */
int queue_synth(const struct queue_mix *m, struct jobs_list *l, struct ts_error *err);

#endif
