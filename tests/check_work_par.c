/* The work side of large-model parallelism: what each recompute mode reruns
 * (time and HFU FLOPs), mixture-of-experts ops and all-to-all bytes, ring
 * attention over cp, fp8 casts and weight copies, per-GPU flash efficiency,
 * all against hand counts.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "base/alloc.h"
#include "hw/cluster.h"
#include "work/compute.h"
#include "work/lnet.h"
#include "work/memory.h"
#include "work/model.h"
#include "work/ops.h"
#include "testutil.h"

/* An H100 SXM by hand (configs/hardware/gpus.cfg figures): 989.4 TFLOP/s
 * bf16, 1978.9 fp8, MAMF 0.8009, 132 SMs, 3.35 TB/s at 0.88. */
static struct hw_gpu_type h100(void)
{
	struct hw_gpu_type g;
	memset(&g, 0, sizeof g);
	snprintf(g.name, sizeof g.name, "H100-by-hand");
	g.peak_flops[TS_FP16] = g.peak_flops[TS_BF16] = 989.4e12;
	g.peak_flops[TS_FP8] = 1978.9e12;
	g.mamf_eff[TS_FP16] = g.mamf_eff[TS_BF16] = g.mamf_eff[TS_FP8] = 0.8009;
	g.sms = 132;
	g.hbm_Bps = 3350e9;
	g.hbm_eff = 0.88;
	g.mem_bytes = 79.11 * 1073741824.0;
	return g;
}

static struct work_costs costs(const struct ts_model *m, struct work_shape s,
			       const struct hw_gpu_type *g)
{
	struct work_costs c;
	struct ts_error e;
	char buf[600];
	struct work_calib k = work_calib_defaults();
	int rc = work_costs_compute(m, &s, g, &k, &c, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, buf, sizeof buf));
	return c;
}

static const struct work_op_cost *find_op(const struct work_costs *c, const char *name)
{
	for (size_t i = 0; i < c->nops; i++)
		if (!strcmp(c->ops[i].op.name, name))
			return &c->ops[i];
	return NULL;
}

/* GPT-3 1.3B (h = 2048, 16 heads, f = 4h), b = 1, s = 2048, T = 2048
 * tokens. One layer's forward matmul FLOPs: QKV 2·T·h·3h, projection
 * 2·T·h², MLP 2·2·T·h·4h, attention core 4·s·T·h, i.e.
 * T·(24h² + 4sh) = 2048 x 117,440,512 = 240,518,168,576. Full recompute
 * reruns all of them; selective (unfused) the attention core alone,
 * 4·2048·2048·2048 = 34,359,738,368; selective with flash nothing (flash
 * keeps no scores: its backward recomputes them inside the kernel, counted
 * in its 2.5 x backward FLOPs); none nothing. */
START_TEST(recompute_counts)
{
	struct ts_model m = tu_model("gpt3-1.3b");
	struct hw_gpu_type g = h100();
	struct work_shape s = {.micro_batch = 1,
			       .seq_len = 2048,
			       .tp = 1,
			       .dtype = TS_BF16,
			       .flash = false,
			       .causal = true};
	struct work_costs c = costs(&m, s, &g);
	ck_assert_double_eq(c.layer_recompute_flops[WORK_RECOMPUTE_NONE], 0.0);
	ck_assert_double_eq_tol(c.layer_recompute_flops[WORK_RECOMPUTE_FULL], 240518168576.0, 1.0);
	ck_assert_double_eq_tol(c.layer_recompute_flops[WORK_RECOMPUTE_SELECTIVE], 34359738368.0,
				1.0);
	/* the time is that of exactly those ops */
	ck_assert(tu_relerr(c.layer_recompute_s[WORK_RECOMPUTE_FULL], c.layer_fwd_s) < 1e-12);
	ck_assert(tu_relerr(c.layer_recompute_s[WORK_RECOMPUTE_SELECTIVE],
			    find_op(&c, "attn")->fwd_s) < 1e-12);
	ck_assert_double_eq(c.layer_recompute_s[WORK_RECOMPUTE_NONE], 0.0);
	/* selective drops the 5·a·s²·b score bytes (Korthikanti et al. 2022) */
	ck_assert_double_eq_tol(c.layer_act_bytes[WORK_RECOMPUTE_NONE] -
				    c.layer_act_bytes[WORK_RECOMPUTE_SELECTIVE],
				5.0 * 16.0 * 2048.0 * 2048.0, 1.0);
	/* full keeps the layer input only: 2·s·b·h */
	ck_assert_double_eq_tol(c.layer_act_bytes[WORK_RECOMPUTE_FULL], 2.0 * 2048.0 * 2048.0, 0.5);

	/* tp = 2 halves every op (MHA, no replication) */
	s.tp = 2;
	struct work_costs c2 = costs(&m, s, &g);
	ck_assert_double_eq_tol(c2.layer_recompute_flops[WORK_RECOMPUTE_FULL], 240518168576.0 / 2.0,
				1.0);

	/* flash: selective reruns nothing */
	s.tp = 1;
	s.flash = true;
	struct work_costs cf = costs(&m, s, &g);
	ck_assert_double_eq(cf.layer_recompute_flops[WORK_RECOMPUTE_SELECTIVE], 0.0);
	ck_assert_double_eq(cf.layer_recompute_s[WORK_RECOMPUTE_SELECTIVE], 0.0);
	ck_assert_double_eq_tol(cf.layer_recompute_flops[WORK_RECOMPUTE_FULL], 240518168576.0, 1.0);
}
END_TEST

/* HFU / MFU through ts_run equals hardware / model FLOPs. GPT is causal:
 * the model FLOPs count the attention core at half (2sh of its 4sh per
 * layer and token forward), so with full recompute per token
 * 1 + L·(24h² + 2sh) / (3·(L·(24h² + 2sh) + 2hV)); selective with flash
 * exactly 1; selective unfused 1 + L·2sh / (3·(...)). mfu_palm counts the
 * attention in full: mfu_palm / mfu = (L·(24h² + 4sh) + 2hV) /
 * (L·(24h² + 2sh) + 2hV). */
static double hfu_run(const char *recompute, const char *attention, struct ts_result *out)
{
	struct hw_catalog *cat = NULL;
	struct ts_error e;
	char buf[800], text[1024];
	ck_assert_msg(hw_catalog_load(tu_root(), &cat, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	snprintf(
	    text, sizeof text,
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; gpus_per_node = 2;\n"
	    "training = { global_batch = 4; micro_batch = 1; seq_len = 2048;"
	    " precision = \"bf16\"; recompute = \"%s\"; attention = \"%s\"; iterations = 2; };\n"
	    "sim = { granularity = \"layer\"; };\n",
	    recompute, attention);
	struct ts_scenario *sc = NULL;
	ck_assert_msg(ts_scenario_load_string(cat, text, "hfu", NULL, 0, &sc, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	struct work_calib k = work_calib_defaults();
	struct ts_result r;
	ck_assert_msg(ts_run(sc, &k, &r, NULL, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	ts_scenario_destroy(sc);
	hw_catalog_destroy(cat);
	ck_assert(r.mfu > 0.0);
	if (out)
		*out = r;
	return r.hfu / r.mfu;
}

static double hfu_over_mfu(const char *recompute, const char *attention)
{
	return hfu_run(recompute, attention, NULL);
}

START_TEST(recompute_hfu)
{
	double h = 2048.0, s = 2048.0, L = 24.0, V = 50257.0;
	double layer = 24.0 * h * h + 2.0 * s * h;
	double model = 3.0 * (L * layer + 2.0 * h * V);
	ck_assert(tu_relerr(hfu_over_mfu("full", "flash"), 1.0 + L * layer / model) < 1e-9);
	ck_assert(tu_relerr(hfu_over_mfu("selective", "unfused"), 1.0 + L * 2.0 * s * h / model) <
		  1e-9);
	/* the two conventions side by side: 1.3B at 2,048 tokens, by hand
	 * (24h² = 100,663,296, 4sh = 16,777,216, 2hV = 205,852,672 per token):
	 * (24·117,440,512 + 205,852,672) / (24·109,051,904 + 205,852,672)
	 * = 3,024,424,960 / 2,823,098,368 = 1.071314 */
	struct ts_result r;
	hfu_run("none", "flash", &r);
	ck_assert(tu_relerr(r.mfu_palm / r.mfu, 3024424960.0 / 2823098368.0) < 1e-9);
	ck_assert(fabs(r.mfu_palm / r.mfu - 1.071314) < 1e-6);
	ck_assert(tu_relerr(r.model_flops_per_iteration, 4.0 * 2048.0 * 3.0 * 2823098368.0) <
		  1e-12);
	ck_assert_double_eq(hfu_over_mfu("selective", "flash"), 1.0);
	ck_assert_double_eq(hfu_over_mfu("none", "flash"), 1.0);
}
END_TEST

/* Mixtral 8x7B, b = 1, s = 4096, bf16, flash. Expert GEMMs at ep = 1:
 * 8 local experts of T·top_k·cf/E = 4096·2/8 = 1,024 tokens; at ep = 2:
 * 4 local experts of 2,048 (the ranks' tokens meet). Model FLOPs per
 * token count the 2 experts (the capacity padding is not model FLOPs). The
 * all-to-all moves T·top_k·cf·h bf16 = 4096·2·4096·2 = 67,108,864 bytes
 * per rank each way, twice forward and twice backward. */
START_TEST(moe_ops)
{
	struct ts_model m = tu_model("mixtral-8x7b");
	struct hw_gpu_type g = h100();
	struct work_shape s = {.micro_batch = 1,
			       .seq_len = 4096,
			       .tp = 1,
			       .dtype = TS_BF16,
			       .flash = true,
			       .causal = true};
	struct work_costs c = costs(&m, s, &g);
	const struct work_op_cost *f1 = find_op(&c, "expert_fc1");
	ck_assert_ptr_nonnull(f1);
	ck_assert_double_eq(f1->op.batch, 8.0);
	ck_assert_double_eq(f1->op.m, 1024.0);
	ck_assert_double_eq(f1->op.n, 2.0 * 14336.0);
	ck_assert_double_eq(f1->op.k, 4096.0);
	ck_assert_ptr_nonnull(find_op(&c, "router"));
	/* executed = model FLOPs at capacity 1.0 */
	ck_assert(tu_relerr(c.layer_exec_fwd_flops, c.layer_fwd_flops) < 1e-12);
	ck_assert(tu_relerr(c.layer_fwd_flops,
			    4096.0 * (2.0 * 4096.0 * (4096.0 + 2048.0) + 2.0 * 4096.0 * 4096.0 +
				      2.0 * 2.0 * 3.0 * 4096.0 * 14336.0 + 2.0 * 4096.0 * 8.0 +
				      4.0 * 4096.0 * 4096.0)) < 1e-12);
	ck_assert_double_eq_tol(c.layer_a2a_bytes, 67108864.0, 0.5);
	ck_assert_uint_eq(c.layer_a2a_fwd, 2);
	ck_assert_uint_eq(c.layer_a2a_bwd, 2);
	double params1 = c.layer_params;

	s.ep = 2;
	struct work_costs c2 = costs(&m, s, &g);
	f1 = find_op(&c2, "expert_fc1");
	ck_assert_double_eq(f1->op.batch, 4.0);
	ck_assert_double_eq(f1->op.m, 2048.0);
	/* half the experts' weights on a rank: 4 x 3·h·f fewer */
	ck_assert_double_eq_tol(params1 - c2.layer_params, 4.0 * 3.0 * 4096.0 * 14336.0, 0.5);
	ck_assert(tu_relerr(c2.layer_exec_fwd_flops, c.layer_exec_fwd_flops) < 1e-12);

	/* capacity 1.25 pads every expert GEMM by 25 % */
	m.capacity_factor = 1.25;
	s.ep = 1;
	struct work_costs c3 = costs(&m, s, &g);
	ck_assert(tu_relerr(find_op(&c3, "expert_fc1")->op.fwd_flops,
			    1.25 * find_op(&c, "expert_fc1")->op.fwd_flops) < 1e-12);
	ck_assert_double_eq_tol(c3.layer_a2a_bytes, 1.25 * 67108864.0, 0.5);

	/* ep that does not divide the experts, ep on a dense model */
	struct work_costs bad;
	struct ts_error e;
	struct work_calib k = work_calib_defaults();
	char buf[600];
	s.ep = 3;
	ck_assert_int_eq(work_costs_compute(&m, &s, &g, &k, &bad, &e), TS_EINVALID);
	ck_assert_msg(strstr(ts_error_format(&e, buf, sizeof buf), "parallel.ep"), "%s", buf);
	struct ts_model d = tu_model("llama2-7b");
	s.ep = 2;
	ck_assert_int_eq(work_costs_compute(&d, &s, &g, &k, &bad, &e), TS_EINVALID);
	/* dense models carry no all-to-all */
	s.ep = 1;
	ck_assert_double_eq(costs(&d, s, &g).layer_a2a_bytes, 0.0);
}
END_TEST

/* Llama 2 7B at s = 8192 over cp = 4: 2,048 query tokens per rank against
 * all 8,192 keys; the layer's FLOPs are those of 2,048 tokens; the KV
 * chunk one rank sends per ring step is 2,048 tokens x 2 x 4,096 x 2 bytes
 * = 33,554,432, three steps forward, twice the bytes per step backward. */
START_TEST(ring_attention)
{
	struct ts_model m = tu_model("llama2-7b");
	struct hw_gpu_type g = h100();
	struct work_shape s = {.micro_batch = 1,
			       .seq_len = 8192,
			       .tp = 1,
			       .dtype = TS_BF16,
			       .flash = true,
			       .causal = true,
			       .cp = 4};
	struct work_costs c = costs(&m, s, &g);
	const struct work_op_cost *a = find_op(&c, "attn");
	ck_assert_double_eq(a->op.m, 2048.0);
	ck_assert_double_eq(a->op.n, 8192.0);
	ck_assert(tu_relerr(c.layer_fwd_flops, work_layer_flops_per_token(&m, 8192) * 2048.0) <
		  1e-12);
	ck_assert_double_eq_tol(c.layer_cp_kv_bytes, 33554432.0, 0.5);
	ck_assert_uint_eq(c.layer_cp_steps, 3);
	ck_assert_double_eq_tol(c.layer_cp_bwd_bytes, 2.0 * 33554432.0, 0.5);
	/* the attention core per rank is a quarter of the whole sequence's */
	s.cp = 1;
	struct work_costs c1 = costs(&m, s, &g);
	ck_assert(tu_relerr(a->op.fwd_flops, find_op(&c1, "attn")->op.fwd_flops / 4.0) < 1e-12);
	ck_assert_double_eq(c1.layer_cp_kv_bytes, 0.0);
	/* 8192 is not 6 equal halves-of-chunks: cp = 3 is refused */
	s.cp = 3;
	struct work_costs bad;
	struct ts_error e;
	struct work_calib k = work_calib_defaults();
	char buf[600];
	ck_assert_int_eq(work_costs_compute(&m, &s, &g, &k, &bad, &e), TS_EINVALID);
	ck_assert_msg(strstr(ts_error_format(&e, buf, sizeof buf), "parallel.cp"), "%s", buf);
}
END_TEST

/* fp8 on Llama 2 7B, b = 1, s = 4096 (T = 4096, h = 4096, f = 11008):
 * the cast op moves 4 bytes per element of the GEMM inputs forward,
 * T·(h + h + h + f) = 4096 x 23,296, and of the output gradients
 * backward, T·(3h + h + 2f + h) = 4096 x 42,496; GEMMs run at the fp8
 * peak, attention at the bf16 peak. Megatron's bytes per parameter grow
 * from 18 to 20 (fp8 weight and transpose copies) and the step touches
 * 4 more. */
START_TEST(fp8_costs)
{
	struct ts_model m = tu_model("llama2-7b");
	struct hw_gpu_type g = h100();
	struct work_calib k = work_calib_defaults();
	struct work_shape s = {.micro_batch = 1,
			       .seq_len = 4096,
			       .tp = 1,
			       .dtype = TS_FP8,
			       .flash = true,
			       .causal = true};
	struct work_costs c = costs(&m, s, &g);
	const struct work_op_cost *cast = find_op(&c, "fp8_cast");
	ck_assert_ptr_nonnull(cast);
	ck_assert_double_eq_tol(cast->op.fwd_bytes, 4.0 * 4096.0 * 23296.0, 0.5);
	ck_assert_double_eq_tol(cast->op.dgrad_bytes, 4.0 * 4096.0 * 42496.0, 0.5);
	ck_assert(tu_relerr(cast->fwd_s, cast->op.fwd_bytes / (3350e9 * 0.88)) < 1e-12);
	const struct work_op_cost *qkv = find_op(&c, "qkv");
	double eta = work_gemm_eff(&g, TS_FP8, &k, 4096.0, 3.0 * 4096.0, 4096.0);
	ck_assert(tu_relerr(qkv->fwd_s, qkv->op.fwd_flops / (1978.9e12 * eta)) < 1e-12);
	const struct work_op_cost *at = find_op(&c, "attn");
	/* causal over 4,096 keys: 32 blocks of 128, 33/64 of the work, at the
	 * flash rate of 4,096 keys and head dim 128 (196 / 187 of 2k's) */
	ck_assert(tu_relerr(work_flash_shape(4096.0, 128.0), 196.0 / 187.0) < 1e-12);
	ck_assert(tu_relerr(at->fwd_s,
			    33.0 / 64.0 * at->op.fwd_flops /
				(989.4e12 * k.flash_eff * 196.0 / 187.0 * k.tc_sustain)) < 1e-12);
	/* bf16 has no cast op */
	s.dtype = TS_BF16;
	struct work_costs cb = costs(&m, s, &g);
	ck_assert_ptr_null(find_op(&cb, "fp8_cast"));
	/* fp8 GEMMs keep their inputs for the weight gradient as the fp8 cast:
	 * qkv's T x h input is 4096 x 4096 bytes, against 2 x that in bf16;
	 * fc2's T x f likewise */
	ck_assert_double_eq(qkv->op.saved_bytes, 4096.0 * 4096.0);
	ck_assert_double_eq(find_op(&cb, "qkv")->op.saved_bytes, 2.0 * 4096.0 * 4096.0);
	ck_assert_double_eq(find_op(&c, "fc2")->op.saved_bytes, 4096.0 * 11008.0);
	struct work_fw_conventions v8, v16;
	ck_assert_int_eq(work_fw_conventions(WORK_FW_MEGATRON, TS_FP8, &v8), 0);
	ck_assert_int_eq(work_fw_conventions(WORK_FW_MEGATRON, TS_BF16, &v16), 0);
	ck_assert_double_eq(v16.bytes_per_param, 18.0);
	ck_assert_double_eq(v8.bytes_per_param, 20.0);
	ck_assert_double_eq(v8.weight_bytes, 4.0);
	ck_assert_double_eq(v8.optim_bytes_touched, v16.optim_bytes_touched + 4.0);
}
END_TEST

/* fp8 on an A100 (no fp8 tensor cores) is a bad-input error naming the key
 * and the GPU; MFU of an fp8 run on H100 is against the bf16 peak. */
START_TEST(fp8_errors_and_mfu)
{
	struct hw_catalog *cat = NULL;
	struct ts_error e;
	char buf[800];
	ck_assert_msg(hw_catalog_load(tu_root(), &cat, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	const char *text = "model = \"llama2-7b\"; cluster = \"%s\"; gpus_per_node = 1;\n"
			   "training = { global_batch = 1; micro_batch = 1; seq_len = 4096;"
			   " precision = \"fp8\"; iterations = 2; };\n";
	char t[512];
	snprintf(t, sizeof t, text, "dgx-a100-80gb");
	struct ts_scenario *sc = NULL;
	struct work_calib k = work_calib_defaults();
	struct ts_result r;
	int rc = ts_scenario_load_string(cat, t, "fp8", NULL, 0, &sc, &e);
	if (rc == 0) {
		rc = ts_run(sc, &k, &r, NULL, &e);
		ts_scenario_destroy(sc);
		sc = NULL;
	}
	ck_assert_int_ne(rc, 0);
	ts_error_format(&e, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "training.precision") && strstr(buf, "A100") &&
			  strstr(buf, "fp8") && !strchr(buf, '\n'),
		      "%s", buf);
	snprintf(t, sizeof t, text, "dgx-h100");
	ck_assert_msg(ts_scenario_load_string(cat, t, "fp8", NULL, 0, &sc, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	ck_assert_msg(ts_run(sc, &k, &r, NULL, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	ck_assert(tu_relerr(r.mfu, r.model_flops_per_iteration /
				       (r.iteration_time_s * 1.0 * 989.4e12)) < 1e-3);
	ts_scenario_destroy(sc);
	hw_catalog_destroy(cat);
}
END_TEST

/* The H100 entries of the catalog carry their own flash efficiency (the
 * FA3 paper's 35 % for FlashAttention-2 on H100); A100 entries none, so
 * the calibration's value applies. */
START_TEST(flash_eff_per_gpu)
{
	struct hw_catalog *cat = NULL;
	struct ts_error e;
	char buf[800];
	ck_assert_msg(hw_catalog_load(tu_root(), &cat, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	const struct hw_gpu_type *h =
	    hw_catalog_gpu(cat, (size_t)hw_catalog_find_gpu(cat, "H100-SXM5-80GB"));
	const struct hw_gpu_type *a =
	    hw_catalog_gpu(cat, (size_t)hw_catalog_find_gpu(cat, "A100-SXM4-80GB"));
	ck_assert_double_eq(h->flash_eff, 0.35);
	ck_assert_double_eq(a->flash_eff, 0.0);
	const char *src = hw_catalog_gpu_source(
	    cat, (size_t)hw_catalog_find_gpu(cat, "H100-SXM5-80GB"), "flash_eff");
	ck_assert_msg(src && strstr(src, "2407.08608"), "%s", src ? src : "(none)");
	struct work_calib k = work_calib_defaults();
	struct work_op op = {.kind = WORK_ATTN_FLASH, .fwd_flops = 1e12, .causal = false};
	ck_assert(tu_relerr(work_op_time(h, TS_BF16, &k, &op, WORK_FWD),
			    1e12 / (h->peak_flops[TS_BF16] * 0.35 * k.tc_sustain)) < 1e-12);
	ck_assert(tu_relerr(work_op_time(a, TS_BF16, &k, &op, WORK_FWD),
			    1e12 / (a->peak_flops[TS_BF16] * k.flash_eff * k.tc_sustain)) < 1e-12);
	hw_catalog_destroy(cat);
}
END_TEST

/* Full recompute on a layer list, by hand: a stem (conv 3 -> 32, 3 x 3;
 * batch norm; ReLU) on 32 x 32 images, two identical bottlenecks (32 -> 8
 * -> 8 -> 32, no projection), global pool and a linear head; 64 images of
 * bf16 activations on one A100. Saved elements per image (each op saves
 * its input, a convolution after an in-place ReLU sharing the ReLU's saved
 * output): conv 3,072; batch norm and ReLU 32,768 each; a bottleneck 0
 * (its first conv) + 4 x 8,192 (bn, relu, bn, relu over 8 channels; the two
 * other convs share) + 32,768 (bn) + 32,768 (relu) = 98,304; linear 32.
 * Without recompute the peak holds all: 265,248 per image, x 64 x 2 B =
 * 33,951,744 B. With it the forward keeps the stem's 68,608, nothing for the
 * first bottleneck's input (the stem's ReLU output, kept), 32,768 for the
 * second's (the first bottleneck's ReLU output, dropped with its block) and
 * 32; the peak comes as the second bottleneck is rerun, the head already
 * freed: 101,408 - 32 + 98,304 = 199,680, x 128 B = 25,559,040 B. The rerun
 * is the two bottlenecks' forward, on the compute path. */
START_TEST(layer_list_checkpointing)
{
	struct hw_catalog *cat = NULL;
	struct ts_error e;
	char buf[800], text[1400];
	ck_assert_msg(hw_catalog_load(tu_root(), &cat, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	const char *model =
	    "model = { family = \"layers\"; input = { channels = 3; height = 32; width = 32; };\n"
	    " layer_list = ( { op = \"conv\"; out = 32; kernel = 3; stride = 1; },"
	    " { op = \"bn\"; }, { op = \"relu\"; },"
	    " { op = \"bottleneck\"; mid = 8; out = 32; stride = 1; repeat = 2; },"
	    " { op = \"avgpool\"; }, { op = \"linear\"; out = 10; } ); };\n";
	struct work_calib k = work_calib_defaults();
	struct ts_result r[2][2];
	const char *mode[2] = {"none", "full"}, *gran[2] = {"layer", "op"};
	for (int g = 0; g < 2; g++)
		for (int i = 0; i < 2; i++) {
			snprintf(text, sizeof text,
				 "%scluster = \"dgx-a100-80gb\"; gpus_per_node = 1;\n"
				 "training = { framework = \"ddp\"; global_batch = 64; "
				 "micro_batch = 64; precision = \"bf16\"; recompute = \"%s\"; "
				 "iterations = 2; };\n"
				 "sim = { granularity = \"%s\"; };\n",
				 model, mode[i], gran[g]);
			struct ts_scenario *sc = NULL;
			ck_assert_msg(
			    ts_scenario_load_string(cat, text, "ckpt", NULL, 0, &sc, &e) == 0, "%s",
			    ts_error_format(&e, buf, sizeof buf));
			ck_assert_msg(ts_run(sc, &k, &r[g][i], NULL, &e) == 0, "%s",
				      ts_error_format(&e, buf, sizeof buf));
			ts_scenario_destroy(sc);
		}
	for (int g = 0; g < 2; g++) {
		ck_assert_msg(fabs(r[g][0].mem.activations - 33951744.0) < 1.0, "%s none: %.0f",
			      gran[g], r[g][0].mem.activations);
		ck_assert_msg(fabs(r[g][1].mem.activations - 25559040.0) < 1.0, "%s full: %.0f",
			      gran[g], r[g][1].mem.activations);
		/* the total drops by the activations, plus the allocator's slack
		 * on them (a fraction of the bytes held) */
		ck_assert(fabs((r[g][0].memory_per_gpu_bytes - r[g][0].mem.allocator) -
			       (r[g][1].memory_per_gpu_bytes - r[g][1].mem.allocator) -
			       (33951744.0 - 25559040.0)) < 1.0);
		ck_assert(r[g][0].mem.allocator > r[g][1].mem.allocator);
		ck_assert_double_eq(r[g][0].recompute_s, 0.0);
		ck_assert_double_eq(r[g][0].hfu, r[g][0].mfu);
		ck_assert(r[g][1].hfu > r[g][1].mfu);
	}
	/* the rerun: the forward of the ops of the two bottlenecks (all but
	 * the stem's three ops and the head's two), the one micro-batch once */
	struct ts_scenario *sc = NULL;
	snprintf(text, sizeof text, "%scluster = \"dgx-a100-80gb\"; gpus_per_node = 1;\n", model);
	ck_assert_int_eq(ts_scenario_load_string(cat, text, "ckpt", NULL, 0, &sc, &e), 0);
	struct work_lnet_op *ops;
	size_t n;
	ck_assert_int_eq(work_lnet_ops(&sc->model, 64, 1, TS_BF16, hw_cluster_gpu_type(sc->cluster),
				       &k, &ops, &n, &e),
			 0);
	double fwd = 0.0;
	ck_assert_uint_eq(n, 3 + 2 * 10 + 2);
	for (size_t i = 3; i + 2 < n; i++)
		fwd += ops[i].c.fwd_s;
	ts_free(ops, n * sizeof *ops);
	ts_scenario_destroy(sc);
	for (int g = 0; g < 2; g++)
		ck_assert_msg(fabs(r[g][1].recompute_s - fwd) < 2e-9 * 40,
			      "%s: %.9f s, want %.9f s", gran[g], r[g][1].recompute_s, fwd);
	hw_catalog_destroy(cat);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("work_par");
	TCase *t = tu_tcase("core");
	tcase_add_test(t, recompute_counts);
	tcase_add_test(t, recompute_hfu);
	tcase_add_test(t, layer_list_checkpointing);
	tcase_add_test(t, moe_ops);
	tcase_add_test(t, ring_attention);
	tcase_add_test(t, fp8_costs);
	tcase_add_test(t, fp8_errors_and_mfu);
	tcase_add_test(t, flash_eff_per_gpu);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
