/* The fabric between nodes: one switch, 2- and 3-level fat-trees (Clos) with
 * an oversubscription ratio, rail-optimized trees and 2D/3D tori; their
 * switches, links, link classes and allocation-free routes.
 * SPDX-License-Identifier: MIT */

/*
 * Geometry. Every topology starts with the NIC links: NIC i of node n joins
 * its switch (or, in a torus, its node's router) in both directions.
 *
 * Trees. A leaf has `k` nodes (nodes_per_leaf, or as many as fit in the
 * down ports of a switch of `radix` ports: radix x o / (1 + o) for an
 * oversubscription o) with p ports each: all NICs of a node on one leaf in a
 * fat-tree (p = NICs per node), one NIC per node on a leaf of its rail in a
 * rail-optimized tree (p = 1, leaves of rail i hold NIC i of consecutive
 * nodes). A leaf has u uplinks (`spines`, else ceil(k p / o)), so a full
 * leaf has k p ports down and u up: an oversubscription of k p / u at equal
 * link rates, realised as in practice by fewer uplink cables. Two levels:
 * spine s joins uplink s of every leaf (u spines). Three levels: pods of P
 * leaves (leaves_per_pod, else radix / 2); each pod has u aggregation
 * switches, uplink s of each leaf going to aggregation switch s of its pod;
 * aggregation switch s of every pod has C = P uplinks to the C core switches
 * of plane s (non-blocking above the leaves), or C = ceil(P / o2) with a
 * pod oversubscription o2 (pod_oversubscription: pods, as data halls or
 * buildings, joined by fewer links than they hold). Switch-to-switch links have
 * the type `link` (default: the NICs' type).
 *
 * Routes between two nodes go up only as far as needed: through the shared
 * leaf; else up to a spine (two levels, or the same pod) or through an
 * aggregation and a core switch (three levels). The choice among the u
 * equal-cost uplinks (and C cores) is static per flow, never per packet:
 * "dmodk" (the default) takes the destination port's global index e modulo u
 * (and e / u modulo C), the destination-mod-k rule of InfiniBand fat-tree
 * routing, which spreads the ports of one leaf evenly over its uplinks;
 * "ecmp" hashes (seed, source node and NIC, destination node and NIC) with
 * splitmix64, as Ethernet switches hash a flow's headers: deterministic for
 * a seed, even only on average (flows can collide, as in real ECMP).
 *
 * Torus. Each node has a router (a fabric switch) that its NICs join; the
 * routers form a 2D or 3D torus with one link per direction per dimension
 * (dims multiply to the node count; node n has coordinates x = n mod d0,
 * y = n / d0 mod d1, z = n / (d0 d1)). Routes are dimension-ordered (x, then
 * y, then z), each the shorter way round, ties going the positive way.
 *
 * Classes. Links alike under the symmetry of the fabric share a class:
 * per NIC index i the NIC up- and downlinks (members = nodes); the leaf
 * uplinks and the spine-to-leaf downlinks, per rail in a rail-optimized tree
 * (members = leaves x u, of that rail); the aggregation-to-core links and
 * back; in a torus the router links per dimension and direction (members =
 * nodes). When the last leaf (or pod) is only partly filled the nodes are no
 * longer all alike: the classes are formed the same way and `symmetric` is
 * false, so class mode (which spreads a class's load evenly over its
 * members) is an approximation there. ECMP collisions are likewise visible
 * only in full mode.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "base/suggest.h"
#include "hw/hw_int.h"

#define NONE UINT32_MAX
#define MAX_RADIX 4096u

static const char *const topo_names[] = {"none",    "switch",  "fat-tree", "rail",
					 "torus2d", "torus3d", NULL};
static const char *const routing_names[] = {"dmodk", "ecmp", NULL};

/* ------------------------------------------------------------- parsing */

/* A down:up ratio `key` of g, when given, into *out: a number from 1
 * (non-blocking) to 1024. */
static int ratio(const config_setting_t *g, const char *key, const char *where, double *out,
		 const char *file, struct ts_error *err)
{
	char k[CFG_KEY_MAX];
	const config_setting_t *s = config_setting_get_member(g, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_FLOAT && t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
		return ts_error_set(
		    err, TS_ETYPE, file, cfg_line(s), cfg_key_join(k, "cluster.fabric", key),
		    "found %s, expected a ratio such as 2.0 (2:1 at %s)", cfg_type_name(s), where);
	double v = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
					  : (double)config_setting_get_int64(s);
	if (!(v >= 1.0) || v > 1024.0)
		return ts_error_set(err, TS_ERANGE, file, cfg_line(s),
				    cfg_key_join(k, "cluster.fabric", key),
				    "found %g, expected a down:up ratio from 1 (non-blocking) "
				    "to 1024",
				    v);
	*out = v;
	return 0;
}

static int choice(const config_setting_t *g, const char *key, const char *const *names, int *out,
		  const char *file, struct ts_error *err)
{
	char v[64], k[CFG_KEY_MAX];
	int rc = cfg_get_string(g, key, true, v, sizeof v, file, "cluster.fabric", err);
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
	return ts_error_set(
	    err, TS_EUNKNOWN_NAME, file, cfg_line(config_setting_get_member(g, key)),
	    cfg_key_join(k, "cluster.fabric", key),
	    "found unknown %s \"%s\", expected one of %s; did you mean %s?", key, v,
	    key[0] == 't' ? "none, switch, fat-tree, rail, torus2d, torus3d" : "dmodk, ecmp",
	    close);
}

int hw_fabric_parse(struct hw_fabric_spec *fs, const struct hw_catalog *cat,
		    const config_setting_t *g, const char *file, struct ts_error *err)
{
	static const char *const keys[] = {"topology",
					   "levels",
					   "radix",
					   "oversubscription",
					   "nodes_per_leaf",
					   "spines",
					   "leaves_per_pod",
					   "link",
					   "routing",
					   "seed",
					   "sharp",
					   "dims",
					   "flow_cap",
					   "socket_threads",
					   "socks_per_thread",
					   "pod_oversubscription",
					   NULL};
	const char *path = "cluster.fabric";
	char k[CFG_KEY_MAX];
	int rc = cfg_check_keys(g, file, path, keys, SIZE_MAX, err);
	if (rc)
		return rc;
	snprintf(fs->file, sizeof fs->file, "%s", file ? file : "");
	fs->line = cfg_line(g);
	if (config_setting_get_member(g, "topology") &&
	    (rc = choice(g, "topology", topo_names, &fs->topology, file, err)))
		return rc;
	if (config_setting_get_member(g, "routing") &&
	    (rc = choice(g, "routing", routing_names, &fs->routing, file, err)))
		return rc;
	if ((rc = cfg_get_uint(g, "levels", false, 2, 3, &fs->levels, file, path, err)) < 0 ||
	    (rc = cfg_get_uint(g, "radix", false, 2, MAX_RADIX, &fs->radix, file, path, err)) < 0 ||
	    (rc = cfg_get_uint(g, "nodes_per_leaf", false, 1, MAX_RADIX, &fs->nodes_per_leaf, file,
			       path, err)) < 0 ||
	    (rc = cfg_get_uint(g, "spines", false, 1, MAX_RADIX, &fs->spines, file, path, err)) <
		0 ||
	    (rc = cfg_get_uint(g, "leaves_per_pod", false, 1, MAX_RADIX, &fs->leaves_per_pod, file,
			       path, err)) < 0)
		return rc;
	const config_setting_t *s;
	if ((rc = ratio(g, "oversubscription", "the leaf uplinks", &fs->oversub, file, err)) ||
	    (rc = ratio(g, "pod_oversubscription", "the aggregation uplinks", &fs->pod_oversub,
			file, err)))
		return rc;
	if ((s = config_setting_get_member(g, "link"))) {
		char v[64];
		if ((rc = cfg_get_string(g, "link", true, v, sizeof v, file, path, err)))
			return rc;
		int i = hw_catalog_find_link(cat, v);
		if (i < 0) {
			char close[256];
			hw_catalog_suggest(cat, "link", v, close, sizeof close);
			return ts_error_set(
			    err, TS_EUNKNOWN_NAME, file, cfg_line(s), cfg_key_join(k, path, "link"),
			    "found unknown link type \"%s\", expected a link type of "
			    "the catalog; close matches: %s",
			    v, close[0] ? close : "(none)");
		}
		fs->link_type = (uint32_t)i;
	}
	if ((s = config_setting_get_member(g, "seed"))) {
		int t = config_setting_type(s);
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) ||
		    config_setting_get_int64(s) < 0)
			return ts_error_set(
			    err, TS_ETYPE, file, cfg_line(s), cfg_key_join(k, path, "seed"),
			    "found %s, expected a non-negative integer", cfg_type_name(s));
		fs->seed = (uint64_t)config_setting_get_int64(s);
		fs->has_seed = true;
	}
	if (config_setting_get_member(g, "sharp")) {
		if ((rc = cfg_get_bool(g, "sharp", true, &fs->sharp, file, path, err)))
			return rc;
		fs->has_sharp = true;
	}
	/* NCCL's socket transport (src/transport/net_socket.cc): each connection
	 * opens NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD sockets, at most 16
	 * threads (MAX_THREADS) and 64 sockets (MAX_SOCKETS) */
	double cap = 0.0;
	uint32_t nt = 0, ns = 0;
	if ((rc = cfg_get_number(g, "flow_cap", TS_UNIT_BANDWIDTH, false, CFG_POSITIVE, 1e15, &cap,
				 file, path, err)) < 0 ||
	    (rc = cfg_get_uint(g, "socket_threads", false, 1, 16, &nt, file, path, err)) < 0 ||
	    (rc = cfg_get_uint(g, "socks_per_thread", false, 1, 64, &ns, file, path, err)) < 0)
		return rc;
	if (config_setting_get_member(g, "flow_cap"))
		fs->flow_cap = cap;
	if (config_setting_get_member(g, "socket_threads"))
		fs->socket_threads = nt;
	if (config_setting_get_member(g, "socks_per_thread"))
		fs->socks_per_thread = ns;
	uint32_t nthr = fs->socket_threads ? fs->socket_threads : 1;
	uint32_t sp = fs->socks_per_thread ? fs->socks_per_thread : 1;
	if (nthr * sp > 64) {
		const char *key = config_setting_get_member(g, "socks_per_thread")
				      ? "socks_per_thread"
				      : "socket_threads";
		return ts_error_set(
		    err, TS_ERANGE, file, cfg_line(config_setting_get_member(g, key)),
		    cfg_key_join(k, path, key),
		    "found socket_threads %u x socks_per_thread %u = %u sockets per "
		    "connection, expected at most 64 (NCCL's MAX_SOCKETS)",
		    nthr, sp, nthr * sp);
	}
	if ((s = config_setting_get_member(g, "dims"))) {
		int n = (config_setting_is_array(s) || config_setting_is_list(s))
			    ? config_setting_length(s)
			    : -1;
		if (n < 2 || n > 3)
			return ts_error_set(
			    err, TS_ETYPE, file, cfg_line(s), cfg_key_join(k, path, "dims"),
			    "found %s, expected an array of 2 or 3 sizes such as [4, "
			    "4, 8]",
			    n < 0 ? cfg_type_name(s) : "a different length");
		for (int i = 0; i < n; i++) {
			const config_setting_t *x = config_setting_get_elem(s, (unsigned)i);
			int t = config_setting_type(x);
			long long v = (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
					  ? config_setting_get_int64(x)
					  : -1;
			if (v < 2 || v > 65536)
				return ts_error_set(err, TS_ERANGE, file, cfg_line(s),
						    cfg_key_join(k, path, "dims"),
						    "element %d is not a size from 2 to 65536", i);
			fs->dims[i] = (uint32_t)v;
		}
		fs->ndims = (uint32_t)n;
	}
	return 0;
}

/* ------------------------------------------------------------ geometry */

static uint32_t ceil_div(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

__attribute__((format(printf, 5, 6))) static int plan_err(const struct hw_fabric_spec *fs, int code,
							  const char *key, struct ts_error *err,
							  const char *fmt, ...)
{
	char k[CFG_KEY_MAX], msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ts_error_set(err, code, fs->file, fs->line, cfg_key_join(k, "cluster.fabric", key),
			    "%s", msg);
}

static bool is_tree(int t)
{
	return t == HW_TOPO_FATTREE || t == HW_TOPO_RAIL;
}

static bool is_torus(int t)
{
	return t == HW_TOPO_TORUS2D || t == HW_TOPO_TORUS3D;
}

int hw_fabric_plan(struct hw_fabric *fb, const struct hw_fabric_spec *fs,
		   const struct hw_catalog *cat, uint32_t nodes, uint32_t nics, uint32_t nic_type,
		   uint32_t sw_base, uint64_t link_base, uint32_t cls_base, struct ts_error *err)
{
	memset(fb, 0, sizeof *fb);
	fb->topo = fs->topology;
	fb->nodes = nodes;
	fb->nics = nics;
	fb->sw_base = sw_base;
	fb->cls_base = cls_base;
	fb->routing = fs->routing < 0 ? HW_ROUTE_DMODK : fs->routing;
	fb->seed = fs->has_seed ? fs->seed : 1;
	fb->sharp = fs->sharp;
	/* What one TCP flow carries: the cloud's per-flow limit (fabric.flow_cap)
	 * and the host's, one kernel TCP stream (links.cfg flow_cap of the NIC's
	 * link type), whichever is lower; 0 when neither applies (RDMA) */
	double host_cap =
	    nic_type < hw_catalog_nlinks(cat) ? hw_catalog_link(cat, nic_type)->flow_cap_Bps : 0.0;
	fb->flow_cap = fs->flow_cap > 0.0 && host_cap > 0.0 ? fmin(fs->flow_cap, host_cap)
							    : fmax(fs->flow_cap, host_cap);
	fb->sockets = (fs->socket_threads ? fs->socket_threads : 1) *
		      (fs->socks_per_thread ? fs->socks_per_thread : 1);
	fb->symmetric = true;
	fb->up_type = fs->link_type != NONE ? fs->link_type : nic_type;
	if (fb->topo == HW_TOPO_NONE || nics == 0) {
		/* no network: the caller refuses more than one node */
		fb->topo = HW_TOPO_NONE;
		fb->link_base = (uint32_t)(link_base < NONE ? link_base : 0);
		return 0;
	}
	const struct hw_link_type *ut = hw_catalog_link(cat, fb->up_type);
	fb->up_bw = ut->bw_Bps * ut->efficiency;
	fb->up_lat = ut->lat_s;
	uint64_t nl = 2ull * nodes * nics; /* NIC links */
	uint64_t nsw = 0;
	uint32_t ncls = 2 * nics;
	if (fb->topo == HW_TOPO_SWITCH) {
		fb->levels = 1;
		fb->k = nodes;
		fb->p = nics;
		fb->nleaves = fb->lpr = 1;
		nsw = 1;
	} else if (is_tree(fb->topo)) {
		double o = fs->oversub > 0.0 ? fs->oversub : 1.0;
		fb->levels = fs->levels ? fs->levels : 2;
		fb->p = fb->topo == HW_TOPO_FATTREE ? nics : 1;
		if (fs->nodes_per_leaf) {
			fb->k = fs->nodes_per_leaf;
		} else if (fs->radix) {
			uint32_t down = (uint32_t)floor(fs->radix * o / (1.0 + o));
			fb->k = down / fb->p;
			if (fb->k == 0)
				return plan_err(fs, TS_ERANGE, "radix", err,
						"found radix %u, expected at least %u down ports "
						"for one node's NICs on a leaf",
						fs->radix, fb->p);
		} else {
			return plan_err(fs, TS_EINVALID, "nodes_per_leaf", err,
					"found neither nodes_per_leaf nor radix, expected one of "
					"them to size the leaves");
		}
		fb->u = fs->spines;
		if (!fs->spines) {
			double uu = ceil((double)fb->k * fb->p / o - 1e-9);
			fb->u = uu < 1.0 ? 1u : (uint32_t)uu;
		}
		fb->lpr = ceil_div(nodes, fb->k);
		fb->nleaves = fb->lpr * (fb->topo == HW_TOPO_RAIL ? nics : 1);
		fb->symmetric = fb->lpr == 1 || nodes % fb->k == 0;
		if (fs->radix && (uint64_t)fb->k * fb->p + fb->u > fs->radix)
			return plan_err(fs, TS_ERANGE, "radix", err,
					"found a leaf of %u ports down and %u up, more than radix "
					"%u, expected nodes_per_leaf x ports + uplinks <= radix",
					fb->k * fb->p, fb->u, fs->radix);
		nsw = fb->nleaves;
		nl += 2ull * fb->nleaves * fb->u;
		uint32_t rails = fb->topo == HW_TOPO_RAIL ? nics : 1;
		ncls += 2 * rails;
		if (fb->levels == 2) {
			if (fs->pod_oversub > 0.0)
				return plan_err(
				    fs, TS_EINVALID, "pod_oversubscription", err,
				    "found a ratio between pods for a 2-level tree, "
				    "expected levels = 3 (pods joined by core switches)");
			if (fs->radix && fb->nleaves > fs->radix)
				return plan_err(fs, TS_ERANGE, "levels", err,
						"found %u leaves, more than a spine's radix %u; "
						"expected levels = 3 (or a larger radix)",
						fb->nleaves, fs->radix);
			nsw += fb->u;
		} else {
			if (fs->leaves_per_pod)
				fb->P = fs->leaves_per_pod;
			else if (fs->radix)
				fb->P = fs->radix / 2;
			else
				return plan_err(fs, TS_EINVALID, "leaves_per_pod", err,
						"found neither leaves_per_pod nor radix for a "
						"3-level tree, expected one of them");
			/* the aggregation switch's uplinks: as many as its leaves, or
			 * fewer by pod_oversubscription */
			fb->C = fb->P;
			if (fs->pod_oversub > 0.0) {
				double cc = ceil((double)fb->P / fs->pod_oversub - 1e-9);
				fb->C = cc < 1.0 ? 1u : (uint32_t)cc;
			}
			fb->npods = ceil_div(fb->nleaves, fb->P);
			if (fb->nleaves % fb->P && fb->npods > 1)
				fb->symmetric = false;
			if (fs->radix && fb->npods > fs->radix)
				return plan_err(fs, TS_ERANGE, "radix", err,
						"found %u pods, more than a core switch's radix "
						"%u, expected fewer nodes or a larger radix",
						fb->npods, fs->radix);
			nsw += (uint64_t)fb->npods * fb->u + (uint64_t)fb->u * fb->C;
			nl += 2ull * fb->npods * fb->u * fb->C;
			ncls += 2;
		}
		fb->oversub = (double)fb->k * fb->p *
			      (hw_catalog_link(cat, nic_type)->bw_Bps *
			       hw_catalog_link(cat, nic_type)->efficiency) /
			      (fb->u * fb->up_bw);
	} else if (is_torus(fb->topo)) {
		uint32_t want = fb->topo == HW_TOPO_TORUS2D ? 2 : 3;
		if (fs->ndims != want)
			return plan_err(fs, TS_EINVALID, "dims", err,
					"found %u dims, expected %u sizes (dims = [x, y] or [x, "
					"y, z])",
					fs->ndims, want);
		uint64_t prod = 1;
		for (uint32_t d = 0; d < want; d++) {
			fb->dims[d] = fs->dims[d];
			prod *= fs->dims[d];
		}
		fb->ndims = want;
		if (prod != nodes)
			return plan_err(fs, TS_ERANGE, "dims", err,
					"found dims that multiply to %llu nodes for a cluster of "
					"%u nodes, expected their product to equal nodes",
					(unsigned long long)prod, nodes);
		nsw = nodes;
		nl += 2ull * want * nodes;
		ncls += 2 * want;
	}
	if (sw_base + nsw >= NONE || link_base + nl >= NONE)
		return plan_err(fs, TS_ELIMIT, "topology", err,
				"found a fabric of %llu switches and %llu links, expected fewer "
				"than 2^32 devices and links in all",
				(unsigned long long)nsw, (unsigned long long)nl);
	fb->nsw = (uint32_t)nsw;
	fb->link_base = (uint32_t)link_base;
	fb->up_base = fb->link_base + 2 * nodes * nics;
	fb->core_base = fb->up_base + 2 * fb->nleaves * fb->u;
	fb->nlinks = (uint32_t)nl;
	fb->ncls = ncls;
	return 0;
}

/* Device id of the leaf (or router) that NIC i of node n joins. */
static uint32_t leaf_of(const struct hw_fabric *fb, uint32_t n, uint32_t i)
{
	switch (fb->topo) {
	case HW_TOPO_SWITCH:
		return 0;
	case HW_TOPO_FATTREE:
		return n / fb->k;
	case HW_TOPO_RAIL:
		return i * fb->lpr + n / fb->k;
	default: /* torus: the node's router */
		return n;
	}
}

/* Index of NIC i of node n among the ports of its leaf. */
static uint32_t pos_in_leaf(const struct hw_fabric *fb, uint32_t n, uint32_t i)
{
	return fb->topo == HW_TOPO_FATTREE ? (n % fb->k) * fb->p + i : n % fb->k;
}

static uint32_t class_nic(const struct hw_fabric *fb, uint32_t i, uint32_t down)
{
	return fb->cls_base + 2 * i + down;
}

static uint32_t class_leaf(const struct hw_fabric *fb, uint32_t leaf, uint32_t down)
{
	uint32_t r = fb->topo == HW_TOPO_RAIL ? leaf / fb->lpr : 0;
	return fb->cls_base + 2 * fb->nics + 2 * r + down;
}

static uint32_t class_core(const struct hw_fabric *fb, uint32_t down)
{
	uint32_t rails = fb->topo == HW_TOPO_RAIL ? fb->nics : 1;
	return fb->cls_base + 2 * fb->nics + 2 * rails + down;
}

/* Node coordinates in a torus and back. */
static void coords(const struct hw_fabric *fb, uint32_t n, uint32_t *x)
{
	for (uint32_t d = 0; d < fb->ndims; d++) {
		x[d] = n % fb->dims[d];
		n /= fb->dims[d];
	}
}

static uint32_t node_at(const struct hw_fabric *fb, const uint32_t *x)
{
	uint32_t n = 0;
	for (uint32_t d = fb->ndims; d-- > 0;)
		n = n * fb->dims[d] + x[d];
	return n;
}

static uint32_t neighbour(const struct hw_fabric *fb, uint32_t n, uint32_t d, uint32_t neg)
{
	uint32_t x[3];
	coords(fb, n, x);
	x[d] = neg ? (x[d] + fb->dims[d] - 1) % fb->dims[d] : (x[d] + 1) % fb->dims[d];
	return node_at(fb, x);
}

void hw_fabric_materialise(const struct hw_fabric *fb, const struct hw_catalog *cat, uint32_t T,
			   const uint32_t *nic_local, const uint32_t *nic_type,
			   struct hw_device *devs, struct hw_link *links)
{
	if (fb->topo == HW_TOPO_NONE)
		return;
	uint32_t naggs = fb->npods * fb->u;
	for (uint32_t x = 0; x < fb->nsw; x++) {
		uint32_t level = x < fb->nleaves || is_torus(fb->topo)		       ? 0
				 : x < fb->nleaves + (fb->levels == 2 ? fb->u : naggs) ? 1
										       : 2;
		devs[x] = (struct hw_device){HW_DEV_SWITCH, HW_FABRIC, x, NONE, level};
	}
	struct hw_link *nl = links;
	for (uint32_t n = 0; n < fb->nodes; n++)
		for (uint32_t i = 0; i < fb->nics; i++) {
			const struct hw_link_type *t = hw_catalog_link(cat, nic_type[i]);
			double bw = t->bw_Bps * t->efficiency;
			uint32_t nic = n * T + nic_local[i];
			uint32_t sw = fb->sw_base + leaf_of(fb, n, i);
			size_t id = ((size_t)n * fb->nics + i) * 2;
			nl[id] = (struct hw_link){nic, sw,	 nic_type[i],
						  bw,  t->lat_s, class_nic(fb, i, 0)};
			nl[id + 1] = (struct hw_link){sw, nic,	    nic_type[i],
						      bw, t->lat_s, class_nic(fb, i, 1)};
		}
	struct hw_link *ul = links + (fb->up_base - fb->link_base);
	if (is_tree(fb->topo)) {
		for (uint32_t j = 0; j < fb->nleaves; j++)
			for (uint32_t s = 0; s < fb->u; s++) {
				uint32_t leaf = fb->sw_base + j;
				uint32_t up = fb->sw_base + fb->nleaves +
					      (fb->levels == 2 ? s : (j / fb->P) * fb->u + s);
				size_t id = ((size_t)j * fb->u + s) * 2;
				ul[id] =
				    (struct hw_link){leaf,	up,	    fb->up_type,
						     fb->up_bw, fb->up_lat, class_leaf(fb, j, 0)};
				ul[id + 1] =
				    (struct hw_link){up,	leaf,	    fb->up_type,
						     fb->up_bw, fb->up_lat, class_leaf(fb, j, 1)};
			}
		struct hw_link *cl = links + (fb->core_base - fb->link_base);
		for (uint32_t a = 0; a < naggs; a++)
			for (uint32_t c = 0; c < fb->C; c++) {
				uint32_t agg = fb->sw_base + fb->nleaves + a;
				uint32_t core =
				    fb->sw_base + fb->nleaves + naggs + (a % fb->u) * fb->C + c;
				size_t id = ((size_t)a * fb->C + c) * 2;
				cl[id] = (struct hw_link){agg,	     core,	 fb->up_type,
							  fb->up_bw, fb->up_lat, class_core(fb, 0)};
				cl[id + 1] =
				    (struct hw_link){core,	agg,	    fb->up_type,
						     fb->up_bw, fb->up_lat, class_core(fb, 1)};
			}
	} else if (is_torus(fb->topo)) {
		for (uint32_t n = 0; n < fb->nodes; n++)
			for (uint32_t d = 0; d < fb->ndims; d++)
				for (uint32_t neg = 0; neg < 2; neg++) {
					size_t id = (size_t)n * 2 * fb->ndims + 2 * d + neg;
					ul[id] = (struct hw_link){
					    fb->sw_base + n,
					    fb->sw_base + neighbour(fb, n, d, neg),
					    fb->up_type,
					    fb->up_bw,
					    fb->up_lat,
					    fb->cls_base + 2 * fb->nics + 2 * d + neg};
				}
	}
}

/* ---------------------------------------------------------------- routes */

static void put(uint32_t id, uint32_t *links, size_t max, size_t *n)
{
	if (*n < max)
		links[*n] = id;
	(*n)++;
}

void hw_fabric_route(const struct hw_fabric *fb, uint32_t a, uint32_t ns, uint32_t b, uint32_t nd,
		     uint32_t *links, size_t max, size_t *n)
{
	put(fb->link_base + (a * fb->nics + ns) * 2, links, max, n);
	if (is_tree(fb->topo)) {
		uint32_t la = leaf_of(fb, a, ns), lb = leaf_of(fb, b, nd);
		if (la != lb) {
			uint32_t j, c;
			if (fb->routing == HW_ROUTE_ECMP) {
				uint64_t h =
				    hash_splitmix64(hash_splitmix64(hash_splitmix64(fb->seed) ^
								    ((uint64_t)a * fb->nics + ns)) ^
						    ((uint64_t)b * fb->nics + nd));
				j = (uint32_t)(h % fb->u);
				c = fb->C ? (uint32_t)(hash_splitmix64(h) % fb->C) : 0;
			} else {
				uint64_t e = (uint64_t)lb * fb->k * fb->p + pos_in_leaf(fb, b, nd);
				j = (uint32_t)(e % fb->u);
				c = fb->C ? (uint32_t)(e / fb->u % fb->C) : 0;
			}
			put(fb->up_base + (la * fb->u + j) * 2, links, max, n);
			if (fb->levels == 3 && la / fb->P != lb / fb->P) {
				uint32_t aa = (la / fb->P) * fb->u + j,
					 ab = (lb / fb->P) * fb->u + j;
				put(fb->core_base + (aa * fb->C + c) * 2, links, max, n);
				put(fb->core_base + (ab * fb->C + c) * 2 + 1, links, max, n);
			}
			put(fb->up_base + (lb * fb->u + j) * 2 + 1, links, max, n);
		}
	} else if (is_torus(fb->topo)) {
		uint32_t xa[3], xb[3];
		coords(fb, a, xa);
		coords(fb, b, xb);
		uint32_t cur = a;
		for (uint32_t d = 0; d < fb->ndims; d++) {
			uint32_t size = fb->dims[d];
			uint32_t fwd = (xb[d] + size - xa[d]) % size;
			uint32_t neg = fwd > size / 2;
			uint32_t steps = neg ? size - fwd : fwd;
			for (uint32_t s = 0; s < steps; s++) {
				put(fb->up_base + cur * 2 * fb->ndims + 2 * d + neg, links, max, n);
				cur = neighbour(fb, cur, d, neg);
			}
		}
	}
	put(fb->link_base + (b * fb->nics + nd) * 2 + 1, links, max, n);
}

uint32_t hw_fabric_class_members(const struct hw_fabric *fb, uint32_t cls)
{
	if (cls < fb->cls_base || cls >= fb->cls_base + fb->ncls)
		return 0;
	uint32_t k = cls - fb->cls_base;
	if (k < 2 * fb->nics || is_torus(fb->topo))
		return fb->nodes;
	uint32_t rails = fb->topo == HW_TOPO_RAIL ? fb->nics : 1;
	if (k < 2 * fb->nics + 2 * rails)
		return fb->lpr * fb->u; /* leaves of one rail (all leaves in a fat-tree) */
	return fb->npods * fb->u * fb->C;
}

int hw_fabric_summary(const struct hw_fabric *fb, const struct hw_catalog *cat, char *buf, size_t n)
{
	const char *route = fb->routing == HW_ROUTE_ECMP ? "ECMP hash" : "destination-mod-k";
	const char *lt = fb->topo != HW_TOPO_NONE ? hw_catalog_link(cat, fb->up_type)->name : "";
	switch (fb->topo) {
	case HW_TOPO_SWITCH:
		return snprintf(buf, n, "one non-blocking switch%s",
				fb->sharp ? " with in-network reduction" : "");
	case HW_TOPO_FATTREE:
	case HW_TOPO_RAIL:
		if (fb->levels == 2)
			return snprintf(buf, n,
					"%s 2-level %s: %u leaves of %u nodes (%u ports down, %u "
					"up, %.2f:1), %u spines, %s links, %s routing%s%s",
					fb->topo == HW_TOPO_RAIL ? "rail-optimized" : "a",
					fb->topo == HW_TOPO_RAIL ? "tree" : "fat-tree", fb->nleaves,
					fb->k, fb->k * fb->p, fb->u, fb->oversub, fb->u, lt, route,
					fb->symmetric ? "" : ", last leaf partly filled",
					fb->sharp ? ", in-network reduction" : "");
		char above[64] = "";
		if (fb->C < fb->P)
			snprintf(above, sizeof above, " (%u down, %u up, %.2f:1)", fb->P, fb->C,
				 (double)fb->P / fb->C);
		return snprintf(buf, n,
				"%s 3-level %s: %u leaves of %u nodes (%u ports down, %u up, "
				"%.2f:1) in %u pods of %u, %u aggregation%s and %u core switches, "
				"%s links, %s routing%s%s",
				fb->topo == HW_TOPO_RAIL ? "rail-optimized" : "a",
				fb->topo == HW_TOPO_RAIL ? "tree" : "fat-tree", fb->nleaves, fb->k,
				fb->k * fb->p, fb->u, fb->oversub, fb->npods, fb->P,
				fb->npods * fb->u, above, fb->u * fb->C, lt, route,
				fb->symmetric ? "" : ", last leaf or pod partly filled",
				fb->sharp ? ", in-network reduction" : "");
	case HW_TOPO_TORUS2D:
		return snprintf(buf, n, "2D torus %ux%u of node routers, %s links", fb->dims[0],
				fb->dims[1], lt);
	case HW_TOPO_TORUS3D:
		return snprintf(buf, n, "3D torus %ux%ux%u of node routers, %s links", fb->dims[0],
				fb->dims[1], fb->dims[2], lt);
	default:
		return snprintf(buf, n, "none");
	}
}
