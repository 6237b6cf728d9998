/* Whole run, energy and cost: node power by state, checkpoints added to the
 * time to train, energy from the breakdown, cloud and owned cost, break-even,
 * and the keys' errors. Every expected value is worked out in the comment
 * beside it from the formulas of sim/run/cost.h.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <string.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "run/cost.h"
#include "run/run.h"
#include "testutil.h"

static struct hw_catalog *cat;
static struct work_calib calib;

#define BASE_NOFAIL                                                                                \
	"model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"                         \
	"training = { global_batch = 512; micro_batch = 4; seq_len = 2048; steps = 1000; }; "

#define BASE                                                                                       \
	"model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"                         \
	"training = { global_batch = 512; micro_batch = 4; seq_len = 2048; steps = 1000; }; "      \
	"failures = { gpu_mtbf = \"none\"; node_mtbf = \"none\"; };\n"

static struct ts_scenario *load(const char *text, struct ts_error *e)
{
	struct ts_scenario *s = NULL;
	int rc = ts_scenario_load_string(cat, text, "c.cfg", NULL, 0, &s, e);
	ck_assert_msg(rc == 0, "%s", e->msg);
	return s;
}

/* A result with a 10 s iteration: 6 s compute, 1 s recompute, 1 s optimizer
 * (busy 8 s), 1 s exposed communication, 1 s bubble (idle). */
static struct ts_result sample(void)
{
	struct ts_result r;
	memset(&r, 0, sizeof r);
	r.iteration_time_s = 10.0;
	r.compute_s = 6.0;
	r.recompute_s = 1.0;
	r.optimizer_s = 1.0;
	r.exposed_comm_s = 1.0;
	r.bubble_s = 1.0;
	r.steps = 1000.0;
	return r;
}

/* The cluster file's power section: DGX A100 6.5 kW (hardware.md section 5,
 * X1), so the formula's estimate and the rating agree. */
START_TEST(test_node_power_default)
{
	struct ts_error e;
	struct ts_scenario *s = load(BASE, &e);
	ck_assert_double_eq_tol(hw_cluster_node_power_w(s->cluster), 6500.0, 1e-9);
	ck_assert(strstr(hw_cluster_power_source(s->cluster), "X1") != NULL);
	const struct hw_gpu_type *g = hw_cluster_gpu_type(s->cluster);
	struct cost_power p;
	cost_node_power(s, g, &p);
	/* A100 TDP 400 W, 8 GPUs: node_max = 8 x (400 + 412.5) = 6500 W, the
	 * DGX A100 rating; host 6500 - 3200 = 3300 W */
	ck_assert_double_eq_tol(g->tdp_w, 400.0, 1e-9);
	ck_assert_double_eq_tol(p.busy_w, 6500.0, 1e-9);
	ck_assert_double_eq_tol(p.host_w, 3300.0, 1e-9);
	/* comm: 3300 + 3200 x 0.5 = 4900; idle: 3300 + 3200 x 0.15 = 3780 */
	ck_assert_double_eq_tol(p.comm_w, 4900.0, 1e-9);
	ck_assert_double_eq_tol(p.idle_w, 3780.0, 1e-9);
	/* 2 nodes x 8 NICs = 16 x (20 W + 15 W switch port) = 560 W */
	ck_assert_double_eq_tol(p.net_w, 560.0, 1e-9);
	ts_scenario_destroy(s);
}
END_TEST

/* DGX H100: 10.2 kW from its cluster file (X4), not the formula's
 * 8 x (700 + 412.5) = 8900 W; host 10200 - 8 x 700 = 4600 W,
 * idle 4600 + 5600 x 0.15 = 5440 W. */
START_TEST(test_node_power_cluster)
{
	struct ts_error e;
	struct ts_scenario *s = load("model = \"gpt3-1.3b\"; cluster = \"dgx-h100\";\n", &e);
	struct cost_power p;
	const struct hw_gpu_type *g = hw_cluster_gpu_type(s->cluster);
	ck_assert_double_eq_tol(g->tdp_w, 700.0, 1e-9);
	cost_node_power(s, g, &p);
	ck_assert_double_eq_tol(p.busy_w, 10200.0, 1e-9);
	ck_assert_double_eq_tol(p.host_w, 4600.0, 1e-9);
	ck_assert_double_eq_tol(p.idle_w, 5440.0, 1e-9);
	ts_scenario_destroy(s);
}
END_TEST

/* Four GPUs of a DGX A100 draw 4/8 of its host share: (6500 - 8 x 400) x
 * 4 / 8 = 1650 W, busy 1650 + 4 x 400 = 3250 W (what the formula gives). */
START_TEST(test_node_power_partial)
{
	struct ts_error e;
	struct ts_scenario *s = load("model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
				     "gpus_per_node = 4;\n",
				     &e);
	struct cost_power p;
	cost_node_power(s, hw_cluster_gpu_type(s->cluster), &p);
	ck_assert_uint_eq(hw_cluster_power_gpus(s->cluster), 8);
	ck_assert_double_eq_tol(p.host_w, 1650.0, 1e-9);
	ck_assert_double_eq_tol(p.busy_w, 3250.0, 1e-9);
	ts_scenario_destroy(s);
}
END_TEST

/* The fallback formula without a power section (ethernet-10g has none):
 * 8 x A100 400 W: 8 x (400 + 412.5) = 6500 W; 2 nodes x 1 NIC x (20 + 15)
 * = 70 W. */
START_TEST(test_node_power_formula)
{
	struct ts_error e;
	struct ts_scenario *s = load("model = \"gpt3-1.3b\"; cluster = \"ethernet-10g\";\n", &e);
	ck_assert_double_eq_tol(hw_cluster_node_power_w(s->cluster), 0.0, 1e-300);
	struct cost_power p;
	cost_node_power(s, hw_cluster_gpu_type(s->cluster), &p);
	ck_assert_double_eq_tol(p.busy_w, 6500.0, 1e-9);
	ck_assert_double_eq_tol(p.host_w, 3300.0, 1e-9);
	ck_assert_double_eq_tol(p.net_w, 70.0, 1e-9);
	ts_scenario_destroy(s);
}
END_TEST

/* The checkpoint write of scenario s as a run makes it: the storage the
 * plan resolves (plan_ckpt_storage, in the scenario root's storage
 * catalog), then cost_checkpoint. */
static int ckpt(const struct ts_scenario *s, double bytes, struct cost_ckpt *c, struct ts_error *e)
{
	const char *root = hw_catalog_root(hw_cluster_catalog(s->cluster));
	struct data_catalog *dc = NULL;
	const struct data_storage *st = NULL;
	int rc = data_catalog_load(root ? root : ".", &dc, e);
	bool any = s->checkpoint.interval_steps > 0.0 || s->checkpoint.interval_s > 0.0 ||
		   s->checkpoint.interval_auto;
	if (!rc && any && !(s->checkpoint.write_Bps > 0.0))
		rc = plan_ckpt_storage(s, dc, &st, e);
	if (!rc)
		cost_checkpoint(s, st, bytes, c);
	data_catalog_destroy(dc);
	return rc;
}

/* Checkpoint writes through the storage model (sim/run/cost.h: shard =
 * bytes / nodes, write = 0.5 x the storage's read figure). */
static double ckpt_each(const char *text, double bytes)
{
	struct ts_error e;
	struct ts_scenario *s = load(text, &e);
	struct cost_ckpt c;
	int rc = ckpt(s, bytes, &c, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ts_scenario_destroy(s);
	return c.each_s;
}

#define CK "checkpoint = { interval = 100; "

START_TEST(test_ckpt_local)
{
	/* default local-nvme, 7000 MB/s read: each of 2 nodes writes 10 GB of
	 * 20 GB at 3.5 GB/s = 2.857142857 s, + 80 us latency */
	ck_assert_double_eq_tol(ckpt_each(BASE CK "};\n", 20e9), 10.0 / 3.5 + 80e-6, 1e-9);
	/* data.storage is the default target: SATA SSD 500 MB/s -> 250 MB/s,
	 * 10 GB in 40 s + 100 us */
	ck_assert_double_eq_tol(
	    ckpt_each(BASE "data = { storage = \"local-sata-ssd\"; };\n" CK "};\n", 20e9),
	    40.0 + 100e-6, 1e-9);
	/* checkpoint.storage wins over data.storage: RAID 0 of 8 NVMe drives,
	 * 8 x 3.5 GB/s = 28 GB/s, 10 GB in 0.357142857 s + 80 us */
	ck_assert_double_eq_tol(ckpt_each(BASE "data = { storage = \"local-sata-ssd\"; };\n" CK
					       "storage = \"local-nvme-raid8\"; };\n",
					  20e9),
				10.0 / 28.0 + 80e-6, 1e-9);
}
END_TEST

START_TEST(test_ckpt_shared)
{
	/* Lustre on 64 DGX A100: aggregate 100 GB/s -> 50 GB/s written, 1/64
	 * each = 0.78125 GB/s (below the 5 GB/s client cap and 8 x 24.25 GB/s
	 * of HDR NICs): 1 TB in 1e12 / 50e9 = 20 s, + 500 us */
	ck_assert_double_eq_tol(
	    ckpt_each("model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 64;\n"
		      "training = { global_batch = 512; micro_batch = 1; seq_len = 2048; };\n" CK
		      "storage = \"lustre\"; };\n",
		      1e12),
	    20.0 + 500e-6, 1e-9);
	/* Ceph on 2 nodes: 20 GB/s -> 10 GB/s / 2 = 5 GB/s each, but the client
	 * cap 2.5 GB/s -> 1.25 GB/s: 10 GB in 8 s, + 1 ms */
	ck_assert_double_eq_tol(ckpt_each(BASE CK "storage = \"ceph\"; };\n", 20e9), 8.001, 1e-9);
	/* Lustre over one 10 GbE NIC per node: 10 Gbit/s x 0.54 = 0.675 GB/s
	 * limits (client 5 GB/s, aggregate 25 GB/s each): 10 GB / 0.675 GB/s
	 * = 14.8148 s, + 500 us */
	ck_assert_double_eq_tol(
	    ckpt_each("model = \"gpt3-1.3b\"; cluster = \"ethernet-10g\"; nodes = 2;\n"
		      "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; };\n" CK
		      "storage = \"lustre\"; };\n",
		      20e9),
	    10e9 / 0.675e9 + 500e-6, 1e-9);
	/* the explicit override: the job's rate, 20 GB at 2 GB/s = 10 s */
	ck_assert_double_eq_tol(
	    ckpt_each(BASE CK "storage = \"ceph\"; write_bandwidth = \"2 GB/s\"; };\n", 20e9), 10.0,
	    1e-9);
}
END_TEST

START_TEST(test_ckpt_limits)
{
	struct data_storage st = {.kind = DATA_STORAGE_SHARED, .read_Bps = 1e12, .devices = 1};
	struct cost_ckpt c;
	/* 4 nodes, no client cap, 1 GB/s NICs: 500 GB/s / 4 each, NICs limit:
	 * 4 GB / 4 = 1 GB at 1 GB/s = 1 s */
	cost_ckpt_write(&st, 4e9, 4, 1e9, &c);
	ck_assert_int_eq(c.limit, COST_CKPT_NICS);
	ck_assert_double_eq_tol(c.each_s, 1.0, 1e-12);
	/* 4000 nodes: 500 GB/s / 4000 = 0.125 GB/s each, the aggregate limits:
	 * 4 TB / 500 GB/s = 8 s */
	cost_ckpt_write(&st, 4e12, 4000, 1e9, &c);
	ck_assert_int_eq(c.limit, COST_CKPT_AGGREGATE);
	ck_assert_double_eq_tol(c.each_s, 8.0, 1e-12);
	/* no checkpoints without an interval */
	struct ts_error e;
	struct ts_scenario *s = load(BASE, &e);
	ck_assert_int_eq(ckpt(s, 1e9, &c, &e), 0);
	ck_assert_int_eq(c.limit, COST_CKPT_NONE);
	ck_assert_double_eq_tol(c.each_s, 0.0, 1e-300);
	ts_scenario_destroy(s);
	/* an unknown storage names the key and the closest name */
	s = load(BASE CK "storage = \"lustr\"; };\n", &e);
	ck_assert_int_eq(ckpt(s, 1e9, &c, &e), TS_EUNKNOWN_NAME);
	char line[1400];
	ts_error_format(&e, line, sizeof line);
	ck_assert_msg(strstr(line, "checkpoint.storage") && strstr(line, "lustre") &&
			  strstr(line, "c.cfg"),
		      "%s", line);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(test_node_power_given)
{
	struct ts_error e;
	struct ts_scenario *s = load("model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\npower = "
				     "{ node_max = \"10.2 kW\"; "
				     "gpu_idle_fraction = 0.0; nic = \"0 W\"; };\n",
				     &e);
	struct cost_power p;
	cost_node_power(s, hw_cluster_gpu_type(s->cluster), &p);
	/* host 10200 - 3200 = 7000; idle = host; one node: no switch ports */
	ck_assert_double_eq_tol(p.busy_w, 10200.0, 1e-9);
	ck_assert_double_eq_tol(p.idle_w, 7000.0, 1e-9);
	ck_assert_double_eq_tol(p.net_w, 0.0, 1e-12);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(test_cloud_run)
{
	struct ts_error e;
	struct ts_scenario *s =
	    load(BASE "cost = { usd_per_gpu_hour = 2.0; usd_per_node_hour = 4.0; pue = 1.5; };\n"
		      "checkpoint = { interval = 300; write_bandwidth = \"1 GB/s\"; };\n",
		 &e);
	struct ts_result r = sample();
	struct cost_ckpt c;
	ck_assert_int_eq(ckpt(s, 20e9, &c, &e), 0);
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 20e9, c.each_s, &r);
	/* floor(1000 / 300) = 3 checkpoints of 20 GB at 1 GB/s = 60 s */
	ck_assert_double_eq_tol(r.checkpoints, 3.0, 1e-12);
	ck_assert_double_eq_tol(r.checkpoint_s, 60.0, 1e-9);
	ck_assert_double_eq_tol(r.time_to_train_s, 10060.0, 1e-9);
	/* 10060 s = 2.79444 h; x 16 GPUs; x 2 nodes */
	ck_assert_double_eq_tol(r.gpu_hours, 10060.0 / 3600.0 * 16.0, 1e-9);
	ck_assert_double_eq_tol(r.node_hours, 10060.0 / 3600.0 * 2.0, 1e-9);
	/* per iteration: 2 x (6500 x 8 + 4900 x 1 + 3780 x 1) + 560 x 10
	 *   = 2 x 60680 + 5600 = 126960 J; x 1000 = 126.96 MJ;
	 * checkpoints: (2 x 3780 + 560) x 60 = 487200 J;
	 * x 1.5 = 191170800 J = 53.103 kWh */
	ck_assert_double_eq_tol(r.energy_kwh, 191170800.0 / 3.6e6, 1e-9);
	ck_assert_double_eq_tol(r.avg_power_kw, 191170800.0 / 10060.0 / 1000.0, 1e-9);
	/* (16 x 2 + 2 x 4) $/h x 2.79444 h = $111.78 */
	ck_assert_double_eq_tol(r.cost_usd, 40.0 * 10060.0 / 3600.0, 1e-9);
	/* 1000 x 512 x 2048 = 1048.576 M tokens */
	ck_assert_double_eq_tol(r.usd_per_mtokens, r.cost_usd / 1048.576, 1e-12);
	ck_assert_double_eq_tol(r.breakeven_months, 0.0, 1e-300);
	/* three levels: GPU boards alone, 3200 W busy, 1600 W communicating,
	 * 480 W idle per node: 2 x (3200 x 8 + 1600 + 480) = 55360 J per
	 * iteration, x 1000; checkpoints idle 2 x 480 x 60 = 57600 J;
	 * 55417600 J = 15.394 kWh. IT = facility / PUE = 127447200 J. */
	ck_assert_double_eq_tol(r.gpu_energy_kwh, 55417600.0 / 3.6e6, 1e-9);
	ck_assert_double_eq_tol(r.it_energy_kwh, 127447200.0 / 3.6e6, 1e-9);
	ck_assert_double_eq_tol(r.facility_energy_kwh, r.energy_kwh, 1e-12);
	ck_assert_str_eq(r.warnings, "");
	ts_scenario_destroy(s);
}
END_TEST

/* LLaMA (Touvron et al. 2023, Table 15) counts training energy as GPU-hours
 * x GPU power x PUE 1.1: LLaMA-65B, 1,022,362 GPU-hours of A100-80GB at
 * 400 W = 408,945 kWh, x 1.1 = 449,839 kWh, published as 449 MWh. With
 * GPUs that draw their TDP in every state, trainsim's GPU level is that
 * product: 2048 GPUs (256 nodes) for 1,022,362 / 2048 h = 1797120.7 s. */
START_TEST(test_published_llama65b)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 256;\n"
	    "training = { global_batch = 2048; micro_batch = 1; seq_len = 2048; steps = 1000; };\n"
	    "failures = { gpu_mtbf = \"none\"; node_mtbf = \"none\"; };\n"
	    "power = { gpu_comm_fraction = 1.0; gpu_idle_fraction = 1.0; };\n"
	    "cost = { pue = 1.1; };\n",
	    &e);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq_tol(hw_cluster_gpu_type(s->cluster)->tdp_w, 400.0, 1e-12);
	struct ts_result r = sample();
	r.steps = 1022362.0 * 3600.0 / 2048.0 / 10.0;
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 0.0, 0.0, &r);
	ck_assert_double_eq_tol(r.gpu_hours, 1022362.0, 1e-6);
	ck_assert_double_eq_tol(r.gpu_energy_kwh, 408944.8, 1e-6);
	/* the published 449 MWh: GPU level x PUE, within 0.2 % */
	ck_assert_double_lt(fabs(r.gpu_energy_kwh * 1.1 / 449000.0 - 1.0), 0.002);
	/* the facility level adds hosts, NICs and switches: above it */
	ck_assert_double_gt(r.facility_energy_kwh, r.gpu_energy_kwh * 1.1);
	ts_scenario_destroy(s);
}
END_TEST

/* BLOOM (Luccioni et al. 2022, JMLR 24(253)): dynamic consumption of the
 * final training, 1,082,990 GPU-hours of A100-80GB x 0.4 kW = 433,196 kWh,
 * on 384 GPUs (48 nodes): 1,082,990 / 384 h = 10153031.3 s. */
START_TEST(test_published_bloom)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 48;\n"
	    "training = { global_batch = 384; micro_batch = 1; seq_len = 2048; steps = 1000; };\n"
	    "failures = { gpu_mtbf = \"none\"; node_mtbf = \"none\"; };\n"
	    "power = { gpu_comm_fraction = 1.0; gpu_idle_fraction = 1.0; };\n",
	    &e);
	ck_assert_ptr_nonnull(s);
	struct ts_result r = sample();
	r.steps = 1082990.0 * 3600.0 / 384.0 / 10.0;
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 0.0, 0.0, &r);
	ck_assert_double_eq_tol(r.gpu_hours, 1082990.0, 1e-6);
	ck_assert_double_eq_tol(r.gpu_energy_kwh, 433196.0, 1e-6);
	/* energy_kwh (facility, PUE 1.58 by default) is far above it */
	ck_assert_double_gt(r.energy_kwh, 1.58 * r.gpu_energy_kwh);
	ts_scenario_destroy(s);
}
END_TEST

/* power.node_max on a partly used node: 6.5 kW for 8 x 400 W, 4 used:
 * host (6500 - 3200) x 4 / 8 = 1650 W, busy 1650 + 1600 = 3250 W (not
 * 6500 - 1600 = 4900 W of host). */
START_TEST(test_node_power_partial_given)
{
	struct ts_error e;
	struct ts_scenario *s = load("model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
				     "gpus_per_node = 4; power = { node_max = \"6.5 kW\"; };\n",
				     &e);
	struct cost_power p;
	cost_node_power(s, hw_cluster_gpu_type(s->cluster), &p);
	ck_assert_double_eq_tol(p.host_w, 1650.0, 1e-9);
	ck_assert_double_eq_tol(p.busy_w, 3250.0, 1e-9);
	ck_assert_double_eq_tol(p.gpu_busy_w, 1600.0, 1e-9);
	ts_scenario_destroy(s);
}
END_TEST

/* A workstation of 4 x RTX 4090 (450 W): host COST_HOST_W_WORKSTATION =
 * 400 W for the node, busy 400 + 1800 = 2200 W (not 4 x 862.5 W). */
START_TEST(test_node_power_workstation)
{
	struct ts_error e;
	struct ts_scenario *s = load("model = \"gpt3-1.3b\"; cluster = \"rtx4090-x4\";\n", &e);
	ck_assert_ptr_nonnull(s);
	struct cost_power p;
	cost_node_power(s, hw_cluster_gpu_type(s->cluster), &p);
	ck_assert_double_eq_tol(p.host_w, 400.0, 1e-9);
	ck_assert_double_eq_tol(p.busy_w, 2200.0, 1e-9);
	ts_scenario_destroy(s);
}
END_TEST

/* Failures modelled and no interval: checkpoints at Young's interval.
 * 16 GPUs of 1600 h: M = 5760000 / 16 = 360000 s; 20 GB at 1 GB/s = 20 s;
 * interval sqrt(2 x 20 x 360000) = 3794.733 s; floor(10000 / 3794.733) = 2;
 * F = 10040 / 360000 = 0.027889 < 2: no warning. */
START_TEST(test_default_checkpoints)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
	    "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; steps = 1000; };\n"
	    "failures = { gpu_mtbf = \"1600 h\"; node_mtbf = \"none\"; };\n"
	    "checkpoint = { write_bandwidth = \"1 GB/s\"; };\n",
	    &e);
	ck_assert(cost_ckpt_auto(s));
	struct ts_result r = sample();
	struct cost_ckpt c;
	ck_assert_int_eq(ckpt(s, 20e9, &c, &e), 0);
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 20e9, c.each_s, &r);
	ck_assert_double_eq_tol(r.checkpoint_interval_s, 3794.733, 1e-3);
	ck_assert_double_eq_tol(r.checkpoints, 2.0, 1e-12);
	/* each failure loses half of 3794.733 + 20 s */
	ck_assert_double_eq_tol(r.failure_lost_each_s, 1907.367, 1e-3);
	ck_assert_double_eq_tol(r.failure_restart_each_s, 600.0, 1e-12);
	ck_assert_double_eq_tol(r.job_mtbf_s, 360000.0, 1e-6);
	ck_assert_str_eq(r.warnings, "");
	ts_scenario_destroy(s);
	/* the Llama 3 defaults: 16 GPUs / 86300 h + 2 nodes / 15300 h */
	s = load(BASE_NOFAIL "\n", &e);
	ck_assert(cost_ckpt_auto(s));
	ck_assert_double_eq_tol(cost_job_mtbf_s(s),
				1.0 / (16.0 / (86300.0 * 3600.0) + 2.0 / (15300.0 * 3600.0)), 1e-3);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(test_checkpoint_by_time)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    BASE "checkpoint = { interval = \"1 h\"; write_bandwidth = \"8 Gbit/s\"; };\n", &e);
	struct ts_result r = sample();
	struct cost_ckpt c;
	ck_assert_int_eq(ckpt(s, 3e9, &c, &e), 0);
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 3e9, c.each_s, &r);
	/* 10000 s of training: floor(10000 / 3600) = 2; 3 GB at 1 GB/s = 3 s */
	ck_assert_double_eq_tol(r.checkpoints, 2.0, 1e-12);
	ck_assert_double_eq_tol(r.checkpoint_s, 6.0, 1e-9);
	/* no price: cost 0, PUE 1.58 by default */
	ck_assert_double_eq_tol(r.cost_usd, 0.0, 1e-300);
	ck_assert_double_eq_tol(s->cost.pue, 1.58, 1e-12);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(test_owned)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    BASE
	    "cost = { usd_per_gpu_hour = 2.0; usd_per_kwh = 0.1; pue = 1.0;\n"
	    "  owned = { server_usd = 200000.0; network_usd = 25000.0; storage_usd = 50000.0;\n"
	    "            years = 5.0; upkeep_usd_per_year = 87660.0; }; };\n",
	    &e);
	struct ts_result r = sample();
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 0.0, 0.0, &r);
	/* capital = 2 x 225000 + 50000 = 500000; per hour 500000 / (5 x 8766)
	 * + 87660 / 8766 = 11.4077 + 10 = 21.4077 $/h; 10000 s = 2.7778 h */
	double per_h = 500000.0 / (5.0 * 8766.0) + 10.0;
	double kwh = r.energy_kwh;
	/* energy at PUE 1: 1000 x 126960 J = 35.2667 kWh */
	ck_assert_double_eq_tol(kwh, 126960000.0 / 3.6e6, 1e-9);
	ck_assert_double_eq_tol(r.cost_usd, per_h * 10000.0 / 3600.0 + kwh * 0.1, 1e-9);
	/* mean power 12.696 kW; opex/month = 87660 / 12 + 12.696 x 730.5 x 0.1
	 * = 7305 + 927.44 = 8232.44; cloud = 32 $/h x 730.5 = 23376 $/month;
	 * 500000 / (23376 - 8232.44) = 33.02 months */
	double opex = 7305.0 + 12.696 * 730.5 * 0.1;
	ck_assert_double_eq_tol(r.breakeven_months, 500000.0 / (23376.0 - opex), 1e-9);
	ck_assert(fabs(r.breakeven_months - 33.02) < 0.01);
	/* busy all year by default; the cost of an hour of the run and of a
	 * GPU-hour (16 GPUs) */
	ck_assert_double_eq_tol(r.utilisation, 1.0, 1e-300);
	ck_assert_double_eq_tol(r.usd_per_hour, per_h + kwh * 0.1 / (10000.0 / 3600.0), 1e-9);
	ck_assert_double_eq_tol(r.usd_per_gpu_hour, r.usd_per_hour / 16.0, 1e-12);
	ts_scenario_destroy(s);
}
END_TEST

/* test_owned's cluster busy half the year: its yearly cost is spread over
 * half the hours, so an hour of use costs twice as much hardware; a month
 * saves the rent of its busy half (0.5 x 23376 = 11688 $) against the
 * upkeep and the energy of those hours (7305 + 0.5 x 927.44 = 7768.72 $):
 * 500000 / (11688 - 7768.72) = 127.6 months. */
START_TEST(test_owned_utilisation)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    BASE
	    "cost = { usd_per_gpu_hour = 2.0; usd_per_kwh = 0.1; pue = 1.0; utilisation = 0.5;\n"
	    "  owned = { server_usd = 200000.0; network_usd = 25000.0; storage_usd = 50000.0;\n"
	    "            years = 5.0; upkeep_usd_per_year = 87660.0; }; };\n",
	    &e);
	ck_assert_ptr_nonnull(s);
	struct ts_result r = sample();
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 0.0, 0.0, &r);
	double per_h = (500000.0 / (5.0 * 8766.0) + 10.0) / 0.5, kwh = r.energy_kwh;
	ck_assert_double_eq_tol(kwh, 126960000.0 / 3.6e6, 1e-9);
	ck_assert_double_eq_tol(r.cost_usd, per_h * 10000.0 / 3600.0 + kwh * 0.1, 1e-9);
	double opex = 7305.0 + 0.5 * 12.696 * 730.5 * 0.1;
	ck_assert_double_eq_tol(r.breakeven_months, 500000.0 / (0.5 * 23376.0 - opex), 1e-9);
	ck_assert(fabs(r.breakeven_months - 127.6) < 0.05);
	ck_assert_double_eq_tol(r.utilisation, 0.5, 1e-300);
	ck_assert_double_eq_tol(r.usd_per_hour, r.cost_usd / (10000.0 / 3600.0), 1e-9);
	ts_scenario_destroy(s);
	/* a rented cluster pays for the hours it runs: utilisation changes
	 * nothing (16 GPUs x 2 $/h) */
	s = load(BASE "cost = { usd_per_gpu_hour = 2.0; utilisation = 0.25; };\n", &e);
	ck_assert_ptr_nonnull(s);
	r = sample();
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 0.0, 0.0, &r);
	ck_assert_double_eq_tol(r.cost_usd, 32.0 * 10000.0 / 3600.0, 1e-9);
	ck_assert_double_eq_tol(r.usd_per_gpu_hour, 2.0, 1e-12);
	ck_assert_double_eq_tol(r.utilisation, 0.0, 1e-300);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(test_owned_never)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    BASE "cost = { usd_per_gpu_hour = 0.01; owned = { server_usd = 1.0e5; }; };\n", &e);
	struct ts_result r = sample();
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 0.0, 0.0, &r);
	/* 16 x 0.01 $/h = 0.16 $/h is below the electricity alone */
	ck_assert_double_eq_tol(r.breakeven_months, -1.0, 1e-300);
	ck_assert_double_eq_tol(s->cost.years, 4.0, 1e-300);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(test_no_run)
{
	struct ts_error e;
	struct ts_scenario *s = load(BASE "cost = { usd_per_gpu_hour = 2.0; };\n", &e);
	struct ts_result r = sample();
	r.steps = 0.0;
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 1e9, 0.5, &r);
	ck_assert_double_eq_tol(r.energy_kwh, 0.0, 1e-300);
	ck_assert_double_eq_tol(r.cost_usd, 0.0, 1e-300);
	ck_assert_double_eq_tol(r.checkpoint_bytes, 1e9, 1e-300);
	ts_scenario_destroy(s);
}
END_TEST

/* Run length in epochs, from the dataset's size: ImageNet-1k's 1,281,167
 * training images (configs/datasets/imagenet-1k.cfg) x 90 epochs at a
 * global batch of 8 x 256 = 2048 are ceil(56,301.2) = 56,302 steps; one
 * epoch of c4-tokens, 156e9 tokens packed in sequences of 2048, at 512
 * sequences per step is ceil(148,773.2) = 148,774. */
START_TEST(test_epochs)
{
	struct ts_error e;
	struct ts_scenario *s =
	    load("model = \"resnet50\"; cluster = \"dgx-a100-80gb\";\n"
		 "training = { framework = \"ddp\"; micro_batch = 256; precision = \"fp16\"; "
		 "optimizer = \"sgd\"; epochs = 90; };\n"
		 "data = { dataset = \"imagenet-1k\"; workers_per_gpu = 8; };\n",
		 &e);
	struct ts_result r;
	ck_assert_msg(ts_run(s, &calib, &r, NULL, &e) == 0, "%s", e.msg);
	ck_assert_double_eq_tol(r.steps, 56302.0, 1e-9);
	ck_assert_str_eq(r.not_modelled, "");
	ts_scenario_destroy(s);
	s = load(
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
	    "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; epochs = 1; };\n",
	    &e);
	ck_assert_msg(ts_run(s, &calib, &r, NULL, &e) == 0, "%s", e.msg);
	ck_assert_double_eq_tol(r.steps, 148774.0, 1e-9);
	ts_scenario_destroy(s);
}
END_TEST

/* Young's interval on the job Llama 3 ran: 16,384 GPUs at the default
 * 50,000 h each fail every 50000 x 3600 / 16384 = 10986.328 s; a 60 s
 * checkpoint write gives sqrt(2 x 60 x 10986.328) = 1148.198 s (Young 1974,
 * Daly 2006 to first order). */
START_TEST(test_young_interval)
{
	ck_assert_double_eq_tol(cost_young_interval_s(60.0, 50000.0 * 3600.0 / 16384.0), 1148.1983,
				1e-3);
	ck_assert_double_eq_tol(cost_young_interval_s(0.0, 1e6), 0.0, 1e-300);
	ck_assert_double_eq_tol(cost_young_interval_s(60.0, (double)INFINITY), 0.0, 1e-300);
}
END_TEST

/* 16 GPUs of 1600 h: the job fails every 1600 x 3600 / 16 = 360000 s. A
 * 20 GB checkpoint at 1 GB/s takes 20 s; "auto" checkpoints every
 * sqrt(2 x 20 x 360000) = 3794.733 s of training: floor(10000 / 3794.733)
 * = 2 checkpoints, W0 = 10040 s; F = 10040 / 360000 = 0.0278889 failures,
 * each losing (3794.733 + 20) / 2 = 1907.367 s and a 600 s restart:
 * failure_s = 0.0278889 x 2507.367 = 69.927 s. */
START_TEST(test_failures_auto)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
	    "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; steps = 1000; };\n"
	    "failures = { gpu_mtbf = \"1600 h\"; node_mtbf = \"none\"; restart = \"10 min\"; };\n"
	    "checkpoint = { interval = \"auto\"; write_bandwidth = \"1 GB/s\"; };\n",
	    &e);
	ck_assert_double_eq_tol(cost_job_mtbf_s(s), 360000.0, 1e-6);
	struct ts_result r = sample();
	struct cost_ckpt c;
	ck_assert_int_eq(ckpt(s, 20e9, &c, &e), 0);
	ck_assert_double_eq_tol(c.each_s, 20.0, 1e-12);
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 20e9, c.each_s, &r);
	ck_assert_double_eq_tol(r.checkpoint_interval_s, 3794.733, 1e-3);
	ck_assert_double_eq_tol(r.checkpoints, 2.0, 1e-12);
	ck_assert_double_eq_tol(r.failures_expected, 0.0278889, 1e-7);
	ck_assert_double_eq_tol(r.failure_s, 69.927, 1e-3);
	ck_assert_double_eq_tol(r.time_to_train_s, 10040.0 + 69.927, 1e-3);
	ts_scenario_destroy(s);
}
END_TEST

/* Young's interval below one step: the 16 GPUs fail every 0.01 h x 3600 /
 * 16 = 2.25 s, so "auto" would checkpoint every sqrt(2 x 20 x 2.25) =
 * 9.487 s, within a 10 s step; a checkpoint is taken between steps, so
 * every step (10 s), 1000 for 1000 steps, not floor(10000 / 9.487) = 1054. */
START_TEST(test_checkpoint_at_most_per_step)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
	    "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; steps = 1000; };\n"
	    "failures = { gpu_mtbf = \"0.01 h\"; node_mtbf = \"none\"; };\n"
	    "checkpoint = { interval = \"auto\"; write_bandwidth = \"1 GB/s\"; };\n",
	    &e);
	ck_assert_double_eq_tol(cost_young_interval_s(20.0, cost_job_mtbf_s(s)), 9.4868, 1e-4);
	struct ts_result r = sample();
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 20e9, 20.0, &r);
	ck_assert_double_eq_tol(r.checkpoint_interval_s, 10.0, 1e-12);
	ck_assert_double_eq_tol(r.checkpoints, 1000.0, 1e-12);
	ts_scenario_destroy(s);
}
END_TEST

/* Node failures only, checkpoints opted out ("none"): 2 nodes of 100 h
 * fail every 180000 s; F = 10000 / 180000 = 0.055556, each losing half the
 * run (5000 s) and a 60 s restart: failure_s = 0.055556 x 5060 = 281.111 s;
 * F exceeds the 0 checkpoints: a warning. */
START_TEST(test_failures_nodes)
{
	struct ts_error e;
	struct ts_scenario *s = load(
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
	    "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; steps = 1000; };\n"
	    "failures = { gpu_mtbf = \"none\"; node_mtbf = \"100 h\"; restart = \"1 min\"; };\n"
	    "checkpoint = { interval = \"none\"; };\n",
	    &e);
	ck_assert(!cost_ckpt_auto(s));
	struct ts_result r = sample();
	cost_whole_run(s, hw_cluster_gpu_type(s->cluster), 20e9, 0.0, &r);
	ck_assert_double_eq_tol(r.checkpoints, 0.0, 1e-300);
	ck_assert_double_eq_tol(r.failures_expected, 10000.0 / 180000.0, 1e-12);
	ck_assert_double_eq_tol(r.failure_s, 281.1111, 1e-3);
	ck_assert_double_eq_tol(r.time_to_train_s, 10281.1111, 1e-3);
	ck_assert_ptr_nonnull(
	    strstr(r.warnings, "0.056 expected failures exceed the 0 checkpoints"));
	ts_scenario_destroy(s);
}
END_TEST

static const struct {
	const char *text;
	int code;
	const char *need[3];
} bad[] = {
    {BASE "checkpoint = { interval = 100; storage = 7; };\n",
     TS_ETYPE,
     {"checkpoint.storage", "c.cfg:3", "storage.cfg"}},
    {BASE "checkpoint = { interval = \"2 parsecs\"; write_bandwidth = \"1 GB/s\"; };\n",
     TS_EUNIT,
     {"checkpoint.interval", "c.cfg:3", "parsecs"}},
    {BASE "checkpoint = { interval = 0; write_bandwidth = \"1 GB/s\"; };\n",
     TS_ERANGE,
     {"checkpoint.interval", "found 0", "expected"}},
    {BASE "cost = { pue = 0.5; };\n", TS_ERANGE, {"cost.pue", "0.5", "expected"}},
    {BASE "cost = { utilisation = 0.0; };\n",
     TS_ERANGE,
     {"cost.utilisation", "found 0", "expected"}},
    {BASE "cost = { utilisation = 1.5; };\n", TS_ERANGE, {"cost.utilisation", "1.5", "expected"}},
    {BASE "cost = { owned = { years = 3.0; }; };\n",
     TS_EINVALID,
     {"cost.owned.server_usd", "found nothing", "expected"}},
    {BASE "cost = { owned = { server = 3.0; }; };\n",
     TS_EUNKNOWN_KEY,
     {"cost.owned.server", "server_usd", NULL}},
    {BASE "power = { node_max = 6500; };\n", TS_ETYPE, {"power.node_max", "6500", "unit"}},
    {BASE "power = { gpu_idle_fraction = 1.5; };\n",
     TS_ERANGE,
     {"power.gpu_idle_fraction", "1.5", "expected"}},
    {"model = \"gpt3-1.3b\";\ncluster = \"dgx-a100-80gb\";\nfailures = { gpu_mtbf = 5000; };\n",
     TS_ETYPE,
     {"failures.gpu_mtbf", "c.cfg:3", "unit"}},
    {"model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\nfailures = { mtbf = \"5 h\"; };\n",
     TS_EUNKNOWN_KEY,
     {"failures.mtbf", "gpu_mtbf", NULL}},
};

START_TEST(test_bad_keys)
{
	struct ts_scenario *s = NULL;
	struct ts_error e;
	int rc = ts_scenario_load_string(cat, bad[_i].text, "c.cfg", NULL, 0, &s, &e);
	char line[1400];
	ts_error_format(&e, line, sizeof line);
	ck_assert_msg(rc == bad[_i].code, "case %d: rc %d: %s", _i, rc, line);
	ck_assert_ptr_null(s);
	for (int k = 0; k < 3 && bad[_i].need[k]; k++)
		ck_assert_msg(strstr(line, bad[_i].need[k]), "case %d lacks '%s': %s", _i,
			      bad[_i].need[k], line);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = tu_tcase("cost");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, test_node_power_default);
	tcase_add_test(tc, test_node_power_cluster);
	tcase_add_test(tc, test_node_power_formula);
	tcase_add_test(tc, test_node_power_partial);
	tcase_add_test(tc, test_ckpt_local);
	tcase_add_test(tc, test_ckpt_shared);
	tcase_add_test(tc, test_ckpt_limits);
	tcase_add_test(tc, test_node_power_given);
	tcase_add_test(tc, test_cloud_run);
	tcase_add_test(tc, test_checkpoint_by_time);
	tcase_add_test(tc, test_owned);
	tcase_add_test(tc, test_owned_utilisation);
	tcase_add_test(tc, test_owned_never);
	tcase_add_test(tc, test_no_run);
	tcase_add_test(tc, test_epochs);
	tcase_add_test(tc, test_young_interval);
	tcase_add_test(tc, test_checkpoint_at_most_per_step);
	tcase_add_test(tc, test_failures_auto);
	tcase_add_test(tc, test_failures_nodes);
	tcase_add_test(tc, test_published_llama65b);
	tcase_add_test(tc, test_published_bloom);
	tcase_add_test(tc, test_node_power_partial_given);
	tcase_add_test(tc, test_node_power_workstation);
	tcase_add_test(tc, test_default_checkpoints);
	tcase_add_loop_test(tc, test_bad_keys, 0, (int)(sizeof bad / sizeof bad[0]));
	suite_add_tcase(s, tc);
	return tu_run(s) ? 1 : 0;
}
