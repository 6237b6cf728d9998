/* The trace of a run (sim/run/timeline.h) as Perfetto reads it, parsed
 * back with jansson: every pair of slices on one track is disjoint or
 * nested (the rule two collectives sharing a link used to break); every
 * track is named with its GPU, node, rank, TP/PP/DP coordinates and stage;
 * every flow has one tail in a "send" slice and one head in a "recv" slice
 * of another track; slices carry their micro-batch, layer, FLOPs or bytes;
 * memory counters reach the reported peak; link counters are
 * utilisations of at most the 8 busiest links; the traced run gives the
 * untraced run's figures.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "trace/trace.h"
#include "testutil.h"

static struct hw_catalog *cat;
static struct work_calib calib;

static const struct {
	const char *what;
	const char *text;
	bool flows; /* pipeline transfers: flow arrows expected */
	bool links; /* traffic between nodes: link counters expected */
	bool lanes; /* transfers of one GPU overlap: a second lane expected */
} cases[] = {
    {"2-node FSDP (ZeRO-3), class mode",
     "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
     "training = { global_batch = 32; micro_batch = 1; seq_len = 1024; iterations = 2; };\n"
     "parallel = { zero = 3; };\n"
     "sim = { extrapolate = false; };\n",
     false, true, false},
    {"TP 2 x PP 2 x DP 2 on one node, full mode",
     "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
     "training = { global_batch = 16; micro_batch = 2; seq_len = 1024; iterations = 2; };\n"
     "parallel = { tp = 2; pp = 2; sp = true; };\n"
     "sim = { mode = \"full\"; extrapolate = false; };\n",
     true, true, false},
    {"interleaved PP 2, TP 2, CP 2, op granularity, ZeRO-1 on 2 nodes",
     "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
     "training = { global_batch = 8; micro_batch = 1; seq_len = 2048; iterations = 2; };\n"
     "parallel = { tp = 2; pp = 2; cp = 2; zero = 1; schedule = \"interleaved\"; "
     "interleave = 2; };\n"
     "sim = { granularity = \"op\"; extrapolate = false; };\n",
     true, true, false},
    {"PP 2 over 10 GbE: sends of one GPU overlap",
     "model = \"gpt3-1.3b\"; cluster = \"ethernet-10g\"; nodes = 2;\n"
     "training = { global_batch = 8; micro_batch = 1; iterations = 2; };\n"
     "parallel = { tp = 8; pp = 2; };\n"
     "sim = { mode = \"full\"; extrapolate = false; };\n",
     true, true, true},
};

static struct ts_scenario *load(const char *text)
{
	struct ts_scenario *s = NULL;
	struct ts_error e = {0};
	int rc = ts_scenario_load_string(cat, text, "t.cfg", NULL, 0, &s, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	return s;
}

/* A time in the trace (microseconds) as whole nanoseconds. */
static long long ns(json_t *v)
{
	return llround(json_number_value(v) * 1000.0);
}

struct slice {
	long long t0, t1;
};

static int by_start(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return x->t1 > y->t1 ? -1 : x->t1 < y->t1 ? 1 : 0; /* the longer (outer) first */
}

/* The key of a track: "pid/tid". */
static void key(json_t *ev, char *buf, size_t n)
{
	snprintf(buf, n, "%lld/%lld", (long long)json_integer_value(json_object_get(ev, "pid")),
		 (long long)json_integer_value(json_object_get(ev, "tid")));
}

/* Slices of every track: object key -> array of [t0, t1]. */
static json_t *slices_by_track(json_t *evs)
{
	json_t *by = json_object();
	size_t i;
	json_t *ev;
	json_array_foreach(evs, i, ev)
	{
		if (strcmp(json_string_value(json_object_get(ev, "ph")), "X"))
			continue;
		char k[64];
		key(ev, k, sizeof k);
		json_t *a = json_object_get(by, k);
		if (!a) {
			a = json_array();
			json_object_set_new(by, k, a);
		}
		long long t0 = ns(json_object_get(ev, "ts"));
		json_array_append_new(a,
				      json_pack("[I, I]", (json_int_t)t0,
						(json_int_t)(t0 + ns(json_object_get(ev, "dur")))));
	}
	return by;
}

/* Is there a slice on track k enclosing t? */
static bool enclosed(json_t *by, const char *k, long long t)
{
	json_t *a = json_object_get(by, k), *s;
	size_t i;
	json_array_foreach(a, i, s)
	{
		if (json_integer_value(json_array_get(s, 0)) <= t &&
		    t <= json_integer_value(json_array_get(s, 1)))
			return true;
	}
	return false;
}

START_TEST(test_trace_reads_in_perfetto)
{
	struct ts_scenario *sc = load(cases[_i].text);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	struct ts_trace *t;
	ck_assert_int_eq(trace_open(&t, f), 0);
	struct ts_result r, plain;
	struct ts_error e = {0};
	ck_assert_msg(ts_run(sc, &calib, &r, t, &e) == 0, "%s: %s", cases[_i].what, e.msg);
	ck_assert_int_eq(trace_status(t), 0);
	ck_assert_int_eq(trace_write(t, f), 0);
	trace_destroy(t);
	fclose(f);
	ck_assert_msg(ts_run(sc, &calib, &plain, NULL, &e) == 0, "%s", e.msg);
	/* tracing changes nothing */
	ck_assert_double_eq(r.iteration_time_s, plain.iteration_time_s);
	ck_assert_double_eq(r.memory_per_gpu_bytes, plain.memory_per_gpu_bytes);

	json_error_t jerr;
	json_t *root = json_loads(buf, 0, &jerr);
	ck_assert_msg(root != NULL, "%s: invalid JSON: %s (line %d)", cases[_i].what, jerr.text,
		      jerr.line);
	free(buf);
	json_t *evs = json_object_get(root, "traceEvents"), *ev;
	ck_assert(json_is_array(evs));
	json_t *names = json_object();
	size_t i;
	json_array_foreach(evs, i, ev)
	{
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		if (!strcmp(ph, "M") &&
		    !strcmp(json_string_value(json_object_get(ev, "name")), "thread_name")) {
			char k[64];
			key(ev, k, sizeof k);
			json_object_set(names, k,
					json_object_get(json_object_get(ev, "args"), "name"));
		}
	}
	/* names: every track with slices says which GPU it is */
	json_t *by = slices_by_track(evs);
	const char *k;
	json_t *arr;
	size_t ntracks = 0, nslices = 0;
	json_object_foreach(by, k, arr)
	{
		const char *nm = json_string_value(json_object_get(names, k));
		ck_assert_msg(nm != NULL, "%s: track %s has no name", cases[_i].what, k);
		static const char *const parts[] = {"GPU ", "node ", "rank ", "tp ",
						    "pp ",  "dp ",   "stage "};
		for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
			ck_assert_msg(strstr(nm, parts[p]), "%s: track \"%s\" names no %s",
				      cases[_i].what, nm, parts[p]);
		/* nesting: sorted by start (outer first), each slice ends
		 * before the innermost open one does or starts after it */
		size_t n = json_array_size(arr);
		struct slice *sl = calloc(n, sizeof *sl), **stack = calloc(n, sizeof *stack);
		for (size_t j = 0; j < n; j++) {
			sl[j].t0 = json_integer_value(json_array_get(json_array_get(arr, j), 0));
			sl[j].t1 = json_integer_value(json_array_get(json_array_get(arr, j), 1));
			ck_assert(sl[j].t1 >= sl[j].t0);
		}
		qsort(sl, n, sizeof *sl, by_start);
		size_t top = 0;
		for (size_t j = 0; j < n; j++) {
			while (top && stack[top - 1]->t1 <= sl[j].t0)
				top--;
			ck_assert_msg(!top || sl[j].t1 <= stack[top - 1]->t1,
				      "%s: on \"%s\" [%lld, %lld] overlaps [%lld, %lld] in part",
				      cases[_i].what, nm, sl[j].t0, sl[j].t1, stack[top - 1]->t0,
				      stack[top - 1]->t1);
			stack[top++] = &sl[j];
		}
		free(sl);
		free(stack);
		ntracks++;
		nslices += n;
	}
	ck_assert_uint_gt(ntracks, 8);
	/* overlapping transfers of one GPU went to lanes of their own */
	bool lanes = false;
	json_object_foreach(names, k, arr)
	{
		lanes = lanes || strstr(json_string_value(arr), "[lane ") != NULL;
	}
	ck_assert_msg(lanes == cases[_i].lanes, "%s: %s second lane", cases[_i].what,
		      lanes ? "a" : "no");
	/* slice details, flows, counters */
	size_t ncompute = 0, ncomm = 0, nflow = 0;
	json_t *flows = json_object(), *mem = json_object(), *links = json_object();
	json_array_foreach(evs, i, ev)
	{
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *cat_ = json_string_value(json_object_get(ev, "cat"));
		json_t *args = json_object_get(ev, "args");
		if (!strcmp(ph, "X") && !strcmp(cat_, "compute") &&
		    json_number_value(json_object_get(ev, "dur")) > 0) {
			ck_assert(json_integer_value(json_object_get(args, "micro_batch")) >= 0);
			ck_assert(json_object_get(args, "layer") ||
				  json_object_get(args, "layers"));
			/* the embedding's backward computes nothing at layer granularity */
			if (json_object_get(args, "flops"))
				ck_assert(json_number_value(json_object_get(args, "flops")) > 0);
			ncompute += json_object_get(args, "flops") != NULL;
		}
		if (!strcmp(ph, "X") && (!strcmp(cat_, "comm") || !strcmp(cat_, "p2p"))) {
			ck_assert_msg(json_number_value(json_object_get(args, "bytes")) > 0,
				      "%s: %s without bytes", cases[_i].what,
				      json_string_value(json_object_get(ev, "name")));
			ncomm++;
		}
		if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			char id[32], tk[64];
			snprintf(id, sizeof id, "%lld",
				 (long long)json_integer_value(json_object_get(ev, "id")));
			key(ev, tk, sizeof tk);
			json_t *fl = json_object_get(flows, id);
			if (!fl) {
				fl = json_object();
				json_object_set_new(flows, id, fl);
			}
			ck_assert_msg(!json_object_get(fl, ph), "flow %s has two '%s' ends", id,
				      ph);
			ck_assert_msg(enclosed(by, tk, ns(json_object_get(ev, "ts"))),
				      "flow %s: its '%s' end lies in no slice of its track", id,
				      ph);
			json_object_set_new(fl, ph, json_string(tk));
			if (!strcmp(ph, "f"))
				ck_assert_str_eq(json_string_value(json_object_get(ev, "bp")), "e");
			nflow++;
		}
		if (!strcmp(ph, "C")) {
			const char *nm = json_string_value(json_object_get(ev, "name"));
			double v = json_number_value(json_object_get(args, "value"));
			ck_assert(v >= 0.0);
			json_t *into = strstr(nm, "memory in use") ? mem : links;
			if (into == links)
				ck_assert_msg(strstr(nm, "utilisation (%)") && v <= 100.0 + 1e-6,
					      "%s: counter %s = %g", cases[_i].what, nm, v);
			double was = json_number_value(json_object_get(into, nm));
			if (!json_object_get(into, nm) || v > was)
				json_object_set_new(into, nm, json_real(v));
		}
	}
	ck_assert_uint_gt(ncompute, 0);
	ck_assert_uint_gt(ncomm, 0);
	/* flows: pairs, from a send to a receive on another track */
	json_t *fl;
	json_object_foreach(flows, k, fl)
	{
		const char *s = json_string_value(json_object_get(fl, "s"));
		const char *d = json_string_value(json_object_get(fl, "f"));
		ck_assert_msg(s && d, "flow %s has %s end", k, s ? "no head" : "no tail");
		ck_assert_str_ne(s, d);
		ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(names, s)), "send"));
		ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(names, d)), "recv"));
	}
	ck_assert_msg((json_object_size(flows) > 0) == cases[_i].flows, "%s: %zu flows",
		      cases[_i].what, json_object_size(flows));
	/* memory: the fullest GPU's counter peaks at the reported peak */
	double peak = 0.0;
	json_t *v;
	json_object_foreach(mem, k, v)
	{
		peak = fmax(peak, json_number_value(v));
	}
	ck_assert_uint_gt(json_object_size(mem), 0);
	ck_assert_msg(fabs(peak + r.mem.reserve - r.memory_per_gpu_bytes) <=
			  1e-9 * r.memory_per_gpu_bytes,
		      "%s: memory counters peak at %.17g + reserve %.17g, the result says %.17g",
		      cases[_i].what, peak, r.mem.reserve, r.memory_per_gpu_bytes);
	/* links: a few, one of them busy */
	ck_assert_uint_le(json_object_size(links), 8);
	double busiest = 0.0;
	json_object_foreach(links, k, v)
	{
		busiest = fmax(busiest, json_number_value(v));
	}
	ck_assert_msg((busiest > 0.0) == cases[_i].links, "%s: busiest link at %g %%",
		      cases[_i].what, busiest);
	printf("%s: %zu tracks, %zu slices, %zu flow ends, %zu memory and %zu link counters, "
	       "busiest link at %.1f %%\n",
	       cases[_i].what, ntracks, nslices, nflow, json_object_size(mem),
	       json_object_size(links), busiest);
	json_decref(flows);
	json_decref(mem);
	json_decref(links);
	json_decref(by);
	json_decref(names);
	json_decref(root);
	ts_scenario_destroy(sc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tu_tcase("timeline");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_loop_test(tc, test_trace_reads_in_perfetto, 0,
			    (int)(sizeof cases / sizeof cases[0]));
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
