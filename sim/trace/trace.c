/* Chrome trace writer.
 *
 * Recording only appends fixed-size records to growable arrays; every string
 * (process, track, span and counter names) is copied once into one byte
 * arena and referred to by offset, and a small direct-mapped cache lets
 * repeated names (the same kernel or collective on every iteration) share
 * one copy. Nothing is encoded until trace_write, which streams one jansson
 * object per event so a long trace never exists twice in memory.
 * Output ids: pid = process + 1, tid = track + 1 (unique across processes).
 * Times are printed with just the digits that keep whole nanoseconds, so
 * 999.999 us stays "999.999" rather than its 17-digit binary expansion.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/jstr.h"
#include "trace/trace.h"

#define NO_STR SIZE_MAX
#define CACHE_SIZE 256

struct proc {
	size_t name;
};

struct track {
	uint32_t proc;
	size_t name;
};

struct span {
	ts_time start, end;
	size_t name, cat;
	uint32_t track;
};

struct counter {
	ts_time time;
	double value;
	size_t name;
	uint32_t proc;
};

/* A fluid activity that started and has not ended. */
struct open_act {
	ts_time start;
	size_t name, cat;
	uint32_t track;
	bool open;
};

struct ts_trace {
	char *str; /* arena of NUL-terminated strings */
	size_t nstr, capstr;
	size_t cache[CACHE_SIZE]; /* hash of a string -> its offset, NO_STR when empty */
	struct proc *procs;
	size_t nprocs, capprocs;
	struct track *tracks;
	size_t ntracks, captracks;
	struct span *spans;
	size_t nspans, capspans;
	struct counter *counters;
	size_t ncounters, capcounters;
	struct open_act *acts; /* indexed by fluid activity id */
	size_t capacts;
	trace_tag_fn map;
	void *map_ud;
	int status;
};

static int fail(struct ts_trace *t, int rc)
{
	if (!t->status)
		t->status = rc;
	return rc;
}

static size_t hash_str(const char *s)
{
	size_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Copy s into the arena (or find it in the cache); NO_STR on out of memory. */
static size_t intern(struct ts_trace *t, const char *s)
{
	if (!s)
		s = "";
	size_t slot = hash_str(s) % CACHE_SIZE;
	size_t off = t->cache[slot];
	if (off != NO_STR && strcmp(t->str + off, s) == 0)
		return off;
	size_t n = strlen(s) + 1;
	if (t->nstr + n < t->nstr || ts_grow((void **)&t->str, &t->capstr, t->nstr + n, 1))
		return NO_STR;
	off = t->nstr;
	memcpy(t->str + off, s, n);
	t->nstr += n;
	t->cache[slot] = off;
	return off;
}

int trace_create(struct ts_trace **tp)
{
	struct ts_trace *t = ts_calloc(1, sizeof *t);
	*tp = NULL;
	if (!t)
		return TS_ENOMEM;
	for (size_t i = 0; i < CACHE_SIZE; i++)
		t->cache[i] = NO_STR;
	uint32_t p;
	if (trace_process(t, "trainsim", &p)) {
		trace_destroy(t);
		return TS_ENOMEM;
	}
	*tp = t;
	return 0;
}

void trace_destroy(struct ts_trace *t)
{
	if (!t)
		return;
	ts_free(t->str, t->capstr);
	ts_free(t->procs, t->capprocs * sizeof *t->procs);
	ts_free(t->tracks, t->captracks * sizeof *t->tracks);
	ts_free(t->spans, t->capspans * sizeof *t->spans);
	ts_free(t->counters, t->capcounters * sizeof *t->counters);
	ts_free(t->acts, t->capacts * sizeof *t->acts);
	ts_free(t, sizeof *t);
}

int trace_process(struct ts_trace *t, const char *name, uint32_t *process)
{
	if (!t)
		return 0;
	if (t->nprocs >= UINT32_MAX - 1 ||
	    ts_grow((void **)&t->procs, &t->capprocs, t->nprocs + 1, sizeof *t->procs))
		return fail(t, TS_ENOMEM);
	size_t off = intern(t, name);
	if (off == NO_STR)
		return fail(t, TS_ENOMEM);
	t->procs[t->nprocs].name = off;
	*process = (uint32_t)t->nprocs++;
	return 0;
}

int trace_track(struct ts_trace *t, uint32_t process, const char *name, uint32_t *track)
{
	if (!t)
		return 0;
	if (process >= t->nprocs)
		return fail(t, TS_ERANGE);
	if (t->ntracks >= UINT32_MAX - 1 ||
	    ts_grow((void **)&t->tracks, &t->captracks, t->ntracks + 1, sizeof *t->tracks))
		return fail(t, TS_ENOMEM);
	size_t off = intern(t, name);
	if (off == NO_STR)
		return fail(t, TS_ENOMEM);
	t->tracks[t->ntracks].proc = process;
	t->tracks[t->ntracks].name = off;
	*track = (uint32_t)t->ntracks++;
	return 0;
}

static int add_span(struct ts_trace *t, uint32_t track, size_t name, size_t cat, ts_time start,
		    ts_time end)
{
	if (ts_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof *t->spans))
		return fail(t, TS_ENOMEM);
	struct span *s = &t->spans[t->nspans++];
	s->start = start;
	s->end = end;
	s->name = name;
	s->cat = cat;
	s->track = track;
	return 0;
}

int trace_span(struct ts_trace *t, uint32_t track, const char *name, ts_time start_ns,
	       ts_time end_ns, const char *category)
{
	if (!t)
		return 0;
	if (track >= t->ntracks || end_ns < start_ns)
		return fail(t, TS_ERANGE);
	size_t n = intern(t, name);
	size_t c = category ? intern(t, category) : NO_STR;
	if (n == NO_STR || (category && c == NO_STR))
		return fail(t, TS_ENOMEM);
	return add_span(t, track, n, c, start_ns, end_ns);
}

int trace_counter(struct ts_trace *t, uint32_t process, const char *name, ts_time time_ns,
		  double value)
{
	if (!t)
		return 0;
	if (process >= t->nprocs)
		return fail(t, TS_ERANGE);
	if (ts_grow((void **)&t->counters, &t->capcounters, t->ncounters + 1, sizeof *t->counters))
		return fail(t, TS_ENOMEM);
	size_t n = intern(t, name);
	if (n == NO_STR)
		return fail(t, TS_ENOMEM);
	struct counter *c = &t->counters[t->ncounters++];
	c->time = time_ns;
	c->value = isfinite(value) ? value : 0.0;
	c->name = n;
	c->proc = process;
	return 0;
}

int trace_status(const struct ts_trace *t)
{
	return t ? t->status : 0;
}
size_t trace_nspans(const struct ts_trace *t)
{
	return t ? t->nspans : 0;
}
size_t trace_ncounters(const struct ts_trace *t)
{
	return t ? t->ncounters : 0;
}

/* --- writing */

/* ns -> JSON microseconds: an integer when whole, else a real. */
static json_t *json_us(ts_time ns)
{
	if (ns % 1000 == 0)
		return json_integer((json_int_t)(ns / 1000));
	return json_real((double)ns / 1e3);
}

static json_t *json_str(const struct ts_trace *t, size_t off)
{
	const char *s = t->str + off;
	return jstr_new(s, strlen(s));
}

/* Significant digits that print ns / 1000 exactly: the digits of the whole
 * microseconds and three decimals (a shorter dur needs no more). */
static int us_digits(ts_time ns)
{
	int d = 1;
	for (ts_time us = (ns < 0 ? -(ns / 1000) : ns / 1000); us >= 10; us /= 10)
		d++;
	return d + 3 > 17 ? 17 : d + 3; /* a double holds no more */
}

/* A counter value: an integer when it is one (bytes), else a real. */
static json_t *json_value(double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* Write one event with reals to `digits` significant digits and decref it;
 * *first tells whether a comma is due. */
static int put_event(json_t *ev, int digits, FILE *out, bool *first)
{
	if (!ev)
		return TS_ENOMEM;
	if (!*first)
		fputs(",\n", out);
	*first = false;
	int rc = json_dumpf(ev, out, JSON_COMPACT | JSON_REAL_PRECISION(digits));
	json_decref(ev);
	return rc ? TS_EIO : 0;
}

static json_t *meta(const char *what, uint32_t pid, uint32_t tid, json_t *args)
{
	if (tid)
		return json_pack("{s:s, s:s, s:I, s:I, s:o}", "name", what, "ph", "M", "pid",
				 (json_int_t)pid, "tid", (json_int_t)tid, "args", args);
	return json_pack("{s:s, s:s, s:I, s:o}", "name", what, "ph", "M", "pid", (json_int_t)pid,
			 "args", args);
}

static int write_events(const struct ts_trace *t, FILE *out)
{
	bool first = true;
	int rc = 0;
	for (size_t i = 0; i < t->nprocs && !rc; i++) {
		uint32_t pid = (uint32_t)i + 1;
		rc = put_event(meta("process_name", pid, 0,
				    json_pack("{s:o}", "name", json_str(t, t->procs[i].name))),
			       17, out, &first);
		if (!rc)
			rc = put_event(meta("process_sort_index", pid, 0,
					    json_pack("{s:I}", "sort_index", (json_int_t)i)),
				       17, out, &first);
	}
	for (size_t i = 0; i < t->ntracks && !rc; i++) {
		uint32_t pid = t->tracks[i].proc + 1, tid = (uint32_t)i + 1;
		rc = put_event(meta("thread_name", pid, tid,
				    json_pack("{s:o}", "name", json_str(t, t->tracks[i].name))),
			       17, out, &first);
		if (!rc)
			rc = put_event(meta("thread_sort_index", pid, tid,
					    json_pack("{s:I}", "sort_index", (json_int_t)i)),
				       17, out, &first);
	}
	for (size_t i = 0; i < t->nspans && !rc; i++) {
		const struct span *s = &t->spans[i];
		json_t *ev = json_pack(
		    "{s:o, s:s, s:o, s:o, s:I, s:I}", "name", json_str(t, s->name), "ph", "X", "ts",
		    json_us(s->start), "dur", json_us(s->end - s->start), "pid",
		    (json_int_t)t->tracks[s->track].proc + 1, "tid", (json_int_t)s->track + 1);
		if (ev && s->cat != NO_STR && json_object_set_new(ev, "cat", json_str(t, s->cat))) {
			json_decref(ev);
			ev = NULL;
		}
		rc = put_event(ev, us_digits(s->end), out, &first);
	}
	for (size_t i = 0; i < t->ncounters && !rc; i++) {
		const struct counter *c = &t->counters[i];
		json_t *v = json_value(c->value);
		rc = put_event(json_pack("{s:o, s:s, s:o, s:I, s:{s:o}}", "name",
					 json_str(t, c->name), "ph", "C", "ts", json_us(c->time),
					 "pid", (json_int_t)c->proc + 1, "args", "value", v),
			       json_is_integer(v) ? us_digits(c->time) : 17, out, &first);
	}
	return rc;
}

int trace_write(const struct ts_trace *t, FILE *out)
{
	if (!t)
		return 0;
	if (!out)
		return TS_EINVALID;
	fputs("{\"traceEvents\": [\n", out);
	int rc = write_events(t, out);
	if (rc)
		return rc;
	fputs("\n],\n\"displayTimeUnit\": \"ns\"}\n", out);
	return ferror(out) ? TS_EIO : 0;
}

/* --- fluid observer adapter */

static void on_start(void *ud, uint32_t act, uint32_t tag, ts_time when)
{
	struct ts_trace *t = ud;
	uint32_t track = 0;
	const char *name = NULL, *cat = NULL;
	if (!t->map || !t->map(t->map_ud, tag, &track, &name, &cat))
		return;
	if (track >= t->ntracks) {
		fail(t, TS_ERANGE);
		return;
	}
	if (ts_grow((void **)&t->acts, &t->capacts, (size_t)act + 1, sizeof *t->acts)) {
		fail(t, TS_ENOMEM);
		return;
	}
	struct open_act *a = &t->acts[act];
	a->name = intern(t, name);
	a->cat = cat ? intern(t, cat) : NO_STR;
	if (a->name == NO_STR || (cat && a->cat == NO_STR)) {
		fail(t, TS_ENOMEM);
		return;
	}
	a->start = when;
	a->track = track;
	a->open = true;
}

static void on_end(void *ud, uint32_t act, uint32_t tag, ts_time when)
{
	struct ts_trace *t = ud;
	(void)tag;
	if (act >= t->capacts || !t->acts[act].open)
		return; /* left out, or ended before it started (cancelled in latency) */
	struct open_act *a = &t->acts[act];
	a->open = false;
	add_span(t, a->track, a->name, a->cat, a->start, when >= a->start ? when : a->start);
}

int trace_fluid_observer(struct ts_trace *t, trace_tag_fn map, void *ud, struct fluid_observer *obs)
{
	if (!t) {
		obs->on_start = NULL;
		obs->on_end = NULL;
		obs->ud = NULL;
		return 0;
	}
	t->map = map;
	t->map_ud = ud;
	obs->on_start = on_start;
	obs->on_end = on_end;
	obs->ud = t;
	return 0;
}
