/* Timing one collective alone on an idle cluster.
 *
 * The stack is built once per meter; each run starts the collective at the
 * current simulated time and runs the engine until nothing is left, so the
 * duration is end - start and the engine is idle again for the next run.
 * In class mode one collective stands for the group's node-local pieces:
 * mult = nodes spanned (see struct coll_spec).
 * SPDX-License-Identifier: MIT */
#include "net/meter.h"

#include "base/alloc.h"
#include "engine/evq.h"
#include "engine/fluid.h"

struct coll_meter {
	const struct hw_cluster *c;
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_net *net;
	struct ts_coll *cc;
	uint32_t *ranks; /* 0..n-1 */
	uint32_t n;
	uint32_t nodes; /* nodes the ranks span */
	enum net_mode mode;
	ts_time end; /* when the last collective ended */
};

int coll_meter_create(struct coll_meter **out, const struct hw_cluster *c, uint32_t nranks,
		      enum net_mode mode, struct ts_error *err)
{
	*out = NULL;
	uint32_t all = hw_cluster_gpus(c), gpn = hw_cluster_gpus_per_node(c);
	if (nranks < 1 || nranks > all)
		return ts_error_set(err, TS_ERANGE, NULL, 0, NULL,
				    "found %u GPUs, expected 1 to the cluster's %u", nranks, all);
	struct coll_meter *m = ts_calloc(1, sizeof *m);
	if (!m)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	m->c = c;
	m->n = nranks;
	m->nodes = (nranks + gpn - 1) / gpn;
	m->mode = nranks % gpn == 0 ? mode : NET_FULL;
	if (!(m->ranks = ts_calloc(nranks, sizeof *m->ranks)) || evq_create(&m->q, 1024) ||
	    fluid_create(&m->f, m->q) || net_create(&m->net, c, m->f, m->mode) ||
	    coll_create(&m->cc, m->net)) {
		coll_meter_destroy(m);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	for (uint32_t i = 0; i < nranks; i++)
		m->ranks[i] = i;
	*out = m;
	return 0;
}

enum net_mode coll_meter_mode(const struct coll_meter *m)
{
	return m->mode;
}

static void meter_done(void *ctx, uint64_t arg)
{
	(void)arg;
	struct coll_meter *m = ctx;
	m->end = evq_now(m->q);
}

int coll_meter_run(struct coll_meter *m, enum coll_op op, double bytes, int algo, int proto,
		   struct coll_plan *plan, double *time_s, struct ts_error *err)
{
	struct coll_spec s = {.op = op,
			      .ranks = m->ranks,
			      .nranks = m->n,
			      .bytes = bytes,
			      .mult = m->mode == NET_CLASS ? m->nodes : 1,
			      .algo = algo,
			      .proto = proto,
			      .done = meter_done,
			      .ctx = m};
	ts_time t0 = evq_now(m->q);
	m->end = t0;
	int rc = coll_start(m->cc, &s, plan, err);
	if (rc)
		return rc;
	fluid_run(m->f, TS_TIME_MAX);
	if ((rc = fluid_status(m->f)))
		return ts_error_set(err, rc, NULL, 0, NULL,
				    "found a collective of %.0f bytes that would end at simulated "
				    "time beyond 292 years, expected durations that fit",
				    bytes);
	*time_s = ts_time_to_s(m->end - t0);
	return 0;
}

void coll_meter_destroy(struct coll_meter *m)
{
	if (!m)
		return;
	coll_destroy(m->cc);
	net_destroy(m->net);
	fluid_destroy(m->f);
	evq_destroy(m->q);
	ts_free(m->ranks, m->n * sizeof *m->ranks);
	ts_free(m, sizeof *m);
}
