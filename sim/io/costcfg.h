/* The cost, checkpoint and power groups of a scenario: cloud or owned
 * prices, checkpoint interval and write bandwidth, node power by state.
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_COSTCFG_H
#define TS_IO_COSTCFG_H

#include "base/err.h"
#include "io/scenario.h"

/* Defaults and their sources (configs/README.md repeats them). */
#define COSTCFG_YEARS 4.0 /* amortisation of owned servers, years: a common accounting life */
#define COSTCFG_USD_PER_KWH                                                                        \
	0.0806			/* US industrial average 2023, EIA (hardware.md E4, 18 Mar 2024) */
#define COSTCFG_UTILISATION 1.0 /* owned hardware busy all year unless said */
#define COSTCFG_PUE 1.58	/* industry average 2023, Uptime Institute (hardware.md E1) */
#define COSTCFG_GPU_COMM_FRAC 0.5  /* assumption: SMs mostly idle, HBM and NVLink busy */
#define COSTCFG_GPU_IDLE_FRAC 0.15 /* assumption: about 60 W of an A100's 400 W when waiting */
#define COSTCFG_NIC_W 20.0	   /* assumption: a 200 Gb/s adapter, order of its card power */
#define COSTCFG_SWITCH_PORT_W 15.0 /* assumption: a 40-port HDR switch near 600 W over 40 ports */
/* Interruptions of a job, from the Llama 3 pre-training log (Llama Team
 * 2024, "The Llama 3 Herd of Models", section 3.3.4, Table 5): 419
 * unexpected interruptions in a 54-day snapshot on 16,384 H100s in 2,048
 * nodes of 8, 58.7 % of them (246) GPU issues (faulty GPU 148, HBM3 72,
 * SRAM, system processor, thermal, silent data corruption), the other 173
 * host, network, storage and software. Per GPU: one GPU interruption per
 * 54 x 24 x 16,384 / 246 = 86,316 GPU-hours; per node: one other
 * interruption per 54 x 24 x 2,048 / 173 = 15,342 node-hours; rounded to
 * three figures. Together, for nodes of 8 GPUs: one per 50,700 GPU-hours,
 * the log's 419 in 54 days. */
#define COSTCFG_GPU_MTBF_S (86300.0 * 3600.0)
#define COSTCFG_NODE_MTBF_S (15300.0 * 3600.0)
/* Restart after an interruption: assumption, 10 min to detect the failure,
 * replace the node, reschedule, initialise NCCL and load the checkpoint
 * (Llama 3 reports automated recovery, no time per restart). */
#define COSTCFG_RESTART_S 600.0

/* Read the groups `cost`, `checkpoint`, `power` and `failures` of the root
 * setting `top` (a config_setting_t *, absent groups take the defaults
 * above) of scenario file `file` into *cost, *ck, *pw and *fl. Keys
 * (configs/README.md):
 *   cost = { usd_per_gpu_hour; usd_per_node_hour; usd_per_kwh; pue;
 *            owned = { server_usd; network_usd; storage_usd; years;
 *                      upkeep_usd_per_year; }; };
 *   checkpoint = { interval = 1000 | "2 h" | "auto" | "none"; storage = "lustre";
 *                  write_bandwidth = "2 GB/s"; };
 *   power = { node_max = "6.5 kW"; gpu_comm_fraction; gpu_idle_fraction;
 *             nic = "20 W"; switch_port = "15 W"; };
 *   failures = { gpu_mtbf = "86300 h" | "none"; node_mtbf = "15300 h" | "none";
 *                restart = "10 min"; };
 * Returns 0, or TS_EUNKNOWN_KEY, TS_ETYPE, TS_ERANGE, TS_EUNIT or
 * TS_EINVALID (server_usd missing from owned) with `err` naming file, line,
 * key, found and expected. */
int costcfg_read(const void *top, const char *file, struct ts_cost *cost, struct ts_checkpoint *ck,
		 struct ts_power *pw, struct ts_failures *fl, struct ts_error *err);

#endif
