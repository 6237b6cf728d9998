/* Cluster graph: bundled clusters, routes, NIC affinity, overrides, inline
 * groups with `base`, link classes, and errors that name file, line and key.
 * SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <check.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/cluster.h"
#include "testutil.h"

#define NONE UINT32_MAX

static struct hw_catalog *cat;

static struct hw_cluster *load(const char *name, const struct hw_cluster_opts *o)
{
	struct hw_cluster *c = NULL;
	struct ts_error e = {0};
	char buf[1500];
	int rc = hw_cluster_load(cat, name, o, &c, &e);
	ck_assert_msg(rc == 0, "%s: %s", name, ts_error_format(&e, buf, sizeof buf));
	return c;
}

static size_t route(const struct hw_cluster *c, uint32_t s, uint32_t d, uint32_t via,
		    uint32_t *links)
{
	size_t n = 0;
	int rc = hw_cluster_route(c, s, d, via, links, 32, &n);
	ck_assert_msg(rc == 0, "route %u -> %u: %d", s, d, rc);
	return n;
}

/* The route is a connected walk from s to d. */
static void check_walk(const struct hw_cluster *c, uint32_t s, uint32_t d, const uint32_t *links,
		       size_t n)
{
	uint32_t at = s;
	for (size_t k = 0; k < n; k++) {
		const struct hw_link *l = hw_cluster_link(c, links[k]);
		ck_assert_ptr_nonnull(l);
		ck_assert_uint_eq(l->src, at);
		at = l->dst;
	}
	ck_assert_uint_eq(at, d);
}

static bool passes_kind(const struct hw_cluster *c, const uint32_t *links, size_t n,
			enum hw_dev_kind kind)
{
	for (size_t k = 0; k < n; k++)
		if (hw_cluster_device(c, hw_cluster_link(c, links[k])->dst)->kind == kind)
			return true;
	return false;
}

static uint32_t count_kind(const struct hw_cluster *c, enum hw_dev_kind kind)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < hw_cluster_ndevices(c); i++)
		n += hw_cluster_device(c, i)->kind == kind;
	return n;
}

/* --------------------------------------------------------------- bundled */

START_TEST(bundled_counts)
{
	static const struct {
		const char *name, *gpu;
		uint32_t nodes, gpus, nics, devs, links, classes; /* nics per node */
	} want[] = {
	    /* 8 GPU + NVSwitch + 4 PCIe + 2 CPU + 8 NIC = 23 per node, + the switch;
	     * links: 16 NVLink + 16 GPU-PCIe + 16 NIC-PCIe + 8 PCIe-CPU + 2 CPU-CPU
	     * = 58 per node, + 8 NICs x 2 fabric links */
	    {"dgx-a100-40gb", "A100-SXM4-40GB", 1, 8, 8, 24, 74, 74},
	    {"dgx-a100-80gb", "A100-SXM4-80GB", 1, 8, 8, 24, 74, 74},
	    {"dgx-h100", "H100-SXM5-80GB", 1, 8, 8, 24, 74, 74},
	    /* 4 GPU + CPU + NIC + switch; 8 GPU-CPU + 2 NIC-CPU + the CPU's
	     * memory (no peer-to-peer) + 2 fabric */
	    {"rtx4090-x4", "RTX-4090", 1, 4, 1, 7, 13, 13},
	    /* 2 nodes of 16 devices + switch; 44 links per node + 2 x 2 fabric;
	     * classes: 44 + 2 */
	    {"ethernet-10g", "A100-SXM4-80GB", 2, 16, 1, 33, 92, 46},
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		struct hw_cluster *c = load(want[i].name, NULL);
		ck_assert_str_eq(hw_cluster_name(c), want[i].name);
		ck_assert_str_eq(hw_cluster_gpu_type(c)->name, want[i].gpu);
		ck_assert_uint_eq(hw_cluster_nodes(c), want[i].nodes);
		ck_assert_uint_eq(hw_cluster_gpus(c), want[i].gpus);
		ck_assert_uint_eq(hw_cluster_nics_per_node(c), want[i].nics);
		ck_assert_uint_eq(hw_cluster_ndevices(c), want[i].devs);
		ck_assert_uint_eq(hw_cluster_nlinks(c), want[i].links);
		ck_assert_uint_eq(hw_cluster_nclasses(c), want[i].classes);
		ck_assert_uint_eq(count_kind(c, HW_DEV_GPU), want[i].gpus);
		ck_assert_uint_eq(count_kind(c, HW_DEV_SWITCH), 1);
		ck_assert(hw_cluster_description(c)[0] != '\0');
		ck_assert(hw_cluster_source(c)[0] != '\0');
		ck_assert_ptr_eq(hw_cluster_catalog(c), cat);
		hw_cluster_destroy(c);
	}
}
END_TEST

START_TEST(dgx_a100_gpu_pair_over_nvswitch)
{
	struct hw_cluster *c = load("dgx-a100-80gb", NULL);
	uint32_t g0 = hw_cluster_gpu(c, 0), g1 = hw_cluster_gpu(c, 1), r[32];
	size_t n = route(c, g0, g1, NONE, r);
	ck_assert_uint_eq(n, 2);
	check_walk(c, g0, g1, r, n);
	ck_assert_int_eq(hw_cluster_device(c, hw_cluster_link(c, r[0])->dst)->kind,
			 HW_DEV_NVSWITCH);
	int nv3 = hw_catalog_find_link(cat, "nvlink3");
	const struct hw_link_type *t = hw_catalog_link(cat, (size_t)nv3);
	for (size_t k = 0; k < n; k++) {
		const struct hw_link *l = hw_cluster_link(c, r[k]);
		ck_assert_uint_eq(l->type, (uint32_t)nv3);
		ck_assert(tu_relerr(l->bw_Bps, 300e9 * t->efficiency) < 1e-12);
		ck_assert(l->lat_s == t->lat_s);
	}
	ck_assert(hw_cluster_p2p(c));
	/* a GPU reaches its NIC through its PCIe switch */
	n = route(c, g0, hw_cluster_nic(c, 0, 0), NONE, r);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(hw_cluster_device(c, hw_cluster_link(c, r[0])->dst)->kind,
			 HW_DEV_PCIE_SWITCH);
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(rtx4090_pair_through_cpu)
{
	struct hw_cluster *c = load("rtx4090-x4", NULL);
	ck_assert(!hw_cluster_p2p(c));
	uint32_t g0 = hw_cluster_gpu(c, 0), g1 = hw_cluster_gpu(c, 1), r[32];
	size_t n = route(c, g0, g1, NONE, r);
	/* gpu0 -> cpu, into and out of its memory (NCCL's SHM transport), -> gpu1 */
	ck_assert_uint_eq(n, 4);
	check_walk(c, g0, g1, r, n);
	ck_assert(passes_kind(c, r, n, HW_DEV_CPU));
	int pcie4 = hw_catalog_find_link(cat, "pcie4-x16");
	ck_assert_uint_eq(hw_cluster_link(c, r[0])->type, (uint32_t)pcie4);
	int mem = hw_catalog_find_link(cat, "host-memory");
	ck_assert_uint_eq(hw_cluster_link(c, r[1])->type, (uint32_t)mem);
	ck_assert_uint_eq(r[1], r[2]);
	/* 2 x EPYC 7252, 8 x DDR4-3200 each, at STREAM copy's 0.77 */
	ck_assert(tu_relerr(hw_cluster_link(c, r[1])->bw_Bps, 409.6e9 * 0.77) < 1e-12);
	hw_cluster_destroy(c);
}
END_TEST

/* p2p = false on a node with PCIe switches: GPUs that share a switch still
 * bounce through the CPU, not across the switch. */
static struct hw_cluster *from_text(const char *text, const struct hw_cluster_opts *o, int want_rc,
				    struct ts_error *e)
{
	config_t cfg;
	config_init(&cfg);
	ck_assert_msg(config_read_string(&cfg, text) == CONFIG_TRUE, "%s", config_error_text(&cfg));
	struct hw_cluster *c = NULL;
	int rc =
	    hw_cluster_from_setting(cat, config_lookup(&cfg, "cluster"), "scenario.cfg", o, &c, e);
	char buf[1500];
	ck_assert_msg(rc == want_rc, "rc %d, want %d: %s", rc, want_rc,
		      ts_error_format(e, buf, sizeof buf));
	config_destroy(&cfg);
	return c;
}

START_TEST(inline_base_overrides)
{
	struct ts_error e = {0};
	struct hw_cluster *c = from_text("cluster = {\n"
					 "  base = \"dgx-a100-80gb\";\n"
					 "  nodes = 4;\n"
					 "  nic = \"ib-ndr\";\n"
					 "  node = { p2p = false; };\n"
					 "};\n",
					 NULL, 0, &e);
	ck_assert_str_eq(hw_cluster_name(c), "dgx-a100-80gb");
	ck_assert_uint_eq(hw_cluster_nodes(c), 4);
	ck_assert_uint_eq(hw_cluster_gpus(c), 32);
	ck_assert_str_eq(hw_cluster_file(c), "scenario.cfg");
	const struct hw_device *nic = hw_cluster_device(c, hw_cluster_nic(c, 3, 7));
	ck_assert_int_eq(nic->kind, HW_DEV_NIC);
	ck_assert_uint_eq(nic->type, (uint32_t)hw_catalog_find_link(cat, "ib-ndr"));
	ck_assert(!hw_cluster_p2p(c));
	uint32_t g0 = hw_cluster_gpu(c, 0), g1 = hw_cluster_gpu(c, 1), r[32];
	size_t n = route(c, g0, g1, NONE, r);
	/* gpu0 -> pcie0 -> cpu0, into and out of cpu0's memory, -> pcie0 -> gpu1 */
	ck_assert_uint_eq(n, 6);
	check_walk(c, g0, g1, r, n);
	ck_assert(passes_kind(c, r, n, HW_DEV_CPU));
	ck_assert(!passes_kind(c, r, n, HW_DEV_NVSWITCH));
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(internode_route_through_nic_and_switch)
{
	struct hw_cluster_opts o = {.nodes = 2};
	struct hw_cluster *c = load("dgx-a100-80gb", &o);
	ck_assert_uint_eq(hw_cluster_nodes(c), 2);
	uint32_t s = hw_cluster_gpu(c, 0), d = hw_cluster_gpu(c, 8), r[32];
	ck_assert_uint_eq(hw_cluster_device(c, d)->node, 1);
	ck_assert_uint_eq(hw_cluster_device(c, d)->group, 0);
	size_t n = route(c, s, d, NONE, r);
	/* gpu0 -> pcie0 -> nic0 -> switch -> nic0' -> pcie0' -> gpu0' */
	ck_assert_uint_eq(n, 6);
	check_walk(c, s, d, r, n);
	ck_assert_uint_eq(hw_cluster_link(c, r[1])->dst, hw_cluster_nic(c, 0, 0));
	const struct hw_device *sw = hw_cluster_device(c, hw_cluster_link(c, r[2])->dst);
	ck_assert_int_eq(sw->kind, HW_DEV_SWITCH);
	ck_assert_uint_eq(sw->node, HW_FABRIC);
	ck_assert_uint_eq(hw_cluster_link(c, r[3])->dst, hw_cluster_nic(c, 1, 0));
	const struct hw_link *up = hw_cluster_link(c, r[2]);
	ck_assert_uint_eq(up->type, (uint32_t)hw_catalog_find_link(cat, "ib-hdr"));
	ck_assert(tu_relerr(up->bw_Bps, 25e9 * 0.97) < 1e-12);
	/* GPU 5 uses NIC 5; forcing NIC 2 sends it over NIC 2 on both nodes */
	s = hw_cluster_gpu(c, 5);
	d = hw_cluster_gpu(c, 13);
	n = route(c, s, d, NONE, r);
	check_walk(c, s, d, r, n);
	ck_assert_uint_eq(hw_cluster_link(c, r[1])->dst, hw_cluster_nic(c, 0, 5));
	n = route(c, s, d, 2, r);
	check_walk(c, s, d, r, n);
	bool via0 = false, via1 = false;
	for (size_t k = 0; k < n; k++) {
		via0 = via0 || hw_cluster_link(c, r[k])->dst == hw_cluster_nic(c, 0, 2);
		via1 = via1 || hw_cluster_link(c, r[k])->dst == hw_cluster_nic(c, 1, 2);
	}
	ck_assert(via0 && via1);
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(nic_affinity_and_nics_per_node)
{
	struct hw_cluster *c = load("dgx-a100-80gb", NULL);
	for (uint32_t g = 0; g < 8; g++)
		ck_assert_uint_eq(hw_cluster_gpu_nic(c, g),
				  g); /* GPU i shares a switch with NIC i */
	hw_cluster_destroy(c);

	struct hw_cluster_opts o = {.nodes = 2, .nics_per_node = 4};
	c = load("dgx-a100-80gb", &o);
	ck_assert_uint_eq(hw_cluster_nics_per_node(c), 4);
	ck_assert_uint_eq(count_kind(c, HW_DEV_NIC), 8);
	/* GPUs 0-3 keep their NIC; 4-7 (other socket) spread over NICs 0-3 */
	static const uint32_t want[8] = {0, 1, 2, 3, 0, 1, 2, 3};
	for (uint32_t g = 0; g < 16; g++)
		ck_assert_uint_eq(hw_cluster_gpu_nic(c, g), want[g % 8]);
	uint32_t r[32];
	uint32_t s = hw_cluster_gpu(c, 4), d = hw_cluster_gpu(c, 12);
	size_t n = route(c, s, d, NONE, r);
	check_walk(c, s, d, r, n);
	/* gpu4 -> pcie2 -> cpu1 -> cpu0 -> pcie0 -> nic0 -> switch -> back: 5 + 2 + 5 */
	ck_assert_uint_eq(n, 12);
	ck_assert(passes_kind(c, r, n, HW_DEV_CPU));
	ck_assert_uint_eq(hw_cluster_nic(c, 0, 4), NONE);
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(gpus_per_node_drops_gpus)
{
	struct hw_cluster_opts o = {.nodes = 2, .gpus_per_node = 4};
	struct hw_cluster *c = load("dgx-a100-80gb", &o);
	ck_assert_uint_eq(hw_cluster_gpus_per_node(c), 4);
	ck_assert_uint_eq(hw_cluster_gpus(c), 8);
	ck_assert_uint_eq(count_kind(c, HW_DEV_GPU), 8);
	/* 19 devices per node + switch; 58 - 4 x 4 GPU links = 42 per node + 32 fabric */
	ck_assert_uint_eq(hw_cluster_ndevices(c), 2 * 19 + 1);
	ck_assert_uint_eq(hw_cluster_nlinks(c), 2 * 42 + 32);
	for (uint32_t g = 0; g < 8; g++) {
		const struct hw_device *d = hw_cluster_device(c, hw_cluster_gpu(c, g));
		ck_assert_int_eq(d->kind, HW_DEV_GPU);
		ck_assert_uint_eq(d->node, g / 4);
		ck_assert_uint_eq(d->group, g % 4);
		ck_assert_uint_eq(hw_cluster_gpu_nic(c, g), g % 4);
	}
	ck_assert_uint_eq(hw_cluster_gpu(c, 8), NONE);
	/* the kept GPUs keep their wiring: GPU 3 still sits on PCIe switch 1 */
	uint32_t r[32];
	size_t n = route(c, hw_cluster_gpu(c, 3), hw_cluster_nic(c, 0, 3), NONE, r);
	ck_assert_uint_eq(n, 2);
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(classes_have_nodes_members)
{
	struct hw_cluster_opts o = {.nodes = 3};
	struct hw_cluster *c = load("dgx-a100-80gb", &o);
	uint32_t per_node = 58, nics = hw_cluster_nics_per_node(c);
	ck_assert_uint_eq(hw_cluster_nclasses(c), per_node + 2 * nics);
	for (uint32_t k = 0; k < hw_cluster_nclasses(c); k++)
		ck_assert_uint_eq(hw_cluster_class_members(c, k), 3);
	ck_assert_uint_eq(hw_cluster_class_members(c, hw_cluster_nclasses(c)), 0);
	uint32_t *seen = calloc(hw_cluster_nclasses(c), sizeof *seen);
	for (uint32_t i = 0; i < hw_cluster_nlinks(c); i++) {
		const struct hw_link *l = hw_cluster_link(c, i);
		ck_assert_uint_lt(l->cls, hw_cluster_nclasses(c));
		seen[l->cls]++;
		if (i < 3 * per_node) /* the same template link in every node */
			ck_assert_uint_eq(l->cls, i % per_node);
	}
	for (uint32_t k = 0; k < hw_cluster_nclasses(c); k++)
		ck_assert_uint_eq(seen[k], 3); /* members = links in the class */
	free(seen);
	/* rail i: the fabric links of NIC i of every node, per direction */
	uint32_t r[32];
	size_t n = route(c, hw_cluster_gpu(c, 2), hw_cluster_gpu(c, 18), NONE, r);
	ck_assert_uint_eq(hw_cluster_link(c, r[2])->cls, per_node + 2 * 2);
	ck_assert_uint_eq(hw_cluster_link(c, r[3])->cls, per_node + 2 * 2 + 1);
	(void)n;
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(large_cluster_and_route_limits)
{
	struct hw_cluster_opts o = {.nodes = 2048};
	struct hw_cluster *c = load("dgx-a100-80gb", &o);
	ck_assert_uint_eq(hw_cluster_gpus(c), 16384);
	ck_assert_uint_eq(hw_cluster_ndevices(c), 2048 * 23 + 1);
	uint32_t s = hw_cluster_gpu(c, 16383), d = hw_cluster_gpu(c, 0), r[32];
	ck_assert_uint_eq(hw_cluster_device(c, s)->node, 2047);
	size_t n = route(c, s, d, NONE, r);
	ck_assert_uint_eq(n, 6);
	check_walk(c, s, d, r, n);
	ck_assert_int_eq(hw_cluster_route(c, s, d, NONE, r, 3, &n), TS_ELIMIT);
	ck_assert_uint_eq(n, 6);
	ck_assert_int_eq(hw_cluster_route(c, s, hw_cluster_ndevices(c), NONE, r, 32, &n),
			 TS_EINVALID);
	ck_assert_int_eq(hw_cluster_route(c, s, d, 8, r, 32, &n), TS_EINVALID);
	ck_assert_int_eq(hw_cluster_route(c, s, s, NONE, r, 32, &n), 0);
	ck_assert_uint_eq(n, 0);
	hw_cluster_destroy(c);
}
END_TEST

/* At most TS_MAX_GPUS (2^20) GPUs: 131,072 DGX A100 of 8 GPUs is the most,
 * one more node is refused naming the key, the counts and the largest
 * node count of that size; 1 GPU per node allows 2^20 nodes and no more. */
START_TEST(gpu_limit_refused_with_the_counts)
{
	struct hw_cluster *c = NULL;
	struct ts_error e = {0};
	char buf[1500];
	struct hw_cluster_opts o = {.nodes = 131073};
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &c, &e), TS_ERANGE);
	ck_assert_ptr_null(c);
	ts_error_format(&e, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "nodes") &&
			  strstr(buf, "found 131073 nodes of 8 GPUs (1048584 GPUs), expected at "
				      "most 1048576 GPUs in a cluster (131072 nodes of 8)"),
		      "%s", buf);
	o = (struct hw_cluster_opts){.nodes = 1048577, .gpus_per_node = 1};
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &c, &e), TS_ERANGE);
	ts_error_format(&e, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "found 1048577 nodes, expected at most 1048576"), "%s", buf);
}
END_TEST

START_TEST(describe_names_links_and_sources)
{
	struct hw_cluster *c = load("dgx-a100-80gb", NULL);
	int need = hw_cluster_describe(c, NULL, 0);
	ck_assert_int_gt(need, 100);
	char *buf = malloc((size_t)need + 1);
	ck_assert_int_eq(hw_cluster_describe(c, buf, (size_t)need + 1), need);
	ck_assert_ptr_nonnull(strstr(buf, "dgx-a100-80gb"));
	ck_assert_ptr_nonnull(strstr(buf, "gpu[1] -> nvswitch"));
	ck_assert_ptr_nonnull(strstr(buf, "nvlink3: 300 GB/s x 0.72"));
	ck_assert_ptr_nonnull(strstr(buf, "nccl-tests#175"));
	char small[16];
	ck_assert_int_eq(hw_cluster_describe(c, small, sizeof small), need);
	ck_assert_uint_eq(strlen(small), sizeof small - 1);
	free(buf);
	hw_cluster_destroy(c);
}
END_TEST

/* ------------------------------------------------------------ bad input */

static char scratch[64];

static const char *put(const char *text)
{
	snprintf(scratch, sizeof scratch, "/tmp/ts_cluster_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	static char path[128];
	snprintf(path, sizeof path, "%s/bad.cfg", scratch);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void unput(const char *path)
{
	unlink(path);
	rmdir(scratch);
}

static void assert_error(const struct ts_error *e, int code, const char *file, int line,
			 const char *key)
{
	char buf[1500], at[600];
	ts_error_format(e, buf, sizeof buf);
	ck_assert_msg(e->code == code, "code %d, want %d: %s", e->code, code, buf);
	ck_assert_msg(strstr(e->file, file) != NULL, "file \"%s\" lacks \"%s\"", e->file, file);
	ck_assert_msg(e->line == line, "line %d, want %d: %s", e->line, line, buf);
	if (key[0])
		snprintf(at, sizeof at, "%s:%d: %s: ", e->file, line, key);
	else
		snprintf(at, sizeof at, "%s:%d: ", e->file, line);
	ck_assert_msg(strstr(buf, at) == buf, "\"%s\" does not start with \"%s\"", buf, at);
	ck_assert_str_eq(e->key, key);
}

/* A small valid cluster; each bad-input test changes one line of it. */
static const char *const good[] = {
    "cluster = {\n",									  /* 1 */
    "  name = \"tiny\";\n",								  /* 2 */
    "  nodes = 2;\n",									  /* 3 */
    "  node = {\n",									  /* 4 */
    "    devices = (\n",								  /* 5 */
    "      { name = \"gpu\"; kind = \"gpu\"; type = \"A100-SXM4-80GB\"; count = 2; },\n", /* 6 */
    "      { name = \"sw\"; kind = \"pcie_switch\"; },\n",				  /* 7 */
    "      { name = \"nic\"; kind = \"nic\"; type = \"ib-hdr\"; }\n",			  /* 8 */
    "    );\n",										  /* 9 */
    "    links = (\n",									  /* 10 */
    "      { a = \"gpu\"; b = \"sw\"; type = \"pcie4-x16\"; },\n",			  /* 11 */
    "      { a = \"nic\"; b = \"sw\"; type = \"pcie4-x16\"; }\n",			  /* 12 */
    "    );\n",										  /* 13 */
    "  };\n",										  /* 14 */
    "  fabric = { topology = \"switch\"; };\n",						  /* 15 */
    "};\n",										  /* 16 */
    NULL};

/* The tiny cluster with line `lineno` replaced by `repl`; loads it, expects
 * `code`, and returns the error. */
static struct ts_error load_bad(int lineno, const char *repl, int code)
{
	char text[4096] = "";
	for (int i = 0; good[i]; i++)
		strcat(text, i + 1 == lineno ? repl : good[i]);
	const char *path = put(text);
	struct ts_error e = {0};
	struct hw_cluster *c = (struct hw_cluster *)1;
	char buf[1500];
	int rc = hw_cluster_load(cat, path, NULL, &c, &e);
	ck_assert_msg(rc == code, "rc %d, want %d: %s", rc, code,
		      ts_error_format(&e, buf, sizeof buf));
	if (code == 0)
		hw_cluster_destroy(c);
	else
		ck_assert_ptr_null(c);
	unput(path);
	return e;
}

START_TEST(good_tiny_cluster_loads)
{
	struct ts_error e = load_bad(0, "", 0);
	ck_assert_int_eq(e.code, 0);
}
END_TEST

START_TEST(bad_missing_file)
{
	struct ts_error e = {0};
	struct hw_cluster *c = NULL;
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gbb", NULL, &c, &e), TS_EIO);
	ck_assert_ptr_nonnull(strstr(e.file, "configs/clusters/dgx-a100-80gbb.cfg"));
	ck_assert_str_eq(e.key, "cluster");
	ck_assert_ptr_nonnull(strstr(e.msg, "\"dgx-a100-80gb\""));
	/* the same name as the base of an inline group: file, line and key */
	memset(&e, 0, sizeof e);
	from_text("cluster = {\n  base = \"dgx-a100-80gbb\";\n};\n", NULL, TS_EIO, &e);
	assert_error(&e, TS_EIO, "scenario.cfg", 2, "cluster.base");
	ck_assert_ptr_nonnull(strstr(e.msg, "\"dgx-a100-80gb\""));
}
END_TEST

START_TEST(bad_syntax)
{
	struct ts_error e = load_bad(3, "  nodes = ;\n", TS_ESYNTAX);
	assert_error(&e, TS_ESYNTAX, "bad.cfg", 3, "");
	ck_assert_ptr_nonnull(strstr(e.msg, "syntax error"));
}
END_TEST

START_TEST(bad_unknown_key_suggests)
{
	struct ts_error e = load_bad(3, "  nodse = 2;\n", TS_EUNKNOWN_KEY);
	assert_error(&e, TS_EUNKNOWN_KEY, "bad.cfg", 3, "cluster.nodse");
	ck_assert_ptr_nonnull(strstr(e.msg, "\"nodes\""));
}
END_TEST

START_TEST(bad_wrong_type)
{
	struct ts_error e = load_bad(6,
				     "      { name = \"gpu\"; kind = \"gpu\"; type = "
				     "\"A100-SXM4-80GB\"; count = \"2\"; },\n",
				     TS_ETYPE);
	assert_error(&e, TS_ETYPE, "bad.cfg", 6, "cluster.node.devices[0].count");
	ck_assert_ptr_nonnull(strstr(e.msg, "found a string"));
}
END_TEST

START_TEST(bad_unknown_gpu_type)
{
	struct ts_error e = load_bad(
	    6, "      { name = \"gpu\"; kind = \"gpu\"; type = \"A100-SXM4-80G\"; count = 2; },\n",
	    TS_EUNKNOWN_NAME);
	assert_error(&e, TS_EUNKNOWN_NAME, "bad.cfg", 6, "cluster.node.devices[0].type");
	ck_assert_ptr_nonnull(strstr(e.msg, "\"A100-SXM4-80GB\""));
}
END_TEST

START_TEST(bad_unknown_unit)
{
	struct ts_error e = load_bad(
	    11,
	    "      { a = \"gpu\"; b = \"sw\"; type = \"pcie4-x16\"; bandwidth = \"32 Gbits\"; },\n",
	    TS_EUNIT);
	assert_error(&e, TS_EUNIT, "bad.cfg", 11, "cluster.node.links[0].bandwidth");
	ck_assert_ptr_nonnull(strstr(e.msg, "Gbits"));
}
END_TEST

START_TEST(bad_zero_or_negative_bandwidth)
{
	struct ts_error e = load_bad(
	    11,
	    "      { a = \"gpu\"; b = \"sw\"; type = \"pcie4-x16\"; bandwidth = \"0 GB/s\"; },\n",
	    TS_ERANGE);
	assert_error(&e, TS_ERANGE, "bad.cfg", 11, "cluster.node.links[0].bandwidth");
	e = load_bad(
	    11,
	    "      { a = \"gpu\"; b = \"sw\"; type = \"pcie4-x16\"; bandwidth = \"-5 GB/s\"; },\n",
	    TS_ERANGE);
	assert_error(&e, TS_ERANGE, "bad.cfg", 11, "cluster.node.links[0].bandwidth");
}
END_TEST

START_TEST(bad_link_to_unknown_group)
{
	struct ts_error e = load_bad(
	    12, "      { a = \"nics\"; b = \"sw\"; type = \"pcie4-x16\"; }\n", TS_EUNKNOWN_NAME);
	assert_error(&e, TS_EUNKNOWN_NAME, "bad.cfg", 12, "cluster.node.links[1].a");
	ck_assert_ptr_nonnull(strstr(e.msg, "\"nic\""));
}
END_TEST

START_TEST(bad_overrides_out_of_range)
{
	struct ts_error e = {0};
	struct hw_cluster *c = NULL;
	struct hw_cluster_opts o = {.gpus_per_node = 9};
	ck_assert_int_eq(hw_cluster_load(cat, "dgx-a100-80gb", &o, &c, &e), TS_ERANGE);
	ck_assert_str_eq(e.key, "gpus_per_node");
	ck_assert_ptr_null(c);
	/* several nodes need a fabric */
	e = load_bad(15, "  fabric = { topology = \"none\"; };\n", TS_EINVALID);
	ck_assert_str_eq(e.key, "cluster.fabric.topology");
	/* a tree needs its leaves sized */
	e = load_bad(15, "  fabric = { topology = \"fat-tree\"; };\n", TS_EINVALID);
	assert_error(&e, TS_EINVALID, "bad.cfg", 15, "cluster.fabric.nodes_per_leaf");
}
END_TEST

/* GPUs of the node template that cannot reach each other are refused at
 * load on node.links (an empty list once copied a NULL route into the table
 * and failed only when a task could not start). */
START_TEST(bad_disconnected_gpus)
{
	struct ts_error e = {0};
	struct hw_cluster *c = from_text(
	    "cluster = {\n  nodes = 1;\n  node = {\n    devices = (\n"
	    "      { name = \"gpu\"; kind = \"gpu\"; type = \"A100-SXM4-80GB\"; count = 2; }\n"
	    "    );\n    links = ();\n  };\n};\n",
	    NULL, TS_EINVALID, &e);
	ck_assert_ptr_null(c);
	assert_error(&e, TS_EINVALID, "scenario.cfg", 7, "cluster.node.links");
	ck_assert_ptr_nonnull(strstr(e.msg, "found no route from gpu[0] to gpu[1] in the node "
					    "template, expected connected GPUs"));
	/* one of the two GPUs linked, the other not */
	e = load_bad(11, "      { a = \"gpu[0]\"; b = \"sw\"; type = \"pcie4-x16\"; },\n",
		     TS_EINVALID);
	assert_error(&e, TS_EINVALID, "bad.cfg", 10, "cluster.node.links");
	ck_assert_ptr_nonnull(strstr(e.msg, "gpu[0] to gpu[1]"));
	/* two nodes whose NIC is cut off from the GPUs have no route between them */
	e = load_bad(12, "      { a = \"gpu[0]\"; b = \"gpu[1]\"; type = \"pcie4-x16\"; }\n",
		     TS_EINVALID);
	assert_error(&e, TS_EINVALID, "bad.cfg", 10, "cluster.node.links");
	ck_assert_ptr_nonnull(strstr(e.msg, "found no route from gpu[0] to a NIC"));
	e = load_bad(8, "      { name = \"nic\"; kind = \"cpu\"; }\n", TS_EINVALID);
	assert_error(&e, TS_EINVALID, "bad.cfg", 1, "cluster.fabric.topology");
}
END_TEST

/* Fabric keys: each bad value names cluster.fabric.KEY at the fabric's line. */
START_TEST(bad_fabric_keys)
{
	struct ts_error e;
	e = load_bad(15, "  fabric = { topology = \"fattree\"; };\n", TS_EUNKNOWN_NAME);
	assert_error(&e, TS_EUNKNOWN_NAME, "bad.cfg", 15, "cluster.fabric.topology");
	ck_assert_ptr_nonnull(strstr(e.msg, "fat-tree"));
	e = load_bad(15, "  fabric = { topology = \"rail\"; nodes_per_leaf = 2; levels = 4; };\n",
		     TS_ERANGE);
	assert_error(&e, TS_ERANGE, "bad.cfg", 15, "cluster.fabric.levels");
	e = load_bad(15,
		     "  fabric = { topology = \"fat-tree\"; nodes_per_leaf = 1; "
		     "oversubscription = 0.5; };\n",
		     TS_ERANGE);
	assert_error(&e, TS_ERANGE, "bad.cfg", 15, "cluster.fabric.oversubscription");
	e = load_bad(
	    15,
	    "  fabric = { topology = \"fat-tree\"; nodes_per_leaf = 1; routing = \"hash\"; "
	    "};\n",
	    TS_EUNKNOWN_NAME);
	assert_error(&e, TS_EUNKNOWN_NAME, "bad.cfg", 15, "cluster.fabric.routing");
	/* 3 nodes of one port per leaf and 3 uplinks do not fit 3 ports */
	e = load_bad(15,
		     "  fabric = { topology = \"fat-tree\"; radix = 3; nodes_per_leaf = 3; };\n",
		     TS_ERANGE);
	assert_error(&e, TS_ERANGE, "bad.cfg", 15, "cluster.fabric.radix");
	/* 2 nodes, one per leaf (1 down, 1 up): 2 leaves fit a radix of 2 */
	load_bad(15, "  fabric = { topology = \"fat-tree\"; radix = 2; };\n", 0);
	e = load_bad(
	    15, "  fabric = { topology = \"fat-tree\"; nodes_per_leaf = 1; link = \"ib-hdx\"; };\n",
	    TS_EUNKNOWN_NAME);
	assert_error(&e, TS_EUNKNOWN_NAME, "bad.cfg", 15, "cluster.fabric.link");
	e = load_bad(15, "  fabric = { topology = \"torus2d\"; dims = [2, 2, 2]; };\n",
		     TS_EINVALID);
	assert_error(&e, TS_EINVALID, "bad.cfg", 15, "cluster.fabric.dims");
	e = load_bad(15, "  fabric = { topology = \"torus2d\"; dims = \"2x1\"; };\n", TS_ETYPE);
	assert_error(&e, TS_ETYPE, "bad.cfg", 15, "cluster.fabric.dims");
	e = load_bad(15, "  fabric = { topology = \"switch\"; spine = 2; };\n", TS_EUNKNOWN_KEY);
	ck_assert_ptr_nonnull(strstr(e.msg, "spines"));
	/* link count bonds parallel links */
	e = load_bad(11, "      { a = \"gpu\"; b = \"sw\"; type = \"pcie4-x16\"; count = -1; },\n",
		     TS_ERANGE);
	assert_error(&e, TS_ERANGE, "bad.cfg", 11, "cluster.node.links[0].count");
}
END_TEST

static Suite *cluster_suite(void)
{
	Suite *s = suite_create("cluster");
	TCase *tc = tu_tcase("cluster");
	tu_hw_fixture(tc, &cat, NULL);
	tcase_add_test(tc, bundled_counts);
	tcase_add_test(tc, dgx_a100_gpu_pair_over_nvswitch);
	tcase_add_test(tc, rtx4090_pair_through_cpu);
	tcase_add_test(tc, inline_base_overrides);
	tcase_add_test(tc, internode_route_through_nic_and_switch);
	tcase_add_test(tc, nic_affinity_and_nics_per_node);
	tcase_add_test(tc, gpus_per_node_drops_gpus);
	tcase_add_test(tc, classes_have_nodes_members);
	tcase_add_test(tc, large_cluster_and_route_limits);
	tcase_add_test(tc, gpu_limit_refused_with_the_counts);
	tcase_add_test(tc, describe_names_links_and_sources);
	tcase_add_test(tc, good_tiny_cluster_loads);
	tcase_add_test(tc, bad_missing_file);
	tcase_add_test(tc, bad_syntax);
	tcase_add_test(tc, bad_unknown_key_suggests);
	tcase_add_test(tc, bad_wrong_type);
	tcase_add_test(tc, bad_unknown_gpu_type);
	tcase_add_test(tc, bad_unknown_unit);
	tcase_add_test(tc, bad_zero_or_negative_bandwidth);
	tcase_add_test(tc, bad_link_to_unknown_group);
	tcase_add_test(tc, bad_overrides_out_of_range);
	tcase_add_test(tc, bad_fabric_keys);
	tcase_add_test(tc, bad_disconnected_gpus);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(cluster_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
