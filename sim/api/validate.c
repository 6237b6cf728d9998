/* ts_validate_write: predictions against the published measurements of
 * tests/validation/ (run/validate, run/loso), optionally with the constants
 * refit, and of memory (run/memval), written by report/validate.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "plan/env.h"
#include "report/families.h"
#include "report/validate.h"
#include "run/families.h"
#include "run/loso.h"
#include "run/memval.h"
#include "run/validate.h"
#include "work/compute.h"

int ts_validate_write(const ts_env *env, const char *source, bool fit, enum ts_format format,
		      FILE *out, FILE *fit_out)
{
	return ts_validate_write_bands(env, source, fit, format, out, fit_out, NULL);
}

/* "vtrain, bert, ..., or all" for messages. */
static void source_list(char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int s = 0; s < VAL_SOURCE_COUNT_ && k < n; s++)
		k += (size_t)snprintf(buf + k, n - k, "%s, ", val_source_name((enum val_source)s));
	if (k < n)
		snprintf(buf + k, n - k, "or all");
}

int ts_validate_write_bands(const ts_env *env, const char *source, bool fit, enum ts_format format,
			    FILE *out, FILE *fit_out, FILE *bands)
{
	if (!source)
		source = "all";
	enum val_source one = VAL_SOURCE_COUNT_;
	bool all = !strcmp(source, "all");
	if (!all && !val_source_parse(source, &one)) {
		char names[512];
		source_list(names, sizeof names);
		return api_failf(TS_EUSAGE, "--source", "found \"%s\", expected %s", source, names);
	}
	if (format == TS_FORMAT_JSON)
		return api_failf(TS_EUSAGE, "--format", "found \"json\", expected text or csv");
	if (bands && !all)
		return api_failf(TS_EUSAGE, "--bands",
				 "found --source %s, expected --source all (each source's band "
				 "is estimated on the others)",
				 source);
	bool csv = format == TS_FORMAT_CSV;
	struct work_calib calib = env->calib;
	int rc = 0;
	struct ts_error err;
	ts_error_clear(&err);
	struct val_row *rows = NULL;
	size_t n = 0;
	bool *use = NULL, *unseen = NULL;
	double *pred = NULL, *loso = NULL;
	struct band_resid *res = NULL;
	size_t nres = 0;
	if (val_load_all(env->root, &rows, &n, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	use = ts_calloc(n ? n : 1, sizeof *use);
	unseen = ts_calloc(n ? n : 1, sizeof *unseen);
	pred = ts_calloc(n ? n : 1, sizeof *pred);
	loso = ts_calloc(n ? n : 1, sizeof *loso);
	if (!use || !pred || !unseen || !loso) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		use[i] = all || rows[i].src == one;
		pred[i] = NAN;
	}
	if (fit) {
		struct val_fit_result fr;
		if (val_fit(env->cat, &calib, rows, n, &fr, &err)) {
			rc = api_fail(&err);
			goto out;
		}
		/* with CSV on stdout the fit goes to stderr */
		report_val_fit(&fr, &calib, fit_out);
		calib = fr.calib;
	}
	/* the leave-one-source-out constants: refits stored by --loso */
	struct loso_table stored, live = {0};
	bool found = false;
	if (loso_load(env->root, &stored, &found, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	if (val_predict_all(env->cat, &calib, rows, n, use, pred, &err) ||
	    loso_predict(env->cat, &calib, found ? &stored : NULL, rows, n, pred, loso, unseen,
			 &err)) {
		rc = api_fail(&err);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!use[i])
			pred[i] = loso[i] = NAN; /* not asked for: no figures */
	struct val_summary s;
	val_summarize(rows, n, use, pred, &s);
	/* the bands need every source: each is checked on the others' rows */
	if (all && val_residuals(env->cat, rows, n, loso, unseen, &res, &nres, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	loso_errors(rows, n, pred, loso, &live);
	bool have[VAL_SOURCE_COUNT_], pick[VAL_SOURCE_COUNT_];
	for (int k = 0; k < VAL_SOURCE_COUNT_; k++) {
		live.s[k].present = live.s[k].present && live.s[k].rows;
		have[k] = found && stored.s[k].present;
		pick[k] = all || k == (int)one;
		if (have[k]) {
			memcpy(live.s[k].k, stored.s[k].k, sizeof live.s[k].k);
			live.s[k].fit_mape = stored.s[k].fit_mape;
		}
	}
	struct report_validation v = {rows, n,	   use,	 pred, &s, all ? res : NULL,
				      nres, &live, pick, have};
	if (report_validate_write(&v, csv, out, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	if (bands) {
		struct band_table *bt = ts_calloc(1, sizeof *bt);
		if (!bt) {
			rc = api_failf(TS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		if (band_table_build(res, nres, NULL, bt, &err))
			rc = api_fail(&err);
		else if (band_table_write(bt, report_bands_header, bands) || fflush(bands))
			rc = api_failf(TS_EIO, "--bands", "writing the bands file failed");
		ts_free(bt, sizeof *bt);
	}
out:
	if (res)
		ts_free(res, nres * sizeof *res);
	ts_free(use, (n ? n : 1) * sizeof *use);
	ts_free(unseen, (n ? n : 1) * sizeof *unseen);
	ts_free(pred, (n ? n : 1) * sizeof *pred);
	ts_free(loso, (n ? n : 1) * sizeof *loso);
	val_rows_free(rows, n);
	return rc;
}

int ts_validate_loso_write(const ts_env *env, enum ts_format format, FILE *out, FILE *loso_out)
{
	if (format == TS_FORMAT_JSON)
		return api_failf(TS_EUSAGE, "--format", "found \"json\", expected text or csv");
	bool csv = format == TS_FORMAT_CSV;
	int rc = 0;
	struct ts_error err;
	ts_error_clear(&err);
	struct val_row *rows = NULL;
	size_t n = 0;
	double *pred = NULL;
	struct loso_table *t = ts_calloc(1, sizeof *t);
	if (!t)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	if (val_load_all(env->root, &rows, &n, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	if (!(pred = ts_calloc(n ? n : 1, sizeof *pred))) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	if (val_predict_all(env->cat, &env->calib, rows, n, NULL, pred, &err) ||
	    loso_fit(env->cat, &env->calib, rows, n, pred, t, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	if (report_loso_write(t, csv, out, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	if (loso_out && (loso_write(t, report_loso_header, loso_out) || fflush(loso_out)))
		rc = api_failf(TS_EIO, "--loso", "writing the leave-one-source-out file failed");
out:
	ts_free(pred, (n ? n : 1) * sizeof *pred);
	ts_free(t, sizeof *t);
	val_rows_free(rows, n);
	return rc;
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
	if (memval_predict(env->cat, &env->calib, set.rows, set.n, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	if (!(src = ts_calloc(max, sizeof *src))) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	memval_summarize(set.rows, set.n, src, max, &nsrc, &all);
	if (report_memval_write(&set, src, nsrc, &all, csv, out, &err))
		rc = api_fail(&err);
out:
	if (src)
		ts_free(src, max * sizeof *src);
	memval_free(&set);
	return rc;
}

int ts_validate_families_write(const ts_env *env, const char *source, FILE *out)
{
	if (!source)
		source = "all";
	enum val_source one;
	if (strcmp(source, "all") && !val_source_parse(source, &one)) {
		char names[512];
		source_list(names, sizeof names);
		return api_failf(TS_EUSAGE, "--source", "found \"%s\", expected %s", source, names);
	}
	struct ts_error err;
	ts_error_clear(&err);
	struct val_row *rows = NULL;
	size_t n = 0, nf = 0;
	struct fam_family *fams = NULL;
	if (val_load_all(env->root, &rows, &n, &err))
		return api_fail(&err);
	int rc = 0;
	if (fam_compute(env->cat, &env->calib, rows, n, source, &fams, &nf, &err))
		rc = api_fail(&err);
	else if (report_families_write(rows, fams, nf, out))
		rc = api_failf(TS_EIO, NULL, "writing the family table failed");
	if (fams)
		ts_free(fams, nf * sizeof *fams);
	val_rows_free(rows, n);
	return rc;
}
