/* Link resources for the fluid model.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

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

int net_create_grouped(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
		       enum net_mode mode, const uint32_t *node_group)
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
		size_t ncls = (size_t)hw_cluster_nclasses(c) * (ngroups + 1);
		double *bw = ts_calloc(ncls ? ncls : 1, sizeof *bw);
		uint32_t *res = ts_calloc(ncls ? ncls : 1, sizeof *res);
		uint32_t *members = ts_calloc(ncls ? ncls : 1, sizeof *members);
		int rc = (!bw || !res || !members) ? TS_ENOMEM : 0;
		for (uint32_t l = 0; l < n->nlinks && !rc; l++) {
			const struct hw_link *lk = hw_cluster_link(c, l);
			uint32_t nd = link_node(c, lk);
			uint32_t gi = nd == HW_FABRIC ? ngroups : node_group ? node_group[nd] : 0;
			size_t key = (size_t)lk->cls * (ngroups + 1) + gi;
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
