/* The search as a tool (sim/api/search.c): the winner exported as a
 * scenario that a run reproduces bit for bit, a resumed search that ranks
 * as an uninterrupted one and refuses changed inputs, the JSON report, and
 * the reason for every GPU count skipped.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "trainsim.h"

static ts_env *env;

static void setup(void)
{
	ck_assert_msg(ts_env_open(tu_root(), &env) == 0, "%s", ts_errmsg());
}

static void teardown(void)
{
	ts_env_close(env);
}

/* GPT-3 1.3B on up to 4 GPUs of one node, global batch 8 (315 candidates,
 * check_search.c counts them). */
static const char *const SCEN =
    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
    "training = { framework = \"megatron\"; global_batch = 8; micro_batch = 1; "
    "seq_len = 2048; };\n";

/* Run the search of `path` with options o and sets, its JSON report parsed. */
static json_t *search_json(const char *path, const char *const *sets, size_t nsets,
			   ts_search_opts o, int want_rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	o.format = TS_FORMAT_JSON;
	int rc = ts_search_run(env, path, sets, nsets, &o, f);
	fclose(f);
	ck_assert_msg(rc == want_rc, "rc %d, want %d: %s", rc, want_rc, ts_errmsg());
	json_t *j = NULL;
	if (!rc) {
		json_error_t e;
		j = json_loads(buf, 0, &e);
		ck_assert_msg(j != NULL, "not JSON: %s", e.text);
	}
	free(buf);
	return j;
}

static double jnum(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(json_object_get(o, a), b);
	ck_assert_msg(json_is_number(v), "%s.%s is not a number", a, b);
	return json_number_value(v);
}

/* What the progress callback saw. */
struct seen {
	size_t calls, last_done, total;
	bool ordered; /* done counts up by one, total never changes */
	double last_s;
};

static void on_progress(void *user, size_t done, size_t total, double elapsed_s)
{
	struct seen *s = user;
	if (s->calls++ == 0)
		s->total = total;
	s->ordered =
	    s->ordered && done == s->last_done + 1 && total == s->total && elapsed_s >= s->last_s;
	s->last_done = done;
	s->last_s = elapsed_s;
}

/* The exported winner, run as `trainsim run` runs a file, gives the
 * search's iteration time and memory per GPU bit for bit (the JSON prints
 * 17 digits, which round-trip a double). */
START_TEST(test_export_best)
{
	char path[64], best[64];
	tu_tmpfile("check_search_tool", SCEN, path, sizeof path);
	tu_tmpfile("check_search_best", "", best, sizeof best);
	struct seen seen = {.ordered = true};
	ts_search_opts o = {.max_gpus = 4,
			    .threads = 2,
			    .top = 3,
			    .export_best = best,
			    .progress = on_progress,
			    .user = &seen};
	json_t *j = search_json(path, NULL, 0, o, 0);
	/* progress: once per candidate simulated, counting up against the
	 * candidates that may need simulating (those the bound leaves out
	 * are never reached) */
	json_t *counts = json_object_get(j, "counts");
	json_int_t simulated = json_integer_value(json_object_get(counts, "simulated"));
	json_int_t bounded = json_integer_value(json_object_get(counts, "bounded"));
	ck_assert(seen.ordered);
	ck_assert_uint_eq(seen.calls, (size_t)simulated);
	ck_assert_uint_eq(seen.total, (size_t)(simulated + bounded));
	ck_assert_uint_eq(seen.last_done, (size_t)simulated);
	json_t *c0 = json_array_get(json_object_get(j, "candidates"), 0);
	ck_assert_ptr_nonnull(c0);
	ck_assert_int_eq(json_integer_value(json_object_get(c0, "rank")), 1);
	double it = jnum(c0, "result", "iteration_time_s");
	double mem = jnum(c0, "result", "memory_per_gpu_bytes");
	ts_scenario *sc = NULL;
	ts_plan *p = NULL;
	ts_result *r = NULL;
	ck_assert_msg(ts_scenario_load_file(env, best, NULL, 0, &sc) == 0, "%s", ts_errmsg());
	ck_assert_msg(ts_plan_build(env, sc, &p) == 0, "%s", ts_errmsg());
	ck_assert_msg(ts_plan_simulate(p, NULL, &r) == 0, "%s", ts_errmsg());
	double rmem = 0.0, gpus = 0.0;
	ck_assert_int_eq(ts_result_get(r, "memory_per_gpu_bytes", &rmem), 0);
	ck_assert_int_eq(ts_result_get(r, "gpus", &gpus), 0);
	ck_assert_msg(ts_result_iteration_time_s(r) == it, "run %.17g s, search %.17g s",
		      ts_result_iteration_time_s(r), it);
	ck_assert_msg(rmem == mem, "run %.17g B, search %.17g B", rmem, mem);
	ck_assert_double_eq(gpus, jnum(c0, "settings", "gpus"));
	ts_result_free(r);
	ts_plan_free(p);
	ts_scenario_free(sc);
	/* the counts add up to the candidates enumerated */
	json_t *n = json_object_get(j, "counts");
	ck_assert_int_eq(json_integer_value(json_object_get(n, "configurations")), 315);
	ck_assert_int_eq(json_integer_value(json_object_get(n, "pruned")) +
			     json_integer_value(json_object_get(n, "simulated")) +
			     json_integer_value(json_object_get(n, "bounded")) +
			     json_integer_value(json_object_get(n, "aliases")),
			 315);
	ck_assert_int_eq(json_array_size(json_object_get(j, "candidates")), 3);
	json_decref(j);
	unlink(path);
	unlink(best);
}
END_TEST

/* Count the lines of file p. */
static size_t lines(const char *p)
{
	FILE *f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = 0;
	for (int c; (c = fgetc(f)) != EOF;)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Keep the first `keep` lines of p, then half of the next (a search
 * stopped while writing it). */
static void cut(const char *p, size_t keep)
{
	FILE *f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	char *text = NULL;
	size_t cap = 0, len = 0;
	ssize_t got;
	char *line = NULL;
	for (size_t i = 0; i <= keep && (got = getline(&line, &cap, f)) > 0; i++) {
		size_t take = i < keep ? (size_t)got : (size_t)got / 2;
		text = realloc(text, len + take + 1);
		ck_assert_ptr_nonnull(text);
		memcpy(text + len, line, take);
		len += take;
	}
	free(line);
	fclose(f);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fwrite(text, 1, len, f);
	fclose(f);
	free(text);
}

/* A search stopped part way and resumed from its state file ranks exactly
 * as one that ran through; the state of other inputs is refused. */
START_TEST(test_resume)
{
	char path[64], state[64];
	tu_tmpfile("check_search_tool", SCEN, path, sizeof path);
	tu_tmpfile("check_search_state", "", state, sizeof state);
	ts_search_opts o = {.max_gpus = 4, .threads = 2, .top = 1000, .state = state};
	json_t *a = search_json(path, NULL, 0, o, 0);
	size_t simulated =
	    (size_t)json_integer_value(json_object_get(json_object_get(a, "counts"), "simulated"));
	ck_assert_uint_eq(lines(state), 1 + simulated); /* the digest line, one per candidate */
	cut(state, 1 + 40);
	o.resume = true;
	json_t *b = search_json(path, NULL, 0, o, 0);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(b, "counts"), "resumed")), 40);
	ck_assert_msg(
	    json_equal(json_object_get(a, "candidates"), json_object_get(b, "candidates")),
	    "a resumed search ranks otherwise");
	/* again: everything from the state, nothing simulated */
	json_t *c = search_json(path, NULL, 0, o, 0);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(c, "counts"), "resumed")),
	    (json_int_t)simulated);
	ck_assert(json_equal(json_object_get(a, "candidates"), json_object_get(c, "candidates")));
	/* another global batch: refused, the message says why */
	const char *set[] = {"training.global_batch=16"};
	ck_assert_ptr_null(search_json(path, set, 1, o, TS_EINVALID));
	ck_assert_msg(strstr(ts_errmsg(), "other inputs") && strstr(ts_errmsg(), state), "%s",
		      ts_errmsg());
	/* so is a file that is no state file */
	FILE *f = fopen(state, "w");
	fputs("rank,gpus\n", f);
	fclose(f);
	ck_assert_ptr_null(search_json(path, NULL, 0, o, TS_EINVALID));
	ck_assert_msg(strstr(ts_errmsg(), "no digest line"), "%s", ts_errmsg());
	json_decref(a);
	json_decref(b);
	json_decref(c);
	unlink(path);
	unlink(state);
}
END_TEST

/* An inline cluster that fixes nodes: every GPU count is skipped, and the
 * report says so with the loader's reason for each. */
START_TEST(test_skip_reasons)
{
	char path[64];
	tu_tmpfile("check_search_tool",
		   "model = \"gpt3-1.3b\"; cluster = { base = \"dgx-a100-80gb\"; nodes = 2; };\n"
		   "training = { framework = \"megatron\"; global_batch = 48; micro_batch = 1; "
		   "seq_len = 2048; };\n",
		   path, sizeof path);
	ts_search_opts o = {.max_gpus = 16};
	json_t *j = search_json(path, NULL, 0, o, 0);
	json_t *sk = json_object_get(j, "skipped_gpu_counts");
	ck_assert_uint_eq(json_array_size(sk), 5); /* 1, 2, 4, 8, 16 */
	for (size_t i = 0; i < json_array_size(sk); i++) {
		json_t *s = json_array_get(sk, i);
		ck_assert_int_eq(json_integer_value(json_object_get(s, "gpus")), 1 << i);
		const char *why = json_string_value(json_object_get(s, "reason"));
		ck_assert_msg(why && strstr(why, "cluster.nodes") && strstr(why, path), "%s",
			      why ? why : "(none)");
	}
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(j, "counts"), "configurations")), 0);
	json_decref(j);
	unlink(path);
	/* (tp, cp, pp) whose dp does not divide the global batch: 3 sequences
	 * on 2 and 4 single-GPU nodes leave dp = 2 and 4 out, each with its reason */
	tu_tmpfile("check_search_tool",
		   "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1; "
		   "gpus_per_node = 1;\n"
		   "training = { framework = \"megatron\"; global_batch = 3; micro_batch = 1; "
		   "seq_len = 2048; };\n",
		   path, sizeof path);
	o.max_gpus = 4;
	o.threads = 2;
	j = search_json(path, NULL, 0, o, 0);
	json_t *sd = json_object_get(j, "skipped_degrees");
	ck_assert_uint_gt(json_array_size(sd), 0);
	for (size_t i = 0; i < json_array_size(sd); i++) {
		json_t *s = json_array_get(sd, i);
		json_int_t dp = json_integer_value(json_object_get(s, "dp"));
		ck_assert_int_ne(dp % 3, 0);
		ck_assert_ptr_nonnull(
		    strstr(json_string_value(json_object_get(s, "reason")), "global batch 3"));
	}
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(j, "counts"), "degrees_skipped")),
	    (json_int_t)json_array_size(sd));
	json_decref(j);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("search_tool");
	TCase *tc = tu_tcase("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_export_best);
	tcase_add_test(tc, test_resume);
	tcase_add_test(tc, test_skip_reasons);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
