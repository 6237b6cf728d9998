/* Fluid activities on shared resources, with weighted max-min fair rates.
 * SPDX-License-Identifier: MIT */
#ifndef TS_ENGINE_FLUID_H
#define TS_ENGINE_FLUID_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ts.h"
#include "engine/evq.h"

struct ts_fluid;

/* How much of one resource an activity uses: `coeff` units of the resource's
 * capacity per unit of the activity's progress, for one member of the
 * activity class on one member of the resource class. For a transfer the
 * work is bytes and coeff is the bytes the link carries per byte of progress
 * (2(n-1)/n for a ring all-reduce); for a kernel on a GPU the work is
 * seconds of exclusive use and coeff is 1 on a resource of capacity 1. */
struct fluid_use {
	uint32_t res; /* resource id from fluid_resource_add */
	double coeff; /* > 0 */
};

/* What to start. Rank classes: an activity may stand for `mult` identical
 * activities (e.g. the same transfer of every DP replica) and a resource for
 * `count` identical resources (e.g. the uplinks of one rail); the load of a
 * class is assumed spread evenly over the resource class, so the constraint
 * per resource member is  sum_a mult_a/count_r * coeff_ar * rate_a <= cap_r.
 * With every class of size one this is plain (full-mode) max-min sharing. */
struct fluid_spec {
	double work;		      /* amount of work per member (bytes, FLOP, s); >= 0 */
	uint32_t mult;		      /* members of the activity class, >= 1 */
	double weight;		      /* max-min share weight, > 0 (1 = equal share) */
	double bound;		      /* most work per second per member, 0 = unbounded */
	ts_time latency;	      /* ns before the work starts to use resources */
	const struct fluid_use *uses; /* copied; may be NULL if nuses is 0 */
	uint32_t nuses;		      /* a bound is required when this is 0 */
	ts_event_fn done;	      /* called once the work is done (may be NULL) */
	void *ctx;		      /* first argument of done */
	uint64_t arg;		      /* second argument of done */
	uint32_t tag;		      /* caller's label, passed to the observer */
};

/* Observer of activity lifetimes (for traces): called when an activity
 * starts using resources and when it ends, with its tag and id; on_load
 * (may be NULL) when a rate solve changes the load of resource `res` to
 * `load` units/s per member (a link's bytes/s; divide by
 * fluid_resource_cap for its utilisation) from time t on. Without an
 * observer the engine tests one flag per solve and calls nothing. */
struct fluid_observer {
	void (*on_start)(void *ud, uint32_t act, uint32_t tag, ts_time t);
	void (*on_end)(void *ud, uint32_t act, uint32_t tag, ts_time t);
	void (*on_load)(void *ud, uint32_t res, double load, ts_time t);
	void *ud;
};

/* Create a fluid model over queue q (not owned). Returns 0 or TS_ENOMEM. */
int fluid_create(struct ts_fluid **f, struct ts_evq *q);
void fluid_destroy(struct ts_fluid *f);

/* Bytes at most that a fluid model with `res` resources and `acts`
 * activity slots (the most activities alive at once), each activity using
 * `uses` resources on average, holds: its resource, activity, element and
 * user records and its scratch, times 2 for the doubling of its arrays.
 * For estimating a run's size before building it. */
double fluid_bytes(double res, double acts, double uses);

/* The queue the model schedules on. */
struct ts_evq *fluid_evq(struct ts_fluid *f);

/* Add a resource class of `count` members with capacity `cap` units/s each
 * (bytes/s for a link direction, 1.0 for a GPU's SMs). Writes its id.
 * Returns 0, TS_ENOMEM, or TS_ERANGE for cap <= 0 / NaN or count == 0. */
int fluid_resource_add(struct ts_fluid *f, double cap, uint32_t count, uint32_t *id);

/* Number of resources added. */
uint32_t fluid_resource_count(const struct ts_fluid *f);

/* Capacity per member (units/s) and member count of a resource. */
double fluid_resource_cap(const struct ts_fluid *f, uint32_t res);
uint32_t fluid_resource_members(const struct ts_fluid *f, uint32_t res);

/* Integral of the resource's load over time so far, in units (e.g. bytes a
 * link direction carried per member). */
double fluid_resource_carried(struct ts_fluid *f, uint32_t res);

/* Start an activity now. Its rate is re-solved, with every activity it
 * shares a resource with (transitively), before simulated time next
 * advances. Writes its id (valid until done runs or it is cancelled).
 * Returns 0, TS_ENOMEM, or TS_EINVALID for a malformed spec. */
int fluid_start(struct ts_fluid *f, const struct fluid_spec *spec, uint32_t *id);

/* Stop an activity without calling its done callback. */
void fluid_cancel(struct ts_fluid *f, uint32_t act);

/* Resources an activity uses: the number, and the i-th resource id. Valid
 * while the activity exists, including inside the observer's on_end. */
uint32_t fluid_activity_nuses(const struct ts_fluid *f, uint32_t act);
uint32_t fluid_activity_res(const struct ts_fluid *f, uint32_t act, uint32_t i);

/* Current rate per member (work units/s) of an activity; 0 while in latency. */
double fluid_rate(const struct ts_fluid *f, uint32_t act);

/* Set (or clear with NULL) the observer. */
void fluid_set_observer(struct ts_fluid *f, const struct fluid_observer *obs);

/* Whether the observer is told of activities' starts or ends (a caller
 * timing a resource-free delay itself, without an activity, must not skip
 * what it would be told). */
bool fluid_observes_acts(const struct ts_fluid *f);

/* Run events (and rate solves) until no event is left, the next one is
 * later than `until`, an activity would end past TS_TIME_MAX, or memory ran
 * out (see fluid_status). Returns the number of events run. */
uint64_t fluid_run(struct ts_fluid *f, ts_time until);

/* Activities started and not yet done. */
uint32_t fluid_active(const struct ts_fluid *f);

/* 0, or TS_ELIMIT once an activity's end (or its latency's) would lie past
 * the int64-ns range of simulated time (about 292 years), or TS_ENOMEM once
 * a rate solve, an activity leaving its latency or the event queue
 * (evq_status) could not allocate: the
 * run stopped there, and activities left unfinished are not a stall. */
int fluid_status(const struct ts_fluid *f);

/* Number of rate solves so far (each over one connected component). */
uint64_t fluid_solves(const struct ts_fluid *f);

#endif
