/* Benchmark: CPU and wall time to load a cluster and simulate one all-reduce over
 * every GPU (ring and double binary tree on DGX A100 nodes) or one NVLS
 * all-reduce inside every DGX H100 node at once, on 1,024 and 16,384 GPUs, in
 * class mode and full mode.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/err.h"
#include "bench_clock.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "net/coll.h"
#include "net/net.h"

static void done(void *ctx, uint64_t arg)
{
	(void)arg;
	*(int *)ctx += 1;
}

/* One run; returns wall seconds (cluster load included), CPU seconds in
 * *cpu_s, simulated time in *sim_s, or a negative value on error. */
static double one(const struct hw_catalog *cat, uint32_t nodes, enum net_mode mode, int algo,
		  double bytes, double *cpu_s, double *sim_s, uint64_t *solves)
{
	double t0 = bench_wall_s(), c0 = bench_cpu_s();
	struct hw_cluster_opts o = {.nodes = nodes};
	struct hw_cluster *c;
	struct ts_error err;
	if (hw_cluster_load(cat, algo == COLL_ALGO_NVLS ? "dgx-h100" : "dgx-a100-80gb", &o, &c,
			    &err))
		return -1.0;
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_net *net;
	struct ts_coll *cc;
	uint32_t n = hw_cluster_gpus(c);
	uint32_t *ranks = ts_calloc(n, sizeof *ranks);
	if (!ranks || evq_create(&q, 1024) || fluid_create(&f, q) || net_create(&net, c, f, mode) ||
	    coll_create(&cc, net))
		return -1.0;
	for (uint32_t i = 0; i < n; i++)
		ranks[i] = i;
	int fin = 0, want = 1;
	struct coll_spec s = {.op = COLL_ALL_REDUCE,
			      .ranks = ranks,
			      .nranks = n,
			      .bytes = bytes,
			      .mult = mode == NET_CLASS ? nodes : 1,
			      .algo = algo,
			      .proto = COLL_PROTO_SIMPLE,
			      .done = done,
			      .ctx = &fin};
	if (algo == COLL_ALGO_NVLS) {
		/* one group per node: class mode one collective standing for
		 * all, full mode one per node */
		uint32_t gpn = hw_cluster_gpus_per_node(c);
		s.nranks = gpn;
		want = mode == NET_CLASS ? 1 : (int)nodes;
		for (int k = 0; k < want; k++) {
			s.ranks = ranks + (uint32_t)k * gpn;
			if (coll_start(cc, &s, NULL, &err))
				return -1.0;
		}
	} else if (coll_start(cc, &s, NULL, &err)) {
		return -1.0;
	}
	fluid_run(f, TS_TIME_MAX);
	*sim_s = ts_time_to_s(evq_now(q));
	*solves = fluid_solves(f);
	coll_destroy(cc);
	net_destroy(net);
	fluid_destroy(f);
	evq_destroy(q);
	ts_free(ranks, n * sizeof *ranks);
	hw_cluster_destroy(c);
	*cpu_s = bench_cpu_s() - c0;
	return fin == want ? bench_wall_s() - t0 : -1.0;
}

int main(void)
{
	struct hw_catalog *cat;
	struct ts_error err;
	const char *root = getenv("TS_DATA_DIR");
	if (hw_catalog_load(root && *root ? root : TS_SOURCE_DIR, &cat, &err)) {
		fprintf(stderr, "bench_coll: cannot load the catalog\n");
		return 1;
	}
	printf("bench_coll: 1 GiB all-reduce, Simple: ring and tree over every GPU of N DGX "
	       "A100 nodes, NVLS inside every DGX H100 node\n");
	printf("%8s  %5s  %6s  %12s  %12s  %12s  %8s\n", "GPUs", "algo", "mode", "CPU (ms)",
	       "wall (ms)", "simulated (s)", "solves");
	const uint32_t nodes[] = {128, 2048};
	const int algos[] = {COLL_ALGO_RING, COLL_ALGO_TREE, COLL_ALGO_NVLS};
	for (int ai = 0; ai < 3; ai++)
		for (int i = 0; i < 2; i++)
			for (int m = 0; m < 2; m++) {
				enum net_mode mode = m ? NET_FULL : NET_CLASS;
				double best = 1e30, cbest = 1e30, cpu = 0.0, sim = 0.0;
				uint64_t solves = 0;
				for (int rep = 0; rep < 3; rep++) {
					double w = one(cat, nodes[i], mode, algos[ai], 1073741824.0,
						       &cpu, &sim, &solves);
					if (w < 0.0) {
						fprintf(stderr, "bench_coll: run failed\n");
						return 1;
					}
					if (w < best)
						best = w;
					if (cpu < cbest)
						cbest = cpu;
				}
				printf("%8u  %5s  %6s  %12.3f  %12.3f  %12.6f  %8llu\n",
				       nodes[i] * 8, coll_algo_name((enum coll_algo)algos[ai]),
				       mode == NET_CLASS ? "class" : "full", cbest * 1e3,
				       best * 1e3, sim, (unsigned long long)solves);
			}
	printf("peak RSS: %.1f MiB\n", bench_peak_rss_mib());
	hw_catalog_destroy(cat);
	return 0;
}
