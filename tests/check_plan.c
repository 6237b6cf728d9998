/* Tests of the plan (sim/plan/plan.c): nothing below it opens a file (a
 * run, a search candidate and a sweep point are counted through
 * base/file), and the checks that take more than one key refuse bad
 * input naming the file, line and key; the public API's plan (trainsim.h)
 * is this plan.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* mkdtemp */
#include <check.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/csv.h"
#include "base/err.h"
#include "base/file.h"
#include "base/units.h"
#include "io/scenario.h"
#include "io/sweepcfg.h"
#include "par/graph.h"
#include "par/pipe.h"
#include "plan/env.h"
#include "plan/plan.h"
#include "report/outfile.h"
#include "run/run.h"
#include "sweep/search.h"
#include "sweep/sweep.h"
#include "trace/trace.h"
#include "work/lnet.h"
#include "testutil.h"
#include "trainsim.h"

static struct ts_env *env;

static void setup(void)
{
	struct ts_error err;
	ck_assert_msg(env_open(tu_root(), &env, &err) == 0, "%s", err.msg);
}

static void teardown(void)
{
	env_destroy(env);
}

static struct ts_scenario *load(const char *text, const char *const *sets, size_t nsets)
{
	struct ts_scenario *sc = NULL;
	struct ts_error err;
	char buf[1400];
	if (ts_scenario_load_string(env->cat, text, "plan.cfg", sets, nsets, &sc, &err))
		ck_abort_msg("scenario: %s", ts_error_format(&err, buf, sizeof buf));
	return sc;
}

/* A job that uses everything a plan resolves from files: the dataset (a
 * run length in epochs), the storage of the input pipeline and of the
 * checkpoints, tensor and pipeline parallelism with ZeRO-1. */
static const char *job = "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
			 "training = { global_batch = 64; micro_batch = 2; seq_len = 512;\n"
			 "  epochs = 0.001; };\n"
			 "parallel = { tp = 2; pp = 2; zero = 1; };\n"
			 "data = { dataset = \"c4-tokens\"; storage = \"lustre\"; };\n"
			 "checkpoint = { interval = 100; storage = \"local-nvme\"; };\n"
			 "sim = { granularity = \"stage\"; };\n";

/* Planning reads the dataset (the counter moves, so it counts); running the
 * plan, a search candidate planned with the resolved input, and a sweep
 * point's plan and run after its scenario is loaded open nothing. */
START_TEST(nothing_opened_after_planning)
{
	struct ts_error err;
	char buf[1400];
	struct ts_scenario *sc = load(job, NULL, 0);
	struct ts_plan *p = NULL;
	uint64_t n0 = ts_files_opened();
	ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s",
		      ts_error_format(&err, buf, sizeof buf));
	ck_assert_uint_gt(ts_files_opened(), n0); /* the dataset file */

	/* a run */
	uint64_t n1 = ts_files_opened();
	struct ts_result r;
	ck_assert_msg(run_plan(p, &r, NULL, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(ts_files_opened(), n1);
	ck_assert(r.iteration_time_s > 0.0 && r.steps > 0.0 && r.checkpoints > 0.0);

	/* a search candidate on the scenario's layout */
	struct data_input in;
	ck_assert_int_eq(plan_input(env, sc, &in, &err), 0);
	struct search_cand c = {.nodes = 2,
				.gpus_per_node = 8,
				.tp = 4,
				.pp = 1,
				.cp = 1,
				.dp = 4,
				.zero = 3,
				.schedule = TS_SCHED_1F1B,
				.interleave = 1,
				.micro_batch = 4,
				.recompute = WORK_RECOMPUTE_FULL};
	uint64_t n2 = ts_files_opened();
	struct ts_result rc;
	ck_assert_msg(search_candidate_run(env, sc, &in, &c, &rc, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(ts_files_opened(), n2);
	ck_assert(rc.iteration_time_s > 0.0);

	/* a sweep point: loading its scenario reads the model and cluster
	 * files; planning it with the base's input and running it read none */
	struct sweep_spec *sp = NULL;
	char text[2048];
	snprintf(text, sizeof text, "base = { %s };\naxes = { \"parallel.zero\" = [0, 2]; };\n",
		 job);
	ck_assert_msg(sweepcfg_load_string(text, "sweep.cfg", &sp, &err) == 0, "%s",
		      ts_error_format(&err, buf, sizeof buf));
	struct ts_scenario *pt = NULL;
	ck_assert_int_eq(sweep_point_load(sp, env->cat, 1, &pt, &err), 0);
	ck_assert_int_eq(pt->parallel.zero, 2);
	uint64_t n3 = ts_files_opened();
	struct ts_plan *pp = NULL;
	struct ts_result rs;
	ck_assert_msg(plan_build_with(env, pt, &in, &pp, &err) == 0, "%s", err.msg);
	ck_assert_msg(run_plan(pp, &rs, NULL, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(ts_files_opened(), n3);
	ck_assert(rs.iteration_time_s > 0.0);

	/* the legacy entry point reads the storage catalog and the dataset */
	uint64_t n4 = ts_files_opened();
	ck_assert_int_eq(ts_run(sc, &env->calib, &r, NULL, &err), 0);
	ck_assert_uint_ge(ts_files_opened(), n4 + 2);

	plan_destroy(pp);
	ts_scenario_destroy(pt);
	sweepcfg_destroy(sp);
	plan_destroy(p);
	ts_scenario_destroy(sc);
}
END_TEST

/* The cross-key checks name the key and the line that set it, and a plan
 * built from a refused scenario is NULL. */
START_TEST(cross_key_errors_name_file_line_key)
{
	static const struct {
		const char *set, *key, *found;
		int code;
	} cases[] = {
	    {"parallel.offload=nvme", "parallel.offload", "with parallel.zero = 1", TS_EINVALID},
	    {"parallel.tp_comm_overlap=true", "parallel.tp_comm_overlap",
	     "with parallel.sp = false", TS_EINVALID},
	    {"data.storage=lustr", "data.storage", "lustre", TS_EUNKNOWN_NAME},
	    {"checkpoint.storage=nvm", "checkpoint.storage", "local-nvme", TS_EUNKNOWN_NAME},
	    {"power.node_max=\"100 W\"", "power.node_max", "found 100 W", TS_ERANGE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *sets[2] = {cases[i].set, "parallel.zero=1"};
		struct ts_scenario *sc = load(job, sets, 2);
		struct ts_plan *p = (struct ts_plan *)1;
		struct ts_error err;
		char line[1400];
		int rc = plan_build(env, sc, &p, &err);
		ts_error_format(&err, line, sizeof line);
		ck_assert_msg(rc == cases[i].code, "%s: %d %s", cases[i].set, rc, line);
		ck_assert_ptr_null(p);
		ck_assert_msg(strstr(line, cases[i].key) && strstr(line, cases[i].found), "%s",
			      line);
		/* placed at the --set argument or the scenario line that set it */
		ck_assert_msg(strstr(line, "--set") || strstr(line, "plan.cfg:"), "%s", line);
		ts_scenario_destroy(sc);
	}
}
END_TEST

/* Layers of stage st (all its chunks) of the pp x v chunk layers cl. */
static uint32_t stage_sum(const uint32_t *cl, uint32_t pp, uint32_t v, uint32_t st)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < v; j++)
		n += cl[j * pp + st];
	return n;
}

/* Layers per virtual stage as Megatron-LM splits them. The bundled Llama 3
 * 405B scenario (126 layers, pp 16, interleave 8, the embedding and the
 * loss counted): 128 slots, one per chunk, so chunk 0 of stage 0 holds only
 * the embedding and the last chunk of stage 15 only the loss: 7 layers on
 * the first and last stages, 8 on the others (Llama 3 paper, §3.3.2). With
 * interleave 2: 4 slots per chunk, 3 + 4 layers on stage 0, 4 + 3 on stage
 * 15. first_stage_layers = last_stage_layers = 7 without interleaving is
 * the even deal; 6 and 8 with interleave 2 give stage 0 chunks of 3 and the
 * others of 4. */
START_TEST(stage_layers_as_megatron)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/configs/scenarios/llama3-405b-16k.cfg", tu_root());
	struct ts_scenario *sc = NULL;
	struct ts_error err;
	char line[1400];
	ck_assert_msg(ts_scenario_load(env->cat, path, NULL, 0, &sc, &err) == 0, "%s",
		      ts_error_format(&err, line, sizeof line));
	static uint32_t cl[128];
	ck_assert_int_eq(plan_stage_layers(sc, cl, &err), 0);
	ck_assert_uint_eq(cl[0], 0);
	ck_assert_uint_eq(cl[127], 0);
	for (uint32_t c = 1; c < 127; c++)
		ck_assert_uint_eq(cl[c], 1);
	for (uint32_t st = 0; st < 16; st++)
		ck_assert_uint_eq(stage_sum(cl, 16, 8, st), st == 0 || st == 15 ? 7u : 8u);
	ts_scenario_destroy(sc);

	const char *v2[] = {"parallel.interleave=2"};
	ck_assert_int_eq(ts_scenario_load(env->cat, path, v2, 1, &sc, &err), 0);
	ck_assert_int_eq(plan_stage_layers(sc, cl, &err), 0);
	ck_assert_uint_eq(cl[0], 3);  /* stage 0, chunk 0: embedding + 3 */
	ck_assert_uint_eq(cl[16], 4); /* stage 0, chunk 1 */
	ck_assert_uint_eq(cl[15], 4); /* stage 15, chunk 0 */
	ck_assert_uint_eq(cl[31], 3); /* stage 15, chunk 1: 3 + loss */
	for (uint32_t st = 1; st < 15; st++)
		ck_assert(cl[st] == 4 && cl[16 + st] == 4);
	ts_scenario_destroy(sc);

	const char *fl[] = {"parallel.schedule=1f1b",
			    "parallel.interleave=1",
			    "parallel.account_for_embedding=false",
			    "parallel.account_for_loss=false",
			    "parallel.first_stage_layers=7",
			    "parallel.last_stage_layers=7"};
	ck_assert_int_eq(ts_scenario_load(env->cat, path, fl, 6, &sc, &err), 0);
	ck_assert_int_eq(plan_stage_layers(sc, cl, &err), 0);
	for (uint32_t st = 0; st < 16; st++) {
		ck_assert_uint_eq(cl[st], st == 0 || st == 15 ? 7u : 8u);
		ck_assert_uint_eq(cl[st], pipe_even_layers(126, 16, st));
	}
	ts_scenario_destroy(sc);

	const char *fl2[] = {"parallel.account_for_embedding=false",
			     "parallel.account_for_loss=false", "parallel.interleave=2",
			     "parallel.first_stage_layers=6", "parallel.last_stage_layers=8"};
	ck_assert_int_eq(ts_scenario_load(env->cat, path, fl2, 5, &sc, &err), 0);
	ck_assert_int_eq(plan_stage_layers(sc, cl, &err), 0);
	ck_assert(cl[0] == 3 && cl[16] == 3);
	for (uint32_t st = 1; st < 16; st++)
		ck_assert(cl[st] == 4 && cl[16 + st] == 4);
	ts_scenario_destroy(sc);
}
END_TEST

/* parallel.layer_split = "front", PyTorch pipelining's split as NeMo
 * AutoModel makes it (functional.py, generate_hf_model_fqn_per_model_part):
 * DeepSeek-V3's 61 layers on pp 4 x interleave 8 = 32 virtual stages are
 * 61 // 32 = 1 each and one more on the first 61 % 32 = 29, so 2 on
 * virtual stages 0-28 and 1 on 29-31; stage s holds virtual stages s, s +
 * 4, ..., s + 28, so stage 0 has 8 x 2 = 16 layers and stages 1-3 have 7
 * x 2 + 1 = 15. Kimi K2's pp 8 x interleave 4 is the same 32 virtual
 * stages: stages 0-4 hold 4 x 2 = 8 layers, stages 5-7 (virtual stages 29,
 * 30, 31 in their last chunk) 3 x 2 + 1 = 7. Without the key the 61
 * layers do not split exactly and the plan refuses them, naming the key
 * that would. */
START_TEST(stage_layers_front)
{
	const char *text =
	    "model = { base = \"deepseek-v3\"; mtp_depth = 0; };\n"
	    "cluster = \"dgx-h100\"; nodes = 32;\n"
	    "training = { framework = \"fsdp\"; global_batch = 512; micro_batch = 1;\n"
	    "  seq_len = 4096; };\n"
	    "parallel = { pp = 4; dp = 64; ep = 64; schedule = \"interleaved\";\n"
	    "  interleave = 8; layer_split = \"front\"; };\n";
	static uint32_t cl[32];
	struct ts_error err;
	char line[1400];
	struct ts_scenario *sc = load(text, NULL, 0);
	ck_assert_msg(plan_stage_layers(sc, cl, &err) == 0, "%s",
		      ts_error_format(&err, line, sizeof line));
	for (uint32_t c = 0; c < 32; c++)
		ck_assert_uint_eq(cl[c], c < 29 ? 2u : 1u);
	for (uint32_t st = 0; st < 4; st++)
		ck_assert_uint_eq(stage_sum(cl, 4, 8, st), st == 0 ? 16u : 15u);
	ts_scenario_destroy(sc);

	const char *k2[] = {"parallel.pp=8", "parallel.dp=32", "parallel.ep=32",
			    "parallel.interleave=4"};
	sc = load(text, k2, 4);
	ck_assert_int_eq(plan_stage_layers(sc, cl, &err), 0);
	for (uint32_t c = 0; c < 32; c++)
		ck_assert_uint_eq(cl[c], c < 29 ? 2u : 1u);
	for (uint32_t st = 0; st < 8; st++)
		ck_assert_uint_eq(stage_sum(cl, 8, 4, st), st < 5 ? 8u : 7u);
	ts_scenario_destroy(sc);

	/* 1F1B: the first 61 % 4 = 1 stage takes 16, the others 15 */
	const char *plain[] = {"parallel.schedule=1f1b", "parallel.interleave=1"};
	sc = load(text, plain, 2);
	ck_assert_int_eq(plan_stage_layers(sc, cl, &err), 0);
	ck_assert(cl[0] == 16 && cl[1] == 15 && cl[2] == 15 && cl[3] == 15);
	ts_scenario_destroy(sc);

	const char *even[] = {"parallel.layer_split=even"};
	sc = load(text, even, 1);
	ck_assert_int_eq(plan_stage_layers(sc, cl, &err), TS_EINVALID);
	ts_error_format(&err, line, sizeof line);
	ck_assert_msg(strstr(line, "parallel.interleave") &&
			  strstr(line, "61 layers on 4 stages") &&
			  strstr(line, "layer_split = \"front\""),
		      "%s", line);
	ts_scenario_destroy(sc);

	/* 6 micro-batches on 4 stages: PyTorch would run one round of 6, a
	 * schedule trainsim does not build; 9 on 4: PyTorch refuses (2 rounds) */
	const char *b6[] = {"training.global_batch=384"};
	const char *b9[] = {"training.global_batch=576"};
	const char *const *bs[] = {b6, b9};
	const char *want[] = {"would run rounds of 6", "not a multiple of its 2 rounds"};
	for (int i = 0; i < 2; i++) {
		sc = load(text, bs[i], 1);
		struct ts_plan *p = (struct ts_plan *)1;
		ck_assert_int_eq(plan_build(env, sc, &p, &err), TS_EINVALID);
		ck_assert_ptr_null(p);
		ts_error_format(&err, line, sizeof line);
		ck_assert_msg(
		    strstr(line, "training.global_batch") &&
			strstr(line, i ? "found 9 micro-batches" : "found 6 micro-batches") &&
			strstr(line, want[i]),
		    "%s", line);
		ts_scenario_destroy(sc);
	}

	/* parallel.flushes: the 8 micro-batches as 3 schedules do not divide;
	 * as 4 of 2 each the interleaved schedule has less than a round of
	 * pp = 4; on one stage there is no pipeline to flush; as 2 of 4 it
	 * plans */
	static const struct {
		const char *set;
		bool pp1;
		const char *found;
	} fl[] = {
	    {"parallel.flushes=3", false, "found 3, expected a divisor of the 8 micro-batches"},
	    {"parallel.flushes=4", false, "found 2 micro-batches per flush"},
	    {"parallel.flushes=2", true, "found 2 with parallel.pp = 1"},
	};
	const char *pp1[] = {"parallel.flushes=2",    "parallel.pp=1",
			     "parallel.dp=256",	      "parallel.schedule=1f1b",
			     "parallel.interleave=1", "training.global_batch=512"};
	for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++) {
		sc = fl[i].pp1 ? load(text, pp1, 6) : load(text, &fl[i].set, 1);
		struct ts_plan *p = (struct ts_plan *)1;
		ck_assert_int_eq(plan_build(env, sc, &p, &err), TS_EINVALID);
		ck_assert_ptr_null(p);
		ts_error_format(&err, line, sizeof line);
		ck_assert_msg(strstr(line, "parallel.flushes") && strstr(line, fl[i].found),
			      "case %zu: %s", i, line);
		ts_scenario_destroy(sc);
	}
	const char *two[] = {"parallel.flushes=2"};
	sc = load(text, two, 1);
	struct ts_plan *p = NULL;
	ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s",
		      ts_error_format(&err, line, sizeof line));
	plan_destroy(p);
	ts_scenario_destroy(sc);
}
END_TEST

/* What Megatron-LM refuses, refused by the plan naming the key, where it
 * was set, what was found and what was expected. */
START_TEST(stage_layers_refused)
{
	static const struct {
		const char *sets[6];
		size_t n;
		const char *key, *found;
	} cases[] = {
	    /* 7 is not a multiple of interleave 2 */
	    {{"parallel.account_for_embedding=false", "parallel.account_for_loss=false",
	      "parallel.interleave=2", "parallel.first_stage_layers=7",
	      "parallel.last_stage_layers=7"},
	     5,
	     "parallel.first_stage_layers",
	     "found 7 layers on the first stage with interleave = 2"},
	    /* 126 - 14 = 112 layers do not split over 15 stages */
	    {{"parallel.account_for_embedding=false", "parallel.account_for_loss=false",
	      "parallel.schedule=1f1b", "parallel.interleave=1", "parallel.last_stage_layers=14"},
	     5,
	     "parallel.last_stage_layers",
	     "leaves 112 layers for the 15 stages between"},
	    /* both ways at once */
	    {{"parallel.first_stage_layers=8"},
	     1,
	     "parallel.first_stage_layers",
	     "with parallel.account_for_embedding = true"},
	    /* 126 + 1 = 127 slots on 32 virtual stages */
	    {{"parallel.account_for_loss=false", "parallel.interleave=2"},
	     2,
	     "parallel.account_for_embedding",
	     "= 127 on pp x interleave = 32 virtual stages"},
	    /* PyTorch's split with one of Megatron-LM's */
	    {{"parallel.layer_split=front"},
	     1,
	     "parallel.layer_split",
	     "found \"front\" with parallel.account_for_embedding"},
	    /* interleaving without any key must divide exactly */
	    {{"parallel.account_for_embedding=false", "parallel.account_for_loss=false",
	      "parallel.interleave=2"},
	     3,
	     "parallel.interleave",
	     "126 layers on 16 stages"},
	};
	char path[4096];
	snprintf(path, sizeof path, "%s/configs/scenarios/llama3-405b-16k.cfg", tu_root());
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ts_scenario *sc = NULL;
		struct ts_error err;
		char line[1400];
		ck_assert_msg(
		    ts_scenario_load(env->cat, path, cases[i].sets, cases[i].n, &sc, &err) == 0,
		    "case %zu: %s", i, ts_error_format(&err, line, sizeof line));
		struct ts_plan *p = (struct ts_plan *)1;
		int rc = plan_build(env, sc, &p, &err);
		ts_error_format(&err, line, sizeof line);
		ck_assert_msg(rc == TS_EINVALID, "case %zu: %d %s", i, rc, line);
		ck_assert_ptr_null(p);
		ck_assert_msg(strstr(line, cases[i].key) && strstr(line, cases[i].found),
			      "case %zu: %s", i, line);
		ck_assert_msg(strstr(line, "--set") || strstr(line, "llama3-405b-16k.cfg:"),
			      "case %zu: %s", i, line);
		ts_scenario_destroy(sc);
	}
}
END_TEST

/* Write text to DIR/name in a new temporary folder dir (size n). */
static void write_tmp(char *dir, size_t n, const char *name, const char *text, char *path,
		      size_t pn)
{
	snprintf(dir, n, "/tmp/check_plan.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, pn, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* The calls of trainsim.h a program makes: open the environment, load the
 * scenario file, plan (which reads the dataset), simulate: the simulation
 * opens no file, and gives the internal run_plan's figures; a scenario
 * whose keys contradict each other is refused by ts_plan_build, naming the
 * file, line and key. */
START_TEST(public_api_plan_is_the_plan)
{
	char dir[64], path[128], bad[128];
	write_tmp(dir, sizeof dir, "job.cfg", job, path, sizeof path);
	ts_env *e = NULL;
	ck_assert_msg(ts_env_open(tu_root(), &e) == 0, "%s", ts_errmsg());
	ts_scenario *sc = NULL;
	ck_assert_msg(ts_scenario_load_file(e, path, NULL, 0, &sc) == 0, "%s", ts_errmsg());
	ts_plan *p = NULL;
	uint64_t n0 = ts_files_opened();
	ck_assert_msg(ts_plan_build(e, sc, &p) == 0, "%s", ts_errmsg());
	ck_assert_uint_gt(ts_files_opened(), n0); /* the dataset file */
	uint64_t n1 = ts_files_opened();
	ts_result *r = NULL;
	ck_assert_msg(ts_plan_simulate(p, NULL, &r) == 0, "%s", ts_errmsg());
	ck_assert_uint_eq(ts_files_opened(), n1);
	/* the same figures as the plan's own run */
	struct ts_result own;
	struct ts_error err;
	ck_assert_msg(run_plan(p, &own, NULL, &err) == 0, "%s", err.msg);
	ck_assert(ts_result_iteration_time_s(r) > 0.0);
	ck_assert(ts_result_iteration_time_s(r) == own.iteration_time_s);
	double steps = 0.0;
	ck_assert_int_eq(ts_result_get(r, "steps", &steps), 0);
	ck_assert(steps == own.steps && steps > 0.0);
	/* the scenario run, by key path, as the result's JSON carries it */
	double tp = 0.0, batch = 0.0;
	ck_assert_int_eq(ts_result_get(r, "scenario.parallel.tp", &tp), 0);
	ck_assert(tp == (double)sc->parallel.tp);
	ck_assert_int_eq(ts_result_get(r, "scenario.training.global_batch", &batch), 0);
	ck_assert(batch == (double)sc->training.global_batch);
	/* the energy levels by name, as the report writes them */
	double gpu_kwh = 0.0, it_kwh = 0.0, fac_kwh = 0.0;
	ck_assert_int_eq(ts_result_get(r, "gpu_energy_kwh", &gpu_kwh), 0);
	ck_assert_int_eq(ts_result_get(r, "it_energy_kwh", &it_kwh), 0);
	ck_assert_int_eq(ts_result_get(r, "facility_energy_kwh", &fac_kwh), 0);
	ck_assert(gpu_kwh == own.gpu_energy_kwh && it_kwh == own.it_energy_kwh);
	ck_assert(fac_kwh == own.energy_kwh && fac_kwh > it_kwh && it_kwh > gpu_kwh &&
		  gpu_kwh > 0.0);
	/* the 80 % band: the environment's model-error table of the run's
	 * regime and the replicas' spread, added in log space as normals
	 * around the replicas' median (sim/run/band.c; z = 1.2816 for 80 %) */
	double lo = 0.0, mid = 0.0, hi = 0.0, err80 = 0.0;
	ck_assert_int_eq(ts_result_get(r, "iteration_time_s_p10", &lo), 0);
	ck_assert_int_eq(ts_result_get(r, "iteration_time_s_p50", &mid), 0);
	ck_assert_int_eq(ts_result_get(r, "iteration_time_s_p90", &hi), 0);
	ck_assert_int_eq(ts_result_get(r, "band_time_error", &err80), 0);
	ck_assert(mid == own.spread.iteration_time_s.p50 && err80 > 0.0);
	double sm = log(own.spread.iteration_time_s.p90 / own.spread.iteration_time_s.p10) / 2.0;
	double w = sqrt(sm * sm + err80 * err80);
	ck_assert(tu_relerr(hi, mid * exp(w)) < 1e-12 && tu_relerr(lo, mid * exp(-w)) < 1e-12);
	ck_assert(strcmp(own.band_regime, "none") != 0);
	ck_assert_int_eq(ts_result_get(r, "tokens_per_s_p90", &hi), 0);
	/* throughput: the reciprocal spread, the same width */
	ck_assert(tu_relerr(hi, own.spread.tokens_per_s.p50 * exp(w)) < 1e-9);
	/* the memory verdict, its headroom and largest term through the API */
	ck_assert_str_eq(ts_result_memory_verdict(r), own.memory_verdict);
	ck_assert_str_eq(ts_result_memory_largest_term(r), own.memory_largest_term);
	double head = 0.0, merr = 0.0, need = 0.0, cap = 0.0;
	ck_assert_int_eq(ts_result_get(r, "memory_headroom_gib", &head), 0);
	ck_assert_int_eq(ts_result_get(r, "memory_error", &merr), 0);
	ck_assert_int_eq(ts_result_get(r, "memory_per_gpu_bytes", &need), 0);
	ck_assert_int_eq(ts_result_get(r, "memory_capacity_bytes", &cap), 0);
	ck_assert(head == (cap - need) / 1073741824.0 && merr > 0.0);
	ck_assert(!strcmp(own.memory_verdict, "fits") || !strcmp(own.memory_verdict, "tight") ||
		  !strcmp(own.memory_verdict, "does not fit"));
	ts_result_free(r);
	ts_plan_free(p);
	ts_scenario_free(sc);

	/* a cross-key refusal comes from ts_plan_build, not the simulation */
	const char *const off[] = {"parallel.offload=nvme"};
	ck_assert_msg(ts_scenario_load_file(e, path, off, 1, &sc) == 0, "%s", ts_errmsg());
	p = (ts_plan *)1;
	ck_assert_int_eq(ts_plan_build(e, sc, &p), TS_EINVALID);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(ts_errmsg(), "parallel.offload"), "%s", ts_errmsg());
	ts_scenario_free(sc);

	/* a run shorter than one step: the plan's, at the line of the key */
	snprintf(bad, sizeof bad, "%s", path);
	char text[2048];
	snprintf(text, sizeof text, "%s", job);
	char *ep = strstr(text, "epochs = 0.001");
	ck_assert_ptr_nonnull(ep);
	memcpy(ep, "epochs = 1e-12", strlen("epochs = 1e-12"));
	FILE *f = fopen(bad, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(ts_scenario_load_file(e, bad, NULL, 0, &sc) == 0, "%s", ts_errmsg());
	ck_assert_int_eq(ts_plan_build(e, sc, &p), TS_ERANGE);
	ck_assert_msg(strstr(ts_errmsg(), "job.cfg:3") && strstr(ts_errmsg(), "training.epochs") &&
			  strstr(ts_errmsg(), "less than one step"),
		      "%s", ts_errmsg());
	ts_scenario_free(sc);
	ts_env_close(e);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* The opens of the CSV reader, the output files (a replacing output and a
 * locked, resumable one) and the catalog listing go through base/file:
 * each moves the counter. */
START_TEST(other_opens_are_counted)
{
	char dir[64], path[128], out[160];
	write_tmp(dir, sizeof dir, "a.csv", "x,y\n1,2\n", path, sizeof path);
	struct ts_error err;
	uint64_t n = ts_files_opened();
	struct csv c;
	ck_assert_int_eq(csv_open(&c, path, 256, 8, &err), 0);
	csv_close(&c);
	ck_assert_uint_eq(ts_files_opened(), n + 1);

	n = ts_files_opened();
	struct outfile *of = NULL;
	snprintf(out, sizeof out, "%s/out.txt", dir);
	ck_assert_msg(outfile_open(out, "-o", &of, &err) == 0, "%s", err.msg);
	outfile_abort(of);
	ck_assert_uint_gt(ts_files_opened(), n);
	n = ts_files_opened();
	ck_assert_msg(outfile_open_locked(out, "-o", &of, &err) == 0, "%s", err.msg);
	outfile_abort(of);
	ck_assert_uint_gt(ts_files_opened(), n);
	unlink(out);

	/* a data root whose models/ is empty: listing it opens that folder
	 * and nothing else */
	char root[160], link[200], target[1024], models[200];
	snprintf(root, sizeof root, "%s/root", dir);
	snprintf(link, sizeof link, "%s/configs", root);
	snprintf(models, sizeof models, "%s/models", root);
	snprintf(target, sizeof target, "%s/configs", tu_root());
	ck_assert_int_eq(mkdir(root, 0700), 0);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(mkdir(models, 0700), 0);
	ts_env *e = NULL;
	ck_assert_msg(ts_env_open(root, &e) == 0, "%s", ts_errmsg());
	FILE *sink = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(sink);
	n = ts_files_opened();
	ck_assert_msg(ts_list_write(e, "models", TS_FORMAT_TEXT, sink) == 0, "%s", ts_errmsg());
	ck_assert_uint_eq(ts_files_opened(), n + 1);
	fclose(sink);
	ts_env_close(e);
	rmdir(models);
	unlink(link);
	rmdir(root);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A plan whose run would allocate more than sim.max_memory is refused with
 * TS_ELIMIT, naming the key that makes it large, the estimate and the
 * limit, at the line of the key. */
START_TEST(oversized_run_refused_naming_key_and_figures)
{
	static const struct {
		const char *set, *set2, *key;
	} cases[] = {
	    {"sim.granularity=\"layer\"", "seed=1", "training.iterations"},
	    {"sim.granularity=\"op\"", "seed=1", "sim.granularity"},
	    {"sim.mode=\"full\"", "seed=1", "sim.mode"},
	    {"sim.extrapolate=false", "training.global_batch=512", "sim.extrapolate"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ts_error err;
		char line[1400], est[32];
		/* the estimate, from a plan under a large limit */
		const char *big[3] = {cases[i].set, cases[i].set2, "sim.max_memory=\"1 TiB\""};
		struct ts_scenario *sc = load(job, big, 3);
		struct ts_plan *p = NULL;
		ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s", err.msg);
		ck_assert(p->est_bytes > 1048576.0);
		ts_units_format(p->est_bytes, TS_UNIT_BYTES, est, sizeof est);
		plan_destroy(p);
		ts_scenario_destroy(sc);

		const char *tiny[3] = {cases[i].set, cases[i].set2, "sim.max_memory=\"1 MiB\""};
		sc = load(job, tiny, 3);
		p = (struct ts_plan *)1;
		int rc = plan_build(env, sc, &p, &err);
		ts_error_format(&err, line, sizeof line);
		ck_assert_msg(rc == TS_ELIMIT, "%s: %d %s", cases[i].set, rc, line);
		ck_assert_ptr_null(p);
		ck_assert_msg(strstr(line, cases[i].key), "%s: lacks %s", line, cases[i].key);
		ck_assert_msg(strstr(line, est), "%s: lacks the estimate %s", line, est);
		ck_assert_msg(strstr(line, "above sim.max_memory 1 MiB"), "%s", line);
		ck_assert_msg(strstr(line, "--set") || strstr(line, "plan.cfg:"), "%s", line);
		ts_scenario_destroy(sc);
	}
}
END_TEST

/* The size model (plan_estimate) against the graph a run builds: never
 * below the bytes of the records the graph uses (it refuses runs by it),
 * and at most 4 times above them plus 4 MiB (the engine's records, counted
 * per class: what dominates small runs), the bound its comment states. The
 * old count, per class and not per group, was 10 to 36 times above in full
 * mode with tensor parallelism (Llama 3 405B on 16,384 GPUs: 26.7 GiB
 * against 0.74 GiB measured). */
START_TEST(estimate_bounds_the_graph)
{
	static const char *base =
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
	    "training = { global_batch = 128; micro_batch = 2; seq_len = 1024;\n"
	    "  iterations = 2; };\n";
	static const char *const cases[][10] = {
	    {"nodes=1", "sim.granularity=\"layer\""},
	    {"nodes=1", "sim.granularity=\"op\""},
	    {"nodes=1", "parallel.tp=2", "parallel.pp=4", "sim.granularity=\"op\"",
	     "sim.extrapolate=false"},
	    {"nodes=1", "parallel.zero=3", "sim.granularity=\"op\"", "sim.extrapolate=false"},
	    {"nodes=1", "parallel.tp=2", "parallel.cp=2", "sim.extrapolate=false"},
	    {"nodes=1", "parallel.pp=4", "parallel.interleave=2",
	     "parallel.schedule=\"interleaved\"", "sim.extrapolate=false"},
	    {"nodes=2", "parallel.tp=8", "parallel.pp=2", "parallel.sp=true",
	     "sim.granularity=\"stage\""},
	    {"nodes=8", "sim.mode=\"full\""},
	    {"nodes=4", "sim.mode=\"full\"", "parallel.tp=2", "parallel.pp=2",
	     "sim.granularity=\"stage\""},
	    {"nodes=8", "sim.mode=\"full\"", "parallel.zero=3", "sim.granularity=\"stage\""},
	    {"nodes=4", "sim.mode=\"full\"", "parallel.tp=4", "parallel.zero=2",
	     "sim.granularity=\"stage\""},
	    {"nodes=8", "sim.mode=\"full\"", "parallel.tp=8", "parallel.pp=4", "parallel.sp=true",
	     "sim.granularity=\"layer\""},
	    {"nodes=8", "sim.mode=\"full\"", "parallel.tp=8", "parallel.pp=4", "parallel.sp=true",
	     "sim.granularity=\"stage\""},
	    /* the bundled Llama 3 405B's kind: interleaved (a pass per chunk),
	     * ZeRO-2 (a reduction per bucket and micro-batch); counted per
	     * micro-batch only, it was 0.95 of the graph */
	    {"nodes=8", "sim.mode=\"full\"", "parallel.tp=8", "parallel.pp=4", "parallel.zero=2",
	     "parallel.interleave=3", "parallel.schedule=\"interleaved\"",
	     "sim.granularity=\"stage\"", "training.global_batch=32", "training.micro_batch=1"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ts_error err;
		char buf[1400];
		size_t n = 0;
		while (n < 10 && cases[i][n])
			n++;
		struct ts_scenario *sc = load(base, cases[i], n);
		struct ts_plan *p = NULL;
		ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s",
			      ts_error_format(&err, buf, sizeof buf));
		struct run_arena a = {0};
		struct ts_result r;
		ck_assert_msg(run_plan_in(p, &a, &r, NULL, &err) == 0, "case %zu: %s", i,
			      ts_error_format(&err, buf, sizeof buf));
		double used = (double)graph_used_bytes(a.g);
		ck_assert_msg(used <= p->est_bytes && p->est_bytes <= 4.0 * used + 4194304.0,
			      "case %zu (%s, %s): graph %.0f B, estimate %.0f B", i, cases[i][1],
			      cases[i][2] ? cases[i][2] : "", used, p->est_bytes);
		run_arena_release(&a);
		plan_destroy(p);
		ts_scenario_destroy(sc);
	}
}
END_TEST

/* A traced run simulates every micro-batch (no extension): it is checked
 * again, and refused when only the traced run is above the limit. */
START_TEST(traced_run_checked_for_its_own_size)
{
	static const char *big =
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
	    "training = { global_batch = 4096; micro_batch = 4; seq_len = 512; };\n";
	struct ts_error err;
	char line[1400], lim[64];
	struct ts_scenario *sc = load(big, NULL, 0);
	struct ts_plan *p = NULL;
	ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s", err.msg);
	double e = p->est_bytes, et = p->est_trace_bytes;
	ck_assert_msg(et > 4.0 * e, "estimate %g B, traced %g B", e, et); /* 128 mb against 12 */
	plan_destroy(p);
	ts_scenario_destroy(sc);

	snprintf(lim, sizeof lim, "sim.max_memory=\"%.0f B\"", sqrt(e * et));
	const char *sets[1] = {lim};
	sc = load(big, sets, 1);
	ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s", err.msg);
	FILE *out = fopen("/dev/null", "w");
	struct ts_trace *tr;
	ck_assert_int_eq(trace_open(&tr, out), 0);
	struct ts_result r;
	int rc = run_plan(p, &r, tr, &err);
	ts_error_format(&err, line, sizeof line);
	ck_assert_msg(rc == TS_ELIMIT, "%d %s", rc, line);
	ck_assert_msg(strstr(line, "training.iterations") && strstr(line, "--trace"), "%s", line);
	ck_assert_uint_eq(trace_nspans(tr), 0); /* refused before anything ran */
	trace_destroy(tr);
	fclose(out);
	/* untraced, the same plan runs */
	ck_assert_msg(run_plan(p, &r, NULL, &err) == 0, "%s", err.msg);
	plan_destroy(p);
	ts_scenario_destroy(sc);
}
END_TEST

/* Tensor-parallel collectives of a parallel block (PaLM §2; GPT-J, GPT-NeoX
 * with gpt_j_residual) against a sequential one, counted by hand. L = 3
 * layers, tp = 2, 2 micro-batches. Per micro-batch, a sequential block has
 * 2 all-reduces forward (after proj and fc2) and 2 backward (the input
 * gradients of qkv and fc1); a parallel block with one shared norm sums
 * both branches before 1 forward and has 1 backward (the fused qkv_fc1);
 * the embedding adds 1 forward and the head 1 backward:
 *   sequential 4·L + 2 = 14, parallel 2·L + 2 = 8 per micro-batch,
 * with two norms (GPT-NeoX) 3·L + 2 = 11. The plan's units carry these at op
 * and at layer granularity. At op granularity the simulated iterations have
 * exactly as many collectives; at layer granularity a layer's forward ones
 * are one collective of tp_fwd times the bytes (and so backward): 2·L + 2
 * collectives per micro-batch whatever the block, fewer bytes when parallel.
 * The trace shows each collective as one span on each of the 4 directed
 * NVLink links it crosses (GPU 0 and 1 to and from the NVSwitch). */
static size_t count_spans(const char *trace, const char *name)
{
	size_t n = 0;
	for (const char *q = strstr(trace, name); q; q = strstr(q + 1, name))
		n++;
	return n;
}

START_TEST(parallel_block_tp_collectives)
{
	static const char *text =
	    "model = { base = \"gpt3-1.3b\"; layers = 3; };\n"
	    "cluster = \"dgx-a100-80gb\"; gpus_per_node = 2;\n"
	    "training = { global_batch = 2; micro_batch = 1; seq_len = 512; iterations = 2; };\n"
	    "parallel = { tp = 2; };\n";
	static const struct {
		const char *block, *norms, *gran;
		unsigned per_mb;
	} cases[] = {
	    {"model.parallel_block=false", NULL, "sim.granularity=\"op\"", 4 * 3 + 2},
	    {"model.parallel_block=false", NULL, "sim.granularity=\"layer\"", 4 * 3 + 2},
	    {"model.parallel_block=true", NULL, "sim.granularity=\"op\"", 2 * 3 + 2},
	    {"model.parallel_block=true", NULL, "sim.granularity=\"layer\"", 2 * 3 + 2},
	    {"model.parallel_block=true", "model.parallel_norms=2", "sim.granularity=\"op\"",
	     3 * 3 + 2},
	    {"model.parallel_block=true", "model.parallel_norms=2", "sim.granularity=\"layer\"",
	     3 * 3 + 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *sets[3] = {cases[i].gran, cases[i].block, cases[i].norms};
		struct ts_scenario *sc = load(text, sets, cases[i].norms ? 3 : 2);
		struct ts_error err;
		struct ts_plan *p = NULL;
		ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s", err.msg);
		unsigned units = 0;
		for (uint32_t u = 0; u < p->nunits; u++)
			units += p->units[u].tp_fwd + p->units[u].tp_bwd;
		ck_assert_msg(units == cases[i].per_mb, "%s %s: %u collectives per micro-batch",
			      cases[i].block, cases[i].gran, units);
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		struct ts_trace *tr;
		ck_assert_int_eq(trace_open(&tr, out), 0);
		struct ts_result r;
		ck_assert_msg(run_plan(p, &r, tr, &err) == 0, "%s", err.msg);
		trace_destroy(tr);
		fclose(out);
		/* one span on each of the 2 GPUs' "tp collective" track x 2
		 * iterations of 2 micro-batches */
		size_t spans = count_spans(buf, "\"tp collective\"");
		size_t colls = strstr(cases[i].gran, "op") ? cases[i].per_mb : 2 * 3 + 2;
		ck_assert_msg(spans == 2 * 2 * 2 * colls, "%s %s: %zu spans", cases[i].block,
			      cases[i].gran, spans);
		free(buf);
		plan_destroy(p);
		ts_scenario_destroy(sc);
	}
}
END_TEST

/* DeepSeek-V3 (models/deepseek-v3.cfg) plans and runs: its first 3 layers
 * are dense (no all-to-all, the dense layer's costs), the other 58 and the
 * multi-token prediction block (a layer of the last stage) have experts,
 * and the PaLM-convention FLOPs of an iteration are 291,847,274,496 per
 * token (tests/check_ops.c, deepseek_v3_ops) x 128 sequences x 4096 tokens;
 * the model FLOPs count the causal attention core at half: 3 x 62 blocks x
 * 2·4096·(128·192 + 128·128) / 2 = 31,205,621,760 per token less. */
START_TEST(deepseek_v3_runs)
{
	static const char *text =
	    "model = \"deepseek-v3\"; cluster = \"dgx-h100\"; nodes = 32;\n"
	    "training = { global_batch = 128; micro_batch = 1; seq_len = 4096;\n"
	    "  precision = \"fp8\"; recompute = \"full\"; iterations = 2; };\n"
	    "parallel = { pp = 16; ep = 8; zero = 1; };\n"
	    "sim = { granularity = \"layer\"; };\n";
	struct ts_scenario *sc = load(text, NULL, 0);
	struct ts_error err;
	struct ts_plan *p = NULL;
	ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(p->nunits, 61 + 1 + 2);
	for (uint32_t u = 1; u <= 62; u++) {
		const struct dp_unit *x = &p->units[u];
		bool dense = u <= 3;
		ck_assert_uint_eq(x->a2a_fwd, dense ? 0 : 2);
		ck_assert(x->fwd_s == (dense ? p->dense_costs.layer_fwd_s : p->costs.layer_fwd_s));
		ck_assert_uint_eq(x->layer, u <= 61 ? u : 61);
	}
	ck_assert_str_eq(p->units[62].label, "mtp layer");
	ck_assert(p->dense_costs.layer_params < p->costs.layer_params);
	struct ts_result r;
	ck_assert_msg(run_plan(p, &r, NULL, &err) == 0, "%s", err.msg);
	ck_assert(r.fits);
	ck_assert(tu_relerr(r.model_flops_per_iteration,
			    (291847274496.0 - 31205621760.0) * 128.0 * 4096.0) < 1e-12);
	ck_assert(tu_relerr(r.mfu_palm / r.mfu, 291847274496.0 / (291847274496.0 - 31205621760.0)) <
		  1e-12);
	ck_assert(r.iteration_time_s > 0.0 && r.mfu > 0.0 && r.mfu < 1.0);
	plan_destroy(p);
	ts_scenario_destroy(sc);
}
END_TEST

/* CLIP ViT-L/14 (models/clip-vit-l-14.cfg; Radford et al. 2021, Table 20
 * for the dimensions). Parameters by hand: image tower 3·14²·1024 + 1024
 * (the patch entry's bias, which OpenAI's convolution lacks) + 258·1024
 * (class token, positions) + 2 LayerNorms of 2·1024 + 24 x (12·1024² +
 * 13·1024) + 1024·768 = 303,967,232; text tower 49,408·768 + 77·768 +
 * 12 x (12·768² + 13·768) + 2·768 + 768² = 123,650,304; the temperature 1:
 * 427,617,537, OpenAI's checkpoint's 427,616,513 + 1,024. Forward FLOPs of
 * one pair (the paper gives none): 2 x (24 x (12·1024²·257 + 2·257²·1024)
 * + 256·588·1024 + 12 x (12·768²·77 + 2·77²·768) + 1024·768 + 768² + 768)
 * = 175,325,223,936. On one DGX A100 (dp 8, micro-batch 64, 2 micro-batches,
 * 2 iterations) each micro-batch all-gathers 2 x 64 x 768 bf16 embeddings
 * per rank and reduce-scatters their gradients: one collective each per
 * micro-batch, one span each on the 8 GPUs' tracks of that collective in
 * the trace, and its logits are 64 x 512 per direction. */
START_TEST(clip_contrastive)
{
	static const char *text =
	    "model = \"clip-vit-l-14\"; cluster = \"dgx-a100-80gb\";\n"
	    "training = { global_batch = 1024; micro_batch = 64; precision = \"bf16\";\n"
	    "  iterations = 2; };\n"
	    "sim = { granularity = \"op\"; };\n";
	struct ts_scenario *sc = load(text, NULL, 0);
	ck_assert_double_eq(ts_model_params(&sc->model), 427617537.0);
	ck_assert_double_eq(work_lnet_fwd_flops(&sc->model), 175325223936.0);
	struct ts_error err;
	struct ts_plan *p = NULL;
	ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s", err.msg);
	double g = 0.0;
	unsigned with = 0;
	for (uint32_t u = 0; u < p->nunits; u++) {
		g += p->units[u].dp_gather_bytes;
		with += p->units[u].dp_gather_bytes > 0.0;
	}
	ck_assert_uint_eq(with, 1);
	ck_assert_double_eq(g, 2.0 * 64.0 * 768.0 * 2.0);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct ts_trace *tr;
	ck_assert_int_eq(trace_open(&tr, out), 0);
	struct ts_result r;
	ck_assert_msg(run_plan(p, &r, tr, &err) == 0, "%s", err.msg);
	trace_destroy(tr);
	fclose(out);
	ck_assert(r.fits);
	ck_assert_double_eq(r.model_flops_per_iteration, 3.0 * 1024.0 * 175325223936.0);
	ck_assert_uint_eq(count_spans(buf, "\"embedding all-gather\""), 8 * 2 * 2);
	ck_assert_uint_eq(count_spans(buf, "\"embedding grad reduce-scatter\""), 8 * 2 * 2);
	free(buf);
	plan_destroy(p);
	ts_scenario_destroy(sc);
	/* one GPU gathers nothing */
	const char *one[] = {"gpus_per_node=1", "training.global_batch=128"};
	sc = load(text, one, 2);
	ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s", err.msg);
	buf = NULL;
	out = open_memstream(&buf, &len);
	ck_assert_int_eq(trace_open(&tr, out), 0);
	ck_assert_msg(run_plan(p, &r, tr, &err) == 0, "%s", err.msg);
	trace_destroy(tr);
	fclose(out);
	ck_assert_uint_eq(count_spans(buf, "\"embedding all-gather\""), 0);
	free(buf);
	plan_destroy(p);
	ts_scenario_destroy(sc);
}
END_TEST

/* Every scenario of the bundled examples, the default scenario and the
 * scaling sweep's largest point plan under the default limit, and each
 * would on a machine of 2 GiB (estimate below 1 GiB), traced or not. */
START_TEST(bundled_examples_fit_the_default)
{
	char pat[4096];
	snprintf(pat, sizeof pat, "%s/examples/*/*.cfg", tu_root());
	glob_t gl;
	ck_assert_int_eq(glob(pat, 0, NULL, &gl), 0);
	size_t planned = 0;
	for (size_t i = 0; i <= gl.gl_pathc; i++) {
		char path[4096];
		const char *sets[1] = {"nodes=64"};
		size_t nsets = 0;
		if (i < gl.gl_pathc) {
			/* scenarios only (not sweeps or calibration overrides) */
			FILE *f = fopen(gl.gl_pathv[i], "r");
			ck_assert_ptr_nonnull(f);
			char l[512];
			bool scenario = false;
			while (!scenario && fgets(l, sizeof l, f))
				scenario = !strncmp(l, "model", 5);
			fclose(f);
			if (!scenario)
				continue;
			snprintf(path, sizeof path, "%s", gl.gl_pathv[i]);
		} else {
			snprintf(path, sizeof path, "%s/examples/scaling-sweep/base.cfg",
				 tu_root());
			nsets = 1;
		}
		struct ts_scenario *sc = NULL;
		struct ts_error err;
		char line[1400];
		ck_assert_msg(ts_scenario_load(env->cat, path, sets, nsets, &sc, &err) == 0, "%s",
			      ts_error_format(&err, line, sizeof line));
		ck_assert(sc->sim.max_memory == 0.0); /* the default */
		struct ts_plan *p = NULL;
		ck_assert_msg(plan_build(env, sc, &p, &err) == 0, "%s: %s", path,
			      ts_error_format(&err, line, sizeof line));
		ck_assert(p->max_memory == ts_scenario_max_memory(sc));
		ck_assert_msg(p->est_bytes > 0.0 && p->est_bytes <= p->est_trace_bytes &&
				  p->est_trace_bytes < 1073741824.0,
			      "%s: estimate %g B, traced %g B", path, p->est_bytes,
			      p->est_trace_bytes);
		ck_assert_int_eq(plan_check_size(p, true, &err), 0);
		plan_destroy(p);
		ts_scenario_destroy(sc);
		planned++;
	}
	globfree(&gl);
	ck_assert_uint_ge(planned, 10);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tu_tcase("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, nothing_opened_after_planning);
	tcase_add_test(tc, cross_key_errors_name_file_line_key);
	tcase_add_test(tc, stage_layers_as_megatron);
	tcase_add_test(tc, stage_layers_refused);
	tcase_add_test(tc, stage_layers_front);
	tcase_add_test(tc, public_api_plan_is_the_plan);
	tcase_add_test(tc, other_opens_are_counted);
	tcase_add_test(tc, oversized_run_refused_naming_key_and_figures);
	tcase_add_test(tc, traced_run_checked_for_its_own_size);
	tcase_add_test(tc, estimate_bounds_the_graph);
	tcase_add_test(tc, bundled_examples_fit_the_default);
	tcase_add_test(tc, parallel_block_tp_collectives);
	tcase_add_test(tc, deepseek_v3_runs);
	tcase_add_test(tc, clip_contrastive);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
