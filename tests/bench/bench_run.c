/* Benchmark: simulated configurations per second of `trainsim run` work
 * (scenario parsed once, simulated many times) for GPT-3 6.7B data-parallel
 * on 64 DGX A100 nodes at each granularity, and wall time and peak memory
 * of one Llama-2-70B data-parallel run on 512 GPUs.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "bench_clock.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "work/compute.h"

static int load(const struct hw_catalog *cat, const char *text, struct ts_scenario **sc)
{
	struct ts_error err;
	char buf[1400];
	if (ts_scenario_load_string(cat, text, "bench", NULL, 0, sc, &err)) {
		fprintf(stderr, "bench_run: %s\n", ts_error_format(&err, buf, sizeof buf));
		return -1;
	}
	return 0;
}

int main(void)
{
	const char *root = getenv("TS_DATA_DIR");
	root = root && *root ? root : TS_SOURCE_DIR;
	struct hw_catalog *cat;
	struct work_calib calib;
	struct ts_error err;
	if (hw_catalog_load(root, &cat, &err) || work_calib_load(root, &calib, &err)) {
		fprintf(stderr, "bench_run: cannot load the catalog\n");
		return 1;
	}
	const char *gpt =
	    "model = \"gpt3-6.7b\"; cluster = \"dgx-a100-80gb\"; nodes = 64;\n"
	    "training = { framework = \"megatron\"; global_batch = 1024; micro_batch = 2;"
	    " seq_len = 2048; precision = \"bf16\"; recompute = \"full\"; };\n"
	    "parallel = { bucket = \"40 MiB\"; overlap_grad_reduce = true; };\n";
	struct ts_scenario *sc;
	if (load(cat, gpt, &sc))
		return 1;
	printf(
	    "bench_run: GPT-3 6.7B, DP over 64 x DGX A100 (512 GPUs), class mode, 3 iterations\n");
	printf("%-12s %14s %14s %14s %14s\n", "granularity", "configs/CPU s", "CPU ms/config",
	       "wall ms/config", "iteration (s)");
	const enum ts_granularity gr[3] = {TS_GRAN_OP, TS_GRAN_LAYER, TS_GRAN_STAGE};
	for (int i = 0; i < 3; i++) {
		sc->sim.granularity = gr[i];
		struct ts_result r;
		int n = 0;
		double t0 = bench_wall_s(), c0 = bench_cpu_s(), c;
		do {
			if (ts_run(sc, &calib, &r, NULL, &err)) {
				fprintf(stderr, "bench_run: run failed\n");
				return 1;
			}
			n++;
			c = bench_cpu_s() - c0;
		} while (c < 1.0);
		double t = bench_wall_s() - t0;
		printf("%-12s %14.1f %14.3f %14.3f %14.4f\n", ts_granularity_name(gr[i]), n / c,
		       1e3 * c / n, 1e3 * t / n, r.iteration_time_s);
	}
	ts_scenario_destroy(sc);

	const char *llama =
	    "model = \"llama2-70b\"; cluster = \"dgx-a100-80gb\"; nodes = 64;\n"
	    "training = { framework = \"megatron\"; global_batch = 1024; micro_batch = 1;"
	    " seq_len = 4096; precision = \"bf16\"; recompute = \"full\"; };\n";
	const char *modes[2] = {"class", "full"};
	for (int m = 0; m < 2; m++) {
		if (load(cat, llama, &sc))
			return 1;
		sc->sim.mode = m ? TS_MODE_FULL : TS_MODE_CLASS;
		sc->sim.granularity = TS_GRAN_LAYER;
		struct ts_result r;
		double t0 = bench_wall_s(), c0 = bench_cpu_s();
		if (ts_run(sc, &calib, &r, NULL, &err)) {
			fprintf(stderr, "bench_run: llama run failed\n");
			return 1;
		}
		printf("Llama-2-70B DP on 512 GPUs, layer granularity, %s mode: %.3f s wall, "
		       "%.3f s CPU, iteration %.3f s, fits %s, peak RSS so far %.1f MiB\n",
		       modes[m], bench_wall_s() - t0, bench_cpu_s() - c0, r.iteration_time_s,
		       r.fits ? "yes" : "no", bench_peak_rss_mib());
		ts_scenario_destroy(sc);
	}
	hw_catalog_destroy(cat);
	return 0;
}
