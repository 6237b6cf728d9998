/* The input pipeline of a data-parallel job.
 *
 * Per GPU and micro-batch of B samples, three stages, each a fluid task on
 * the resources it uses at once (DESIGN.md, "Data loading"):
 * - read: B x bytes_per_sample bytes from the storage. Local drives are a
 *   per-node resource of devices x read bandwidth, with a second per-node
 *   resource of devices x IOPS on which a byte costs 1/request bytes (one
 *   request per sample file, or 1 MiB requests for packed files), so small
 *   files on a disk run at IOPS x file size. A rotating drive (seek and rpm
 *   given) is instead one resource of drive-seconds: a request holds a drive
 *   for its positioning (average seek plus half a revolution) and then for
 *   its bytes at the sequential rate, the two in series as one head does
 *   them (Ruemmler & Wilkes 1994, "An introduction to disk drive modeling",
 *   IEEE Computer 27(3)), not the lesser of two limits. A shared file system is one
 *   aggregate resource for all nodes (bandwidth and IOPS), a per-node cap
 *   (`client`), and the links from the fabric into the node's NIC and on to
 *   its CPU, the same link resources the gradient collectives use, so reads
 *   and all-reduces share them max-min fairly. A dataset that fits in
 *   DATA_PAGE_CACHE_FRACTION of the node's RAM is read from the page cache
 *   (an epoch after the first). The request latency delays the stage.
 * - decode: B x decode_per_sample core-seconds on the node's CPU pool
 *   (cores minus one per GPU for the training processes), at most
 *   workers_per_gpu cores per GPU: each worker decodes whole batches on one
 *   core, so W workers give W cores while cores last and share them after.
 * - h2d: B x device bytes over the PCIe route from the CPU to the GPU (the
 *   links a NIC on the same switch also uses); pageable memory is bound to
 *   DATA_PAGEABLE_FRACTION of the route's slowest link.
 * In class mode a rank class stands for every GPU: the node resources are
 * classes of `nodes` members and a link of local GPU j enters with
 * coefficient 1/gpus_per_node, so that per member the load is the sum over
 * the node's GPUs (net.h, fluid.h). In full mode each GPU uses its own
 * node's resources and links with coefficient 1.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "data/loader.h"

#define MAX_USES 24  /* resources one stage of one class uses */
#define MAX_ROUTE 64 /* links of one route */

static const char *const stage_labels[DATA_STAGE_COUNT_] = {"data read", "data decode", "data h2d"};

struct data_loader {
	struct data_plan plan;
	struct dp_data job;
	struct dp_data_stage *stages; /* ncls x nstages */
	struct fluid_use *uses;	      /* ncls x nstages x MAX_USES */
	enum data_stage kinds[DATA_STAGE_COUNT_];
	uint32_t ncls, nstages;
	uint32_t gpn; /* GPUs per node */
};

/* Resources of one kind for every node: one class of `nodes` members (class
 * mode) or one resource per node. */
struct noderes {
	uint32_t first; /* id of node 0's resource (full mode: node i is first + i) */
	bool per_node;	/* full mode */
	bool present;
};

static int node_res(struct ts_fluid *f, double cap, uint32_t nodes, bool full, struct noderes *out)
{
	out->per_node = full;
	out->present = true;
	if (!full)
		return fluid_resource_add(f, cap, nodes, &out->first);
	for (uint32_t i = 0; i < nodes; i++) {
		uint32_t id;
		int rc = fluid_resource_add(f, cap, 1, &id);
		if (rc)
			return rc;
		if (i == 0)
			out->first = id;
	}
	return 0;
}

static uint32_t node_res_id(const struct noderes *r, uint32_t node)
{
	return r->per_node ? r->first + node : r->first;
}

/* Add coeff on res to a use list, merging a resource already there. */
static void add_use(struct fluid_use *u, uint32_t *n, uint32_t res, double coeff)
{
	for (uint32_t i = 0; i < *n; i++)
		if (u[i].res == res) {
			u[i].coeff += coeff;
			return;
		}
	if (*n < MAX_USES)
		u[(*n)++] = (struct fluid_use){res, coeff};
}

/* The CPU socket of `node` closest to device dev (fewest route hops), and
 * the route cpu->dev (to_dev) or dev->cpu into links/n. Returns 0 or -1. */
static int cpu_route(const struct hw_cluster *c, uint32_t node, uint32_t dev, bool to_dev,
		     uint32_t *links, size_t *n)
{
	size_t best = SIZE_MAX;
	uint32_t tmp[MAX_ROUTE];
	for (uint32_t d = 0; d < hw_cluster_ndevices(c); d++) {
		const struct hw_device *x = hw_cluster_device(c, d);
		size_t k;
		if (x->node != node || x->kind != HW_DEV_CPU)
			continue;
		int rc = to_dev ? hw_cluster_route(c, d, dev, UINT32_MAX, tmp, MAX_ROUTE, &k)
				: hw_cluster_route(c, dev, d, UINT32_MAX, tmp, MAX_ROUTE, &k);
		if (rc == 0 && k < best) {
			best = k;
			memcpy(links, tmp, k * sizeof *tmp);
		}
	}
	if (best == SIZE_MAX)
		return -1;
	*n = best;
	return 0;
}

/* The link from the fabric into NIC device `nic` (UINT32_MAX if none). */
static uint32_t fabric_downlink(const struct hw_cluster *c, uint32_t nic)
{
	for (uint32_t l = 0; l < hw_cluster_nlinks(c); l++) {
		const struct hw_link *k = hw_cluster_link(c, l);
		if (k->dst == nic && hw_cluster_device(c, k->src)->node == HW_FABRIC)
			return l;
	}
	return UINT32_MAX;
}

static void make_plan(const struct ts_scenario *sc, const struct data_input *in,
		      struct data_plan *p)
{
	p->dataset = in->dataset;
	p->active = p->dataset.layout != DATA_LAYOUT_NONE;
	double u = p->dataset.per_token ? (double)sc->training.seq_len : 1.0;
	p->samples_per_batch = (double)sc->training.micro_batch;
	p->read_bytes = p->samples_per_batch * u * p->dataset.disk_bytes;
	p->decode_core_s = p->samples_per_batch * u * p->dataset.decode_core_s;
	p->h2d_bytes = p->samples_per_batch * u * p->dataset.device_bytes;
	p->dataset_bytes = p->dataset.samples * p->dataset.disk_bytes;
	p->workers = sc->data.workers_per_gpu;
	p->pinned = sc->data.pinned;
	p->queue = sc->data.prefetch ? sc->data.prefetch * p->workers : 1u;
	uint32_t cores = hw_cluster_cpu_cores(sc->cluster), gpn = sc->gpus_per_node;
	p->cores = cores == 0 ? 0 : cores > gpn ? cores - gpn : 1u;
	p->cache_bytes = DATA_PAGE_CACHE_FRACTION * hw_cluster_host_memory(sc->cluster);
	const struct data_storage *st = &in->storage;
	snprintf(p->storage_name, sizeof p->storage_name, "%s", st->name);
	p->storage = *st;
	if (in->has_page_cache && st->kind != DATA_STORAGE_MEMORY && p->cache_bytes > 0.0 &&
	    p->dataset_bytes <= p->cache_bytes) {
		p->cached = true;
		p->storage = in->page_cache;
	}
}

/* The uses of the read stage of the GPUs `g0 .. g0+ng-1` (global ranks),
 * each with weight w. */
static void read_uses(const struct data_loader *l, const struct ts_scenario *sc,
		      const struct ts_net *net, const struct noderes *bw,
		      const struct noderes *iops, const struct noderes *client, uint32_t agg_bw,
		      uint32_t agg_iops, uint32_t g0, uint32_t ng, double w, double nw,
		      struct fluid_use *u, uint32_t *n)
{
	const struct data_plan *p = &l->plan;
	const struct hw_cluster *c = sc->cluster;
	uint32_t gpn = sc->gpus_per_node;
	double req = p->dataset.layout == DATA_LAYOUT_PACKED
			 ? DATA_PACKED_REQUEST_BYTES
			 : fmin(p->dataset.disk_bytes, DATA_PACKED_REQUEST_BYTES);
	if (!(req > 0.0))
		req = DATA_PACKED_REQUEST_BYTES;
	for (uint32_t k = 0; k < ng; k++) {
		uint32_t g = g0 + k, node = g / gpn;
		if (p->storage.kind == DATA_STORAGE_SHARED) {
			add_use(u, n, agg_bw, w);
			if (agg_iops != UINT32_MAX)
				add_use(u, n, agg_iops, w / req);
			if (client->present)
				add_use(u, n, node_res_id(client, node), w * nw);
			uint32_t nic = hw_cluster_gpu_nic(c, g);
			uint32_t ndev =
			    nic == UINT32_MAX ? UINT32_MAX : hw_cluster_nic(c, node, nic);
			if (ndev == UINT32_MAX)
				continue;
			uint32_t down = fabric_downlink(c, ndev), links[MAX_ROUTE];
			size_t nl = 0;
			if (down != UINT32_MAX)
				add_use(u, n, net_link_res(net, down), w);
			if (!cpu_route(c, node, ndev, false, links, &nl))
				for (size_t i = 0; i < nl; i++)
					add_use(u, n, net_link_res(net, links[i]), w);
		} else if (p->storage.position_s > 0.0) {
			/* a request holds one drive for its positioning, then its
			 * bytes at the sequential rate (Ruemmler & Wilkes 1994) */
			add_use(u, n, node_res_id(bw, node),
				w * nw * (1.0 / p->storage.read_Bps + p->storage.position_s / req));
		} else {
			add_use(u, n, node_res_id(bw, node), w * nw);
			if (iops->present)
				add_use(u, n, node_res_id(iops, node), w * nw / req);
		}
	}
}

int data_loader_create(const struct ts_scenario *sc, const struct data_input *in,
		       const struct ts_net *net, struct ts_fluid *f, const struct data_feed *feeds,
		       uint32_t nfeeds, bool class_mode, struct data_loader **out,
		       struct ts_error *err)
{
	*out = NULL;
	struct data_loader *l = ts_calloc(1, sizeof *l);
	if (!l)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	make_plan(sc, in, &l->plan);
	struct data_plan *p = &l->plan;
	*out = l;
	if (!p->active)
		return 0;
	/* stages present */
	if (p->read_bytes > 0.0)
		l->kinds[l->nstages++] = DATA_READ;
	if (p->decode_core_s > 0.0)
		l->kinds[l->nstages++] = DATA_DECODE;
	if (p->h2d_bytes > 0.0)
		l->kinds[l->nstages++] = DATA_H2D;
	if (l->nstages == 0) {
		p->active = false;
		return 0;
	}
	const struct hw_cluster *c = sc->cluster;
	uint32_t nodes = sc->nodes, gpn = sc->gpus_per_node;
	l->gpn = gpn;
	bool full = !class_mode;
	l->ncls = nfeeds;
	l->stages = ts_calloc((size_t)l->ncls * l->nstages, sizeof *l->stages);
	l->uses = ts_calloc((size_t)l->ncls * l->nstages * MAX_USES, sizeof *l->uses);
	if (!l->stages || !l->uses)
		goto nomem;

	/* resources */
	struct noderes bw = {0}, iops = {0}, client = {0}, cpu = {0};
	uint32_t agg_bw = UINT32_MAX, agg_iops = UINT32_MAX;
	const struct data_storage *st = &p->storage;
	if (l->plan.read_bytes > 0.0) {
		if (st->kind == DATA_STORAGE_SHARED) {
			if (fluid_resource_add(f, st->read_Bps, 1, &agg_bw) ||
			    (st->iops > 0.0 && fluid_resource_add(f, st->iops, 1, &agg_iops)) ||
			    (st->client_Bps > 0.0 &&
			     node_res(f, st->client_Bps, nodes, full, &client)))
				goto nomem;
		} else if (st->position_s > 0.0) {
			/* rotating drives: one resource of drive-seconds per second */
			if (node_res(f, (double)st->devices, nodes, full, &bw))
				goto nomem;
		} else {
			if (node_res(f, st->read_Bps * st->devices, nodes, full, &bw) ||
			    (st->iops > 0.0 &&
			     node_res(f, st->iops * st->devices, nodes, full, &iops)))
				goto nomem;
		}
	}
	if (p->cores > 0 && p->decode_core_s > 0.0 &&
	    node_res(f, (double)p->cores, nodes, full, &cpu))
		goto nomem;

	for (uint32_t k = 0; k < l->ncls; k++) {
		const struct data_feed *fd = &feeds[k];
		uint32_t g0 = fd->gpu0, ng = fd->ngpus ? fd->ngpus : 1;
		double w = 1.0 / ng, nw = fd->node_weight, sh = fd->share;
		for (uint32_t s = 0; s < l->nstages; s++) {
			size_t at = (size_t)k * l->nstages + s;
			struct dp_data_stage *x = &l->stages[at];
			struct fluid_use *u = l->uses + at * MAX_USES;
			uint32_t n = 0;
			x->label = stage_labels[l->kinds[s]];
			x->uses = u;
			switch (l->kinds[s]) {
			case DATA_READ:
				x->work = p->read_bytes * sh;
				x->latency = ts_time_from_s(st->lat_s);
				read_uses(l, sc, net, &bw, &iops, &client, agg_bw, agg_iops, g0, ng,
					  w, nw, u, &n);
				break;
			case DATA_DECODE:
				x->work = p->decode_core_s * sh;
				x->bound = (double)p->workers;
				if (cpu.present)
					for (uint32_t j = 0; j < ng; j++)
						add_use(u, &n, node_res_id(&cpu, (g0 + j) / gpn),
							w * nw);
				break;
			default: {
				double slow = INFINITY;
				x->work = p->h2d_bytes * sh;
				for (uint32_t j = 0; j < ng; j++) {
					uint32_t g = g0 + j, links[MAX_ROUTE];
					size_t nl = 0;
					if (cpu_route(c, g / gpn, hw_cluster_gpu(c, g), true, links,
						      &nl))
						continue;
					for (size_t i = 0; i < nl; i++) {
						add_use(u, &n, net_link_res(net, links[i]), w);
						slow = fmin(slow,
							    hw_cluster_link(c, links[i])->bw_Bps);
					}
				}
				if (!p->pinned && isfinite(slow))
					x->bound = DATA_PAGEABLE_FRACTION * slow;
				if (n == 0 && x->bound <= 0.0)
					x->bound = isfinite(slow) ? slow : 1e12;
				break;
			}
			}
			x->nuses = n;
		}
	}
	l->job = (struct dp_data){.stages = l->stages, .nstages = l->nstages, .queue = p->queue};
	return 0;
nomem:
	data_loader_destroy(l);
	*out = NULL;
	return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
}

void data_loader_destroy(struct data_loader *l)
{
	if (!l)
		return;
	ts_free(l->stages, (size_t)l->ncls * l->nstages * sizeof *l->stages);
	ts_free(l->uses, (size_t)l->ncls * l->nstages * MAX_USES * sizeof *l->uses);
	ts_free(l, sizeof *l);
}

const struct dp_data *data_loader_job(const struct data_loader *l)
{
	return l && l->plan.active ? &l->job : NULL;
}

const struct data_plan *data_loader_plan(const struct data_loader *l)
{
	return &l->plan;
}

void data_loader_busy(const struct data_loader *l, const struct ts_graph *g,
		      const uint32_t *streams, ts_time t0, ts_time t1,
		      double busy[DATA_STAGE_COUNT_])
{
	for (int s = 0; s < DATA_STAGE_COUNT_; s++)
		busy[s] = 0.0;
	if (!data_loader_job(l) || t1 <= t0)
		return;
	for (uint32_t s = 0; s < l->nstages; s++) {
		struct graph_breakdown bd;
		graph_breakdown(g, streams[s], t0, t1, &bd);
		busy[l->kinds[s]] = (double)bd.busy[GRAPH_DATA] / (double)(t1 - t0);
	}
}

bool data_loader_bound(double data_stall_s, double iteration_s)
{
	return iteration_s > 0.0 && data_stall_s > DATA_LOADER_BOUND_FRACTION * iteration_s;
}

void data_loader_explain(const struct data_loader *l, const double busy[DATA_STAGE_COUNT_],
			 double data_stall_s, double iteration_s, char *buf, size_t n)
{
	const struct data_plan *p = &l->plan;
	int s = DATA_READ;
	for (int i = 1; i < DATA_STAGE_COUNT_; i++)
		if (busy[i] > busy[s])
			s = i;
	double pct = iteration_s > 0.0 ? 100.0 * data_stall_s / iteration_s : 0.0;
	const char *fix;
	char fb[120];
	if (s == DATA_DECODE) {
		uint32_t gpn = l->ncls ? l->gpn : 1;
		if (p->cores == 0)
			snprintf(fb, sizeof fb, "more workers_per_gpu (now %u)", p->workers);
		else if ((uint64_t)p->workers * gpn < p->cores)
			snprintf(fb, sizeof fb,
				 "workers_per_gpu up to %u (now %u; %u cores for workers)",
				 p->cores / gpn, p->workers, p->cores);
		else
			snprintf(fb, sizeof fb,
				 "more CPU cores or GPU decoding; %u workers use them", p->workers);
		fix = fb;
	} else if (s == DATA_READ) {
		snprintf(fb, sizeof fb, "faster storage than %s%s", p->storage.name,
			 p->cached || p->cache_bytes <= 0.0 ? "" : ", or RAM to cache the dataset");
		fix = fb;
	} else {
		fix = p->pinned ? "a faster PCIe path, or smaller batches on the wire"
				: "pinned memory (data.pinned = true)";
	}
	snprintf(buf, n, "data loading: GPUs wait %.0f%% of the iteration on the %s stage; fix: %s",
		 pct, stage_labels[s] + 5, fix);
}
