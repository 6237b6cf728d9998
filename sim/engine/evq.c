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
 *
 * Speed (tests/bench/bench_engine.c, hold model): the heap is aligned so that
 * each group of four siblings is exactly one cache line, sift-down picks the
 * smallest child by a tournament of branch-free compares and prefetches the
 * next level, and the key of the event being run stays at the root as a hole
 * that the callback's first push fills with one sift-down (an event that
 * schedules its successor costs one pass, not a pop and a push). A slot is
 * 32 bytes; a free slot keeps its free-list link in the seq word.
 * SPDX-License-Identifier: MIT */
#include <assert.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "engine/evq.h"

#define SLOT_BITS 24
#define SLOT_MASK ((UINT64_C(1) << SLOT_BITS) - 1)
#define NO_SLOT UINT32_MAX
/* A free slot's seq word holds FREE_BIT | next free slot; live seqs are
 * 40-bit, so a free slot never matches a key. */
#define FREE_BIT (UINT64_C(1) << 63)
#define LINE 64 /* cache line, bytes */

struct key {
	int64_t time;
	uint64_t seqslot; /* seq << 24 | slot */
};

struct slot { /* 32 bytes: two per cache line */
	ts_event_fn fn;
	void *ctx;
	uint64_t arg;
	uint64_t seq; /* seq of the live key, or FREE_BIT | next free slot */
};

struct ts_evq {
	struct key *heap; /* aligned so that the 4 children of a node share a line */
	void *heap_raw;   /* the allocation heap points into */
	size_t heap_rawsize;
	size_t nheap, capheap;
	struct slot *slots;
	size_t capslots;
	uint32_t free_head;
	bool hole; /* heap[0] is the key of the event being run, to be replaced or popped */
	size_t live;
	uint64_t seq;
	uint64_t run;
	ts_time now;
};

/* Keys compare as one 128-bit number: time is never negative. */
static inline bool key_less(const struct key *a, const struct key *b)
{
	unsigned __int128 x = (unsigned __int128)(uint64_t)a->time << 64 | a->seqslot;
	unsigned __int128 y = (unsigned __int128)(uint64_t)b->time << 64 | b->seqslot;
	return x < y;
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
		q->slots[i].seq = FREE_BIT | q->free_head;
		q->free_head = (uint32_t)i;
	}
	return 0;
}

/* Grow the heap to at least `need` keys. Element 1 (the first of the root's
 * children, and so the first of every group of four siblings) is placed on
 * a cache-line boundary. */
static int grow_heap(struct ts_evq *q, size_t need)
{
	if (need <= q->capheap)
		return 0;
	size_t cap = q->capheap ? q->capheap : 16;
	while (cap < need) {
		if (cap > SIZE_MAX / 2 / sizeof(struct key) - LINE)
			return TS_ENOMEM;
		cap *= 2;
	}
	size_t size = cap * sizeof(struct key) + LINE;
	char *raw = ts_malloc(size);
	if (!raw)
		return TS_ENOMEM;
	uintptr_t first = (uintptr_t)(raw + sizeof(struct key));
	size_t pad = (LINE - first % LINE) % LINE;
	struct key *h = (struct key *)(void *)(raw + pad);
	if (q->nheap)
		memcpy(h, q->heap, q->nheap * sizeof *h);
	ts_free(q->heap_raw, q->heap_rawsize);
	q->heap_raw = raw;
	q->heap_rawsize = size;
	q->heap = h;
	q->capheap = cap;
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
	if (grow_slots(q, cap_hint) || grow_heap(q, cap_hint)) {
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
	ts_free(q->heap_raw, q->heap_rawsize);
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

/* Move h[i] down to its place. With four children present the smallest is
 * found by a two-round tournament (the first two compares are independent
 * and become conditional moves), and the children's own children, four
 * cache lines, are prefetched one level ahead of need. The slot of the key
 * that will become the root is prefetched too, for the next pop. */
static void sift_down(struct ts_evq *q, size_t i)
{
	struct key *h = q->heap;
	size_t n = q->nheap;
	struct key k = h[i];
	bool first = i == 0;
	for (;;) {
		size_t c = 4 * i + 1;
		size_t best;
		if (c + 3 < n) {
			size_t g = 4 * c + 1;
			if (g < n) {
				__builtin_prefetch(&h[g]);
				__builtin_prefetch(&h[g + 4]);
				__builtin_prefetch(&h[g + 8]);
				__builtin_prefetch(&h[g + 12]);
			}
			/* index arithmetic, not branches: the outcomes are
			 * coin flips a predictor cannot learn */
			size_t b01 = c + (size_t)key_less(&h[c + 1], &h[c]);
			size_t b23 = c + 2 + (size_t)key_less(&h[c + 3], &h[c + 2]);
			size_t pick = (size_t)0 - (size_t)key_less(&h[b23], &h[b01]);
			best = b01 ^ ((b01 ^ b23) & pick);
		} else if (c < n) {
			best = c;
			for (size_t j = c + 1; j < n; j++)
				if (key_less(&h[j], &h[best]))
					best = j;
		} else
			break;
		if (first) {
			__builtin_prefetch(&q->slots[h[best].seqslot & SLOT_MASK]);
			first = false;
		}
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
	if (!q->hole && q->nheap == q->capheap && grow_heap(q, q->nheap + 1))
		return TS_ENOMEM;
	uint32_t s = q->free_head;
	struct slot *sl = &q->slots[s];
	q->free_head = (uint32_t)(sl->seq & ~FREE_BIT);
	uint64_t seq = ++q->seq;
	sl->fn = fn;
	sl->ctx = ctx;
	sl->arg = arg;
	sl->seq = seq;
	uint64_t ss = seq << SLOT_BITS | s;
	if (q->hole) {
		/* the common case of an event scheduling the next: one sift
		 * down from the root instead of a pop and a push */
		q->hole = false;
		q->heap[0].time = at;
		q->heap[0].seqslot = ss;
		sift_down(q, 0);
	} else {
		q->heap[q->nheap].time = at;
		q->heap[q->nheap].seqslot = ss;
		sift_up(q->heap, q->nheap);
		q->nheap++;
	}
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
	sl->seq = FREE_BIT | q->free_head;
	q->free_head = (uint32_t)(sl - q->slots);
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
	q->hole = false;
	q->nheap--;
	if (q->nheap > 0) {
		q->heap[0] = q->heap[q->nheap];
		sift_down(q, 0);
	}
}

ts_time evq_next_time(struct ts_evq *q)
{
	while (q->nheap > 0) {
		if (!q->hole && live_slot(q, q->heap[0].seqslot))
			return q->heap[0].time;
		pop_top(q);
	}
	return TS_TIME_MAX;
}

bool evq_step(struct ts_evq *q)
{
	if (q->hole)
		pop_top(q);
	while (q->nheap > 0) {
		struct key k = q->heap[0];
		struct slot *sl = live_slot(q, k.seqslot);
		if (!sl) {
			pop_top(q);
			continue;
		}
		ts_event_fn fn = sl->fn;
		void *ctx = sl->ctx;
		uint64_t arg = sl->arg;
		free_slot(q, sl);
		/* the key stays at the root as a hole until the callback
		 * pushes (evq_push fills it) or returns (popped here) */
		q->hole = true;
		q->now = k.time;
		q->run++;
		fn(ctx, arg);
		if (q->hole)
			pop_top(q);
		return true;
	}
	return false;
}
