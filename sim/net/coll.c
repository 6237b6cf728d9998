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
#include <math.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "net/coll.h"

/* NCCL tuning.cc: ring base latency per protocol (LL, LL128, Simple), us. */
static const double ring_base_lat_us[COLL_PROTO_COUNT_] = {0.0, 3.6, 10.0, 8.4};
/* NCCL tuning.cc hwLat[hw][RING][proto], us per step: NVLink, PCI, network. */
enum { HW_NVLINK, HW_PCI, HW_NET };
static const double ring_hw_lat_us[3][COLL_PROTO_COUNT_] = {
	{0.0, 0.47, 1.9, 3.4}, {0.0, 1.0, 2.5, 5.7}, {0.0, 2.7, 4.0, 9.6}};
/* NCCL tuning.cc: LL moves 8-byte lines holding 4 data bytes plus flags and
 * is modelled at 1/4 of the bus bandwidth for all-reduce or across nodes,
 * 1/3 otherwise; LL128 at 0.92 (120 of 128 bytes), 0.7 with one GPU per
 * node; Simple at full bandwidth. */
#define LL_FACTOR_AR 0.25
#define LL_FACTOR_OTHER (1.0 / 3.0)
#define LL128_FACTOR 0.92
#define LL128_FACTOR_PPN1 0.7
/* NCCL tuning.cc: multi-node Simple ring all-reduce latency x1.9 once the
 * message reaches nRanks/16 x 64 KiB ("plateau effect of ring"). */
#define RING_PLATEAU 1.9

#define MAX_ROUTE 64

struct pending {
	uint32_t left;
	uint32_t next_free;
	ts_event_fn done;
	void *ctx;
	uint64_t arg;
};

struct ts_coll {
	struct ts_net *net;
	struct pending *pend;
	size_t npend, cappend;
	uint32_t free_pend;
	double *acc;          /* per fluid resource: coefficient being built */
	size_t capacc;
	uint32_t *touched;
	size_t ntouched, captouched;
	struct fluid_use *uses;  /* all channels' uses, back to back */
	size_t capuses;
	uint32_t *chan_off;      /* channel c's uses: [chan_off[c], chan_off[c+1]) */
	size_t capchan;
	uint32_t *order;         /* one channel's ring order */
	size_t caporder;
	uint32_t *nics;          /* distinct NICs of the first node's ranks */
	size_t capnics;
	uint32_t *seen_gpu, *seen_node; /* validation stamps */
	size_t capseen_gpu, capseen_node;
	uint32_t epoch;
	struct fluid_use *scaled;        /* one channel's uses scaled by the protocol */
	size_t capscaled;
	/* the structure of the last group planned (uses, chan_off, and these),
	 * reused while the next collective has the same op, ranks and mult:
	 * the buckets of one iteration all reduce over one group */
	bool have_last;
	enum coll_op last_op;
	uint32_t last_mult, last_n;
	uint64_t last_hash;
	uint32_t *last_ranks;
	size_t caplast;
	uint32_t last_channels, last_nodes;
	bool last_pci;
	double last_rho;
};

#define NONE UINT32_MAX

static const char *const op_names[COLL_OP_COUNT_] = {
	"all_reduce", "all_gather", "reduce_scatter", "broadcast"};
static const char *const proto_names[COLL_PROTO_COUNT_] = {"auto", "LL", "LL128", "Simple"};
static const char *const algo_names[COLL_ALGO_COUNT_] = {"auto", "ring"};

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

int coll_op_parse(const char *s) { return parse_name(s, op_names, COLL_OP_COUNT_); }
const char *coll_proto_name(int p)
{
	return p >= 0 && p < COLL_PROTO_COUNT_ ? proto_names[p] : "?";
}
int coll_proto_parse(const char *s) { return parse_name(s, proto_names, COLL_PROTO_COUNT_); }
const char *coll_algo_name(enum coll_algo a)
{
	return (unsigned)a < COLL_ALGO_COUNT_ ? algo_names[a] : "?";
}
int coll_algo_parse(const char *s) { return parse_name(s, algo_names, COLL_ALGO_COUNT_); }

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
		return (dn - 1.0) / dn;
	default:
		return 1.0;
	}
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
	ts_free(cc->uses, cc->capuses * sizeof *cc->uses);
	ts_free(cc->chan_off, cc->capchan * sizeof *cc->chan_off);
	ts_free(cc->order, cc->caporder * sizeof *cc->order);
	ts_free(cc->nics, cc->capnics * sizeof *cc->nics);
	ts_free(cc->seen_gpu, cc->capseen_gpu * sizeof *cc->seen_gpu);
	ts_free(cc->seen_node, cc->capseen_node * sizeof *cc->seen_node);
	ts_free(cc->scaled, cc->capscaled * sizeof *cc->scaled);
	ts_free(cc->last_ranks, cc->caplast * sizeof *cc->last_ranks);
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
		return ts_error_set(err, TS_EUNSUPPORTED, NULL, 0, "algo",
				    "found algorithm %d, expected auto or ring", s->algo);
	if (s->mult == 0 || (net_mode(cc->net) == NET_FULL && s->mult != 1))
		return ts_error_set(err, TS_EINVALID, NULL, 0, "mult",
				    "found %u, expected 1 in full mode and >= 1 in class mode",
				    s->mult);
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
					    "node-local ranks to be contiguous", nd);
		cc->seen_node[nd] = ep;
	}
	return 0;
}

static int hops(const struct hw_cluster *c, uint32_t a, uint32_t b)
{
	uint32_t r[MAX_ROUTE];
	size_t n = 0;
	if (hw_cluster_route(c, a, b, NONE, r, MAX_ROUTE, &n))
		return 1 << 20;
	return (int)n;
}

/* Ring order of channel `ch` into cc->order: node blocks in the given
 * order; inside a block that crosses nodes, start at the GPU closest to the
 * channel's NIC (other than the exit GPU) and end at the GPU attached to it. */
static void channel_order(struct ts_coll *cc, const struct coll_spec *s, uint32_t nodes,
			  uint32_t nic)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	uint32_t n = s->nranks;
	if (nodes == 1) {
		memcpy(cc->order, s->ranks, n * sizeof *cc->order);
		return;
	}
	uint32_t out = 0;
	for (uint32_t b = 0; b < n;) {
		uint32_t e = b;
		while (e < n && node_of(c, s->ranks[e]) == node_of(c, s->ranks[b]))
			e++;
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
		cc->order[out++] = s->ranks[entry_i];
		for (uint32_t k = 1; k < len; k++) {
			uint32_t i = b + (entry_i - b + k) % len;
			if (i != exit_i)
				cc->order[out++] = s->ranks[i];
		}
		if (exit_i != entry_i)
			cc->order[out++] = s->ranks[exit_i];
		b = e;
	}
}

static int reserve(struct ts_coll *cc, const struct coll_spec *s, uint32_t maxch)
{
	size_t nres = fluid_resource_count(net_fluid(cc->net));
	if (ts_grow((void **)&cc->acc, &cc->capacc, nres, sizeof *cc->acc) ||
	    ts_grow((void **)&cc->touched, &cc->captouched, nres, sizeof *cc->touched) ||
	    ts_grow((void **)&cc->order, &cc->caporder, s->nranks, sizeof *cc->order) ||
	    ts_grow((void **)&cc->chan_off, &cc->capchan, maxch + 1, sizeof *cc->chan_off) ||
	    ts_grow((void **)&cc->nics, &cc->capnics, maxch, sizeof *cc->nics))
		return TS_ENOMEM;
	return 0;
}

/* Build every channel's uses into cc->uses (coefficients per byte of the
 * channel's progress, before protocol scaling) and fill the plan's
 * structural part. */
static int build(struct ts_coll *cc, const struct coll_spec *s, struct coll_plan *p,
		 bool *intra_pci, struct ts_error *err)
{
	const struct hw_cluster *c = net_cluster(cc->net);
	uint32_t n = s->nranks;
	uint32_t nodes = 1;
	for (uint32_t i = 1; i < n; i++)
		if (node_of(c, s->ranks[i]) != node_of(c, s->ranks[i - 1]))
			nodes++;
	p->nodes = nodes;
	uint32_t nnic = hw_cluster_nics_per_node(c);
	if (reserve(cc, s, nnic + 1))
		return TS_ENOMEM;
	uint32_t nch = 1;
	cc->nics[0] = NONE;
	if (nodes > 1) {
		nch = 0;
		uint32_t node0 = node_of(c, s->ranks[0]);
		for (uint32_t i = 0; i < n && node_of(c, s->ranks[i]) == node0; i++) {
			uint32_t nic = hw_cluster_gpu_nic(c, s->ranks[i]);
			bool seen = false;
			for (uint32_t k = 0; k < nch; k++)
				seen |= cc->nics[k] == nic;
			if (!seen && nch < nnic + 1)
				cc->nics[nch++] = nic;
		}
		if (nch == 0)
			return ts_error_set(err, TS_EINVALID, NULL, 0, "cluster",
					    "found no NIC for a ring across %u nodes, expected "
					    "at least one NIC per node", nodes);
	}
	p->channels = n > 1 ? nch : 0;
	*intra_pci = false;
	double factor = coll_bus_factor(s->op, n);
	size_t nuses = 0;
	uint32_t home = node_of(c, s->ranks[0]);
	bool class_mode = net_mode(cc->net) == NET_CLASS;
	for (uint32_t ch = 0; ch < p->channels; ch++) {
		cc->chan_off[ch] = (uint32_t)nuses;
		channel_order(cc, s, nodes, cc->nics[ch]);
		cc->ntouched = 0;
		uint32_t nedges = s->op == COLL_BROADCAST ? n - 1 : n;
		for (uint32_t i = 0; i < nedges; i++) {
			uint32_t a = cc->order[i], b = cc->order[(i + 1) % n];
			bool cross = node_of(c, a) != node_of(c, b);
			if (class_mode && node_of(c, a) != home)
				continue;
			uint32_t route[MAX_ROUTE];
			size_t len = 0;
			int rc = hw_cluster_route(c, hw_cluster_gpu(c, a), hw_cluster_gpu(c, b),
						  cross ? cc->nics[ch] : NONE, route, MAX_ROUTE, &len);
			if (rc)
				return ts_error_set(err, TS_EINVALID, NULL, 0, "cluster",
						    "found no route from GPU %u to GPU %u, expected "
						    "a connected cluster", a, b);
			for (size_t k = 0; k < len; k++) {
				const struct hw_link *lk = hw_cluster_link(c, route[k]);
				if (!cross) {
					enum hw_dev_kind kd = hw_cluster_device(c, lk->dst)->kind;
					if (kd == HW_DEV_PCIE_SWITCH || kd == HW_DEV_CPU)
						*intra_pci = true;
				}
				uint32_t r = net_link_res(cc->net, route[k]);
				if (cc->acc[r] == 0.0)
					cc->touched[cc->ntouched++] = r;
				cc->acc[r] += factor;
			}
		}
		if (ts_grow((void **)&cc->uses, &cc->capuses, nuses + cc->ntouched,
			    sizeof *cc->uses))
			return TS_ENOMEM;
		for (size_t t = 0; t < cc->ntouched; t++) {
			uint32_t r = cc->touched[t];
			cc->uses[nuses].res = r;
			cc->uses[nuses].coeff = cc->acc[r];
			cc->acc[r] = 0.0;
			nuses++;
		}
	}
	cc->chan_off[p->channels] = (uint32_t)nuses;
	return 0;
}

static double proto_factor(const struct coll_spec *s, int proto, uint32_t nodes, uint32_t n)
{
	switch (proto) {
	case COLL_PROTO_LL:
		return (nodes > 1 || s->op == COLL_ALL_REDUCE) ? LL_FACTOR_AR : LL_FACTOR_OTHER;
	case COLL_PROTO_LL128:
		return n / nodes < 2 ? LL128_FACTOR_PPN1 : LL128_FACTOR;
	default:
		return 1.0;
	}
}

static double proto_latency_s(const struct coll_spec *s, int proto, uint32_t nodes,
			      bool intra_pci)
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
	double inter = ring_hw_lat_us[HW_NET][proto];
	double lat = ring_base_lat_us[proto];
	if (s->op == COLL_BROADCAST)
		lat += nsteps * ring_hw_lat_us[nodes > 1 ? HW_NET : intra_pci ? HW_PCI : HW_NVLINK][proto];
	else
		lat += (nsteps - ninter) * intra + ninter * inter;
	if (proto == COLL_PROTO_SIMPLE && nodes > 1 && s->op == COLL_ALL_REDUCE &&
	    s->bytes >= n / 16.0 * 65536.0)
		lat *= RING_PLATEAU;
	return lat * 1e-6;
}

static uint64_t ranks_hash(const uint32_t *r, uint32_t n)
{
	uint64_t h = UINT64_C(14695981039346656037);
	for (uint32_t i = 0; i < n; i++) {
		h ^= r[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

static bool same_group(const struct ts_coll *cc, const struct coll_spec *s, uint64_t h)
{
	return cc->have_last && cc->last_op == s->op && cc->last_mult == s->mult &&
	       cc->last_n == s->nranks && cc->last_hash == h &&
	       memcmp(cc->last_ranks, s->ranks, s->nranks * sizeof *s->ranks) == 0;
}

static int plan_internal(struct ts_coll *cc, const struct coll_spec *s, struct coll_plan *p,
			 struct ts_error *err)
{
	memset(p, 0, sizeof *p);
	int rc = validate(cc, s, err);
	if (rc)
		return rc;
	p->algo = COLL_ALGO_RING;
	p->proto = COLL_PROTO_SIMPLE;
	if (s->nranks == 1) {
		p->nodes = 1;
		return validate_ranks(cc, s, err);
	}
	uint64_t h = ranks_hash(s->ranks, s->nranks);
	if (!same_group(cc, s, h)) {
		cc->have_last = false;
		if ((rc = validate_ranks(cc, s, err)))
			return rc;
		bool pci;
		if ((rc = build(cc, s, p, &pci, err)))
			return rc;
		/* Bottleneck estimate: per resource member, the load of all
		 * channels at a common channel rate rho; algbw = channels x rho. */
		struct ts_fluid *f = net_fluid(cc->net);
		cc->ntouched = 0;
		for (uint32_t u = 0; u < cc->chan_off[p->channels]; u++) {
			uint32_t r = cc->uses[u].res;
			if (cc->acc[r] == 0.0)
				cc->touched[cc->ntouched++] = r;
			cc->acc[r] += cc->uses[u].coeff * ((double)s->mult /
							   (double)fluid_resource_members(f, r));
		}
		double rho = HUGE_VAL;
		for (size_t t = 0; t < cc->ntouched; t++) {
			uint32_t r = cc->touched[t];
			double lim = fluid_resource_cap(f, r) / cc->acc[r];
			if (lim < rho)
				rho = lim;
			cc->acc[r] = 0.0;
		}
		if (ts_grow((void **)&cc->last_ranks, &cc->caplast, s->nranks,
			    sizeof *cc->last_ranks))
			return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		memcpy(cc->last_ranks, s->ranks, s->nranks * sizeof *s->ranks);
		cc->last_op = s->op;
		cc->last_mult = s->mult;
		cc->last_n = s->nranks;
		cc->last_hash = h;
		cc->last_channels = p->channels;
		cc->last_nodes = p->nodes;
		cc->last_pci = pci;
		cc->last_rho = rho;
		cc->have_last = true;
	}
	p->channels = cc->last_channels;
	p->nodes = cc->last_nodes;
	bool intra_pci = cc->last_pci;
	double rho = cc->last_rho;
	double factor = coll_bus_factor(s->op, s->nranks);
	double algbw = p->channels * rho;
	p->bus_Bps = algbw * factor;
	double best = HUGE_VAL;
	for (int pr = COLL_PROTO_LL; pr < COLL_PROTO_COUNT_; pr++) {
		if (s->proto != COLL_PROTO_AUTO && pr != s->proto)
			continue;
		/* NCCL enables LL128 by default only where the ring stays on NVLink */
		if (s->proto == COLL_PROTO_AUTO && pr == COLL_PROTO_LL128 && intra_pci)
			continue;
		double lat = proto_latency_s(s, pr, p->nodes, intra_pci);
		double t = lat + s->bytes / (algbw * proto_factor(s, pr, p->nodes, s->nranks));
		if (t < best) {
			best = t;
			p->proto = pr;
			p->latency_s = lat;
			p->est_s = t;
		}
	}
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
	struct pending *pd = &cc->pend[arg];
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

int coll_start(struct ts_coll *cc, const struct coll_spec *s, struct coll_plan *plan,
	       struct ts_error *err)
{
	struct coll_plan local;
	struct coll_plan *p = plan ? plan : &local;
	int rc = plan_internal(cc, s, p, err);
	if (rc)
		return rc;
	uint32_t id;
	if (alloc_pending(cc, &id))
		return TS_ENOMEM;
	struct pending *pd = &cc->pend[id];
	pd->done = s->done;
	pd->ctx = s->ctx;
	pd->arg = s->arg;
	struct ts_fluid *f = net_fluid(cc->net);
	if (p->channels == 0) {
		/* one rank: nothing moves; finish after no time */
		pd->left = 1;
		struct fluid_spec fs = {.work = 0.0, .mult = s->mult, .weight = 1.0, .bound = 1.0,
					.done = channel_done, .ctx = cc, .arg = id, .tag = s->tag};
		uint32_t act;
		return fluid_start(f, &fs, &act);
	}
	pd->left = p->channels;
	double pf = proto_factor(s, p->proto, p->nodes, s->nranks);
	ts_time lat = ts_time_from_s(p->latency_s);
	if (ts_grow((void **)&cc->scaled, &cc->capscaled, cc->chan_off[p->channels] + 1,
		    sizeof *cc->scaled))
		return TS_ENOMEM;
	for (uint32_t ch = 0; ch < p->channels; ch++) {
		uint32_t lo = cc->chan_off[ch], hi = cc->chan_off[ch + 1];
		for (uint32_t u = lo; u < hi; u++) {
			cc->scaled[u - lo].res = cc->uses[u].res;
			cc->scaled[u - lo].coeff = cc->uses[u].coeff / pf;
		}
		struct fluid_spec fs = {.work = s->bytes / p->channels, .mult = s->mult,
					.weight = 1.0, .latency = lat, .uses = cc->scaled,
					.nuses = hi - lo, .done = channel_done, .ctx = cc,
					.arg = id, .tag = s->tag};
		if (hi == lo) { /* class mode edge case: no edge leaves the home node */
			fs.bound = 1e30;
		}
		uint32_t act;
		rc = fluid_start(f, &fs, &act);
		if (rc)
			return rc;
	}
	return 0;
}
