/* Fluid max-min sharing: hand-computed rates and completion times.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <stdlib.h>

#include "base/err.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "testutil.h"

struct fx {
	struct ts_evq *q;
	struct ts_fluid *f;
	ts_time done_at[16];
};

static void fx_init(struct fx *x)
{
	ck_assert_int_eq(evq_create(&x->q, 64), 0);
	ck_assert_int_eq(fluid_create(&x->f, x->q), 0);
	for (int i = 0; i < 16; i++)
		x->done_at[i] = -1;
}

static void fx_fini(struct fx *x)
{
	fluid_destroy(x->f);
	evq_destroy(x->q);
}

static void on_done(void *ctx, uint64_t arg)
{
	struct fx *x = ctx;
	x->done_at[arg] = evq_now(x->q);
}

static uint32_t res(struct fx *x, double cap, uint32_t count)
{
	uint32_t id;
	ck_assert_int_eq(fluid_resource_add(x->f, cap, count, &id), 0);
	return id;
}

/* Start activity `idx` with `work` over the given resources (coeff 1). */
static uint32_t act(struct fx *x, int idx, double work, const uint32_t *rs, uint32_t n)
{
	struct fluid_use u[8];
	for (uint32_t i = 0; i < n; i++) {
		u[i].res = rs[i];
		u[i].coeff = 1.0;
	}
	struct fluid_spec s = {.work = work,
			       .mult = 1,
			       .weight = 1.0,
			       .uses = u,
			       .nuses = n,
			       .done = on_done,
			       .ctx = x,
			       .arg = (uint64_t)idx};
	uint32_t id;
	ck_assert_int_eq(fluid_start(x->f, &s, &id), 0);
	return id;
}

#define SEC(s) ((ts_time)((s)*1e9))

/* Two activities on one 100 B/s link get 50 B/s each; 100 B each take 2 s. */
START_TEST(two_share_one_link)
{
	struct fx x;
	fx_init(&x);
	uint32_t l = res(&x, 100.0, 1);
	uint32_t a = act(&x, 0, 100.0, &l, 1);
	uint32_t b = act(&x, 1, 100.0, &l, 1);
	fluid_run(x.f, 0); /* solve without advancing */
	ck_assert_double_eq(fluid_rate(x.f, a), 50.0);
	ck_assert_double_eq(fluid_rate(x.f, b), 50.0);
	fluid_run(x.f, TS_TIME_MAX);
	ck_assert_int_eq(x.done_at[0], SEC(2));
	ck_assert_int_eq(x.done_at[1], SEC(2));
	fx_fini(&x);
}
END_TEST

/* A route runs at its slowest link. */
START_TEST(route_at_slowest_link)
{
	struct fx x;
	fx_init(&x);
	uint32_t ls[3] = {res(&x, 100.0, 1), res(&x, 25.0, 1), res(&x, 50.0, 1)};
	uint32_t a = act(&x, 0, 50.0, ls, 3);
	fluid_run(x.f, 0);
	ck_assert_double_eq(fluid_rate(x.f, a), 25.0);
	fluid_run(x.f, TS_TIME_MAX);
	ck_assert_int_eq(x.done_at[0], SEC(2));
	fx_fini(&x);
}
END_TEST

/* Textbook max-min (Bertsekas & Gallager, progressive filling): L1 = 1,
 * L2 = 2; f1 crosses both, f2 only L1, f3 only L2. L1 saturates first at
 * 0.5 each for f1 and f2; f3 takes what L2 has left, 2 - 0.5 = 1.5. */
START_TEST(textbook_max_min)
{
	struct fx x;
	fx_init(&x);
	uint32_t l1 = res(&x, 1.0, 1), l2 = res(&x, 2.0, 1);
	uint32_t both[2] = {l1, l2};
	uint32_t f1 = act(&x, 0, 10.0, both, 2);
	uint32_t f2 = act(&x, 1, 10.0, &l1, 1);
	uint32_t f3 = act(&x, 2, 10.0, &l2, 1);
	fluid_run(x.f, 0);
	ck_assert_double_eq(fluid_rate(x.f, f1), 0.5);
	ck_assert_double_eq(fluid_rate(x.f, f2), 0.5);
	ck_assert_double_eq(fluid_rate(x.f, f3), 1.5);
	fx_fini(&x);
}
END_TEST

/* Coefficients, weights and bounds. */
START_TEST(coefficients_weights_bounds)
{
	struct fx x;
	fx_init(&x);
	uint32_t l = res(&x, 100.0, 1);
	/* coeff 2: the link carries 2 B per byte of progress -> 50 B/s */
	struct fluid_use u = {l, 2.0};
	struct fluid_spec s = {.work = 100.0,
			       .mult = 1,
			       .weight = 1.0,
			       .uses = &u,
			       .nuses = 1,
			       .done = on_done,
			       .ctx = &x,
			       .arg = 0};
	uint32_t a;
	ck_assert_int_eq(fluid_start(x.f, &s, &a), 0);
	fluid_run(x.f, 0);
	ck_assert_double_eq(fluid_rate(x.f, a), 50.0);
	fluid_run(x.f, TS_TIME_MAX);
	ck_assert_int_eq(x.done_at[0], SEC(2));

	/* weights 1 and 3 on one link: 25 and 75 */
	u.coeff = 1.0;
	s.weight = 1.0;
	uint32_t w1, w3;
	ck_assert_int_eq(fluid_start(x.f, &s, &w1), 0);
	s.weight = 3.0;
	ck_assert_int_eq(fluid_start(x.f, &s, &w3), 0);
	fluid_run(x.f, evq_now(x.q));
	ck_assert_double_eq(fluid_rate(x.f, w1), 25.0);
	ck_assert_double_eq(fluid_rate(x.f, w3), 75.0);
	fluid_cancel(x.f, w1);
	fluid_cancel(x.f, w3);

	/* a bound of 10 leaves 90 to an unbounded neighbour */
	s.weight = 1.0;
	s.bound = 10.0;
	uint32_t bnd, free_;
	ck_assert_int_eq(fluid_start(x.f, &s, &bnd), 0);
	s.bound = 0.0;
	ck_assert_int_eq(fluid_start(x.f, &s, &free_), 0);
	fluid_run(x.f, evq_now(x.q));
	ck_assert_double_eq(fluid_rate(x.f, bnd), 10.0);
	ck_assert_double_eq(fluid_rate(x.f, free_), 90.0);
	fx_fini(&x);
}
END_TEST

/* When one activity ends the other speeds up: A (100 B) and B (300 B) share
 * 100 B/s; A ends at 2 s; B has 200 B left at 100 B/s and ends at 4 s. */
START_TEST(resolve_on_completion)
{
	struct fx x;
	fx_init(&x);
	uint32_t l = res(&x, 100.0, 1);
	act(&x, 0, 100.0, &l, 1);
	act(&x, 1, 300.0, &l, 1);
	fluid_run(x.f, TS_TIME_MAX);
	ck_assert_int_eq(x.done_at[0], SEC(2));
	ck_assert_int_eq(x.done_at[1], SEC(4));
	ck_assert_double_eq_tol(fluid_resource_carried(x.f, l), 400.0, 1e-9);
	fx_fini(&x);
}
END_TEST

/* The two directions of a link are separate constraints. */
START_TEST(directions_do_not_share)
{
	struct fx x;
	fx_init(&x);
	uint32_t fwd = res(&x, 100.0, 1), back = res(&x, 100.0, 1);
	uint32_t a = act(&x, 0, 100.0, &fwd, 1);
	uint32_t b = act(&x, 1, 100.0, &back, 1);
	fluid_run(x.f, 0);
	ck_assert_double_eq(fluid_rate(x.f, a), 100.0);
	ck_assert_double_eq(fluid_rate(x.f, b), 100.0);
	fx_fini(&x);
}
END_TEST

/* Class mode: 8 identical activities on 8 identical links as one class each
 * equal 8 separate activities on 8 separate links, to the nanosecond; with a
 * shared 4-member class the per-member load doubles. */
START_TEST(classes_equal_full_mode)
{
	struct fx full, cls;
	fx_init(&full);
	fx_init(&cls);
	for (int i = 0; i < 8; i++) {
		uint32_t l = res(&full, 37.0, 1);
		act(&full, i, 123.0, &l, 1);
	}
	uint32_t lc = res(&cls, 37.0, 8);
	struct fluid_use u = {lc, 1.0};
	struct fluid_spec s = {.work = 123.0,
			       .mult = 8,
			       .weight = 1.0,
			       .uses = &u,
			       .nuses = 1,
			       .done = on_done,
			       .ctx = &cls,
			       .arg = 0};
	uint32_t a;
	ck_assert_int_eq(fluid_start(cls.f, &s, &a), 0);
	fluid_run(full.f, TS_TIME_MAX);
	fluid_run(cls.f, TS_TIME_MAX);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(full.done_at[i], cls.done_at[0]);
	fx_fini(&full);
	fx_fini(&cls);

	/* 8 members on a 4-member class: each member carries two -> 18.5 each */
	struct fx y;
	fx_init(&y);
	uint32_t l4 = res(&y, 37.0, 4);
	struct fluid_use u4 = {l4, 1.0};
	s.uses = &u4;
	s.ctx = &y;
	ck_assert_int_eq(fluid_start(y.f, &s, &a), 0);
	fluid_run(y.f, 0);
	ck_assert_double_eq(fluid_rate(y.f, a), 18.5);
	fx_fini(&y);
}
END_TEST

/* Latency delays the start of the transfer; a bound-only activity is a
 * pure rate with no resource. */
START_TEST(latency_and_bound_only)
{
	struct fx x;
	fx_init(&x);
	uint32_t l = res(&x, 100.0, 1);
	struct fluid_use u = {l, 1.0};
	struct fluid_spec s = {.work = 100.0,
			       .mult = 1,
			       .weight = 1.0,
			       .uses = &u,
			       .nuses = 1,
			       .latency = 1500,
			       .done = on_done,
			       .ctx = &x,
			       .arg = 0};
	uint32_t a;
	ck_assert_int_eq(fluid_start(x.f, &s, &a), 0);
	struct fluid_spec b = {.work = 3.0,
			       .mult = 1,
			       .weight = 1.0,
			       .bound = 2.0,
			       .done = on_done,
			       .ctx = &x,
			       .arg = 1};
	ck_assert_int_eq(fluid_start(x.f, &b, &a), 0);
	fluid_run(x.f, TS_TIME_MAX);
	ck_assert_int_eq(x.done_at[0], SEC(1) + 1500);
	ck_assert_int_eq(x.done_at[1], SEC(1.5));
	fx_fini(&x);
}
END_TEST

static void no_load(void *ud, uint32_t r, double load, ts_time t)
{
	(void)ud, (void)r, (void)load, (void)t;
}

/* One schedule, rated alone where it can or (a load observer) always
 * solved: activity 0 alone on two links of a class (rated at attach, its
 * slower link the bound), 1 joining it on the faster at the same instant
 * (solved together: 0 keeps 30 of the slower, 1 gets the other 70 of the
 * faster), 2 alone on a link with a bound under its capacity, 3 on 2's link
 * after a latency, while 2 runs (solved together: 2 keeps its bound), 4 alone with a mult of 2
 * on a class of 4 links, and 5 after the others, alone again. The same end
 * times to the nanosecond both ways, and the figures max-min gives. */
static void alone_schedule(struct fx *x)
{
	uint32_t fast = res(x, 100.0, 1), slow = res(x, 30.0, 1), mid = res(x, 80.0, 1),
		 cls = res(x, 10.0, 4), both[2] = {fast, slow};
	act(x, 0, 90.0, both, 2);
	act(x, 1, 70.0, &fast, 1);
	struct fluid_use u = {mid, 1.0};
	struct fluid_spec s = {.work = 40.0,
			       .mult = 1,
			       .weight = 1.0,
			       .bound = 20.0,
			       .uses = &u,
			       .nuses = 1,
			       .done = on_done,
			       .ctx = x,
			       .arg = 2};
	uint32_t id;
	ck_assert_int_eq(fluid_start(x->f, &s, &id), 0);
	s.bound = 0.0;
	s.latency = SEC(0.5);
	s.arg = 3;
	ck_assert_int_eq(fluid_start(x->f, &s, &id), 0);
	u.res = cls;
	s.latency = 0;
	s.mult = 2;
	s.arg = 4;
	ck_assert_int_eq(fluid_start(x->f, &s, &id), 0);
	fluid_run(x->f, TS_TIME_MAX);
	ck_assert_int_eq(fluid_status(x->f), 0);
	act(x, 5, 15.0, &slow, 1);
	fluid_run(x->f, TS_TIME_MAX);
}

START_TEST(rated_alone_equals_solved)
{
	struct fx a, b;
	fx_init(&a);
	fx_init(&b);
	struct fluid_observer obs = {.on_load = no_load};
	fluid_set_observer(b.f, &obs);
	alone_schedule(&a);
	alone_schedule(&b);
	for (int i = 0; i < 6; i++)
		ck_assert_msg(a.done_at[i] == b.done_at[i] && a.done_at[i] > 0,
			      "activity %d: %lld alone, %lld solved", i, (long long)a.done_at[i],
			      (long long)b.done_at[i]);
	ck_assert_int_eq(a.done_at[0], SEC(3));		      /* 90 B at 30 B/s */
	ck_assert_int_eq(a.done_at[1], SEC(1));		      /* 70 B at 70 B/s */
	ck_assert_int_eq(a.done_at[2], SEC(2));		      /* 40 B at its bound, 20 B/s */
	ck_assert_int_eq(a.done_at[3], SEC(0.5) + 666666667); /* 40 B at 60 B/s (80 less 2's 20) */
	ck_assert_int_eq(a.done_at[4], SEC(2));	  /* 40 B per member at 20 B/s (2 of 4 links) */
	ck_assert_int_eq(a.done_at[5], SEC(3.5)); /* 15 B at 30 B/s from 3 s */
	ck_assert(fluid_solves(a.f) < fluid_solves(b.f));
	fx_fini(&a);
	fx_fini(&b);
}
END_TEST

/* ts_time_from_s rounds up as ceil(s x 1e9) does, without calling ceil:
 * integers of ns, values just above and below them, the 2^53 boundary past
 * which every double is an integer, and the clamps at 0, the range and NaN. */
START_TEST(time_from_s_is_ceil)
{
	const double ns[] = {1e-300,
			     0.25,
			     1.0,
			     1.5,
			     2.0 - 1e-9,
			     1e3,
			     1e9 + 0.5,
			     4503599627370495.5,
			     9007199254740992.0,
			     9007199254740993.0,
			     1.23456789e15,
			     9.1e18,
			     9.19999e18};
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		for (int d = -2; d <= 2; d++) {
			double x = ns[i];
			for (int k = 0; k < (d < 0 ? -d : d); k++)
				x = nextafter(x, d < 0 ? 0.0 : HUGE_VAL);
			double s = x / TS_NS_PER_S;
			ck_assert_msg(ts_time_from_s(s) == (ts_time)ceil(s * TS_NS_PER_S),
				      "s = %.17g", s);
		}
	ck_assert_int_eq(ts_time_from_s(0.0), 0);
	ck_assert_int_eq(ts_time_from_s(-1.0), 0);
	ck_assert(ts_time_from_s(NAN) == TS_TIME_MAX);
	ck_assert(ts_time_from_s(9.2e9) == TS_TIME_MAX);
	ck_assert(ts_time_from_s(INFINITY) == TS_TIME_MAX);
}
END_TEST

/* A duration past the int64-ns range (a resource of 1e-300 units/s) stops
 * the run with TS_ELIMIT instead of overflowing the clock; so does a
 * latency that would. ts_time_after never overflows on a finite duration. */
START_TEST(time_beyond_range_is_a_limit)
{
	ts_time at;
	ck_assert(ts_time_after(0, 1.5e-9, &at) && at == 2);
	ck_assert(!ts_time_after(5, 1e300, &at) && at == TS_TIME_MAX);
	ck_assert(!ts_time_after(TS_TIME_MAX - 10, 1e-8, &at) && at == TS_TIME_MAX);
	ck_assert(!ts_time_after(0, INFINITY, &at) && !ts_time_after(0, NAN, &at));
	ck_assert(ts_time_add(1, TS_TIME_MAX - 2, &at) && at == TS_TIME_MAX - 1);
	ck_assert(!ts_time_add(2, TS_TIME_MAX - 2, &at));
	struct fx x;
	fx_init(&x);
	uint32_t l = res(&x, 1e-300, 1), slow = res(&x, 100.0, 1), a;
	struct fluid_use u = {l, 1.0}, v = {slow, 1.0};
	struct fluid_spec s = {.work = 100.0,
			       .mult = 1,
			       .weight = 1.0,
			       .uses = &v,
			       .nuses = 1,
			       .latency = SEC(1),
			       .done = on_done,
			       .ctx = &x,
			       .arg = 0};
	ck_assert_int_eq(fluid_start(x.f, &s, &a), 0);
	s.uses = &u;
	s.latency = 0;
	s.arg = 1;
	ck_assert_int_eq(fluid_start(x.f, &s, &a), 0);
	fluid_run(x.f, TS_TIME_MAX);
	ck_assert_int_eq(fluid_status(x.f), TS_ELIMIT);
	fx_fini(&x);
	fx_init(&x);
	v.res = res(&x, 100.0, 1);
	s.uses = &v;
	s.latency = TS_TIME_MAX - 1;
	ck_assert_int_eq(fluid_start(x.f, &s, &a), 0);
	fluid_run(x.f, SEC(1));
	ck_assert_int_eq(fluid_status(x.f), 0);
	s.latency = TS_TIME_MAX;
	ck_assert_int_eq(fluid_start(x.f, &s, &a), TS_ELIMIT);
	ck_assert_int_eq(fluid_status(x.f), TS_ELIMIT);
	fx_fini(&x);
}
END_TEST

/* Malformed specs are refused, not crashed on. */
START_TEST(bad_specs)
{
	struct fx x;
	fx_init(&x);
	uint32_t l = res(&x, 100.0, 1), a;
	struct fluid_use u = {l, 1.0};
	struct fluid_spec s = {.work = -1.0, .mult = 1, .weight = 1.0, .uses = &u, .nuses = 1};
	ck_assert_int_eq(fluid_start(x.f, &s, &a), TS_EINVALID);
	s.work = 1.0;
	s.mult = 0;
	ck_assert_int_eq(fluid_start(x.f, &s, &a), TS_EINVALID);
	s.mult = 1;
	u.res = 99;
	ck_assert_int_eq(fluid_start(x.f, &s, &a), TS_EINVALID);
	u.res = l;
	s.nuses = 0; /* no resource and no bound */
	ck_assert_int_eq(fluid_start(x.f, &s, &a), TS_EINVALID);
	ck_assert_int_eq(fluid_resource_add(x.f, 0.0, 1, &a), TS_ERANGE);
	ck_assert_int_eq(fluid_resource_add(x.f, 1.0, 0, &a), TS_ERANGE);
	ck_assert_uint_eq(fluid_active(x.f), 0);
	fx_fini(&x);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fluid");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, two_share_one_link);
	tcase_add_test(tc, route_at_slowest_link);
	tcase_add_test(tc, textbook_max_min);
	tcase_add_test(tc, coefficients_weights_bounds);
	tcase_add_test(tc, resolve_on_completion);
	tcase_add_test(tc, directions_do_not_share);
	tcase_add_test(tc, classes_equal_full_mode);
	tcase_add_test(tc, latency_and_bound_only);
	tcase_add_test(tc, bad_specs);
	tcase_add_test(tc, rated_alone_equals_solved);
	tcase_add_test(tc, time_from_s_is_ceil);
	tcase_add_test(tc, time_beyond_range_is_a_limit);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
