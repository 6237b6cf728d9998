/* Chrome traces: metadata, spans in microseconds, counters, valid JSON, the
 * fluid observer adapter, a disabled (NULL) trace, and streaming: what a
 * trace holds does not grow with the spans written.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/err.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "trace/trace.h"
#include "testutil.h"

/* A trace streaming into memory. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static struct ts_trace *open_mem(struct mem *m)
{
	struct ts_trace *t;
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
	ck_assert_int_eq(trace_open(&t, m->f), 0);
	return t;
}

/* Parse what was written, check it is a trace, return its traceEvents (new
 * reference). */
static json_t *parsed(const char *buf)
{
	json_error_t err;
	json_t *root = json_loads(buf, 0, &err);
	ck_assert_msg(root != NULL, "invalid JSON: %s (line %d)\n%s", err.text, err.line, buf);
	ck_assert_str_eq(json_string_value(json_object_get(root, "displayTimeUnit")), "ns");
	json_t *ev = json_incref(json_object_get(root, "traceEvents"));
	ck_assert(json_is_array(ev));
	json_decref(root);
	return ev;
}

/* Close the trace of open_mem (destroying it) and return its traceEvents. */
static json_t *written(struct mem *m, struct ts_trace *t)
{
	ck_assert_int_eq(trace_write(t, m->f), 0);
	trace_destroy(t);
	fclose(m->f);
	json_t *ev = parsed(m->buf);
	free(m->buf);
	return ev;
}

/* The i-th event with this ph and name (NULL = any name), or NULL. */
static json_t *find(json_t *ev, const char *ph, const char *name, size_t nth)
{
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "ph")), ph))
			continue;
		if (name && strcmp(json_string_value(json_object_get(e, "name")), name))
			continue;
		if (nth-- == 0)
			return e;
	}
	return NULL;
}

static double num(json_t *e, const char *key)
{
	json_t *v = json_object_get(e, key);
	ck_assert_msg(json_is_number(v), "%s is not a number", key);
	return json_number_value(v);
}

START_TEST(spans_counters_and_metadata)
{
	struct mem m;
	struct ts_trace *t = open_mem(&m);
	uint32_t node, links, gpu0, nic;
	ck_assert_int_eq(trace_process(t, "node 0", &node), 0);
	ck_assert_int_eq(trace_process(t, "links", &links), 0);
	ck_assert_int_eq(trace_track(t, node, "GPU 0 compute", &gpu0), 0);
	ck_assert_int_eq(trace_track(t, links, "node 0 NIC 0 out", &nic), 0);
	ck_assert_int_eq(trace_span(t, gpu0, "fwd layer 0", 1000, 2500, "compute"), 0);
	ck_assert_int_eq(trace_span(t, nic, "all_reduce \"grads\"", 2000001, 3000000, NULL), 0);
	ck_assert_int_eq(trace_counter(t, node, "GPU 0 memory (bytes)", 1500, 1.5e9), 0);
	ck_assert_uint_eq(trace_nspans(t), 2);
	ck_assert_uint_eq(trace_ncounters(t), 1);
	/* bad calls are errors, not crashes */
	ck_assert_int_eq(trace_span(t, 99, "x", 0, 1, NULL), TS_ERANGE);
	ck_assert_int_eq(trace_span(t, gpu0, "x", 10, 5, NULL), TS_ERANGE);
	ck_assert_int_eq(trace_track(t, 99, "x", &nic), TS_ERANGE);
	ck_assert_int_eq(trace_status(t), TS_ERANGE);
	ck_assert_uint_eq(trace_nspans(t), 2);

	json_t *ev = written(&m, t);
	json_t *pn = find(ev, "M", "process_name", 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(pn, "args"), "name")),
			 "node 0");
	json_t *tn = find(ev, "M", "thread_name", 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(tn, "args"), "name")),
			 "GPU 0 compute");
	ck_assert(num(tn, "pid") == num(pn, "pid"));

	json_t *x = find(ev, "X", "fwd layer 0", 0);
	ck_assert_ptr_nonnull(x);
	ck_assert(num(x, "ts") == 1.0);	 /* 1000 ns = 1 us */
	ck_assert(num(x, "dur") == 1.5); /* 1500 ns */
	ck_assert(num(x, "tid") == num(tn, "tid"));
	ck_assert(num(x, "pid") == num(pn, "pid"));
	ck_assert_str_eq(json_string_value(json_object_get(x, "cat")), "compute");
	json_t *y = find(ev, "X", "all_reduce \"grads\"", 0);
	ck_assert_ptr_nonnull(y);
	ck_assert(num(y, "ts") == 2000.001); /* ns kept */
	ck_assert(num(y, "dur") == 999.999);
	ck_assert_ptr_null(json_object_get(y, "cat"));
	ck_assert(num(y, "tid") != num(x, "tid"));

	json_t *c = find(ev, "C", NULL, 0);
	ck_assert_str_eq(json_string_value(json_object_get(c, "name")), "GPU 0 memory (bytes)");
	ck_assert(num(c, "ts") == 1.5);
	ck_assert(num(json_object_get(c, "args"), "value") == 1.5e9);
	json_decref(ev);
}
END_TEST

START_TEST(disabled_trace_records_nothing)
{
	uint32_t id = 7;
	ck_assert_int_eq(trace_process(NULL, "n", &id), 0);
	ck_assert_int_eq(trace_track(NULL, 0, "t", &id), 0);
	ck_assert_int_eq(trace_span(NULL, 0, "s", 0, 1, NULL), 0);
	ck_assert_int_eq(trace_counter(NULL, 0, "c", 0, 1.0), 0);
	ck_assert_int_eq(trace_write(NULL, stdout), 0);
	ck_assert_uint_eq(trace_nspans(NULL), 0);
	struct fluid_observer obs;
	ck_assert_int_eq(trace_fluid_observer(NULL, NULL, NULL, &obs), 0);
	ck_assert_ptr_null(obs.on_start);
	ck_assert_ptr_null(obs.on_end);
	trace_destroy(NULL);
}
END_TEST

START_TEST(many_spans_and_odd_names)
{
	struct mem m;
	struct ts_trace *t = open_mem(&m);
	uint32_t tr;
	ck_assert_int_eq(trace_track(t, TRACE_DEFAULT_PROCESS, "bad \xff name", &tr), 0);
	char name[32];
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof name, "op %d", i % 50);
		ck_assert_int_eq(trace_span(t, tr, name, (ts_time)i * 10, (ts_time)i * 10 + 7, "k"),
				 0);
	}
	json_t *ev = written(&m, t);
	ck_assert_ptr_nonnull(find(ev, "X", "op 49", 1999));
	ck_assert_ptr_nonnull(find(ev, "M", "thread_name", 0));
	json_decref(ev);
}
END_TEST

/* Tags 1 and 2 go to two tracks; tag 3 is left out. */
struct map {
	uint32_t tracks[2];
};

static bool map_tag(void *ud, uint32_t tag, uint32_t *track, const char **name,
		    const char **category)
{
	struct map *m = ud;
	if (tag == 3)
		return false;
	*track = m->tracks[tag - 1];
	*name = tag == 1 ? "transfer" : "kernel";
	*category = tag == 1 ? "comm" : NULL;
	return true;
}

START_TEST(fluid_activities_become_spans)
{
	struct ts_evq *q;
	struct ts_fluid *f;
	struct mem mm;
	ck_assert_int_eq(evq_create(&q, 16), 0);
	ck_assert_int_eq(fluid_create(&f, q), 0);
	struct ts_trace *t = open_mem(&mm);
	struct map m;
	uint32_t node, link;
	trace_process(t, "node 0", &node);
	trace_track(t, node, "NVLink", &m.tracks[0]);
	trace_track(t, node, "GPU 0 compute", &m.tracks[1]);
	struct fluid_observer obs;
	ck_assert_int_eq(trace_fluid_observer(t, map_tag, &m, &obs), 0);
	fluid_set_observer(f, &obs);

	/* a 1e9 B/s link: 1e6 bytes take 1 ms alone, after 500 ns latency */
	ck_assert_int_eq(fluid_resource_add(f, 1e9, 1, &link), 0);
	struct fluid_use use = {.res = link, .coeff = 1.0};
	struct fluid_spec xfer = {.work = 1e6,
				  .mult = 1,
				  .weight = 1.0,
				  .latency = 500,
				  .uses = &use,
				  .nuses = 1,
				  .tag = 1};
	struct fluid_spec kern = {.work = 2e-3, .mult = 1, .weight = 1.0, .bound = 1.0, .tag = 2};
	struct fluid_spec skip = {.work = 1e-3, .mult = 1, .weight = 1.0, .bound = 1.0, .tag = 3};
	uint32_t a;
	ck_assert_int_eq(fluid_start(f, &xfer, &a), 0);
	ck_assert_int_eq(fluid_start(f, &kern, &a), 0);
	ck_assert_int_eq(fluid_start(f, &skip, &a), 0);
	fluid_run(f, TS_TIME_MAX);
	ck_assert_int_eq(trace_status(t), 0);
	ck_assert_uint_eq(trace_nspans(t), 2);
	/* an end without a start (cancelled during latency) is ignored */
	obs.on_end(obs.ud, 12345, 1, 10);
	ck_assert_uint_eq(trace_nspans(t), 2);
	fluid_set_observer(f, NULL);

	json_t *ev = written(&mm, t);
	json_t *x = find(ev, "X", "transfer", 0);
	ck_assert_ptr_nonnull(x);
	ck_assert(num(x, "ts") == 0.5); /* starts using the link after its latency */
	ck_assert(fabs(num(x, "dur") - 1000.0) <= 0.002);
	ck_assert_str_eq(json_string_value(json_object_get(x, "cat")), "comm");
	json_t *k = find(ev, "X", "kernel", 0);
	ck_assert_ptr_nonnull(k);
	ck_assert(num(k, "ts") == 0.0);
	ck_assert(fabs(num(k, "dur") - 2000.0) <= 0.002);
	ck_assert(num(k, "tid") == (double)m.tracks[1] + 1);
	json_decref(ev);
	fluid_destroy(f);
	evq_destroy(q);
}
END_TEST

/* trace_create streams into a temporary file of its own and trace_write
 * copies it out; once closed, a trace takes no more events, and a
 * streaming trace closes on its own stream only. */
START_TEST(temporary_file_and_closing)
{
	struct ts_trace *t;
	ck_assert_int_eq(trace_create(&t), 0);
	uint32_t tr;
	ck_assert_int_eq(trace_track(t, TRACE_DEFAULT_PROCESS, "GPU 0 compute", &tr), 0);
	ck_assert_int_eq(trace_span(t, tr, "fwd", 0, 2000, "compute"), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(trace_write(t, f), 0);
	fclose(f);
	json_t *ev = parsed(buf);
	free(buf);
	ck_assert_ptr_nonnull(find(ev, "X", "fwd", 0));
	ck_assert_ptr_nonnull(find(ev, "M", "thread_name", 0));
	json_decref(ev);
	ck_assert_int_eq(trace_span(t, tr, "late", 3000, 4000, NULL), TS_EINVALID);
	ck_assert_int_eq(trace_status(t), TS_EINVALID);
	trace_destroy(t);

	struct mem m;
	t = open_mem(&m);
	ck_assert_int_eq(trace_write(t, stdout), TS_EINVALID); /* not its stream */
	json_decref(written(&m, t));
	ck_assert_int_eq(trace_open(&t, NULL), TS_EINVALID);
	ck_assert_ptr_null(t);
}
END_TEST

/* Live bytes of the library, counted through the allocation hook. */
static size_t live;

static void *counting(void *ud, void *p, size_t osize, size_t nsize)
{
	(void)ud;
	if (nsize == 0) {
		free(p);
		live -= p ? osize : 0;
		return NULL;
	}
	void *q = realloc(p, nsize);
	if (q)
		live += nsize - (p ? osize : 0);
	return q;
}

/* A million spans with a million names, and a million fluid activities,
 * are written out and leave the trace's own memory as it was after the
 * first thousand. */
START_TEST(memory_does_not_grow_with_spans)
{
	FILE *out = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(out);
	ts_alloc_set(counting, NULL);
	live = 0;
	struct ts_trace *t;
	ck_assert_int_eq(trace_open(&t, out), 0);
	struct map mp;
	ck_assert_int_eq(trace_track(t, TRACE_DEFAULT_PROCESS, "GPU 0 compute", &mp.tracks[0]), 0);
	ck_assert_int_eq(trace_track(t, TRACE_DEFAULT_PROCESS, "NVLink", &mp.tracks[1]), 0);
	struct fluid_observer obs;
	ck_assert_int_eq(trace_fluid_observer(t, map_tag, &mp, &obs), 0);
	char name[32];
	size_t base = 0;
	for (int i = 0; i < 900000; i++) {
		if (i == 1000)
			base = live;
		snprintf(name, sizeof name, "op %d", i);
		ck_assert_int_eq(
		    trace_span(t, mp.tracks[0], name, (ts_time)i * 10, (ts_time)i * 10 + 7, "k"),
		    0);
	}
	ck_assert(base > 0); /* counted */
	ck_assert_msg(live == base, "the trace holds %zu bytes after 900000 spans, %zu after 1000",
		      live, base);
	/* 64 activities alive at once, ids reused as the engine does */
	for (int i = 0; i < 100000 + 63; i++) {
		if (i == 1000)
			base = live; /* with the activities' slots */
		if (i < 100000)
			obs.on_start(obs.ud, (uint32_t)i % 64u, 1u + (uint32_t)i % 2u,
				     (ts_time)i * 10);
		if (i >= 63)
			obs.on_end(obs.ud, (uint32_t)(i - 63) % 64u, 1, (ts_time)i * 10 + 5);
	}
	ck_assert_int_eq(trace_status(t), 0);
	ck_assert_uint_eq(trace_nspans(t), 1000000);
	ck_assert_msg(live == base,
		      "the trace holds %zu bytes after 100000 activities, %zu after 1000", live,
		      base);
	ck_assert_int_eq(trace_write(t, out), 0);
	trace_destroy(t);
	ck_assert_uint_eq(live, 0);
	ts_alloc_set(NULL, NULL);
	fclose(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, spans_counters_and_metadata);
	tcase_add_test(tc, disabled_trace_records_nothing);
	tcase_add_test(tc, many_spans_and_odd_names);
	tcase_add_test(tc, fluid_activities_become_spans);
	tcase_add_test(tc, temporary_file_and_closing);
	tcase_add_test(tc, memory_does_not_grow_with_spans);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
