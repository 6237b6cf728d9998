/* The public face of the queue model (sim/sweep/queue.c): the cluster from
 * the catalog, the job list or synthetic mix, scenario jobs' step times
 * from trainsim's own simulation, a sweep over node counts; the writers
 * (text, CSV, JSON, per-job CSV, timeline) are report/queue's.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "api/api_int.h"
#include "base/alloc.h"
#include "base/csv.h"
#include "hw/cluster.h"
#include "io/costcfg.h"
#include "io/jobs.h"
#include "plan/env.h"
#include "report/queue.h"
#include "sweep/queue.h"

#define MAX_POINTS 4096
#define MAX_PARTS 64

/* Partitions as --partitions gives them. */
struct qparts {
	uint32_t n;		      /* partitions; 0: none given */
	char name[MAX_PARTS][64];     /* their names */
	const char *names[MAX_PARTS]; /* pointers to name[] */
	uint32_t nodes[MAX_PARTS];    /* their node counts; the last 0 when it takes
				       * the nodes left */
	uint32_t fixed;		      /* nodes the counts given hold */
};

struct ts_queue {
	char cluster[256];
	uint32_t gpn, per_leaf;
	enum ts_queue_policy policy;
	bool spread, failures, preempt, synthetic;
	double target_p90, target_util;
	struct jobs_list l;
	struct queue_stats *pt; /* one per node count */
	size_t npt;
	bool *meets;		   /* [npt]: each count meets the targets */
	size_t chosen;		   /* index in pt of the chosen count */
	bool met;		   /* the chosen count meets the targets */
	struct queue_stats detail; /* the chosen count, with per-job times */
	struct qparts parts;
	size_t simulated;
	uint64_t events;
};

/* ------------------------------------------------- scenario step times */

struct rt_ctx {
	const ts_env *env;
	const struct jobs_list *l;
	char dir[1024]; /* the job list's folder, "" for the working one */
	const char *cluster;
	double oversub;
};

static int rt_sim(void *vctx, const struct queue_shape *sh, struct queue_rt *rt,
		  struct ts_error *err)
{
	struct rt_ctx *c = vctx;
	const char *name = c->l->scenarios.s[sh->scenario];
	char path[2048];
	if (name[0] == '/' || !c->dir[0])
		snprintf(path, sizeof path, "%s", name);
	else
		snprintf(path, sizeof path, "%s/%s", c->dir, name);
	char s0[1100], s1[48], s2[48], s3[64], s4[80];
	snprintf(s0, sizeof s0, "cluster=%s", c->cluster);
	snprintf(s1, sizeof s1, "nodes=%u", sh->nodes);
	snprintf(s2, sizeof s2, "gpus_per_node=%u", sh->gpus_per_node);
	const char *sets[8] = {s0, s1, s2, "failures.gpu_mtbf=none", "failures.node_mtbf=none"};
	size_t n = 5;
	if (sh->leaves > 1) {
		/* the job's nodes over `leaves` leaves; its share of the uplinks
		 * as if the leaf were `share` times as oversubscribed */
		snprintf(s3, sizeof s3, "cluster.fabric.nodes_per_leaf=%u",
			 (sh->nodes + sh->leaves - 1) / sh->leaves);
		snprintf(s4, sizeof s4, "cluster.fabric.oversubscription=%.17g",
			 c->oversub * (double)sh->share);
		sets[n++] = s3;
		sets[n++] = s4;
	}
	ts_scenario *sc = NULL;
	ts_plan *p = NULL;
	ts_result *r = NULL;
	int rc = ts_scenario_load_file(c->env, path, sets, n, &sc);
	if (!rc)
		rc = ts_plan_build(c->env, sc, &p);
	if (!rc)
		rc = ts_plan_simulate(p, NULL, &r);
	if (rc) {
		ts_error_set(err, rc, NULL, 0, "scenario", "%s on %u nodes x %u GPUs: %s", name,
			     sh->nodes, sh->gpus_per_node, ts_errmsg());
	} else {
		double tps = 0.0;
		rt->step_s = ts_result_iteration_time_s(r);
		if (!ts_result_get(r, "tokens_per_s", &tps))
			rt->tokens_per_step = tps * rt->step_s;
		double fits = 1.0;
		if (!ts_result_get(r, "fits", &fits) && fits == 0.0)
			rc = ts_error_set(err, TS_EINVALID, NULL, 0, "scenario",
					  "%s on %u nodes x %u GPUs: does not fit in GPU memory",
					  name, sh->nodes, sh->gpus_per_node);
	}
	ts_result_free(r);
	ts_plan_free(p);
	ts_scenario_free(sc);
	return rc;
}

/* ------------------------------------------------------ synthetic mix */

static int parse_sizes(const char *s, struct queue_mix *m)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", s);
	m->nsizes = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long g = strtoul(t, &end, 10);
		double w = 1.0;
		if (*end == ':')
			w = strtod(end + 1, &end);
		if (*end || !g || g > JOBS_MAX_GPUS || !(w > 0.0) || m->nsizes == QUEUE_MIX_SIZES)
			return api_failf(TS_EUSAGE, "--sizes",
					 "found \"%s\", expected up to 16 GPUS:WEIGHT pairs as "
					 "\"1:0.6,8:0.3,32:0.1\"",
					 s);
		m->size_gpus[m->nsizes] = (uint32_t)g;
		m->size_weight[m->nsizes++] = w;
	}
	if (!m->nsizes)
		return api_failf(TS_EUSAGE, "--sizes", "found \"%s\", expected GPUS:WEIGHT pairs",
				 s);
	return 0;
}

static int parse_parts(const char *s, struct qparts *p)
{
	char buf[4096];
	if (strlen(s) >= sizeof buf)
		return api_failf(TS_EUSAGE, "--partitions", "found %zu characters, expected fewer",
				 strlen(s));
	snprintf(buf, sizeof buf, "%s", s);
	*p = (struct qparts){0};
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(t, ':'), *end = NULL;
		unsigned long k = 0;
		if (colon) {
			*colon = '\0';
			k = strtoul(colon + 1, &end, 10);
		}
		bool dup = false;
		for (uint32_t a = 0; a < p->n; a++)
			dup |= !strcmp(p->name[a], t);
		if (!*t || strlen(t) >= sizeof p->name[0] || dup || p->n == MAX_PARTS ||
		    (colon && (*end || !k || k > 1000000 || colon[1] == '-')) ||
		    (p->n && !p->nodes[p->n - 1]))
			return api_failf(TS_EUSAGE, "--partitions",
					 "found \"%s\", expected up to %d distinct NAME:NODES "
					 "as \"debug:2,batch:14\" (the last may give no count "
					 "and take the nodes left: \"debug:2,batch\")",
					 s, MAX_PARTS);
		snprintf(p->name[p->n], sizeof p->name[0], "%s", t);
		p->names[p->n] = p->name[p->n];
		p->nodes[p->n] = (uint32_t)k;
		p->fixed += (uint32_t)k;
		p->n++;
	}
	if (!p->n)
		return api_failf(TS_EUSAGE, "--partitions", "found \"%s\", expected NAME:NODES,...",
				 s);
	return 0;
}

/* The partitions' node counts on `nodes` nodes into out[p.n]. */
static int parts_on(const struct qparts *p, uint32_t nodes, uint32_t *out)
{
	memcpy(out, p->nodes, p->n * sizeof *out);
	if (!p->nodes[p->n - 1]) {
		if (nodes <= p->fixed)
			return api_failf(TS_EUSAGE, "--partitions",
					 "found %u nodes, which leave none to partition %s after "
					 "the %u the others hold",
					 nodes, p->name[p->n - 1], p->fixed);
		out[p->n - 1] = nodes - p->fixed;
	} else if (nodes != p->fixed) {
		return api_failf(TS_EUSAGE, "--partitions",
				 "found partitions of %u nodes on a cluster of %u, expected "
				 "them to hold every node (a last partition without a count "
				 "takes the nodes left)",
				 p->fixed, nodes);
	}
	return 0;
}

static int parse_duration(const char *s, struct queue_mix *m)
{
	static const char *const names[] = {"exp", "lognormal", "fixed", "uniform"};
	static const int nargs[] = {1, 2, 1, 2};
	for (int k = 0; k < 4; k++) {
		size_t n = strlen(names[k]);
		if (strncmp(s, names[k], n) || s[n] != ':')
			continue;
		char *end;
		const char *p = s + n + 1;
		m->dist = (enum queue_dist)k;
		m->a = strtod(p, &end);
		m->b = 0.0;
		if (nargs[k] == 2 && *end == ':')
			m->b = strtod(end + 1, &end);
		else if (nargs[k] == 2)
			break;
		if (*end || end == p)
			break;
		return 0;
	}
	return api_failf(TS_EUSAGE, "--duration",
			 "found \"%s\", expected exp:MEAN, lognormal:MEDIAN:SIGMA, fixed:S or "
			 "uniform:LO:HI in seconds",
			 s);
}

/* ------------------------------------------------------------- run */

static bool meets(const ts_queue *q, const struct queue_stats *s)
{
	return (!(q->target_p90 > 0.0) || s->p90_wait_s <= q->target_p90) &&
	       (!(q->target_util > 0.0) || s->utilisation >= q->target_util);
}

void ts_queue_free(ts_queue *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->npt; i++)
		queue_stats_free(&q->pt[i]);
	ts_free(q->pt, q->npt * sizeof *q->pt);
	ts_free(q->meets, q->npt * sizeof *q->meets);
	queue_stats_free(&q->detail);
	jobs_free(&q->l);
	ts_free(q, sizeof *q);
}

int ts_queue_run(const ts_env *env, const ts_queue_opts *o, ts_queue **out)
{
	*out = NULL;
	if (!o->cluster)
		return api_failf(TS_EUSAGE, "--cluster", "found none, expected a cluster name");
	if (!o->nodes)
		return api_failf(TS_EUSAGE, "--nodes", "found none, expected a node count >= 1");
	uint32_t step = o->nodes_step ? o->nodes_step : 1, hi = o->nodes_max;
	if (hi && hi < o->nodes)
		return api_failf(TS_EUSAGE, "--nodes", "found %u:%u, expected LO:HI with LO <= HI",
				 o->nodes, hi);
	if (!hi)
		hi = o->nodes;
	size_t npt = (hi - o->nodes) / step + 1;
	if (npt > MAX_POINTS)
		return api_failf(TS_EUSAGE, "--nodes", "found %zu node counts, expected at most %d",
				 npt, MAX_POINTS);
	if (o->target_utilisation < 0.0 || o->target_utilisation > 1.0)
		return api_failf(TS_EUSAGE, "--target-utilisation",
				 "found %g, expected a fraction from 0 to 1",
				 o->target_utilisation);
	enum jobs_format fmt = JOBS_AUTO;
	if (o->input) {
		fmt = !strcmp(o->input, "csv")	    ? JOBS_CSV
		      : !strcmp(o->input, "sacct")  ? JOBS_SACCT
		      : !strcmp(o->input, "swf")    ? JOBS_SWF
		      : !strcmp(o->input, "helios") ? JOBS_HELIOS
						    : (enum jobs_format) - 1;
		if ((int)fmt < 0)
			return api_failf(TS_EUSAGE, "--input",
					 "found \"%s\", expected csv, sacct, swf or helios",
					 o->input);
	}
	ts_queue *q = ts_calloc(1, sizeof *q);
	if (!q)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	struct ts_error err = {0};
	int rc = 0;
	struct queue_cache *cache = NULL;
	uint32_t *pn = NULL; /* [npt][parts.n] each count's partition sizes */
	/* the cluster: GPUs per node, leaves, and the oversubscription the
	 * scenario jobs' fabric sharing scales */
	struct hw_cluster *hc = NULL;
	struct hw_cluster_opts ho = {.nodes = hi};
	if (hw_cluster_load(env->cat, o->cluster, &ho, &hc, &err)) {
		/* the node count is --nodes' (the loader gives it no line) */
		rc = err.line == 0 && !strcmp(err.key, "nodes")
			 ? api_failf(err.code, "--nodes", "%s", err.msg)
			 : api_fail(&err);
		goto fail;
	}
	snprintf(q->cluster, sizeof q->cluster, "%s", hw_cluster_name(hc));
	q->gpn = hw_cluster_gpus_per_node(hc);
	q->per_leaf = hw_cluster_nodes_per_leaf(hc);
	double oversub = hw_cluster_oversubscription(hc);
	hw_cluster_destroy(hc);
	q->policy = o->policy;
	q->spread = o->spread;
	q->failures = o->failures;
	q->preempt = o->preempt;
	q->target_p90 = o->target_p90_wait_s;
	q->target_util = o->target_utilisation;
	if (o->partitions && (rc = parse_parts(o->partitions, &q->parts)))
		goto fail;
	/* the jobs */
	if (o->jobs) {
		if (jobs_read(o->jobs, fmt, &q->l, &err)) {
			rc = api_fail(&err);
			goto fail;
		}
	} else {
		q->synthetic = true;
		struct queue_mix m = {.jobs = o->synth_jobs ? o->synth_jobs : 1000,
				      .users = o->synth_users,
				      .seed = o->seed ? o->seed : 1};
		if ((rc = parse_sizes(o->synth_sizes ? o->synth_sizes : "1:1", &m)) ||
		    (rc = parse_duration(o->synth_duration ? o->synth_duration : "exp:3600", &m)))
			goto fail;
		m.rate_per_s = o->synth_rate_per_s;
		if (!(m.rate_per_s > 0.0)) {
			/* offered load: rate x mean GPUs x mean run time / GPUs */
			double wsum = 0.0, g = 0.0;
			for (size_t k = 0; k < m.nsizes; k++) {
				wsum += m.size_weight[k];
				g += m.size_weight[k] * m.size_gpus[k];
			}
			double load = o->synth_load > 0.0 ? o->synth_load : 0.7;
			m.rate_per_s =
			    load * (double)o->nodes * q->gpn / (g / wsum * queue_mix_mean_s(&m));
		}
		if (queue_synth(&m, &q->l, &err)) {
			rc = api_fail(&err);
			goto fail;
		}
	}
	struct rt_ctx ctx = {.env = env, .l = &q->l, .cluster = o->cluster, .oversub = oversub};
	if (o->jobs) {
		const char *slash = strrchr(o->jobs, '/');
		if (slash)
			snprintf(ctx.dir, sizeof ctx.dir, "%.*s", (int)(slash - o->jobs), o->jobs);
		if (slash == o->jobs)
			snprintf(ctx.dir, sizeof ctx.dir, "/");
	}
	if (q->l.scenarios.n && queue_cache_create(rt_sim, &ctx, &cache)) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto fail;
	}
	struct queue_cfg base = {
	    .gpus_per_node = q->gpn,
	    .nodes_per_leaf = q->per_leaf,
	    .policy = (enum queue_policy)o->policy,
	    .place = o->spread ? QUEUE_SPREAD : QUEUE_PACKED,
	    .failures = o->failures,
	    .preempt = o->preempt,
	    .node_mtbf_s = 1.0 / ((double)q->gpn / COSTCFG_GPU_MTBF_S + 1.0 / COSTCFG_NODE_MTBF_S),
	    .repair_s = o->repair_s > 0.0 ? o->repair_s : 4 * 3600.0,
	    .restart_s = o->restart_s > 0.0 ? o->restart_s : 600.0,
	    .checkpoint_s = o->checkpoint_s > 0.0 ? o->checkpoint_s : 3600.0,
	    .seed = o->seed ? o->seed : 1,
	    .nparts = q->parts.n,
	    .part_names = q->parts.names,
	    .cache = cache};
	/* each count's partition sizes */
	if (q->parts.n) {
		if (!(pn = ts_malloc(npt * q->parts.n * sizeof *pn))) {
			rc = api_failf(TS_ENOMEM, NULL, "out of memory");
			goto fail;
		}
		for (size_t i = 0; i < npt; i++)
			if ((rc = parts_on(&q->parts, o->nodes + (uint32_t)i * step,
					   pn + i * q->parts.n)))
				goto fail;
	}
	if (!(q->pt = ts_calloc(npt, sizeof *q->pt))) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto fail;
	}
	q->npt = npt;
	int *prc = ts_calloc(npt, sizeof *prc);
	struct ts_error *perr = ts_calloc(npt, sizeof *perr);
	if (!prc || !perr) {
		ts_free(prc, npt * sizeof *prc);
		ts_free(perr, npt * sizeof *perr);
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto fail;
	}
	/* scenario jobs are simulated at their first use and kept: one thread
	 * then, so the cache fills once in a known order */
	int threads = q->l.scenarios.n ? 1 : o->threads;
#ifdef _OPENMP
	int nt = threads > 0 ? threads : omp_get_max_threads();
#endif
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
	for (size_t i = 0; i < npt; i++) {
		struct queue_cfg c = base;
		c.nodes = o->nodes + (uint32_t)i * step;
		if (pn)
			c.part_nodes = pn + i * q->parts.n;
		prc[i] = queue_run(&q->l, &c, &q->pt[i], &perr[i]);
	}
	for (size_t i = 0; i < npt && !rc; i++)
		if (prc[i])
			rc = api_fail(&perr[i]);
	ts_free(prc, npt * sizeof *prc);
	ts_free(perr, npt * sizeof *perr);
	if (rc)
		goto fail;
	if (!(q->meets = ts_calloc(npt, sizeof *q->meets))) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto fail;
	}
	q->chosen = npt - 1;
	for (size_t i = npt; i-- > 0;)
		if ((q->meets[i] = meets(q, &q->pt[i]))) {
			q->chosen = i;
			q->met = true;
		}
	struct queue_cfg c = base;
	c.nodes = q->pt[q->chosen].nodes;
	if (pn)
		c.part_nodes = pn + q->chosen * q->parts.n;
	c.detail = true;
	if (queue_run(&q->l, &c, &q->detail, &err)) {
		rc = api_fail(&err);
		goto fail;
	}
	q->simulated = queue_cache_simulated(cache);
	for (size_t i = 0; i < npt; i++)
		q->events += q->pt[i].events;
	queue_cache_destroy(cache);
	ts_free(pn, npt * q->parts.n * sizeof *pn);
	*out = q;
	return 0;
fail:
	if (pn)
		ts_free(pn, npt * q->parts.n * sizeof *pn);
	queue_cache_destroy(cache);
	ts_queue_free(q);
	return rc;
}

size_t ts_queue_simulated(const ts_queue *q)
{
	return q->simulated;
}

uint64_t ts_queue_events(const ts_queue *q)
{
	return q->events;
}

/* The record the writers read: a view of q (borrowed). */
static struct report_queue view(const ts_queue *q)
{
	return (struct report_queue){.cluster = q->cluster,
				     .gpn = q->gpn,
				     .policy = q->policy,
				     .spread = q->spread,
				     .failures = q->failures,
				     .preempt = q->preempt,
				     .part_names = q->parts.n ? q->parts.names : NULL,
				     .target_p90 = q->target_p90,
				     .target_util = q->target_util,
				     .l = &q->l,
				     .pt = q->pt,
				     .meets = q->meets,
				     .npt = q->npt,
				     .chosen = q->chosen,
				     .met = q->met,
				     .detail = &q->detail,
				     .simulated = q->simulated};
}

int ts_queue_write(const ts_queue *q, enum ts_format format, FILE *out)
{
	struct ts_error err;
	ts_error_clear(&err);
	struct report_queue v = view(q);
	int rc = report_queue_write(&v, format, out, &err) ? api_fail(&err) : 0;
	if (!rc && ferror(out))
		rc = api_failf(TS_EIO, NULL, "writing the report failed: %s", strerror(errno));
	return rc;
}

int ts_queue_write_jobs(const ts_queue *q, FILE *out)
{
	struct report_queue v = view(q);
	return report_queue_jobs(&v, out)
		   ? api_failf(TS_EIO, "-o", "writing the jobs failed: %s", strerror(errno))
		   : 0;
}

int ts_queue_write_timeline(const ts_queue *q, FILE *out)
{
	struct report_queue v = view(q);
	return report_queue_timeline(&v, out)
		   ? api_failf(TS_EIO, "--timeline", "writing the timeline failed: %s",
			       strerror(errno))
		   : 0;
}

int ts_queue_get(const ts_queue *q, const char *key, double *value)
{
	json_t *o = report_queue_point_json(&q->detail);
	json_t *v = o ? json_object_get(o, key) : NULL;
	int rc = 0;
	if (v)
		*value = json_number_value(v);
	else
		rc = api_failf(TS_EUNKNOWN_KEY, key, "found no such figure of the queue");
	json_decref(o);
	return rc;
}
