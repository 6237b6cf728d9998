/* Benchmark: CPU and wall time of one work_costs_compute (layer, embedding and head
 * ops timed for one model, shape and GPU), the inner step of a calibration fit.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "bench_clock.h"
#include "hw/catalog.h"
#include "work/compute.h"
#include "work/model.h"

int main(void)
{
	const char *root = getenv("TS_SOURCE_DIR") ? getenv("TS_SOURCE_DIR") : TS_SOURCE_DIR;
	struct ts_error e;
	char buf[1200];
	struct hw_catalog *cat;
	struct ts_model m;
	if (hw_catalog_load(root, &cat, &e) || ts_model_load(root, "llama2-70b", &m, &e)) {
		fprintf(stderr, "bench_costs: %s\n", ts_error_format(&e, buf, sizeof buf));
		return EXIT_FAILURE;
	}
	int gi = hw_catalog_find_gpu(cat, "A100-SXM4-80GB");
	if (gi < 0) {
		fprintf(stderr, "bench_costs: no A100-SXM4-80GB in the catalog\n");
		hw_catalog_destroy(cat);
		return EXIT_FAILURE;
	}
	const struct hw_gpu_type *g = hw_catalog_gpu(cat, (size_t)gi);
	struct work_shape s = {.micro_batch = 1,
			       .seq_len = 4096,
			       .tp = 8,
			       .sp = true,
			       .dtype = TS_BF16,
			       .flash = true,
			       .causal = true};
	struct work_calib c = work_calib_defaults();
	static struct work_costs k;
	const int n = 100000;
	double sink = 0.0, t0 = bench_wall_s(), c0 = bench_cpu_s();
	for (int i = 0; i < n; i++) {
		/* as a fitter would vary it (a fraction of a tile's write) */
		c.gemm_k0 = 0.1 + 0.8 * (double)(i % 128) / 127.0;
		if (work_costs_compute(&m, &s, g, &c, &k, &e)) {
			fprintf(stderr, "bench_costs: %s\n", ts_error_format(&e, buf, sizeof buf));
			hw_catalog_destroy(cat);
			return EXIT_FAILURE;
		}
		sink += k.layer_fwd_s;
	}
	double dt = bench_wall_s() - t0, dc = bench_cpu_s() - c0;
	printf("work_costs_compute (llama2-70b, tp 8, A100): %.2f us CPU, %.2f us wall per call "
	       "(%d calls, sum %.3g s)\n",
	       dc / n * 1e6, dt / n * 1e6, n, sink);
	hw_catalog_destroy(cat);
	return EXIT_SUCCESS;
}
