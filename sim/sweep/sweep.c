/* Running sweeps.
 *
 * Every point is loaded from the base scenario with its axis values applied
 * as --set arguments, so any key can be an axis, a value that the loader or
 * the plan refuses is a row that says why, and no two points share a
 * scenario or a cluster: each OpenMP iteration owns everything it touches
 * (its scenario, the simulation inside ts_run, its row buffer); the catalog
 * and the calibration are read-only. A finished row waits in a reorder
 * buffer until every row before it is written; the writing happens in a
 * short critical section, so rows reach the file in point order whatever
 * thread finished first (no thread waits for another's point), and each is
 * flushed before the next: an interrupted sweep leaves a prefix of whole
 * rows that sweep_resume_scan finds. Every row ends with a digest of
 * everything else that determines it (the resolved base, the calibration,
 * the version; the part of a sharded sweep), so a resume after any of them
 * changed is refused instead of putting old rows beside new ones.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/hash.h"
#include "base/alloc.h"
#include "base/cfg.h"
#include "base/csv.h"
#include "base/file.h"
#include "plan/plan.h"
#include "run/run.h"
#include "sweep/sweep.h"

uint64_t sweep_point_seed(uint64_t seed, uint64_t i)
{
	return hash_splitmix64(seed ^ (i * HASH_GOLDEN_GAMMA));
}

int sweep_point_load(const struct sweep_spec *sp, const struct hw_catalog *cat, size_t i,
		     struct ts_scenario **out, struct ts_error *err)
{
	char sets[SWEEP_MAX_AXES][512];
	const char *argv[SWEEP_MAX_SETS + SWEEP_MAX_AXES];
	size_t nargv = 0;
	for (size_t k = 0; k < sp->nsets; k++)
		argv[nargv++] = sp->sets[k];
	for (size_t a = 0; a < sp->naxes; a++) {
		const struct sweep_axis *x = &sp->axes[a];
		snprintf(sets[a], sizeof sets[a], "%s=%s", x->key,
			 x->set[sweepcfg_value_index(sp, i, a)]);
		argv[nargv++] = sets[a];
	}
	int rc = sp->base_path
		     ? ts_scenario_load(cat, sp->base_path, argv, nargv, out, err)
		     : ts_scenario_load_string(cat, sp->base_text, sp->file, argv, nargv, out, err);
	if (!rc)
		(*out)->seed = sweep_point_seed((*out)->seed, (uint64_t)i);
	return rc;
}

int sweep_check(const struct sweep_spec *sp, const struct hw_catalog *cat, struct ts_error *err)
{
	struct ts_scenario *sc = NULL;
	struct ts_error e;
	ts_error_clear(&e);
	int rc = sp->npoints ? sweep_point_load(sp, cat, 0, &sc, &e) : 0;
	ts_scenario_destroy(sc);
	if (!rc || rc == TS_ENOMEM)
		return rc ? ts_error_set(err, rc, NULL, 0, NULL, "out of memory") : 0;
	char msg[1400];
	/* an unknown key given by an axis: "--set key=value" is its file */
	if (rc == TS_EUNKNOWN_KEY && !strncmp(e.file, "--set ", 6)) {
		for (size_t a = 0; a < sp->naxes; a++) {
			size_t k = strlen(sp->axes[a].key);
			if (!strncmp(e.file + 6, sp->axes[a].key, k) && e.file[6 + k] == '=')
				return ts_error_set(err, rc, sp->file, sp->axes[a].line,
						    sp->axes[a].key, "%s", e.msg);
		}
		/* a --set of the command line, laid over the base */
		for (size_t k = 0; k < sp->nsets; k++)
			if (!strcmp(e.file + 6, sp->sets[k]))
				return ts_error_set(err, rc, NULL, 0, NULL, "%s",
						    ts_error_format(&e, msg, sizeof msg));
		return 0;
	}
	/* the base file itself: every point reads it the same way */
	bool file_level = rc == TS_EIO || rc == TS_ESYNTAX || rc == TS_EUNKNOWN_KEY ||
			  rc == TS_ELIMIT || rc == TS_EUNSUPPORTED;
	if (sp->base_path && file_level && !strcmp(e.file, sp->base_path))
		return ts_error_set(err, rc, sp->file, sp->base_line, "base", "%s",
				    ts_error_format(&e, msg, sizeof msg));
	return 0;
}

/* Append field s to buf at *off with RFC 4180 quoting; TS_ELIMIT when full.
 * A control character is written escaped as text output shows it ("\n",
 * "\x1b": ts_escape_ctl), never raw: a row stays one line that trainsim's
 * CSV reader (merge, plot, --resume) reads back, and a CSV printed to a
 * terminal cannot drive it. */
static int csv_field(char *buf, size_t n, size_t *off, const char *s, bool comma)
{
	bool quote = strpbrk(s, ",\"") != NULL;
	size_t need = strlen(s) * 4 + 4;
	if (*off + need >= n)
		return TS_ELIMIT;
	char *p = buf + *off;
	if (comma)
		*p++ = ',';
	if (quote)
		*p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*p++ = '"';
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f) {
			char e[8];
			ts_escape_ctl(e, sizeof e, s, 1);
			size_t l = strlen(e);
			memcpy(p, e, l);
			p += l;
			continue;
		}
		*p++ = *s;
	}
	if (quote)
		*p++ = '"';
	*p = '\0';
	*off = (size_t)(p - buf);
	return 0;
}

/* Write print(arg, f) into buf at *off through fmemopen. */
static int capture(char *buf, size_t n, size_t *off, int (*print)(const void *, FILE *),
		   const void *arg)
{
	if (*off + 2 >= n)
		return TS_ELIMIT;
	FILE *f = fmemopen(buf + *off, n - *off, "w");
	if (!f)
		return TS_ENOMEM;
	int rc = print(arg, f);
	long pos = ftell(f);
	if (fclose(f) && !rc)
		rc = TS_EIO;
	if (!rc && (pos < 0 || (size_t)pos + 1 >= n - *off))
		rc = TS_ELIMIT;
	if (!rc) {
		*off += (size_t)pos;
		buf[*off] = '\0';
	}
	return rc;
}

/* Put field s (no quoting needed) last on the line in buf, which ends in
 * "\n" at *off. */
static int end_row(char *buf, size_t n, size_t *off, const char *s)
{
	size_t l = strlen(s);
	if (!*off || buf[*off - 1] != '\n' || *off + l + 2 >= n)
		return TS_ELIMIT;
	buf[*off - 1] = ',';
	memcpy(buf + *off, s, l);
	*off += l;
	buf[(*off)++] = '\n';
	buf[*off] = '\0';
	return 0;
}

/* The axis keys of a sweep: the scenario columns its rows leave out (the
 * axes have their own columns, before "status"). */
struct axis_keys {
	const char *key[SWEEP_MAX_AXES];
	size_t n;
};

static void axis_keys(const struct sweep_spec *sp, struct axis_keys *k)
{
	k->n = sp->naxes < SWEEP_MAX_AXES ? sp->naxes : SWEEP_MAX_AXES;
	for (size_t a = 0; a < k->n; a++)
		k->key[a] = sp->axes[a].key;
}

/* The result columns' header, written by the row writer. */
struct head_arg {
	const struct sweep_cols *cols;
	const struct axis_keys *k;
};

static int print_header(const void *arg, FILE *f)
{
	const struct head_arg *a = arg;
	return a->cols->header(f, a->k->key, a->k->n);
}

/* One point's result, its scenario and the columns left out. */
struct row_arg {
	const struct sweep_cols *cols;
	const struct ts_result *r;
	const struct ts_scenario *sc;
	const struct axis_keys *k;
};

static int print_row(const void *arg, FILE *f)
{
	const struct row_arg *a = arg;
	return a->cols->row(f, a->r, a->sc, a->k->key, a->k->n);
}

int sweep_csv_header(const struct sweep_spec *sp, const struct sweep_cols *cols, char *buf,
		     size_t n)
{
	size_t off = 0;
	int rc = csv_field(buf, n, &off, "point", false);
	for (size_t a = 0; a < sp->naxes && !rc; a++)
		rc = csv_field(buf, n, &off, sp->axes[a].key, true);
	if (!rc)
		rc = csv_field(buf, n, &off, "status", true);
	if (!rc)
		rc = csv_field(buf, n, &off, "", true); /* the comma before the result columns */
	struct axis_keys k;
	axis_keys(sp, &k);
	struct head_arg ha = {cols, &k};
	if (!rc)
		rc = capture(buf, n, &off, print_header, &ha);
	if (!rc)
		rc = end_row(buf, n, &off, "sweep_digest");
	return rc;
}

/* What every point of one sweep shares: the environment and, once a point
 * has resolved it, the input of the base's dataset (points that name the
 * same dataset and model family plan with it and read nothing). */
struct sweep_base {
	const struct ts_env *env;
	const struct sweep_cols *cols; /* the writer of the result columns */
	bool have_input;
	struct data_input input;
	char dataset[sizeof((struct ts_data *)0)->dataset];
	enum ts_model_family family;
	const char *digest; /* the last field of every row */
};

/* Plan and simulate scenario sc of a point, on the storage of arena a (the
 * thread's, kept from point to point; NULL: its own). */
static int point_run(const struct sweep_base *sb, const struct ts_scenario *sc, struct run_arena *a,
		     struct ts_result *r, struct ts_error *err)
{
	struct ts_plan *p = NULL;
	bool same = sb->have_input && !strcmp(sb->dataset, sc->data.dataset) &&
		    sb->family == sc->model.family;
	int rc = same ? plan_build_with(sb->env, sc, &sb->input, &p, err)
		      : plan_build(sb->env, sc, &p, err);
	if (!rc)
		rc = a ? run_plan_in(p, a, r, NULL, err) : run_plan(p, r, NULL, err);
	plan_destroy(p);
	return rc;
}

/* The base's input, resolved from point `i` (nothing when it does not
 * load or its input does not resolve: the points then plan alone). */
static void base_input(const struct sweep_spec *sp, size_t i, struct sweep_base *sb)
{
	struct ts_scenario *sc = NULL;
	if (sweep_point_load(sp, sb->env->cat, i, &sc, NULL))
		return;
	if (!plan_input(sb->env, sc, &sb->input, NULL)) {
		sb->have_input = true;
		snprintf(sb->dataset, sizeof sb->dataset, "%s", sc->data.dataset);
		sb->family = sc->model.family;
	}
	ts_scenario_destroy(sc);
}

static int point_row(const struct sweep_spec *sp, const struct sweep_base *sb, struct run_arena *ar,
		     size_t i, char *buf, size_t n, struct ts_result *res)
{
	struct ts_scenario *sc = NULL;
	struct ts_error err;
	struct ts_result r;
	char idx[32], msg[1400], status[1500];
	ts_error_clear(&err);
	int prc = sweep_point_load(sp, sb->env->cat, i, &sc, &err);
	if (!prc)
		prc = point_run(sb, sc, ar, &r, &err);
	if (prc == TS_ENOMEM) {
		ts_scenario_destroy(sc);
		return TS_ENOMEM;
	}
	if (prc)
		snprintf(status, sizeof status, "invalid: %s",
			 ts_error_format(&err, msg, sizeof msg));
	else
		snprintf(status, sizeof status, "ok");
	size_t off = 0;
	snprintf(idx, sizeof idx, "%zu", i);
	int rc = csv_field(buf, n, &off, idx, false);
	for (size_t a = 0; a < sp->naxes && !rc; a++)
		rc = csv_field(buf, n, &off, sp->axes[a].shown[sweepcfg_value_index(sp, i, a)],
			       true);
	if (!rc)
		rc = csv_field(buf, n, &off, status, true);
	if (rc) {
		ts_scenario_destroy(sc);
		return rc;
	}
	struct axis_keys k;
	axis_keys(sp, &k);
	if (prc) {
		ts_scenario_destroy(sc);
		size_t cols = sb->cols->ncols(k.key, k.n);
		if (off + cols + 2 >= n)
			return TS_ELIMIT;
		memset(buf + off, ',', cols);
		off += cols;
		buf[off++] = '\n';
		buf[off] = '\0';
		if (res)
			memset(res, 0, sizeof *res);
		return end_row(buf, n, &off, sb->digest ? sb->digest : "");
	}
	buf[off++] = ',';
	buf[off] = '\0';
	if (res)
		*res = r;
	struct row_arg ra = {sb->cols, &r, sc, &k};
	rc = capture(buf, n, &off, print_row, &ra);
	ts_scenario_destroy(sc);
	return rc ? rc : end_row(buf, n, &off, sb->digest ? sb->digest : "");
}

int sweep_point_row(const struct sweep_spec *sp, const struct sweep_cols *cols,
		    const struct hw_catalog *cat, const struct work_calib *calib, size_t i,
		    const char *digest, char *buf, size_t n, struct ts_result *res)
{
	struct ts_env env;
	struct ts_error err;
	if (env_wrap(cat, calib, &env, &err)) {
		env_release(&env);
		return err.code == TS_ENOMEM ? TS_ENOMEM : TS_EIO;
	}
	struct sweep_base sb = {.env = &env, .cols = cols, .digest = digest};
	int rc = point_row(sp, &sb, NULL, i, buf, n, res);
	env_release(&env);
	return rc;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int sweep_run(const struct sweep_spec *sp, const struct sweep_cols *cols,
	      const struct hw_catalog *cat, const struct work_calib *calib, size_t first,
	      int threads, FILE *out, sweep_progress_fn progress, void *ud, struct ts_error *err)
{
	struct ts_env env;
	int rc = env_wrap(cat, calib, &env, err);
	if (!rc)
		rc = sweep_run_env(sp, cols, &env, first, threads, out, progress, ud, err);
	env_release(&env);
	return rc;
}

int sweep_run_env(const struct sweep_spec *sp, const struct sweep_cols *cols,
		  const struct ts_env *env, size_t first, int threads, FILE *out,
		  sweep_progress_fn progress, void *ud, struct ts_error *err)
{
	/* the points run: from, from + step, ... below n (step > 1 for one part
	 * of a sharded sweep); k counts them, in the order they are written */
	long n = (long)sp->npoints, from = (long)first,
	     step = sp->shard_n > 1 ? (long)sp->shard_n : 1;
	struct sweep_digest dg;
	char digest[SWEEP_DIGEST_MAX];
	int drc = sweep_digest(sp, env->cat, &env->calib, env->calib_path, &dg, err);
	if (drc)
		return drc;
	sweep_digest_bands(&dg, env->bands);
	if (sweep_digest_text(&dg, digest, sizeof digest))
		return ts_error_set(err, TS_ELIMIT, NULL, 0, NULL,
				    "the sweep's digest is too long");
	struct sweep_base sb = {.env = env, .cols = cols, .digest = digest};
	if (from < n)
		base_input(sp, (size_t)from, &sb);
	size_t cnt = n > from ? (size_t)((n - from + step - 1) / step) : 0;
	/* for progress: the points of this part, and those done before `first` */
	size_t total = sweepcfg_shard_points(sp), before = total - cnt;
	int stop = 0, werr = 0;
	double t0 = now_s();
	/* rows finished ahead of an earlier point wait here (each point's row,
	 * or its error) until every row before them is written: no thread
	 * waits for another's point, only for a short critical section */
	char **held = ts_calloc(cnt + 1, sizeof *held);
	int *held_rc = ts_calloc(cnt + 1, sizeof *held_rc);
	bool *done = ts_calloc(cnt + 1, sizeof *done);
	long next = 0, m = (long)cnt;
	if (!held || !held_rc || !done) {
		ts_free(held, (cnt + 1) * sizeof *held);
		ts_free(held_rc, (cnt + 1) * sizeof *held_rc);
		ts_free(done, (cnt + 1) * sizeof *done);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
#ifdef _OPENMP
	int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel num_threads(nt)
#else
	(void)threads;
#endif
	{
		char *buf = ts_malloc(SWEEP_ROW_MAX);
		struct run_arena arena = {0}; /* this thread's, from point to point */
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
		for (long k = 0; k < m; k++) {
			long i = from + k * step;
			int halted;
#ifdef _OPENMP
#pragma omp atomic read
#endif
			halted = stop;
			int rc =
			    halted ? 0
			    : buf  ? point_row(sp, &sb, &arena, (size_t)i, buf, SWEEP_ROW_MAX, NULL)
				   : TS_ENOMEM;
			char *row = NULL;
			if (!halted && !rc && !(row = ts_strdup(buf)))
				rc = TS_ENOMEM;
#ifdef _OPENMP
#pragma omp critical(sweep_rows)
#endif
			{
				held[k] = row;
				held_rc[k] = rc;
				done[k] = true;
				/* write every row that is now next in order */
				while (next < m && done[next] && !stop) {
					size_t j = (size_t)next;
					int w = held_rc[j];
					if (!w && (fputs(held[j], out) == EOF || fflush(out))) {
						w = TS_EIO;
						werr = errno;
					}
					if (w) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
						stop = w;
					} else if (progress) {
						progress(ud, before + (size_t)(next + 1), total,
							 now_s() - t0);
					}
					if (held[j])
						ts_free(held[j], strlen(held[j]) + 1);
					held[j] = NULL;
					next++;
				}
			}
		}
		ts_free(buf, SWEEP_ROW_MAX);
		run_arena_release(&arena);
	}
	for (size_t k = 0; k < cnt; k++) /* rows after a stop */
		if (held[k])
			ts_free(held[k], strlen(held[k]) + 1);
	ts_free(held, (cnt + 1) * sizeof *held);
	ts_free(held_rc, (cnt + 1) * sizeof *held_rc);
	ts_free(done, (cnt + 1) * sizeof *done);
	if (stop == TS_EIO)
		return ts_error_set(err, TS_EIO, NULL, 0, NULL,
				    "writing the sweep output failed (%s)",
				    werr ? strerror(werr) : "write error");
	if (stop == TS_ENOMEM)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	if (stop)
		return ts_error_set(err, stop, sp->file, 0, NULL, "a row is longer than %d bytes",
				    SWEEP_ROW_MAX);
	return 0;
}

/* Hash of the --dump-config text of sc: the first line (which names the
 * file) left out and each "  # where" comment cut, so that moving the base
 * or adding a comment to it keeps the digest; comment lines (the resolved
 * cluster) kept whole but a closing "(/absolute/path)", so that the same
 * sweep in another clone has the same digest. sim.max_memory is left out: its default is half of
 * the machine's memory, and it decides only whether a point may run, never
 * the figures of a row, so a sweep resumed on another machine keeps its
 * rows. */
static int hash_dump(const struct ts_scenario *sc, uint64_t *h)
{
	char *text;
	size_t len;
	int rc = ts_scenario_dump_text(sc, &text, &len);
	if (!rc) {
		char *p = strchr(text, '\n');
		p = p ? p + 1 : text + len;
		while (*p) {
			char *e = strchr(p, '\n');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			if (!strncmp(p, "sim.max_memory ", 15)) {
				p += e ? (size_t)(e - p) + 1 : n;
				continue;
			}
			if (*p != '#') {
				char *c = strstr(p, "  # ");
				if (c && c < p + n)
					n = (size_t)(c - p);
			} else {
				/* a catalog file's absolute path, "(/dir/x.cfg)" at
				 * the end of a comment line, depends on where the
				 * tree lives, not on what the rows are */
				char *c = strstr(p, " (/");
				if (c && c < p + n && p[n - 1] == ')')
					n = (size_t)(c - p);
			}
			*h = hash_fnv1a(*h, p, n);
			*h = hash_fnv1a(*h, "\n", 1);
			p += e ? (size_t)(e - p) + 1 : n;
		}
	}
	free(text);
	return rc;
}

int sweep_digest(const struct sweep_spec *sp, const struct hw_catalog *cat,
		 const struct work_calib *calib, const char *calib_path, struct sweep_digest *d,
		 struct ts_error *err)
{
	memset(d, 0, sizeof *d);
	snprintf(d->version, sizeof d->version, "%s", TS_VERSION);
	d->base = d->calib = HASH_FNV1A_BASIS;
	struct ts_scenario *sc = NULL;
	struct ts_error e;
	const char *const *sets = (const char *const *)sp->sets;
	int rc = sp->base_path ? ts_scenario_load(cat, sp->base_path, sets, sp->nsets, &sc, &e)
			       : ts_scenario_load_string(cat, sp->base_text, sp->file, sets,
							 sp->nsets, &sc, &e);
	char *text = NULL;
	size_t len = 0;
	if (!rc) {
		rc = hash_dump(sc, &d->base);
		ts_scenario_destroy(sc);
		if (rc)
			return ts_error_set(err, rc, NULL, 0, NULL, "out of memory");
	} else if (rc == TS_ENOMEM) {
		return ts_error_set(err, rc, NULL, 0, NULL, "out of memory");
	} else {
		if (!sp->base_path) { /* a base that needs its axes to load */
			d->base = hash_fnv1a(d->base, sp->base_text, strlen(sp->base_text));
		} else {
			if ((rc = cfg_read_text(sp->base_path, &text, &len, err)))
				return rc;
			d->base = hash_fnv1a(d->base, text, len);
			ts_free(text, len + 1);
		}
		for (size_t k = 0; k < sp->nsets; k++)
			d->base = hash_fnv1a(d->base, sp->sets[k], strlen(sp->sets[k]) + 1);
	}
	d->shard_k = sp->shard_k;
	d->shard_n = sp->shard_n > 1 ? sp->shard_n : 0;
	d->npoints = sp->npoints;
	d->axes = hash_fnv1a(HASH_FNV1A_BASIS, sp->zip ? "zip" : "product", sp->zip ? 4 : 8);
	for (size_t a = 0; a < sp->naxes; a++) {
		d->axes = hash_fnv1a(d->axes, sp->axes[a].key, strlen(sp->axes[a].key) + 1);
		for (size_t v = 0; v < sp->axes[a].n; v++)
			d->axes =
			    hash_fnv1a(d->axes, sp->axes[a].set[v], strlen(sp->axes[a].set[v]) + 1);
	}
	struct work_calib c = *calib;
	double *v;
	for (size_t i = 0; (v = work_calib_field(&c, i)); i++) {
		char kv[128];
		int n = snprintf(kv, sizeof kv, "%s=%.17g\n", work_calib_key(i), *v);
		d->calib = hash_fnv1a(d->calib, kv, n > 0 ? (size_t)n : 0);
	}
	if (calib_path) {
		if ((rc = cfg_read_text(calib_path, &text, &len, err)))
			return rc;
		d->calib = hash_fnv1a(d->calib, text, len);
		ts_free(text, len + 1);
	}
	return 0;
}

void sweep_digest_bands(struct sweep_digest *d, const struct band_table *t)
{
	for (size_t i = 0; t && i < t->n; i++) {
		char kv[160];
		const struct band_regime *r = &t->r[i];
		int n = snprintf(kv, sizeof kv, "band %s %u %.17g %.17g\n", r->key, r->rows,
				 r->err80, r->bias);
		d->calib = hash_fnv1a(d->calib, kv, n > 0 ? (size_t)n : 0);
	}
}

#define DIGEST_FMT "base %016" PRIx64 "; calibration %016" PRIx64 "; version %s"
#define DIGEST_SHARD_FMT "; shard %zu/%zu of %zu points; axes %016" PRIx64

int sweep_digest_text(const struct sweep_digest *d, char *buf, size_t n)
{
	int w = snprintf(buf, n, DIGEST_FMT, d->base, d->calib, d->version);
	if (w >= 0 && (size_t)w < n && d->shard_n > 1) {
		int v = snprintf(buf + w, n - (size_t)w, DIGEST_SHARD_FMT, d->shard_k + 1,
				 d->shard_n, d->npoints, d->axes);
		w = v < 0 ? v : w + v;
	}
	return w < 0 || (size_t)w >= n || strpbrk(buf, ",\"\r\n") ? TS_ELIMIT : 0;
}

bool sweep_digest_parse(const char *s, size_t len, struct sweep_digest *d)
{
	char text[SWEEP_DIGEST_MAX];
	int end = 0, tail = 0;
	memset(d, 0, sizeof *d);
	if (len >= sizeof text)
		return false;
	memcpy(text, s, len);
	text[len] = '\0';
	if (sscanf(text, "base %16" SCNx64 "; calibration %16" SCNx64 "; version %31[^;]%n",
		   &d->base, &d->calib, d->version, &end) != 3 ||
	    end <= 0)
		return false;
	if (!text[end])
		return true;
	size_t k = 0;
	if (sscanf(text + end, "; shard %zu/%zu of %zu points; axes %16" SCNx64 "%n", &k,
		   &d->shard_n, &d->npoints, &d->axes, &tail) != 4 ||
	    tail <= 0 || text[end + tail] || k < 1 || d->shard_n < 2 || k > d->shard_n)
		return false;
	d->shard_k = k - 1;
	return true;
}

const char *sweep_row_digest(const char *line, size_t *len)
{
	size_t l = strcspn(line, "\n");
	const char *c = line + l;
	while (c > line && c[-1] != ',')
		c--;
	*len = (size_t)(line + l - c);
	return c;
}

/* Most columns of a sweep's CSV, and one more (a row with more fields than
 * the header is not a row of this sweep). */
#define SWEEP_MAX_COLS 1024

/* The result columns of sim/report/report.c that hold text, never checked
 * as numbers (a name may read as one). */
static const char *const text_cols[] = {"name",	       "memory_verdict", "memory_largest_term",
					"bottleneck",  "not_modelled",	 "warnings",
					"gpu",	       "unit",		 "notes",
					"band_regime", "granularity"};

static bool text_col(const char *name)
{
	for (size_t i = 0; i < sizeof text_cols / sizeof *text_cols; i++)
		if (!strcmp(name, text_cols[i]))
			return true;
	return false;
}

int sweep_row_check(const char *head, const char *row, const char *path, int line,
		    struct ts_error *err)
{
	size_t hl = strcspn(head, "\n"), rl = strcspn(row, "\n");
	char *h = ts_malloc(hl + 1), *r = ts_malloc(rl + 1);
	char **hf = ts_calloc(SWEEP_MAX_COLS, sizeof *hf),
	     **rf = ts_calloc(SWEEP_MAX_COLS, sizeof *rf);
	int rc = 0;
	if (!h || !r || !hf || !rf) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	memcpy(h, head, hl);
	h[hl] = '\0';
	memcpy(r, row, rl);
	r[rl] = '\0';
	int nh = csv_split(h, hf, SWEEP_MAX_COLS), nr = csv_split(r, rf, SWEEP_MAX_COLS);
	if (nh < 0 || nr != nh)
		goto out; /* the callers check the field count themselves */
	int status = -1, first = -1;
	for (int k = 0; k < nh; k++)
		if (status < 0 && !strcmp(hf[k], "status"))
			status = k;
		else if (status >= 0 && !strcmp(hf[k], "name")) {
			first = k;
			break;
		}
	if (status < 0 || first < 0 || strcmp(rf[status], "ok"))
		goto out;
	for (int k = first; k < nh - 1; k++) { /* the last is the digest */
		if (text_col(hf[k]) || !*rf[k])
			continue;
		char *end;
		double v = strtod(rf[k], &end);
		if (end == rf[k] || *end)
			continue; /* not a number: a text column */
		bool signed_ = !strcmp(hf[k], "memory_headroom_gib");
		double lo = signed_ ? -1e15 : !strcmp(hf[k], "breakeven_months") ? -1.0 : 0.0;
		if (!isfinite(v) || v < lo) {
			rc =
			    ts_error_set(err, TS_EINVALID, path, line, hf[k],
					 "found \"%.40s\" in column %d, expected a finite number%s "
					 "as trainsim writes it (the row was edited or damaged)",
					 rf[k], k + 1,
					 signed_    ? ""
					 : lo < 0.0 ? " >= -1"
						    : " >= 0");
			goto out;
		}
	}
out:
	ts_free(h, hl + 1);
	ts_free(r, rl + 1);
	ts_free(hf, SWEEP_MAX_COLS * sizeof *hf);
	ts_free(rf, SWEEP_MAX_COLS * sizeof *rf);
	return rc;
}

/* Whether line (ending in "\n") is the row of point i of sp: its index,
 * its axis values and `nfields` fields. field: scratch as large as line; f:
 * room for nfields + 1 field pointers. */
static bool row_is_point(const struct sweep_spec *sp, const char *line, size_t i, int nfields,
			 char *field, char **f)
{
	char idx[32];
	snprintf(idx, sizeof idx, "%zu", i);
	strcpy(field, line);
	if (csv_split(field, f, nfields + 1) != nfields)
		return false;
	for (size_t k = 0; k <= sp->naxes; k++) {
		const char *want =
		    k ? sp->axes[k - 1].shown[sweepcfg_value_index(sp, i, k - 1)] : idx;
		if (strcmp(f[k], want))
			return false;
	}
	return true;
}

/* Whether `line`, just read by fgets from f into SWEEP_ROW_MAX bytes, was
 * cut by a NUL byte: it ends neither in a newline, nor at a full buffer,
 * nor at the end of the file. */
static bool has_nul(const char *line, FILE *f)
{
	size_t l = strlen(line);
	return l + 1 < SWEEP_ROW_MAX && (!l || line[l - 1] != '\n') && !feof(f);
}

/* The error of a first row whose digest (the len bytes at dig) is not d. */
static int digest_differs(const struct sweep_spec *sp, const char *path, const char *dig,
			  size_t len, const struct sweep_digest *d, struct ts_error *err)
{
	struct sweep_digest got;
	if (!sweep_digest_parse(dig, len, &got))
		return ts_error_set(err, TS_EINVALID, path, 2, "sweep_digest",
				    "found a damaged digest \"%.*s\", expected \"base ...; "
				    "calibration ...; version ...\"; --resume --force starts over",
				    (int)(len > 80 ? 80 : len), dig);
	if (got.shard_n != d->shard_n || got.shard_k != d->shard_k ||
	    (d->shard_n > 1 && (got.axes != d->axes || got.npoints != d->npoints))) {
		char was[64] = "the whole sweep", is[64] = "the whole sweep";
		if (got.shard_n > 1)
			snprintf(was, sizeof was, "part %zu/%zu", got.shard_k + 1, got.shard_n);
		if (d->shard_n > 1)
			snprintf(is, sizeof is, "part %zu/%zu", d->shard_k + 1, d->shard_n);
		return ts_error_set(
		    err, TS_EINVALID, path, 2, "sweep_digest",
		    "found the rows of %s%s, expected those of %s to resume "
		    "(--shard must stay as it was); --resume --force starts over",
		    was, got.shard_n > 1 && !strcmp(was, is) ? " of a sweep with other axes" : "",
		    is);
	}
	char why[300];
	size_t k = 0;
	why[0] = '\0';
	if (got.base != d->base)
		k += (size_t)snprintf(why + k, sizeof why - k, "the base scenario %s",
				      sp->base_path ? sp->base_path : "(inline)");
	if (got.calib != d->calib && k < sizeof why)
		k += (size_t)snprintf(why + k, sizeof why - k, "%sthe calibration",
				      k ? " and " : "");
	if (strcmp(got.version, d->version) && k < sizeof why)
		snprintf(why + k, sizeof why - k,
			 "%sthe version (trainsim %s wrote them, "
			 "this is %s)",
			 k ? " and " : "", got.version, d->version);
	return ts_error_set(err, TS_EINVALID, path, 2, "sweep_digest",
			    "found rows made before %s changed, expected rows of the same "
			    "setup to resume (old and new rows would be mixed); --resume "
			    "--force starts over",
			    why[0] ? why : "their setup");
}

int sweep_resume_scan(const struct sweep_spec *sp, const struct sweep_cols *cols, const char *path,
		      const struct sweep_digest *d, size_t *done, long *keep, struct ts_error *err)
{
	*done = 0;
	*keep = 0;
	FILE *f = ts_fopen(path, "r");
	if (!f)
		return 0; /* nothing yet */
	char *head = ts_malloc(SWEEP_ROW_MAX), *line = ts_malloc(SWEEP_ROW_MAX),
	     *field = ts_malloc(SWEEP_ROW_MAX);
	char **fields = ts_calloc(SWEEP_MAX_COLS, sizeof *fields);
	int rc = 0;
	if (!head || !line || !field || !fields) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	if ((rc = sweep_csv_header(sp, cols, head, SWEEP_ROW_MAX))) {
		rc = ts_error_set(err, rc, sp->file, 0, NULL, "the CSV header is too long");
		goto out;
	}
	/* a NUL byte where the header belongs: not a sweep's
	 * CSV (fgets would see an empty or cut line and start afresh over it) */
	int c0 = fgetc(f);
	if (c0 == '\0' || (c0 != EOF && ungetc(c0, f) == EOF) ||
	    (c0 != EOF && (!fgets(line, SWEEP_ROW_MAX, f) || has_nul(line, f)))) {
		rc = ts_error_set(err, TS_EINVALID, path, 1, NULL,
				  "found a NUL byte, expected a trainsim sweep CSV to resume (the "
				  "file is left as it is: move it away or choose another -o)");
		goto out;
	}
	if (c0 == EOF)
		goto out; /* empty: start afresh */
	if (!strncmp(line, "# trainsim sweep digest:", 24)) {
		rc = ts_error_set(err, TS_EINVALID, path, 1, NULL,
				  "found the digest line that trainsim wrote above the header "
				  "before the digest became the column sweep_digest, expected the "
				  "header of sweep %s; --resume --force starts over",
				  sp->file);
		goto out;
	}
	if (!strchr(line, '\n') && !strncmp(line, head, strlen(line)))
		goto out; /* killed inside its header: start afresh */
	if (strcmp(line, head)) {
		size_t len = strcspn(line, "\r\n");
		rc =
		    ts_error_set(err, TS_EINVALID, path, 1, NULL,
				 "found the header \"%.*s%s\", expected the header of sweep "
				 "%s (another sweep's output?)",
				 (int)(len > 80 ? 80 : len), line, len > 80 ? "..." : "", sp->file);
		goto out;
	}
	char want[SWEEP_DIGEST_MAX] = "";
	if (d && sweep_digest_text(d, want, sizeof want)) {
		rc = ts_error_set(err, TS_ELIMIT, NULL, 0, NULL, "the sweep's digest is too long");
		goto out;
	}
	long pos = ftell(f);
	*keep = pos;
	strcpy(field, head);
	int nfields = csv_split(field, fields, SWEEP_MAX_COLS);
	if (nfields < 0) {
		rc = ts_error_set(err, TS_ELIMIT, sp->file, 0, NULL,
				  "the CSV header has more than %d columns", SWEEP_MAX_COLS - 1);
		goto out;
	}
	/* whole rows of points 0, 1, ... in order, with their axis values,
	 * every field and this setup's digest; from the first that is not
	 * (cut by a kill, another run's, damaged), the file is not trusted
	 * and the points are computed again; a first row of another setup
	 * is refused, saying what changed */
	size_t step = sp->shard_n > 1 ? sp->shard_n : 1;
	while (*done < sweepcfg_shard_points(sp) && fgets(line, SWEEP_ROW_MAX, f)) {
		size_t len = strlen(line), dlen;
		if (!len || line[len - 1] != '\n' ||
		    !row_is_point(sp, line, sp->shard_k + *done * step, nfields, field, fields))
			break;
		const char *dig = sweep_row_digest(line, &dlen);
		if (d && (dlen != strlen(want) || strncmp(dig, want, dlen))) {
			if (!*done)
				rc = digest_differs(sp, path, dig, dlen, d, err);
			break;
		}
		/* a row of this setup whose figures are not what trainsim
		 * writes (nan, -1e308: edited) is refused, not kept */
		if ((rc = sweep_row_check(head, line, path, (int)*done + 2, err))) {
			if (rc == TS_EINVALID) {
				struct ts_error e = *err;
				ts_error_set(err, TS_EINVALID, path, e.line, e.key,
					     "%s; --resume --force starts over", e.msg);
			}
			break;
		}
		(*done)++;
		*keep = ftell(f);
	}
	if (ferror(f))
		rc = ts_error_set(err, TS_EIO, path, 0, NULL, "reading failed");
out:
	ts_free(head, SWEEP_ROW_MAX);
	ts_free(line, SWEEP_ROW_MAX);
	ts_free(field, SWEEP_ROW_MAX);
	ts_free(fields, SWEEP_MAX_COLS * sizeof *fields);
	fclose(f);
	return rc;
}
