/* Task graph execution.
 *
 * A stream is a chain of dependencies: each task added to a stream depends
 * on the previous task of that stream. A task starts when its count of
 * unfinished dependencies reaches zero; it then becomes one fluid activity
 * (compute on a GPU's SMs, a bound-only delay, or an input-pipeline stage on
 * several resources at once) or one collective. When it
 * ends, its memory is returned and its successors are released, in the
 * order the dependencies were added. The dependency that released a task
 * last is its "blocker": the time-breakdown charges an idle stream to the
 * kind of task it was waiting for. Edges are kept in CSR form built once
 * before the run, so the run itself does not allocate beyond the fluid
 * engine's pools.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "par/graph.h"

enum { T_WAIT, T_RUNNING, T_HELD, T_DONE }; /* T_HELD: work over, end bound not */

/* A task: 112 bytes, the graph of a large job holds millions, so what
 * only multi-resource tasks need lives in struct gmulti. */
struct gtask {
	struct graph_rec rec;
	uint8_t state;
	uint8_t alloc_cat, free_cat;
	uint8_t multi; /* aux indexes g->m (a multi-resource task), not g->c */
	uint32_t left; /* unfinished dependencies */
	uint32_t succ_off, nsucc;
	uint32_t next_in_stream;
	uint32_t res, mult;
	uint32_t aux; /* index in g->c (a collective) or in g->m (multi), or GRAPH_NONE */
	uint32_t pool;
	union {
		double seconds;	  /* until it starts */
		ts_time work_end; /* once its work is over (ns; -1: at rec.end) */
	};
	double alloc, free;
};

/* What a multi-resource task adds: its uses in g->uses, bound, latency. */
struct gmulti {
	uint32_t uses_off, nuses;
	double bound;
	ts_time latency;
};

struct gcoll {
	struct coll_spec spec;
	uint32_t ranks_off;
};

struct gstream {
	const char *name;
	uint32_t first, last;
};

struct gpool {
	const char *name;
	double cur[GRAPH_MEM_COUNT_];
	double total, peak;
	double at_peak[GRAPH_MEM_COUNT_];
};

struct edge {
	uint32_t from, to;
};

struct ts_graph {
	struct ts_fluid *f;
	struct ts_coll *cc;
	struct gtask *t;
	size_t nt, capt;
	struct gstream *s;
	size_t ns, caps;
	struct gpool *p;
	size_t np, capp;
	struct gcoll *c;
	size_t nc, capc;
	uint32_t *ranks;
	size_t nranks, capranks;
	uint32_t *rkey; /* graph_task_spec.ranks_key -> ranks_off + 1 (0: none yet) */
	size_t nrkey, caprkey;
	struct fluid_use *uses; /* of multi-resource tasks */
	size_t nuses, capuses;
	struct gmulti *m; /* multi-resource tasks */
	size_t nm, capm;
	struct edge *e;
	size_t ne, cape;
	uint32_t *succ; /* CSR targets */
	size_t capsucc;
	uint32_t *roots; /* tasks with no dependency, in id order (finalize) */
	size_t nroots, caproots;
	uint32_t ndone;
	int fail;
	uint32_t fail_task;	  /* the first task whose start failed, or GRAPH_NONE */
	struct ts_error fail_err; /* why a collective could not start */
	bool ran;
	/* traces only */
	bool keep_detail;
	struct graph_detail *det; /* per task, when kept */
	size_t capdet;
	bool *has_det;
	size_t caphas;
	bool has_obs;
	struct graph_observer obs;
};

int graph_create(struct ts_graph **out, struct ts_fluid *f, struct ts_coll *cc)
{
	struct ts_graph *g = ts_calloc(1, sizeof *g);
	*out = NULL;
	if (!g)
		return TS_ENOMEM;
	g->f = f;
	g->cc = cc;
	*out = g;
	return 0;
}

void graph_destroy(struct ts_graph *g)
{
	if (!g)
		return;
	ts_free(g->t, g->capt * sizeof *g->t);
	ts_free(g->s, g->caps * sizeof *g->s);
	ts_free(g->p, g->capp * sizeof *g->p);
	ts_free(g->c, g->capc * sizeof *g->c);
	ts_free(g->ranks, g->capranks * sizeof *g->ranks);
	ts_free(g->rkey, g->caprkey * sizeof *g->rkey);
	ts_free(g->uses, g->capuses * sizeof *g->uses);
	ts_free(g->m, g->capm * sizeof *g->m);
	ts_free(g->e, g->cape * sizeof *g->e);
	ts_free(g->succ, g->capsucc * sizeof *g->succ);
	ts_free(g->roots, g->caproots * sizeof *g->roots);
	ts_free(g->det, g->capdet * sizeof *g->det);
	ts_free(g->has_det, g->caphas * sizeof *g->has_det);
	ts_free(g, sizeof *g);
}

void graph_reset(struct ts_graph *g, struct ts_fluid *f, struct ts_coll *cc)
{
	g->f = f;
	g->cc = cc;
	g->nt = g->ns = g->np = g->nc = g->nranks = g->nuses = g->nm = g->ne = 0;
	if (g->nrkey)
		memset(g->rkey, 0, g->nrkey * sizeof *g->rkey);
	g->nrkey = 0;
	g->ndone = 0;
	g->fail = 0;
	g->fail_task = GRAPH_NONE;
	memset(&g->fail_err, 0, sizeof g->fail_err);
	g->ran = false;
	g->keep_detail = false;
	if (g->caphas) /* graph_detail reads has_det up to its capacity */
		memset(g->has_det, 0, g->caphas * sizeof *g->has_det);
	g->has_obs = false;
	memset(&g->obs, 0, sizeof g->obs);
}

size_t graph_storage_bytes(const struct ts_graph *g)
{
	return g->capt * sizeof *g->t + g->caps * sizeof *g->s + g->capp * sizeof *g->p +
	       g->capc * sizeof *g->c + g->capranks * sizeof *g->ranks +
	       g->capuses * sizeof *g->uses + g->capm * sizeof *g->m + g->cape * sizeof *g->e +
	       g->capsucc * sizeof *g->succ + g->caproots * sizeof *g->roots +
	       g->capdet * sizeof *g->det + g->caphas * sizeof *g->has_det;
}

size_t graph_used_bytes(const struct ts_graph *g)
{
	size_t det = g->keep_detail ? g->nt * (sizeof *g->det + sizeof *g->has_det) : 0;
	return g->nt * sizeof *g->t + g->ns * sizeof *g->s + g->np * sizeof *g->p +
	       g->nc * sizeof *g->c + g->nranks * sizeof *g->ranks + g->nuses * sizeof *g->uses +
	       g->nm * sizeof *g->m + g->ne * (sizeof *g->e + sizeof *g->succ) + det;
}

double graph_bytes(double tasks, double deps, double colls, double coll_ranks)
{
	return 1.25 *
	       (tasks * (double)sizeof(struct gtask) +
		deps * (double)(sizeof(struct edge) + sizeof(uint32_t)) +
		colls * (double)sizeof(struct gcoll) + coll_ranks * (double)sizeof(uint32_t));
}

int graph_stream(struct ts_graph *g, const char *name, uint32_t *id)
{
	if (ts_grow_raw((void **)&g->s, &g->caps, g->ns + 1, sizeof *g->s))
		return TS_ENOMEM;
	g->s[g->ns] = (struct gstream){.name = name, .first = GRAPH_NONE, .last = GRAPH_NONE};
	*id = (uint32_t)g->ns++;
	return 0;
}

const char *graph_stream_name(const struct ts_graph *g, uint32_t s)
{
	return g->s[s].name;
}
uint32_t graph_nstreams(const struct ts_graph *g)
{
	return (uint32_t)g->ns;
}
uint32_t graph_ntasks(const struct ts_graph *g)
{
	return (uint32_t)g->nt;
}
const struct graph_rec *graph_rec(const struct ts_graph *g, uint32_t t)
{
	return &g->t[t].rec;
}

int graph_pool(struct ts_graph *g, const char *name, uint32_t *id)
{
	if (ts_grow_raw((void **)&g->p, &g->capp, g->np + 1, sizeof *g->p))
		return TS_ENOMEM;
	memset(&g->p[g->np], 0, sizeof g->p[g->np]);
	g->p[g->np].name = name;
	*id = (uint32_t)g->np++;
	return 0;
}

static void pool_change(struct gpool *p, unsigned cat, double bytes)
{
	p->cur[cat] += bytes;
	p->total += bytes;
	if (p->total > p->peak) {
		p->peak = p->total;
		memcpy(p->at_peak, p->cur, sizeof p->at_peak);
	}
}

int graph_pool_add(struct ts_graph *g, uint32_t pool, enum graph_mem cat, double bytes)
{
	if (pool >= g->np || (unsigned)cat >= GRAPH_MEM_COUNT_ || !(bytes >= 0.0))
		return TS_EINVALID;
	pool_change(&g->p[pool], cat, bytes);
	return 0;
}

double graph_pool_now(const struct ts_graph *g, uint32_t pool)
{
	return g->p[pool].total;
}

int graph_keep_detail(struct ts_graph *g)
{
	g->keep_detail = true;
	return 0;
}

double graph_detail_bytes(double tasks)
{
	return 2.0 * tasks * (double)(sizeof(struct graph_detail) + sizeof(bool));
}

bool graph_keeps_detail(const struct ts_graph *g)
{
	return g->keep_detail;
}

int graph_set_detail(struct ts_graph *g, uint32_t task, const struct graph_detail *d)
{
	if (!g->keep_detail || task >= g->nt)
		return TS_EINVALID;
	if (ts_grow((void **)&g->det, &g->capdet, (size_t)task + 1, sizeof *g->det) ||
	    ts_grow((void **)&g->has_det, &g->caphas, (size_t)task + 1, sizeof *g->has_det))
		return TS_ENOMEM;
	g->det[task] = *d;
	g->has_det[task] = true;
	return 0;
}

const struct graph_detail *graph_detail(const struct ts_graph *g, uint32_t task)
{
	return task < g->caphas && g->has_det[task] ? &g->det[task] : NULL;
}

uint32_t graph_coll_ranks(const struct ts_graph *g, uint32_t task, const uint32_t **ranks)
{
	*ranks = NULL;
	if (task >= g->nt || g->t[task].multi || g->t[task].aux == GRAPH_NONE)
		return 0;
	const struct gcoll *gc = &g->c[g->t[task].aux];
	*ranks = g->ranks + gc->ranks_off;
	return gc->spec.nranks;
}

void graph_set_observer(struct ts_graph *g, const struct graph_observer *obs)
{
	g->has_obs = obs != NULL;
	if (obs)
		g->obs = *obs;
}

/* Tell the observer that task id starts or ends at `now` (after its pool
 * changed by `bytes`). Off the path of a run without an observer. */
static __attribute__((noinline, cold)) void observe(struct ts_graph *g, uint32_t id, bool end,
						    double bytes, ts_time now)
{
	const struct gtask *t = &g->t[id];
	if (bytes != 0.0 && t->pool != GRAPH_NONE && g->obs.on_pool)
		g->obs.on_pool(g->obs.ud, t->pool, g->p[t->pool].total, now);
	if (g->obs.on_task)
		g->obs.on_task(g->obs.ud, id, end, now);
}

double graph_pool_peak(const struct ts_graph *g, uint32_t pool, double at_peak[GRAPH_MEM_COUNT_])
{
	if (at_peak)
		memcpy(at_peak, g->p[pool].at_peak, sizeof g->p[pool].at_peak);
	return g->p[pool].peak;
}

int graph_dep(struct ts_graph *g, uint32_t before, uint32_t after)
{
	if (before >= g->nt || after >= g->nt || before == after || g->ran)
		return TS_EINVALID;
	if (ts_grow_raw((void **)&g->e, &g->cape, g->ne + 1, sizeof *g->e))
		return TS_ENOMEM;
	g->e[g->ne++] = (struct edge){before, after};
	g->t[after].left++;
	g->t[before].nsucc++; /* counted here: finalize need not walk the tasks for it */
	return 0;
}

int graph_task(struct ts_graph *g, const struct graph_task_spec *s, uint32_t *id)
{
	if ((unsigned)s->kind >= GRAPH_KIND_COUNT_ || !(s->seconds >= 0.0) || s->mult == 0 ||
	    (s->stream != GRAPH_NONE && s->stream >= g->ns) ||
	    (s->pool != GRAPH_NONE && s->pool >= g->np) ||
	    (unsigned)s->alloc_cat >= GRAPH_MEM_COUNT_ ||
	    (unsigned)s->free_cat >= GRAPH_MEM_COUNT_ ||
	    (s->coll && (!g->cc || !s->coll->ranks || s->coll->nranks == 0)) || g->ran ||
	    (s->nuses &&
	     (!s->uses || s->coll || !(s->work >= 0.0) || !(s->bound >= 0.0) || s->latency < 0)) ||
	    s->not_before < 0 || s->end_not_before < 0 ||
	    ((s->not_before > 0 || s->end_not_before > 0) && (s->coll || s->nuses)))
		return TS_EINVALID;
	if (s->nuses &&
	    (ts_grow_raw((void **)&g->uses, &g->capuses, g->nuses + s->nuses, sizeof *g->uses) ||
	     ts_grow_raw((void **)&g->m, &g->capm, g->nm + 1, sizeof *g->m)))
		return TS_ENOMEM;
	if (ts_grow_raw((void **)&g->t, &g->capt, g->nt + 1, sizeof *g->t))
		return TS_ENOMEM;
	uint32_t tid = (uint32_t)g->nt;
	struct gtask *t = &g->t[tid];
	memset(t, 0, sizeof *t);
	t->rec.kind = s->kind;
	t->rec.label = s->label ? s->label : "";
	t->rec.stream = s->stream;
	t->rec.tag = s->tag;
	t->rec.blocker = GRAPH_NONE;
	t->rec.start = t->rec.end = t->rec.ready = -1;
	if (s->not_before > 0) /* rec.start holds it until the task starts */
		t->rec.start = s->not_before;
	if (s->end_not_before > 0) /* rec.end holds it until the task ends */
		t->rec.end = s->end_not_before;
	t->seconds = s->seconds;
	t->res = s->res;
	t->mult = s->mult;
	t->aux = GRAPH_NONE;
	if (s->nuses) {
		g->m[g->nm] = (struct gmulti){.uses_off = (uint32_t)g->nuses,
					      .nuses = s->nuses,
					      .bound = s->bound,
					      .latency = s->latency};
		memcpy(g->uses + g->nuses, s->uses, s->nuses * sizeof *g->uses);
		g->nuses += s->nuses;
		t->multi = 1;
		t->aux = (uint32_t)g->nm++;
		t->seconds = s->work;
	}
	t->pool = s->pool;
	t->alloc_cat = (uint8_t)s->alloc_cat;
	t->free_cat = (uint8_t)s->free_cat;
	t->alloc = s->alloc;
	t->free = s->free;
	t->next_in_stream = GRAPH_NONE;
	if (s->coll) {
		uint32_t k = s->ranks_key, have = 0;
		if (k && k < g->nrkey)
			have = g->rkey[k];
		if (ts_grow_raw((void **)&g->c, &g->capc, g->nc + 1, sizeof *g->c) ||
		    (!have && ts_grow_raw((void **)&g->ranks, &g->capranks,
					  g->nranks + s->coll->nranks, sizeof *g->ranks)) ||
		    (k && k >= g->nrkey &&
		     ts_grow((void **)&g->rkey, &g->caprkey, (size_t)k + 1, sizeof *g->rkey)))
			return TS_ENOMEM;
		struct gcoll *gc = &g->c[g->nc];
		gc->spec = *s->coll;
		if (have) {
			gc->ranks_off = have - 1;
		} else {
			gc->ranks_off = (uint32_t)g->nranks;
			memcpy(g->ranks + g->nranks, s->coll->ranks,
			       s->coll->nranks * sizeof *g->ranks);
			g->nranks += s->coll->nranks;
			if (k) {
				/* ts_grow zeroes what it adds */
				if (k >= g->nrkey)
					g->nrkey = (size_t)k + 1;
				g->rkey[k] = gc->ranks_off + 1;
			}
		}
		t = &g->t[tid];
		t->aux = (uint32_t)g->nc++;
	}
	g->nt++;
	if (s->stream != GRAPH_NONE) {
		struct gstream *st = &g->s[s->stream];
		if (st->last != GRAPH_NONE) {
			g->t[st->last].next_in_stream = tid;
			int rc = graph_dep(g, st->last, tid);
			if (rc) {
				g->nt--;
				return rc;
			}
		} else {
			st->first = tid;
		}
		st->last = tid;
	}
	*id = tid;
	return 0;
}

static void task_done(void *ctx, uint64_t arg);

static void deferred_start(void *ctx, uint64_t arg);

static void start_task(struct ts_graph *g, uint32_t id)
{
	struct gtask *t = &g->t[id];
	ts_time now = evq_now(fluid_evq(g->f));
	if (t->state == T_WAIT && t->rec.start > now) {
		/* released before its not-before time: start then */
		t->rec.blocker = GRAPH_NONE;
		int rc = evq_push(fluid_evq(g->f), t->rec.start, deferred_start, g, id, NULL);
		if (rc && !g->fail)
			g->fail = rc;
		return;
	}
	t->state = T_RUNNING;
	t->rec.start = now;
	/* its successors' records are read when it ends, many events from now:
	 * fetch them meanwhile (a large graph's records are not in the caches,
	 * and each release waits for its record otherwise) */
	for (uint32_t k = 0; k < t->nsucc && k < 4; k++)
		__builtin_prefetch(&g->t[g->succ[t->succ_off + k]], 1);
	if (t->pool != GRAPH_NONE && t->alloc != 0.0)
		pool_change(&g->p[t->pool], t->alloc_cat, t->alloc);
	if (g->has_obs)
		observe(g, id, false, t->alloc, now);
	int rc;
	if (!t->multi && t->aux != GRAPH_NONE) {
		struct gcoll *gc = &g->c[t->aux];
		struct coll_spec s = gc->spec;
		s.ranks = g->ranks + gc->ranks_off;
		/* stored once per content, so where they are names them */
		s.ranks_key = (uint64_t)s.nranks << 32 | (gc->ranks_off + 1ull);
		s.done = task_done;
		s.ctx = g;
		s.arg = id;
		s.tag = id;
		rc = coll_start(g->cc, &s, NULL, g->fail ? NULL : &g->fail_err);
	} else if (!t->multi && t->res == GRAPH_NONE && isfinite(t->seconds) &&
		   !fluid_observes_acts(g->f)) {
		/* A delay on no resource (a mark, a kernel launch): its end is
		 * known now. The event is the one a bound-only activity at rate
		 * 1 would push (same time, same place in the queue), without
		 * the activity. */
		ts_time at = now;
		if (t->seconds > 0.0 && !ts_time_after(now, t->seconds, &at))
			rc = TS_ELIMIT;
		else
			rc = evq_push(fluid_evq(g->f), at, task_done, g, id, NULL);
	} else {
		struct fluid_use u = {t->res, 1.0};
		struct fluid_spec fs = {.work = t->seconds,
					.mult = t->mult,
					.weight = 1.0,
					.done = task_done,
					.ctx = g,
					.arg = id,
					.tag = id};
		if (t->multi) {
			const struct gmulti *mu = &g->m[t->aux];
			fs.uses = g->uses + mu->uses_off;
			fs.nuses = mu->nuses;
			fs.bound = mu->bound;
			fs.latency = mu->latency;
		} else if (t->res != GRAPH_NONE) {
			fs.uses = &u;
			fs.nuses = 1;
		} else {
			fs.bound = 1.0;
		}
		uint32_t act;
		rc = fluid_start(g->f, &fs, &act);
	}
	if (rc && !g->fail) {
		g->fail = rc;
		g->fail_task = id;
	}
}

static void task_done(void *ctx, uint64_t arg)
{
	struct ts_graph *g = ctx;
	uint32_t id = (uint32_t)arg;
	struct gtask *t = &g->t[id];
	ts_time now = evq_now(fluid_evq(g->f));
	if (t->state == T_RUNNING) { /* its work is over */
		t->work_end = -1;
		if (t->pool != GRAPH_NONE && t->free != 0.0)
			pool_change(&g->p[t->pool], t->free_cat, -t->free);
		if (t->rec.end > now) { /* its end bound is not */
			t->work_end = now;
			t->state = T_HELD;
			int rc = evq_push(fluid_evq(g->f), t->rec.end, task_done, g, id, NULL);
			if (rc && !g->fail)
				g->fail = rc;
			return;
		}
	}
	t->state = T_DONE;
	t->rec.end = now;
	g->ndone++;
	if (g->has_obs) /* a held task's memory went back at its work's end */
		observe(g, id, true, t->free, now);
	for (uint32_t k = 0; k < t->nsucc; k++) {
		uint32_t s = g->succ[t->succ_off + k];
		struct gtask *st = &g->t[s];
		if (--st->left == 0) {
			st->rec.ready = now;
			/* a mark passes on what it waited for, so a wait behind
			 * a join of collectives is charged to them */
			st->rec.blocker = t->rec.kind == GRAPH_MARK && t->rec.blocker != GRAPH_NONE
					      ? t->rec.blocker
					      : id;
			start_task(g, s);
		}
	}
}

static void deferred_start(void *ctx, uint64_t arg)
{
	start_task(ctx, (uint32_t)arg);
}

/* Build the successor lists (CSR, in the order edges were added) and the
 * list of tasks that wait for none, in one pass over the tasks: a large
 * graph's records do not fit in the caches, so each pass over them costs
 * its size in memory traffic. */
static int finalize(struct ts_graph *g)
{
	if (ts_grow_raw((void **)&g->succ, &g->capsucc, g->ne ? g->ne : 1, sizeof *g->succ) ||
	    ts_grow_raw((void **)&g->roots, &g->caproots, g->nt ? g->nt : 1, sizeof *g->roots))
		return TS_ENOMEM;
	uint32_t off = 0; /* each task's nsucc was counted by graph_dep */
	size_t nr = 0;
	for (size_t i = 0; i < g->nt; i++) {
		struct gtask *t = &g->t[i];
		t->succ_off = off;
		off += t->nsucc;
		t->nsucc = 0;
		if (t->left == 0)
			g->roots[nr++] = (uint32_t)i;
	}
	g->nroots = nr;
	for (size_t i = 0; i < g->ne; i++) {
		struct gtask *t = &g->t[g->e[i].from];
		g->succ[t->succ_off + t->nsucc++] = g->e[i].to;
	}
	return 0;
}

int graph_run(struct ts_graph *g, struct ts_error *err)
{
	if (g->ran)
		return ts_error_set(err, TS_EINVALID, NULL, 0, NULL, "graph already run");
	g->ran = true;
	int rc = finalize(g);
	if (rc)
		return ts_error_set(err, rc, NULL, 0, NULL, "building the task graph failed (%s)",
				    ts_strerror(rc));
	ts_time now = evq_now(fluid_evq(g->f));
	/* a start only pushes events: no task is done, and no count of
	 * dependencies changes, before the engine runs */
	for (size_t r = 0; r < g->nroots; r++) {
		uint32_t i = g->roots[r];
		if (g->t[i].state == T_WAIT) {
			g->t[i].rec.ready = now;
			start_task(g, i);
		}
	}
	fluid_run(g->f, TS_TIME_MAX);
	if (fluid_status(g->f) == TS_ELIMIT || g->fail == TS_ELIMIT)
		return ts_error_set(
		    err, TS_ELIMIT, NULL, 0, NULL,
		    "found a task that would end at simulated time beyond 292 years "
		    "(the int64-ns range), expected durations that fit; a hardware "
		    "figure (bandwidth, efficiency, latency) far out of scale?");
	if (fluid_status(g->f))
		return ts_error_set(err, fluid_status(g->f), NULL, 0, NULL,
				    "the simulation stopped (%s)", ts_strerror(fluid_status(g->f)));
	if (g->fail && g->fail_task != GRAPH_NONE)
		return ts_error_set(err, g->fail, NULL, 0, NULL,
				    "task \"%s\" could not start (%s)%s%s",
				    g->t[g->fail_task].rec.label, ts_strerror(g->fail),
				    g->fail_err.msg[0] ? ": " : "", g->fail_err.msg);
	if (g->fail)
		return ts_error_set(err, g->fail, NULL, 0, NULL, "a task could not start (%s)",
				    ts_strerror(g->fail));
	if (g->ndone != g->nt) {
		for (uint32_t i = 0; i < g->nt; i++)
			if (g->t[i].state != T_DONE)
				return ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
						    "%zu of %zu tasks never ran; first: \"%s\" (a "
						    "dependency cycle)",
						    g->nt - g->ndone, g->nt, g->t[i].rec.label);
	}
	return 0;
}

void graph_breakdown(const struct ts_graph *g, uint32_t stream, ts_time t0, ts_time t1,
		     struct graph_breakdown *out)
{
	memset(out, 0, sizeof *out);
	ts_time cursor = t0;
	for (uint32_t id = g->s[stream].first; id != GRAPH_NONE && cursor < t1;
	     id = g->t[id].next_in_stream) {
		const struct graph_rec *r = &g->t[id].rec;
		if (r->end <= cursor)
			continue;
		ts_time s = r->start > cursor ? r->start : cursor;
		if (s > t1)
			s = t1;
		if (s > cursor) {
			enum graph_kind why =
			    r->blocker != GRAPH_NONE ? g->t[r->blocker].rec.kind : GRAPH_MARK;
			out->wait[why] += s - cursor;
			cursor = s;
		}
		ts_time e = r->end < t1 ? r->end : t1;
		ts_time w = g->t[id].work_end; /* work over before an end bound */
		if (w >= 0 && w < e) {
			if (w > cursor) {
				out->busy[r->kind] += w - cursor;
				cursor = w;
			}
			if (e > cursor) {
				out->wait[GRAPH_MARK] += e - cursor;
				cursor = e;
			}
		}
		if (e > cursor) {
			out->busy[r->kind] += e - cursor;
			cursor = e;
		}
	}
	if (cursor < t1)
		out->idle += t1 - cursor;
}
