/* A shared cluster's queue, event by event.
 *
 * Events (sim/engine/evq.c: integer ns, equal times in push order) are a
 * job's arrival (the next is pushed as each arrives, so the queue holds
 * one), a run's end, a node's failure and repair, the periodic priority
 * recalculation, and a scheduling pass pushed once per instant after
 * whatever changed. The pass starts waiting jobs in queue order (submit
 * order, or priority order) while the first fits; under FIFO it stops at
 * the first that does not. Under EASY backfill (Lifka 1995; Mu'alem and
 * Feitelson 2001; Slurm's sched/backfill) the first waiting job gets a
 * reservation: the "shadow" time at which, running jobs ending by their
 * time limit (or else their run time), enough GPUs free up for it, found
 * by replaying those ends in order on a copy of the free counts. A later
 * job that fits now may start if it ends by the shadow time, or if the
 * first job still fits at the shadow time with it running; bf_depth jobs
 * are tried per pass.
 *
 * Nodes: a job of up to one node's GPUs runs on one node, best fit
 * (packed) or worst fit (spread); a larger job is gang-scheduled on
 * ceil(gpus / gpus_per_node) whole free nodes at once (packed: the leaf
 * switch with the fewest whole free nodes that hold it, else the fullest
 * leaves first; spread: one node per leaf in turn). Free nodes sit in one
 * list per free-GPU count (whole free nodes in one list per leaf), so a
 * placement costs the node size plus, for whole nodes, the leaves.
 *
 * Run time: a job's progress is a fraction of its work; it advances at
 * 1 / T per second, T its duration, or for a scenario job steps x the
 * simulated step time on its shape (nodes, GPUs per node, leaves, and the
 * number of multi-leaf scenario jobs sharing its leaves' uplinks). When a
 * scenario job spanning leaves starts or ends, every multi-leaf scenario
 * job on those leaves is re-rated and its end moved.
 *
 * Failures: one Poisson stream at nodes / node_mtbf picks a node uniformly;
 * a failed node's jobs lose the run since their last checkpoint and are
 * requeued in their place, to restart (restart_s more run time) where the
 * scheduler next puts them; the node is down for repair_s.
 *
 * Preemption (optional; Slurm's PreemptMode=REQUEUE with tiers as under
 * preempt/qos, the tier being a job's own priority term): after the
 * ordinary starts, a waiting job that does not fit requeues running jobs
 * of lower tiers, lowest tier and youngest run first, as a failure would
 * (the run since the last checkpoint lost, a restart paid), when that lets
 * it start; victims the later ones make needless are spared.
 *
 * Partitions (Slurm's, disjoint): each holds consecutive nodes with their
 * own free lists and counts; a job runs only on its partition's. The pass
 * goes down the one waiting list; a partition's first job that does not
 * fit stops that partition's starts under FIFO, and under backfill holds
 * its reservation, against which that partition's later jobs are judged.
 * With one partition this is the single queue above.
 *
 * Priority (Slurm's multifactor plugin, simplified): priority = w_fs x
 * 2^(-U/S) + w_age x min(1, age / max_age) + the job's own term, U the
 * user's share of the decayed usage (GPU-seconds, half-life
 * fs_halflife_s), S = 1 / users (equal shares); recomputed every
 * prio_calc_s, a new job placed by its priority at submission.
 * SPDX-License-Identifier: MIT */
#include "sweep/queue.h"

#include <assert.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/ts.h"
#include "engine/evq.h"
#include "run/mc.h"

#define NIL UINT32_MAX

/* ------------------------------------------------------------ cache */

struct cache_ent {
	struct queue_shape k;
	struct queue_rt rt;
};

struct queue_cache {
	queue_rt_fn fn;
	void *ctx;
	struct cache_ent *e;
	size_t n, cap;
};

int queue_cache_create(queue_rt_fn fn, void *ctx, struct queue_cache **out)
{
	*out = ts_calloc(1, sizeof **out);
	if (!*out)
		return TS_ENOMEM;
	(*out)->fn = fn;
	(*out)->ctx = ctx;
	return 0;
}

void queue_cache_destroy(struct queue_cache *c)
{
	if (!c)
		return;
	ts_free(c->e, c->cap * sizeof *c->e);
	ts_free(c, sizeof *c);
}

size_t queue_cache_simulated(const struct queue_cache *c)
{
	return c ? c->n : 0;
}

static bool shape_eq(const struct queue_shape *a, const struct queue_shape *b)
{
	return a->scenario == b->scenario && a->nodes == b->nodes &&
	       a->gpus_per_node == b->gpus_per_node && a->leaves == b->leaves &&
	       a->share == b->share;
}

static int cache_get(struct queue_cache *c, const struct queue_shape *k, struct queue_rt *rt,
		     struct ts_error *err)
{
	int rc = 0;
#pragma omp critical(queue_cache)
	{
		size_t i = 0;
		while (i < c->n && !shape_eq(&c->e[i].k, k))
			i++;
		if (i < c->n) {
			*rt = c->e[i].rt;
		} else if (ts_grow((void **)&c->e, &c->cap, c->n + 1, sizeof *c->e)) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		} else if (!(rc = c->fn(c->ctx, k, rt, err))) {
			if (!(rt->step_s > 0.0) || !isfinite(rt->step_s))
				rc = ts_error_set(err, TS_EINVALID, NULL, 0, "scenario",
						  "found a step time of %g s, expected > 0",
						  rt->step_s);
			else
				c->e[c->n++] = (struct cache_ent){*k, *rt};
		}
	}
	return rc;
}

/* ------------------------------------------------------------ state */

enum { J_PENDING, J_WAIT, J_RUN, J_END };

struct qjob {
	ts_time submit, first_start, start, end, exp_end;
	double left;	  /* fraction of the work left at `upd` */
	double rate;	  /* fraction per s */
	double t1;	  /* run time alone on the current placement, s */
	double alone_s;	  /* run time alone on the first placement, s */
	double restart_s; /* run time to add at the next start, s */
	double saved;	  /* fraction done at the last checkpoint */
	double left0;	  /* `left` at the run's start */
	double r0;	  /* restart time added at the run's start, s */
	double prio;	  /* priority (QUEUE_PRIORITY) */
	ts_time upd;	  /* when `left` was last brought up to date */
	ts_time limit_at; /* end by the time limit, TS_TIME_MAX when none */
	ts_event_handle ev;
	uint32_t prev, next; /* waiting list */
	uint32_t aoff, nn;   /* its nodes: pool[aoff..aoff+nn) */
	uint32_t leaves, share;
	uint32_t restarts;
	uint32_t ri; /* index in `run` */
	uint8_t st;
	uint8_t out; /* QUEUE_DONE, ... */
};

struct qnode {
	uint32_t free; /* free GPUs */
	uint32_t leaf;
	uint32_t part;	     /* its partition */
	uint32_t prev, next; /* in its free list */
	bool up;
};

struct q {
	const struct jobs_list *l;
	const struct queue_cfg *c;
	struct queue_stats *o;
	struct ts_error *err;
	int rc; /* sticky error of a callback */
	struct ts_evq *evq;
	uint32_t N, gpn, nleaves, G;
	double t0; /* input clock of time 0, s */
	struct qjob *j;
	uint32_t *order; /* jobs by submit */
	size_t next_arrival;
	struct qnode *node;
	/* per partition p, at p x (gpn + 1) or p x nleaves: */
	uint32_t *lvl;	     /* [gpn + 1]: head of free list by level 1..gpn-1 */
	uint32_t *leafhead;  /* [nleaves]: whole free nodes of each leaf */
	uint32_t *leafwhole; /* [nleaves]: their count */
	uint32_t *cnt;	     /* [gpn + 1]: up nodes by free GPUs */
	uint32_t P;	     /* partitions, >= 1 */
	uint32_t *jpart;     /* [jobs] each job's partition */
	uint32_t *pnodes;    /* [P] nodes of each partition */
	uint32_t *ppass;     /* [P] the shadow stamp of each partition's shadow state */
	uint32_t *ph;	     /* [P] a pass's first waiting job of each partition */
	ts_time *psh;	     /* [P] its reservation */
	uint8_t *pst;	     /* [P] in a pass: 0 none seen, 1 head seen, 2 reserved */
	uint32_t *pool;	     /* nodes of runs */
	size_t npool, cappool;
	uint32_t *run; /* running jobs by (exp_end, id) */
	size_t nrun;
	uint32_t qhead, qtail; /* waiting list */
	size_t nwait;
	bool sched_pending;
	/* shadow state of a backfill pass */
	uint32_t *sfree, *stamp, *scnt;
	uint32_t pass;
	bool shadow_on;
	/* fabric sharing */
	uint32_t *leafml; /* [nleaves]: multi-leaf scenario jobs per leaf */
	uint32_t *ml;	  /* running multi-leaf scenario jobs */
	size_t nml;
	uint32_t *mark; /* [nleaves] stamps */
	uint32_t mstamp;
	/* failures */
	gsl_rng *rng;
	/* fair-share */
	double *usage, *ugpus; /* [users + 1] decayed GPU-seconds; GPUs running */
	ts_time acc_at;
	bool prio_pending;
	bool fail_pending;
	/* accounting */
	ts_time last;
	uint32_t busy, down;
	double busy_area, frag_area, queue_area;
	ts_time last_end;
};

static double sec(ts_time t)
{
	return (double)t / TS_NS_PER_S;
}

static int fail(struct q *s, int code, const char *msg)
{
	if (!s->rc)
		s->rc = ts_error_set(s->err, code, NULL, 0, NULL, "%s", msg);
	return s->rc;
}

/* ------------------------------------------------------------ nodes */

/* Partition p's slice of the per-level and per-leaf arrays. */
static uint32_t *lvl_of(const struct q *s, uint32_t p)
{
	return s->lvl + (size_t)p * (s->gpn + 1);
}
static uint32_t *cnt_of(const struct q *s, uint32_t *base, uint32_t p)
{
	return base + (size_t)p * (s->gpn + 1);
}
static uint32_t *lhead_of(const struct q *s, uint32_t p)
{
	return s->leafhead + (size_t)p * s->nleaves;
}
static uint32_t *lwhole_of(const struct q *s, uint32_t p)
{
	return s->leafwhole + (size_t)p * s->nleaves;
}

static uint32_t *head_of(struct q *s, uint32_t n)
{
	struct qnode *x = &s->node[n];
	return x->free == s->gpn ? &lhead_of(s, x->part)[x->leaf] : &lvl_of(s, x->part)[x->free];
}

static void unlink_node(struct q *s, uint32_t n)
{
	struct qnode *x = &s->node[n];
	if (!x->up)
		return;
	cnt_of(s, s->cnt, x->part)[x->free]--;
	if (x->free == 0)
		return;
	if (x->free == s->gpn)
		lwhole_of(s, x->part)[x->leaf]--;
	if (x->prev != NIL)
		s->node[x->prev].next = x->next;
	else
		*head_of(s, n) = x->next;
	if (x->next != NIL)
		s->node[x->next].prev = x->prev;
}

static void link_node(struct q *s, uint32_t n)
{
	struct qnode *x = &s->node[n];
	if (!x->up)
		return;
	cnt_of(s, s->cnt, x->part)[x->free]++;
	if (x->free == 0)
		return;
	if (x->free == s->gpn)
		lwhole_of(s, x->part)[x->leaf]++;
	uint32_t *h = head_of(s, n);
	x->prev = NIL;
	x->next = *h;
	if (*h != NIL)
		s->node[*h].prev = n;
	*h = n;
}

static void set_free(struct q *s, uint32_t n, uint32_t f)
{
	/* during a backfill pass, a node not yet in the shadow state keeps
	 * there the free count it had when the reservation was made */
	uint32_t p = s->node[n].part;
	if (s->shadow_on && s->pst[p] == 2 && s->stamp[n] != s->ppass[p]) {
		s->stamp[n] = s->ppass[p];
		s->sfree[n] = s->node[n].free;
	}
	unlink_node(s, n);
	s->node[n].free = f;
	link_node(s, n);
}

static uint32_t nodes_of(const struct q *s, uint32_t g)
{
	return (g + s->gpn - 1) / s->gpn;
}

/* GPUs job j holds on each of its nodes. */
static uint32_t per_node(const struct q *s, const struct qjob *jj, uint32_t g)
{
	(void)jj;
	return g <= s->gpn ? g : s->gpn;
}

static bool fits_counts(const struct q *s, const uint32_t *cnt, uint32_t g)
{
	if (g > s->gpn)
		return cnt[s->gpn] >= nodes_of(s, g);
	for (uint32_t f = g; f <= s->gpn; f++)
		if (cnt[f])
			return true;
	return false;
}

/* The leaf with the fewest (fewest false: most) whole free nodes, at least
 * `need` of them; NIL when none. */
static uint32_t pick_leaf(const struct q *s, uint32_t p, uint32_t need, bool fewest)
{
	const uint32_t *lw = lwhole_of(s, p);
	uint32_t best = NIL;
	for (uint32_t L = 0; L < s->nleaves; L++) {
		uint32_t w = lw[L];
		if (w < need || !w)
			continue;
		if (best == NIL || (fewest ? w < lw[best] : w > lw[best]))
			best = L;
	}
	return best;
}

static int push_pool(struct q *s, uint32_t n)
{
	if (ts_grow_raw((void **)&s->pool, &s->cappool, s->npool + 1, sizeof *s->pool))
		return fail(s, TS_ENOMEM, "out of memory");
	s->pool[s->npool++] = n;
	return 0;
}

/* Take the nodes of job i (which fits); its nodes go to the pool. */
static int place(struct q *s, uint32_t i)
{
	struct qjob *jj = &s->j[i];
	uint32_t g = s->l->j[i].gpus, gpn = s->gpn, p = s->jpart[i];
	uint32_t *lvl = lvl_of(s, p), *leafhead = lhead_of(s, p);
	bool spread = s->c->place == QUEUE_SPREAD;
	jj->aoff = (uint32_t)s->npool;
	jj->nn = 0;
	if (g <= gpn) {
		uint32_t n = NIL;
		if (spread) {
			uint32_t L = pick_leaf(s, p, 1, false);
			if (L != NIL)
				n = leafhead[L];
			for (uint32_t f = gpn - 1; n == NIL && f >= g && f > 0; f--)
				n = lvl[f];
		} else {
			for (uint32_t f = g; n == NIL && f < gpn; f++)
				n = lvl[f];
			if (n == NIL) {
				uint32_t L = pick_leaf(s, p, 1, true);
				if (L != NIL)
					n = leafhead[L];
			}
		}
		if (n == NIL || push_pool(s, n))
			return fail(s, TS_EINVALID, "placement found no node for a job that fits");
		set_free(s, n, s->node[n].free - g);
		jj->nn = 1;
		jj->leaves = 1;
		return 0;
	}
	uint32_t need = nodes_of(s, g), leaves = 0;
	if (spread) {
		while (jj->nn < need) {
			bool any = false;
			for (uint32_t L = 0; L < s->nleaves && jj->nn < need; L++) {
				uint32_t n = leafhead[L];
				if (n == NIL)
					continue;
				any = true;
				if (push_pool(s, n))
					return s->rc;
				set_free(s, n, 0);
				jj->nn++;
			}
			if (!any)
				return fail(s, TS_EINVALID, "placement ran out of whole nodes");
		}
	} else {
		uint32_t L = pick_leaf(s, p, need, true);
		while (jj->nn < need) {
			if (L == NIL)
				L = pick_leaf(s, p, 1, false);
			if (L == NIL)
				return fail(s, TS_EINVALID, "placement ran out of whole nodes");
			while (jj->nn < need && leafhead[L] != NIL) {
				uint32_t n = leafhead[L];
				if (push_pool(s, n))
					return s->rc;
				set_free(s, n, 0);
				jj->nn++;
			}
			L = NIL;
		}
	}
	s->mstamp++;
	for (uint32_t k = 0; k < jj->nn; k++) {
		uint32_t L = s->node[s->pool[jj->aoff + k]].leaf;
		if (s->mark[L] != s->mstamp) {
			s->mark[L] = s->mstamp;
			leaves++;
		}
	}
	jj->leaves = leaves;
	return 0;
}

static void unplace(struct q *s, uint32_t i)
{
	struct qjob *jj = &s->j[i];
	uint32_t g = per_node(s, jj, s->l->j[i].gpus);
	for (uint32_t k = 0; k < jj->nn; k++) {
		uint32_t n = s->pool[jj->aoff + k];
		set_free(s, n, s->node[n].free + g);
	}
}

/* ------------------------------------------------------- accounting */

static int sample(struct q *s, ts_time t)
{
	struct queue_stats *o = s->o;
	if (!s->c->detail)
		return 0;
	struct queue_sample x = {s->t0 + sec(t), s->busy, (uint32_t)s->nwait, s->down};
	if (o->ntl && o->tl[o->ntl - 1].busy == x.busy && o->tl[o->ntl - 1].queued == x.queued &&
	    o->tl[o->ntl - 1].down == x.down)
		return 0;
	if (o->ntl && o->tl[o->ntl - 1].t_s == x.t_s) {
		o->tl[o->ntl - 1] = x;
		return 0;
	}
	if (ts_grow_raw((void **)&o->tl, &o->captl, o->ntl + 1, sizeof *o->tl))
		return fail(s, TS_ENOMEM, "out of memory");
	o->tl[o->ntl++] = x;
	return 0;
}

static void advance(struct q *s)
{
	ts_time now = evq_now(s->evq);
	double dt = sec(now - s->last);
	if (dt > 0.0) {
		s->busy_area += (double)s->busy * dt;
		s->queue_area += (double)s->nwait * dt;
		if (s->nwait) {
			uint32_t idle = s->G - s->busy - s->down;
			s->frag_area += (double)idle * dt;
		}
	}
	s->last = now;
}

/* ------------------------------------------------------ fair-share */

static uint32_t user_of(const struct q *s, uint32_t i)
{
	uint32_t u = s->l->j[i].user;
	return u == JOBS_NONE ? (uint32_t)s->l->users.n : u;
}

static double halflife(const struct q *s)
{
	return s->c->fs_halflife_s > 0.0 ? s->c->fs_halflife_s : 7.0 * 86400.0;
}

/* Bring the decayed usage up to now: the usage decays by 2^(-dt/h) and the
 * running GPUs' GPU-seconds are added (counted at the end of the period). */
static void accrue(struct q *s)
{
	ts_time now = evq_now(s->evq);
	double dt = sec(now - s->acc_at);
	if (dt <= 0.0)
		return;
	double d = exp2(-dt / halflife(s));
	for (size_t u = 0; u <= s->l->users.n; u++)
		s->usage[u] = s->usage[u] * d + s->ugpus[u] * dt;
	s->acc_at = now;
}

static double priority(const struct q *s, uint32_t i, double total)
{
	const struct queue_cfg *c = s->c;
	double wfs = c->w_fairshare > 0.0 ? c->w_fairshare : 10000.0;
	double wage = c->w_age > 0.0 ? c->w_age : 1000.0;
	double maxage = c->max_age_s > 0.0 ? c->max_age_s : 7.0 * 86400.0;
	double users = (double)(s->l->users.n ? s->l->users.n : 1);
	double U = total > 0.0 ? s->usage[user_of(s, i)] / total : 0.0;
	double F = exp2(-U * users);
	double age = sec(evq_now(s->evq) - s->j[i].submit) / maxage;
	return wfs * F + wage * (age < 1.0 ? age : 1.0) + s->l->j[i].priority;
}

static double usage_total(const struct q *s)
{
	double t = 0.0;
	for (size_t u = 0; u <= s->l->users.n; u++)
		t += s->usage[u];
	return t;
}

/* ----------------------------------------------------- waiting list */

/* Whether job a comes before b in the queue. */
static bool before(const struct q *s, uint32_t a, uint32_t b)
{
	if (s->c->policy == QUEUE_PRIORITY && s->j[a].prio != s->j[b].prio)
		return s->j[a].prio > s->j[b].prio;
	if (s->j[a].submit != s->j[b].submit)
		return s->j[a].submit < s->j[b].submit;
	return a < b;
}

/* Insert i in queue order, searching from the tail (new jobs go near it). */
static void enqueue(struct q *s, uint32_t i)
{
	uint32_t p = s->qtail;
	while (p != NIL && before(s, i, p))
		p = s->j[p].prev;
	struct qjob *x = &s->j[i];
	x->prev = p;
	x->next = p == NIL ? s->qhead : s->j[p].next;
	if (x->next != NIL)
		s->j[x->next].prev = i;
	else
		s->qtail = i;
	if (p != NIL)
		s->j[p].next = i;
	else
		s->qhead = i;
	x->st = J_WAIT;
	s->nwait++;
}

static void dequeue(struct q *s, uint32_t i)
{
	struct qjob *x = &s->j[i];
	if (x->prev != NIL)
		s->j[x->prev].next = x->next;
	else
		s->qhead = x->next;
	if (x->next != NIL)
		s->j[x->next].prev = x->prev;
	else
		s->qtail = x->prev;
	s->nwait--;
}

/* --------------------------------------------------- running jobs */

static bool run_less(const struct q *s, uint32_t a, uint32_t b)
{
	return s->j[a].exp_end != s->j[b].exp_end ? s->j[a].exp_end < s->j[b].exp_end : a < b;
}

static size_t run_find(const struct q *s, uint32_t i)
{
	size_t lo = 0, hi = s->nrun;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (run_less(s, s->run[m], i))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static void run_insert(struct q *s, uint32_t i)
{
	size_t k = run_find(s, i);
	memmove(s->run + k + 1, s->run + k, (s->nrun - k) * sizeof *s->run);
	s->run[k] = i;
	s->nrun++;
}

static void run_remove(struct q *s, uint32_t i)
{
	size_t k = run_find(s, i);
	memmove(s->run + k, s->run + k + 1, (s->nrun - k - 1) * sizeof *s->run);
	s->nrun--;
}

/* ------------------------------------------------------ run times */

static void on_end(void *ctx, uint64_t arg);

static bool is_ml(const struct q *s, uint32_t i)
{
	return s->l->j[i].scenario != JOBS_NONE && s->j[i].leaves > 1 && s->c->nodes_per_leaf;
}

/* Run time alone-or-shared of job i on its placement with `share`. */
static int runtime(struct q *s, uint32_t i, uint32_t share, double *t)
{
	const struct jobs_job *in = &s->l->j[i];
	if (in->scenario == JOBS_NONE) {
		*t = in->duration_s;
		return 0;
	}
	if (!s->c->cache)
		return fail(s, TS_EINVALID, "a job names a scenario, and no simulation is set up");
	struct queue_shape k = {in->scenario, s->j[i].nn, (in->gpus + s->j[i].nn - 1) / s->j[i].nn,
				s->j[i].leaves, share};
	struct queue_rt rt;
	if (cache_get(s->c->cache, &k, &rt, s->err)) {
		if (!s->rc)
			s->rc = s->err ? s->err->code : TS_EINVALID;
		return s->rc;
	}
	double steps = in->steps;
	if (!(steps > 0.0)) {
		if (!(rt.tokens_per_step > 0.0))
			return fail(s, TS_EINVALID,
				    "a scenario job gives tokens, and its scenario counts samples");
		steps = ceil(in->tokens / rt.tokens_per_step);
	}
	*t = steps * rt.step_s;
	return 0;
}

/* Push (or move) job i's end event: its work left at its rate, or its
 * time limit when that comes first. */
static int schedule_end(struct q *s, uint32_t i)
{
	struct qjob *x = &s->j[i];
	ts_time now = evq_now(s->evq), at;
	if (!ts_time_after(now, x->left / x->rate, &at)) {
		char msg[200];
		snprintf(msg, sizeof msg,
			 "job %.60s: found an end %.4g s after %.4g s, beyond 292 years (the "
			 "int64-ns range of simulated time), expected a run time that fits",
			 s->l->ids.s[s->l->j[i].id], x->left / x->rate, (double)now * 1e-9);
		return fail(s, TS_ELIMIT, msg);
	}
	if (at > x->limit_at)
		at = x->limit_at;
	if (x->ev && evq_cancel(s->evq, x->ev))
		x->ev = 0;
	if (evq_push(s->evq, at, on_end, s, i, &x->ev))
		return fail(s, TS_ENOMEM, "out of memory");
	x->end = at;
	return 0;
}

static void bring_up(struct q *s, uint32_t i)
{
	struct qjob *x = &s->j[i];
	ts_time now = evq_now(s->evq);
	x->left -= sec(now - x->upd) * x->rate;
	if (x->left < 0.0)
		x->left = 0.0;
	x->upd = now;
}

/* Re-rate the multi-leaf scenario jobs whose share changed. */
static int rerate(struct q *s)
{
	for (size_t k = 0; k < s->nml; k++) {
		uint32_t i = s->ml[k];
		struct qjob *x = &s->j[i];
		uint32_t share = 1;
		for (uint32_t a = 0; a < x->nn; a++) {
			uint32_t c = s->leafml[s->node[s->pool[x->aoff + a]].leaf];
			if (c > share)
				share = c;
		}
		if (share == x->share)
			continue;
		double t;
		if (runtime(s, i, share, &t))
			return s->rc;
		bring_up(s, i);
		x->share = share;
		x->rate = 1.0 / t; /* fraction of the work per s */
		if (schedule_end(s, i))
			return s->rc;
	}
	return 0;
}

/* Count multi-leaf job i on its leaves (+1 or -1). */
static void count_ml(struct q *s, uint32_t i, int d)
{
	struct qjob *x = &s->j[i];
	s->mstamp++;
	for (uint32_t a = 0; a < x->nn; a++) {
		uint32_t L = s->node[s->pool[x->aoff + a]].leaf;
		if (s->mark[L] == s->mstamp)
			continue;
		s->mark[L] = s->mstamp;
		s->leafml[L] = (uint32_t)((int)s->leafml[L] + d);
	}
}

/* Start job i on the nodes place() gave it (left in the pool). */
static int start(struct q *s, uint32_t i, double t1)
{
	struct qjob *x = &s->j[i];
	const struct jobs_job *in = &s->l->j[i];
	ts_time now = evq_now(s->evq);
	if (x->first_start < 0) {
		x->first_start = now;
		x->alone_s = t1;
	}
	x->start = x->upd = now;
	x->t1 = t1;
	x->r0 = x->restart_s;
	if (x->restart_s > 0.0) {
		x->left += x->restart_s / t1;
		x->restart_s = 0.0;
	}
	x->left0 = x->left;
	x->rate = 1.0 / t1;
	x->share = 1;
	x->st = J_RUN;
	x->limit_at = TS_TIME_MAX;
	if (in->time_limit_s > 0.0 && !ts_time_after(now, in->time_limit_s, &x->limit_at))
		x->limit_at = TS_TIME_MAX;
	double est = in->time_limit_s > 0.0 ? in->time_limit_s : x->left * t1;
	if (!ts_time_after(now, est, &x->exp_end))
		x->exp_end = TS_TIME_MAX;
	run_insert(s, i);
	s->busy += in->gpus;
	s->ugpus[user_of(s, i)] += in->gpus;
	if (schedule_end(s, i))
		return s->rc;
	if (is_ml(s, i)) {
		s->ml[s->nml++] = i;
		count_ml(s, i, +1);
		return rerate(s);
	}
	return 0;
}

/* Stop job i's run (end, limit or failure): free its nodes. */
static int stop(struct q *s, uint32_t i)
{
	struct qjob *x = &s->j[i];
	const struct jobs_job *in = &s->l->j[i];
	ts_time now = evq_now(s->evq);
	bring_up(s, i);
	run_remove(s, i);
	unplace(s, i);
	s->busy -= in->gpus;
	s->ugpus[user_of(s, i)] -= in->gpus;
	s->o->busy_gpu_s += (double)in->gpus * sec(now - x->start);
	if (is_ml(s, i)) {
		size_t k = 0;
		while (s->ml[k] != i)
			k++;
		s->ml[k] = s->ml[--s->nml];
		count_ml(s, i, -1);
		return rerate(s);
	}
	return 0;
}

/* ------------------------------------------------------- scheduling */

static void on_sched(void *ctx, uint64_t arg);

static int want_sched(struct q *s)
{
	if (s->sched_pending)
		return 0;
	s->sched_pending = true;
	if (evq_push(s->evq, evq_now(s->evq), on_sched, s, 0, NULL))
		return fail(s, TS_ENOMEM, "out of memory");
	return 0;
}

static uint32_t sget(const struct q *s, uint32_t n)
{
	return s->stamp[n] == s->ppass[s->node[n].part] ? s->sfree[n] : s->node[n].free;
}

static void sset(struct q *s, uint32_t n, uint32_t f)
{
	uint32_t p = s->node[n].part, *scnt = cnt_of(s, s->scnt, p);
	if (s->node[n].up) {
		scnt[sget(s, n)]--;
		scnt[f]++;
	}
	s->stamp[n] = s->ppass[p];
	s->sfree[n] = f;
}

/* The reservation of waiting job h: the time at which, running jobs ending
 * at their expected ends, it fits; TS_TIME_MAX when it never does. Leaves
 * the free counts at that time in the shadow state. */
static ts_time shadow(struct q *s, uint32_t h)
{
	uint32_t g = s->l->j[h].gpus, p = s->jpart[h];
	uint32_t *scnt = cnt_of(s, s->scnt, p);
	s->ppass[p] = ++s->pass;
	memcpy(scnt, cnt_of(s, s->cnt, p), (s->gpn + 1) * sizeof *scnt);
	for (size_t k = 0; k < s->nrun; k++) {
		uint32_t r = s->run[k];
		struct qjob *x = &s->j[r];
		if (s->jpart[r] != p)
			continue;
		uint32_t pg = per_node(s, x, s->l->j[r].gpus);
		for (uint32_t a = 0; a < x->nn; a++) {
			uint32_t n = s->pool[x->aoff + a];
			sset(s, n, sget(s, n) + pg);
		}
		if (fits_counts(s, scnt, g))
			return x->exp_end;
	}
	return TS_TIME_MAX;
}

/* Try to start job i now; *started says whether it did. With a
 * reservation (h != NIL) it must end by `shadow` or leave h fitting at it. */
static int try_start(struct q *s, uint32_t i, uint32_t h, ts_time shadow_at, bool *started)
{
	*started = false;
	uint32_t g = s->l->j[i].gpus;
	if (!fits_counts(s, cnt_of(s, s->cnt, s->jpart[i]), g))
		return 0;
	size_t pool0 = s->npool;
	if (place(s, i))
		return s->rc;
	struct qjob *x = &s->j[i];
	double t1;
	if (runtime(s, i, 1, &t1))
		return s->rc;
	if (h != NIL && shadow_at != TS_TIME_MAX) {
		const struct jobs_job *in = &s->l->j[i];
		double est =
		    in->time_limit_s > 0.0 ? in->time_limit_s : (x->left + x->restart_s / t1) * t1;
		ts_time end;
		bool late = !ts_time_after(evq_now(s->evq), est, &end) || end > shadow_at;
		if (late) {
			/* it would still run at the shadow time: h must fit beside it */
			uint32_t pg = per_node(s, x, g);
			for (uint32_t a = 0; a < x->nn; a++) {
				uint32_t n = s->pool[x->aoff + a];
				sset(s, n, sget(s, n) - pg);
			}
			if (!fits_counts(s, cnt_of(s, s->scnt, s->jpart[h]), s->l->j[h].gpus)) {
				for (uint32_t a = 0; a < x->nn; a++) {
					uint32_t n = s->pool[x->aoff + a];
					sset(s, n, sget(s, n) + pg);
				}
				unplace(s, i);
				s->npool = pool0;
				return 0;
			}
		}
	}
	dequeue(s, i);
	*started = true;
	return start(s, i, t1);
}

/* End running job i's run early and requeue it (a node failure, or a
 * preemption when preempted): the run since its last checkpoint is lost,
 * and its next start pays a restart. */
static int requeue(struct q *s, uint32_t i, bool preempted)
{
	struct qjob *x = &s->j[i];
	if (x->ev && evq_cancel(s->evq, x->ev))
		x->ev = 0;
	if (stop(s, i))
		return s->rc;
	/* the run since the start, in run time alone, less its restart; the
	 * part since the last checkpoint is lost */
	double run_s = (x->left0 - x->left) * x->t1 - x->r0;
	if (run_s < 0.0)
		run_s = 0.0;
	double C = s->c->checkpoint_s, keep = 0.0;
	if (C > 0.0)
		keep = floor(run_s / C) * C;
	double lost = (x->left0 - x->left) * x->t1 - keep;
	x->saved += keep / x->t1;
	if (x->saved > 1.0)
		x->saved = 1.0;
	x->left = 1.0 - x->saved;
	x->restart_s = s->c->restart_s;
	x->restarts++;
	s->o->lost_gpu_s += lost * (double)s->l->j[i].gpus;
	if (preempted) {
		s->o->preempted++;
		s->o->preempt_lost_gpu_s += lost * (double)s->l->j[i].gpus;
	} else {
		s->o->requeued++;
	}
	enqueue(s, i);
	return 0;
}

/* Preemption (Slurm's PreemptMode=REQUEUE, tiers as with preempt/qos): a
 * waiting job that does not fit may requeue running jobs of a lower tier
 * (the jobs' own priority term) when freeing them lets it fit. Victims are
 * taken lowest tier first, then youngest run first (least work lost), until
 * it fits; a victim whose freeing is not needed once the later ones are
 * freed is spared. Waiting jobs are tried in queue order, bf_depth of them. */
static bool by_victim(const struct q *s, uint32_t a, uint32_t b)
{
	double pa = s->l->j[a].priority, pb = s->l->j[b].priority;
	if (pa != pb)
		return pa < pb;
	if (s->j[a].start != s->j[b].start)
		return s->j[a].start > s->j[b].start;
	return a > b;
}

/* Whether job g fits once the victims v[0..n) but `skip` are freed. */
static bool fits_freeing(struct q *s, const uint32_t *v, size_t n, size_t skip, uint32_t g,
			 uint32_t p)
{
	uint32_t *scnt = cnt_of(s, s->scnt, p);
	s->ppass[p] = ++s->pass;
	memcpy(scnt, cnt_of(s, s->cnt, p), (s->gpn + 1) * sizeof *scnt);
	for (size_t k = 0; k < n; k++) {
		if (k == skip)
			continue;
		struct qjob *x = &s->j[v[k]];
		uint32_t pg = per_node(s, x, s->l->j[v[k]].gpus);
		for (uint32_t a = 0; a < x->nn; a++) {
			uint32_t nd = s->pool[x->aoff + a];
			sset(s, nd, sget(s, nd) + pg);
		}
	}
	return fits_counts(s, scnt, g);
}

static int preempt(struct q *s)
{
	uint32_t depth = s->c->bf_depth ? s->c->bf_depth : 500;
	if (!s->nrun)
		return 0;
	if (s->c->policy == QUEUE_PRIORITY)
		accrue(s); /* usage up to now, before victims stop */
	uint32_t *v = ts_malloc(s->nrun * sizeof *v);
	if (!v)
		return fail(s, TS_ENOMEM, "out of memory");
	size_t capv = s->nrun;
	uint32_t k = 0;
	for (uint32_t i = s->qhead; i != NIL && k < depth; k++) {
		uint32_t g = s->l->j[i].gpus, p = s->jpart[i];
		double tier = s->l->j[i].priority;
		if (fits_counts(s, cnt_of(s, s->cnt, p), g)) {
			i = s->j[i].next;
			continue;
		}
		/* the candidates, in the order they are taken */
		size_t n = 0;
		for (size_t r = 0; r < s->nrun; r++)
			if (s->l->j[s->run[r]].priority < tier && s->jpart[s->run[r]] == p)
				v[n++] = s->run[r];
		for (size_t a = 1; a < n; a++) /* insertion sort: few candidates */
			for (size_t b = a; b > 0 && by_victim(s, v[b], v[b - 1]); b--) {
				uint32_t t = v[b];
				v[b] = v[b - 1];
				v[b - 1] = t;
			}
		size_t m = 0;
		while (m < n && !fits_freeing(s, v, m, SIZE_MAX, g, p))
			m++;
		if (!fits_freeing(s, v, m, SIZE_MAX, g, p)) {
			i = s->j[i].next;
			continue;
		}
		/* spare the victims the later ones make needless */
		for (size_t a = m; a-- > 0;)
			if (fits_freeing(s, v, m, a, g, p)) {
				memmove(v + a, v + a + 1, (m - a - 1) * sizeof *v);
				m--;
			}
		for (size_t a = 0; a < m; a++) {
			if (requeue(s, v[a], true))
				goto out;
		}
		bool started;
		if (try_start(s, i, NIL, TS_TIME_MAX, &started))
			goto out;
		assert(started);
		/* the waiting list changed: start over from its head */
		i = s->qhead;
	}
out:
	ts_free(v, capv * sizeof *v);
	return s->rc;
}

static void on_sched(void *ctx, uint64_t arg)
{
	(void)arg;
	struct q *s = ctx;
	s->sched_pending = false;
	if (s->rc)
		return;
	advance(s);
	bool started;
	/* in queue order, each partition's jobs while they fit */
	memset(s->pst, 0, s->P * sizeof *s->pst);
	uint32_t blocked = 0;
	for (uint32_t i = s->qhead; i != NIL && blocked < s->P;) {
		uint32_t nx = s->j[i].next, p = s->jpart[i];
		if (!s->pst[p]) {
			if (try_start(s, i, NIL, TS_TIME_MAX, &started))
				return;
			if (!started) {
				s->pst[p] = 1;
				blocked++;
			}
		}
		i = nx;
	}
	if (s->qhead != NIL && s->c->preempt && preempt(s))
		return;
	if (s->qhead != NIL && s->c->policy != QUEUE_FIFO) {
		/* each partition's first waiting job holds a reservation; its
		 * later jobs may start if they do not delay it */
		memset(s->pst, 0, s->P * sizeof *s->pst);
		uint32_t depth = s->c->bf_depth ? s->c->bf_depth : 500;
		s->shadow_on = true;
		uint32_t k = 0;
		for (uint32_t i = s->qhead; i != NIL && k < depth && s->busy + s->down < s->G;) {
			uint32_t nx = s->j[i].next, p = s->jpart[i];
			if (!s->pst[p]) {
				s->pst[p] = 1;
				s->ph[p] = i;
				i = nx;
				continue;
			}
			if (s->pst[p] == 1) {
				s->psh[p] = shadow(s, s->ph[p]);
				s->pst[p] = 2;
			}
			if (try_start(s, i, s->ph[p], s->psh[p], &started))
				break;
			k++;
			i = nx;
		}
		s->shadow_on = false;
		if (s->rc)
			return;
	}
	sample(s, evq_now(s->evq));
}

/* ----------------------------------------------------------- events */

static void on_arrival(void *ctx, uint64_t arg);

static int push_arrival(struct q *s)
{
	while (s->next_arrival < s->l->n) {
		uint32_t i = s->order[s->next_arrival++];
		if (s->j[i].st == J_END) /* too big: never queued */
			continue;
		if (evq_push(s->evq, s->j[i].submit, on_arrival, s, i, NULL))
			return fail(s, TS_ENOMEM, "out of memory");
		return 0;
	}
	return 0;
}

static void on_prio(void *ctx, uint64_t arg);
static int push_fail(struct q *s);

static int push_prio(struct q *s)
{
	if (s->prio_pending || s->c->policy != QUEUE_PRIORITY)
		return 0;
	double p = s->c->prio_calc_s > 0.0 ? s->c->prio_calc_s : 300.0;
	ts_time at;
	if (!ts_time_after(evq_now(s->evq), p, &at))
		return 0;
	s->prio_pending = true;
	if (evq_push(s->evq, at, on_prio, s, 0, NULL))
		return fail(s, TS_ENOMEM, "out of memory");
	return 0;
}

static void on_arrival(void *ctx, uint64_t arg)
{
	struct q *s = ctx;
	uint32_t i = (uint32_t)arg;
	if (s->rc)
		return;
	advance(s);
	if (s->c->policy == QUEUE_PRIORITY) {
		accrue(s);
		s->j[i].prio = priority(s, i, usage_total(s));
	}
	enqueue(s, i);
	if (push_arrival(s) || want_sched(s) || push_prio(s) || push_fail(s))
		return;
}

/* A waiting job's sort key: priority, then submit order. */
struct pkey {
	double prio;
	ts_time submit;
	uint32_t i;
};

static int cmp_pkey(const void *a, const void *b)
{
	const struct pkey *x = a, *y = b;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void on_prio(void *ctx, uint64_t arg)
{
	(void)arg;
	struct q *s = ctx;
	s->prio_pending = false;
	if (s->rc)
		return;
	accrue(s);
	if (s->nwait) {
		double total = usage_total(s);
		struct pkey *a = ts_malloc(s->nwait * sizeof *a);
		if (!a) {
			fail(s, TS_ENOMEM, "out of memory");
			return;
		}
		size_t n = 0;
		for (uint32_t i = s->qhead; i != NIL; i = s->j[i].next) {
			s->j[i].prio = priority(s, i, total);
			a[n++] = (struct pkey){s->j[i].prio, s->j[i].submit, i};
		}
		qsort(a, n, sizeof *a, cmp_pkey);
		s->qhead = s->qtail = NIL;
		s->nwait = 0;
		for (size_t k = 0; k < n; k++) {
			uint32_t i = a[k].i;
			struct qjob *x = &s->j[i];
			x->prev = s->qtail;
			x->next = NIL;
			if (s->qtail != NIL)
				s->j[s->qtail].next = i;
			else
				s->qhead = i;
			s->qtail = i;
			s->nwait++;
		}
		ts_free(a, n * sizeof *a);
		want_sched(s);
	}
	if (s->nwait || s->nrun || s->next_arrival < s->l->n)
		push_prio(s);
}

static void on_end(void *ctx, uint64_t arg)
{
	struct q *s = ctx;
	uint32_t i = (uint32_t)arg;
	if (s->rc)
		return;
	advance(s);
	struct qjob *x = &s->j[i];
	x->ev = 0;
	if (s->c->policy == QUEUE_PRIORITY)
		accrue(s);
	ts_time now = evq_now(s->evq);
	bool timeout = now >= x->limit_at && x->left - sec(now - x->upd) * x->rate > 1e-12;
	if (stop(s, i))
		return;
	x->st = J_END;
	x->end = now;
	x->out = timeout ? QUEUE_TIMEOUT : QUEUE_DONE;
	if (now > s->last_end)
		s->last_end = now;
	want_sched(s);
}

static void on_fail(void *ctx, uint64_t arg);
static void on_repair(void *ctx, uint64_t arg);

static int push_fail(struct q *s)
{
	if (!s->c->failures || !(s->c->node_mtbf_s > 0.0) || s->fail_pending)
		return 0;
	/* no failures once nothing is left to run: restarted by an arrival */
	if (!s->nrun && !s->nwait && s->next_arrival >= s->l->n)
		return 0;
	double dt = gsl_ran_exponential(s->rng, s->c->node_mtbf_s / (double)s->N);
	ts_time at;
	if (!ts_time_after(evq_now(s->evq), dt, &at))
		return 0;
	if (evq_push(s->evq, at, on_fail, s, 0, NULL))
		return fail(s, TS_ENOMEM, "out of memory");
	s->fail_pending = true;
	return 0;
}

static void on_fail(void *ctx, uint64_t arg)
{
	(void)arg;
	struct q *s = ctx;
	s->fail_pending = false;
	if (s->rc)
		return;
	uint32_t n = (uint32_t)gsl_rng_uniform_int(s->rng, s->N);
	if (s->node[n].up) {
		advance(s);
		if (s->c->policy == QUEUE_PRIORITY)
			accrue(s);
		s->o->failures++;
		/* the runs on n: collected first, stop() reorders `run` */
		size_t cap = s->nrun ? s->nrun : 1, nv = 0;
		uint32_t *victims = ts_malloc(cap * sizeof *victims);
		if (!victims) {
			fail(s, TS_ENOMEM, "out of memory");
			return;
		}
		for (size_t k = 0; k < s->nrun; k++) {
			struct qjob *x = &s->j[s->run[k]];
			for (uint32_t a = 0; a < x->nn; a++)
				if (s->pool[x->aoff + a] == n) {
					victims[nv++] = s->run[k];
					break;
				}
		}
		for (uint32_t v = 0; v < nv; v++) {
			if (requeue(s, victims[v], false)) {
				ts_free(victims, cap * sizeof *victims);
				return;
			}
		}
		ts_free(victims, cap * sizeof *victims);
		unlink_node(s, n);
		s->node[n].up = false;
		s->down += s->gpn;
		ts_time at;
		if (!ts_time_after(evq_now(s->evq), s->c->repair_s, &at) ||
		    evq_push(s->evq, at, on_repair, s, n, NULL)) {
			fail(s, TS_ENOMEM, "out of memory");
			return;
		}
		want_sched(s);
	}
	push_fail(s);
}

static void on_repair(void *ctx, uint64_t arg)
{
	struct q *s = ctx;
	uint32_t n = (uint32_t)arg;
	if (s->rc)
		return;
	advance(s);
	s->node[n].up = true;
	s->down -= s->gpn;
	link_node(s, n);
	want_sched(s);
	/* the failure stream stops when idle: restart it */
	push_fail(s);
}

/* ------------------------------------------------------------- stats */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank quantile p of sorted v[0..n). */
static double quantile(const double *v, size_t n, double p)
{
	if (!n)
		return 0.0;
	double r = ceil(p * (double)n);
	size_t k = r < 1.0 ? 0 : (size_t)r - 1;
	return v[k < n ? k : n - 1];
}

/* The waits the input records (jobs_job.rec_start_s) beside those replayed
 * here, over the jobs that have one and ran: a trace's own figures against
 * the replay's. A recorded start before the submit counts as no wait. */
static int recorded(struct q *s)
{
	struct queue_stats *o = s->o;
	const struct jobs_list *l = s->l;
	size_t k = 0;
	for (size_t i = 0; i < l->n; i++)
		k += isfinite(l->j[i].rec_start_s) && s->j[i].out != QUEUE_TOO_BIG;
	if (!k)
		return 0;
	double *rw = ts_malloc(2 * k * sizeof *rw);
	if (!rw)
		return fail(s, TS_ENOMEM, "out of memory");
	double *sw = rw + k, sr = 0.0, ss = 0.0;
	size_t m = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct qjob *x = &s->j[i];
		if (!isfinite(l->j[i].rec_start_s) || x->out == QUEUE_TOO_BIG)
			continue;
		double r = l->j[i].rec_start_s - l->j[i].submit_s;
		rw[m] = r > 0.0 ? r : 0.0;
		sw[m] = sec(x->first_start - x->submit);
		sr += rw[m];
		ss += sw[m];
		m++;
	}
	qsort(rw, k, sizeof *rw, cmp_double);
	qsort(sw, k, sizeof *sw, cmp_double);
	o->recorded = k;
	o->rec_mean_wait_s = sr / (double)k;
	o->rec_p50_wait_s = quantile(rw, k, 0.5);
	o->rec_p90_wait_s = quantile(rw, k, 0.9);
	o->rec_max_wait_s = rw[k - 1];
	o->replay_mean_wait_s = ss / (double)k;
	o->replay_p50_wait_s = quantile(sw, k, 0.5);
	o->replay_p90_wait_s = quantile(sw, k, 0.9);
	ts_free(rw, 2 * k * sizeof *rw);
	return 0;
}

/* Each partition's figures (with partitions). */
static int part_stats(struct q *s)
{
	struct queue_stats *o = s->o;
	const struct jobs_list *l = s->l;
	if (!o->npart)
		return 0;
	double *w = ts_malloc((l->n ? l->n : 1) * sizeof *w);
	if (!w)
		return fail(s, TS_ENOMEM, "out of memory");
	for (uint32_t p = 0; p < o->npart; p++) {
		struct queue_part_stats *z = &o->part[p];
		size_t k = 0;
		double sum = 0.0;
		z->nodes = s->pnodes[p];
		z->gpus = s->pnodes[p] * s->gpn;
		for (size_t i = 0; i < l->n; i++) {
			const struct qjob *x = &s->j[i];
			if (s->jpart[i] != p)
				continue;
			if (x->out == QUEUE_TOO_BIG) {
				z->too_big++;
				continue;
			}
			w[k] = sec(x->first_start - x->submit);
			sum += w[k++];
			z->busy_gpu_s += (double)l->j[i].gpus * sec(x->end - x->start);
		}
		qsort(w, k, sizeof *w, cmp_double);
		z->jobs = k;
		z->mean_wait_s = k ? sum / (double)k : 0.0;
		z->p90_wait_s = quantile(w, k, 0.9);
	}
	ts_free(w, (l->n ? l->n : 1) * sizeof *w);
	return 0;
}

static int finish(struct q *s)
{
	struct queue_stats *o = s->o;
	const struct jobs_list *l = s->l;
	size_t n = l->n;
	double *w = ts_malloc((n ? n : 1) * sizeof *w);
	uint32_t *sz = ts_malloc((n ? n : 1) * sizeof *sz);
	if (!w || !sz) {
		ts_free(w, (n ? n : 1) * sizeof *w);
		ts_free(sz, (n ? n : 1) * sizeof *sz);
		return fail(s, TS_ENOMEM, "out of memory");
	}
	ts_time first = TS_TIME_MAX;
	for (size_t i = 0; i < n; i++)
		if (s->j[i].submit < first)
			first = s->j[i].submit;
	double sum_w = 0.0, sum_c = 0.0, sum_sd = 0.0, sum_st = 0.0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		struct qjob *x = &s->j[i];
		if (x->out == QUEUE_TOO_BIG) {
			o->too_big++;
			continue;
		}
		double wait = sec(x->first_start - x->submit), comp = sec(x->end - x->submit);
		double run = sec(x->end - x->first_start);
		if (x->out == QUEUE_TIMEOUT)
			o->timed_out++;
		if (x->first_start > x->submit)
			o->waited++;
		double b = x->alone_s > 10.0 ? x->alone_s : 10.0;
		double sd = comp / b;
		sum_w += wait;
		sum_c += comp;
		sum_sd += sd > 1.0 ? sd : 1.0;
		sum_st += x->alone_s > 0.0 ? run / x->alone_s : 1.0;
		w[m] = wait;
		sz[m] = l->j[i].gpus;
		m++;
	}
	o->ran = m;
	o->makespan_s = m ? sec(s->last_end - first) : 0.0;
	double cap = (double)s->G * o->makespan_s;
	o->utilisation = cap > 0.0 ? s->busy_area / cap : 0.0;
	o->fragmentation = cap > 0.0 ? s->frag_area / cap : 0.0;
	o->mean_queue = o->makespan_s > 0.0 ? s->queue_area / o->makespan_s : 0.0;
	if (m) {
		o->mean_wait_s = sum_w / (double)m;
		o->mean_completion_s = sum_c / (double)m;
		o->mean_slowdown = sum_sd / (double)m;
		o->mean_stretch = sum_st / (double)m;
	}
	/* by size class */
	uint32_t gpn = s->gpn;
	uint32_t lo[QUEUE_SIZES] = {1, 2, gpn + 1, 4 * gpn + 1, 16 * gpn + 1};
	uint32_t hi[QUEUE_SIZES] = {1, gpn, 4 * gpn, 16 * gpn, UINT32_MAX};
	double *cw = ts_malloc((m ? m : 1) * sizeof *cw);
	if (!cw) {
		ts_free(w, (n ? n : 1) * sizeof *w);
		ts_free(sz, (n ? n : 1) * sizeof *sz);
		return fail(s, TS_ENOMEM, "out of memory");
	}
	for (int c = 0; c < QUEUE_SIZES; c++) {
		if (lo[c] > hi[c])
			continue;
		size_t k = 0;
		double sd = 0.0;
		for (size_t i = 0, r = 0; i < n; i++) {
			struct qjob *x = &s->j[i];
			if (x->out == QUEUE_TOO_BIG)
				continue;
			uint32_t g = l->j[i].gpus;
			if (g >= lo[c] && g <= hi[c]) {
				cw[k++] = w[r];
				double b = x->alone_s > 10.0 ? x->alone_s : 10.0;
				double v = sec(x->end - x->submit) / b;
				sd += v > 1.0 ? v : 1.0;
			}
			r++;
		}
		if (!k)
			continue;
		qsort(cw, k, sizeof *cw, cmp_double);
		struct queue_size_stats *z = &o->size[o->nsize++];
		double sum = 0.0;
		for (size_t a = 0; a < k; a++)
			sum += cw[a];
		*z = (struct queue_size_stats){lo[c],
					       hi[c],
					       k,
					       sum / (double)k,
					       quantile(cw, k, 0.5),
					       quantile(cw, k, 0.9),
					       cw[k - 1],
					       sd / (double)k};
	}
	qsort(w, m, sizeof *w, cmp_double);
	o->p50_wait_s = quantile(w, m, 0.5);
	o->p90_wait_s = quantile(w, m, 0.9);
	o->max_wait_s = m ? w[m - 1] : 0.0;
	ts_free(cw, (m ? m : 1) * sizeof *cw);
	ts_free(w, (n ? n : 1) * sizeof *w);
	ts_free(sz, (n ? n : 1) * sizeof *sz);
	if (recorded(s) || part_stats(s))
		return s->rc;
	if (s->c->detail) {
		/* the run ends with its last job: failures and repairs of idle
		 * nodes after it are left out of the timeline, as out of the
		 * makespan */
		double end_s = s->t0 + sec(s->last_end);
		while (m && o->ntl > 1 && o->tl[o->ntl - 1].t_s > end_s)
			o->ntl--;
		for (size_t i = 0; i < n; i++) {
			struct qjob *x = &s->j[i];
			struct queue_job_out *y = &o->job[i];
			y->state = x->out;
			y->restarts = x->restarts;
			if (x->out == QUEUE_TOO_BIG) {
				y->start_s = y->end_s = NAN;
				continue;
			}
			y->start_s = s->t0 + sec(x->first_start);
			y->end_s = s->t0 + sec(x->end);
			y->alone_s = x->alone_s;
			y->nodes = x->nn;
			y->leaves = x->leaves;
		}
	}
	return 0;
}

/* ------------------------------------------------------------- entry */

void queue_stats_free(struct queue_stats *o)
{
	ts_free(o->user_gpu_s, o->nusers * sizeof *o->user_gpu_s);
	ts_free(o->job, o->jobs * sizeof *o->job);
	ts_free(o->tl, o->captl * sizeof *o->tl);
	ts_free(o->part, o->npart * sizeof *o->part);
	*o = (struct queue_stats){0};
}

#define FREE_N(p, n) ts_free((p), (size_t)(n) * sizeof *(p))

static void q_free(struct q *s)
{
	size_t n = s->l->n;
	evq_destroy(s->evq);
	FREE_N(s->j, n);
	FREE_N(s->order, n);
	FREE_N(s->node, s->N);
	FREE_N(s->lvl, (size_t)s->P * (s->gpn + 1));
	FREE_N(s->leafhead, (size_t)s->P * s->nleaves);
	FREE_N(s->leafwhole, (size_t)s->P * s->nleaves);
	FREE_N(s->cnt, (size_t)s->P * (s->gpn + 1));
	FREE_N(s->scnt, (size_t)s->P * (s->gpn + 1));
	FREE_N(s->jpart, n);
	FREE_N(s->pnodes, s->P);
	FREE_N(s->ppass, s->P);
	FREE_N(s->ph, s->P);
	FREE_N(s->psh, s->P);
	FREE_N(s->pst, s->P);
	FREE_N(s->pool, s->cappool);
	FREE_N(s->run, n);
	FREE_N(s->sfree, s->N);
	FREE_N(s->stamp, s->N);
	FREE_N(s->leafml, s->nleaves);
	FREE_N(s->mark, s->nleaves);
	FREE_N(s->ml, n);
	FREE_N(s->usage, s->l->users.n + 1);
	FREE_N(s->ugpus, s->l->users.n + 1);
	if (s->rng)
		gsl_rng_free(s->rng);
}

int queue_run(const struct jobs_list *l, const struct queue_cfg *c, struct queue_stats *o,
	      struct ts_error *err)
{
	*o = (struct queue_stats){0};
	if (!l->n)
		return ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				    "found no job, expected at least one");
	if (!c->nodes || !c->gpus_per_node ||
	    (uint64_t)c->nodes * c->gpus_per_node > UINT32_MAX / 2)
		return ts_error_set(err, TS_ERANGE, NULL, 0, "nodes",
				    "found %u nodes of %u GPUs, expected at least one GPU",
				    c->nodes, c->gpus_per_node);
	struct q s = {.l = l, .c = c, .o = o, .err = err};
	s.N = c->nodes;
	s.gpn = c->gpus_per_node;
	s.G = s.N * s.gpn;
	s.P = c->nparts > 1 ? c->nparts : 1;
	if (c->nparts > 1) {
		uint64_t sum = 0;
		for (uint32_t p = 0; p < c->nparts; p++) {
			if (!c->part_nodes[p])
				return ts_error_set(err, TS_EINVALID, NULL, 0, "partitions",
						    "found partition %s with no node, expected "
						    "at least one",
						    c->part_names[p]);
			sum += c->part_nodes[p];
		}
		if (sum != s.N)
			return ts_error_set(err, TS_EINVALID, NULL, 0, "partitions",
					    "found partitions of %llu nodes in all, expected "
					    "the cluster's %u",
					    (unsigned long long)sum, s.N);
	}
	uint32_t per_leaf = c->nodes_per_leaf && c->nodes_per_leaf < s.N ? c->nodes_per_leaf : s.N;
	s.nleaves = (s.N + per_leaf - 1) / per_leaf;
	size_t n = l->n, nu = l->users.n + 1;
	int rc = 0;
	o->nodes = s.N;
	o->gpus = s.G;
	o->jobs = n;
	o->nusers = nu;
	s.j = ts_calloc(n, sizeof *s.j);
	s.order = ts_malloc(n * sizeof *s.order);
	s.node = ts_calloc(s.N, sizeof *s.node);
	size_t pl = (size_t)s.P * (s.gpn + 1), pL = (size_t)s.P * s.nleaves;
	s.lvl = ts_malloc(pl * sizeof *s.lvl);
	s.leafhead = ts_malloc(pL * sizeof *s.leafhead);
	s.leafwhole = ts_calloc(pL, sizeof *s.leafwhole);
	s.cnt = ts_calloc(pl, sizeof *s.cnt);
	s.scnt = ts_calloc(pl, sizeof *s.scnt);
	s.jpart = ts_calloc(n, sizeof *s.jpart);
	s.pnodes = ts_calloc(s.P, sizeof *s.pnodes);
	s.ppass = ts_calloc(s.P, sizeof *s.ppass);
	s.ph = ts_calloc(s.P, sizeof *s.ph);
	s.psh = ts_calloc(s.P, sizeof *s.psh);
	s.pst = ts_calloc(s.P, sizeof *s.pst);
	if (c->nparts > 1) {
		o->part = ts_calloc(s.P, sizeof *o->part);
		o->npart = o->part ? s.P : 0;
	}
	s.run = ts_malloc(n * sizeof *s.run);
	s.sfree = ts_malloc(s.N * sizeof *s.sfree);
	s.stamp = ts_calloc(s.N, sizeof *s.stamp);
	s.leafml = ts_calloc(s.nleaves, sizeof *s.leafml);
	s.mark = ts_calloc(s.nleaves, sizeof *s.mark);
	s.ml = ts_malloc(n * sizeof *s.ml);
	s.usage = ts_calloc(nu, sizeof *s.usage);
	s.ugpus = ts_calloc(nu, sizeof *s.ugpus);
	o->user_gpu_s = ts_calloc(nu, sizeof *o->user_gpu_s);
	if (c->detail)
		o->job = ts_calloc(n, sizeof *o->job);
	if (!s.j || !s.order || !s.node || !s.lvl || !s.leafhead || !s.leafwhole || !s.cnt ||
	    !s.scnt || !s.run || !s.sfree || !s.stamp || !s.leafml || !s.mark || !s.ml ||
	    !s.usage || !s.ugpus || !o->user_gpu_s || (c->detail && !o->job) || !s.jpart ||
	    !s.pnodes || !s.ppass || !s.ph || !s.psh || !s.pst || (c->nparts > 1 && !o->part) ||
	    evq_create(&s.evq, 1024)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	if (c->failures) {
		if (!(s.rng = gsl_rng_alloc(gsl_rng_taus2))) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
		uint64_t sd = mc_seed(c->seed, 0x51554555ull); /* "QUEU": the failure stream */
		gsl_rng_set(s.rng, (unsigned long)((sd ^ (sd >> 32)) & 0xffffffffu));
	}
	for (size_t f = 0; f < pl; f++)
		s.lvl[f] = NIL;
	for (size_t L = 0; L < pL; L++)
		s.leafhead[L] = NIL;
	if (c->nparts > 1) {
		memcpy(s.pnodes, c->part_nodes, s.P * sizeof *s.pnodes);
	} else {
		s.pnodes[0] = s.N;
	}
	for (uint32_t k = s.N, p = s.P - 1, left = s.pnodes[s.P - 1]; k-- > 0;) {
		/* node 0 ends first in its list */
		if (!left)
			left = s.pnodes[--p];
		left--;
		s.node[k] =
		    (struct qnode){.free = s.gpn, .leaf = k / per_leaf, .part = p, .up = true};
		link_node(&s, k);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t pi = l->j[i].partition;
		if (pi == JOBS_NONE)
			continue;
		const char *name = l->partitions.s[pi];
		uint32_t p = 0;
		while (p < c->nparts && strcmp(c->part_names[p], name))
			p++;
		if (p == c->nparts) {
			rc = ts_error_set(err, TS_EINVALID, NULL, 0, "partition",
					  "job %s asks for partition \"%s\", expected %s",
					  l->ids.s[l->j[i].id], name,
					  c->nparts ? "one the partitions define"
						    : "no partition, as none is defined");
			goto out;
		}
		s.jpart[i] = p;
	}
	/* time 0 is the first submit, so that epoch clocks keep ns precision */
	double t0 = INFINITY;
	for (size_t i = 0; i < n; i++)
		if (l->j[i].submit_s < t0)
			t0 = l->j[i].submit_s;
	s.t0 = t0;
	for (size_t i = 0; i < n; i++) {
		struct qjob *x = &s.j[i];
		if (!ts_time_after(0, l->j[i].submit_s - t0, &x->submit)) {
			rc = ts_error_set(err, TS_ELIMIT, NULL, 0, "submit_s",
					  "job %s: found a submit time %g s after the first, "
					  "expected less than 292 years (the int64-ns range of "
					  "simulated time)",
					  l->ids.s[l->j[i].id], l->j[i].submit_s - t0);
			goto out;
		}
		x->first_start = -1;
		x->left = 1.0;
		x->prev = x->next = NIL;
		uint32_t g = l->j[i].gpus, pn = s.pnodes[s.jpart[i]];
		if (g > pn * s.gpn || (g > s.gpn && nodes_of(&s, g) > pn)) {
			x->st = J_END;
			x->out = QUEUE_TOO_BIG;
		}
		s.order[i] = (uint32_t)i;
	}
	{
		struct pkey *a = ts_malloc(n * sizeof *a);
		if (!a) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			a[i] = (struct pkey){0.0, s.j[i].submit, (uint32_t)i};
		qsort(a, n, sizeof *a, cmp_pkey);
		for (size_t i = 0; i < n; i++)
			s.order[i] = a[i].i;
		ts_free(a, n * sizeof *a);
	}
	s.qhead = s.qtail = NIL;
	if (push_arrival(&s) || push_fail(&s)) {
		rc = s.rc;
		goto out;
	}
	while (!s.rc && evq_step(s.evq)) {
	}
	if (!s.rc && evq_status(s.evq))
		fail(&s, TS_ENOMEM, "out of memory");
	if ((rc = s.rc))
		goto out;
	o->events = evq_events_run(s.evq);
	/* GPU-seconds per user: of the final runs (lost runs are in lost_gpu_s) */
	for (size_t i = 0; i < n; i++) {
		struct qjob *x = &s.j[i];
		if (x->out == QUEUE_TOO_BIG)
			continue;
		o->user_gpu_s[user_of(&s, (uint32_t)i)] +=
		    (double)l->j[i].gpus * sec(x->end - x->start);
	}
	rc = finish(&s);
out:
	q_free(&s);
	if (rc)
		queue_stats_free(o);
	return rc;
}

/* --------------------------------------------------------- synthetic */

double queue_mix_mean_s(const struct queue_mix *m)
{
	switch (m->dist) {
	case QUEUE_DIST_LOGNORMAL:
		return m->a * exp(m->b * m->b / 2.0);
	case QUEUE_DIST_FIXED:
		return m->a;
	case QUEUE_DIST_UNIFORM:
		return (m->a + m->b) / 2.0;
	default:
		return m->a;
	}
}

int queue_synth(const struct queue_mix *m, struct jobs_list *l, struct ts_error *err)
{
	if (!m->jobs || m->jobs > QUEUE_SYNTH_MAX)
		return ts_error_set(err, TS_ERANGE, NULL, 0, "jobs",
				    "found %zu jobs, expected 1 to %zu", m->jobs, QUEUE_SYNTH_MAX);

	if (!m->nsizes || m->nsizes > QUEUE_MIX_SIZES)
		return ts_error_set(err, TS_ERANGE, NULL, 0, "sizes",
				    "found %zu sizes, expected 1 to %d", m->nsizes,
				    QUEUE_MIX_SIZES);
	double wsum = 0.0;
	for (size_t k = 0; k < m->nsizes; k++) {
		if (!m->size_gpus[k] || m->size_gpus[k] > JOBS_MAX_GPUS ||
		    !(m->size_weight[k] > 0.0) || !isfinite(m->size_weight[k]))
			return ts_error_set(
			    err, TS_ERANGE, NULL, 0, "sizes",
			    "found %u GPUs at weight %g, expected 1 to 1048576 GPUs "
			    "at a positive weight",
			    m->size_gpus[k], m->size_weight[k]);
		wsum += m->size_weight[k];
	}
	if (!(m->a > 0.0) || !isfinite(m->a) ||
	    (m->dist == QUEUE_DIST_UNIFORM && !(m->b >= m->a)) ||
	    (m->dist == QUEUE_DIST_LOGNORMAL && !(m->b >= 0.0)))
		return ts_error_set(err, TS_ERANGE, NULL, 0, "duration",
				    "found parameters %g and %g, expected a positive run time (and "
				    "for uniform an upper end at least the lower, for lognormal a "
				    "log-sd >= 0)",
				    m->a, m->b);
	/* the mean run time, from which a load gives the arrival rate, must fit
	 * the simulated time's range (a lognormal's a x exp(b^2 / 2) overflows
	 * for a log-sd near 38) */
	double mean = queue_mix_mean_s(m);
	if (!(mean <= (double)TS_TIME_MAX * 1e-9))
		return ts_error_set(err, TS_ERANGE, NULL, 0, "duration",
				    "found parameters %g and %g, whose mean run time %.4g%s lies "
				    "beyond 292 years (the int64-ns range of simulated time), "
				    "expected a smaller %s",
				    m->a, m->b, isfinite(mean) ? mean : DBL_MAX,
				    isfinite(mean) ? " s" : " s or more (it overflows)",
				    m->dist == QUEUE_DIST_LOGNORMAL ? "log-sd" : "run time");
	if (!(m->rate_per_s > 0.0) || !isfinite(m->rate_per_s))
		return ts_error_set(err, TS_ERANGE, NULL, 0, "rate",
				    "found %g jobs/s, expected a positive arrival rate",
				    m->rate_per_s);
	gsl_rng *r[4] = {0};
	int rc = 0;
	for (int k = 0; k < 4; k++) {
		if (!(r[k] = gsl_rng_alloc(gsl_rng_taus2))) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
		uint64_t sd = mc_seed(m->seed, (uint64_t)k + 1);
		gsl_rng_set(r[k], (unsigned long)((sd ^ (sd >> 32)) & 0xffffffffu));
	}
	double t = 0.0;
	char user[32];
	for (size_t i = 0; i < m->jobs; i++) {
		t += gsl_ran_exponential(r[0], 1.0 / m->rate_per_s);
		/* the arrivals must fit the simulated clock (int64 ns from the
		 * first); said in terms of the mix, not of a submit_s the user
		 * never wrote */
		if (!(t < (double)TS_TIME_MAX * 1e-9)) {
			rc = ts_error_set(
			    err, TS_ERANGE, NULL, 0, "rate",
			    "found %.4g jobs/hour, at which %zu arrivals span more than 292 years "
			    "(the int64-ns range of simulated time), expected a higher rate: a "
			    "higher --rate or --load, fewer jobs, or job sizes (--sizes) that "
			    "fit the cluster (a load spread over jobs larger than it gives a "
			    "tiny rate)",
			    m->rate_per_s * 3600.0, m->jobs);
			goto out;
		}
		double u = gsl_rng_uniform(r[1]) * wsum, acc = 0.0;
		size_t k = 0;
		for (; k + 1 < m->nsizes; k++) {
			acc += m->size_weight[k];
			if (u < acc)
				break;
		}
		double d;
		switch (m->dist) {
		case QUEUE_DIST_LOGNORMAL:
			d = gsl_ran_lognormal(r[2], log(m->a), m->b);
			break;
		case QUEUE_DIST_FIXED:
			d = m->a;
			break;
		case QUEUE_DIST_UNIFORM:
			d = gsl_ran_flat(r[2], m->a, m->b);
			break;
		default:
			d = gsl_ran_exponential(r[2], m->a);
		}
		if (!(d > 1e-9))
			d = 1e-9;
		struct jobs_job j = {.submit_s = t,
				     .duration_s = d,
				     .time_limit_s =
					 m->limit_factor > 0.0 ? d * m->limit_factor : 0.0,
				     .rec_start_s = NAN,
				     .gpus = m->size_gpus[k]};
		const char *un = NULL;
		if (m->users) {
			snprintf(user, sizeof user, "u%lu",
				 gsl_rng_uniform_int(r[3], m->users) + 1);
			un = user;
		}
		if ((rc = jobs_add(l, &j, NULL, un, NULL, NULL))) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	}
out:
	for (int k = 0; k < 4; k++)
		if (r[k])
			gsl_rng_free(r[k]);
	return rc;
}
