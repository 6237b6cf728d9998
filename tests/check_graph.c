/* Task graph: stream order, dependencies, overlap, memory peak from the
 * schedule, the time breakdown, and cycles reported instead of hanging.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <stdlib.h>

#include "base/err.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "par/graph.h"
#include "testutil.h"

struct gx {
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_graph *g;
	uint32_t gpu;
};

static void gx_init(struct gx *x)
{
	ck_assert_int_eq(evq_create(&x->q, 64), 0);
	ck_assert_int_eq(fluid_create(&x->f, x->q), 0);
	ck_assert_int_eq(graph_create(&x->g, x->f, NULL), 0);
	ck_assert_int_eq(fluid_resource_add(x->f, 1.0, 1, &x->gpu), 0);
}

static void gx_fini(struct gx *x)
{
	graph_destroy(x->g);
	fluid_destroy(x->f);
	evq_destroy(x->q);
}

static uint32_t task(struct gx *x, uint32_t stream, enum graph_kind k, double s, uint32_t res)
{
	struct graph_task_spec sp = {.kind = k,
				     .stream = stream,
				     .label = "t",
				     .seconds = s,
				     .res = res,
				     .mult = 1,
				     .pool = GRAPH_NONE};
	uint32_t id;
	ck_assert_int_eq(graph_task(x->g, &sp, &id), 0);
	return id;
}

#define NS(s) ((ts_time)((s)*1e9 + 0.5))

/* compute stream: A(1 s) B(2 s) C(1 s); comm stream: X(2.5 s) after A;
 * C also waits for X. C starts at max(3, 3.5) = 3.5, ends 4.5; the 0.5 s
 * gap is charged to communication. */
START_TEST(streams_deps_breakdown)
{
	struct gx x;
	gx_init(&x);
	uint32_t cs, ms;
	graph_stream(x.g, "compute", &cs);
	graph_stream(x.g, "comm", &ms);
	uint32_t a = task(&x, cs, GRAPH_COMPUTE, 1.0, x.gpu);
	uint32_t b = task(&x, cs, GRAPH_COMPUTE, 2.0, x.gpu);
	uint32_t c = task(&x, cs, GRAPH_OPTIMIZER, 1.0, x.gpu);
	uint32_t m = task(&x, ms, GRAPH_COMM, 2.5, GRAPH_NONE);
	ck_assert_int_eq(graph_dep(x.g, a, m), 0);
	ck_assert_int_eq(graph_dep(x.g, m, c), 0);
	struct ts_error err;
	ck_assert_int_eq(graph_run(x.g, &err), 0);
	ck_assert_int_eq(graph_rec(x.g, b)->start, NS(1));
	ck_assert_int_eq(graph_rec(x.g, m)->end, NS(3.5));
	ck_assert_int_eq(graph_rec(x.g, c)->start, NS(3.5));
	ck_assert_int_eq(graph_rec(x.g, c)->end, NS(4.5));
	ck_assert_uint_eq(graph_rec(x.g, c)->blocker, m);
	struct graph_breakdown bd;
	graph_breakdown(x.g, cs, 0, NS(4.5), &bd);
	ck_assert_int_eq(bd.busy[GRAPH_COMPUTE], NS(3));
	ck_assert_int_eq(bd.busy[GRAPH_OPTIMIZER], NS(1));
	ck_assert_int_eq(bd.wait[GRAPH_COMM], NS(0.5));
	ts_time sum = bd.idle;
	for (int k = 0; k < GRAPH_KIND_COUNT_; k++)
		sum += bd.busy[k] + bd.wait[k];
	ck_assert_int_eq(sum, NS(4.5));
	gx_fini(&x);
}
END_TEST

/* Two tasks on different streams sharing one GPU run at half speed each. */
START_TEST(shared_gpu_slows_both)
{
	struct gx x;
	gx_init(&x);
	uint32_t s1, s2;
	graph_stream(x.g, "a", &s1);
	graph_stream(x.g, "b", &s2);
	uint32_t a = task(&x, s1, GRAPH_COMPUTE, 1.0, x.gpu);
	uint32_t b = task(&x, s2, GRAPH_COMPUTE, 1.0, x.gpu);
	ck_assert_int_eq(graph_run(x.g, NULL), 0);
	ck_assert_int_eq(graph_rec(x.g, a)->end, NS(2));
	ck_assert_int_eq(graph_rec(x.g, b)->end, NS(2));
	gx_fini(&x);
}
END_TEST

/* Memory: three forward tasks each keep 10 B of activations that their
 * backward frees; the peak is 30 B on top of 100 B of weights. */
START_TEST(memory_peak_from_schedule)
{
	struct gx x;
	gx_init(&x);
	uint32_t cs, pool;
	graph_stream(x.g, "compute", &cs);
	graph_pool(x.g, "gpu0", &pool);
	graph_pool_add(x.g, pool, GRAPH_MEM_WEIGHTS, 100.0);
	for (int i = 0; i < 3; i++) {
		struct graph_task_spec sp = {.kind = GRAPH_COMPUTE,
					     .stream = cs,
					     .seconds = 1.0,
					     .res = x.gpu,
					     .mult = 1,
					     .pool = pool,
					     .alloc_cat = GRAPH_MEM_ACTIVATIONS,
					     .alloc = 10.0};
		uint32_t id;
		ck_assert_int_eq(graph_task(x.g, &sp, &id), 0);
	}
	for (int i = 0; i < 3; i++) {
		struct graph_task_spec sp = {.kind = GRAPH_COMPUTE,
					     .stream = cs,
					     .seconds = 1.0,
					     .res = x.gpu,
					     .mult = 1,
					     .pool = pool,
					     .free_cat = GRAPH_MEM_ACTIVATIONS,
					     .free = 10.0};
		uint32_t id;
		ck_assert_int_eq(graph_task(x.g, &sp, &id), 0);
	}
	ck_assert_int_eq(graph_run(x.g, NULL), 0);
	double at[GRAPH_MEM_COUNT_];
	ck_assert_double_eq(graph_pool_peak(x.g, pool, at), 130.0);
	ck_assert_double_eq(at[GRAPH_MEM_ACTIVATIONS], 30.0);
	ck_assert_double_eq(at[GRAPH_MEM_WEIGHTS], 100.0);
	gx_fini(&x);
}
END_TEST

/* A graph that ran (with details, a pool at 130 B, a cycle left behind),
 * reset onto a new engine, then given the graph of streams_deps_breakdown
 * plays it exactly as a new graph does: same times, blocker, a pool that
 * starts from zero, no details. */
START_TEST(reset_replays_as_new)
{
	struct gx x;
	gx_init(&x);
	uint32_t cs, pool;
	graph_stream(x.g, "old", &cs);
	graph_pool(x.g, "gpu0", &pool);
	ck_assert_int_eq(graph_keep_detail(x.g), 0);
	for (int i = 0; i < 40; i++) {
		struct graph_task_spec sp = {.kind = GRAPH_COMPUTE,
					     .stream = cs,
					     .seconds = 1.0,
					     .res = x.gpu,
					     .mult = 1,
					     .pool = pool,
					     .alloc_cat = GRAPH_MEM_ACTIVATIONS,
					     .alloc = 130.0};
		uint32_t id;
		ck_assert_int_eq(graph_task(x.g, &sp, &id), 0);
		struct graph_detail d = {0};
		ck_assert_int_eq(graph_set_detail(x.g, id, &d), 0);
	}
	ck_assert_int_eq(graph_run(x.g, NULL), 0);
	ck_assert_double_gt(graph_pool_peak(x.g, pool, NULL), 1000.0);
	/* a new engine, as the next run has */
	fluid_destroy(x.f);
	evq_destroy(x.q);
	ck_assert_int_eq(evq_create(&x.q, 64), 0);
	ck_assert_int_eq(fluid_create(&x.f, x.q), 0);
	ck_assert_int_eq(fluid_resource_add(x.f, 1.0, 1, &x.gpu), 0);
	graph_reset(x.g, x.f, NULL);
	ck_assert_uint_eq(graph_ntasks(x.g), 0);
	ck_assert_uint_eq(graph_nstreams(x.g), 0);
	ck_assert(!graph_keeps_detail(x.g));
	uint32_t ms, p2;
	graph_stream(x.g, "compute", &cs);
	graph_stream(x.g, "comm", &ms);
	graph_pool(x.g, "gpu0", &p2);
	ck_assert_uint_eq(p2, 0);
	uint32_t a = task(&x, cs, GRAPH_COMPUTE, 1.0, x.gpu);
	uint32_t b = task(&x, cs, GRAPH_COMPUTE, 2.0, x.gpu);
	uint32_t c = task(&x, cs, GRAPH_OPTIMIZER, 1.0, x.gpu);
	uint32_t m = task(&x, ms, GRAPH_COMM, 2.5, GRAPH_NONE);
	ck_assert_uint_eq(a, 0);
	ck_assert(graph_detail(x.g, a) == NULL);
	ck_assert_int_eq(graph_dep(x.g, a, m), 0);
	ck_assert_int_eq(graph_dep(x.g, m, c), 0);
	struct ts_error err;
	ck_assert_int_eq(graph_run(x.g, &err), 0);
	ck_assert_int_eq(graph_rec(x.g, a)->start, 0);
	ck_assert_int_eq(graph_rec(x.g, b)->start, NS(1));
	ck_assert_int_eq(graph_rec(x.g, m)->end, NS(3.5));
	ck_assert_int_eq(graph_rec(x.g, c)->start, NS(3.5));
	ck_assert_int_eq(graph_rec(x.g, c)->end, NS(4.5));
	ck_assert_uint_eq(graph_rec(x.g, c)->blocker, m);
	ck_assert_double_eq(graph_pool_peak(x.g, p2, NULL), 0.0);
	ck_assert_uint_eq(graph_ntasks(x.g), 4);
	gx_fini(&x);
}
END_TEST

START_TEST(cycle_is_an_error)
{
	struct gx x;
	gx_init(&x);
	uint32_t a = task(&x, GRAPH_NONE, GRAPH_COMPUTE, 1.0, x.gpu);
	uint32_t b = task(&x, GRAPH_NONE, GRAPH_COMPUTE, 1.0, x.gpu);
	graph_dep(x.g, a, b);
	graph_dep(x.g, b, a);
	struct ts_error err;
	ck_assert_int_eq(graph_run(x.g, &err), TS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.msg, "never ran"));
	gx_fini(&x);
}
END_TEST

/* A task that would end beyond the int64-ns range is reported as such,
 * never as a dependency cycle (an efficiency of 1e-300 once overflowed the
 * clock and left the tasks after it "never ran"). */
START_TEST(time_beyond_range_is_not_a_cycle)
{
	struct gx x;
	gx_init(&x);
	uint32_t a = task(&x, GRAPH_NONE, GRAPH_COMPUTE, 1.0, x.gpu);
	uint32_t b = task(&x, GRAPH_NONE, GRAPH_COMPUTE, 1e300, x.gpu);
	uint32_t c = task(&x, GRAPH_NONE, GRAPH_COMPUTE, 1.0, x.gpu);
	graph_dep(x.g, a, b);
	graph_dep(x.g, b, c);
	struct ts_error err;
	ck_assert_int_eq(graph_run(x.g, &err), TS_ELIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "beyond 292 years"));
	ck_assert_ptr_null(strstr(err.msg, "cycle"));
	gx_fini(&x);
}
END_TEST

/* end_not_before: A (1 s of work, 10 B taken and given back, end bound
 * 2 s) holds its successor B on the stream until 2 s, but its memory goes
 * back when its work ends: C, on another stream from 1.5 s, takes 5 B and
 * the pool peaks at 10 B, not 15 B. The breakdown charges A's 1 s of work
 * to compute and the held second to GRAPH_MARK. A bound already passed
 * (B's, 0.5 s) changes nothing. */
START_TEST(end_not_before_holds_successors)
{
	struct gx x;
	gx_init(&x);
	uint32_t cs, os, pool, a, b, c;
	graph_stream(x.g, "compute", &cs);
	graph_stream(x.g, "other", &os);
	graph_pool(x.g, "gpu0", &pool);
	struct graph_task_spec sp = {.kind = GRAPH_COMPUTE,
				     .stream = cs,
				     .label = "a",
				     .seconds = 1.0,
				     .res = x.gpu,
				     .mult = 1,
				     .pool = pool,
				     .alloc_cat = GRAPH_MEM_ACTIVATIONS,
				     .alloc = 10.0,
				     .free_cat = GRAPH_MEM_ACTIVATIONS,
				     .free = 10.0,
				     .end_not_before = NS(2)};
	ck_assert_int_eq(graph_task(x.g, &sp, &a), 0);
	sp.alloc = sp.free = 0.0;
	sp.end_not_before = NS(0.5);
	ck_assert_int_eq(graph_task(x.g, &sp, &b), 0);
	sp.stream = os;
	sp.res = GRAPH_NONE;
	sp.kind = GRAPH_MARK;
	sp.seconds = 0.0;
	sp.alloc = 5.0;
	sp.end_not_before = 0;
	sp.not_before = NS(1.5);
	ck_assert_int_eq(graph_task(x.g, &sp, &c), 0);
	uint32_t e;
	sp.end_not_before = -1;
	ck_assert_int_eq(graph_task(x.g, &sp, &e), TS_EINVALID);
	ck_assert_int_eq(graph_run(x.g, NULL), 0);
	ck_assert_int_eq(graph_rec(x.g, a)->end, NS(2));
	ck_assert_int_eq(graph_rec(x.g, b)->start, NS(2));
	ck_assert_int_eq(graph_rec(x.g, b)->end, NS(3));
	ck_assert_int_eq(graph_rec(x.g, c)->start, NS(1.5));
	ck_assert_double_eq(graph_pool_peak(x.g, pool, NULL), 10.0);
	struct graph_breakdown bd;
	graph_breakdown(x.g, cs, 0, NS(3), &bd);
	ck_assert_int_eq(bd.busy[GRAPH_COMPUTE], NS(2));
	ck_assert_int_eq(bd.wait[GRAPH_MARK], NS(1));
	gx_fini(&x);
}
END_TEST

/* not_before: a compute task released at 1 s (after A) with not_before
 * 2.5 s starts at 2.5 s, ready at 1 s, with no blocker, so the breakdown
 * charges the 1.5 s wait to GRAPH_MARK; one whose bound has passed starts
 * when released, its blocker the task it waited for; a task with no
 * dependency waits too; a negative bound is refused. */
START_TEST(not_before_delays_start)
{
	struct gx x;
	gx_init(&x);
	uint32_t cs, hs;
	graph_stream(x.g, "compute", &cs);
	graph_stream(x.g, "other", &hs);
	uint32_t a = task(&x, cs, GRAPH_COMPUTE, 1.0, x.gpu);
	struct graph_task_spec sp = {.kind = GRAPH_COMPUTE,
				     .stream = cs,
				     .label = "b",
				     .seconds = 1.0,
				     .res = x.gpu,
				     .mult = 1,
				     .pool = GRAPH_NONE,
				     .not_before = NS(2.5)};
	uint32_t b, c, d;
	ck_assert_int_eq(graph_task(x.g, &sp, &b), 0);
	sp.not_before = NS(3.0); /* passed by the time B ends (3.5 s) */
	ck_assert_int_eq(graph_task(x.g, &sp, &c), 0);
	sp.stream = hs;
	sp.res = GRAPH_NONE;
	sp.kind = GRAPH_MARK;
	sp.seconds = 0.0;
	sp.not_before = NS(0.25); /* no dependency at all */
	ck_assert_int_eq(graph_task(x.g, &sp, &d), 0);
	uint32_t e;
	sp.not_before = -1;
	ck_assert_int_eq(graph_task(x.g, &sp, &e), TS_EINVALID);
	struct ts_error err;
	ck_assert_int_eq(graph_run(x.g, &err), 0);
	ck_assert_int_eq(graph_rec(x.g, b)->ready, NS(1));
	ck_assert_int_eq(graph_rec(x.g, b)->start, NS(2.5));
	ck_assert_int_eq(graph_rec(x.g, b)->end, NS(3.5));
	ck_assert_uint_eq(graph_rec(x.g, b)->blocker, GRAPH_NONE);
	ck_assert_int_eq(graph_rec(x.g, c)->start, NS(3.5));
	ck_assert_uint_eq(graph_rec(x.g, c)->blocker, b);
	ck_assert_int_eq(graph_rec(x.g, d)->start, NS(0.25));
	struct graph_breakdown bd;
	graph_breakdown(x.g, cs, 0, NS(4.5), &bd);
	ck_assert_int_eq(bd.busy[GRAPH_COMPUTE], NS(3));
	ck_assert_int_eq(bd.wait[GRAPH_MARK], NS(1.5));
	(void)a;
	gx_fini(&x);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("graph");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, streams_deps_breakdown);
	tcase_add_test(tc, shared_gpu_slows_both);
	tcase_add_test(tc, memory_peak_from_schedule);
	tcase_add_test(tc, reset_replays_as_new);
	tcase_add_test(tc, cycle_is_an_error);
	tcase_add_test(tc, time_beyond_range_is_not_a_cycle);
	tcase_add_test(tc, not_before_delays_start);
	tcase_add_test(tc, end_not_before_holds_successors);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
