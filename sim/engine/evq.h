/* The event queue: simulated time, and callbacks ordered by (time, sequence).
 * SPDX-License-Identifier: MIT */
#ifndef TS_ENGINE_EVQ_H
#define TS_ENGINE_EVQ_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ts.h"

struct ts_evq;

/* An event callback: `ctx` and `arg` are what was given to evq_push. */
typedef void (*ts_event_fn)(void *ctx, uint64_t arg);

/* A handle names one scheduled event; 0 is never a valid handle. A handle
 * whose event has fired or was cancelled is stale, and evq_cancel on it is a
 * harmless no-op. */
typedef uint64_t ts_event_handle;

/* Most events pending at once (slots are 24-bit). */
#define EVQ_MAX_PENDING ((1u << 24) - 1)

/* Create a queue at time 0 with room for `cap_hint` pending events (it grows
 * by doubling beyond that; reserve enough to keep the event loop free of
 * allocation). Returns 0, or TS_ENOMEM with *q = NULL. */
int evq_create(struct ts_evq **q, size_t cap_hint);

/* Free the queue and every pending event (callbacks are not called). */
void evq_destroy(struct ts_evq *q);

/* Bytes at most that a queue holding `events` pending events needs: a slot
 * and a key each (and a cancelled event's key until it is passed), times 2
 * for the doubling of its arrays. For estimating a run's size before
 * building it. */
double evq_bytes(double events);

/* Current simulated time in ns: the time of the event being run, or of the
 * last one run. */
ts_time evq_now(const struct ts_evq *q);

/* Schedule fn(ctx, arg) at time `at` (>= now; scheduling in the past is a
 * programmer error and asserts). Events at equal times run in the order they
 * were pushed. Writes the handle to *h (may be NULL). Returns 0, TS_ENOMEM,
 * or TS_ELIMIT past EVQ_MAX_PENDING pending events. */
int evq_push(struct ts_evq *q, ts_time at, ts_event_fn fn, void *ctx, uint64_t arg,
	     ts_event_handle *h);

/* Cancel the event named by h, lazily: its key stays in the heap and is
 * dropped when it reaches the top. Returns true if the event was pending. */
bool evq_cancel(struct ts_evq *q, ts_event_handle h);

/* Move the event named by *h to time `at` (cancel and push; the event keeps
 * its callback and gets a new sequence number and handle, written to *h).
 * Returns 0, TS_ENOMEM, or TS_EINVALID if *h is stale. */
int evq_reschedule(struct ts_evq *q, ts_event_handle *h, ts_time at);

/* Time of the next live event, or TS_TIME_MAX when none is pending. Drops
 * cancelled keys from the top as it looks. */
ts_time evq_next_time(struct ts_evq *q);

/* Pop the next live event, advance the clock to its time and run it.
 * Returns false when no event is pending. */
bool evq_step(struct ts_evq *q);

/* Number of live pending events. */
size_t evq_pending(const struct ts_evq *q);

/* 0, or TS_ENOMEM once moving keys between buckets ran out of memory (the
 * keys are all kept, but evq_next_time may have answered TS_TIME_MAX and
 * evq_step false with events still pending): sticky, for the caller to stop
 * the run and report it. */
int evq_status(const struct ts_evq *q);

/* Total number of events run so far. */
uint64_t evq_events_run(const struct ts_evq *q);

#endif
