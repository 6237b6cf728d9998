/* The whole run's time, energy and money: checkpoint writes added to the
 * steady iterations, node power by state, cloud or owned cost.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_COST_H
#define TS_RUN_COST_H

#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/result.h"

/* Host share of a node's rated power per GPU when power.node_max is not
 * given, W: a DGX A100 is rated 6.5 kW with 8 x 400 W GPUs (hardware.md
 * section 5, X1, May 2020), (6500 - 3200) / 8 = 412.5 W. For a DGX H100 the
 * formula gives 8 x (700 + 412.5) = 8.9 kW of the rated 10.2 kW (X4): its
 * scenarios set power.node_max. */
#define COST_HOST_W_PER_GPU 412.5

/* Hours per month of continuous use (8766 h / 12). */
#define COST_HOURS_PER_MONTH 730.5

/* Power of one node in each state, and of the job's network. */
struct cost_power {
	double busy_w; /* GPUs computing at TDP, host at its share: the node's rating */
	double comm_w; /* GPUs only communicating: host + GPUs x TDP x gpu_comm_fraction */
	double idle_w; /* GPUs waiting (bubble, stall, checkpoint): host + GPUs x TDP x idle */
	double host_w; /* the host share (CPUs, memory, fans, PSU loss) */
	double net_w;  /* the job's NICs and fabric switch ports, always on */
};

/* Node power of scenario sc whose GPU type is g:
 *   node_max = power.node_max, or G x (TDP + COST_HOST_W_PER_GPU), G = GPUs
 *   used per node; host = max(0, node_max - G x TDP);
 *   busy = host + G x TDP; comm = host + G x TDP x f_comm;
 *   idle = host + G x TDP x f_idle;
 *   net = nodes x NICs x nic + (nodes > 1 ? nodes x NICs x switch_port : 0)
 *   (one switch port per NIC of a non-blocking single-tier fabric). */
void cost_node_power(const struct ts_scenario *sc, const struct hw_gpu_type *g,
		     struct cost_power *out);

/* Complete the whole run of r, whose steps, iteration_time_s and time
 * breakdown are set, for scenario sc on GPU type g with checkpoints of
 * ckpt_bytes each:
 * - checkpoints: every checkpoint.interval steps (or seconds of training),
 *   floor(steps / interval); each takes ckpt_bytes / write_bandwidth;
 *   time_to_train_s = steps x iteration + checkpoints x that;
 * - energy: per iteration, nodes x (busy x (compute + recompute + optimizer)
 *   + comm x exposed_comm + idle x (bubble + data stall + other)) + net x
 *   iteration; checkpoints at idle; all x PUE;
 * - cost: cloud, hours x (GPUs x usd_per_gpu_hour + nodes x
 *   usd_per_node_hour); owned, hours x (capital / (years x 8766 h) +
 *   upkeep / 8766 h) + energy x usd_per_kwh, capital = nodes x (server +
 *   network) + storage; break-even (owned with a cloud price): capital /
 *   (cloud per month - (upkeep / 12 + mean power x 730.5 h x usd_per_kwh)),
 *   -1 when the cloud costs less per month than the running costs.
 * Leaves the run fields at 0 when r->steps is 0. */
void cost_whole_run(const struct ts_scenario *sc, const struct hw_gpu_type *g, double ckpt_bytes,
		    struct ts_result *r);

#endif
