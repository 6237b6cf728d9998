/* Link resources for the fluid model.
 * SPDX-License-Identifier: MIT */
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
};

int net_create(struct ts_net **out, const struct hw_cluster *c, struct ts_fluid *f,
	       enum net_mode mode)
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
			if (fluid_resource_add(f, hw_cluster_link(c, l)->bw_Bps, 1, &n->link_res[l]))
				goto fail;
	} else {
		uint32_t ncls = hw_cluster_nclasses(c);
		double *bw = ts_calloc(ncls ? ncls : 1, sizeof *bw);
		uint32_t *res = ts_calloc(ncls ? ncls : 1, sizeof *res);
		if (!bw || !res) {
			ts_free(bw, ncls * sizeof *bw);
			ts_free(res, ncls * sizeof *res);
			goto fail;
		}
		for (uint32_t l = 0; l < n->nlinks; l++) {
			const struct hw_link *lk = hw_cluster_link(c, l);
			if (bw[lk->cls] == 0.0) {
				bw[lk->cls] = lk->bw_Bps;
			} else if (bw[lk->cls] != lk->bw_Bps) {
				n->mixed++;
				if (lk->bw_Bps < bw[lk->cls])
					bw[lk->cls] = lk->bw_Bps;
			}
		}
		int rc = 0;
		for (uint32_t k = 0; k < ncls && !rc; k++)
			rc = fluid_resource_add(f, bw[k] > 0.0 ? bw[k] : 1.0,
						hw_cluster_class_members(c, k), &res[k]);
		for (uint32_t l = 0; l < n->nlinks && !rc; l++)
			n->link_res[l] = res[hw_cluster_link(c, l)->cls];
		ts_free(bw, ncls * sizeof *bw);
		ts_free(res, ncls * sizeof *res);
		if (rc)
			goto fail;
	}
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
	ts_free(n, sizeof *n);
}

enum net_mode net_mode(const struct ts_net *n) { return n->mode; }
const struct hw_cluster *net_cluster(const struct ts_net *n) { return n->c; }
struct ts_fluid *net_fluid(const struct ts_net *n) { return n->f; }
uint32_t net_link_res(const struct ts_net *n, uint32_t link) { return n->link_res[link]; }
uint32_t net_class_mixed(const struct ts_net *n) { return n->mixed; }
