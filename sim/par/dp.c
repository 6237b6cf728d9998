/* Data-parallel schedule.
 *
 * Per rank class: a host stream that issues kernel launches, a compute
 * stream that runs them on the class's GPUs, and a memory pool. One stream
 * for the DP communicator carries the gradient reductions in bucket order
 * (NCCL runs the collectives of one communicator one after another).
 *
 * Iteration: for each micro-batch, forward of every unit, then backward in
 * reverse order (recompute, input gradient, weight gradient); on the last
 * micro-batch only, bucket b is reduced once the weight gradient that
 * completes it is done (overlap on), or every bucket after the whole
 * backward (overlap off); the optimizer step follows the last reduction.
 * At stage granularity the forward of a micro-batch is one task and its
 * backward is cut only where a bucket becomes ready: the cut points are the
 * milestones that keep overlap intact in a coarse task.
 *
 * Input pipeline (job->data): per class one stream per stage; each batch's
 * stages follow one another, the first waits for a free slot of the
 * prefetch queue (the batch `queue` places earlier taken by the GPU), and a
 * zero-time "batch ready" mark on the compute stream before the batch's
 * first forward task waits for the last stage, so a late batch shows as a
 * wait for GRAPH_DATA in the compute stream's breakdown.
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "base/alloc.h"
#include "par/dp.h"

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

struct cls {
	uint32_t host, compute, pool, gpu;
	uint32_t data[DP_DATA_MAX_STAGES]; /* input-pipeline streams */
};

struct builder {
	struct ts_graph *g;
	const struct dp_job *j;
	struct cls *c;
	uint32_t ncls, mult;
	uint32_t *taken; /* per class, ring of the last `queue` "batch ready" marks */
	uint32_t qlen;	 /* ring length: min(queue, batches) */
	uint32_t after;	 /* a task the next gpu_task's GPU work waits for */
	int rc;
};

/* Add a GPU task on class k's compute stream with its kernel launches on
 * the host stream. The launches of a task interleave with its kernels: the
 * GPU can start once the first kernel is launched, and the task is not over
 * before the last launch is (a zero-time mark on the compute stream waits
 * for it). So a task lasts max(GPU time, launch time) once the host is not
 * ahead, at every granularity, and a host-bound wait is charged to the host.
 * Returns the id of the task's end (GRAPH_NONE after an error). */
static uint32_t gpu_task(struct builder *b, uint32_t k, enum graph_kind kind, const char *label,
			 double s, uint32_t kernels, enum graph_mem acat, double alloc,
			 enum graph_mem fcat, double freeb)
{
	if (b->rc)
		return GRAPH_NONE;
	uint32_t first = GRAPH_NONE, rest = GRAPH_NONE, id;
	if (kernels > 0 && b->j->launch_s > 0.0) {
		struct graph_task_spec hs = {.kind = GRAPH_HOST,
					     .stream = b->c[k].host,
					     .label = "launch",
					     .seconds = b->j->launch_s,
					     .res = GRAPH_NONE,
					     .mult = b->mult,
					     .pool = GRAPH_NONE};
		if ((b->rc = graph_task(b->g, &hs, &first)))
			return GRAPH_NONE;
		if (kernels > 1) {
			hs.seconds = (kernels - 1) * b->j->launch_s;
			if ((b->rc = graph_task(b->g, &hs, &rest)))
				return GRAPH_NONE;
		}
	}
	struct graph_task_spec ts = {.kind = kind,
				     .stream = b->c[k].compute,
				     .label = label,
				     .seconds = s,
				     .res = b->c[k].gpu,
				     .mult = b->mult,
				     .pool = b->c[k].pool,
				     .alloc_cat = acat,
				     .alloc = alloc,
				     .free_cat = fcat,
				     .free = freeb};
	if ((b->rc = graph_task(b->g, &ts, &id)))
		return GRAPH_NONE;
	if (first != GRAPH_NONE && (b->rc = graph_dep(b->g, first, id)))
		return GRAPH_NONE;
	if (b->after != GRAPH_NONE && (b->rc = graph_dep(b->g, b->after, id)))
		return GRAPH_NONE;
	b->after = GRAPH_NONE;
	if (rest != GRAPH_NONE) {
		struct graph_task_spec ms = {.kind = GRAPH_MARK,
					     .stream = b->c[k].compute,
					     .label = "launched",
					     .res = GRAPH_NONE,
					     .mult = b->mult,
					     .pool = GRAPH_NONE};
		if ((b->rc = graph_task(b->g, &ms, &id)) || (b->rc = graph_dep(b->g, rest, id)))
			return GRAPH_NONE;
	}
	return id;
}

static uint32_t mark_task(struct builder *b, uint32_t k, enum graph_mem cat, double alloc)
{
	if (b->rc)
		return GRAPH_NONE;
	struct graph_task_spec ts = {.kind = GRAPH_MARK,
				     .stream = b->c[k].compute,
				     .label = "alloc",
				     .res = GRAPH_NONE,
				     .mult = b->mult,
				     .pool = b->c[k].pool,
				     .alloc_cat = cat,
				     .alloc = alloc};
	uint32_t id;
	b->rc = graph_task(b->g, &ts, &id);
	return b->rc ? GRAPH_NONE : id;
}

/* Forward of one micro-batch on class k. */
static void forward(struct builder *b, uint32_t k)
{
	const struct dp_job *j = b->j;
	if (j->gran == DP_GRAN_STAGE) {
		double s = 0.0, act = 0.0, logits = 0.0;
		uint32_t kern = 0;
		for (uint32_t u = 0; u < j->nunits; u++) {
			s += j->units[u].fwd_s;
			kern += j->units[u].kernels_fwd;
			if (j->units[u].act_cat == GRAPH_MEM_LOGITS)
				logits += j->units[u].act_bytes;
			else
				act += j->units[u].act_bytes;
		}
		gpu_task(b, k, GRAPH_COMPUTE, "forward", s, kern, GRAPH_MEM_ACTIVATIONS, act,
			 GRAPH_MEM_ACTIVATIONS, 0.0);
		if (logits > 0.0)
			mark_task(b, k, GRAPH_MEM_LOGITS, logits);
		return;
	}
	for (uint32_t u = 0; u < j->nunits; u++) {
		const struct dp_unit *x = &j->units[u];
		gpu_task(b, k, GRAPH_COMPUTE, x->label, x->fwd_s, x->kernels_fwd, x->act_cat,
			 x->act_bytes, x->act_cat, 0.0);
	}
}

/* Backward of one micro-batch on class k. ready[bkt] receives, for the last
 * micro-batch, the task after which bucket bkt's gradients are complete.
 * Returns the last backward task. */
static uint32_t backward(struct builder *b, uint32_t k, const uint32_t *bucket_of, bool last_mb,
			 uint32_t *ready)
{
	const struct dp_job *j = b->j;
	uint32_t lastt = GRAPH_NONE;
	if (j->gran == DP_GRAN_STAGE) {
		/* segments: cut after a unit that completes its bucket */
		double rs = 0.0, bs = 0.0, act = 0.0, logits = 0.0;
		uint32_t kern = 0, rkern = 0;
		for (uint32_t u = j->nunits; u-- > 0;) {
			const struct dp_unit *x = &j->units[u];
			rs += x->recompute_s;
			if (x->recompute_s > 0.0)
				rkern += x->kernels_fwd;
			bs += x->dgrad_s + x->wgrad_s;
			kern += x->kernels_bwd;
			if (x->act_cat == GRAPH_MEM_LOGITS)
				logits += x->act_bytes;
			else
				act += x->act_bytes;
			bool cut = u == 0 || (last_mb && bucket_of[u - 1] != bucket_of[u]);
			if (!cut)
				continue;
			if (rs > 0.0)
				gpu_task(b, k, GRAPH_RECOMPUTE, "recompute", rs, rkern,
					 GRAPH_MEM_ACTIVATIONS, 0.0, GRAPH_MEM_ACTIVATIONS, 0.0);
			lastt = gpu_task(b, k, GRAPH_COMPUTE, "backward", bs, kern,
					 GRAPH_MEM_ACTIVATIONS, 0.0, GRAPH_MEM_ACTIVATIONS, act);
			if (logits > 0.0 && !b->rc) {
				/* the fp32 logits go with the head's backward */
				struct graph_task_spec ts = {.kind = GRAPH_MARK,
							     .stream = b->c[k].compute,
							     .label = "free",
							     .res = GRAPH_NONE,
							     .mult = b->mult,
							     .pool = b->c[k].pool,
							     .free_cat = GRAPH_MEM_LOGITS,
							     .free = logits};
				b->rc = graph_task(b->g, &ts, &lastt);
			}
			if (last_mb && ready)
				ready[bucket_of[u]] = lastt;
			rs = bs = act = logits = 0.0;
			kern = rkern = 0;
		}
		return lastt;
	}
	for (uint32_t u = j->nunits; u-- > 0;) {
		const struct dp_unit *x = &j->units[u];
		uint32_t kr = x->kernels_bwd / 2, kd = x->kernels_bwd - kr;
		if (x->recompute_s > 0.0)
			gpu_task(b, k, GRAPH_RECOMPUTE, x->label, x->recompute_s, x->kernels_fwd,
				 GRAPH_MEM_ACTIVATIONS, 0.0, GRAPH_MEM_ACTIVATIONS, 0.0);
		gpu_task(b, k, GRAPH_COMPUTE, x->label, x->dgrad_s, kd, GRAPH_MEM_ACTIVATIONS, 0.0,
			 GRAPH_MEM_ACTIVATIONS, 0.0);
		lastt = gpu_task(b, k, GRAPH_COMPUTE, x->label, x->wgrad_s, kr,
				 GRAPH_MEM_ACTIVATIONS, 0.0, x->act_cat, x->act_bytes);
		/* bucket readiness: the last unit (in backward order) of a bucket */
		if (last_mb && ready && (u == 0 || bucket_of[u - 1] != bucket_of[u]))
			ready[bucket_of[u]] = lastt;
	}
	return lastt;
}

/* The input pipeline of batch `i` (0-based over the whole run) of class k,
 * and the mark the batch's first forward waits on. Returns the id of the
 * last stage (the task the host thread waits for), GRAPH_NONE on error. */
static uint32_t load_batch(struct builder *b, uint32_t k, uint64_t i)
{
	const struct dp_data *d = b->j->data;
	uint32_t prev = GRAPH_NONE, id;
	for (uint32_t s = 0; s < d->nstages && !b->rc; s++) {
		const struct dp_data_stage *st = &d->stages[(size_t)k * d->nstages + s];
		struct graph_task_spec ts = {.kind = GRAPH_DATA,
					     .stream = b->c[k].data[s],
					     .label = st->label,
					     .res = GRAPH_NONE,
					     .mult = b->mult,
					     .pool = GRAPH_NONE,
					     .uses = st->uses,
					     .nuses = st->nuses,
					     .work = st->work,
					     .bound = st->bound,
					     .latency = st->latency};
		if ((b->rc = graph_task(b->g, &ts, &id)))
			return GRAPH_NONE;
		if (s == 0 && i >= d->queue &&
		    (b->rc = graph_dep(
			 b->g, b->taken[(size_t)k * b->qlen + (i - d->queue) % b->qlen], id)))
			return GRAPH_NONE;
		if (prev != GRAPH_NONE && (b->rc = graph_dep(b->g, prev, id)))
			return GRAPH_NONE;
		prev = id;
	}
	struct graph_task_spec ms = {.kind = GRAPH_MARK,
				     .stream = b->c[k].compute,
				     .label = "batch ready",
				     .res = GRAPH_NONE,
				     .mult = b->mult,
				     .pool = GRAPH_NONE};
	if (b->rc || (b->rc = graph_task(b->g, &ms, &id)) || (b->rc = graph_dep(b->g, prev, id)))
		return GRAPH_NONE;
	b->taken[(size_t)k * b->qlen + i % b->qlen] = id;
	return prev;
}

int dp_build(struct ts_graph *g, struct ts_fluid *f, const struct dp_job *j, struct dp_built *out,
	     struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	if (j->nunits == 0 || j->accum == 0 || j->iterations == 0 || j->dp == 0 || !j->ranks)
		return ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				    "empty data-parallel job (units %u, micro-batches %u, "
				    "iterations %u, dp %u)",
				    j->nunits, j->accum, j->iterations, j->dp);
	if (j->data && (j->data->nstages == 0 || j->data->nstages > DP_DATA_MAX_STAGES ||
			j->data->queue == 0 || !j->data->stages))
		return ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				    "malformed input pipeline (%u stages, queue %u)",
				    j->data->nstages, j->data->queue);
	struct builder b = {.g = g, .j = j, .after = GRAPH_NONE};
	b.ncls = j->class_mode ? 1 : j->dp;
	b.mult = j->class_mode ? j->dp : 1;
	uint64_t batches = (uint64_t)j->iterations * j->accum;
	if (j->data) {
		b.qlen = j->data->queue < batches ? j->data->queue : (uint32_t)batches;
		if (!(b.taken = ts_calloc((size_t)b.qlen * b.ncls, sizeof *b.taken)))
			return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	uint32_t *bucket_of = ts_calloc(j->nunits, sizeof *bucket_of);
	b.c = ts_calloc(b.ncls, sizeof *b.c);
	out->iter_end = ts_calloc(j->iterations, sizeof *out->iter_end);
	uint32_t nb = 0, *ready = NULL, *bucket_last = NULL;
	double *bucket_bytes = NULL;
	if (!bucket_of || !b.c || !out->iter_end)
		goto nomem;
	out->niter = j->iterations;
	nb = dp_assign_buckets(j->units, j->nunits, j->bucket_bytes, j->first_bucket_bytes,
			       bucket_of);
	if (j->dp == 1)
		nb = 0;
	out->buckets = nb;
	ready = ts_calloc((size_t)(nb ? nb : 1) * b.ncls, sizeof *ready);
	bucket_bytes = ts_calloc(nb ? nb : 1, sizeof *bucket_bytes);
	bucket_last = ts_calloc(b.ncls, sizeof *bucket_last);
	if (!ready || !bucket_bytes || !bucket_last)
		goto nomem;
	for (uint32_t u = 0; u < j->nunits && nb; u++)
		bucket_bytes[bucket_of[u]] += j->units[u].grad_bytes;
	for (uint32_t k = 0; k < b.ncls && !b.rc; k++) {
		if ((b.rc = graph_stream(g, "host", &b.c[k].host)) ||
		    (b.rc = graph_stream(g, "compute", &b.c[k].compute)) ||
		    (b.rc = graph_pool(g, "gpu", &b.c[k].pool)) ||
		    (b.rc = fluid_resource_add(f, 1.0, b.mult, &b.c[k].gpu)))
			break;
		graph_pool_add(g, b.c[k].pool, GRAPH_MEM_WEIGHTS, j->weights_bytes);
		graph_pool_add(g, b.c[k].pool, GRAPH_MEM_GRADIENTS, j->grads_bytes);
		graph_pool_add(g, b.c[k].pool, GRAPH_MEM_OPTIMIZER, j->optimizer_bytes);
		for (uint32_t s = 0; j->data && s < j->data->nstages && !b.rc; s++)
			b.rc = graph_stream(g, j->data->stages[s].label, &b.c[k].data[s]);
	}
	uint32_t comm = GRAPH_NONE;
	if (!b.rc && nb)
		b.rc = graph_stream(g, "dp comm", &comm);
	for (uint32_t it = 0; it < j->iterations && !b.rc; it++) {
		uint32_t last_red = GRAPH_NONE;
		for (uint32_t mb = 0; mb < j->accum && !b.rc; mb++) {
			bool last_mb = mb + 1 == j->accum;
			for (uint32_t k = 0; k < b.ncls && !b.rc; k++) {
				uint32_t ready_id = GRAPH_NONE, first = graph_ntasks(g);
				if (j->data)
					ready_id = load_batch(&b, k, (uint64_t)it * j->accum + mb);
				if (j->data && !b.rc)
					first = graph_ntasks(g);
				forward(&b, k);
				/* the host thread takes the batch before it launches */
				if (ready_id != GRAPH_NONE && !b.rc && first < graph_ntasks(g) &&
				    graph_rec(g, first)->kind == GRAPH_HOST)
					b.rc = graph_dep(g, ready_id, first);
				/* no buckets (dp = 1): nothing waits for gradients */
				bucket_last[k] = backward(&b, k, bucket_of, last_mb,
							  nb ? ready + (size_t)k * nb : NULL);
			}
		}
		for (uint32_t bk = 0; bk < nb && !b.rc; bk++) {
			struct coll_spec cs = {.op = COLL_ALL_REDUCE,
					       .ranks = j->ranks,
					       .nranks = j->dp,
					       .bytes = bucket_bytes[bk],
					       .mult = j->class_mode ? j->coll_mult : 1,
					       .algo = COLL_ALGO_AUTO,
					       .proto = COLL_PROTO_AUTO};
			struct graph_task_spec ts = {.kind = GRAPH_COMM,
						     .stream = comm,
						     .label = "grad all-reduce",
						     .res = GRAPH_NONE,
						     .mult = 1,
						     .coll = &cs,
						     .pool = GRAPH_NONE};
			if ((b.rc = graph_task(g, &ts, &last_red)))
				break;
			for (uint32_t k = 0; k < b.ncls && !b.rc; k++) {
				uint32_t dep =
				    j->overlap ? ready[(size_t)k * nb + bk] : bucket_last[k];
				b.rc = graph_dep(g, dep, last_red);
			}
		}
		for (uint32_t k = 0; k < b.ncls && !b.rc; k++) {
			/* the step needs the reduced gradients: its kernels, not
			 * only its end, wait for the last reduction */
			b.after = last_red;
			uint32_t opt = gpu_task(&b, k, GRAPH_OPTIMIZER, "optimizer", j->optimizer_s,
						j->optimizer_kernels, GRAPH_MEM_BUFFERS, 0.0,
						GRAPH_MEM_BUFFERS, 0.0);
			if (k == 0)
				out->iter_end[it] = opt;
		}
	}
	out->compute_stream = b.c[0].compute;
	out->pool = b.c[0].pool;
	out->gpu_res = b.c[0].gpu;
	memcpy(out->data_streams, b.c[0].data, sizeof out->data_streams);
	ts_free(bucket_of, j->nunits * sizeof *bucket_of);
	ts_free(b.c, b.ncls * sizeof *b.c);
	ts_free(ready, (size_t)(nb ? nb : 1) * b.ncls * sizeof *ready);
	ts_free(bucket_bytes, (nb ? nb : 1) * sizeof *bucket_bytes);
	ts_free(bucket_last, b.ncls * sizeof *bucket_last);
	ts_free(b.taken, (size_t)b.qlen * b.ncls * sizeof *b.taken);
	if (b.rc) {
		dp_built_free(out);
		return ts_error_set(err, b.rc, NULL, 0, NULL,
				    "building the data-parallel "
				    "schedule failed (%s)",
				    ts_strerror(b.rc));
	}
	return 0;
nomem:
	ts_free(bucket_of, j->nunits * sizeof *bucket_of);
	ts_free(b.c, b.ncls * sizeof *b.c);
	ts_free(ready, (size_t)(nb ? nb : 1) * b.ncls * sizeof *ready);
	ts_free(bucket_bytes, (nb ? nb : 1) * sizeof *bucket_bytes);
	ts_free(bucket_last, b.ncls * sizeof *bucket_last);
	ts_free(b.taken, (size_t)b.qlen * b.ncls * sizeof *b.taken);
	dp_built_free(out);
	return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
}

void dp_built_free(struct dp_built *b)
{
	if (b->iter_end)
		ts_free(b->iter_end, b->niter * sizeof *b->iter_end);
	b->iter_end = NULL;
	b->niter = 0;
}
