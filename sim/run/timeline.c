/* Timeline of a run, written to a Chrome trace as it happens.
 *
 * Processes are nodes ("node 0") and the links; a track belongs to one
 * rank class (in class mode it stands for its alike ranks too, which the
 * name says) and one role: a stream of the task graph ("compute", "host",
 * an input-pipeline stage) or, for communication, the collective's kind
 * (its label: "grad reduction", "param all-gather", "tp collective",
 * "send act"...). Perfetto wants the slices of one track disjoint or
 * nested; a stream's tasks run one after the other, but collectives issued
 * off a stream may overlap, so each (class, role) has lanes: a task takes
 * the first lane free when it starts and gives it back when it ends, so no
 * two slices of a lane overlap whatever the schedule. A pipeline transfer
 * is drawn on the sender's "send" track and the receiver's "recv" track,
 * joined by a flow arrow. Memory counters follow the graph's pools (one per
 * class), link counters the loads of the chosen links as the fluid solver
 * changes them; a counter is written once per time stamp (the last value
 * of that instant).
 *
 * A collective is drawn on the track of every class taking part (each
 * finds its own lane again when it ends: a lane remembers its task).
 * Memory grows with tracks, classes, pools and links, never with the tasks
 * or with what was written.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "run/timeline.h"

#define NONE UINT32_MAX
#define MAX_ROLES 48u

struct lane {
	uint32_t track;
	uint32_t task; /* the task on it, or NONE when free */
};

/* The lanes of one (class, role). */
struct slot {
	struct lane *lanes;
	size_t n, cap;
};

/* A counter's value not yet written: the last of instant t. */
struct pend {
	ts_time t;
	double v;
	bool set;
};

/* Where a task is drawn: a class and a role. */
struct place {
	uint32_t k, role;
};

struct timeline {
	struct timeline_src s;
	uint32_t ncls, gpn;
	const char *roles[MAX_ROLES];
	uint32_t nroles;
	struct slot *slots; /* class k, role r at k * MAX_ROLES + r */
	uint32_t *node_proc;
	uint32_t nnodes;
	struct place *places; /* scratch: a task's places, ncls + 2 */
	uint32_t *stamp;      /* scratch per class */
	uint32_t epoch;
	uint32_t *pool_cls; /* per pool: its class */
	size_t npools;
	struct pend *pool_pend;
	uint32_t *link_of; /* per fluid resource: index in s.links, or NONE */
	size_t nres;
	struct pend link_pend[TIMELINE_MAX_LINKS];
	char link_name[TIMELINE_MAX_LINKS][160];
	double link_cap[TIMELINE_MAX_LINKS];
	uint32_t links_proc;
	char buf[400];
	int rc;
};

static void fail(struct timeline *x, int rc)
{
	if (!x->rc)
		x->rc = rc;
}

/* The role of a name (static strings: pointers compared, then text). */
static uint32_t role_of(struct timeline *x, const char *name)
{
	for (uint32_t i = 0; i < x->nroles; i++)
		if (x->roles[i] == name || !strcmp(x->roles[i], name))
			return i;
	if (x->nroles == MAX_ROLES)
		return MAX_ROLES - 1; /* shares the last role's lanes: still nested */
	x->roles[x->nroles] = name;
	return x->nroles++;
}

/* The process of node nd, made when first needed. */
static uint32_t node_proc(struct timeline *x, uint32_t nd)
{
	if (x->node_proc[nd] == NONE) {
		char name[64];
		snprintf(name, sizeof name, "node %u", nd);
		uint32_t p;
		if (trace_process_at(x->s.tr, name, nd, &p)) {
			fail(x, trace_status(x->s.tr));
			return 0;
		}
		x->node_proc[nd] = p;
	}
	return x->node_proc[nd];
}

/* "GPU 3 compute | node 0, rank 3 (tp 3, pp 0, dp 0) stage 0" and the
 * alike ranks of a class. */
static void describe(struct timeline *x, uint32_t k, const char *what, size_t lane, char *buf,
		     size_t n)
{
	const struct layout *l = x->s.lay;
	uint32_t r = layout_class_rep(l, k), m = layout_class_members(l, k);
	int w = snprintf(buf, n, "GPU %u %s | node %u, rank %u (tp %u, pp %u, dp %u", r % x->gpn,
			 what, r / x->gpn, r, layout_coord(l, r, LAYOUT_TP),
			 layout_coord(l, r, LAYOUT_PP), layout_coord(l, r, LAYOUT_DP));
	if (w > 0 && (size_t)w < n && l->deg[LAYOUT_CP] > 1)
		w += snprintf(buf + w, n - (size_t)w, ", cp %u", layout_coord(l, r, LAYOUT_CP));
	if (w > 0 && (size_t)w < n)
		w += snprintf(buf + w, n - (size_t)w, ") stage %u", layout_class_stage(l, k));
	if (w > 0 && (size_t)w < n && m > 1)
		w += snprintf(buf + w, n - (size_t)w, ", standing for %u alike ranks", m);
	if (w > 0 && (size_t)w < n && lane > 0)
		snprintf(buf + w, n - (size_t)w, " [lane %zu]", lane + 1);
}

/* A free lane of class k's role r for task id (made when none is free):
 * its track, or NONE on error. */
static uint32_t take_lane(struct timeline *x, uint32_t k, uint32_t r, uint32_t id)
{
	struct slot *sl = &x->slots[k * MAX_ROLES + r];
	for (size_t i = 0; i < sl->n; i++)
		if (sl->lanes[i].task == NONE) {
			sl->lanes[i].task = id;
			return sl->lanes[i].track;
		}
	if (ts_grow((void **)&sl->lanes, &sl->cap, sl->n + 1, sizeof *sl->lanes)) {
		fail(x, TS_ENOMEM);
		return NONE;
	}
	uint32_t rep = layout_class_rep(x->s.lay, k);
	uint32_t proc = node_proc(x, rep / x->gpn);
	describe(x, k, x->roles[r], sl->n, x->buf, sizeof x->buf);
	/* by GPU, then compute and host first, then the rest as first seen */
	int64_t sort = (int64_t)(rep % x->gpn) * 100000 + (int64_t)r * 100 + (int64_t)sl->n;
	struct lane *ln = &sl->lanes[sl->n];
	if (trace_track_at(x->s.tr, proc, x->buf, sort, &ln->track)) {
		fail(x, trace_status(x->s.tr));
		return NONE;
	}
	ln->task = id;
	sl->n++;
	return ln->track;
}

/* Give back the lane task id holds in class k's role r: its track, or
 * NONE when it holds none. */
static uint32_t give_lane(struct timeline *x, uint32_t k, uint32_t r, uint32_t id)
{
	struct slot *sl = &x->slots[k * MAX_ROLES + r];
	for (size_t i = 0; i < sl->n; i++)
		if (sl->lanes[i].task == id) {
			sl->lanes[i].task = NONE;
			return sl->lanes[i].track;
		}
	return NONE;
}

static bool is_comm(enum graph_kind k)
{
	return k == GRAPH_COMM || k == GRAPH_P2P;
}

/* "send act" -> "recv act" */
static const char *recv_role(const char *label)
{
	if (!strncmp(label, "send ", 5)) {
		static const char *const names[] = {"recv act", "recv grad"};
		return !strcmp(label + 5, "act") ? names[0] : names[1];
	}
	return "recv";
}

/* The places of task id into x->places; returns their number (0: not
 * drawn). A pipeline transfer: the sender's send, then the receiver's
 * receive; a collective: every member class; any other task: its stream's
 * class. */
static uint32_t places(struct timeline *x, uint32_t id)
{
	const struct graph_rec *rec = graph_rec(x->s.g, id);
	const struct graph_detail *d = graph_detail(x->s.g, id);
	if (rec->kind == GRAPH_MARK)
		return 0;
	uint32_t k = NONE;
	if (rec->stream != GRAPH_NONE && rec->stream < x->s.pb->nstreams)
		k = x->s.pb->stream_cls[rec->stream];
	else if (d)
		k = d->owner;
	if (k == NONE || k >= x->ncls)
		return 0;
	const char *rn = is_comm(rec->kind) || rec->stream == GRAPH_NONE
			     ? rec->label
			     : graph_stream_name(x->s.g, rec->stream);
	uint32_t role = role_of(x, rn), n = 0;
	x->places[n++] = (struct place){k, role};
	if (rec->kind == GRAPH_P2P) {
		if (d && d->peer != GRAPH_NONE && d->peer < x->ncls)
			x->places[n++] = (struct place){d->peer, role_of(x, recv_role(rec->label))};
		return n;
	}
	const uint32_t *ranks;
	uint32_t nr = is_comm(rec->kind) ? graph_coll_ranks(x->s.g, id, &ranks) : 0;
	if (!nr)
		return n;
	x->epoch++;
	x->stamp[k] = x->epoch;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t mk = layout_class_of(x->s.lay, ranks[i]);
		if (mk < x->ncls && x->stamp[mk] != x->epoch) {
			x->stamp[mk] = x->epoch;
			x->places[n++] = (struct place){mk, role};
		}
	}
	return n;
}

static void on_task_start(struct timeline *x, uint32_t id)
{
	uint32_t n = places(x, id);
	for (uint32_t i = 0; i < n && !x->rc; i++)
		take_lane(x, x->places[i].k, x->places[i].role, id);
}

/* The slice's name: the pass and the label ("fwd layer 3", "bwd qkv"). */
static const char *slice_name(struct timeline *x, const struct graph_rec *rec,
			      const struct graph_detail *d)
{
	const char *l = rec->label;
	bool plain = !strcmp(l, "forward") || !strcmp(l, "backward") || !strcmp(l, "recompute");
	bool compute = rec->kind == GRAPH_COMPUTE || rec->kind == GRAPH_RECOMPUTE;
	const char *pass = !d || !compute || plain	  ? ""
			   : rec->kind == GRAPH_RECOMPUTE ? "recompute "
			   : d->pass == 1		  ? "fwd "
			   : d->pass == 2		  ? "bwd "
							  : "";
	if (d && compute && d->layer0 != GRAPH_NONE && d->layer0 == d->layer1 &&
	    !strcmp(l, "layer"))
		snprintf(x->buf, sizeof x->buf, "%slayer %u", pass, d->layer0);
	else
		snprintf(x->buf, sizeof x->buf, "%s%s", pass, l);
	return x->buf;
}

static void on_task_end(struct timeline *x, uint32_t id)
{
	static const char *const cats[GRAPH_KIND_COUNT_] = {
	    "compute", "recompute", "optimizer", "comm", "p2p", "data", "host", "mark"};
	uint32_t np = places(x, id);
	if (!np)
		return;
	const struct graph_rec *rec = graph_rec(x->s.g, id);
	const struct graph_detail *d = graph_detail(x->s.g, id);
	struct trace_arg a[8];
	size_t n = 0;
	char layers[32];
	a[n++] = (struct trace_arg){.key = "kind", .type = TRACE_ARG_STR, .s = cats[rec->kind]};
	if (d && d->iter != GRAPH_NONE)
		a[n++] =
		    (struct trace_arg){.key = "iteration", .type = TRACE_ARG_INT, .i = d->iter};
	if (d && d->mb != GRAPH_NONE)
		a[n++] =
		    (struct trace_arg){.key = "micro_batch", .type = TRACE_ARG_INT, .i = d->mb};
	if (d && d->layer0 != GRAPH_NONE) {
		if (d->layer0 == d->layer1) {
			a[n++] = (struct trace_arg){
			    .key = "layer", .type = TRACE_ARG_INT, .i = d->layer0};
		} else {
			snprintf(layers, sizeof layers, "%u-%u", d->layer0, d->layer1);
			a[n++] =
			    (struct trace_arg){.key = "layers", .type = TRACE_ARG_STR, .s = layers};
		}
	}
	if (d && d->flops > 0.0)
		a[n++] = (struct trace_arg){.key = "flops", .type = TRACE_ARG_REAL, .r = d->flops};
	if (d && d->bytes > 0.0 && rec->kind != GRAPH_DATA)
		a[n++] = (struct trace_arg){.key = "bytes", .type = TRACE_ARG_REAL, .r = d->bytes};
	const char *name = slice_name(x, rec, d);
	uint32_t tracks[2] = {NONE, NONE};
	for (uint32_t i = 0; i < np && !x->rc; i++) {
		uint32_t tr = give_lane(x, x->places[i].k, x->places[i].role, id);
		if (tr == NONE)
			continue;
		if (i < 2)
			tracks[i] = tr;
		const char *nm = rec->kind == GRAPH_P2P && i == 1 ? recv_role(rec->label) : name;
		if (trace_span_args(x->s.tr, tr, nm, rec->start, rec->end, cats[rec->kind], a, n))
			fail(x, trace_status(x->s.tr));
	}
	/* a pipeline transfer's arrow leaves a quarter into the send and lands
	 * three quarters into the receive, inside both slices */
	ts_time dur = rec->end - rec->start;
	if (rec->kind != GRAPH_P2P || tracks[0] == NONE || tracks[1] == NONE || dur < 4 || x->rc)
		return;
	if (trace_flow(x->s.tr, tracks[0], id, true, rec->start + dur / 4, rec->label, "p2p") ||
	    trace_flow(x->s.tr, tracks[1], id, false, rec->start + dur - dur / 4, rec->label,
		       "p2p"))
		fail(x, trace_status(x->s.tr));
}

static void on_task(void *ud, uint32_t id, bool end, ts_time t)
{
	(void)t;
	struct timeline *x = ud;
	if (x->rc)
		return;
	if (end)
		on_task_end(x, id);
	else
		on_task_start(x, id);
}

/* Write counter p of `name` in process proc if it holds a value older
 * than `now`. */
static void flush(struct timeline *x, struct pend *p, uint32_t proc, const char *name, ts_time now)
{
	if (!p->set || p->t >= now)
		return;
	p->set = false;
	if (trace_counter(x->s.tr, proc, name, p->t, p->v))
		fail(x, trace_status(x->s.tr));
}

static void pool_name(struct timeline *x, uint32_t k, char *buf, size_t n)
{
	uint32_t r = layout_class_rep(x->s.lay, k);
	snprintf(buf, n, "GPU %u memory in use (bytes)", r % x->gpn);
}

static void set_pool(struct timeline *x, uint32_t pool, double bytes, ts_time t)
{
	uint32_t k = x->pool_cls[pool];
	uint32_t proc = node_proc(x, layout_class_rep(x->s.lay, k) / x->gpn);
	char name[96];
	pool_name(x, k, name, sizeof name);
	flush(x, &x->pool_pend[pool], proc, name, t);
	x->pool_pend[pool] = (struct pend){.t = t, .v = bytes, .set = true};
}

static void on_pool(void *ud, uint32_t pool, double bytes, ts_time t)
{
	struct timeline *x = ud;
	if (!x->rc && pool < x->npools && x->pool_cls[pool] != NONE)
		set_pool(x, pool, bytes, t);
}

static void on_load(void *ud, uint32_t res, double load, ts_time t)
{
	struct timeline *x = ud;
	if (x->rc || res >= x->nres || x->link_of[res] == NONE)
		return;
	uint32_t i = x->link_of[res];
	flush(x, &x->link_pend[i], x->links_proc, x->link_name[i], t);
	x->link_pend[i] = (struct pend){.t = t, .v = 100.0 * load / x->link_cap[i], .set = true};
}

uint32_t timeline_busiest_links(struct ts_fluid *f, const struct ts_net *net, uint32_t *out,
				uint32_t n)
{
	double best[TIMELINE_MAX_LINKS];
	uint32_t m = 0, nr = fluid_resource_count(f);
	char name[8];
	if (n > TIMELINE_MAX_LINKS)
		n = TIMELINE_MAX_LINKS;
	for (uint32_t r = 0; r < nr && n; r++) {
		if (!net_res_name(net, r, name, sizeof name))
			continue;
		double u = fluid_resource_carried(f, r) / fluid_resource_cap(f, r);
		if (!(u > 0.0) || (m == n && u <= best[m - 1]))
			continue;
		uint32_t i = m < n ? m++ : m - 1; /* insert, dropping the last when full */
		while (i > 0 && best[i - 1] < u) {
			best[i] = best[i - 1];
			out[i] = out[i - 1];
			i--;
		}
		best[i] = u;
		out[i] = r;
	}
	return m;
}

int timeline_begin(const struct timeline_src *src, struct timeline **out)
{
	*out = NULL;
	struct timeline *x = ts_calloc(1, sizeof *x);
	if (!x)
		return TS_ENOMEM;
	x->s = *src;
	x->ncls = src->pb->nclasses;
	x->gpn = src->lay->gpus_per_node ? src->lay->gpus_per_node : 1;
	x->nnodes = (src->lay->gpus + x->gpn - 1) / x->gpn;
	x->nres = fluid_resource_count(src->f);
	/* the pools of the classes (pool ids are small: one per class) */
	uint32_t maxpool = 0;
	for (uint32_t k = 0; k < x->ncls; k++)
		if (src->pb->pool[k] + 1 > maxpool)
			maxpool = src->pb->pool[k] + 1;
	x->npools = maxpool;
	x->slots = ts_calloc((size_t)x->ncls * MAX_ROLES, sizeof *x->slots);
	x->node_proc = ts_calloc(x->nnodes ? x->nnodes : 1, sizeof *x->node_proc);
	x->pool_cls = ts_calloc(x->npools ? x->npools : 1, sizeof *x->pool_cls);
	x->pool_pend = ts_calloc(x->npools ? x->npools : 1, sizeof *x->pool_pend);
	x->link_of = ts_calloc(x->nres ? x->nres : 1, sizeof *x->link_of);
	x->places = ts_calloc((size_t)x->ncls + 2, sizeof *x->places);
	x->stamp = ts_calloc(x->ncls ? x->ncls : 1, sizeof *x->stamp);
	if (!x->slots || !x->node_proc || !x->pool_cls || !x->pool_pend || !x->link_of ||
	    !x->places || !x->stamp) {
		x->rc = TS_ENOMEM;
		timeline_end(x);
		return TS_ENOMEM;
	}
	for (uint32_t nd = 0; nd < x->nnodes; nd++)
		x->node_proc[nd] = NONE;
	for (size_t p = 0; p < x->npools; p++)
		x->pool_cls[p] = NONE;
	for (size_t r = 0; r < x->nres; r++)
		x->link_of[r] = NONE;
	/* compute and host come first in every GPU's tracks */
	role_of(x, "compute");
	role_of(x, "host");
	for (uint32_t k = 0; k < x->ncls; k++) {
		x->pool_cls[src->pb->pool[k]] = k;
		set_pool(x, src->pb->pool[k], graph_pool_now(src->g, src->pb->pool[k]), 0);
	}
	uint32_t nl = src->nlinks < TIMELINE_MAX_LINKS ? src->nlinks : TIMELINE_MAX_LINKS;
	if (nl) {
		char pn[96];
		snprintf(pn, sizeof pn, "links: the %u busiest (utilisation, %%)", nl);
		if (trace_process_at(src->tr, pn, x->nnodes, &x->links_proc))
			fail(x, trace_status(src->tr));
	}
	for (uint32_t i = 0; i < nl && !x->rc; i++) {
		uint32_t r = src->links[i];
		if (r >= x->nres)
			continue;
		char nm[140];
		net_res_name(src->net, r, nm, sizeof nm);
		snprintf(x->link_name[i], sizeof x->link_name[i], "%s utilisation (%%)", nm);
		x->link_cap[i] = fluid_resource_cap(src->f, r);
		x->link_of[r] = i;
		x->link_pend[i] = (struct pend){.t = 0, .v = 0.0, .set = true};
	}
	struct graph_observer go = {.on_task = on_task, .on_pool = on_pool, .ud = x};
	struct fluid_observer fo = {.on_load = on_load, .ud = x};
	graph_set_observer(src->g, &go);
	if (nl)
		fluid_set_observer(src->f, &fo);
	*out = x;
	return x->rc;
}

int timeline_end(struct timeline *x)
{
	if (!x)
		return 0;
	graph_set_observer(x->s.g, NULL);
	fluid_set_observer(x->s.f, NULL);
	if (!x->rc) {
		char name[96];
		for (size_t p = 0; p < x->npools; p++) {
			if (x->pool_cls[p] == NONE)
				continue;
			uint32_t k = x->pool_cls[p];
			pool_name(x, k, name, sizeof name);
			flush(x, &x->pool_pend[p],
			      node_proc(x, layout_class_rep(x->s.lay, k) / x->gpn), name,
			      TS_TIME_MAX);
		}
		for (uint32_t i = 0; i < TIMELINE_MAX_LINKS; i++)
			flush(x, &x->link_pend[i], x->links_proc, x->link_name[i], TS_TIME_MAX);
	}
	int rc = x->rc;
	for (size_t i = 0; x->slots && i < (size_t)x->ncls * MAX_ROLES; i++)
		ts_free(x->slots[i].lanes, x->slots[i].cap * sizeof *x->slots[i].lanes);
	ts_free(x->slots, (size_t)x->ncls * MAX_ROLES * sizeof *x->slots);
	ts_free(x->node_proc, (x->nnodes ? x->nnodes : 1) * sizeof *x->node_proc);
	ts_free(x->pool_cls, (x->npools ? x->npools : 1) * sizeof *x->pool_cls);
	ts_free(x->pool_pend, (x->npools ? x->npools : 1) * sizeof *x->pool_pend);
	ts_free(x->link_of, (x->nres ? x->nres : 1) * sizeof *x->link_of);
	ts_free(x->places, ((size_t)x->ncls + 2) * sizeof *x->places);
	ts_free(x->stamp, (x->ncls ? x->ncls : 1) * sizeof *x->stamp);
	ts_free(x, sizeof *x);
	return rc;
}
