/* The cluster graph: a node template repeated `nodes` times and joined by a
 * fabric; routes between any two devices without allocation; link classes.
 * SPDX-License-Identifier: MIT */

/*
 * Cluster file format (configs/clusters/NAME.cfg, libconfig):
 *
 *   cluster = {
 *     name = "dgx-a100-80gb";
 *     description = "...";           # optional
 *     source = "...";                # optional: where the layout comes from
 *     nodes = 1;                     # default 1
 *     gpus_per_node = 8;             # optional: use only the first N GPUs
 *     nics_per_node = 8;             # optional: keep only the first N NICs
 *     gpu = "A100-SXM4-40GB";        # optional: retype every GPU group
 *     nic = "ib-ndr";                # optional: retype every NIC group
 *     node = {
 *       p2p = true;                  # GPU peer-to-peer allowed (default true)
 *       devices = (                  # groups of alike devices, in this order
 *         { name = "gpu"; kind = "gpu"; type = "A100-SXM4-80GB"; count = 8; },
 *         { name = "nvswitch"; kind = "nvswitch"; },          # count 1
 *         { name = "pcie"; kind = "pcie_switch"; count = 4; },
 *         { name = "cpu"; kind = "cpu"; count = 2; },
 *         { name = "nic"; kind = "nic"; type = "ib-hdr"; count = 8; }
 *       );
 *       links = (
 *         { a = "gpu"; b = "nvswitch"; type = "nvlink3"; },
 *         { a = "gpu"; b = "pcie"; type = "pcie4-x16"; },
 *         { a = "cpu[0]"; b = "cpu[1]"; type = "xgmi2"; },   # one member each
 *         ...
 *       );
 *     };
 *     fabric = { topology = "switch"; };   # see "Fabrics" below
 *   };
 *
 * Device kinds: gpu and nic need a `type` (a GPU type, a link type: the NIC's
 * port), cpu, pcie_switch, nvswitch and storage take none. A cpu may give
 * `cores = 64;` and `memory = "512 GB";` per socket (the input pipeline's
 * worker cores and page cache; optional). `a`/`b` name a
 * device group, or one member as "group[i]". A link entry connects a to b in
 * both directions: two directed links, each its own constraint. When the
 * groups differ in size, member i of the larger connects to member
 * i * n_small / n_large of the smaller (block mapping: 8 GPUs on 4 PCIe
 * switches give 0,0,1,1,2,2,3,3); `map = [...]` (one index into the smaller
 * group per member of the larger, or of a when equal) replaces that. Optional
 * `bandwidth` (line rate), `latency` and `efficiency` override the link
 * type's; `count = n` bonds n parallel links of the type into one link of n
 * times its line rate (nvidia-smi's NV#: "gpu[0]" to "gpu[3]" with two
 * NVLink2 links is count = 2). GPUs may be linked to each other directly
 * (NVLink meshes and pair bridges); a GPU does not forward, so GPUs without a
 * direct link talk over the PCIe tree. An nvswitch may say `sharp = true`:
 * it reduces in the switch (NVLink SHARP, NVSwitch gen3 and later). Only
 * switch-like devices (cpu, pcie_switch, nvswitch, a fabric switch) forward
 * traffic; a GPU, NIC or storage device is an endpoint.
 * With p2p = false, GPU-to-GPU routes bounce through a cpu (host memory).
 * Since only switch-like devices forward, a GPU reaches a NIC under its own
 * PCIe switch through that switch (GPUDirect RDMA) and any other NIC through
 * the cpu (host memory).
 *
 * Fabrics (cluster.fabric; geometry, routes and classes in sim/hw/fabric.c):
 *   topology = "switch"       one non-blocking switch; every NIC of every node
 *                              links to it with the NIC's type
 *            | "fat-tree"     2- or 3-level Clos, all NICs of a node on a leaf
 *            | "rail"         rail-optimized: NIC i of every node on rail i
 *            | "torus2d" | "torus3d"   per-node routers in a torus
 *            | "none"         no network (one node only)
 *   levels = 2;               trees: 2 (leaf-spine) or 3 (leaf-aggregation-core)
 *   radix = 64;               ports per switch (sizes leaves and pods), or
 *   nodes_per_leaf = 4;       nodes on one leaf
 *   oversubscription = 2.0;   down:up at the leaves (2.0 = 2:1), default 1
 *   spines = 16;              uplinks per leaf (default ceil(ports down / ratio))
 *   leaves_per_pod = 8;       3 levels (default radix / 2)
 *   pod_oversubscription = 7; 3 levels: down:up at the aggregation switches
 *                             (pods joined by fewer uplinks), default 1
 *   link = "ib-hdr";          switch-to-switch link type (default the NICs')
 *   routing = "dmodk";        "dmodk" (default) or "ecmp" (seeded hash)
 *   seed = 1;                 ECMP hash seed
 *   sharp = true;             the switches reduce in the network (SHARP)
 *   dims = [4, 4, 4];         torus sizes, multiplying to nodes
 *
 * An inline group (a scenario's `cluster = { base = "dgx-a100-80gb"; ... }`)
 * starts from the named file and overrides the keys it gives: scalars
 * replace, node.devices and node.links replace the whole list, node.p2p and
 * fabric.topology replace their value.
 *
 * Numbering. Template devices are numbered group by group in file order;
 * template links entry by entry, pair by pair, a->b before b->a. Overrides
 * then keep the first gpus_per_node GPUs and nics_per_node NICs (the block
 * mapping is computed on the file's counts, so the kept devices keep their
 * wiring) and drop links that touch removed devices. Device id =
 * node * T + local for T template devices, the fabric switches last (leaves,
 * then spines or aggregation switches, then cores; a torus: one router per
 * node). Link id = node * L + template link for L template links, then the
 * fabric links: nodes * L + (node * nics + nic) * 2 + (0 up NIC->switch, 1
 * down), then switch-to-switch links (sim/hw/fabric.c).
 *
 * Routes. Inside the template all pairs are computed once at load: a
 * breadth-first search from each destination over reversed links gives hop
 * counts through forwarding devices; walking from the source and taking at
 * each step the lowest-id link that gets one hop closer gives the fewest-hop
 * route whose link ids are lexicographically smallest (so a file lists
 * NVLink before PCIe to prefer it among equal hop counts). Inter-node routes
 * are composed at call time from template routes and the fabric's route
 * between the two NICs (sim/hw/fabric.c), so hw_cluster_route never
 * allocates.
 *
 * NIC affinity. GPUs are taken in order; each picks the NIC with the fewest
 * hops, then the fewest GPUs already assigned, then the lowest index. On a
 * DGX (two GPUs and two NICs per PCIe switch) GPU i gets NIC i; with fewer
 * NICs, GPUs that no NIC is close to spread over the remaining NICs. Other
 * devices pick the closest NIC, lowest index on ties.
 *
 * Classes. Template link k is class k in every node (members = nodes); the
 * fabric links of NIC index i (rail i) are class L + 2i (up) and L + 2i + 1
 * (down), members = nodes; switch-to-switch classes follow (per level and
 * direction, per rail in a rail-optimized tree; see sim/hw/fabric.c).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/alloc.h"
#include "base/suggest.h"
#include "hw/cluster.h"
#include "hw/hw_int.h"
#include "base/cfg.h"

#define NONE UINT32_MAX
#define MAX_DEPTH 4	      /* base chains */
#define MAX_COUNT 4096u	      /* members of one device group */
#define MAX_NODES TS_MAX_GPUS /* a node holds at least one GPU */
#define MAX_TEMPLATE 4096u    /* devices in one node template */
#define NAME_MAX_ 48
#define NO_ROUTE UINT16_MAX

static const char *const kind_names[HW_DEV_KIND_COUNT_] = {
    "gpu", "cpu", "pcie_switch", "nic", "nvswitch", "switch", "storage"};
/* Kinds a node template may hold (a fabric switch belongs to the fabric). */
static const char *const node_kinds[] = {"gpu",	     "cpu",	"pcie_switch", "nic",
					 "nvswitch", "storage", NULL};

static bool forwards(enum hw_dev_kind k)
{
	return k == HW_DEV_CPU || k == HW_DEV_PCIE_SWITCH || k == HW_DEV_NVSWITCH ||
	       k == HW_DEV_SWITCH;
}

/* ------------------------------------------------------------ the spec */

/* A device group as parsed. */
struct sdev {
	char name[NAME_MAX_];
	enum hw_dev_kind kind;
	uint32_t type; /* GPU type (gpu), link type (nic), NONE otherwise */
	uint32_t count;
	bool sharp;	  /* nvswitch: reduces in the switch (NVLink SHARP) */
	uint32_t cores;	  /* cpu: cores per socket; 0 = not given */
	double mem_bytes; /* cpu: host memory per socket, bytes; 0 = not given */
	double mem_bw;	  /* cpu: memory bandwidth per socket (line rate), bytes/s; 0 = not
			   * given */
	unsigned file;
	int line;
};

/* A link entry as parsed. */
struct slink {
	char a[NAME_MAX_], b[NAME_MAX_]; /* group names */
	uint32_t ai, bi;		 /* member index, NONE = every member */
	uint32_t type;
	double bw_line; /* line rate override, bytes/s; < 0 = the type's */
	double lat_s;	/* < 0 = the type's */
	double eff;	/* < 0 = the type's */
	uint32_t count; /* parallel links bonded into one */
	uint32_t *map;
	uint32_t nmap;
	unsigned file;
	int line;
	uint32_t index; /* position in node.links, for messages */
};

struct spec {
	char name[64];
	char description[512];
	char source[512];
	double power_w;				      /* power.node_max, W; 0 = not given */
	char power_source[512];			      /* power.source */
	uint32_t nodes, gpus_per_node, nics_per_node; /* 0 = not given */
	bool p2p;
	struct hw_fabric_spec fabric;
	struct sdev *devs;
	size_t ndevs, cap_devs;
	struct slink *links;
	size_t nlinks, cap_links;
	char files[MAX_DEPTH + 1][256];
	unsigned nfiles;
	unsigned top_file; /* the file of the outermost group */
	int top_line;
	unsigned links_file; /* where node.links was last given (files[]) */
	int links_line;	     /* its line; 0 = not given */
};

static void spec_clear_links(struct spec *sp)
{
	for (size_t i = 0; i < sp->nlinks; i++)
		ts_free(sp->links[i].map, sp->links[i].nmap * sizeof(uint32_t));
	sp->nlinks = 0;
}

static void spec_free(struct spec *sp)
{
	spec_clear_links(sp);
	ts_free(sp->links, sp->cap_links * sizeof *sp->links);
	ts_free(sp->devs, sp->cap_devs * sizeof *sp->devs);
}

static int oom(struct ts_error *err)
{
	return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
}

/* A string member that must be one of `names` (NULL-terminated). */
static int parse_choice(const config_setting_t *g, const char *key, const char *const *names,
			int *out, const char *file, const char *path, struct ts_error *err)
{
	char v[64], k[CFG_KEY_MAX];
	int rc = cfg_get_string(g, key, true, v, sizeof v, file, path, err);
	if (rc)
		return rc;
	size_t n = 0;
	for (; names[n]; n++)
		if (strcmp(names[n], v) == 0) {
			*out = (int)n;
			return 0;
		}
	char close[256];
	ts_suggest(v, names, n, 3, close, sizeof close);
	return ts_error_set(err, TS_EUNKNOWN_NAME, file,
			    cfg_line(config_setting_get_member(g, key)), cfg_key_join(k, path, key),
			    "unknown %s \"%s\"; did you mean %s?", key, v, close);
}

/* A catalog name (GPU type or link type) given as member `key` of g. */
static int parse_type(const struct hw_catalog *cat, bool gpu, const config_setting_t *g,
		      const char *key, uint32_t *out, const char *file, const char *path,
		      struct ts_error *err)
{
	char v[NAME_MAX_], k[CFG_KEY_MAX];
	int rc = cfg_get_string(g, key, true, v, sizeof v, file, path, err);
	if (rc)
		return rc;
	int i = gpu ? hw_catalog_find_gpu(cat, v) : hw_catalog_find_link(cat, v);
	if (i >= 0) {
		*out = (uint32_t)i;
		return 0;
	}
	char close[256];
	hw_catalog_suggest(cat, gpu ? "gpu" : "link", v, close, sizeof close);
	return ts_error_set(err, TS_EUNKNOWN_NAME, file,
			    cfg_line(config_setting_get_member(g, key)), cfg_key_join(k, path, key),
			    "found unknown %s type \"%s\", expected a %s type of the catalog; "
			    "close matches: %s",
			    gpu ? "GPU" : "link", v, gpu ? "GPU" : "link",
			    close[0] ? close : "(none)");
}

static int parse_device(struct spec *sp, const struct hw_catalog *cat, const config_setting_t *e,
			unsigned fidx, const char *path, struct ts_error *err)
{
	static const char *const keys[] = {
	    "name", "kind", "type", "count", "cores", "memory", "sharp", "memory_bandwidth", NULL};
	const char *file = sp->files[fidx];
	int rc = cfg_check_keys(e, file, path, keys, SIZE_MAX, err);
	if (rc)
		return rc;
	struct sdev d = {.type = NONE, .count = 1, .file = fidx, .line = cfg_line(e)};
	int kind = 0;
	char k[CFG_KEY_MAX];
	if ((rc = cfg_get_string(e, "name", true, d.name, sizeof d.name, file, path, err)) ||
	    (rc = parse_choice(e, "kind", node_kinds, &kind, file, path, err)))
		return rc;
	if (strpbrk(d.name, "[]. "))
		return ts_error_set(err, TS_EINVALID, file, d.line, cfg_key_join(k, path, "name"),
				    "found \"%s\", expected a name without '[', ']', '.' or "
				    "spaces",
				    d.name);
	d.kind = kind == 5 ? HW_DEV_STORAGE : (enum hw_dev_kind)kind;
	bool typed = d.kind == HW_DEV_GPU || d.kind == HW_DEV_NIC;
	if (typed) {
		rc = parse_type(cat, d.kind == HW_DEV_GPU, e, "type", &d.type, file, path, err);
		if (rc)
			return rc;
	} else if (config_setting_get_member(e, "type")) {
		return ts_error_set(err, TS_EINVALID, file,
				    cfg_line(config_setting_get_member(e, "type")),
				    cfg_key_join(k, path, "type"),
				    "found a type on a %s device, expected one only on gpu and "
				    "nic devices",
				    kind_names[d.kind]);
	}
	rc = cfg_get_uint(e, "count", false, 1, MAX_COUNT, &d.count, file, path, err);
	if (rc < 0)
		return rc;
	if (config_setting_get_member(e, "sharp")) {
		if (d.kind != HW_DEV_NVSWITCH)
			return ts_error_set(
			    err, TS_EINVALID, file, cfg_line(config_setting_get_member(e, "sharp")),
			    cfg_key_join(k, path, "sharp"),
			    "found sharp on a %s device, expected it only on nvswitch "
			    "devices (in-switch reduction)",
			    kind_names[d.kind]);
		if ((rc = cfg_get_bool(e, "sharp", true, &d.sharp, file, path, err)))
			return rc;
	}
	/* the socket's memory bandwidth: GPU traffic without peer-to-peer is
	 * copied through it (route_table) */
	const config_setting_t *mb = config_setting_get_member(e, "memory_bandwidth");
	if (mb && d.kind != HW_DEV_CPU)
		return ts_error_set(err, TS_EINVALID, file, cfg_line(mb),
				    cfg_key_join(k, path, "memory_bandwidth"),
				    "found memory_bandwidth on a %s device, expected it only on "
				    "cpu devices",
				    kind_names[d.kind]);
	if ((rc = cfg_get_number(e, "memory_bandwidth", TS_UNIT_BANDWIDTH, false, CFG_POSITIVE,
				 1e15, &d.mem_bw, file, path, err)) < 0)
		return rc;
	/* host resources of a cpu socket, for the input pipeline (sim/data/) */
	for (int h = 0; h < 2; h++) {
		const char *hk = h ? "memory" : "cores";
		const config_setting_t *hs = config_setting_get_member(e, hk);
		if (!hs)
			continue;
		if (d.kind != HW_DEV_CPU)
			return ts_error_set(
			    err, TS_EINVALID, file, cfg_line(hs), cfg_key_join(k, path, hk),
			    "found %s on a %s device, expected it only on cpu devices", hk,
			    kind_names[d.kind]);
		rc = h ? cfg_get_number(e, hk, TS_UNIT_BYTES, false, CFG_POSITIVE, INFINITY,
					&d.mem_bytes, file, path, err)
		       : cfg_get_uint(e, hk, false, 1, 1u << 20, &d.cores, file, path, err);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < sp->ndevs; i++)
		if (strcmp(sp->devs[i].name, d.name) == 0)
			return ts_error_set(err, TS_EINVALID, file, d.line,
					    cfg_key_join(k, path, "name"),
					    "device group \"%s\" is named twice, expected unique "
					    "names",
					    d.name);
	if (ts_grow((void **)&sp->devs, &sp->cap_devs, sp->ndevs + 1, sizeof *sp->devs))
		return oom(err);
	sp->devs[sp->ndevs++] = d;
	return 0;
}

/* "group" or "group[i]" into name and index (NONE for the whole group). */
static int parse_ref(const config_setting_t *e, const char *key, char *name, uint32_t *idx,
		     const char *file, const char *path, struct ts_error *err)
{
	char v[NAME_MAX_ + 16], k[CFG_KEY_MAX];
	int rc = cfg_get_string(e, key, true, v, sizeof v, file, path, err);
	if (rc)
		return rc;
	*idx = NONE;
	char *br = strchr(v, '[');
	if (br) {
		char *end;
		errno = 0;
		unsigned long i = strtoul(br + 1, &end, 10);
		if (end == br + 1 || strcmp(end, "]") != 0 || errno || i >= MAX_COUNT)
			return ts_error_set(err, TS_EINVALID, file,
					    cfg_line(config_setting_get_member(e, key)),
					    cfg_key_join(k, path, key),
					    "found \"%s\", expected a device group \"name\" or one "
					    "member \"name[index]\"",
					    v);
		*br = '\0';
		*idx = (uint32_t)i;
	}
	if (strlen(v) >= NAME_MAX_ || v[0] == '\0')
		return ts_error_set(err, TS_EINVALID, file,
				    cfg_line(config_setting_get_member(e, key)),
				    cfg_key_join(k, path, key),
				    "found \"%s\", expected a device group name of 1 to %d "
				    "characters",
				    v, NAME_MAX_ - 1);
	strcpy(name, v);
	return 0;
}

static int parse_map(struct slink *l, const config_setting_t *e, const char *file, const char *path,
		     struct ts_error *err)
{
	const config_setting_t *m = config_setting_get_member(e, "map");
	if (!m)
		return 0;
	char k[CFG_KEY_MAX];
	cfg_key_join(k, path, "map");
	if (!config_setting_is_array(m) && !config_setting_is_list(m))
		return ts_error_set(err, TS_ETYPE, file, cfg_line(m), k,
				    "found %s, expected an array of member indices [0, 0, 1, 1]",
				    cfg_type_name(m));
	int n = config_setting_length(m);
	if (n == 0)
		return ts_error_set(err, TS_ERANGE, file, cfg_line(m), k,
				    "found an empty array, expected one index per member");
	l->map = ts_calloc((size_t)n, sizeof *l->map);
	if (!l->map)
		return oom(err);
	l->nmap = (uint32_t)n;
	for (int i = 0; i < n; i++) {
		const config_setting_t *x = config_setting_get_elem(m, (unsigned)i);
		int t = config_setting_type(x);
		long long v = (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
				  ? config_setting_get_int64(x)
				  : -1;
		if (v < 0 || v >= (long long)MAX_COUNT)
			return ts_error_set(
			    err,
			    t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 ? TS_ERANGE : TS_ETYPE,
			    file, cfg_line(m), k,
			    "element %d is not a member index, expected integers "
			    "from 0 to %u",
			    i, MAX_COUNT - 1);
		l->map[i] = (uint32_t)v;
	}
	return 0;
}

static int parse_link(struct spec *sp, const struct hw_catalog *cat, const config_setting_t *e,
		      unsigned fidx, uint32_t index, const char *path, struct ts_error *err)
{
	static const char *const keys[] = {"a",	      "b",	    "type",  "map", "bandwidth",
					   "latency", "efficiency", "count", NULL};
	const char *file = sp->files[fidx];
	int rc = cfg_check_keys(e, file, path, keys, SIZE_MAX, err);
	if (rc)
		return rc;
	if (ts_grow((void **)&sp->links, &sp->cap_links, sp->nlinks + 1, sizeof *sp->links))
		return oom(err);
	struct slink *l = &sp->links[sp->nlinks++];
	memset(l, 0, sizeof *l);
	l->file = fidx;
	l->line = cfg_line(e);
	l->index = index;
	l->bw_line = l->lat_s = l->eff = -1.0;
	l->count = 1;
	if ((rc = parse_ref(e, "a", l->a, &l->ai, file, path, err)) ||
	    (rc = parse_ref(e, "b", l->b, &l->bi, file, path, err)) ||
	    (rc = parse_type(cat, false, e, "type", &l->type, file, path, err)) ||
	    (rc = parse_map(l, e, file, path, err)))
		return rc;
	if ((rc = cfg_get_number(e, "bandwidth", TS_UNIT_BANDWIDTH, false, CFG_POSITIVE, INFINITY,
				 &l->bw_line, file, path, err)) < 0 ||
	    (rc = cfg_get_number(e, "latency", TS_UNIT_TIME, false, 0.0, INFINITY, &l->lat_s, file,
				 path, err)) < 0 ||
	    (rc = cfg_get_number(e, "efficiency", TS_UNIT_COUNT_, false, CFG_POSITIVE, 1.0, &l->eff,
				 file, path, err)) < 0 ||
	    (rc = cfg_get_uint(e, "count", false, 1, 1024, &l->count, file, path, err)) < 0)
		return rc;
	return hw_cfg_link_bounds(e, l->bw_line, l->lat_s, l->eff, file, path, err);
}

static int parse_node(struct spec *sp, const struct hw_catalog *cat, const config_setting_t *g,
		      unsigned fidx, struct ts_error *err)
{
	static const char *const keys[] = {"p2p", "devices", "links", NULL};
	const char *file = sp->files[fidx];
	const char *path = "cluster.node";
	int rc = cfg_check_keys(g, file, path, keys, SIZE_MAX, err);
	if (rc)
		return rc;
	if ((rc = cfg_get_bool(g, "p2p", false, &sp->p2p, file, path, err)) < 0)
		return rc;
	const config_setting_t *devs = config_setting_get_member(g, "devices");
	const config_setting_t *links = config_setting_get_member(g, "links");
	char k[CFG_KEY_MAX];
	if (devs) {
		if (!config_setting_is_list(devs))
			return ts_error_set(err, TS_ETYPE, file, cfg_line(devs),
					    "cluster.node.devices",
					    "found %s, expected a list ( { name = ...; kind = ...; "
					    "}, ... )",
					    cfg_type_name(devs));
		sp->ndevs = 0;
		int n = config_setting_length(devs);
		for (int i = 0; i < n; i++) {
			snprintf(k, sizeof k, "cluster.node.devices[%d]", i);
			rc = parse_device(sp, cat, config_setting_get_elem(devs, (unsigned)i), fidx,
					  k, err);
			if (rc)
				return rc;
		}
	}
	if (links) {
		if (!config_setting_is_list(links))
			return ts_error_set(err, TS_ETYPE, file, cfg_line(links),
					    "cluster.node.links",
					    "found %s, expected a list ( { a = ...; b = ...; type "
					    "= ...; }, ... )",
					    cfg_type_name(links));
		spec_clear_links(sp);
		sp->links_file = fidx;
		sp->links_line = cfg_line(links);
		int n = config_setting_length(links);
		for (int i = 0; i < n; i++) {
			snprintf(k, sizeof k, "cluster.node.links[%d]", i);
			rc = parse_link(sp, cat, config_setting_get_elem(links, (unsigned)i), fidx,
					(uint32_t)i, k, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Path of a cluster by name or path. */
static void cluster_path(const struct hw_catalog *cat, const char *name, char *buf, size_t n)
{
	size_t len = strlen(name);
	if (strchr(name, '/') || (len > 4 && strcmp(name + len - 4, ".cfg") == 0))
		snprintf(buf, n, "%s", name);
	else
		snprintf(buf, n, "%s/configs/clusters/%s.cfg", hw_catalog_root(cat), name);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

size_t hw_cluster_bundled(const struct hw_catalog *cat, char (*names)[64], size_t max)
{
	size_t nc = 0;
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/configs/clusters", hw_catalog_root(cat));
	DIR *d = ts_opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d)) && nc < max) {
		size_t len = strlen(de->d_name);
		if (len < 5 || len - 4 >= sizeof names[0] || strcmp(de->d_name + len - 4, ".cfg"))
			continue;
		memcpy(names[nc], de->d_name, len - 4);
		names[nc][len - 4] = '\0';
		nc++;
	}
	closedir(d);
	qsort(names, nc, sizeof names[0], cmp_name);
	return nc;
}

/* Bundled cluster names close to `name`, into buf. */
static char *suggest_cluster(const struct hw_catalog *cat, const char *name, char *buf, size_t n)
{
	enum { MAXN = 64 };
	char names[MAXN][64];
	const char *cand[MAXN];
	buf[0] = '\0';
	size_t nc = hw_cluster_bundled(cat, names, MAXN);
	for (size_t i = 0; i < nc; i++)
		cand[i] = names[i];
	return ts_suggest(name, cand, nc, 3, buf, n);
}

/* Read a cluster file and return its `cluster` group (cfg to be destroyed by
 * the caller in every case). */
static int read_cluster_file(config_t *cfg, const char *path, const config_setting_t **out,
			     struct ts_error *err)
{
	static const char *const top[] = {"cluster", NULL};
	config_init(cfg);
	int rc = cfg_load_file(cfg, path, err);
	if (rc)
		return rc;
	if ((rc = cfg_check_keys(config_root_setting(cfg), path, "", top, SIZE_MAX, err)))
		return rc;
	*out = config_lookup(cfg, "cluster");
	if (!*out)
		return ts_error_set(err, TS_EINVALID, path, 1, "cluster",
				    "missing key \"cluster\", expected cluster = { ... };");
	if (!config_setting_is_group(*out))
		return ts_error_set(err, TS_ETYPE, path, cfg_line(*out), "cluster",
				    "found %s, expected a group { ... }", cfg_type_name(*out));
	return 0;
}

static int add_file(struct spec *sp, const char *file, unsigned *fidx)
{
	if (sp->nfiles > MAX_DEPTH)
		return -1;
	size_t cap = sizeof sp->files[0];
	const char *z = file ? memchr(file, '\0', cap - 1) : NULL;
	size_t l = !file ? 0 : z ? (size_t)(z - file) : cap - 1; /* a longer path is cut */
	memcpy(sp->files[sp->nfiles], file ? file : "", l);
	sp->files[sp->nfiles][l] = '\0';
	*fidx = sp->nfiles++;
	return 0;
}

/* power = { node_max = "6.5 kW"; source = "..."; }: the node's rated power
 * (sim/run/cost.h uses it for energy); both keys required. node_max lies in
 * 1 W to 10 MW, the bounds of the scenario's power.node_max
 * (sim/io/costcfg.c): orders of magnitude around any real node (a DGX B200
 * is 14.3 kW, NVIDIA's DGX B200 datasheet), and they keep a whole run's
 * energy finite. */
#define NODE_W_MIN 1.0
#define NODE_W_MAX 1e7
static int parse_power(struct spec *sp, const config_setting_t *g, const char *file,
		       struct ts_error *err)
{
	static const char *const keys[] = {"node_max", "source", NULL};
	const char *path = "cluster.power";
	int rc;
	if (!config_setting_is_group(g))
		return ts_error_set(err, TS_ETYPE, file, cfg_line(g), path,
				    "found %s, expected a group { node_max = \"6.5 kW\"; "
				    "source = \"...\"; }",
				    cfg_type_name(g));
	if ((rc = cfg_check_keys(g, file, path, keys, SIZE_MAX, err)) ||
	    (rc = cfg_get_number(g, "node_max", TS_UNIT_POWER, true, 0.0, INFINITY, &sp->power_w,
				 file, path, err)) < 0 ||
	    (rc = cfg_get_string(g, "source", true, sp->power_source, sizeof sp->power_source, file,
				 path, err)) < 0)
		return rc;
	if (!(sp->power_w >= NODE_W_MIN && sp->power_w <= NODE_W_MAX))
		return cfg_fail(err, TS_ERANGE, config_setting_get_member(g, "node_max"), file,
				"cluster.power.node_max",
				"found %g W, expected 1 W to 10 MW (a node draws about 1 to 15 kW; "
				"beyond these bounds a run's energy is not a finite number)",
				sp->power_w);
	return 0;
}

static int spec_apply(struct spec *sp, const struct hw_catalog *cat, const config_setting_t *g,
		      unsigned fidx, struct ts_error *err)
{
	static const char *const keys[] = {"base",  "name",	     "description",   "source",
					   "nodes", "gpus_per_node", "nics_per_node", "gpu",
					   "nic",   "node",	     "fabric",	      "power",
					   NULL};
	const char *file = sp->files[fidx];
	const char *path = "cluster";
	int rc = cfg_check_keys(g, file, path, keys, SIZE_MAX, err);
	if (rc)
		return rc;
	const config_setting_t *base = config_setting_get_member(g, "base");
	if (base) {
		char name[256], bpath[1024];
		if ((rc = cfg_get_string(g, "base", true, name, sizeof name, file, path, err)))
			return rc;
		cluster_path(cat, name, bpath, sizeof bpath);
		unsigned bidx;
		if (add_file(sp, bpath, &bidx))
			return ts_error_set(err, TS_ELIMIT, file, cfg_line(base), "cluster.base",
					    "found a chain of more than %d base clusters, expected "
					    "fewer",
					    MAX_DEPTH);
		config_t cfg;
		const config_setting_t *bg = NULL;
		rc = read_cluster_file(&cfg, bpath, &bg, err);
		if (rc == TS_EIO) {
			char close[256];
			suggest_cluster(cat, name, close, sizeof close);
			rc = ts_error_set(err, TS_EIO, file, cfg_line(base), "cluster.base",
					  "cannot open \"%s\" (%s), expected a bundled cluster "
					  "name or a path; close matches: %s",
					  bpath, strerror(errno), close[0] ? close : "(none)");
		}
		if (!rc)
			rc = spec_apply(sp, cat, bg, bidx, err);
		config_destroy(&cfg);
		if (rc)
			return rc;
	}
	const config_setting_t *s;
	if ((rc = cfg_get_string(g, "name", false, sp->name, sizeof sp->name, file, path, err)) <
		0 ||
	    (rc = cfg_get_string(g, "description", false, sp->description, sizeof sp->description,
				 file, path, err)) < 0 ||
	    (rc = cfg_get_string(g, "source", false, sp->source, sizeof sp->source, file, path,
				 err)) < 0 ||
	    (rc = cfg_get_uint(g, "nodes", false, 1, MAX_NODES, &sp->nodes, file, path, err)) < 0 ||
	    (rc = cfg_get_uint(g, "gpus_per_node", false, 1, MAX_COUNT, &sp->gpus_per_node, file,
			       path, err)) < 0 ||
	    (rc = cfg_get_uint(g, "nics_per_node", false, 1, MAX_COUNT, &sp->nics_per_node, file,
			       path, err)) < 0)
		return rc;
	if ((s = config_setting_get_member(g, "node")) && (rc = parse_node(sp, cat, s, fidx, err)))
		return rc;
	if ((s = config_setting_get_member(g, "power")) && (rc = parse_power(sp, s, file, err)))
		return rc;
	for (int gpu = 1; gpu >= 0; gpu--) {
		const char *key = gpu ? "gpu" : "nic";
		if (!config_setting_get_member(g, key))
			continue;
		uint32_t t;
		if ((rc = parse_type(cat, gpu, g, key, &t, file, path, err)))
			return rc;
		for (size_t i = 0; i < sp->ndevs; i++)
			if (sp->devs[i].kind == (gpu ? HW_DEV_GPU : HW_DEV_NIC))
				sp->devs[i].type = t;
	}
	if ((s = config_setting_get_member(g, "fabric")) &&
	    (rc = hw_fabric_parse(&sp->fabric, cat, s, file, err)))
		return rc;
	return 0;
}

/* ---------------------------------------------------------- the cluster */

struct tgroup {
	char name[NAME_MAX_];
	enum hw_dev_kind kind;
	uint32_t type;
	uint32_t first, count; /* template devices first .. first+count-1 */
	bool sharp;	       /* nvswitch with in-switch reduction */
};

struct hw_cluster {
	const struct hw_catalog *cat;
	char name[64];
	char file[256];
	char description[512];
	char source[512];
	double power_w; /* rated node power, W; 0 = not given */
	char power_source[512];
	uint32_t power_gpus; /* GPUs of the node that rating is for */
	uint32_t nodes, T, L, gpn, nics;
	uint32_t cpu_cores; /* per node, 0 = not given */
	double host_mem;    /* bytes per node, 0 = not given */
	bool p2p;
	struct hw_fabric fab; /* the fabric between nodes (sim/hw/fabric.c) */
	uint32_t nvls_local;  /* template index of the SHARP NVSwitch every GPU joins, or NONE */
	uint32_t gpu_type;
	struct tgroup *groups;
	uint32_t ngroups;
	struct hw_device *tdevs; /* T template devices (node 0) */
	uint32_t *tdev_group;	 /* T: group of each template device */
	uint32_t *gpu_local;	 /* gpn: template index of GPU k */
	uint32_t *nic_local;	 /* nics: template index of NIC k */
	uint32_t *dev_nic;	 /* T: default NIC index, NONE if none reachable */
	uint32_t *rt_off;	 /* T*T offsets into rt_links */
	uint16_t *rt_len;	 /* T*T route lengths, NO_ROUTE if none */
	uint32_t *rt_links;	 /* template link ids */
	size_t rt_nlinks;
	struct hw_device *devs;
	uint32_t ndevs;
	struct hw_link *links;
	uint32_t nlinks;
	uint32_t nclasses;
};

void hw_cluster_destroy(struct hw_cluster *c)
{
	if (!c)
		return;
	size_t T = c->T;
	ts_free(c->groups, c->ngroups * sizeof *c->groups);
	ts_free(c->tdevs, T * sizeof *c->tdevs);
	ts_free(c->tdev_group, T * sizeof *c->tdev_group);
	ts_free(c->gpu_local, c->gpn * sizeof *c->gpu_local);
	ts_free(c->nic_local, c->nics * sizeof *c->nic_local);
	ts_free(c->dev_nic, T * sizeof *c->dev_nic);
	ts_free(c->rt_off, T * T * sizeof *c->rt_off);
	ts_free(c->rt_len, T * T * sizeof *c->rt_len);
	ts_free(c->rt_links, c->rt_nlinks * sizeof *c->rt_links);
	ts_free(c->devs, (size_t)c->ndevs * sizeof *c->devs);
	ts_free(c->links, (size_t)c->nlinks * sizeof *c->links);
	ts_free(c, sizeof *c);
}

/* A template link before overrides drop devices. */
struct tlink {
	uint32_t src, dst, type;
	double bw_Bps, lat_s;
};

/* Scratch of the build, freed in one place. */
struct build {
	struct tlink *tl;
	size_t ntl, cap_tl;
	uint32_t *gfirst; /* per spec group: first pre-override template index */
	uint32_t *newid;  /* per pre-override device: final index or NONE */
	size_t ngroups, npre;
	uint16_t *dist; /* T*T hop counts */
	uint32_t *tmp_off;
	uint16_t *tmp_len;
	uint32_t *tmp_links;
	size_t ntmp, cap_tmp;
	uint32_t *out_start, *out_link, *in_start, *in_link, *queue;
	size_t T, nl; /* template devices; allocated length of out_link/in_link */
};

static void build_free(struct build *b)
{
	ts_free(b->tl, b->cap_tl * sizeof *b->tl);
	ts_free(b->gfirst, b->ngroups * sizeof *b->gfirst);
	ts_free(b->newid, b->npre * sizeof *b->newid);
	ts_free(b->dist, b->T * b->T * sizeof *b->dist);
	ts_free(b->tmp_off, b->T * b->T * sizeof *b->tmp_off);
	ts_free(b->tmp_len, b->T * b->T * sizeof *b->tmp_len);
	ts_free(b->tmp_links, b->cap_tmp * sizeof *b->tmp_links);
	ts_free(b->out_start, (b->T + 1) * sizeof *b->out_start);
	ts_free(b->in_start, (b->T + 1) * sizeof *b->in_start);
	ts_free(b->out_link, b->nl * sizeof *b->out_link);
	ts_free(b->in_link, b->nl * sizeof *b->in_link);
	ts_free(b->queue, b->T * sizeof *b->queue);
}

static int find_group(const struct spec *sp, const char *name)
{
	for (size_t i = 0; i < sp->ndevs; i++)
		if (strcmp(sp->devs[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Resolve one side of a link entry: first member and member count. */
static int resolve_side(const struct spec *sp, const struct build *b, const struct slink *l,
			bool side_a, uint32_t *first, uint32_t *n, struct ts_error *err)
{
	const char *name = side_a ? l->a : l->b;
	uint32_t idx = side_a ? l->ai : l->bi;
	char key[CFG_KEY_MAX];
	snprintf(key, sizeof key, "cluster.node.links[%u].%s", l->index, side_a ? "a" : "b");
	int g = find_group(sp, name);
	if (g < 0) {
		const char *cand[64];
		size_t nc = 0;
		for (size_t i = 0; i < sp->ndevs && nc < 64; i++)
			cand[nc++] = sp->devs[i].name;
		char close[256];
		ts_suggest(name, cand, nc, 3, close, sizeof close);
		return ts_error_set(err, TS_EUNKNOWN_NAME, sp->files[l->file], l->line, key,
				    "no device group \"%s\" in node.devices; did you mean %s?",
				    name, close[0] ? close : "(no groups)");
	}
	const struct sdev *d = &sp->devs[g];
	if (idx == NONE) {
		*first = b->gfirst[g];
		*n = d->count;
	} else if (idx < d->count) {
		*first = b->gfirst[g] + idx;
		*n = 1;
	} else {
		return ts_error_set(err, TS_ERANGE, sp->files[l->file], l->line, key,
				    "found member %u of \"%s\", expected an index below its "
				    "count %u",
				    idx, name, d->count);
	}
	return 0;
}

static int add_tlink(struct build *b, uint32_t s, uint32_t d, uint32_t type, double bw, double lat)
{
	if (ts_grow((void **)&b->tl, &b->cap_tl, b->ntl + 1, sizeof *b->tl))
		return TS_ENOMEM;
	b->tl[b->ntl++] = (struct tlink){s, d, type, bw, lat};
	return 0;
}

/* Expand the link entries into directed template links (pre-override ids). */
static int expand_links(const struct spec *sp, const struct hw_catalog *cat, struct build *b,
			struct ts_error *err)
{
	for (size_t i = 0; i < sp->nlinks; i++) {
		const struct slink *l = &sp->links[i];
		uint32_t fa, na, fb, nb;
		int rc;
		if ((rc = resolve_side(sp, b, l, true, &fa, &na, err)) ||
		    (rc = resolve_side(sp, b, l, false, &fb, &nb, err)))
			return rc;
		const struct hw_link_type *t = hw_catalog_link(cat, l->type);
		double bw = (l->bw_line > 0.0 ? l->bw_line : t->bw_Bps) * l->count *
			    (l->eff > 0.0 ? l->eff : t->efficiency);
		double lat = l->lat_s >= 0.0 ? l->lat_s : t->lat_s;
		uint32_t nbig = na >= nb ? na : nb, nsmall = na >= nb ? nb : na;
		char key[CFG_KEY_MAX];
		if (l->map && l->nmap != nbig) {
			snprintf(key, sizeof key, "cluster.node.links[%u].map", l->index);
			return ts_error_set(err, TS_EINVALID, sp->files[l->file], l->line, key,
					    "found %u indices, expected %u (one per member of the "
					    "larger group)",
					    l->nmap, nbig);
		}
		for (uint32_t m = 0; m < nbig; m++) {
			uint32_t j = l->map ? l->map[m] : (uint32_t)((uint64_t)m * nsmall / nbig);
			if (j >= nsmall) {
				snprintf(key, sizeof key, "cluster.node.links[%u].map", l->index);
				return ts_error_set(
				    err, TS_ERANGE, sp->files[l->file], l->line, key,
				    "found index %u, expected indices below %u (the "
				    "smaller group's count)",
				    j, nsmall);
			}
			uint32_t x = na >= nb ? fa + m : fa + j;
			uint32_t y = na >= nb ? fb + j : fb + m;
			if (x == y) {
				snprintf(key, sizeof key, "cluster.node.links[%u]", l->index);
				return ts_error_set(
				    err, TS_EINVALID, sp->files[l->file], l->line, key,
				    "links a device of \"%s\" to itself, expected two "
				    "different devices (use \"%s[i]\" members)",
				    l->a, l->a);
			}
			if (add_tlink(b, x, y, l->type, bw, lat) ||
			    add_tlink(b, y, x, l->type, bw, lat))
				return oom(err);
		}
	}
	return 0;
}

/* Host memory as a link of a cpu socket to itself, of the catalog's
 * "host-memory" type at the socket's memory_bandwidth (the type's 8 x
 * DDR4-3200 when not given): a GPU-to-GPU route without peer-to-peer is
 * written into it and read out of it (route_table), so the socket's memory
 * bandwidth is a capacity the copies share. Made only with p2p = false (no
 * other route uses it), after node.links, so the other links keep their
 * ids. */
static int memory_links(const struct spec *sp, const struct hw_catalog *cat, struct build *b,
			struct ts_error *err)
{
	int type = -1;
	for (size_t g = 0; g < sp->ndevs; g++) {
		const struct sdev *d = &sp->devs[g];
		if (sp->p2p || d->kind != HW_DEV_CPU)
			continue;
		if (type < 0 && (type = hw_catalog_find_link(cat, "host-memory")) < 0)
			return ts_error_set(
			    err, TS_EUNKNOWN_NAME, sp->files[d->file], d->line, "cluster.node.p2p",
			    "found p2p = false with cpu \"%s\", but the catalog has "
			    "no \"host-memory\" link type (configs/hardware/links.cfg) "
			    "for its memory, expected one",
			    d->name);
		const struct hw_link_type *lt = hw_catalog_link(cat, (size_t)type);
		double line = d->mem_bw > 0.0 ? d->mem_bw : lt->bw_Bps;
		for (uint32_t m = 0; m < d->count; m++) {
			uint32_t x = b->gfirst[g] + m;
			if (add_tlink(b, x, x, (uint32_t)type, line * lt->efficiency, lt->lat_s))
				return oom(err);
		}
	}
	return 0;
}

/* Per destination, hop counts over reversed links through forwarding devices;
 * then per source the walk along lowest-id links. Fills b->dist and the
 * temporary route table. */
static int route_all(struct hw_cluster *c, struct build *b)
{
	size_t T = c->T;
	for (size_t d = 0; d < T; d++) {
		uint16_t *dist = &b->dist[d]; /* column d: dist[s * T + d] */
		for (size_t s = 0; s < T; s++)
			dist[s * T] = NO_ROUTE;
		dist[d * T] = 0;
		size_t qh = 0, qt = 0;
		b->queue[qt++] = (uint32_t)d;
		while (qh < qt) {
			uint32_t v = b->queue[qh++];
			if (v != d && !forwards(c->tdevs[v].kind))
				continue;
			for (uint32_t k = b->in_start[v]; k < b->in_start[v + 1]; k++) {
				uint32_t u = b->tl[b->in_link[k]].src;
				if (dist[(size_t)u * T] == NO_ROUTE) {
					dist[(size_t)u * T] = (uint16_t)(dist[(size_t)v * T] + 1);
					b->queue[qt++] = u;
				}
			}
		}
		for (size_t s = 0; s < T; s++) {
			size_t p = s * T + d;
			b->tmp_off[p] = (uint32_t)b->ntmp;
			b->tmp_len[p] = dist[s * T];
			if (dist[s * T] == NO_ROUTE || dist[s * T] == 0)
				continue;
			if (ts_grow((void **)&b->tmp_links, &b->cap_tmp, b->ntmp + dist[s * T],
				    sizeof *b->tmp_links))
				return TS_ENOMEM;
			uint32_t x = (uint32_t)s;
			while (x != d) {
				uint32_t next = NONE;
				for (uint32_t k = b->out_start[x]; k < b->out_start[x + 1]; k++) {
					uint32_t id = b->out_link[k];
					uint32_t y = b->tl[id].dst;
					if (dist[(size_t)y * T] + 1 == dist[(size_t)x * T] &&
					    (y == d || forwards(c->tdevs[y].kind))) {
						next = id;
						break;
					}
				}
				b->tmp_links[b->ntmp++] = next;
				x = b->tl[next].dst;
			}
		}
	}
	return 0;
}

/* Append the template route p (tmp_len[p] links) to the table at *n; an
 * empty route copies nothing (tmp_links is NULL when no route has a link). */
static void append_route(struct hw_cluster *c, const struct build *b, size_t p, size_t *n)
{
	if (b->tmp_len[p] == NO_ROUTE || b->tmp_len[p] == 0)
		return;
	memcpy(&c->rt_links[*n], &b->tmp_links[b->tmp_off[p]], b->tmp_len[p] * sizeof *c->rt_links);
	*n += b->tmp_len[p];
}

/* The final route table: p2p = false sends GPU pairs through a cpu. */
static int route_table(struct hw_cluster *c, struct build *b)
{
	size_t T = c->T;
	size_t total = 0;
	for (size_t p = 0; p < T * T; p++)
		total += b->tmp_len[p] == NO_ROUTE ? 0 : b->tmp_len[p];
	if (!c->p2p)
		total = 2 * total + 2 * T * T; /* bounded: a bounce is two routes and the
						* memory link twice */
	c->rt_off = ts_calloc(T * T, sizeof *c->rt_off);
	c->rt_len = ts_calloc(T * T, sizeof *c->rt_len);
	c->rt_links = ts_calloc(total + 1, sizeof *c->rt_links);
	c->rt_nlinks = c->rt_links ? total + 1 : 0;
	if (!c->rt_off || !c->rt_len || !c->rt_links)
		return TS_ENOMEM;
	size_t n = 0;
	for (size_t s = 0; s < T; s++) {
		for (size_t d = 0; d < T; d++) {
			size_t p = s * T + d;
			c->rt_off[p] = (uint32_t)n;
			bool bounce = !c->p2p && s != d && c->tdevs[s].kind == HW_DEV_GPU &&
				      c->tdevs[d].kind == HW_DEV_GPU;
			if (!bounce) {
				c->rt_len[p] = b->tmp_len[p];
				append_route(c, b, p, &n);
				continue;
			}
			uint32_t best = NONE, bestd = NONE;
			for (uint32_t x = 0; x < T; x++) {
				if (c->tdevs[x].kind != HW_DEV_CPU)
					continue;
				uint16_t d1 = b->dist[s * T + x], d2 = b->dist[(size_t)x * T + d];
				if (d1 == NO_ROUTE || d2 == NO_ROUTE)
					continue;
				/* the socket nearest the receiver, as NCCL's SHM transport
				 * keeps the buffer with the receiving rank (assumption);
				 * then the fewest hops in all */
				uint32_t dd = best == NONE ? NONE : b->dist[(size_t)best * T + d];
				if (best == NONE || d2 < dd ||
				    (d2 == dd && (uint32_t)d1 + d2 < bestd)) {
					bestd = (uint32_t)d1 + d2;
					best = x;
				}
			}
			if (best == NONE || bestd >= NO_ROUTE) {
				c->rt_len[p] = NO_ROUTE;
				continue;
			}
			append_route(c, b, s * T + best, &n);
			/* written into host memory, read out of it */
			uint32_t mem = NONE;
			for (uint32_t k = 0; k < c->L && mem == NONE; k++)
				if (b->tl[k].src == best && b->tl[k].dst == best)
					mem = k;
			if (mem != NONE) {
				c->rt_links[n++] = mem;
				c->rt_links[n++] = mem;
				bestd += 2;
			}
			append_route(c, b, (size_t)best * T + d, &n);
			c->rt_len[p] = (uint16_t)bestd;
		}
	}
	return 0;
}

static void nic_affinity(struct hw_cluster *c, const struct build *b)
{
	size_t T = c->T;
	uint32_t load[MAX_COUNT] = {0};
	for (size_t x = 0; x < T; x++) {
		const struct hw_device *dv = &c->tdevs[x];
		if (dv->kind == HW_DEV_NIC) {
			c->dev_nic[x] = dv->group;
			continue;
		}
		uint32_t best = NONE, bestd = NO_ROUTE;
		for (uint32_t j = 0; j < c->nics; j++) {
			uint16_t d = b->dist[x * T + c->nic_local[j]];
			if (d == NO_ROUTE)
				continue;
			bool gpu = dv->kind == HW_DEV_GPU;
			if (d < bestd || (gpu && d == bestd && load[j] < load[best])) {
				bestd = d;
				best = j;
			}
		}
		c->dev_nic[x] = best;
		if (dv->kind == HW_DEV_GPU && best != NONE)
			load[best]++;
	}
}

static int build_cluster(const struct spec *sp, const struct hw_catalog *cat,
			 const struct hw_cluster_opts *opts, struct hw_cluster *c,
			 struct ts_error *err)
{
	struct build b = {0};
	const char *file = sp->files[sp->top_file];
	int rc = 0;
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		rc = ts_error_set(err, __VA_ARGS__);                                               \
		goto out;                                                                          \
	} while (0)

	snprintf(c->name, sizeof c->name, "%s", sp->name[0] ? sp->name : "custom");
	snprintf(c->file, sizeof c->file, "%s", file);
	memcpy(c->description, sp->description, sizeof c->description);
	memcpy(c->source, sp->source, sizeof c->source);
	c->power_w = sp->power_w;
	memcpy(c->power_source, sp->power_source, sizeof c->power_source);
	c->cat = cat;
	c->p2p = sp->p2p;
	c->nodes = opts && opts->nodes ? opts->nodes : sp->nodes ? sp->nodes : 1;
	if (c->nodes > MAX_NODES)
		FAIL(TS_ERANGE, file, 0, "nodes", "found %u nodes, expected at most %u", c->nodes,
		     MAX_NODES);
	if (sp->ndevs == 0)
		FAIL(TS_EINVALID, file, sp->top_line, "cluster.node.devices",
		     "found no devices, expected a node with at least one gpu");

	/* pre-override numbering and counts */
	b.ngroups = sp->ndevs;
	b.gfirst = ts_calloc(b.ngroups, sizeof *b.gfirst);
	if (!b.gfirst)
		goto nomem;
	uint32_t ngpu_all = 0, nnic_all = 0;
	c->gpu_type = NONE;
	for (size_t g = 0; g < sp->ndevs; g++) {
		const struct sdev *d = &sp->devs[g];
		b.gfirst[g] = (uint32_t)b.npre;
		b.npre += d->count;
		if (d->kind == HW_DEV_GPU) {
			ngpu_all += d->count;
			if (c->gpu_type != NONE && d->type != c->gpu_type)
				FAIL(TS_EUNSUPPORTED, sp->files[d->file], d->line,
				     "cluster.node.devices",
				     "found GPU types \"%s\" and \"%s\" in one node, expected one "
				     "GPU type (mixed nodes are not modelled yet)",
				     hw_catalog_gpu(cat, c->gpu_type)->name,
				     hw_catalog_gpu(cat, d->type)->name);
			c->gpu_type = d->type;
		} else if (d->kind == HW_DEV_NIC) {
			nnic_all += d->count;
		} else if (d->kind == HW_DEV_CPU) {
			c->cpu_cores += d->cores * d->count;
			c->host_mem += d->mem_bytes * d->count;
		}
	}
	if (ngpu_all == 0)
		FAIL(TS_EINVALID, file, sp->top_line, "cluster.node.devices",
		     "found no gpu device, expected at least one group of kind \"gpu\"");
	c->power_gpus = ngpu_all;
	c->gpn = opts && opts->gpus_per_node ? opts->gpus_per_node
		 : sp->gpus_per_node	     ? sp->gpus_per_node
					     : ngpu_all;
	c->nics = opts && opts->nics_per_node ? opts->nics_per_node
		  : sp->nics_per_node	      ? sp->nics_per_node
					      : nnic_all;
	/* a value from opts has no line in the file */
	int gpn_line = opts && opts->gpus_per_node ? 0 : sp->top_line;
	int nics_line = opts && opts->nics_per_node ? 0 : sp->top_line;
	if (c->gpn > ngpu_all)
		FAIL(TS_ERANGE, file, gpn_line, "gpus_per_node",
		     "found %u, expected at most the %u GPUs of a node of \"%s\"", c->gpn, ngpu_all,
		     c->name);
	if ((uint64_t)c->nodes * c->gpn > TS_MAX_GPUS)
		FAIL(TS_ERANGE, file, opts && opts->nodes ? 0 : sp->top_line, "nodes",
		     "found %u nodes of %u GPUs (%llu GPUs), expected at most %u GPUs in a "
		     "cluster (%u nodes of %u)",
		     c->nodes, c->gpn, (unsigned long long)c->nodes * c->gpn, TS_MAX_GPUS,
		     TS_MAX_GPUS / c->gpn, c->gpn);
	if (c->nics > nnic_all)
		FAIL(TS_ERANGE, file, nics_line, "nics_per_node",
		     "found %u, expected at most the %u NICs of a node of \"%s\"", c->nics,
		     nnic_all, c->name);
	if (c->nics > MAX_COUNT)
		FAIL(TS_ERANGE, file, nics_line, "nics_per_node",
		     "found %u NICs per node, expected at most %u", c->nics, MAX_COUNT);
	if (c->nodes > 1 && (sp->fabric.topology == HW_TOPO_NONE || c->nics == 0))
		FAIL(TS_EINVALID, file, sp->top_line, "cluster.fabric.topology",
		     "found %u nodes with %s, expected a fabric.topology and at least "
		     "one nic per node",
		     c->nodes, sp->fabric.topology == HW_TOPO_NONE ? "no fabric" : "no NIC");

	if ((rc = expand_links(sp, cat, &b, err)) || (rc = memory_links(sp, cat, &b, err)))
		goto out;

	/* keep the first gpn GPUs and nics NICs */
	b.newid = ts_calloc(b.npre, sizeof *b.newid);
	c->ngroups = (uint32_t)sp->ndevs;
	c->groups = ts_calloc(c->ngroups, sizeof *c->groups);
	if (!b.newid || !c->groups)
		goto nomem;
	uint32_t T = 0, seen_gpu = 0, seen_nic = 0;
	for (size_t g = 0; g < sp->ndevs; g++) {
		const struct sdev *d = &sp->devs[g];
		struct tgroup *tg = &c->groups[g];
		memcpy(tg->name, d->name, sizeof tg->name);
		tg->kind = d->kind;
		tg->type = d->type;
		tg->sharp = d->sharp;
		tg->first = T;
		for (uint32_t m = 0; m < d->count; m++) {
			bool keep = d->kind == HW_DEV_GPU   ? seen_gpu++ < c->gpn
				    : d->kind == HW_DEV_NIC ? seen_nic++ < c->nics
							    : true;
			b.newid[b.gfirst[g] + m] = keep ? T++ : NONE;
			tg->count += keep;
		}
	}
	c->T = T;
	b.T = T;
	if (T > MAX_TEMPLATE) /* the route table holds T * T entries */
		FAIL(TS_ERANGE, file, sp->top_line, "cluster.node.devices",
		     "found %u devices in a node, expected at most %u", T, MAX_TEMPLATE);
	if ((uint64_t)c->nodes * T + 1 >= NONE)
		FAIL(TS_ERANGE, file, 0, "nodes",
		     "found %u nodes of %u devices, expected fewer than 2^32 devices", c->nodes, T);
	c->tdevs = ts_calloc(T, sizeof *c->tdevs);
	c->tdev_group = ts_calloc(T, sizeof *c->tdev_group);
	c->gpu_local = ts_calloc(c->gpn, sizeof *c->gpu_local);
	c->nic_local = ts_calloc(c->nics ? c->nics : 1, sizeof *c->nic_local);
	c->dev_nic = ts_calloc(T, sizeof *c->dev_nic);
	if (!c->tdevs || !c->tdev_group || !c->gpu_local || !c->nic_local || !c->dev_nic)
		goto nomem;
	if (!c->nics) { /* keep the size bookkeeping of destroy exact */
		ts_free(c->nic_local, sizeof *c->nic_local);
		c->nic_local = NULL;
	}
	{
		uint32_t per_kind[HW_DEV_KIND_COUNT_] = {0};
		for (uint32_t g = 0; g < c->ngroups; g++) {
			const struct tgroup *tg = &c->groups[g];
			for (uint32_t m = 0; m < tg->count; m++) {
				uint32_t x = tg->first + m;
				uint32_t ord = per_kind[tg->kind]++;
				c->tdevs[x] = (struct hw_device){tg->kind, 0, x, tg->type, ord};
				c->tdev_group[x] = g;
				if (tg->kind == HW_DEV_GPU)
					c->gpu_local[ord] = x;
				else if (tg->kind == HW_DEV_NIC)
					c->nic_local[ord] = x;
			}
		}
	}

	/* drop links of removed devices, renumber the rest in place */
	{
		size_t L = 0;
		for (size_t k = 0; k < b.ntl; k++) {
			uint32_t s = b.newid[b.tl[k].src], d = b.newid[b.tl[k].dst];
			if (s == NONE || d == NONE)
				continue;
			b.tl[L] = b.tl[k];
			b.tl[L].src = s;
			b.tl[L].dst = d;
			L++;
		}
		c->L = (uint32_t)L;
	}
	if ((uint64_t)c->nodes * c->L >= NONE)
		FAIL(TS_ERANGE, file, 0, "nodes",
		     "found %u nodes of %u links, expected fewer than 2^32 links", c->nodes, c->L);
	if ((rc = hw_fabric_plan(&c->fab, &sp->fabric, cat, c->nodes, c->nics,
				 c->nics ? c->tdevs[c->nic_local[0]].type : NONE, c->nodes * T,
				 (uint64_t)c->nodes * c->L, c->L, err)))
		goto out;
	uint64_t nlinks = (uint64_t)c->nodes * c->L + c->fab.nlinks;
	if (nlinks >= NONE)
		FAIL(TS_ERANGE, file, 0, "nodes",
		     "found %u nodes of %u links, expected fewer than 2^32 links", c->nodes, c->L);

	/* adjacency in link-id order, then all-pairs routes */
	b.out_start = ts_calloc(T + 1, sizeof *b.out_start);
	b.in_start = ts_calloc(T + 1, sizeof *b.in_start);
	b.nl = (size_t)c->L + 1;
	b.out_link = ts_calloc(b.nl, sizeof *b.out_link);
	b.in_link = ts_calloc(b.nl, sizeof *b.in_link);
	b.queue = ts_calloc(T, sizeof *b.queue);
	b.dist = ts_calloc((size_t)T * T, sizeof *b.dist);
	b.tmp_off = ts_calloc((size_t)T * T, sizeof *b.tmp_off);
	b.tmp_len = ts_calloc((size_t)T * T, sizeof *b.tmp_len);
	if (!b.out_start || !b.in_start || !b.out_link || !b.in_link || !b.queue || !b.dist ||
	    !b.tmp_off || !b.tmp_len)
		goto nomem;
	for (size_t k = 0; k < c->L; k++) {
		b.out_start[b.tl[k].src + 1]++;
		b.in_start[b.tl[k].dst + 1]++;
	}
	for (size_t x = 0; x < T; x++) {
		b.out_start[x + 1] += b.out_start[x];
		b.in_start[x + 1] += b.in_start[x];
	}
	{
		uint32_t *fo = b.queue; /* fill cursors; queue is free until route_all */
		for (size_t x = 0; x < T; x++)
			fo[x] = b.out_start[x];
		for (uint32_t k = 0; k < c->L; k++)
			b.out_link[fo[b.tl[k].src]++] = k;
		for (size_t x = 0; x < T; x++)
			fo[x] = b.in_start[x];
		for (uint32_t k = 0; k < c->L; k++)
			b.in_link[fo[b.tl[k].dst]++] = k;
	}
	if (route_all(c, &b) || route_table(c, &b))
		goto nomem;
	/* every pair of the node's GPUs must reach each other (a cluster without
	 * links would otherwise load and fail only when a task cannot start) */
	for (uint32_t i = 0; i < c->gpn; i++)
		for (uint32_t j = 0; j < c->gpn; j++)
			if (i != j &&
			    c->rt_len[(size_t)c->gpu_local[i] * T + c->gpu_local[j]] == NO_ROUTE)
				FAIL(TS_EINVALID, sp->links_line ? sp->files[sp->links_file] : file,
				     sp->links_line ? sp->links_line : sp->top_line,
				     "cluster.node.links",
				     "found no route from gpu[%u] to gpu[%u] in the node template, "
				     "expected connected GPUs",
				     i, j);
	nic_affinity(c, &b);
	for (uint32_t k = 0; k < c->gpn; k++)
		if (c->nics && c->dev_nic[c->gpu_local[k]] == NONE && c->nodes > 1)
			FAIL(TS_EINVALID, sp->links_line ? sp->files[sp->links_file] : file,
			     sp->links_line ? sp->links_line : sp->top_line, "cluster.node.links",
			     "found no route from gpu[%u] to a NIC in the node template (so none "
			     "to the other nodes), expected a path GPU -> switch or cpu -> NIC",
			     k);

	/* materialise devices and links */
	c->ndevs = c->nodes * T + c->fab.nsw;
	c->nlinks = (uint32_t)nlinks;
	c->devs = ts_calloc(c->ndevs, sizeof *c->devs);
	c->links = ts_calloc(c->nlinks ? c->nlinks : 1, sizeof *c->links);
	if (!c->devs || !c->links)
		goto nomem;
	if (!c->nlinks) {
		ts_free(c->links, sizeof *c->links);
		c->links = NULL;
	}
	for (uint32_t n = 0; n < c->nodes; n++) {
		struct hw_device *dv = &c->devs[(size_t)n * T];
		memcpy(dv, c->tdevs, T * sizeof *dv);
		for (uint32_t x = 0; x < T; x++)
			dv[x].node = n;
		struct hw_link *lk = &c->links[(size_t)n * c->L];
		for (uint32_t k = 0; k < c->L; k++)
			lk[k] =
			    (struct hw_link){n * T + b.tl[k].src, n * T + b.tl[k].dst, b.tl[k].type,
					     b.tl[k].bw_Bps,	  b.tl[k].lat_s,       k};
	}
	c->nclasses = c->L + c->fab.ncls;
	if (c->fab.topo != HW_TOPO_NONE) {
		uint32_t *ntype = ts_calloc(c->nics, sizeof *ntype);
		if (!ntype)
			goto nomem;
		for (uint32_t i = 0; i < c->nics; i++)
			ntype[i] = c->tdevs[c->nic_local[i]].type;
		hw_fabric_materialise(&c->fab, cat, T, c->nic_local, ntype,
				      &c->devs[(size_t)c->nodes * T],
				      &c->links[(size_t)c->nodes * c->L]);
		ts_free(ntype, c->nics * sizeof *ntype);
	}
	/* NVLink SHARP: every kept GPU has a link of its own to one nvswitch
	 * that reduces in the switch */
	c->nvls_local = NONE;
	for (uint32_t k = 0; k < c->gpn; k++) {
		uint32_t sw = NONE;
		for (uint32_t l = b.out_start[c->gpu_local[k]];
		     l < b.out_start[c->gpu_local[k] + 1]; l++) {
			uint32_t y = b.tl[b.out_link[l]].dst;
			if (c->tdevs[y].kind == HW_DEV_NVSWITCH &&
			    c->groups[c->tdev_group[y]].sharp && (k == 0 || y == c->nvls_local)) {
				sw = y;
				break;
			}
		}
		if (sw == NONE) {
			c->nvls_local = NONE;
			break;
		}
		c->nvls_local = sw;
	}
	goto out;
nomem:
	rc = oom(err);
out:
	build_free(&b);
	return rc;
#undef FAIL
}

static int from_setting(const struct hw_catalog *cat, const config_setting_t *g, const char *file,
			const struct hw_cluster_opts *opts, struct hw_cluster **out,
			struct ts_error *err)
{
	*out = NULL;
	struct spec *sp = ts_calloc(1, sizeof *sp);
	struct hw_cluster *c = ts_calloc(1, sizeof *c);
	int rc;
	if (!sp || !c) {
		rc = oom(err);
		goto fail;
	}
	sp->p2p = true;
	sp->fabric.topology = HW_TOPO_NONE;
	sp->fabric.link_type = NONE;
	sp->fabric.routing = -1;
	add_file(sp, file, &sp->top_file);
	sp->top_line = cfg_line(g);
	if (!g || !config_setting_is_group(g)) {
		rc = ts_error_set(err, TS_ETYPE, file, cfg_line(g), "cluster",
				  "found %s, expected a group { ... }",
				  g ? cfg_type_name(g) : "nothing");
		goto fail;
	}
	if ((rc = spec_apply(sp, cat, g, sp->top_file, err)) ||
	    (rc = build_cluster(sp, cat, opts, c, err)))
		goto fail;
	spec_free(sp);
	ts_free(sp, sizeof *sp);
	*out = c;
	return 0;
fail:
	if (sp)
		spec_free(sp);
	ts_free(sp, sizeof *sp);
	hw_cluster_destroy(c);
	return rc;
}

int hw_cluster_from_setting(const struct hw_catalog *cat, const void *setting, const char *file,
			    const struct hw_cluster_opts *opts, struct hw_cluster **out,
			    struct ts_error *err)
{
	return from_setting(cat, setting, file, opts, out, err);
}

int hw_cluster_load(const struct hw_catalog *cat, const char *name,
		    const struct hw_cluster_opts *opts, struct hw_cluster **out,
		    struct ts_error *err)
{
	*out = NULL;
	char path[1024];
	cluster_path(cat, name, path, sizeof path);
	config_t cfg;
	const config_setting_t *g = NULL;
	int rc = read_cluster_file(&cfg, path, &g, err);
	if (rc == TS_EIO) {
		char close[256];
		int e = errno;
		suggest_cluster(cat, name, close, sizeof close);
		rc = ts_error_set(err, TS_EIO, path, 0, "cluster",
				  "found \"%s\", which cannot be opened (%s), expected a bundled "
				  "cluster name or a path; close matches: %s",
				  name, strerror(e), close[0] ? close : "(none)");
	}
	if (!rc)
		rc = from_setting(cat, g, path, opts, out, err);
	config_destroy(&cfg);
	return rc;
}

/* ------------------------------------------------------------ accessors */

const char *hw_cluster_name(const struct hw_cluster *c)
{
	return c->name;
}

const struct hw_catalog *hw_cluster_catalog(const struct hw_cluster *c)
{
	return c->cat;
}

uint32_t hw_cluster_nodes(const struct hw_cluster *c)
{
	return c->nodes;
}

uint32_t hw_cluster_gpus_per_node(const struct hw_cluster *c)
{
	return c->gpn;
}

uint32_t hw_cluster_nics_per_node(const struct hw_cluster *c)
{
	return c->nics;
}

uint32_t hw_cluster_gpus(const struct hw_cluster *c)
{
	return c->nodes * c->gpn;
}

uint32_t hw_cluster_ndevices(const struct hw_cluster *c)
{
	return c->ndevs;
}

const struct hw_device *hw_cluster_device(const struct hw_cluster *c, uint32_t dev)
{
	return dev < c->ndevs ? &c->devs[dev] : NULL;
}

uint32_t hw_cluster_nlinks(const struct hw_cluster *c)
{
	return c->nlinks;
}

const struct hw_link *hw_cluster_link(const struct hw_cluster *c, uint32_t link)
{
	return link < c->nlinks ? &c->links[link] : NULL;
}

uint32_t hw_cluster_gpu(const struct hw_cluster *c, uint32_t g)
{
	if (g >= c->nodes * c->gpn)
		return NONE;
	return (g / c->gpn) * c->T + c->gpu_local[g % c->gpn];
}

uint32_t hw_cluster_nic(const struct hw_cluster *c, uint32_t node, uint32_t nic)
{
	if (node >= c->nodes || nic >= c->nics)
		return NONE;
	return node * c->T + c->nic_local[nic];
}

uint32_t hw_cluster_gpu_nic(const struct hw_cluster *c, uint32_t g)
{
	if (g >= c->nodes * c->gpn)
		return NONE;
	return c->dev_nic[c->gpu_local[g % c->gpn]];
}

const struct hw_gpu_type *hw_cluster_gpu_type(const struct hw_cluster *c)
{
	return hw_catalog_gpu(c->cat, c->gpu_type);
}

uint32_t hw_cluster_cpu_cores(const struct hw_cluster *c)
{
	return c->cpu_cores;
}

double hw_cluster_host_memory(const struct hw_cluster *c)
{
	return c->host_mem;
}

bool hw_cluster_p2p(const struct hw_cluster *c)
{
	return c->p2p;
}

const char *hw_cluster_file(const struct hw_cluster *c)
{
	return c->file;
}

const char *hw_cluster_description(const struct hw_cluster *c)
{
	return c->description;
}

const char *hw_cluster_source(const struct hw_cluster *c)
{
	return c->source;
}

double hw_cluster_node_power_w(const struct hw_cluster *c)
{
	return c->power_w;
}

uint32_t hw_cluster_power_gpus(const struct hw_cluster *c)
{
	return c->power_gpus;
}

const char *hw_cluster_power_source(const struct hw_cluster *c)
{
	return c->power_source;
}

uint32_t hw_cluster_nclasses(const struct hw_cluster *c)
{
	return c->nclasses;
}

uint32_t hw_cluster_class_members(const struct hw_cluster *c, uint32_t cls)
{
	if (cls >= c->nclasses)
		return 0;
	return cls < c->L ? c->nodes : hw_fabric_class_members(&c->fab, cls);
}

bool hw_cluster_symmetric(const struct hw_cluster *c)
{
	return c->fab.symmetric;
}

bool hw_cluster_nvls(const struct hw_cluster *c)
{
	return c->nvls_local != NONE;
}

uint32_t hw_cluster_nvls_switch(const struct hw_cluster *c, uint32_t node)
{
	if (c->nvls_local == NONE || node >= c->nodes)
		return NONE;
	return node * c->T + c->nvls_local;
}

bool hw_cluster_collnet(const struct hw_cluster *c)
{
	return c->fab.sharp && c->fab.topo != HW_TOPO_NONE && c->fab.topo != HW_TOPO_TORUS2D &&
	       c->fab.topo != HW_TOPO_TORUS3D;
}

double hw_cluster_flow_cap(const struct hw_cluster *c, uint32_t *sockets)
{
	*sockets = c->fab.sockets ? c->fab.sockets : 1;
	return c->nodes > 1 ? c->fab.flow_cap : 0.0;
}

const char *hw_cluster_topology(const struct hw_cluster *c)
{
	static const char *const names[HW_TOPO_COUNT_] = {"none", "switch",  "fat-tree",
							  "rail", "torus2d", "torus3d"};
	return names[c->fab.topo];
}

uint32_t hw_cluster_nodes_per_leaf(const struct hw_cluster *c)
{
	return c->fab.topo == HW_TOPO_FATTREE ? c->fab.k : 0;
}

double hw_cluster_oversubscription(const struct hw_cluster *c)
{
	return c->fab.topo == HW_TOPO_FATTREE && c->fab.oversub >= 1.0 ? c->fab.oversub : 1.0;
}

/* --------------------------------------------------------------- routes */

/* Append the template route s -> d of `node` (local ids). */
static int put_local(const struct hw_cluster *c, uint32_t node, uint32_t s, uint32_t d,
		     uint32_t *links, size_t max, size_t *n)
{
	size_t p = (size_t)s * c->T + d;
	uint16_t len = c->rt_len[p];
	if (len == NO_ROUTE)
		return TS_EINVALID;
	const uint32_t *r = &c->rt_links[c->rt_off[p]];
	uint32_t base = node * c->L;
	for (uint16_t k = 0; k < len; k++, (*n)++)
		if (*n < max)
			links[*n] = base + r[k];
	return 0;
}

static void put_one(uint32_t id, uint32_t *links, size_t max, size_t *n)
{
	if (*n < max)
		links[*n] = id;
	(*n)++;
}

int hw_cluster_route(const struct hw_cluster *c, uint32_t src, uint32_t dst, uint32_t via_nic,
		     uint32_t *links, size_t max, size_t *n)
{
	*n = 0;
	if (src >= c->ndevs || dst >= c->ndevs)
		return TS_EINVALID;
	if (src == dst)
		return 0;
	const struct hw_device *s = &c->devs[src], *d = &c->devs[dst];
	int rc;
	if (s->node == d->node && s->node == HW_FABRIC)
		return TS_EINVALID; /* between fabric switches: not a route anyone needs */
	if (s->node == d->node) {
		rc = put_local(c, s->node, s->local, d->local, links, max, n);
	} else if (s->node != HW_FABRIC && d->node != HW_FABRIC) {
		if (c->fab.topo == HW_TOPO_NONE || (via_nic != NONE && via_nic >= c->nics))
			return TS_EINVALID;
		uint32_t ns = via_nic != NONE ? via_nic : c->dev_nic[s->local];
		uint32_t nd = via_nic != NONE ? via_nic : c->dev_nic[d->local];
		if (ns == NONE || nd == NONE)
			return TS_EINVALID;
		rc = put_local(c, s->node, s->local, c->nic_local[ns], links, max, n);
		if (!rc) {
			hw_fabric_route(&c->fab, s->node, ns, d->node, nd, links, max, n);
			rc = put_local(c, d->node, c->nic_local[nd], d->local, links, max, n);
		}
	} else {
		/* a node device to or from the switch of a one-switch fabric */
		if (c->fab.topo != HW_TOPO_SWITCH || (via_nic != NONE && via_nic >= c->nics))
			return TS_EINVALID;
		uint32_t fabric_base = c->nodes * c->L;
		rc = 0;
		if (s->node != HW_FABRIC) {
			uint32_t nic = via_nic != NONE ? via_nic : c->dev_nic[s->local];
			if (nic == NONE)
				return TS_EINVALID;
			rc = put_local(c, s->node, s->local, c->nic_local[nic], links, max, n);
			put_one(fabric_base + (s->node * c->nics + nic) * 2, links, max, n);
		}
		if (!rc && d->node != HW_FABRIC) {
			uint32_t nic = via_nic != NONE ? via_nic : c->dev_nic[d->local];
			if (nic == NONE)
				return TS_EINVALID;
			put_one(fabric_base + (d->node * c->nics + nic) * 2 + 1, links, max, n);
			rc = put_local(c, d->node, c->nic_local[nic], d->local, links, max, n);
		}
	}
	if (rc) {
		*n = 0;
		return rc;
	}
	return *n > max ? TS_ELIMIT : 0;
}

/* ------------------------------------------------------------- describe */

struct sbuf {
	char *buf;
	size_t n, len; /* len: characters needed so far */
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = sb->len < sb->n ? sb->n - sb->len : 0;
	int w = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (w > 0)
		sb->len += (size_t)w;
}

static void sb_dev(struct sbuf *sb, const struct hw_cluster *c, uint32_t x)
{
	const struct tgroup *g = &c->groups[c->tdev_group[x]];
	if (g->count == 1)
		sb_printf(sb, "%s", g->name);
	else
		sb_printf(sb, "%s[%u]", g->name, x - g->first);
}

int hw_cluster_describe(const struct hw_cluster *c, char *buf, size_t n)
{
	struct sbuf sb = {buf, n, 0};
	char q1[32], q2[32];
	if (n)
		buf[0] = '\0';
	const struct hw_gpu_type *gt = hw_cluster_gpu_type(c);
	sb_printf(&sb, "cluster %s (%s)\n", c->name, c->file);
	if (c->description[0])
		sb_printf(&sb, "  %s\n", c->description);
	if (c->source[0])
		sb_printf(&sb, "  source: %s\n", c->source);
	char fab[512];
	hw_fabric_summary(&c->fab, c->cat, fab, sizeof fab);
	sb_printf(&sb, "  %u node(s) x %u GPU(s) %s, %u NIC(s) per node, GPU p2p %s, fabric %s\n",
		  c->nodes, c->gpn, gt->name, c->nics, c->p2p ? "yes" : "no (through host)", fab);
	if (c->nvls_local != NONE)
		sb_printf(&sb,
			  "  NVLink SHARP: every GPU joins nvswitch %u, which reduces in the "
			  "switch\n",
			  c->nvls_local);
	sb_printf(&sb, "  %u devices, %u directed links, %u link classes\n", c->ndevs, c->nlinks,
		  c->nclasses);
	sb_printf(&sb, "node devices:\n");
	for (uint32_t g = 0; g < c->ngroups; g++) {
		const struct tgroup *tg = &c->groups[g];
		if (!tg->count)
			continue;
		const char *type = tg->kind == HW_DEV_GPU ? hw_catalog_gpu(c->cat, tg->type)->name
				   : tg->kind == HW_DEV_NIC
				       ? hw_catalog_link(c->cat, tg->type)->name
				       : "";
		sb_printf(&sb, "  %-10s %-12s x%-4u %s\n", tg->name, kind_names[tg->kind],
			  tg->count, type);
	}
	if (c->gpn && c->nics) {
		sb_printf(&sb, "GPU -> NIC:");
		for (uint32_t k = 0; k < c->gpn; k++)
			sb_printf(&sb, " %u->%u", k, c->dev_nic[c->gpu_local[k]]);
		sb_printf(&sb, "\n");
	}
	sb_printf(&sb, "node links (class = link id in node 0; achievable = line x efficiency):\n");
	bool used[1024] = {false};
	for (uint32_t k = 0; k < c->L; k++) {
		const struct hw_link *l = &c->links[k];
		sb_printf(&sb, "  %4u ", k);
		sb_dev(&sb, c, l->src);
		sb_printf(&sb, " -> ");
		sb_dev(&sb, c, l->dst);
		sb_printf(&sb, "  %s  %s  %s\n", hw_catalog_link(c->cat, l->type)->name,
			  ts_units_format(l->bw_Bps, TS_UNIT_BANDWIDTH, q1, sizeof q1),
			  ts_units_format(l->lat_s, TS_UNIT_TIME, q2, sizeof q2));
		if (l->type < 1024)
			used[l->type] = true;
	}
	if (c->fab.topo != HW_TOPO_NONE && c->nics) {
		sb_printf(&sb, "fabric links (per node, per direction):\n");
		for (uint32_t i = 0; i < c->nics; i++) {
			const struct hw_link *l = &c->links[(size_t)c->nodes * c->L + 2 * i];
			sb_printf(&sb, "  nic %u <-> switch  %s  %s  %s  classes %u, %u\n", i,
				  hw_catalog_link(c->cat, l->type)->name,
				  ts_units_format(l->bw_Bps, TS_UNIT_BANDWIDTH, q1, sizeof q1),
				  ts_units_format(l->lat_s, TS_UNIT_TIME, q2, sizeof q2), l->cls,
				  l->cls + 1);
			if (l->type < 1024)
				used[l->type] = true;
		}
		uint32_t first = (uint32_t)c->nodes * c->L + 2 * c->nodes * c->nics;
		if (first < c->nlinks) {
			const struct hw_link *l = &c->links[first];
			sb_printf(&sb, "  switch <-> switch  %s  %s  %s  classes %u..%u\n",
				  hw_catalog_link(c->cat, l->type)->name,
				  ts_units_format(l->bw_Bps, TS_UNIT_BANDWIDTH, q1, sizeof q1),
				  ts_units_format(l->lat_s, TS_UNIT_TIME, q2, sizeof q2),
				  c->L + 2 * c->nics, c->nclasses - 1);
			if (l->type < 1024)
				used[l->type] = true;
		}
	}
	sb_printf(&sb, "link types:\n");
	for (uint32_t t = 0; t < 1024 && t < hw_catalog_nlinks(c->cat); t++) {
		if (!used[t])
			continue;
		const struct hw_link_type *lt = hw_catalog_link(c->cat, t);
		sb_printf(&sb, "  %s: %s x %.2f, %s (%s)\n", lt->name,
			  ts_units_format(lt->bw_Bps, TS_UNIT_BANDWIDTH, q1, sizeof q1),
			  lt->efficiency, ts_units_format(lt->lat_s, TS_UNIT_TIME, q2, sizeof q2),
			  lt->source);
	}
	sb_printf(&sb, "GPU type %s: %s\n", gt->name, gt->source);
	return sb.len > (size_t)INT32_MAX ? INT32_MAX : (int)sb.len;
}
