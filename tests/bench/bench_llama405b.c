/* Benchmark: one iteration of Llama 3 405B on 16,384 H100 (2,048 DGX H100,
 * TP8 PP16 DP128, 1F1B, sequence parallelism; global batch 2,048 of 8,192
 * tokens = 16M tokens, micro-batch 1, so 16 micro-batches per pipeline) at
 * stage granularity, in class mode and, with --full, every rank simulated:
 * wall seconds and peak RSS. Not a test: prints its figures.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "work/compute.h"

static const char scenario[] =
    "model = \"llama3-405b\"; cluster = \"dgx-h100\"; nodes = 2048;"
    "training = { framework = \"megatron\"; global_batch = 2048; micro_batch = 1;"
    "  seq_len = 8192; iterations = 2; };"
    "parallel = { tp = 8; pp = 16; sp = true; };"
    "sim = { granularity = \"stage\"; };";

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	bool full = argc > 1 && !strcmp(argv[1], "--full");
	struct hw_catalog *cat;
	struct work_calib calib;
	struct ts_error err;
	struct ts_scenario *sc;
	struct ts_result r;
	const char *sets[] = {full ? "sim.mode=full" : "sim.mode=class"};
	const char *root = getenv("TS_DATA_DIR");
	root = root && *root ? root : TS_SOURCE_DIR;
	if (hw_catalog_load(root, &cat, &err) || work_calib_load(root, &calib, &err) ||
	    ts_scenario_load_string(cat, scenario, "bench_llama405b", sets, 1, &sc, &err)) {
		fprintf(stderr, "bench_llama405b: %s\n", err.msg);
		return 1;
	}
	double t0 = now_s();
	int rc = ts_run(sc, &calib, &r, NULL, &err);
	double wall = now_s() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (rc) {
		fprintf(stderr, "bench_llama405b: %s\n", err.msg);
		return 1;
	}
	printf("llama3-405b 16384 H100 TP8 PP16 DP128 stage %s mode: %.3f s wall "
	       "(2 simulated iterations), peak RSS %.1f MiB; iteration %.3f s, bubble %.3f s, "
	       "MFU %.3f\n",
	       full ? "full" : "class", wall, (double)ru.ru_maxrss / 1024.0, r.iteration_time_s,
	       r.bubble_s, r.mfu);
	ts_scenario_destroy(sc);
	hw_catalog_destroy(cat);
	return 0;
}
