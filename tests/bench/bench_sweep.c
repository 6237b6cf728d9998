/* Benchmark: configurations per second of a sweep (each point loaded from
 * the base scenario with its --set values, simulated, and written as a CSV
 * row) at stage granularity, on one and two threads, and of searches: GPT-3
 * 1.3B up to 128 GPUs, and GPT-3 175B up to 1,024 A100s (128 DGX A100
 * nodes), the figure (aim: 700 simulated per second per core).
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/sweepcfg.h"
#include "sweep/search.h"
#include "sweep/sweep.h"
#include "work/compute.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the process (every thread): the figure that does not
 * depend on what else the machine runs. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 16 node counts x 4 micro-batches x 3 buckets = 192 points of GPT-3 1.3B on
 * DGX A100 nodes (8 to 128 GPUs), stage granularity. */
static const char *const sweep_text =
    "base = { model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
    "  training = { global_batch = 1024; seq_len = 2048; tokens = 3.0e11; };\n"
    "  cost = { usd_per_gpu_hour = 1.84; }; sim = { granularity = \"stage\"; }; };\n"
    "axes = { nodes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];\n"
    "  training = { micro_batch = [1, 2, 4, 8]; };\n"
    "  \"parallel.bucket\" = [\"25 MiB\", \"100 MiB\", \"none\"]; };\n";

int main(void)
{
	const char *root = getenv("TS_SOURCE_DIR") ? getenv("TS_SOURCE_DIR") : TS_SOURCE_DIR;
	struct hw_catalog *cat;
	struct work_calib calib;
	struct sweep_spec *sp;
	struct ts_error err;
	if (hw_catalog_load(root, &cat, &err) || work_calib_load(root, &calib, &err) ||
	    sweepcfg_load_string(sweep_text, "bench-sweep", &sp, &err)) {
		fprintf(stderr, "bench_sweep: %s\n", err.msg);
		return 1;
	}
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return 1;
	printf("bench_sweep: %zu points of GPT-3 1.3B on 8-128 A100s, stage granularity\n",
	       sp->npoints);
	for (int threads = 1; threads <= 2; threads++) {
		double best = 1e30, cbest = 1e30;
		for (int rep = 0; rep < 3; rep++) {
			double t0 = now_s(), c0 = cpu_s();
			if (sweep_run(sp, cat, &calib, 0, threads, null, NULL, NULL, &err)) {
				fprintf(stderr, "bench_sweep: %s\n", err.msg);
				return 1;
			}
			double t = now_s() - t0, c = cpu_s() - c0;
			if (t < best)
				best = t;
			if (c < cbest)
				cbest = c;
		}
		printf("  %d thread%s: %.3f s, %.0f configurations/s, %.3f ms per point, %.3f ms "
		       "CPU per point\n",
		       threads, threads == 1 ? " " : "s", best, (double)sp->npoints / best,
		       1e3 * best / (double)sp->npoints * threads,
		       1e3 * cbest / (double)sp->npoints);
	}
	/* searches: the default scenario up to 128 GPUs; GPT-3 175B on 1,024
	 * A100s (a valid start: Megatron-LM's tp 8, pp 16 for 175B) */
	char path[4096], big[64];
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", root);
	snprintf(big, sizeof big, "/tmp/bench_search_XXXXXX");
	int fd = mkstemp(big);
	FILE *bf = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!bf)
		return 1;
	fputs("model = \"gpt3-175b\"; cluster = \"dgx-a100-80gb\"; nodes = 128;\n"
	      "training = { global_batch = 1536; seq_len = 2048; tokens = 3.0e11; };\n"
	      "parallel = { tp = 8; pp = 16; };\ncost = { usd_per_gpu_hour = 1.84; };\n",
	      bf);
	if (fclose(bf))
		return 1;
	const struct {
		const char *what, *path;
		uint32_t max_gpus;
	} searches[] = {{"GPT-3 1.3B up to 128 GPUs", path, 128},
			{"GPT-3 175B up to 1,024 A100s", big, 1024}};
	for (size_t k = 0; k < 2; k++)
		for (int threads = 1; threads <= 2; threads++) {
			struct search_result sr;
			double t0 = now_s(), c0 = cpu_s();
			if (search_run(cat, &calib, searches[k].path, NULL, 0, SEARCH_TIME,
				       searches[k].max_gpus, threads, &sr, &err)) {
				fprintf(stderr, "bench_sweep: %s\n", err.msg);
				return 1;
			}
			double t = now_s() - t0, c = cpu_s() - c0;
			printf("  search of %s, %d thread%s: %zu configurations, %zu pruned, %zu "
			       "copied, %zu simulated in %.3f s (%.1f simulated/s, %.1f per core), "
			       "%.3f s in all, %.3f ms CPU per simulated candidate\n",
			       searches[k].what, threads, threads == 1 ? "" : "s", sr.n, sr.pruned,
			       sr.aliases, sr.simulated, sr.seconds,
			       (double)sr.simulated / sr.seconds,
			       (double)sr.simulated / sr.seconds / threads, t,
			       sr.simulated ? 1e3 * c / (double)sr.simulated : 0.0);
			search_result_free(&sr);
		}
	unlink(big);
	fclose(null);
	sweepcfg_destroy(sp);
	hw_catalog_destroy(cat);
	return 0;
}
