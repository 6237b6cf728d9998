/* Event queue.
 *
 * Keys live in a 4-ary min-heap apart from their payloads: a key is 16 bytes,
 * (time, seq << 24 | slot), so four siblings share one cache line and
 * comparison is two integer compares. seq is a 40-bit counter set at push,
 * which makes equal times pop in FIFO order and the whole run deterministic.
 * The payload (callback, context, argument) sits in a slot from a free list;
 * the slot remembers the seq of its live key. Cancelling frees the slot and
 * leaves the key behind; a popped key whose seq does not match its slot's is
 * stale and skipped (lazy cancellation with the seq as generation counter).
 * A handle is (seq << 24 | slot) + 1, so it is never 0.
 * SPDX-License-Identifier: MIT */
#include <assert.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "engine/evq.h"

#define SLOT_BITS 24
#define SLOT_MASK ((UINT64_C(1) << SLOT_BITS) - 1)
#define NO_SLOT UINT32_MAX

struct key {
	int64_t time;
	uint64_t seqslot; /* seq << 24 | slot */
};

struct slot {
	ts_event_fn fn;
	void *ctx;
	uint64_t arg;
	uint64_t seq;  /* seq of the live key, 0 when free */
	uint32_t next; /* free-list link */
};

struct ts_evq {
	struct key *heap;
	size_t nheap, capheap;
	struct slot *slots;
	size_t capslots;
	uint32_t free_head;
	size_t live;
	uint64_t seq;
	uint64_t run;
	ts_time now;
};

static bool key_less(const struct key *a, const struct key *b)
{
	return a->time < b->time || (a->time == b->time && a->seqslot < b->seqslot);
}

static int grow_slots(struct ts_evq *q, size_t need)
{
	size_t old = q->capslots;
	if (need > EVQ_MAX_PENDING)
		return TS_ELIMIT;
	if (ts_grow((void **)&q->slots, &q->capslots, need, sizeof *q->slots))
		return TS_ENOMEM;
	if (q->capslots > EVQ_MAX_PENDING)
		q->capslots = EVQ_MAX_PENDING;
	for (size_t i = q->capslots; i-- > old;) {
		q->slots[i].next = q->free_head;
		q->free_head = (uint32_t)i;
	}
	return 0;
}

int evq_create(struct ts_evq **qp, size_t cap_hint)
{
	struct ts_evq *q = ts_calloc(1, sizeof *q);
	*qp = NULL;
	if (!q)
		return TS_ENOMEM;
	q->free_head = NO_SLOT;
	if (cap_hint < 16)
		cap_hint = 16;
	if (cap_hint > EVQ_MAX_PENDING)
		cap_hint = EVQ_MAX_PENDING;
	if (grow_slots(q, cap_hint) ||
	    ts_grow((void **)&q->heap, &q->capheap, cap_hint, sizeof *q->heap)) {
		evq_destroy(q);
		return TS_ENOMEM;
	}
	*qp = q;
	return 0;
}

void evq_destroy(struct ts_evq *q)
{
	if (!q)
		return;
	ts_free(q->heap, q->capheap * sizeof *q->heap);
	ts_free(q->slots, q->capslots * sizeof *q->slots);
	ts_free(q, sizeof *q);
}

ts_time evq_now(const struct ts_evq *q) { return q->now; }
size_t evq_pending(const struct ts_evq *q) { return q->live; }
uint64_t evq_events_run(const struct ts_evq *q) { return q->run; }

static void sift_up(struct key *h, size_t i)
{
	struct key k = h[i];
	while (i > 0) {
		size_t p = (i - 1) / 4;
		if (!key_less(&k, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = k;
}

static void sift_down(struct key *h, size_t n, size_t i)
{
	struct key k = h[i];
	for (;;) {
		size_t c = 4 * i + 1;
		if (c >= n)
			break;
		size_t best = c;
		size_t end = c + 4 < n ? c + 4 : n;
		for (size_t j = c + 1; j < end; j++)
			if (key_less(&h[j], &h[best]))
				best = j;
		if (!key_less(&h[best], &k))
			break;
		h[i] = h[best];
		i = best;
	}
	h[i] = k;
}

int evq_push(struct ts_evq *q, ts_time at, ts_event_fn fn, void *ctx,
	     uint64_t arg, ts_event_handle *h)
{
	assert(at >= q->now && "event scheduled in the past");
	assert(fn);
	if (q->free_head == NO_SLOT) {
		int rc = grow_slots(q, q->capslots + 1);
		if (rc)
			return rc;
	}
	if (q->nheap == q->capheap &&
	    ts_grow((void **)&q->heap, &q->capheap, q->nheap + 1, sizeof *q->heap))
		return TS_ENOMEM;
	uint32_t s = q->free_head;
	struct slot *sl = &q->slots[s];
	q->free_head = sl->next;
	uint64_t seq = ++q->seq;
	sl->fn = fn;
	sl->ctx = ctx;
	sl->arg = arg;
	sl->seq = seq;
	uint64_t ss = seq << SLOT_BITS | s;
	q->heap[q->nheap].time = at;
	q->heap[q->nheap].seqslot = ss;
	sift_up(q->heap, q->nheap);
	q->nheap++;
	q->live++;
	if (h)
		*h = ss + 1;
	return 0;
}

static struct slot *live_slot(struct ts_evq *q, uint64_t seqslot)
{
	uint64_t s = seqslot & SLOT_MASK;
	if (s >= q->capslots)
		return NULL;
	struct slot *sl = &q->slots[s];
	return sl->seq == seqslot >> SLOT_BITS ? sl : NULL;
}

static void free_slot(struct ts_evq *q, struct slot *sl)
{
	sl->seq = 0;
	sl->next = (uint32_t)(sl - q->slots);
	uint32_t idx = sl->next;
	sl->next = q->free_head;
	q->free_head = idx;
	q->live--;
}

bool evq_cancel(struct ts_evq *q, ts_event_handle h)
{
	if (h == 0)
		return false;
	struct slot *sl = live_slot(q, h - 1);
	if (!sl)
		return false;
	free_slot(q, sl);
	return true;
}

int evq_reschedule(struct ts_evq *q, ts_event_handle *h, ts_time at)
{
	if (*h == 0)
		return TS_EINVALID;
	struct slot *sl = live_slot(q, *h - 1);
	if (!sl)
		return TS_EINVALID;
	struct slot copy = *sl;
	free_slot(q, sl);
	return evq_push(q, at, copy.fn, copy.ctx, copy.arg, h);
}

static void pop_top(struct ts_evq *q)
{
	q->nheap--;
	if (q->nheap > 0) {
		q->heap[0] = q->heap[q->nheap];
		sift_down(q->heap, q->nheap, 0);
	}
}

ts_time evq_next_time(struct ts_evq *q)
{
	while (q->nheap > 0) {
		if (live_slot(q, q->heap[0].seqslot))
			return q->heap[0].time;
		pop_top(q);
	}
	return TS_TIME_MAX;
}

bool evq_step(struct ts_evq *q)
{
	while (q->nheap > 0) {
		struct key k = q->heap[0];
		pop_top(q);
		struct slot *sl = live_slot(q, k.seqslot);
		if (!sl)
			continue;
		ts_event_fn fn = sl->fn;
		void *ctx = sl->ctx;
		uint64_t arg = sl->arg;
		free_slot(q, sl);
		q->now = k.time;
		q->run++;
		fn(ctx, arg);
		return true;
	}
	return false;
}
