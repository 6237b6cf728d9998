/* Timelines in the Chrome trace event format (JSON), which Perfetto and
 * chrome://tracing open: processes (a node, "links"), tracks inside them
 * ("GPU 0 compute"), spans on tracks and counters (memory), written to a
 * stream as they are recorded.
 * SPDX-License-Identifier: MIT */
#ifndef TS_TRACE_TRACE_H
#define TS_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/ts.h"
#include "engine/fluid.h"

struct ts_trace;

/* Process 0 exists from the start, named "trainsim". */
#define TRACE_DEFAULT_PROCESS 0u

/* Open a trace that streams to `out` (borrowed; open until the trace is
 * destroyed): the start of the JSON document at once, then every event as
 * it is recorded, so the trace holds no span in memory; trace_write(t, out)
 * closes the document. Returns 0, TS_EINVALID (out NULL), TS_ENOMEM, or
 * TS_EIO (writing failed), *t = NULL on failure. A disabled trace is simply
 * NULL: every trace_* call below accepts t == NULL, records nothing and
 * returns 0, so callers need no test of their own. */
int trace_open(struct ts_trace **t, FILE *out);

/* A trace that streams to a temporary file (tmpfile) of its own, copied to
 * a stream by trace_write. Returns 0, TS_EIO (no temporary file) or
 * TS_ENOMEM (*t = NULL). */
int trace_create(struct ts_trace **t);

/* Free the trace (NULL is fine); closes the temporary file of trace_create,
 * never the stream of trace_open. */
void trace_destroy(struct ts_trace *t);

/* Add a process (a "pid": one per node, or one for the links) named `name`
 * (written at once). Writes its id to *process. Returns 0, TS_ENOMEM or
 * TS_EIO. */
int trace_process(struct ts_trace *t, const char *name, uint32_t *process);

/* Add a track (a "tid", with its thread_name) named `name` (written at
 * once) in `process`; tracks are shown in the order they were added. Writes
 * its id to *track. Returns 0, TS_ENOMEM, TS_EIO, or TS_ERANGE for an
 * unknown process. */
int trace_track(struct ts_trace *t, uint32_t process, const char *name, uint32_t *track);

/* trace_process and trace_track with a sort index of one's own (Perfetto
 * and chrome://tracing order processes, and tracks in a process, by it)
 * instead of the order of creation. Same returns. */
int trace_process_at(struct ts_trace *t, const char *name, int64_t sort_index, uint32_t *process);
int trace_track_at(struct ts_trace *t, uint32_t process, const char *name, int64_t sort_index,
		   uint32_t *track);

/* One argument of a span (shown in the slice's details): an integer, a
 * real or a string (borrowed, written at once). */
struct trace_arg {
	const char *key;
	enum { TRACE_ARG_INT, TRACE_ARG_REAL, TRACE_ARG_STR } type;
	int64_t i;
	double r; /* written as an integer when it is one (bytes, FLOPs) */
	const char *s;
};

/* trace_span with `nargs` arguments (args may be NULL when nargs is 0).
 * Same returns. */
int trace_span_args(struct ts_trace *t, uint32_t track, const char *name, ts_time start_ns,
		    ts_time end_ns, const char *category, const struct trace_arg *args,
		    size_t nargs);

/* One end of a flow arrow (Chrome trace "s" / "f" events, as Perfetto
 * draws them): `start` true for the tail, bound to the span of `track`
 * that encloses time_ns, false for the head, bound to the span enclosing
 * time_ns on its track ("bp": "e"). Both ends share `id` and `category`
 * (name and category written at once). Returns 0, TS_ENOMEM, TS_EIO, or
 * TS_ERANGE for an unknown track. */
int trace_flow(struct ts_trace *t, uint32_t track, uint64_t id, bool start, ts_time time_ns,
	       const char *name, const char *category);

/* Number of flow ends recorded. */
size_t trace_nflows(const struct ts_trace *t);

/* Record a span [start_ns, end_ns] on `track` (a complete "X" event, written
 * with ts and dur in microseconds, fractions keeping the nanoseconds).
 * `name` and `category` (may be NULL) are written at once. Returns 0,
 * TS_ENOMEM, TS_EIO, or TS_ERANGE for an unknown track or end_ns <
 * start_ns. */
int trace_span(struct ts_trace *t, uint32_t track, const char *name, ts_time start_ns,
	       ts_time end_ns, const char *category);

/* Record that counter `name` (written at once; e.g. "GPU 0 memory
 * (bytes)") of `process` takes `value` from time_ns on (a "C" event). A
 * non-finite value is written as 0. Returns 0, TS_ENOMEM, TS_EIO, or
 * TS_ERANGE for an unknown process. */
int trace_counter(struct ts_trace *t, uint32_t process, const char *name, ts_time time_ns,
		  double value);

/* The first error of any recording call, 0 if none (an event that could
 * not be encoded is left out and the document stays valid; after TS_EIO
 * the output is incomplete). */
int trace_status(const struct ts_trace *t);

/* Number of spans and counter samples recorded. */
size_t trace_nspans(const struct ts_trace *t);
size_t trace_ncounters(const struct ts_trace *t);

/* Close the document {"traceEvents": [...], "displayTimeUnit": "ns"} (the
 * first call writes its end; the events, each encoded by jansson, were
 * written in the order recorded) and, for a trace of trace_create,
 * copy it to `out`; a trace of trace_open takes its own stream only.
 * Recording afterwards fails with TS_EINVALID. Returns 0, TS_EINVALID (out
 * NULL, or another stream than a trace_open trace's), or TS_EIO when
 * writing failed. */
int trace_write(struct ts_trace *t, FILE *out);

/* --- recording fluid activities */

/* Choose where an activity with `tag` goes: set *track, *name (the span's
 * name; read at once, not kept) and *category (may stay NULL) and return
 * true, or return false to leave the activity out. */
typedef bool (*trace_tag_fn)(void *ud, uint32_t tag, uint32_t *track, const char **name,
			     const char **category);

/* Fill *obs so that, once given to fluid_set_observer, every fluid activity
 * becomes a span from when it starts using resources to when it ends, on the
 * track `map` chooses by its tag. One adapter per trace (calling again
 * replaces the map); t must outlive the observer's use. With t == NULL the
 * observer is cleared (no callbacks). Returns 0. Failures while recording
 * are kept for trace_status. */
int trace_fluid_observer(struct ts_trace *t, trace_tag_fn map, void *ud,
			 struct fluid_observer *obs);

#endif
