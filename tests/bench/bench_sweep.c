/* Benchmark: configurations per second of a sweep (each point loaded from
 * the base scenario with its --set values, simulated, and written as a CSV
 * row) at stage granularity, on one and two threads, and of searches: GPT-3
 * 1.3B up to 128 GPUs, and GPT-3 175B up to 1,024 A100s (128 DGX A100
 * nodes; TS_BENCH_SEARCH_GPUS sets another count), exhaustive and bounded
 * for the top 10, in wall and CPU time.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/sweepcfg.h"
#include "report/sweeprow.h"
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
			if (sweep_run(sp, &report_sweep_cols, cat, &calib, 0, threads, null, NULL,
				      NULL, &err)) {
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
	/* TS_BENCH_SEARCH_GPUS: the 175B search's largest GPU count (1,024
	 * unless set: the exhaustive search takes minutes there) */
	const char *mg = getenv("TS_BENCH_SEARCH_GPUS");
	uint32_t big_gpus = mg && atoi(mg) > 0 ? (uint32_t)atoi(mg) : 1024u;
	char big_what[64];
	snprintf(big_what, sizeof big_what, "GPT-3 175B up to %u A100s", big_gpus);
	const struct {
		const char *what, *path;
		uint32_t max_gpus;
	} searches[] = {{"GPT-3 1.3B up to 128 GPUs", path, 128}, {big_what, big, big_gpus}};
	/* each search exhaustive (every candidate that fits the estimate) on
	 * one thread, then bounded for the top 10 on one and two threads; the
	 * bounded top 10 is compared with the exhaustive one */
	const struct {
		size_t top;
		int threads;
	} runs[] = {{0, 1}, {10, 1}, {10, 2}};
	for (size_t k = 0; k < 2; k++) {
		struct search_result ex = {0};
		for (size_t q = 0; q < 3; q++) {
			struct search_result sr;
			int threads = runs[q].threads;
			double t0 = now_s(), c0 = cpu_s();
			if (search_run(cat, &calib, searches[k].path, NULL, 0, SEARCH_TIME,
				       searches[k].max_gpus, threads, runs[q].top, &sr, &err)) {
				fprintf(stderr, "bench_sweep: %s\n", err.msg);
				return 1;
			}
			double t = now_s() - t0, c = cpu_s() - c0;
			size_t same = 0, want = ex.ranked < 10 ? ex.ranked : 10;
			for (size_t i = 0; q > 0 && i < want && i < sr.ranked; i++)
				same += sr.c[i].score == ex.c[i].score &&
					sr.c[i].tp == ex.c[i].tp && sr.c[i].pp == ex.c[i].pp &&
					sr.c[i].dp == ex.c[i].dp && sr.c[i].cp == ex.c[i].cp &&
					sr.c[i].micro_batch == ex.c[i].micro_batch &&
					sr.c[i].zero == ex.c[i].zero &&
					sr.c[i].schedule == ex.c[i].schedule &&
					sr.c[i].recompute == ex.c[i].recompute;
			printf("  search of %s, %s, %d thread%s: %zu configurations, %zu pruned, "
			       "%zu copied, %zu bounded out, %zu simulated in %.3f s wall, %.3f s "
			       "CPU in all (%.1f simulated per CPU second, %.3f ms CPU per "
			       "simulated candidate)",
			       searches[k].what, runs[q].top ? "bounded top 10" : "exhaustive",
			       threads, threads == 1 ? "" : "s", sr.n, sr.pruned, sr.aliases,
			       sr.bounded, sr.simulated, t, c, (double)sr.simulated / c,
			       sr.simulated ? 1e3 * c / (double)sr.simulated : 0.0);
			if (q > 0)
				printf("; top %zu the same as exhaustive: %zu of %zu", want, same,
				       want);
			printf("\n");
			if (q == 0)
				ex = sr;
			else
				search_result_free(&sr);
		}
		search_result_free(&ex);
	}
	unlink(big);
	fclose(null);
	sweepcfg_destroy(sp);
	hw_catalog_destroy(cat);
	return 0;
}
