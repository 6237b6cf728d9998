/* The whole run's time, energy and money: checkpoint writes added to the
 * steady iterations, node power by state, cloud or owned cost.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_COST_H
#define TS_RUN_COST_H

#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "data/catalog.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/result.h"

/* Expected failures below which the "expected failures exceed the
 * checkpoints" warning is not given: a 1 % chance of losing any work. */
#define COST_FAIL_WARN_MIN 0.01

/* Host share of a node's rated power per GPU, the fallback when neither the
 * scenario's power.node_max nor the cluster file's power section gives the
 * node's rating, W: a DGX A100 is rated 6.5 kW with 8 x 400 W GPUs
 * (hardware.md section 5, X1, May 2020), (6500 - 3200) / 8 = 412.5 W. The
 * formula is only an estimate: for a DGX H100 it gives 8 x (700 + 412.5) =
 * 8.9 kW of the rated 10.2 kW (X4), which its cluster file states. */
#define COST_HOST_W_PER_GPU 412.5

/* Host power of a workstation of consumer cards (GPU types named "RTX-"),
 * W per node of the cluster file's GPU count, shared by the GPUs used: one
 * desktop CPU, memory, drives and fans of a tower with 4 x 450 W cards near
 * 2.2 kW at the wall, rather than a datacenter node's 412.5 W per GPU
 * (which would add 1.65 kW). An assumption: a Threadripper-class CPU draws
 * 280 W at full load, memory, drives, fans and PSU loss about 120 W. */
#define COST_HOST_W_WORKSTATION 400.0

/* Hours per month of continuous use (8766 h / 12). */
#define COST_HOURS_PER_MONTH 730.5

/* Power of one node in each state, and of the job's network. */
struct cost_power {
	double busy_w;	   /* GPUs computing at TDP, host at its share: the node's rating */
	double comm_w;	   /* GPUs only communicating: host + GPUs x TDP x gpu_comm_fraction */
	double idle_w;	   /* GPUs waiting (bubble, stall, checkpoint): host + GPUs x TDP x idle */
	double host_w;	   /* the host share (CPUs, memory, fans, PSU loss) */
	double gpu_busy_w; /* the node's used GPUs alone, computing: G x TDP */
	double gpu_comm_w; /* communicating: G x TDP x f_comm */
	double gpu_idle_w; /* waiting: G x TDP x f_idle */
	double net_w;	   /* the job's NICs and fabric switch ports, always on */
};

/* Node power of scenario sc whose GPU type is g, with G = GPUs used per
 * node and Gf = GPUs of the cluster file's node (the node that is rated):
 *   host = max(0, rated - Gf x TDP) x G / Gf, rated = the scenario's
 *   power.node_max, else the cluster file's (hw_cluster_node_power_w): a
 *   node whose GPUs are partly used powers the share of the host its GPUs
 *   use (four GPUs of a DGX A100 draw half its host), the unused GPUs none;
 *   else, for a workstation of consumer cards (cost_workstation_gpu),
 *   COST_HOST_W_WORKSTATION x G / Gf;
 *   else G x COST_HOST_W_PER_GPU;
 *   gpu_busy = G x TDP; gpu_comm = G x TDP x f_comm; gpu_idle = G x TDP x f_idle,
 *   each at most G x power.gpu_limit when one is set (a busy GPU under a
 *   limit draws about the limit: in Zeus's V100 and A40 traces the
 *   compute-heavy jobs drew 96 % of each limit below the default on
 *   average, github.com/ml-energy/zeus, examples/
 *   research_reproducibility/zeus_nsdi23/trace; the host keeps its share of
 *   the rated node);
 *   busy = host + gpu_busy; comm = host + gpu_comm; idle = host + gpu_idle;
 *   net = nodes x NICs x nic + (nodes > 1 ? nodes x NICs x switch_port : 0)
 *   (one switch port per NIC of a non-blocking single-tier fabric). */
void cost_node_power(const struct ts_scenario *sc, const struct hw_gpu_type *g,
		     struct cost_power *out);

/* Whether GPU type g is a consumer card, which sits in a workstation rather
 * than a datacenter node: its name begins "RTX-" (configs/hardware/gpus.cfg). */
bool cost_workstation_gpu(const struct hw_gpu_type *g);

/* Sequential write rate of a storage type as a share of its read figure
 * (storage.cfg gives reads): hardware.md section 3 gives 2,300 of 3,500 MB/s
 * for NVMe Gen3 (T1) and 6,600 of 13,000 MB/s for Gen5 (T2, T3), 0.66 and
 * 0.51; the lower is taken for every type, an assumption where no write
 * figure is given (SATA, HDD, shared file systems). */
#define COST_CKPT_WRITE_FRACTION 0.5

/* What limits a checkpoint write. */
enum cost_ckpt_limit {
	COST_CKPT_NONE,	     /* no checkpoints */
	COST_CKPT_OVERRIDE,  /* checkpoint.write_bandwidth */
	COST_CKPT_DRIVES,    /* the node's own drives (local, memory) */
	COST_CKPT_AGGREGATE, /* a shared file system's aggregate, divided among nodes */
	COST_CKPT_CLIENT,    /* a shared file system's per-client cap */
	COST_CKPT_NICS,	     /* the node's links to the fabric */
};

/* One checkpoint write. Plain record. */
struct cost_ckpt {
	char storage[48];	    /* storage type written to ("" with the override) */
	double node_Bps;	    /* rate each node writes its shard at, bytes/s */
	double each_s;		    /* one checkpoint, s */
	enum cost_ckpt_limit limit; /* what sets node_Bps */
};

/* A checkpoint of ckpt_bytes written by `nodes` nodes at once, each its
 * shard ckpt_bytes / nodes (distributed checkpointing: Megatron-Core's
 * fully parallel save, PyTorch DCP), to storage st (write rate =
 * COST_CKPT_WRITE_FRACTION x its read figure, w below) from nodes whose
 * links to the fabric carry nic_Bps each (0 = no fabric):
 *   local or memory: node rate = devices x w;
 *   shared: node rate = min(w / nodes, client cap x FRACTION, nic_Bps) --
 *   the max-min fair share of identical nodes (the fluid solver's answer);
 *   each_s = latency + shard / node rate. */
void cost_ckpt_write(const struct data_storage *st, double ckpt_bytes, uint32_t nodes,
		     double nic_Bps, struct cost_ckpt *out);

/* The checkpoint write of scenario sc with checkpoints of ckpt_bytes:
 * nothing without checkpoint.interval; ckpt_bytes / checkpoint.write_bandwidth
 * when that is given (the job's aggregate rate, an explicit override);
 * otherwise cost_ckpt_write on storage st (the plan resolves it:
 * plan_ckpt_storage; NULL writes nothing) and the summed rate of the
 * node's links into the fabric. The checks (power.node_max, the storage's
 * name) are the plan's (sim/plan/plan.h). */
void cost_checkpoint(const struct ts_scenario *sc, const struct data_storage *st, double ckpt_bytes,
		     struct cost_ckpt *out);

/* Whether scenario sc checkpoints at Young's interval: checkpoint.interval
 * = "auto", or no interval given (neither "none" nor a count or time) while
 * failures are modelled (cost_job_mtbf_s finite). */
bool cost_ckpt_auto(const struct ts_scenario *sc);

/* Whether scenario sc writes checkpoints: an interval given, or
 * cost_ckpt_auto. */
bool cost_ckpt_on(const struct ts_scenario *sc);

/* Mean time between interruptions of the job, s: 1 / (GPUs / gpu_mtbf +
 * nodes / node_mtbf), an MTBF of 0 counting as none (independent
 * exponential failures add their rates); INFINITY without failures. */
double cost_job_mtbf_s(const struct ts_scenario *sc);

/* The checkpoint interval that minimises the expected time lost, s of
 * training between checkpoints: sqrt(2 x write_s x mtbf_s) (Young 1974,
 * "A first order approximation to the optimum checkpoint interval",
 * CACM 17(9); Daly 2006, "A higher order estimate of the optimum
 * checkpoint interval for restart dumps", FGCS 22(3), eq. 37 to first
 * order). 0 (no checkpoints) when write_s is not positive or mtbf_s is
 * infinite. */
double cost_young_interval_s(double write_s, double mtbf_s);

/* The share of the year owned hardware is busy: c->utilisation, 1 when
 * not in (0, 1] (not given). */
double cost_utilisation(const struct ts_cost *c);

/* Complete the whole run of r, whose steps, iteration_time_s and time
 * breakdown are set, for scenario sc on GPU type g with checkpoints of
 * ckpt_bytes each taking each_s (cost_checkpoint):
 * - checkpoints: every checkpoint.interval steps (or seconds of training,
 *   or cost_young_interval_s(each_s, cost_job_mtbf_s) when cost_ckpt_auto:
 *   "auto", or no interval while failures are modelled; "none" writes none),
 *   n = floor(steps x iteration / interval), each each_s;
 *   W0 = steps x iteration + n x each_s;
 * - failures (first order, Daly 2006 §3): F = W0 / M interruptions
 *   (M = cost_job_mtbf_s), each losing half a segment (interval + each_s;
 *   W0 without checkpoints: failure_lost_each_s) and failures.restart
 *   (failure_restart_each_s); failure_s = F x (seg / 2 + restart);
 *   time_to_train_s = W0 + failure_s (valid while failure_s is small
 *   against W0); a warning in r->warnings when F exceeds n;
 * - energy at three levels (cost_node_power):
 *   gpu (boards alone) per iteration = nodes x (gpu_busy x (compute +
 *   recompute + optimizer) + gpu_comm x exposed_comm + gpu_idle x (bubble +
 *   data stall + other)); it = the same with each state's node power
 *   (GPUs + host) + net x iteration; lost work at the iteration's energy;
 *   checkpoints and restarts at idle (gpu_idle; idle x nodes + net);
 *   facility = it x PUE = energy_kwh;
 * - cost: cloud, hours x (GPUs x usd_per_gpu_hour + nodes x
 *   usd_per_node_hour); owned, hours x (capital / (years x 8766 h) +
 *   upkeep / 8766 h) / u + energy x usd_per_kwh, capital = nodes x (server
 *   + network) + storage, u = cost_utilisation (the hardware's yearly
 *   cost spread over the busy hours); break-even (owned with a cloud
 *   price), in months of the calendar: capital / (u x cloud per month -
 *   (upkeep / 12 + u x mean power x 730.5 h x usd_per_kwh)) (renting only
 *   the busy hours, paying energy for those alone), -1 when renting costs
 *   less per month than the running costs; usd_per_hour = cost / hours,
 *   usd_per_gpu_hour = cost / GPU-hours; utilisation = u when owned.
 * Leaves the run fields at 0 when r->steps is 0. */
void cost_whole_run(const struct ts_scenario *sc, const struct hw_gpu_type *g, double ckpt_bytes,
		    double each_s, struct ts_result *r);

/* cost_whole_run for one Monte-Carlo replica of the run (sim/run/mc.h):
 * with rng (borrowed, not NULL) the failures are drawn instead of taken at
 * their mean: a Poisson count F ~ Poisson(W0 / M) (the nodes' and GPUs'
 * independent Poisson processes summed, the rates of failures = {...}),
 * each losing a uniform fraction of its segment (mean half, as above) and
 * a restart; r->failures_expected then holds the drawn count. With rng
 * NULL, cost_whole_run itself. Allocates nothing. */
void cost_whole_run_drawn(const struct ts_scenario *sc, const struct hw_gpu_type *g,
			  double ckpt_bytes, double each_s, gsl_rng *rng, struct ts_result *r);

#endif
