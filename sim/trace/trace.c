/* Chrome trace writer, streaming.
 *
 * Every event is encoded by jansson and written to the output as it is
 * recorded: process and thread metadata when a process or track is added,
 * a span when it is recorded (a fluid activity's when it ends), a counter
 * sample at once. What the trace keeps grows with the tracks (each one's
 * process) and the fluid activities alive at once (their start, track and
 * a copy of their name), never with the spans: a trace of any length holds
 * a few kilobytes. trace_write closes the JSON document.
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

/* A fluid activity that started and has not ended: its name and category
 * copied into buffers kept for the next activity with the same id. */
struct open_act {
	ts_time start;
	uint32_t track;
	bool open, has_cat;
	char *name, *cat;
	size_t capname, capcat;
};

struct ts_trace {
	FILE *out;     /* where events go */
	bool own;      /* out is a temporary file of trace_create */
	bool first;    /* no event written yet (no comma due) */
	bool finished; /* trace_write closed the document */
	uint32_t nprocs;
	uint32_t *track_proc; /* per track: its process */
	size_t ntracks, captracks;
	size_t nspans, ncounters, nflows;
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

/* ns -> JSON microseconds: an integer when whole, else a real. */
static json_t *json_us(ts_time ns)
{
	if (ns % 1000 == 0)
		return json_integer((json_int_t)(ns / 1000));
	return json_real((double)ns / 1e3);
}

static json_t *json_str(const char *s)
{
	if (!s)
		s = "";
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

/* Write one event with reals to `digits` significant digits and decref it
 * (a comma first unless it is the first event). Returns 0, TS_ENOMEM (ev
 * NULL: nothing written) or TS_EIO, kept in the trace's status. */
static int put_event(struct ts_trace *t, json_t *ev, int digits)
{
	if (!ev)
		return fail(t, TS_ENOMEM);
	if (!t->first)
		fputs(",\n", t->out);
	t->first = false;
	int rc = json_dumpf(ev, t->out, JSON_COMPACT | JSON_REAL_PRECISION(digits));
	json_decref(ev);
	return rc ? fail(t, TS_EIO) : 0;
}

static json_t *meta(const char *what, uint32_t pid, uint32_t tid, json_t *args)
{
	if (tid)
		return json_pack("{s:s, s:s, s:I, s:I, s:o}", "name", what, "ph", "M", "pid",
				 (json_int_t)pid, "tid", (json_int_t)tid, "args", args);
	return json_pack("{s:s, s:s, s:I, s:o}", "name", what, "ph", "M", "pid", (json_int_t)pid,
			 "args", args);
}

/* A recording call on a trace trace_write has closed. */
static bool closed(struct ts_trace *t)
{
	if (!t->finished)
		return false;
	fail(t, TS_EINVALID);
	return true;
}

int trace_open(struct ts_trace **tp, FILE *out)
{
	*tp = NULL;
	if (!out)
		return TS_EINVALID;
	struct ts_trace *t = ts_calloc(1, sizeof *t);
	if (!t)
		return TS_ENOMEM;
	t->out = out;
	t->first = true;
	fputs("{\"traceEvents\": [\n", out);
	uint32_t p;
	if (trace_process(t, "trainsim", &p)) {
		int rc = t->status;
		trace_destroy(t);
		return rc;
	}
	*tp = t;
	return 0;
}

int trace_create(struct ts_trace **tp)
{
	*tp = NULL;
	FILE *f = tmpfile();
	if (!f)
		return TS_EIO;
	int rc = trace_open(tp, f);
	if (rc) {
		fclose(f);
		return rc;
	}
	(*tp)->own = true;
	return 0;
}

void trace_destroy(struct ts_trace *t)
{
	if (!t)
		return;
	if (t->own)
		fclose(t->out);
	for (size_t i = 0; i < t->capacts; i++) {
		ts_free(t->acts[i].name, t->acts[i].capname);
		ts_free(t->acts[i].cat, t->acts[i].capcat);
	}
	ts_free(t->acts, t->capacts * sizeof *t->acts);
	ts_free(t->track_proc, t->captracks * sizeof *t->track_proc);
	ts_free(t, sizeof *t);
}

int trace_process(struct ts_trace *t, const char *name, uint32_t *process)
{
	return trace_process_at(t, name, t ? (int64_t)t->nprocs : 0, process);
}

int trace_process_at(struct ts_trace *t, const char *name, int64_t sort_index, uint32_t *process)
{
	if (!t)
		return 0;
	if (closed(t))
		return TS_EINVALID;
	if (t->nprocs >= UINT32_MAX - 1)
		return fail(t, TS_ENOMEM);
	uint32_t i = t->nprocs, pid = i + 1;
	int rc = put_event(
	    t, meta("process_name", pid, 0, json_pack("{s:o}", "name", json_str(name))), 17);
	if (!rc)
		rc = put_event(t,
			       meta("process_sort_index", pid, 0,
				    json_pack("{s:I}", "sort_index", (json_int_t)sort_index)),
			       17);
	if (rc)
		return rc;
	*process = t->nprocs++;
	return 0;
}

int trace_track(struct ts_trace *t, uint32_t process, const char *name, uint32_t *track)
{
	return trace_track_at(t, process, name, t ? (int64_t)t->ntracks : 0, track);
}

int trace_track_at(struct ts_trace *t, uint32_t process, const char *name, int64_t sort_index,
		   uint32_t *track)
{
	if (!t)
		return 0;
	if (closed(t))
		return TS_EINVALID;
	if (process >= t->nprocs)
		return fail(t, TS_ERANGE);
	if (t->ntracks >= UINT32_MAX - 1 ||
	    ts_grow((void **)&t->track_proc, &t->captracks, t->ntracks + 1, sizeof *t->track_proc))
		return fail(t, TS_ENOMEM);
	uint32_t i = (uint32_t)t->ntracks, pid = process + 1, tid = i + 1;
	int rc = put_event(
	    t, meta("thread_name", pid, tid, json_pack("{s:o}", "name", json_str(name))), 17);
	if (!rc)
		rc = put_event(t,
			       meta("thread_sort_index", pid, tid,
				    json_pack("{s:I}", "sort_index", (json_int_t)sort_index)),
			       17);
	if (rc)
		return rc;
	t->track_proc[i] = process;
	t->ntracks++;
	*track = i;
	return 0;
}

/* A figure as JSON: an integer when it is one and fits, else a real. */
static json_t *json_figure(double v)
{
	if (!isfinite(v))
		return json_integer(0);
	if (v == floor(v) && fabs(v) < 9.2e18)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* The args object of a span, or NULL (none, or out of memory: *oom). */
static json_t *span_args(const struct trace_arg *a, size_t n, bool *oom)
{
	*oom = false;
	if (!n)
		return NULL;
	json_t *o = json_object();
	for (size_t i = 0; o && i < n; i++) {
		json_t *v = a[i].type == TRACE_ARG_INT	  ? json_integer((json_int_t)a[i].i)
			    : a[i].type == TRACE_ARG_REAL ? json_figure(a[i].r)
							  : json_str(a[i].s);
		if (json_object_set_new(o, a[i].key ? a[i].key : "", v)) {
			json_decref(o);
			o = NULL;
		}
	}
	*oom = o == NULL;
	return o;
}

static int put_span_args(struct ts_trace *t, uint32_t track, const char *name, const char *cat,
			 ts_time start, ts_time end, const struct trace_arg *args, size_t nargs)
{
	json_t *ev = json_pack("{s:o, s:s, s:o, s:o, s:I, s:I}", "name", json_str(name), "ph", "X",
			       "ts", json_us(start), "dur", json_us(end - start), "pid",
			       (json_int_t)t->track_proc[track] + 1, "tid", (json_int_t)track + 1);
	if (ev && cat && json_object_set_new(ev, "cat", json_str(cat))) {
		json_decref(ev);
		ev = NULL;
	}
	bool oom;
	json_t *ao = span_args(args, nargs, &oom);
	if (ev && (oom || (ao && json_object_set_new(ev, "args", ao)))) {
		json_decref(ev);
		ev = NULL;
	}
	int rc = put_event(t, ev, us_digits(end) > 15 ? us_digits(end) : 15);
	if (!rc)
		t->nspans++;
	return rc;
}

static int put_span(struct ts_trace *t, uint32_t track, const char *name, const char *cat,
		    ts_time start, ts_time end)
{
	return put_span_args(t, track, name, cat, start, end, NULL, 0);
}

int trace_span_args(struct ts_trace *t, uint32_t track, const char *name, ts_time start_ns,
		    ts_time end_ns, const char *category, const struct trace_arg *args,
		    size_t nargs)
{
	if (!t)
		return 0;
	if (closed(t))
		return TS_EINVALID;
	if (track >= t->ntracks || end_ns < start_ns || (nargs && !args))
		return fail(t, TS_ERANGE);
	return put_span_args(t, track, name, category, start_ns, end_ns, args, nargs);
}

int trace_flow(struct ts_trace *t, uint32_t track, uint64_t id, bool start, ts_time time_ns,
	       const char *name, const char *category)
{
	if (!t)
		return 0;
	if (closed(t))
		return TS_EINVALID;
	if (track >= t->ntracks)
		return fail(t, TS_ERANGE);
	json_t *ev = json_pack("{s:o, s:o, s:s, s:I, s:o, s:I, s:I}", "name", json_str(name), "cat",
			       json_str(category ? category : "flow"), "ph", start ? "s" : "f",
			       "id", (json_int_t)id, "ts", json_us(time_ns), "pid",
			       (json_int_t)t->track_proc[track] + 1, "tid", (json_int_t)track + 1);
	if (ev && !start && json_object_set_new(ev, "bp", json_string("e"))) {
		json_decref(ev);
		ev = NULL;
	}
	int rc = put_event(t, ev, us_digits(time_ns));
	if (!rc)
		t->nflows++;
	return rc;
}

size_t trace_nflows(const struct ts_trace *t)
{
	return t ? t->nflows : 0;
}

int trace_span(struct ts_trace *t, uint32_t track, const char *name, ts_time start_ns,
	       ts_time end_ns, const char *category)
{
	if (!t)
		return 0;
	if (closed(t))
		return TS_EINVALID;
	if (track >= t->ntracks || end_ns < start_ns)
		return fail(t, TS_ERANGE);
	return put_span(t, track, name, category, start_ns, end_ns);
}

int trace_counter(struct ts_trace *t, uint32_t process, const char *name, ts_time time_ns,
		  double value)
{
	if (!t)
		return 0;
	if (closed(t))
		return TS_EINVALID;
	if (process >= t->nprocs)
		return fail(t, TS_ERANGE);
	json_t *v = json_value(isfinite(value) ? value : 0.0);
	int digits = json_is_integer(v) ? us_digits(time_ns) : 17;
	int rc = put_event(t,
			   json_pack("{s:o, s:s, s:o, s:I, s:{s:o}}", "name", json_str(name), "ph",
				     "C", "ts", json_us(time_ns), "pid", (json_int_t)process + 1,
				     "args", "value", v),
			   digits);
	if (!rc)
		t->ncounters++;
	return rc;
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

/* --- closing */

/* Copy the temporary file of trace_create to out. */
static int copy_out(struct ts_trace *t, FILE *out)
{
	char buf[65536];
	if (fflush(t->out) || fseek(t->out, 0, SEEK_SET))
		return TS_EIO;
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, t->out)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return TS_EIO;
	if (ferror(t->out))
		return TS_EIO;
	return fseek(t->out, 0, SEEK_END) ? TS_EIO : 0;
}

int trace_write(struct ts_trace *t, FILE *out)
{
	if (!t)
		return 0;
	if (!out || (out != t->out && !t->own))
		return TS_EINVALID;
	if (!t->finished) {
		fputs("\n],\n\"displayTimeUnit\": \"ns\"}\n", t->out);
		t->finished = true;
	}
	if (ferror(t->out))
		return TS_EIO;
	if (out != t->out && copy_out(t, out))
		return TS_EIO;
	return ferror(out) ? TS_EIO : 0;
}

/* --- fluid observer adapter */

/* Copy s into the buffer *buf of *cap bytes, growing it (kept for the next
 * activity with the same id, so a long run allocates no more). */
static int copy_str(char **buf, size_t *cap, const char *s)
{
	if (!s)
		s = "";
	size_t n = strlen(s) + 1;
	if (ts_grow((void **)buf, cap, n, 1))
		return TS_ENOMEM;
	memcpy(*buf, s, n);
	return 0;
}

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
	if (copy_str(&a->name, &a->capname, name) || (cat && copy_str(&a->cat, &a->capcat, cat))) {
		fail(t, TS_ENOMEM);
		return;
	}
	a->has_cat = cat != NULL;
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
	if (!t->finished)
		put_span(t, a->track, a->name, a->has_cat ? a->cat : NULL, a->start,
			 when >= a->start ? when : a->start);
}

int trace_fluid_observer(struct ts_trace *t, trace_tag_fn map, void *ud, struct fluid_observer *obs)
{
	obs->on_load = NULL;
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
