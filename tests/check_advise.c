/* Advice (sim/sweep/advise.c): the time-versus-cost frontier on hand-built
 * points and on the options of a small hand-built catalog, the cheapest and
 * fastest options against the constraints, and the catalog's errors.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/env.h"
#include "sweep/advise.h"
#include "testutil.h"
#include "trainsim.h"

/* Whether point i of n is dominated by another (the frontier's definition,
 * written out again). */
static bool dominated(const double *t, const double *c, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && !isnan(t[j]) && !isnan(c[j]) && t[j] <= t[i] && c[j] <= c[i] &&
		    (t[j] < t[i] || c[j] < c[i]))
			return true;
	return false;
}

START_TEST(frontier_hand_built)
{
	/* A (10 d, $100) and B (20 d, $50) trade time for money; C (30, 60) is
	 * slower and dearer than B; D (10, 120) as fast as A and dearer; E (5,
	 * 300) the fastest; F equals B (both kept); G has no time (neither kept
	 * nor dominating: its $1 would beat everything); H (40, 40) the
	 * cheapest. */
	const double t[] = {10, 20, 30, 10, 5, 20, NAN, 40};
	const double c[] = {100, 50, 60, 120, 300, 50, 1, 40};
	const bool want[] = {true, true, false, false, true, true, false, true};
	bool on[8];
	ts_advise_frontier(t, c, 8, on);
	for (size_t i = 0; i < 8; i++)
		ck_assert_msg(on[i] == want[i], "point %c: on %d, expected %d", (char)('A' + i),
			      on[i], want[i]);
}
END_TEST

START_TEST(frontier_random_sets)
{
	/* small integer figures, so that ties and equal points are common */
	srand(7);
	for (int trial = 0; trial < 300; trial++) {
		size_t n = (size_t)(rand() % 30);
		double t[30], c[30];
		bool on[30];
		for (size_t i = 0; i < n; i++) {
			t[i] = (double)(rand() % 10);
			c[i] = (double)(rand() % 10);
		}
		ts_advise_frontier(t, c, n, on);
		for (size_t i = 0; i < n; i++)
			ck_assert_msg(on[i] == !dominated(t, c, n, i),
				      "trial %d, point %zu (%g, %g): on %d", trial, i, t[i], c[i],
				      on[i]);
	}
}
END_TEST

/* GPT-3 1.3B on a billion tokens, global batch 16. */
static const char *const SCEN =
    "name = \"small advice\"; model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
    "training = { framework = \"megatron\"; global_batch = 16; seq_len = 2048; "
    "tokens = 1.0e9; };\n";

/* Two node types on two node counts each, rented and bought: DGX A100 on
 * HDR InfiniBand (rent and buy) and DGX H100 (buy only, dearer and faster). */
static const char *const CATALOG =
    "catalog = {\n"
    "  buy = { years = 4.0; upkeep_usd_per_node_year = 10000.0; };\n"
    "  node_types = (\n"
    "    { name = \"a100\"; cluster = \"dgx-a100-80gb\"; host_cores = 128; host_ram = \"1 TB\";\n"
    "      nvme = \"15 TB\"; node_power = \"6.5 kW\";\n"
    "      rent = { usd_per_gpu_hour = 2.0; }; buy = { server_usd = 199000.0; };\n"
    "      node_counts = [1, 2]; },\n"
    "    { name = \"h100\"; cluster = \"dgx-h100\"; host_cores = 112; host_ram = \"2 TB\";\n"
    "      nvme = \"30 TB\"; node_power = \"10.2 kW\";\n"
    "      psu = { count = 6; redundant = 2; rating = \"3.3 kW\"; };\n"
    "      buy = { server_usd = 300000.0; network_usd = 40000.0; };\n"
    "      node_counts = [1, 2]; }\n"
    "  );\n"
    "};\n";

/* A scenario and a catalog in temporary files, an environment, and a
 * result to fill: what each advice test starts from. */
struct adv {
	ts_env *env;
	char sp[256], cp[256];
	struct advise_result *ar;
};

static void adv_open(struct adv *a, const char *scen, const char *catalog)
{
	a->env = NULL;
	ck_assert_msg(ts_env_open(tu_root(), &a->env) == 0, "%s", ts_errmsg());
	tu_tmpfile("advise-scen", scen, a->sp, sizeof a->sp);
	tu_tmpfile("advise-cat", catalog, a->cp, sizeof a->cp);
	a->ar = calloc(1, sizeof *a->ar);
	ck_assert_ptr_nonnull(a->ar);
}

static void adv_close(struct adv *a)
{
	advise_result_free(a->ar);
	free(a->ar);
	remove(a->sp);
	remove(a->cp);
	ts_env_close(a->env);
}

START_TEST(small_catalog_frontier)
{
	struct adv fx;
	adv_open(&fx, SCEN, CATALOG);
	ts_env *env = fx.env;
	const char *sp = fx.sp, *cp = fx.cp;
	struct advise_result *ar = fx.ar;
	struct ts_error err;
	struct advise_ask ask = {.mode = ADVISE_BOTH};
	int rc = advise_run(env, sp, NULL, 0, cp, &ask, ar, &err);
	char msg[1200];
	ck_assert_msg(rc == 0, "%s", ts_error_format(&err, msg, sizeof msg));
	/* a100: 2 counts x rent and buy; h100: 2 counts x buy */
	ck_assert_uint_eq(ar->n, 6);
	double t[6], c[6];
	size_t kept = 0, dropped = 0;
	for (size_t i = 0; i < ar->n; i++) {
		const struct advise_option *o = &ar->o[i];
		ck_assert_msg(o->evaluated, "option %zu: %s", i, o->fails);
		t[i] = o->time_s;
		c[i] = o->cost_usd;
		/* the option's figures are those of its simulated result */
		ck_assert(o->time_s == o->cand.res.time_to_train_s && o->time_s > 0.0);
		ck_assert(o->cost_usd == o->cand.res.cost_usd && o->cost_usd > 0.0);
		ck_assert_uint_eq(o->gpus, o->nodes * 8);
	}
	for (size_t i = 0; i < ar->n; i++) {
		bool d = dominated(t, c, ar->n, i);
		ck_assert_msg(ar->o[i].frontier == !d, "option %zu (%g s, $%g): frontier %d", i,
			      t[i], c[i], ar->o[i].frontier);
		kept += !d;
		dropped += d;
	}
	/* a set where the frontier has something to do */
	ck_assert_uint_ge(kept, 1);
	ck_assert_uint_ge(dropped, 1);
	/* renting and buying the same nodes: the same layout and time */
	ck_assert(ar->o[0].mode == ADVISE_RENT && ar->o[1].mode == ADVISE_BUY);
	ck_assert(ar->o[0].time_s == ar->o[1].time_s);
	ck_assert(ar->o[0].cost_usd != ar->o[1].cost_usd);
	/* no constraint: the cheapest and fastest of all */
	for (size_t i = 0; i < ar->n; i++) {
		ck_assert(c[ar->cheapest] <= c[i]);
		ck_assert(t[ar->fastest] <= t[i]);
	}
	/* a deadline between the fastest and the slowest excludes the slow */
	double tmax = 0.0;
	for (size_t i = 0; i < ar->n; i++)
		tmax = fmax(tmax, t[i]);
	struct advise_ask dl = {.mode = ADVISE_BOTH, .deadline_s = 0.5 * (t[ar->fastest] + tmax)};
	advise_result_free(ar);
	memset(ar, 0, sizeof *ar);
	rc = advise_run(env, sp, NULL, 0, cp, &dl, ar, &err);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&err, msg, sizeof msg));
	size_t missed = 0;
	for (size_t i = 0; i < ar->n; i++) {
		const struct advise_option *o = &ar->o[i];
		bool late = o->time_s > dl.deadline_s;
		ck_assert_msg(late == (strstr(o->fails, "deadline") != NULL), "option %zu: %s", i,
			      o->fails);
		missed += late;
		if (!late)
			ck_assert(o->cost_usd >= ar->o[ar->cheapest].cost_usd);
	}
	ck_assert_uint_ge(missed, 1);
	ck_assert(ar->o[ar->cheapest].time_s <= dl.deadline_s);
	/* the frontier is of the options that meet the deadline: none late on
	 * it, and each in time on it exactly when no other in time dominates */
	ck_assert(ar->frontier_feasible);
	for (size_t i = 0; i < ar->n; i++) {
		const struct advise_option *o = &ar->o[i];
		bool dom = false;
		for (size_t j = 0; j < ar->n; j++) {
			const struct advise_option *q = &ar->o[j];
			dom = dom || (j != i && !q->fails[0] && q->time_s <= o->time_s &&
				      q->cost_usd <= o->cost_usd &&
				      (q->time_s < o->time_s || q->cost_usd < o->cost_usd));
		}
		ck_assert_msg(o->frontier == (!o->fails[0] && !dom), "option %zu: %s", i, o->fails);
	}
	/* the band against a deadline: inside the fastest option's band above
	 * its headline, it meets it at risk; below, it misses it and may meet
	 * it; every option's note follows from its own band */
	const struct advise_option *fo = &ar->o[ar->fastest];
	ck_assert(fo->time_lo_s < fo->time_s && fo->time_s < fo->time_hi_s);
	const double at[2] = {0.5 * (fo->time_s + fo->time_hi_s),
			      0.5 * (fo->time_lo_s + fo->time_s)};
	const size_t fi = ar->fastest;
	for (int k = 0; k < 2; k++) {
		struct advise_ask b = {.mode = ADVISE_BOTH, .deadline_s = at[k]};
		advise_result_free(ar);
		memset(ar, 0, sizeof *ar);
		rc = advise_run(env, sp, NULL, 0, cp, &b, ar, &err);
		ck_assert_msg(rc == 0, "%s", ts_error_format(&err, msg, sizeof msg));
		ck_assert_msg(!strncmp(ar->o[fi].risk, k ? "may meet it" : "at risk", 7), "%s",
			      ar->o[fi].risk);
		for (size_t i = 0; i < ar->n; i++) {
			const struct advise_option *o = &ar->o[i];
			if (!o->evaluated)
				continue;
			bool risk = o->time_s <= at[k] && o->time_hi_s > at[k];
			bool may = o->time_s > at[k] && o->time_lo_s <= at[k];
			ck_assert_msg(risk == !strncmp(o->risk, "at risk", 7) &&
					  may == !strncmp(o->risk, "may meet it", 11) &&
					  (risk || may || !o->risk[0]),
				      "option %zu, deadline %g s: %s", i, at[k], o->risk);
		}
	}
	/* a deadline none meets: the frontier is of all, as without one */
	struct advise_ask none = {.mode = ADVISE_BOTH, .deadline_s = 1.0};
	advise_result_free(ar);
	memset(ar, 0, sizeof *ar);
	rc = advise_run(env, sp, NULL, 0, cp, &none, ar, &err);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&err, msg, sizeof msg));
	ck_assert(!ar->frontier_feasible);
	for (size_t i = 0; i < ar->n; i++)
		ck_assert(ar->o[i].frontier == !dominated(t, c, ar->n, i));
	/* a rack of 8 kW takes the A100 node, not the H100's 10.2 kW */
	struct advise_ask rack = {.mode = ADVISE_BUY, .power_w = 8000.0, .per_rack = true};
	advise_result_free(ar);
	memset(ar, 0, sizeof *ar);
	rc = advise_run(env, sp, NULL, 0, cp, &rack, ar, &err);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&err, msg, sizeof msg));
	ck_assert_uint_eq(ar->n, 4);
	for (size_t i = 0; i < ar->n; i++)
		ck_assert_msg((strstr(ar->o[i].fails, "rack") != NULL) ==
				  !strcmp(ar->cat.t[ar->o[i].type].name, "h100"),
			      "option %zu: %s", i, ar->o[i].fails);
	adv_close(&fx);
}
END_TEST

/* Catalog text with `type` as its one node type; its load error. */
static int load_bad(const char *type, char *msg, size_t n)
{
	char text[2048], path[256];
	snprintf(text, sizeof text, "catalog = {\n  node_types = (\n%s\n  );\n};\n", type);
	tu_tmpfile("advise-bad", text, path, sizeof path);
	struct advise_catalog *c = calloc(1, sizeof *c);
	struct ts_error err;
	int rc = advise_catalog_load(path, c, &err);
	ts_error_format(&err, msg, n);
	free(c);
	remove(path);
	return rc;
}

START_TEST(catalog_errors)
{
	char msg[1200];
	const char *ok = "    { name = \"x\"; cluster = \"dgx-h100\"; host_cores = 112; host_ram = "
			 "\"2 TB\"; nvme = \"30 TB\"; node_power = \"10.2 kW\"; rent = { "
			 "usd_per_gpu_hour = 3.0; }; node_counts = [1, 2]; }";
	ck_assert_int_eq(load_bad(ok, msg, sizeof msg), 0);
	/* an unknown key: file, line 3, the key, the closest */
	char t[1200];
	snprintf(t, sizeof t, "%.*s host_coers = 3; }", (int)(strlen(ok) - 1), ok);
	ck_assert_int_eq(load_bad(t, msg, sizeof msg), TS_EUNKNOWN_KEY);
	ck_assert_msg(strstr(msg, ":3:") && strstr(msg, "host_coers") && strstr(msg, "host_cores"),
		      "%s", msg);
	/* node counts that do not increase */
	const char *dec =
	    "    { name = \"x\"; cluster = \"dgx-h100\"; host_cores = 112; host_ram = "
	    "\"2 TB\"; nvme = \"30 TB\"; node_power = \"10.2 kW\"; rent = { "
	    "usd_per_gpu_hour = 3.0; }; node_counts = [4, 2]; }";
	ck_assert_int_eq(load_bad(dec, msg, sizeof msg), TS_EINVALID);
	ck_assert_msg(strstr(msg, "node_counts.[1]") && strstr(msg, "found 2 after 4"), "%s", msg);
	/* supplies that cannot carry the node without their redundant ones */
	const char *psu =
	    "    { name = \"x\"; cluster = \"dgx-h100\"; host_cores = 112; host_ram = "
	    "\"2 TB\"; nvme = \"30 TB\"; node_power = \"10.2 kW\"; psu = { count = "
	    "6; redundant = 3; rating = \"3.3 kW\"; }; rent = { usd_per_gpu_hour = "
	    "3.0; }; node_counts = [1]; }";
	ck_assert_int_eq(load_bad(psu, msg, sizeof msg), TS_EINVALID);
	ck_assert_msg(strstr(msg, "psu") && strstr(msg, "3 x 3300 W") && strstr(msg, "10200 W"),
		      "%s", msg);
	/* every key path names a key, none ends in a dot */
	ck_assert_msg(strstr(msg, "catalog.node_types.[0].psu.rating: "), "%s", msg);
	/* no price at all */
	const char *np =
	    "    { name = \"x\"; cluster = \"dgx-h100\"; host_cores = 112; host_ram = "
	    "\"2 TB\"; nvme = \"30 TB\"; node_power = \"10.2 kW\"; node_counts = [1]; }";
	ck_assert_int_eq(load_bad(np, msg, sizeof msg), TS_EINVALID);
	ck_assert_msg(strstr(msg, "neither rent nor buy"), "%s", msg);
	ck_assert_msg(strstr(msg, ":3: catalog.node_types.[0]: "), "%s", msg);
	/* a name given twice: the second one's line and its name key */
	snprintf(t, sizeof t, "%s,\n%s", ok, ok);
	ck_assert_int_eq(load_bad(t, msg, sizeof msg), TS_EINVALID);
	ck_assert_msg(strstr(msg, ":4: catalog.node_types.[1].name: found the name \"x\" a second "
				  "time (line 3)"),
		      "%s", msg);
	/* a power without a unit */
	const char *nu = "    { name = \"x\"; cluster = \"dgx-h100\"; host_cores = 112; host_ram = "
			 "\"2 TB\"; nvme = \"30 TB\"; node_power = 10200; rent = { "
			 "usd_per_gpu_hour = 3.0; }; node_counts = [1]; }";
	ck_assert_int_eq(load_bad(nu, msg, sizeof msg), TS_ETYPE);
	ck_assert_msg(strstr(msg, "node_power") && strstr(msg, "without a unit"), "%s", msg);
}
END_TEST

START_TEST(bundled_catalog_loads)
{
	char path[1024], msg[1200];
	snprintf(path, sizeof path, "%s/configs/catalog/candidates.cfg", tu_root());
	struct advise_catalog *c = calloc(1, sizeof *c);
	struct ts_error err;
	ck_assert_msg(advise_catalog_load(path, c, &err) == 0, "%s",
		      ts_error_format(&err, msg, sizeof msg));
	ck_assert_uint_ge(c->n, 6);
	for (size_t i = 0; i < c->n; i++)
		ck_assert_msg(c->t[i].rent || c->t[i].buy, "%s", c->t[i].name);
	free(c);
}
END_TEST

/* The why label names the largest share of the iteration, the optimizer
 * and host's too (12 % compute, 5 % network, 83 % optimizer and host is
 * no network-bound run). */
START_TEST(bound_label_largest_share)
{
	struct ts_result r = {.iteration_time_s = 1.0,
			      .compute_s = 0.12,
			      .exposed_comm_s = 0.05,
			      .optimizer_s = 0.50,
			      .other_s = 0.33};
	ck_assert_str_eq(advise_bound(&r), "optimizer-and-host-bound");
	r = (struct ts_result){
	    .compute_s = 0.40, .recompute_s = 0.10, .bubble_s = 0.3, .data_stall_s = 0.2};
	ck_assert_str_eq(advise_bound(&r), "compute-bound");
	r = (struct ts_result){
	    .compute_s = 0.3, .exposed_comm_s = 0.25, .bubble_s = 0.35, .other_s = 0.1};
	ck_assert_str_eq(advise_bound(&r), "bubble-bound");
	r = (struct ts_result){.compute_s = 0.3, .exposed_comm_s = 0.4, .data_stall_s = 0.3};
	ck_assert_str_eq(advise_bound(&r), "network-bound");
	r = (struct ts_result){.compute_s = 0.3, .data_stall_s = 0.6, .optimizer_s = 0.1};
	ck_assert_str_eq(advise_bound(&r), "loader-bound");
}
END_TEST

/* Llama-2-13B, a global batch of 16 sequences, on 32 DGX A100 (256 GPUs):
 * none of the layouts of the 2-node reference search carries over (its
 * data parallelism does not divide the batch at this size), so the option
 * is searched at its own size and gets a layout, where it was reported as
 * "no layout fits in GPU memory". */
START_TEST(uncarried_count_searched)
{
	static const char scen[] =
	    "name = \"13B\"; model = \"llama2-13b\"; cluster = \"dgx-a100-80gb\";\n"
	    "training = { framework = \"megatron\"; global_batch = 16; seq_len = 4096; "
	    "tokens = 1.0e9; };\nparallel = { sp = true; };\n";
	static const char cat[] =
	    "catalog = { node_types = (\n"
	    "  { name = \"a100\"; cluster = \"dgx-a100-80gb\"; host_cores = 128; host_ram = \"1 "
	    "TB\";\n"
	    "    nvme = \"15 TB\"; node_power = \"6.5 kW\"; rent = { usd_per_gpu_hour = 2.0; };\n"
	    "    node_counts = [32]; }\n"
	    "); };\n";
	struct adv fx;
	adv_open(&fx, scen, cat);
	struct advise_result *ar = fx.ar;
	char msg[1200];
	struct ts_error err;
	struct advise_ask ask = {.mode = ADVISE_RENT};
	int rc = advise_run(fx.env, fx.sp, NULL, 0, fx.cp, &ask, ar, &err);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&err, msg, sizeof msg));
	ck_assert_uint_eq(ar->n, 1);
	ck_assert_msg(ar->o[0].evaluated, "%s", ar->o[0].fails);
	ck_assert_uint_eq(ar->o[0].cand.res.gpus, 256);
	ck_assert_uint_eq(ar->searches, 2); /* the reference's, and this size's */
	adv_close(&fx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("advise");
	TCase *tc = tu_tcase("advise");
	tcase_add_test(tc, frontier_hand_built);
	tcase_add_test(tc, frontier_random_sets);
	tcase_add_test(tc, catalog_errors);
	tcase_add_test(tc, bundled_catalog_loads);
	tcase_add_test(tc, small_catalog_frontier);
	tcase_add_test(tc, uncarried_count_searched);
	tcase_add_test(tc, bound_label_largest_share);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
