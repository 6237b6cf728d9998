/* Memory validation: every public report of tests/validation/memory_fit.csv
 * and memory_peaks.csv simulated, its figure compared and its verdict
 * checked; summaries per source with a leave-one-source-out band.
 * SPDX-License-Identifier: MIT */

/*
 * Each row is one run someone reported: a measured peak (with the figure
 * the source read: PyTorch's allocated or reserved peak, or the device
 * total nvidia-smi shows), a run that trained, or one that ran out of
 * memory. The row's scenario is simulated and the same figure taken from
 * the result (memory_allocated_bytes, memory_reserved_bytes,
 * memory_per_gpu_bytes). A row is "right" when the verdict is on the side
 * the source reports: fits or tight for a run that ran, "does not fit" for
 * one that did not.
 *
 * Nothing in the memory model is fitted to these rows; the one number
 * derived from measured peaks is the width of the memory band (the model's
 * stated error). Its leave-one-source-out check: for each source, the band
 * is the 80th percentile of |ln(predicted / measured)| over every other
 * source's measured rows, and the source's own rows are counted inside or
 * outside it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "run/memval.h"
#include "run/run.h"
#include "run/validate.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static const char *const fig_names[MEMVAL_FIGURE_COUNT_] = {"allocated", "reserved", "device"};
static const char *const out_names[MEMVAL_OUTCOME_COUNT_] = {"measured", "trained", "oom"};

const char *memval_figure_name(enum memval_figure f)
{
	return (unsigned)f < MEMVAL_FIGURE_COUNT_ ? fig_names[f] : "?";
}

const char *memval_outcome_name(enum memval_outcome o)
{
	return (unsigned)o < MEMVAL_OUTCOME_COUNT_ ? out_names[o] : "?";
}

static int lookup(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

void memval_free(struct memval_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		ts_free(set->rows[i].scenario, strlen(set->rows[i].scenario) + 1);
	if (set->rows)
		ts_free(set->rows, set->cap * sizeof *set->rows);
	memset(set, 0, sizeof *set);
}

/* Append the rows of one file; memory_fit.csv (peaks false) also has
 * known_gap, a row pinned on the wrong side. */
static int load_file(const char *path, bool peaks, struct memval_set *set, struct ts_error *err)
{
	static const char *const cols[] = {"id",     "source_url", "outcome",  "measured_gib",
					   "source", "figure",	   "scenario", "known_gap"};
	enum { C_ID, C_URL, C_OUT, C_GIB, C_SRC, C_FIG, C_SCN, C_GAP };
	int ncol = peaks ? 7 : 8, col[8];
	struct csv c = {0};
	int rc = csv_open(&c, path, 16384, 32, err);
	while (!rc && (rc = csv_row(&c, cols, ncol, col, err)) == 1) {
		rc = 0;
		if (ts_grow((void **)&set->rows, &set->cap, set->n + 1, sizeof *set->rows)) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			break;
		}
		struct memval_row *r = &set->rows[set->n];
		memset(r, 0, sizeof *r);
		const char *scn = c.f[col[C_SCN]];
		snprintf(r->id, sizeof r->id, "%s", c.f[col[C_ID]]);
		snprintf(r->url, sizeof r->url, "%s", c.f[col[C_URL]]);
		snprintf(r->source, sizeof r->source, "%s", c.f[col[C_SRC]]);
		int o = lookup(c.f[col[C_OUT]], out_names, MEMVAL_OUTCOME_COUNT_);
		int f = lookup(c.f[col[C_FIG]], fig_names, MEMVAL_FIGURE_COUNT_);
		if (o < 0 || f < 0) {
			rc = ts_error_set(
			    err, TS_ESYNTAX, path, c.lineno, o < 0 ? "outcome" : "figure",
			    "found \"%s\", expected %s", o < 0 ? c.f[col[C_OUT]] : c.f[col[C_FIG]],
			    o < 0 ? "measured, trained or oom" : "allocated, reserved or device");
			break;
		}
		r->outcome = (enum memval_outcome)o;
		r->figure = (enum memval_figure)f;
		r->pinned = !peaks && *c.f[col[C_GAP]];
		const char *g = c.f[col[C_GIB]];
		char *end = NULL;
		r->measured_gib = *g ? strtod(g, &end) : 0.0;
		if ((*g && (*end || !(r->measured_gib > 0.0))) ||
		    (r->outcome == MEMVAL_MEASURED) != (*g != 0)) {
			rc =
			    ts_error_set(err, TS_ESYNTAX, path, c.lineno, "measured_gib",
					 "found \"%s\" with outcome %s, expected a positive number "
					 "of GiB exactly for measured rows",
					 g, out_names[r->outcome]);
			break;
		}
		size_t len = strlen(scn) + 1;
		if (!(r->scenario = ts_malloc(len))) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			break;
		}
		memcpy(r->scenario, scn, len);
		set->n++;
	}
	csv_close(&c);
	return rc;
}

int memval_load(const char *root, struct memval_set *set, struct ts_error *err)
{
	char path[4096];
	memset(set, 0, sizeof *set);
	snprintf(path, sizeof path, "%s/tests/validation/memory_fit.csv", root);
	int rc = load_file(path, false, set, err);
	if (!rc) {
		snprintf(path, sizeof path, "%s/tests/validation/memory_peaks.csv", root);
		rc = load_file(path, true, set, err);
	}
	if (rc)
		memval_free(set);
	return rc;
}

static int predict(const struct hw_catalog *cat, const struct work_calib *c, struct memval_row *r,
		   struct ts_error *err)
{
	struct ts_result *res = ts_malloc(sizeof *res);
	if (!res)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	int rc = val_run_text(cat, c, r->scenario, r->id, res, &r->run, err);
	if (!rc && r->run) {
		double b = r->figure == MEMVAL_ALLOCATED  ? res->memory_allocated_bytes
			   : r->figure == MEMVAL_RESERVED ? res->memory_reserved_bytes
							  : res->memory_per_gpu_bytes;
		r->predicted_gib = b / GiB;
		r->capacity_gib = res->memory_capacity_bytes / GiB;
		snprintf(r->verdict, sizeof r->verdict, "%s", res->memory_verdict);
		r->verdict_right = r->outcome == MEMVAL_OOM ? !res->fits : res->fits;
		r->error = r->outcome == MEMVAL_MEASURED
			       ? (r->predicted_gib - r->measured_gib) / r->measured_gib
			       : 0.0;
	}
	ts_free(res, sizeof *res);
	return rc;
}

int memval_predict(const struct hw_catalog *cat, const struct work_calib *c,
		   struct memval_row *rows, size_t n, struct ts_error *err)
{
	int first = -1, frc = 0;
	struct ts_error ferr = {0};
#pragma omp parallel for schedule(dynamic, 1)
	for (long i = 0; i < (long)n; i++) {
		struct ts_error e = {0};
		int rc = predict(cat, c, &rows[i], &e);
		if (rc) {
#pragma omp critical(memval_err)
			if (first < 0 || i < first) {
				first = (int)i;
				frc = rc;
				ferr = e;
			}
		}
	}
	if (first >= 0 && err)
		*err = ferr;
	return frc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* 80th percentile of |ln(pred/meas)| over measured rows run, of source
 * `skip`'s complement (skip NULL: all); 0 without rows. */
static double band_of(const struct memval_row *rows, size_t n, const char *skip, double *tmp)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].run && rows[i].outcome == MEMVAL_MEASURED &&
		    (!skip || strcmp(rows[i].source, skip)))
			tmp[k++] = fabs(log(rows[i].predicted_gib / rows[i].measured_gib));
	if (!k)
		return 0.0;
	qsort(tmp, k, sizeof *tmp, cmp_double);
	/* nearest rank */
	size_t idx = (size_t)ceil(0.8 * (double)k);
	return tmp[(idx ? idx : 1) - 1];
}

static void add(struct memval_source *s, const struct memval_row *r, double band)
{
	s->rows++;
	if (!r->pinned) {
		s->verdicts++;
		s->right += r->verdict_right;
	}
	if (r->outcome != MEMVAL_MEASURED)
		return;
	double a = fabs(r->error);
	s->measured++;
	s->mape += a;
	s->bias += r->error;
	if (a > s->worst)
		s->worst = a;
	s->loso_inside += fabs(log(r->predicted_gib / r->measured_gib)) <= band;
}

void memval_summarize(const struct memval_row *rows, size_t n, struct memval_source *out,
		      size_t max, size_t *nout, struct memval_source *all)
{
	double *tmp = n ? ts_malloc(n * sizeof *tmp) : NULL;
	memset(all, 0, sizeof *all);
	snprintf(all->source, sizeof all->source, "all");
	size_t k = 0;
	double mape_sum = 0.0;
	int with_measured = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].run)
			continue;
		size_t j = 0;
		while (j < k && strcmp(out[j].source, rows[i].source))
			j++;
		if (j == k) {
			if (k == max)
				continue;
			memset(&out[k], 0, sizeof out[k]);
			snprintf(out[k].source, sizeof out[k].source, "%s", rows[i].source);
			out[k].loso_band = tmp ? band_of(rows, n, rows[i].source, tmp) : 0.0;
			k++;
		}
		add(&out[j], &rows[i], out[j].loso_band);
		add(all, &rows[i], out[j].loso_band);
	}
	for (size_t j = 0; j < k; j++) {
		if (out[j].measured) {
			out[j].mape /= out[j].measured;
			out[j].bias /= out[j].measured;
			mape_sum += out[j].mape;
			with_measured++;
		}
	}
	if (all->measured)
		all->bias /= all->measured;
	all->mape = with_measured ? mape_sum / with_measured : 0.0;
	all->loso_band = tmp ? band_of(rows, n, NULL, tmp) : 0.0;
	if (tmp)
		ts_free(tmp, n * sizeof *tmp);
	*nout = k;
}
