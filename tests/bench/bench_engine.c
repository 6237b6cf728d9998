/* Event-queue benchmark: the classic hold model (pop the next event, push one
 * at now + Exp(mean)) with 1 k, 64 k and 1 M pending events: events per CPU
 * second (the figure a loaded machine does not change) and per wall second.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getrusage */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"

#include "base/err.h"
#include "engine/evq.h"

/* Mean gap of the exponential increments, ns. */
#define MEAN_NS 1000.0
/* The increments are drawn from GSL once, into a table the callback walks,
 * so the figures measure the queue and not the generator. Power of two. */
#define NDRAWS (1u << 20)
/* Target CPU time per queue size, s. */
#define TARGET_S 1.0

struct hold {
	struct ts_evq *q;
	const ts_time *draws;
	uint32_t next;
	int failed;
};

static void hold_fn(void *ctx, uint64_t arg)
{
	struct hold *h = ctx;
	ts_time at = evq_now(h->q) + h->draws[h->next++ & (NDRAWS - 1)];
	if (evq_push(h->q, at, hold_fn, h, arg, NULL))
		h->failed = 1;
}

static int run(size_t n, gsl_rng *rng, const ts_time *draws)
{
	struct ts_evq *q;
	if (evq_create(&q, n)) {
		fprintf(stderr, "bench_engine: out of memory for %zu events\n", n);
		return 1;
	}
	struct hold h = {.q = q, .draws = draws};
	for (size_t i = 0; i < n; i++) {
		double gap = gsl_ran_exponential(rng, MEAN_NS * (double)n);
		if (evq_push(q, (ts_time)gap, hold_fn, &h, i, NULL)) {
			fprintf(stderr, "bench_engine: push failed at %zu\n", i);
			evq_destroy(q);
			return 1;
		}
	}
	/* Warm up (fault in pages, reach the steady-state key distribution),
	 * then run batches until about TARGET_S has passed. */
	for (size_t i = 0; i < n && i < (1u << 22); i++)
		evq_step(q);
	const uint64_t batch = 1u << 16;
	uint64_t ops = 0;
	double t0 = bench_wall_s(), c0 = bench_cpu_s(), el = 0.0;
	do {
		for (uint64_t i = 0; i < batch; i++)
			evq_step(q);
		ops += batch;
		el = bench_cpu_s() - c0;
	} while (el < TARGET_S);
	double wall = bench_wall_s() - t0;
	if (h.failed || evq_pending(q) != n) {
		fprintf(stderr, "bench_engine: queue lost events (%zu of %zu pending)\n",
			evq_pending(q), n);
		evq_destroy(q);
		return 1;
	}
	printf("evq hold  N = %8zu  %12llu ops in %.3f s CPU  %7.2f M events per CPU s  %6.1f ns "
	       "CPU/hold  (%.3f s wall, %7.2f M events per wall s)  peak RSS %.0f MiB\n",
	       n, (unsigned long long)ops, el, (double)ops / el / 1e6, el / (double)ops * 1e9, wall,
	       (double)ops / wall / 1e6, bench_peak_rss_mib());
	evq_destroy(q);
	return 0;
}

int main(void)
{
	static const size_t sizes[] = {1000, 65536, 1048576};
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	ts_time *draws = malloc(NDRAWS * sizeof *draws);
	if (!rng || !draws) {
		fprintf(stderr, "bench_engine: out of memory\n");
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && !rc; i++) {
		/* The increment mean scales with N so the keys span the same
		 * relative range (and tie as rarely) for every size. */
		gsl_rng_set(rng, 42 + i);
		double mean = MEAN_NS * (double)sizes[i];
		for (uint32_t j = 0; j < NDRAWS; j++)
			draws[j] = (ts_time)ceil(gsl_ran_exponential(rng, mean));
		rc = run(sizes[i], rng, draws);
	}
	free(draws);
	gsl_rng_free(rng);
	return rc;
}
