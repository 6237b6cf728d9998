/* The queue model's speed: 100,000 jobs (1 to 64 GPUs, lognormal run
 * times, offered load 0.85) on 1,000 nodes of 8 GPUs, EASY backfill and
 * FIFO; prints CPU and wall time and events per second (the target is at
 * most 10 s of CPU for a run).
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "bench_clock.h"
#include "io/jobs.h"
#include "sweep/queue.h"

int main(void)
{
	struct queue_mix m = {.jobs = 100000,
			      .size_gpus = {1, 8, 16, 64},
			      .size_weight = {5, 3, 1, 1},
			      .nsizes = 4,
			      .dist = QUEUE_DIST_LOGNORMAL,
			      .a = 1800,
			      .b = 1.2,
			      .users = 20,
			      .seed = 1};
	/* rate for load 0.85: 0.85 x 8000 GPUs / (mean GPUs x mean run time) */
	double g = (5 * 1 + 3 * 8 + 16 + 64) / 10.0;
	m.rate_per_s = 0.85 * 8000 / (g * queue_mix_mean_s(&m));
	struct jobs_list l = {0};
	struct ts_error err = {0};
	if (queue_synth(&m, &l, &err)) {
		fprintf(stderr, "bench_queue: %s\n", err.msg);
		return 1;
	}
	const char *names[] = {"fifo", "backfill", "priority"};
	for (int p = 0; p < 3; p++) {
		struct queue_cfg c = {.nodes = 1000,
				      .gpus_per_node = 8,
				      .nodes_per_leaf = 16,
				      .policy = (enum queue_policy)p};
		struct queue_stats st;
		double w0 = bench_wall_s(), c0 = bench_cpu_s();
		if (queue_run(&l, &c, &st, &err)) {
			fprintf(stderr, "bench_queue: %s\n", err.msg);
			return 1;
		}
		double w = bench_wall_s() - w0, cpu = bench_cpu_s() - c0;
		printf("queue %-8s 100000 jobs on 1000 nodes: %.3f s CPU, %.3f s wall, %.2f M "
		       "events/s; utilisation %.3f, mean wait %.1f s, p90 %.1f s\n",
		       names[p], cpu, w, (double)st.events / cpu / 1e6, st.utilisation,
		       st.mean_wait_s, st.p90_wait_s);
		queue_stats_free(&st);
	}
	jobs_free(&l);
	return 0;
}
