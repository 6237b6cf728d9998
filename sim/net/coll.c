/* Collectives.
 *
 * A pipelined ring (NCCL's ring algorithm) keeps every edge of the ring busy
 * at once, so a whole collective is one fluid activity per channel rather
 * than 2(n-1) steps of n flows: the activity's work is the channel's share
 * of the collective's size, and its coefficient on each link is the bytes
 * that link carries per byte of progress, summed over the ring edges routed
 * through it (coll_bus_factor per edge, divided by the protocol's wire
 * efficiency). The activity then runs at the pace of its most loaded link,
 * and concurrent traffic on any of its links slows it through max-min
 * sharing. The step-by-step expansion lives in the tests as an oracle.
 *
 * Channels: a ring that crosses nodes gets one channel per distinct NIC
 * that its node-local GPUs use by default; channel c leaves each node from
 * the GPU attached to its NIC and enters the next node at the GPU closest to
 * the same NIC (rail-aligned), as NCCL's ring search arranges it. A ring
 * inside one node is one channel (its links are per GPU, so splitting it
 * changes nothing in a fluid model).
 *
 * Latency and protocol follow NCCL's tuning model (src/graph/tuning.cc,
 * ncclTopoTuneModel and ncclTopoGetAlgoTime, NCCL 2.12-2.18): time =
 * baseLat + (nsteps - nInterSteps) * intraLat + nInterSteps * interLat +
 * bytes / bw, with the per-protocol bandwidth factors below, and the
 * protocol of least predicted time chosen unless one is forced.
 * SPDX-License-Identifier: MIT */
/* Collectives: validation, NCCL's tuning model, and the start of the fluid
 * activities that coll_build.c lays out.
 *
 * A pipelined collective keeps every link it uses busy at once, so it is
 * one fluid activity per channel (ring, tree) or one in all (NVLS, point to
 * point) rather than 2(n-1) steps of n flows: the activity's work is its
 * share of the collective's bytes, and its coefficient on each link is the
 * bytes that link carries per byte of progress, divided by the wire
 * efficiency of the algorithm and protocol. The activity then runs at the
 * pace of its most loaded link, and concurrent traffic on any of its links
 * slows it through max-min sharing. The step-by-step ring expansion lives in
 * the tests as an oracle.
 *
 * Channels: a group that crosses nodes gets one channel per distinct NIC
 * that its first node's GPUs use by default; channel c crosses nodes on NIC
 * c of every node (rail-aligned), as NCCL's ring and tree searches arrange
 * it. Inside one node there is one channel (its links are per GPU, so
 * splitting it changes nothing in a fluid model).
 *
 * Choice of algorithm and protocol (NCCL src/graph/tuning.cc,
 * ncclTopoTuneModel and ncclTopoGetAlgoTime): time = latency + bytes /
 * algbw, least among enabled (algorithm, protocol) pairs. NCCL's graph
 * bandwidth nChannels x bw is taken as the ring's bottleneck busbw B from
 * the fluid model (the ring's own algbw is the fluid one times the protocol
 * factor, as before). Constants of the ring, tree and collnet are those of
 * the tuning.cc revision whose ring constants trainsim has used since the
 * ring model (NCCL 2.7-2.8: ring base latency 3.6/10/8.4 us); NVLS, which
 * that revision predates, takes NCCL 2.19's (hwLat NVLS 23 us on NVLink,
 * algbw = 5/6 x bus bandwidth, Simple only) and NCCL's nvlsEfficiency for
 * Hopper, 0.85 (src/tuning/nvls.cc), as its wire efficiency.
 *   ring:  latency = base + (nsteps - ninter) x intra + ninter x inter
 *          (x1.9 for a multi-node Simple all-reduce from n/16 x 64 KiB on);
 *          algbw = fluid algbw x protocol factor (LL 1/4 or 1/3, LL128 0.92
 *          or 0.7 with one GPU per node, Simple 1).
 *   tree:  latency = base + 2 ((ppn - 1) intra + log2(nodes) inter);
 *          algbw = 0.5 x min(0.9 B, 110 GB/s for <= 2 nodes else 80 GB/s)
 *          x (LL 1/3.8, LL128 7/9 on one node else 0.915) x NCCL's tree
 *          correction by size (64 B .. 128 MiB).
 *   nvls:  latency = 23 us; algbw = 5/6 B; one node with NVLink SHARP.
 *   collnet: latency = base + 2 (ppn - 1) intra + inter; algbw = 0.9 x
 *          (LL 1/6) x the fluid algbw of the in-network reduction (NCCL
 *          takes the intra-node bandwidth here, the network being off the
 *          critical path by design); across nodes on a fabric with SHARP.
 * LL128 is left out where a node-local ring edge leaves NVLink, as NCCL
 * enables it by default only on NVLink. The simulated activity divides its
 * coefficients by the efficiency of the pair chosen: the ring's protocol
 * factor; 0.9 x the tree's protocol factor for the tree; 0.85 for NVLS;
 * 0.9 (LL 0.15) for collnet; 1 for point to point. The per-channel caps of later NCCL versions and
 * the 110/80 GB/s tree cap enter the choice only, not the simulated rate. Point to point
 * (all-to-all, send/recv) has no tuning model in NCCL: it runs Simple, with the ring's base latency
 * plus one step (assumption). SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "base/hash.h"
#include "base/alloc.h"
#include "net/coll.h"
#include "net/net_int.h"

/* NCCL tuning.cc: ring base latency per protocol (LL, LL128, Simple), us. */
static const double ring_base_lat_us[COLL_PROTO_COUNT_] = {0.0, 3.6, 10.0, 8.4};
/* NCCL tuning.cc hwLat[hw][RING][proto], us per step: NVLink, PCI, network. */
enum { HW_NVLINK, HW_PCI, HW_NET };
static const double ring_hw_lat_us[3][COLL_PROTO_COUNT_] = {
    {0.0, 0.47, 1.9, 3.4}, {0.0, 1.0, 2.5, 5.7}, {0.0, 2.7, 4.0, 9.6}};
/* NCCL tuning.cc, tree: base latency and hwLat[hw][TREE][proto], us. */
static const double tree_base_lat_us[COLL_PROTO_COUNT_] = {0.0, 4.4, 4.4, 0.0};
static const double tree_hw_lat_us[3][COLL_PROTO_COUNT_] = {
    {0.0, 0.52, 1.2, 28.0}, {0.0, 1.0, 1.9, 28.0}, {0.0, 5.0, 8.5, 50.0}};
/* NCCL tuning.cc: tree busBw = min(0.9 busBw, maxTreeBw), maxTreeBw 110
 * GB/s up to two nodes and 80 GB/s beyond; LL x 1/3.8; LL128 x 7/9 on one
 * node, x 0.915 across nodes; algbw = 0.5 busBw. */
#define TREE_FACTOR 0.9
#define TREE_MAX_BW_2NODES 110e9
#define TREE_MAX_BW 80e9
#define TREE_LL_FACTOR (1.0 / 3.8)
#define TREE_LL128_FACTOR_1NODE (7.0 / 9.0)
#define TREE_LL128_FACTOR 0.915
#define TREE_RATIO 0.5
/* NCCL tuning.cc treeCorrectionFactor[proto][log2(bytes / 64)], 64 B to
 * 128 MiB (1 beyond). */
static const double tree_corr[COLL_PROTO_COUNT_][22] = {
    {0},
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9}};
/* NCCL 2.19 tuning.cc: NVLS latency hwLat[NVLINK][NVLS][Simple] (base 0),
 * us, and the busBw-to-algbw ratio 5/6; NCCL src/tuning/nvls.cc
 * nvlsEfficiency for Hopper. */
#define NVLS_LAT_US 23.0
#define NVLS_RATIO (5.0 / 6.0)
#define NVLS_EFFICIENCY 0.85
/* NCCL tuning.cc: LL moves 8-byte lines holding 4 data bytes plus flags and
 * is modelled at 1/4 of the bus bandwidth for all-reduce, reduce or across
 * nodes, 1/3 otherwise; LL128 at 0.92 (120 of 128 bytes), 0.7 with one GPU
 * per node; Simple at full bandwidth. */
#define LL_FACTOR_AR 0.25
#define LL_FACTOR_OTHER (1.0 / 3.0)
#define LL128_FACTOR 0.92
#define LL128_FACTOR_PPN1 0.7
/* NCCL tuning.cc, collnet: base latency, hwLat[hw][COLLNET][proto] (us),
 * busBw x 0.9, LL x 1/6, no LL128. */
static const double collnet_base_lat_us[COLL_PROTO_COUNT_] = {0.0, 4.4, 4.4, 0.0};
static const double collnet_hw_lat_us[3][COLL_PROTO_COUNT_] = {
    {0.0, 0.5, 1.2, 4.0}, {0.0, 1.0, 1.9, 5.5}, {0.0, 5.0, 5.0, 10.7}};
#define COLLNET_FACTOR 0.9
#define COLLNET_LL_FACTOR (1.0 / 6.0)
/* NCCL tuning.cc: multi-node Simple ring all-reduce latency x1.9 once the
 * message reaches nRanks/16 x 64 KiB ("plateau effect of ring"). */
#define RING_PLATEAU 1.9

#define NONE COLL_NONE

static const char *const op_names[COLL_OP_COUNT_] = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "send_recv"};
static const char *const proto_names[COLL_PROTO_COUNT_] = {"auto", "LL", "LL128", "Simple"};
static const char *const algo_names[COLL_ALGO_COUNT_] = {"auto", "ring",    "tree",
							 "nvls", "collnet", "p2p"};

const char *coll_op_name(enum coll_op op)
{
	return (unsigned)op < COLL_OP_COUNT_ ? op_names[op] : "?";
}

static int parse_name(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	return -1;
}

int coll_op_parse(const char *s)
{
	return parse_name(s, op_names, COLL_OP_COUNT_);
}
const char *coll_proto_name(int p)
{
	return p >= 0 && p < COLL_PROTO_COUNT_ ? proto_names[p] : "?";
}
int coll_proto_parse(const char *s)
{
	return parse_name(s, proto_names, COLL_PROTO_COUNT_);
}
const char *coll_algo_name(enum coll_algo a)
{
	return (unsigned)a < COLL_ALGO_COUNT_ ? algo_names[a] : "?";
}
int coll_algo_parse(const char *s)
{
	return parse_name(s, algo_names, COLL_ALGO_COUNT_);
}

double coll_bus_factor(enum coll_op op, uint32_t n)
{
	if (n <= 1)
		return 0.0;
	double dn = (double)n;
	switch (op) {
	case COLL_ALL_REDUCE:
		return 2.0 * (dn - 1.0) / dn;
	case COLL_ALL_GATHER:
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_TO_ALL:
		return (dn - 1.0) / dn;
	default:
		return 1.0;
	}
}

static bool is_p2p(enum coll_op op)
{
	return op == COLL_ALL_TO_ALL || op == COLL_SEND_RECV;
}

int coll_create(struct ts_coll **out, struct ts_net *net)
{
	struct ts_coll *cc = ts_calloc(1, sizeof *cc);
	*out = NULL;
	if (!cc)
		return TS_ENOMEM;
	cc->net = net;
	cc->free_pend = NONE;
	*out = cc;
	return 0;
}

void coll_destroy(struct ts_coll *cc)
{
	if (!cc)
		return;
	ts_free(cc->pend, cc->cappend * sizeof *cc->pend);
	ts_free(cc->acc, cc->capacc * sizeof *cc->acc);
	ts_free(cc->touched, cc->captouched * sizeof *cc->touched);
	ts_free(cc->order, cc->caporder * sizeof *cc->order);
	ts_free(cc->nics, cc->capnics * sizeof *cc->nics);
	ts_free(cc->blk, cc->capblk * sizeof *cc->blk);
	ts_free(cc->seen_gpu, cc->capseen_gpu * sizeof *cc->seen_gpu);
	ts_free(cc->seen_node, cc->capseen_node * sizeof *cc->seen_node);
	ts_free(cc->last_ranks, cc->caplast * sizeof *cc->last_ranks);
	for (int a = 0; a < COLL_ALGO_COUNT_; a++) {
		ts_free(cc->shape[a].uses, cc->shape[a].capuses * sizeof *cc->shape[a].uses);
		ts_free(cc->shape[a].off, cc->shape[a].capoff * sizeof *cc->shape[a].off);
	}
	for (int i = 0; i < COLL_MEMO; i++) {
		struct coll_memo *m = &cc->memo[i];
		ts_free(m->ranks, m->capranks * sizeof *m->ranks);
		ts_free(m->uses, m->capuses * sizeof *m->uses);
		ts_free(m->off, m->capoff * sizeof *m->off);
	}
	ts_free(cc, sizeof *cc);
}

static uint32_t node_of(const struct hw_cluster *c, uint32_t rank)
{
	return rank / hw_cluster_gpus_per_node(c);
}

static int validate(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err)
{
	if (s->nranks == 0 || !s->ranks)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "ranks",
				    "found an empty rank group, expected at least one GPU");
	if ((unsigned)s->op >= COLL_OP_COUNT_)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "op", "found op %d, expected 0..%d",
				    (int)s->op, COLL_OP_COUNT_ - 1);
	if (!(s->bytes >= 0.0) || !isfinite(s->bytes))
		return ts_error_set(err, TS_EINVALID, NULL, 0, "bytes",
				    "found %g, expected a finite size >= 0", s->bytes);
	if (s->proto < 0 || s->proto >= COLL_PROTO_COUNT_)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "proto",
				    "found %d, expected auto, LL, LL128 or Simple", s->proto);
	if (s->algo < 0 || s->algo >= COLL_ALGO_COUNT_)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "algo",
				    "found algorithm %d, expected auto, ring, tree, nvls or "
				    "collnet",
				    s->algo);
	if (s->mult == 0 || (net_mode(cc->net) == NET_FULL && s->mult != 1))
		return ts_error_set(err, TS_EINVALID, NULL, 0, "mult",
				    "found %u, expected 1 in full mode and >= 1 in class mode",
				    s->mult);
	const char *op = coll_op_name(s->op);
	if (is_p2p(s->op)) {
		if (s->algo != COLL_ALGO_AUTO && s->algo != COLL_ALGO_P2P)
			return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
					    "found %s for %s, expected auto (%s runs as "
					    "point-to-point transfers)",
					    coll_algo_name((enum coll_algo)s->algo), op, op);
		if (s->proto != COLL_PROTO_AUTO && s->proto != COLL_PROTO_SIMPLE)
			return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "proto",
					    "found %s for %s, expected auto or Simple",
					    coll_proto_name(s->proto), op);
		return 0;
	}
	switch (s->algo) {
	case COLL_ALGO_P2P:
		return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
				    "found p2p for %s, expected auto, ring, tree, nvls or collnet",
				    op);
	case COLL_ALGO_TREE:
	case COLL_ALGO_NVLS:
		if (s->op != COLL_ALL_REDUCE)
			return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
					    "found %s for %s, expected ring (NCCL runs %s for "
					    "all_reduce only)",
					    coll_algo_name((enum coll_algo)s->algo), op,
					    coll_algo_name((enum coll_algo)s->algo));
		if (s->algo == COLL_ALGO_NVLS && s->proto != COLL_PROTO_AUTO &&
		    s->proto != COLL_PROTO_SIMPLE)
			return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "proto",
					    "found %s with nvls, expected auto or Simple (NVLS "
					    "runs Simple only)",
					    coll_proto_name(s->proto));
		break;
	case COLL_ALGO_COLLNET:
		if (s->op != COLL_ALL_REDUCE)
			return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
					    "found collnet for %s, expected ring (collnet is "
					    "modelled for all_reduce only)",
					    op);
		if (s->proto == COLL_PROTO_LL128)
			return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "proto",
					    "found LL128 with collnet, expected auto, LL or "
					    "Simple (NCCL's collnet has no LL128)");
		break;
	default:
		break;
	}
	return 0;
}

/* Ranks in range, distinct, and node-local ranks contiguous: one pass with
 * epoch stamps per GPU and per node. */
static int validate_ranks(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	uint32_t ngpu = hw_cluster_gpus(c);
	uint32_t nnodes = hw_cluster_nodes(c);
	if (ts_grow((void **)&cc->seen_gpu, &cc->capseen_gpu, ngpu, sizeof *cc->seen_gpu) ||
	    ts_grow((void **)&cc->seen_node, &cc->capseen_node, nnodes, sizeof *cc->seen_node))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	uint32_t ep = ++cc->epoch;
	if (ep == 0) { /* wrapped: clear the stamps */
		memset(cc->seen_gpu, 0, cc->capseen_gpu * sizeof *cc->seen_gpu);
		memset(cc->seen_node, 0, cc->capseen_node * sizeof *cc->seen_node);
		ep = cc->epoch = 1;
	}
	for (uint32_t i = 0; i < s->nranks; i++) {
		uint32_t r = s->ranks[i];
		if (r >= ngpu)
			return ts_error_set(err, TS_EINVALID, NULL, 0, "ranks",
					    "found rank %u, expected 0..%u", r, ngpu - 1);
		if (cc->seen_gpu[r] == ep)
			return ts_error_set(err, TS_EINVALID, NULL, 0, "ranks",
					    "found rank %u twice, expected distinct ranks", r);
		cc->seen_gpu[r] = ep;
		uint32_t nd = node_of(c, r);
		if (i > 0 && nd != node_of(c, s->ranks[i - 1]) && cc->seen_node[nd] == ep)
			return ts_error_set(err, TS_EINVALID, NULL, 0, "ranks",
					    "found node %u's ranks split apart, expected "
					    "node-local ranks to be contiguous",
					    nd);
		cc->seen_node[nd] = ep;
	}
	return 0;
}

/* Node blocks, channels and their NICs of a validated group. */
static int group_setup(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	uint32_t n = s->nranks;
	uint32_t nodes = 1;
	for (uint32_t i = 1; i < n; i++)
		if (node_of(c, s->ranks[i]) != node_of(c, s->ranks[i - 1]))
			nodes++;
	uint32_t nnic = hw_cluster_nics_per_node(c);
	size_t nres = fluid_resource_count(net_fluid(cc->net));
	if (ts_grow((void **)&cc->acc, &cc->capacc, nres, sizeof *cc->acc) ||
	    ts_grow((void **)&cc->touched, &cc->captouched, nres, sizeof *cc->touched) ||
	    ts_grow((void **)&cc->order, &cc->caporder, n, sizeof *cc->order) ||
	    ts_grow((void **)&cc->nics, &cc->capnics, nnic + 1, sizeof *cc->nics) ||
	    ts_grow((void **)&cc->blk, &cc->capblk, nodes + 1, sizeof *cc->blk))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	cc->nodes = 0;
	for (uint32_t i = 0; i < n; i++)
		if (i == 0 || node_of(c, s->ranks[i]) != node_of(c, s->ranks[i - 1]))
			cc->blk[cc->nodes++] = i;
	cc->blk[cc->nodes] = n;
	cc->nch = 1;
	cc->nics[0] = NONE;
	if (nodes > 1) {
		cc->nch = 0;
		for (uint32_t i = 0; i < cc->blk[1]; i++) {
			uint32_t nic = hw_cluster_gpu_nic(c, s->ranks[i]);
			bool seen = false;
			for (uint32_t k = 0; k < cc->nch; k++)
				seen |= cc->nics[k] == nic;
			if (!seen && nic != NONE && cc->nch < nnic + 1)
				cc->nics[cc->nch++] = nic;
		}
		if (cc->nch == 0)
			return ts_error_set(err, TS_EINVALID, NULL, 0, "cluster",
					    "found no NIC for a group across %u nodes, expected "
					    "at least one NIC per node",
					    nodes);
	}
	return 0;
}

static double proto_factor(const struct coll_spec *s, int proto, uint32_t nodes, uint32_t n)
{
	switch (proto) {
	case COLL_PROTO_LL:
		return (nodes > 1 || s->op == COLL_ALL_REDUCE || s->op == COLL_REDUCE)
			   ? LL_FACTOR_AR
			   : LL_FACTOR_OTHER;
	case COLL_PROTO_LL128:
		return n / nodes < 2 ? LL128_FACTOR_PPN1 : LL128_FACTOR;
	default:
		return 1.0;
	}
}

static double tree_proto_factor(int proto, uint32_t nodes)
{
	switch (proto) {
	case COLL_PROTO_LL:
		return TREE_LL_FACTOR;
	case COLL_PROTO_LL128:
		return nodes == 1 ? TREE_LL128_FACTOR_1NODE : TREE_LL128_FACTOR;
	default:
		return 1.0;
	}
}

/* Wire efficiency of the simulated activity: its coefficients are divided
 * by this. */
static double efficiency(const struct coll_spec *s, int algo, int proto, uint32_t nodes)
{
	switch (algo) {
	case COLL_ALGO_TREE:
		return TREE_FACTOR * tree_proto_factor(proto, nodes);
	case COLL_ALGO_NVLS:
		return NVLS_EFFICIENCY;
	case COLL_ALGO_COLLNET:
		return COLLNET_FACTOR * (proto == COLL_PROTO_LL ? COLLNET_LL_FACTOR : 1.0);
	case COLL_ALGO_P2P:
		return 1.0;
	default:
		return proto_factor(s, proto, nodes, s->nranks);
	}
}

/* NCCL's socket transport across nodes (src/transport/net_socket.cc): a
 * channel's connection to the next node opens `sockets` TCP flows
 * (NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD) and splits each message over
 * them, and a cloud provider may limit what one flow carries (fabric.flow_cap:
 * AWS EC2, 5 Gbit/s per flow between instances outside a cluster placement
 * group, 10 inside; Amazon EC2 user guide, "Amazon EC2 instance network
 * bandwidth"). A channel then moves at most sockets x flow_cap bytes/s over
 * each connection, whatever the NIC's line rate. A connection carries
 * `conn` bytes per byte of the channel's progress (a ring edge: the bus
 * factor; a tree edge: half each way, each of the two trees its own
 * connection; a transfer between two ranks: one) and the wire 1/eff of
 * those. The most progress per second of one channel, or 0 when nothing
 * limits a flow (an all-to-all is left unlimited). */
static double flow_bound(const struct ts_coll *cc, const struct coll_spec *s, int algo, double eff)
{
	uint32_t socks;
	double cap = hw_cluster_flow_cap(net_cluster(cc->net), &socks);
	if (!(cap > 0.0) || cc->nodes < 2)
		return 0.0;
	double conn;
	switch (algo) {
	case COLL_ALGO_RING:
		conn = coll_bus_factor(s->op, s->nranks);
		break;
	case COLL_ALGO_TREE:
		conn = 0.5;
		break;
	case COLL_ALGO_P2P:
		/* one transfer between two ranks; an all-to-all is one activity
		 * over many connections, which no single cap describes */
		if (s->nranks != 2)
			return 0.0;
		conn = 1.0;
		break;
	default:
		return 0.0;
	}
	return conn > 0.0 ? (double)socks * cap * eff / conn : 0.0;
}

/* The algbw of `nact` channels of fluid algbw `alg` (all channels, bytes/s)
 * with wire efficiency eff, under the flow bound. */
static double capped_alg(const struct ts_coll *cc, const struct coll_spec *s, int algo, double alg,
			 double eff, uint32_t nact)
{
	double b = flow_bound(cc, s, algo, eff);
	return b > 0.0 ? fmin(alg * eff, (double)nact * b) : alg * eff;
}

/* A transfer between two ranks (a pipeline send: a two-rank broadcast or
 * send/recv) crosses one route once: its latency is NCCL's software base
 * latency of the protocol plus the catalog latency of every link of the
 * route from the first rank to the second (links.cfg `latency`, per hop),
 * instead of NCCL's per-step hardware latencies. Negative when the route is
 * not found (the caller keeps NCCL's table). */
static double pair_latency_s(const struct ts_coll *cc, const struct coll_spec *s, int proto)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	uint32_t links[COLL_MAX_ROUTE];
	size_t n = 0;
	if (hw_cluster_route(c, hw_cluster_gpu(c, s->ranks[0]), hw_cluster_gpu(c, s->ranks[1]),
			     UINT32_MAX, links, COLL_MAX_ROUTE, &n))
		return -1.0;
	double lat = ring_base_lat_us[proto] * 1e-6;
	for (size_t i = 0; i < n; i++)
		lat += hw_cluster_link(c, links[i])->lat_s;
	return lat;
}

/* NCCL's per-step network latency of `hw_us` (its table, tuned on
 * InfiniBand), or the network's own when that is longer: a step over NCCL's
 * socket transport crosses the kernel's TCP stack on both hosts, about 50 us
 * kernel to kernel (links.cfg, eth-*: 25 us per hop, I8), where the table
 * has 2.7-9.6 us; InfiniBand's 0.25-0.3 us per hop stay under the table.
 * net_us is the catalog latency of the fabric links between the first two
 * nodes, us (0 inside one node). */
static double net_step_us(double hw_us, double net_us)
{
	return net_us > hw_us ? net_us : hw_us;
}

/* The catalog latency of the network part of the route from GPU rank a to
 * GPU rank b (the links to and from fabric switches), us; 0 when there is
 * none. The hops inside the nodes are NCCL's intra-node steps. */
static double route_latency_us(const struct ts_coll *cc, uint32_t a, uint32_t b)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	uint32_t links[COLL_MAX_ROUTE];
	size_t n = 0;
	if (hw_cluster_route(c, hw_cluster_gpu(c, a), hw_cluster_gpu(c, b), UINT32_MAX, links,
			     COLL_MAX_ROUTE, &n))
		return 0.0;
	double lat = 0.0;
	for (size_t i = 0; i < n; i++) {
		const struct hw_link *l = hw_cluster_link(c, links[i]);
		if (hw_cluster_device(c, l->src)->node == HW_FABRIC ||
		    hw_cluster_device(c, l->dst)->node == HW_FABRIC)
			lat += l->lat_s;
	}
	return lat * 1e6;
}

static double ring_latency_s(const struct coll_spec *s, int proto, uint32_t nodes, bool intra_pci,
			     double net_us)
{
	uint32_t n = s->nranks;
	double nsteps, ninter;
	switch (s->op) {
	case COLL_ALL_REDUCE:
		nsteps = 2.0 * (n - 1);
		ninter = 2.0 * (nodes - 1);
		break;
	case COLL_ALL_GATHER:
	case COLL_REDUCE_SCATTER:
		nsteps = n - 1.0;
		ninter = nodes - 1.0;
		break;
	default:
		nsteps = n;
		ninter = nodes;
		break;
	}
	double intra = ring_hw_lat_us[intra_pci ? HW_PCI : HW_NVLINK][proto];
	if (nodes > 1 && proto == COLL_PROTO_LL)
		intra *= 1.8;
	double inter = net_step_us(ring_hw_lat_us[HW_NET][proto], net_us);
	double lat = ring_base_lat_us[proto];
	if (s->op == COLL_BROADCAST || s->op == COLL_REDUCE)
		lat += nsteps *
		       (nodes > 1 ? inter : ring_hw_lat_us[intra_pci ? HW_PCI : HW_NVLINK][proto]);
	else
		lat += (nsteps - ninter) * intra + ninter * inter;
	if (proto == COLL_PROTO_SIMPLE && nodes > 1 && s->op == COLL_ALL_REDUCE &&
	    s->bytes >= n / 16.0 * 65536.0)
		lat *= RING_PLATEAU;
	return lat * 1e-6;
}

static uint32_t log2_floor(uint64_t v)
{
	uint32_t l = 0;
	while (v >>= 1)
		l++;
	return l;
}

static double tree_latency_s(const struct coll_spec *s, int proto, uint32_t nodes, bool intra_pci,
			     double net_us)
{
	double intra = tree_hw_lat_us[intra_pci ? HW_PCI : HW_NVLINK][proto];
	if (nodes > 1 && proto == COLL_PROTO_LL)
		intra *= 1.8;
	double ppn = (double)(s->nranks / nodes);
	double lat = tree_base_lat_us[proto] +
		     2.0 * ((ppn - 1.0) * intra +
			    log2_floor(nodes) * net_step_us(tree_hw_lat_us[HW_NET][proto], net_us));
	return lat * 1e-6;
}

static double collnet_latency_s(const struct coll_spec *s, int proto, uint32_t nodes,
				bool intra_pci, double net_us)
{
	double intra = collnet_hw_lat_us[intra_pci ? HW_PCI : HW_NVLINK][proto];
	if (nodes > 1 && proto == COLL_PROTO_LL)
		intra *= 1.8;
	double ppn = (double)(s->nranks / nodes);
	return (collnet_base_lat_us[proto] + 2.0 * (ppn - 1.0) * intra +
		net_step_us(collnet_hw_lat_us[HW_NET][proto], net_us)) *
	       1e-6;
}

/* NCCL's tree algbw estimate for `bytes` from the ring busbw B. */
static double tree_model_algbw(double B, int proto, uint32_t nodes, double bytes)
{
	double bus = fmin(TREE_FACTOR * B, nodes <= 2 ? TREE_MAX_BW_2NODES : TREE_MAX_BW);
	bus *= tree_proto_factor(proto, nodes);
	double alg = bus * TREE_RATIO;
	double chunks = floor(bytes / 64.0);
	uint32_t lg = chunks >= 1.0 ? log2_floor((uint64_t)fmin(chunks, 1e18)) : 0;
	if (lg < 22)
		alg *= tree_corr[proto][lg];
	return alg;
}

static uint64_t ranks_hash(const uint32_t *r, uint32_t n)
{
	return hash_fnv1a(HASH_FNV1A_BASIS, r, n * sizeof *r);
}

static bool same_group(const struct ts_coll *cc, const struct coll_spec *s, uint64_t h)
{
	return cc->have_last && cc->last_op == s->op && cc->last_mult == s->mult &&
	       cc->last_n == s->nranks && cc->last_hash == h &&
	       memcmp(cc->last_ranks, s->ranks, s->nranks * sizeof *s->ranks) == 0;
}

static int build_shape(struct ts_coll *cc, const struct coll_spec *s, int algo,
		       struct ts_error *err)
{
	if (cc->shape[algo].built)
		return 0;
	switch (algo) {
	case COLL_ALGO_TREE:
		return coll_build_tree(cc, s, err);
	case COLL_ALGO_NVLS:
		return coll_build_nvls(cc, s, err);
	case COLL_ALGO_COLLNET:
		return coll_build_collnet(cc, s, err);
	case COLL_ALGO_P2P:
		return coll_build_p2p(cc, s, err);
	default:
		return coll_build_ring(cc, s, err);
	}
}

/* Whether the tuning model may pick `algo` for this group (auto mode). */
static bool algo_enabled(struct ts_coll *cc, const struct coll_spec *s, int algo)
{
	switch (algo) {
	case COLL_ALGO_RING:
		return true;
	case COLL_ALGO_TREE:
		return s->op == COLL_ALL_REDUCE;
	case COLL_ALGO_NVLS:
		return s->op == COLL_ALL_REDUCE && cc->nodes == 1 &&
		       hw_cluster_nvls(net_cluster(cc->net));
	case COLL_ALGO_COLLNET:
		return s->op == COLL_ALL_REDUCE && cc->nodes > 1 &&
		       hw_cluster_collnet(net_cluster(cc->net));
	default:
		return false;
	}
}

static int plan_internal(struct ts_coll *cc, const struct coll_spec *s, struct coll_plan *p,
			 struct ts_error *err)
{
	memset(p, 0, sizeof *p);
	int rc = validate(cc, s, err);
	if (rc)
		return rc;
	bool p2p = is_p2p(s->op);
	p->algo = p2p ? COLL_ALGO_P2P : COLL_ALGO_RING;
	p->proto = COLL_PROTO_SIMPLE;
	if (s->nranks == 1) {
		p->nodes = 1;
		return validate_ranks(cc, s, err);
	}
	uint64_t h = ranks_hash(s->ranks, s->nranks);
	if (!same_group(cc, s, h)) {
		cc->have_last = false;
		for (int a = 0; a < COLL_ALGO_COUNT_; a++)
			cc->shape[a].built = false;
		if ((rc = validate_ranks(cc, s, err)) || (rc = group_setup(cc, s, err)))
			return rc;
		if (ts_grow((void **)&cc->last_ranks, &cc->caplast, s->nranks,
			    sizeof *cc->last_ranks))
			return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		memcpy(cc->last_ranks, s->ranks, s->nranks * sizeof *s->ranks);
		cc->last_op = s->op;
		cc->last_mult = s->mult;
		cc->last_n = s->nranks;
		cc->last_hash = h;
		cc->have_last = true;
	}
	p->nodes = cc->nodes;
	double factor = coll_bus_factor(s->op, s->nranks);
	if (p2p) {
		if ((rc = build_shape(cc, s, COLL_ALGO_P2P, err)))
			return rc;
		int hw = cc->nodes > 1 ? HW_NET : cc->intra_pci ? HW_PCI : HW_NVLINK;
		p->latency_s =
		    (ring_base_lat_us[COLL_PROTO_SIMPLE] + ring_hw_lat_us[hw][COLL_PROTO_SIMPLE]) *
		    1e-6;
		double pl = s->nranks == 2 ? pair_latency_s(cc, s, COLL_PROTO_SIMPLE) : -1.0;
		if (pl >= 0.0)
			p->latency_s = pl;
		p->channels = cc->shape[COLL_ALGO_P2P].nact;
		double alg = capped_alg(cc, s, COLL_ALGO_P2P, cc->shape[COLL_ALGO_P2P].algbw_Bps,
					1.0, p->channels);
		p->bus_Bps = alg * factor;
		p->est_s = p->latency_s + s->bytes / alg;
		return 0;
	}
	/* the ring's bottleneck busbw is the tuning model's bus bandwidth */
	if ((rc = build_shape(cc, s, COLL_ALGO_RING, err)))
		return rc;
	double ring_alg = capped_alg(cc, s, COLL_ALGO_RING, cc->shape[COLL_ALGO_RING].algbw_Bps,
				     1.0, cc->shape[COLL_ALGO_RING].nact);
	double B = ring_alg * factor;
	bool intra_pci = cc->intra_pci;
	double net_us =
	    cc->nodes > 1 ? route_latency_us(cc, s->ranks[cc->blk[0]], s->ranks[cc->blk[1]]) : 0.0;
	double best = HUGE_VAL;
	for (int a = COLL_ALGO_RING; a <= COLL_ALGO_COLLNET; a++) {
		if (s->algo != COLL_ALGO_AUTO ? a != s->algo : !algo_enabled(cc, s, a))
			continue;
		for (int pr = COLL_PROTO_LL; pr < COLL_PROTO_COUNT_; pr++) {
			if (s->proto != COLL_PROTO_AUTO && pr != s->proto)
				continue;
			/* NCCL enables LL128 by default only on NVLink */
			if (s->proto == COLL_PROTO_AUTO && pr == COLL_PROTO_LL128 && intra_pci)
				continue;
			double lat, alg;
			if (a == COLL_ALGO_RING) {
				lat = ring_latency_s(s, pr, cc->nodes, intra_pci, net_us);
				if (s->nranks == 2 &&
				    (s->op == COLL_BROADCAST || s->op == COLL_REDUCE)) {
					double pl = pair_latency_s(cc, s, pr);
					lat = pl >= 0.0 ? pl : lat;
				}
				alg = ring_alg * proto_factor(s, pr, cc->nodes, s->nranks);
			} else if (a == COLL_ALGO_TREE) {
				lat = tree_latency_s(s, pr, cc->nodes, intra_pci, net_us);
				alg = tree_model_algbw(B, pr, cc->nodes, s->bytes);
				double tb = flow_bound(cc, s, COLL_ALGO_TREE,
						       efficiency(s, a, pr, cc->nodes));
				if (tb > 0.0)
					alg = fmin(alg, cc->nch * tb);
			} else if (a == COLL_ALGO_NVLS) {
				if (pr != COLL_PROTO_SIMPLE)
					continue;
				lat = NVLS_LAT_US * 1e-6;
				alg = NVLS_RATIO * B;
			} else {
				if (pr == COLL_PROTO_LL128)
					continue;
				if ((rc = build_shape(cc, s, a, err)))
					return rc;
				lat = collnet_latency_s(s, pr, cc->nodes, intra_pci, net_us);
				alg = cc->shape[a].algbw_Bps * efficiency(s, a, pr, cc->nodes);
			}
			double t = lat + s->bytes / alg;
			if (t < best) {
				best = t;
				p->algo = a;
				p->proto = pr;
				p->latency_s = lat;
				p->est_s = t;
			}
		}
	}
	if ((rc = build_shape(cc, s, p->algo, err)))
		return rc;
	const struct coll_shape *sh = &cc->shape[p->algo];
	p->channels = sh->nact;
	p->bus_Bps = capped_alg(cc, s, p->algo, sh->algbw_Bps,
				efficiency(s, p->algo, p->proto, cc->nodes), sh->nact) *
		     factor;
	return 0;
}

int coll_plan(struct ts_coll *cc, const struct coll_spec *s, struct coll_plan *p,
	      struct ts_error *err)
{
	return plan_internal(cc, s, p, err);
}

static void channel_done(void *ctx, uint64_t arg)
{
	struct ts_coll *cc = ctx;
	struct coll_pending *pd = &cc->pend[arg];
	if (--pd->left > 0)
		return;
	ts_event_fn done = pd->done;
	void *dctx = pd->ctx;
	uint64_t darg = pd->arg;
	pd->next_free = cc->free_pend;
	cc->free_pend = (uint32_t)arg;
	if (done)
		done(dctx, darg);
}

static int alloc_pending(struct ts_coll *cc, uint32_t *id)
{
	if (cc->free_pend != NONE) {
		*id = cc->free_pend;
		cc->free_pend = cc->pend[*id].next_free;
		return 0;
	}
	if (ts_grow((void **)&cc->pend, &cc->cappend, cc->npend + 1, sizeof *cc->pend))
		return TS_ENOMEM;
	*id = (uint32_t)cc->npend++;
	return 0;
}

/* The first memo slot of the set of spec s whose ranks hash to h: sets of
 * COLL_MEMO_WAYS slots. */
static uint32_t memo_set(const struct coll_spec *s, uint64_t h)
{
	uint64_t bits;
	memcpy(&bits, &s->bytes, sizeof bits);
	uint64_t x = h ^ (bits * HASH_GOLDEN_GAMMA) ^ ((uint64_t)s->op << 32) ^
		     ((uint64_t)s->mult << 8) ^ (uint64_t)(s->algo * 7 + s->proto);
	x = hash_mix64(x);
	return (uint32_t)(x % (COLL_MEMO / COLL_MEMO_WAYS)) * COLL_MEMO_WAYS;
}

/* The memo of spec s (hash h of its ranks), or NULL; a hit is marked as
 * the most recently used of its set. */
static const struct coll_memo *memo_find(struct ts_coll *cc, const struct coll_spec *s, uint64_t h)
{
	uint32_t set = memo_set(s, h);
	for (uint32_t w = 0; w < COLL_MEMO_WAYS; w++) {
		struct coll_memo *m = &cc->memo[set + w];
		if (m->used && m->hash == h && m->op == s->op && m->n == s->nranks &&
		    m->mult == s->mult && m->algo == s->algo && m->proto == s->proto &&
		    m->bytes == s->bytes &&
		    ((s->ranks_key && m->ranks_key == s->ranks_key) ||
		     !memcmp(m->ranks, s->ranks, s->nranks * sizeof *s->ranks))) {
			m->last_use = ++cc->memo_clock;
			return m;
		}
	}
	return NULL;
}

/* Plan s (hash h of its ranks) and keep what coll_start needs in a memo
 * entry, which *out receives. Errors as coll_plan, plus TS_ENOMEM. */
static int memo_add(struct ts_coll *cc, const struct coll_spec *s, uint64_t h,
		    const struct coll_memo **out, struct ts_error *err)
{
	struct coll_plan p;
	int rc = plan_internal(cc, s, &p, err);
	if (rc)
		return rc;
	/* the least recently used slot of the set (an unused one first) */
	uint32_t set = memo_set(s, h), lru = set;
	for (uint32_t w = 1; w < COLL_MEMO_WAYS; w++)
		if (cc->memo[set + w].last_use < cc->memo[lru].last_use)
			lru = set + w;
	struct coll_memo *m = &cc->memo[lru];
	m->used = false;
	const struct coll_shape *sh = &cc->shape[p.algo];
	uint32_t nact = p.channels ? sh->nact : 0, nuses = nact ? sh->off[nact] : 0;
	if (ts_grow((void **)&m->ranks, &m->capranks, s->nranks, sizeof *m->ranks) ||
	    ts_grow((void **)&m->off, &m->capoff, (size_t)nact + 1, sizeof *m->off) ||
	    ts_grow((void **)&m->uses, &m->capuses, (size_t)nuses + 1, sizeof *m->uses))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	memcpy(m->ranks, s->ranks, s->nranks * sizeof *s->ranks);
	m->op = s->op;
	m->algo = s->algo;
	m->proto = s->proto;
	m->mult = s->mult;
	m->n = s->nranks;
	m->hash = h;
	m->ranks_key = s->ranks_key;
	m->bytes = s->bytes;
	m->plan = p;
	m->nact = nact;
	m->lat = ts_time_from_s(p.latency_s);
	m->bound = 0.0;
	if (nact) {
		double eff = efficiency(s, p.algo, p.proto, p.nodes);
		m->bound = flow_bound(cc, s, p.algo, eff);
		for (uint32_t k = 0; k <= nact; k++)
			m->off[k] = sh->off[k];
		for (uint32_t u = 0; u < nuses; u++)
			m->uses[u] = (struct fluid_use){sh->uses[u].res, sh->uses[u].coeff / eff};
	}
	m->used = true;
	m->last_use = ++cc->memo_clock;
	*out = m;
	return 0;
}

/* The hash of s's ranks, read once per nonzero ranks_key while the key
 * keeps its slot. */
static uint64_t spec_ranks_hash(struct ts_coll *cc, const struct coll_spec *s)
{
	if (!s->ranks_key)
		return ranks_hash(s->ranks, s->nranks);
	uint32_t slot = (uint32_t)(hash_splitmix64(s->ranks_key) % COLL_RKEYS);
	if (cc->rkey[slot].key != s->ranks_key) {
		cc->rkey[slot].key = s->ranks_key;
		cc->rkey[slot].hash = ranks_hash(s->ranks, s->nranks);
	}
	return cc->rkey[slot].hash;
}

int coll_start(struct ts_coll *cc, const struct coll_spec *s, struct coll_plan *plan,
	       struct ts_error *err)
{
	/* validated when first planned; a spec that fails is never kept */
	uint64_t h = s->ranks && s->nranks ? spec_ranks_hash(cc, s) : 0;
	const struct coll_memo *m = s->ranks && s->nranks ? memo_find(cc, s, h) : NULL;
	int rc;
	if (!m && (rc = memo_add(cc, s, h, &m, err)))
		return rc;
	if (plan)
		*plan = m->plan;
	uint32_t id;
	if (alloc_pending(cc, &id))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	struct coll_pending *pd = &cc->pend[id];
	pd->done = s->done;
	pd->ctx = s->ctx;
	pd->arg = s->arg;
	struct ts_fluid *f = net_fluid(cc->net);
	if (m->nact == 0) {
		/* one rank: nothing moves; finish after no time */
		pd->left = 1;
		struct fluid_spec fs = {.work = 0.0,
					.mult = s->mult,
					.weight = 1.0,
					.bound = 1.0,
					.done = channel_done,
					.ctx = cc,
					.arg = id,
					.tag = s->tag};
		uint32_t act;
		return fluid_start(f, &fs, &act);
	}
	pd->left = m->nact;
	double reps = s->count > 1 ? (double)s->count : 1.0;
	ts_time lat = m->lat;
	if (s->count > 1 && m->lat > INT64_MAX / (int64_t)s->count)
		return ts_error_set(err, TS_ELIMIT, NULL, 0, NULL,
				    "a collective repeated %u times has a latency past the "
				    "int64-ns range",
				    s->count);
	if (s->count > 1)
		lat = m->lat * (ts_time)s->count;
	for (uint32_t k = 0; k < m->nact; k++) {
		uint32_t lo = m->off[k], hi = m->off[k + 1];
		struct fluid_spec fs = {.work = reps * (s->bytes / m->nact),
					.mult = s->mult,
					.weight = 1.0,
					.bound = m->bound,
					.latency = lat,
					.uses = m->uses + lo,
					.nuses = hi - lo,
					.done = channel_done,
					.ctx = cc,
					.arg = id,
					.tag = s->tag};
		if (hi == lo) /* class mode edge case: nothing leaves the home node */
			fs.bound = 1e30;
		uint32_t act;
		rc = fluid_start(f, &fs, &act);
		if (rc)
			return rc;
	}
	return 0;
}
