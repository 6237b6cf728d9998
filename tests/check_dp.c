/* Data-parallel training, the one-stage case of the schedule builder
 * (sim/par/pipe.h): bucket order, overlap (only the tail bucket is exposed
 * when backward outlasts communication), no overlap (every bucket exposed),
 * the optimizer step after the last reduction, gradient accumulation,
 * granularity levels, class mode equal to full mode, memory fit, and the
 * breakdown summing to the iteration time.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

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
#include "plan/env.h"
#include "plan/plan.h"
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

/* PyTorch DDP's rule on units of 10, 30, 5, 40 and 20 bytes (forward
 * order) with a 25-byte cap and a 10-byte first bucket: reverse order gives
 * [20] (>= 10 closes the first), [40] (alone: bigger than the cap), [5, 30]
 * (35 >= 25), [10] (left over). */
START_TEST(bucket_order)
{
	struct dp_unit u[5] = {{.grad_bytes = 10},
			       {.grad_bytes = 30},
			       {.grad_bytes = 5},
			       {.grad_bytes = 40},
			       {.grad_bytes = 20}};
	uint32_t b[5];
	ck_assert_uint_eq(dp_assign_buckets(u, 5, 25.0, 10.0, b), 4);
	uint32_t want[5] = {3, 2, 2, 1, 0};
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(b[i], want[i]);
	/* cap 0: one bucket */
	ck_assert_uint_eq(dp_assign_buckets(u, 5, 0.0, 0.0, b), 1);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(b[i], 0);
}
END_TEST

/* A synthetic DP job on one DGX A100: 8 layers of 10 ms forward, dgrad and
 * wgrad each, 64 MiB of gradients per layer, one bucket per layer, and a
 * 1 ms optimizer step (2^20 parameters at 1 ms / 2^20 each) of 4 kernels. */
struct synth {
	struct hw_cluster *c;
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_net *net;
	struct ts_coll *cc;
	struct ts_graph *g;
	struct layout lay;
	struct pipe_built b;
};

/* One DGX A100 80GB's cluster, event queue, fluid network and collectives
 * (no graph yet); undo with synth_net_fini. */
static void synth_net(struct synth *s)
{
	struct hw_cluster_opts o = {0};
	struct ts_error err;
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &s->c, &err), 0);
	ck_assert_int_eq(evq_create(&s->q, 64), 0);
	ck_assert_int_eq(fluid_create(&s->f, s->q), 0);
	ck_assert_int_eq(net_create(&s->net, s->c, s->f, NET_CLASS), 0);
	ck_assert_int_eq(coll_create(&s->cc, s->net), 0);
}

static void synth_net_fini(struct synth *s)
{
	coll_destroy(s->cc);
	net_destroy(s->net);
	fluid_destroy(s->f);
	evq_destroy(s->q);
	hw_cluster_destroy(s->c);
}

/* synth_net with a graph and the 8 GPUs as one data-parallel group of one
 * class; undo with synth_fini. */
static void synth_open(struct synth *s)
{
	struct ts_error err;
	synth_net(s);
	ck_assert_int_eq(graph_create(&s->g, s->f, s->cc), 0);
	ck_assert_int_eq(layout_init(&s->lay, 1, 1, 8, 1, NULL, 8, true, &err), 0);
}

static void synth_run(struct synth *s, bool overlap, uint32_t accum)
{
	struct ts_error err;
	synth_open(s);
	static struct dp_unit u[8];
	for (int i = 0; i < 8; i++)
		u[i] = (struct dp_unit){.label = "layer",
					.fwd_s = 0.010,
					.dgrad_s = 0.010,
					.wgrad_s = 0.010,
					.grad_bytes = 67108864.0,
					.act_bytes = 1e6,
					.act_cat = GRAPH_MEM_ACTIVATIONS,
					.layer = (uint16_t)(i + 1),
					.params = 131072.0};
	struct pipe_job j = {.units = u,
			     .nunits = 8,
			     .gran = DP_GRAN_LAYER,
			     .sched = PIPE_1F1B,
			     .interleave = 1,
			     .m = accum,
			     .iterations = 3,
			     .lay = &s->lay,
			     .ep = 1,
			     .bucket_bytes = 67108864.0,
			     .overlap = overlap,
			     .optimizer_s_per_param = 0.001 / 1048576.0,
			     /* the step's kernels are launched well ahead of the GPU,
			      * so it may only start once the gradients are reduced
			      * if the step itself, not its end, waits for them */
			     .optimizer_kernels = 4,
			     .launch_s = 1e-6};
	ck_assert_int_eq(pipe_build(s->g, s->f, &j, &s->b, &err), 0);
	ck_assert_int_eq(graph_run(s->g, &err), 0);
}

static void synth_fini(struct synth *s)
{
	pipe_built_free(&s->b);
	graph_destroy(s->g);
	synth_net_fini(s);
}

/* Duration of one collective over the 8 GPUs of a DGX A100 alone, ns. */
static ts_time one_coll_ns(enum coll_op op, double bytes)
{
	struct synth s;
	struct ts_error err;
	synth_net(&s);
	uint32_t ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct coll_spec cs = {.op = op, .ranks = ranks, .nranks = 8, .bytes = bytes, .mult = 1};
	ck_assert_int_eq(coll_start(s.cc, &cs, NULL, &err), 0);
	fluid_run(s.f, TS_TIME_MAX);
	ts_time t = evq_now(s.q);
	synth_net_fini(&s);
	return t;
}

/* Duration of one 64 MiB all-reduce over the 8 GPUs alone, ns. */
static ts_time one_bucket_ns(void)
{
	return one_coll_ns(COLL_ALL_REDUCE, 67108864.0);
}

static void window(struct synth *s, ts_time *w0, ts_time *w1)
{
	*w0 = graph_rec(s->g, s->b.iter_end[1])->end;
	*w1 = graph_rec(s->g, s->b.iter_end[2])->end;
}

/* Backward per layer (20 ms) outlasts a bucket's all-reduce (well under a
 * millisecond), so every bucket but the last hides behind backward: the
 * exposed communication is exactly one bucket's all-reduce. */
START_TEST(overlap_exposes_only_tail_bucket)
{
	ts_time one = one_bucket_ns();
	ck_assert_int_lt(one, 20000000);
	struct synth s;
	synth_run(&s, true, 1);
	ts_time w0, w1;
	window(&s, &w0, &w1);
	struct graph_breakdown bd;
	graph_breakdown(s.g, s.b.compute[0], w0, w1, &bd);
	ck_assert_int_eq(bd.wait[GRAPH_COMM], one);
	/* 8 x 30 ms of compute + the tail bucket + 1 ms optimizer after it */
	ck_assert_int_eq(w1 - w0, 240000000 + 1000000 + one);
	ck_assert_int_eq(bd.busy[GRAPH_OPTIMIZER], 1000000);
	ck_assert_int_eq(bd.busy[GRAPH_COMPUTE], 240000000);
	synth_fini(&s);
}
END_TEST

/* Without overlap the eight all-reduces run back to back after backward. */
START_TEST(no_overlap_exposes_every_bucket)
{
	ts_time one = one_bucket_ns();
	struct synth s;
	synth_run(&s, false, 1);
	ts_time w0, w1;
	window(&s, &w0, &w1);
	struct graph_breakdown bd;
	graph_breakdown(s.g, s.b.compute[0], w0, w1, &bd);
	ck_assert_int_eq(bd.wait[GRAPH_COMM], 8 * one);
	ck_assert_int_eq(w1 - w0, 240000000 + 8 * one + 1000000);
	synth_fini(&s);
}
END_TEST

/* Gradient accumulation over 4 micro-batches: 4x the compute, gradients
 * reduced once (on the last micro-batch), so still one tail bucket. */
START_TEST(accumulation_syncs_once)
{
	ts_time one = one_bucket_ns();
	struct synth s;
	synth_run(&s, true, 4);
	ts_time w0, w1;
	window(&s, &w0, &w1);
	ck_assert_int_eq(w1 - w0, 4 * 240000000 + 1000000 + one);
	uint32_t comms = 0;
	for (uint32_t t = 0; t < graph_ntasks(s.g); t++)
		comms += graph_rec(s.g, t)->kind == GRAPH_COMM;
	ck_assert_uint_eq(comms, 3 * 8); /* 3 iterations x 8 buckets */
	synth_fini(&s);
}
END_TEST

static struct ts_result run_text(const char *text, const char *const *sets, size_t nsets)
{
	struct ts_scenario *sc;
	struct ts_error err;
	char buf[1400];
	if (ts_scenario_load_string(cat, text, "test", sets, nsets, &sc, &err))
		ck_abort_msg("scenario: %s", ts_error_format(&err, buf, sizeof buf));
	struct ts_result r;
	if (ts_run(sc, &calib, &r, NULL, &err))
		ck_abort_msg("run: %s", ts_error_format(&err, buf, sizeof buf));
	ts_scenario_destroy(sc);
	return r;
}

/* Field report 15 (horovod#2581): VGG-16 (138 M parameters, 553 MB of fp32
 * gradients a step) with Horovod's PyTorch synthetic benchmark on p3dn.24xlarge
 * (100 Gbit/s ENA), 1,531.9 images/s on 8 GPUs and 546.9 on 16 over 2 nodes;
 * nload showed about 10 Gbit/s in use. Assumed: the benchmark's default batch
 * of 32 per GPU, fp32, SGD; PyTorch 1.0's NCCL opening one socket per
 * connection (no AWS detection: socket_threads = socks_per_thread = 1), in a
 * cluster placement group (EC2: 10 Gbit/s per flow). The ring then moves 1.25
 * GB/s per edge: 2 x 15/16 x 553.4 MB / 1.25 GB/s = 0.83 s of all-reduce a
 * step, of which backward hides a little. Tolerance 10 %: the step is 70 %
 * exposed all-reduce, set by the flow limit; the rest is compute, which is the
 * known gap: one node is predicted at 875 images/s against 1,532 (cuDNN runs
 * VGG's 3x3 convolutions as Winograd transforms, about 2.25x fewer
 * multiplications, Lavin & Gray 2016, which the GEMM model does not count). */
START_TEST(field_report_15_vgg16_p3dn)
{
	const char *text =
	    "model = \"vgg16\";\n"
	    "cluster = { base = \"aws-p3dn-24xlarge\"; fabric = { socket_threads = 1; "
	    "socks_per_thread = 1; }; };\n"
	    "training = { framework = \"ddp\"; micro_batch = 32; precision = "
	    "\"fp32\"; optimizer = \"sgd\"; };\n";
	const char *one[] = {"nodes=1"}, *two[] = {"nodes=2"};
	struct ts_result r1 = run_text(text, one, 1), r2 = run_text(text, two, 1);
	printf("FR 15 VGG-16 on p3dn: 1 node %.1f images/s (measured 1531.9), 2 nodes %.1f "
	       "(measured 546.9, %+.1f %%), exposed all-reduce %.3f of %.3f s\n",
	       r1.samples_per_s, r2.samples_per_s, 100.0 * (r2.samples_per_s / 546.9 - 1.0),
	       r2.exposed_comm_s, r2.iteration_time_s);
	ck_assert_msg(tu_relerr(r2.samples_per_s, 546.9) < 0.10, "%g", r2.samples_per_s);
	ck_assert(r2.samples_per_s < r1.samples_per_s);
	/* the known gap, pinned: fails once one node comes within 15 % */
	ck_assert_msg(tu_relerr(r1.samples_per_s, 1531.9) > 0.15, "%g", r1.samples_per_s);
	/* with NCCL's 2 x 8 sockets on AWS the 100 GbE NIC sets the pace and 2 nodes
	 * beat one, as the report expected of a working fabric */
	const char *aws[] = {"nodes=2", "cluster.fabric.socket_threads=2",
			     "cluster.fabric.socks_per_thread=8"};
	struct ts_result r16 = run_text(text, aws, 3);
	printf("FR 15 with 2 x 8 sockets: %.1f images/s\n", r16.samples_per_s);
	ck_assert(r16.samples_per_s > r1.samples_per_s);
}
END_TEST

/* Field report 17 (fairseq#789, 2019): the IWSLT'14 de-en Transformer on
 * 2 machines of 4 TITAN X, about 38K words/s on one machine and 10K on two.
 * Not stated, assumed: the TITAN X is the Maxwell GM200 card (the cluster
 * file says why) and the machines share Gigabit Ethernet; fp32 and fairseq's
 * example batch of --max-tokens 4096, of which about 88 % are target words
 * (fairseq#70 logs wpb 3514 at 4000), taken as 56 x 64 = 3,584 target words
 * a GPU. transformer_iwslt_de_en (6 + 6 layers of width 512, FFN 1024, 4
 * heads; dictionaries of 8,848 and 6,632 words, decoder input and output
 * embeddings shared) has no encoder-decoder family here: 15 decoder blocks
 * stand in for the 12 layers plus 6 cross-attentions (half a block each),
 * and a 15,480-word tied vocabulary for both embeddings, which gives its
 * 39.4 M parameters (158 MB of fp32 gradients) and about its FLOPs per
 * target word when source and target are of equal length.
 * Two machines within 35 %: the network is assumed, and eth-1g's efficiency
 * (0.54, NCCL's socket transport on 25 GbE, field report 11) gives 6.8K
 * words/s where a single TCP stream filling a gigabit line would give about
 * 11K; the 35 % spans the two. One machine is a known gap, pinned: 51.7K
 * against 38K (fp32 GEMMs of width 512 on Maxwell at the assumed 0.80). */
START_TEST(field_report_17_fairseq_titan_x)
{
	const char *text =
	    "model = { base = \"gpt3-1.3b\"; layers = 15; hidden = 512; heads = 4; "
	    "ffn_hidden = 1024; vocab = 15480; seq_len = 64; };\n"
	    "cluster = \"titan-x-x4-1g\";\n"
	    "training = { framework = \"ddp\"; micro_batch = 56; precision = \"fp32\"; "
	    "optimizer = \"adam\"; };\n";
	const char *one[] = {"nodes=1"}, *two[] = {"nodes=2"};
	struct ts_result r1 = run_text(text, one, 1), r2 = run_text(text, two, 1);
	double w1 = r1.samples_per_s * 64.0, w2 = r2.samples_per_s * 64.0;
	printf("FR 17 fairseq on TITAN X: 1 machine %.0f words/s (measured 38000, %+.1f %%), "
	       "2 machines %.0f (measured 10000, %+.1f %%), exposed all-reduce %.3f of %.3f s\n",
	       w1, 100.0 * (w1 / 38000.0 - 1.0), w2, 100.0 * (w2 / 10000.0 - 1.0),
	       r2.exposed_comm_s, r2.iteration_time_s);
	ck_assert_msg(tu_relerr(w2, 10000.0) < 0.35, "%g", w2);
	/* the report's point: 2 machines well below one (3.8x measured) */
	ck_assert_msg(w2 * 2.0 < w1, "%g vs %g", w2, w1);
	/* the known gap, pinned: fails once one machine comes within 15 % */
	ck_assert_msg(tu_relerr(w1, 38000.0) > 0.15, "%g", w1);
}
END_TEST

/* Field report 20 (transformers#9371, January 2021): run_clm.py fine-tuning
 * gpt2 (12 layers, 768 wide, 12 heads, 1,024 tokens) on wikitext-2, fp32,
 * AdamW, on 2 TITAN RTX with an NVLink bridge. Assumed: per-device batch 4
 * and 200 steps, the arguments the Transformers multi-GPU performance notes
 * give with this table (not re-read here: the thread's excerpt read shows
 * the table only). Measured train_runtime: 1 GPU 102 s,
 * DDP 101 s, DDP with NCCL_P2P_DISABLE=1 131 s. Within 15 % for 1 GPU and
 * DDP over the bridge: the runtime includes the Trainer's per-step Python,
 * logging and data collation, not simulated (prediction about 8 % short).
 * Without peer-to-peer the gradients (498 MB) bounce through host memory at
 * 9.9 GB/s (two DDR4-3200 channels at STREAM's 0.77, two passes of two
 * edges), about 50 ms a step of which backward hides most: 2.9 % slower
 * where 30 % is measured. The known gap, pinned: 30 s over 200 steps is
 * 0.15 s a step, more than the whole all-reduce at the memory's rate; the
 * SHM transport of that NCCL (2.7/2.8) runs below it by a factor that no
 * source measures on such a box. */
START_TEST(field_report_20_gpt2_titan_rtx)
{
	const char *text =
	    "model = { base = \"gpt3-1.3b\"; layers = 12; hidden = 768; heads = 12; "
	    "seq_len = 1024; };\n"
	    "cluster = \"titan-rtx-x2-nvlink\";\n"
	    "training = { framework = \"ddp\"; micro_batch = 4; precision = \"fp32\"; "
	    "optimizer = \"adam\"; };\n";
	const char *one[] = {"gpus_per_node=1"}, *ddp[] = {"gpus_per_node=2"},
		   *nop2p[] = {"gpus_per_node=2", "cluster.node.p2p=false"};
	double t1 = 200.0 * run_text(text, one, 1).iteration_time_s;
	double t2 = 200.0 * run_text(text, ddp, 1).iteration_time_s;
	double t3 = 200.0 * run_text(text, nop2p, 2).iteration_time_s;
	printf("FR 20 GPT-2 on 2 TITAN RTX, 200 steps: 1 GPU %.1f s (measured 102, %+.1f %%), "
	       "DDP over NVLink %.1f s (101, %+.1f %%), without peer-to-peer %.1f s (131, %+.1f "
	       "%%), ratio %.3f (1.30)\n",
	       t1, 100.0 * (t1 / 102.0 - 1.0), t2, 100.0 * (t2 / 101.0 - 1.0), t3,
	       100.0 * (t3 / 131.0 - 1.0), t3 / t2);
	ck_assert_msg(tu_relerr(t1, 102.0) < 0.15, "%g", t1);
	ck_assert_msg(tu_relerr(t2, 101.0) < 0.15, "%g", t2);
	ck_assert(t3 > t2 && t2 >= t1);
	/* the known gap, pinned: fails once the run without the bridge comes
	 * within 15 % of its 131 s */
	ck_assert_msg(tu_relerr(t3, 131.0) > 0.15, "%g", t3);
}
END_TEST

/* Field report 22 (server-gear.com, tf_cnn_benchmarks ResNet-50 fp16 on 1
 * and 4 RTX 4090 without peer-to-peer): 4 GPUs scale 2.51x at batch 64
 * (1,688 -> 4,233 images/s) and 3.46x at batch 256 (1,776 -> 6,143). What
 * the measured step gains over one GPU (n x batch / rate - batch / rate1):
 * RTX 4090, 2 GPUs 8.4 ms, 4 GPUs 22.6 ms at batch 64 and 22.6 at 256; RTX
 * 3090, 2 GPUs 7.7 ms, 4 GPUs 29.2 (batch 64) and 23.4 (256), 8 GPUs 61.5.
 * It does not shrink with a longer backward (not hidden at all) and grows
 * with n - 1: about 2 (n - 1) S / B for S = 102 MB of fp32 gradients and B
 * = 28 GB/s (PCIe 4 at 0.89), 7.3, 21.9 and 51 ms, which is the cost of
 * gathering every gradient into one GPU and sending the result back; a
 * ring (2 (n - 1) / n S / B: 3.6, 5.5, 6.4 ms) cannot give it. The report
 * does not state the tool's variable_update, so the mechanism is not
 * modelled: trainsim overlaps DDP buckets with backward and exposes 0.2 ms
 * (3.95x and 3.96x); with overlap off a ring exposes 5.7 ms. The known gap,
 * pinned: fails once the batch-64 scaling comes within 15 % of 2.51. */
START_TEST(field_report_22_rtx4090_scaling)
{
	const char *text = "model = \"resnet50\"; cluster = \"rtx4090-x4\";\n"
			   "training = { framework = \"ddp\"; precision = \"fp16\"; "
			   "optimizer = \"sgd\"; };\n";
	static const struct {
		const char *batch;
		double one, four;
	} c[] = {{"training.micro_batch=64", 1688.0, 4233.0},
		 {"training.micro_batch=256", 1776.0, 6143.0}};
	double sc[2];
	for (int i = 0; i < 2; i++) {
		const char *a[] = {"gpus_per_node=1", c[i].batch},
			   *b[] = {"gpus_per_node=4", c[i].batch};
		struct ts_result r1 = run_text(text, a, 2), r4 = run_text(text, b, 2);
		sc[i] = r4.samples_per_s / r1.samples_per_s;
		printf(
		    "FR 22 RTX 4090 %s: 1 GPU %.0f images/s (measured %.0f), 4 GPUs %.0f (%.0f), "
		    "scaling %.2fx (measured %.2fx)\n",
		    c[i].batch, r1.samples_per_s, c[i].one, r4.samples_per_s, c[i].four, sc[i],
		    c[i].four / c[i].one);
		ck_assert(r4.samples_per_s > r1.samples_per_s);
	}
	ck_assert_msg(tu_relerr(sc[0], 4233.0 / 1688.0) > 0.15, "%g", sc[0]);
	/* the direction the report shows holds: small batch scales no better */
	ck_assert(sc[0] <= sc[1]);
}
END_TEST

static const char *gpt13 =
    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
    "training = { framework = \"megatron\"; global_batch = 512; micro_batch = 4;"
    " seq_len = 2048; precision = \"bf16\"; };\n"
    "parallel = { bucket = \"40 MiB\"; overlap_grad_reduce = true; };\n";

static double sum_parts(const struct ts_result *r)
{
	return r->compute_s + r->recompute_s + r->exposed_comm_s + r->bubble_s + r->data_stall_s +
	       r->optimizer_s + r->other_s;
}

/* The three granularities agree within 1 %: they differ only in where a
 * bucket's readiness is placed (op end vs layer end vs cut point) and in
 * how launches are grouped, both small next to a layer's compute. */
START_TEST(granularities_agree)
{
	const char *g[3] = {"sim.granularity = \"op\"", "sim.granularity = \"layer\"",
			    "sim.granularity = \"stage\""};
	double t[3];
	for (int i = 0; i < 3; i++) {
		const char *sets[1] = {g[i]};
		struct ts_result r = run_text(gpt13, sets, 1);
		t[i] = r.iteration_time_s;
		ck_assert(fabs(sum_parts(&r) - r.iteration_time_s) <= 1e-12 * r.iteration_time_s);
	}
	ck_assert_msg(tu_relerr(t[0], t[1]) < 0.01 && tu_relerr(t[2], t[1]) < 0.01,
		      "op %.6f layer %.6f stage %.6f s", t[0], t[1], t[2]);
}
END_TEST

/* Class mode equals full mode to the nanosecond for DP on 64 GPUs. */
START_TEST(class_equals_full_64)
{
	const char *full[2] = {"nodes = 8", "sim.mode = \"full\""};
	const char *cls[2] = {"nodes = 8", "sim.mode = \"class\""};
	struct ts_result a = run_text(gpt13, full, 2);
	struct ts_result b = run_text(gpt13, cls, 2);
	ck_assert_uint_eq(a.gpus, 64);
	ck_assert_int_eq(ts_time_from_s(a.iteration_time_s), ts_time_from_s(b.iteration_time_s));
	ck_assert_double_eq(a.memory_per_gpu_bytes, b.memory_per_gpu_bytes);
}
END_TEST

/* Pipeline stages on different nodes carry different traffic; class mode
 * keeps their links in separate classes, so it equals full mode to the
 * nanosecond with PP 2 over 2 nodes and PP 4 over 8 nodes (64 GPUs). */
START_TEST(class_equals_full_pipeline_across_nodes)
{
	const char *cases[2][2] = {{"nodes = 2", "parallel = { pp = 2; }"},
				   {"nodes = 8", "parallel = { pp = 4; }"}};
	for (int c = 0; c < 2; c++) {
		const char *full[4] = {cases[c][0], cases[c][1], "sim.mode = \"full\"",
				       "training.global_batch = 64"};
		const char *cls[4] = {cases[c][0], cases[c][1], "sim.mode = \"class\"",
				      "training.global_batch = 64"};
		struct ts_result a = run_text(gpt13, full, 4);
		struct ts_result b = run_text(gpt13, cls, 4);
		ck_assert_int_eq(ts_time_from_s(a.iteration_time_s),
				 ts_time_from_s(b.iteration_time_s));
		ck_assert(a.bubble_s > 0.0);
	}
}
END_TEST

/* Tensor, pipeline and data parallelism together on 64 GPUs: a stage's DP
 * groups on other local GPUs (TP rank 1's ring through GPUs 1, 3, 5, 7),
 * its other TP groups and its other ranks' pipeline sends cross the PCIe
 * switches, CPU links and NICs the first group's traffic crosses, so class
 * mode, which simulates one class per stage and local GPU, equals full
 * mode to the nanosecond (also with ZeRO-1 and with Megatron-Core's TP
 * communication overlap) (before the classes were split by local GPU,
 * class mode gave 0.779 s against 0.821 s for TP 2 x DP 32). The
 * memory peak of the fullest rank agrees exactly too. */
START_TEST(class_equals_full_tp_pp_dp_64)
{
	const char *cases[4][2] = {
	    {"parallel = { tp = 2; }", "training.micro_batch = 2"},
	    {"parallel = { tp = 2; pp = 4; }", "training.micro_batch = 2"},
	    {"parallel = { tp = 4; pp = 2; zero = 1; sp = true; }", "training.micro_batch = 4"},
	    {"parallel = { tp = 2; pp = 4; sp = true; tp_comm_overlap = true; }",
	     "training.micro_batch = 2"}};
	for (int c = 0; c < 4; c++) {
		const char *full[5] = {"nodes = 8", cases[c][0], cases[c][1],
				       "training.global_batch = 128", "sim.mode = \"full\""};
		const char *cls[5] = {"nodes = 8", cases[c][0], cases[c][1],
				      "training.global_batch = 128", "sim.mode = \"class\""};
		struct ts_result a = run_text(gpt13, full, 5);
		struct ts_result b = run_text(gpt13, cls, 5);
		ck_assert_uint_eq(a.gpus, 64);
		ck_assert_msg(ts_time_from_s(a.iteration_time_s) ==
				  ts_time_from_s(b.iteration_time_s),
			      "case %d: full %.9f s, class %.9f s", c, a.iteration_time_s,
			      b.iteration_time_s);
		ck_assert_double_eq(a.memory_per_gpu_bytes, b.memory_per_gpu_bytes);
		ck_assert(fabs(sum_parts(&b) - b.iteration_time_s) <= 1e-12 * b.iteration_time_s);
	}
}
END_TEST

/* Context and expert parallelism on 64 H100: Llama 3 8B at 16k tokens with
 * TP 2 x CP 4 x PP 2 (ring attention, the ZeRO-free gradient reduction over
 * DP x CP) and Mixtral 8x7B with TP 2 x PP 4 x EP 8 (two all-to-alls per
 * layer each way). Both run, class mode equals full mode to the
 * nanosecond, the parts sum to the iteration with nothing left over, and
 * the all-to-alls on the compute path show as exposed communication, more
 * than 5 % of the iteration (0.88 of 4.88 s today; without them, with
 * ep = 1, 0.40 s of gradient reduction shows instead). */
START_TEST(context_and_expert_parallel)
{
	static const char *cp =
	    "model = \"llama3-8b\"; cluster = \"dgx-h100\"; nodes = 8;\n"
	    "training = { framework = \"megatron\"; global_batch = 64; micro_batch = 1;"
	    " seq_len = 16384; precision = \"bf16\"; };\n"
	    "parallel = { tp = 2; cp = 4; pp = 2; sp = true; };\n";
	static const char *moe =
	    "model = \"mixtral-8x7b\"; cluster = \"dgx-h100\"; nodes = 8;\n"
	    "training = { framework = \"megatron\"; global_batch = 256; micro_batch = 1;"
	    " seq_len = 4096; precision = \"bf16\"; recompute = \"full\"; };\n"
	    "parallel = { tp = 2; pp = 4; ep = 8; sp = true; zero = 1; };\n";
	const char *text[2] = {cp, moe};
	for (int c = 0; c < 2; c++) {
		const char *full[1] = {"sim.mode = \"full\""};
		const char *cls[1] = {"sim.mode = \"class\""};
		struct ts_result a = run_text(text[c], full, 1);
		struct ts_result b = run_text(text[c], cls, 1);
		ck_assert_uint_eq(a.gpus, 64);
		ck_assert_msg(ts_time_from_s(a.iteration_time_s) ==
				  ts_time_from_s(b.iteration_time_s),
			      "case %d: full %.9f s, class %.9f s", c, a.iteration_time_s,
			      b.iteration_time_s);
		ck_assert_double_eq(a.memory_per_gpu_bytes, b.memory_per_gpu_bytes);
		ck_assert(fabs(sum_parts(&b) - b.iteration_time_s) <= 1e-12 * b.iteration_time_s);
		ck_assert(fabs(b.other_s) <= 1e-9 * b.iteration_time_s);
		ck_assert(!strstr(b.not_modelled, "parallel.cp") &&
			  !strstr(b.not_modelled, "parallel.ep"));
		if (c == 1)
			ck_assert_msg(b.exposed_comm_s > 0.05 * b.iteration_time_s,
				      "exposed %.3f of %.3f s", b.exposed_comm_s,
				      b.iteration_time_s);
	}
}
END_TEST

/* A run of text with sets in the given mode; merge false keeps a class per
 * stage and local GPU where node symmetry would merge them (plan's
 * class_merge). */
static struct ts_result run_merge(const char *text, const char *const *sets, size_t nsets,
				  bool merge)
{
	struct ts_scenario *sc;
	struct ts_error err;
	struct ts_env env;
	struct ts_plan *p = NULL;
	char buf[1400];
	struct ts_result r;
	if (ts_scenario_load_string(cat, text, "test", sets, nsets, &sc, &err))
		ck_abort_msg("scenario: %s", ts_error_format(&err, buf, sizeof buf));
	if (env_wrap(cat, &calib, &env, &err) || plan_build(&env, sc, &p, &err))
		ck_abort_msg("plan: %s", ts_error_format(&err, buf, sizeof buf));
	p->class_merge = merge;
	if (run_plan(p, &r, NULL, &err))
		ck_abort_msg("run: %s", ts_error_format(&err, buf, sizeof buf));
	plan_destroy(p);
	env_release(&env);
	ts_scenario_destroy(sc);
	return r;
}

/* Every figure of the iteration, to the nanosecond (parts and iteration)
 * and the byte (memory). */
static void same_figures(const struct ts_result *a, const struct ts_result *b, const char *what)
{
	const double x[8] = {a->iteration_time_s, a->compute_s, a->recompute_s,
			     a->exposed_comm_s,	  a->bubble_s,	a->data_stall_s,
			     a->optimizer_s,	  a->other_s},
		     y[8] = {b->iteration_time_s, b->compute_s, b->recompute_s,
			     b->exposed_comm_s,	  b->bubble_s,	b->data_stall_s,
			     b->optimizer_s,	  b->other_s};
	for (int i = 0; i < 8; i++)
		ck_assert_msg(ts_time_from_s(x[i]) == ts_time_from_s(y[i]),
			      "%s: figure %d %.9f s against %.9f s", what, i, x[i], y[i]);
	ck_assert_msg(a->memory_per_gpu_bytes == b->memory_per_gpu_bytes, "%s: %.0f against %.0f B",
		      what, a->memory_per_gpu_bytes, b->memory_per_gpu_bytes);
}

/* Node symmetry: on a DGX A100 and a DGX H100 (one NVSwitch, a NIC per
 * GPU, one fabric switch) every GPU of a node is alike, so class mode runs
 * a stage as one class (layout_merge) on merged link classes
 * (net_create_sym). Merged, unmerged (a class per stage and local GPU) and
 * full mode give every part of the iteration to the nanosecond and the
 * same memory, with TP x PP x DP, ZeRO-1 with sequence parallelism, pure
 * DP with an input pipeline, and CP; on 8 A100 with 4 NICs (GPUs 4..7
 * reach a NIC only through the CPU) the GPUs are not alike and nothing
 * merges, nor on a DGX-1's hybrid cube-mesh, where merged class mode moved
 * examples/buyers-guide's breakdown (exposed communication 0.16 ms to
 * 0.10 ms) and full mode did not. */
START_TEST(class_merge_equals_unmerged_and_full)
{
	static const char *h100 =
	    "model = \"llama3-8b\"; cluster = \"dgx-h100\"; nodes = 4;\n"
	    "training = { framework = \"megatron\"; global_batch = 32; micro_batch = 1;"
	    " seq_len = 8192; precision = \"bf16\"; };\n"
	    "parallel = { tp = 2; cp = 2; pp = 2; sp = true; };\n";
	static const char *const cases[4][3] = {
	    {"nodes = 8", "parallel = { tp = 2; pp = 4; }", "training.global_batch = 128"},
	    {"nodes = 4", "parallel = { tp = 4; pp = 2; zero = 1; sp = true; }",
	     "training.global_batch = 64"},
	    {"nodes = 2", "data = { dataset = \"c4-tokens\"; storage = \"local-nvme\"; }",
	     "training.global_batch = 64"},
	    {"nodes = 2", "parallel = { tp = 8; pp = 2; }", "training.global_batch = 32"}};
	for (int c = 0; c < 5; c++) {
		const char *text = c < 4 ? gpt13 : h100;
		const char *m[4] = {"sim.mode = \"class\""}, *f[4] = {"sim.mode = \"full\""};
		size_t n = 1;
		for (int i = 0; c < 4 && i < 3; i++, n++)
			m[n] = f[n] = cases[c][i];
		struct ts_result merged = run_merge(text, m, n, true);
		struct ts_result unmerged = run_merge(text, m, n, false);
		struct ts_result full = run_merge(text, f, n, true);
		char what[64];
		snprintf(what, sizeof what, "case %d merged/unmerged", c);
		same_figures(&merged, &unmerged, what);
		snprintf(what, sizeof what, "case %d merged/full", c);
		same_figures(&merged, &full, what);
	}
	struct ts_error err;
	struct hw_cluster *cl;
	const struct hw_cluster_opts four = {.nics_per_node = 4}, all = {0};
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &all, &cl, &err), 0);
	ck_assert(net_node_symmetric(cl));
	hw_cluster_destroy(cl);
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-h100", &all, &cl, &err), 0);
	ck_assert(net_node_symmetric(cl));
	hw_cluster_destroy(cl);
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &four, &cl, &err), 0);
	ck_assert(!net_node_symmetric(cl));
	hw_cluster_destroy(cl);
	/* a hybrid cube-mesh: its GPUs are alike, its rings' links are not */
	ck_assert_int_eq(hw_cluster_load(cat, "dgx1-v100", &all, &cl, &err), 0);
	ck_assert(!net_node_symmetric(cl));
	hw_cluster_destroy(cl);
	/* the layout: GPT-3 175B's TP 8 x PP 16 x DP 8 on 128 nodes is 16
	 * classes of 64 ranks merged, 128 of 8 not */
	struct layout l;
	ck_assert_int_eq(layout_init(&l, 8, 1, 8, 16, NULL, 8, true, &err), 0);
	ck_assert_uint_eq(l.nclasses, 128);
	ck_assert(layout_merge(&l, 128));
	ck_assert_uint_eq(l.nclasses, 16);
	ck_assert_uint_eq(layout_class_members(&l, 3), 64);
	ck_assert_uint_eq(layout_class_of(&l, 64 * 5 + 13), 5);
	ck_assert_uint_eq(layout_class_rep(&l, 5), 64 * 5);
	ck_assert(!layout_merge(&l, 128)); /* already merged */
	/* a stage sharing its nodes with another (TP 2 x PP 4 on one node) */
	ck_assert_int_eq(layout_init(&l, 2, 1, 1, 4, NULL, 8, true, &err), 0);
	ck_assert(!layout_merge(&l, 1));
}
END_TEST

/* Megatron-Core overlaps TP communication only with sequence parallelism:
 * tp_comm_overlap without sp is bad input naming the key. */
START_TEST(tp_comm_overlap_needs_sp)
{
	struct ts_scenario *sc;
	struct ts_error err;
	struct ts_result r;
	const char *sets[1] = {"parallel = { tp = 2; tp_comm_overlap = true; }"};
	ck_assert_int_eq(ts_scenario_load_string(cat, gpt13, "test", sets, 1, &sc, &err), 0);
	ck_assert_int_eq(ts_run(sc, &calib, &r, NULL, &err), TS_EINVALID);
	ck_assert_str_eq(err.key, "parallel.tp_comm_overlap");
	ck_assert_ptr_nonnull(strstr(err.msg, "expected sp = true"));
	ts_scenario_destroy(sc);
}
END_TEST

/* training.framework = "fsdp" means FULL_SHARD (FSDP's default sharding
 * strategy), i.e. ZeRO-3, unless parallel.zero says otherwise. */
START_TEST(fsdp_defaults_to_zero3)
{
	static const char *t =
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
	    "training = { framework = \"fsdp\"; global_batch = 64; micro_batch = 4;"
	    " seq_len = 2048; precision = \"bf16\"; };\n";
	struct ts_scenario *sc;
	struct ts_error err;
	const char *z2[1] = {"parallel.zero = 2"};
	ck_assert_int_eq(ts_scenario_load_string(cat, t, "test", NULL, 0, &sc, &err), 0);
	ck_assert_int_eq(sc->parallel.zero, 3);
	ts_scenario_destroy(sc);
	ck_assert_int_eq(ts_scenario_load_string(cat, t, "test", z2, 1, &sc, &err), 0);
	ck_assert_int_eq(sc->parallel.zero, 2);
	ts_scenario_destroy(sc);
}
END_TEST

/* ZeRO-3 prefetch depth (pipe_job.gather_unlimited) on one DGX A100, 8
 * ranks in one class: four equal FSDP units of P = 2^24 parameters, each
 * its own layer, gathered in bf16 (2 bytes) and freed after its forward
 * (reshard), no gradients, optimizer state or activations, so the pool
 * holds the fp32 shard, 4 x 4P / 8 = 2^25 bytes, plus gathered units of
 * 2P (1 - 1/8) = 29,360,128 bytes each (the rank's own shard is resident).
 * A unit's all-gather of 2P bytes over 8 GPUs takes well under a
 * millisecond on NVSwitch.
 * - one unit prefetched (limited): a unit's buffer is taken when its
 *   all-gather is issued, as the unit before is next on the compute stream,
 *   and given back at its own free; unit n + 2's is issued only after unit
 *   n's free (the compute stream's order), so two units at most, peak
 *   2^25 + 2 x 29,360,128 bytes (counting a unit only from when its own
 *   compute is next would give one);
 * - the same with at most 2^22 elements taken at the issue (DeepSpeed's
 *   prefetch bucket, pipe_job.gather_ahead_elems): a quarter of the next
 *   unit in flight, peak 2^25 + 1.25 x 29,360,128 bytes;
 * - unlimited, compute 10 ms per unit and pass: the 4 forward and 4
 *   backward all-gathers run back to back from the forward's start, all 8
 *   buffers taken within a few ms, before the first unit's forward ends
 *   (its free): peak 2^25 + 8 x 29,360,128 bytes;
 * - unlimited, compute 1 us per unit: each unit is freed 1 us after its
 *   all-gather ends, when the next all-gather has just taken its buffer:
 *   two units at once, peak 2^25 + 2 x 29,360,128 bytes. */
static double zero3_peak(bool unlimited, double ahead_elems, double compute_s)
{
	struct synth s;
	struct ts_error err;
	synth_open(&s);
	struct dp_unit u[4];
	for (int i = 0; i < 4; i++)
		u[i] = (struct dp_unit){.label = "layer",
					.fwd_s = compute_s,
					.dgrad_s = compute_s,
					.wgrad_s = compute_s,
					.act_cat = GRAPH_MEM_ACTIVATIONS,
					.layer = (uint16_t)(i + 1),
					.params = 16777216.0};
	struct pipe_job j = {.units = u,
			     .nunits = 4,
			     .gran = DP_GRAN_LAYER,
			     .sched = PIPE_1F1B,
			     .interleave = 1,
			     .m = 1,
			     .iterations = 2,
			     .lay = &s.lay,
			     .ep = 1,
			     .zero = 3,
			     .reshard = true,
			     .gather_unlimited = unlimited,
			     .gather_ahead_elems = ahead_elems,
			     .weight_bpp = 4.0,
			     .gather_bpp = 2.0,
			     .optimizer_s_per_param = 1e-12};
	ck_assert_int_eq(pipe_build(s.g, s.f, &j, &s.b, &err), 0);
	ck_assert_int_eq(graph_run(s.g, &err), 0);
	double at[GRAPH_MEM_COUNT_];
	double peak = graph_pool_peak(s.g, s.b.pool[0], at);
	ck_assert(fabs(at[GRAPH_MEM_WEIGHTS] - peak) < 1e-6); /* weights only */
	synth_fini(&s);
	return peak;
}

START_TEST(fsdp_gather_prefetch)
{
	const double base = 33554432.0, unit = 29360128.0;
	ck_assert_double_eq_tol(zero3_peak(false, 0.0, 0.010), base + 2.0 * unit, 1e-3);
	ck_assert_double_eq_tol(zero3_peak(false, 4194304.0, 0.010), base + 1.25 * unit, 1e-3);
	ck_assert_double_eq_tol(zero3_peak(true, 0.0, 0.010), base + 8.0 * unit, 1e-3);
	ck_assert_double_eq_tol(zero3_peak(true, 0.0, 1e-6), base + 2.0 * unit, 1e-3);
}
END_TEST

/* FSDP full shard over 8 GPUs: two units of 16 Mi parameters (32 MiB
 * gathered in bf16, 32 MiB of bf16 gradients), forward, dgrad and wgrad of
 * compute_s each, m micro-batches; the third of four iterations, with its
 * all-gathers and gradient reductions counted. */
static ts_time zero3_accum(uint32_t m, double compute_s, uint32_t *gathers, uint32_t *reduces)
{
	struct synth s;
	struct ts_error err;
	synth_open(&s);
	struct dp_unit u[2];
	for (int i = 0; i < 2; i++)
		u[i] = (struct dp_unit){.label = "layer",
					.fwd_s = compute_s,
					.dgrad_s = compute_s,
					.wgrad_s = compute_s,
					.grad_bytes = 33554432.0,
					.act_cat = GRAPH_MEM_ACTIVATIONS,
					.layer = (uint16_t)(i + 1),
					.params = 16777216.0};
	struct pipe_job j = {.units = u,
			     .nunits = 2,
			     .gran = DP_GRAN_LAYER,
			     .sched = PIPE_1F1B,
			     .interleave = 1,
			     .m = m,
			     .iterations = 4,
			     .lay = &s.lay,
			     .ep = 1,
			     .zero = 3,
			     .reshard = true,
			     .overlap = true,
			     .weight_bpp = 4.0,
			     .gather_bpp = 2.0,
			     .grad_bpp = 2.0,
			     .reduce_bpp = 2.0,
			     .optimizer_s_per_param = 1e-12};
	ck_assert_int_eq(pipe_build(s.g, s.f, &j, &s.b, &err), 0);
	ck_assert_int_eq(graph_run(s.g, &err), 0);
	ts_time w0, w1;
	window(&s, &w0, &w1);
	*gathers = *reduces = 0;
	for (uint32_t t = 0; t < graph_ntasks(s.g); t++) {
		const struct graph_rec *r = graph_rec(s.g, t);
		if (r->kind != GRAPH_COMM || r->start < w0 || r->start >= w1)
			continue;
		*gathers += strstr(r->label, "all-gather") != NULL;
		*reduces += strstr(r->label, "reduction") != NULL;
	}
	synth_fini(&s);
	return w1 - w0;
}

/* FSDP full shard with gradient accumulation, by hand. FSDP reduces on
 * every micro-batch unless the loop calls no_sync (PyTorch FSDP docs,
 * FullyShardedDataParallel.no_sync), and Composer, which ran the MPT
 * rows, calls no_sync for DDP models only (mosaicml/composer,
 * composer/distributed/dist_strategy.py, ddp_sync_context: "if not
 * isinstance(state.model, DistributedDataParallel): yield"). So each of
 * m micro-batches gathers each of the two units before its forward and,
 * resharded, again before its backward (4 all-gathers) and reduce-scatters
 * each unit's gradients (2), over the 8 ranks: 4m and 2m an iteration,
 * every rank's collectives issued once by the group's first rank.
 * Compute-bound (10 ms an op, a collective 0.17 ms alone): every gather
 * hides behind the unit before, each reduction behind the next unit's
 * backward. That includes a pass's first gather, issued once the previous
 * pass's last unit is next, so even the first forward's after the step
 * runs during the last backward: FSDP gathers it from the root's
 * pre-forward hook, after the step, which would expose one all-gather a
 * forward pass (not in the schedule yet; this pins the schedule as it is,
 * and its fix adds m all-gathers here). So an
 * iteration is its 6m ops, the last unit's reduction and the step
 * (2 x 16 Mi / 8 parameters at 1e-12 s: 4194.3 ns), to the nanosecond
 * the event queue rounds to (2 ns: two roundings). Communication-bound
 * (10 us an op): a further micro-batch adds at least its four all-gathers
 * one after another on the gather stream (each no shorter than alone) and
 * at most all six collectives and its six ops back to back. */
START_TEST(fsdp_accumulation_per_micro_batch)
{
	ts_time ag = one_coll_ns(COLL_ALL_GATHER, 33554432.0);
	ts_time rs = one_coll_ns(COLL_REDUCE_SCATTER, 33554432.0);
	const double step_ns = 2.0 * 16777216.0 / 8.0 * 1e-12 * 1e9;
	ck_assert_int_lt(ag, 1000000);
	ck_assert_int_lt(rs, 1000000);
	uint32_t g, r;
	for (uint32_t m = 1; m <= 4; m *= 4) {
		ts_time it = zero3_accum(m, 0.010, &g, &r);
		ck_assert_uint_eq(g, 4 * m);
		ck_assert_uint_eq(r, 2 * m);
		double want = 6.0 * m * 10e6 + (double)rs + step_ns;
		ck_assert_msg(fabs((double)it - want) <= 2.0, "m %u: %lld ns, by hand %.1f", m,
			      (long long)it, want);
	}
	ts_time t1 = zero3_accum(1, 10e-6, &g, &r);
	ck_assert_uint_eq(g, 4);
	ts_time t4 = zero3_accum(4, 10e-6, &g, &r);
	ck_assert_uint_eq(g, 16);
	double per_mb = (double)(t4 - t1) / 3.0;
	ck_assert_msg(per_mb >= 4.0 * (double)ag &&
			  per_mb <= 4.0 * (double)ag + 2.0 * (double)rs + 6.0 * 10e3,
		      "a micro-batch adds %.0f ns; all-gather %lld, reduce-scatter %lld ns", per_mb,
		      (long long)ag, (long long)rs);
}
END_TEST

/* parallel.limit_all_gathers is FSDP1's option: refused with FSDP2 (the
 * default fsdp_version) and outside FSDP's full sharding, naming the key. */
START_TEST(limit_all_gathers_needs_fsdp1)
{
	static const char *t =
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
	    "training = { framework = \"fsdp\"; global_batch = 64; micro_batch = 4;"
	    " seq_len = 2048; precision = \"bf16\"; };\n";
	static const struct {
		const char *set, *set2, *key, *says;
	} bad[] = {
	    {"parallel = { limit_all_gathers = false; }", NULL, "parallel.limit_all_gathers",
	     "expected fsdp_version = 1"},
	    {"parallel = { fsdp_version = 2; limit_all_gathers = false; }", NULL,
	     "parallel.limit_all_gathers", "expected fsdp_version = 1"},
	    {"parallel = { zero = 2; fsdp_version = 1; }", NULL, "parallel.fsdp_version",
	     "expected framework \"fsdp\" with zero = 3"},
	    {"training.framework = \"deepspeed\"",
	     "parallel = { zero = 3; limit_all_gathers = true; }", "parallel.limit_all_gathers",
	     "found true with training.framework = \"deepspeed\""},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ts_scenario *sc;
		struct ts_error err;
		struct ts_result r;
		const char *sets[2] = {bad[i].set, bad[i].set2};
		size_t ns = bad[i].set2 ? 2 : 1;
		ck_assert_msg(ts_scenario_load_string(cat, t, "test", sets, ns, &sc, &err) == 0,
			      "%s", err.msg);
		ck_assert_int_eq(ts_run(sc, &calib, &r, NULL, &err), TS_EINVALID);
		ck_assert_str_eq(err.key, bad[i].key);
		ck_assert_msg(strstr(err.msg, bad[i].says), "%s", err.msg);
		ts_scenario_destroy(sc);
	}
	/* FSDP1 with and without its limiter runs */
	const char *ok[1] = {"parallel = { fsdp_version = 1; limit_all_gathers = false; }"};
	struct ts_scenario *sc;
	struct ts_error err;
	struct ts_result r;
	ck_assert_int_eq(ts_scenario_load_string(cat, t, "test", ok, 1, &sc, &err), 0);
	ck_assert_msg(ts_run(sc, &calib, &r, NULL, &err) == 0, "%s", err.msg);
	ts_scenario_destroy(sc);
}
END_TEST

/* Llama-2-7B with plain DDP (16 bytes per parameter: 108 GB of static
 * state) does not fit in an 80 GB A100; GPT-3 1.3B (21 GB) does. */
START_TEST(memory_fit)
{
	const char *llama =
	    "model = \"llama2-7b\"; cluster = \"dgx-a100-80gb\";\n"
	    "training = { framework = \"ddp\"; micro_batch = 1; seq_len = 4096; };\n";
	struct ts_result r = run_text(llama, NULL, 0);
	ck_assert(!r.fits);
	ck_assert(r.memory_per_gpu_bytes > 6.7e9 * 16.0);
	const char *gpt = "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
			  "training = { framework = \"ddp\"; micro_batch = 1; };\n";
	r = run_text(gpt, NULL, 0);
	ck_assert(r.fits);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dp");
	TCase *tc = tu_tcase("core");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, bucket_order);
	tcase_add_test(tc, field_report_15_vgg16_p3dn);
	tcase_add_test(tc, field_report_17_fairseq_titan_x);
	tcase_add_test(tc, field_report_20_gpt2_titan_rtx);
	tcase_add_test(tc, field_report_22_rtx4090_scaling);
	tcase_add_test(tc, overlap_exposes_only_tail_bucket);
	tcase_add_test(tc, no_overlap_exposes_every_bucket);
	tcase_add_test(tc, accumulation_syncs_once);
	tcase_add_test(tc, granularities_agree);
	tcase_add_test(tc, class_equals_full_64);
	tcase_add_test(tc, class_equals_full_pipeline_across_nodes);
	tcase_add_test(tc, class_equals_full_tp_pp_dp_64);
	tcase_add_test(tc, context_and_expert_parallel);
	tcase_add_test(tc, class_merge_equals_unmerged_and_full);
	tcase_add_test(tc, fsdp_defaults_to_zero3);
	tcase_add_test(tc, tp_comm_overlap_needs_sp);
	tcase_add_test(tc, memory_fit);
	tcase_add_test(tc, fsdp_gather_prefetch);
	tcase_add_test(tc, fsdp_accumulation_per_micro_batch);
	tcase_add_test(tc, limit_all_gathers_needs_fsdp1);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
