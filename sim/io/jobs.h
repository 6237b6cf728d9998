/* Reading a cluster's job list for the queue model (sim/sweep/queue.h):
 * trainsim's jobs CSV, a Slurm `sacct --parsable2` export, or the Standard
 * Workload Format of the Parallel Workloads Archive.
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_JOBS_H
#define TS_IO_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* No name (a job without a user, an account or a scenario). */
#define JOBS_NONE UINT32_MAX
/* Most GPUs one job may ask for. */
#define JOBS_MAX_GPUS (1u << 20)

/* One job as the list gives it. Plain record; names are indices into the
 * list's tables. */
struct jobs_job {
	double submit_s;     /* submit time, s (as the input counts it: the CSV's own
			      * origin, seconds since the epoch for sacct, since the log's
			      * start for SWF) */
	double duration_s;   /* run time on the cluster alone, s; 0 for a scenario job,
			      * whose run time comes from its simulation */
	double time_limit_s; /* the job's time limit, s; 0 when none is given */
	double priority;     /* a priority term added to the policy's own (Slurm's
			      * nice or QOS weight), dimensionless; 0 by default */
	double tokens;	     /* scenario jobs: run length in tokens, 0 when not given */
	double steps;	     /* scenario jobs: run length in steps, 0 when not given */
	double rec_start_s;  /* the start the input records (sacct Start, SWF submit +
			      * wait), s on the submit clock; NAN when not recorded */
	uint32_t gpus;	     /* GPUs asked for, 1 .. JOBS_MAX_GPUS */
	uint32_t id;	     /* index in ids */
	uint32_t user;	     /* index in users, or JOBS_NONE */
	uint32_t account;    /* index in accounts, or JOBS_NONE */
	uint32_t scenario;   /* index in scenarios, or JOBS_NONE */
	uint32_t partition;  /* index in partitions, or JOBS_NONE (the default
			      * partition); jobs_add sets JOBS_NONE */
};

/* A table of distinct names (interned: one index per distinct string). */
struct jobs_names {
	char **s;	/* s[0..n), owned */
	size_t n, cap;	/* count, capacity of s */
	uint32_t *slot; /* open-addressing hash of indices + 1 (0: empty), owned */
	size_t nslot;	/* a power of two, or 0 */
};

/* A job list. Plain record owned by the caller: zero it before use, free
 * with jobs_free. */
struct jobs_list {
	struct jobs_job *j; /* in input order */
	size_t n, cap;
	struct jobs_names ids, users, accounts, scenarios, partitions;
};

/* Input formats. */
enum jobs_format {
	JOBS_AUTO = 0,	 /* by content: SWF (".swf", or a first line starting ';'), sacct (a
			  * first line holding '|'), else CSV */
	JOBS_CSV = 1,	 /* id,submit_s,gpus,duration_s[,time_limit_s,priority,user,
			  * account,scenario,tokens,steps,recorded_start_s,partition],
			  * any column order, a header */
	JOBS_SACCT = 2,	 /* sacct --parsable2 (or -P): '|'-separated with a header */
	JOBS_SWF = 3,	 /* Standard Workload Format: 18 whitespace-separated fields,
			  * ';' comments */
	JOBS_HELIOS = 4, /* SenseTime's Helios cluster_log.csv (a header starting
			  * job_id, with gpu_num and submit_time) */
};

/* Read the jobs of file `path` in format `fmt` and append them to `l`.
 * CSV: the header names the columns (id, submit_s, gpus and duration_s
 * required; duration_s may be empty for a job with a scenario, which then
 * needs tokens or steps); ids are unique; recorded_start_s, when given, is
 * the start a trace records (>= submit_s); partition names the Slurm
 * partition the job asks for (empty: the default). sacct: columns JobID, Submit
 * (ISO 8601, UTC), Elapsed or Start and End, and the GPUs from AllocTRES
 * or ReqTRES (gres/gpu=N) or AllocGRES/ReqGRES (gpu:N); optional
 * Timelimit, Start, User, Account, Priority; job steps (JobID with '.')
 * and jobs that never ran (Elapsed 0) are skipped. SWF: job number, submit
 * time, wait time, run time, allocated processors (each taken as one GPU;
 * the requested count where -1), requested time as the time limit, user
 * and group as user and account; jobs with a run time or processor count
 * of -1 or 0 are skipped. Helios: job_id, user, vc, gpu_num, submit_time,
 * start_time ("YYYY-MM-DD HH:MM:SS", UTC) and duration (s); the virtual
 * cluster is the account and the partition, start_time the recorded start;
 * CPU jobs and jobs of 0 s are skipped. Returns 0, or TS_EIO, TS_ESYNTAX (a missing
 * column, a field that is not what its column holds, a duplicate id; file,
 * line, column, found, expected), TS_ERANGE, TS_EINVALID (no job),
 * TS_ELIMIT (a line over 64 KiB), TS_ENOMEM, with err filled. */
int jobs_read(const char *path, enum jobs_format fmt, struct jobs_list *l, struct ts_error *err);

/* Add one job to l with id `id` (copied; NULL: its index); its user,
 * account and scenario names are interned from user, account, scenario
 * (NULL or "": none), its partition left JOBS_NONE. Returns 0, TS_ESYNTAX (a duplicate id: the
 * caller adds the file and line) or TS_ENOMEM. */
int jobs_add(struct jobs_list *l, const struct jobs_job *j, const char *id, const char *user,
	     const char *account, const char *scenario);

/* Intern `s` in t: its index, new or existing, into *idx. Returns 0 or
 * TS_ENOMEM. */
int jobs_intern(struct jobs_names *t, const char *s, uint32_t *idx);

/* Free what l holds and zero it (a zeroed list is fine). */
void jobs_free(struct jobs_list *l);

#endif
