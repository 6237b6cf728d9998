/* Event queue: order, FIFO ties, cancellation, rescheduling, determinism.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <stdlib.h>

#include "base/err.h"
#include "engine/evq.h"
#include "testutil.h"

struct log {
	struct ts_evq *q;
	int n;
	uint64_t args[64];
	ts_time times[64];
};

static void record(void *ctx, uint64_t arg)
{
	struct log *l = ctx;
	l->args[l->n] = arg;
	l->times[l->n] = evq_now(l->q);
	l->n++;
}

START_TEST(time_order_and_fifo_ties)
{
	struct ts_evq *q;
	ck_assert_int_eq(evq_create(&q, 4), 0);
	struct log l = {.q = q};
	/* times 30, 10, 20, 10, 10: ties at 10 must pop in push order */
	ck_assert_int_eq(evq_push(q, 30, record, &l, 1, NULL), 0);
	ck_assert_int_eq(evq_push(q, 10, record, &l, 2, NULL), 0);
	ck_assert_int_eq(evq_push(q, 20, record, &l, 3, NULL), 0);
	ck_assert_int_eq(evq_push(q, 10, record, &l, 4, NULL), 0);
	ck_assert_int_eq(evq_push(q, 10, record, &l, 5, NULL), 0);
	while (evq_step(q))
		;
	uint64_t want[] = {2, 4, 5, 3, 1};
	ts_time wt[] = {10, 10, 10, 20, 30};
	ck_assert_int_eq(l.n, 5);
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_eq(l.args[i], want[i]);
		ck_assert_int_eq(l.times[i], wt[i]);
	}
	ck_assert_uint_eq(evq_events_run(q), 5);
	evq_destroy(q);
}
END_TEST

START_TEST(cancel_and_reschedule)
{
	struct ts_evq *q;
	ck_assert_int_eq(evq_create(&q, 2), 0);
	struct log l = {.q = q};
	ts_event_handle a, b, c;
	evq_push(q, 100, record, &l, 1, &a);
	evq_push(q, 200, record, &l, 2, &b);
	evq_push(q, 300, record, &l, 3, &c);
	ck_assert(evq_cancel(q, b));
	ck_assert(!evq_cancel(q, b)); /* stale handle: no-op */
	ck_assert_int_eq(evq_reschedule(q, &c, 50), 0);
	ck_assert_uint_eq(evq_pending(q), 2);
	ck_assert_int_eq(evq_next_time(q), 50);
	while (evq_step(q))
		;
	ck_assert_int_eq(l.n, 2);
	ck_assert_uint_eq(l.args[0], 3);
	ck_assert_int_eq(l.times[0], 50);
	ck_assert_uint_eq(l.args[1], 1);
	ck_assert_int_eq(evq_reschedule(q, &a, 400), TS_EINVALID); /* already fired */
	evq_destroy(q);
}
END_TEST

/* A slot freed by a cancel and reused must not revive the old key. */
START_TEST(slot_reuse_after_cancel)
{
	struct ts_evq *q;
	ck_assert_int_eq(evq_create(&q, 1), 0);
	struct log l = {.q = q};
	ts_event_handle a;
	evq_push(q, 10, record, &l, 1, &a);
	evq_cancel(q, a);
	evq_push(q, 20, record, &l, 2, NULL);
	while (evq_step(q))
		;
	ck_assert_int_eq(l.n, 1);
	ck_assert_uint_eq(l.args[0], 2);
	ck_assert_int_eq(l.times[0], 20);
	evq_destroy(q);
}
END_TEST

/* A hold model against a sorted reference: many random times with many ties,
 * growth past the initial capacity, and random cancellations. */
struct hold {
	struct ts_evq *q;
	ts_time last_t;
	uint64_t last_seq_at_t;
	int bad;
	int n;
};

static void hold_fn(void *ctx, uint64_t arg)
{
	struct hold *h = ctx;
	ts_time t = evq_now(h->q);
	if (t < h->last_t || (t == h->last_t && arg < h->last_seq_at_t))
		h->bad++;
	if (t != h->last_t)
		h->last_seq_at_t = 0;
	h->last_t = t;
	h->last_seq_at_t = arg;
	h->n++;
}

START_TEST(random_order_is_sorted_and_stable)
{
	struct ts_evq *q;
	ck_assert_int_eq(evq_create(&q, 16), 0);
	struct hold h = {.q = q};
	srand(7);
	ts_event_handle hs[5000];
	for (uint64_t i = 0; i < 5000; i++)
		ck_assert_int_eq(evq_push(q, rand() % 100, hold_fn, &h, i, &hs[i]), 0);
	int cancelled = 0;
	for (int i = 0; i < 5000; i += 7)
		cancelled += evq_cancel(q, hs[i]);
	ck_assert_uint_eq(evq_pending(q), (size_t)(5000 - cancelled));
	while (evq_step(q))
		;
	ck_assert_int_eq(h.bad, 0);
	ck_assert_int_eq(h.n, 5000 - cancelled);
	evq_destroy(q);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("evq");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, time_order_and_fifo_ties);
	tcase_add_test(tc, cancel_and_reschedule);
	tcase_add_test(tc, slot_reuse_after_cancel);
	tcase_add_test(tc, random_order_is_sorted_and_stable);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
