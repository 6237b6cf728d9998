/* The writers of trainsim validate: the predictions against the published
 * measurements row by row, the error statistics, the 80 % bands' coverage,
 * the leave-one-source-out table, a fit of the constants, the headers of
 * the bands and leave-one-source-out files, and the memory validation.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "plan/bandtab.h"
#include "report/table.h"
#include "report/validate.h"
#include "run/loso.h"
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
			   !val_source_fitted(r->src) ? "check"
			   : r->fitting		      ? "fit"
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
		/* checked sources have no halves, but vTrain multi-node (its odd
		 * and even rows); vTrain's halves are below */
		if (k == VAL_VTRAIN ||
		    (!val_source_fitted((enum val_source)k) && k != VAL_VTRAIN_MULTI))
			continue;
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

int report_val_fit(const struct val_fit_result *fr, const struct work_calib *start, FILE *out)
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
	return fprintf(out, "\n") < 0 || ferror(out) ? TS_EIO : 0;
}

/* The header of a bands.cfg that ts_validate_write_bands writes. */
const char report_bands_header[] =
    "# Model error of trainsim's time predictions by regime (sim/run/band.h).\n"
    "# SPDX-License-Identifier: MIT\n"
    "#\n"
    "# Written by `trainsim validate --bands configs/calibration/bands.cfg`: for\n"
    "# every validation row, predicted with constants that never saw its source\n"
    "# (leave-one-source-out: each row of vTrain, MEG24, MPT and TITAN with the\n"
    "# constants refit without its source, configs/calibration/loso.cfg; every\n"
    "# row of the sources nothing is fitted on with the committed ones),\n"
    "# r = ln(measured time / predicted time). A regime is GPU generation /\n"
    "# single or multi node / framework family (megatron: Megatron and\n"
    "# DeepSpeed; ddp; fsdp), \"*\" where a level pools (first the generation,\n"
    "# then the scale, then the family); only regimes of at least\n"
    "# 8 rows are kept. err80 = 80th percentile of |r| (the 80 % half-width\n"
    "# of the reported band, log units); bias = median r (> 0: runs are slower\n"
    "# than predicted), reported and never applied. A run takes the finest\n"
    "# regime that matches it. Regenerate after any change of the model or of\n"
    "# compute.cfg, after loso.cfg (trainsim validate --loso).\n";

/* The header of a loso.cfg that ts_validate_loso_write writes. */
const char report_loso_header[] =
    "# Leave-one-source-out errors of trainsim's time predictions (sim/run/loso.h).\n"
    "# SPDX-License-Identifier: MIT\n"
    "#\n"
    "# Written by `trainsim validate --loso configs/calibration/loso.cfg`: the\n"
    "# constants that `trainsim validate --fit` fits (launch_s in seconds,\n"
    "# tc_sustain; gemm_k0 comes from a published GEMM table and is not refit)\n"
    "# refit on the fitting halves of the fitted sources but one (GSL\n"
    "# Nelder-Mead, the same objective and rows as --fit), each refit from the\n"
    "# same start (sim/run/loso.c: launch_s = 50 us, tc_sustain = 0.8), and\n"
    "# every row of the left-out source predicted with\n"
    "# them. in_sample is the control: the same fit on all of them from the\n"
    "# same start. A source nothing is fitted on (refit = false) already\n"
    "# never saw the constants: its figures are the plain ones. mape: mean\n"
    "# absolute error on each row's own figure (fraction); speed_bias: mean of\n"
    "# predicted speed / measured speed - 1 (> 0: predicted too fast); plain_*:\n"
    "# the same with the committed constants of compute.cfg; fit_mape: the\n"
    "# refit's objective. `trainsim validate` predicts each refit source again\n"
    "# with its constants and prints the figures as its headline;\n"
    "# tests/check_validate_multi.c checks that they are the ones stored here.\n"
    "# Regenerate after any change of the model, of compute.cfg or of the\n"
    "# validation rows (minutes: five fits), then bands.cfg.\n";

/* The leave-one-source-out table of t's present sources with use[s] (or
 * every source when use is NULL), a last row with their means; text adds
 * the headline line after it. A refit source without have[s] (have NULL:
 * all have) has no stored constants: no figures. */
static int print_loso(const struct loso_table *t, const bool *use, const bool *have, bool csv,
		      FILE *out)
{
	struct ts_table *tb;
	if (table_create(&tb, 6))
		return TS_ENOMEM;
	static const char *const hd[6] = {"source (leave one out)", "rows",
					  "plain_mape_pct",	    "loso_mape_pct",
					  "loso_speed_bias_pct",    "constants of its prediction"};
	for (size_t c = 0; c < 6; c++)
		table_header(tb, c, hd[c], c == 0 || c == 5 ? TABLE_LEFT : TABLE_RIGHT);
	struct loso_table sel = {0};
	size_t missing = 0;
	for (int s = 0; s < VAL_SOURCE_COUNT_; s++) {
		const struct loso_source *e = &t->s[s];
		if (!e->present || (use && !use[s]))
			continue;
		table_add_row(tb);
		table_cell(tb, 0, "%s", val_source_name((enum val_source)s));
		table_cell(tb, 1, "%u", e->rows);
		table_cell(tb, 2, "%.2f", 100.0 * e->plain_mape);
		if (e->refit && have && !have[s]) {
			missing++;
			table_cell(tb, 3, "-");
			table_cell(tb, 4, "-");
			table_cell(tb, 5, "no refit stored (trainsim validate --loso)");
			continue;
		}
		sel.s[s] = *e;
		table_cell(tb, 3, "%.2f", 100.0 * e->mape);
		table_cell(tb, 4, "%+.2f", 100.0 * e->speed_bias);
		if (e->refit)
			table_cell(tb, 5, "refit without it: launch_s %.2f us, tc_sustain %.4g",
				   e->k[0] * 1e6, e->k[1]);
		else
			table_cell(tb, 5, "nothing fitted on it: the committed ones");
	}
	double m = 0.0, p = 0.0;
	size_t k = loso_headline(&sel, &m, &p);
	table_add_row(tb);
	table_cell(tb, 0, "all (mean of sources)");
	table_cell(tb, 1, "%zu sources", k);
	table_cell(tb, 2, "%.2f", 100.0 * p);
	table_cell(tb, 3, "%.2f", 100.0 * m);
	table_cell(tb, 4, "-");
	table_cell(tb, 5, "headline");
	int rc = print_table(tb, csv, out);
	if (rc || csv)
		return rc;
	if (missing)
		return fprintf(out,
			       "\nleave-one-source-out: %zu fitted source(s) without stored "
			       "refits (%s missing or incomplete: trainsim validate --loso %s); "
			       "%.2f %% mean of the other %zu sources' MAPE, %.2f %% with the "
			       "committed constants\n",
			       missing, LOSO_CFG, LOSO_CFG, 100.0 * m, k, 100.0 * p) < 0
			   ? TS_EIO
			   : 0;
	return fprintf(out,
		       "\nleave-one-source-out: %.2f %% mean of %zu sources' MAPE, every fitted "
		       "constant refit without the source it is checked on (%s); %.2f %% with "
		       "the committed constants\n",
		       100.0 * m, k, LOSO_CFG, 100.0 * p) < 0
		   ? TS_EIO
		   : 0;
}

/* Per source, the leave-one-source-out coverage of the bands on its unseen
 * rows, as a table; from the residuals res[0..nres) (val_residuals). */
static int print_bands(const struct band_resid *res, size_t nres, bool csv, FILE *out,
		       struct ts_error *err)
{
	struct ts_table *t = NULL;
	int rc = 0;
	if (table_create(&t, 7)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto done;
	}
	static const char *const hd[7] = {"band (80 %) on unseen rows",
					  "rows",
					  "inside",
					  "coverage_pct",
					  "median_half_width_pct",
					  "no_band",
					  "regimes (other sources)"};
	for (size_t c = 0; c < 7; c++)
		table_header(t, c, hd[c], c == 0 || c == 6 ? TABLE_LEFT : TABLE_RIGHT);
	size_t all_rows = 0, all_in = 0;
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++) {
		struct band_coverage cv;
		const char *nm = val_source_name((enum val_source)k);
		if (band_coverage_of(res, nres, nm, &cv, err)) {
			rc = err->code ? err->code : TS_EINVALID;
			goto done;
		}
		if (!cv.rows)
			continue;
		all_rows += cv.rows;
		all_in += cv.inside;
		table_add_row(t);
		table_cell(t, 0, "%s", nm);
		table_cell(t, 1, "%zu", cv.rows);
		table_cell(t, 2, "%zu", cv.inside);
		table_cell(t, 3, "%.1f", 100.0 * cv.coverage);
		table_cell(t, 4, "%.1f", 100.0 * cv.median_hw);
		table_cell(t, 5, "%zu", cv.no_band);
		table_cell(t, 6, "%s", cv.regimes[0] ? cv.regimes : "-");
	}
	table_add_row(t);
	table_cell(t, 0, "all");
	table_cell(t, 1, "%zu", all_rows);
	table_cell(t, 2, "%zu", all_in);
	table_cell(t, 3, "%.1f", all_rows ? 100.0 * (double)all_in / (double)all_rows : 0.0);
	if ((rc = print_table(t, csv, out))) {
		t = NULL;
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the report failed");
		goto done;
	}
	t = NULL;
done:
	if (t)
		table_destroy(t);
	return rc;
}

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

int report_memval_write(const struct memval_set *set, const struct memval_source *src, size_t nsrc,
			const struct memval_source *all, bool csv, FILE *out, struct ts_error *err)
{
	int rc = 0;
	struct ts_table *t = NULL;
	static const char *const rh[10] = {
	    "id",	    "source",	 "figure",	 "reported", "predicted_gib",
	    "measured_gib", "error_pct", "capacity_gib", "verdict",  "right"};
	if (table_create(&t, 10)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	for (size_t c = 0; c < 10; c++)
		table_header(t, c, rh[c], c < 4 || c == 8 || c == 9 ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t i = 0; i < set->n; i++)
		mem_row_cells(t, &set->rows[i]);
	if ((rc = print_table(t, csv, out)))
		goto out_io;
	static const char *const sh[9] = {"source",	    "rows",	     "measured",
					  "mape_pct",	    "bias_pct",	     "worst_pct",
					  "verdicts_right", "loso_band_pct", "inside_loso_band"};
	if (fprintf(out, "\n") < 0 || table_create(&t, 9)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		t = NULL;
		goto out;
	}
	for (size_t c = 0; c < 9; c++)
		table_header(t, c, sh[c], c == 0 ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t j = 0; j < nsrc; j++)
		mem_source_cells(t, &src[j]);
	mem_source_cells(t, all);
	if ((rc = print_table(t, csv, out)))
		goto out_io;
	t = NULL;
	if (!csv &&
	    fprintf(out,
		    "\nleave-one-source-out: %.1f %% mean of the %zu sources' MAPE of the measured "
		    "peaks (nothing in the memory model is fitted to these rows); verdicts right "
		    "%d of %d (%.0f %%); %d of %d measured peaks inside the 80 %% band estimated "
		    "from the other sources\n",
		    100.0 * all->mape, nsrc, all->right, all->verdicts,
		    100.0 * all->right / (all->verdicts ? all->verdicts : 1), all->loso_inside,
		    all->measured) < 0)
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the report failed");
	if (!rc && fflush(out))
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the report failed");
	goto out;
	return rc;
out_io:
	t = NULL; /* print_table destroyed it */
	return ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the report failed");
out:
	if (t)
		table_destroy(t);
	return rc;
}
int report_validate_write(const struct report_validation *v, bool csv, FILE *out,
			  struct ts_error *err)
{
	if (print_rows(v->rows, v->n, v->use, v->pred, csv, out) || fprintf(out, "\n") < 0 ||
	    print_summary(v->summary, csv, out) || fflush(out))
		return ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the report failed");
	/* the bands need every source: each is checked on the others' rows */
	if (v->res) {
		if (fprintf(out, "\n") < 0)
			return ts_error_set(err, TS_EIO, NULL, 0, NULL,
					    "writing the report failed");
		int rc = print_bands(v->res, v->nres, csv, out, err);
		if (rc)
			return rc;
	}
	if (fprintf(out, "\n") < 0 || print_loso(v->loso, v->pick, v->have, csv, out) ||
	    fflush(out))
		return ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the report failed");
	return 0;
}

int report_loso_write(const struct loso_table *t, bool csv, FILE *out, struct ts_error *err)
{
	if (!csv && fprintf(out,
			    "refits from launch_s %.2f us, tc_sustain %.4g (gemm_k0 is not refit: "
			    "a published GEMM table gives it); control on every fitted source: "
			    "launch_s %.2f us, tc_sustain %.4g, mean fitting-half MAPE %.2f %%\n\n",
			    loso_start[0] * 1e6, loso_start[1], t->all_k[0] * 1e6, t->all_k[1],
			    100.0 * t->all_fit_mape) < 0)
		return ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the report failed");
	if (print_loso(t, NULL, NULL, csv, out) || fflush(out))
		return ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the report failed");
	return 0;
}
