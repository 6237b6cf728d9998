/* Event queue.
 *
 * A radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) over integer times:
 * simulated time never goes back, so every key is >= `last`, the time of the
 * last event popped, and a key lives in bucket 0 when it equals `last` and
 * otherwise in bucket 64 - clz(key ^ last) (the position of the highest bit
 * in which it differs from `last`). Popping takes bucket 0 front to back;
 * when bucket 0 is empty, the lowest non-empty bucket is scanned for its
 * smallest key, `last` moves to it, and the bucket's keys are spread over
 * the lower buckets. A key moves down at most 64 times, so push and pop cost
 * O(log of the time span) amortised, touching memory sequentially — unlike
 * a heap, whose every operation walks a cache-missing path at a million
 * pending events.
 *
 * Equal times pop in push order: keys of equal time always share a bucket
 * (the bucket depends only on the key and `last`), a push appends, and
 * spreading a bucket keeps its order. So runs are deterministic.
 *
 * Keys are 16 bytes, (time, seq << 24 | slot), apart from their payloads
 * (callback, context, argument) in slots from a free list; a slot remembers
 * the seq of its live key. Cancelling frees the slot and leaves the key
 * behind; a key whose seq does not match its slot's is stale and is dropped
 * when met (lazy cancellation, the seq as generation counter). A handle is
 * (seq << 24 | slot) + 1, never 0.
 *
 * evq_next_time moves `last` to the next live key (so the stale keys before
 * it are gone and the answer is exact), but the caller may still push at the
 * current time, below `last`: such keys go to a small binary heap, `early`,
 * ordered by (time, seq), whose keys all come before the buckets'.
 * SPDX-License-Identifier: MIT */
#include <assert.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "engine/evq.h"

#define SLOT_BITS 24
#define SLOT_MASK ((UINT64_C(1) << SLOT_BITS) - 1)
#define NO_SLOT UINT32_MAX
#define NBUCKETS 65

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

struct bucket {
	struct key *k;
	size_t n, cap;
	size_t head; /* bucket 0 only: keys before head were popped */
};

struct ts_evq {
	struct bucket b[NBUCKETS];
	uint64_t full; /* bit i - 1 set: bucket i (1..64) holds keys */
	int64_t last;
	struct slot *slots;
	size_t capslots;
	uint32_t free_head;
	size_t live;
	uint64_t seq;
	uint64_t run;
	ts_time now;
	struct key *early; /* binary min-heap of keys below `last` */
	size_t nearly, capearly;
	int status; /* TS_ENOMEM once refill could not spread a bucket, sticky */
};

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

double evq_bytes(double events)
{
	return 2.0 * events * (double)(sizeof(struct slot) + 2 * sizeof(struct key)) +
	       (double)sizeof(struct ts_evq);
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
	    ts_grow((void **)&q->b[0].k, &q->b[0].cap, cap_hint / 4 + 1, sizeof(struct key))) {
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
	for (int i = 0; i < NBUCKETS; i++)
		ts_free(q->b[i].k, q->b[i].cap * sizeof(struct key));
	ts_free(q->early, q->capearly * sizeof *q->early);
	ts_free(q->slots, q->capslots * sizeof *q->slots);
	ts_free(q, sizeof *q);
}

ts_time evq_now(const struct ts_evq *q)
{
	return q->now;
}
size_t evq_pending(const struct ts_evq *q)
{
	return q->live;
}
uint64_t evq_events_run(const struct ts_evq *q)
{
	return q->run;
}

static inline unsigned bucket_of(int64_t last, int64_t t)
{
	uint64_t x = (uint64_t)t ^ (uint64_t)last;
	return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
}

/* Append k to bucket i of q. */
static inline int append(struct ts_evq *q, unsigned i, struct key k)
{
	struct bucket *b = &q->b[i];
	if (b->n == b->cap && ts_grow((void **)&b->k, &b->cap, b->n + 1, sizeof *b->k))
		return TS_ENOMEM;
	b->k[b->n++] = k;
	if (i)
		q->full |= UINT64_C(1) << (i - 1);
	return 0;
}

static inline bool key_less(const struct key *a, const struct key *b)
{
	return a->time < b->time || (a->time == b->time && a->seqslot < b->seqslot);
}

static int early_push(struct ts_evq *q, struct key k)
{
	if (q->nearly == q->capearly &&
	    ts_grow((void **)&q->early, &q->capearly, q->nearly + 1, sizeof *q->early))
		return TS_ENOMEM;
	size_t i = q->nearly++;
	while (i > 0 && key_less(&k, &q->early[(i - 1) / 2])) {
		q->early[i] = q->early[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->early[i] = k;
	return 0;
}

static struct key early_pop(struct ts_evq *q)
{
	struct key top = q->early[0];
	struct key k = q->early[--q->nearly];
	size_t i = 0, n = q->nearly;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && key_less(&q->early[c + 1], &q->early[c]))
			c++;
		if (!key_less(&q->early[c], &k))
			break;
		q->early[i] = q->early[c];
		i = c;
	}
	if (n)
		q->early[i] = k;
	return top;
}

static struct slot *live_slot(struct ts_evq *q, uint64_t seqslot)
{
	uint64_t s = seqslot & SLOT_MASK;
	if (s >= q->capslots)
		return NULL;
	struct slot *sl = &q->slots[s];
	return sl->seq == seqslot >> SLOT_BITS ? sl : NULL;
}

int evq_push(struct ts_evq *q, ts_time at, ts_event_fn fn, void *ctx, uint64_t arg,
	     ts_event_handle *h)
{
	assert(at >= q->now && "event scheduled in the past");
	assert(fn);
	if (q->free_head == NO_SLOT) {
		int rc = grow_slots(q, q->capslots + 1);
		if (rc)
			return rc;
	}
	uint32_t s = q->free_head;
	uint64_t seq = q->seq + 1;
	struct key k = {at, seq << SLOT_BITS | s};
	if (at < q->last ? early_push(q, k) : append(q, bucket_of(q->last, at), k))
		return TS_ENOMEM;
	struct slot *sl = &q->slots[s];
	q->free_head = sl->next;
	q->seq = seq;
	sl->fn = fn;
	sl->ctx = ctx;
	sl->arg = arg;
	sl->seq = seq;
	q->live++;
	if (h)
		*h = k.seqslot + 1;
	return 0;
}

static void free_slot(struct ts_evq *q, struct slot *sl)
{
	uint32_t idx = (uint32_t)(sl - q->slots);
	sl->seq = 0;
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

/* Drop stale keys from the front of bucket 0; true if a live key is left. */
static bool front_live(struct ts_evq *q)
{
	struct bucket *b0 = &q->b[0];
	while (b0->head < b0->n && !live_slot(q, b0->k[b0->head].seqslot))
		b0->head++;
	if (b0->head < b0->n)
		return true;
	b0->n = b0->head = 0;
	return false;
}

/* The lowest non-empty bucket above 0 and the smallest time in it (stale
 * keys included: they are dropped when they reach bucket 0); NBUCKETS when
 * every bucket is empty. */
static unsigned lowest(struct ts_evq *q, int64_t *tmin)
{
	if (!q->full)
		return NBUCKETS;
	unsigned i = 1u + (unsigned)__builtin_ctzll(q->full);
	struct bucket *b = &q->b[i];
	int64_t m = b->k[0].time;
	for (size_t r = 1; r < b->n; r++)
		if (b->k[r].time < m)
			m = b->k[r].time;
	*tmin = m;
	return i;
}

/* Drop stale keys from the top of `early`; true if a live key is left. */
static bool early_live(struct ts_evq *q)
{
	while (q->nearly && !live_slot(q, q->early[0].seqslot))
		early_pop(q);
	return q->nearly > 0;
}

/* Make bucket 0 front the next live key of the buckets; false when none. */
static inline bool refill(struct ts_evq *q)
{
	while (!front_live(q)) {
		int64_t m;
		unsigned i = lowest(q, &m);
		if (i == NBUCKETS)
			return false;
		q->last = m;
		struct bucket *b = &q->b[i];
		for (size_t r = 0; r < b->n; r++) {
			/* keys of bucket i land strictly below it */
			if (append(q, bucket_of(m, b->k[r].time), b->k[r])) {
				/* out of memory while spreading: keep the rest here */
				memmove(b->k, b->k + r, (b->n - r) * sizeof *b->k);
				b->n -= r;
				q->status = TS_ENOMEM;
				return front_live(q);
			}
		}
		b->n = 0;
		q->full &= ~(UINT64_C(1) << (i - 1));
	}
	return true;
}

int evq_status(const struct ts_evq *q)
{
	return q->status;
}

ts_time evq_next_time(struct ts_evq *q)
{
	if (early_live(q))
		return q->early[0].time;
	return refill(q) ? q->b[0].k[q->b[0].head].time : TS_TIME_MAX;
}

bool evq_step(struct ts_evq *q)
{
	struct key k;
	struct bucket *b0 = &q->b[0];
	if (!q->nearly && b0->head < b0->n && live_slot(q, b0->k[b0->head].seqslot)) {
		/* the next key is at the front of bucket 0, as evq_next_time
		 * leaves it: no refill to ask */
		k = b0->k[b0->head++];
	} else if (early_live(q)) {
		k = early_pop(q);
	} else {
		if (!refill(q))
			return false;
		k = q->b[0].k[q->b[0].head++];
	}
	struct slot *sl = live_slot(q, k.seqslot);
	ts_event_fn fn = sl->fn;
	void *ctx = sl->ctx;
	uint64_t arg = sl->arg;
	free_slot(q, sl);
	q->now = k.time;
	q->run++;
	fn(ctx, arg);
	return true;
}
