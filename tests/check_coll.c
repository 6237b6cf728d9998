/* Collectives: closed forms, the step-by-step ring oracle, class mode equal
 * to full mode, contention, protocol choice, and the nccl-tests
 * measurements the ring model covers.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "base/err.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "net/coll.h"
#include "net/meter.h"
#include "net/net.h"
#include "testutil.h"

static struct hw_catalog *cat;

static void setup(void)
{
	struct ts_error err;
	if (hw_catalog_load(tu_root(), &cat, &err)) {
		char buf[1200];
		ck_abort_msg("catalog: %s", ts_error_format(&err, buf, sizeof buf));
	}
}

static void teardown(void)
{
	hw_catalog_destroy(cat);
}

struct world {
	struct hw_cluster *c;
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_net *net;
	struct ts_coll *cc;
	ts_time end[8];
	int ndone;
};

static void world_init(struct world *w, const char *cluster, uint32_t nodes, uint32_t nics,
		       enum net_mode mode)
{
	struct hw_cluster_opts o = {.nodes = nodes, .nics_per_node = nics};
	struct ts_error err;
	memset(w, 0, sizeof *w);
	if (hw_cluster_load(cat, cluster, &o, &w->c, &err)) {
		char buf[1200];
		ck_abort_msg("cluster: %s", ts_error_format(&err, buf, sizeof buf));
	}
	ck_assert_int_eq(evq_create(&w->q, 256), 0);
	ck_assert_int_eq(fluid_create(&w->f, w->q), 0);
	ck_assert_int_eq(net_create(&w->net, w->c, w->f, mode), 0);
	ck_assert_int_eq(coll_create(&w->cc, w->net), 0);
}

static void world_fini(struct world *w)
{
	coll_destroy(w->cc);
	net_destroy(w->net);
	fluid_destroy(w->f);
	evq_destroy(w->q);
	hw_cluster_destroy(w->c);
}

static void on_done(void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	w->end[arg] = evq_now(w->q);
	w->ndone++;
}

/* Start op over the first n GPUs; returns the plan. */
static struct coll_plan start(struct world *w, enum coll_op op, uint32_t n, double bytes, int proto,
			      uint64_t slot, const uint32_t *ranks)
{
	uint32_t local[1024];
	if (!ranks) {
		for (uint32_t i = 0; i < n; i++)
			local[i] = i;
		ranks = local;
	}
	uint32_t gpn = hw_cluster_gpus_per_node(w->c);
	uint32_t nodes = (n + gpn - 1) / gpn;
	struct coll_spec s = {.op = op,
			      .ranks = ranks,
			      .nranks = n,
			      .bytes = bytes,
			      .mult = net_mode(w->net) == NET_CLASS ? nodes : 1,
			      .proto = proto,
			      .done = on_done,
			      .ctx = w,
			      .arg = slot};
	struct coll_plan p;
	struct ts_error err;
	ck_assert_int_eq(coll_start(w->cc, &s, &p, &err), 0);
	return p;
}

/* Time of one collective alone, s. */
static double time_one(const char *cluster, uint32_t nodes, uint32_t nics, enum net_mode mode,
		       enum coll_op op, uint32_t n, double bytes, int proto, struct coll_plan *pl)
{
	struct world w;
	world_init(&w, cluster, nodes, nics, mode);
	struct coll_plan p = start(&w, op, n, bytes, proto, 0, NULL);
	fluid_run(w.f, TS_TIME_MAX);
	ck_assert_int_eq(w.ndone, 1);
	double t = ts_time_to_s(w.end[0]);
	if (pl)
		*pl = p;
	world_fini(&w);
	return t;
}

START_TEST(bus_factors)
{
	ck_assert_double_eq(coll_bus_factor(COLL_ALL_REDUCE, 8), 2.0 * 7.0 / 8.0);
	ck_assert_double_eq(coll_bus_factor(COLL_ALL_GATHER, 8), 7.0 / 8.0);
	ck_assert_double_eq(coll_bus_factor(COLL_REDUCE_SCATTER, 4), 3.0 / 4.0);
	ck_assert_double_eq(coll_bus_factor(COLL_BROADCAST, 4), 1.0);
	ck_assert_double_eq(coll_bus_factor(COLL_ALL_REDUCE, 1), 0.0);
}
END_TEST

/* Ring all-reduce of S bytes over n GPUs with every ring edge at B bytes/s:
 * each GPU sends 2(n-1)/n S, so t = latency + 2(n-1)/n S / B (Patarasuk &
 * Yuan 2009; nccl-tests PERFORMANCE.md). On an NVSwitch node every edge is
 * GPU -> NVSwitch -> GPU at the NVLink rate; n = 2 also shows that the two
 * directions of a link do not share (both edges use the same two cables). */
START_TEST(ring_allreduce_closed_form)
{
	const double S = 1073741824.0;
	struct world w;
	world_init(&w, "dgx-a100-80gb", 1, 0, NET_FULL);
	uint32_t route[8];
	size_t len;
	ck_assert_int_eq(hw_cluster_route(w.c, hw_cluster_gpu(w.c, 0), hw_cluster_gpu(w.c, 1),
					  UINT32_MAX, route, 8, &len),
			 0);
	double B = HUGE_VAL;
	for (size_t k = 0; k < len; k++)
		B = fmin(B, hw_cluster_link(w.c, route[k])->bw_Bps);
	world_fini(&w);
	for (uint32_t n = 2; n <= 8; n++) {
		struct coll_plan p;
		double t = time_one("dgx-a100-80gb", 1, 0, NET_FULL, COLL_ALL_REDUCE, n, S,
				    COLL_PROTO_SIMPLE, &p);
		double want = ts_time_to_s(ts_time_from_s(p.latency_s)) + 2.0 * (n - 1) / n * S / B;
		/* the completion time is rounded up to the next ns twice at most */
		ck_assert_msg(fabs(t - want) <= 2e-9, "n=%u: %.12f vs %.12f", n, t, want);
		ck_assert_double_eq_tol(p.bus_Bps, B, B * 1e-12);
	}
}
END_TEST

/* LL128 by hand: a forced LL128 ring with two or more GPUs per node moves
 * the bytes at 0.92 of the bus rate Simple reaches (NCCL src/graph/tuning.cc,
 * the ring LL128 refinement busBw x 0.92, "120.0/128.0"; 0.7 with one GPU per
 * node), plus its own latency: one DGX A100 node, 8 GPUs, 1 GiB,
 * t = latency + 2 x 7/8 x S / (0.92 x B), B the slowest link of a GPU pair's
 * route. Within 2 ns (the two roundings of the completion time). */
START_TEST(ring_allreduce_ll128_closed_form)
{
	const double S = 1073741824.0, ll128 = 0.92;
	const uint32_t n = 8;
	struct world w;
	world_init(&w, "dgx-a100-80gb", 1, 0, NET_FULL);
	uint32_t route[8];
	size_t len;
	ck_assert_int_eq(hw_cluster_route(w.c, hw_cluster_gpu(w.c, 0), hw_cluster_gpu(w.c, 1),
					  UINT32_MAX, route, 8, &len),
			 0);
	double B = HUGE_VAL;
	for (size_t k = 0; k < len; k++)
		B = fmin(B, hw_cluster_link(w.c, route[k])->bw_Bps);
	world_fini(&w);
	struct coll_plan p;
	double t =
	    time_one("dgx-a100-80gb", 1, 0, NET_FULL, COLL_ALL_REDUCE, n, S, COLL_PROTO_LL128, &p);
	ck_assert_int_eq(p.proto, COLL_PROTO_LL128);
	double want =
	    ts_time_to_s(ts_time_from_s(p.latency_s)) + 2.0 * (n - 1) / n * S / (ll128 * B);
	ck_assert_msg(fabs(t - want) <= 2e-9, "%.12f vs %.12f", t, want);
	ck_assert_double_eq_tol(p.bus_Bps, ll128 * B, B * 1e-12);
}
END_TEST

/* Step-by-step oracle: 2(n-1) steps for all-reduce ((n-1) for all-gather),
 * each a barrier of n flows of S/n bytes along the ring edges' routes,
 * shared max-min. The pipelined activity must give the same bandwidth time. */
static double oracle(const char *cluster, enum coll_op op, uint32_t n, double S)
{
	struct world w;
	world_init(&w, cluster, 1, 0, NET_FULL);
	uint32_t steps = op == COLL_ALL_REDUCE ? 2 * (n - 1) : n - 1;
	for (uint32_t st = 0; st < steps; st++) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t route[64];
			size_t len;
			ck_assert_int_eq(hw_cluster_route(w.c, hw_cluster_gpu(w.c, i),
							  hw_cluster_gpu(w.c, (i + 1) % n),
							  UINT32_MAX, route, 64, &len),
					 0);
			struct fluid_use u[64];
			for (size_t k = 0; k < len; k++) {
				u[k].res = net_link_res(w.net, route[k]);
				u[k].coeff = 1.0;
			}
			/* merge repeated links (a route through host memory may
			 * cross a link once each way, never twice the same way) */
			struct fluid_spec fs = {.work = S / n,
						.mult = 1,
						.weight = 1.0,
						.uses = u,
						.nuses = (uint32_t)len,
						.done = on_done,
						.ctx = &w,
						.arg = 0};
			uint32_t id;
			ck_assert_int_eq(fluid_start(w.f, &fs, &id), 0);
		}
		fluid_run(w.f, TS_TIME_MAX);
	}
	double t = ts_time_to_s(evq_now(w.q));
	world_fini(&w);
	return t;
}

START_TEST(ring_matches_step_oracle)
{
	const char *clusters[] = {"dgx-a100-80gb", "rtx4090-x4"};
	const double S = 256.0 * 1048576.0;
	for (int ci = 0; ci < 2; ci++) {
		struct world w;
		world_init(&w, clusters[ci], 1, 0, NET_FULL);
		uint32_t gmax = hw_cluster_gpus(w.c);
		world_fini(&w);
		for (uint32_t n = 2; n <= gmax && n <= 8; n++) {
			for (int op = 0; op < 2; op++) {
				enum coll_op o = op ? COLL_ALL_GATHER : COLL_ALL_REDUCE;
				struct coll_plan p;
				double t = time_one(clusters[ci], 1, 0, NET_FULL, o, n, S,
						    COLL_PROTO_SIMPLE, &p);
				double bw_part = t - ts_time_to_s(ts_time_from_s(p.latency_s));
				double want = oracle(clusters[ci], o, n, S);
				/* every oracle step and the pipelined finish round up
				 * to the next ns: allow one ns per step, plus one */
				double steps = o == COLL_ALL_REDUCE ? 2.0 * (n - 1) : n - 1.0;
				ck_assert_msg(fabs(bw_part - want) <= (steps + 1.0) * 1e-9,
					      "%s n=%u %s: pipelined %.9f s, steps %.9f s",
					      clusters[ci], n, coll_op_name(o), bw_part, want);
			}
		}
	}
}
END_TEST

/* Class mode equals full mode to the nanosecond on 16 and 64 GPUs. */
START_TEST(class_equals_full)
{
	const uint32_t nodes[] = {2, 8};
	const double sizes[] = {8.0, 65536.0, 16777216.0, 4294967296.0};
	for (int ni = 0; ni < 2; ni++)
		for (int si = 0; si < 4; si++)
			for (int op = 0; op < COLL_BROADCAST; op++) {
				uint32_t n = nodes[ni] * 8;
				double a =
				    time_one("dgx-a100-80gb", nodes[ni], 0, NET_FULL,
					     (enum coll_op)op, n, sizes[si], COLL_PROTO_AUTO, NULL);
				double b =
				    time_one("dgx-a100-80gb", nodes[ni], 0, NET_CLASS,
					     (enum coll_op)op, n, sizes[si], COLL_PROTO_AUTO, NULL);
				ck_assert_msg(ts_time_from_s(a) == ts_time_from_s(b),
					      "%u GPUs %s %.0f B: full %.9f class %.9f", n,
					      coll_op_name((enum coll_op)op), sizes[si], a, b);
			}
}
END_TEST

/* On a fat-tree a ring's node-to-node edges are not alike (inside a leaf or
 * across the spine): class mode must still see the oversubscribed uplinks.
 * 4 DGX A100 nodes, 2 per leaf, 4:1 at the leaf: class mode equals full mode
 * to the nanosecond. */
START_TEST(class_equals_full_oversubscribed_tree)
{
	char path[] = "/tmp/ts_tree_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *fp = fdopen(fd, "w");
	fputs("cluster = { base = \"fat-tree-a100\"; nodes = 4;\n"
	      "  fabric = { nodes_per_leaf = 2; oversubscription = 4.0; }; };\n",
	      fp);
	fclose(fp);
	ts_time t[2];
	for (int m = 0; m < 2; m++) {
		struct world w;
		world_init(&w, path, 4, 0, m ? NET_FULL : NET_CLASS);
		start(&w, COLL_ALL_REDUCE, 32, 1073741824.0, COLL_PROTO_SIMPLE, 0, NULL);
		fluid_run(w.f, TS_TIME_MAX);
		t[m] = w.end[0];
		world_fini(&w);
	}
	unlink(path);
	ck_assert_int_eq(t[0], t[1]);
}
END_TEST

/* Two all-reduces over the same 8 GPUs share every link: each takes twice
 * as long as one alone (bandwidth-bound size, Simple forced). */
START_TEST(contention_doubles)
{
	const double S = 1073741824.0;
	struct coll_plan p;
	double alone =
	    time_one("dgx-a100-80gb", 1, 0, NET_FULL, COLL_ALL_REDUCE, 8, S, COLL_PROTO_SIMPLE, &p);
	struct world w;
	world_init(&w, "dgx-a100-80gb", 1, 0, NET_FULL);
	start(&w, COLL_ALL_REDUCE, 8, S, COLL_PROTO_SIMPLE, 0, NULL);
	start(&w, COLL_ALL_REDUCE, 8, S, COLL_PROTO_SIMPLE, 1, NULL);
	fluid_run(w.f, TS_TIME_MAX);
	double lat = ts_time_to_s(ts_time_from_s(p.latency_s));
	for (int i = 0; i < 2; i++)
		ck_assert_double_eq_tol(ts_time_to_s(w.end[i]) - lat, 2.0 * (alone - lat), 4e-9);
	world_fini(&w);
}
END_TEST

/* Back-to-back collectives, for a repeated one to compare with: each
 * starts when the one before ends. */
struct chain {
	struct world *w;
	struct coll_spec s;
	uint32_t left;
};

static void chain_next(void *ctx, uint64_t arg)
{
	struct chain *ch = ctx;
	(void)arg;
	if (ch->left == 0) {
		ch->w->end[0] = evq_now(ch->w->q);
		ch->w->ndone++;
		return;
	}
	ch->left--;
	struct ts_error err;
	ck_assert_int_eq(coll_start(ch->w->cc, &ch->s, NULL, &err), 0);
}

/* A collective repeated `count` times (struct coll_spec, count: what stage
 * granularity issues for a pass's tensor-parallel collectives) ends when
 * that many of it, run one after the other alone, end: within a
 * nanosecond per collective (each end is rounded up to the nanosecond),
 * inside a node (one NVSwitch ring) and over two nodes (a channel per
 * NIC); count 0 and 1 are one collective. */
START_TEST(repeated_equals_back_to_back)
{
	static const struct {
		uint32_t nodes, n;
		double bytes;
	} cases[] = {{1, 8, 4194304.0}, {1, 8, 65536.0}, {2, 16, 33554432.0}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		uint32_t ranks[16];
		for (uint32_t i = 0; i < cases[c].n; i++)
			ranks[i] = i;
		const uint32_t reps[] = {0, 1, 5};
		for (size_t r = 0; r < 3; r++) {
			struct world a, b;
			struct ts_error err;
			world_init(&a, "dgx-a100-80gb", cases[c].nodes, 0, NET_FULL);
			world_init(&b, "dgx-a100-80gb", cases[c].nodes, 0, NET_FULL);
			struct coll_spec s = {.op = COLL_ALL_REDUCE,
					      .ranks = ranks,
					      .nranks = cases[c].n,
					      .bytes = cases[c].bytes,
					      .count = reps[r],
					      .mult = 1,
					      .done = on_done,
					      .ctx = &a,
					      .arg = 0};
			ck_assert_int_eq(coll_start(a.cc, &s, NULL, &err), 0);
			fluid_run(a.f, TS_TIME_MAX);
			uint32_t n = reps[r] > 1 ? reps[r] : 1;
			struct chain ch = {.w = &b, .s = s, .left = n};
			ch.s.count = 1;
			ch.s.done = chain_next;
			ch.s.ctx = &ch;
			chain_next(&ch, 0);
			fluid_run(b.f, TS_TIME_MAX);
			ck_assert_int_eq(a.ndone, 1);
			ck_assert_int_eq(b.ndone, 1);
			ts_time d = a.end[0] - b.end[0];
			ck_assert_msg(d <= 0 && d >= -(ts_time)n,
				      "case %zu x %u: repeated %lld ns, back to back %lld ns", c, n,
				      (long long)a.end[0], (long long)b.end[0]);
			world_fini(&a);
			world_fini(&b);
		}
	}
}
END_TEST

/* Small messages are latency-bound and pick LL; large ones pick Simple and
 * approach the link rate. */
START_TEST(protocol_by_size)
{
	struct coll_plan p;
	double t = time_one("dgx-a100-80gb", 1, 0, NET_CLASS, COLL_ALL_REDUCE, 8, 8.0,
			    COLL_PROTO_AUTO, &p);
	ck_assert_int_eq(p.proto, COLL_PROTO_LL);
	/* NCCL model: 3.6 us + 14 steps x 0.47 us = 10.18 us, plus ~0 transfer */
	ck_assert_double_eq_tol(t, 10.18e-6, 0.01e-6);
	time_one("dgx-a100-80gb", 1, 0, NET_CLASS, COLL_ALL_REDUCE, 8, 4294967296.0,
		 COLL_PROTO_AUTO, &p);
	ck_assert_int_eq(p.proto, COLL_PROTO_SIMPLE);
}
END_TEST

START_TEST(bad_specs)
{
	struct world w;
	world_init(&w, "dgx-a100-80gb", 1, 0, NET_FULL);
	struct ts_error err;
	uint32_t r[3] = {0, 1, 1};
	struct coll_spec s = {
	    .op = COLL_ALL_REDUCE, .ranks = r, .nranks = 0, .bytes = 8, .mult = 1};
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EINVALID);
	s.nranks = 3;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.msg, "twice"));
	r[2] = 99;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EINVALID);
	r[2] = 2;
	s.mult = 2;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EINVALID);
	s.mult = 1;
	s.bytes = NAN;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EINVALID);
	s.bytes = 8;
	s.proto = 7;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EINVALID);
	world_fini(&w);
}
END_TEST

/* Measured nccl-tests busbw that the ring model covers, within 15 %.
 * NVLink3 efficiency in configs/hardware/links.cfg was fitted on the two
 * single-node A100 rows (so they check the fit, not the model); the
 * two- and three-node rows are not used for fitting anything. */
struct meas {
	const char *id; /* row of shared/data/measurements.csv or field report */
	const char *cluster;
	uint32_t nodes, nics;
	double bytes;
	double busbw_GBps; /* measured */
	const char *note;
};

static const struct meas rows[] = {
    {"NCCL-002 (nccl-tests#175)", "dgx-a100-80gb", 1, 0, 4294967296.0, 232.54,
     "8x A100 NVSwitch, 4 GiB, peak busbw; fitted row"},
    {"NCCL-007 (nccl-tests#149)", "dgx-a100-80gb", 1, 0, 1073741824.0, 200.0,
     "8x A100-SXM4-80GB NVSwitch, 1 GiB; fitted row"},
    {"field report 7 (nccl-tests#175)", "dgx-a100-80gb", 2, 4, 4294967296.0, 86.0,
     "2 nodes x 8 A100, 4 x 200 Gb/s HDR per node; validation"},
};

START_TEST(nccl_tests_rows)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct meas *m = &rows[i];
		uint32_t n = m->nodes * 8;
		double t = time_one(m->cluster, m->nodes, m->nics, NET_CLASS, COLL_ALL_REDUCE, n,
				    m->bytes, COLL_PROTO_AUTO, NULL);
		double bus = m->bytes / t * coll_bus_factor(COLL_ALL_REDUCE, n) / 1e9;
		double e = tu_relerr(bus, m->busbw_GBps);
		printf("%-34s predicted %7.2f GB/s measured %7.2f GB/s error %5.1f%%  (%s)\n",
		       m->id, bus, m->busbw_GBps, 100.0 * e, m->note);
		ck_assert_msg(e <= 0.15, "%s: %.2f vs %.2f GB/s", m->id, bus, m->busbw_GBps);
	}
}
END_TEST

/* Forced algorithm on the first n GPUs, alone; returns the time, s. */
static double time_algo(const char *cluster, uint32_t nodes, uint32_t nics, enum net_mode mode,
			enum coll_op op, uint32_t n, double bytes, int algo, int proto,
			struct coll_plan *pl)
{
	struct world w;
	world_init(&w, cluster, nodes, nics, mode);
	uint32_t ranks[1024];
	for (uint32_t i = 0; i < n; i++)
		ranks[i] = i;
	uint32_t gpn = hw_cluster_gpus_per_node(w.c);
	struct coll_spec s = {.op = op,
			      .ranks = ranks,
			      .nranks = n,
			      .bytes = bytes,
			      .mult = mode == NET_CLASS ? (n + gpn - 1) / gpn : 1,
			      .algo = algo,
			      .proto = proto,
			      .done = on_done,
			      .ctx = &w};
	struct ts_error err;
	struct coll_plan p;
	int rc = coll_start(w.cc, &s, &p, &err);
	ck_assert_msg(rc == 0, "%s: %s", cluster, err.msg);
	fluid_run(w.f, TS_TIME_MAX);
	ck_assert_int_eq(w.ndone, 1);
	double t = ts_time_to_s(w.end[0]);
	if (pl)
		*pl = p;
	world_fini(&w);
	return t;
}

/* The tree, all-to-all and send/recv in class mode equal full mode to the
 * nanosecond, on 2, 3, 5 and 8 nodes (odd counts shift the second tree,
 * even ones mirror it, so node degrees differ). */
START_TEST(class_equals_full_other_algos)
{
	const uint32_t nodes[] = {2, 3, 5, 8};
	const double sizes[] = {8.0, 1048576.0, 4294967296.0};
	for (int ni = 0; ni < 4; ni++)
		for (int si = 0; si < 3; si++) {
			uint32_t n = nodes[ni] * 8;
			struct {
				enum coll_op op;
				int algo;
			} runs[] = {{COLL_ALL_REDUCE, COLL_ALGO_TREE},
				    {COLL_ALL_TO_ALL, COLL_ALGO_AUTO},
				    {COLL_SEND_RECV, COLL_ALGO_AUTO},
				    {COLL_REDUCE, COLL_ALGO_RING}};
			for (int r = 0; r < 4; r++) {
				double a =
				    time_algo("dgx-a100-80gb", nodes[ni], 0, NET_FULL, runs[r].op,
					      n, sizes[si], runs[r].algo, COLL_PROTO_AUTO, NULL);
				double b =
				    time_algo("dgx-a100-80gb", nodes[ni], 0, NET_CLASS, runs[r].op,
					      n, sizes[si], runs[r].algo, COLL_PROTO_AUTO, NULL);
				ck_assert_msg(ts_time_from_s(a) == ts_time_from_s(b),
					      "%u GPUs %s %.0f B: full %.9f class %.9f", n,
					      coll_op_name(runs[r].op), sizes[si], a, b);
			}
		}
}
END_TEST

/* Tree on two DGX A100 nodes, Simple: every node has one tree neighbour in
 * each tree, so a NIC carries 1 byte per byte of its channel (8 channels,
 * 24.25 GB/s each); inside the node, GPU c heads channel c's chain and the
 * chain runs c, c+1, ..., c-1, so a GPU's NVLink carries 1 byte per channel
 * byte as head and as tail and 2 in the 6 channels where it is inside:
 * 14/8 = 1.75 per byte. algbw = 0.9 (NCCL's tree factor) x min(8 x NIC,
 * NVLink / 1.75). */
START_TEST(tree_two_nodes_closed_form)
{
	const double S = 4294967296.0;
	struct world w;
	world_init(&w, "dgx-a100-80gb", 2, 0, NET_FULL);
	uint32_t route[64];
	size_t len;
	ck_assert_int_eq(hw_cluster_route(w.c, hw_cluster_gpu(w.c, 0), hw_cluster_gpu(w.c, 1),
					  UINT32_MAX, route, 64, &len),
			 0);
	double nvl = hw_cluster_link(w.c, route[0])->bw_Bps;
	ck_assert_int_eq(hw_cluster_route(w.c, hw_cluster_gpu(w.c, 0), hw_cluster_gpu(w.c, 8), 0,
					  route, 64, &len),
			 0);
	double nic = HUGE_VAL;
	for (size_t k = 0; k < len; k++)
		nic = fmin(nic, hw_cluster_link(w.c, route[k])->bw_Bps);
	world_fini(&w);
	struct coll_plan p;
	double t = time_algo("dgx-a100-80gb", 2, 0, NET_FULL, COLL_ALL_REDUCE, 16, S,
			     COLL_ALGO_TREE, COLL_PROTO_SIMPLE, &p);
	ck_assert_int_eq(p.algo, COLL_ALGO_TREE);
	ck_assert_uint_eq(p.channels, 8);
	double alg = 0.9 * fmin(8.0 * nic, nvl / 1.75);
	double want = ts_time_to_s(ts_time_from_s(p.latency_s)) + S / alg;
	/* rounded up to the ns once per channel at most */
	ck_assert_msg(fabs(t - want) <= 2e-9, "%.12f vs %.12f", t, want);
}
END_TEST

/* NVLS on one DGX H100: each GPU's link to the switch and back carries the
 * buffer once, at NCCL's NVLS efficiency 0.85: t = latency + S / (0.85 B),
 * and busbw = 2(n-1)/n x 0.85 B exceeds the link rate B. */
START_TEST(nvls_closed_form)
{
	struct world w;
	world_init(&w, "dgx-h100", 1, 0, NET_FULL);
	bool nvls = hw_cluster_nvls(w.c);
	uint32_t route[8];
	size_t len;
	ck_assert_int_eq(hw_cluster_route(w.c, hw_cluster_gpu(w.c, 0), hw_cluster_gpu(w.c, 1),
					  UINT32_MAX, route, 8, &len),
			 0);
	double B = hw_cluster_link(w.c, route[0])->bw_Bps;
	world_fini(&w);
	/* DGX H100's NVSwitch gen 3 has NVLink SHARP: a cluster file without it
	 * fails here, never skips */
	ck_assert_msg(nvls, "dgx-h100 does not declare its NVLink SHARP NVSwitch");
	const double S = 4294967296.0;
	for (int m = 0; m < 2; m++) {
		struct coll_plan p;
		double t = time_algo("dgx-h100", 1, 0, m ? NET_CLASS : NET_FULL, COLL_ALL_REDUCE, 8,
				     S, COLL_ALGO_NVLS, COLL_PROTO_AUTO, &p);
		ck_assert_int_eq(p.algo, COLL_ALGO_NVLS);
		ck_assert_int_eq(p.proto, COLL_PROTO_SIMPLE);
		double want = ts_time_to_s(ts_time_from_s(p.latency_s)) + S / (0.85 * B);
		ck_assert_msg(fabs(t - want) <= 2e-9, "%.12f vs %.12f", t, want);
		double bus = S / t * coll_bus_factor(COLL_ALL_REDUCE, 8);
		ck_assert_msg(bus > B, "NVLS busbw %.3g not above the link rate %.3g", bus, B);
	}
}
END_TEST

/* NCCL's tuning model prices the tree from the ring's bus bandwidth B
 * (tuning.cc: tree busBw = min(0.9 B, maxTreeBw), tree algbw = 0.5 x
 * busBw), and the ring's algbw is B x n / (2 (n - 1)). On two DGX A100 nodes
 * with one NIC each (B far below maxTreeBw's 110 GB/s) a 1 GiB all-reduce
 * (2^24 chunks of 64 B: no treeCorrectionFactor) over n = 16 ranks is
 * priced, beyond each latency, 1 / (0.9 x 0.5 x 2 x 15 / 16) = 16 / 13.5 =
 * 1.18519 times as long by the tree as by the ring. */
START_TEST(tree_priced_from_ring)
{
	const double S = 1073741824.0;
	struct coll_plan ring, tree;
	time_algo("dgx-a100-80gb", 2, 1, NET_CLASS, COLL_ALL_REDUCE, 16, S, COLL_ALGO_RING,
		  COLL_PROTO_SIMPLE, &ring);
	time_algo("dgx-a100-80gb", 2, 1, NET_CLASS, COLL_ALL_REDUCE, 16, S, COLL_ALGO_TREE,
		  COLL_PROTO_SIMPLE, &tree);
	double B = S / (ring.est_s - ring.latency_s) * 2.0 * 15.0 / 16.0;
	ck_assert_msg(0.9 * B < 110e9, "ring busbw %.4g: the tree would be capped", B);
	double r = (tree.est_s - tree.latency_s) / (ring.est_s - ring.latency_s);
	ck_assert_double_eq_tol(r, 16.0 / 13.5, 1e-9);
}
END_TEST

/* Choices by size on one node and across nodes, as NCCL's tuning model
 * makes them with the constants in sim/net/coll.c: tiny all-reduces on 16
 * DGX A100 nodes are latency-bound and take the tree (2 log2(16) network
 * hops instead of 2 x 15 ring steps), 8 GiB takes the ring; on one DGX H100
 * with NVLink SHARP large all-reduces take NVLS. */
START_TEST(algorithm_by_size)
{
	struct coll_plan p;
	time_algo("dgx-a100-80gb", 16, 0, NET_CLASS, COLL_ALL_REDUCE, 128, 8.0, COLL_ALGO_AUTO,
		  COLL_PROTO_AUTO, &p);
	ck_assert_int_eq(p.algo, COLL_ALGO_TREE);
	ck_assert_int_eq(p.proto, COLL_PROTO_LL);
	/* NCCL model: 4.4 + 2 (7 x 0.52 x 1.8 + 4 x 5.0) us */
	ck_assert_double_eq_tol(p.latency_s, (4.4 + 2.0 * (7 * 0.52 * 1.8 + 4 * 5.0)) * 1e-6,
				1e-12);
	time_algo("dgx-a100-80gb", 16, 0, NET_CLASS, COLL_ALL_REDUCE, 128, 8589934592.0,
		  COLL_ALGO_AUTO, COLL_PROTO_AUTO, &p);
	ck_assert_int_eq(p.algo, COLL_ALGO_RING);
	ck_assert_int_eq(p.proto, COLL_PROTO_SIMPLE);
	/* one node, no NVLS on A100: always the ring */
	time_algo("dgx-a100-80gb", 1, 0, NET_CLASS, COLL_ALL_REDUCE, 8, 8589934592.0,
		  COLL_ALGO_AUTO, COLL_PROTO_AUTO, &p);
	ck_assert_int_eq(p.algo, COLL_ALGO_RING);
	struct world w;
	world_init(&w, "dgx-h100", 1, 0, NET_CLASS);
	bool nvls = hw_cluster_nvls(w.c);
	world_fini(&w);
	if (nvls) {
		time_algo("dgx-h100", 1, 0, NET_CLASS, COLL_ALL_REDUCE, 8, 8589934592.0,
			  COLL_ALGO_AUTO, COLL_PROTO_AUTO, &p);
		ck_assert_int_eq(p.algo, COLL_ALGO_NVLS);
		time_algo("dgx-h100", 1, 0, NET_CLASS, COLL_ALL_REDUCE, 8, 8.0, COLL_ALGO_AUTO,
			  COLL_PROTO_AUTO, &p);
		ck_assert_int_eq(p.algo, COLL_ALGO_RING);
		ck_assert_int_eq(p.proto, COLL_PROTO_LL);
	}
}
END_TEST

/* A transfer between two ranks (a pipeline send) takes NCCL's software base
 * latency plus the links.cfg latency of each hop of its route: on a DGX A100
 * GPU 0 -> NVSwitch -> GPU 1 is two NVLink3 hops of 0.5 us. Send/recv runs
 * Simple (base 8.4 us); a two-rank broadcast forced to LL has base 3.6 us. */
START_TEST(pair_latency_per_hop)
{
	int nvl = hw_catalog_find_link(cat, "nvlink3");
	ck_assert_int_ge(nvl, 0);
	double hop = hw_catalog_link(cat, (size_t)nvl)->lat_s;
	ck_assert_double_eq_tol(hop, 0.5e-6, 1e-15);
	struct coll_plan p;
	time_one("dgx-a100-80gb", 1, 0, NET_CLASS, COLL_SEND_RECV, 2, 8.0, COLL_PROTO_AUTO, &p);
	ck_assert_double_eq_tol(p.latency_s, 8.4e-6 + 2.0 * 0.5e-6, 1e-12);
	time_one("dgx-a100-80gb", 1, 0, NET_CLASS, COLL_BROADCAST, 2, 8.0, COLL_PROTO_LL, &p);
	ck_assert_double_eq_tol(p.latency_s, 3.6e-6 + 2.0 * 0.5e-6, 1e-12);
	/* three ranks: NCCL's per-step table, 3.6 + 3 x 0.47 us */
	time_one("dgx-a100-80gb", 1, 0, NET_CLASS, COLL_BROADCAST, 3, 8.0, COLL_PROTO_LL, &p);
	ck_assert_double_eq_tol(p.latency_s, (3.6 + 3.0 * 0.47) * 1e-6, 1e-12);
}
END_TEST

/* The distributed optimizer's reduce-scatter at scale: a data-parallel group
 * of one GPU per node (TP 8 fills each node, as in Llama 3 405B's DP 128)
 * runs NCCL's ring, the only reduce-scatter algorithm without NVLS or
 * CollNet, whose latency grows with the group: n - 1 network steps. 8 KiB
 * picks LL (NCCL tuning.cc: base 3.6 us, 2.7 us per network step against
 * LL128's 10 + 4.0 per step): 3.6 + 127 x 2.7 = 346.5 us at 128 nodes, and
 * 3.6 + 511 x 2.7 = 1383.3 us at 512. Each is simulated whole: the
 * collective ends after its latency plus its 8 KiB at LL's rate. */
START_TEST(dp_reduce_scatter_at_scale)
{
	static const struct {
		uint32_t nodes;
		double lat_us;
	} cs[] = {{128, 3.6 + 127 * 2.7}, {512, 3.6 + 511 * 2.7}};
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		struct world w;
		world_init(&w, "dgx-h100", cs[i].nodes, 0, NET_FULL);
		uint32_t ranks[1024];
		for (uint32_t r = 0; r < cs[i].nodes; r++)
			ranks[r] = r * hw_cluster_gpus_per_node(w.c);
		struct coll_plan p =
		    start(&w, COLL_REDUCE_SCATTER, cs[i].nodes, 8192.0, COLL_PROTO_AUTO, 0, ranks);
		ck_assert_int_eq(p.algo, COLL_ALGO_RING);
		ck_assert_int_eq(p.proto, COLL_PROTO_LL);
		ck_assert_uint_eq(p.nodes, cs[i].nodes);
		ck_assert_msg(fabs(p.latency_s - cs[i].lat_us * 1e-6) < 1e-12, "%u nodes: %.3f us",
			      cs[i].nodes, p.latency_s * 1e6);
		fluid_run(w.f, TS_TIME_MAX);
		ck_assert_int_eq(w.ndone, 1);
		double t = ts_time_to_s(w.end[0]);
		ck_assert_msg(t > p.latency_s && t < p.latency_s + 8192.0 / p.bus_Bps * 4.0 + 1e-9,
			      "%u nodes: %.3f us", cs[i].nodes, t * 1e6);
		world_fini(&w);
	}
}
END_TEST

/* The cluster file aws-p3dn-24xlarge with its fabric line replaced, in a
 * temporary file (path into buf); the caller removes it. */
static const char *p3dn_with(const char *fabric, char *buf, size_t n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/configs/clusters/aws-p3dn-24xlarge.cfg", tu_root());
	FILE *fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	static char text[16384];
	size_t len = fread(text, 1, sizeof text - 1, fp);
	fclose(fp);
	text[len] = '\0';
	char *at = strstr(text, "\tfabric = {");
	ck_assert_ptr_nonnull(at);
	char out[16384];
	snprintf(out, sizeof out, "%.*s\t%s\n};\n", (int)(at - text), text, fabric);
	return tu_tmpfile("p3dn", out, buf, n);
}

/* NCCL's socket transport: a channel's connection between two nodes opens
 * socket_threads x socks_per_thread TCP flows, and EC2 caps each flow
 * (10 Gbit/s in a placement group, 5 outside). A ring edge carries busbw
 * bytes per second, so with one channel busbw = sockets x flow_cap by hand:
 * one socket at 10 Gbit/s gives 1.25 GB/s of a 100 GbE NIC, one at 5
 * Gbit/s 0.625; NCCL's 2 x 8 sockets on AWS lift the cap (20 GB/s) above
 * the NIC, which then sets busbw at 0.54 x 12.5 GB/s (eth-100g). 1 GiB,
 * ring Simple, 16 GPUs on 2 nodes: the latency term (about 0.4 ms of 0.3-3
 * s) stays under 0.2 %. Field report 15 (horovod#2581): nload saw about 10
 * Gbit/s of the 100 Gbit/s NIC. Without a cloud limit a flow still carries
 * at most one kernel TCP stream of the host, links.cfg's flow_cap of the
 * NIC's type (15 Gbit/s for eth-100g, ESnet's single-stream low end), and a
 * cloud limit above it leaves it so. */
START_TEST(socket_flow_cap_closed_form)
{
	static const struct {
		const char *fabric;
		double busbw;
	} caps[] = {
	    {"fabric = { topology = \"switch\"; flow_cap = \"10 Gbit/s\"; };", 1.25e9},
	    {"fabric = { topology = \"switch\"; flow_cap = \"5 Gbit/s\"; };", 0.625e9},
	    {"fabric = { topology = \"switch\"; flow_cap = \"10 Gbit/s\"; socket_threads = 2; "
	     "socks_per_thread = 2; };",
	     4.0 * 1.25e9},
	    {"fabric = { topology = \"switch\"; flow_cap = \"10 Gbit/s\"; socket_threads = 2; "
	     "socks_per_thread = 8; };",
	     0.54 * 12.5e9},
	    /* no cloud limit: one kernel TCP stream of the host, eth-100g's
	     * flow_cap 15 Gbit/s (links.cfg) = 1.875 GB/s, not the NIC's 6.75 */
	    {"fabric = { topology = \"switch\"; };", 1.875e9},
	    /* a cloud limit above the host's stream: the lower of the two */
	    {"fabric = { topology = \"switch\"; flow_cap = \"20 Gbit/s\"; };", 1.875e9},
	    /* 4 sockets x 15 Gbit/s = 7.5 GB/s: the NIC's 0.54 x 12.5 GB/s again */
	    {"fabric = { topology = \"switch\"; socket_threads = 4; };", 0.54 * 12.5e9},
	};
	double bytes = 1073741824.0;
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		char path[256];
		p3dn_with(caps[i].fabric, path, sizeof path);
		for (int mode = 0; mode < 2; mode++) {
			struct coll_plan p;
			double t = time_one(path, 2, 0, mode ? NET_FULL : NET_CLASS,
					    COLL_ALL_REDUCE, 16, bytes, COLL_PROTO_SIMPLE, &p);
			double bus = bytes / t * coll_bus_factor(COLL_ALL_REDUCE, 16);
			printf("p3dn %s: busbw %.4f GB/s, hand %.4f (plan %.4f, %s)\n",
			       caps[i].fabric, bus / 1e9, caps[i].busbw / 1e9, p.bus_Bps / 1e9,
			       coll_algo_name((enum coll_algo)p.algo));
			ck_assert_msg(tu_relerr(bus, caps[i].busbw) < 2e-3, "%g vs %g", bus,
				      caps[i].busbw);
			ck_assert_msg(tu_relerr(p.bus_Bps, caps[i].busbw) < 1e-9, "plan %g vs %g",
				      p.bus_Bps, caps[i].busbw);
		}
		unlink(path);
	}
	/* NCCL's MAX_SOCKETS: 16 threads x 8 sockets is refused at its key */
	char path[256];
	p3dn_with("fabric = { topology = \"switch\"; socket_threads = 16; socks_per_thread = 8; };",
		  path, sizeof path);
	struct hw_cluster_opts o = {.nodes = 2};
	struct hw_cluster *c = NULL;
	struct ts_error err;
	ck_assert_int_eq(hw_cluster_load(cat, path, &o, &c, &err), TS_ERANGE);
	ck_assert_ptr_nonnull(strstr(err.key, "cluster.fabric.socks_per_thread"));
	ck_assert_ptr_nonnull(strstr(err.msg, "128 sockets"));
	ck_assert_int_gt(err.line, 0);
	unlink(path);
}
END_TEST

/* A ring step between nodes over TCP costs the route's catalog latency where
 * it exceeds NCCL's table: on the Azure VMs (field report 11) the network
 * part of the route, NIC -> switch -> NIC, is 2 Ethernet hops of 25 us = 50
 * us, against NCCL's 2.7 us for LL. 8 ranks on 2 nodes, LL, 8 bytes: 3.6 us
 * base + 12 intra-node steps x 1.0 us (PCI) x 1.8 (LL across nodes) + 2
 * network steps x 50 us = 125.2 us. On InfiniBand the table stays (DGX A100,
 * 2 nodes: 2 HDR hops of 0.3 us < 2.7). */
START_TEST(tcp_step_latency)
{
	struct coll_plan p;
	time_one("azure-v100-25g", 2, 0, NET_CLASS, COLL_ALL_REDUCE, 8, 8.0, COLL_PROTO_LL, &p);
	ck_assert_int_eq(p.algo, COLL_ALGO_TREE); /* auto: the tree has fewer network steps */
	struct world w;
	world_init(&w, "azure-v100-25g", 2, 0, NET_CLASS);
	uint32_t r[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct coll_spec s = {.op = COLL_ALL_REDUCE,
			      .ranks = r,
			      .nranks = 8,
			      .bytes = 8.0,
			      .mult = 2,
			      .algo = COLL_ALGO_RING,
			      .proto = COLL_PROTO_LL};
	struct ts_error err;
	ck_assert_int_eq(coll_plan(w.cc, &s, &p, &err), 0);
	ck_assert_double_eq_tol(p.latency_s, (3.6 + 12.0 * 1.0 * 1.8 + 2.0 * 50.0) * 1e-6, 1e-12);
	/* tree: 2 x ((4 - 1) x 1.0 x 1.8 + log2(2) x 50) + 4.4 base, LL */
	s.algo = COLL_ALGO_TREE;
	ck_assert_int_eq(coll_plan(w.cc, &s, &p, &err), 0);
	ck_assert_double_eq_tol(p.latency_s, (4.4 + 2.0 * (3.0 * 1.8 + 50.0)) * 1e-6, 1e-12);
	world_fini(&w);
	world_init(&w, "dgx-a100-80gb", 2, 0, NET_CLASS);
	uint32_t r16[16];
	for (uint32_t i = 0; i < 16; i++)
		r16[i] = i;
	s.ranks = r16;
	s.nranks = 16;
	s.algo = COLL_ALGO_RING;
	ck_assert_int_eq(coll_plan(w.cc, &s, &p, &err), 0);
	/* 3.6 + 28 x 0.47 x 1.8 + 2 x 2.7 us: NCCL's table */
	ck_assert_double_eq_tol(p.latency_s, (3.6 + 28.0 * 0.47 * 1.8 + 2.0 * 2.7) * 1e-6, 1e-12);
	world_fini(&w);
}
END_TEST

/* Without GPU peer-to-peer NCCL copies through host memory (its SHM
 * transport): the sender writes each byte into the socket's memory and the
 * receiver reads it out, two passes per byte of every ring edge. One EPYC
 * 7763 socket (8 x DDR4-3200, 204.8 GB/s, 0.77 of it for copies: 157.7
 * GB/s) with GPUs on its own PCIe 4 x16 root ports: with peer-to-peer the
 * ring runs at 0.89 x 31.5 = 28.0 GB/s per edge either way; without it, 2
 * GPUs put 2 edges x 2 passes x 28.0 = 112 GB/s on the memory, below its
 * 157.7, and still run at 28.0, but 8 GPUs need 8 x 2 x busbw <= 157.7:
 * busbw = 9.856 GB/s. A socket without memory_bandwidth takes the
 * host-memory type's 204.8 GB/s. (Before, the bounce through the cpu cost
 * nothing on one root complex: 28.0 GB/s either way.) */
START_TEST(shm_through_host_memory)
{
	const char *text = "cluster = { name = \"one-root\"; nodes = 1; node = {\n"
			   "  p2p = %s;\n"
			   "  devices = ( { name = \"gpu\"; kind = \"gpu\"; type = \"RTX-4090\"; "
			   "count = 8; },\n"
			   "    { name = \"cpu\"; kind = \"cpu\"; %s } );\n"
			   "  links = ( { a = \"gpu\"; b = \"cpu\"; type = \"pcie4-x16\"; } ); };\n"
			   "  fabric = { topology = \"none\"; }; };\n";
	static const struct {
		const char *p2p, *mem;
		uint32_t n;
		double busbw;
	} cases[] = {
	    {"true", "memory_bandwidth = \"204.8 GB/s\";", 8, 0.89 * 31.5e9},
	    {"false", "memory_bandwidth = \"204.8 GB/s\";", 2, 0.89 * 31.5e9},
	    {"false", "memory_bandwidth = \"204.8 GB/s\";", 8, 204.8e9 * 0.77 / 16.0},
	    {"false", "", 8, 204.8e9 * 0.77 / 16.0},
	};
	double bytes = 1073741824.0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char file[1024], path[256];
		snprintf(file, sizeof file, text, cases[i].p2p, cases[i].mem);
		tu_tmpfile("oneroot", file, path, sizeof path);
		char cfg[300];
		snprintf(cfg, sizeof cfg, "%s.cfg", path);
		ck_assert_int_eq(rename(path, cfg), 0);
		for (int mode = 0; mode < 2; mode++) {
			double t = time_one(cfg, 1, 0, mode ? NET_FULL : NET_CLASS, COLL_ALL_REDUCE,
					    cases[i].n, bytes, COLL_PROTO_SIMPLE, NULL);
			double bus = bytes / t * coll_bus_factor(COLL_ALL_REDUCE, cases[i].n);
			printf("one root, p2p %s, %s %u GPUs: busbw %.3f GB/s, hand %.3f\n",
			       cases[i].p2p, cases[i].mem, cases[i].n, bus / 1e9,
			       cases[i].busbw / 1e9);
			ck_assert_msg(tu_relerr(bus, cases[i].busbw) < 2e-3, "%g vs %g", bus,
				      cases[i].busbw);
		}
		unlink(cfg);
	}
}
END_TEST

/* Consumer NVLink bridges: a TU102 pair (RTX 2080 Ti, TITAN RTX) has 2
 * NVLink2 links, 50 GB/s per direction, a GA102 pair (RTX 3090, A6000) four
 * x4 NVLink3 links, 56.25 GB/s; at NVLink's 0.72 two ranks reach 36.0 and
 * 40.5 GB/s busbw (= algbw). NCCL_P2P_DISABLE (p2p = false) leaves the
 * bridge for host memory over each GPU's PCIe: 0.89 x 15.75 = 14.0 GB/s
 * on PCIe 3 (the TU102 cards), 0.89 x 31.5 = 28.0 on PCIe 4, both under
 * the memory's 157.7 / (2 edges x 2 passes) = 39.4 GB/s. Field report 20
 * (GPT-2 on 2 TITAN RTX: 101 s with NVLink, 131 s without) lost its
 * bridge the same way. */
START_TEST(consumer_nvlink_bridges)
{
	static const struct {
		const char *gpu, *bridge, *pcie, *p2p;
		double busbw;
	} pairs[] = {
	    {"RTX-2080-Ti", "nvlink-bridge-tu102", "pcie3-x16", "true", 50e9 * 0.72},
	    {"RTX-3090", "nvlink-bridge-ga102", "pcie4-x16", "true", 56.25e9 * 0.72},
	    {"RTX-2080-Ti", "nvlink-bridge-tu102", "pcie3-x16", "false", 15.75e9 * 0.89},
	    {"RTX-3090", "nvlink-bridge-ga102", "pcie4-x16", "false", 31.5e9 * 0.89},
	};
	double bytes = 1073741824.0;
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		char file[1024], path[256], cfg[300];
		snprintf(
		    file, sizeof file,
		    "cluster = { name = \"pair\"; nodes = 1; node = { p2p = %s;\n"
		    "  devices = ( { name = \"gpu\"; kind = \"gpu\"; type = \"%s\"; count = 2; "
		    "},\n    { name = \"cpu\"; kind = \"cpu\"; } );\n"
		    "  links = ( { a = \"gpu[0]\"; b = \"gpu[1]\"; type = \"%s\"; },\n"
		    "    { a = \"gpu\"; b = \"cpu\"; type = \"%s\"; } ); };\n"
		    "  fabric = { topology = \"none\"; }; };\n",
		    pairs[i].p2p, pairs[i].gpu, pairs[i].bridge, pairs[i].pcie);
		tu_tmpfile("pair", file, path, sizeof path);
		snprintf(cfg, sizeof cfg, "%s.cfg", path);
		ck_assert_int_eq(rename(path, cfg), 0);
		double t = time_one(cfg, 1, 0, NET_FULL, COLL_ALL_REDUCE, 2, bytes,
				    COLL_PROTO_SIMPLE, NULL);
		double bus = bytes / t;
		printf("%s pair, %s, p2p %s: busbw %.2f GB/s, hand %.2f\n", pairs[i].gpu,
		       pairs[i].bridge, pairs[i].p2p, bus / 1e9, pairs[i].busbw / 1e9);
		ck_assert_msg(tu_relerr(bus, pairs[i].busbw) < 1e-3, "%g vs %g", bus,
			      pairs[i].busbw);
		unlink(cfg);
	}
}
END_TEST

/* A workstation's own memory rate: the buyers-guide workstation (2 x RTX
 * 3090 on PCIe 4, p2p off) on a desktop CPU with two channels of DDR4-3200,
 * 2 x 3200 MT/s x 8 B = 51.2 GB/s (examples/buyers-guide/workstation.cfg),
 * at STREAM's 0.77 is 39.4 GB/s, crossed twice by each of the ring's two
 * edges: 9.86 GB/s busbw, below PCIe 4's 28.0, which it was with the server
 * default (204.8 GB/s: 157.7 / 4 = 39.4 > 28.0). The TITAN RTX pair of
 * titan-rtx-x2-nvlink, the same memory, PCIe 3: 9.86 < 14.0. */
START_TEST(workstation_memory_bandwidth)
{
	static const struct {
		const char *gpu, *pcie, *mem;
		double busbw;
	} c[] = {
	    {"RTX-3090", "pcie4-x16", "51.2 GB/s", 51.2e9 * 0.77 / 4.0},
	    {"RTX-3090", "pcie4-x16", "204.8 GB/s", 31.5e9 * 0.89},
	    {"TITAN-RTX", "pcie3-x16", "51.2 GB/s", 51.2e9 * 0.77 / 4.0},
	};
	double bytes = 1073741824.0;
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char file[1024], path[256], cfg[300];
		snprintf(
		    file, sizeof file,
		    "cluster = { name = \"ws\"; nodes = 1; node = { p2p = false;\n"
		    "  devices = ( { name = \"gpu\"; kind = \"gpu\"; type = \"%s\"; count = 2; "
		    "},\n    { name = \"cpu\"; kind = \"cpu\"; memory_bandwidth = \"%s\"; } "
		    ");\n"
		    "  links = ( { a = \"gpu\"; b = \"cpu\"; type = \"%s\"; } ); };\n"
		    "  fabric = { topology = \"none\"; }; };\n",
		    c[i].gpu, c[i].mem, c[i].pcie);
		tu_tmpfile("ws", file, path, sizeof path);
		snprintf(cfg, sizeof cfg, "%s.cfg", path);
		ck_assert_int_eq(rename(path, cfg), 0);
		double t = time_one(cfg, 1, 0, NET_FULL, COLL_ALL_REDUCE, 2, bytes,
				    COLL_PROTO_SIMPLE, NULL);
		double bus = bytes / t;
		printf("%s pair, p2p off, memory %s: busbw %.2f GB/s, hand %.2f\n", c[i].gpu,
		       c[i].mem, bus / 1e9, c[i].busbw / 1e9);
		ck_assert_msg(tu_relerr(bus, c[i].busbw) < 1e-3, "%g vs %g", bus, c[i].busbw);
		unlink(cfg);
	}
}
END_TEST

/* Forced algorithms that cannot run say why. */
START_TEST(forced_algo_errors)
{
	struct world w;
	world_init(&w, "dgx-a100-80gb", 2, 0, NET_FULL);
	uint32_t r[16];
	for (uint32_t i = 0; i < 16; i++)
		r[i] = i;
	struct ts_error err;
	struct coll_spec s = {.op = COLL_ALL_REDUCE,
			      .ranks = r,
			      .nranks = 16,
			      .bytes = 8,
			      .mult = 1,
			      .algo = COLL_ALGO_NVLS};
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EUNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "nvls"));
	s.nranks = 8;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EUNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "SHARP"));
	s.nranks = 16;
	s.algo = COLL_ALGO_COLLNET;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EUNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "collnet"));
	s.algo = COLL_ALGO_TREE;
	s.op = COLL_ALL_GATHER;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EUNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "all_reduce only"));
	s.op = COLL_ALL_TO_ALL;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EUNSUPPORTED);
	s.algo = COLL_ALGO_AUTO;
	s.proto = COLL_PROTO_LL;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), TS_EUNSUPPORTED);
	world_fini(&w);
}
END_TEST

/* Two all-reduces on disjoint GPUs of the same two nodes
 * (GPUs 0-3 and 4-7 of each) with one NIC per node, which both rings cross
 * (its 24.25 GB/s is below every PCIe hop on the way): each takes about
 * twice as long as alone (bandwidth-bound: 1 GiB, Simple). */
START_TEST(contention_shared_nics)
{
	const double S = 1073741824.0;
	uint32_t ga[8] = {0, 1, 2, 3, 8, 9, 10, 11}, gb[8] = {4, 5, 6, 7, 12, 13, 14, 15};
	struct world w;
	world_init(&w, "dgx-a100-80gb", 2, 1, NET_FULL);
	struct coll_spec s = {.op = COLL_ALL_REDUCE,
			      .ranks = ga,
			      .nranks = 8,
			      .bytes = S,
			      .mult = 1,
			      .algo = COLL_ALGO_RING,
			      .proto = COLL_PROTO_SIMPLE,
			      .done = on_done,
			      .ctx = &w,
			      .arg = 0};
	struct ts_error err;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), 0);
	fluid_run(w.f, TS_TIME_MAX);
	double alone = ts_time_to_s(w.end[0]);
	world_fini(&w);
	world_init(&w, "dgx-a100-80gb", 2, 1, NET_FULL);
	s.ctx = &w;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), 0);
	s.ranks = gb;
	s.arg = 1;
	ck_assert_int_eq(coll_start(w.cc, &s, NULL, &err), 0);
	fluid_run(w.f, TS_TIME_MAX);
	for (int i = 0; i < 2; i++) {
		double ratio = ts_time_to_s(w.end[i]) / alone;
		printf("contention_shared_nics: all-reduce %d takes %.3f x its time alone\n", i,
		       ratio);
		ck_assert_msg(ratio > 1.9 && ratio < 2.1, "ratio %.3f", ratio);
	}
	world_fini(&w);
}
END_TEST

/* Time of a ring all-reduce of `bytes` over `ranks` alone (full mode), s. */
static double ring_over(const char *cluster, uint32_t nodes, const uint32_t *ranks, uint32_t n,
			double bytes)
{
	struct world w;
	world_init(&w, cluster, nodes, 0, NET_FULL);
	struct coll_spec s = {.op = COLL_ALL_REDUCE,
			      .ranks = ranks,
			      .nranks = n,
			      .bytes = bytes,
			      .mult = 1,
			      .algo = COLL_ALGO_RING,
			      .proto = COLL_PROTO_SIMPLE,
			      .done = on_done,
			      .ctx = &w};
	struct ts_error err;
	ck_assert_msg(coll_start(w.cc, &s, NULL, &err) == 0, "%s", err.msg);
	fluid_run(w.f, TS_TIME_MAX);
	ck_assert_int_eq(w.ndone, 1);
	double t = ts_time_to_s(w.end[0]);
	world_fini(&w);
	return t;
}

/* NCCL's PXN: under TP 4 on two DGX H100, the data-parallel group of TP
 * rank i holds GPUs i and i + 4 of each node (other sockets). Its ring has
 * a channel on NIC i and one on NIC i + 4; on each, one of the two GPUs
 * reaches the NIC only across the CPUs, so it goes over NVLink to the GPU
 * on that NIC instead. The four groups then use the eight NICs each
 * alone, and running all four at once takes each no longer than alone
 * (their NVLink ports are far from full). Through the CPUs the four would
 * share the sockets' link. Alone, a group's busbw is twice that of one GPU
 * per node (its two channels on two NICs, each NIC-bound). 4 GiB: latency
 * below 0.1 %. */
START_TEST(pxn_two_sockets)
{
	const double S = 4.0 * 1073741824.0;
	const uint32_t pair[2] = {0, 8};
	uint32_t grp[4][4];
	for (uint32_t i = 0; i < 4; i++) {
		grp[i][0] = i;
		grp[i][1] = i + 4;
		grp[i][2] = 8 + i;
		grp[i][3] = 12 + i;
	}
	double t2 = ring_over("dgx-h100", 2, pair, 2, S);
	double t4 = ring_over("dgx-h100", 2, grp[0], 4, S);
	double bus2 = S / t2 * 1.0, bus4 = S / t4 * 1.5;
	printf("pxn_two_sockets: busbw %.2f GB/s for GPUs 0,4 of two nodes, %.2f GB/s for "
	       "GPU 0 of two (x%.4f, want 2)\n",
	       bus4 / 1e9, bus2 / 1e9, bus4 / bus2);
	ck_assert_double_eq_tol(bus4 / bus2, 2.0, 2e-3);
	struct world w;
	world_init(&w, "dgx-h100", 2, 0, NET_FULL);
	struct ts_error err;
	for (uint32_t i = 0; i < 4; i++) {
		struct coll_spec s = {.op = COLL_ALL_REDUCE,
				      .ranks = grp[i],
				      .nranks = 4,
				      .bytes = S,
				      .mult = 1,
				      .algo = COLL_ALGO_RING,
				      .proto = COLL_PROTO_SIMPLE,
				      .done = on_done,
				      .ctx = &w,
				      .arg = i};
		ck_assert_msg(coll_start(w.cc, &s, NULL, &err) == 0, "%s", err.msg);
	}
	fluid_run(w.f, TS_TIME_MAX);
	ck_assert_int_eq(w.ndone, 4);
	for (uint32_t i = 0; i < 4; i++) {
		double ratio = ts_time_to_s(w.end[i]) / t4;
		printf("pxn_two_sockets: group %u of 4 at once takes %.4f x its time alone\n", i,
		       ratio);
		ck_assert_double_eq_tol(ratio, 1.0, 2e-3);
	}
	world_fini(&w);
}
END_TEST

/* Grace-Blackwell trays: each Grace CPU serves two GPUs over NVLink-C2C and
 * carries their two NICs on PCIe 5 (the GB200 NVL72 compute tray: two Grace,
 * four B200, the ConnectX NICs on the Graces' PCIe). A pipeline send from GPU
 * 4 of node 0 to GPU 0 of node 1 crosses rails: NIC 4 of node 1 hangs off the
 * Grace of GPUs 4 and 5, which reaches GPU 0 only through another GPU (no
 * forwarding), so NCCL sends each end through its own NIC and the traffic
 * meets on the switch. That route exists and has the same bottleneck as the
 * on-rail send from GPU 0 to GPU 8 (one NDR NIC a side): the two take the
 * same time to within the one extra hop's latency (1 GiB: under 1e-4). */
START_TEST(nics_behind_grace_cross_rail)
{
	const char *cfg =
	    "cluster = { name = \"gb-tray\"; nodes = 1; node = { p2p = true; devices = ("
	    "{ name = \"g\"; kind = \"gpu\"; type = \"GB200\"; count = 8; },"
	    "{ name = \"s\"; kind = \"nvswitch\"; sharp = true; },"
	    "{ name = \"c\"; kind = \"cpu\"; count = 4; cores = 72; },"
	    "{ name = \"n\"; kind = \"nic\"; type = \"ib-ndr\"; count = 8; } );"
	    "links = ( { a = \"g\"; b = \"s\"; type = \"nvlink5\"; },"
	    "{ a = \"g\"; b = \"c\"; type = \"nvlink-c2c\"; },"
	    "{ a = \"n\"; b = \"c\"; type = \"pcie5-x16\"; } ); };"
	    "fabric = { topology = \"switch\"; }; };\n";
	char path[512];
	tu_tmpfile("gbtray", cfg, path, sizeof path);
	const double S = 1073741824.0;
	const uint32_t on_rail[2] = {0, 8}, cross[2] = {4, 8};
	double t[2];
	for (int k = 0; k < 2; k++) {
		struct world w;
		world_init(&w, path, 2, 0, NET_FULL);
		struct coll_spec s = {.op = COLL_BROADCAST,
				      .ranks = k ? cross : on_rail,
				      .nranks = 2,
				      .bytes = S,
				      .mult = 1,
				      .done = on_done,
				      .ctx = &w};
		struct ts_error err = {0};
		ck_assert_msg(coll_start(w.cc, &s, NULL, &err) == 0, "%s", err.msg);
		fluid_run(w.f, TS_TIME_MAX);
		ck_assert_int_eq(w.ndone, 1);
		t[k] = ts_time_to_s(w.end[0]);
		world_fini(&w);
	}
	printf("nics_behind_grace: GPU 0 -> 8 %.6f s, GPU 4 -> 8 %.6f s\n", t[0], t[1]);
	ck_assert_msg(tu_relerr(t[1], t[0]) < 1e-4, "%g vs %g", t[1], t[0]);
	unlink(path);
}
END_TEST

/* A send/recv between GPU 0 of two nodes with one NIC each
 * runs during a data-parallel all-reduce over all 16 GPUs. On the NIC the
 * ring carries 2(n-1)/n = 1.875 bytes per byte and the send/recv 1; max-min
 * sharing gives both the same rate r, 2.875 r = NIC rate, so the all-reduce
 * takes 2.875 / 1.875 of its time alone (the NIC is its bottleneck). */
START_TEST(contention_nic_share)
{
	const double S = 1073741824.0;
	uint32_t all[16], pair[2] = {0, 8};
	for (uint32_t i = 0; i < 16; i++)
		all[i] = i;
	struct coll_plan p;
	double alone = time_algo("dgx-a100-80gb", 2, 1, NET_FULL, COLL_ALL_REDUCE, 16, S,
				 COLL_ALGO_RING, COLL_PROTO_SIMPLE, &p);
	double lat = ts_time_to_s(ts_time_from_s(p.latency_s));
	struct world w;
	world_init(&w, "dgx-a100-80gb", 2, 1, NET_FULL);
	struct coll_spec s = {.op = COLL_SEND_RECV,
			      .ranks = pair,
			      .nranks = 2,
			      .bytes = 8.0 * S,
			      .mult = 1,
			      .done = on_done,
			      .ctx = &w,
			      .arg = 1};
	struct ts_error err;
	struct coll_plan ps;
	ck_assert_int_eq(coll_start(w.cc, &s, &ps, &err), 0);
	/* start the all-reduce once the send/recv's latency is over */
	fluid_run(w.f, ts_time_from_s(ps.latency_s));
	ts_time t0 = evq_now(w.q);
	struct coll_spec a = {.op = COLL_ALL_REDUCE,
			      .ranks = all,
			      .nranks = 16,
			      .bytes = S,
			      .mult = 1,
			      .algo = COLL_ALGO_RING,
			      .proto = COLL_PROTO_SIMPLE,
			      .done = on_done,
			      .ctx = &w,
			      .arg = 0};
	ck_assert_int_eq(coll_start(w.cc, &a, NULL, &err), 0);
	fluid_run(w.f, TS_TIME_MAX);
	double shared = ts_time_to_s(w.end[0] - t0);
	double ratio = (shared - lat) / (alone - lat);
	printf("contention_nic_share: the all-reduce takes %.4f x its time alone (want %.4f)\n",
	       ratio, 2.875 / 1.875);
	ck_assert_double_eq_tol(ratio, 2.875 / 1.875, 1e-3);
	ck_assert_int_gt(w.end[1], w.end[0]);
	world_fini(&w);
}
END_TEST

/* coll_meter, the one way to time a lone collective: one meter run after
 * another gives each size the time a fresh stack gives it (the engine is
 * idle again between runs); ranks that do not fill whole nodes run in full
 * mode; a collective past the clock's range is TS_ELIMIT, not a time. */
START_TEST(meter_reuse_modes_and_overflow)
{
	struct hw_cluster_opts o = {.nodes = 2};
	struct hw_cluster *c;
	struct ts_error err;
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &c, &err), 0);
	struct coll_meter *m;
	ck_assert_int_eq(coll_meter_create(&m, c, 16, NET_CLASS, &err), 0);
	ck_assert_int_eq(coll_meter_mode(m), NET_CLASS);
	const double sizes[] = {8.0, 1048576.0, 1073741824.0, 8.0};
	for (size_t k = 0; k < 4; k++) {
		double t = -1.0, want;
		struct coll_plan p;
		ck_assert_int_eq(coll_meter_run(m, COLL_ALL_REDUCE, sizes[k], COLL_ALGO_AUTO,
						COLL_PROTO_SIMPLE, &p, &t, &err),
				 0);
		want = time_one("dgx-a100-80gb", 2, 0, NET_CLASS, COLL_ALL_REDUCE, 16, sizes[k],
				COLL_PROTO_SIMPLE, NULL);
		ck_assert_msg(t == want, "size %.0f: meter %.12g s, fresh stack %.12g s", sizes[k],
			      t, want);
	}
	coll_meter_destroy(m);
	ck_assert_int_eq(coll_meter_create(&m, c, 12, NET_CLASS, &err), 0);
	ck_assert_int_eq(coll_meter_mode(m), NET_FULL);
	double t = 0.0;
	ck_assert_int_eq(coll_meter_run(m, COLL_ALL_REDUCE, 1e30, COLL_ALGO_AUTO, COLL_PROTO_AUTO,
					NULL, &t, &err),
			 TS_ELIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "292 years"));
	coll_meter_destroy(m);
	ck_assert_int_eq(coll_meter_create(&m, c, 0, NET_CLASS, &err), TS_ERANGE);
	ck_assert_int_eq(coll_meter_create(&m, c, 17, NET_CLASS, &err), TS_ERANGE);
	ck_assert_ptr_null(m);
	hw_cluster_destroy(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("coll");
	TCase *tc = tu_tcase("core");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, bus_factors);
	tcase_add_test(tc, ring_allreduce_closed_form);
	tcase_add_test(tc, ring_allreduce_ll128_closed_form);
	tcase_add_test(tc, ring_matches_step_oracle);
	tcase_add_test(tc, class_equals_full);
	tcase_add_test(tc, class_equals_full_oversubscribed_tree);
	tcase_add_test(tc, contention_doubles);
	tcase_add_test(tc, repeated_equals_back_to_back);
	tcase_add_test(tc, protocol_by_size);
	tcase_add_test(tc, bad_specs);
	tcase_add_test(tc, nccl_tests_rows);
	tcase_add_test(tc, class_equals_full_other_algos);
	tcase_add_test(tc, tree_two_nodes_closed_form);
	tcase_add_test(tc, tree_priced_from_ring);
	tcase_add_test(tc, nvls_closed_form);
	tcase_add_test(tc, algorithm_by_size);
	tcase_add_test(tc, pair_latency_per_hop);
	tcase_add_test(tc, dp_reduce_scatter_at_scale);
	tcase_add_test(tc, forced_algo_errors);
	tcase_add_test(tc, socket_flow_cap_closed_form);
	tcase_add_test(tc, tcp_step_latency);
	tcase_add_test(tc, shm_through_host_memory);
	tcase_add_test(tc, consumer_nvlink_bridges);
	tcase_add_test(tc, workstation_memory_bandwidth);
	tcase_add_test(tc, contention_shared_nics);
	tcase_add_test(tc, contention_nic_share);
	tcase_add_test(tc, pxn_two_sockets);
	tcase_add_test(tc, nics_behind_grace_cross_rail);
	tcase_add_test(tc, meter_reuse_modes_and_overflow);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
