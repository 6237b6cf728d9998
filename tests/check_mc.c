/* Monte-Carlo replicas of a run (sim/run/mc.h): the one-step draw of a
 * maximum against its expected values by hand, the spread of a whole run
 * (slower with more GPUs by the maximum of their draws, ordered quantiles,
 * one sample is the figure, the headline untouched), the same results at
 * one and two threads, and the scenario keys.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/mc.h"
#include "run/run.h"
#include "testutil.h"
#include "work/compute.h"
#include "work/straggle.h"

static struct hw_catalog *cat;
static struct work_calib calib;

/* ts_run of the bundled scenario (8 GPUs, pure data parallelism, a
 * 300-billion-token run with the default failure rates) with `sets`. */
static void run_with(const char *const *sets, size_t nsets, struct ts_result *r)
{
	char path[1024];
	struct ts_scenario *sc;
	struct ts_error e;
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", tu_root());
	ck_assert_msg(ts_scenario_load(cat, path, sets, nsets, &sc, &e) == 0, "%s", e.msg);
	ck_assert_msg(ts_run(sc, &calib, r, NULL, &e) == 0, "%s", e.msg);
	ts_scenario_destroy(sc);
}

/* The nine bands of a result, in the order of struct ts_bands, with the
 * figures they spread. */
static void bands_of(const struct ts_result *r, const struct ts_band *b[9], double fig[9])
{
	const struct ts_bands *s = &r->spread;
	const struct ts_band *x[9] = {&s->iteration_time_s,
				      &s->samples_per_s,
				      &s->tokens_per_s,
				      &s->tflops_per_gpu,
				      &s->mfu,
				      &s->time_to_train_s,
				      &s->cost_usd,
				      &s->gpu_energy_kwh,
				      &s->memory_per_gpu_bytes};
	const double f[9] = {r->iteration_time_s,
			     r->samples_per_s,
			     r->tokens_per_s,
			     r->tflops_per_gpu,
			     r->mfu,
			     r->time_to_train_s,
			     r->cost_usd,
			     r->gpu_energy_kwh,
			     r->memory_per_gpu_bytes};
	for (int i = 0; i < 9; i++) {
		b[i] = x[i];
		fig[i] = f[i];
	}
}

/* The maximum of n normals in one draw (straggle_max_draw of a uniform):
 * over N = 40,000 draws its mean is E[max]. By hand (Harter 1961, the
 * expected largest of n normals; the quadrature of straggle_expected_max):
 * n = 8: 1.4236; n = 1,024: 3.2482 (n = 1,000: 3.2414). Its standard
 * deviation is 0.611 for n = 8 and 0.351 for n = 1,024, so the mean of N
 * draws is within 4 sd / sqrt(N) = 0.0122 and 0.0070 of E[max] but for a
 * chance of 6e-5. Its median is Phi^-1(2^(-1/n)): 1.3852 and 3.2044. */
START_TEST(max_draw_by_hand)
{
	const struct {
		uint64_t n;
		double mean, sd, median;
	} cs[] = {{8, 1.4236, 0.6107, 1.3852}, {1024, 3.2482, 0.3508, 3.2044}};
	for (size_t c = 0; c < 2; c++) {
		struct mc_rng g;
		mc_rng_seed(&g, mc_seed(7, c));
		double sum = 0.0;
		const int N = 40000;
		for (int i = 0; i < N; i++)
			sum += straggle_max_draw(gsl_rng_uniform_pos(&g.r), cs[c].n);
		double tol = 4.0 * cs[c].sd / sqrt((double)N);
		ck_assert_msg(fabs(sum / N - cs[c].mean) < tol, "n = %llu: mean %.4f, want %.4f",
			      (unsigned long long)cs[c].n, sum / N, cs[c].mean);
		ck_assert(fabs(straggle_max_draw(0.5, cs[c].n) - cs[c].median) < 1e-4);
		ck_assert(fabs(straggle_max_sd(cs[c].n) - cs[c].sd) < 1e-4);
	}
	ck_assert(fabs(straggle_max_sd(2) - sqrt(1.0 - 1.0 / 3.14159265358979323846)) < 1e-9);
}
END_TEST

/* A synchronous step waits for its slowest GPU: with a 2 % per-GPU spread,
 * the replicas of 1,024 GPUs (128 nodes) compute at 1 + 0.02 M1024 and
 * those of 8 GPUs at 1 + 0.02 M8 times the median GPU's pace, M the
 * maximum of the GPUs' draws. Their mean pace over 40,000 drawn replicas
 * (mc_draw) is 1 + 0.02 x 3.2482 = 1.06496 against 1 + 0.02 x 1.4236 =
 * 1.02847: the 1,024-GPU job 3.548 % slower (1.06496 / 1.02847), within
 * 4 x 0.02 x 0.611 / sqrt(40,000) = 0.00024 of each mean. Through whole
 * runs (sim.samples = 4001, so p50 is one replica): the iteration's median
 * replica is the headline with its compute (1 + 0.02 E[M]) taken to the
 * pace at the median draw, 1 + 0.02 x 1.3852 (8) and 1 + 0.02 x 3.2044
 * (1,024); the median of 4,001 draws is within 4 standard errors
 * (sqrt(0.25 / 4001) / density at the median, 0.64 for 8 and 1.23 for
 * 1,024: 0.025 and 0.013) of it. */
START_TEST(straggler_1024_slower_than_8)
{
	struct ts_scenario sc8 = {.gpus = 8, .nodes = 1}, sc1k = {.gpus = 1024, .nodes = 128};
	sc8.sim.straggler_sd = sc1k.sim.straggler_sd = 0.02;
	struct mc_params p8, p1k;
	mc_params_init(&sc8, 1.0, straggle_slowdown(8, sc8.sim.straggler_sd), &p8);
	mc_params_init(&sc1k, 1.0, straggle_slowdown(1024, sc1k.sim.straggler_sd), &p1k);
	double m8 = 0.0, m1k = 0.0;
	const int N = 40000;
	for (int i = 0; i < N; i++) {
		struct mc_rng g;
		struct mc_draw d8, d1k;
		mc_rng_seed(&g, mc_seed(3, (uint64_t)i));
		mc_draw(&p8, &g.r, &d8);
		mc_rng_seed(&g, mc_seed(3, (uint64_t)i));
		mc_draw(&p1k, &g.r, &d1k);
		m8 += d8.compute * p8.head_pace;
		m1k += d1k.compute * p1k.head_pace;
		ck_assert(d8.comm == 1.0 && d1k.comm == 1.0);
	}
	m8 /= N;
	m1k /= N;
	ck_assert_msg(fabs(m8 - 1.02847) < 0.00024, "8 GPUs: mean pace %.5f", m8);
	ck_assert_msg(fabs(m1k - 1.06496) < 0.00024, "1,024 GPUs: mean pace %.5f", m1k);
	ck_assert_msg(fabs(m1k / m8 - 1.06496 / 1.02847) < 0.0005, "ratio %.5f", m1k / m8);

	const char *s8[] = {"sim.straggler_sd=0.02", "sim.samples=4001"};
	const char *s1k[] = {"sim.straggler_sd=0.02", "sim.samples=4001", "nodes=128",
			     "training.global_batch=65536"};
	struct ts_result r8, r1k;
	run_with(s8, 2, &r8);
	run_with(s1k, 4, &r1k);
	const struct {
		const struct ts_result *r;
		double emax, median, tol;
	} cs[] = {{&r8, 1.4236, 1.3852, 0.025}, {&r1k, 3.2482, 3.2044, 0.013}};
	double med_pace[2];
	for (int c = 0; c < 2; c++) {
		const struct ts_result *r = cs[c].r;
		double C = r->compute_s + r->recompute_s; /* at 1 + 0.02 E[M] */
		double head = 1.0 + 0.02 * cs[c].emax;
		double dT = r->spread.iteration_time_s.p50 - r->iteration_time_s;
		med_pace[c] = (C + dT) / C * head;
		double med = (med_pace[c] - 1.0) / 0.02;
		ck_assert_msg(fabs(med - cs[c].median) < cs[c].tol, "%u GPUs: median draw %.4f",
			      r->gpus, med);
	}
	ck_assert(med_pace[1] > med_pace[0] + 0.02 * 1.7);
}
END_TEST

/* Every variability on (failures at their defaults): p10 <= p50 <= p90 for
 * every figure; the run's time varies with its failures (p10 < p90); memory
 * does not vary; throughput falls as the iteration grows (its p90 comes
 * from the fastest replicas). */
START_TEST(quantiles_ordered)
{
	const char *sets[] = {"sim.jitter=0.02",
			      "sim.net_noise=0.05",
			      "sim.slow_node_probability=0.05",
			      "sim.slow_link_probability=0.05",
			      "sim.straggler_sd=0.02",
			      "sim.samples=500"};
	struct ts_result r;
	run_with(sets, 6, &r);
	const struct ts_band *b[9];
	double fig[9];
	bands_of(&r, b, fig);
	for (int i = 0; i < 9; i++)
		ck_assert_msg(b[i]->p10 <= b[i]->p50 && b[i]->p50 <= b[i]->p90,
			      "figure %d: %g %g %g", i, b[i]->p10, b[i]->p50, b[i]->p90);
	ck_assert(r.spread.time_to_train_s.p10 < r.spread.time_to_train_s.p90);
	ck_assert(r.spread.iteration_time_s.p10 < r.spread.iteration_time_s.p90);
	ck_assert(r.spread.memory_per_gpu_bytes.p10 == r.memory_per_gpu_bytes &&
		  r.spread.memory_per_gpu_bytes.p90 == r.memory_per_gpu_bytes);
	ck_assert(fabs(r.spread.samples_per_s.p90 * r.spread.iteration_time_s.p10 -
		       r.samples_per_s * r.iteration_time_s) <
		  1e-9 * r.samples_per_s * r.iteration_time_s);
}
END_TEST

/* A slow node in every replica (probability 1) at half speed (slowdown 1)
 * moves the whole band off the deterministic headline: the result says so;
 * without variability settings the headline is inside its band and nothing
 * is said. */
START_TEST(headline_outside_band_warned)
{
	const char *slow[] = {"sim.slow_node_probability=1", "sim.slow_node_slowdown=1"};
	struct ts_result r, plain;
	run_with(slow, 2, &r);
	run_with(NULL, 0, &plain);
	ck_assert(r.band.iteration_time_s.p10 > r.iteration_time_s);
	ck_assert_msg(strstr(r.warnings, "outside their 80 % band"), "%s", r.warnings);
	ck_assert(plain.band.iteration_time_s.p10 <= plain.iteration_time_s &&
		  plain.iteration_time_s <= plain.band.iteration_time_s.p90);
	ck_assert(!strstr(plain.warnings, "outside their 80 % band"));
}
END_TEST

/* One sample is the deterministic run: every quantile is the figure. More
 * samples leave every figure of the result as it was, only the spread
 * and the band made from it differ. */
START_TEST(one_sample_is_the_figure)
{
	const char *one[] = {"sim.samples=1"}, *many[] = {"sim.samples=300"};
	struct ts_result r1, rn;
	run_with(one, 1, &r1);
	run_with(many, 1, &rn);
	const struct ts_band *b[9];
	double fig[9];
	bands_of(&r1, b, fig);
	for (int i = 0; i < 9; i++)
		ck_assert_msg(b[i]->p10 == fig[i] && b[i]->p50 == fig[i] && b[i]->p90 == fig[i],
			      "figure %d", i);
	ck_assert(memcmp(&r1.spread, &rn.spread, sizeof r1.spread) != 0);
	/* the reported band is the spread widened by the model error */
	memset(&r1.spread, 0, sizeof r1.spread);
	memset(&rn.spread, 0, sizeof rn.spread);
	memset(&r1.band, 0, sizeof r1.band);
	memset(&rn.band, 0, sizeof rn.band);
	ck_assert(memcmp(&r1, &rn, sizeof r1) == 0);
}
END_TEST

/* Failures drawn per replica, by hand: the bundled 300-billion-token run
 * on 8 GPUs, every GPU at the median (sd = 0), expects lambda =
 * failures_expected = 0.0815 failures (Llama 3's rates over the run's
 * time, 0.0804 before gemm_k0 came from a GEMM table); a Poisson count
 * is 0 with probability exp(-0.0815) = 0.922, more than 0.9, so p10, p50
 * and p90 of the time to train are all the run without failures, the
 * headline less its expected failure time (failure_s): of 2,000 replicas
 * 7.8 % fail (sd 0.6 %), and p90 stays put while fewer than 10 % do. The
 * iteration does not vary at all. */
START_TEST(failures_drawn)
{
	const char *sets[] = {"sim.straggler_sd=0", "sim.samples=2000"};
	struct ts_result r;
	run_with(sets, 2, &r);
	ck_assert_msg(fabs(r.failures_expected - 0.0815) < 0.0005, "%.4f", r.failures_expected);
	double w0 = r.time_to_train_s - r.failure_s;
	ck_assert(r.failure_s > 0.0);
	const struct ts_band *t = &r.spread.time_to_train_s;
	ck_assert_msg(fabs(t->p10 - w0) < 1e-9 * w0 && fabs(t->p50 - w0) < 1e-9 * w0 &&
			  fabs(t->p90 - w0) < 1e-9 * w0,
		      "%.3f %.3f %.3f, want %.3f", t->p10, t->p50, t->p90, w0);
	ck_assert(r.spread.iteration_time_s.p10 == r.iteration_time_s &&
		  r.spread.iteration_time_s.p90 == r.iteration_time_s);
}
END_TEST

/* Bit-identical spread at one and two threads (replicas drawn in parallel
 * from 4,096 on), and from one call to the next; another seed, another
 * spread. */
START_TEST(same_at_one_and_two_threads)
{
	const char *sets[] = {"sim.jitter=0.02",
			      "sim.net_noise=0.05",
			      "sim.slow_node_probability=0.05",
			      "sim.slow_link_probability=0.05",
			      "sim.samples=5000",
			      "seed=11"};
	struct ts_result a, b, c;
#ifdef _OPENMP
	omp_set_num_threads(1);
#endif
	run_with(sets, 6, &a);
#ifdef _OPENMP
	omp_set_num_threads(2);
#endif
	run_with(sets, 6, &b);
	ck_assert(memcmp(&a.spread, &b.spread, sizeof a.spread) == 0);
	run_with(sets, 6, &c);
	ck_assert(memcmp(&b.spread, &c.spread, sizeof b.spread) == 0);
	const char *other[] = {"sim.jitter=0.02",
			       "sim.net_noise=0.05",
			       "sim.slow_node_probability=0.05",
			       "sim.slow_link_probability=0.05",
			       "sim.samples=5000",
			       "seed=12"};
	run_with(other, 6, &c);
	ck_assert(memcmp(&b.spread, &c.spread, sizeof b.spread) != 0);
}
END_TEST

/* A run in phases: its spread sums the phases' whole-run figures replica
 * by replica, ordered; with one sample it is the figure. */
START_TEST(phases_spread)
{
	static const char text[] =
	    "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
	    "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; };\n"
	    "sim = { samples = 400; };\n"
	    "phases = ( { tokens = 2e10; }, { tokens = 1e10; seq_len = 1024; } );\n";
	struct ts_scenario *sc;
	struct ts_error e;
	ck_assert_msg(ts_scenario_load_string(cat, text, "phases", NULL, 0, &sc, &e) == 0, "%s",
		      e.msg);
	struct ts_result r;
	ck_assert_msg(ts_run(sc, &calib, &r, NULL, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(r.n_phases, 2);
	const struct ts_band *b[9];
	double fig[9];
	bands_of(&r, b, fig);
	for (int i = 0; i < 9; i++)
		ck_assert_msg(b[i]->p10 <= b[i]->p50 && b[i]->p50 <= b[i]->p90, "figure %d", i);
	ck_assert(r.spread.time_to_train_s.p10 < r.spread.time_to_train_s.p90);
	/* the sum of two phases is near the figure, the sum of theirs */
	ck_assert(fabs(r.spread.time_to_train_s.p50 / r.time_to_train_s - 1.0) < 0.05);
	sc->sim.samples = 1;
	ck_assert_msg(ts_run(sc, &calib, &r, NULL, &e) == 0, "%s", e.msg);
	bands_of(&r, b, fig);
	for (int i = 0; i < 9; i++)
		ck_assert_msg(b[i]->p10 == fig[i] && b[i]->p90 == fig[i], "figure %d", i);
	ts_scenario_destroy(sc);
}
END_TEST

/* Each key refused out of range, naming it and the range. */
START_TEST(keys_validated)
{
	const struct {
		const char *set, *key, *want;
	} cs[] = {
	    {"sim.samples=0", "sim.samples", "positive"},
	    {"sim.samples=100001", "sim.samples", "100000"},
	    {"sim.jitter=0.6", "sim.jitter", "0.5"},
	    {"sim.net_noise=-0.1", "sim.net_noise", "0"},
	    {"sim.slow_node_probability=1.5", "sim.slow_node_probability", "1"},
	    {"sim.slow_node_slowdown=11", "sim.slow_node_slowdown", "10"},
	    {"sim.slow_link_probability=2", "sim.slow_link_probability", "1"},
	    {"sim.slow_link_bandwidth=0", "sim.slow_link_bandwidth", "0.01"},
	    /* a denormal fraction would make the drawn times overflow to inf */
	    {"sim.slow_link_bandwidth=1e-310", "sim.slow_link_bandwidth", "0.01"},
	};
	char path[1024], buf[1400];
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", tu_root());
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		struct ts_scenario *sc = NULL;
		struct ts_error e;
		const char *sets[] = {cs[i].set};
		ck_assert_int_eq(ts_scenario_load(cat, path, sets, 1, &sc, &e), TS_ERANGE);
		ts_error_format(&e, buf, sizeof buf);
		ck_assert_msg(strstr(buf, cs[i].key) && strstr(buf, cs[i].want), "%s: %s",
			      cs[i].set, buf);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mc");
	TCase *tc = tu_tcase("mc");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, max_draw_by_hand);
	tcase_add_test(tc, straggler_1024_slower_than_8);
	tcase_add_test(tc, quantiles_ordered);
	tcase_add_test(tc, headline_outside_band_warned);
	tcase_add_test(tc, one_sample_is_the_figure);
	tcase_add_test(tc, failures_drawn);
	tcase_add_test(tc, same_at_one_and_two_threads);
	tcase_add_test(tc, phases_spread);
	tcase_add_test(tc, keys_validated);
	suite_add_tcase(s, tc);
	return tu_run(s) ? 1 : 0;
}
