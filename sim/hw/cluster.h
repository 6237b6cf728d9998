/* The cluster graph: a node template (GPUs, CPU sockets, PCIe switches, NICs,
 * NVSwitches and the directed links between them) repeated `nodes` times and
 * joined by a fabric of switches; routes between devices; link classes for
 * class-mode simulation. Loaded from configs/clusters/NAME.cfg.
 * SPDX-License-Identifier: MIT */
#ifndef TS_HW_CLUSTER_H
#define TS_HW_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/catalog.h"

enum hw_dev_kind {
	HW_DEV_GPU,
	HW_DEV_CPU,	    /* a CPU socket with its host memory */
	HW_DEV_PCIE_SWITCH, /* a PCIe switch or root complex */
	HW_DEV_NIC,
	HW_DEV_NVSWITCH,
	HW_DEV_SWITCH, /* a network switch of the fabric (leaf, spine) */
	HW_DEV_STORAGE,
	HW_DEV_KIND_COUNT_
};

#define HW_FABRIC UINT32_MAX /* node index of devices that belong to no node */

/* A device. Plain record. */
struct hw_device {
	enum hw_dev_kind kind;
	uint32_t node;	/* node index, or HW_FABRIC */
	uint32_t local; /* index in the node template (or among the fabric's switches) */
	uint32_t type;	/* catalog index (GPU type for GPUs, link type for NICs), or UINT32_MAX */
	uint32_t group; /* index among devices of the same kind in its node (GPU 0..7);
			   for a fabric switch its level: 0 leaf (or torus router),
			   1 spine or aggregation, 2 core */
};

/* A directed link. A cable or port used in both directions is two links,
 * each its own constraint. Plain record. */
struct hw_link {
	uint32_t src, dst; /* device ids */
	uint32_t type;	   /* catalog link type */
	double bw_Bps;	   /* achievable bytes/s in this direction (line rate x efficiency) */
	double lat_s;	   /* one-way latency, seconds */
	uint32_t cls;	   /* link class: links that are alike under node symmetry */
};

/* Overrides a scenario may apply to a bundled cluster; 0 = keep the file's. */
struct hw_cluster_opts {
	uint32_t nodes;		/* number of nodes */
	uint32_t gpus_per_node; /* use only the first N GPUs of each node */
	uint32_t nics_per_node; /* keep only the first N NICs of each node */
};

struct hw_cluster;

/* Load a cluster by name (configs/clusters/NAME.cfg under the catalog's
 * root) or by path (anything containing '/' or ending in .cfg; the format is
 * documented at the top of sim/hw/cluster.c and in
 * configs/clusters/dgx-a100-80gb.cfg), resolving
 * GPU and link types in `cat` (borrowed; must outlive the cluster). On
 * failure returns TS_EIO, TS_ESYNTAX, TS_EUNKNOWN_NAME (with close matches),
 * TS_EUNKNOWN_KEY, TS_ETYPE, TS_ERANGE, TS_EINVALID or TS_ENOMEM, fills
 * `err` (file, line, key, found, expected), and sets *out = NULL. */
int hw_cluster_load(const struct hw_catalog *cat, const char *name,
		    const struct hw_cluster_opts *opts, struct hw_cluster **out,
		    struct ts_error *err);

/* Build a cluster from an already parsed libconfig group `setting` (a
 * config_setting_t *, passed as void * to keep libconfig out of this
 * header) of a file `file` (for messages). The group may hold
 * `base = "NAME"`: start from that cluster and override the keys given
 * (node.devices and node.links replace whole lists). Same errors as
 * hw_cluster_load. */
int hw_cluster_from_setting(const struct hw_catalog *cat, const void *setting, const char *file,
			    const struct hw_cluster_opts *opts, struct hw_cluster **out,
			    struct ts_error *err);

void hw_cluster_destroy(struct hw_cluster *c);

/* The names of the bundled clusters (configs/clusters/NAME.cfg under the
 * catalog's root), sorted, into names[0..max); returns how many (0 when
 * the folder cannot be read). */
size_t hw_cluster_bundled(const struct hw_catalog *cat, char (*names)[64], size_t max);

const char *hw_cluster_name(const struct hw_cluster *c);
const struct hw_catalog *hw_cluster_catalog(const struct hw_cluster *c);
uint32_t hw_cluster_nodes(const struct hw_cluster *c);
uint32_t hw_cluster_gpus_per_node(const struct hw_cluster *c);
uint32_t hw_cluster_nics_per_node(const struct hw_cluster *c);
/* GPUs in all: nodes x gpus_per_node. */
uint32_t hw_cluster_gpus(const struct hw_cluster *c);

uint32_t hw_cluster_ndevices(const struct hw_cluster *c);
const struct hw_device *hw_cluster_device(const struct hw_cluster *c, uint32_t dev);
uint32_t hw_cluster_nlinks(const struct hw_cluster *c);
const struct hw_link *hw_cluster_link(const struct hw_cluster *c, uint32_t link);

/* Device id of global GPU rank g (g = node * gpus_per_node + local GPU);
 * UINT32_MAX if g is out of range. Devices are numbered node by node in node
 * template order, the fabric devices last. */
uint32_t hw_cluster_gpu(const struct hw_cluster *c, uint32_t g);
/* Device id of NIC `nic` (0..nics_per_node-1) of node `node`; UINT32_MAX if
 * out of range. */
uint32_t hw_cluster_nic(const struct hw_cluster *c, uint32_t node, uint32_t nic);
/* The NIC a GPU uses by default, as a NIC index 0..nics_per_node-1
 * (UINT32_MAX if it reaches none). GPUs are taken in index order; each picks
 * the NIC with the fewest hops on the PCIe tree, then the one fewest GPUs
 * already use, then the lowest index: on a DGX A100 GPU i gets NIC i, and with
 * nics_per_node = 4 GPUs 4..7 spread over NICs 0..3. */
uint32_t hw_cluster_gpu_nic(const struct hw_cluster *c, uint32_t g);
/* GPU catalog entry of the cluster's GPUs. */
const struct hw_gpu_type *hw_cluster_gpu_type(const struct hw_cluster *c);

/* The route from device `src` to device `dst` as directed link ids, in order.
 * Inside a node: the fewest hops (ties by lowest link id), GPU peer-to-peer
 * traffic only where the template allows it. Between nodes: src to its NIC
 * (the NIC a GPU uses by default, or `via_nic` if not UINT32_MAX), through
 * the fabric (leaf, spines or aggregation and core switches chosen by the
 * fabric's routing, torus routers in dimension order), to dst. At the far
 * end the route enters through dst's default NIC, or through NIC `via_nic`
 * of dst's node when given (same rail). A fabric switch is a valid end only
 * in a one-switch fabric. Writes
 * up to `max` ids to links and the count to *n (on TS_ELIMIT, the length
 * needed). Never allocates. Returns 0, TS_ELIMIT if the route is longer than
 * max, or TS_EINVALID if no route exists (bad ids, no fabric, via_nic out of
 * range). */
int hw_cluster_route(const struct hw_cluster *c, uint32_t src, uint32_t dst, uint32_t via_nic,
		     uint32_t *links, size_t max, size_t *n);

/* Link classes: links alike under the symmetry of identical nodes (the same
 * template link in every node; the fabric links of one rail/level). Class
 * mode creates one fluid resource per class with `members` members. Classes
 * 0..L-1 are the node template's links (members = nodes); then, per NIC index
 * i, the NIC uplinks (L + 2i) and downlinks (L + 2i + 1), members = nodes;
 * then the switch-to-switch links of the fabric per level and direction
 * (per rail in a rail-optimized tree, per dimension and direction in a
 * torus), members = the links in the class (sim/hw/fabric.c).
 * hw_cluster_class_members returns 0 for a class out of range. */
uint32_t hw_cluster_nclasses(const struct hw_cluster *c);
uint32_t hw_cluster_class_members(const struct hw_cluster *c, uint32_t cls);

/* Whether the fabric is symmetric: every leaf holds as many nodes and every
 * pod as many leaves (always true for one switch and a torus). Class mode
 * spreads a class's load evenly over its members, which is exact for traffic
 * that is alike on every node only when this holds. */
bool hw_cluster_symmetric(const struct hw_cluster *c);

/* NVLink SHARP (NVLS): true when every GPU of a node has a link of its own to
 * one NVSwitch declared `sharp = true` (in-switch reduction and multicast,
 * NVSwitch gen3 and later). hw_cluster_nvls_switch gives that NVSwitch's
 * device id in `node`, UINT32_MAX when there is none or node is out of
 * range. */
bool hw_cluster_nvls(const struct hw_cluster *c);
uint32_t hw_cluster_nvls_switch(const struct hw_cluster *c, uint32_t node);

/* Whether the fabric's switches reduce in the network (fabric.sharp = true,
 * e.g. InfiniBand SHARP): collnet-style algorithms may use it. */
bool hw_cluster_collnet(const struct hw_cluster *c);

/* The per-flow limit of NCCL's socket transport between nodes: the bytes/s
 * one TCP flow may carry (fabric.flow_cap, a cloud provider's per-flow
 * limit; 0 = none) and, in *sockets, the flows one connection opens
 * (fabric.socket_threads x fabric.socks_per_thread, NCCL_SOCKET_NTHREADS x
 * NCCL_NSOCKS_PERTHREAD, default 1 x 1). */
double hw_cluster_flow_cap(const struct hw_cluster *c, uint32_t *sockets);

/* The fabric topology's name: "none", "switch", "fat-tree", "rail",
 * "torus2d" or "torus3d". Static string. */
const char *hw_cluster_topology(const struct hw_cluster *c);
/* Nodes per leaf switch of a fat-tree (the last leaf may hold fewer); 0
 * for any other topology (one switch, rails, tori: no leaf a job can
 * spread over). */
uint32_t hw_cluster_nodes_per_leaf(const struct hw_cluster *c);
/* The down:up capacity ratio at a full leaf of a fat-tree, >= 1 (1
 * otherwise). */
double hw_cluster_oversubscription(const struct hw_cluster *c);

/* Print the cluster (devices, links with bandwidth and source) to a string
 * buffer for --dump-config; returns the characters needed (like snprintf). */
int hw_cluster_describe(const struct hw_cluster *c, char *buf, size_t n);

/* Host resources of one node, the sums over its cpu devices of their
 * optional `cores` and `memory` keys: CPU cores (0 when no cpu gives it) and
 * host memory in bytes (0 when not given). The input pipeline (sim/data/)
 * bounds its workers by the cores and its page cache by the memory. */
uint32_t hw_cluster_cpu_cores(const struct hw_cluster *c);
double hw_cluster_host_memory(const struct hw_cluster *c);

/* Whether GPUs of a node may talk peer to peer (false: through host memory). */
bool hw_cluster_p2p(const struct hw_cluster *c);
/* The file the cluster was read from (the outermost one for an inline group
 * with `base`), its description and its source ("" when not given). */
const char *hw_cluster_file(const struct hw_cluster *c);
const char *hw_cluster_description(const struct hw_cluster *c);
const char *hw_cluster_source(const struct hw_cluster *c);
/* Rated power of one node (power.node_max of the cluster file), W, and its
 * source; 0 and "" when the file gives none (sim/run/cost.h then estimates
 * it from the GPUs' TDP). */
double hw_cluster_node_power_w(const struct hw_cluster *c);
/* GPUs of a whole node of the file (before gpus_per_node): the node the
 * rating is for. */
uint32_t hw_cluster_power_gpus(const struct hw_cluster *c);
const char *hw_cluster_power_source(const struct hw_cluster *c);

#endif
