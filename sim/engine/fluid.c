/* Fluid activities and weighted max-min sharing.
 *
 * Every activity progresses at a rate (work units/s per member) that stays
 * constant between two changes of the set of running activities. A change
 * (start, end, cancel) marks the resources it touches dirty. Before simulated
 * time advances, the connected component of the activity/resource graph
 * around the dirty resources is collected (breadth first, in list order, so
 * the result does not depend on addresses) and re-solved by progressive
 * filling, as in SimGrid's lmm solver:
 *
 *   every unfixed activity a runs at w_a * t; t grows until a resource r
 *   saturates (R_r / U_r smallest, R_r its unused capacity, U_r the sum of
 *   k_ar * w_a over its unfixed activities, k_ar = coeff * mult_a / count_r)
 *   or an activity hits its bound (bound_a / w_a); those activities are fixed
 *   at w_a * t, their load leaves R and U of every resource they touch, and
 *   filling goes on until all are fixed.
 *
 * The resources wait in a min-heap by R_r / U_r (ties to the first of the
 * component, as a scan in order takes them), re-keyed when a fixed activity
 * changes them, so a round costs a log of the component, not a pass over
 * it: a component of thousands of resources (full mode's data-parallel rings
 * over one fabric) fixes its activities over as many rounds.
 *
 * Activities outside the component keep their rates and completion events.
 * Progress is advanced lazily: remaining work is brought to "now" only when
 * the activity's rate is about to change. Completion times are rounded up to
 * the next nanosecond by ts_time_from_s.
 * SPDX-License-Identifier: MIT */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "engine/fluid.h"

enum act_state { ACT_FREE, ACT_LATENT, ACT_RUNNING };

struct elem {
	uint32_t res;
	uint32_t pos; /* index in the resource's user list */
	double coeff;
	double k; /* coeff * mult / count */
};

struct user {
	uint32_t act;
	uint32_t elem;
};

struct res {
	double cap;
	uint32_t count;
	double load;	/* per member, units/s, as of the last solve */
	double carried; /* integral of load up to `last` */
	ts_time last;
	struct user *users;
	size_t nusers, capusers;
	uint64_t stamp;
	/* solver scratch */
	double R, U;
	uint32_t unfixed;
	uint32_t cpos; /* its place in the component (ties go to the first) */
	bool saturated;
};

/* A resource's fill level R / U when it was last changed, in the solver's
 * heap; stale once R or U changed again (a newer key holds the level). */
struct hkey {
	double t;
	uint32_t pos, res;
};

struct act {
	uint8_t state;
	bool fixed;
	uint32_t mult;
	double weight, bound;
	double remaining;
	double rate;
	ts_time last;
	ts_event_handle ev;
	struct elem *elems;
	size_t nelems, capelems;
	ts_event_fn done;
	void *ctx;
	uint64_t arg;
	uint32_t tag;
	uint32_t next_free;
	uint64_t stamp;
};

struct ts_fluid {
	struct ts_evq *q;
	struct res *res;
	size_t nres, capres;
	struct act *acts;
	size_t nacts, capacts;
	uint32_t free_act;
	uint32_t active;
	/* dirty resources and bound-only activities awaiting a solve */
	uint32_t *dirty;
	size_t ndirty, capdirty;
	/* component scratch; heap: the resources a solve has still to fix by
	 * fill level (a binary min-heap of keys); lact: its bound activities */
	uint32_t *cres, *cact, *lact;
	size_t capcres, capcact, caplact;
	struct hkey *heap;
	size_t nheap, capheap;
	uint64_t epoch;
	uint64_t solves;
	struct fluid_observer obs;
	bool has_obs;
	int status; /* first TS_ELIMIT (a time past the int64-ns range) or
		       TS_ENOMEM inside the event loop, sticky */
};

#define NONE UINT32_MAX

static void on_latency_over(void *ctx, uint64_t arg);
static void on_complete(void *ctx, uint64_t arg);

int fluid_create(struct ts_fluid **fp, struct ts_evq *q)
{
	struct ts_fluid *f = ts_calloc(1, sizeof *f);
	*fp = NULL;
	if (!f)
		return TS_ENOMEM;
	f->q = q;
	f->free_act = NONE;
	*fp = f;
	return 0;
}

void fluid_destroy(struct ts_fluid *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nres; i++)
		ts_free(f->res[i].users, f->res[i].capusers * sizeof(struct user));
	for (size_t i = 0; i < f->nacts; i++)
		ts_free(f->acts[i].elems, f->acts[i].capelems * sizeof(struct elem));
	ts_free(f->res, f->capres * sizeof *f->res);
	ts_free(f->acts, f->capacts * sizeof *f->acts);
	ts_free(f->dirty, f->capdirty * sizeof *f->dirty);
	ts_free(f->cres, f->capcres * sizeof *f->cres);
	ts_free(f->cact, f->capcact * sizeof *f->cact);
	ts_free(f->lact, f->caplact * sizeof *f->lact);
	ts_free(f->heap, f->capheap * sizeof *f->heap);
	ts_free(f, sizeof *f);
}

double fluid_bytes(double res, double acts, double uses)
{
	/* + dirty, cres, a heap key; + cact, lact */
	double per_res = (double)(sizeof(struct res) + sizeof(uint32_t) * 2 + sizeof(struct hkey));
	double per_act = (double)(sizeof(struct act) + sizeof(uint32_t) * 2);
	/* more heap keys: one per use of an activity fixed in a solve */
	uses += (double)sizeof(struct hkey) / (double)(sizeof(struct elem) + sizeof(struct user));
	double per_use = (double)(sizeof(struct elem) + sizeof(struct user));
	return 2.0 * (res * per_res + acts * (per_act + uses * per_use)) +
	       (double)sizeof(struct ts_fluid);
}

struct ts_evq *fluid_evq(struct ts_fluid *f)
{
	return f->q;
}
uint32_t fluid_resource_count(const struct ts_fluid *f)
{
	return (uint32_t)f->nres;
}
double fluid_resource_cap(const struct ts_fluid *f, uint32_t r)
{
	return f->res[r].cap;
}
uint32_t fluid_resource_members(const struct ts_fluid *f, uint32_t r)
{
	return f->res[r].count;
}
uint32_t fluid_active(const struct ts_fluid *f)
{
	return f->active;
}
int fluid_status(const struct ts_fluid *f)
{
	return f->status;
}

uint64_t fluid_solves(const struct ts_fluid *f)
{
	return f->solves;
}

void fluid_set_observer(struct ts_fluid *f, const struct fluid_observer *obs)
{
	f->has_obs = obs != NULL;
	if (obs)
		f->obs = *obs;
}

bool fluid_observes_acts(const struct ts_fluid *f)
{
	return f->has_obs && (f->obs.on_start || f->obs.on_end);
}

int fluid_resource_add(struct ts_fluid *f, double cap, uint32_t count, uint32_t *id)
{
	if (!(cap > 0.0) || !isfinite(cap) || count == 0)
		return TS_ERANGE;
	if (f->nres >= NONE - 1)
		return TS_ELIMIT;
	if (ts_grow((void **)&f->res, &f->capres, f->nres + 1, sizeof *f->res))
		return TS_ENOMEM;
	struct res *r = &f->res[f->nres];
	memset(r, 0, sizeof *r);
	r->cap = cap;
	r->count = count;
	r->last = evq_now(f->q);
	*id = (uint32_t)f->nres++;
	return 0;
}

static void res_account(struct ts_fluid *f, struct res *r)
{
	ts_time now = evq_now(f->q);
	if (now > r->last) {
		r->carried += r->load * ts_time_to_s(now - r->last);
		r->last = now;
	}
}

double fluid_resource_carried(struct ts_fluid *f, uint32_t res)
{
	res_account(f, &f->res[res]);
	return f->res[res].carried;
}

uint32_t fluid_activity_nuses(const struct ts_fluid *f, uint32_t act)
{
	return (uint32_t)f->acts[act].nelems;
}

uint32_t fluid_activity_res(const struct ts_fluid *f, uint32_t act, uint32_t i)
{
	return f->acts[act].elems[i].res;
}

double fluid_rate(const struct ts_fluid *f, uint32_t act)
{
	return f->acts[act].state == ACT_RUNNING ? f->acts[act].rate : 0.0;
}

static int mark_dirty(struct ts_fluid *f, uint32_t r)
{
	if (ts_grow((void **)&f->dirty, &f->capdirty, f->ndirty + 1, sizeof *f->dirty))
		return TS_ENOMEM;
	f->dirty[f->ndirty++] = r;
	return 0;
}

static int alloc_act(struct ts_fluid *f, uint32_t *id)
{
	if (f->free_act != NONE) {
		*id = f->free_act;
		f->free_act = f->acts[*id].next_free;
		return 0;
	}
	if (f->nacts >= NONE - 1)
		return TS_ELIMIT;
	if (ts_grow((void **)&f->acts, &f->capacts, f->nacts + 1, sizeof *f->acts))
		return TS_ENOMEM;
	*id = (uint32_t)f->nacts++;
	return 0;
}

static void free_act(struct ts_fluid *f, uint32_t id)
{
	struct act *a = &f->acts[id];
	a->state = ACT_FREE;
	a->nelems = 0;
	a->next_free = f->free_act;
	f->free_act = id;
	f->active--;
}

static void detach(struct ts_fluid *f, uint32_t id);

/* Rate an activity that is alone on every resource it uses (each use on a
 * distinct resource) as a solve of its component would, without one: the
 * same progressive filling on the same numbers, which for one activity is
 * its first step (t the least R / U of its resources, `tmin`, or its bound
 * / weight when that is less), and push its completion. attach finds
 * whether it is alone and tmin as it puts the uses on their resources.
 * Returns 1 when it does not apply (then the activity's resources are
 * marked dirty for the solve), 0 or an error when it rated the activity.
 * Not under a load observer, which is told of every solve's loads. */
static int rate_alone(struct ts_fluid *f, uint32_t id, double tmin)
{
	struct act *a = &f->acts[id];
	if (a->bound > 0.0 && a->bound / a->weight < tmin)
		tmin = a->bound / a->weight;
	if (tmin == HUGE_VAL)
		return 1;
	double rate = a->weight * tmin;
	ts_time at;
	if (!ts_time_after(a->last, a->remaining / rate, &at))
		return 1; /* past the range: the solve says so, as for any rate */
	a->rate = rate;
	ts_time now = a->last;
	for (size_t i = 0; i < a->nelems; i++) {
		const struct elem *e = &a->elems[i];
		struct res *r = &f->res[e->res];
		double R = r->cap - e->k * a->rate;
		if (R < 0.0)
			R = 0.0;
		if (now > r->last) { /* res_account */
			r->carried += r->load * ts_time_to_s(now - r->last);
			r->last = now;
		}
		r->load = r->cap - R;
	}
	return evq_push(f->q, at, on_complete, f, id, &a->ev);
}

/* Put a latent activity on its resources (or straight on its bound). On
 * TS_ENOMEM the elements already put on their resources are taken off again
 * and the activity stays latent. */
static int attach(struct ts_fluid *f, uint32_t id)
{
	struct act *a = &f->acts[id];
	/* room on the dirty list for every use: a later detach marks without
	 * growing it */
	if (ts_grow((void **)&f->dirty, &f->capdirty, f->ndirty + a->nelems, sizeof *f->dirty))
		return TS_ENOMEM;
	/* alone: no other user on any of its resources, nor two uses of one
	 * (rate_alone); tmin: the least R / U of its resources when alone */
	bool alone = !(f->has_obs && f->obs.on_load);
	double tmin = HUGE_VAL;
	for (size_t i = 0; i < a->nelems; i++) {
		struct elem *e = &a->elems[i];
		struct res *r = &f->res[e->res];
		if (ts_grow((void **)&r->users, &r->capusers, r->nusers + 1, sizeof *r->users)) {
			size_t n = a->nelems;
			a->nelems = i;
			detach(f, id);
			a->nelems = n;
			return TS_ENOMEM;
		}
		if (r->nusers) {
			alone = false;
		} else if (alone) {
			double u = e->k * a->weight;
			double t = u > 0.0 ? r->cap / u : HUGE_VAL;
			if (t < tmin)
				tmin = t;
		}
		e->pos = (uint32_t)r->nusers;
		r->users[r->nusers].act = id;
		r->users[r->nusers].elem = (uint32_t)i;
		r->nusers++;
	}
	a->state = ACT_RUNNING;
	a->last = evq_now(f->q);
	a->rate = 0.0;
	if (f->has_obs && f->obs.on_start)
		f->obs.on_start(f->obs.ud, id, a->tag, a->last);
	if (a->nelems == 0 || a->remaining <= 0.0) {
		/* No shared resource: the rate is the bound, known now. */
		a->rate = a->bound;
		ts_time at = a->last;
		if (a->remaining > 0.0 && !ts_time_after(a->last, a->remaining / a->rate, &at))
			return f->status = TS_ELIMIT;
		return evq_push(f->q, at, on_complete, f, id, &a->ev);
	}
	if (alone) {
		int rc = rate_alone(f, id, tmin);
		if (rc != 1)
			return rc;
	}
	for (size_t i = 0; i < a->nelems; i++)
		f->dirty[f->ndirty++] = a->elems[i].res;
	return 0;
}

static void detach(struct ts_fluid *f, uint32_t id)
{
	struct act *a = &f->acts[id];
	for (size_t i = 0; i < a->nelems; i++) {
		struct elem *e = &a->elems[i];
		struct res *r = &f->res[e->res];
		uint32_t last = (uint32_t)--r->nusers;
		if (e->pos != last) {
			r->users[e->pos] = r->users[last];
			f->acts[r->users[e->pos].act].elems[r->users[e->pos].elem].pos = e->pos;
		}
		if (last == 0 && !(f->has_obs && f->obs.on_load)) {
			/* left with no user: what a solve would find (load 0
			 * from now), without one */
			res_account(f, r);
			r->load = 0.0;
			continue;
		}
		/* A detach during the event loop should not need to grow the
		 * dirty list (attach reserves room); if it does and cannot, the
		 * run stops rather than leave a rate stale. */
		if (mark_dirty(f, e->res) && !f->status)
			f->status = TS_ENOMEM;
	}
}

int fluid_start(struct ts_fluid *f, const struct fluid_spec *s, uint32_t *idp)
{
	if (!(s->work >= 0.0) || !isfinite(s->work) || s->mult == 0 || !(s->weight > 0.0) ||
	    !(s->bound >= 0.0) || !isfinite(s->bound) || s->latency < 0 ||
	    (s->nuses == 0 && s->bound <= 0.0) || (s->nuses > 0 && !s->uses))
		return TS_EINVALID;
	uint32_t id;
	int rc = alloc_act(f, &id);
	if (rc)
		return rc;
	struct act *a = &f->acts[id];
	struct elem *keep = a->elems;
	size_t keepcap = a->capelems;
	memset(a, 0, sizeof *a);
	a->elems = keep;
	a->capelems = keepcap;
	f->active++;
	if (ts_grow((void **)&a->elems, &a->capelems, s->nuses, sizeof *a->elems)) {
		a->state = ACT_LATENT;
		free_act(f, id);
		return TS_ENOMEM;
	}
	a->nelems = s->nuses;
	for (uint32_t i = 0; i < s->nuses; i++) {
		const struct fluid_use *u = &s->uses[i];
		if (u->res >= f->nres || !(u->coeff > 0.0) || !isfinite(u->coeff)) {
			/* a malformed use: the activity never was */
			a->state = ACT_LATENT;
			free_act(f, id);
			return TS_EINVALID;
		}
		struct elem *e = &a->elems[i];
		e->res = u->res;
		e->coeff = u->coeff;
		e->k = e->coeff * ((double)s->mult / (double)f->res[e->res].count);
	}
	a->mult = s->mult;
	a->weight = s->weight;
	a->bound = s->bound;
	a->remaining = s->work;
	a->done = s->done;
	a->ctx = s->ctx;
	a->arg = s->arg;
	a->tag = s->tag;
	a->state = ACT_LATENT;
	ts_time at;
	if (s->latency > 0 && !ts_time_add(evq_now(f->q), s->latency, &at))
		rc = f->status = TS_ELIMIT;
	else if (s->latency > 0)
		rc = evq_push(f->q, at, on_latency_over, f, id, &a->ev);
	else
		rc = attach(f, id);
	if (rc) {
		fluid_cancel(f, id);
		return rc;
	}
	*idp = id;
	return 0;
}

void fluid_cancel(struct ts_fluid *f, uint32_t id)
{
	struct act *a = &f->acts[id];
	if (a->state == ACT_FREE)
		return;
	evq_cancel(f->q, a->ev);
	if (a->state == ACT_RUNNING) {
		detach(f, id);
		if (f->has_obs && f->obs.on_end)
			f->obs.on_end(f->obs.ud, id, a->tag, evq_now(f->q));
	}
	free_act(f, id);
}

static void on_latency_over(void *ctx, uint64_t arg)
{
	struct ts_fluid *f = ctx;
	uint32_t id = (uint32_t)arg;
	f->acts[id].ev = 0;
	/* a failed attach leaves the activity latent; the sticky status stops
	 * fluid_run and tells the caller why */
	int rc = attach(f, id);
	if (rc && !f->status)
		f->status = rc;
}

static void on_complete(void *ctx, uint64_t arg)
{
	struct ts_fluid *f = ctx;
	uint32_t id = (uint32_t)arg;
	struct act *a = &f->acts[id];
	ts_event_fn done = a->done;
	void *dctx = a->ctx;
	uint64_t darg = a->arg;
	a->ev = 0;
	detach(f, id);
	if (f->has_obs && f->obs.on_end)
		f->obs.on_end(f->obs.ud, id, a->tag, evq_now(f->q));
	free_act(f, id);
	if (done)
		done(dctx, darg);
}

/* Collect the component around the dirty resources into cres/cact. */
static int collect(struct ts_fluid *f, size_t *nres, size_t *nact)
{
	uint64_t ep = ++f->epoch;
	size_t nr = 0, na = 0;
	if (ts_grow((void **)&f->cres, &f->capcres, f->nres, sizeof *f->cres) ||
	    ts_grow((void **)&f->cact, &f->capcact, f->nacts, sizeof *f->cact) ||
	    ts_grow((void **)&f->lact, &f->caplact, f->nacts, sizeof *f->lact))
		return TS_ENOMEM;
	for (size_t i = 0; i < f->ndirty; i++) {
		uint32_t r = f->dirty[i];
		if (f->res[r].stamp == ep)
			continue;
		f->res[r].stamp = ep;
		f->cres[nr++] = r;
		/* breadth first from this seed */
		for (size_t qr = nr - 1; qr < nr; qr++) {
			struct res *rr = &f->res[f->cres[qr]];
			for (size_t u = 0; u < rr->nusers; u++) {
				uint32_t ai = rr->users[u].act;
				struct act *a = &f->acts[ai];
				if (a->stamp == ep)
					continue;
				a->stamp = ep;
				f->cact[na++] = ai;
				for (size_t e = 0; e < a->nelems; e++) {
					uint32_t r2 = a->elems[e].res;
					if (f->res[r2].stamp != ep) {
						f->res[r2].stamp = ep;
						f->cres[nr++] = r2;
					}
				}
			}
		}
	}
	f->ndirty = 0;
	*nres = nr;
	*nact = na;
	return 0;
}

static void fix(struct ts_fluid *f, struct act *a, double t)
{
	a->fixed = true;
	a->rate = a->weight * t;
	for (size_t e = 0; e < a->nelems; e++) {
		struct elem *el = &a->elems[e];
		struct res *r = &f->res[el->res];
		r->R -= el->k * a->rate;
		if (r->R < 0.0)
			r->R = 0.0;
		r->U -= el->k * a->weight;
		r->unfixed--;
	}
}

/* The loads of the component's nr resources, each change told to the
 * observer (traces only). */
static __attribute__((noinline, cold)) void report_loads(struct ts_fluid *f, size_t nr, ts_time now)
{
	for (size_t i = 0; i < nr; i++) {
		struct res *r = &f->res[f->cres[i]];
		double was = r->load;
		r->load = r->cap - r->R;
		if (r->load != was)
			f->obs.on_load(f->obs.ud, f->cres[i], r->load, now);
	}
}

static bool hkey_less(const struct hkey *a, const struct hkey *b)
{
	return a->t < b->t || (a->t == b->t && a->pos < b->pos);
}

/* Push resource r's current fill level. Returns 0 or TS_ENOMEM. */
static int heap_push(struct ts_fluid *f, uint32_t ri)
{
	const struct res *r = &f->res[ri];
	if (ts_grow((void **)&f->heap, &f->capheap, f->nheap + 1, sizeof *f->heap))
		return TS_ENOMEM;
	struct hkey k = {r->U > 0.0 ? r->R / r->U : HUGE_VAL, r->cpos, ri};
	size_t i = f->nheap++;
	while (i > 0 && hkey_less(&k, &f->heap[(i - 1) / 2])) {
		f->heap[i] = f->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	f->heap[i] = k;
	return 0;
}

static void heap_pop(struct ts_fluid *f)
{
	struct hkey k = f->heap[--f->nheap];
	size_t i = 0, n = f->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && hkey_less(&f->heap[c + 1], &f->heap[c]))
			c++;
		if (!hkey_less(&f->heap[c], &k))
			break;
		f->heap[i] = f->heap[c];
		i = c;
	}
	if (n)
		f->heap[i] = k;
}

/* The resource of least fill level still to fix (NONE when none) and that
 * level: the heap's first live key, stale keys dropped. A key is live while
 * its resource is unsaturated with activities to fix and its level is the
 * resource's now; ties go to the first of the component, as a scan of it
 * in order would take them. */
static uint32_t heap_min(struct ts_fluid *f, double *t)
{
	while (f->nheap) {
		const struct hkey *k = &f->heap[0];
		const struct res *r = &f->res[k->res];
		double now = r->U > 0.0 ? r->R / r->U : HUGE_VAL;
		if (!r->saturated && r->unfixed > 0 && k->t == now) {
			if (!(k->t < HUGE_VAL)) /* no level (as a scan takes none) */
				return NONE;
			*t = k->t;
			return k->res;
		}
		heap_pop(f);
	}
	return NONE;
}

/* fix, then a new key for each resource of a whose level it changed. */
static int fix_push(struct ts_fluid *f, struct act *a, double t)
{
	fix(f, a, t);
	for (size_t e = 0; e < a->nelems; e++) {
		uint32_t ri = a->elems[e].res;
		const struct res *r = &f->res[ri];
		if (!r->saturated && r->unfixed > 0 && heap_push(f, ri))
			return TS_ENOMEM;
	}
	return 0;
}

static int solve(struct ts_fluid *f)
{
	size_t nr, na;
	int rc = collect(f, &nr, &na);
	if (rc)
		return rc;
	f->solves++;
	ts_time now = evq_now(f->q);
	for (size_t i = 0; i < nr; i++) {
		struct res *r = &f->res[f->cres[i]];
		res_account(f, r);
		r->R = r->cap;
		r->U = 0.0;
		r->unfixed = 0;
		r->saturated = false;
	}
	for (size_t i = 0; i < na; i++) {
		struct act *a = &f->acts[f->cact[i]];
		if (now > a->last) {
			a->remaining -= a->rate * ts_time_to_s(now - a->last);
			if (a->remaining < 0.0)
				a->remaining = 0.0;
			a->last = now;
		}
		a->fixed = false;
		for (size_t e = 0; e < a->nelems; e++) {
			struct res *r = &f->res[a->elems[e].res];
			r->U += a->elems[e].k * a->weight;
			r->unfixed++;
		}
	}
	/* the resources with activities to fix by fill level, and the bound
	 * activities in component order (each round drops those fixed) */
	f->nheap = 0;
	for (size_t i = 0; i < nr; i++) {
		struct res *r = &f->res[f->cres[i]];
		r->cpos = (uint32_t)i;
		if (r->unfixed > 0 && heap_push(f, f->cres[i]))
			return TS_ENOMEM;
	}
	size_t nb = 0;
	for (size_t i = 0; i < na; i++)
		if (f->acts[f->cact[i]].bound > 0.0)
			f->lact[nb++] = f->cact[i];
	size_t left = na;
	while (left > 0) {
		double tmin = HUGE_VAL;
		uint32_t rmin = heap_min(f, &tmin), amin = NONE;
		size_t k = 0;
		for (size_t i = 0; i < nb; i++) {
			struct act *a = &f->acts[f->lact[i]];
			if (a->fixed)
				continue;
			f->lact[k++] = f->lact[i];
			double t = a->bound / a->weight;
			if (t < tmin) {
				tmin = t;
				amin = f->lact[k - 1];
				rmin = NONE;
			}
		}
		nb = k;
		if (rmin == NONE && amin == NONE)
			break; /* cannot happen: every running activity has a use or a bound */
		if (rmin != NONE) {
			struct res *r = &f->res[rmin];
			r->saturated = true;
			for (size_t u = 0; u < r->nusers; u++) {
				struct act *a = &f->acts[r->users[u].act];
				if (!a->fixed) {
					if (fix_push(f, a, tmin))
						return TS_ENOMEM;
					left--;
				}
			}
		} else {
			if (fix_push(f, &f->acts[amin], tmin))
				return TS_ENOMEM;
			left--;
		}
	}
	if (f->has_obs && f->obs.on_load)
		report_loads(f, nr, now);
	else
		for (size_t i = 0; i < nr; i++) {
			struct res *r = &f->res[f->cres[i]];
			r->load = r->cap - r->R;
		}
	for (size_t i = 0; i < na; i++) {
		uint32_t id = f->cact[i];
		struct act *a = &f->acts[id];
		ts_time at = TS_TIME_MAX;
		if (a->remaining <= 0.0)
			at = now;
		else if (a->rate > 0.0 && !ts_time_after(now, a->remaining / a->rate, &at))
			return f->status = TS_ELIMIT;
		evq_cancel(f->q, a->ev);
		a->ev = 0;
		if (at != TS_TIME_MAX) {
			rc = evq_push(f->q, at, on_complete, f, id, &a->ev);
			if (rc)
				return rc;
		}
	}
	return 0;
}

uint64_t fluid_run(struct ts_fluid *f, ts_time until)
{
	uint64_t n = 0;
	for (;;) {
		ts_time next = evq_next_time(f->q);
		if (!f->status && evq_status(f->q))
			f->status = evq_status(f->q);
		if (f->status)
			break;
		if (f->ndirty && next > evq_now(f->q)) {
			int rc = solve(f);
			if (rc) {
				if (!f->status)
					f->status = rc;
				break;
			}
			continue;
		}
		if (next == TS_TIME_MAX || next > until)
			break;
		evq_step(f->q);
		n++;
	}
	return n;
}
