/* Link resources for the fluid model.
 *
 * Node symmetry (net_node_symmetric, net_create_sym). The devices of node
 * 0 are coloured by colour refinement (1-dimensional Weisfeiler-Leman):
 * first by kind and catalog type, then repeatedly by their colour and the
 * multiset of (direction, link type, bandwidth, latency, colour of the
 * other end) of their links, a GPU's default NIC counting as a link of its
 * own, until the number of colours stays the same. Devices of different
 * colours are never swapped by an automorphism of the node; on the node
 * templates bundled (trees of PCIe switches under CPU sockets, one
 * NVSwitch, a NIC per GPU or per pair) devices of one colour are. When
 * every GPU has one colour, the GPUs meet only through an NVSwitch (no
 * GPU-to-GPU links: a hybrid cube-mesh's rings load its links unevenly,
 * and class mode there differs from full mode when merged), each GPU has
 * a NIC of its own, and the fabric is one switch (or none), two
 * links of one node whose ends have the same colours and that are of the
 * same type are alike under the node's symmetry, and so are the fabric
 * links of NICs of one colour: net_create_sym makes them one class.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "net/net.h"

struct ts_net {
	const struct hw_cluster *c;
	struct ts_fluid *f;
	enum net_mode mode;
	uint32_t *link_res; /* per directed link */
	uint32_t nlinks;
	uint32_t mixed;
	uint32_t first_res, nres; /* the net's resources are ids first_res .. + nres */
	uint32_t *res_link;	  /* per resource: the first link mapped to it */
};

int net_create(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
	       enum net_mode mode)
{
	return net_create_grouped(out, c, f, mode, NULL);
}

/* The node a link belongs to: its source's, else its destination's, else
 * HW_FABRIC (a link between two fabric switches). */
static uint32_t link_node(const struct hw_cluster *c, const struct hw_link *lk)
{
	uint32_t a = hw_cluster_device(c, lk->src)->node;
	return a != HW_FABRIC ? a : hw_cluster_device(c, lk->dst)->node;
}

/* A link of node 0 seen from one of its ends, for colour refinement. */
struct nbr {
	uint32_t dir;  /* 0 out, 1 in, 2 the GPU's default NIC, 3 its GPU */
	uint32_t type; /* catalog link type */
	double bw_Bps, lat_s;
	uint32_t col; /* colour of the other end */
};

static int nbr_cmp(const void *pa, const void *pb)
{
	const struct nbr *a = pa, *b = pb;
	if (a->dir != b->dir)
		return a->dir < b->dir ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->bw_Bps != b->bw_Bps)
		return a->bw_Bps < b->bw_Bps ? -1 : 1;
	if (a->lat_s != b->lat_s)
		return a->lat_s < b->lat_s ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return 0;
}

/* Colour refinement state over node 0's T devices. */
struct colouring {
	uint32_t T;
	uint32_t *col, *next;
	struct nbr *nb; /* per device, its links, sorted */
	uint32_t *off;	/* T + 1 offsets into nb */
	uint32_t *at;	/* the device each link entry points to */
	size_t cap;	/* entries of nb and at */
};

/* Whether lk joins node 0 (its first T devices) to the rest: a fabric
 * link of one of its NICs (or a link of another node: callers take only
 * links of which one end is in node 0). */
static bool nic_fabric(const struct hw_link *lk, uint32_t T)
{
	return (lk->src < T) != (lk->dst < T);
}

/* Colour node 0's devices (see the top of the file). Returns 0 or
 * TS_ENOMEM; *ncol receives the number of colours. */
static int colour_node(const struct hw_cluster *c, struct colouring *k, uint32_t *ncol)
{
	uint32_t T = 0, nd = hw_cluster_ndevices(c), nl = hw_cluster_nlinks(c);
	while (T < nd && hw_cluster_device(c, T)->node == 0)
		T++;
	k->T = T;
	uint32_t gpn = hw_cluster_gpus_per_node(c), cnt = 0;
	for (uint32_t l = 0; l < nl; l++) {
		const struct hw_link *lk = hw_cluster_link(c, l);
		cnt += (lk->src < T && lk->dst < T) ? 2u : 0u;
	}
	cnt += 2 * gpn;
	k->col = ts_calloc(T + 1, sizeof *k->col);
	k->next = ts_calloc(T + 1, sizeof *k->next);
	k->off = ts_calloc(T + 2, sizeof *k->off);
	k->cap = (size_t)cnt + 1;
	k->nb = ts_calloc(k->cap, sizeof *k->nb);
	k->at = ts_calloc(k->cap, sizeof *k->at);
	if (!k->col || !k->next || !k->off || !k->nb || !k->at)
		return TS_ENOMEM;
	/* CSR of the links by device: count, then fill */
	for (uint32_t l = 0; l < nl; l++) {
		const struct hw_link *lk = hw_cluster_link(c, l);
		if (lk->src < T && lk->dst < T) {
			k->off[lk->src + 1]++;
			k->off[lk->dst + 1]++;
		}
	}
	for (uint32_t g = 0; g < gpn; g++) {
		uint32_t dev = hw_cluster_gpu(c, g), nic = hw_cluster_gpu_nic(c, g);
		uint32_t nd2 = nic == UINT32_MAX ? UINT32_MAX : hw_cluster_nic(c, 0, nic);
		if (dev < T && nd2 < T) {
			k->off[dev + 1]++;
			k->off[nd2 + 1]++;
		}
	}
	for (uint32_t d = 0; d < T; d++)
		k->off[d + 1] += k->off[d];
	uint32_t *fill = k->next; /* scratch until the first round */
	memcpy(fill, k->off, T * sizeof *fill);
	for (uint32_t l = 0; l < nl; l++) {
		const struct hw_link *lk = hw_cluster_link(c, l);
		if (!(lk->src < T && lk->dst < T))
			continue;
		struct nbr e = {0, lk->type, lk->bw_Bps, lk->lat_s, 0};
		k->at[fill[lk->src]] = lk->dst;
		k->nb[fill[lk->src]++] = e;
		e.dir = 1;
		k->at[fill[lk->dst]] = lk->src;
		k->nb[fill[lk->dst]++] = e;
	}
	for (uint32_t g = 0; g < gpn; g++) {
		uint32_t dev = hw_cluster_gpu(c, g), nic = hw_cluster_gpu_nic(c, g);
		uint32_t nd2 = nic == UINT32_MAX ? UINT32_MAX : hw_cluster_nic(c, 0, nic);
		if (!(dev < T && nd2 < T))
			continue;
		k->at[fill[dev]] = nd2;
		k->nb[fill[dev]++] = (struct nbr){2, UINT32_MAX, 0.0, 0.0, 0};
		k->at[fill[nd2]] = dev;
		k->nb[fill[nd2]++] = (struct nbr){3, UINT32_MAX, 0.0, 0.0, 0};
	}
	/* first colours: kind and catalog type, in order of first appearance */
	uint32_t n = 0;
	for (uint32_t d = 0; d < T; d++) {
		const struct hw_device *x = hw_cluster_device(c, d);
		uint32_t e = 0;
		while (e < d && (hw_cluster_device(c, e)->kind != x->kind ||
				 hw_cluster_device(c, e)->type != x->type))
			e++;
		k->col[d] = e < d ? k->col[e] : n++;
	}
	for (uint32_t round = 0; round <= T; round++) {
		for (uint32_t d = 0; d < T; d++) {
			for (uint32_t i = k->off[d]; i < k->off[d + 1]; i++)
				k->nb[i].col = k->col[k->at[i]];
			/* sort the entries and their ends together: an insertion
			 * sort, a device has few links */
			for (uint32_t i = k->off[d] + 1; i < k->off[d + 1]; i++)
				for (uint32_t j = i;
				     j > k->off[d] && nbr_cmp(&k->nb[j - 1], &k->nb[j]) > 0; j--) {
					struct nbr t = k->nb[j];
					k->nb[j] = k->nb[j - 1];
					k->nb[j - 1] = t;
					uint32_t a = k->at[j];
					k->at[j] = k->at[j - 1];
					k->at[j - 1] = a;
				}
		}
		uint32_t m = 0;
		for (uint32_t d = 0; d < T; d++) {
			uint32_t e = 0;
			for (; e < d; e++) {
				uint32_t ne = k->off[e + 1] - k->off[e];
				if (k->col[e] != k->col[d] || ne != k->off[d + 1] - k->off[d])
					continue;
				uint32_t i = 0;
				while (i < ne &&
				       !nbr_cmp(&k->nb[k->off[e] + i], &k->nb[k->off[d] + i]))
					i++;
				if (i == ne)
					break;
			}
			k->next[d] = e < d ? k->next[e] : m++;
		}
		uint32_t *t = k->col;
		k->col = k->next;
		k->next = t;
		if (m == n)
			break;
		n = m;
	}
	*ncol = n;
	return 0;
}

static void colouring_free(struct colouring *k)
{
	ts_free(k->col, (k->T + 1) * sizeof *k->col);
	ts_free(k->next, (k->T + 1) * sizeof *k->next);
	ts_free(k->off, (k->T + 2) * sizeof *k->off);
	ts_free(k->nb, k->cap * sizeof *k->nb);
	ts_free(k->at, k->cap * sizeof *k->at);
}

/* Whether the cluster's fabric lets node symmetry merge link classes: one
 * switch, or none. */
static bool sym_fabric(const struct hw_cluster *c)
{
	const char *t = hw_cluster_topology(c);
	return !strcmp(t, "switch") || !strcmp(t, "none");
}

/* Into map (one entry per link class), the class each class merges into
 * under node symmetry (the lowest of its orbit), or the identity where
 * the node's GPUs are not all alike. *sym receives whether they are.
 * Returns 0 or TS_ENOMEM. */
static int sym_map(const struct hw_cluster *c, uint32_t *map, bool *sym)
{
	uint32_t ncls = hw_cluster_nclasses(c), nl = hw_cluster_nlinks(c);
	for (uint32_t k = 0; k < ncls; k++)
		map[k] = k;
	*sym = false;
	if (!sym_fabric(c))
		return 0;
	struct colouring k = {0};
	uint32_t ncol;
	int rc = colour_node(c, &k, &ncol);
	if (!rc) {
		uint32_t gpn = hw_cluster_gpus_per_node(c), c0 = UINT32_MAX;
		bool alike = gpn > 0;
		for (uint32_t g = 0; g < gpn && alike; g++) {
			uint32_t dev = hw_cluster_gpu(c, g);
			alike = dev < k.T && (c0 == UINT32_MAX || k.col[dev] == c0);
			if (alike)
				c0 = k.col[dev];
		}
		/* and the node is the kind the colouring is known to be exact
		 * for: GPUs joined through an NVSwitch, never directly (a
		 * hybrid cube-mesh's rings load its links unevenly), each GPU
		 * on a NIC of its own */
		for (uint32_t l = 0; alike && l < nl; l++) {
			const struct hw_link *lk = hw_cluster_link(c, l);
			if (lk->src < k.T && lk->dst < k.T &&
			    hw_cluster_device(c, lk->src)->kind == HW_DEV_GPU &&
			    hw_cluster_device(c, lk->dst)->kind == HW_DEV_GPU)
				alike = false;
		}
		for (uint32_t g = 0; alike && g < gpn; g++) {
			uint32_t dev = hw_cluster_gpu(c, g), nic = hw_cluster_gpu_nic(c, g), i;
			bool nvs = false;
			for (i = k.off[dev]; i < k.off[dev + 1]; i++)
				nvs = nvs || hw_cluster_device(c, k.at[i])->kind == HW_DEV_NVSWITCH;
			alike = nvs && nic != UINT32_MAX;
			for (uint32_t h = 0; alike && h < g; h++)
				alike = hw_cluster_gpu_nic(c, h) != nic;
		}
		*sym = alike;
		/* per class, its first link (the key of its orbit); classes
		 * merge into the first class of the same key */
		uint32_t *first = alike ? ts_calloc(ncls + 1, sizeof *first) : NULL;
		if (alike && !first)
			rc = TS_ENOMEM;
		for (uint32_t x = 0; first && x < ncls; x++)
			first[x] = UINT32_MAX;
		for (uint32_t l = 0; first && l < nl; l++) {
			const struct hw_link *lk = hw_cluster_link(c, l);
			if (!(lk->src < k.T || lk->dst < k.T) || lk->cls >= ncls ||
			    first[lk->cls] != UINT32_MAX)
				continue;
			first[lk->cls] = l;
		}
		for (uint32_t x = 0; first && x < ncls; x++) {
			if (first[x] == UINT32_MAX)
				continue;
			const struct hw_link *a = hw_cluster_link(c, first[x]);
			for (uint32_t y = 0; y < x; y++) {
				if (first[y] == UINT32_MAX || map[y] != y)
					continue;
				const struct hw_link *b = hw_cluster_link(c, first[y]);
				bool fa = nic_fabric(a, k.T), fb = nic_fabric(b, k.T);
				uint32_t as = a->src < k.T ? k.col[a->src] : UINT32_MAX;
				uint32_t ad = a->dst < k.T ? k.col[a->dst] : UINT32_MAX;
				uint32_t bs = b->src < k.T ? k.col[b->src] : UINT32_MAX;
				uint32_t bd = b->dst < k.T ? k.col[b->dst] : UINT32_MAX;
				if (fa == fb && as == bs && ad == bd && a->type == b->type &&
				    a->bw_Bps == b->bw_Bps && a->lat_s == b->lat_s) {
					map[x] = y;
					break;
				}
			}
		}
		ts_free(first, (ncls + 1) * sizeof *first);
	}
	colouring_free(&k);
	return rc;
}

bool net_node_symmetric(const struct hw_cluster *c)
{
	uint32_t ncls = hw_cluster_nclasses(c);
	uint32_t *map = ts_calloc(ncls + 1, sizeof *map);
	bool sym = false;
	if (map && sym_map(c, map, &sym))
		sym = false;
	ts_free(map, (ncls + 1) * sizeof *map);
	return sym;
}

static int net_build(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
		     enum net_mode mode, const uint32_t *node_group, bool merge);

int net_create_grouped(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
		       enum net_mode mode, const uint32_t *node_group)
{
	return net_build(out, c, f, mode, node_group, false);
}

int net_create_sym(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
		   const uint32_t *node_group)
{
	return net_build(out, c, f, NET_CLASS, node_group, true);
}

static int net_build(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
		     enum net_mode mode, const uint32_t *node_group, bool merge)
{
	*out = NULL;
	struct ts_net *n = ts_calloc(1, sizeof *n);
	if (!n)
		return TS_ENOMEM;
	n->c = c;
	n->f = f;
	n->mode = mode;
	n->nlinks = hw_cluster_nlinks(c);
	n->link_res = ts_calloc(n->nlinks ? n->nlinks : 1, sizeof *n->link_res);
	if (!n->link_res)
		goto fail;
	if (mode == NET_FULL) {
		for (uint32_t l = 0; l < n->nlinks; l++)
			if (fluid_resource_add(f, hw_cluster_link(c, l)->bw_Bps, 1,
					       &n->link_res[l]))
				goto fail;
	} else {
		/* a class is (link class, node group): node groups split the
		 * classes of links attached to nodes that play different roles */
		uint32_t ngroups = 1;
		if (node_group)
			for (uint32_t nd = 0; nd < hw_cluster_nodes(c); nd++)
				if (node_group[nd] + 1 > ngroups)
					ngroups = node_group[nd] + 1;
		uint32_t nlc = hw_cluster_nclasses(c);
		size_t ncls = (size_t)nlc * (ngroups + 1);
		double *bw = ts_calloc(ncls ? ncls : 1, sizeof *bw);
		uint32_t *res = ts_calloc(ncls ? ncls : 1, sizeof *res);
		uint32_t *members = ts_calloc(ncls ? ncls : 1, sizeof *members);
		uint32_t *map = ts_calloc(nlc + 1, sizeof *map);
		bool sym = false;
		int rc = (!bw || !res || !members || !map) ? TS_ENOMEM : 0;
		if (!rc && merge)
			rc = sym_map(c, map, &sym);
		else
			for (uint32_t x = 0; x < nlc && map; x++)
				map[x] = x;
		for (uint32_t l = 0; l < n->nlinks && !rc; l++) {
			const struct hw_link *lk = hw_cluster_link(c, l);
			uint32_t nd = link_node(c, lk);
			uint32_t gi = nd == HW_FABRIC ? ngroups : node_group ? node_group[nd] : 0;
			size_t key = (size_t)map[lk->cls] * (ngroups + 1) + gi;
			members[key]++;
			n->link_res[l] = (uint32_t)key; /* the key for now, the resource below */
			if (bw[key] == 0.0) {
				bw[key] = lk->bw_Bps;
			} else if (bw[key] != lk->bw_Bps) {
				n->mixed++;
				if (lk->bw_Bps < bw[key])
					bw[key] = lk->bw_Bps;
			}
		}
		for (size_t k = 0; k < ncls && !rc; k++)
			if (members[k])
				rc = fluid_resource_add(f, bw[k], members[k], &res[k]);
		for (uint32_t l = 0; l < n->nlinks && !rc; l++)
			n->link_res[l] = res[n->link_res[l]];
		ts_free(bw, ncls * sizeof *bw);
		ts_free(res, ncls * sizeof *res);
		ts_free(members, ncls * sizeof *members);
		ts_free(map, (nlc + 1) * sizeof *map);
		if (rc)
			goto fail;
	}
	n->first_res = n->nlinks ? n->link_res[0] : 0;
	for (uint32_t l = 1; l < n->nlinks; l++)
		if (n->link_res[l] < n->first_res)
			n->first_res = n->link_res[l];
	n->nres = fluid_resource_count(f) - n->first_res;
	n->res_link = ts_calloc(n->nres ? n->nres : 1, sizeof *n->res_link);
	if (!n->res_link)
		goto fail;
	for (uint32_t r = 0; r < n->nres; r++)
		n->res_link[r] = UINT32_MAX;
	for (uint32_t l = n->nlinks; l-- > 0;)
		n->res_link[n->link_res[l] - n->first_res] = l;
	*out = n;
	return 0;
fail:
	net_destroy(n);
	return TS_ENOMEM;
}

void net_destroy(struct ts_net *n)
{
	if (!n)
		return;
	ts_free(n->link_res, (n->nlinks ? n->nlinks : 1) * sizeof *n->link_res);
	ts_free(n->res_link, (n->nres ? n->nres : 1) * sizeof *n->res_link);
	ts_free(n, sizeof *n);
}

enum net_mode net_mode(const struct ts_net *n)
{
	return n->mode;
}
const struct hw_cluster *net_cluster(const struct ts_net *n)
{
	return n->c;
}
struct ts_fluid *net_fluid(const struct ts_net *n)
{
	return n->f;
}
uint32_t net_link_res(const struct ts_net *n, uint32_t link)
{
	return n->link_res[link];
}
uint32_t net_class_mixed(const struct ts_net *n)
{
	return n->mixed;
}

static const char *const kind_names[HW_DEV_KIND_COUNT_] = {"gpu",      "cpu",	 "pcie",   "nic",
							   "nvswitch", "switch", "storage"};

static int dev_name(const struct hw_cluster *c, uint32_t dev, bool with_node, char *buf,
		    size_t size)
{
	const struct hw_device *d = hw_cluster_device(c, dev);
	const char *k = (unsigned)d->kind < HW_DEV_KIND_COUNT_ ? kind_names[d->kind] : "?";
	if (with_node && d->node != HW_FABRIC)
		return snprintf(buf, size, "node %u %s %u", d->node, k, d->group);
	return snprintf(buf, size, "%s %u", k, d->group);
}

bool net_res_name(const struct ts_net *n, uint32_t res, char *buf, size_t size)
{
	/* the first link mapped to res stands for its class */
	if (!n->res_link || res < n->first_res || res - n->first_res >= n->nres || size == 0)
		return false;
	uint32_t l = n->res_link[res - n->first_res];
	if (l == UINT32_MAX)
		return false;
	const struct hw_link *lk = hw_cluster_link(n->c, l);
	bool full = n->mode == NET_FULL;
	char a[64], b[64];
	dev_name(n->c, lk->src, full, a, sizeof a);
	dev_name(n->c, lk->dst, full, b, sizeof b);
	if (full)
		snprintf(buf, size, "%s -> %s", a, b);
	else
		snprintf(buf, size, "%s -> %s, each of %u", a, b,
			 hw_cluster_class_members(n->c, lk->cls));
	return true;
}
