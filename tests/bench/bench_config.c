/* Benchmark: CPU time per configuration of the jobs where search matters.
 * GPT-3 175B on 1,024 A100 (128 DGX A100, TP8 PP16 DP8, global batch 1536,
 * micro-batch 1), scenario parsed once and simulated many times, at the
 * default granularity (auto: stage here, where stage gives layer's
 * figures), at layer and at stage, each ts_run on its own and each
 * run on a plan built once and storage kept from run to run (run_plan_in,
 * as a sweep's thread runs its points); and a 100-point data-parallel
 * sweep of GPT-3 1.3B on 8 to 128 A100 (each point loaded, simulated and
 * written as a CSV row) on one thread. Wall and CPU time of each.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "bench_clock.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "io/sweepcfg.h"
#include "report/sweeprow.h"
#include "plan/env.h"
#include "plan/plan.h"
#include "run/run.h"
#include "sweep/sweep.h"
#include "work/compute.h"

/* CPU seconds each figure is measured over, at least. */
#define TARGET_CPU_S 2.0

static const char gpt175b[] =
    "model = \"gpt3-175b\"; cluster = \"dgx-a100-80gb\"; nodes = 128;\n"
    "training = { framework = \"megatron\"; global_batch = 1536; micro_batch = 1;"
    " seq_len = 2048; };\n"
    "parallel = { tp = 8; pp = 16; };\n";

/* 5 node counts x 4 micro-batches x 5 buckets = 100 points, pure data
 * parallelism, at layer and at stage granularity (the default here), each
 * point with its spread over the default sim.samples replicas. */
#define DP_SWEEP(SIM)                                                                              \
	"base = { model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"                           \
	"  training = { global_batch = 1024; seq_len = 2048; tokens = 3.0e11; };" SIM " };\n"      \
	"axes = { nodes = [1, 2, 4, 8, 16];\n"                                                     \
	"  training = { micro_batch = [1, 2, 4, 8]; };\n"                                          \
	"  \"parallel.bucket\" = [\"10 MiB\", \"25 MiB\", \"40 MiB\", \"100 MiB\", \"none\"]; "    \
	"};\n"
static const char *const dp_sweeps[2] = {DP_SWEEP(" sim = { granularity = \"layer\"; };"),
					 DP_SWEEP(" sim = { granularity = \"stage\"; };")};
static const char *const dp_sweep_gran[2] = {"layer", "stage"};

/* One configuration run: the scenario through ts_run, or (plan set) the
 * plan through run_plan_in on the arena. */
struct one_run {
	struct ts_scenario *sc;
	const struct work_calib *calib;
	struct ts_plan *plan;
	struct run_arena *arena;
};

/* Runs x until TARGET_CPU_S of CPU time has gone and prints a row: runs,
 * CPU and wall ms per configuration, page faults per configuration, the
 * iteration time. Returns 0, or 1 after printing the error. */
static int timed(const char *label, const char *note, struct one_run *x)
{
	struct ts_result r;
	struct ts_error err;
	char buf[1200];
	int n = 0;
	double w0 = bench_wall_s(), c0 = bench_cpu_s(), c;
	long f0 = bench_minflt();
	do {
		int rc = x->plan ? run_plan_in(x->plan, x->arena, &r, NULL, &err)
				 : ts_run(x->sc, x->calib, &r, NULL, &err);
		if (rc) {
			fprintf(stderr, "bench_config: %s\n",
				ts_error_format(&err, buf, sizeof buf));
			return 1;
		}
		n++;
		c = bench_cpu_s() - c0;
	} while (c < TARGET_CPU_S);
	double w = bench_wall_s() - w0;
	printf("%-12s %8d %14.2f %14.2f %14.0f %14.4f%s\n", label, n, 1e3 * c / n, 1e3 * w / n,
	       (double)(bench_minflt() - f0) / n, r.iteration_time_s, note);
	return 0;
}

int main(void)
{
	const char *root = getenv("TS_DATA_DIR");
	root = root && *root ? root : TS_SOURCE_DIR;
	struct hw_catalog *cat;
	struct work_calib calib;
	struct ts_error err;
	char buf[1400];
	if (hw_catalog_load(root, &cat, &err) || work_calib_load(root, &calib, &err)) {
		fprintf(stderr, "bench_config: %s\n", ts_error_format(&err, buf, sizeof buf));
		return 1;
	}
	struct ts_scenario *sc;
	if (ts_scenario_load_string(cat, gpt175b, "bench_config", NULL, 0, &sc, &err)) {
		fprintf(stderr, "bench_config: %s\n", ts_error_format(&err, buf, sizeof buf));
		return 1;
	}
	printf("bench_config: GPT-3 175B, 1,024 A100, TP8 PP16 DP8, batch 1536, micro-batch 1, "
	       "class mode, in-process\n");
	printf("%-12s %8s %14s %14s %14s %14s\n", "granularity", "runs", "CPU ms/config",
	       "wall ms/config", "faults/config", "iteration (s)");
	/* the default (auto: stage here, where it gives layer's figures),
	 * then each level */
	const enum ts_granularity gr[3] = {TS_GRAN_AUTO, TS_GRAN_LAYER, TS_GRAN_STAGE};
	for (int i = 0; i < 3; i++) {
		sc->sim.granularity = gr[i];
		struct one_run x = {.sc = sc, .calib = &calib};
		if (timed(ts_granularity_name(gr[i]), "", &x))
			return 1;
	}
	/* the plan built once, the task graph's storage kept across runs */
	struct ts_env env;
	struct run_arena ar = {0};
	if (env_wrap(cat, &calib, &env, &err)) {
		fprintf(stderr, "bench_config: %s\n", ts_error_format(&err, buf, sizeof buf));
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		sc->sim.granularity = gr[i];
		struct ts_plan *p = NULL;
		if (plan_build(&env, sc, &p, &err)) {
			fprintf(stderr, "bench_config: %s\n",
				ts_error_format(&err, buf, sizeof buf));
			return 1;
		}
		struct one_run x = {.plan = p, .arena = &ar};
		int rc = timed(ts_granularity_name(gr[i]), "  (plan once, run_plan_in)", &x);
		plan_destroy(p);
		if (rc)
			return 1;
	}
	run_arena_release(&ar);
	env_release(&env);
	ts_scenario_destroy(sc);

	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return 1;
	for (int k = 0; k < 2; k++) {
		struct sweep_spec *sp;
		if (sweepcfg_load_string(dp_sweeps[k], "bench_config-sweep", &sp, &err)) {
			fprintf(stderr, "bench_config: %s\n",
				ts_error_format(&err, buf, sizeof buf));
			fclose(null);
			return 1;
		}
		double w0 = bench_wall_s(), c0 = bench_cpu_s();
		long f0 = bench_minflt();
		if (sweep_run(sp, &report_sweep_cols, cat, &calib, 0, 1, null, NULL, NULL, &err)) {
			fprintf(stderr, "bench_config: %s\n",
				ts_error_format(&err, buf, sizeof buf));
			sweepcfg_destroy(sp);
			fclose(null);
			return 1;
		}
		double w = bench_wall_s() - w0, c = bench_cpu_s() - c0;
		printf("%zu-point data-parallel sweep, GPT-3 1.3B on 8-128 A100, %s, 1 thread: "
		       "%.3f s CPU (%.2f ms per point, %.0f points/s), %.3f s wall, %.0f page "
		       "faults per point\n",
		       sp->npoints, dp_sweep_gran[k], c, 1e3 * c / (double)sp->npoints,
		       (double)sp->npoints / c, w,
		       (double)(bench_minflt() - f0) / (double)sp->npoints);
		sweepcfg_destroy(sp);
	}
	fclose(null);
	hw_catalog_destroy(cat);
	return 0;
}
