/* Benchmark: one iteration of Llama 3 405B on 16,384 H100 (2,048 DGX H100,
 * TP8 PP16 DP128, 1F1B, sequence parallelism; global batch 2,048 of 8,192
 * tokens = 16M tokens, micro-batch 1, so 16 micro-batches per pipeline) at
 * stage and at layer granularity, in class mode and with every rank
 * simulated (full mode), each in a process of its own: wall and CPU seconds
 * and peak RSS. With MODE GRANULARITY (class|full stage|layer), only that
 * run, in this process. Not a test: prints its figures.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_clock.h"

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "work/compute.h"

static const char scenario[] =
    "model = \"llama3-405b\"; cluster = \"dgx-h100\"; nodes = 2048;"
    "training = { framework = \"megatron\"; global_batch = 2048; micro_batch = 1;"
    "  seq_len = 8192; iterations = 2; };"
    "parallel = { tp = 8; pp = 16; sp = true; };";

/* One run in mode full or class at granularity gran; prints its
 * figures. Returns 0 or 1. */
static int one(bool full, const char *gran)
{
	struct hw_catalog *cat;
	struct work_calib calib;
	struct ts_error err;
	struct ts_scenario *sc;
	struct ts_result r;
	char g[64];
	snprintf(g, sizeof g, "sim.granularity=\"%s\"", gran);
	const char *sets[] = {full ? "sim.mode=full" : "sim.mode=class", g};
	const char *root = getenv("TS_DATA_DIR");
	root = root && *root ? root : TS_SOURCE_DIR;
	if (hw_catalog_load(root, &cat, &err) || work_calib_load(root, &calib, &err) ||
	    ts_scenario_load_string(cat, scenario, "bench_llama405b", sets, 2, &sc, &err)) {
		fprintf(stderr, "bench_llama405b: %s\n", err.msg);
		return 1;
	}
	double t0 = bench_wall_s(), c0 = bench_cpu_s();
	int rc = ts_run(sc, &calib, &r, NULL, &err);
	double wall = bench_wall_s() - t0, cpu = bench_cpu_s() - c0;
	if (rc) {
		fprintf(stderr, "bench_llama405b: %s\n", err.msg);
		return 1;
	}
	printf("llama3-405b 16384 H100 TP8 PP16 DP128 %s %s mode: %.3f s wall, %.3f s CPU "
	       "(2 simulated iterations), peak RSS %.1f MiB; iteration %.3f s, bubble %.3f s, "
	       "MFU %.3f\n",
	       gran, full ? "full" : "class", wall, cpu, bench_peak_rss_mib(), r.iteration_time_s,
	       r.bubble_s, r.mfu);
	ts_scenario_destroy(sc);
	hw_catalog_destroy(cat);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2)
		return one(!strcmp(argv[1], "full"), argv[2]);
	/* a process per run, so that each peak RSS is its own; a run that
	 * fails (full mode above sim.max_memory) does not stop the others */
	int rc = 0;
	for (int m = 0; m < 4; m++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			int failed = one(m % 2 == 1, m < 2 ? "stage" : "layer");
			fflush(stdout);
			_exit(failed);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			return 1;
		rc |= WEXITSTATUS(st) != 0;
	}
	return rc;
}
