/* The granularity rule (sim/plan/plan.h, plan_stage_exact) on the
 * validation sources: where it says stage gives layer's figures, the
 * iteration time, its exposed communication and the memory per GPU are
 * equal at both; it says so on rows of every kind it covers (data
 * parallelism, pipelines, tensor parallelism over whole nodes), and where
 * it says not, stage differs from layer on some rows (the rule is not
 * vacuous: FSDP, TP communication overlap). And the cases that took a
 * stage's tensor-parallel collectives apart from layer's.
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
#include "plan/env.h"
#include "plan/plan.h"
#include "run/run.h"
#include "run/validate.h"
#include "testutil.h"
#include "work/compute.h"

static struct hw_catalog *cat;
static struct work_calib calib;

/* Rows of both validation files, every `every`-th (the pipelined MEG24
 * rows, seconds each at layer granularity, are left out). */
START_TEST(test_stage_rule)
{
	struct ts_env env;
	struct ts_error err;
	ck_assert_int_eq(env_wrap(cat, &calib, &env, &err), 0);
	size_t exact = 0, exact_pp = 0, exact_dp = 0, exact_tp = 0, inexact = 0, differ = 0;
	for (int multi = 0; multi < 2; multi++) {
		struct val_row *rows;
		size_t n;
		int rc = multi ? val_load_multi(tu_root(), &rows, &n, &err)
			       : val_load(tu_root(), &rows, &n, &err);
		ck_assert_msg(rc == 0, "%s", err.msg);
		for (size_t i = 0; i < n; i += multi ? 2 : 3) {
			struct ts_scenario *sc;
			ck_assert_msg(ts_scenario_load_string(cat, rows[i].scenario, rows[i].id,
							      NULL, 0, &sc, &err) == 0,
				      "%s: %s", rows[i].id, err.msg);
			if (plan_check_modelled(sc, NULL) == TS_EUNSUPPORTED ||
			    (rows[i].src == VAL_MEG24 && sc->parallel.pp > 1)) {
				ts_scenario_destroy(sc);
				continue;
			}
			struct ts_plan *p;
			ck_assert_msg(plan_build(&env, sc, &p, &err) == 0, "%s: %s", rows[i].id,
				      err.msg);
			bool rule = plan_stage_exact(p);
			plan_destroy(p);
			struct ts_result r[2];
			const enum ts_granularity g[2] = {TS_GRAN_LAYER, TS_GRAN_STAGE};
			for (int k = 0; k < 2; k++) {
				sc->sim.granularity = g[k];
				ck_assert_msg(ts_run(sc, &calib, &r[k], NULL, &err) == 0, "%s: %s",
					      rows[i].id, err.msg);
			}
			double dt = fabs(r[1].iteration_time_s / r[0].iteration_time_s - 1.0);
			if (rule) {
				ck_assert_msg(dt <= 1e-6, "%s: layer %.9g s, stage %.9g s",
					      rows[i].id, r[0].iteration_time_s,
					      r[1].iteration_time_s);
				ck_assert_msg(fabs(r[1].exposed_comm_s - r[0].exposed_comm_s) <=
						  1e-6 * r[0].iteration_time_s,
					      "%s: exposed communication %.9g vs %.9g s",
					      rows[i].id, r[0].exposed_comm_s, r[1].exposed_comm_s);
				ck_assert_msg(
				    fabs(r[1].memory_per_gpu_bytes / r[0].memory_per_gpu_bytes -
					 1.0) <= 1e-9,
				    "%s: memory %.6g vs %.6g bytes", rows[i].id,
				    r[0].memory_per_gpu_bytes, r[1].memory_per_gpu_bytes);
				exact++;
				exact_pp += sc->parallel.pp > 1;
				exact_dp += sc->parallel.dp > 1;
				exact_tp += sc->parallel.tp > 1;
			} else {
				inexact++;
				/* 1e-4, a hundred times the exact rows' 1e-6: TP
				 * overlap rows (MEG24-003) differ by 6e-4, as the
				 * stage's collectives share links differently; the
				 * overlap's GEMM slowdown itself is the same at both */
				differ += dt > 1e-4;
			}
			ts_scenario_destroy(sc);
		}
		val_rows_free(rows, n);
	}
	env_release(&env);
	ck_assert_uint_gt(exact_pp, 0);
	ck_assert_uint_gt(exact_dp, 0);
	ck_assert_uint_gt(exact_tp, 0);
	ck_assert_uint_gt(exact, 50);
	ck_assert_uint_gt(inexact, 0);
	ck_assert_uint_gt(differ, 0);
	printf("stage rule: %zu rows exact (%zu pp, %zu dp, %zu tp), %zu not (%zu differ)\n", exact,
	       exact_pp, exact_dp, exact_tp, inexact, differ);
}
END_TEST

/* Tensor parallelism over whole nodes at stage granularity against layer
 * (GPT-3 13B and 175B on DGX A100): a pass's collectives as the units'
 * own (one collective repeated per unit) and a gradient reduction after
 * the pass waiting for all but the last unit's, as layer's waits for them.
 * Equal to 1e-5 of the iteration: layer rounds the end of each of its more
 * numerous tasks up to the nanosecond, at most 1 ns per task on the
 * critical path, a few thousand over these iterations (measured 2e-8 to
 * 3e-6). Stage issuing one collective of the pass's summed size, with the
 * reduction not waiting, was 3.5 % off on the first case. */
START_TEST(test_tp_node_stage)
{
	static const char *const cases[] = {
	    /* one micro-batch: the reduction right after the last pass */
	    "model = \"gpt3-13b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
	    "training = { framework = \"megatron\"; global_batch = 2; micro_batch = 1; seq_len = "
	    "2048; };\n"
	    "parallel = { tp = 8; };\n",
	    /* buckets reduced during the last backward */
	    "model = \"gpt3-13b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
	    "training = { framework = \"ddp\"; global_batch = 64; micro_batch = 1; seq_len = 2048; "
	    "};\n"
	    "parallel = { tp = 8; };\n",
	    /* pipelines, sequence parallelism, ZeRO-1 */
	    "model = \"gpt3-13b\"; cluster = \"dgx-h100\"; nodes = 8;\n"
	    "training = { framework = \"megatron\"; global_batch = 64; micro_batch = 1; seq_len = "
	    "2048; };\n"
	    "parallel = { tp = 8; pp = 4; sp = true; zero = 1; };\n",
	    "model = \"gpt3-175b\"; cluster = \"dgx-a100-80gb\"; nodes = 128;\n"
	    "training = { framework = \"megatron\"; global_batch = 1536; micro_batch = 1; seq_len "
	    "= 2048; };\n"
	    "parallel = { tp = 8; pp = 16; };\n",
	};
	struct ts_env env;
	struct ts_error err;
	ck_assert_int_eq(env_wrap(cat, &calib, &env, &err), 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *set = "sim.samples=1";
		struct ts_scenario *sc;
		ck_assert_msg(
		    ts_scenario_load_string(cat, cases[i], "tp.cfg", &set, 1, &sc, &err) == 0, "%s",
		    err.msg);
		struct ts_plan *p;
		ck_assert_msg(plan_build(&env, sc, &p, &err) == 0, "%s", err.msg);
		ck_assert(plan_stage_exact(p));
		plan_destroy(p);
		struct ts_result r[2];
		const enum ts_granularity g[2] = {TS_GRAN_LAYER, TS_GRAN_STAGE};
		for (int k = 0; k < 2; k++) {
			sc->sim.granularity = g[k];
			ck_assert_msg(ts_run(sc, &calib, &r[k], NULL, &err) == 0, "%s", err.msg);
		}
		double T = r[0].iteration_time_s;
		ck_assert_msg(fabs(r[1].iteration_time_s - T) <= 1e-5 * T,
			      "case %zu: layer %.9g s, stage %.9g s", i, T, r[1].iteration_time_s);
		ck_assert_msg(fabs(r[1].exposed_comm_s - r[0].exposed_comm_s) <= 1e-5 * T,
			      "case %zu: exposed communication %.9g vs %.9g s", i,
			      r[0].exposed_comm_s, r[1].exposed_comm_s);
		ck_assert_msg(fabs(r[1].bubble_s - r[0].bubble_s) <= 1e-5 * T,
			      "case %zu: bubble %.9g vs %.9g s", i, r[0].bubble_s, r[1].bubble_s);
		ck_assert(r[1].memory_per_gpu_bytes == r[0].memory_per_gpu_bytes);
		ts_scenario_destroy(sc);
	}
	env_release(&env);
}
END_TEST

/* sim.granularity = "auto" (the default) resolves to stage where the rule
 * holds and to layer elsewhere, and the result says which it simulated;
 * an explicit level is kept. GPT-3 1.3B on one DGX A100: DP 8, TP 8 and
 * ZeRO-3 (a stage's pass cut at every FSDP unit) take stage, TP 2 inside
 * the node and context parallelism layer. */
START_TEST(test_auto_resolves)
{
	static const char base[] =
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { global_batch = 64; micro_batch = 1; seq_len = 1024; iterations = 2; };\n";
	static const struct {
		const char *set, *want;
	} cases[] = {{"parallel.tp=1", "stage"},
		     {"parallel.tp=8", "stage"},
		     {"parallel.tp=2", "layer"},
		     {"parallel.zero=3", "stage"},
		     {"parallel.cp=2", "layer"},
		     {"sim.granularity=\"op\"", "op"},
		     {"sim.granularity=\"layer\"", "layer"},
		     {"sim.granularity=\"stage\"", "stage"}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ts_error err;
		struct ts_scenario *sc;
		const char *sets[2] = {cases[i].set, "sim.samples=1"};
		ck_assert_msg(ts_scenario_load_string(cat, base, "auto.cfg", sets, 2, &sc, &err) ==
				  0,
			      "%s", err.msg);
		struct ts_result r;
		ck_assert_msg(ts_run(sc, &calib, &r, NULL, &err) == 0, "%s", err.msg);
		ck_assert_msg(!strcmp(r.granularity, cases[i].want), "%s: %s, expected %s",
			      cases[i].set, r.granularity, cases[i].want);
		ts_scenario_destroy(sc);
	}
}
END_TEST

/* Memory never depends on the task size simulated or on rank classes:
 * for ZeRO 0-3 (Megatron, DeepSpeed, FSDP), offload, TP, SP, PP (1F1B and
 * interleaved), CP, EP and recomputation, the peak memory per GPU is the
 * same at op, layer and stage granularity in class and in full mode (to
 * 1e-9: the same bytes, summed in another order). Iteration times: class
 * equals full to the nanosecond; stage equals layer to 1e-5 where
 * plan_stage_exact holds; op and layer, and stage and layer elsewhere,
 * within GRAN_TIME_TOL: op issues each op's tensor-parallel collective
 * and its kernels' launches apart (more latencies), and a stage's pass
 * overlaps TP, CP or EP traffic with compute less finely than layer
 * (measured at most 2.7 %, TP 8 with PP 2). Before ZeRO-3 gathered per
 * FSDP unit at every granularity, stage held a stage's whole weights
 * (Llama-2-7B, 4 GPUs: 12.6 against 3.3 GiB) and op one op's. */
#define GRAN_TIME_TOL 0.05
START_TEST(test_memory_every_level)
{
	static const char base[] =
	    "model = { base = \"llama2-7b\"; layers = 4; }; cluster = \"dgx-a100-80gb\";\n"
	    "nodes = 2; gpus_per_node = 8;\n"
	    "training = { framework = \"megatron\"; global_batch = 32; micro_batch = 1;\n"
	    "  seq_len = 2048; iterations = 2; };\n";
	static const char moe[] =
	    "model = { base = \"mixtral-8x7b\"; layers = 2; }; cluster = \"dgx-h100\";\n"
	    "nodes = 2; gpus_per_node = 8;\n"
	    "training = { framework = \"megatron\"; global_batch = 32; micro_batch = 1;\n"
	    "  seq_len = 2048; iterations = 2; };\n";
	static const struct {
		const char *text, *set[4];
	} cases[] = {
	    {base, {"parallel.zero=0"}},
	    {base, {"parallel.zero=1"}},
	    {base, {"parallel.zero=2"}},
	    {base, {"parallel.zero=3"}},
	    {base, {"training.framework=\"fsdp\"", "parallel.zero=3"}},
	    /* DeepSpeed's prefetch: a quarter of a 7B layer taken at the issue */
	    {base, {"training.framework=\"deepspeed\"", "parallel.zero=3"}},
	    {base, {"training.framework=\"fsdp\"", "parallel.zero=3", "parallel.pp=2"}},
	    {base, {"parallel.zero=3", "parallel.reshard_after_forward=false"}},
	    /* FSDP1 without its rate limiter: every all-gather as soon as the
	     * gather stream is free (pipe_job.gather_unlimited) */
	    {base,
	     {"training.framework=\"fsdp\"", "parallel.fsdp_version=1",
	      "parallel.limit_all_gathers=false"}},
	    {base,
	     {"training.framework=\"fsdp\"", "parallel.fsdp_version=1",
	      "parallel.limit_all_gathers=false", "training.recompute=\"full\""}},
	    {base,
	     {"training.framework=\"fsdp\"", "parallel.fsdp_version=1",
	      "parallel.limit_all_gathers=false", "parallel.pp=2"}},
	    {base,
	     {"training.framework=\"fsdp\"", "parallel.fsdp_version=1",
	      "parallel.limit_all_gathers=false", "parallel.offload=\"cpu\""}},
	    {base,
	     {"training.framework=\"deepspeed\"", "parallel.zero=2", "parallel.offload=\"cpu\""}},
	    {base, {"parallel.zero=3", "parallel.offload=\"cpu\""}},
	    {base, {"parallel.tp=2", "parallel.sp=true", "training.recompute=\"selective\""}},
	    {base, {"parallel.tp=8", "parallel.pp=2"}},
	    {base, {"parallel.pp=4", "parallel.zero=1", "training.recompute=\"full\""}},
	    {base, {"parallel.pp=2", "training.recompute=\"full\"", "training.recompute_layers=1"}},
	    {base, {"parallel.pp=2", "parallel.schedule=\"interleaved\"", "parallel.interleave=2"}},
	    {base, {"parallel.pp=2", "parallel.tp=2", "parallel.zero=3"}},
	    {base, {"parallel.cp=2", "parallel.zero=1"}},
	    {moe, {"parallel.ep=2", "parallel.zero=1"}},
	    {moe, {"parallel.ep=4", "parallel.tp=2", "parallel.zero=3"}},
	    /* the exchanges' buffers make the peak: ring attention's in a
	     * backward that reruns its forward (selective and full), the
	     * all-to-alls' with full recompute and with pipelining */
	    {base, {"parallel.cp=4", "training.seq_len=16384", "training.recompute=\"full\""}},
	    {base,
	     {"parallel.cp=2", "parallel.pp=2", "training.seq_len=8192",
	      "training.recompute=\"selective\""}},
	    {moe, {"parallel.ep=8", "training.recompute=\"full\""}},
	    {base,
	     {"parallel.cp=4", "parallel.cp_comm=\"a2a\"", "training.seq_len=16384",
	      "training.recompute=\"full\""}},
	    {moe, {"parallel.ep=4", "parallel.pp=2", "training.recompute=\"full\""}},
	    /* PyTorch's op-level selective checkpointing and torchtitan's
	     * every-N-th-layer checkpointing */
	    {base, {"training.framework=\"fsdp\"", "parallel.zero=3", "training.recompute=\"op\""}},
	    {base,
	     {"training.framework=\"fsdp\"", "parallel.tp=2", "parallel.sp=true",
	      "training.recompute=\"op\""}},
	    {base,
	     {"training.framework=\"fsdp\"", "parallel.pp=2", "parallel.zero=1",
	      "training.recompute=\"op\""}},
	    {base,
	     {"training.framework=\"fsdp\"", "parallel.pp=2", "training.recompute=\"full\"",
	      "training.recompute_interval=2"}},
	    {moe,
	     {"training.framework=\"fsdp\"", "parallel.ep=4", "parallel.tp=2",
	      "training.recompute=\"op\""}},
	    /* activation offload to host memory (Megatron-Core's cpu_offloading;
	     * PyTorch's with full recompute and ZeRO-3 with its CPU offload) */
	    {base, {"parallel.zero=1", "parallel.tp=2", "training.activation_offload_layers=2"}},
	    {base,
	     {"training.framework=\"fsdp\"", "training.recompute=\"full\"",
	      "training.activation_offload_layers=3"}},
	    {base,
	     {"training.framework=\"fsdp\"", "parallel.offload=\"cpu\"",
	      "training.activation_offload_layers=1"}},
	};
	static const enum ts_granularity g[3] = {TS_GRAN_OP, TS_GRAN_LAYER, TS_GRAN_STAGE};
	struct ts_env env;
	struct ts_error err;
	ck_assert_int_eq(env_wrap(cat, &calib, &env, &err), 0);
	double worst = 0.0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *sets[5] = {"sim.samples=1"};
		size_t ns = 1;
		while (ns < 5 && cases[i].set[ns - 1])
			sets[ns] = cases[i].set[ns - 1], ns++;
		struct ts_scenario *sc;
		ck_assert_msg(ts_scenario_load_string(cat, cases[i].text, "mem.cfg", sets, ns, &sc,
						      &err) == 0,
			      "case %zu: %s", i, err.msg);
		struct ts_plan *p;
		ck_assert_msg(plan_build(&env, sc, &p, &err) == 0, "case %zu: %s", i, err.msg);
		bool exact = plan_stage_exact(p);
		plan_destroy(p);
		struct ts_result r[2][3];
		for (int m = 0; m < 2; m++)
			for (int k = 0; k < 3; k++) {
				sc->sim.mode = m ? TS_MODE_FULL : TS_MODE_CLASS;
				sc->sim.granularity = g[k];
				ck_assert_msg(ts_run(sc, &calib, &r[m][k], NULL, &err) == 0,
					      "case %zu: %s", i, err.msg);
			}
		double mem = r[0][1].memory_per_gpu_bytes, T = r[0][1].iteration_time_s;
		for (int m = 0; m < 2; m++)
			for (int k = 0; k < 3; k++) {
				ck_assert_msg(tu_relerr(r[m][k].memory_per_gpu_bytes, mem) <= 1e-9,
					      "case %zu (%s ...) %s/%d: %.6g bytes, layer %.6g", i,
					      cases[i].set[0], m ? "full" : "class", k,
					      r[m][k].memory_per_gpu_bytes, mem);
				ck_assert_int_eq(ts_time_from_s(r[m][k].iteration_time_s),
						 ts_time_from_s(r[0][k].iteration_time_s));
			}
		double dop = tu_relerr(r[0][0].iteration_time_s, T);
		double dst = tu_relerr(r[0][2].iteration_time_s, T);
		ck_assert_msg(dst <= (exact ? 1e-5 : GRAN_TIME_TOL) && dop <= GRAN_TIME_TOL,
			      "case %zu (%s ...): op %.6g, layer %.6g, stage %.6g s", i,
			      cases[i].set[0], r[0][0].iteration_time_s, T,
			      r[0][2].iteration_time_s);
		worst = fmax(worst, fmax(dop, dst));
		ts_scenario_destroy(sc);
	}
	printf("memory at every level: %zu cases, times within %.2f %% of layer\n",
	       sizeof cases / sizeof cases[0], 100.0 * worst);
	env_release(&env);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("granularity");
	TCase *tc = tu_tcase("core");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, test_stage_rule);
	tcase_add_test(tc, test_tp_node_stage);
	tcase_add_test(tc, test_auto_resolves);
	tcase_add_test(tc, test_memory_every_level);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
