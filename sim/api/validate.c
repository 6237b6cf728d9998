/* ts_validate_write: predictions against the published measurements of
 * tests/validation/, per row and summarised; optionally refit the constants.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "plan/env.h"
#include "report/table.h"
#include "run/memval.h"
#include "run/validate.h"
#include "work/compute.h"

/* A value in the unit people read: ms for iteration times. */
static void cell_value(struct ts_table *t, size_t col, enum val_metric m, double v)
{
	if (m == VAL_ITERATION_S)
		table_cell(t, col, "%.1f", v * 1e3);
	else
		table_cell(t, col, "%.1f", v);
}

static int print_table(struct ts_table *t, bool csv, FILE *out)
{
	int rc = table_status(t);
	if (!rc)
		rc = csv ? table_print_csv(t, out) : table_print(t, out);
	table_destroy(t);
	return rc;
}

static int print_rows(const struct val_row *rows, size_t n, const bool *use, const double *pred,
		      bool csv, FILE *out)
{
	struct ts_table *t;
	if (table_create(&t, 8))
		return TS_ENOMEM;
	static const char *const hd[8] = {"id",	    "source",	 "row",	     "half",
					  "metric", "predicted", "measured", "error_pct"};
	for (size_t c = 0; c < 8; c++)
		table_header(t, c, hd[c], c < 2 || c == 3 || c == 4 ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t i = 0; i < n; i++) {
		if (!use[i])
			continue;
		const struct val_row *r = &rows[i];
		table_add_row(t);
		table_cell(t, 0, "%s", r->id);
		table_cell(t, 1, "%s", r->source);
		table_cell(t, 2, "%d", r->index);
		table_cell(t, 3, "%s",
			   r->src == VAL_BERT || r->src == VAL_VTRAIN_MULTI ? "check"
			   : r->fitting					    ? "fit"
									    : "held-out");
		table_cell(t, 4, "%s",
			   r->metric == VAL_ITERATION_S ? "iteration_ms"
							: val_metric_name(r->metric));
		if (isnan(pred[i]))
			table_cell(t, 5, "needs %s (not modelled)", r->needs[0] ? r->needs : "?");
		else
			cell_value(t, 5, r->metric, pred[i]);
		cell_value(t, 6, r->metric, r->measured);
		if (isnan(pred[i]))
			table_cell(t, 7, "-");
		else
			table_cell(t, 7, "%+.1f", 100.0 * val_error(r, pred[i]));
	}
	return print_table(t, csv, out);
}

static void stat_row(struct ts_table *t, const char *what, const char *set,
		     const struct val_err_stats *e)
{
	if (!e->n && !e->not_run)
		return;
	table_add_row(t);
	table_cell(t, 0, "%s", what);
	table_cell(t, 1, "%s", set);
	if (!e->n) {
		table_cell(t, 2, "0 (%zu not modelled yet)", e->not_run);
		for (size_t c = 3; c < 6; c++)
			table_cell(t, c, "-");
		return;
	}
	if (e->not_run)
		table_cell(t, 2, "%zu (%zu not modelled yet)", e->n, e->not_run);
	else
		table_cell(t, 2, "%zu", e->n);
	table_cell(t, 3, "%.2f", 100.0 * e->mape);
	table_cell(t, 4, "%+.2f", 100.0 * e->mean);
	table_cell(t, 5, "%.1f", 100.0 * e->worst);
}

static int print_summary(const struct val_summary *s, bool csv, FILE *out)
{
	struct ts_table *t;
	if (table_create(&t, 6))
		return TS_ENOMEM;
	static const char *const hd[6] = {"group",	    "set",	"rows", "mape_pct",
					  "mean_error_pct", "worst_pct"};
	for (size_t c = 0; c < 6; c++)
		table_header(t, c, hd[c], c < 2 ? TABLE_LEFT : TABLE_RIGHT);
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++) {
		const char *nm = val_source_name((enum val_source)k);
		stat_row(t, "source", nm, &s->by_source[k]);
		if (k == VAL_BERT || k == VAL_VTRAIN)
			continue; /* BERT: no halves; vTrain: its rows below */
		char grp[48];
		snprintf(grp, sizeof grp, "%s half", nm);
		bool fitted = k != VAL_VTRAIN_MULTI; /* too slow to fit on (validate.c) */
		stat_row(t, grp, fitted ? "fitting" : "odd rows (not fitted)", &s->half[k][0]);
		stat_row(t, grp, fitted ? "held-out" : "even rows", &s->half[k][1]);
	}
	stat_row(t, "vtrain half", "fitting (odd rows)", &s->fitting);
	stat_row(t, "vtrain half", "held-out (even rows)", &s->held_out);
	char key[32];
	for (size_t i = 0; i < s->n_hidden; i++) {
		snprintf(key, sizeof key, "%lld", (long long)s->by_hidden[i].key);
		stat_row(t, "vtrain hidden", key, &s->by_hidden[i].e);
	}
	for (size_t i = 0; i < s->n_micro_batch; i++) {
		snprintf(key, sizeof key, "%lld", (long long)s->by_micro_batch[i].key);
		stat_row(t, "vtrain micro_batch", key, &s->by_micro_batch[i].e);
	}
	return print_table(t, csv, out);
}

static void print_fit(FILE *out, const struct val_fit_result *fr, const struct work_calib *start)
{
	struct work_calib a = *start, b = fr->calib;
	fprintf(out,
		"fit on %zu rows, the fitting halves of vTrain, MEG24, MPT and TITAN "
		"(Nelder-Mead, %zu evaluations): mean per-source MAPE %.2f %% -> %.2f %%\n",
		fr->rows, fr->evaluations, 100.0 * fr->mape_before, 100.0 * fr->mape_after);
	for (size_t i = 0; i < VAL_FIT_COUNT; i++) {
		size_t k = val_fit_keys[i];
		double v0 = *work_calib_field(&a, k), v1 = *work_calib_field(&b, k);
		if (k == 5) /* launch_s: a time */
			fprintf(out, "  %-9s = \"%.2f us\";   # was %.2f us\n", work_calib_key(k),
				v1 * 1e6, v0 * 1e6);
		else
			fprintf(out, "  %-9s = %.4g;   # was %.4g\n", work_calib_key(k), v1, v0);
	}
	fprintf(out, "\n");
}

/* The single-node rows (val_load) then the multi-GPU ones (val_load_multi),
 * in one array that val_rows_free releases. */
static int load_all(const char *root, struct val_row **rows, size_t *n, struct ts_error *err)
{
	struct val_row *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	int rc = val_load(root, &a, &na, err);
	if (!rc)
		rc = val_load_multi(root, &b, &nb, err);
	struct val_row *all = NULL;
	if (!rc && na + nb) {
		all = ts_malloc((na + nb) * sizeof *all);
		if (!all)
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		else {
			if (na)
				memcpy(all, a, na * sizeof *all);
			if (nb)
				memcpy(all + na, b, nb * sizeof *all);
		}
	}
	val_rows_free(a, na);
	val_rows_free(b, nb);
	*rows = rc ? NULL : all;
	*n = rc ? 0 : na + nb;
	return rc;
}

/* The header of a bands.cfg that ts_validate_write_bands writes. */
static const char bands_header[] =
    "# Model error of trainsim's time predictions by regime (sim/run/band.h).\n"
    "# SPDX-License-Identifier: MIT\n"
    "#\n"
    "# Written by `trainsim validate --bands configs/calibration/bands.cfg`: for\n"
    "# every validation row no constant was fitted on (the held-out halves of\n"
    "# vTrain, MEG24, MPT and TITAN; every row of BERT and vTrain multi-node),\n"
    "# r = ln(measured time / predicted time). A regime is GPU generation /\n"
    "# single or multi node / framework family (megatron: Megatron and\n"
    "# DeepSpeed; ddp; fsdp), \"*\" where a level pools (first the generation,\n"
    "# then the scale, then the family); only regimes of at least\n"
    "# 8 rows are kept. err80 = 80th percentile of |r| (the 80 % half-width\n"
    "# of the reported band, log units); bias = median r (> 0: runs are slower\n"
    "# than predicted), reported and never applied. A run takes the finest\n"
    "# regime that matches it. Regenerate after any change of the model or of\n"
    "# compute.cfg.\n";

/* Per source, the leave-one-source-out coverage of the bands on its unseen
 * rows, as a table; with bands, the table of every regime to it. */
static int print_bands(const ts_env *env, const struct val_row *rows, size_t n, const double *pred,
		       bool csv, FILE *out, FILE *bands)
{
	struct band_resid *res = NULL;
	size_t nres = 0;
	struct ts_error err;
	ts_error_clear(&err);
	if (val_residuals(env->cat, rows, n, pred, &res, &nres, &err))
		return api_fail(&err);
	struct ts_table *t = NULL;
	int rc = 0;
	if (table_create(&t, 7)) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto done;
	}
	static const char *const hd[7] = {"band (80 %)",
					  "rows",
					  "inside",
					  "coverage_pct",
					  "median_half_width_pct",
					  "no_band",
					  "regimes (other sources)"};
	for (size_t c = 0; c < 7; c++)
		table_header(t, c, hd[c], c == 0 || c == 6 ? TABLE_LEFT : TABLE_RIGHT);
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++) {
		struct band_coverage cv;
		const char *nm = val_source_name((enum val_source)k);
		if (band_coverage_of(res, nres, nm, &cv, &err)) {
			rc = api_fail(&err);
			goto done;
		}
		if (!cv.rows)
			continue;
		table_add_row(t);
		table_cell(t, 0, "%s held-out", nm);
		table_cell(t, 1, "%zu", cv.rows);
		table_cell(t, 2, "%zu", cv.inside);
		table_cell(t, 3, "%.1f", 100.0 * cv.coverage);
		table_cell(t, 4, "%.1f", 100.0 * cv.median_hw);
		table_cell(t, 5, "%zu", cv.no_band);
		table_cell(t, 6, "%s", cv.regimes[0] ? cv.regimes : "-");
	}
	if ((rc = print_table(t, csv, out))) {
		t = NULL;
		rc = api_failf(TS_EIO, NULL, "writing the report failed");
		goto done;
	}
	t = NULL;
	if (bands) {
		struct band_table *bt = ts_calloc(1, sizeof *bt);
		if (!bt) {
			rc = api_failf(TS_ENOMEM, NULL, "out of memory");
			goto done;
		}
		if (band_table_build(res, nres, NULL, bt, &err))
			rc = api_fail(&err);
		else if (band_table_write(bt, bands_header, bands) || fflush(bands))
			rc = api_failf(TS_EIO, "--bands", "writing the bands file failed");
		ts_free(bt, sizeof *bt);
	}
done:
	if (t)
		table_destroy(t);
	if (res)
		ts_free(res, nres * sizeof *res);
	return rc;
}

int ts_validate_write(const ts_env *env, const char *source, bool fit, enum ts_format format,
		      FILE *out, FILE *fit_out)
{
	return ts_validate_write_bands(env, source, fit, format, out, fit_out, NULL);
}

int ts_validate_write_bands(const ts_env *env, const char *source, bool fit, enum ts_format format,
			    FILE *out, FILE *fit_out, FILE *bands)
{
	if (!source)
		source = "all";
	bool known = !strcmp(source, "all");
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++)
		known = known || !strcmp(source, val_source_name((enum val_source)k));
	if (!known)
		return api_failf(TS_EUSAGE, "--source",
				 "found \"%s\", expected vtrain, bert, meg24, mpt, titan, "
				 "vtrain-multi or all",
				 source);
	if (format == TS_FORMAT_JSON)
		return api_failf(TS_EUSAGE, "--format", "found \"json\", expected text or csv");
	bool csv = format == TS_FORMAT_CSV;
	struct work_calib calib = env->calib;
	int rc = 0;
	struct ts_error err;
	ts_error_clear(&err);
	struct val_row *rows = NULL;
	size_t n = 0;
	bool *use = NULL;
	double *pred = NULL;
	if (load_all(env->root, &rows, &n, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	use = ts_calloc(n ? n : 1, sizeof *use);
	pred = ts_calloc(n ? n : 1, sizeof *pred);
	if (!use || !pred) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		use[i] = !strcmp(source, "all") || !strcmp(source, rows[i].source);
	if (fit) {
		struct val_fit_result fr;
		if (val_fit(env->cat, &calib, rows, n, &fr, &err)) {
			rc = api_fail(&err);
			goto out;
		}
		/* with CSV on stdout the fit goes to stderr */
		print_fit(fit_out, &fr, &calib);
		calib = fr.calib;
	}
	if (val_predict_all(env->cat, &calib, rows, n, use, pred, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	struct val_summary s;
	val_summarize(rows, n, use, pred, &s);
	if (print_rows(rows, n, use, pred, csv, out) || fprintf(out, "\n") < 0 ||
	    print_summary(&s, csv, out) || fflush(out)) {
		rc = api_failf(TS_EIO, NULL, "writing the report failed");
		goto out;
	}
	/* the bands need every source: each is checked on the others' rows */
	if (!strcmp(source, "all")) {
		if (fprintf(out, "\n") < 0)
			rc = api_failf(TS_EIO, NULL, "writing the report failed");
		else
			rc = print_bands(env, rows, n, pred, csv, out, bands);
	} else if (bands)
		rc = api_failf(TS_EUSAGE, "--bands",
			       "found --source %s, expected --source all (each source's band "
			       "is estimated on the others)",
			       source);
	if (!rc && fflush(out))
		rc = api_failf(TS_EIO, NULL, "writing the report failed");
out:
	ts_free(use, (n ? n : 1) * sizeof *use);
	ts_free(pred, (n ? n : 1) * sizeof *pred);
	val_rows_free(rows, n);
	return rc;
}

/* ---- memory ------------------------------------------------------------- */

static void mem_row_cells(struct ts_table *t, const struct memval_row *r)
{
	table_add_row(t);
	table_cell(t, 0, "%s", r->id);
	table_cell(t, 1, "%s", r->source);
	table_cell(t, 2, "%s", memval_figure_name(r->figure));
	table_cell(t, 3, "%s", memval_outcome_name(r->outcome));
	if (!r->run) {
		table_cell(t, 4, "not modelled");
		return;
	}
	table_cell(t, 4, "%.1f", r->predicted_gib);
	if (r->outcome == MEMVAL_MEASURED) {
		table_cell(t, 5, "%.1f", r->measured_gib);
		table_cell(t, 6, "%+.1f", 100.0 * r->error);
	}
	table_cell(t, 7, "%.1f", r->capacity_gib);
	table_cell(t, 8, "%s", r->verdict);
	table_cell(t, 9, "%s", r->pinned ? "known gap" : r->verdict_right ? "yes" : "NO");
}

static void mem_source_cells(struct ts_table *t, const struct memval_source *s)
{
	table_add_row(t);
	table_cell(t, 0, "%s", s->source);
	table_cell(t, 1, "%d", s->rows);
	table_cell(t, 2, "%d", s->measured);
	if (s->measured) {
		table_cell(t, 3, "%.1f", 100.0 * s->mape);
		table_cell(t, 4, "%+.1f", 100.0 * s->bias);
		table_cell(t, 5, "%.1f", 100.0 * s->worst);
		table_cell(t, 7, "%.1f", 100.0 * expm1(s->loso_band));
		table_cell(t, 8, "%d of %d", s->loso_inside, s->measured);
	}
	if (s->verdicts)
		table_cell(t, 6, "%d of %d", s->right, s->verdicts);
}

int ts_validate_memory_write(const ts_env *env, enum ts_format format, FILE *out)
{
	if (format == TS_FORMAT_JSON || format == TS_FORMAT_NCCL_TESTS)
		return api_failf(TS_EUSAGE, "--format", "found \"%s\", expected text or csv",
				 format == TS_FORMAT_JSON ? "json" : "nccl-tests");
	bool csv = format == TS_FORMAT_CSV;
	struct ts_error err;
	ts_error_clear(&err);
	struct memval_set set;
	if (memval_load(env->root, &set, &err))
		return api_fail(&err);
	int rc = 0;
	struct memval_source *src = NULL, all;
	size_t nsrc = 0, max = set.n ? set.n : 1;
	struct ts_table *t = NULL;
	if (memval_predict(env->cat, &env->calib, set.rows, set.n, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	if (!(src = ts_calloc(max, sizeof *src))) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	memval_summarize(set.rows, set.n, src, max, &nsrc, &all);
	static const char *const rh[10] = {
	    "id",	    "source",	 "figure",	 "reported", "predicted_gib",
	    "measured_gib", "error_pct", "capacity_gib", "verdict",  "right"};
	if (table_create(&t, 10)) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t c = 0; c < 10; c++)
		table_header(t, c, rh[c], c < 4 || c == 8 || c == 9 ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t i = 0; i < set.n; i++)
		mem_row_cells(t, &set.rows[i]);
	if ((rc = print_table(t, csv, out)))
		goto out_io;
	static const char *const sh[9] = {"source",	    "rows",	     "measured",
					  "mape_pct",	    "bias_pct",	     "worst_pct",
					  "verdicts_right", "loso_band_pct", "inside_loso_band"};
	if (fprintf(out, "\n") < 0 || table_create(&t, 9)) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		t = NULL;
		goto out;
	}
	for (size_t c = 0; c < 9; c++)
		table_header(t, c, sh[c], c == 0 ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t j = 0; j < nsrc; j++)
		mem_source_cells(t, &src[j]);
	mem_source_cells(t, &all);
	if ((rc = print_table(t, csv, out)))
		goto out_io;
	t = NULL;
	if (!csv &&
	    fprintf(out,
		    "\nleave-one-source-out: %.1f %% mean of the %zu sources' MAPE of the measured "
		    "peaks (nothing in the memory model is fitted to these rows); verdicts right "
		    "%d of %d (%.0f %%); %d of %d measured peaks inside the 80 %% band estimated "
		    "from the other sources\n",
		    100.0 * all.mape, nsrc, all.right, all.verdicts,
		    100.0 * all.right / (all.verdicts ? all.verdicts : 1), all.loso_inside,
		    all.measured) < 0)
		rc = api_failf(TS_EIO, NULL, "writing the report failed");
	if (!rc && fflush(out))
		rc = api_failf(TS_EIO, NULL, "writing the report failed");
	goto out;
out_io:
	t = NULL; /* print_table destroyed it */
	rc = api_failf(TS_EIO, NULL, "writing the report failed");
out:
	if (t)
		table_destroy(t);
	if (src)
		ts_free(src, max * sizeof *src);
	memval_free(&set);
	return rc;
}
