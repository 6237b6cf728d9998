/* Memory-fit cases of the field reports (../shared/data/field-reports.md) as
 * tests of the memory verdict: what trainsim says fits or not against what
 * users saw; and the public reports of tests/validation/memory_fit.csv.
 * Case 30 (MAR on 8 x A100 80GB) is not here: a masked autoregressive image
 * model with a diffusion-loss MLP run on several noise samples per token
 * and a random masking ratio cannot be described by trainsim's model files.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csv.h"
#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "plan/env.h"
#include "plan/plan.h"
#include "run/run.h"
#include "work/compute.h"
#include "work/memory.h"
#include "work/model.h"
#include "work/ops.h"
#include "testutil.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static struct hw_catalog *cat;

/* Run `text`; returns 1 when the run needs parallelism trainsim does not
 * model yet (the case then prints why and is skipped), 0 when *r is set. */
static int run(const char *label, const char *text, struct ts_result *r)
{
	struct ts_scenario *sc = NULL;
	struct ts_error e;
	char buf[1400];
	ck_assert_msg(ts_scenario_load_string(cat, text, label, NULL, 0, &sc, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	struct work_calib k = work_calib_defaults();
	int rc = ts_run(sc, &k, r, NULL, &e);
	ts_scenario_destroy(sc);
	if (rc == TS_EUNSUPPORTED && !strncmp(e.key, "parallel.", 9)) {
		printf("%s: skipped, %s is not modelled yet (%s)\n", label, e.key, e.msg);
		return 1;
	}
	ck_assert_msg(rc == 0, "%s: %s", label, ts_error_format(&e, buf, sizeof buf));
	printf("%s: %.1f GiB of %.1f GiB (weights %.1f, gradients %.1f, optimizer %.1f, "
	       "activations %.1f, logits %.1f, buffers %.1f, context, workspaces, NCCL and "
	       "allocator %.1f): %s, headroom %.1f GiB, largest term %s\n",
	       label, r->memory_per_gpu_bytes / GiB, r->memory_capacity_bytes / GiB,
	       r->mem.weights / GiB, r->mem.gradients / GiB, r->mem.optimizer / GiB,
	       r->mem.activations / GiB, r->mem.logits / GiB, r->mem.buffers / GiB,
	       r->mem.reserve / GiB, r->memory_verdict, r->memory_headroom_gib,
	       r->memory_largest_term);
	return 0;
}

/* Case 26 (DeepSpeed issue 3901): Falcon-7B, 4k tokens, one node of 8 A100
 * 40GB. ZeRO-2 without offload ran out of memory; ZeRO-3 (38 GB) and FSDP
 * full shard (23.8 GB) ran. The report gives no micro-batch: 1, the
 * smallest, is taken (if it does not fit, no batch does); no activation
 * checkpointing (the Hugging Face Trainer's default); bf16; SDPA (flash). */
static const char *case26 =
    "model = \"falcon-7b\"; cluster = \"dgx-a100-40gb\"; nodes = 1; gpus_per_node = 8;\n"
    "training = { framework = \"%s\"; global_batch = 8; micro_batch = 1; seq_len = 4096;"
    " precision = \"bf16\"; recompute = \"none\"; attention = \"flash\"; iterations = 2; };\n"
    "parallel = { zero = %d; };\n";

START_TEST(falcon7b_zero2_does_not_fit)
{
	char text[1024];
	struct ts_result z2, z3, fsdp;
	snprintf(text, sizeof text, case26, "deepspeed", 2);
	if (run("case 26 ZeRO-2", text, &z2))
		return;
	snprintf(text, sizeof text, case26, "deepspeed", 3);
	if (run("case 26 ZeRO-3", text, &z3))
		return;
	snprintf(text, sizeof text, case26, "fsdp", 3);
	if (run("case 26 FSDP full shard", text, &fsdp))
		return;
	ck_assert_msg(!strcmp(z2.memory_verdict, "does not fit"),
		      "ZeRO-2 without offload ran out of memory in the report");
	ck_assert_msg(!strcmp(z3.memory_verdict, "fits"), "ZeRO-3 ran in the report (38 GB)");
	ck_assert_msg(!strcmp(fsdp.memory_verdict, "fits"),
		      "FSDP full shard ran in the report (23.8 GB)");
	/* ZeRO-2's largest term is its activations; DeepSpeed's reduction
	 * bucket (5e8 bf16 elements, 0.93 GiB) is among its buffers */
	ck_assert_str_eq(z2.memory_largest_term, "activations");
	ck_assert(tu_relerr(z2.mem.buffers, 5e8 * 2.0) < 1e-9);
	/* ZeRO-2 keeps all 2-byte weights, ZeRO-3 an eighth: the difference is
	 * 2·P·7/8 bytes, P the parameters (ts_model_params) */
	struct ts_model m;
	struct ts_error e;
	ck_assert_int_eq(ts_model_load(tu_root(), "falcon-7b", &m, &e), 0);
	double P = ts_model_params(&m);
	ck_assert(tu_relerr(z2.mem.weights - z3.mem.weights, 2.0 * P * 7.0 / 8.0) < 0.01);
}
END_TEST

/* Case 28 (stanford_alpaca issue 280): LLaMA-7B full fine-tune, 512
 * tokens, FSDP full shard with CPU offload on 4 A100 40GB; per-device batch
 * 2 fits, 3 ran out of memory. Assumed: bf16, eager attention (the 2023
 * Hugging Face LLaMA), no checkpointing (the recipe does not enable it);
 * LLaMA-7B has Llama 2 7B's dimensions (models/llama2-7b.cfg). */
static const char *case28 =
    "model = \"llama2-7b\"; cluster = \"dgx-a100-40gb\"; nodes = 1; gpus_per_node = 4;\n"
    "training = { framework = \"fsdp\"; global_batch = %d; micro_batch = %d; seq_len = 512;"
    " precision = \"bf16\"; recompute = \"none\"; attention = \"unfused\"; iterations = 2; };\n"
    "parallel = { zero = 3; offload = \"cpu\"; };\n";

START_TEST(llama7b_offload_batch2_fits)
{
	char text[1024];
	struct ts_result b2, b3;
	snprintf(text, sizeof text, case28, 8, 2);
	if (run("case 28 batch 2", text, &b2))
		return;
	snprintf(text, sizeof text, case28, 12, 3);
	if (run("case 28 batch 3", text, &b3))
		return;
	ck_assert_msg(!strcmp(b2.memory_verdict, "fits"), "batch 2 fits in the report");
	/* The offload leaves no optimizer state and no gradient shard on the
	 * GPU, and of the weights only the gathered units in flight: at most
	 * two layers (one prefetched) of 4h^2 + 3 h f = 202.4 M parameters in
	 * bf16, 0.81 GB (the embedding, 131 M, is smaller). Without offload
	 * the same job holds 12.6 GiB of optimizer state alone. */
	ck_assert(b2.mem.optimizer == 0.0 && b2.mem.gradients == 0.0);
	double layer = 4.0 * 4096.0 * 4096.0 + 3.0 * 4096.0 * 11008.0;
	ck_assert_msg(b2.mem.weights <= 2.0 * layer * 2.0 * 1.001, "weights %.3f GB",
		      b2.mem.weights / 1e9);
	ck_assert(b2.memory_per_gpu_bytes < b3.memory_per_gpu_bytes);
	/* One more sequence of 512 tokens adds its activations, among them
	 * its softmax probabilities, 2 bytes x a·s² = 16.8 MB per layer, x 32
	 * layers: the difference is at least that. */
	ck_assert(b3.mem.activations - b2.mem.activations > 32.0 * 2.0 * 32.0 * 512.0 * 512.0);
	/* Known gap, pinned: the report's batch 3 ran out of memory, trainsim
	 * says it fits. With the state offloaded the GPU holds activations and
	 * two gathered layers; trainsim's op-level activations follow fused
	 * kernels, while eager Hugging Face LLaMA (2023) keeps fp32 norm and
	 * softmax copies besides (about 20 GiB with them, still short of the
	 * 39.6: sim/README.md, "Memory-fit cases"). This assertion fails when
	 * the gap closes: then assert the reported verdict instead. */
	printf("case 28 batch 3: the report ran out of memory; trainsim says %s (known gap)\n",
	       b3.memory_verdict);
	ck_assert_msg(!strcmp(b3.memory_verdict, "fits"),
		      "case 28 batch 3 is no longer predicted to fit: the known gap closed, "
		      "assert the reported out-of-memory verdict");
}
END_TEST

/* Korthikanti et al. 2022 (https://arxiv.org/abs/2205.05198, Table 2) as a
 * check on what the schedule holds, not as the model: a GPT of L = 4 layers
 * (h = 1024, a = 16), fp16, no flash attention, s = 1024, b = 2, one GPU:
 * the activations at the peak are L x s·b·h·(34 + 5·a·s/h) plus the
 * embedding's saved dropout mask and output (the head's fp32 softmax is
 * under logits); with pp = 2 and 1F1B over m = 4 micro-batches, stage 0
 * holds min(p, m) = 2 micro-batches of its 2 layers, the same L·K plus two
 * embeddings. Selective recompute leaves 34·s·b·h per layer, full the
 * layer input 2·s·b·h. With a vocabulary of 1,024 the logits (8 MB) no
 * longer set the peak: it comes as the last layer's backward reruns what
 * was dropped (full: its 34·s·b·h + 5·a·s²·b again beside the other
 * inputs, (L - 1)·2·s·b·h + one whole layer; selective: one layer's
 * 5·a·s²·b of attention scores beside L x 34·s·b·h). */
START_TEST(korthikanti_through_the_schedule)
{
	const double L = 4, h = 1024, a = 16, s = 1024, b = 2, sbh = s * b * h;
	const char *fmt =
	    "model = { family = \"gpt\"; layers = 4; hidden = 1024; heads = 16; vocab = %d;"
	    " seq_len = 1024; };\ncluster = \"dgx-a100-80gb\"; nodes = 1; gpus_per_node = %d;\n"
	    "training = { framework = \"megatron\"; global_batch = 8; micro_batch = 2;"
	    " seq_len = 1024; precision = \"fp16\"; attention = \"unfused\"; recompute = \"%s\";"
	    " iterations = 2; };\nparallel = { pp = %d; dp = 1; };\n";
	struct ts_model m = {0};
	struct ts_error e;
	ck_assert_int_eq(ts_model_load(tu_root(), "gpt3-1.3b", &m, &e), 0);
	m.layers = 4;
	m.hidden = 1024;
	m.heads = 16;
	m.kv_heads = 16;
	m.ffn_hidden = 4096;
	m.vocab = 32000;
	struct work_shape sh = {.micro_batch = 2,
				.seq_len = 1024,
				.tp = 1,
				.dtype = TS_FP16,
				.flash = false,
				.causal = true};
	struct work_op ops[WORK_MAX_OPS];
	size_t n;
	ck_assert_int_eq(work_embed_ops(&m, &sh, ops, WORK_MAX_OPS, &n, NULL), 0);
	double embed = 0.0;
	for (size_t i = 0; i < n; i++)
		embed += ops[i].saved_bytes;
	const double whole = sbh * (34.0 + 5.0 * a * s / h);
	const struct {
		const char *rc;
		int pp, vocab;
		double layer, embeds, rerun;
	} cs[] = {{"none", 1, 32000, whole, 1.0, 0.0},
		  {"selective", 1, 32000, 34.0 * sbh, 1.0, 0.0},
		  {"full", 1, 32000, 2.0 * sbh, 1.0, 0.0},
		  {"none", 2, 32000, whole, 2.0, 0.0},
		  {"full", 1, 1024, 2.0 * sbh, 1.0, whole - 2.0 * sbh},
		  {"selective", 1, 1024, 34.0 * sbh, 1.0, 5.0 * a * s * s * b}};
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		char text[1024];
		struct ts_result r;
		snprintf(text, sizeof text, fmt, cs[i].vocab, cs[i].pp, cs[i].rc, cs[i].pp);
		ck_assert_int_eq(run("korthikanti", text, &r), 0);
		double want = L * cs[i].layer + cs[i].embeds * embed + cs[i].rerun;
		ck_assert_msg(tu_relerr(r.mem.activations, want) < 1e-9,
			      "%s pp %d: %.0f bytes of activations, Korthikanti %.0f", cs[i].rc,
			      cs[i].pp, r.mem.activations, want);
	}
}
END_TEST

/* training.activation_offload_layers (Megatron-Core's cpu_offloading with
 * cpu_offloading_num_layers, Transformer Engine's CPU offload): the GPT of
 * korthikanti_through_the_schedule (L = 4, h = 1,024, 16 heads, s = 1,024,
 * b = 2, fp16, unfused attention, no recompute, one A100; a 1,024-word
 * vocabulary so that the logits are small) keeps sbh(34 + 5as/h) bytes a
 * layer (Korthikanti et al. 2022, https://arxiv.org/abs/2205.05198, eq. 2).
 * With the first N layers offloaded, layer l's activations are held until
 * layer l + 1's forward has ended (the copy's double buffer), so by hand
 * the forward holds at most max(L - N, 2) layers besides the embedding's:
 * N = 1: 3, N = 2: 2, N = 3: 2 (layers 3 and 4 at the end of layer 4's
 * forward; in backward layer 4 and the reload of layer 3). The same at op,
 * layer and stage granularity. Time: the copies cross the GPU's PCIe 4.0
 * x16 route (DGX A100, at most 32 GB/s a direction, PCI-SIG's 16 GT/s x 16
 * lanes at 128b/130b = 31.5 GB/s), one after another on one copy stream,
 * so an iteration of m = 4 micro-batches lasts at least m N bytes / 32 GB/s
 * (N = 3: 4 x 3 x 239,075,328 / 32e9 = 89.7 ms), where without offload it
 * lasts less (48 ms). */
START_TEST(activation_offload)
{
	const double h = 1024, a = 16, s = 1024, b = 2, sbh = s * b * h;
	const double whole = sbh * (34.0 + 5.0 * a * s / h), L = 4;
	static const char fmt[] =
	    "model = { family = \"gpt\"; layers = 4; hidden = 1024; heads = 16; vocab = 1024;"
	    " seq_len = 1024; };\ncluster = \"dgx-a100-80gb\"; nodes = 1; gpus_per_node = 1;\n"
	    "training = { framework = \"megatron\"; global_batch = 8; micro_batch = 2;"
	    " seq_len = 1024; precision = \"fp16\"; attention = \"unfused\"; recompute = \"none\";"
	    " iterations = 2; activation_offload_layers = %d; };\nparallel = { dp = 1; };\n"
	    "sim = { granularity = \"%s\"; };\n";
	static const char *gran[] = {"op", "layer", "stage"};
	char text[1024];
	struct ts_result r0, r;
	snprintf(text, sizeof text, fmt, 0, "layer");
	ck_assert_int_eq(run("no activation offload", text, &r0), 0);
	ck_assert(r0.iteration_time_s < 4.0 * 3.0 * whole / 32e9);
	/* the embedding's activations (held all forward) */
	const double embed = r0.mem.activations - L * whole;
	ck_assert(embed > 0.0 && embed < whole);
	for (int n = 1; n <= 3; n++)
		for (int g = 0; g < 3; g++) {
			snprintf(text, sizeof text, fmt, n, gran[g]);
			ck_assert_int_eq(run("activation offload", text, &r), 0);
			double want = fmax(L - n, 2.0) * whole + embed;
			ck_assert_msg(tu_relerr(r.mem.activations, want) < 1e-9,
				      "N %d at %s: %.0f bytes of activations, by hand %.0f", n,
				      gran[g], r.mem.activations, want);
			ck_assert_msg(r.iteration_time_s >= 4.0 * n * whole / 32e9,
				      "N %d at %s: %.6f s, the copies alone take %.6f s", n,
				      gran[g], r.iteration_time_s, 4.0 * n * whole / 32e9);
			ck_assert(r.exposed_comm_s > r0.exposed_comm_s);
		}
}
END_TEST

/* What frameworks refuse: DeepSpeed (its cpu_checkpointing offloads only
 * partitioned checkpoints), pipeline parallelism and, in Megatron-Core,
 * recompute (Megatron Bridge's CPU offloading page), and as many layers as
 * the model has (cpu_offloading_num_layers is 0 to num_layers - 1). */
START_TEST(activation_offload_refused)
{
	static const char base[] =
	    "model = \"llama2-7b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { framework = \"megatron\"; global_batch = 64; micro_batch = 1;\n"
	    "  seq_len = 4096; iterations = 2; activation_offload_layers = 8; };\n"
	    "parallel = { zero = 1; };\n";
	static const char *sets[][2] = {{"training.framework=\"deepspeed\"", NULL},
					{"parallel.pp=2", NULL},
					{"training.recompute=\"full\"", NULL},
					{"training.activation_offload_layers=32", NULL}};
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		struct ts_scenario *sc = NULL;
		struct ts_error e;
		struct ts_result r;
		ck_assert_int_eq(ts_scenario_load_string(cat, base, "ao", sets[i], 1, &sc, &e), 0);
		struct work_calib k = work_calib_defaults();
		ck_assert_int_ne(ts_run(sc, &k, &r, NULL, &e), 0);
		ck_assert_str_eq(e.key, "training.activation_offload_layers");
		ts_scenario_destroy(sc);
	}
	/* PyTorch's stacks offload under full recompute */
	static const char *fsdp[] = {"training.framework=\"fsdp\"", "training.recompute=\"full\"",
				     "parallel.zero=3"};
	struct ts_scenario *sc = NULL;
	struct ts_error e;
	struct ts_result r;
	ck_assert_int_eq(ts_scenario_load_string(cat, base, "ao", fsdp, 3, &sc, &e), 0);
	struct work_calib k = work_calib_defaults();
	ck_assert_int_eq(ts_run(sc, &k, &r, NULL, &e), 0);
	ts_scenario_destroy(sc);
}
END_TEST

/* Public max-batch and out-of-memory reports (tests/validation/memory_fit.csv,
 * its README): every row's scenario is run and its verdict compared with
 * what the source reports. A row "trained" (or with a measured peak) is
 * right when trainsim says "fits", an "oom" row when it says "does not
 * fit"; "tight" is neither right nor wrong (a risk shown) and is counted
 * apart. A row with a known_gap is pinned: it must still be on the wrong
 * side (the test fails when the gap closes, to be unpinned). Every other
 * row must not be on the wrong side. Measured peaks (nvidia-smi, GiB) give
 * the MAPE of each half; the memory model's stated error (WORK_MEM_ERROR)
 * is the largest error of the fitting half rounded up to the next 5 %, so
 * that half is asserted within it, and the held-out half at the MAPE
 * sim/README.md documents, to its rounding. */
/* training.recompute_layers (Megatron's --recompute-num-layers, block
 * method): Llama-2-7B, TP 2, PP 2, 16 layers per stage. N = 0 and N >= 16
 * recompute every layer (the same figures as plain full recompute); in
 * between the memory lies strictly between full's and none's and falls as
 * N grows, and the recomputed FLOPs (hardware less model FLOPs) are N/16
 * of full's, by hand: the rerun forward of N of the 16 layers per stage. */
START_TEST(recompute_layers)
{
	static const char fmt[] =
	    "model = \"llama2-7b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { framework = \"megatron\"; global_batch = 64; micro_batch = 2;\n"
	    "  seq_len = 4096; recompute = \"%s\"; recompute_layers = %d; iterations = 2; };\n"
	    "parallel = { tp = 2; pp = 2; zero = 1; };\n";
	char text[1024];
	struct ts_result none, full, r, prev;
	snprintf(text, sizeof text, fmt, "none", 0);
	ck_assert_int_eq(run("none", text, &none), 0);
	snprintf(text, sizeof text, fmt, "full", 0);
	ck_assert_int_eq(run("full", text, &full), 0);
	double full_rec = full.hardware_flops_per_iteration - full.model_flops_per_iteration;
	ck_assert(full_rec > 0.0);
	prev = full;
	for (int n = 16; n >= 0; n -= 4) {
		snprintf(text, sizeof text, fmt, "full", n);
		ck_assert_int_eq(run("recompute_layers", text, &r), 0);
		double rec = r.hardware_flops_per_iteration - r.model_flops_per_iteration;
		int eff = n ? n : 16;
		ck_assert_msg(tu_relerr(rec, full_rec * eff / 16.0) < 1e-9, "N %d: %g of %g", n,
			      rec, full_rec);
		if (eff == 16) {
			ck_assert(r.memory_per_gpu_bytes == full.memory_per_gpu_bytes);
		} else {
			ck_assert(r.memory_per_gpu_bytes > prev.memory_per_gpu_bytes);
			ck_assert(r.memory_per_gpu_bytes < none.memory_per_gpu_bytes);
			prev = r;
		}
	}
	/* with recompute other than full it is refused, naming the key */
	struct ts_scenario *sc;
	struct ts_error e;
	struct ts_plan *p = NULL;
	struct ts_env env;
	snprintf(text, sizeof text, fmt, "selective", 4);
	ck_assert_int_eq(ts_scenario_load_string(cat, text, "rl.cfg", NULL, 0, &sc, &e), 0);
	struct work_calib k = work_calib_defaults();
	ck_assert_int_eq(env_wrap(cat, &k, &env, &e), 0);
	ck_assert_int_eq(plan_build(&env, sc, &p, &e), TS_EINVALID);
	ck_assert_str_eq(e.key, "training.recompute_layers");
	env_release(&env);
	ts_scenario_destroy(sc);
}
END_TEST

/* PyTorch's op-level selective checkpointing (training.recompute = "op")
 * and torchtitan's every-N-th-layer checkpointing
 * (training.recompute_interval): Llama 3 8B on 8 H100, FSDP ZeRO-3, micro-
 * batch 1, seq 8192, bf16, flash, 16 sequences an iteration. The peak
 * comes at the loss, every layer's kept tensors held and none remade yet:
 * 32 layers x 521,142,272 bytes under op (63,616 bytes a token, counted by
 * hand in check_ops.c, op_sac_llama3_8b) and 32 x 67,108,864 (the blocks'
 * inputs) under full. op reruns wk, wo and w3: 2·4096·(1024 + 4096 +
 * 14336) FLOPs a token and layer, x 32 layers x 16 x 8192 tokens =
 * 668,503,069,687,808 FLOPs an iteration (hardware less model FLOPs).
 * Every second layer rerun reruns half of full's FLOPs, and holds memory
 * between full's and none's; an interval of 1 is full. Megatron-LM and
 * DeepSpeed cannot run either policy: refused, naming the key. */
START_TEST(op_level_checkpointing)
{
	static const char fmt[] =
	    "model = \"llama3-8b\"; cluster = \"dgx-h100\"; nodes = 1;\n"
	    "training = { framework = \"%s\"; global_batch = 16; micro_batch = 1;\n"
	    "  seq_len = 8192; precision = \"bf16\"; attention = \"flash\";\n"
	    "  recompute = \"%s\"; recompute_interval = %d; iterations = 2; };\n"
	    "parallel = { zero = 3; };\n";
	char text[1024];
	struct ts_result none, op, full, half, one;
	snprintf(text, sizeof text, fmt, "fsdp", "none", 0);
	ck_assert_int_eq(run("none", text, &none), 0);
	snprintf(text, sizeof text, fmt, "fsdp", "op", 0);
	ck_assert_int_eq(run("op", text, &op), 0);
	snprintf(text, sizeof text, fmt, "fsdp", "full", 0);
	ck_assert_int_eq(run("full", text, &full), 0);
	snprintf(text, sizeof text, fmt, "fsdp", "full", 2);
	ck_assert_int_eq(run("every second layer", text, &half), 0);
	snprintf(text, sizeof text, fmt, "fsdp", "full", 1);
	ck_assert_int_eq(run("every layer", text, &one), 0);
	ck_assert_msg(tu_relerr(op.mem.activations, 32.0 * 521142272.0) < 1e-12, "%.17g",
		      op.mem.activations);
	ck_assert(tu_relerr(full.mem.activations, 32.0 * 67108864.0) < 1e-12);
	double rec_op = op.hardware_flops_per_iteration - op.model_flops_per_iteration;
	ck_assert_msg(tu_relerr(rec_op, 668503069687808.0) < 1e-12, "%.17g", rec_op);
	ck_assert(full.memory_per_gpu_bytes < op.memory_per_gpu_bytes &&
		  op.memory_per_gpu_bytes < none.memory_per_gpu_bytes);
	ck_assert(full.iteration_time_s > op.iteration_time_s &&
		  op.iteration_time_s > none.iteration_time_s);
	double rec_full = full.hardware_flops_per_iteration - full.model_flops_per_iteration;
	double rec_half = half.hardware_flops_per_iteration - half.model_flops_per_iteration;
	ck_assert(tu_relerr(rec_half, rec_full / 2.0) < 1e-12);
	ck_assert(full.memory_per_gpu_bytes < half.memory_per_gpu_bytes &&
		  half.memory_per_gpu_bytes < none.memory_per_gpu_bytes);
	ck_assert(one.memory_per_gpu_bytes == full.memory_per_gpu_bytes &&
		  one.iteration_time_s == full.iteration_time_s);

	static const struct {
		const char *fw, *rc;
		int every, code;
		const char *key;
	} bad[] = {
	    {"megatron", "op", 0, TS_EUNSUPPORTED, "training.recompute"},
	    {"deepspeed", "op", 0, TS_EUNSUPPORTED, "training.recompute"},
	    {"deepspeed", "full", 2, TS_EUNSUPPORTED, "training.recompute_interval"},
	    {"fsdp", "op", 2, TS_EINVALID, "training.recompute_interval"},
	};
	struct work_calib k = work_calib_defaults();
	struct ts_env env;
	struct ts_error e;
	ck_assert_int_eq(env_wrap(cat, &k, &env, &e), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ts_scenario *sc;
		struct ts_plan *p = NULL;
		snprintf(text, sizeof text, fmt, bad[i].fw, bad[i].rc, bad[i].every);
		ck_assert_int_eq(ts_scenario_load_string(cat, text, "sac.cfg", NULL, 0, &sc, &e),
				 0);
		ck_assert_int_eq(plan_build(&env, sc, &p, &e), bad[i].code);
		ck_assert_str_eq(e.key, bad[i].key);
		ts_scenario_destroy(sc);
	}
	env_release(&env);
}
END_TEST

/* parallel.reshard_after_forward (FSDP): Llama 3 8B on 8 H100, ZeRO-3,
 * full recompute. Resharding, the weights at the peak are the fp32 shard
 * (4 P / 8 bytes) and a layer or two gathered in bf16; without, every unit
 * stays gathered from its first forward to its last backward: 4 P / 8 + 2 P
 * (1 - 1/8) bytes exactly, P the model's parameters. FSDP with pipelining
 * defaults to not resharding (torchtitan's default policy), and holds more
 * than the same run resharding. */
START_TEST(reshard_after_forward)
{
	static const char fmt[] =
	    "model = \"llama3-8b\"; cluster = \"dgx-h100\"; nodes = 1;\n"
	    "training = { framework = \"fsdp\"; global_batch = 16; micro_batch = 1;\n"
	    "  seq_len = 8192; recompute = \"full\"; iterations = 2; };\n"
	    "parallel = { zero = 3; pp = %d; %s };\n";
	char text[1024];
	struct ts_result keep, re, pp_def, pp_re;
	snprintf(text, sizeof text, fmt, 1, "reshard_after_forward = false;");
	ck_assert_int_eq(run("keep", text, &keep), 0);
	snprintf(text, sizeof text, fmt, 1, "");
	ck_assert_int_eq(run("reshard", text, &re), 0);
	struct ts_model m = tu_model("llama3-8b");
	double P = ts_model_params(&m);
	ck_assert_msg(tu_relerr(keep.mem.weights, 4.0 * P / 8.0 + 2.0 * P * (1.0 - 1.0 / 8.0)) <
			  1e-9,
		      "%.6g bytes of weights", keep.mem.weights);
	ck_assert(re.mem.weights < 0.5 * keep.mem.weights);
	snprintf(text, sizeof text, fmt, 2, "");
	ck_assert_int_eq(run("pp default", text, &pp_def), 0);
	snprintf(text, sizeof text, fmt, 2, "reshard_after_forward = true;");
	ck_assert_int_eq(run("pp reshard", text, &pp_re), 0);
	ck_assert(pp_def.mem.weights > pp_re.mem.weights);
}
END_TEST

START_TEST(public_reports)
{
	char path[1024], buf[1400];
	snprintf(path, sizeof path, "%s/tests/validation/memory_fit.csv", tu_root());
	static const char *const names[] = {"id",	    "half",	 "outcome",
					    "measured_gib", "known_gap", "scenario"};
	enum { C_ID, C_HALF, C_OUT, C_GIB, C_GAP, C_SCN, C_N };
	int col[C_N];
	struct csv c = {0};
	struct ts_error e;
	ck_assert_msg(csv_open(&c, path, 8192, 32, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	struct half {
		int rows, right, wrong, tight, pinned, measured;
		double ape_sum, ape_max;
	} h[2] = {{0}};
	int rc, n = 0;
	printf("\n%-16s %-7s %-8s %9s %9s %-12s %8s\n", "row", "half", "reported", "need GiB",
	       "of GiB", "verdict", "error");
	while ((rc = csv_row(&c, names, C_N, col, &e)) == 1) {
		const char *id = c.f[col[C_ID]], *out = c.f[col[C_OUT]];
		bool fit_half = !strcmp(c.f[col[C_HALF]], "fit");
		ck_assert_msg(fit_half || !strcmp(c.f[col[C_HALF]], "holdout"), "%s: half %s", id,
			      c.f[col[C_HALF]]);
		bool oom = !strcmp(out, "oom");
		ck_assert_msg(oom || !strcmp(out, "trained") || !strcmp(out, "measured"),
			      "%s: outcome %s, expected oom, trained or measured", id, out);
		char text[4096];
		snprintf(text, sizeof text, "name = \"%s\";\n%s\n", id, c.f[col[C_SCN]]);
		struct ts_result r;
		if (run(id, text, &r)) {
			ck_abort_msg("%s: every row must run", id);
			continue;
		}
		struct half *x = &h[fit_half ? 0 : 1];
		x->rows++;
		/* one verdict: fits is true for "fits" and "tight" only */
		ck_assert_msg(r.fits == !!strcmp(r.memory_verdict, "does not fit"),
			      "%s: fits %d with verdict %s", id, r.fits, r.memory_verdict);
		bool tight = !strcmp(r.memory_verdict, "tight");
		bool right = !tight && !strcmp(r.memory_verdict, oom ? "does not fit" : "fits");
		bool wrong = !tight && !right;
		double err = 0.0;
		const char *gib = c.f[col[C_GIB]];
		if (*gib) {
			double m = strtod(gib, NULL);
			ck_assert_msg(m > 0.0, "%s: measured_gib %s", id, gib);
			err = (r.memory_per_gpu_bytes / GiB - m) / m;
			x->measured++;
			x->ape_sum += fabs(err);
			if (fabs(err) > x->ape_max)
				x->ape_max = fabs(err);
		}
		char es[32] = "-";
		if (*gib)
			snprintf(es, sizeof es, "%+.0f %%", 100.0 * err);
		printf("%-16s %-7s %-8s %9.1f %9.1f %-12s %8s\n", id, c.f[col[C_HALF]], out,
		       r.memory_per_gpu_bytes / GiB, r.memory_capacity_bytes / GiB,
		       r.memory_verdict, es);
		if (*c.f[col[C_GAP]]) {
			x->pinned++;
			printf("  known gap: %s\n", c.f[col[C_GAP]]);
			ck_assert_msg(wrong,
				      "%s: the known gap closed (trainsim now says %s): unpin it",
				      id, r.memory_verdict);
			continue;
		}
		ck_assert_msg(!wrong, "%s: reported %s, trainsim says %s (%.1f of %.1f GiB)", id,
			      out, r.memory_verdict, r.memory_per_gpu_bytes / GiB,
			      r.memory_capacity_bytes / GiB);
		x->right += right;
		x->tight += tight;
		n++;
	}
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, buf, sizeof buf));
	csv_close(&c);
	for (int k = 0; k < 2; k++) {
		const struct half *x = &h[k];
		printf("%s half: %d rows, %d right, %d tight, %d pinned known gaps (wrong side); "
		       "verdict accuracy %.0f %% (pinned rows counted wrong); GiB MAPE %.1f %% "
		       "(max %.1f %%) over %d measured rows\n",
		       k ? "held-out" : "fitting", x->rows, x->right, x->tight, x->pinned,
		       100.0 * x->right / (x->rows ? x->rows : 1),
		       100.0 * x->ape_sum / (x->measured ? x->measured : 1), 100.0 * x->ape_max,
		       x->measured);
		ck_assert(x->rows >= 8 && x->measured >= 3);
	}
	ck_assert(n + h[0].pinned + h[1].pinned == h[0].rows + h[1].rows);
	/* the band: the fitting half's largest error, rounded up to 5 % */
	ck_assert_msg(ceil(h[0].ape_max * 20.0 - 1e-9) / 20.0 == WORK_MEM_ERROR,
		      "WORK_MEM_ERROR %.2f is not the fitting half's largest error %.3f rounded up "
		      "to 5 %%",
		      WORK_MEM_ERROR, h[0].ape_max);
	/* sim/README.md ("Memory-fit cases"): held-out MAPE 7.7 %, to its rounding */
	ck_assert_msg(h[1].ape_sum / h[1].measured <= 0.0775,
		      "held-out GiB MAPE %.4f above the documented 7.7 %%",
		      h[1].ape_sum / h[1].measured);
}
END_TEST

/* The optimizer step's temporaries through the schedule (work_step_temp_bytes):
 * GPT-3 1.3B with 64-token sequences, where the step, not the backward, is
 * the peak. PyTorch DDP in fp32 over 2 GPUs with foreach Adam (the default)
 * holds one fp32 intermediate of the P parameters, 4 P bytes, among its
 * buffers at the peak, and no activations (they are freed before the step);
 * fused Adam holds none, and the iteration takes the same time. FSDP full
 * shard over 2: 4 P / 2. DeepSpeed ZeRO-2 in fp16 over 2: the flat fp16
 * copy and its fp32 conversion of the rank's half, (2 + 4) P / 2 = 3 P,
 * besides the reduction bucket of min(5e8, P) fp16 elements. A framework
 * whose step is its own refuses "foreach". */
static const char *step_case =
    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1; gpus_per_node = 2;\n"
    "training = { framework = \"%s\"; global_batch = 2; micro_batch = 1; seq_len = 64;"
    " precision = \"%s\"; optimizer = \"adam\"; recompute = \"none\"; iterations = 2; %s };\n"
    "parallel = { zero = %d; };\n";

START_TEST(optimizer_step_temporaries)
{
	char text[1024];
	struct ts_result fe, fu, fs, ds;
	struct ts_model m;
	struct ts_error e;
	ck_assert_int_eq(ts_model_load(tu_root(), "gpt3-1.3b", &m, &e), 0);
	double P = ts_model_params(&m);
	snprintf(text, sizeof text, step_case, "ddp", "fp32", "", 0);
	run("DDP foreach", text, &fe);
	snprintf(text, sizeof text, step_case, "ddp", "fp32", "optimizer_impl = \"fused\";", 0);
	run("DDP fused", text, &fu);
	ck_assert(fe.mem.activations == 0.0 && fe.mem.logits == 0.0);
	ck_assert(tu_relerr(fe.mem.buffers - fu.mem.buffers, 4.0 * P) < 1e-9);
	ck_assert(fe.iteration_time_s == fu.iteration_time_s);
	snprintf(text, sizeof text, step_case, "fsdp", "fp32", "", 3);
	run("FSDP full shard foreach", text, &fs);
	ck_assert(fs.mem.activations == 0.0);
	ck_assert(tu_relerr(fs.mem.buffers, 4.0 * P / 2.0) < 1e-9);
	snprintf(text, sizeof text, step_case, "deepspeed", "fp16", "", 2);
	run("DeepSpeed ZeRO-2", text, &ds);
	ck_assert(ds.mem.activations == 0.0);
	ck_assert(tu_relerr(ds.mem.buffers, 3.0 * P + fmin(5e8, P) * 2.0) < 1e-9);
	struct ts_scenario *sc = NULL;
	snprintf(text, sizeof text, step_case, "megatron", "bf16", "optimizer_impl = \"foreach\";",
		 1);
	ck_assert_int_eq(ts_scenario_load_string(cat, text, "megatron foreach", NULL, 0, &sc, &e),
			 0);
	struct work_calib k = work_calib_defaults();
	struct ts_result r;
	ck_assert_int_eq(ts_run(sc, &k, &r, NULL, &e), TS_EINVALID);
	ck_assert_str_eq(e.key, "training.optimizer_impl");
	ts_scenario_destroy(sc);
}
END_TEST

/* The buffers of context- and expert-parallel exchanges, held while a
 * pass runs its layers (pipe_job cp_buf_*, a2a_buf_bytes), by hand;
 * Megatron holds no other buffer (its step is fused, its gradients in the
 * contiguous buffer counted as gradients), so they are the peak's whole
 * buffers term. Llama-2-7B (32 heads of 128, MHA) at 32,768 tokens, cp 4:
 * T = 8,192 tokens a rank, a K, V block 2 x 8,192 x 4,096 x 2 B = 128 MiB.
 * Transformer Engine's forward holds cp = 4 of them (512 MiB), its
 * backward two blocks with their gradients (4 x 128 MiB) and dq (8,192 x
 * 4,096 x 2 B = 64 MiB), 576 MiB; with full recompute a backward reruns
 * the forward first and holds the larger, 576 MiB, which the peak, in the
 * last layer's backward, carries. Mixtral 8x7B at 4,096 tokens, ep 8: an
 * all-to-all of T x top_k x cf x h x 2 B = 4,096 x 2 x 1 x 4,096 x 2 B =
 * 64 MiB holds its input and its output, 128 MiB. */
START_TEST(exchange_buffers)
{
	static const char *cp_base =
	    "model = { base = \"llama2-7b\"; layers = 4; }; cluster = \"dgx-a100-80gb\";\n"
	    "nodes = 2; gpus_per_node = 8;\n"
	    "training = { framework = \"megatron\"; global_batch = 32; micro_batch = 1;\n"
	    "  seq_len = 32768; iterations = 2; recompute = \"full\"; };\n";
	char cp[1024];
	snprintf(cp, sizeof cp, "%sparallel = { cp = 4; zero = 1; };\n", cp_base);
	static const char *ep_base =
	    "model = { base = \"mixtral-8x7b\"; layers = 2; }; cluster = \"dgx-h100\";\n"
	    "nodes = 2; gpus_per_node = 8;\n"
	    "training = { framework = \"megatron\"; global_batch = 32; micro_batch = 1;\n"
	    "  seq_len = 4096; iterations = 2; recompute = \"full\"; };\n";
	char ep[1024];
	snprintf(ep, sizeof ep, "%sparallel = { ep = 8; zero = 1; };\n", ep_base);
	const double MiB = 1024.0 * 1024.0;
	struct ts_result r;
	run("ring attention buffers, cp 4", cp, &r);
	ck_assert_msg(tu_relerr(r.mem.buffers, 576.0 * MiB) < 1e-12, "%.0f", r.mem.buffers);
	/* by all-to-alls (DeepSpeed-Ulysses): Q (64 MiB) and K, V (128 MiB)
	 * copied into the exchange's layout and received, 2 x 192 MiB */
	char a2a[1024];
	snprintf(a2a, sizeof a2a, "%sparallel = { cp = 4; zero = 1; cp_comm = \"a2a\"; };\n",
		 cp_base);
	struct ts_result u;
	run("Ulysses all-to-all buffers, cp 4", a2a, &u);
	ck_assert_msg(tu_relerr(u.mem.buffers, 384.0 * MiB) < 1e-12, "%.0f", u.mem.buffers);
	run("all-to-all buffers, ep 8", ep, &r);
	ck_assert_msg(tu_relerr(r.mem.buffers, 128.0 * MiB) < 1e-12, "%.0f", r.mem.buffers);
	/* with DeepEP: only the received tokens (64 MiB), and DeepEP's own
	 * buffers for 8 ranks of hidden 4,096 in bf16 (8,192 + 8 + 2,048
	 * bytes a token: 10 x 8 x (5 x 4 + 256 x 10,248) = 209,880,640 ->
	 * 209,880,704), beside NCCL's, outside the allocator */
	struct ts_result d;
	char text[1024];
	snprintf(text, sizeof text,
		 "%sparallel = { ep = 8; zero = 1; ep_dispatcher = \"deepep\"; };\n", ep_base);
	run("DeepEP, ep 8", text, &d);
	ck_assert_msg(tu_relerr(d.mem.buffers, 64.0 * MiB) < 1e-12, "%.0f", d.mem.buffers);
	ck_assert_msg(d.mem.nccl - r.mem.nccl == 209880704.0, "%.0f", d.mem.nccl - r.mem.nccl);
	/* the allocator's slack is 3 % of the bytes held at the peak for Megatron
	 * (memory.c ALLOC_MEGATRON), so 64 MiB fewer buffers give back 3 % of
	 * 64 MiB */
	ck_assert(tu_relerr(d.mem.allocator, r.mem.allocator - 0.03 * 64.0 * MiB) < 1e-9);
	ck_assert(d.iteration_time_s == r.iteration_time_s);
	/* DeepEP has no configuration for a group of 1 (nor a dense model) */
	snprintf(text, sizeof text,
		 "%sparallel = { ep = 1; zero = 1; ep_dispatcher = \"deepep\"; };\n", ep_base);
	struct ts_scenario *sc = NULL;
	struct ts_error e;
	ck_assert_int_eq(ts_scenario_load_string(cat, text, "deepep ep 1", NULL, 0, &sc, &e), 0);
	struct work_calib k = work_calib_defaults();
	ck_assert_int_eq(ts_run(sc, &k, &d, NULL, &e), TS_EINVALID);
	ck_assert_str_eq(e.key, "parallel.ep_dispatcher");
	ts_scenario_destroy(sc);
	/* Mixtral's 8 KV heads cannot be dealt to 16 all-to-all ranks */
	snprintf(text, sizeof text, "%sparallel = { cp = 16; cp_comm = \"a2a\"; };\n", ep_base);
	ck_assert_int_eq(ts_scenario_load_string(cat, text, "a2a cp 16", NULL, 0, &sc, &e), 0);
	ck_assert_int_eq(ts_run(sc, &k, &d, NULL, &e), TS_EINVALID);
	ck_assert_str_eq(e.key, "parallel.cp_comm");
	ts_scenario_destroy(sc);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("memfit");
	TCase *tc = tu_tcase("field reports");
	tu_hw_fixture(tc, &cat, NULL);
	tcase_add_test(tc, falcon7b_zero2_does_not_fit);
	tcase_add_test(tc, llama7b_offload_batch2_fits);
	tcase_add_test(tc, public_reports);
	tcase_add_test(tc, korthikanti_through_the_schedule);
	tcase_add_test(tc, recompute_layers);
	tcase_add_test(tc, op_level_checkpointing);
	tcase_add_test(tc, reshard_after_forward);
	tcase_add_test(tc, activation_offload);
	tcase_add_test(tc, activation_offload_refused);
	tcase_add_test(tc, optimizer_step_temporaries);
	tcase_add_test(tc, exchange_buffers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	printf("case 30 (MAR, 8 x A100 80GB): skipped, the model cannot be described "
	       "(masked autoregressive encoder-decoder with a diffusion-loss MLP)\n");
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
