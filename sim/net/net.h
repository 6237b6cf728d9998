/* The network as fluid resources: one resource per directed link of the
 * cluster graph (full mode) or per link class (class mode).
 * SPDX-License-Identifier: MIT */
#ifndef TS_NET_NET_H
#define TS_NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/fluid.h"
#include "hw/cluster.h"

enum net_mode {
	NET_FULL, /* every directed link is its own resource */
	NET_CLASS /* links alike under node symmetry share one resource class */
};

struct ts_net;

/* Create the link resources of cluster `c` in fluid model `f` (both
 * borrowed; they must outlive the net). Each resource's capacity is the
 * link's achievable bandwidth (bytes/s per direction). In class mode a class
 * whose links differ in bandwidth is split by falling back to the smallest
 * (and this is reported by net_class_mixed). Returns 0, TS_ENOMEM. */
int net_create(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
	       enum net_mode mode);
void net_destroy(struct ts_net *n);

/* The same, with the nodes split into groups that play different roles
 * (e.g. the pipeline stage a node holds): in class mode a link class is then
 * split by the group of the node the link belongs to, so nodes of one stage
 * do not share a class with nodes of another, whose links carry other
 * traffic. node_group has one entry per node (0-based group ids), or is
 * NULL for one group; it is not kept. Fabric links between switches stay
 * in their own classes. */
int net_create_grouped(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
		       enum net_mode mode, const uint32_t *node_group);

/* Whether node symmetry makes every GPU of a node alike (sim/net/net.c):
 * the fabric is one switch or none, and colour refinement of the node
 * template (device kinds and types, links, each GPU's default NIC) gives
 * all its GPUs one colour, the GPUs meet only through an NVSwitch, and
 * each has a NIC of its own, as on a DGX A100 or H100. */
bool net_node_symmetric(const struct hw_cluster *c);

/* net_create_grouped in class mode, with the link classes that the node's
 * symmetry makes alike merged into one (a class of its GPUs' NVLink ports,
 * one of their PCIe links, one of the NICs' fabric links, ...), for a
 * layout whose stages are one class each (layout_merge). Where
 * net_node_symmetric is false, the same as net_create_grouped. Returns 0,
 * TS_ENOMEM. */
int net_create_sym(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
		   const uint32_t *node_group);

enum net_mode net_mode(const struct ts_net *n);
const struct hw_cluster *net_cluster(const struct ts_net *n);
struct ts_fluid *net_fluid(const struct ts_net *n);

/* Fluid resource of directed link `link` (its class's in class mode). */
uint32_t net_link_res(const struct ts_net *n, uint32_t link);

/* A readable name of fluid resource `res` if it is a link (or link class):
 * "node 0 gpu 3 -> nvswitch 0" in full mode, "gpu 3 -> nvswitch 0, each
 * of 16 nodes" in class mode, "nic 2 -> switch 0" for the fabric. Writes
 * to buf (size n) and returns true, or returns false when res is not a link
 * of this net. */
bool net_res_name(const struct ts_net *n, uint32_t res, char *buf, size_t size);

/* Number of link classes whose members differ in bandwidth (0 expected). */
uint32_t net_class_mixed(const struct ts_net *n);

#endif
