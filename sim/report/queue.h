/* The writers of trainsim queue: a cluster's job queue simulated by
 * sim/sweep/queue at one or several node counts.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_QUEUE_H
#define TS_REPORT_QUEUE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "io/jobs.h"
#include "sweep/queue.h"
#include "trainsim.h"

/* What a queue run answered (every pointer borrowed). */
struct report_queue {
	const char *cluster;	       /* the cluster's name */
	uint32_t gpn;		       /* GPUs per node */
	enum ts_queue_policy policy;   /* the scheduling policy */
	bool spread;		       /* spread placement (else packed) */
	bool failures;		       /* node failures simulated */
	bool preempt;		       /* preemption by priority tier simulated */
	const char *const *part_names; /* [detail->npart] partitions' names, NULL: none */
	double target_p90;	       /* p90 wait target, s; 0: none */
	double target_util;	       /* utilisation target, 0-1; 0: none */
	const struct jobs_list *l;     /* the jobs (ids and users) */
	const struct queue_stats *pt;  /* [npt] one run per node count, ascending */
	const bool *meets;	       /* [npt]: each count meets the targets */
	size_t npt;
	size_t chosen;			  /* index in pt of the chosen count */
	bool met;			  /* the chosen count meets the targets */
	const struct queue_stats *detail; /* the chosen count, with per-job times and
					   * the timeline */
	size_t simulated;		  /* scenario job shapes simulated by trainsim */
};

/* Write q as format: text (the chosen count's figures, failures and
 * preemptions apart, the recorded waits beside the replayed, wait by job size,
 * the users' shares, the node-count sweep and the smallest count meeting
 * the targets), CSV (one line per node count) or JSON (the chosen count's
 * figures, by size, user shares, the sweep). Returns 0, or TS_ENOMEM /
 * TS_EIO (JSON) with err set; other write errors are left to the stream. */
int report_queue_write(const struct report_queue *q, enum ts_format format, FILE *out,
		       struct ts_error *err);

/* Each job's times at the chosen count as CSV (id, submit, start, end,
 * GPUs, wait, run, alone, nodes, leaves, restarts, user, state, the start
 * the input records or empty). Returns 0
 * or TS_EIO when the stream has an error. */
int report_queue_jobs(const struct report_queue *q, FILE *out);

/* The chosen count's timeline as CSV (time, busy GPUs, queued jobs, down
 * GPUs, utilisation). Returns 0 or TS_EIO when the stream has an error. */
int report_queue_timeline(const struct report_queue *q, FILE *out);

/* The figures of run s as a JSON object keyed as the JSON report writes
 * them (counts as integers, figures as reals); a new reference, NULL when
 * out of memory. */
json_t *report_queue_point_json(const struct queue_stats *s);

#endif
