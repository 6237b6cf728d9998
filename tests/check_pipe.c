/* Pipeline, tensor and sharded data parallelism: rank placement and groups,
 * the layer split, the pipeline bubble of GPipe, 1F1B and interleaved 1F1B
 * against (p-1)/m and (p-1)/(v m) of the ideal time, activations in flight
 * per stage, and class mode equal to full mode on 64 GPUs.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "io/scenario.h"
#include "net/coll.h"
#include "net/net.h"
#include "par/graph.h"
#include "par/layout.h"
#include "par/pipe.h"
#include "run/run.h"
#include "testutil.h"
#include "work/compute.h"

static struct hw_catalog *cat;
static struct work_calib calib;

static void setup(void)
{
	tu_load_hw(&cat, &calib);
}

static void teardown(void)
{
	hw_catalog_destroy(cat);
}

/* TP8 PP16 DP128 on 16,384 GPUs of 8 per node, default order tp-cp-dp-pp:
 * rank = t + 8 d + 1024 s. Rank 1234 = 2 + 8 x 26 + 1024 x 1. */
START_TEST(layout_groups)
{
	struct layout l;
	struct ts_error err;
	ck_assert_int_eq(layout_init(&l, 8, 1, 128, 16, NULL, 8, true, &err), 0);
	ck_assert_uint_eq(l.gpus, 16384);
	ck_assert_uint_eq(layout_coord(&l, 1234, LAYOUT_TP), 2);
	ck_assert_uint_eq(layout_coord(&l, 1234, LAYOUT_DP), 26);
	ck_assert_uint_eq(layout_coord(&l, 1234, LAYOUT_PP), 1);
	uint32_t grp[128];
	layout_group(&l, 1234, LAYOUT_TP, grp);
	ck_assert_uint_eq(grp[0], 1232);
	ck_assert_uint_eq(grp[7], 1239);
	layout_group(&l, 1234, LAYOUT_DP, grp);
	ck_assert_uint_eq(grp[0], 1026);
	ck_assert_uint_eq(grp[127], 1026 + 8 * 127);
	/* classes: one per stage and local GPU, 16 x 8, each of 128 members
	 * (one per node of the stage); rank 1234 is on local GPU 2 of stage 1.
	 * The TP groups (one node each) are led by local GPU 0's class, 128
	 * of them; local GPU 2's class leads one DP group (TP rank 2's, first
	 * rank 1026) spanning 128 nodes */
	uint32_t base = 0;
	ck_assert_uint_eq(l.nclasses, 128);
	ck_assert_uint_eq(layout_class_of(&l, 1234), 8 + 2);
	ck_assert_uint_eq(layout_class_rep(&l, 10), 1024 + 2);
	ck_assert_uint_eq(layout_class_stage(&l, 10), 1);
	ck_assert_uint_eq(layout_class_members(&l, 10), 128);
	ck_assert_uint_eq(layout_group_lead(&l, 10, LAYOUT_TP, &base), 0);
	ck_assert_uint_eq(layout_group_lead(&l, 8, LAYOUT_TP, &base), 128);
	ck_assert_uint_eq(base, 1024);
	ck_assert_uint_eq(layout_coll_mult(&l, 8, LAYOUT_TP), 128 * 1);
	ck_assert_uint_eq(layout_group_lead(&l, 10, LAYOUT_DP, &base), 1);
	ck_assert_uint_eq(base, 1026);
	ck_assert_uint_eq(layout_coll_mult(&l, 10, LAYOUT_DP), 1 * 128);
	ck_assert_uint_eq(layout_p2p_mult(&l, 10), 128);
	/* a stage smaller than a node (TP 2 x PP 4 on one node of 8): stage 1
	 * is local GPUs 2 and 3, two classes of one member */
	ck_assert_int_eq(layout_init(&l, 2, 1, 1, 4, NULL, 8, true, &err), 0);
	ck_assert_uint_eq(l.nclasses, 8);
	ck_assert_uint_eq(layout_class_of(&l, 3), 3);
	ck_assert_uint_eq(layout_class_rep(&l, 3), 3);
	ck_assert_uint_eq(layout_class_members(&l, 3), 1);
	ck_assert_uint_eq(layout_group_lead(&l, 2, LAYOUT_TP, &base), 1);
	ck_assert_uint_eq(base, 2);
	ck_assert_int_eq(layout_init(&l, 1, 1, 1, 1, NULL, LAYOUT_MAX_GPN + 1, true, &err),
			 TS_EINVALID);
	ck_assert_int_eq(layout_init(&l, 1, 1, 1, 1, NULL, LAYOUT_MAX_GPN + 1, false, &err), 0);
	/* another order: dp innermost */
	ck_assert_int_eq(layout_init(&l, 8, 1, 128, 16, "dp-tp-cp-pp", 8, false, &err), 0);
	ck_assert_uint_eq(layout_coord(&l, 1234, LAYOUT_DP), 1234 % 128);
	ck_assert_uint_eq(l.nclasses, 16384);
	ck_assert_int_eq(layout_init(&l, 8, 1, 128, 16, "tp-dp-pp", 8, false, &err), TS_EINVALID);
	ck_assert_str_eq(err.key, "parallel.order");
}
END_TEST

/* Llama 3 405B: 126 layers on 16 stages, 7 on the first and the last. */
START_TEST(split_uneven)
{
	static struct dp_unit u[128];
	for (int i = 0; i < 128; i++)
		u[i].layer = (uint16_t)i; /* embed 0, layers 1..126, head 127 */
	uint32_t first[17];
	ck_assert_int_eq(pipe_split(u, 128, 16, NULL, first), 0);
	ck_assert_uint_eq(first[1] - first[0], 1 + 7); /* embedding + 7 layers */
	for (int c = 1; c < 15; c++)
		ck_assert_uint_eq(first[c + 1] - first[c], 8);
	ck_assert_uint_eq(first[16] - first[15], 7 + 1); /* 7 layers + head */
	ck_assert_int_eq(pipe_split(u, 128, 127, NULL, first), TS_EINVALID);
}
END_TEST

struct psim {
	struct hw_cluster *c;
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_net *net;
	struct ts_coll *cc;
	struct ts_graph *g;
	struct layout l;
	struct pipe_built b;
};

/* 8 layers of forward 10 ms, input and weight gradients 10 ms each, 1 MB of
 * activations per layer, no embedding or head work, free transfers, on pp
 * stages of one DGX A100. */
/* The 8 layers split chunk_layers[c] to chunk c (NULL: even), every step
 * slowed by the straggler factor 1 + straggle. */
static void psim_run_flush(struct psim *s, uint32_t pp, enum pipe_schedule sched, uint32_t v,
			   uint32_t m, const uint32_t *chunk_layers, double straggle,
			   uint32_t flushes)
{
	struct hw_cluster_opts o = {0};
	struct ts_error err;
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &s->c, &err), 0);
	ck_assert_int_eq(evq_create(&s->q, 64), 0);
	ck_assert_int_eq(fluid_create(&s->f, s->q), 0);
	ck_assert_int_eq(net_create(&s->net, s->c, s->f, NET_CLASS), 0);
	ck_assert_int_eq(coll_create(&s->cc, s->net), 0);
	ck_assert_int_eq(graph_create(&s->g, s->f, s->cc), 0);
	ck_assert_int_eq(layout_init(&s->l, 1, 1, 1, pp, NULL, 8, true, &err), 0);
	static struct dp_unit u[10];
	u[0] = (struct dp_unit){.label = "embed", .layer = 0};
	for (int i = 1; i <= 8; i++)
		u[i] = (struct dp_unit){.label = "layer",
					.fwd_s = 0.010,
					.dgrad_s = 0.010,
					.wgrad_s = 0.010,
					.act_bytes = 1e6,
					.act_cat = GRAPH_MEM_ACTIVATIONS,
					.layer = (uint16_t)i};
	u[9] = (struct dp_unit){.label = "head", .layer = 9, .act_cat = GRAPH_MEM_LOGITS};
	struct pipe_job j = {.units = u,
			     .nunits = 10,
			     .gran = DP_GRAN_LAYER,
			     .sched = sched,
			     .interleave = v,
			     .chunk_layers = chunk_layers,
			     .m = m,
			     .flushes = flushes,
			     .iterations = 2,
			     .lay = &s->l,
			     .straggle = straggle};
	ck_assert_int_eq(pipe_build(s->g, s->f, &j, &s->b, &err), 0);
	ck_assert_int_eq(graph_run(s->g, &err), 0);
}

static void psim_run_full(struct psim *s, uint32_t pp, enum pipe_schedule sched, uint32_t v,
			  uint32_t m, const uint32_t *chunk_layers, double straggle)
{
	psim_run_flush(s, pp, sched, v, m, chunk_layers, straggle, 1);
}

static void psim_run_split(struct psim *s, uint32_t pp, enum pipe_schedule sched, uint32_t v,
			   uint32_t m, const uint32_t *chunk_layers)
{
	psim_run_full(s, pp, sched, v, m, chunk_layers, 0.0);
}

static void psim_run_slow(struct psim *s, uint32_t pp, enum pipe_schedule sched, uint32_t v,
			  uint32_t m, double straggle)
{
	psim_run_full(s, pp, sched, v, m, NULL, straggle);
}

static void psim_run(struct psim *s, uint32_t pp, enum pipe_schedule sched, uint32_t v, uint32_t m)
{
	psim_run_full(s, pp, sched, v, m, NULL, 0.0);
}

static void psim_free(struct psim *s)
{
	pipe_built_free(&s->b);
	graph_destroy(s->g);
	coll_destroy(s->cc);
	net_destroy(s->net);
	fluid_destroy(s->f);
	evq_destroy(s->q);
	hw_cluster_destroy(s->c);
}

static double iter_s(const struct psim *s)
{
	return ts_time_to_s(graph_rec(s->g, s->b.iter_end[1])->end -
			    graph_rec(s->g, s->b.iter_end[0])->end);
}

/* One layer of forward 10 ms (8 ms of it attention), input and weight
 * gradients 10 ms each (8 ms attention backward), on one DGX A100 node,
 * layer granularity, no launches, no gradient bytes (so no reduction). */
static void psim_cp_ep(struct psim *s, uint32_t cp, uint32_t dp, uint32_t ep, double kv, double a2a,
		       uint32_t m)
{
	struct hw_cluster_opts o = {0};
	struct ts_error err;
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &s->c, &err), 0);
	ck_assert_int_eq(evq_create(&s->q, 64), 0);
	ck_assert_int_eq(fluid_create(&s->f, s->q), 0);
	ck_assert_int_eq(net_create(&s->net, s->c, s->f, NET_CLASS), 0);
	ck_assert_int_eq(coll_create(&s->cc, s->net), 0);
	ck_assert_int_eq(graph_create(&s->g, s->f, s->cc), 0);
	ck_assert_int_eq(layout_init(&s->l, 1, cp, dp, 1, NULL, 8, true, &err), 0);
	static struct dp_unit u[3];
	u[0] = (struct dp_unit){.label = "embed", .layer = 0};
	u[1] = (struct dp_unit){.label = "layer",
				.fwd_s = 0.010,
				.dgrad_s = 0.010,
				.wgrad_s = 0.010,
				.act_bytes = 1e6,
				.act_cat = GRAPH_MEM_ACTIVATIONS,
				.layer = 1,
				.ring_fwd_s = 0.008,
				.ring_bwd_s = 0.008,
				.a2a_fwd = 2,
				.a2a_bwd = 2};
	u[2] = (struct dp_unit){.label = "head", .layer = 2, .act_cat = GRAPH_MEM_LOGITS};
	struct pipe_job j = {.units = u,
			     .nunits = 3,
			     .gran = DP_GRAN_LAYER,
			     .sched = PIPE_1F1B,
			     .interleave = 1,
			     .m = m,
			     .iterations = 2,
			     .lay = &s->l,
			     .cp_fwd_bytes = kv,
			     .cp_bwd_bytes = 2.0 * kv,
			     .ep = ep,
			     .a2a_bytes = a2a};
	ck_assert_int_eq(pipe_build(s->g, s->f, &j, &s->b, &err), 0);
	ck_assert_int_eq(graph_run(s->g, &err), 0);
}

/* Seconds the tasks labelled `label` of iteration 1 run beyond `hidden`
 * each, and their number. */
static double exposed_s(const struct psim *s, const char *label, double hidden, uint32_t *n)
{
	ts_time t0 = graph_rec(s->g, s->b.iter_end[0])->end;
	ts_time t1 = graph_rec(s->g, s->b.iter_end[1])->end;
	double x = 0.0;
	*n = 0;
	for (uint32_t t = 0; t < graph_ntasks(s->g); t++) {
		const struct graph_rec *r = graph_rec(s->g, t);
		if (strcmp(r->label, label) || r->start < t0 || r->end > t1)
			continue;
		double d = ts_time_to_s(r->end - r->start) - hidden;
		x += d > 0.0 ? d : 0.0;
		(*n)++;
	}
	return x;
}

/* Ring attention over cp = 2: the one K, V block each rank passes on
 * overlaps the attention of its own block (8 ms / 2 = 4 ms). A 1 kB block
 * (microseconds on NVLink) hides entirely: 4 micro-batches take 4 x 30 ms
 * to the nanosecond. A 4 GB block (about 20 ms forward, 40 ms with the
 * gradients backward) shows all but the 4 ms it overlaps: the iteration is
 * 4 x 30 ms plus each ring step's time beyond 4 ms. */
START_TEST(ring_attention_overlap)
{
	struct psim s = {0};
	psim_cp_ep(&s, 2, 1, 1, 1e3, 0.0, 4);
	uint32_t n;
	ck_assert(exposed_s(&s, "kv ring", 0.004, &n) == 0.0);
	ck_assert_uint_eq(n, 4 * 2); /* one step forward, one backward */
	ck_assert_msg(fabs(iter_s(&s) - 4 * 0.030) < 1e-9, "%.9f s", iter_s(&s));
	psim_free(&s);
	memset(&s, 0, sizeof s);
	psim_cp_ep(&s, 2, 1, 1, 4e9, 0.0, 4);
	double x = exposed_s(&s, "kv ring", 0.004, &n);
	ck_assert_uint_eq(n, 8);
	ck_assert(x > 8 * 0.010);
	ck_assert_msg(fabs(iter_s(&s) - (4 * 0.030 + x)) < 1e-8, "%.9f s, want %.9f s", iter_s(&s),
		      4 * 0.030 + x);
	psim_free(&s);
}
END_TEST

/* MoE all-to-alls over ep = 2 inside dp = 2 run on the compute path: the
 * iteration is the 4 x 30 ms of compute plus every all-to-all's time (one
 * collective for the two forward ones of a layer, one for the two
 * backward); with ep = 1 there are none. */
START_TEST(moe_all_to_all_on_path)
{
	struct psim s = {0};
	psim_cp_ep(&s, 1, 2, 2, 0.0, 64e6, 4);
	uint32_t n;
	double x = exposed_s(&s, "moe all-to-all", 0.0, &n);
	ck_assert_uint_eq(n, 4 * 2);
	ck_assert(x > 0.0);
	ck_assert_msg(fabs(iter_s(&s) - (4 * 0.030 + x)) < 1e-8, "%.9f s, want %.9f s", iter_s(&s),
		      4 * 0.030 + x);
	psim_free(&s);
	memset(&s, 0, sizeof s);
	psim_cp_ep(&s, 1, 2, 1, 0.0, 64e6, 4);
	ck_assert(exposed_s(&s, "moe all-to-all", 0.0, &n) == 0.0 && n == 0);
	ck_assert_msg(fabs(iter_s(&s) - 4 * 0.030) < 1e-9, "%.9f s", iter_s(&s));
	psim_free(&s);
}
END_TEST

/* One layer of 10 ms forward, input and weight gradients on TP 2 with
 * sequence parallelism (a reduce-scatter and an all-gather of `bytes` x 2
 * after the forward and after the weight gradient), one DGX A100, 4
 * micro-batches, with or without Megatron-Core's TP overlap at a 12 %
 * compute slowdown. */
static void psim_tp(struct psim *s, bool overlap, double bytes)
{
	struct hw_cluster_opts o = {0};
	struct ts_error err;
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &s->c, &err), 0);
	ck_assert_int_eq(evq_create(&s->q, 64), 0);
	ck_assert_int_eq(fluid_create(&s->f, s->q), 0);
	ck_assert_int_eq(net_create(&s->net, s->c, s->f, NET_CLASS), 0);
	ck_assert_int_eq(coll_create(&s->cc, s->net), 0);
	ck_assert_int_eq(graph_create(&s->g, s->f, s->cc), 0);
	ck_assert_int_eq(layout_init(&s->l, 2, 1, 1, 1, NULL, 8, true, &err), 0);
	static struct dp_unit u[3];
	u[0] = (struct dp_unit){.label = "embed", .layer = 0};
	u[1] = (struct dp_unit){.label = "layer",
				.fwd_s = 0.010,
				.dgrad_s = 0.010,
				.wgrad_s = 0.010,
				.act_cat = GRAPH_MEM_ACTIVATIONS,
				.layer = 1,
				.tp_fwd = 2,
				.tp_bwd = 2,
				/* overlapped GEMMs 12 % slower in the forward
				 * and the weight gradient */
				.tpo_fwd_s = 0.0012,
				.tpo_wgrad_s = 0.0012};
	u[2] = (struct dp_unit){.label = "head", .layer = 2, .act_cat = GRAPH_MEM_LOGITS};
	struct pipe_job j = {.units = u,
			     .nunits = 3,
			     .gran = DP_GRAN_LAYER,
			     .sched = PIPE_1F1B,
			     .interleave = 1,
			     .m = 4,
			     .iterations = 2,
			     .lay = &s->l,
			     .tp_bytes = bytes,
			     .sp = true,
			     .tp_overlap = overlap};
	ck_assert_int_eq(pipe_build(s->g, s->f, &j, &s->b, &err), 0);
	ck_assert_int_eq(graph_run(s->g, &err), 0);
}

/* Without overlap the collectives sit on the compute path: 4 x 30 ms plus
 * all of their time. With overlap, small ones (1 MB: microseconds on
 * NVLink) hide behind the slowed GEMMs: 4 x (11.2 + 10 + 11.2) ms to a
 * nanosecond per task; large ones (2 GB, far longer than a segment) show all their
 * time beyond the 10 ms of the unslowed input gradient: 4 x 10 ms plus
 * every collective's time (each pair runs alone, as the next segment waits
 * for it). */
START_TEST(tp_comm_overlap)
{
	struct psim s = {0};
	uint32_t n;
	psim_tp(&s, false, 1e6);
	double x = exposed_s(&s, "tp collective", 0.0, &n);
	ck_assert_uint_eq(n, 4 * 2 * 2);
	ck_assert_msg(fabs(iter_s(&s) - (4 * 0.030 + x)) < 1e-8, "%.9f s", iter_s(&s));
	psim_free(&s);
	memset(&s, 0, sizeof s);
	psim_tp(&s, true, 1e6);
	/* 1 ns per slowed task: 0.010 x 1.12 rounds up to 11,200,001 ns */
	ck_assert_msg(fabs(iter_s(&s) - 4 * (0.0112 + 0.010 + 0.0112)) <= 8.5e-9, "%.9f s",
		      iter_s(&s));
	psim_free(&s);
	memset(&s, 0, sizeof s);
	psim_tp(&s, true, 2e9);
	x = exposed_s(&s, "tp collective", 0.0, &n);
	ck_assert(x > 8 * 0.0112);
	ck_assert_msg(fabs(iter_s(&s) - (4 * 0.010 + x)) < 1e-8, "%.9f s, want %.9f s", iter_s(&s),
		      4 * 0.010 + x);
	psim_free(&s);
}
END_TEST

/* Seconds of the first task labelled `label` after iteration 0's end. */
static double task_s(const struct psim *s, const char *label)
{
	ts_time t0 = graph_rec(s->g, s->b.iter_end[0])->end;
	for (uint32_t t = 0; t < graph_ntasks(s->g); t++) {
		const struct graph_rec *r = graph_rec(s->g, t);
		if (!strcmp(r->label, label) && r->start >= t0)
			return ts_time_to_s(r->end - r->start);
	}
	ck_abort_msg("no task %s", label);
	return 0.0;
}

/* ZeRO-1 with CPU offload on GPUs 0 and 1 of a DGX A100, which share PCIe
 * switch 0 and its one PCIe 4 x16 link to CPU 0: a layer of 1e8
 * parameters (bf16 weights and gradients, 12 bytes of optimizer state)
 * over dp = 2. Each rank's 1e8-byte gradient shard goes down while the
 * other's does, so each runs at half the shared link: 1e8 / (B / 2) s; the
 * CPU step of 5e7 parameters at 1e9 per second takes 50 ms; the 1e8-byte
 * weight shard comes back up the same way; the GPU holds no optimizer
 * state. */
START_TEST(offload_over_pcie)
{
	struct psim s = {0};
	struct hw_cluster_opts o = {0};
	struct ts_error err;
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &s.c, &err), 0);
	ck_assert_int_eq(evq_create(&s.q, 64), 0);
	ck_assert_int_eq(fluid_create(&s.f, s.q), 0);
	ck_assert_int_eq(net_create(&s.net, s.c, s.f, NET_CLASS), 0);
	ck_assert_int_eq(coll_create(&s.cc, s.net), 0);
	ck_assert_int_eq(graph_create(&s.g, s.f, s.cc), 0);
	ck_assert_int_eq(layout_init(&s.l, 1, 1, 2, 1, NULL, 8, true, &err), 0);
	static struct dp_unit u[3];
	u[0] = (struct dp_unit){.label = "embed", .layer = 0};
	u[1] = (struct dp_unit){.label = "layer",
				.fwd_s = 0.010,
				.dgrad_s = 0.010,
				.wgrad_s = 0.010,
				.act_cat = GRAPH_MEM_ACTIVATIONS,
				.layer = 1,
				.params = 1e8,
				.grad_bytes = 2e8};
	u[2] = (struct dp_unit){.label = "head", .layer = 2, .act_cat = GRAPH_MEM_LOGITS};
	struct pipe_job j = {.units = u,
			     .nunits = 3,
			     .gran = DP_GRAN_LAYER,
			     .sched = PIPE_1F1B,
			     .interleave = 1,
			     .m = 1,
			     .iterations = 2,
			     .lay = &s.l,
			     .zero = 1,
			     .weight_bpp = 2,
			     .gather_bpp = 2,
			     .grad_bpp = 2,
			     .optim_bpp = 12,
			     .reduce_bpp = 2,
			     .offload = true,
			     .net = s.net,
			     .cpu_adam_params_per_s = 1e9};
	ck_assert_int_eq(pipe_build(s.g, s.f, &j, &s.b, &err), 0);
	ck_assert_int_eq(graph_run(s.g, &err), 0);
	/* the PCIe 4 x16 link's bandwidth, from the route GPU 0 -> CPU 0 */
	uint32_t links[16];
	size_t n;
	double B = INFINITY;
	for (uint32_t d = 0; d < hw_cluster_ndevices(s.c); d++) {
		if (hw_cluster_device(s.c, d)->kind != HW_DEV_CPU ||
		    hw_cluster_device(s.c, d)->group)
			continue;
		ck_assert_int_eq(
		    hw_cluster_route(s.c, hw_cluster_gpu(s.c, 0), d, UINT32_MAX, links, 16, &n), 0);
		for (size_t i = 0; i < n; i++)
			B = fmin(B, hw_cluster_link(s.c, links[i])->bw_Bps);
	}
	ck_assert(isfinite(B));
	ck_assert_msg(fabs(task_s(&s, "grad to host") - 1e8 / (B / 2.0)) < 2e-9, "%.9f vs %.9f",
		      task_s(&s, "grad to host"), 1e8 / (B / 2.0));
	ck_assert(fabs(task_s(&s, "weights to gpu") - 1e8 / (B / 2.0)) < 2e-9);
	ck_assert(fabs(task_s(&s, "cpu optimizer") - 0.050) < 1e-9);
	double at[GRAPH_MEM_COUNT_];
	graph_pool_peak(s.g, s.b.pool[0], at);
	ck_assert(at[GRAPH_MEM_OPTIMIZER] == 0.0);
	ck_assert(at[GRAPH_MEM_WEIGHTS] == 2e8 && at[GRAPH_MEM_GRADIENTS] == 2e8);
	psim_free(&s);
}
END_TEST

/* ZeRO-1 weight gathers per bucket (Megatron-Core's overlap_param_gather):
 * four layers of 1e8 parameters on dp = 2 of a DGX A100, one layer per
 * 4e8-byte gradient bucket, 10 ms forward each. After the step the four
 * 2e8-byte gathers run back to back in forward order; the next forward
 * waits for the first only (the embedding joins layer 1's bucket), so it
 * starts when that gather ends, to the nanosecond, and the other three
 * hide behind the forwards of the layers before them. (Gathering the
 * whole chunk before its first forward would wait for all four.) */
START_TEST(zero1_gather_per_bucket)
{
	struct psim s = {0};
	struct hw_cluster_opts o = {0};
	struct ts_error err;
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &s.c, &err), 0);
	ck_assert_int_eq(evq_create(&s.q, 64), 0);
	ck_assert_int_eq(fluid_create(&s.f, s.q), 0);
	ck_assert_int_eq(net_create(&s.net, s.c, s.f, NET_CLASS), 0);
	ck_assert_int_eq(coll_create(&s.cc, s.net), 0);
	ck_assert_int_eq(graph_create(&s.g, s.f, s.cc), 0);
	ck_assert_int_eq(layout_init(&s.l, 1, 1, 2, 1, NULL, 8, true, &err), 0);
	static struct dp_unit u[6];
	u[0] = (struct dp_unit){.label = "embed", .layer = 0};
	for (int i = 1; i <= 4; i++)
		u[i] = (struct dp_unit){.label = "layer",
					.fwd_s = 0.010,
					.dgrad_s = 0.010,
					.wgrad_s = 0.010,
					.act_cat = GRAPH_MEM_ACTIVATIONS,
					.layer = (uint16_t)i,
					.params = 1e8,
					.grad_bytes = 4e8};
	u[5] = (struct dp_unit){.label = "head", .layer = 5, .act_cat = GRAPH_MEM_LOGITS};
	struct pipe_job j = {.units = u,
			     .nunits = 6,
			     .gran = DP_GRAN_LAYER,
			     .sched = PIPE_1F1B,
			     .interleave = 1,
			     .m = 1,
			     .iterations = 2,
			     .lay = &s.l,
			     .zero = 1,
			     .bucket_bytes = 4e8,
			     .overlap = true,
			     .weight_bpp = 2,
			     .gather_bpp = 2,
			     .grad_bpp = 4,
			     .optim_bpp = 12,
			     .reduce_bpp = 4};
	ck_assert_int_eq(pipe_build(s.g, s.f, &j, &s.b, &err), 0);
	ck_assert_int_eq(graph_run(s.g, &err), 0);
	ts_time t0 = graph_rec(s.g, s.b.iter_end[0])->end;
	ts_time t1 = graph_rec(s.g, s.b.iter_end[1])->end;
	const struct graph_rec *g1 = NULL, *f1 = NULL;
	double sum = 0.0;
	uint32_t n = 0;
	for (uint32_t t = 0; t < graph_ntasks(s.g); t++) {
		const struct graph_rec *r = graph_rec(s.g, t);
		if (r->start < t0 || r->end > t1)
			continue;
		if (!strcmp(r->label, "param all-gather")) {
			n++;
			sum += ts_time_to_s(r->end - r->start);
			if (!g1 || r->start < g1->start)
				g1 = r;
		} else if (!strcmp(r->label, "layer") && (!f1 || r->start < f1->start)) {
			f1 = r;
		}
	}
	ck_assert_uint_eq(n, 4);
	ck_assert_ptr_nonnull(g1);
	ck_assert_ptr_nonnull(f1);
	ck_assert(g1->start == t0);
	ck_assert_msg(f1->start == g1->end, "first forward at %lld ns, its gather ends at %lld ns",
		      (long long)(f1->start - t0), (long long)(g1->end - t0));
	/* the first forward waited for one gather of four alike, not for all */
	ck_assert(ts_time_to_s(f1->start - t0) < 0.3 * sum);
	/* the other gathers (well under 10 ms each) hide: four forwards and
	 * backwards of 10 + 20 ms follow the first gather */
	ck_assert_msg(
	    fabs(ts_time_to_s(graph_rec(s.g, s.b.opt[0])->start - f1->start) - 4 * 0.030) < 0.002,
	    "%.6f s", ts_time_to_s(graph_rec(s.g, s.b.opt[0])->start - f1->start));
	psim_free(&s);
}
END_TEST

/* Ideal time m x (8 layers x 30 ms) / p; the schedule adds (p - 1)/m of it
 * (Narayanan et al. 2021, §2.2.1: bubble fraction (p-1)/m for GPipe and
 * 1F1B, (p-1)/(v m) interleaved). To the nanosecond up to rounding. */
START_TEST(bubble_fraction)
{
	struct {
		uint32_t p, v, m;
		enum pipe_schedule s;
		double want;
	} cs[] = {
	    {4, 1, 8, PIPE_1F1B, 8 * 0.060 * (1.0 + 3.0 / 8.0)},
	    {4, 1, 8, PIPE_GPIPE, 8 * 0.060 * (1.0 + 3.0 / 8.0)},
	    {2, 1, 4, PIPE_1F1B, 4 * 0.120 * (1.0 + 1.0 / 4.0)},
	    {4, 2, 8, PIPE_INTERLEAVED, 8 * 0.060 * (1.0 + 3.0 / 16.0)},
	    {2, 4, 4, PIPE_INTERLEAVED, 4 * 0.120 * (1.0 + 1.0 / 16.0)},
	};
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		struct psim s = {0};
		psim_run(&s, cs[i].p, cs[i].s, cs[i].v, cs[i].m);
		double t = iter_s(&s);
		ck_assert_msg(fabs(t - cs[i].want) < 1e-8, "case %zu: %.9f s, want %.9f s", i, t,
			      cs[i].want);
		/* the bubble is charged to pipeline transfers on stage 0 */
		struct graph_breakdown bd;
		graph_breakdown(s.g, s.b.compute[0], graph_rec(s.g, s.b.iter_end[0])->end,
				graph_rec(s.g, s.b.iter_end[1])->end, &bd);
		double bub = ts_time_to_s(bd.wait[GRAPH_P2P]);
		ck_assert_msg(fabs(bub - (cs[i].want - cs[i].m * 0.240 / cs[i].p)) < 1e-8,
			      "case %zu: bubble %.9f", i, bub);
		psim_free(&s);
	}
}
END_TEST

/* Stragglers (sim/work/straggle.h): with straggle 0.05 every forward and
 * backward task runs 5 % longer, the pace of the slowest GPU, and so does
 * the whole 1F1B iteration of bubble_fraction's first case, bubble
 * included: 8 x 0.060 x 1.05 x (1 + 3/8) = 0.693 s (each task rounds up to
 * a nanosecond: within 1e-7 s). */
START_TEST(straggler_paces_pipeline)
{
	struct psim s = {0};
	psim_run_slow(&s, 4, PIPE_1F1B, 1, 8, 0.05);
	double t = iter_s(&s), want = 8 * 0.060 * 1.05 * (1.0 + 3.0 / 8.0);
	ck_assert_msg(fabs(t - want) < 1e-7, "%.9f s, want %.9f s", t, want);
	ck_assert_msg(fabs(task_s(&s, "layer") - 0.0105) < 2e-9, "%.9f s", task_s(&s, "layer"));
	psim_free(&s);
}
END_TEST

/* Activations in flight: stage s of 1F1B holds min(p - s, m) micro-batches
 * of its 2 layers x 1 MB; GPipe holds all m. */
START_TEST(memory_in_flight)
{
	for (int sched = 0; sched < 2; sched++) {
		struct psim s = {0};
		psim_run(&s, 4, sched ? PIPE_1F1B : PIPE_GPIPE, 1, 8);
		for (uint32_t st = 0; st < 4; st++) {
			double at[GRAPH_MEM_COUNT_];
			graph_pool_peak(s.g, s.b.pool[st], at);
			double want = (sched ? (double)(4 - st) : 8.0) * 2e6;
			ck_assert_msg(fabs(at[GRAPH_MEM_ACTIVATIONS] - want) < 1.0,
				      "%s stage %u: %.0f bytes, want %.0f",
				      sched ? "1f1b" : "gpipe", st, at[GRAPH_MEM_ACTIVATIONS],
				      want);
		}
		psim_free(&s);
	}
}
END_TEST

/* Explicit chunk layers: units go to chunks in order, a chunk of no layers
 * holds only the embedding or the head, and counts that do not add up to
 * the layers are refused. */
START_TEST(split_explicit)
{
	static struct dp_unit u[10];
	for (int i = 0; i < 10; i++)
		u[i].layer = (uint16_t)i; /* embed 0, layers 1..8, head 9 */
	uint32_t first[5];
	const uint32_t cl[4] = {0, 3, 5, 0};
	ck_assert_int_eq(pipe_split(u, 10, 4, cl, first), 0);
	ck_assert_uint_eq(first[1] - first[0], 1); /* the embedding alone */
	ck_assert_uint_eq(first[2] - first[1], 3);
	ck_assert_uint_eq(first[3] - first[2], 5);
	ck_assert_uint_eq(first[4] - first[3], 1); /* the head alone */
	const uint32_t bad[4] = {1, 3, 5, 0};	   /* 9 of 8 layers */
	ck_assert_int_eq(pipe_split(u, 10, 4, bad, first), TS_EINVALID);
}
END_TEST

/* Uneven stages, by hand: 8 layers of forward 10 ms and backward 20 ms
 * (input and weight gradients), 1 MB of activations each, 1F1B on p = 2
 * stages, m = 4, free transfers. Split 3 + 5, stage 0 runs 4 x 3 x 30 ms =
 * 360 ms of compute and stage 1 4 x 5 x 30 = 600 ms; stage 0 holds
 * min(p - s, m) = 2 micro-batches of 3 MB, stage 1 one of 5 MB. The
 * timeline (forward 30 | 50 ms, backward 60 | 100 ms): stage 0 runs F0
 * [0, 30], F1 [30, 60]; stage 1 F0 [30, 80], B0 [80, 180], F1 [180, 230],
 * B1 [230, 330], F2 [330, 380], B2 [380, 480], F3 [480, 530], B3 [530,
 * 630]; stage 0 B0 [180, 240], F2, B1 [330, 390], F3, B2 [480, 540], B3
 * [630, 690]: 690 ms, against (m + p - 1)(t_f + t_b) = 5 x 120 = 600 ms
 * for the even 4 + 4, whose stages hold 8 MB and 4 MB. */
START_TEST(uneven_stages_by_hand)
{
	const uint32_t split[2][2] = {{3, 5}, {4, 4}};
	const double want_t[2] = {0.690, 0.600};
	const double want_c[2][2] = {{0.360, 0.600}, {0.480, 0.480}};
	const double want_m[2][2] = {{6e6, 5e6}, {8e6, 4e6}};
	for (int k = 0; k < 2; k++) {
		struct psim s = {0};
		psim_run_split(&s, 2, PIPE_1F1B, 1, 4, split[k]);
		ck_assert_msg(fabs(iter_s(&s) - want_t[k]) < 1e-8, "split %d: %.9f s, want %.3f", k,
			      iter_s(&s), want_t[k]);
		for (uint32_t st = 0; st < 2; st++) {
			struct graph_breakdown bd;
			graph_breakdown(s.g, s.b.compute[st], graph_rec(s.g, s.b.iter_end[0])->end,
					graph_rec(s.g, s.b.iter_end[1])->end, &bd);
			double c = ts_time_to_s(bd.busy[GRAPH_COMPUTE]);
			ck_assert_msg(fabs(c - want_c[k][st]) < 1e-8, "split %d stage %u: %.9f s",
				      k, st, c);
			double at[GRAPH_MEM_COUNT_];
			graph_pool_peak(s.g, s.b.pool[st], at);
			ck_assert_msg(fabs(at[GRAPH_MEM_ACTIVATIONS] - want_m[k][st]) < 1.0,
				      "split %d stage %u: %.0f bytes", k, st,
				      at[GRAPH_MEM_ACTIVATIONS]);
		}
		psim_free(&s);
	}
}
END_TEST

/* Interleaved 1F1B with virtual stages of unequal length, by hand: the 8
 * layers (forward 10 ms, backward 20 ms) on p = 2 stages of v = 3 chunks,
 * split as PyTorch pipelining splits them for NeMo AutoModel (8 // 6 = 1
 * each, one more on the first 8 % 6 = 2: virtual stages c0..c5 hold 2, 2,
 * 1, 1, 1, 1 layers; stage 0 runs c0, c2, c4, stage 1 c1, c3, c5, 4 layers
 * each). m = 2, free transfers. Stage 0 warms up with (p - 1) x 2 + (v - 1)
 * x p = 6 forwards (all of them), stage 1 with 4; forwards take a chunk's
 * micro-batches 0, 1 in turn, chunk by chunk, backwards the chunks in
 * reverse. Timeline (ms), "F1c2" the forward of micro-batch 1 on c2:
 *   stage 0: F0c0 [0, 20], F1c0 [20, 40], F0c2 [40, 50] (after F0c1),
 *            F1c2 [60, 70], F0c4 [70, 80], F1c4 [80, 90], B0c4 [110, 130]
 *            (after B0c5), B1c4 [140, 160], B0c2 [160, 180], B1c2 [180, 200],
 *            B0c0 [220, 260] (after B0c1), B1c0 [260, 300];
 *   stage 1: F0c1 [20, 40], F1c1 [40, 60], F0c3 [60, 70], F1c3 [70, 80],
 *            F0c5 [80, 90], B0c5 [90, 110], F1c5 [110, 120], B1c5 [120, 140],
 *            B0c3 [140, 160], B1c3 [160, 180], B0c1 [180, 220], B1c1 [220, 260].
 * The iteration takes 300 ms: 2 x 4 x 30 = 240 ms of compute on each stage
 * and, on stage 0, 60 ms waiting for the other stage ([50, 60], [90, 110],
 * [130, 140], [200, 220]), the bubble. 1F1B on the even 4 + 4 takes (m + p
 * - 1)(t_f + t_b) = 3 x 120 = 360 ms (uneven_stages_by_hand). */
START_TEST(uneven_interleaved_by_hand)
{
	const uint32_t split[6] = {2, 2, 1, 1, 1, 1};
	struct psim s = {0};
	psim_run_split(&s, 2, PIPE_INTERLEAVED, 3, 2, split);
	ck_assert_msg(fabs(iter_s(&s) - 0.300) < 1e-8, "%.9f s, want 0.300", iter_s(&s));
	for (uint32_t st = 0; st < 2; st++) {
		struct graph_breakdown bd;
		graph_breakdown(s.g, s.b.compute[st], graph_rec(s.g, s.b.iter_end[0])->end,
				graph_rec(s.g, s.b.iter_end[1])->end, &bd);
		double c = ts_time_to_s(bd.busy[GRAPH_COMPUTE]);
		ck_assert_msg(fabs(c - 0.240) < 1e-8, "stage %u: compute %.9f s", st, c);
		if (st == 0) {
			double bub = ts_time_to_s(bd.wait[GRAPH_P2P]);
			ck_assert_msg(fabs(bub - 0.060) < 1e-8, "stage 0: bubble %.9f s", bub);
		}
	}
	psim_free(&s);
}
END_TEST

/* Flushes, by hand: 1F1B on p = 2 stages of 4 layers (forward 40 ms,
 * backward 80 ms a stage), m = 4 micro-batches as two schedules of 2 (NeMo
 * AutoModel's gradient accumulation with pipelining, each local batch one
 * schedule.step). One schedule of 2: stage 0 F0 [0, 40], F1 [40, 80];
 * stage 1 F0 [40, 80], B0 [80, 160], F1 [160, 200], B1 [200, 280]; stage 0
 * B0 [160, 240], B1 [280, 360]: (m + p - 1)(t_f + t_b) = 3 x 120 = 360 ms.
 * The second schedule's F2 on stage 0 follows its B1 at 360, and stage 1
 * waits for it, so the two take 2 x 360 = 720 ms, against (4 + 1) x 120 =
 * 600 ms for one schedule of 4; stage 0 computes 4 x 120 = 480 ms of it
 * and waits 240 ms. */
START_TEST(flushes_by_hand)
{
	struct psim s = {0};
	psim_run_flush(&s, 2, PIPE_1F1B, 1, 4, NULL, 0.0, 2);
	ck_assert_msg(fabs(iter_s(&s) - 0.720) < 1e-8, "%.9f s, want 0.720", iter_s(&s));
	struct graph_breakdown bd;
	graph_breakdown(s.g, s.b.compute[0], graph_rec(s.g, s.b.iter_end[0])->end,
			graph_rec(s.g, s.b.iter_end[1])->end, &bd);
	ck_assert_msg(fabs(ts_time_to_s(bd.busy[GRAPH_COMPUTE]) - 0.480) < 1e-8, "%.9f s",
		      ts_time_to_s(bd.busy[GRAPH_COMPUTE]));
	ck_assert_msg(fabs(ts_time_to_s(bd.wait[GRAPH_P2P]) - 0.240) < 1e-8, "%.9f s",
		      ts_time_to_s(bd.wait[GRAPH_P2P]));
	psim_free(&s);
	psim_run_flush(&s, 2, PIPE_1F1B, 1, 4, NULL, 0.0, 1);
	ck_assert_msg(fabs(iter_s(&s) - 0.600) < 1e-8, "%.9f s, want 0.600", iter_s(&s));
	psim_free(&s);
}
END_TEST

/* Interleaved 1F1B, p = 4 stages of v = 2 chunks of one 1 MB layer, m = 8:
 * stage s runs (p - s - 1) x 2 + (v - 1) x p warm-up forwards of a chunk
 * (Megatron-LM's get_num_warmup_microbatches for the interleaved schedule)
 * and one more before its first backward frees one, so it holds that many
 * + 1 chunk activations at its peak, at most m x v: 11, 9, 7, 5 MB. For
 * stage 0 this is Korthikanti et al. 2022 §4.2.3's L x (1 + (p - 1)/(p v))
 * layers (8 x 11/8 = 11). The peak comes out of the simulated schedule. */
START_TEST(memory_in_flight_interleaved)
{
	const uint32_t p = 4, v = 2, m = 8;
	struct psim s = {0};
	psim_run(&s, p, PIPE_INTERLEAVED, v, m);
	for (uint32_t st = 0; st < p; st++) {
		double at[GRAPH_MEM_COUNT_];
		graph_pool_peak(s.g, s.b.pool[st], at);
		double chunks = fmin(2.0 * (p - st - 1) + (v - 1.0) * p + 1.0, (double)(m * v));
		ck_assert_msg(fabs(at[GRAPH_MEM_ACTIVATIONS] - chunks * 1e6) < 1.0,
			      "interleaved stage %u: %.0f bytes, want %.0f", st,
			      at[GRAPH_MEM_ACTIVATIONS], chunks * 1e6);
	}
	ck_assert(fabs(8.0 * (1.0 + 3.0 / 8.0) - 11.0) < 1e-12); /* the closed form, stage 0 */
	psim_free(&s);
}
END_TEST

static double run_mode(const char *text, const char *mode, struct ts_result *r)
{
	struct ts_scenario *sc;
	struct ts_error err;
	char set[64];
	snprintf(set, sizeof set, "sim.mode=%s", mode);
	const char *sets[] = {set};
	ck_assert_msg(ts_scenario_load_string(cat, text, "t", sets, 1, &sc, &err) == 0, "%s",
		      err.msg);
	ck_assert_msg(ts_run(sc, &calib, r, NULL, &err) == 0, "%s", err.msg);
	ts_scenario_destroy(sc);
	return r->iteration_time_s;
}

/* Class mode against full mode through ts_run: ZeRO-1 data parallelism on
 * 64 GPUs to the nanosecond; TP2 x PP4 on one DGX A100 within 0.1 %
 * (class mode leaves unbuilt the transfers of the other local GPUs, whose
 * PCIe and NVLink paths are not all alike). The breakdown sums to the
 * iteration time. */
START_TEST(class_equals_full)
{
	static const char *const texts[] = {
	    "model = \"gpt3-13b\"; cluster = \"dgx-a100-80gb\"; nodes = 8;"
	    "training = { global_batch = 64; micro_batch = 1; seq_len = 2048; iterations = 2; };"
	    "parallel = { zero = 1; };",
	    "model = \"gpt3-13b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;"
	    "training = { global_batch = 16; micro_batch = 1; seq_len = 2048; iterations = 2; };"
	    "parallel = { tp = 2; pp = 4; };",
	};
	const double tol[] = {1e-9, 1e-3};
	for (int i = 0; i < 2; i++) {
		struct ts_result a, b;
		double ta = run_mode(texts[i], "class", &a), tb = run_mode(texts[i], "full", &b);
		ck_assert_msg(fabs(ta - tb) <= tol[i] * tb, "case %d: class %.9f s, full %.9f s", i,
			      ta, tb);
		double sum = a.compute_s + a.recompute_s + a.exposed_comm_s + a.bubble_s +
			     a.data_stall_s + a.optimizer_s + a.other_s;
		ck_assert(fabs(sum - ta) < 1e-9 * ta);
		ck_assert(a.other_s > -1e-9);
		if (i == 1)
			ck_assert(a.bubble_s > 0.0 && a.exposed_comm_s > 0.0);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pipe");
	TCase *tc = tu_tcase("pipe");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, layout_groups);
	tcase_add_test(tc, split_uneven);
	tcase_add_test(tc, split_explicit);
	tcase_add_test(tc, uneven_stages_by_hand);
	tcase_add_test(tc, uneven_interleaved_by_hand);
	tcase_add_test(tc, flushes_by_hand);
	tcase_add_test(tc, bubble_fraction);
	tcase_add_test(tc, memory_in_flight);
	tcase_add_test(tc, memory_in_flight_interleaved);
	tcase_add_test(tc, class_equals_full);
	tcase_add_test(tc, ring_attention_overlap);
	tcase_add_test(tc, moe_all_to_all_on_path);
	tcase_add_test(tc, offload_over_pcie);
	tcase_add_test(tc, tp_comm_overlap);
	tcase_add_test(tc, zero1_gather_per_bucket);
	tcase_add_test(tc, straggler_paces_pipeline);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
