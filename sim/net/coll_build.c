/* The fluid activities of each collective algorithm: which links a byte of
 * progress loads, and by how much.
 *
 * Every algorithm here is pipelined, so it runs continuously at the pace of
 * its most loaded link; an activity's coefficient on a link is the bytes that
 * link carries per byte of the activity's progress, summed over every
 * transfer of the algorithm routed through it. Efficiencies (protocol, NCCL's
 * per-algorithm factors) are applied by the caller.
 *
 * Ring: one activity per channel, each ring edge at coll_bus_factor (see
 *   coll.c). A reduce is the broadcast chain run backwards.
 * Tree (NCCL's double binary tree, all-reduce): per channel, a chain through
 *   the node's GPUs from the GPU on the channel's NIC (the head), carrying one
 *   byte each way per byte (reduce up, broadcast down; both trees share it),
 *   and two binary trees over the nodes (NCCL ncclGetBtree / ncclGetDtree:
 *   parent of r = (r ^ b) | 2b, or r ^ b past the end, b the lowest set bit;
 *   tree 1 is tree 0 mirrored for an even count and shifted by one for an odd
 *   one), each carrying half the bytes: a head sends one byte per tree byte
 *   to its parent (reduce) and to each child (broadcast), rail-aligned on the
 *   channel's NIC. In class mode only the home node is built and its network
 *   load is the busiest node's, (deg0 + deg1) / 2 per byte, sent to the next
 *   node of the group: a collective alone then runs at the same bottleneck
 *   as in full mode; under contention class mode treats every node as the
 *   busiest one (conservative).
 * NVLS (NVLink SHARP, all-reduce inside one node): one multi-destination
 *   activity; each GPU sends its data once to the NVSwitch, which reduces
 *   it, and receives the result once by multicast: coefficient 1 on each
 *   GPU's link to the switch and 1 on the switch's link back. A GPU's link
 *   therefore carries S each way where a ring carries 2(n-1)/n S, and the
 *   nccl-tests busbw (algbw x 2(n-1)/n) exceeds the link rate.
 * Collnet (in-network reduction in the fabric switches, all-reduce across
 *   nodes): per channel, the tree's chain inside each node, and the head
 *   sends its node's partial result once up its NIC and receives the
 *   reduced result once down it: one byte per byte each way on every NIC
 *   port and fabric link on the way, built as a rail-aligned route from
 *   each head to the next node's (where a ring carries 2(n-1)/n).
 * Point to point (all-to-all, send/recv): one activity; all-to-all sends
 *   1/n of the buffer from every rank to every other rank, send/recv the
 *   whole buffer from rank i to rank i+1 (mod n), as nccl-tests'
 *   alltoall_perf and sendrecv_perf do; routes use each GPU's default NIC.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "net/net.h"
#include "net/net_int.h"

static uint32_t node_of(const struct hw_cluster *c, uint32_t rank)
{
	return rank / hw_cluster_gpus_per_node(c);
}

static int hops(const struct hw_cluster *c, uint32_t a, uint32_t b)
{
	uint32_t r[COLL_MAX_ROUTE];
	size_t n = 0;
	if (hw_cluster_route(c, a, b, COLL_NONE, r, COLL_MAX_ROUTE, &n))
		return 1 << 20;
	return (int)n;
}

static void shape_reset(struct coll_shape *sh)
{
	sh->built = false;
	sh->nact = 0;
	sh->algbw_Bps = 0.0;
}

/* Whether the route from device `from` to device `to` inside one node
 * passes a device of kind `kind`, or any device but GPUs and NVSwitches
 * when kind is HW_DEV_KIND_COUNT_ (the route is not NVLink only). */
static bool route_passes(const struct hw_cluster *c, uint32_t from, uint32_t to,
			 enum hw_dev_kind kind)
{
	uint32_t r[COLL_MAX_ROUTE];
	size_t n = 0;
	if (hw_cluster_route(c, from, to, COLL_NONE, r, COLL_MAX_ROUTE, &n))
		return true;
	for (size_t k = 0; k + 1 < n; k++) {
		enum hw_dev_kind d = hw_cluster_device(c, hw_cluster_link(c, r[k])->dst)->kind;
		if (kind == HW_DEV_KIND_COUNT_ ? d != HW_DEV_GPU && d != HW_DEV_NVSWITCH
					       : d == kind)
			return true;
	}
	return false;
}

/* NCCL's PXN (PCI x NVLink, NCCL 2.12+, on unless NCCL_PXN_DISABLE): a GPU
 * whose way to the channel's NIC goes through a CPU (no GPUDirect RDMA, as
 * GPU 4 to NIC 0 on a DGX across the sockets) moves its data over NVLink to
 * the node's GPU that sits on that NIC, which talks to the NIC for it.
 * Returns that GPU's rank, or COLL_NONE when GPU rank g reaches NIC `nic`
 * without a CPU, or no GPU on the NIC reaches g over NVLink only. */
static uint32_t pxn_proxy(const struct hw_cluster *c, uint32_t g, uint32_t nic)
{
	uint32_t node = node_of(c, g), gpn = hw_cluster_gpus_per_node(c);
	uint32_t nicdev = hw_cluster_nic(c, node, nic), gd = hw_cluster_gpu(c, g);
	if (nicdev == UINT32_MAX || !route_passes(c, gd, nicdev, HW_DEV_CPU))
		return COLL_NONE;
	for (uint32_t i = 0; i < gpn; i++) {
		uint32_t p = node * gpn + i, pd = hw_cluster_gpu(c, p);
		if (p != g && hw_cluster_gpu_nic(c, p) == nic &&
		    !route_passes(c, pd, nicdev, HW_DEV_CPU) &&
		    !route_passes(c, gd, pd, HW_DEV_KIND_COUNT_) &&
		    !route_passes(c, pd, gd, HW_DEV_KIND_COUNT_))
			return p;
	}
	return COLL_NONE;
}

/* Add `coeff` on every link of the route from device a to device b. */
static int add_links(struct ts_coll *cc, uint32_t a, uint32_t b, uint32_t via, double coeff,
		     bool count_pci, bool *pci)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	uint32_t route[COLL_MAX_ROUTE];
	size_t len = 0;
	if (hw_cluster_route(c, a, b, via, route, COLL_MAX_ROUTE, &len))
		return TS_EINVALID;
	for (size_t k = 0; k < len; k++) {
		const struct hw_link *lk = hw_cluster_link(c, route[k]);
		if (count_pci && pci) {
			enum hw_dev_kind kd = hw_cluster_device(c, lk->dst)->kind;
			if (kd == HW_DEV_PCIE_SWITCH || kd == HW_DEV_CPU)
				*pci = true;
		}
		uint32_t r = net_link_res(cc->net, route[k]);
		if (cc->acc[r] == 0.0)
			cc->touched[cc->ntouched++] = r;
		cc->acc[r] += coeff;
	}
	return 0;
}

/* Whether GPU rank g (or its PXN proxy p, COLL_NONE for none) reaches NIC
 * `via` of its node without passing through another GPU. Where a NIC hangs
 * off a CPU that only some GPUs reach (Grace CPUs with their GPUs on
 * NVLink-C2C), a GPU of another CPU does not (GPUs do not forward); NCCL
 * then sends each end through its own NIC. */
static bool reaches_nic(const struct hw_cluster *c, uint32_t g, uint32_t p, uint32_t via)
{
	uint32_t route[COLL_MAX_ROUTE];
	size_t len = 0;
	return hw_cluster_route(c, hw_cluster_gpu(c, p != COLL_NONE ? p : g),
				hw_cluster_nic(c, node_of(c, g), via), UINT32_MAX, route,
				COLL_MAX_ROUTE, &len) == 0;
}

/* Add `coeff` bytes per byte on every link of the route from GPU rank a to
 * GPU rank b (through NIC `via` of both nodes when crossing nodes, or the
 * default NICs for COLL_NONE; with `via`, a sender or receiver that reaches
 * that NIC only through a CPU goes over NVLink to the GPU on it, as NCCL's
 * PXN does). Sets *pci when a node-local route leaves NVLink. */
static int add_route(struct ts_coll *cc, uint32_t a, uint32_t b, uint32_t via, double coeff,
		     bool *pci, struct ts_error *err)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	bool cross = node_of(c, a) != node_of(c, b);
	uint32_t pa = cross && via != COLL_NONE ? pxn_proxy(c, a, via) : COLL_NONE;
	uint32_t pb = cross && via != COLL_NONE ? pxn_proxy(c, b, via) : COLL_NONE;
	if (cross && via != COLL_NONE &&
	    !(reaches_nic(c, a, pa, via) && reaches_nic(c, b, pb, via)))
		pa = pb = via = COLL_NONE; /* off the rail: each end through its own NIC */
	uint32_t from = pa != COLL_NONE ? pa : a, to = pb != COLL_NONE ? pb : b;
	int rc = 0;
	if (pa != COLL_NONE)
		rc = add_links(cc, hw_cluster_gpu(c, a), hw_cluster_gpu(c, pa), COLL_NONE, coeff,
			       false, NULL);
	if (!rc)
		rc = add_links(cc, hw_cluster_gpu(c, from), hw_cluster_gpu(c, to),
			       cross ? via : COLL_NONE, coeff, !cross, pci);
	if (!rc && pb != COLL_NONE)
		rc = add_links(cc, hw_cluster_gpu(c, pb), hw_cluster_gpu(c, b), COLL_NONE, coeff,
			       false, NULL);
	if (rc)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "cluster",
				    "found no route from GPU %u to GPU %u, expected a connected "
				    "cluster",
				    a, b);
	return 0;
}

/* Close the activity being accumulated: append its uses to the shape. */
static int shape_flush(struct ts_coll *cc, struct coll_shape *sh)
{
	if (ts_grow((void **)&sh->off, &sh->capoff, sh->nact + 2, sizeof *sh->off))
		return TS_ENOMEM;
	uint32_t nuses = sh->nact ? sh->off[sh->nact] : 0;
	if (sh->nact == 0)
		sh->off[0] = 0;
	if (ts_grow((void **)&sh->uses, &sh->capuses, nuses + cc->ntouched + 1, sizeof *sh->uses))
		return TS_ENOMEM;
	for (size_t t = 0; t < cc->ntouched; t++) {
		uint32_t r = cc->touched[t];
		sh->uses[nuses].res = r;
		sh->uses[nuses].coeff = cc->acc[r];
		cc->acc[r] = 0.0;
		nuses++;
	}
	cc->ntouched = 0;
	sh->off[++sh->nact] = nuses;
	return 0;
}

/* Bottleneck estimate: per resource member, the load of all activities at a
 * common rate rho; algbw = nact x rho. */
static void shape_finish(struct ts_coll *cc, const struct coll_spec *s, struct coll_shape *sh)
{
	struct ts_fluid *f = net_fluid(cc->net);
	cc->ntouched = 0;
	for (uint32_t u = 0; sh->nact && u < sh->off[sh->nact]; u++) {
		uint32_t r = sh->uses[u].res;
		if (cc->acc[r] == 0.0)
			cc->touched[cc->ntouched++] = r;
		cc->acc[r] +=
		    sh->uses[u].coeff * ((double)s->mult / (double)fluid_resource_members(f, r));
	}
	double rho = HUGE_VAL;
	for (size_t t = 0; t < cc->ntouched; t++) {
		uint32_t r = cc->touched[t];
		double lim = fluid_resource_cap(f, r) / cc->acc[r];
		if (lim < rho)
			rho = lim;
		cc->acc[r] = 0.0;
	}
	cc->ntouched = 0;
	sh->algbw_Bps = sh->nact * rho;
	sh->built = true;
}

/* Node-local order search (NCCL's ring and tree searches keep rings on
 * NVLink where the GPUs allow it: a DGX-1 cube-mesh ring runs
 * 0-1-2-3-7-6-5-4, not 0..7 through PCIe). Among the GPUs of one node block
 * (at most PATH_MAX_GPUS; larger blocks keep rank order) find the order,
 * with a fixed first GPU and optionally a fixed last one or a closing edge
 * back to the first, whose slowest hop (route bottleneck bandwidth) is the
 * fastest: thresholds from the fastest hop down, a depth-first search for a
 * Hamiltonian path at each, candidates in rank order after the current GPU
 * so that a node where every hop is alike keeps rank order. */
#define PATH_MAX_GPUS 16
#define PATH_MAX_STEPS 200000

struct path_search {
	uint32_t len;
	double bw[PATH_MAX_GPUS][PATH_MAX_GPUS];
	uint32_t first, last; /* positions; last = COLL_NONE for a free end */
	bool cycle;	      /* the last must reach the first */
	double thr;
	uint32_t path[PATH_MAX_GPUS];
	bool used[PATH_MAX_GPUS];
	long steps;
};

static bool path_dfs(struct path_search *ps, uint32_t depth)
{
	if (++ps->steps > PATH_MAX_STEPS)
		return false;
	uint32_t cur = ps->path[depth - 1];
	if (depth == ps->len)
		return (ps->last == COLL_NONE || cur == ps->last) &&
		       (!ps->cycle || ps->len < 3 || ps->bw[cur][ps->first] >= ps->thr);
	for (uint32_t k = 1; k < ps->len; k++) {
		uint32_t nx = (cur + k) % ps->len;
		if (ps->used[nx] || ps->bw[cur][nx] < ps->thr)
			continue;
		if (nx == ps->last && depth + 1 < ps->len)
			continue;
		ps->used[nx] = true;
		ps->path[depth] = nx;
		if (path_dfs(ps, depth + 1))
			return true;
		ps->used[nx] = false;
	}
	return false;
}

/* Order the ranks of block [b, b + len) into out[0..len): start at position
 * `first`, end at `last` (COLL_NONE: anywhere), closing back to the start
 * when `cycle`. Falls back to rank order from `first`. */
static void block_path(struct ts_coll *cc, const struct coll_spec *s, uint32_t b, uint32_t len,
		       uint32_t first, uint32_t last, bool cycle, uint32_t *out)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	struct path_search ps;
	bool found = false;
	if (len > 2 && len <= PATH_MAX_GPUS) {
		ps.len = len;
		ps.first = first;
		ps.last = last;
		ps.cycle = cycle;
		double cand[PATH_MAX_GPUS * PATH_MAX_GPUS];
		uint32_t ncand = 0;
		for (uint32_t i = 0; i < len; i++)
			for (uint32_t j = 0; j < len; j++) {
				double bw = 0.0;
				uint32_t route[COLL_MAX_ROUTE];
				size_t rl = 0;
				if (i != j &&
				    !hw_cluster_route(c, hw_cluster_gpu(c, s->ranks[b + i]),
						      hw_cluster_gpu(c, s->ranks[b + j]), COLL_NONE,
						      route, COLL_MAX_ROUTE, &rl)) {
					bw = HUGE_VAL;
					for (size_t k = 0; k < rl; k++)
						bw = fmin(bw, hw_cluster_link(c, route[k])->bw_Bps);
					cand[ncand++] = bw;
				}
				ps.bw[i][j] = bw;
			}
		/* thresholds, fastest first */
		for (;;) {
			double thr = -1.0;
			for (uint32_t k = 0; k < ncand; k++)
				if (cand[k] > thr)
					thr = cand[k];
			if (thr <= 0.0)
				break;
			ps.thr = thr;
			memset(ps.used, 0, sizeof ps.used);
			ps.path[0] = first;
			ps.used[first] = true;
			ps.steps = 0;
			if (path_dfs(&ps, 1)) {
				found = true;
				break;
			}
			for (uint32_t k = 0; k < ncand; k++)
				if (cand[k] >= thr)
					cand[k] = 0.0;
		}
	}
	for (uint32_t k = 0; k < len; k++)
		out[k] = s->ranks[b + (found ? ps.path[k] : (first + k) % len)];
	if (!found && last != COLL_NONE && len > 1) {
		/* rank order from first, with `last` moved to the end */
		uint32_t o = 0;
		for (uint32_t k = 0; k < len; k++) {
			uint32_t i = (first + k) % len;
			if (i != last)
				out[o++] = s->ranks[b + i];
		}
		out[len - 1] = s->ranks[b + last];
	}
}

/* Ring order of channel `ch` into cc->order: node blocks in the given
 * order; inside a block that crosses nodes, start at the GPU closest to the
 * channel's NIC (other than the exit GPU) and end at the GPU attached to it. */
static void channel_order(struct ts_coll *cc, const struct coll_spec *s, uint32_t nic)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	uint32_t n = s->nranks;
	if (cc->nodes == 1) {
		block_path(cc, s, 0, n, 0, COLL_NONE, true, cc->order);
		return;
	}
	for (uint32_t bk = 0; bk < cc->nodes; bk++) {
		uint32_t b = cc->blk[bk], e = cc->blk[bk + 1];
		uint32_t len = e - b;
		uint32_t exit_i = b;
		for (uint32_t i = b; i < e; i++)
			if (hw_cluster_gpu_nic(c, s->ranks[i]) == nic) {
				exit_i = i;
				break;
			}
		uint32_t entry_i = exit_i;
		if (len > 1) {
			uint32_t nicdev = hw_cluster_nic(c, node_of(c, s->ranks[b]), nic);
			int best = 1 << 30;
			for (uint32_t i = b; i < e; i++) {
				if (i == exit_i)
					continue;
				int h = hops(c, nicdev, hw_cluster_gpu(c, s->ranks[i]));
				if (h < best) {
					best = h;
					entry_i = i;
				}
			}
		}
		/* blocks alike (same local GPUs) take block 0's order */
		bool same = bk > 0 && len == cc->blk[1];
		for (uint32_t k = 0; same && k < len; k++)
			same = s->ranks[b + k] % hw_cluster_gpus_per_node(c) ==
			       s->ranks[k] % hw_cluster_gpus_per_node(c);
		if (same) {
			uint32_t shift = s->ranks[b] - s->ranks[0];
			for (uint32_t k = 0; k < len; k++)
				cc->order[b + k] = cc->order[k] + shift;
			continue;
		}
		block_path(cc, s, b, len, entry_i - b, len > 1 ? exit_i - b : COLL_NONE, false,
			   cc->order + b);
	}
}

/* Class mode builds only the home node's ring edges when every node's edges
 * load the same link classes, which holds on one switch (and with no
 * fabric). On a tree or torus a ring's node-to-node edges differ (inside a
 * leaf or across the spine), so there every edge is built and each class
 * gets the average load of one node: edge counts are summed exactly and
 * divided by the nodes the group spans, which equals the home node's count
 * whenever the nodes are alike (so class mode still equals full mode
 * there) and spreads the uplink traffic evenly over the class otherwise. */
static bool ring_home_only(const struct hw_cluster *c)
{
	const char *t = hw_cluster_topology(c);
	return !strcmp(t, "switch") || !strcmp(t, "none");
}

int coll_build_ring(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	struct coll_shape *sh = &cc->shape[COLL_ALGO_RING];
	shape_reset(sh);
	uint32_t n = s->nranks;
	double factor = coll_bus_factor(s->op, n);
	uint32_t home = node_of(c, s->ranks[0]);
	bool class_mode = net_mode(cc->net) == NET_CLASS;
	bool home_only = class_mode && ring_home_only(c);
	double div = 1.0;
	if (class_mode && !home_only)
		for (uint32_t i = 0; i < n; i++)
			div += i > 0 && node_of(c, s->ranks[i]) != node_of(c, s->ranks[i - 1]);
	cc->intra_pci = false;
	cc->ntouched = 0;
	for (uint32_t ch = 0; ch < cc->nch; ch++) {
		channel_order(cc, s, cc->nics[ch]);
		/* broadcast: the chain order[0] -> ... -> order[n-1]; reduce: the
		 * same chain backwards in ring direction, order[1] -> ... ->
		 * order[n-1] -> order[0] */
		uint32_t first = s->op == COLL_REDUCE ? 1 : 0;
		uint32_t nedges = s->op == COLL_BROADCAST || s->op == COLL_REDUCE ? n - 1 : n;
		size_t t0 = cc->ntouched;
		for (uint32_t k = 0; k < nedges; k++) {
			uint32_t i = (first + k) % n;
			uint32_t a = cc->order[i], b = cc->order[(i + 1) % n];
			if (home_only && node_of(c, a) != home)
				continue;
			/* count the edges on each link (exact), scale below */
			int rc = add_route(cc, a, b, cc->nics[ch], 1.0, &cc->intra_pci, err);
			if (rc)
				return rc;
		}
		for (size_t t = t0; t < cc->ntouched; t++)
			cc->acc[cc->touched[t]] = factor * (cc->acc[cc->touched[t]] / div);
		if (shape_flush(cc, sh))
			return TS_ENOMEM;
	}
	shape_finish(cc, s, sh);
	return 0;
}

/* Parent of r in NCCL's binary tree over n nodes, -1 for the root. */
static int64_t btree_parent(int64_t r, int64_t n)
{
	if (r == 0)
		return -1;
	int64_t bit = 1;
	while (!(r & bit))
		bit <<= 1;
	int64_t up = (r ^ bit) | (bit << 1);
	return up >= n ? (r ^ bit) : up;
}

/* Parent of r in tree t (0 or 1) of NCCL's double binary tree. */
static int64_t dtree_parent(int t, int64_t r, int64_t n)
{
	if (t == 0)
		return btree_parent(r, n);
	if (n % 2 == 1) {
		int64_t p = btree_parent((r - 1 + n) % n, n);
		return p < 0 ? -1 : (p + 1) % n;
	}
	int64_t p = btree_parent(n - 1 - r, n);
	return p < 0 ? -1 : n - 1 - p;
}

/* Index in node block bk of the GPU on NIC `nic` (the block's first GPU if
 * none is). */
static uint32_t block_head(struct ts_coll *cc, const struct coll_spec *s, uint32_t bk, uint32_t nic)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	for (uint32_t i = cc->blk[bk]; i < cc->blk[bk + 1]; i++)
		if (hw_cluster_gpu_nic(c, s->ranks[i]) == nic)
			return i;
	return cc->blk[bk];
}

/* The chain of block bk from its head (the fastest order, free end); one
 * byte per byte each way on every edge. */
static int add_chain(struct ts_coll *cc, const struct coll_spec *s, uint32_t bk, uint32_t head,
		     struct ts_error *err)
{
	uint32_t b = cc->blk[bk], len = cc->blk[bk + 1] - b;
	uint32_t *ord = cc->order + b;
	block_path(cc, s, b, len, head - b, COLL_NONE, false, ord);
	for (uint32_t k = 0; k + 1 < len; k++) {
		int rc = add_route(cc, ord[k], ord[k + 1], COLL_NONE, 1.0, NULL, err);
		if (!rc)
			rc = add_route(cc, ord[k + 1], ord[k], COLL_NONE, 1.0, NULL, err);
		if (rc)
			return rc;
	}
	return 0;
}

int coll_build_tree(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err)
{
	struct coll_shape *sh = &cc->shape[COLL_ALGO_TREE];
	shape_reset(sh);
	bool class_mode = net_mode(cc->net) == NET_CLASS;
	int64_t nn = cc->nodes;
	/* the busiest node's network load, for class mode */
	double dmax = 0.0;
	if (class_mode && nn > 1) {
		/* degrees by one pass over the parents */
		if (ts_grow((void **)&cc->order, &cc->caporder, (size_t)nn, sizeof *cc->order))
			return TS_ENOMEM;
		memset(cc->order, 0, (size_t)nn * sizeof *cc->order);
		for (int t = 0; t < 2; t++)
			for (int64_t k = 0; k < nn; k++) {
				int64_t p = dtree_parent(t, k, nn);
				if (p >= 0) {
					cc->order[k]++;
					cc->order[p]++;
				}
			}
		for (int64_t k = 0; k < nn; k++)
			if (0.5 * cc->order[k] > dmax)
				dmax = 0.5 * cc->order[k];
	}
	for (uint32_t ch = 0; ch < cc->nch; ch++) {
		uint32_t nic = cc->nics[ch];
		uint32_t nblk = class_mode ? 1 : cc->nodes;
		for (uint32_t bk = 0; bk < nblk; bk++) {
			uint32_t head = block_head(cc, s, bk, nic);
			int rc = add_chain(cc, s, bk, head, err);
			if (rc)
				return rc;
			if (nn == 1)
				continue;
			if (class_mode) {
				uint32_t other = s->ranks[block_head(cc, s, 1, nic)];
				rc = add_route(cc, s->ranks[head], other, nic, dmax, NULL, err);
				if (rc)
					return rc;
				continue;
			}
			for (int t = 0; t < 2; t++) {
				int64_t p = dtree_parent(t, bk, nn);
				if (p < 0)
					continue;
				uint32_t ph = s->ranks[block_head(cc, s, (uint32_t)p, nic)];
				rc = add_route(cc, s->ranks[head], ph, nic, 0.5, NULL, err);
				if (!rc)
					rc = add_route(cc, ph, s->ranks[head], nic, 0.5, NULL, err);
				if (rc)
					return rc;
			}
		}
		if (shape_flush(cc, sh))
			return TS_ENOMEM;
	}
	shape_finish(cc, s, sh);
	return 0;
}

int coll_build_nvls(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	struct coll_shape *sh = &cc->shape[COLL_ALGO_NVLS];
	shape_reset(sh);
	if (cc->nodes != 1)
		return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
				    "found nvls for a group across %u nodes, expected a group "
				    "inside one node (NVLS tree across nodes is not modelled)",
				    cc->nodes);
	if (!hw_cluster_nvls(c))
		return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
				    "found nvls on cluster %s, expected GPUs on an NVSwitch with "
				    "NVLink SHARP (sharp = true in the cluster file)",
				    hw_cluster_name(c));
	uint32_t n = s->nranks;
	cc->ntouched = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = s->ranks[i], b = s->ranks[(i + 1) % n];
		uint32_t route[COLL_MAX_ROUTE];
		size_t len = 0;
		if (hw_cluster_route(c, hw_cluster_gpu(c, a), hw_cluster_gpu(c, b), COLL_NONE,
				     route, COLL_MAX_ROUTE, &len) ||
		    len != 2 ||
		    hw_cluster_device(c, hw_cluster_link(c, route[0])->dst)->kind !=
			HW_DEV_NVSWITCH)
			return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
					    "found GPUs %u and %u not joined by one NVSwitch, "
					    "expected every GPU of an nvls group on the switch",
					    a, b);
		/* a's link up to the switch, and the switch's link down to b:
		 * over the whole group every GPU's up and down link once */
		uint32_t up = net_link_res(cc->net, route[0]);
		uint32_t down = net_link_res(cc->net, route[1]);
		if (cc->acc[up] == 0.0)
			cc->touched[cc->ntouched++] = up;
		cc->acc[up] += 1.0;
		if (cc->acc[down] == 0.0)
			cc->touched[cc->ntouched++] = down;
		cc->acc[down] += 1.0;
	}
	if (shape_flush(cc, sh))
		return TS_ENOMEM;
	shape_finish(cc, s, sh);
	return 0;
}

int coll_build_collnet(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	struct coll_shape *sh = &cc->shape[COLL_ALGO_COLLNET];
	shape_reset(sh);
	if (!hw_cluster_collnet(c) || cc->nodes < 2)
		return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
				    "found collnet for a group of %u node(s) on cluster %s, "
				    "expected a group across nodes on a fabric whose switches "
				    "reduce in the network (fabric.sharp = true)",
				    cc->nodes, hw_cluster_name(c));
	bool class_mode = net_mode(cc->net) == NET_CLASS;
	for (uint32_t ch = 0; ch < cc->nch; ch++) {
		uint32_t nic = cc->nics[ch];
		uint32_t nblk = class_mode ? 1 : cc->nodes;
		for (uint32_t bk = 0; bk < nblk; bk++) {
			uint32_t head = block_head(cc, s, bk, nic);
			uint32_t next = block_head(cc, s, (bk + 1) % cc->nodes, nic);
			int rc = add_chain(cc, s, bk, head, err);
			if (!rc)
				rc = add_route(cc, s->ranks[head], s->ranks[next], nic, 1.0, NULL,
					       err);
			if (rc)
				return rc;
		}
		if (shape_flush(cc, sh))
			return TS_ENOMEM;
	}
	shape_finish(cc, s, sh);
	return 0;
}

int coll_build_p2p(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	struct coll_shape *sh = &cc->shape[COLL_ALGO_P2P];
	shape_reset(sh);
	uint32_t n = s->nranks;
	uint32_t home = node_of(c, s->ranks[0]);
	bool class_mode = net_mode(cc->net) == NET_CLASS;
	cc->ntouched = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = s->ranks[i];
		if (class_mode && node_of(c, a) != home)
			continue;
		if (s->op == COLL_SEND_RECV) {
			if (n > 1) {
				int rc = add_route(cc, a, s->ranks[(i + 1) % n], COLL_NONE, 1.0,
						   NULL, err);
				if (rc)
					return rc;
			}
			continue;
		}
		for (uint32_t j = 0; j < n; j++) {
			if (j == i)
				continue;
			int rc = add_route(cc, a, s->ranks[j], COLL_NONE, 1.0 / n, NULL, err);
			if (rc)
				return rc;
		}
	}
	if (shape_flush(cc, sh))
		return TS_ENOMEM;
	shape_finish(cc, s, sh);
	return 0;
}
