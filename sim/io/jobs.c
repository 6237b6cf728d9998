/* Reading a cluster's job list: trainsim's jobs CSV, sacct --parsable2,
 * the Standard Workload Format.
 *
 * Every reader checks each field it takes (a number where a number is
 * expected, a positive GPU count, a finite time) and names the file, the
 * line and the column of the first that is not; nothing is guessed. Names
 * (ids, users, accounts, scenarios) are interned in hash tables, so a job
 * costs a few indices however long its names.
 * SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE
#include "base/hash.h"
#include "io/jobs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "base/file.h"

#define LINE_MAX_ 65536
#define MAX_FIELDS 64
/* Latest submit time, s: simulated time counts int64 ns from the first
 * submit (TS_TIME_MAX ns = 9.22e9 s, 292 years), so a later one (a typo, a
 * time in ns) could never be placed; sacct's epoch seconds (1.7e9 in 2024)
 * lie well inside. */
#define SUBMIT_MAX_S 9.2e9
/* Most bytes of a job list on standard input (a year of a 10,000-node
 * cluster's sacct is a few hundred MB). */
#define STDIN_MAX ((size_t)1 << 30)

/* A job list: a file by path, or standard input ("-") read once and whole
 * into buf, which the format sniff and then the reader each read through
 * fmemopen. */
struct jin {
	const char *path; /* as given, for messages */
	char *buf;	  /* standard input's bytes (owned), NULL for a file */
	size_t n, cap;	  /* bytes in buf, its allocation */
};

/* Open the job list for reading from its start; NULL with errno. */
static FILE *jin_open(const struct jin *in)
{
	return in->buf ? fmemopen(in->buf, in->n, "r") : ts_fopen(in->path, "r");
}

/* csv_open on the job list. */
static int csv_in(struct csv *c, const struct jin *in, struct ts_error *err)
{
	if (!in->buf)
		return csv_open(c, in->path, LINE_MAX_, MAX_FIELDS, err);
	FILE *fp = jin_open(in);
	if (!fp) {
		*c = (struct csv){0};
		return ts_error_set(err, TS_ENOMEM, in->path, 0, NULL,
				    "out of memory reading standard input");
	}
	return csv_open_stream(c, fp, in->path, LINE_MAX_, MAX_FIELDS, err);
}

/* ------------------------------------------------------------- names */

static int rehash(struct jobs_names *t, size_t nslot)
{
	uint32_t *slot = ts_calloc(nslot, sizeof *slot);
	if (!slot)
		return TS_ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = (size_t)hash_fnv1a_str(t->s[i]) & (nslot - 1);
		while (slot[k])
			k = (k + 1) & (nslot - 1);
		slot[k] = (uint32_t)i + 1;
	}
	ts_free(t->slot, t->nslot * sizeof *t->slot);
	t->slot = slot;
	t->nslot = nslot;
	return 0;
}

/* The index of s in t, or JOBS_NONE; *k receives the slot where it is or
 * would go. */
static uint32_t find(const struct jobs_names *t, const char *s, size_t *k)
{
	size_t m = t->nslot - 1, i = (size_t)hash_fnv1a_str(s) & m;
	while (t->slot[i] && strcmp(t->s[t->slot[i] - 1], s))
		i = (i + 1) & m;
	*k = i;
	return t->slot[i] ? t->slot[i] - 1 : JOBS_NONE;
}

/* Intern s; *fresh tells whether it was new. */
static int intern(struct jobs_names *t, const char *s, uint32_t *idx, bool *fresh)
{
	if ((t->n + 1) * 2 > t->nslot && rehash(t, t->nslot ? t->nslot * 2 : 64))
		return TS_ENOMEM;
	size_t k;
	uint32_t i = find(t, s, &k);
	*fresh = i == JOBS_NONE;
	if (!*fresh) {
		*idx = i;
		return 0;
	}
	if (t->n >= JOBS_NONE - 1 || ts_grow((void **)&t->s, &t->cap, t->n + 1, sizeof *t->s))
		return TS_ENOMEM;
	if (!(t->s[t->n] = ts_strdup(s)))
		return TS_ENOMEM;
	t->slot[k] = (uint32_t)t->n + 1;
	*idx = (uint32_t)t->n++;
	return 0;
}

int jobs_intern(struct jobs_names *t, const char *s, uint32_t *idx)
{
	bool fresh;
	return intern(t, s, idx, &fresh);
}

static void names_free(struct jobs_names *t)
{
	for (size_t i = 0; i < t->n; i++)
		ts_free(t->s[i], strlen(t->s[i]) + 1);
	ts_free(t->s, t->cap * sizeof *t->s);
	ts_free(t->slot, t->nslot * sizeof *t->slot);
	*t = (struct jobs_names){0};
}

void jobs_free(struct jobs_list *l)
{
	ts_free(l->j, l->cap * sizeof *l->j);
	names_free(&l->ids);
	names_free(&l->users);
	names_free(&l->accounts);
	names_free(&l->scenarios);
	names_free(&l->partitions);
	*l = (struct jobs_list){0};
}

static int opt_name(struct jobs_names *t, const char *s, uint32_t *idx)
{
	*idx = JOBS_NONE;
	return s && *s ? jobs_intern(t, s, idx) : 0;
}

int jobs_add(struct jobs_list *l, const struct jobs_job *j, const char *id, const char *user,
	     const char *account, const char *scenario)
{
	char buf[32];
	if (!id) {
		snprintf(buf, sizeof buf, "%zu", l->n + 1);
		id = buf;
	}
	if (ts_grow((void **)&l->j, &l->cap, l->n + 1, sizeof *l->j))
		return TS_ENOMEM;
	struct jobs_job *o = &l->j[l->n];
	*o = *j;
	bool fresh;
	if (intern(&l->ids, id, &o->id, &fresh))
		return TS_ENOMEM;
	if (!fresh)
		return TS_ESYNTAX;
	if (opt_name(&l->users, user, &o->user) || opt_name(&l->accounts, account, &o->account) ||
	    opt_name(&l->scenarios, scenario, &o->scenario))
		return TS_ENOMEM;
	o->partition = JOBS_NONE;
	l->n++;
	return 0;
}

/* ------------------------------------------------------------ fields */

/* A finite number taking the whole of s (spaces around allowed). */
static bool num(const char *s, double *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (*end || errno == ERANGE || !isfinite(x))
		return false;
	*out = x;
	return true;
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

static int bad(struct ts_error *err, const char *path, int line, const char *col, const char *v,
	       const char *expected)
{
	return ts_error_set(err, TS_ESYNTAX, path, line, col, "found \"%.80s\", expected %s", v,
			    expected);
}

/* Append job j of line `line` with its names (jobs_add) and its partition
 * (NULL: the first); a repeated id is an error of column id_col whose
 * expected text is id_expected. Returns 0, TS_ESYNTAX or TS_ENOMEM, with
 * err set. */
static int add_row(struct jobs_list *l, const struct jobs_job *j, const char *id, const char *user,
		   const char *acct, const char *scen, const char *part, const char *path, int line,
		   const char *id_col, const char *id_expected, struct ts_error *err)
{
	int rc = jobs_add(l, j, id, user, acct, scen);
	if (rc == TS_ESYNTAX)
		return bad(err, path, line, id_col, id, id_expected);
	if (!rc && part)
		rc = opt_name(&l->partitions, part, &l->j[l->n - 1].partition);
	if (rc)
		return ts_error_set(err, rc, path, line, NULL, "out of memory");
	return 0;
}

static int check_job(const struct jobs_job *j, const char *path, int line, struct ts_error *err)
{
	if (j->scenario == JOBS_NONE && !(j->duration_s > 0.0))
		return ts_error_set(err, TS_ESYNTAX, path, line, "duration_s",
				    "found no duration, expected a run time in s (or a scenario "
				    "with tokens or steps)");
	if (j->scenario != JOBS_NONE && !(j->tokens > 0.0) && !(j->steps > 0.0))
		return ts_error_set(err, TS_ESYNTAX, path, line, "scenario",
				    "found no run length, expected tokens or steps beside it");
	return 0;
}

/* ----------------------------------------------------------- CSV */

enum {
	C_ID,
	C_SUBMIT,
	C_GPUS,
	C_DUR,
	C_LIMIT,
	C_PRIO,
	C_USER,
	C_ACCOUNT,
	C_SCEN,
	C_TOK,
	C_STEPS,
	C_REC,
	C_PART,
	C_N
};
static const char *const ccols[C_N] = {
    "id",      "submit_s", "gpus",   "duration_s", "time_limit_s",     "priority", "user",
    "account", "scenario", "tokens", "steps",	   "recorded_start_s", "partition"};

static int gpus_field(const char *v, const char *path, int line, const char *col, uint32_t *out,
		      struct ts_error *err)
{
	double x;
	if (!num(v, &x) || x != floor(x) || x < 1.0 || x > (double)JOBS_MAX_GPUS)
		return bad(err, path, line, col, v, "a whole number of GPUs from 1 to 1048576");
	*out = (uint32_t)x;
	return 0;
}

static int read_csv(const struct jin *jin, struct jobs_list *l, struct ts_error *err)
{
	const char *path = jin->path;
	struct csv c;
	int rc = csv_in(&c, jin, err);
	if (rc) {
		csv_close(&c);
		return rc;
	}
	int col[C_N];
	int ncols = 0;
	size_t before = l->n;
	while ((rc = csv_next(&c, err)) > 0) {
		if (c.lineno == 1) {
			ncols = c.nf;
			for (int k = 0; k < C_N; k++)
				col[k] = csv_col(&c, ccols[k]);
			for (int k = 0; k < 4; k++)
				if (col[k] < 0) {
					rc =
					    ts_error_set(err, TS_ESYNTAX, path, 1, ccols[k],
							 "missing column in the header, expected "
							 "id,submit_s,gpus,duration_s and optional "
							 "columns");
					goto out;
				}
			for (int f = 0; f < c.nf; f++) {
				bool known = false;
				for (int k = 0; k < C_N && !known; k++)
					known = !strcmp(c.f[f], ccols[k]);
				if (!known) {
					rc = ts_error_set(
					    err, TS_ESYNTAX, path, 1, c.f[f],
					    "found an unknown column, expected id, submit_s, gpus, "
					    "duration_s, time_limit_s, priority, user, account, "
					    "scenario, tokens, steps, recorded_start_s or "
					    "partition");
					goto out;
				}
			}
			continue;
		}
		if (c.nf == 1 && blank(c.f[0]))
			continue;
		int ln = c.lineno;
		if (c.nf != ncols) {
			rc = ts_error_set(err, TS_ESYNTAX, path, ln, NULL,
					  "found %d fields, expected %d as the header has", c.nf,
					  ncols);
			goto out;
		}
		struct jobs_job j = {.rec_start_s = NAN};
		const char *id = c.f[col[C_ID]];
		if (blank(id)) {
			rc = bad(err, path, ln, "id", id, "a job id");
			goto out;
		}
		if (!num(c.f[col[C_SUBMIT]], &j.submit_s) || j.submit_s < 0.0 ||
		    j.submit_s > SUBMIT_MAX_S) {
			rc = bad(err, path, ln, "submit_s", c.f[col[C_SUBMIT]],
				 "a submit time in s from 0 to 9.2e9 (292 years, the range of "
				 "simulated time)");
			goto out;
		}
		if ((rc = gpus_field(c.f[col[C_GPUS]], path, ln, "gpus", &j.gpus, err)))
			goto out;
		const char *d = c.f[col[C_DUR]];
		if (!blank(d) && (!num(d, &j.duration_s) || !(j.duration_s > 0.0))) {
			rc = bad(err, path, ln, "duration_s", d, "a run time in s, > 0");
			goto out;
		}
		struct {
			int k;
			double *v;
			const char *what;
		} opt[] = {{C_LIMIT, &j.time_limit_s, "a time limit in s, > 0, or empty"},
			   {C_PRIO, &j.priority, "a number, or empty"},
			   {C_TOK, &j.tokens, "a token count, > 0, or empty"},
			   {C_STEPS, &j.steps, "a step count, > 0, or empty"}};
		for (size_t k = 0; k < sizeof opt / sizeof opt[0]; k++) {
			if (col[opt[k].k] < 0 || blank(c.f[col[opt[k].k]]))
				continue;
			const char *v = c.f[col[opt[k].k]];
			if (!num(v, opt[k].v) || (opt[k].k != C_PRIO && !(*opt[k].v > 0.0))) {
				rc = bad(err, path, ln, ccols[opt[k].k], v, opt[k].what);
				goto out;
			}
		}
		if (col[C_REC] >= 0 && !blank(c.f[col[C_REC]])) {
			const char *v = c.f[col[C_REC]];
			if (!num(v, &j.rec_start_s) || j.rec_start_s < j.submit_s) {
				rc = bad(err, path, ln, "recorded_start_s", v,
					 "the start the trace records, s on the submit_s clock, >= "
					 "submit_s, or empty");
				goto out;
			}
		}
		const char *user = col[C_USER] >= 0 ? c.f[col[C_USER]] : NULL;
		const char *acct = col[C_ACCOUNT] >= 0 ? c.f[col[C_ACCOUNT]] : NULL;
		const char *scen = col[C_SCEN] >= 0 ? c.f[col[C_SCEN]] : NULL;
		if (scen && blank(scen))
			scen = NULL;
		j.scenario = scen ? 0 : JOBS_NONE; /* for check_job */
		if ((rc = check_job(&j, path, ln, err)))
			goto out;
		if ((rc = add_row(l, &j, id, user, acct, scen,
				  col[C_PART] >= 0 ? c.f[col[C_PART]] : NULL, path, ln, "id",
				  "an id no earlier job has", err)))
			goto out;
	}
	if (!rc && (!ncols || l->n == before))
		rc = ts_error_set(err, TS_EINVALID, path, 0, NULL,
				  "found no job, expected a header and one line per job");
out:
	csv_close(&c);
	return rc;
}

/* ------------------------------------------------------ plain lines */

/* A text file read line by line (sacct, SWF). */
struct lines {
	FILE *fp;
	char *buf;
	int lineno;
};

/* 1 with the next line in l->buf (its end of line removed), 0 at the end,
 * or an error. */
static int next_line(struct lines *l, const char *path, struct ts_error *err)
{
	if (!fgets(l->buf, LINE_MAX_, l->fp))
		return ferror(l->fp) ? ts_error_set(err, TS_EIO, path, l->lineno, NULL,
						    "reading failed: %s", strerror(errno))
				     : 0;
	l->lineno++;
	size_t n = strlen(l->buf);
	if (n == LINE_MAX_ - 1 && l->buf[n - 1] != '\n' && !feof(l->fp))
		return ts_error_set(err, TS_ELIMIT, path, l->lineno, NULL,
				    "found a line longer than %d bytes, expected at most that",
				    LINE_MAX_ - 2);
	while (n && (l->buf[n - 1] == '\n' || l->buf[n - 1] == '\r'))
		l->buf[--n] = '\0';
	return 1;
}

static int lines_open(struct lines *l, const struct jin *in, struct ts_error *err)
{
	*l = (struct lines){0};
	if (!(l->buf = ts_malloc(LINE_MAX_)))
		return ts_error_set(err, TS_ENOMEM, in->path, 0, NULL, "out of memory");
	if (!(l->fp = jin_open(in)))
		return ts_error_set(err, TS_EIO, in->path, 0, NULL, "cannot open: %s",
				    strerror(errno));
	return 0;
}

static void lines_close(struct lines *l)
{
	if (l->fp)
		fclose(l->fp);
	ts_free(l->buf, LINE_MAX_);
}

/* Split s in place at each `sep` into f[0..max); returns the count or -1
 * for more than max. */
static int split(char *s, char sep, char **f, int max)
{
	int n = 0;
	for (;;) {
		if (n == max)
			return -1;
		f[n++] = s;
		char *p = strchr(s, sep);
		if (!p)
			return n;
		*p = '\0';
		s = p + 1;
	}
}

/* ----------------------------------------------------------- sacct */

static bool iso_time(const char *s, double *out);

/* "2024-03-01T12:00:00" or "2024-03-01 12:00:00" (UTC) into seconds since
 * the epoch. */
static bool iso_time(const char *s, double *out)
{
	struct tm tm = {0};
	char sep, tail;
	if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &sep,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &tail) != 7 ||
	    (sep != 'T' && sep != ' '))
		return false;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*out = (double)timegm(&tm);
	return true;
}

/* Slurm's duration "[D-]HH:MM:SS", "MM:SS" or "MM:SS.mmm" into seconds. */
static bool slurm_duration(const char *s, double *out)
{
	double d = 0.0, h = 0.0, m = 0.0, sec = 0.0;
	const char *dash = strchr(s, '-');
	if (dash) {
		char *end;
		d = strtod(s, &end);
		if (end != dash || d < 0.0)
			return false;
		s = dash + 1;
	}
	int n = 0, k = 0;
	double part[3];
	const char *p = s;
	while (k < 3) {
		char *end;
		part[k++] = strtod(p, &end);
		if (end == p)
			return false;
		if (*end == ':')
			p = end + 1;
		else if (!*end)
			break;
		else
			return false;
		n++;
	}
	if (k == 3) {
		h = part[0], m = part[1], sec = part[2];
	} else if (k == 2) {
		if (dash)
			h = part[0], m = part[1];
		else
			m = part[0], sec = part[1];
	} else {
		if (dash)
			h = part[0];
		else
			m = part[0]; /* a bare number is minutes in Slurm's time formats */
	}
	(void)n;
	if (h < 0.0 || m < 0.0 || sec < 0.0)
		return false;
	*out = ((d * 24.0 + h) * 60.0 + m) * 60.0 + sec;
	return true;
}

/* The GPU count of a TRES or GRES string ("cpu=8,gres/gpu=4,node=1",
 * "gres/gpu:a100=2", "gpu:4", "gpu:a100:2"): 0 when it names none, -1
 * when malformed. */
static long gres_gpus(const char *s)
{
	const char *p = strstr(s, "gpu");
	if (!p)
		return 0;
	p += 3;
	if (*p == '=' || *p == ':') {
		/* gpu=N, gpu:N, or gpu:TYPE=N / gpu:TYPE:N */
		const char *q = p + 1;
		if (!isdigit((unsigned char)*q)) {
			q += strcspn(q, "=:,");
			if (*q != '=' && *q != ':')
				return -1;
			q++;
		}
		char *end;
		long n = strtol(q, &end, 10);
		if (end == q || n < 0)
			return -1;
		return n;
	}
	return -1;
}

enum {
	S_ID,
	S_SUBMIT,
	S_START,
	S_END,
	S_ELAPSED,
	S_LIMIT,
	S_ATRES,
	S_RTRES,
	S_AGRES,
	S_RGRES,
	S_USER,
	S_ACCOUNT,
	S_PRIO,
	S_N
};
static const char *const scols[S_N] = {"JobID",	    "Submit",	 "Start",   "End",	 "Elapsed",
				       "Timelimit", "AllocTRES", "ReqTRES", "AllocGRES", "ReqGRES",
				       "User",	    "Account",	 "Priority"};

static int read_sacct(const struct jin *jin, struct jobs_list *l, struct ts_error *err)
{
	const char *path = jin->path;
	struct lines in;
	int rc = lines_open(&in, jin, err);
	char *f[MAX_FIELDS];
	int col[S_N], ncols = 0;
	size_t before = l->n;
	if (rc)
		goto out;
	while ((rc = next_line(&in, path, err)) > 0) {
		if (blank(in.buf))
			continue;
		int nf = split(in.buf, '|', f, MAX_FIELDS);
		if (nf < 0) {
			rc = ts_error_set(err, TS_ESYNTAX, path, in.lineno, NULL,
					  "found more than %d fields, expected at most that",
					  MAX_FIELDS);
			goto out;
		}
		if (!ncols) {
			ncols = nf;
			for (int k = 0; k < S_N; k++) {
				col[k] = -1;
				for (int i = 0; i < nf; i++)
					if (!strcmp(f[i], scols[k]))
						col[k] = i;
			}
			const char *miss =
			    col[S_ID] < 0	? "JobID"
			    : col[S_SUBMIT] < 0 ? "Submit"
			    : (col[S_ELAPSED] < 0 && (col[S_START] < 0 || col[S_END] < 0))
				? "Elapsed"
			    : (col[S_ATRES] < 0 && col[S_RTRES] < 0 && col[S_AGRES] < 0 &&
			       col[S_RGRES] < 0)
				? "AllocTRES"
				: NULL;
			if (miss) {
				rc = ts_error_set(
				    err, TS_ESYNTAX, path, in.lineno, miss,
				    "missing column in the header, expected sacct --parsable2 "
				    "--format=JobID,Submit,Start,End,Elapsed,Timelimit,AllocTRES,"
				    "User,Account");
				goto out;
			}
			continue;
		}
		int ln = in.lineno;
		if (nf < ncols) {
			rc = ts_error_set(err, TS_ESYNTAX, path, ln, NULL,
					  "found %d fields, expected %d as the header has", nf,
					  ncols);
			goto out;
		}
		const char *id = f[col[S_ID]];
		if (strchr(id, '.')) /* a job step: its job is the line that counts */
			continue;
		struct jobs_job j = {.rec_start_s = NAN, .scenario = JOBS_NONE};
		if (!iso_time(f[col[S_SUBMIT]], &j.submit_s)) {
			rc = bad(err, path, ln, "Submit", f[col[S_SUBMIT]],
				 "a time as 2024-03-01T12:00:00");
			goto out;
		}
		double start = NAN, end = NAN;
		if (col[S_START] >= 0 && iso_time(f[col[S_START]], &start))
			j.rec_start_s = start;
		if (col[S_ELAPSED] >= 0) {
			if (!slurm_duration(f[col[S_ELAPSED]], &j.duration_s)) {
				rc = bad(err, path, ln, "Elapsed", f[col[S_ELAPSED]],
					 "a duration as [D-]HH:MM:SS");
				goto out;
			}
		} else if (isfinite(start) && iso_time(f[col[S_END]], &end)) {
			/* an End before its Start is a broken row, not a job that
			 * never ran: named rather than dropped */
			if (end < start) {
				char want[96];
				snprintf(want, sizeof want, "a time at or after Start (%.40s)",
					 f[col[S_START]]);
				rc = bad(err, path, ln, "End", f[col[S_END]], want);
				goto out;
			}
			j.duration_s = end - start;
		}
		if (!(j.duration_s > 0.0))
			continue; /* never ran (pending, cancelled before its start) */
		if (col[S_LIMIT] >= 0) {
			const char *v = f[col[S_LIMIT]];
			if (!strcmp(v, "UNLIMITED") || !strcmp(v, "Partition_Limit") || blank(v))
				j.time_limit_s = 0.0;
			else if (!slurm_duration(v, &j.time_limit_s) || !(j.time_limit_s > 0.0)) {
				rc = bad(err, path, ln, "Timelimit", v,
					 "a duration as [D-]HH:MM:SS or UNLIMITED");
				goto out;
			}
		}
		long g = 0;
		const int gc[] = {S_ATRES, S_AGRES, S_RTRES, S_RGRES};
		for (int k = 0; k < 4 && g == 0; k++) {
			if (col[gc[k]] < 0)
				continue;
			g = gres_gpus(f[col[gc[k]]]);
			if (g < 0) {
				rc = bad(err, path, ln, scols[gc[k]], f[col[gc[k]]],
					 "TRES as cpu=8,gres/gpu=4 or GRES as gpu:4");
				goto out;
			}
		}
		if (g == 0)
			continue; /* a CPU job: not on the GPUs the model counts */
		if (g > (long)JOBS_MAX_GPUS) {
			rc = bad(err, path, ln, "AllocTRES",
				 f[col[S_ATRES] >= 0 ? col[S_ATRES] : 0], "at most 1048576 GPUs");
			goto out;
		}
		j.gpus = (uint32_t)g;
		if (col[S_PRIO] >= 0 && !blank(f[col[S_PRIO]]) &&
		    !num(f[col[S_PRIO]], &j.priority)) {
			rc = bad(err, path, ln, "Priority", f[col[S_PRIO]], "a number");
			goto out;
		}
		if ((rc = add_row(l, &j, id, col[S_USER] >= 0 ? f[col[S_USER]] : NULL,
				  col[S_ACCOUNT] >= 0 ? f[col[S_ACCOUNT]] : NULL, NULL, NULL, path,
				  ln, "JobID", "an id no earlier job has", err)))
			goto out;
	}
	if (!rc && l->n == before)
		rc = ts_error_set(err, TS_EINVALID, path, 0, NULL,
				  "found no GPU job that ran, expected at least one");
out:
	lines_close(&in);
	return rc;
}

/* ------------------------------------------------------------- SWF */

/* The 18 fields of the Standard Workload Format (Feitelson, Tsafrir and
 * Krakov 2014; https://www.cs.huji.ac.il/labs/parallel/workload/swf.html). */
static const char *const swf_names[18] = {"job number",
					  "submit time",
					  "wait time",
					  "run time",
					  "allocated processors",
					  "average CPU time",
					  "used memory",
					  "requested processors",
					  "requested time",
					  "requested memory",
					  "status",
					  "user id",
					  "group id",
					  "executable",
					  "queue",
					  "partition",
					  "preceding job",
					  "think time"};

static int read_swf(const struct jin *jin, struct jobs_list *l, struct ts_error *err)
{
	const char *path = jin->path;
	struct lines in;
	int rc = lines_open(&in, jin, err);
	size_t before = l->n;
	if (rc)
		goto out;
	while ((rc = next_line(&in, path, err)) > 0) {
		char *s = in.buf;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == ';')
			continue;
		double v[18];
		int n = 0;
		char *tok, *save = NULL;
		for (tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			if (n == 18) {
				rc = ts_error_set(
				    err, TS_ESYNTAX, path, in.lineno, NULL,
				    "found more than 18 fields, expected the 18 of SWF");
				goto out;
			}
			if (!num(tok, &v[n])) {
				rc = bad(err, path, in.lineno, swf_names[n], tok, "a number");
				goto out;
			}
			n++;
		}
		if (n != 18) {
			rc = ts_error_set(err, TS_ESYNTAX, path, in.lineno, NULL,
					  "found %d fields, expected the 18 of SWF", n);
			goto out;
		}
		double procs = v[4] > 0.0 ? v[4] : v[7];
		if (!(v[3] > 0.0) || !(procs > 0.0))
			continue; /* no run time or no processors recorded */
		if (procs != floor(procs) || procs > (double)JOBS_MAX_GPUS) {
			rc = bad(err, path, in.lineno, swf_names[4], "", "a whole processor count");
			goto out;
		}
		if (v[1] < 0.0 || v[1] > SUBMIT_MAX_S) {
			rc = bad(err, path, in.lineno, swf_names[1], "",
				 "a submit time in s from 0 to 9.2e9 (292 years, the range of "
				 "simulated time)");
			goto out;
		}
		struct jobs_job j = {.submit_s = v[1],
				     .duration_s = v[3],
				     .time_limit_s = v[8] > 0.0 ? v[8] : 0.0,
				     .rec_start_s = v[2] >= 0.0 ? v[1] + v[2] : (double)NAN,
				     .gpus = (uint32_t)procs,
				     .scenario = JOBS_NONE};
		char id[32], user[32], group[32];
		snprintf(id, sizeof id, "%.0f", v[0]);
		snprintf(user, sizeof user, "%.0f", v[11]);
		snprintf(group, sizeof group, "%.0f", v[12]);
		if ((rc = add_row(l, &j, id, v[11] >= 0.0 ? user : NULL,
				  v[12] >= 0.0 ? group : NULL, NULL, NULL, path, in.lineno,
				  swf_names[0], "a number no earlier job has", err)))
			goto out;
	}
	if (!rc && l->n == before)
		rc = ts_error_set(err, TS_EINVALID, path, 0, NULL,
				  "found no job with a run time, expected at least one");
out:
	lines_close(&in);
	return rc;
}

/* ------------------------------------------------------------ entry */

/* ---------------------------------------------------------- Helios */

/* SenseTime's Helios cluster_log.csv (github.com/S-Lab-System-Group/
 * HeliosData, CC BY 4.0): job_id,user,vc,gpu_num,cpu_num,node_num,state,
 * submit_time,start_time,end_time,duration,queue, times as "YYYY-MM-DD
 * HH:MM:SS" without a zone (taken as UTC), duration in s. CPU jobs
 * (gpu_num 0) and jobs that ran for 0 s are skipped; the virtual cluster
 * is the account and the partition, the start the recorded one. */
static int read_helios(const struct jin *jin, struct jobs_list *l, struct ts_error *err)
{
	const char *path = jin->path;
	enum { H_ID, H_USER, H_VC, H_GPUS, H_SUBMIT, H_START, H_DUR, H_N };
	static const char *const hcols[H_N] = {"job_id",      "user",	    "vc",      "gpu_num",
					       "submit_time", "start_time", "duration"};
	struct csv c;
	int rc = csv_in(&c, jin, err);
	if (rc) {
		csv_close(&c);
		return rc;
	}
	int col[H_N];
	size_t before = l->n;
	while ((rc = csv_next(&c, err)) > 0) {
		if (c.lineno == 1) {
			for (int k = 0; k < H_N; k++)
				if ((col[k] = csv_col(&c, hcols[k])) < 0) {
					rc = ts_error_set(err, TS_ESYNTAX, path, 1, hcols[k],
							  "missing column in the header, expected "
							  "Helios' cluster_log.csv columns");
					goto out;
				}
			continue;
		}
		if (c.nf == 1 && blank(c.f[0]))
			continue;
		int ln = c.lineno;
		for (int k = 0; k < H_N; k++)
			if (col[k] >= c.nf) {
				rc = ts_error_set(err, TS_ESYNTAX, path, ln, NULL,
						  "found %d fields, expected the header's", c.nf);
				goto out;
			}
		double g, dur;
		const char *v = c.f[col[H_GPUS]];
		if (!num(v, &g) || g != floor(g) || g < 0.0 || g > (double)JOBS_MAX_GPUS) {
			rc = bad(err, path, ln, "gpu_num", v, "a whole number of GPUs from 0");
			goto out;
		}
		v = c.f[col[H_DUR]];
		if (!num(v, &dur) || dur < 0.0) {
			rc = bad(err, path, ln, "duration", v, "a run time in s, >= 0");
			goto out;
		}
		if (g == 0.0 || dur == 0.0)
			continue;
		struct jobs_job j = {.gpus = (uint32_t)g, .duration_s = dur, .scenario = JOBS_NONE};
		static const int tk[2] = {H_SUBMIT, H_START};
		double *tv[2] = {&j.submit_s, &j.rec_start_s};
		for (int k = 0; k < 2; k++) {
			v = c.f[col[tk[k]]];
			if (!iso_time(v, tv[k])) {
				rc = bad(err, path, ln, hcols[tk[k]], v,
					 "a time as \"2020-04-01 08:00:00\"");
				goto out;
			}
		}
		const char *vc = c.f[col[H_VC]];
		if ((rc = add_row(l, &j, c.f[col[H_ID]], c.f[col[H_USER]], vc, NULL, vc, path, ln,
				  "job_id", "an id no earlier job has", err)))
			goto out;
	}
	if (!rc && l->n == before)
		rc = ts_error_set(err, TS_EINVALID, path, 0, NULL,
				  "found no GPU job that ran, expected at least one");
out:
	csv_close(&c);
	return rc;
}

static enum jobs_format sniff(const struct jin *in)
{
	size_t n = strlen(in->path);
	if (n > 4 && !strcmp(in->path + n - 4, ".swf"))
		return JOBS_SWF;
	FILE *fp = jin_open(in);
	if (!fp)
		return JOBS_CSV; /* the CSV reader says why it cannot open it */
	char line[1024] = "";
	if (!fgets(line, sizeof line, fp))
		line[0] = '\0';
	fclose(fp);
	const char *s = line;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == ';')
		return JOBS_SWF;
	if (!strncmp(s, "job_id,", 7) && strstr(s, ",gpu_num,") && strstr(s, ",submit_time,"))
		return JOBS_HELIOS;
	return strchr(line, '|') ? JOBS_SACCT : JOBS_CSV;
}

/* Read standard input whole into in->buf (at most STDIN_MAX bytes). */
static int read_stdin(struct jin *in, struct ts_error *err)
{
	for (;;) {
		if (in->n == in->cap) {
			size_t nc = in->cap ? 2 * in->cap : 65536;
			if (in->cap > STDIN_MAX)
				return ts_error_set(err, TS_ELIMIT, in->path, 0, NULL,
						    "found more than %zu bytes on standard input, "
						    "expected at most that (save it to a file)",
						    STDIN_MAX);
			char *b = ts_realloc(in->buf, in->cap, nc);
			if (!b)
				return ts_error_set(err, TS_ENOMEM, in->path, 0, NULL,
						    "out of memory reading standard input");
			in->buf = b;
			in->cap = nc;
		}
		size_t r = fread(in->buf + in->n, 1, in->cap - in->n, stdin);
		in->n += r;
		if (r == 0 || in->n < in->cap) {
			if (ferror(stdin))
				return ts_error_set(err, TS_EIO, in->path, 0, NULL,
						    "cannot read standard input: %s",
						    strerror(errno));
			if (feof(stdin))
				return 0;
		}
	}
}

int jobs_read(const char *path, enum jobs_format fmt, struct jobs_list *l, struct ts_error *err)
{
	struct jin in = {.path = path};
	int rc = 0;
	if (!strcmp(path, "-") && (rc = read_stdin(&in, err)))
		goto out;
	if (fmt == JOBS_AUTO)
		fmt = sniff(&in);
	switch (fmt) {
	case JOBS_SACCT:
		rc = read_sacct(&in, l, err);
		break;
	case JOBS_SWF:
		rc = read_swf(&in, l, err);
		break;
	case JOBS_HELIOS:
		rc = read_helios(&in, l, err);
		break;
	default:
		rc = read_csv(&in, l, err);
	}
out:
	ts_free(in.buf, in.cap);
	return rc;
}
