/* The schedule of every training job (pure data parallelism is one stage
 * of one class per GPU, or one class of all of them in class mode).
 *
 * Per rank class (sim/par/layout.h): a host stream issuing kernel launches,
 * a compute stream, a memory pool, a GPU resource, a stream for its DP
 * communicator and one for ZeRO-3 parameter gathers. Each pipeline stage
 * runs its schedule (pipe_stage_order) of forward and backward passes of
 * (micro-batch, chunk); each pass is a chain of segments (a unit, or at
 * stage granularity the whole chunk cut where a gradient bucket completes),
 * each a compute task followed by its tensor-parallel collectives.
 *
 * Every class of a stage runs the same passes, so the builder emits a
 * segment for all of them and then each collective once per group (issued
 * by the group's first class, waiting on every member class, and awaited by
 * every member's next task). In class mode a stage is one class and a group
 * one collective with a multiplicity; in full mode the same loops run over
 * ranks. Pipeline transfers are added once all passes exist: a one-way
 * transfer (a two-rank broadcast, which NCCL runs as a send) from the end
 * of a pass to the first task of the next chunk's pass; the receiving
 * compute stream's wait for it is charged to GRAPH_P2P, which is what
 * bubble_s reports.
 *
 * ZeRO (Rajbhandari et al. 2020): stage 1 reduce-scatters the gradients of
 * the last micro-batch and all-gathers the weights after the step, one
 * gather per gradient bucket in forward order; the next iteration's first
 * forward waits, at the first unit of each bucket, for that bucket's gather
 * only, so later buckets' gathers overlap earlier buckets' forwards. That is
 * Megatron-Core's distributed optimizer with overlap_param_gather
 * (megatron/core/optimizer/distrib_optimizer.py, r0.8: the first bucket's
 * all-gather is dispatched after the step, each further one from the
 * forward pre-hook of the bucket before it, which waits for its own; on one
 * NCCL stream they run back to back in that order, as here); stage 2 reduces
 * after every micro-batch (the gradients are sharded, DeepSpeed reduces
 * each micro-batch); stage 3 (FSDP full shard, Zhao et al. 2023) also
 * all-gathers a unit's weights before its forward and again before its
 * backward, one unit ahead (prefetch), the gathered weights taken from the
 * pool when the all-gather is issued (as the unit before starts) and given
 * back when the unit ends, so the prefetched unit is counted; without FSDP1's
 * rate limiter (pipe_job.gather_unlimited) every all-gather runs as soon as
 * the gather stream is free and takes its buffer then, so the units alive
 * at once follow from the all-gathers' time against the compute's.
 *
 * Offload (zero >= 1): the reduced gradient shard goes down over the GPU's
 * PCIe route, CPU Adam steps it on the host, the weight shard comes back
 * up; with NVMe the optimizer state is swapped in from and out to the
 * node's drives sub-group by sub-group around the CPU steps (pipe.h).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/cluster.h"
#include "par/pipe.h"

/* The groups collectives run over (Megatron-Core's process groups). */
enum pgk {
	PG_TP, /* tensor parallel */
	PG_CP, /* context parallel: the ring of K, V chunks */
	PG_DP, /* data x context parallel: gradients and ZeRO shards (the ranks
		* of every CP position hold the same weights, Megatron-Core
		* reduces over both) */
	PG_EP, /* expert parallel: ep consecutive DP ranks (EP inside DP) */
	PG_COUNT_
};

uint32_t dp_assign_buckets(const struct dp_unit *units, uint32_t n, double cap, double first,
			   uint32_t *bucket_of)
{
	uint32_t b = 0;
	double fill = 0.0;
	bool any = false;
	double limit = first > 0.0 ? first : cap;
	for (uint32_t i = n; i-- > 0;) {
		bucket_of[i] = b;
		if (units[i].grad_bytes <= 0.0)
			continue;
		any = true;
		fill += units[i].grad_bytes;
		if (cap > 0.0 && fill >= limit) {
			b++;
			fill = 0.0;
			limit = cap;
		}
	}
	if (!any)
		return 0;
	/* a bucket opened but never filled holds the earliest units */
	uint32_t nb = fill > 0.0 ? b + 1 : b;
	/* units after the last gradient-carrying one (toward the input) that
	 * were put in an empty trailing bucket belong to the last real one */
	for (uint32_t i = 0; i < n; i++)
		if (bucket_of[i] >= nb)
			bucket_of[i] = nb - 1;
	return nb;
}

uint32_t pipe_even_layers(uint32_t L, uint32_t chunks, uint32_t c)
{
	uint32_t base = L / chunks, extra = L % chunks;
	if (chunks == 1)
		return L;
	uint32_t mid = chunks - 2, to_mid = extra < mid ? extra : mid;
	extra -= to_mid;
	if (c == chunks - 1)
		return base + (extra >= 1 ? 1u : 0u);
	if (c == 0)
		return base + (extra >= 2 ? 1u : 0u);
	return base + (c - 1 < to_mid ? 1u : 0u);
}

int pipe_split(const struct dp_unit *units, uint32_t n, uint32_t chunks, const uint32_t *layers,
	       uint32_t *first)
{
	uint32_t maxl = 0;
	for (uint32_t i = 0; i < n; i++)
		if (units[i].layer > maxl)
			maxl = units[i].layer;
	uint32_t L = maxl >= 1 ? maxl - 1 : 0; /* the head is layer L + 1 */
	if (chunks == 0 || (chunks > 1 && !layers && L < chunks))
		return TS_EINVALID;
	if (chunks > 1 && layers) {
		uint64_t sum = 0;
		for (uint32_t c = 0; c < chunks; c++)
			sum += layers[c];
		if (sum != L)
			return TS_EINVALID;
	}
	first[0] = 0;
	uint32_t end = 0, i = 0;
	for (uint32_t c = 0; c + 1 < chunks; c++) {
		end += layers ? layers[c] : pipe_even_layers(L, chunks, c);
		while (i < n && units[i].layer <= end)
			i++;
		first[c + 1] = i;
	}
	first[chunks] = n;
	return 0;
}

/* One pass of a stage's schedule. */
struct pass {
	uint8_t bwd;
	uint32_t mb, chunk; /* chunk: local index 0..v-1 */
};

/* Most links between a GPU and its CPU socket. */
#define PIPE_MAX_ROUTE 16

struct pcls {
	uint32_t host, compute, pool, gpu, dpcomm, gather, tpcomm;
	uint32_t d2h, h2d;   /* offload copy streams (copy engines), each way */
	uint32_t nvr, nvw;   /* NVMe offload: swap-in and swap-out streams */
	uint32_t pending;    /* a collective the next compute task waits for */
	uint32_t red_last;   /* the last gradient reduction this class takes part in */
	uint32_t opt;	     /* this iteration's optimizer task */
	uint32_t prev_alloc; /* ZeRO-3: the last gathered-weights mark */
	uint32_t zlast;	     /* ZeRO-3 unlimited gathers: the last all-gather it takes part in */
	uint32_t zroot;	     /* ZeRO-3 unlimited gathers: the compute stream's mark at the
			      * start of the last forward pass */
	uint32_t aoff;	     /* activation offload: the copy to the host of the last
			      * offloaded layer, whose bytes (aoff_bytes) are freed
			      * at the end of the next layer's forward */
	uint32_t arel;	     /* activation offload: the reload of the layer whose
			      * backward comes next */
	double aoff_bytes;
	double params;			   /* weight elements of its stage */
	uint32_t data[DP_DATA_MAX_STAGES]; /* input-pipeline streams (first stage) */
	uint32_t batch;			   /* the last stage of the batch the next host launch
					    * takes (GRAPH_NONE when none waits) */
	/* Until a launch waits for a batch, the host thread only launches, one
	 * after the other from time 0: its launches end at times known now
	 * (hclock: when the last one ends, ns), and take no tasks. From then
	 * on (hdyn) they are tasks on the host stream. */
	ts_time hclock;
	bool hdyn;
};

struct pb {
	struct ts_graph *g;
	const struct pipe_job *j;
	struct pipe_built *out; /* what is built */
	const struct layout *lay;
	struct pcls *c;
	uint32_t ncls, p, v, V, m, niter;
	/* schedules per iteration (pipe_job.flushes, at least 1) */
	uint32_t flushes;
	uint32_t ndp;	 /* data x context parallel ranks holding one shard set */
	uint32_t *first; /* chunk unit offsets, V + 1 */
	uint32_t *scls;	 /* classes by stage: stage s at [s * per, (s + 1) * per) */
	uint32_t per;
	uint32_t *ids;	     /* [it][k][mb][j][4]: fwd first, fwd last, bwd first, bwd last */
	uint32_t *gate;	     /* [k][u]: ZeRO-1/2 weight gather of the bucket that unit u
			      * opens (in forward order), which the next first forward
			      * of u waits for; GRAPH_NONE elsewhere */
	uint32_t *ranks;     /* scratch, gpus entries */
	uint32_t *bucket_of; /* per unit, within its chunk */
	uint32_t *nbk;	     /* buckets per chunk */
	struct pass *order;  /* scratch, 2 m v */
	/* per class and group kind (class k, kind g at k * PG_COUNT_ + g): the
	 * groups it leads, their lowest first rank, their coll_spec mult */
	uint32_t *lead, *base, *gmult;
	uint32_t *stamp; /* per class: epoch it was last visited in */
	uint32_t epoch;
	/* per class and group kind as lead: pg_members' answer once found,
	 * mcnt[x] classes at mpool + moff[x] (moff UINT32_MAX: not yet) */
	uint32_t *moff, *mcnt, *mpool;
	size_t nmpool, capmpool;
	/* per class and group kind as lead: the ranks of its first group,
	 * rcnt[x] at rpool + roff[x] (roff UINT32_MAX: not yet) */
	uint32_t *roff, *rcnt, *rpool;
	size_t nrpool, caprpool;
	uint32_t *ringx; /* per class: the ring transfer of the last step */
	/* offload: per class the links GPU -> CPU (down) and CPU -> GPU (up),
	 * PIPE_MAX_ROUTE each, as fluid uses */
	struct fluid_use *route;
	uint32_t *nroute; /* per class: down, up counts */
	uint32_t *tmpv;	  /* scratch per class */
	uint32_t *tpx;	  /* per class: its overlapped TP collective of this segment */
	uint32_t *tpheld; /* per class: the last of this segment's TP collectives
			   * before its last unit's own (stage granularity), which
			   * a gradient reduction after the segment waits for */
	/* NVMe offload: class k's share of the drives of each group of alike
	 * nodes its members sit in, nvuse[nvoff[k] .. nvoff[k] + nvn[k]), with
	 * coefficient (its members in the group) / (its members); nvoff[k] is
	 * the members of the classes before k (room for one group each) */
	struct fluid_use *nvuse;
	uint32_t *nvoff, *nvn;
	struct fluid_use *nvtmp; /* scratch: one class's read and write uses */
	uint32_t nvmax;		 /* most groups of one class */
	double xbytes;		 /* scratch: bytes of the copy each_member starts */
	uint32_t *taken;	 /* per class, ring of the last `qlen` "batch ready" marks */
	uint32_t qlen;		 /* ring length: min(queue, batches) */
	struct graph_detail det; /* what the next task is, for traces */
	bool keep;		 /* the graph keeps details (a trace) */
	int rc;
};

static uint32_t *idp(struct pb *b, uint32_t it, uint32_t k, uint32_t mb, uint32_t jj)
{
	return b->ids + ((((size_t)it * b->ncls + k) * b->m + mb) * b->v + jj) * 4;
}

/* The passes of stage s in order; returns their number (2 m v). With f
 * flushes the m micro-batches run as f schedules of m / f each, one after
 * the other on every stage (warm-up, steady state, cool-down each), the
 * next one's first forward waiting only for the passes before it. */
static uint32_t stage_order(const struct pb *b, uint32_t s, struct pass *o)
{
	uint32_t p = b->p, v = b->v, nf = b->flushes, total = b->m / nf * v, w;
	if (b->j->sched == PIPE_GPIPE)
		w = total;
	else if (v == 1)
		w = p - s - 1;
	else
		w = (p - s - 1) * 2 + (v - 1) * p;
	if (w > total)
		w = total;
	uint32_t n = 0;
	for (uint32_t fl = 0, off = 0; fl < nf; fl++, off += b->m / nf) {
		uint32_t f = 0, bk = 0;
#define FWD(k) ((struct pass){0, off + ((k) / (p * v)) * p + (k) % p, ((k) / p) % v})
#define BWD(k) ((struct pass){1, off + ((k) / (p * v)) * p + (k) % p, v - 1 - ((k) / p) % v})
		for (; f < w; f++)
			o[n++] = FWD(f);
		while (f < total) {
			o[n++] = FWD(f);
			f++;
			o[n++] = BWD(bk);
			bk++;
		}
		while (bk < total) {
			o[n++] = BWD(bk);
			bk++;
		}
#undef FWD
#undef BWD
	}
	return n;
}

/* A trace's details of task id (only when the graph keeps them). */
static __attribute__((noinline, cold)) void
task_detail(struct pb *b, const struct graph_task_spec *s, uint32_t id)
{
	struct graph_detail d = b->det;
	d.bytes = s->coll ? s->coll->bytes : s->nuses ? s->work : 0.0;
	if (s->kind != GRAPH_COMPUTE && s->kind != GRAPH_RECOMPUTE)
		d.flops = 0.0;
	b->rc = graph_set_detail(b->g, id, &d);
}

static uint32_t task(struct pb *b, const struct graph_task_spec *s)
{
	uint32_t id = GRAPH_NONE;
	if (!b->rc)
		b->rc = graph_task(b->g, s, &id);
	if (b->keep && !b->rc)
		task_detail(b, s, id);
	return b->rc ? GRAPH_NONE : id;
}

static void dep(struct pb *b, uint32_t before, uint32_t after)
{
	if (!b->rc && before != GRAPH_NONE && after != GRAPH_NONE)
		b->rc = graph_dep(b->g, before, after);
}

/* A compute task on class k with its launches. The launches of a task
 * interleave with its kernels: the GPU can start once the first kernel is
 * launched, and the task is not over before the last launch is (a
 * zero-time mark on the compute stream waits for it). So a task lasts
 * max(GPU time, launch time) once the host is not ahead, at every
 * granularity, and a host-bound wait is charged to the host. While the
 * launches' times are known when the graph is built, the task itself
 * starts no sooner than its first launch ends and ends no sooner than its
 * last (graph_task_spec.not_before, end_not_before), without host tasks or
 * mark, and such a wait is charged to GRAPH_MARK (neither is a reported
 * share). The task itself (not only its end) waits
 * for the class's pending collective. Returns the id of its end; *start
 * receives the id of the compute task itself. */
static uint32_t gpu(struct pb *b, uint32_t k, enum graph_kind kind, const char *label, double s,
		    uint32_t kernels, double alloc, double freeb, uint32_t *start)
{
	struct pcls *c = &b->c[k];
	uint32_t mult = layout_class_members(b->lay, k), first = GRAPH_NONE, rest = GRAPH_NONE;
	ts_time t_first = 0, t_rest = 0; /* known launch ends, ns (0: none) */
	bool launches = kernels > 0 && b->j->launch_s > 0.0;
	if (launches && !b->keep && !c->hdyn && c->batch == GRAPH_NONE) {
		/* the ends the host stream's tasks would have (same rounding):
		 * the compute task and its end mark wait for those times
		 * instead of for tasks (a trace keeps the tasks) */
		if (!ts_time_after(c->hclock, b->j->launch_s, &t_first))
			b->rc = b->rc ? b->rc : TS_ELIMIT;
		t_rest = t_first;
		if (kernels > 1 && !ts_time_after(t_first, (kernels - 1) * b->j->launch_s, &t_rest))
			b->rc = b->rc ? b->rc : TS_ELIMIT;
		c->hclock = t_rest;
	} else if (launches) {
		struct graph_task_spec hs = {.kind = GRAPH_HOST,
					     .stream = c->host,
					     .label = "launch",
					     .seconds = b->j->launch_s,
					     .res = GRAPH_NONE,
					     .mult = mult,
					     .pool = GRAPH_NONE,
					     /* after the launches timed without tasks */
					     .not_before = c->hdyn ? 0 : c->hclock};
		c->hdyn = true;
		first = task(b, &hs);
		hs.not_before = 0;
		/* the host thread takes the batch before it launches */
		dep(b, c->batch, first);
		if (kernels > 1) {
			hs.seconds = (kernels - 1) * b->j->launch_s;
			rest = task(b, &hs);
		}
	}
	c->batch = GRAPH_NONE;
	struct graph_task_spec ts = {.kind = kind,
				     .stream = c->compute,
				     .label = label,
				     .seconds = s,
				     .res = c->gpu,
				     .mult = mult,
				     .pool = c->pool,
				     .alloc_cat = GRAPH_MEM_ACTIVATIONS,
				     .alloc = alloc,
				     .free_cat = GRAPH_MEM_ACTIVATIONS,
				     .free = freeb,
				     .not_before = t_first,
				     /* launches timed without tasks: the task
				      * itself waits for the last one to end */
				     .end_not_before = kernels > 1 ? t_rest : 0};
	uint32_t id = task(b, &ts);
	if (start)
		*start = id;
	dep(b, first, id);
	if (c->pending != GRAPH_NONE) {
		dep(b, c->pending, id);
		c->pending = GRAPH_NONE;
	}
	if (rest != GRAPH_NONE) {
		struct graph_task_spec ms = {.kind = GRAPH_MARK,
					     .stream = c->compute,
					     .label = "launched",
					     .res = GRAPH_NONE,
					     .mult = mult,
					     .pool = GRAPH_NONE};
		id = task(b, &ms);
		dep(b, rest, id);
	}
	return id;
}

static uint32_t mark(struct pb *b, uint32_t k, const char *label, enum graph_mem cat, double alloc,
		     double freeb)
{
	struct graph_task_spec ms = {.kind = GRAPH_MARK,
				     .stream = b->c[k].compute,
				     .label = label,
				     .res = GRAPH_NONE,
				     .mult = layout_class_members(b->lay, k),
				     .pool = b->c[k].pool,
				     .alloc_cat = cat,
				     .alloc = alloc,
				     .free_cat = cat,
				     .free = freeb};
	return task(b, &ms);
}

/* The ranks of rank's group of kind g, in increasing rank order (node-local
 * ranks contiguous, as struct coll_spec wants them); returns their number. */
static uint32_t pg_ranks(const struct pb *b, enum pgk g, uint32_t rank, uint32_t *out)
{
	const struct layout *l = b->lay;
	switch (g) {
	case PG_TP:
		layout_group(l, rank, LAYOUT_TP, out);
		return l->deg[LAYOUT_TP];
	case PG_CP:
		layout_group(l, rank, LAYOUT_CP, out);
		return l->deg[LAYOUT_CP];
	case PG_EP: {
		uint32_t e = b->j->ep > 1 ? b->j->ep : 1,
			 e0 = layout_coord(l, rank, LAYOUT_DP) / e * e;
		for (uint32_t c = 0; c < e; c++)
			out[c] = layout_move(l, rank, LAYOUT_DP, e0 + c);
		return e;
	}
	default: {
		/* two dimensions: the one of smaller stride varies fastest */
		enum layout_dim in = LAYOUT_CP, outd = LAYOUT_DP;
		if (l->stride[LAYOUT_DP] < l->stride[LAYOUT_CP]) {
			in = LAYOUT_DP;
			outd = LAYOUT_CP;
		}
		uint32_t r0 = layout_move(l, layout_move(l, rank, LAYOUT_CP, 0), LAYOUT_DP, 0),
			 n = 0;
		for (uint32_t o = 0; o < l->deg[outd]; o++)
			for (uint32_t i = 0; i < l->deg[in]; i++)
				out[n++] = r0 + o * l->stride[outd] + i * l->stride[in];
		return n;
	}
	}
}

/* Is rank the first of its group of kind g? */
static bool pg_first(const struct pb *b, enum pgk g, uint32_t rank)
{
	const struct layout *l = b->lay;
	switch (g) {
	case PG_TP:
		return layout_coord(l, rank, LAYOUT_TP) == 0;
	case PG_CP:
		return layout_coord(l, rank, LAYOUT_CP) == 0;
	case PG_EP:
		return layout_coord(l, rank, LAYOUT_DP) % (b->j->ep > 1 ? b->j->ep : 1) == 0;
	default:
		return layout_coord(l, rank, LAYOUT_CP) == 0 &&
		       layout_coord(l, rank, LAYOUT_DP) == 0;
	}
}

/* Fill b->lead, base, gmult: a group is issued by the class of its first
 * rank, once for all the groups that class leads (they are alike: their
 * members sit on the same local GPUs, sim/par/layout.h), with mult = those
 * groups x the nodes each spans in class mode (sim/net/coll.h), 1 in full
 * mode. */
static void pg_init(struct pb *b)
{
	const struct layout *l = b->lay;
	for (uint32_t r = 0; r < l->gpus; r++) {
		uint32_t k = layout_class_of(l, r);
		for (uint32_t g = 0; g < PG_COUNT_; g++) {
			if (!pg_first(b, (enum pgk)g, r))
				continue;
			size_t x = (size_t)k * PG_COUNT_ + g;
			if (!b->lead[x]++)
				b->base[x] = r;
		}
	}
	for (size_t x = 0; x < (size_t)b->ncls * PG_COUNT_; x++) {
		if (!b->lead[x])
			continue;
		if (!l->class_mode) {
			b->gmult[x] = 1;
			continue;
		}
		uint32_t n = pg_ranks(b, (enum pgk)(x % PG_COUNT_), b->base[x], b->ranks);
		uint32_t nodes = 0, last = UINT32_MAX;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t node = b->ranks[i] / l->gpus_per_node;
			nodes += node != last;
			last = node;
		}
		b->gmult[x] = b->lead[x] * nodes;
	}
}

/* Does class k lead groups of kind g? */
static bool leads(const struct pb *b, uint32_t k, enum pgk g)
{
	return b->lead[(size_t)k * PG_COUNT_ + g] > 0;
}

/* The member classes of the groups of kind g that k leads, each once;
 * *m receives their number. Found once per (k, g) and kept in b->mpool
 * (the answer is valid until the next call). */
static const uint32_t *pg_members(struct pb *b, uint32_t k, enum pgk g, uint32_t *m)
{
	const struct layout *l = b->lay;
	size_t x = (size_t)k * PG_COUNT_ + g;
	if (b->moff[x] != UINT32_MAX) {
		*m = b->mcnt[x];
		return b->mpool + b->moff[x];
	}
	uint32_t *out = b->ranks + l->gpus, n = pg_ranks(b, g, b->base[x], b->ranks), c = 0;
	b->epoch++;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t mk = layout_class_of(l, b->ranks[i]);
		if (b->stamp[mk] == b->epoch)
			continue;
		b->stamp[mk] = b->epoch;
		out[c++] = mk;
	}
	*m = c;
	if (!b->rc && ts_grow((void **)&b->mpool, &b->capmpool, b->nmpool + c, sizeof *b->mpool))
		b->rc = TS_ENOMEM;
	if (b->rc)
		return out;
	memcpy(b->mpool + b->nmpool, out, c * sizeof *out);
	b->moff[x] = (uint32_t)b->nmpool;
	b->mcnt[x] = c;
	b->nmpool += c;
	return b->mpool + b->moff[x];
}

/* The ranks of the first group of kind g that k leads; *n receives their
 * number. Found once per (k, g) and kept in b->rpool (the answer is valid
 * until the next call). */
static const uint32_t *pg_lead_ranks(struct pb *b, uint32_t k, enum pgk g, uint32_t *n)
{
	size_t x = (size_t)k * PG_COUNT_ + g;
	if (b->roff[x] != UINT32_MAX) {
		*n = b->rcnt[x];
		return b->rpool + b->roff[x];
	}
	uint32_t c = pg_ranks(b, g, b->base[x], b->ranks);
	*n = c;
	if (!b->rc && ts_grow((void **)&b->rpool, &b->caprpool, b->nrpool + c, sizeof *b->rpool))
		b->rc = TS_ENOMEM;
	if (b->rc)
		return b->ranks;
	memcpy(b->rpool + b->nrpool, b->ranks, c * sizeof *b->ranks);
	b->roff[x] = (uint32_t)b->nrpool;
	b->rcnt[x] = c;
	b->nrpool += c;
	return b->rpool + b->roff[x];
}

/* A collective over the groups of kind g that k leads (one activity with
 * their multiplicity), after each member class's task last[member]
 * (GRAPH_NONE: its latest compute task). Returns its id. */
static uint32_t group_coll_n(struct pb *b, uint32_t k, enum pgk g, enum coll_op op, double bytes,
			     uint32_t count, enum graph_kind kind, uint32_t stream,
			     const char *label, const uint32_t *after)
{
	size_t x = (size_t)k * PG_COUNT_ + g;
	uint32_t n;
	const uint32_t *ranks = pg_lead_ranks(b, k, g, &n);
	struct coll_spec cs = {.op = op,
			       .ranks = ranks,
			       .nranks = n,
			       .bytes = bytes,
			       .count = count,
			       .mult = b->gmult[x]};
	struct graph_task_spec ts = {.kind = kind,
				     .stream = stream,
				     .label = label,
				     .res = GRAPH_NONE,
				     .mult = 1,
				     .coll = &cs,
				     .ranks_key = (uint32_t)x + 1,
				     .pool = GRAPH_NONE};
	b->det.owner = k;
	uint32_t id = task(b, &ts);
	b->det.owner = GRAPH_NONE;
	if (after) {
		uint32_t m;
		const uint32_t *mem = pg_members(b, k, g, &m);
		for (uint32_t i = 0; i < m && !b->rc; i++)
			dep(b, after[mem[i]], id);
	}
	return id;
}

static uint32_t group_coll(struct pb *b, uint32_t k, enum pgk g, enum coll_op op, double bytes,
			   enum graph_kind kind, uint32_t stream, const char *label,
			   const uint32_t *after)
{
	return group_coll_n(b, k, g, op, bytes, 1, kind, stream, label, after);
}

/* Call fn(b, member, id) for each member class of the groups of kind g
 * that k leads. */
static void each_member(struct pb *b, uint32_t k, enum pgk g, uint32_t id,
			void (*fn)(struct pb *, uint32_t, uint32_t))
{
	uint32_t m;
	const uint32_t *mem = pg_members(b, k, g, &m);
	for (uint32_t i = 0; i < m && !b->rc; i++)
		fn(b, mem[i], id);
}

/* *slot = id, or, when the slot already holds a task of this round (a
 * class that is a member of groups led by different classes, as when a
 * group straddles nodes unevenly in class mode), a mark after both. */
static void join(struct pb *b, uint32_t *slot, uint32_t id)
{
	if (*slot == GRAPH_NONE || *slot == id) {
		*slot = id;
		return;
	}
	struct graph_task_spec ms = {.kind = GRAPH_MARK,
				     .stream = GRAPH_NONE,
				     .label = "joined",
				     .res = GRAPH_NONE,
				     .mult = 1,
				     .pool = GRAPH_NONE};
	uint32_t m = task(b, &ms);
	dep(b, *slot, m);
	dep(b, id, m);
	*slot = m;
}

static void set_pending(struct pb *b, uint32_t k, uint32_t id)
{
	join(b, &b->c[k].pending, id);
}
static void set_red(struct pb *b, uint32_t k, uint32_t id)
{
	b->c[k].red_last = id;
}
static void set_held(struct pb *b, uint32_t k, uint32_t id)
{
	b->tpheld[k] = id;
}
static void take_pending(struct pb *b, uint32_t k, uint32_t id)
{
	dep(b, b->c[k].pending, id);
	b->c[k].pending = GRAPH_NONE;
}

/* The links from GPU rank g to its nearest CPU socket (fewest hops), or
 * back (up), into uses[0..*n) with coefficient 1 each. Returns 0, or -1 when
 * the node has no CPU reachable from the GPU. */
static int host_route(const struct ts_net *net, uint32_t g, bool up, struct fluid_use *uses,
		      uint32_t *n)
{
	const struct hw_cluster *c = net_cluster(net);
	uint32_t dev = hw_cluster_gpu(c, g), node = hw_cluster_device(c, dev)->node;
	uint32_t links[PIPE_MAX_ROUTE], best_links[PIPE_MAX_ROUTE];
	size_t best = SIZE_MAX;
	for (uint32_t d = 0; d < hw_cluster_ndevices(c); d++) {
		const struct hw_device *x = hw_cluster_device(c, d);
		size_t k;
		if (x->node != node || x->kind != HW_DEV_CPU)
			continue;
		int rc = up ? hw_cluster_route(c, d, dev, UINT32_MAX, links, PIPE_MAX_ROUTE, &k)
			    : hw_cluster_route(c, dev, d, UINT32_MAX, links, PIPE_MAX_ROUTE, &k);
		if (rc == 0 && k < best) {
			best = k;
			memcpy(best_links, links, k * sizeof *links);
		}
	}
	if (best == SIZE_MAX)
		return -1;
	for (size_t i = 0; i < best; i++)
		uses[i] = (struct fluid_use){net_link_res(net, best_links[i]), 1.0};
	*n = (uint32_t)best;
	return 0;
}

/* An offload copy of `bytes` per member of class k over its PCIe route,
 * down (GPU -> host) or up, on its copy stream, after `after`; it takes
 * `alloc` bytes of activations from the class's pool when it starts (an
 * activation reload), none with 0. */
static uint32_t xfer_mem(struct pb *b, uint32_t k, bool up, double bytes, uint32_t after,
			 const char *label, double alloc)
{
	size_t at = ((size_t)k * 2 + up) * PIPE_MAX_ROUTE;
	struct graph_task_spec ts = {.kind = GRAPH_COMM,
				     .stream = up ? b->c[k].h2d : b->c[k].d2h,
				     .label = label,
				     .res = GRAPH_NONE,
				     .mult = layout_class_members(b->lay, k),
				     .pool = alloc > 0.0 ? b->c[k].pool : GRAPH_NONE,
				     .alloc_cat = GRAPH_MEM_ACTIVATIONS,
				     .alloc = alloc,
				     .free_cat = GRAPH_MEM_ACTIVATIONS,
				     .uses = b->route + at,
				     .nuses = b->nroute[k * 2 + up],
				     .work = bytes};
	uint32_t id = task(b, &ts);
	dep(b, after, id);
	return id;
}

static uint32_t xfer(struct pb *b, uint32_t k, bool up, double bytes, uint32_t after,
		     const char *label)
{
	return xfer_mem(b, k, up, bytes, after, label, 0.0);
}

/* Offload: the reduced gradient shard of class k goes down after the
 * reduction `id`; the step waits for the copy. */
static void grad_down(struct pb *b, uint32_t k, uint32_t id)
{
	b->c[k].red_last = xfer(b, k, false, b->xbytes, id, "grad to host");
}

/* Whether nodes a and b hold the same classes on the same local GPUs. */
static bool alike_nodes(const struct layout *l, uint32_t a, uint32_t b)
{
	uint32_t gpn = l->gpus_per_node;
	for (uint32_t i = 0; i < gpn; i++) {
		uint32_t ra = a * gpn + i, rb = b * gpn + i;
		uint32_t ca = ra < l->gpus ? layout_class_of(l, ra) : GRAPH_NONE;
		uint32_t cb = rb < l->gpus ? layout_class_of(l, rb) : GRAPH_NONE;
		if (ca != cb)
			return false;
	}
	return true;
}

/* NVMe offload: the drives of each group of alike nodes (in full mode every
 * node alone) as one fluid resource class with a member per node, capacity
 * nvme_read_Bps per member (a byte read costs one unit, a byte written
 * read / write units), and each class's share of the groups it sits in.
 * Alike nodes carry the same classes' swaps, so the load of a group is the
 * same on each of its nodes, as fluid.h's classes assume. Returns 0 or
 * TS_ENOMEM. */
static int nvme_setup(struct pb *b, struct ts_fluid *f)
{
	const struct layout *l = b->lay;
	uint32_t gpn = l->gpus_per_node, nodes = (l->gpus + gpn - 1) / gpn, ng = 0;
	uint32_t *grp = ts_calloc(nodes, sizeof *grp);
	uint32_t *first = ts_calloc(nodes, sizeof *first); /* group -> its first node */
	uint32_t *size = ts_calloc(nodes, sizeof *size);   /* group -> nodes */
	uint32_t *res = ts_calloc(nodes, sizeof *res);	   /* group -> resource */
	int rc = TS_ENOMEM;
	b->nvoff = ts_calloc(b->ncls + 1, sizeof *b->nvoff);
	b->nvn = ts_calloc(b->ncls, sizeof *b->nvn);
	if (!grp || !first || !size || !res || !b->nvoff || !b->nvn)
		goto out;
	for (uint32_t nd = 0; nd < nodes; nd++) {
		uint32_t x = l->class_mode ? 0 : ng;
		while (x < ng && !alike_nodes(l, nd, first[x]))
			x++;
		if (x == ng)
			first[ng++] = nd;
		grp[nd] = x;
		size[x]++;
	}
	for (uint32_t x = 0; x < ng; x++)
		if ((rc = fluid_resource_add(f, b->j->nvme_read_Bps, size[x], &res[x])))
			goto out;
	rc = TS_ENOMEM;
	for (uint32_t k = 0; k < b->ncls; k++)
		b->nvoff[k + 1] = b->nvoff[k] + layout_class_members(l, k);
	if (!(b->nvuse = ts_calloc(b->nvoff[b->ncls], sizeof *b->nvuse)))
		goto out;
	for (uint32_t r = 0; r < l->gpus; r++) {
		uint32_t k = layout_class_of(l, r), id = res[grp[r / gpn]], i = 0;
		struct fluid_use *u = b->nvuse + b->nvoff[k];
		while (i < b->nvn[k] && u[i].res != id)
			i++;
		if (i == b->nvn[k])
			u[b->nvn[k]++] = (struct fluid_use){id, 0.0};
		u[i].coeff += 1.0 / (double)layout_class_members(l, k);
		if (b->nvn[k] > b->nvmax)
			b->nvmax = b->nvn[k];
	}
	b->nvtmp = ts_calloc(2 * (size_t)b->nvmax, sizeof *b->nvtmp);
	rc = b->nvtmp ? 0 : TS_ENOMEM;
out:
	ts_free(grp, nodes * sizeof *grp);
	ts_free(first, nodes * sizeof *first);
	ts_free(size, nodes * sizeof *size);
	ts_free(res, nodes * sizeof *res);
	return rc;
}

/* NVMe offload: the step of class k over its shard of `params` parameters
 * in sub-groups, once the gradient shard is down and `after` (its last
 * backward) is done (struct pipe_job). Sub-group i's read is issued when
 * read i - 1 is done and the step has reached i - 1 (step i - 2 and write
 * i - 3 done); step i waits for read i and for write i - 2 (the swap-out
 * of i - 1 first completes the write before it); write i follows step i.
 * Returns the last sub-group's CPU step; *end receives a mark on the
 * compute stream after it and the last write, where the step ends (the
 * last write is synchronous). */
static uint32_t nvme_step(struct pb *b, uint32_t k, double params, uint32_t after, uint32_t *end)
{
	const struct pipe_job *j = b->j;
	struct pcls *c = &b->c[k];
	double n = ceil(params / j->nvme_subgroup_params);
	uint32_t ns = n <= 1.0				     ? 1u
		      : n >= (double)PIPE_NVME_MAX_SUBGROUPS ? PIPE_NVME_MAX_SUBGROUPS
							     : (uint32_t)n;
	double sp = params / (double)ns;
	uint32_t nu = b->nvn[k], mult = layout_class_members(b->lay, k);
	struct fluid_use *ru = b->nvtmp, *wu = b->nvtmp + nu;
	for (uint32_t i = 0; i < nu; i++) {
		ru[i] = b->nvuse[b->nvoff[k] + i];
		wu[i] = (struct fluid_use){ru[i].res,
					   ru[i].coeff * j->nvme_read_Bps / j->nvme_write_Bps};
	}
	/* the swap is part of the optimizer step: a GPU waiting for it waits
	 * for its optimizer (optimizer_s), not for communication */
	struct graph_task_spec rs = {.kind = GRAPH_OPTIMIZER,
				     .stream = c->nvr,
				     .label = "nvme read",
				     .res = GRAPH_NONE,
				     .mult = mult,
				     .pool = GRAPH_NONE,
				     .uses = ru,
				     .nuses = nu,
				     .work = sp * j->optim_bpp};
	struct graph_task_spec ws = rs;
	ws.stream = c->nvw;
	ws.label = "nvme write";
	ws.uses = wu;
	struct graph_task_spec cs = {.kind = GRAPH_OPTIMIZER,
				     .stream = c->compute,
				     .label = "cpu optimizer",
				     .seconds = sp / j->cpu_adam_params_per_s,
				     .res = GRAPH_NONE,
				     .mult = mult,
				     .pool = GRAPH_NONE};
	uint32_t cpu1 = GRAPH_NONE, cpu2 = GRAPH_NONE, wr1 = GRAPH_NONE, wr2 = GRAPH_NONE,
		 wr3 = GRAPH_NONE;
	for (uint32_t i = 0; i < ns && !b->rc; i++) {
		uint32_t rd = task(b, &rs); /* after read i - 1: same stream */
		if (i == 0) {
			dep(b, c->pending, rd);
			dep(b, after, rd);
		}
		dep(b, cpu2, rd);
		dep(b, wr3, rd);
		uint32_t cpu = task(b, &cs); /* after step i - 1: same stream */
		dep(b, rd, cpu);
		dep(b, wr2, cpu);
		uint32_t wr = task(b, &ws); /* after write i - 1: same stream */
		dep(b, cpu, wr);
		wr3 = wr2;
		wr2 = wr1;
		wr1 = wr;
		cpu2 = cpu1;
		cpu1 = cpu;
	}
	c->pending = GRAPH_NONE;
	*end = mark(b, k, "optimizer end", GRAPH_MEM_BUFFERS, 0.0, 0.0);
	dep(b, wr1, *end);
	return cpu1;
}

static void set_prev_alloc_dep(struct pb *b, uint32_t k, uint32_t id)
{
	dep(b, b->c[k].prev_alloc, id);
}
static void set_zlast(struct pb *b, uint32_t k, uint32_t id)
{
	b->c[k].zlast = id;
}

/* Scratch per class: the task each member waits behind. */
/* Kinds of unit a stage-granularity segment tells apart by their
 * tensor-parallel collectives (transformer layers, embedding, head). */
#define SEG_TP_KINDS 4

struct seg {
	const char *label;
	enum graph_kind kind;
	double s;
	double tpo_s; /* seconds the TP overlap adds to s (dp_unit tpo_*_s), with it on */
	uint32_t kernels;
	double alloc, freeb, logits_alloc, logits_free;
	uint32_t tp; /* tensor-parallel collectives after it */
	/* at stage granularity, the units it sums by their collectives: ntpk
	 * kinds, tpc[i] units of tpn[i] collectives each (0 kinds: one unit
	 * of tp) */
	uint32_t ntpk, tpn[SEG_TP_KINDS], tpc[SEG_TP_KINDS];
	uint32_t tplast;    /* the kind of the unit added last (SEG_TP_KINDS: it has none) */
	double gather;	    /* ZeRO-3: weight elements gathered before it */
	double ungather;    /* ZeRO-3: gathered weight elements freed after it */
	uint32_t a2a;	    /* MoE all-to-alls after it */
	double ring_s;	    /* seconds of s that overlap the K, V ring (context parallel) */
	double ring_bytes;  /* bytes each rank passes on per ring step */
	double dp_gather;   /* bytes per rank all-gathered (forward) or reduce-scattered
			     * (backward) over DP after it, on the compute path */
	bool dp_gather_bwd; /* backward: reduce-scatter the gradients */
	double flops;	    /* FLOPs of its compute (traces) */
	bool has_layer;	    /* l0..l1: the layers it works on (traces) */
	uint32_t l0, l1;
};

/* Megatron-LM's f and g operators for `n` activations of the segment led
 * by class k: an all-reduce, or with sequence parallelism a reduce-scatter
 * then an all-gather of the same size, on `stream`, after after[member].
 * on_path: after an on-path all-to-all of the same segment too (NCCL runs
 * both on the compute stream, one after the other). Returns the last. */
static uint32_t tp_issue1(struct pb *b, uint32_t k, uint32_t n, uint32_t count, uint32_t stream,
			  const uint32_t *after, uint32_t prev, bool on_path)
{
	const struct pipe_job *j = b->j;
	double bytes = j->tp_bytes * n;
	uint32_t id = group_coll_n(b, k, PG_TP, j->sp ? COLL_REDUCE_SCATTER : COLL_ALL_REDUCE,
				   bytes, count, GRAPH_COMM, stream, "tp collective", after);
	dep(b, prev, id);
	if (on_path)
		each_member(b, k, PG_TP, id, take_pending);
	if (j->sp) {
		uint32_t id2 = group_coll_n(b, k, PG_TP, COLL_ALL_GATHER, bytes, count, GRAPH_COMM,
					    stream, "tp collective", NULL);
		dep(b, id, id2);
		id = id2;
	}
	return id;
}

/* The tensor-parallel collectives of segment sg (see tp_issue1): a unit's
 * as one collective of its count, a stage-granularity segment's as, for
 * each kind of unit it sums, that collective repeated once per unit
 * (struct coll_spec, count), so that a pass costs the latencies and sizes
 * the units would; one kind after the other, the last unit's kind last and
 * its own collective apart, as at layer granularity the collectives of
 * every unit but the last are over when the segment's compute ends.
 * *held (may be NULL) receives the last task before that unit's own
 * collective (GRAPH_NONE when it has none before it). Returns the last. */
static uint32_t tp_issue(struct pb *b, uint32_t k, const struct seg *sg, uint32_t stream,
			 const uint32_t *after, bool on_path, uint32_t *held)
{
	if (held)
		*held = GRAPH_NONE;
	if (!sg->ntpk)
		return tp_issue1(b, k, sg->tp, 1, stream, after, GRAPH_NONE, on_path);
	uint32_t id = GRAPH_NONE, last = sg->tplast;
	bool first = true;
	if (last == SEG_TP_KINDS) { /* the last unit has none: all are over */
		for (uint32_t i = 0; i < sg->ntpk && !b->rc; i++) {
			id = tp_issue1(b, k, sg->tpn[i], sg->tpc[i], stream, i ? NULL : after, id,
				       on_path && !i);
		}
		if (held)
			*held = id;
		return id;
	}
	/* the other kinds in order, then the last unit's kind but its own */
	for (uint32_t i = 0; i <= sg->ntpk && !b->rc; i++) {
		uint32_t x = i < sg->ntpk ? i : last;
		uint32_t c = i < sg->ntpk ? sg->tpc[x] : sg->tpc[x] - 1;
		if ((i < sg->ntpk && x == last) || c == 0)
			continue;
		id = tp_issue1(b, k, sg->tpn[x], c, stream, first ? after : NULL, id,
			       on_path && first);
		first = false;
	}
	if (held)
		*held = id;
	return tp_issue1(b, k, sg->tpn[last], 1, stream, first ? after : NULL, id,
			 on_path && first);
}

/* Ring attention (Liu et al. 2023, "Ring Attention with Blockwise
 * Transformers", https://arxiv.org/abs/2310.01889; Megatron-Core's context
 * parallelism runs it so): the attention of segment sg (sg->ring_s) runs
 * as cp chunks, chunk i against the K, V block received at step i; step i
 * (i = 1 .. cp - 1) passes the block on to the next rank of the CP group
 * (a send/recv of sg->ring_bytes), starting once the previous step's block
 * has arrived, so it overlaps the attention of the block before. Chunk i
 * waits for step i; the last chunk frees the segment's activations. Runs
 * after the segment's other compute, which lastv[] holds, and leaves each
 * class's last chunk in lastv[]. */
static void emit_ring(struct pb *b, uint32_t st, const struct seg *sg, double slow, uint32_t *lastv)
{
	uint32_t cp = b->lay->deg[LAYOUT_CP], *cls = b->scls + (size_t)st * b->per;
	double chunk = sg->ring_s / (double)cp * slow;
	for (uint32_t i = 0; i < b->per; i++)
		b->ringx[cls[i]] = GRAPH_NONE;
	for (uint32_t step = 0; step < cp && !b->rc; step++) {
		/* step + 1's block leaves once step's has arrived */
		if (step + 1 < cp) {
			for (uint32_t i = 0; i < b->per && !b->rc; i++) {
				uint32_t k = cls[i];
				if (!leads(b, k, PG_CP))
					continue;
				uint32_t prev = b->ringx[k];
				uint32_t id = group_coll(
				    b, k, PG_CP, COLL_SEND_RECV, sg->ring_bytes, GRAPH_COMM,
				    GRAPH_NONE, "kv ring", prev == GRAPH_NONE ? lastv : NULL);
				dep(b, prev, id);
				b->ringx[k] = id;
				if (prev != GRAPH_NONE)
					each_member(b, k, PG_CP, prev, set_pending);
			}
		} else {
			for (uint32_t i = 0; i < b->per && !b->rc; i++)
				if (leads(b, cls[i], PG_CP))
					each_member(b, cls[i], PG_CP, b->ringx[cls[i]],
						    set_pending);
		}
		for (uint32_t i = 0; i < b->per && !b->rc; i++) {
			uint32_t k = cls[i];
			lastv[k] = gpu(b, k, sg->kind, "attention chunk", chunk, 0, 0.0,
				       step + 1 == cp ? sg->freeb : 0.0, NULL);
		}
	}
}

/* Context parallelism by all-to-alls (DeepSpeed-Ulysses, Jacobs et al.
 * 2023, https://arxiv.org/abs/2309.14509, section 3: an all-to-all of Q, K
 * and V gives each rank the whole sequence for heads / cp of the heads,
 * attention runs locally, and an all-to-all of its output brings the
 * sequence split back): the all-to-all of cp_a2a_in_frac of sg->ring_bytes
 * over the CP group, the attention of segment sg (sg->ring_s), freeing the
 * segment's activations, and the all-to-all of the rest, each on the
 * compute path, after the segment's other compute (lastv[]). */
static void emit_cp_a2a(struct pb *b, uint32_t st, const struct seg *sg, double slow,
			uint32_t *lastv)
{
	const struct pipe_job *j = b->j;
	uint32_t *cls = b->scls + (size_t)st * b->per;
	for (int half = 0; half < 2 && !b->rc; half++) {
		double bytes =
		    sg->ring_bytes * (half ? 1.0 - j->cp_a2a_in_frac : j->cp_a2a_in_frac);
		for (uint32_t i = 0; i < b->per && !b->rc && bytes > 0.0; i++) {
			uint32_t k = cls[i];
			if (!leads(b, k, PG_CP))
				continue;
			uint32_t id = group_coll(b, k, PG_CP, COLL_ALL_TO_ALL, bytes, GRAPH_COMM,
						 GRAPH_NONE, "cp all-to-all", lastv);
			each_member(b, k, PG_CP, id, set_pending);
		}
		for (uint32_t i = 0; !half && i < b->per && !b->rc; i++)
			lastv[cls[i]] = gpu(b, cls[i], sg->kind, "attention", sg->ring_s * slow, 0,
					    0.0, sg->freeb, NULL);
	}
}

/* Emit segment `sg` on every class of stage st; lastv[k] gets each class's
 * last task, firstv[k] (if not GRAPH_NONE yet) its first. */
static void emit_seg(struct pb *b, uint32_t st, const struct seg *sg, uint32_t *firstv,
		     uint32_t *lastv)
{
	const struct pipe_job *j = b->j;
	uint32_t *cls = b->scls + (size_t)st * b->per;
	for (uint32_t i = 0; i < b->per; i++)
		b->tpheld[cls[i]] = GRAPH_NONE;
	b->det.flops = sg->flops;
	b->det.layer0 = sg->has_layer ? sg->l0 : GRAPH_NONE;
	b->det.layer1 = sg->has_layer ? sg->l1 : GRAPH_NONE;
	/* ZeRO-3: gather the weights over DP, one segment ahead */
	if (sg->gather > 0.0 && b->ndp > 1) {
		/* offload: the shard comes up from the host first (after the
		 * step that updated it) */
		for (uint32_t i = 0; j->offload && i < b->per && !b->rc; i++)
			b->tmpv[cls[i]] = xfer(b, cls[i], true, sg->gather * j->weight_bpp / b->ndp,
					       b->c[cls[i]].opt, "param shard to gpu");
		/* the gathered weights but the resident shard (none offloaded) */
		double held = sg->gather * j->gather_bpp * (j->offload ? 1.0 : 1.0 - 1.0 / b->ndp);
		/* of them, those taken at the all-gather's issue (the prefetch
		 * in flight, at most gather_ahead_elems) */
		double ahead = held;
		if (!j->gather_unlimited && j->gather_ahead_elems > 0.0 &&
		    j->gather_ahead_elems < sg->gather)
			ahead = held * (j->gather_ahead_elems / sg->gather);
		/* each class's buffer is taken when its all-gather is issued
		 * and held to the unit's free, so a prefetched unit is counted
		 * while its all-gather is in flight. Limited (one unit
		 * prefetched): issued once the unit before is next on the
		 * compute stream (its "gathered" mark), a pass's first not
		 * before the pass starts there (FSDP unshards the first unit
		 * from the pass's pre-hook); the all-gather itself keeps its
		 * schedule (after the unit before is next). Unlimited: when
		 * the class's gather stream is free (its last all-gather is
		 * over), a forward's not before the compute stream's work
		 * issued before the pass, and the all-gather waits for it. */
		for (uint32_t i = 0; i < b->per && !b->rc; i++) {
			uint32_t k = cls[i];
			struct graph_task_spec ms = {.kind = GRAPH_MARK,
						     .stream = GRAPH_NONE,
						     .label = "gather buffer",
						     .res = GRAPH_NONE,
						     .mult = layout_class_members(b->lay, k),
						     .pool = b->c[k].pool,
						     .alloc_cat = GRAPH_MEM_WEIGHTS,
						     .alloc = ahead,
						     .free_cat = GRAPH_MEM_WEIGHTS};
			uint32_t id = task(b, &ms);
			dep(b, j->gather_unlimited ? b->c[k].zlast : b->c[k].prev_alloc, id);
			dep(b, b->c[k].zroot, id);
			if (j->offload)
				dep(b, b->tmpv[k], id);
			if (j->gather_unlimited)
				b->tmpv[k] = id;
		}
		for (uint32_t i = 0; i < b->per && !b->rc; i++) {
			uint32_t k = cls[i];
			if (!leads(b, k, PG_DP))
				continue;
			uint32_t id =
			    group_coll(b, k, PG_DP, COLL_ALL_GATHER, sg->gather * j->gather_bpp,
				       GRAPH_COMM, b->c[k].gather, "param all-gather",
				       j->offload || j->gather_unlimited ? b->tmpv : NULL);
			if (j->gather_unlimited)
				each_member(b, k, PG_DP, id, set_zlast);
			else
				each_member(b, k, PG_DP, id, set_prev_alloc_dep);
			each_member(b, k, PG_DP, id, set_pending);
		}
		for (uint32_t i = 0; i < b->per && !b->rc; i++) {
			uint32_t k = cls[i];
			uint32_t id = mark(b, k, "gathered", GRAPH_MEM_WEIGHTS, held - ahead, 0.0);
			dep(b, b->c[k].pending, id);
			b->c[k].pending = GRAPH_NONE;
			b->c[k].prev_alloc = id;
			if (firstv[k] == GRAPH_NONE)
				firstv[k] = id;
		}
	}
	/* Megatron-Core's TP communication overlap (tp_comm_overlap): the
	 * segment's collectives start with its GEMMs, and the next segment
	 * waits for both; the overlapped GEMMs run slowed by the
	 * communication kernels beside them (sg->tpo_s, from the ops, whether
	 * or not this segment ends with a collective, so that op, layer and
	 * stage granularity charge the same) */
	bool tpon = j->tp_overlap && b->lay->deg[LAYOUT_TP] > 1 && j->tp_bytes > 0.0;
	bool tpo = tpon && sg->tp;
	double slow = 1.0 + j->straggle;
	double tpo_s = tpon ? sg->tpo_s : 0.0;
	if (tpo) {
		for (uint32_t i = 0; i < b->per && !b->rc; i++) {
			uint32_t k = cls[i];
			b->tmpv[k] = mark(b, k, "tp overlap", GRAPH_MEM_BUFFERS, 0.0, 0.0);
			if (firstv[k] == GRAPH_NONE)
				firstv[k] = b->tmpv[k];
		}
		for (uint32_t i = 0; i < b->per && !b->rc; i++)
			if (leads(b, cls[i], PG_TP))
				b->tpx[cls[i]] = tp_issue(b, cls[i], sg, b->c[cls[i]].tpcomm,
							  b->tmpv, false, NULL);
	}
	bool ring = b->lay->deg[LAYOUT_CP] > 1 && sg->ring_s > 0.0 && sg->ring_bytes > 0.0;
	double rest = ring ? sg->s - sg->ring_s : sg->s;
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i], start;
		if (sg->logits_alloc > 0.0) {
			uint32_t id = mark(b, k, "logits", GRAPH_MEM_LOGITS, sg->logits_alloc, 0.0);
			if (firstv[k] == GRAPH_NONE)
				firstv[k] = id;
		}
		lastv[k] =
		    gpu(b, k, sg->kind, sg->label, ((rest > 0.0 ? rest : 0.0) + tpo_s) * slow,
			sg->kernels, sg->alloc, ring ? 0.0 : sg->freeb, &start);
		if (firstv[k] == GRAPH_NONE)
			firstv[k] = start;
	}
	if (ring && j->cp_a2a)
		emit_cp_a2a(b, st, sg, slow, lastv);
	else if (ring)
		emit_ring(b, st, sg, slow, lastv);
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i];
		if (sg->logits_free > 0.0)
			lastv[k] =
			    mark(b, k, "free logits", GRAPH_MEM_LOGITS, 0.0, sg->logits_free);
		if (sg->ungather > 0.0 && b->ndp > 1)
			lastv[k] = mark(b, k, "free gathered", GRAPH_MEM_WEIGHTS, 0.0,
					sg->ungather * j->gather_bpp *
					    (j->offload ? 1.0 : 1.0 - 1.0 / b->ndp));
	}
	/* an all-gather over DP of what each rank made (CLIP's embeddings,
	 * torch.distributed.all_gather on the compute stream), or the
	 * reduce-scatter of its gradient in backward */
	if (sg->dp_gather > 0.0 && b->ndp > 1) {
		for (uint32_t i = 0; i < b->per && !b->rc; i++) {
			uint32_t k = cls[i];
			if (!leads(b, k, PG_DP))
				continue;
			uint32_t id = group_coll(
			    b, k, PG_DP, sg->dp_gather_bwd ? COLL_REDUCE_SCATTER : COLL_ALL_GATHER,
			    sg->dp_gather * (double)b->ndp, GRAPH_COMM, GRAPH_NONE,
			    sg->dp_gather_bwd ? "embedding grad reduce-scatter"
					      : "embedding all-gather",
			    lastv);
			each_member(b, k, PG_DP, id, set_pending);
		}
	}
	/* MoE dispatch and combine (forward), their gradients (backward):
	 * all-to-alls over the expert-parallel group on the compute path */
	if (sg->a2a && j->ep > 1 && j->a2a_bytes > 0.0) {
		for (uint32_t i = 0; i < b->per && !b->rc; i++) {
			uint32_t k = cls[i];
			if (!leads(b, k, PG_EP))
				continue;
			uint32_t id =
			    group_coll(b, k, PG_EP, COLL_ALL_TO_ALL, j->a2a_bytes * sg->a2a,
				       GRAPH_COMM, GRAPH_NONE, "moe all-to-all", lastv);
			each_member(b, k, PG_EP, id, set_pending);
		}
	}
	if (tpo) { /* the next segment needs what the overlapped collectives made */
		for (uint32_t i = 0; i < b->per && !b->rc; i++)
			if (leads(b, cls[i], PG_TP))
				each_member(b, cls[i], PG_TP, b->tpx[cls[i]], set_pending);
		return;
	}
	if (!sg->tp || b->lay->deg[LAYOUT_TP] == 1 || j->tp_bytes <= 0.0)
		return;
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i];
		if (!leads(b, k, PG_TP))
			continue;
		uint32_t held;
		uint32_t id = tp_issue(b, k, sg, GRAPH_NONE, lastv, true, &held);
		each_member(b, k, PG_TP, id, set_pending);
		each_member(b, k, PG_TP, held, set_held);
	}
}

/* Gradient reduction of bucket `bytes` after lastv[] on every DP group of
 * stage st; with offload each member's reduced shard then goes down to the
 * host (with no DP, the bucket itself). */
static void reduce(struct pb *b, uint32_t st, double bytes, const uint32_t *lastv)
{
	uint32_t *cls = b->scls + (size_t)st * b->per;
	if (bytes <= 0.0)
		return;
	b->det.layer0 = b->det.layer1 = GRAPH_NONE;
	if (b->ndp == 1) {
		/* nothing to reduce; offload still copies the gradients down */
		for (uint32_t i = 0; b->j->offload && i < b->per && !b->rc; i++)
			b->c[cls[i]].red_last =
			    xfer(b, cls[i], false, bytes, lastv[cls[i]], "grad to host");
		return;
	}
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i];
		if (!leads(b, k, PG_DP))
			continue;
		uint32_t id =
		    group_coll(b, k, PG_DP, b->j->zero >= 1 ? COLL_REDUCE_SCATTER : COLL_ALL_REDUCE,
			       bytes, GRAPH_COMM, b->c[k].dpcomm, "grad reduction", lastv);
		uint32_t m;
		const uint32_t *mem = pg_members(b, k, PG_DP, &m);
		for (uint32_t x = 0; x < m && !b->rc; x++)
			dep(b, b->tpheld[mem[x]], id);
		each_member(b, k, PG_DP, id, set_red);
		if (b->j->offload) {
			b->xbytes = bytes / (double)b->ndp;
			each_member(b, k, PG_DP, id, grad_down);
		}
	}
}

static void add_seg(struct seg *a, const struct seg *x)
{
	a->s += x->s;
	a->tpo_s += x->tpo_s;
	a->kernels += x->kernels;
	a->alloc += x->alloc;
	a->freeb += x->freeb;
	a->logits_alloc += x->logits_alloc;
	a->logits_free += x->logits_free;
	/* x is one unit (a stage's segments sum units) */
	a->tplast = SEG_TP_KINDS;
	if (x->tp) {
		uint32_t j = 0;
		while (j < a->ntpk && a->tpn[j] != x->tp)
			j++;
		if (j < a->ntpk) {
			a->tpc[j]++;
		} else if (a->ntpk < SEG_TP_KINDS) {
			a->tpn[a->ntpk] = x->tp;
			a->tpc[a->ntpk++] = 1;
		} else { /* more kinds than kept (no model has): the nearest one,
			  * its count raised by about x's collectives */
			j = 0;
			for (uint32_t i = 1; i < a->ntpk; i++)
				if (abs((int)a->tpn[i] - (int)x->tp) <
				    abs((int)a->tpn[j] - (int)x->tp))
					j = i;
			uint32_t c = (x->tp + a->tpn[j] / 2) / a->tpn[j];
			a->tpc[j] += c ? c : 1;
		}
		a->tplast = j;
	}
	a->tp += x->tp;
	a->gather += x->gather;
	a->ungather += x->ungather;
	a->a2a += x->a2a;
	a->ring_s += x->ring_s;
	a->ring_bytes += x->ring_bytes;
	a->dp_gather += x->dp_gather;
	a->dp_gather_bwd = a->dp_gather_bwd || x->dp_gather_bwd;
	a->flops += x->flops;
	if (x->has_layer) {
		a->l0 = a->has_layer && a->l0 < x->l0 ? a->l0 : x->l0;
		a->l1 = a->has_layer && a->l1 > x->l1 ? a->l1 : x->l1;
		a->has_layer = true;
	}
}

static bool seg_any(const struct seg *x)
{
	return x->s > 0.0 || x->kernels || x->alloc > 0.0 || x->freeb > 0.0 || x->tp || x->a2a ||
	       x->logits_alloc > 0.0 || x->logits_free > 0.0 || x->gather > 0.0 ||
	       x->ungather > 0.0 || x->dp_gather > 0.0;
}

/* The input pipeline of batch `i` (0-based over the whole run) of class k
 * (a class of the first stage): its stages one after another on their
 * streams (stage s of batch i + 1 overlaps stage s + 1 of batch i, as the
 * workers of a PyTorch DataLoader do), the first waiting for a free slot of
 * the prefetch queue (the batch `queue` places earlier taken by the GPU),
 * and a "batch ready" mark on the compute stream that the micro-batch's
 * first forward follows, so a late batch shows as a wait for GRAPH_DATA;
 * the host's next launch waits for the last stage. A batch `ahead` is one of
 * the iterations that would follow the simulated ones: it is read into the
 * queue as in a longer run, so that the loader's traffic does not stop
 * before the last iteration, and nothing takes it. */
static void load_batch(struct pb *b, uint32_t k, uint64_t i, bool ahead)
{
	const struct dp_data *d = b->j->data;
	struct pcls *c = &b->c[k];
	uint32_t mult = layout_class_members(b->lay, k), prev = GRAPH_NONE;
	for (uint32_t s = 0; s < d->nstages && !b->rc; s++) {
		const struct dp_data_stage *st = &d->stages[(size_t)k * d->nstages + s];
		struct graph_task_spec ts = {.kind = GRAPH_DATA,
					     .stream = c->data[s],
					     .label = st->label,
					     .res = GRAPH_NONE,
					     .mult = mult,
					     .pool = GRAPH_NONE,
					     .uses = st->uses,
					     .nuses = st->nuses,
					     .work = st->work,
					     .bound = st->bound,
					     .latency = st->latency};
		uint32_t id = task(b, &ts);
		if (s == 0 && i >= d->queue)
			dep(b, b->taken[(size_t)k * b->qlen + (i - d->queue) % b->qlen], id);
		dep(b, prev, id);
		prev = id;
	}
	if (k == b->scls[0] && b->out->loaded && i < b->out->nloaded)
		b->out->loaded[i] = prev;
	if (ahead)
		return;
	struct graph_task_spec ms = {.kind = GRAPH_MARK,
				     .stream = c->compute,
				     .label = "batch ready",
				     .res = GRAPH_NONE,
				     .mult = mult,
				     .pool = GRAPH_NONE};
	uint32_t id = task(b, &ms);
	dep(b, prev, id);
	if (!b->rc)
		b->taken[(size_t)k * b->qlen + i % b->qlen] = id;
	c->batch = prev;
}

/* ZeRO-3 gathers and frees weights per FSDP unit, which is a layer (a
 * transformer block, the embedding, the head: FSDP's transformer auto-wrap
 * policy, DeepSpeed's module hooks) whatever the task size simulated: the
 * units [u0, u1) of one chunk that share unit u's layer form one FSDP
 * unit. Its weight elements, and whether u opens or closes it in the order
 * a pass walks them (forward: ascending, backward: descending). */
static double fsdp_unit_params(const struct dp_unit *units, uint32_t u0, uint32_t u1, uint32_t u)
{
	uint32_t a = u, z = u;
	while (a > u0 && units[a - 1].layer == units[u].layer)
		a--;
	while (z + 1 < u1 && units[z + 1].layer == units[u].layer)
		z++;
	double sum = 0.0;
	for (uint32_t v = a; v <= z; v++)
		sum += units[v].params;
	return sum;
}

static bool fsdp_unit_edge(const struct dp_unit *units, uint32_t u0, uint32_t u1, uint32_t u,
			   bool up)
{
	if (up)
		return u + 1 >= u1 || units[u + 1].layer != units[u].layer;
	return u == u0 || units[u - 1].layer != units[u].layer;
}

/* Activation offload (pipe_job.act_offload_layers): whether layer `layer`
 * (1 .. L the blocks; 0 the embedding, L + 1 the head) copies its
 * activations to the host, and the bytes it saved (its units' act_bytes but
 * the logits) among units [u0, u1) of one chunk. */
static bool aoff_layer(const struct pipe_job *j, int layer)
{
	return layer >= 1 && layer <= (int)j->act_offload_layers;
}

static double aoff_layer_bytes(const struct dp_unit *units, uint32_t u0, uint32_t u1, int layer)
{
	double sum = 0.0;
	for (uint32_t u = u0; u < u1; u++)
		if ((int)units[u].layer == layer && units[u].act_cat != GRAPH_MEM_LOGITS)
			sum += units[u].act_bytes;
	return sum;
}

/* Activation offload at the end of layer `layer`'s forward on every class
 * of stage st: the previous layer's copy to the host is awaited and its
 * bytes freed (lastv moves to that mark), and this layer's copy starts
 * after its compute. */
static void aoff_forward(struct pb *b, uint32_t st, uint32_t u0, uint32_t u1, int layer,
			 uint32_t *lastv)
{
	const struct pipe_job *j = b->j;
	uint32_t *cls = b->scls + (size_t)st * b->per;
	double bytes = aoff_layer(j, layer) ? aoff_layer_bytes(j->units, u0, u1, layer) : 0.0;
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i], after = lastv[k];
		struct pcls *c = &b->c[k];
		if (c->aoff != GRAPH_NONE) {
			uint32_t id = mark(b, k, "activations offloaded", GRAPH_MEM_ACTIVATIONS,
					   0.0, c->aoff_bytes);
			dep(b, c->aoff, id);
			lastv[k] = id;
			c->aoff = GRAPH_NONE;
		}
		if (bytes > 0.0) {
			c->aoff = xfer(b, k, false, bytes, after, "activations to host");
			c->aoff_bytes = bytes;
		}
	}
}

/* Activation offload at the start of layer `layer`'s backward on every
 * class of stage st: it waits for its own reload, and the reload of the
 * layer below starts (after lastv, the end of the backward before, and
 * after this layer's reload on the same copy stream). */
static void aoff_backward(struct pb *b, uint32_t st, uint32_t u0, uint32_t u1, int layer,
			  const uint32_t *lastv)
{
	const struct pipe_job *j = b->j;
	uint32_t *cls = b->scls + (size_t)st * b->per;
	double bytes =
	    aoff_layer(j, layer - 1) ? aoff_layer_bytes(j->units, u0, u1, layer - 1) : 0.0;
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i];
		struct pcls *c = &b->c[k];
		if (aoff_layer(j, layer) && c->arel != GRAPH_NONE) {
			join(b, &c->pending, c->arel);
			c->arel = GRAPH_NONE;
		}
		if (bytes > 0.0)
			c->arel =
			    xfer_mem(b, k, true, bytes, lastv[k], "activations to gpu", bytes);
	}
}

/* The buffers of context- and expert-parallel exchanges in the pass of
 * chunk [u0, u1) (pipe_job cp_buf_*, a2a_buf_bytes): false when the chunk
 * has none; else *ua the first unit of the first layer that exchanges, *ub
 * the last unit of the last one, and the bytes held meanwhile in a
 * forward (*fwd) and a backward (*bwd; the larger of both where a unit
 * reruns its forward first), the most any of its layers needs. A window of
 * whole layers: the peak is then the same at op, layer and stage
 * granularity, whose tasks hold a layer's activations from different
 * moments within it; a layer's attention (MoE block) in fact holds them
 * only while it runs, so where the buffers make the peak it is over by
 * at most the activations the layer saves after them. */
static bool xbuf_window(const struct pb *b, uint32_t u0, uint32_t u1, uint32_t *ua, uint32_t *ub,
			double *fwd, double *bwd)
{
	const struct pipe_job *j = b->j;
	bool cp = b->lay->deg[LAYOUT_CP] > 1 && j->cp_fwd_bytes > 0.0; /* ring or all-to-alls */
	bool ep = j->ep > 1 && j->a2a_bytes > 0.0;
	*fwd = *bwd = 0.0;
	*ua = *ub = GRAPH_NONE;
	if (!cp && !ep)
		return false;
	for (uint32_t u = u0; u < u1; u++) {
		/* the layer of unit u: [a, z] */
		uint32_t a = u, z = u;
		while (z + 1 < u1 && j->units[z + 1].layer == j->units[u].layer)
			z++;
		bool ring = false, a2a = false, rec = false;
		for (uint32_t x = a; x <= z; x++) {
			ring = ring || (cp && j->units[x].ring_fwd_s > 0.0);
			a2a = a2a || (ep && j->units[x].a2a_fwd > 0);
			rec = rec || j->units[x].recompute_s > 0.0;
		}
		if (ring || a2a) {
			if (*ua == GRAPH_NONE)
				*ua = a;
			*ub = z;
			double f =
			    (ring ? j->cp_buf_fwd_bytes : 0.0) + (a2a ? j->a2a_buf_bytes : 0.0);
			double g =
			    (ring ? j->cp_buf_bwd_bytes : 0.0) + (a2a ? j->a2a_buf_bytes : 0.0);
			*fwd = fmax(*fwd, f);
			*bwd = fmax(*bwd, rec ? fmax(f, g) : g);
		}
		u = z;
	}
	return *ua != GRAPH_NONE && (*fwd > 0.0 || *bwd > 0.0);
}

/* Take (alloc) or give back (free) the exchange buffers of a pass on every
 * class of stage st, on the compute stream after the work before. */
static void xbuf_mark(struct pb *b, uint32_t st, double bytes, bool take, uint32_t *firstv)
{
	uint32_t *cls = b->scls + (size_t)st * b->per;
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i];
		uint32_t id = mark(b, k, take ? "exchange buffers" : "exchange buffers freed",
				   GRAPH_MEM_BUFFERS, take ? bytes : 0.0, take ? 0.0 : bytes);
		if (firstv[k] == GRAPH_NONE)
			firstv[k] = id;
	}
}

/* Stage granularity: emit the forward accumulated in *acc so far, if any,
 * and start a new one, so that what comes next (a memory mark, a gather,
 * an offload copy) falls between the two parts. */
static void cut_forward(struct pb *b, uint32_t st, struct seg *acc, uint32_t *firstv,
			uint32_t *lastv)
{
	if (!seg_any(acc))
		return;
	emit_seg(b, st, acc, firstv, lastv);
	*acc = (struct seg){.label = "forward", .kind = GRAPH_COMPUTE};
}

/* One pass of stage st for every class of it. */
static void emit_pass(struct pb *b, uint32_t it, uint32_t st, const struct pass *ps,
		      uint32_t *firstv, uint32_t *lastv, const double *bb)
{
	const struct pipe_job *j = b->j;
	uint32_t *cls = b->scls + (size_t)st * b->per;
	uint32_t vs = ps->chunk * b->p + st, u0 = b->first[vs], u1 = b->first[vs + 1];
	bool coarse = j->gran == DP_GRAN_STAGE, z3 = j->zero == 3;
	b->det.iter = it;
	b->det.mb = ps->mb;
	b->det.pass = ps->bwd ? 2 : 1;
	b->det.layer0 = b->det.layer1 = GRAPH_NONE;
	for (uint32_t i = 0; i < b->per; i++) {
		uint32_t k = cls[i];
		firstv[k] = lastv[k] = GRAPH_NONE;
	}
	struct seg acc = {.label = ps->bwd ? "backward" : "forward", .kind = GRAPH_COMPUTE};
	/* a micro-batch enters the pipeline at the first chunk of stage 0 */
	for (uint32_t i = 0; j->data && st == 0 && !ps->bwd && ps->chunk == 0 && i < b->per; i++)
		load_batch(b, cls[i], (uint64_t)it * b->m + ps->mb, false);
	/* FSDP's root pre-forward: the all-gather stream waits for the
	 * compute stream before a forward's first all-gather (unlimited);
	 * limited, a pass's first gathered buffer is taken from its start */
	for (uint32_t i = 0; z3 && (!j->gather_unlimited || !ps->bwd) && i < b->per && !b->rc; i++)
		b->c[cls[i]].zroot =
		    mark(b, cls[i], j->gather_unlimited ? "pre-forward" : "pass start",
			 GRAPH_MEM_BUFFERS, 0.0, 0.0);
	/* the exchange buffers' window (a stage's pass is cut at its edges) */
	uint32_t xa, xb;
	double xfwd, xbwd;
	bool xw = xbuf_window(b, u0, u1, &xa, &xb, &xfwd, &xbwd);
	double xbytes = ps->bwd ? xbwd : xfwd;
	if (!ps->bwd) {
		bool gated = ps->mb == 0 && b->gate;
		for (uint32_t u = u0; u < u1 && !b->rc; u++) {
			const struct dp_unit *x = &j->units[u];
			if (xw && u == xa) {
				if (coarse)
					cut_forward(b, st, &acc, firstv, lastv);
				xbuf_mark(b, st, xbytes, true, firstv);
			}
			/* the first forward of a bucket waits for its weights */
			bool opens = gated && (u == u0 || b->bucket_of[u - 1] != b->bucket_of[u]);
			/* ZeRO-3: a unit's gather opens its FSDP unit, its
			 * free closes it; a stage's pass is cut between them */
			bool zopen = z3 && fsdp_unit_edge(j->units, u0, u1, u, false);
			bool zclose = z3 && fsdp_unit_edge(j->units, u0, u1, u, true);
			double zp = zopen || zclose ? fsdp_unit_params(j->units, u0, u1, u) : 0.0;
			/* without resharding, gathered once and kept (see pipe.h) */
			bool zg = zopen && (j->reshard || ps->mb == 0);
			bool zf = zclose && j->reshard;
			if ((opens || zopen) && coarse && u > u0)
				cut_forward(b, st, &acc, firstv, lastv);
			for (uint32_t i = 0; opens && i < b->per && !b->rc; i++) {
				uint32_t *gt = &b->gate[(size_t)cls[i] * j->nunits + u];
				if (*gt != GRAPH_NONE)
					join(b, &b->c[cls[i]].pending, *gt);
				*gt = GRAPH_NONE;
			}
			bool lg = x->act_cat == GRAPH_MEM_LOGITS;
			struct seg sg = {.label = x->label,
					 .kind = GRAPH_COMPUTE,
					 .s = x->fwd_s,
					 .tpo_s = x->tpo_fwd_s,
					 .kernels = x->kernels_fwd,
					 .alloc = lg ? 0.0 : x->act_bytes,
					 .logits_alloc = lg ? x->act_bytes : 0.0,
					 .tp = x->tp_fwd,
					 .gather = zg ? zp : 0.0,
					 .ungather = zf ? zp : 0.0,
					 .a2a = x->a2a_fwd,
					 .dp_gather = x->dp_gather_bytes,
					 .ring_s = x->ring_fwd_s,
					 .ring_bytes = x->ring_fwd_s > 0.0 ? j->cp_fwd_bytes : 0.0,
					 .flops = x->fwd_flops,
					 .has_layer = true,
					 .l0 = x->layer,
					 .l1 = x->layer};
			if (coarse)
				add_seg(&acc, &sg);
			else
				emit_seg(b, st, &sg, firstv, lastv);
			if (xw && u == xb) {
				if (coarse)
					cut_forward(b, st, &acc, firstv, lastv);
				xbuf_mark(b, st, xbytes, false, firstv);
			}
			/* activation offload: at a layer's end where it or the
			 * layer before offloads (a stage's pass is cut there) */
			int ly = (int)x->layer;
			if (j->act_offload_layers &&
			    (u + 1 == u1 || j->units[u + 1].layer != x->layer) &&
			    (aoff_layer(j, ly) || aoff_layer(j, ly - 1))) {
				if (coarse)
					cut_forward(b, st, &acc, firstv, lastv);
				aoff_forward(b, st, u0, u1, ly, lastv);
			}
		}
		if (coarse)
			emit_seg(b, st, &acc, firstv, lastv);
		/* a copy not yet awaited (not with the plan's layers) */
		if (j->act_offload_layers)
			aoff_forward(b, st, u0, u1, 0, lastv);
	} else {
		bool red = ps->mb + 1 == b->m || j->zero >= 2;
		struct seg rec = {.label = "recompute", .kind = GRAPH_RECOMPUTE};
		for (uint32_t u = u1; u-- > u0 && !b->rc;) {
			const struct dp_unit *x = &j->units[u];
			bool lg = x->act_cat == GRAPH_MEM_LOGITS;
			uint32_t kr = x->kernels_bwd / 2, kd = x->kernels_bwd - kr;
			if (xw && u == xb) /* a stage's pass was cut after the unit before */
				xbuf_mark(b, st, xbytes, true, firstv);
			/* activation offload: a layer's backward starts (a
			 * stage's pass was cut before it) */
			if (j->act_offload_layers &&
			    (u + 1 == u1 || j->units[u + 1].layer != x->layer) &&
			    (aoff_layer(j, (int)x->layer) || aoff_layer(j, (int)x->layer - 1)))
				aoff_backward(b, st, u0, u1, (int)x->layer, lastv);
			/* ZeRO-3: backward walks an FSDP unit from its last
			 * unit, gathering before the first segment (the
			 * recompute's, if any) and freeing after the last */
			bool zopen = z3 && fsdp_unit_edge(j->units, u0, u1, u, true);
			bool zclose = z3 && fsdp_unit_edge(j->units, u0, u1, u, false);
			double zp = zopen || zclose ? fsdp_unit_params(j->units, u0, u1, u) : 0.0;
			double gth = zopen && j->reshard ? zp : 0.0;
			bool zf = zclose && (j->reshard || ps->mb + 1 == b->m);
			/* a recompute makes its activations again (layer lists:
			 * the block's, on its last unit), freed by this
			 * backward; at stage granularity one segment reruns
			 * several units, and holds the largest of them */
			struct seg r = {.label = x->label,
					.kind = GRAPH_RECOMPUTE,
					.s = x->recompute_s,
					.tpo_s = x->recompute_s > 0.0 ? x->tpo_rec_s : 0.0,
					.kernels = x->recompute_s > 0.0 ? x->kernels_rec : 0,
					.alloc = coarse ? 0.0 : x->recompute_bytes,
					.flops = x->recompute_flops,
					.has_layer = true,
					.l0 = x->layer,
					.l1 = x->layer};
			struct seg d = {.label = x->label,
					.kind = GRAPH_COMPUTE,
					.s = x->dgrad_s,
					.tpo_s = x->tpo_dgrad_s,
					.kernels = kd,
					.ring_s = x->ring_bwd_s,
					.ring_bytes = x->ring_bwd_s > 0.0 ? j->cp_bwd_bytes : 0.0,
					.flops = x->dgrad_flops,
					.has_layer = true,
					.l0 = x->layer,
					.l1 = x->layer};
			struct seg w = {.label = x->label,
					.kind = GRAPH_COMPUTE,
					.s = x->wgrad_s,
					.tpo_s = x->tpo_wgrad_s,
					.kernels = kr,
					.freeb = (lg ? 0.0 : x->act_bytes) +
						 (coarse ? 0.0 : x->recompute_bytes),
					.logits_free = lg ? x->act_bytes : 0.0,
					.tp = x->tp_bwd,
					.a2a = x->a2a_bwd,
					.dp_gather = x->dp_gather_bytes,
					.dp_gather_bwd = true,
					.ungather = zf ? zp : 0.0,
					.flops = x->wgrad_flops,
					.has_layer = true,
					.l0 = x->layer,
					.l1 = x->layer};
			if (coarse) {
				add_seg(&rec, &r);
				rec.alloc = fmax(rec.alloc, x->recompute_bytes);
				rec.gather += gth;
				add_seg(&acc, &d);
				add_seg(&acc, &w);
			} else {
				if (r.s > 0.0 || r.alloc > 0.0) {
					r.gather = gth;
					gth = 0.0;
					emit_seg(b, st, &r, firstv, lastv);
				}
				d.gather = gth;
				emit_seg(b, st, &d, firstv, lastv);
				emit_seg(b, st, &w, firstv, lastv);
			}
			/* a stage's segments end at gradient buckets, and after the
			 * head: its backward frees the logits before any layer's
			 * recompute makes activations again */
			/* ... and where the recompute mode changes (Megatron's
			 * recompute_layers: the rerun layers' activations are
			 * made after the kept layers' are freed) */
			bool cut = u == u0 || lg || zclose ||
				   (red && j->overlap && b->bucket_of[u - 1] != b->bucket_of[u]) ||
				   ((j->units[u - 1].recompute_bytes > 0.0) !=
				    (x->recompute_bytes > 0.0)) ||
				   (j->act_offload_layers && j->units[u - 1].layer != x->layer &&
				    (aoff_layer(j, (int)j->units[u - 1].layer) ||
				     aoff_layer(j, (int)j->units[u - 1].layer - 1))) ||
				   (xw && (u == xa || u == xb + 1));
			if (coarse && cut) {
				acc.freeb += rec.alloc;
				if (!(rec.s > 0.0 || rec.alloc > 0.0 || rec.kernels)) {
					acc.gather += rec.gather; /* nothing reruns */
					rec.gather = 0.0;
				}
				if (seg_any(&rec))
					emit_seg(b, st, &rec, firstv, lastv);
				emit_seg(b, st, &acc, firstv, lastv);
				rec = (struct seg){.label = "recompute", .kind = GRAPH_RECOMPUTE};
				acc = (struct seg){.label = "backward", .kind = GRAPH_COMPUTE};
			}
			if (xw && u == xa)
				xbuf_mark(b, st, xbytes, false, firstv);
			bool boundary = u == u0 || b->bucket_of[u - 1] != b->bucket_of[u];
			if (red && j->overlap && boundary)
				reduce(b, st, bb[u0 + b->bucket_of[u]], lastv);
		}
		if (red && !j->overlap)
			for (uint32_t bk = 0; bk < b->nbk[vs]; bk++)
				reduce(b, st, bb[u0 + bk], lastv);
	}
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i];
		if (b->c[k].pending != GRAPH_NONE) { /* a trailing on-path collective */
			uint32_t id = mark(b, k, "tp done", GRAPH_MEM_BUFFERS, 0.0, 0.0);
			dep(b, b->c[k].pending, id);
			b->c[k].pending = GRAPH_NONE;
			lastv[k] = id;
		}
		uint32_t *x = idp(b, it, k, ps->mb, ps->chunk) + (ps->bwd ? 2 : 0);
		x[0] = firstv[k];
		x[1] = lastv[k];
	}
}

/* The optimizer step of every class of stage st, and ZeRO-1/2's weight
 * gathers after it. */
static void emit_step(struct pb *b, uint32_t st, uint32_t *lastv)
{
	const struct pipe_job *j = b->j;
	uint32_t *cls = b->scls + (size_t)st * b->per;
	double dp = (double)b->ndp;
	b->det.mb = b->det.layer0 = b->det.layer1 = GRAPH_NONE;
	b->det.pass = 0;
	for (uint32_t i = 0; i < b->per && !b->rc; i++) {
		uint32_t k = cls[i];
		struct pcls *c = &b->c[k];
		double params = j->zero >= 1 ? c->params / dp : c->params;
		uint32_t mult = layout_class_members(b->lay, k), id;
		c->pending = c->red_last;
		if (j->offload) {
			/* CPU Adam on the host once the gradient shard is down
			 * (the GPU waits for it: the next forward needs the
			 * weights), then, but for ZeRO-3, the weight shard up;
			 * with NVMe, over sub-groups swapped in and out */
			uint32_t end;
			if (j->nvme) {
				id = nvme_step(b, k, params, lastv[k], &end);
			} else {
				struct graph_task_spec ts = {.kind = GRAPH_OPTIMIZER,
							     .stream = c->compute,
							     .label = "cpu optimizer",
							     .seconds =
								 params / j->cpu_adam_params_per_s,
							     .res = GRAPH_NONE,
							     .mult = mult,
							     .pool = GRAPH_NONE};
				end = id = task(b, &ts);
				dep(b, c->pending, id);
				c->pending = GRAPH_NONE;
			}
			/* the iteration ends with the step; the copy up opens the
			 * next one (its first forward waits for it through the
			 * all-gather), so the breakdown charges it to communication */
			c->opt = end;
			lastv[k] = end;
			if (j->zero <= 2)
				lastv[k] =
				    xfer(b, k, true, params * j->gather_bpp, id, "weights to gpu");
			continue;
		}
		/* the step's temporaries, held while it runs (pipe.h) */
		double tmp = fmin(params * j->step_temp_bpp, j->step_temp_max_bytes);
		uint32_t t0 = GRAPH_NONE;
		if (tmp > 0.0) {
			t0 = mark(b, k, "step temporaries", GRAPH_MEM_BUFFERS, tmp, 0.0);
			dep(b, c->pending, t0);
		}
		id = gpu(b, k, GRAPH_OPTIMIZER, "optimizer", params * j->optimizer_s_per_param,
			 j->optimizer_kernels, 0.0, 0.0, NULL);
		if (tmp > 0.0) {
			dep(b, t0, id);
			dep(b, id,
			    mark(b, k, "step temporaries freed", GRAPH_MEM_BUFFERS, 0.0, tmp));
		}
		c->opt = lastv[k] = id;
	}
	if (j->zero < 1 || j->zero > 2 || b->ndp == 1)
		return;
	/* one gather per bucket, chunks and buckets in forward order */
	for (uint32_t jj = 0; jj < b->v && !b->rc; jj++) {
		uint32_t vs = jj * b->p + st, u1 = b->first[vs + 1];
		for (uint32_t u = b->first[vs]; u < u1 && !b->rc;) {
			uint32_t open = u;
			double params = 0.0;
			for (; u < u1 && b->bucket_of[u] == b->bucket_of[open]; u++)
				params += j->units[u].params;
			if (params <= 0.0)
				continue;
			for (uint32_t i = 0; i < b->per && !b->rc; i++) {
				uint32_t k = cls[i];
				if (!leads(b, k, PG_DP))
					continue;
				uint32_t id = group_coll(b, k, PG_DP, COLL_ALL_GATHER,
							 params * j->gather_bpp, GRAPH_COMM,
							 b->c[k].dpcomm, "param all-gather", lastv);
				uint32_t m;
				const uint32_t *mem = pg_members(b, k, PG_DP, &m);
				for (uint32_t x = 0; x < m; x++)
					join(b, &b->gate[(size_t)mem[x] * j->nunits + open], id);
			}
		}
	}
}

/* The transfers between chunks of iteration it. */
static void emit_p2p(struct pb *b, uint32_t it)
{
	const struct pipe_job *j = b->j;
	const struct layout *l = b->lay;
	double bytes = j->tp_bytes / (j->sp ? (double)l->deg[LAYOUT_TP] : 1.0);
	uint32_t n2[2];
	for (uint32_t st = 0; st < b->p && !b->rc; st++) {
		uint32_t n = stage_order(b, st, b->order);
		uint32_t *cls = b->scls + (size_t)st * b->per;
		for (uint32_t q = 0; q < n && !b->rc; q++) {
			const struct pass *ps = &b->order[q];
			uint32_t vs = ps->chunk * b->p + st;
			if ((!ps->bwd && vs + 1 == b->V) || (ps->bwd && vs == 0))
				continue;
			uint32_t to = ps->bwd ? vs - 1 : vs + 1;
			for (uint32_t i = 0; i < b->per && !b->rc; i++) {
				uint32_t k = cls[i];
				n2[0] = layout_class_rep(l, k);
				n2[1] = layout_move(l, n2[0], LAYOUT_PP, to % b->p);
				uint32_t peer = layout_class_of(l, n2[1]);
				struct coll_spec cs = {.op = COLL_BROADCAST,
						       .ranks = n2,
						       .nranks = 2,
						       .bytes = bytes,
						       .mult = layout_p2p_mult(l, k)};
				struct graph_task_spec ts = {.kind = GRAPH_P2P,
							     .stream = GRAPH_NONE,
							     .label =
								 ps->bwd ? "send grad" : "send act",
							     .res = GRAPH_NONE,
							     .mult = 1,
							     .coll = bytes > 0.0 ? &cs : NULL,
							     .pool = GRAPH_NONE};
				b->det = (struct graph_detail){.iter = it,
							       .mb = ps->mb,
							       .layer0 = GRAPH_NONE,
							       .layer1 = GRAPH_NONE,
							       .owner = k,
							       .peer = peer,
							       .pass = ps->bwd ? 2 : 1};
				uint32_t id = task(b, &ts);
				b->det.owner = b->det.peer = GRAPH_NONE;
				dep(b, idp(b, it, k, ps->mb, ps->chunk)[ps->bwd ? 3 : 1], id);
				dep(b, id, idp(b, it, peer, ps->mb, to / b->p)[ps->bwd ? 2 : 0]);
			}
		}
	}
}

static void pb_free(struct pb *b, size_t nids)
{
	ts_free(b->c, b->ncls * sizeof *b->c);
	ts_free(b->first, (b->V + 1) * sizeof *b->first);
	ts_free(b->scls, (size_t)b->p * b->per * sizeof *b->scls);
	ts_free(b->ids, nids * sizeof *b->ids);
	if (b->gate)
		ts_free(b->gate, (size_t)b->ncls * b->j->nunits * sizeof *b->gate);
	ts_free(b->ranks, 2 * (size_t)b->lay->gpus * sizeof *b->ranks);
	ts_free(b->lead, (size_t)b->ncls * PG_COUNT_ * sizeof *b->lead);
	ts_free(b->base, (size_t)b->ncls * PG_COUNT_ * sizeof *b->base);
	ts_free(b->gmult, (size_t)b->ncls * PG_COUNT_ * sizeof *b->gmult);
	ts_free(b->stamp, b->ncls * sizeof *b->stamp);
	ts_free(b->moff, (size_t)b->ncls * PG_COUNT_ * sizeof *b->moff);
	ts_free(b->mcnt, (size_t)b->ncls * PG_COUNT_ * sizeof *b->mcnt);
	ts_free(b->mpool, b->capmpool * sizeof *b->mpool);
	ts_free(b->roff, (size_t)b->ncls * PG_COUNT_ * sizeof *b->roff);
	ts_free(b->rcnt, (size_t)b->ncls * PG_COUNT_ * sizeof *b->rcnt);
	ts_free(b->rpool, b->caprpool * sizeof *b->rpool);
	ts_free(b->ringx, b->ncls * sizeof *b->ringx);
	ts_free(b->tmpv, b->ncls * sizeof *b->tmpv);
	ts_free(b->tpx, b->ncls * sizeof *b->tpx);
	ts_free(b->tpheld, b->ncls * sizeof *b->tpheld);
	if (b->route)
		ts_free(b->route, (size_t)b->ncls * 2 * PIPE_MAX_ROUTE * sizeof *b->route);
	if (b->nroute)
		ts_free(b->nroute, (size_t)b->ncls * 2 * sizeof *b->nroute);
	if (b->nvuse)
		ts_free(b->nvuse, b->nvoff[b->ncls] * sizeof *b->nvuse);
	if (b->nvoff)
		ts_free(b->nvoff, ((size_t)b->ncls + 1) * sizeof *b->nvoff);
	if (b->nvn)
		ts_free(b->nvn, b->ncls * sizeof *b->nvn);
	if (b->nvtmp)
		ts_free(b->nvtmp, 2 * (size_t)b->nvmax * sizeof *b->nvtmp);
	ts_free(b->bucket_of, b->j->nunits * sizeof *b->bucket_of);
	ts_free(b->nbk, b->V * sizeof *b->nbk);
	ts_free(b->order, 2 * (size_t)b->m * b->v * sizeof *b->order);
	if (b->taken)
		ts_free(b->taken, (size_t)b->qlen * b->ncls * sizeof *b->taken);
}

int pipe_build(struct ts_graph *g, struct ts_fluid *f, const struct pipe_job *j,
	       struct pipe_built *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	const struct layout *l = j->lay;
	if (!j->nunits || !j->m || !j->iterations || !j->interleave || !l)
		return ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				    "empty training job (units %u, micro-batches %u, "
				    "iterations %u)",
				    j->nunits, j->m, j->iterations);
	uint32_t p = l->deg[LAYOUT_PP], v = j->interleave;
	if (j->sched != PIPE_INTERLEAVED)
		v = 1;
	/* the plan (sim/plan/plan.c) refuses the scenarios behind these; here
	 * they are a malformed job */
	uint32_t nf = j->flushes ? j->flushes : 1u;
	if (j->m % nf || (v > 1 && (j->m / nf) % p) ||
	    (j->offload && (j->zero < 1 || !j->net || !(j->cpu_adam_params_per_s > 0.0))) ||
	    (j->nvme && (!j->offload || !(j->nvme_read_Bps > 0.0) || !(j->nvme_write_Bps > 0.0) ||
			 !(j->nvme_subgroup_params > 0.0))) ||
	    (j->ep > 1 && l->deg[LAYOUT_DP] % j->ep) ||
	    (j->act_offload_layers && (p > 1 || v > 1 || !j->net)))
		return ts_error_set(
		    err, TS_EINVALID, NULL, 0, NULL,
		    "malformed training job (micro-batches %u in %u flushes on %u stages "
		    "x %u chunks, offload %d with zero %d, nvme %d, ep %u of dp %u)",
		    j->m, nf, p, v, j->offload, j->zero, j->nvme, j->ep, l->deg[LAYOUT_DP]);
	if (j->data && (j->data->nstages == 0 || j->data->nstages > DP_DATA_MAX_STAGES ||
			j->data->queue == 0 || !j->data->stages))
		return ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				    "malformed input pipeline (%u stages, queue %u)",
				    j->data->nstages, j->data->queue);
	const char *offname = j->nvme ? "nvme" : "cpu";
	struct pb b = {.g = g,
		       .j = j,
		       .out = out,
		       .lay = l,
		       .p = p,
		       .v = v,
		       .V = p * v,
		       .m = j->m,
		       .flushes = nf,
		       .niter = j->iterations,
		       .ncls = l->nclasses};
	b.per = b.ncls / p;
	b.ndp = l->deg[LAYOUT_DP] * l->deg[LAYOUT_CP];
	size_t nids = (size_t)b.niter * b.ncls * b.m * v * 4;
	double *bb = NULL;
	b.c = ts_calloc(b.ncls, sizeof *b.c);
	b.first = ts_calloc(b.V + 1, sizeof *b.first);
	b.scls = ts_calloc((size_t)p * b.per, sizeof *b.scls);
	b.ids = ts_malloc(nids * sizeof *b.ids);
	b.ranks = ts_calloc(2 * (size_t)l->gpus, sizeof *b.ranks);
	b.lead = ts_calloc((size_t)b.ncls * PG_COUNT_, sizeof *b.lead);
	b.base = ts_calloc((size_t)b.ncls * PG_COUNT_, sizeof *b.base);
	b.gmult = ts_calloc((size_t)b.ncls * PG_COUNT_, sizeof *b.gmult);
	b.stamp = ts_calloc(b.ncls, sizeof *b.stamp);
	b.moff = ts_malloc((size_t)b.ncls * PG_COUNT_ * sizeof *b.moff);
	b.mcnt = ts_calloc((size_t)b.ncls * PG_COUNT_, sizeof *b.mcnt);
	b.roff = ts_malloc((size_t)b.ncls * PG_COUNT_ * sizeof *b.roff);
	b.rcnt = ts_calloc((size_t)b.ncls * PG_COUNT_, sizeof *b.rcnt);
	b.ringx = ts_calloc(b.ncls, sizeof *b.ringx);
	b.tmpv = ts_calloc(b.ncls, sizeof *b.tmpv);
	b.tpx = ts_calloc(b.ncls, sizeof *b.tpx);
	b.tpheld = ts_calloc(b.ncls, sizeof *b.tpheld);
	if (j->data) {
		uint64_t batches = (uint64_t)b.niter * b.m;
		b.qlen = j->data->queue < batches ? j->data->queue : (uint32_t)batches;
		b.taken = ts_calloc((size_t)b.qlen * b.ncls, sizeof *b.taken);
		out->nloaded = (uint32_t)(batches + j->data->queue);
		out->per_iter = b.m;
		out->loaded = ts_calloc(out->nloaded, sizeof *out->loaded);
	}
	bool copies = j->offload || j->act_offload_layers; /* PCIe copies to the host */
	if (copies) {
		b.route = ts_calloc((size_t)b.ncls * 2 * PIPE_MAX_ROUTE, sizeof *b.route);
		b.nroute = ts_calloc((size_t)b.ncls * 2, sizeof *b.nroute);
	}
	b.bucket_of = ts_calloc(j->nunits, sizeof *b.bucket_of);
	b.nbk = ts_calloc(b.V, sizeof *b.nbk);
	b.order = ts_calloc(2 * (size_t)b.m * v, sizeof *b.order);
	bb = ts_calloc(j->nunits, sizeof *bb);
	uint32_t *firstv = ts_calloc(b.ncls, sizeof *firstv);
	uint32_t *lastv = ts_calloc(b.ncls, sizeof *lastv);
	out->nclasses = b.ncls;
	out->niter = b.niter;
	out->compute = ts_calloc(b.ncls, sizeof *out->compute);
	out->pool = ts_calloc(b.ncls, sizeof *out->pool);
	out->opt = ts_calloc(b.ncls, sizeof *out->opt);
	out->iter_end = ts_calloc(b.niter, sizeof *out->iter_end);
	if (j->zero >= 1 && j->zero <= 2)
		b.gate = ts_calloc((size_t)b.ncls * j->nunits, sizeof *b.gate);
	if (!b.c || !b.first || !b.scls || !b.ids || !b.ranks || !b.bucket_of || !b.nbk ||
	    !b.lead || !b.base || !b.gmult || !b.stamp || !b.moff || !b.mcnt || !b.roff ||
	    !b.rcnt || !b.ringx || !b.tmpv || !b.tpx || !b.tpheld ||
	    (copies && (!b.route || !b.nroute)) || !b.order || !bb || !firstv || !lastv ||
	    !out->compute || !out->pool || !out->opt || !out->iter_end ||
	    (j->zero >= 1 && j->zero <= 2 && !b.gate) || (j->data && (!b.taken || !out->loaded))) {
		b.rc = TS_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < nids; i++)
		b.ids[i] = GRAPH_NONE;
	for (size_t i = 0; i < (size_t)b.ncls * PG_COUNT_; i++)
		b.moff[i] = b.roff[i] = UINT32_MAX;
	b.keep = graph_keeps_detail(g);
	b.det = (struct graph_detail){.iter = GRAPH_NONE,
				      .mb = GRAPH_NONE,
				      .layer0 = GRAPH_NONE,
				      .layer1 = GRAPH_NONE,
				      .owner = GRAPH_NONE,
				      .peer = GRAPH_NONE};
	pg_init(&b);
	for (uint32_t k = 0; copies && k < b.ncls; k++) {
		uint32_t r = layout_class_rep(l, k);
		for (int up = 0; up < 2; up++)
			if (host_route(j->net, r, up,
				       b.route + ((size_t)k * 2 + up) * PIPE_MAX_ROUTE,
				       &b.nroute[k * 2 + up])) {
				pb_free(&b, nids);
				ts_free(bb, j->nunits * sizeof *bb);
				ts_free(firstv, b.ncls * sizeof *firstv);
				ts_free(lastv, b.ncls * sizeof *lastv);
				pipe_built_free(out);
				if (!j->offload)
					return ts_error_set(
					    err, TS_EINVALID, NULL, 0,
					    "training.activation_offload_layers",
					    "found %u, but GPU %u has no route to a CPU socket in "
					    "the cluster description; expected one",
					    j->act_offload_layers, r);
				return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel.offload",
						    "found \"%s\", but GPU %u has no route to a "
						    "CPU socket in the cluster description; "
						    "expected one",
						    offname, r);
			}
	}
	if (j->nvme && (b.rc = nvme_setup(&b, f)))
		goto done;
	for (size_t i = 0; b.gate && i < (size_t)b.ncls * j->nunits; i++)
		b.gate[i] = GRAPH_NONE;
	if (pipe_split(j->units, j->nunits, b.V, j->chunk_layers, b.first)) {
		pb_free(&b, nids);
		ts_free(bb, j->nunits * sizeof *bb);
		ts_free(firstv, b.ncls * sizeof *firstv);
		ts_free(lastv, b.ncls * sizeof *lastv);
		pipe_built_free(out);
		return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel.pp",
				    "found pp x interleave = %u chunks, expected at most one "
				    "chunk per layer (and chunk layers that sum to the model's)",
				    b.V);
	}
	/* buckets per chunk (ZeRO-3: one per unit, as FSDP wraps each layer) */
	double cap = j->zero == 3 ? 1e-300 : j->bucket_bytes;
	double first_cap = j->zero == 3 ? 0.0 : j->first_bucket_bytes;
	for (uint32_t vs = 0; vs < b.V; vs++) {
		uint32_t u0 = b.first[vs], n = b.first[vs + 1] - u0;
		b.nbk[vs] = dp_assign_buckets(j->units + u0, n, cap, first_cap, b.bucket_of + u0);
		for (uint32_t u = u0; u < u0 + n; u++)
			bb[u0 + b.bucket_of[u]] += j->units[u].grad_bytes;
	}
	{
		uint32_t *fill = firstv;
		memset(fill, 0, b.ncls * sizeof *fill);
		uint32_t *cnt = lastv;
		memset(cnt, 0, b.ncls * sizeof *cnt);
		for (uint32_t k = 0; k < b.ncls; k++) {
			uint32_t s = layout_class_stage(l, k);
			b.scls[(size_t)s * b.per + cnt[s]++] = k;
		}
	}
	double dp = (double)b.ndp;
	for (uint32_t k = 0; k < b.ncls && !b.rc; k++) {
		struct pcls *c = &b.c[k];
		uint32_t s = layout_class_stage(l, k), mult = layout_class_members(l, k);
		c->pending = c->red_last = c->prev_alloc = c->opt = c->batch = GRAPH_NONE;
		c->zlast = c->zroot = GRAPH_NONE;
		c->aoff = c->arel = GRAPH_NONE;
		for (uint32_t jj = 0; jj < v; jj++)
			for (uint32_t u = b.first[jj * p + s]; u < b.first[jj * p + s + 1]; u++)
				c->params += j->units[u].params;
		if ((b.rc = graph_stream(g, "host", &c->host)) ||
		    (b.rc = graph_stream(g, "compute", &c->compute)) ||
		    (b.rc = graph_stream(g, "dp comm", &c->dpcomm)) ||
		    (b.rc = graph_stream(g, "zero gather", &c->gather)) ||
		    (b.rc = graph_stream(g, "tp comm", &c->tpcomm)) ||
		    (copies && (b.rc = graph_stream(g, "offload d2h", &c->d2h))) ||
		    (copies && (b.rc = graph_stream(g, "offload h2d", &c->h2d))) ||
		    (j->nvme && (b.rc = graph_stream(g, "nvme read", &c->nvr))) ||
		    (j->nvme && (b.rc = graph_stream(g, "nvme write", &c->nvw))) ||
		    (b.rc = graph_pool(g, "gpu", &c->pool)) ||
		    (b.rc = fluid_resource_add(f, 1.0, mult, &c->gpu)))
			break;
		for (uint32_t d = 0; j->data && s == 0 && d < j->data->nstages && !b.rc; d++)
			b.rc = graph_stream(g, j->data->stages[d].label, &c->data[d]);
		uint32_t ns = graph_nstreams(g);
		if (!b.rc &&
		    ts_grow((void **)&out->stream_cls, &out->capsc, ns, sizeof *out->stream_cls))
			b.rc = TS_ENOMEM;
		for (uint32_t x = out->nstreams; !b.rc && x < ns; x++)
			out->stream_cls[x] = k;
		out->nstreams = b.rc ? out->nstreams : ns;
		if (j->data && s == 0 && !out->data_class_set) {
			memcpy(out->data_streams, c->data, sizeof out->data_streams);
			out->data_class_set = true;
		}
		bool off = j->offload;
		graph_pool_add(g, c->pool, GRAPH_MEM_WEIGHTS,
			       off && j->zero >= 3
				   ? 0.0
				   : c->params * j->weight_bpp / (j->zero >= 3 ? dp : 1.0));
		graph_pool_add(g, c->pool, GRAPH_MEM_GRADIENTS,
			       off && j->zero >= 2
				   ? 0.0
				   : c->params * j->grad_bpp / (j->zero >= 2 ? dp : 1.0));
		graph_pool_add(g, c->pool, GRAPH_MEM_OPTIMIZER,
			       off ? 0.0 : c->params * j->optim_bpp / (j->zero >= 1 ? dp : 1.0));
		graph_pool_add(g, c->pool, GRAPH_MEM_BUFFERS,
			       c->params * j->buffer_bpp +
				   fmin(c->params * j->ipg_bpp, j->ipg_max_bytes));
		out->compute[k] = c->compute;
		out->pool[k] = c->pool;
	}
	for (uint32_t it = 0; it < b.niter && !b.rc; it++) {
		for (uint32_t st = 0; st < p && !b.rc; st++) {
			uint32_t n = stage_order(&b, st, b.order);
			for (uint32_t q = 0; q < n && !b.rc; q++)
				emit_pass(&b, it, st, &b.order[q], firstv, lastv, bb);
			emit_step(&b, st, lastv);
		}
		struct graph_task_spec ms = {.kind = GRAPH_MARK,
					     .stream = GRAPH_NONE,
					     .label = "iteration end",
					     .res = GRAPH_NONE,
					     .mult = 1,
					     .pool = GRAPH_NONE};
		out->iter_end[it] = task(&b, &ms);
		for (uint32_t k = 0; k < b.ncls && !b.rc; k++) {
			dep(&b, b.c[k].opt, out->iter_end[it]);
			out->opt[k] = b.c[k].opt;
		}
		emit_p2p(&b, it);
	}
	/* the queue's worth of batches a longer run would read next */
	uint64_t nb = (uint64_t)b.niter * b.m;
	for (uint64_t i = nb; j->data && i < nb + j->data->queue && !b.rc; i++)
		for (uint32_t q = 0; q < b.per && !b.rc; q++)
			load_batch(&b, b.scls[q], i, true);
done:
	pb_free(&b, nids);
	ts_free(bb, j->nunits * sizeof *bb);
	ts_free(firstv, b.ncls * sizeof *firstv);
	ts_free(lastv, b.ncls * sizeof *lastv);
	if (b.rc) {
		pipe_built_free(out);
		return ts_error_set(err, b.rc, NULL, 0, NULL,
				    "building the training "
				    "schedule failed (%s)",
				    ts_strerror(b.rc));
	}
	return 0;
}

void pipe_built_free(struct pipe_built *b)
{
	ts_free(b->compute, b->nclasses * sizeof *b->compute);
	ts_free(b->pool, b->nclasses * sizeof *b->pool);
	ts_free(b->opt, b->nclasses * sizeof *b->opt);
	ts_free(b->iter_end, b->niter * sizeof *b->iter_end);
	ts_free(b->loaded, b->nloaded * sizeof *b->loaded);
	ts_free(b->stream_cls, b->capsc * sizeof *b->stream_cls);
	memset(b, 0, sizeof *b);
}
