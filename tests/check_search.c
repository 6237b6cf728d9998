/* The search (sim/sweep/search.c): the enumeration counted by hand on a
 * small case, and a model that fits only sharded or pipelined is given a
 * sharded or pipelined best.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "plan/env.h"
#include "run/run.h"
#include "sweep/search.h"
#include "testutil.h"
#include "work/compute.h"
#include "work/ops.h"

static struct hw_catalog *cat;
static struct work_calib calib;

/* Write text to a temporary scenario file; the path into buf. */
static void scenario(char *buf, size_t n, const char *text)
{
	tu_tmpfile("check_search", text, buf, n);
}

/* GPT-3 1.3B (24 layers, 16 heads, causal, sequence 2048), Megatron-LM
 * (with dp > 1: ZeRO 0-3 without pipeline stages, the distributed optimizer
 * and Megatron-FSDP; ZeRO 0 or 1 with them), global batch 8, up to 4 GPUs
 * of one node.
 * Per (g, tp, cp, pp): micro-batches (powers of two dividing 8 / dp) x
 * schedules (interleaved x2 when m = 8 / (dp mb) is a multiple of pp; the
 * 24 layers are a multiple of 2 pp for every pp here) x ZeRO stages x 3
 * recompute modes (cp = 2, 4 split 2048 into 2 cp chunks):
 *   g = 1: (1,1,1) dp 1: 4 mb x 1 x 1 x 3                    = 12
 *   g = 2: (1,1,1) dp 2: 3 mb x 4 ZeRO x 3                   = 36
 *          (1,1,2) dp 1: mb 1,2,4 interleave too, 8 only 1f1b:
 *                        (2 + 2 + 2 + 1) x 3                 = 21
 *          (1,2,1) dp 1: 4 x 3                               = 12
 *          (2,1,1) dp 1: 4 x 3                               = 12
 *   g = 4: (1,1,1) dp 4: 2 mb x 4 x 3                        = 24
 *          (1,1,2) dp 2: m = 4, 2, 1: (2 + 2 + 1) x 2 x 3    = 30
 *          (1,1,4) dp 1: m = 8, 4, 2, 1: (2 + 2 + 1 + 1) x 3 = 18
 *          (1,2,1) dp 2: 3 x 4 x 3                           = 36
 *          (1,2,2) dp 1: 7 x 3                               = 21
 *          (1,4,1) dp 1: 4 x 3                               = 12
 *          (2,1,1) dp 2: 3 x 4 x 3                           = 36
 *          (2,1,2) dp 1: 7 x 3                               = 21
 *          (2,2,1) dp 1: 4 x 3                               = 12
 *          (4,1,1) dp 1: 4 x 3                               = 12
 * in all 12 + 81 + 222 = 315. */
START_TEST(test_count)
{
	char path[64];
	scenario(path, sizeof path,
		 "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
		 "training = { framework = \"megatron\"; global_batch = 8; micro_batch = 1; "
		 "seq_len = 2048; };\n");
	struct search_result sr;
	struct ts_error err;
	ck_assert_int_eq(search_run(cat, &calib, path, NULL, 0, SEARCH_TIME, 4, 2, 0, &sr, &err),
			 0);
	unlink(path);
	ck_assert_uint_eq(sr.n, 315);
	ck_assert_uint_eq(sr.pruned + sr.simulated + sr.aliases, 315);
	ck_assert_uint_eq(sr.failed, 0);
	size_t interleaved = 0, z1 = 0, z3 = 0, cp = 0;
	for (size_t i = 0; i < sr.n; i++) {
		interleaved += sr.c[i].schedule == TS_SCHED_INTERLEAVED;
		z1 += sr.c[i].zero == 1;
		z3 += sr.c[i].zero == 3;
		ck_assert(sr.c[i].zero < 2 || sr.c[i].pp == 1);
		cp += sr.c[i].cp > 1;
		ck_assert_uint_eq(sr.c[i].tp * sr.c[i].cp * sr.c[i].pp * sr.c[i].dp,
				  sr.c[i].nodes * sr.c[i].gpus_per_node);
	}
	/* interleaved: 3 schedules for (1,1,2) at g = 2, (1,1,2) x 2 ZeRO,
	 * (1,1,4), (1,2,2), (2,1,2) at g = 4: (3 + 2 x 2 + 2 + 3 + 3) x 3 */
	ck_assert_uint_eq(interleaved, 45);
	/* ZeRO 1: a quarter of every dp > 1 group without pipeline stages,
	 * half of the (1,1,2) dp 2 one: (36 + 24 + 36 + 36) / 4 + 30 / 2 */
	ck_assert_uint_eq(z1, 48);
	/* ZeRO 3 (Megatron-FSDP optim_grads_params) only where pp is 1 */
	ck_assert_uint_eq(z3, (36 + 24 + 36 + 36) / 4);
	/* cp > 1: (1,2,1) at g = 2; (1,2,1), (1,2,2), (1,4,1), (2,2,1) at g = 4 */
	ck_assert_uint_eq(cp, 12 + 36 + 21 + 12 + 12);
	/* ranked best first among those that fit clearly, then among the
	 * tight ones (a risk, not a pass: after every clear fit) */
	size_t tight = 0;
	for (size_t i = 0; i < sr.ranked; i++) {
		tight += sr.c[i].tight;
		ck_assert(sr.c[i].tight == !strcmp(sr.c[i].res.memory_verdict, "tight"));
		if (i == 0)
			continue;
		ck_assert(sr.c[i - 1].tight <= sr.c[i].tight);
		if (sr.c[i - 1].tight == sr.c[i].tight)
			ck_assert(sr.c[i - 1].score <= sr.c[i].score);
	}
	ck_assert_uint_eq(tight, sr.tight);
	search_result_free(&sr);
}
END_TEST

/* GPT-3 13B with DeepSpeed on up to 4 single-GPU nodes (so tp = 1): 13e9
 * parameters x 16 bytes = 208 GB without ZeRO; ZeRO-1 over dp = 4 keeps
 * 4 + 12 / 4 = 7 bytes per parameter, 91 GB; neither fits in 80 GB, so
 * whatever is ranked shards gradients or weights (ZeRO >= 2) or splits
 * the model into pipeline stages. */
START_TEST(test_needs_sharding)
{
	char path[64];
	scenario(
	    path, sizeof path,
	    "model = \"gpt3-13b\"; cluster = \"dgx-a100-80gb\"; nodes = 4; gpus_per_node = 1;\n"
	    "training = { framework = \"deepspeed\"; global_batch = 16; micro_batch = 1; "
	    "seq_len = 2048; };\n");
	struct search_result sr;
	struct ts_error err;
	ck_assert_int_eq(search_run(cat, &calib, path, NULL, 0, SEARCH_TIME, 4, 2, 0, &sr, &err),
			 0);
	unlink(path);
	ck_assert_uint_gt(sr.ranked, 0);
	for (size_t i = 0; i < sr.ranked; i++) {
		const struct search_cand *c = &sr.c[i];
		ck_assert_uint_eq(c->tp, 1);
		ck_assert_msg(c->zero >= 2 || c->pp > 1, "rank %zu: zero %d pp %u fits", i, c->zero,
			      c->pp);
	}
	ck_assert(sr.c[0].zero == 3 || sr.c[0].pp > 1 || sr.c[0].zero == 2);
	search_result_free(&sr);
}
END_TEST

/* Candidates that resolve to the same plan are one row. GPT-3 1.3B with
 * flash attention on 1 GPU, global batch 4: micro-batches 1, 2, 4 x 3
 * recompute modes = 9 candidates. Flash attention keeps no scores, so
 * selective keeps and reruns what none does: per micro-batch one row
 * "none = selective" and one "full", 6 rows at most, 3 aliases; an alias is
 * not ranked, takes its equal's result, and no two ranked rows have the
 * same settings. Without flash (fp32) the three modes differ: 9 rows. A
 * layer-list model is searched with none and full only (selective is the
 * transformer's attention recompute), which differ: 6 rows, no alias.
 * PyTorch FSDP adds PyTorch's op-level checkpointing (op), which differs
 * from the others: 12 candidates, 3 aliases (selective = none); Megatron-LM
 * (the cases above) cannot run it, nor a layer list: 6 rows with FSDP. */
START_TEST(test_same_plan_once)
{
	static const struct {
		const char *text;
		size_t n, aliases;
		unsigned equiv0; /* recompute_equiv of every "none" candidate */
	} cases[] = {
	    {"model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	     "gpus_per_node = 1; training = { global_batch = 4; micro_batch = 1; seq_len = 2048; "
	     "};\n",
	     9, 3, 1u | 2u},
	    {"model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	     "gpus_per_node = 1; training = { global_batch = 4; micro_batch = 1; seq_len = 2048;\n"
	     "  precision = \"fp32\"; };\n",
	     9, 0, 1u},
	    {"model = \"resnet50\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	     "gpus_per_node = 1; training = { global_batch = 4; micro_batch = 1; };\n",
	     6, 0, 1u},
	    {"model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	     "gpus_per_node = 1; training = { framework = \"fsdp\"; global_batch = 4;\n"
	     "  micro_batch = 1; seq_len = 2048; };\n",
	     12, 3, 1u | 2u},
	    {"model = \"resnet50\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	     "gpus_per_node = 1; training = { framework = \"fsdp\"; global_batch = 4;\n"
	     "  micro_batch = 1; };\n",
	     6, 0, 1u},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char path[64];
		scenario(path, sizeof path, cases[k].text);
		struct search_result sr;
		struct ts_error err;
		int rc = search_run(cat, &calib, path, NULL, 0, SEARCH_TIME, 1, 2, 0, &sr, &err);
		unlink(path);
		ck_assert_msg(rc == 0, "case %zu: %s", k, err.msg);
		ck_assert_uint_eq(sr.n, cases[k].n);
		ck_assert_uint_eq(sr.aliases, cases[k].aliases);
		ck_assert_uint_eq(sr.pruned + sr.simulated + sr.aliases, sr.n);
		for (size_t i = 0; i < sr.n; i++) {
			const struct search_cand *c = &sr.c[i];
			if (c->alias) {
				ck_assert(!isfinite(c->score));
				ck_assert(c->recompute != WORK_RECOMPUTE_NONE);
				continue;
			}
			if (c->recompute == WORK_RECOMPUTE_NONE)
				ck_assert_uint_eq(c->recompute_equiv, cases[k].equiv0);
			ck_assert(c->recompute_equiv & (1u << c->recompute));
			/* an alias's result is its equal's */
			for (size_t j = 0; j < sr.n; j++)
				if (sr.c[j].alias && sr.c[j].micro_batch == c->micro_batch &&
				    (c->recompute_equiv & (1u << sr.c[j].recompute)))
					ck_assert(sr.c[j].res.iteration_time_s ==
						  c->res.iteration_time_s);
		}
		for (size_t i = 0; i < sr.ranked; i++)
			for (size_t j = 0; j < i; j++)
				ck_assert_msg(sr.c[i].micro_batch != sr.c[j].micro_batch ||
						  sr.c[i].recompute != sr.c[j].recompute,
					      "case %zu: ranks %zu and %zu are one setting", k, j,
					      i);
		ck_assert_uint_le(sr.ranked, sr.n - cases[k].aliases);
		search_result_free(&sr);
	}
}
END_TEST

/* The bounded search is exact for its top N: GPT-3 1.3B on up to 8 GPUs of
 * a DGX A100, global batch 16, by time to train and by cost (owned and
 * cloud priced), searched exhaustively (top 0) and for the top 5 on one and
 * two threads. The top 5 are the same candidates with the same scores, in
 * the same order; every simulated candidate's lower bound is at most its
 * simulated iteration; the bound skips candidates (else this tests
 * nothing); the counts add up. */
START_TEST(test_bounded_exact)
{
	static const char *const texts[] = {
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { global_batch = 16; micro_batch = 1; seq_len = 2048; "
	    "tokens = 1.0e10; };\ncost = { usd_per_gpu_hour = 1.84; };\n",
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { global_batch = 16; micro_batch = 1; seq_len = 2048; };\n"};
	enum { TOP = 5 };
	for (size_t k = 0; k < 2; k++)
		for (int o = 0; o < 2; o++) {
			enum search_objective obj = o ? SEARCH_COST : SEARCH_TIME;
			char path[64];
			scenario(path, sizeof path, texts[k]);
			struct search_result ex, b1, b2;
			struct ts_error err;
			ck_assert_int_eq(
			    search_run(cat, &calib, path, NULL, 0, obj, 8, 2, 0, &ex, &err), 0);
			ck_assert_int_eq(
			    search_run(cat, &calib, path, NULL, 0, obj, 8, 1, TOP, &b1, &err), 0);
			ck_assert_int_eq(
			    search_run(cat, &calib, path, NULL, 0, obj, 8, 2, TOP, &b2, &err), 0);
			unlink(path);
			ck_assert_uint_eq(ex.bounded, 0);
			ck_assert_uint_eq(ex.bound_broken, 0);
			ck_assert_uint_ge(ex.ranked - ex.tight, TOP);
			for (size_t i = 0; i < ex.n; i++) {
				const struct search_cand *c = &ex.c[i];
				if (c->pruned || c->alias || c->rc)
					continue;
				ck_assert_msg(c->lower_s > 0.0, "case %zu: no bound", k);
				ck_assert_msg(c->lower_s <= c->res.iteration_time_s,
					      "case %zu: tp %u pp %u dp %u mb %lld: bound %.9g s > "
					      "simulated %.9g s",
					      k, c->tp, c->pp, c->dp, (long long)c->micro_batch,
					      c->lower_s, c->res.iteration_time_s);
			}
			const struct search_result *bs[2] = {&b1, &b2};
			for (int t = 0; t < 2; t++) {
				const struct search_result *b = bs[t];
				ck_assert_uint_eq(b->bound_broken, 0);
				ck_assert_msg(b->bounded > 0, "case %zu obj %d: nothing bounded", k,
					      o);
				ck_assert_uint_lt(b->simulated, ex.simulated);
				ck_assert_uint_eq(b->n, ex.n);
				ck_assert_uint_eq(b->pruned, ex.pruned);
				ck_assert_uint_eq(b->aliases, ex.aliases);
				ck_assert_uint_eq(b->simulated + b->bounded, ex.simulated);
				for (size_t i = 0; i < TOP; i++) {
					const struct search_cand *x = &ex.c[i], *y = &b->c[i];
					ck_assert_msg(x->score == y->score,
						      "case %zu obj %d threads %d rank %zu: %.9g "
						      "vs %.9g",
						      k, o, t + 1, i, x->score, y->score);
					ck_assert(x->nodes == y->nodes && x->tp == y->tp &&
						  x->pp == y->pp && x->cp == y->cp &&
						  x->dp == y->dp && x->zero == y->zero &&
						  x->schedule == y->schedule &&
						  x->micro_batch == y->micro_batch &&
						  x->recompute == y->recompute && !y->tight);
				}
			}
			search_result_free(&ex);
			search_result_free(&b1);
			search_result_free(&b2);
		}
}
END_TEST

/* The lower bound holds wherever the simulation goes: every candidate
 * simulated by exhaustive searches of one DGX A100 (up to 8 GPUs, global
 * batch 16) over settings that exercise each of its terms: tensor
 * parallelism with and without sequence parallelism (the TP floor), with
 * Megatron-Core's TP overlap (no TP floor), pipelines 1F1B and interleaved
 * (the drain), ZeRO-1 (the optimizer step shared over dp x cp), FSDP
 * (ZeRO 2 and 3, tp 1), DeepSpeed (ZeRO 0..3), context parallelism, and
 * SwiGLU models with grouped-query attention, has a bound above 0 and at most its
 * simulated iteration; no bounded search ever finds a bound broken. */
START_TEST(test_bound_holds)
{
	static const char *const texts[] = {
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { global_batch = 16; micro_batch = 1; seq_len = 2048; };\n"
	    "parallel = { sp = true; };\n",
	    "model = \"llama2-7b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { global_batch = 16; micro_batch = 1; seq_len = 4096; };\n"
	    "parallel = { sp = true; tp_comm_overlap = true; };\n",
	    "model = \"llama2-7b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { framework = \"fsdp\"; global_batch = 16; micro_batch = 1; "
	    "seq_len = 4096; };\n",
	    "model = \"gpt3-6.7b\"; cluster = \"dgx-h100\"; nodes = 1;\n"
	    "training = { framework = \"deepspeed\"; global_batch = 16; micro_batch = 1; "
	    "seq_len = 2048; };\n",
	    "model = \"llama3-8b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { global_batch = 16; micro_batch = 1; seq_len = 8192; };\n"};
	for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
		char path[64];
		scenario(path, sizeof path, texts[k]);
		struct search_result ex;
		struct ts_error err;
		ck_assert_int_eq(
		    search_run(cat, &calib, path, NULL, 0, SEARCH_TIME, 8, 2, 0, &ex, &err), 0);
		unlink(path);
		ck_assert_uint_eq(ex.bound_broken, 0);
		size_t checked = 0, piped = 0, tp = 0;
		for (size_t i = 0; i < ex.n; i++) {
			const struct search_cand *c = &ex.c[i];
			if (c->pruned || c->alias || c->rc)
				continue;
			ck_assert_msg(c->lower_s > 0.0, "case %zu: no bound", k);
			ck_assert_msg(c->lower_s <= c->res.iteration_time_s,
				      "case %zu: tp %u cp %u pp %u v %u dp %u zero %d mb %lld "
				      "recompute %d: bound %.9g s > simulated %.9g s",
				      k, c->tp, c->cp, c->pp, c->interleave, c->dp, c->zero,
				      (long long)c->micro_batch, (int)c->recompute, c->lower_s,
				      c->res.iteration_time_s);
			checked++;
			piped += c->pp > 1;
			tp += c->tp > 1;
		}
		/* the settings above were searched, not skipped (FSDP: no tp) */
		ck_assert_msg(checked >= 100 && piped >= 10 && (tp >= 10 || k == 2),
			      "case %zu: %zu checked, %zu pipelined, %zu with tp", k, checked,
			      piped, tp);
		search_result_free(&ex);
	}
}
END_TEST

/* Candidates x and y are the same setting. */
static bool same_setting(const struct search_cand *x, const struct search_cand *y)
{
	return x->nodes == y->nodes && x->gpus_per_node == y->gpus_per_node && x->tp == y->tp &&
	       x->pp == y->pp && x->cp == y->cp && x->dp == y->dp && x->zero == y->zero &&
	       x->schedule == y->schedule && x->interleave == y->interleave &&
	       x->micro_batch == y->micro_batch && x->recompute == y->recompute;
}

/* A search for layer's figures (search_opts.layer_figures): GPT-3 1.3B on
 * up to 8 GPUs of a DGX A100, global batch 16. Bounded for the top 5 on
 * one and two threads it finds the exhaustive top 5 with the same scores;
 * each of the 5 gives the iteration of `trainsim run` of its setting at
 * the granularity it ran at (layer where stage would differ: at_layer; two
 * iterations, class mode, as the export writes it); candidates with tensor
 * parallelism inside a node or context parallelism run at layer and differ
 * from the stage search's
 * figures, except tensor parallelism over a whole node (plan_stage_exact),
 * which runs at stage as candidates on one GPU do, as in the stage search. */
START_TEST(test_layer_figures)
{
	static const char text[] =
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { global_batch = 16; micro_batch = 1; seq_len = 2048; };\n";
	enum { TOP = 5 };
	char path[64];
	scenario(path, sizeof path, text);
	struct ts_env env;
	struct ts_error err;
	ck_assert_int_eq(env_wrap(cat, &calib, &env, &err), 0);
	struct search_opts o = {.obj = SEARCH_TIME, .max_gpus = 8, .threads = 2, .top = 0};
	struct search_result st, ex, b1, b2;
	ck_assert_int_eq(search_run_opts(&env, path, NULL, 0, &o, NULL, &st, &err), 0);
	o.layer_figures = true;
	ck_assert_int_eq(search_run_opts(&env, path, NULL, 0, &o, NULL, &ex, &err), 0);
	o.top = TOP;
	ck_assert_int_eq(search_run_opts(&env, path, NULL, 0, &o, NULL, &b2, &err), 0);
	o.threads = 1;
	ck_assert_int_eq(search_run_opts(&env, path, NULL, 0, &o, NULL, &b1, &err), 0);
	ck_assert_uint_eq(ex.bound_broken, 0);
	ck_assert_uint_ge(ex.ranked - ex.tight, TOP);
	const struct search_result *bs[2] = {&b1, &b2};
	for (int t = 0; t < 2; t++) {
		ck_assert_uint_eq(bs[t]->bound_broken, 0);
		ck_assert_uint_gt(bs[t]->bounded, 0);
		for (size_t i = 0; i < TOP; i++) {
			ck_assert(same_setting(&ex.c[i], &bs[t]->c[i]) && !bs[t]->c[i].tight);
			ck_assert_msg(ex.c[i].score == bs[t]->c[i].score,
				      "threads %d rank %zu: %.9g vs %.9g", t + 1, i, ex.c[i].score,
				      bs[t]->c[i].score);
		}
	}
	/* the top 5 as `trainsim run` of each at layer granularity */
	for (size_t i = 0; i < TOP; i++) {
		const struct search_cand *c = &ex.c[i];
		char a[13][96];
		snprintf(a[0], sizeof a[0], "gpus_per_node=%u", c->gpus_per_node);
		snprintf(a[1], sizeof a[1], "parallel.tp=%u", c->tp);
		snprintf(a[2], sizeof a[2], "parallel.pp=%u", c->pp);
		snprintf(a[3], sizeof a[3], "parallel.cp=%u", c->cp);
		snprintf(a[4], sizeof a[4], "parallel.dp=%u", c->dp);
		snprintf(a[5], sizeof a[5], "parallel.zero=%d", c->zero);
		snprintf(a[6], sizeof a[6], "parallel.schedule=\"%s\"",
			 c->interleave > 1 ? "interleaved" : "1f1b");
		snprintf(a[7], sizeof a[7], "parallel.interleave=%u", c->interleave);
		snprintf(a[8], sizeof a[8], "training.micro_batch=%lld", (long long)c->micro_batch);
		snprintf(a[9], sizeof a[9], "training.recompute=\"%s\"",
			 work_recompute_name(c->recompute));
		snprintf(a[10], sizeof a[10], "training.iterations=2");
		snprintf(a[11], sizeof a[11], "sim.granularity=\"%s\"",
			 c->at_layer ? "layer" : "stage");
		snprintf(a[12], sizeof a[12], "sim.mode=\"class\"");
		const char *sets[13];
		for (size_t k = 0; k < 13; k++)
			sets[k] = a[k];
		struct ts_scenario *sc;
		struct ts_result r;
		ck_assert_msg(ts_scenario_load(cat, path, sets, 13, &sc, &err) == 0, "%s", err.msg);
		ck_assert_msg(ts_run(sc, &calib, &r, NULL, &err) == 0, "%s", err.msg);
		double want = r.iteration_time_s, got = c->res.iteration_time_s;
		ck_assert_msg(got == want,
			      "rank %zu tp %u cp %u pp %u dp %u: search %.9g s, run %.9g s", i,
			      c->tp, c->cp, c->pp, c->dp, got, want);
		ts_scenario_destroy(sc);
	}
	/* layer where stage differs, stage where it does not */
	size_t differ = 0, alone = 0, node_tp = 0;
	for (size_t i = 0; i < ex.n; i++) {
		const struct search_cand *x = &ex.c[i];
		if (x->pruned || x->alias || x->rc)
			continue;
		for (size_t j = 0; j < st.n; j++) {
			const struct search_cand *y = &st.c[j];
			if (!same_setting(x, y) || y->rc)
				continue;
			if (x->tp * x->cp * x->pp * x->dp == 1) {
				ck_assert(!x->at_layer);
				ck_assert(x->res.iteration_time_s == y->res.iteration_time_s);
				alone++;
			} else if (x->cp > 1 || (x->tp > 1 && x->tp < x->gpus_per_node)) {
				ck_assert(x->at_layer);
				differ += x->res.iteration_time_s != y->res.iteration_time_s;
			} else if (x->tp > 1) { /* over its whole node: stage is exact */
				ck_assert(!x->at_layer);
				ck_assert(x->res.iteration_time_s == y->res.iteration_time_s);
				node_tp++;
			}
		}
	}
	ck_assert_uint_gt(alone, 0);
	ck_assert_uint_gt(differ, 0);
	ck_assert_uint_gt(node_tp, 0);
	unlink(path);
	env_release(&env);
	search_result_free(&st);
	search_result_free(&ex);
	search_result_free(&b1);
	search_result_free(&b2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("search");
	TCase *tc = tu_tcase("core");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, test_count);
	tcase_add_test(tc, test_needs_sharding);
	tcase_add_test(tc, test_same_plan_once);
	tcase_add_test(tc, test_bounded_exact);
	tcase_add_test(tc, test_bound_holds);
	tcase_add_test(tc, test_layer_figures);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
