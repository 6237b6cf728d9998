/* What would fit (sim/sweep/remedy.h): every change offered fits when it is
 * run again on its own, the list is ordered as documented, the changes
 * that do not fit are left out, and a run that fits gets none.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
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
#include "sweep/remedy.h"
#include "testutil.h"
#include "work/compute.h"

static struct hw_catalog *cat;
static struct work_calib calib;

/* Llama-2-13B on one DGX A100 40GB, DP 8, ZeRO-2, micro-batch 1, 4K
 * tokens, no recomputation: weights 24.2 GiB (bf16), gradients 6.1 and
 * optimizer state 2.3 (sharded over 8), activations about 25 GiB: about
 * 77 GiB of 39.6. */
static const char nofit[] =
    "name = \"13b\"; model = \"llama2-13b\"; cluster = \"dgx-a100-40gb\"; nodes = 1;\n"
    "training = { framework = \"megatron\"; global_batch = 64; micro_batch = 1; seq_len = 4096; "
    "};\n"
    "parallel = { zero = 2; };\n";

static int run_file(struct ts_env *env, const char *path, const char *const *sets, size_t n,
		    struct ts_result *r)
{
	struct ts_scenario *sc;
	struct ts_plan *p;
	struct ts_error e;
	const char *argv[16];
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		argv[k++] = sets[i];
	argv[k++] = "sim.samples=1";
	ck_assert_msg(ts_scenario_load(cat, path, argv, k, &sc, &e) == 0, "%s", e.msg);
	ck_assert_msg(plan_build(env, sc, &p, &e) == 0, "%s", e.msg);
	int rc = run_plan(p, r, NULL, &e);
	plan_destroy(p);
	ts_scenario_destroy(sc);
	return rc;
}

START_TEST(offers_what_fits)
{
	char path[] = "/tmp/check_remedy_XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(nofit, f);
	fclose(f);
	struct ts_env env;
	struct ts_error e;
	ck_assert_int_eq(env_wrap(cat, &calib, &env, &e), 0);
	struct ts_result *r = calloc(1, sizeof *r), *x = calloc(1, sizeof *x);
	ck_assert_int_eq(run_file(&env, path, NULL, 0, r), 0);
	ck_assert(!r->fits);
	struct ts_remedies rem, rem2;
	ck_assert_int_eq(remedy_find(&env, path, NULL, 0, r, &rem, &e), 0);
	ck_assert(r->remedies == &rem);
	ck_assert_uint_ge(rem.n, 2);
	bool tp = false, gpu = false;
	for (uint32_t i = 0; i < rem.n; i++) {
		const struct ts_remedy *m = &rem.r[i];
		printf("%s [%s]: %.1f of %.1f GiB, %.3f s (%+.1f %%)\n", m->change, m->set,
		       m->memory_per_gpu_bytes / 1073741824.0,
		       m->memory_capacity_bytes / 1073741824.0, m->iteration_time_s,
		       100.0 * m->time_change);
		ck_assert(m->memory_per_gpu_bytes <= m->memory_capacity_bytes);
		ck_assert(fabs(m->time_change - (m->iteration_time_s / r->iteration_time_s - 1.0)) <
			  1e-12);
		/* the change run again on its own gives the same figures */
		char buf[sizeof m->set], *sets[8];
		size_t n = 0;
		snprintf(buf, sizeof buf, "%s", m->set);
		for (char *t = strtok(buf, " "); t && n < 8; t = strtok(NULL, " "))
			sets[n++] = t;
		ck_assert_int_eq(run_file(&env, path, (const char *const *)sets, n, x), 0);
		ck_assert(x->fits);
		ck_assert(x->memory_per_gpu_bytes == m->memory_per_gpu_bytes);
		ck_assert_int_eq(ts_time_from_s(x->iteration_time_s),
				 ts_time_from_s(m->iteration_time_s));
		tp = tp || strstr(m->set, "parallel.tp=8") != NULL;
		gpu = gpu || strstr(m->set, "cluster=") != NULL;
		/* the same GPUs first, each group fastest first */
		if (i) {
			const struct ts_remedy *p = &rem.r[i - 1];
			bool hw = strstr(m->set, "cluster=") || strstr(m->set, "nodes=");
			bool phw = strstr(p->set, "cluster=") || strstr(p->set, "nodes=");
			ck_assert(phw <= hw);
			if (phw == hw)
				ck_assert(p->iteration_time_s <= m->iteration_time_s);
		}
	}
	/* TP 8 within the node fits (weights / 8); a GPU with twice the memory
	 * holds the 77 GiB */
	ck_assert(tp && gpu);
	/* ZeRO-3 alone leaves 25 GiB of activations and does not fit: not offered */
	for (uint32_t i = 0; i < rem.n; i++)
		ck_assert(strcmp(rem.r[i].set, "parallel.zero=3"));
	const char *z3[1] = {"parallel.zero=3"};
	ck_assert_int_eq(run_file(&env, path, z3, 1, x), 0);
	ck_assert(!x->fits);
	/* a run that fits gets none */
	const char *small[2] = {"model=\"llama2-7b\"", "training.recompute=\"full\""};
	ck_assert_int_eq(run_file(&env, path, small, 2, x), 0);
	ck_assert_msg(x->fits, "Llama-2-7B: %.1f GiB", x->memory_per_gpu_bytes / 1073741824.0);
	ck_assert_int_eq(remedy_find(&env, path, small, 2, x, &rem2, &e), 0);
	ck_assert(!x->remedies && rem2.n == 0);
	free(r);
	free(x);
	env_release(&env);
	remove(path);
}
END_TEST

/* PyTorch's op-level checkpointing sits between selective and full on the
 * recompute ladder of a PyTorch-native framework: Llama-2-13B with FSDP
 * ZeRO-3 on a DGX A100 40GB, 4K tokens, recompute "op" keeps 12 GiB of
 * activations and does not fit (about 41 GiB of 39.6); full keeps the
 * blocks' inputs only and fits, so "recompute op -> full" is offered, and
 * fits when run on its own. */
START_TEST(op_to_full)
{
	static const char text[] =
	    "name = \"13b op\"; model = \"llama2-13b\"; cluster = \"dgx-a100-40gb\"; nodes = 1;\n"
	    "training = { framework = \"fsdp\"; global_batch = 64; micro_batch = 1; seq_len = "
	    "4096;\n"
	    "  recompute = \"op\"; };\n"
	    "parallel = { zero = 3; };\n";
	char path[] = "/tmp/check_remedy_XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	struct ts_env env;
	struct ts_error e;
	ck_assert_int_eq(env_wrap(cat, &calib, &env, &e), 0);
	struct ts_result *r = calloc(1, sizeof *r), *x = calloc(1, sizeof *x);
	ck_assert_int_eq(run_file(&env, path, NULL, 0, r), 0);
	ck_assert(!r->fits);
	struct ts_remedies rem;
	ck_assert_int_eq(remedy_find(&env, path, NULL, 0, r, &rem, &e), 0);
	bool full = false;
	for (uint32_t i = 0; i < rem.n; i++)
		if (!strcmp(rem.r[i].change, "recompute op -> full")) {
			full = true;
			ck_assert_str_eq(rem.r[i].set, "training.recompute=\"full\"");
		}
	ck_assert(full);
	const char *set[1] = {"training.recompute=\"full\""};
	ck_assert_int_eq(run_file(&env, path, set, 1, x), 0);
	ck_assert(x->fits);
	free(r);
	free(x);
	env_release(&env);
	remove(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("remedy");
	TCase *tc = tu_tcase("core");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, offers_what_fits);
	tcase_add_test(tc, op_to_full);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
