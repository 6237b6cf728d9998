/* Benchmark: CPU and wall time to load 2,048 DGX A100 nodes on one switch and on a
 * 3-level fat-tree of radix-64 switches (best of three loads each).
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "bench_clock.h"
#include "hw/catalog.h"
#include "hw/cluster.h"

/* Wall seconds to load the cluster of `text` (a `cluster = ...;` setting),
 * or a negative value on error; *cpu gets the CPU seconds, *devices its
 * device count. */
static double load(const struct hw_catalog *cat, const char *text, double *cpu, uint32_t *devices)
{
	config_t cfg;
	config_init(&cfg);
	if (config_read_string(&cfg, text) != CONFIG_TRUE) {
		config_destroy(&cfg);
		return -1.0;
	}
	struct hw_cluster *c = NULL;
	struct ts_error err;
	double t0 = bench_wall_s(), c0 = bench_cpu_s();
	int rc = hw_cluster_from_setting(cat, config_lookup(&cfg, "cluster"), "bench.cfg", NULL, &c,
					 &err);
	double dt = bench_wall_s() - t0;
	*cpu = bench_cpu_s() - c0;
	config_destroy(&cfg);
	if (rc)
		return -1.0;
	*devices = hw_cluster_ndevices(c);
	hw_cluster_destroy(c);
	return dt;
}

int main(void)
{
	struct hw_catalog *cat;
	struct ts_error err;
	const char *root = getenv("TS_DATA_DIR");
	if (hw_catalog_load(root && *root ? root : TS_SOURCE_DIR, &cat, &err)) {
		fprintf(stderr, "bench_fabric: cannot load the catalog\n");
		return 1;
	}
	static const char *const names[] = {"one switch", "3-level fat-tree"};
	static const char *const texts[] = {
	    "cluster = { base = \"dgx-a100-80gb\"; nodes = 2048; };",
	    "cluster = { base = \"dgx-a100-80gb\"; nodes = 2048;"
	    " fabric = { topology = \"fat-tree\"; levels = 3; radix = 64; }; };"};
	printf("bench_fabric: load 2048 x DGX A100\n%18s  %8s  %10s  %10s\n", "fabric", "devices",
	       "CPU (ms)", "wall (ms)");
	for (int i = 0; i < 2; i++) {
		double best = 1e30, cbest = 1e30, c = 0.0;
		uint32_t dev = 0;
		for (int rep = 0; rep < 3; rep++) {
			double w = load(cat, texts[i], &c, &dev);
			if (w < 0.0) {
				fprintf(stderr, "bench_fabric: load failed\n");
				hw_catalog_destroy(cat);
				return 1;
			}
			best = w < best ? w : best;
			cbest = c < cbest ? c : cbest;
		}
		printf("%18s  %8u  %10.1f  %10.1f\n", names[i], dev, cbest * 1e3, best * 1e3);
	}
	hw_catalog_destroy(cat);
	return 0;
}
