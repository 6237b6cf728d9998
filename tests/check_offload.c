/* Optimizer offload to NVMe (ZeRO-Infinity): the swap of the optimizer
 * state against hand-computed drive times, the node's drives shared by its
 * GPUs, the swap hidden under a CPU-bound step, memory, and bad input.
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

/* local-nvme of configs/hardware/storage.cfg (Samsung PM1733): 7,000 MB/s
 * read, 3,800 MB/s write, one drive per node */
#define RD 7e9
#define WR 3.8e9

struct osim {
	struct hw_cluster *c;
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_net *net;
	struct ts_coll *cc;
	struct ts_graph *g;
	struct layout l;
	struct pipe_built b;
};

/* ZeRO-1 with NVMe offload on `nodes` DGX A100 nodes using `gpn` GPUs each,
 * dp = all of them: one layer of `params` parameters (10 ms per pass, bf16
 * weights and gradients, 12 bytes of optimizer state per parameter), CPU
 * Adam at `cpu` parameters per second per rank, sub-groups of `sub`
 * parameters; two iterations. */
static void osim_run(struct osim *s, uint32_t nodes, uint32_t gpn, bool class_mode, double params,
		     double cpu, double sub)
{
	struct hw_cluster_opts o = {.nodes = nodes, .gpus_per_node = gpn};
	struct ts_error err;
	char buf[1024];
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &s->c, &err), 0);
	ck_assert_int_eq(evq_create(&s->q, 64), 0);
	ck_assert_int_eq(fluid_create(&s->f, s->q), 0);
	ck_assert_int_eq(net_create(&s->net, s->c, s->f, class_mode ? NET_CLASS : NET_FULL), 0);
	ck_assert_int_eq(coll_create(&s->cc, s->net), 0);
	ck_assert_int_eq(graph_create(&s->g, s->f, s->cc), 0);
	ck_assert_int_eq(layout_init(&s->l, 1, 1, nodes * gpn, 1, NULL, gpn, class_mode, &err), 0);
	static struct dp_unit u[3];
	u[0] = (struct dp_unit){.label = "embed", .layer = 0};
	u[1] = (struct dp_unit){.label = "layer",
				.fwd_s = 0.010,
				.dgrad_s = 0.010,
				.wgrad_s = 0.010,
				.act_cat = GRAPH_MEM_ACTIVATIONS,
				.layer = 1,
				.params = params,
				.grad_bytes = 2.0 * params};
	u[2] = (struct dp_unit){.label = "head", .layer = 2, .act_cat = GRAPH_MEM_LOGITS};
	struct pipe_job j = {.units = u,
			     .nunits = 3,
			     .gran = DP_GRAN_LAYER,
			     .sched = PIPE_1F1B,
			     .interleave = 1,
			     .m = 1,
			     .iterations = 2,
			     .lay = &s->l,
			     .zero = 1,
			     .weight_bpp = 2,
			     .gather_bpp = 2,
			     .grad_bpp = 2,
			     .optim_bpp = 12,
			     .reduce_bpp = 2,
			     .offload = true,
			     .net = s->net,
			     .cpu_adam_params_per_s = cpu,
			     .nvme = true,
			     .nvme_read_Bps = RD,
			     .nvme_write_Bps = WR,
			     .nvme_subgroup_params = sub};
	ck_assert_msg(pipe_build(s->g, s->f, &j, &s->b, &err) == 0, "%s",
		      ts_error_format(&err, buf, sizeof buf));
	ck_assert_msg(graph_run(s->g, &err) == 0, "%s", ts_error_format(&err, buf, sizeof buf));
}

static void osim_free(struct osim *s)
{
	pipe_built_free(&s->b);
	graph_destroy(s->g);
	coll_destroy(s->cc);
	net_destroy(s->net);
	fluid_destroy(s->f);
	evq_destroy(s->q);
	hw_cluster_destroy(s->c);
}

/* The optimizer step of class k in the last iteration, s: from the start
 * of its first NVMe read to the end of its step (the "optimizer end" mark);
 * *nreads receives the reads of that step. A class's streams are made one
 * after the other, so its read stream is the first "nvme read" after its
 * compute stream. */
static double step_s(const struct osim *s, uint32_t k, uint32_t *nreads)
{
	ts_time t0 = graph_rec(s->g, s->b.iter_end[0])->end, first = -1;
	uint32_t rs = s->b.compute[k] + 1, n = 0;
	while (rs < graph_nstreams(s->g) && strcmp(graph_stream_name(s->g, rs), "nvme read"))
		rs++;
	ck_assert_uint_lt(rs, graph_nstreams(s->g));
	const struct graph_rec *end = graph_rec(s->g, s->b.opt[k]);
	ck_assert_str_eq(end->label, "optimizer end");
	ck_assert_uint_eq(end->stream, s->b.compute[k]);
	for (uint32_t t = 0; t < graph_ntasks(s->g); t++) {
		const struct graph_rec *r = graph_rec(s->g, t);
		if (r->stream != rs || r->start < t0)
			continue;
		if (first < 0 || r->start < first)
			first = r->start;
		n++;
	}
	ck_assert(first >= 0);
	*nreads = n;
	return ts_time_to_s(end->end - first);
}

/* One A100 with its node's drive to itself, a 1e9-parameter shard: 1.2e10
 * bytes of state read and written, in four sub-groups of 2.5e8, CPU Adam
 * nearly free (1e15 parameters/s: 1 us in all). The drive is never idle
 * (every sub-group's read and write waits only for others on the drive),
 * so the step is (read + written) / bandwidth:
 * 1.2e10 / 7e9 + 1.2e10 / 3.8e9 = 1.714286 + 3.157895 = 4.872180 s. */
START_TEST(nvme_bound_one_gpu)
{
	struct osim s = {0};
	osim_run(&s, 1, 1, true, 1e9, 1e15, 2.5e8);
	uint32_t n;
	double got = step_s(&s, 0, &n), want = 1.2e10 / RD + 1.2e10 / WR;
	ck_assert_uint_eq(n, 4);
	ck_assert_msg(tu_relerr(got, want) < 1e-5, "step %.6f s, expected %.6f s", got, want);
	/* the GPU holds no optimizer state; weights and gradients stay */
	double at[GRAPH_MEM_COUNT_];
	graph_pool_peak(s.g, s.b.pool[0], at);
	ck_assert(at[GRAPH_MEM_OPTIMIZER] == 0.0);
	ck_assert(at[GRAPH_MEM_WEIGHTS] == 2e9 && at[GRAPH_MEM_GRADIENTS] == 2e9);
	osim_free(&s);
}
END_TEST

/* k GPUs of one node share its drive: each with the same 1e9-parameter
 * shard (4e9 parameters over dp = 4), all step at once, so each step takes
 * k = 4 times the one-GPU 4.872180 s = 19.488722 s; on two nodes of two
 * GPUs (dp = 4 again) each drive serves two, 9.744361 s. Class mode (on
 * two nodes: two classes of two members over one group of two alike
 * nodes) and full mode alike. */
START_TEST(nvme_shared_by_node)
{
	double one = 1.2e10 / RD + 1.2e10 / WR;
	static const struct {
		uint32_t nodes, gpn, share;
	} cases[] = {{1, 4, 4}, {2, 2, 2}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (int cm = 0; cm < 2; cm++) {
			struct osim s = {0};
			osim_run(&s, cases[i].nodes, cases[i].gpn, cm, 4e9, 1e15, 2.5e8);
			for (uint32_t k = 0; k < s.b.nclasses; k++) {
				uint32_t n;
				double got = step_s(&s, k, &n), want = cases[i].share * one;
				ck_assert_uint_eq(n, 4);
				ck_assert_msg(tu_relerr(got, want) < 1e-4,
					      "%u x %u GPUs, %s mode, class %u: step %.6f s, "
					      "expected %.6f s",
					      cases[i].nodes, cases[i].gpn, cm ? "class" : "full",
					      k, got, want);
			}
			osim_free(&s);
		}
}
END_TEST

/* CPU-bound: one GPU, 1e9 parameters in four sub-groups of 2.5e8, CPU Adam
 * at 1e8 parameters/s (2.5 s per sub-group). Each read takes 3e9 / 7e9 =
 * 0.428571 s, each write 3e9 / 3.8e9 = 0.789474 s; all but the first read
 * and the last write run under a CPU step, so the step takes
 * 0.428571 + 4 x 2.5 + 0.789474 = 11.218045 s (with no overlap it would
 * take 4.872180 + 10 = 14.872180 s). */
START_TEST(nvme_hidden_under_cpu)
{
	struct osim s = {0};
	osim_run(&s, 1, 1, true, 1e9, 1e8, 2.5e8);
	uint32_t n;
	double got = step_s(&s, 0, &n), want = 3e9 / RD + 4 * 2.5 + 3e9 / WR;
	ck_assert_uint_eq(n, 4);
	ck_assert_msg(tu_relerr(got, want) < 1e-6, "step %.6f s, expected %.6f s", got, want);
	osim_free(&s);
}
END_TEST

static int load(const char *text, struct ts_scenario **sc)
{
	struct ts_error e;
	char buf[1024];
	int rc = ts_scenario_load_string(cat, text, "offload.cfg", NULL, 0, sc, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, buf, sizeof buf));
	return rc;
}

#define SCEN(extra)                                                                                \
	"name = \"t\"; model = \"llama2-7b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"           \
	"training = { framework = \"deepspeed\"; global_batch = 8; micro_batch = 1;\n"             \
	"  seq_len = 1024; iterations = 2; };\n" extra

/* A whole run: offload = "nvme" is no longer listed as not modelled, and
 * the GPU's memory breakdown holds no optimizer state where ZeRO-3 without
 * offload holds 12 bytes x 6.74e9 / 8 parameters of it. */
START_TEST(nvme_run_memory)
{
	static const char *const off[] = {"none", "nvme"};
	double optim[2];
	for (int i = 0; i < 2; i++) {
		char text[1024];
		snprintf(text, sizeof text, SCEN("parallel = { zero = 3; offload = \"%s\"; };\n"),
			 off[i]);
		struct ts_scenario *sc = NULL;
		load(text, &sc);
		char nm[512];
		ts_scenario_not_modelled(sc, nm, sizeof nm);
		ck_assert_msg(!strstr(nm, "offload"), "not modelled: %s", nm);
		struct ts_result r;
		struct ts_error e;
		char buf[1024];
		ck_assert_msg(ts_run(sc, &calib, &r, NULL, &e) == 0, "%s",
			      ts_error_format(&e, buf, sizeof buf));
		optim[i] = r.mem.optimizer;
		ts_scenario_destroy(sc);
	}
	ck_assert_msg(optim[0] > 9e9 && optim[0] < 11e9, "%g", optim[0]);
	ck_assert(optim[1] == 0.0);
}
END_TEST

/* Bad input: NVMe offload without ZeRO or below stage 3, and on a storage with no local
 * drive to write to (a shared file system; a hard disk has no write
 * bandwidth in the catalog), each an error naming the key and its line. */
START_TEST(nvme_bad_input)
{
	static const struct {
		const char *par, *data, *key, *found;
		int line;
	} cases[] = {
	    {"parallel = { zero = 0; offload = \"nvme\"; };\n", "", "parallel.offload",
	     "found \"nvme\" with parallel.zero = 0", 4},
	    {"parallel = { zero = 2; offload = \"nvme\"; };\n", "", "parallel.offload",
	     "found \"nvme\" with parallel.zero = 2, expected zero = 3", 4},
	    {"parallel = { zero = 3; offload = \"nvme\"; };\n",
	     "data = { storage = \"lustre\"; };\n", "data.storage",
	     "found \"lustre\" with parallel.offload = \"nvme\"", 5},
	    {"parallel = { zero = 3; offload = \"nvme\"; };\n",
	     "data = { storage = \"local-hdd\"; };\n", "data.storage",
	     "found \"local-hdd\" with parallel.offload = \"nvme\"", 5},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[1024];
		snprintf(text, sizeof text, SCEN("%s%s"), cases[i].par, cases[i].data);
		struct ts_scenario *sc = NULL;
		load(text, &sc);
		struct ts_result r;
		struct ts_error e = {0};
		int rc = ts_run(sc, &calib, &r, NULL, &e);
		ck_assert_int_eq(rc, TS_EINVALID);
		ck_assert_str_eq(e.key, cases[i].key);
		ck_assert_int_eq(e.line, cases[i].line);
		ck_assert_msg(strstr(e.msg, cases[i].found), "%s", e.msg);
		ts_scenario_destroy(sc);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("offload");
	TCase *tc = tu_tcase("offload");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, nvme_bound_one_gpu);
	tcase_add_test(tc, nvme_shared_by_node);
	tcase_add_test(tc, nvme_hidden_under_cpu);
	tcase_add_test(tc, nvme_run_memory);
	tcase_add_test(tc, nvme_bad_input);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
