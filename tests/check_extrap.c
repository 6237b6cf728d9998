/* Extension of a steady state (ts_run with sim.extrapolate): a long
 * iteration read off the line through two short ones must equal the whole
 * iteration simulated micro-batch by micro-batch.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/catalog.h"
#include "io/scenario.h"
#include "plan/env.h"
#include "plan/plan.h"
#include "run/run.h"
#include "testutil.h"

static struct hw_catalog *cat;
static struct work_calib calib;

/* The schedules here are periodic once the pipeline is full: every task
 * has a fixed duration and every transfer the same share of its links from
 * one micro-batch to the next, so the whole iteration is exactly linear in
 * the micro-batches and the two runs agree up to the rounding of event
 * times to the nanosecond (a few ns over seconds) and of sums of doubles:
 * 1e-9 relative. */
#define TOL 1e-9

struct xcase {
	const char *what;
	const char *text; /* scenario */
	/* relative tolerance when not TOL: the extension carries the short
	 * runs' rounding (a few ns) by (m - m1) / (m2 - m1), 13 for 64
	 * micro-batches from 12 and 16 */
	double tol;
};

static const struct xcase cases[] = {
    {"data parallel, 32 accumulation steps",
     "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
     "training = { global_batch = 256; micro_batch = 1; seq_len = 2048; };\n",
     0.0},
    {"ZeRO-3, a gather per unit and micro-batch",
     "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
     "training = { global_batch = 256; micro_batch = 1; seq_len = 2048; };\n"
     "parallel = { zero = 3; };\n",
     0.0},
    {"TP2 PP4 DP2, 1F1B, 32 micro-batches",
     "model = \"gpt3-13b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
     "training = { global_batch = 64; micro_batch = 1; seq_len = 2048; };\n"
     "parallel = { tp = 2; pp = 4; sp = true; };\n",
     0.0},
    {"TP2 PP4 DP2, interleaved x2, distributed optimizer",
     "model = \"gpt3-13b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
     "training = { global_batch = 64; micro_batch = 1; seq_len = 2048; };\n"
     "parallel = { tp = 2; pp = 4; zero = 1; schedule = \"interleaved\"; interleave = 2; };\n",
     0.0},
    {"PP4 GPipe: activations grow with the micro-batches",
     "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
     "training = { global_batch = 64; micro_batch = 1; seq_len = 2048; };\n"
     "parallel = { pp = 4; schedule = \"gpipe\"; };\n",
     0.0},
    {"MoE: TP2 PP4 EP4 on H100 with TP overlap",
     "model = \"mixtral-8x7b\"; cluster = \"dgx-h100\"; nodes = 8;\n"
     "training = { global_batch = 256; micro_batch = 1; seq_len = 4096; };\n"
     "parallel = { tp = 2; pp = 4; ep = 4; sp = true; tp_comm_overlap = true; };\n",
     0.0},
    {"loader-bound ResNet-50, 2 workers per GPU",
     "model = \"resnet50\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
     "training = { framework = \"ddp\"; global_batch = 65536; micro_batch = 256; precision = "
     "\"fp16\"; optimizer = \"sgd\"; };\n"
     "data = { dataset = \"imagenet-1k\"; workers_per_gpu = 2; };\n",
     0.0},
    /* from 8 stages on without interleaving, m1 = p + p/2 and m2 = 2p */
    {"TP2 PP8, 1F1B, from 12 and 16 micro-batches",
     "model = \"gpt3-13b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
     "training = { global_batch = 64; micro_batch = 1; seq_len = 2048; };\n"
     "parallel = { tp = 2; pp = 8; sp = true; };\n",
     /* 8 ns of 4.48 s (1.8e-9) with the slope from 4 micro-batches, 0
      * from 8 (m1 = 16, m2 = 24): 13 x the runs' rounding */
     5e-9},
    {"PP8 GPipe, from 12 and 16 micro-batches",
     "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
     "training = { global_batch = 64; micro_batch = 1; seq_len = 2048; };\n"
     "parallel = { pp = 8; schedule = \"gpipe\"; };\n",
     0.0},
};

static struct ts_scenario *load(const char *text, const char *set)
{
	struct ts_scenario *s = NULL;
	struct ts_error e = {0};
	const char *sets[1] = {set};
	int rc = ts_scenario_load_string(cat, text, "x.cfg", sets, set ? 1 : 0, &s, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	return s;
}

static double tol = TOL;

static void near(const char *what, const char *key, double got, double want, double scale)
{
	double d = fabs(got - want);
	printf("  %-12s %.9g vs %.9g\n", key, got, want);
	ck_assert_msg(d <= tol * scale, "%s: %s extended %.12g, simulated whole %.12g", what, key,
		      got, want);
}

START_TEST(test_extension_equals_whole)
{
	const struct xcase *x = &cases[_i];
	tol = x->tol > 0.0 ? x->tol : TOL;
	struct ts_scenario *a = load(x->text, NULL);
	struct ts_scenario *b = load(x->text, "sim.extrapolate=false");
	uint32_t m1, m2, m;
	ck_assert_msg(ts_run_extends(a, &m1, &m2, &m), "%s: not extended", x->what);
	ck_assert(!ts_run_extends(b, &m1, &m2, &m));
	struct ts_result ra, rb;
	struct ts_error e = {0};
	ck_assert_msg(ts_run(a, &calib, &ra, NULL, &e) == 0, "%s", e.msg);
	ck_assert_msg(ts_run(b, &calib, &rb, NULL, &e) == 0, "%s", e.msg);
	printf("%s (m = %u from %u and %u)\n", x->what, m, m1, m2);
	double T = rb.iteration_time_s, M = rb.memory_per_gpu_bytes;
	near(x->what, "iteration_s", ra.iteration_time_s, T, T);
	near(x->what, "compute_s", ra.compute_s, rb.compute_s, T);
	near(x->what, "recompute_s", ra.recompute_s, rb.recompute_s, T);
	near(x->what, "comm_s", ra.exposed_comm_s, rb.exposed_comm_s, T);
	near(x->what, "bubble_s", ra.bubble_s, rb.bubble_s, T);
	near(x->what, "stall_s", ra.data_stall_s, rb.data_stall_s, T);
	near(x->what, "optimizer_s", ra.optimizer_s, rb.optimizer_s, T);
	near(x->what, "memory", ra.memory_per_gpu_bytes, M, M);
	near(x->what, "activations", ra.mem.activations, rb.mem.activations, M);
	near(x->what, "tokens_per_s", ra.tokens_per_s, rb.tokens_per_s, rb.tokens_per_s);
	near(x->what, "mfu", ra.mfu, rb.mfu, rb.mfu);
	ck_assert_int_eq(ra.fits, rb.fits);
	ck_assert_str_eq(ra.bottleneck, rb.bottleneck);
	ts_scenario_destroy(a);
	ts_scenario_destroy(b);
}
END_TEST

/* The short runs: p + p/2 and 2p micro-batches from 8 stages on without
 * interleaving, multiples of the stage count (2p and 3p) with it. */
START_TEST(test_short_run_lengths)
{
	struct ts_scenario *a = load(cases[7].text, NULL);
	struct ts_scenario *b = load(cases[3].text, NULL);
	uint32_t m1, m2, m;
	ck_assert(ts_run_extends(a, &m1, &m2, &m));
	ck_assert_uint_eq(m1, 12);
	ck_assert_uint_eq(m2, 16);
	ck_assert_uint_eq(m, 64);
	ck_assert(ts_run_extends(b, &m1, &m2, &m));
	ck_assert_uint_eq(m1, 8);
	ck_assert_uint_eq(m2, 12);
	ts_scenario_destroy(a);
	ts_scenario_destroy(b);
}
END_TEST

/* Runs on one arena (the storage of each run's task graph kept for the
 * next, as a sweep's thread keeps it from point to point), every case in
 * turn, extended and whole, then the first again after the largest: each
 * result is the one a run on storage of its own gives, bit for bit. */
START_TEST(test_arena_same_bits)
{
	struct ts_env env;
	struct ts_error e = {0};
	ck_assert_int_eq(env_wrap(cat, &calib, &env, &e), 0);
	struct run_arena ar = {0};
	size_t n = sizeof cases / sizeof cases[0];
	for (size_t k = 0; k <= 2 * n; k++) {
		const struct xcase *x = &cases[k < 2 * n ? k / 2 : 0];
		struct ts_scenario *sc = load(x->text, k % 2 ? "sim.extrapolate=false" : NULL);
		struct ts_plan *p = NULL;
		ck_assert_msg(plan_build(&env, sc, &p, &e) == 0, "%s", e.msg);
		struct ts_result *own = calloc(1, sizeof *own), *kept = calloc(1, sizeof *kept);
		ck_assert(own && kept);
		ck_assert_msg(run_plan(p, own, NULL, &e) == 0, "%s", e.msg);
		ck_assert_msg(run_plan_in(p, &ar, kept, NULL, &e) == 0, "%s", e.msg);
		ck_assert_ptr_nonnull(ar.g);
		ck_assert_msg(own->iteration_time_s == kept->iteration_time_s, "%s: %.17g != %.17g",
			      x->what, kept->iteration_time_s, own->iteration_time_s);
		ck_assert_msg(!memcmp(own, kept, sizeof *own), "%s: results differ", x->what);
		free(own);
		free(kept);
		plan_destroy(p);
		ts_scenario_destroy(sc);
	}
	run_arena_release(&ar);
	ck_assert_ptr_null(ar.g);
	env_release(&env);
}
END_TEST

/* GPipe keeps every micro-batch's activations until its backward: the peak
 * grows by one micro-batch's activations per micro-batch, so the extension
 * must carry memory along its line too (not take the short run's peak). */
START_TEST(test_gpipe_memory_grows)
{
	struct ts_scenario *a = load(cases[4].text, NULL);
	struct ts_scenario *b = load(cases[4].text, "training.global_batch=32");
	struct ts_result ra, rb;
	struct ts_error e = {0};
	ck_assert_msg(ts_run(a, &calib, &ra, NULL, &e) == 0, "%s", e.msg);
	ck_assert_msg(ts_run(b, &calib, &rb, NULL, &e) == 0, "%s", e.msg);
	/* 64 and 32 micro-batches on 4 stages (dp 2: 32 and 16 per pipeline):
	 * the first stage holds all of them at its peak, so the activations
	 * double (the embedding output is part of each micro-batch's share) */
	double r = ra.mem.activations / rb.mem.activations;
	printf("GPipe activations: %.4g GiB at 32, %.4g GiB at 16 micro-batches (x%.4f)\n",
	       ra.mem.activations / 1073741824.0, rb.mem.activations / 1073741824.0, r);
	ck_assert_msg(fabs(r - 2.0) < 1e-9, "ratio %.12g, expected 2", r);
	ts_scenario_destroy(a);
	ts_scenario_destroy(b);
}
END_TEST

/* Micro-batches interleaving cannot take are refused as before, from the
 * whole run, naming the count. */
START_TEST(test_interleaved_not_multiple)
{
	struct ts_scenario *a = load(cases[3].text, "training.global_batch=60");
	uint32_t m1, m2, m;
	ck_assert(!ts_run_extends(a, &m1, &m2, &m));
	struct ts_result r;
	struct ts_error e = {0};
	ck_assert_int_eq(ts_run(a, &calib, &r, NULL, &e), TS_EINVALID);
	printf("%s\n", e.msg);
	ck_assert_ptr_nonnull(strstr(e.msg, "30 micro-batches"));
	ts_scenario_destroy(a);
}
END_TEST

/* Interleaving wants whole layers per virtual stage: 40 layers on 8
 * stages x 2 are 2.5 each, refused naming the key and the numbers. */
START_TEST(test_interleaved_uneven_refused)
{
	struct ts_scenario *a = load(cases[3].text, "parallel.pp=8");
	struct ts_result r;
	struct ts_error e = {0};
	ck_assert_int_eq(ts_run(a, &calib, &r, NULL, &e), TS_EINVALID);
	printf("%s: %s\n", e.key, e.msg);
	ck_assert_str_eq(e.key, "parallel.interleave");
	ck_assert_ptr_nonnull(strstr(e.msg, "40 layers on 8 stages"));
	ck_assert_ptr_nonnull(strstr(e.msg, "pp x interleave = 16"));
	ts_scenario_destroy(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("extrap");
	TCase *tc = tu_tcase("extrap");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, test_short_run_lengths);
	tcase_add_loop_test(tc, test_extension_equals_whole, 0,
			    (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_gpipe_memory_grows);
	tcase_add_test(tc, test_arena_same_bits);
	tcase_add_test(tc, test_interleaved_not_multiple);
	tcase_add_test(tc, test_interleaved_uneven_refused);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
