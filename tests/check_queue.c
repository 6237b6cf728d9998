/* The queue model (sim/sweep/queue.c) and its job readers (sim/io/jobs.c):
 * M/M/c FIFO against Erlang C, M/G/c against the Allen-Cunneen
 * approximation, EASY backfill and strict FIFO on a hand-made case,
 * preemption and requeue by hand, fair-share, gang placement on leaf switches, failures'
 * accounting, fabric sharing of scenario jobs, and the readers' errors. SPDX-License-Identifier:
 * MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io/jobs.h"
#include "sweep/queue.h"
#include "testutil.h"

/* Erlang's C formula: the probability that an arrival waits in an M/M/c
 * queue with offered load a = lambda / mu Erlangs (a < c),
 *   C(c, a) = [a^c / c! x c / (c - a)] / [sum_{k<c} a^k / k! + a^c / c! x c / (c - a)],
 * and the mean wait W = C / (c mu - lambda) (Kleinrock, Queueing Systems
 * vol. 1, 1975, section 3.5). */
static double erlang_c(int c, double a)
{
	double term = 1.0, sum = 0.0;
	for (int k = 0; k < c; k++) {
		sum += term;
		term *= a / (k + 1);
	}
	double top = term * c / (c - a); /* term = a^c / c! */
	return top / (sum + top);
}

static struct queue_cfg cfg(uint32_t nodes, uint32_t gpn, enum queue_policy p)
{
	return (struct queue_cfg){.nodes = nodes, .gpus_per_node = gpn, .policy = p};
}

static void run_mix(const struct queue_mix *m, const struct queue_cfg *c, struct queue_stats *st)
{
	struct jobs_list l = {0};
	struct ts_error err = {0};
	ck_assert_int_eq(queue_synth(m, &l, &err), 0);
	int rc = queue_run(&l, c, st, &err);
	ck_assert_msg(rc == 0, "%s", err.msg);
	jobs_free(&l);
}

/* M/M/16 at load 0.7: 200,000 one-GPU jobs on 2 nodes of 8 GPUs, FIFO. */
START_TEST(mmc_erlang_c)
{
	const int c = 16;
	const double mean = 100.0, rho = 0.7, lambda = rho * c / mean;
	struct queue_mix m = {.jobs = 200000,
			      .rate_per_s = lambda,
			      .size_gpus = {1},
			      .size_weight = {1},
			      .nsizes = 1,
			      .dist = QUEUE_DIST_EXP,
			      .a = mean,
			      .seed = 7};
	struct queue_cfg q = cfg(2, 8, QUEUE_FIFO);
	struct queue_stats st;
	run_mix(&m, &q, &st);
	double C = erlang_c(c, lambda * mean); /* 0.1297 at a = 11.2 */
	double W = C / (c / mean - lambda);    /* 2.702 s */
	double pw = (double)st.waited / (double)st.ran;
	printf("M/M/16 rho 0.7: P(wait) %.4f (Erlang C %.4f, %+.1f %%), mean wait %.3f s "
	       "(%.3f s, %+.1f %%), utilisation %.4f\n",
	       pw, C, 100 * (pw / C - 1), st.mean_wait_s, W, 100 * (st.mean_wait_s / W - 1),
	       st.utilisation);
	ck_assert_uint_eq(st.ran, 200000);
	ck_assert_double_eq_tol(pw, C, 0.06 * C);
	ck_assert_double_eq_tol(st.mean_wait_s, W, 0.10 * W);
	ck_assert_double_eq_tol(st.utilisation, rho, 0.03);
	queue_stats_free(&st);
}
END_TEST

/* M/G/16 with run times uniform on [0, 200] s (mean 100, squared
 * coefficient of variation 1/3): the Allen-Cunneen (Lee-Longton)
 * approximation Wq(M/G/c) = Wq(M/M/c) (1 + cs^2) / 2 (A. O. Allen,
 * Probability, Statistics and Queueing Theory, 2nd ed., 1990, chapter 6;
 * the form Lee and Longton gave in 1959), within 10 %: an approximation,
 * not an exact result (measured: +7.8 %, the simulation's waits longer). */
START_TEST(mgc_allen_cunneen)
{
	const int c = 16;
	const double mean = 100.0, rho = 0.7, lambda = rho * c / mean, cs2 = 1.0 / 3.0;
	struct queue_mix m = {.jobs = 200000,
			      .rate_per_s = lambda,
			      .size_gpus = {1},
			      .size_weight = {1},
			      .nsizes = 1,
			      .dist = QUEUE_DIST_UNIFORM,
			      .a = 0.0 + 1e-9,
			      .b = 2 * mean,
			      .seed = 11};
	struct queue_cfg q = cfg(2, 8, QUEUE_BACKFILL);
	struct queue_stats st;
	run_mix(&m, &q, &st);
	double W = erlang_c(c, lambda * mean) / (c / mean - lambda) * (1 + cs2) / 2;
	printf("M/G/16 rho 0.7 cs2 1/3: mean wait %.3f s (Allen-Cunneen %.3f s, %+.1f %%)\n",
	       st.mean_wait_s, W, 100 * (st.mean_wait_s / W - 1));
	ck_assert_double_eq_tol(st.mean_wait_s, W, 0.10 * W);
	queue_stats_free(&st);
}
END_TEST

static void add(struct jobs_list *l, const char *id, double submit, uint32_t gpus, double dur,
		double limit, const char *user)
{
	struct jobs_job j = {.submit_s = submit,
			     .duration_s = dur,
			     .time_limit_s = limit,
			     .gpus = gpus,
			     .rec_start_s = NAN};
	ck_assert_int_eq(jobs_add(l, &j, id, user, NULL, NULL), 0);
}

/* 2 nodes of 8 GPUs. A (8 GPUs, 100 s) runs from 0; B (16 GPUs) waits for
 * it, its reservation at 100 s; C (8 GPUs, limit 30 s) ends by 32 s, before
 * the reservation: backfill starts it at 2 s, FIFO at 150 s after B. D (8
 * GPUs, 200 s) would hold a node past 100 s: it waits for B under both. */
START_TEST(backfill_by_hand)
{
	struct jobs_list l = {0};
	add(&l, "A", 0, 8, 100, 100, NULL);
	add(&l, "B", 1, 16, 50, 50, NULL);
	add(&l, "C", 2, 8, 30, 30, NULL);
	add(&l, "D", 3, 8, 200, 200, NULL);
	const double bf[4][2] = {{0, 100}, {100, 150}, {2, 32}, {150, 350}};
	const double ff[4][2] = {{0, 100}, {100, 150}, {150, 180}, {150, 350}};
	for (int p = 0; p < 2; p++) {
		struct queue_cfg q = cfg(2, 8, p ? QUEUE_BACKFILL : QUEUE_FIFO);
		q.detail = true;
		struct queue_stats st;
		struct ts_error err = {0};
		ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
		const double(*want)[2] = p ? bf : ff;
		for (int i = 0; i < 4; i++) {
			ck_assert_double_eq_tol(st.job[i].start_s, want[i][0], 1e-6);
			ck_assert_double_eq_tol(st.job[i].end_s, want[i][1], 1e-6);
		}
		ck_assert_double_eq_tol(st.makespan_s, 350, 1e-6);
		queue_stats_free(&st);
	}
	jobs_free(&l);
}
END_TEST

/* Preemption by hand, on one node of 8 GPUs under backfill; checkpoints
 * every 30 s of run time, a restart costs 5 s. L1 (4 GPUs, 100 s, tier 0)
 * runs from 0, L2 (4 GPUs, 100 s, tier 0) from 10. At 50 H (4 GPUs, 20 s,
 * tier 10) does not fit: with preemption the younger L2 is requeued (it ran
 * 40 s, keeps its checkpoint at 30 s, loses 10 s x 4 GPUs = 40 GPU-s; 70 s
 * of work and 5 s of restart left), H runs 50-70, and L2 restarts at 70
 * (before E, submitted later), ending at 145. E (4 GPUs, 10 s, tier 0,
 * submitted at 55) may not preempt its own tier: it starts when L1 ends,
 * 100-110. GPU-seconds of runs: 400 + 160 + 80 + 300 + 40 = 980. Without
 * preemption H waits for L1 (100-120) and E for L2 (110-120): 400 + 400 +
 * 80 + 40 = 920. */
START_TEST(preemption_by_hand)
{
	struct jobs_list l = {0};
	add(&l, "L1", 0, 4, 100, 0, NULL);
	add(&l, "L2", 10, 4, 100, 0, NULL);
	add(&l, "H", 50, 4, 20, 0, NULL);
	add(&l, "E", 55, 4, 10, 0, NULL);
	l.j[2].priority = 10;
	const double on[4][2] = {{0, 100}, {10, 145}, {50, 70}, {100, 110}};
	const double off[4][2] = {{0, 100}, {10, 110}, {100, 120}, {110, 120}};
	for (int p = 0; p < 2; p++) {
		struct queue_cfg q = cfg(1, 8, QUEUE_BACKFILL);
		q.detail = true;
		q.preempt = p;
		q.checkpoint_s = 30;
		q.restart_s = 5;
		struct queue_stats st;
		struct ts_error err = {0};
		ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
		const double(*want)[2] = p ? on : off;
		for (int i = 0; i < 4; i++) {
			ck_assert_msg(fabs(st.job[i].start_s - want[i][0]) < 1e-6 &&
					  fabs(st.job[i].end_s - want[i][1]) < 1e-6,
				      "preempt %d: job %d runs %g-%g, expected %g-%g", p, i,
				      st.job[i].start_s, st.job[i].end_s, want[i][0], want[i][1]);
		}
		ck_assert_uint_eq(st.preempted, (p ? 1u : 0u));
		ck_assert_uint_eq(st.requeued, 0);
		ck_assert_uint_eq(st.job[1].restarts, (p ? 1u : 0u));
		ck_assert_double_eq_tol(st.lost_gpu_s, (p ? 40.0 : 0.0), 1e-6);
		ck_assert_double_eq_tol(st.preempt_lost_gpu_s, (p ? 40.0 : 0.0), 1e-6);
		ck_assert_double_eq_tol(st.busy_gpu_s, (p ? 980.0 : 920.0), 1e-6);
		ck_assert_double_eq_tol(st.makespan_s, (p ? 145.0 : 120.0), 1e-6);
		queue_stats_free(&st);
	}
	jobs_free(&l);
}
END_TEST

/* A wide job preempts only what it needs: 2 nodes of 8 GPUs, A (8 GPUs,
 * tier 0) on one node from 0, B1 and B2 (4 GPUs each, tier 0) on the other
 * from 1 and 2; W (8 GPUs, tier 5) at 10 needs one whole node. Lowest tier,
 * youngest first takes B2, then B1 (the node is then free) and then would
 * take A; freeing B2 and B1 suffices, so A runs on untouched (0-100). */
START_TEST(preemption_spares)
{
	struct jobs_list l = {0};
	add(&l, "A", 0, 8, 100, 0, NULL);
	add(&l, "B1", 1, 4, 100, 0, NULL);
	add(&l, "B2", 2, 4, 100, 0, NULL);
	add(&l, "W", 10, 8, 20, 0, NULL);
	l.j[3].priority = 5;
	struct queue_cfg q = cfg(2, 8, QUEUE_FIFO);
	q.detail = true;
	q.preempt = true;
	struct queue_stats st;
	struct ts_error err = {0};
	ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
	ck_assert_uint_eq(st.preempted, 2);
	ck_assert_uint_eq(st.job[0].restarts, 0);
	ck_assert_double_eq_tol(st.job[0].end_s, 100, 1e-6);
	ck_assert_double_eq_tol(st.job[3].start_s, 10, 1e-6);
	ck_assert_double_eq_tol(st.job[3].end_s, 30, 1e-6);
	/* no checkpoints: B1 and B2 start over at 30 and run 100 s */
	ck_assert_double_eq_tol(st.job[1].end_s, 130, 1e-6);
	ck_assert_double_eq_tol(st.job[2].end_s, 130, 1e-6);
	ck_assert_double_eq_tol(st.lost_gpu_s, 4 * 9 + 4 * 8, 1e-6);
	ck_assert_double_eq_tol(st.preempt_lost_gpu_s, 4 * 9 + 4 * 8, 1e-6);
	queue_stats_free(&st);
	jobs_free(&l);
}
END_TEST

/* The waits a trace records beside those replayed, on one node of 8 GPUs
 * under FIFO: A (8 GPUs, 100 s) at 0, B (8, 50 s) at 10, C (8, 10 s) at
 * 20, D (4, 10 s) at 30 run 0-100, 100-150, 150-160, 160-170. The input
 * records starts for A (0), B (130) and D (25, before its submit: no wait),
 * not for C. Recorded waits 0, 120, 0: mean 40, nearest-rank p50 0 (the
 * 2nd of 3), p90 120 (the 3rd), max 120; replayed waits of A, B, D: 0, 90,
 * 130: mean 73.33, p50 90, p90 130. */
START_TEST(recorded_waits)
{
	struct jobs_list l = {0};
	add(&l, "A", 0, 8, 100, 0, NULL);
	add(&l, "B", 10, 8, 50, 0, NULL);
	add(&l, "C", 20, 8, 10, 0, NULL);
	add(&l, "D", 30, 4, 10, 0, NULL);
	l.j[0].rec_start_s = 0;
	l.j[1].rec_start_s = 130;
	l.j[3].rec_start_s = 25;
	struct queue_cfg q = cfg(1, 8, QUEUE_FIFO);
	struct queue_stats st;
	struct ts_error err = {0};
	ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
	ck_assert_uint_eq(st.recorded, 3);
	ck_assert_double_eq_tol(st.rec_mean_wait_s, 40, 1e-9);
	ck_assert_double_eq(st.rec_p50_wait_s, 0);
	ck_assert_double_eq(st.rec_p90_wait_s, 120);
	ck_assert_double_eq(st.rec_max_wait_s, 120);
	ck_assert_double_eq_tol(st.replay_mean_wait_s, 220.0 / 3, 1e-9);
	ck_assert_double_eq_tol(st.replay_p50_wait_s, 90, 1e-9);
	ck_assert_double_eq_tol(st.replay_p90_wait_s, 130, 1e-9);
	queue_stats_free(&st);
	/* without recorded starts nothing is compared */
	for (size_t i = 0; i < l.n; i++)
		l.j[i].rec_start_s = NAN;
	ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
	ck_assert_uint_eq(st.recorded, 0);
	ck_assert_double_eq(st.rec_mean_wait_s, 0);
	queue_stats_free(&st);
	jobs_free(&l);
}
END_TEST

static void in_part(struct jobs_list *l, size_t k, const char *name)
{
	ck_assert_int_eq(jobs_intern(&l->partitions, name, &l->j[k].partition), 0);
}

static const char *const ab_names[2] = {"a", "b"};
static const uint32_t ab_nodes[2] = {1, 1};

/* Partitions under FIFO: 2 nodes of 8 GPUs, partition a the first node
 * (the default), b the second. X (a, 8 GPUs, 100 s) runs 0-100; Y (a, 8,
 * 10 s) at 1 waits for it (100-110) though b's node is free; Z (b, 8, 10
 * s) at 2 is not held behind Y: 2-12; W (b, 16 GPUs) at 3 asks for more
 * than b holds and never runs; V (no partition: a, 4 GPUs, 10 s) at 4
 * follows Y: 110-120. Partition a: waits 0, 99, 106 (mean 68.33, p90 106),
 * 800 + 80 + 40 = 920 GPU-s; b: one job, no wait, 80 GPU-s, one too big. */
START_TEST(partitions_fifo)
{
	struct jobs_list l = {0};
	add(&l, "X", 0, 8, 100, 0, NULL);
	add(&l, "Y", 1, 8, 10, 0, NULL);
	add(&l, "Z", 2, 8, 10, 0, NULL);
	add(&l, "W", 3, 16, 10, 0, NULL);
	add(&l, "V", 4, 4, 10, 0, NULL);
	in_part(&l, 0, "a"), in_part(&l, 1, "a"), in_part(&l, 2, "b"), in_part(&l, 3, "b");
	struct queue_cfg q = cfg(2, 8, QUEUE_FIFO);
	q.nparts = 2;
	q.part_names = ab_names;
	q.part_nodes = ab_nodes;
	q.detail = true;
	struct queue_stats st;
	struct ts_error err = {0};
	ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
	const double want[5][2] = {{0, 100}, {100, 110}, {2, 12}, {NAN, NAN}, {110, 120}};
	for (int i = 0; i < 5; i++) {
		if (i == 3) {
			ck_assert_int_eq(st.job[i].state, QUEUE_TOO_BIG);
			continue;
		}
		ck_assert_msg(st.job[i].start_s == want[i][0] && st.job[i].end_s == want[i][1],
			      "job %d runs %g-%g, expected %g-%g", i, st.job[i].start_s,
			      st.job[i].end_s, want[i][0], want[i][1]);
	}
	ck_assert_uint_eq(st.too_big, 1);
	ck_assert_uint_eq(st.npart, 2);
	ck_assert_uint_eq(st.part[0].jobs, 3);
	ck_assert_double_eq_tol(st.part[0].mean_wait_s, 205.0 / 3, 1e-9);
	ck_assert_double_eq_tol(st.part[0].p90_wait_s, 106, 1e-9);
	ck_assert_double_eq_tol(st.part[0].busy_gpu_s, 920, 1e-9);
	ck_assert_uint_eq(st.part[1].jobs, 1);
	ck_assert_uint_eq(st.part[1].too_big, 1);
	ck_assert_double_eq(st.part[1].mean_wait_s, 0);
	ck_assert_double_eq_tol(st.part[1].busy_gpu_s, 80, 1e-9);
	queue_stats_free(&st);
	/* a partition no one defines is an error naming the job */
	in_part(&l, 4, "c");
	ck_assert_int_eq(queue_run(&l, &q, &st, &err), TS_EINVALID);
	ck_assert_msg(strstr(err.msg, "job V") && strstr(err.msg, "\"c\""), "%s", err.msg);
	/* partitions that do not cover the cluster are refused */
	in_part(&l, 4, "a");
	q.nodes = 3;
	ck_assert_int_eq(queue_run(&l, &q, &st, &err), TS_EINVALID);
	jobs_free(&l);
}
END_TEST

/* Backfill holds one reservation per partition: 2 nodes of 8 GPUs, a and
 * b one node each. X (a, 4 GPUs, 100 s) runs from 0; Y (a, 8, 50 s) at 1
 * waits, its reservation at 100; S1 (a, 4, 30 s) at 2 ends by then and is
 * backfilled (2-32); S2 (a, 4, 200 s) at 3 would delay Y and waits for it
 * (Y 100-150, S2 150-350); T (b, 8, 10 s) at 4 runs at once on b (4-14).
 * Without partitions Y takes the second node at 1 (1-51), T waits for it
 * (51-61), and S2 starts when S1 ends (32-232). */
START_TEST(partitions_backfill)
{
	struct jobs_list l = {0};
	add(&l, "X", 0, 4, 100, 0, NULL);
	add(&l, "Y", 1, 8, 50, 0, NULL);
	add(&l, "S1", 2, 4, 30, 0, NULL);
	add(&l, "S2", 3, 4, 200, 0, NULL);
	add(&l, "T", 4, 8, 10, 0, NULL);
	const double on[5][2] = {{0, 100}, {100, 150}, {2, 32}, {150, 350}, {4, 14}};
	const double off[5][2] = {{0, 100}, {1, 51}, {2, 32}, {32, 232}, {51, 61}};
	for (int parts = 0; parts < 2; parts++) {
		if (parts) {
			for (size_t k = 0; k < 4; k++)
				in_part(&l, k, "a");
			in_part(&l, 4, "b");
		}
		struct queue_cfg q = cfg(2, 8, QUEUE_BACKFILL);
		if (parts) {
			q.nparts = 2;
			q.part_names = ab_names;
			q.part_nodes = ab_nodes;
		}
		q.detail = true;
		struct queue_stats st;
		struct ts_error err = {0};
		ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
		const double(*want)[2] = parts ? on : off;
		for (int i = 0; i < 5; i++)
			ck_assert_msg(st.job[i].start_s == want[i][0] &&
					  st.job[i].end_s == want[i][1],
				      "partitions %d: job %d runs %g-%g, expected %g-%g", parts, i,
				      st.job[i].start_s, st.job[i].end_s, want[i][0], want[i][1]);
		ck_assert_uint_eq(st.npart, parts ? 2u : 0u);
		queue_stats_free(&st);
	}
	jobs_free(&l);
}
END_TEST

/* Preemption stays inside a partition: 2 nodes of 8 GPUs, a and b one
 * each, no checkpoints, a 5 s restart. L1 (a, 8 GPUs, 100 s) runs from 0,
 * L2 (b) from 1; H (a, 8 GPUs, 20 s, tier 10) at 5 requeues L1, the only
 * run of its partition (5 s x 8 GPUs = 40 GPU-s lost): H 5-25, L1 again
 * 25-130 (100 s + 5 s), L2 1-101. Without partitions H takes the younger
 * L2 (4 s x 8 = 32 GPU-s): L1 0-100, H 5-25, L2 25-130. */
START_TEST(partitions_preempt)
{
	struct jobs_list l = {0};
	add(&l, "L1", 0, 8, 100, 0, NULL);
	add(&l, "L2", 1, 8, 100, 0, NULL);
	add(&l, "H", 5, 8, 20, 0, NULL);
	l.j[2].priority = 10;
	const double on[3][2] = {{0, 130}, {1, 101}, {5, 25}};
	const double off[3][2] = {{0, 100}, {1, 130}, {5, 25}};
	for (int parts = 0; parts < 2; parts++) {
		if (parts)
			in_part(&l, 0, "a"), in_part(&l, 1, "b"), in_part(&l, 2, "a");
		struct queue_cfg q = cfg(2, 8, QUEUE_BACKFILL);
		if (parts) {
			q.nparts = 2;
			q.part_names = ab_names;
			q.part_nodes = ab_nodes;
		}
		q.preempt = true;
		q.restart_s = 5;
		q.detail = true;
		struct queue_stats st;
		struct ts_error err = {0};
		ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
		const double(*want)[2] = parts ? on : off;
		for (int i = 0; i < 3; i++)
			ck_assert_msg(st.job[i].start_s == want[i][0] &&
					  st.job[i].end_s == want[i][1],
				      "partitions %d: job %d runs %g-%g, expected %g-%g", parts, i,
				      st.job[i].start_s, st.job[i].end_s, want[i][0], want[i][1]);
		ck_assert_uint_eq(st.preempted, 1);
		ck_assert_double_eq_tol(st.preempt_lost_gpu_s, parts ? 40.0 : 32.0, 1e-9);
		queue_stats_free(&st);
	}
	jobs_free(&l);
}
END_TEST

/* One GPU; user a submits five 1000 s jobs at 0, user b one at 10 s. FIFO
 * runs b's after a's five (at 5000 s); with fair-share b's usage is 0
 * against a's, so its job is next when a's first ends (1000 s). */
START_TEST(fairshare_by_hand)
{
	struct jobs_list l = {0};
	for (int k = 0; k < 5; k++) {
		char id[8];
		snprintf(id, sizeof id, "a%d", k);
		add(&l, id, 0, 1, 1000, 0, "a");
	}
	add(&l, "b0", 10, 1, 1000, 0, "b");
	for (int p = 0; p < 2; p++) {
		struct queue_cfg q = cfg(1, 1, p ? QUEUE_PRIORITY : QUEUE_FIFO);
		q.detail = true;
		struct queue_stats st;
		struct ts_error err = {0};
		ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
		ck_assert_double_eq_tol(st.job[5].start_s, p ? 1000 : 5000, 1e-6);
		ck_assert_double_eq_tol(st.utilisation, 1.0, 1e-9);
		ck_assert_double_eq_tol(st.user_gpu_s[0], 5000, 1e-6);
		ck_assert_double_eq_tol(st.user_gpu_s[1], 1000, 1e-6);
		queue_stats_free(&st);
	}
	jobs_free(&l);
}
END_TEST

/* 4 nodes of 8 GPUs, 2 per leaf: a 16-GPU job packed takes both nodes of
 * one leaf, spread one node of each leaf; a 12-GPU job takes two whole
 * nodes (gang-scheduled); one larger than the cluster never runs. */
START_TEST(placement)
{
	struct jobs_list l = {0};
	add(&l, "a", 0, 16, 10, 0, NULL);
	add(&l, "b", 0, 12, 10, 0, NULL);
	add(&l, "big", 0, 40, 10, 0, NULL);
	for (int p = 0; p < 2; p++) {
		struct queue_cfg q = cfg(4, 8, QUEUE_FIFO);
		q.nodes_per_leaf = 2;
		q.place = p ? QUEUE_SPREAD : QUEUE_PACKED;
		q.detail = true;
		struct queue_stats st;
		struct ts_error err = {0};
		ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
		ck_assert_uint_eq(st.job[0].nodes, 2);
		ck_assert_uint_eq(st.job[0].leaves, p ? 2 : 1);
		ck_assert_uint_eq(st.job[1].nodes, 2);
		ck_assert_double_eq_tol(st.job[1].start_s, 0, 1e-9);
		ck_assert_int_eq(st.job[2].state, QUEUE_TOO_BIG);
		ck_assert_uint_eq(st.too_big, 1);
		/* 16 + 12 GPUs busy for 10 s of 32 GPUs x 10 s */
		ck_assert_double_eq_tol(st.utilisation, 28.0 / 32.0, 1e-9);
		/* 4 GPUs of b's second node idle, no job waiting */
		ck_assert_double_eq_tol(st.fragmentation, 0.0, 1e-12);
		queue_stats_free(&st);
	}
	jobs_free(&l);
}
END_TEST

/* Failures: every GPU-second of runs is the work, the runs lost since the
 * last checkpoint (restarts included) and the restart of each requeued
 * job's final run; without checkpoints a failure loses the whole run. */
START_TEST(failures_account)
{
	struct queue_mix m = {.jobs = 300,
			      .rate_per_s = 1.0 / 600,
			      .size_gpus = {1, 8, 16},
			      .size_weight = {1, 1, 1},
			      .nsizes = 3,
			      .dist = QUEUE_DIST_EXP,
			      .a = 3600,
			      .seed = 3};
	for (int ck = 0; ck < 2; ck++) {
		struct jobs_list l = {0};
		struct ts_error err = {0};
		ck_assert_int_eq(queue_synth(&m, &l, &err), 0);
		struct queue_cfg q = cfg(4, 8, QUEUE_BACKFILL);
		q.failures = true;
		q.node_mtbf_s = 20 * 3600.0; /* often, to see many */
		q.repair_s = 1800;
		q.restart_s = 600;
		q.checkpoint_s = ck ? 900 : 0;
		q.seed = 5;
		struct queue_stats st;
		ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
		double work = 0.0;
		for (size_t i = 0; i < l.n; i++)
			work += l.j[i].duration_s * l.j[i].gpus;
		double restarts = 0.0;
		ck_assert_uint_gt(st.requeued, 10);
		/* restarts add restart_s each, on the job's GPUs: recount them */
		struct queue_cfg q2 = q;
		q2.detail = true;
		struct queue_stats s2;
		ck_assert_int_eq(queue_run(&l, &q2, &s2, &err), 0);
		for (size_t i = 0; i < l.n; i++)
			restarts += (s2.job[i].restarts ? q.restart_s : 0.0) * l.j[i].gpus;
		ck_assert_double_eq_tol(st.busy_gpu_s, work + restarts + st.lost_gpu_s,
					1e-6 * st.busy_gpu_s);
		ck_assert_double_eq(s2.busy_gpu_s, st.busy_gpu_s); /* same seed, same run */
		/* no preemption asked: every loss is a failure's */
		ck_assert_uint_eq(st.preempted, 0);
		ck_assert_double_eq(st.preempt_lost_gpu_s, 0.0);
		queue_stats_free(&st);
		queue_stats_free(&s2);
		jobs_free(&l);
	}
}
END_TEST

/* A scenario job's step time: 1 s on one leaf, 1.5 s across leaves alone,
 * and 1.5 x (1 + 0.5 (share - 1)) s when share jobs use the uplinks. */
static int fake_rt(void *ctx, const struct queue_shape *sh, struct queue_rt *rt,
		   struct ts_error *err)
{
	(void)err;
	(*(int *)ctx)++;
	rt->step_s = sh->leaves > 1 ? 1.5 * (1 + 0.5 * (sh->share - 1)) : 1.0;
	rt->tokens_per_step = 1000;
	return 0;
}

/* 4 nodes, 2 per leaf, spread: X (16 GPUs, 100 steps) alone runs 150 s;
 * with Y beside it from 0 both share the uplinks of both leaves: 225 s
 * each. Shapes are simulated once: (2 nodes, 2 leaves, share 1 and 2). */
START_TEST(fabric_sharing)
{
	int calls = 0;
	struct queue_cache *cache;
	ck_assert_int_eq(queue_cache_create(fake_rt, &calls, &cache), 0);
	for (int both = 0; both < 2; both++) {
		struct jobs_list l = {0};
		struct jobs_job j = {.gpus = 16, .steps = 100, .rec_start_s = NAN};
		ck_assert_int_eq(jobs_add(&l, &j, "X", NULL, NULL, "s.cfg"), 0);
		j.tokens = 100000, j.steps = 0;
		if (both)
			ck_assert_int_eq(jobs_add(&l, &j, "Y", NULL, NULL, "s.cfg"), 0);
		struct queue_cfg q = cfg(4, 8, QUEUE_FIFO);
		q.nodes_per_leaf = 2;
		q.place = QUEUE_SPREAD;
		q.cache = cache;
		q.detail = true;
		struct queue_stats st;
		struct ts_error err = {0};
		ck_assert_int_eq(queue_run(&l, &q, &st, &err), 0);
		for (size_t i = 0; i < l.n; i++) {
			ck_assert_uint_eq(st.job[i].leaves, 2);
			ck_assert_double_eq_tol(st.job[i].end_s, both ? 225 : 150, 1e-6);
			ck_assert_double_eq_tol(st.job[i].alone_s, 150, 1e-9);
		}
		queue_stats_free(&st);
		jobs_free(&l);
	}
	ck_assert_int_eq(calls, 2);
	ck_assert_uint_eq(queue_cache_simulated(cache), 2);
	queue_cache_destroy(cache);
}
END_TEST

/* ------------------------------------------------------------ readers */

static const char *write_tmp(const char *name, const char *text)
{
	static char path[8][256];
	static int k;
	char *p = path[k++ % 8];
	snprintf(p, 256, "/tmp/check_queue_%d_%s", (int)getpid(), name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static void expect_err(const char *name, const char *text, enum jobs_format fmt, int code, int line,
		       const char *key, const char *msg_part)
{
	const char *p = write_tmp(name, text);
	struct jobs_list l = {0};
	struct ts_error err = {0};
	int rc = jobs_read(p, fmt, &l, &err);
	char buf[1200];
	ts_error_format(&err, buf, sizeof buf);
	ck_assert_msg(rc == code, "%s: rc %d, expected %d: %s", name, rc, code, buf);
	ck_assert_int_eq(err.line, line);
	ck_assert_str_eq(err.key, key);
	ck_assert_msg(strstr(err.msg, msg_part), "%s: %s", name, buf);
	ck_assert_msg(strstr(err.file, name), "%s: file %s", name, err.file);
	jobs_free(&l);
	remove(p);
}

START_TEST(csv_reads)
{
	const char *p = write_tmp("ok.csv", "id,submit_s,gpus,duration_s,user,time_limit_s\n"
					    "j1,0,8,3600,alice,7200\n"
					    "\n"
					    "j2,10.5,1,60,bob,\n"
					    "j3,11,2,5,alice,\n");
	struct jobs_list l = {0};
	struct ts_error err = {0};
	ck_assert_int_eq(jobs_read(p, JOBS_AUTO, &l, &err), 0);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.users.n, 2);
	ck_assert_uint_eq(l.j[2].user, l.j[0].user);
	ck_assert_double_eq(l.j[1].submit_s, 10.5);
	ck_assert_double_eq(l.j[0].time_limit_s, 7200);
	ck_assert_double_eq(l.j[1].time_limit_s, 0);
	ck_assert_str_eq(l.ids.s[l.j[1].id], "j2");
	jobs_free(&l);
	remove(p);
}
END_TEST

START_TEST(csv_errors)
{
	expect_err("nocol.csv", "id,submit_s,gpus\n1,0,1\n", JOBS_CSV, TS_ESYNTAX, 1, "duration_s",
		   "missing column");
	expect_err("gpus.csv", "id,submit_s,gpus,duration_s\n1,0,1,5\n2,0,x,5\n", JOBS_CSV,
		   TS_ESYNTAX, 3, "gpus", "found \"x\", expected a whole number of GPUs");
	expect_err("dup.csv", "id,submit_s,gpus,duration_s\n1,0,1,5\n1,3,1,5\n", JOBS_CSV,
		   TS_ESYNTAX, 3, "id", "an id no earlier job has");
	expect_err("neg.csv", "id,submit_s,gpus,duration_s\n1,-4,1,5\n", JOBS_CSV, TS_ESYNTAX, 2,
		   "submit_s", "found \"-4\"");
	expect_err("nolen.csv", "id,submit_s,gpus,duration_s,scenario\n1,0,8,,a.cfg\n", JOBS_CSV,
		   TS_ESYNTAX, 2, "scenario", "tokens or steps");
	expect_err("col.csv", "id,submit_s,gpus,duration_s,gpu_type\n", JOBS_CSV, TS_ESYNTAX, 1,
		   "gpu_type", "unknown column");
	expect_err("empty.csv", "id,submit_s,gpus,duration_s\n", JOBS_CSV, TS_EINVALID, 0, "",
		   "found no job");
	expect_err("short.csv", "id,submit_s,gpus,duration_s\n1,0,1\n", JOBS_CSV, TS_ESYNTAX, 2, "",
		   "found 3 fields, expected 4");
}
END_TEST

/* Helios' cluster_log.csv, on made-up rows in its format (no row of the
 * real trace): the CPU job and the job of 0 s are skipped; 2020-04-01
 * 00:00:00 UTC is 1585699200 s since the epoch. */
START_TEST(helios_reads)
{
	const char *p = write_tmp(
	    "h.csv", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,"
		     "end_time,duration,queue\n"
		     "1,uA,vcA,8,16,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,"
		     "2020-04-01 00:01:40,100,0\n"
		     "2,uB,vcA,8,16,1,COMPLETED,2020-04-01 00:00:01,2020-04-01 00:01:40,"
		     "2020-04-01 00:01:50,10,99\n"
		     "3,uB,vcB,8,16,1,FAILED,2020-04-01 00:00:02,2020-04-01 00:00:30,"
		     "2020-04-01 00:00:40,10,28\n"
		     "4,uC,vcB,0,4,1,COMPLETED,2020-04-01 00:00:03,2020-04-01 00:00:03,"
		     "2020-04-01 00:10:03,600,0\n"
		     "5,uC,vcB,4,8,1,CANCELLED,2020-04-01 00:00:04,2020-04-01 00:00:04,"
		     "2020-04-01 00:00:04,0,0\n");
	struct jobs_list l = {0};
	struct ts_error err = {0};
	int rc = jobs_read(p, JOBS_AUTO, &l, &err);
	ck_assert_msg(rc == 0, "%s", err.msg);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_double_eq(l.j[0].submit_s, 1585699200.0);
	ck_assert_double_eq(l.j[1].rec_start_s - l.j[1].submit_s, 99);
	ck_assert_double_eq(l.j[2].rec_start_s - l.j[2].submit_s, 28);
	ck_assert_double_eq(l.j[2].duration_s, 10);
	ck_assert_uint_eq(l.j[2].gpus, 8);
	ck_assert_str_eq(l.users.s[l.j[2].user], "uB");
	ck_assert_str_eq(l.accounts.s[l.j[2].account], "vcB");
	ck_assert_str_eq(l.partitions.s[l.j[0].partition], "vcA");
	ck_assert_str_eq(l.partitions.s[l.j[2].partition], "vcB");
	jobs_free(&l);
	remove(p);
	expect_err("htime.csv",
		   "job_id,user,vc,gpu_num,submit_time,start_time,duration\n"
		   "1,uA,vcA,8,April 1st,2020-04-01 00:00:00,100\n",
		   JOBS_HELIOS, TS_ESYNTAX, 2, "submit_time", "found \"April 1st\"");
	expect_err("hcol.csv", "job_id,user,vc,gpu_num,submit_time,duration\n", JOBS_HELIOS,
		   TS_ESYNTAX, 1, "start_time", "missing column");
}
END_TEST

START_TEST(sacct_reads)
{
	const char *p = write_tmp(
	    "s.txt", "JobID|User|Account|Submit|Start|End|Elapsed|Timelimit|AllocTRES\n"
		     "101|ann|proj|2024-03-01T00:00:00|2024-03-01T00:10:00|2024-03-01T02:10:00|"
		     "02:00:00|1-00:00:00|billing=8,cpu=32,gres/gpu=8,mem=500G,node=1\n"
		     "101.batch|||2024-03-01T00:00:00|2024-03-01T00:10:00|2024-03-01T02:10:00|"
		     "02:00:00||cpu=32,gres/gpu=8\n"
		     "102|bo|proj|2024-03-01T00:05:00|2024-03-01T00:05:00|2024-03-01T00:06:30|"
		     "00:01:30|UNLIMITED|cpu=4,gres/gpu:a100=2\n"
		     "103|bo|proj|2024-03-01T00:06:00|Unknown|Unknown|00:00:00|01:00:00|\n"
		     "104|bo|proj|2024-03-01T00:07:00|2024-03-01T00:07:00|2024-03-01T00:08:00|"
		     "00:01:00|10:00|cpu=4,mem=1G\n");
	struct jobs_list l = {0};
	struct ts_error err = {0};
	int rc = jobs_read(p, JOBS_AUTO, &l, &err);
	ck_assert_msg(rc == 0, "%s", err.msg);
	ck_assert_uint_eq(l.n, 2); /* the step, the job that never ran and the CPU job skipped */
	ck_assert_double_eq(l.j[0].submit_s, 1709251200.0); /* 2024-03-01 UTC */
	ck_assert_double_eq(l.j[0].duration_s, 7200);
	ck_assert_double_eq(l.j[0].time_limit_s, 86400);
	ck_assert_double_eq(l.j[0].rec_start_s - l.j[0].submit_s, 600);
	ck_assert_uint_eq(l.j[0].gpus, 8);
	ck_assert_uint_eq(l.j[1].gpus, 2);
	ck_assert_double_eq(l.j[1].time_limit_s, 0);
	jobs_free(&l);
	remove(p);
	expect_err("nogpu.txt", "JobID|Submit|Elapsed\n1|2024-03-01T00:00:00|00:01:00\n",
		   JOBS_SACCT, TS_ESYNTAX, 1, "AllocTRES", "missing column");
	expect_err("time.txt", "JobID|Submit|Elapsed|AllocTRES\n1|yesterday|00:01:00|gres/gpu=1\n",
		   JOBS_SACCT, TS_ESYNTAX, 2, "Submit", "found \"yesterday\"");
}
END_TEST

START_TEST(swf_reads)
{
	const char *p = write_tmp("t.swf", "; Version: 2.2\n"
					   "; MaxProcs: 64\n"
					   "1 0 10 3600 8 -1 -1 8 7200 -1 1 3 1 -1 1 -1 -1 -1\n"
					   "2 60 -1 -1 4 -1 -1 4 600 -1 0 4 1 -1 1 -1 -1 -1\n"
					   "3 120 0 30 -1 -1 -1 2 -1 -1 1 4 2 -1 1 -1 -1 -1\n");
	struct jobs_list l = {0};
	struct ts_error err = {0};
	ck_assert_int_eq(jobs_read(p, JOBS_AUTO, &l, &err), 0);
	ck_assert_uint_eq(l.n, 2); /* job 2 has no run time */
	ck_assert_double_eq(l.j[0].rec_start_s, 10);
	ck_assert_double_eq(l.j[0].time_limit_s, 7200);
	ck_assert_uint_eq(l.j[1].gpus, 2); /* requested where allocated is -1 */
	ck_assert_uint_eq(l.users.n, 2);
	jobs_free(&l);
	remove(p);
	expect_err("bad.swf", "1 0 10 3600 8 -1 -1 8 7200 -1 1 3 1 -1 1 -1 -1\n", JOBS_SWF,
		   TS_ESYNTAX, 1, "", "found 17 fields, expected the 18 of SWF");
	expect_err("nan.swf", "1 0 10 abc 8 -1 -1 8 7200 -1 1 3 1 -1 1 -1 -1 -1\n", JOBS_SWF,
		   TS_ESYNTAX, 1, "run time", "found \"abc\"");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("queue");
	TCase *tc = tu_tcase("theory");
	tcase_add_test(tc, mmc_erlang_c);
	tcase_add_test(tc, mgc_allen_cunneen);
	suite_add_tcase(s, tc);
	tc = tu_tcase("policies");
	tcase_add_test(tc, backfill_by_hand);
	tcase_add_test(tc, preemption_by_hand);
	tcase_add_test(tc, preemption_spares);
	tcase_add_test(tc, recorded_waits);
	tcase_add_test(tc, partitions_fifo);
	tcase_add_test(tc, partitions_backfill);
	tcase_add_test(tc, partitions_preempt);
	tcase_add_test(tc, fairshare_by_hand);
	tcase_add_test(tc, placement);
	tcase_add_test(tc, failures_account);
	tcase_add_test(tc, fabric_sharing);
	suite_add_tcase(s, tc);
	tc = tu_tcase("readers");
	tcase_add_test(tc, csv_reads);
	tcase_add_test(tc, csv_errors);
	tcase_add_test(tc, sacct_reads);
	tcase_add_test(tc, swf_reads);
	tcase_add_test(tc, helios_reads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite()) ? 1 : 0;
}
