/* The writers of trainsim queue: the figures of a cluster's job queue
 * (text, CSV of the node-count sweep, JSON), each job's times and the
 * utilisation timeline, from the runs of sim/sweep/queue.
 * SPDX-License-Identifier: MIT */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/csv.h"
#include "base/err.h"
#include "report/queue.h"

static const char *policy_name(enum ts_queue_policy p)
{
	return p == TS_QUEUE_FIFO ? "fifo" : p == TS_QUEUE_BACKFILL ? "backfill" : "priority";
}

/* A duration for people: s, min, h or d at 3 significant digits. */
static void dur(char *b, size_t n, double s)
{
	if (s < 60.0)
		snprintf(b, n, "%.3g s", s);
	else if (s < 3600.0)
		snprintf(b, n, "%.3g min", s / 60.0);
	else if (s < 86400.0 * 2)
		snprintf(b, n, "%.3g h", s / 3600.0);
	else
		snprintf(b, n, "%.3g d", s / 86400.0);
}

static void size_label(char *b, size_t n, const struct queue_size_stats *z)
{
	if (z->lo == z->hi)
		snprintf(b, n, "%u", z->lo);
	else if (z->hi == UINT32_MAX)
		snprintf(b, n, "%u+", z->lo);
	else
		snprintf(b, n, "%u-%u", z->lo, z->hi);
}

static const char *user_name(const struct report_queue *q, size_t u)
{
	return u < q->l->users.n ? q->l->users.s[u] : "(none)";
}

static int write_text(const struct report_queue *q, FILE *out)
{
	const struct queue_stats *s = q->detail;
	char a[32], b[32], c[32], d[32];
	fprintf(out, "%zu jobs on %u x %s (%u GPUs), %s, %s placement%s%s\n", s->jobs, s->nodes,
		q->cluster, s->gpus, policy_name(q->policy), q->spread ? "spread" : "packed",
		q->failures ? ", node failures" : "", q->preempt ? ", preemption" : "");
	if (s->too_big)
		fprintf(out, "  %zu jobs ask for more GPUs than %s: never run\n", s->too_big,
			q->part_names && s->npart ? "their partition has" : "the cluster has");
	fprintf(out, "  utilisation       %.1f %% (GPU-hours busy of GPU-hours installed)\n",
		100.0 * s->utilisation);
	dur(a, sizeof a, s->mean_wait_s), dur(b, sizeof b, s->p50_wait_s);
	dur(c, sizeof c, s->p90_wait_s), dur(d, sizeof d, s->max_wait_s);
	fprintf(out, "  wait              mean %s, p50 %s, p90 %s, max %s; %.1f %% of jobs wait\n",
		a, b, c, d, s->ran ? 100.0 * (double)s->waited / (double)s->ran : 0.0);
	dur(a, sizeof a, s->mean_completion_s);
	fprintf(out,
		"  completion        mean %s; bounded slowdown %.2f; run time x %.3f of alone\n", a,
		s->mean_slowdown, s->mean_stretch);
	dur(a, sizeof a, s->makespan_s);
	fprintf(out, "  makespan          %s; mean queue %.1f jobs\n", a, s->mean_queue);
	fprintf(out, "  fragmentation     %.1f %% (GPUs idle while a job waits)\n",
		100.0 * s->fragmentation);
	if (q->failures)
		fprintf(
		    out,
		    "  failures          %zu node failures, %zu runs requeued, %.0f GPU-h lost\n",
		    s->failures, s->requeued,
		    fmax(0.0, s->lost_gpu_s - s->preempt_lost_gpu_s) / 3600.0);
	if (q->preempt)
		fprintf(
		    out,
		    "  preemption        %zu run%s requeued for a higher tier, %.3g GPU-h lost\n",
		    s->preempted, s->preempted == 1 ? "" : "s", s->preempt_lost_gpu_s / 3600.0);
	if (s->recorded) {
		dur(a, sizeof a, s->rec_mean_wait_s), dur(b, sizeof b, s->rec_p50_wait_s);
		dur(c, sizeof c, s->rec_p90_wait_s);
		fprintf(out, "  recorded wait     mean %s, p50 %s, p90 %s as the input records", a,
			b, c);
		dur(a, sizeof a, s->replay_mean_wait_s), dur(b, sizeof b, s->replay_p50_wait_s);
		dur(c, sizeof c, s->replay_p90_wait_s);
		fprintf(out, "; replayed mean %s, p50 %s, p90 %s (%zu jobs)\n", a, b, c,
			s->recorded);
	}
	if (s->timed_out)
		fprintf(out, "  timed out         %zu jobs stopped at their time limit\n",
			s->timed_out);
	if (q->simulated)
		fprintf(out, "  scenario jobs     %zu shape%s simulated by trainsim\n",
			q->simulated, q->simulated == 1 ? "" : "s");
	fprintf(out, "\nwait by job size (GPUs)\n  %-10s %7s %10s %10s %10s %10s %9s\n", "gpus",
		"jobs", "mean", "p50", "p90", "max", "slowdown");
	for (size_t k = 0; k < s->nsize; k++) {
		const struct queue_size_stats *z = &s->size[k];
		char l[32];
		size_label(l, sizeof l, z);
		dur(a, sizeof a, z->mean_wait_s), dur(b, sizeof b, z->p50_wait_s);
		dur(c, sizeof c, z->p90_wait_s), dur(d, sizeof d, z->max_wait_s);
		fprintf(out, "  %-10s %7zu %10s %10s %10s %10s %9.2f\n", l, z->jobs, a, b, c, d,
			z->mean_slowdown);
	}
	double tot = 0.0;
	for (size_t u = 0; u < s->nusers; u++)
		tot += s->user_gpu_s[u];
	if (q->l->users.n && tot > 0.0) {
		fprintf(out, "\nshare of GPU-hours by user\n");
		for (size_t u = 0; u < s->nusers; u++)
			if (s->user_gpu_s[u] > 0.0) {
				/* a name from the input: its control characters
				 * escaped, never driving the terminal */
				char nm[256];
				ts_escape_ctl(nm, sizeof nm, user_name(q, u), SIZE_MAX);
				fprintf(out, "  %-16s %6.1f %%  %.4g GPU-h\n", nm,
					100.0 * s->user_gpu_s[u] / tot, s->user_gpu_s[u] / 3600.0);
			}
	}
	if (q->part_names && s->npart) {
		fprintf(out, "\nby partition\n  %-16s %6s %6s %7s %10s %10s %10s %7s\n",
			"partition", "nodes", "gpus", "jobs", "mean wait", "p90 wait", "GPU-h",
			"too big");
		for (size_t p = 0; p < s->npart; p++) {
			const struct queue_part_stats *z = &s->part[p];
			dur(a, sizeof a, z->mean_wait_s), dur(b, sizeof b, z->p90_wait_s);
			char nm[256];
			ts_escape_ctl(nm, sizeof nm, q->part_names[p], SIZE_MAX);
			fprintf(out, "  %-16s %6u %6u %7zu %10s %10s %10.4g %7zu\n", nm, z->nodes,
				z->gpus, z->jobs, a, b, z->busy_gpu_s / 3600.0, z->too_big);
		}
	}
	if (q->npt > 1) {
		fprintf(out, "\nnode count sweep\n  %6s %6s %8s %10s %10s %10s %6s\n", "nodes",
			"gpus", "util", "mean wait", "p90 wait", "makespan", "meets");
		for (size_t i = 0; i < q->npt; i++) {
			const struct queue_stats *p = &q->pt[i];
			dur(a, sizeof a, p->mean_wait_s), dur(b, sizeof b, p->p90_wait_s);
			dur(c, sizeof c, p->makespan_s);
			fprintf(out, "  %6u %6u %7.1f%% %10s %10s %10s %6s\n", p->nodes, p->gpus,
				100.0 * p->utilisation, a, b, c, q->meets[i] ? "yes" : "no");
		}
		if (q->target_p90 > 0.0 || q->target_util > 0.0) {
			char t[96] = "";
			if (q->target_p90 > 0.0) {
				dur(a, sizeof a, q->target_p90);
				snprintf(t, sizeof t, "p90 wait <= %s", a);
			}
			if (q->target_util > 0.0)
				snprintf(t + strlen(t), sizeof t - strlen(t),
					 "%sutilisation >= %.0f %%", t[0] ? ", " : "",
					 100.0 * q->target_util);
			if (q->met)
				fprintf(out, "\nsmallest cluster meeting %s: %u nodes (%u GPUs)\n",
					t, q->pt[q->chosen].nodes, q->pt[q->chosen].gpus);
			else
				fprintf(out, "\nno node count from %u to %u meets %s\n",
					q->pt[0].nodes, q->pt[q->npt - 1].nodes, t);
		}
	}
	return 0;
}

json_t *report_queue_point_json(const struct queue_stats *s)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	struct {
		const char *k;
		double v;
	} f[] = {{"nodes", s->nodes},
		 {"gpus", s->gpus},
		 {"jobs", (double)s->jobs},
		 {"ran", (double)s->ran},
		 {"too_big", (double)s->too_big},
		 {"timed_out", (double)s->timed_out},
		 {"waited", (double)s->waited},
		 {"utilisation", s->utilisation},
		 {"mean_wait_s", s->mean_wait_s},
		 {"p50_wait_s", s->p50_wait_s},
		 {"p90_wait_s", s->p90_wait_s},
		 {"max_wait_s", s->max_wait_s},
		 {"mean_completion_s", s->mean_completion_s},
		 {"mean_slowdown", s->mean_slowdown},
		 {"mean_stretch", s->mean_stretch},
		 {"makespan_s", s->makespan_s},
		 {"fragmentation", s->fragmentation},
		 {"mean_queue", s->mean_queue},
		 {"busy_gpu_hours", s->busy_gpu_s / 3600.0},
		 {"failures", (double)s->failures},
		 {"requeued", (double)s->requeued},
		 {"lost_gpu_hours", s->lost_gpu_s / 3600.0},
		 {"preempted", (double)s->preempted},
		 {"preempt_lost_gpu_hours", s->preempt_lost_gpu_s / 3600.0},
		 {"recorded_jobs", (double)s->recorded},
		 {"recorded_mean_wait_s", s->rec_mean_wait_s},
		 {"recorded_p50_wait_s", s->rec_p50_wait_s},
		 {"recorded_p90_wait_s", s->rec_p90_wait_s},
		 {"recorded_max_wait_s", s->rec_max_wait_s},
		 {"replayed_mean_wait_s", s->replay_mean_wait_s},
		 {"replayed_p50_wait_s", s->replay_p50_wait_s},
		 {"replayed_p90_wait_s", s->replay_p90_wait_s}};
	for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
		/* counts as integers, figures as reals */
		bool count = f[k].v == floor(f[k].v) && fabs(f[k].v) < 9e15 &&
			     strcmp(f[k].k + strlen(f[k].k) - 2, "_s") &&
			     strcmp(f[k].k, "utilisation") && strcmp(f[k].k, "fragmentation") &&
			     strcmp(f[k].k, "mean_queue") && strstr(f[k].k, "hours") == NULL &&
			     strncmp(f[k].k, "mean_", 5);
		json_t *v = count ? json_integer((json_int_t)f[k].v) : json_real(f[k].v);
		if (json_object_set_new(o, f[k].k, v)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static int write_json(const struct report_queue *q, FILE *out, struct ts_error *err)
{
	const struct queue_stats *s = q->detail;
	json_t *o = report_queue_point_json(s);
	if (!o)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	json_t *bys = json_array(), *users = json_object(), *sw = json_array();
	int bad = !bys || !users || !sw;
	bad |= json_object_set_new(o, "schema_version", json_integer(1));
	bad |= json_object_set_new(o, "trainsim_version", json_string(ts_version()));
	bad |= json_object_set_new(o, "cluster", json_string(q->cluster));
	bad |= json_object_set_new(o, "gpus_per_node", json_integer(q->gpn));
	bad |= json_object_set_new(o, "policy", json_string(policy_name(q->policy)));
	bad |= json_object_set_new(o, "placement", json_string(q->spread ? "spread" : "packed"));
	bad |= json_object_set_new(o, "scenario_shapes_simulated",
				   json_integer((json_int_t)q->simulated));
	for (size_t k = 0; !bad && k < s->nsize; k++) {
		const struct queue_size_stats *z = &s->size[k];
		json_t *e =
		    json_pack("{s:i,s:o,s:i,s:f,s:f,s:f,s:f,s:f}", "gpus_min", (json_int_t)z->lo,
			      "gpus_max", z->hi == UINT32_MAX ? json_null() : json_integer(z->hi),
			      "jobs", (json_int_t)z->jobs, "mean_wait_s", z->mean_wait_s,
			      "p50_wait_s", z->p50_wait_s, "p90_wait_s", z->p90_wait_s,
			      "max_wait_s", z->max_wait_s, "mean_slowdown", z->mean_slowdown);
		bad |= !e || json_array_append_new(bys, e);
	}
	double tot = 0.0;
	for (size_t u = 0; u < s->nusers; u++)
		tot += s->user_gpu_s[u];
	for (size_t u = 0; !bad && u < s->nusers; u++)
		if (s->user_gpu_s[u] > 0.0)
			bad |= json_object_set_new(users, user_name(q, u),
						   json_real(s->user_gpu_s[u] / tot));
	bad |= json_object_set_new(o, "by_size", bys);
	if (q->part_names && s->npart) {
		json_t *ps = json_array();
		bad |= !ps;
		for (size_t p = 0; !bad && p < s->npart; p++) {
			const struct queue_part_stats *z = &s->part[p];
			json_t *e = json_pack(
			    "{s:s,s:i,s:i,s:i,s:i,s:f,s:f,s:f}", "name", q->part_names[p], "nodes",
			    (json_int_t)z->nodes, "gpus", (json_int_t)z->gpus, "jobs",
			    (json_int_t)z->jobs, "too_big", (json_int_t)z->too_big, "mean_wait_s",
			    z->mean_wait_s, "p90_wait_s", z->p90_wait_s, "busy_gpu_hours",
			    z->busy_gpu_s / 3600.0);
			bad |= !e || json_array_append_new(ps, e);
		}
		bad |= json_object_set_new(o, "partitions", ps);
	}
	bad |= json_object_set_new(o, "user_share", users);
	if (q->npt > 1) {
		for (size_t i = 0; !bad && i < q->npt; i++) {
			json_t *p = report_queue_point_json(&q->pt[i]);
			bad |= !p || json_object_set_new(p, "meets", json_boolean(q->meets[i]));
			bad |= json_array_append_new(sw, p);
		}
		bad |= json_object_set_new(o, "sweep", sw);
		bad |= json_object_set_new(
		    o, "chosen_nodes", q->met ? json_integer(q->pt[q->chosen].nodes) : json_null());
	} else {
		json_decref(sw);
	}
	if (bad) {
		json_decref(o);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	int rc = json_dumpf(o, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(o);
	fputc('\n', out);
	return rc ? ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the JSON failed") : 0;
}

static void point_csv(FILE *out, const struct queue_stats *p, bool m)
{
	fprintf(out, "%u,%u,%zu,%zu,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%s\n",
		p->nodes, p->gpus, p->jobs, p->ran, p->utilisation, p->mean_wait_s, p->p50_wait_s,
		p->p90_wait_s, p->max_wait_s, p->mean_slowdown, p->makespan_s, p->fragmentation,
		p->mean_queue, m ? "yes" : "no");
}

int report_queue_write(const struct report_queue *q, enum ts_format format, FILE *out,
		       struct ts_error *err)
{
	if (format == TS_FORMAT_JSON)
		return write_json(q, out, err);
	if (format == TS_FORMAT_CSV) {
		fprintf(out,
			"nodes,gpus,jobs,ran,utilisation,mean_wait_s,p50_wait_s,p90_wait_s,"
			"max_wait_s,mean_slowdown,makespan_s,fragmentation,mean_queue,meets\n");
		for (size_t i = 0; i < q->npt; i++)
			point_csv(out, &q->pt[i], q->meets[i]);
		return 0;
	}
	return write_text(q, out);
}

int report_queue_jobs(const struct report_queue *q, FILE *out)
{
	static const char *const st[] = {"done", "timeout", "too_big"};
	const struct queue_stats *s = q->detail;
	fprintf(out, "id,submit_s,start_s,end_s,gpus,wait_s,run_s,alone_s,nodes,leaves,restarts,"
		     "user,state,recorded_start_s\n");
	for (size_t i = 0; i < q->l->n; i++) {
		const struct jobs_job *j = &q->l->j[i];
		const struct queue_job_out *y = &s->job[i];
		csv_put_field(out, q->l->ids.s[j->id]);
		if (y->state == QUEUE_TOO_BIG)
			fprintf(out, ",%.10g,,,%u,,,,,,,", j->submit_s, j->gpus);
		else
			fprintf(out, ",%.10g,%.10g,%.10g,%u,%.10g,%.10g,%.10g,%u,%u,%u,",
				j->submit_s, y->start_s, y->end_s, j->gpus,
				y->start_s - j->submit_s, y->end_s - y->start_s, y->alone_s,
				y->nodes, y->leaves, y->restarts);
		if (j->user != JOBS_NONE)
			csv_put_field(out, q->l->users.s[j->user]);
		fprintf(out, ",%s,", st[y->state]);
		if (isfinite(j->rec_start_s))
			fprintf(out, "%.10g", j->rec_start_s);
		fputc('\n', out);
	}
	return ferror(out) ? TS_EIO : 0;
}

int report_queue_timeline(const struct report_queue *q, FILE *out)
{
	const struct queue_stats *s = q->detail;
	fprintf(out, "t_s,busy_gpus,queued_jobs,down_gpus,utilisation\n");
	for (size_t i = 0; i < s->ntl; i++) {
		const struct queue_sample *x = &s->tl[i];
		fprintf(out, "%.10g,%u,%u,%u,%.6g\n", x->t_s, x->busy, x->queued, x->down,
			(double)x->busy / s->gpus);
	}
	return ferror(out) ? TS_EIO : 0;
}
