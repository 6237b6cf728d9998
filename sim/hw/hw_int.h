/* Internals shared by the files of sim/hw/: the sanity bounds of links and
 * the fabric topologies (the libconfig reads are base/cfg.h's).
 * SPDX-License-Identifier: MIT */
#ifndef TS_HW_INT_H
#define TS_HW_INT_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cfg.h"
#include "base/err.h"
#include "base/units.h"
#include "hw/cluster.h"

/* The sanity bounds of a link's bandwidth (B/s), latency (s) and efficiency,
 * read from group e (a catalog entry or a cluster's link override; absent
 * members are not checked). See catalog.c for why each bound is far outside
 * real hardware. */
int hw_cfg_link_bounds(const config_setting_t *e, double bw_Bps, double lat_s, double eff,
		       const char *file, const char *path, struct ts_error *err);

/* ------------------------------------------------------------ fabrics */

/* Fabric topologies between nodes (sim/hw/fabric.c). */
enum hw_topology {
	HW_TOPO_NONE,	 /* one node, no network */
	HW_TOPO_SWITCH,	 /* one non-blocking switch */
	HW_TOPO_FATTREE, /* 2- or 3-level fat-tree (Clos), all NICs of a node on one leaf */
	HW_TOPO_RAIL,	 /* rail-optimized: NIC i of every node on a leaf of rail i */
	HW_TOPO_TORUS2D, /* 2D torus of per-node routers (TPU-pod style) */
	HW_TOPO_TORUS3D, /* 3D torus */
	HW_TOPO_COUNT_
};

/* Multi-path choice among equal-cost uplinks. */
enum hw_routing {
	HW_ROUTE_DMODK, /* static destination-mod-k, as InfiniBand subnet managers program it */
	HW_ROUTE_ECMP /* seeded hash of (src node, src NIC, dst node, dst NIC), as Ethernet ECMP */
};

/* The `fabric` group as parsed; 0 (or NONE for link_type, -1 for routing)
 * means not given. Later groups (an inline `base` override) replace only the
 * keys they give. */
struct hw_fabric_spec {
	int topology;	 /* enum hw_topology */
	uint32_t levels; /* 2 | 3 */
	uint32_t radix;	 /* ports per switch */
	uint32_t nodes_per_leaf;
	uint32_t spines;	 /* uplinks per leaf (= spines of a 2-level tree) */
	uint32_t leaves_per_pod; /* 3-level */
	double oversub;		 /* down:up at the leaves, >= 1 */
	double pod_oversub;	 /* 3-level: down:up at the aggregation switches, >= 1 */
	uint32_t link_type;	 /* switch-to-switch link type; UINT32_MAX = the NICs' */
	int routing;		 /* enum hw_routing, -1 = default (dmodk) */
	uint64_t seed;		 /* ECMP hash seed (default 1) */
	bool has_seed;
	bool sharp; /* switches reduce in the network (InfiniBand SHARP) */
	bool has_sharp;
	uint32_t dims[3], ndims;   /* torus dimensions */
	double flow_cap;	   /* bytes/s one TCP flow may carry (a cloud's per-flow
				    * limit); 0 = none */
	uint32_t socket_threads;   /* NCCL_SOCKET_NTHREADS, 0 = not given (1) */
	uint32_t socks_per_thread; /* NCCL_NSOCKS_PERTHREAD, 0 = not given (1) */
	char file[256];		   /* where `fabric` was last given, for messages */
	int line;
};

/* Parse group `g` (cluster.fabric) of `file` into `fs`, over what it holds.
 * Returns 0 or TS_EUNKNOWN_KEY, TS_ETYPE, TS_ERANGE, TS_EUNKNOWN_NAME,
 * TS_EINVALID with err filled. */
int hw_fabric_parse(struct hw_fabric_spec *fs, const struct hw_catalog *cat,
		    const config_setting_t *g, const char *file, struct ts_error *err);

/* The fabric as built: its geometry, and where its devices, links and
 * classes start in the cluster's numbering. Plain record, no allocation. */
struct hw_fabric {
	int topo;		 /* enum hw_topology */
	uint32_t nodes, nics;	 /* nodes, NICs per node */
	uint32_t levels;	 /* switch tiers: 1 switch, 2-3 trees, 0 torus/none */
	uint32_t k, p;		 /* nodes per leaf, ports per node on one leaf */
	uint32_t nleaves, lpr;	 /* leaves; leaves per rail (rail), else nleaves */
	uint32_t u;		 /* uplinks per leaf */
	uint32_t P, npods, C;	 /* 3-level: leaves per pod, pods, cores per plane */
	uint32_t nsw;		 /* fabric switch devices */
	uint32_t sw_base;	 /* device id of the first */
	uint32_t link_base;	 /* link id of the first fabric link (the NIC links) */
	uint32_t up_base;	 /* leaf uplinks (trees) or router links (torus) */
	uint32_t core_base;	 /* aggregation-to-core links (3-level) */
	uint32_t nlinks;	 /* fabric links in all */
	uint32_t cls_base, ncls; /* fabric link classes */
	uint32_t up_type;	 /* catalog type of switch-to-switch links */
	double up_bw, up_lat;	 /* their achievable bytes/s and latency */
	int routing;
	uint64_t seed;
	uint32_t dims[3], ndims;
	bool sharp;
	double flow_cap;  /* bytes/s per TCP flow, 0 = no per-flow limit */
	uint32_t sockets; /* TCP flows per NCCL socket connection (>= 1) */
	bool symmetric;	  /* every leaf (pod) holds as many nodes (leaves) */
	double oversub;	  /* realised down:up capacity at a full leaf */
};

/* Size the fabric of `fs` for `nodes` nodes of `nics` NICs (nic_type: the
 * link type of NIC 0, which also types switch-to-switch links unless the
 * spec names one). Device and link numbering start at sw_base and
 * link_base, classes at cls_base. Errors name cluster.fabric.KEY in
 * fs->file: TS_EINVALID (a key missing or not for this topology), TS_ERANGE
 * (counts that do not fit the radix or dims that do not multiply to nodes),
 * TS_ELIMIT (more than 2^32 ids). */
int hw_fabric_plan(struct hw_fabric *fb, const struct hw_fabric_spec *fs,
		   const struct hw_catalog *cat, uint32_t nodes, uint32_t nics, uint32_t nic_type,
		   uint32_t sw_base, uint64_t link_base, uint32_t cls_base, struct ts_error *err);

/* Write the fabric's devices (devs[0..nsw)) and links (links[0..nlinks),
 * ids from link_base). NIC i of node n is device n * T + nic_local[i], of
 * link type nic_type[i]. */
void hw_fabric_materialise(const struct hw_fabric *fb, const struct hw_catalog *cat, uint32_t T,
			   const uint32_t *nic_local, const uint32_t *nic_type,
			   struct hw_device *devs, struct hw_link *links);

/* Append the fabric part of the route from NIC ns of node a to NIC nd of
 * node b (a != b): the NIC's up link, the switch hops, the down link into
 * NIC nd. Writes ids while *n < max and counts every hop in *n. */
void hw_fabric_route(const struct hw_fabric *fb, uint32_t a, uint32_t ns, uint32_t b, uint32_t nd,
		     uint32_t *links, size_t max, size_t *n);

/* Members of fabric class `cls` (absolute class id), 0 if not a fabric class. */
uint32_t hw_fabric_class_members(const struct hw_fabric *fb, uint32_t cls);

/* One line describing the fabric, like snprintf. */
int hw_fabric_summary(const struct hw_fabric *fb, const struct hw_catalog *cat, char *buf,
		      size_t n);

#endif
