/* The writers of a comparison (trainsim compare): a text table with a
 * column per scenario, a CSV with a row per scenario, a JSON list of the
 * results, each from the figures and verdicts of run/compare.
 * SPDX-License-Identifier: MIT */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/ts.h"
#include "base/units.h"
#include "report/compare.h"
#include "report/report.h"
#include "report/table.h"
#include "run/compare.h"
#include "run/result.h"

#define NROWS COMPARE_NROWS

/* A duration, "-" for none. */
static void fmt_duration(char *b, size_t n, double s)
{
	if (s <= 0.0)
		snprintf(b, n, "-");
	else
		report_fmt(b, n, RQ_DURATION, s);
}

static void text_cell(char *b, size_t n, const struct ts_result *r, double v, size_t row)
{
	if (row == COMPARE_TPUT && r->per_sample) {
		char u[40];
		snprintf(u, sizeof u, "%.20s/s", r->unit);
		report_fmt_rate(b, n, v, u);
		return;
	}
	if (row == COMPARE_PRICE && r->per_sample) {
		if (v > 0.0)
			report_fmt(b, n, RQ_USD, v);
		else
			snprintf(b, n, "-");
		return;
	}
	if (row == COMPARE_SCALING && !isfinite(v)) {
		snprintf(b, n, "- (only %s)", r->gpu);
		return;
	}
	if (row == COMPARE_EPOCH) {
		fmt_duration(b, n, v);
		return;
	}
	switch (row) {
	case 0:
		snprintf(b, n, "%u", (unsigned)r->gpus);
		break;
	case 1:
		report_fmt(b, n, RQ_TIME, v);
		break;
	case 2:
		report_fmt_rate(b, n, v, "tokens/s");
		break;
	case 3:
	case 4:
		report_fmt(b, n, RQ_PERCENT, v);
		break;
	case 5: {
		char c[32];
		snprintf(b, n, "%.1f / %s", v / (double)TS_GiB,
			 report_fmt(c, sizeof c, RQ_GIB, r->memory_capacity_bytes));
		break;
	}
	case 6:
		/* tight: within the memory model's error of capacity, a risk */
		snprintf(b, n, "%s%s", r->fits ? "yes" : "NO",
			 strcmp(r->memory_verdict, "tight") ? "" : " (tight)");
		break;
	case 7:
		fmt_duration(b, n, v);
		break;
	case 8:
	case 9:
	case 10:
		if (v > 0.0)
			report_fmt(b, n, row == 8 ? RQ_KWH : row == 9 ? RQ_USD : RQ_USD_RATE, v);
		else
			snprintf(b, n, "-");
		break;
	default: { /* "what (why): share" without the parenthesis */
		const char *par = strstr(r->bottleneck, " ("), *colon = strchr(r->bottleneck, ':');
		if (par && colon && par < colon) {
			const char *close = strchr(par, ')');
			snprintf(b, n, "%.*s%s", (int)(par - r->bottleneck), r->bottleneck,
				 close ? close + 1 : "");
		} else {
			snprintf(b, n, "%s", r->bottleneck);
		}
		break;
	}
	}
}

#define COLUMN_NAME_MAX 200

/* heads[k]: the column of scenario k in the text table, its name unless
 * that is an earlier column's, then the name with the first free suffix
 * " (2)", " (3)", ...; so every scenario has its own column. */
static void column_name(char (*heads)[COLUMN_NAME_MAX], size_t k, const char *name)
{
	for (unsigned i = 1;; i++) {
		if (i == 1)
			snprintf(heads[k], COLUMN_NAME_MAX, "%s", name);
		else
			snprintf(heads[k], COLUMN_NAME_MAX, "%.180s (%u)", name, i);
		bool taken = false;
		for (size_t j = 0; j < k && !taken; j++)
			taken = !strcmp(heads[j], heads[k]);
		if (!taken)
			return;
	}
}

/* The keys of the shown rows whose verdict has pred(vd, k), separated by
 * ';', into b (size n). */
static const char *key_list(char *b, size_t n, const struct compare_row *vd, size_t k,
			    bool (*pred)(const struct compare_row *, size_t))
{
	size_t len = 0;
	b[0] = '\0';
	for (size_t r = 0; r < NROWS; r++)
		if (vd[r].shown && pred(&vd[r], k) && len < n)
			len +=
			    (size_t)snprintf(b + len, n - len, "%s%s", len ? ";" : "", vd[r].key);
	return b;
}

static bool is_best(const struct compare_row *vd, size_t k)
{
	return vd->best == k;
}

static bool is_tied(const struct compare_row *vd, size_t k)
{
	return vd->tied && vd->lead[k];
}

static bool is_unclear(const struct compare_row *vd, size_t k)
{
	(void)k;
	return vd->unclear;
}

/* The CSV of a comparison: a row per scenario, its name and file first,
 * then a column per metric (the key, its unit in its name), "best" (the
 * keys of the rows the scenario wins), "tied" (of those it leads with
 * others, within the bands), "no_clear_winner" (of the rows the bands
 * leave undecided), then the scenario's settings by key path
 * ("model.name", "parallel.tp", ...). */
static int write_csv(const struct compare *cmp, const struct ts_result *const *rs,
		     const json_t *const *scen, const char *const *files, FILE *out,
		     struct ts_error *err)
{
	const struct compare_row *vd = cmp->row;
	size_t np = cmp->n;
	size_t nscen = 0, nshown = 0;
	while (report_csv_scenario_col(nscen))
		nscen++;
	for (size_t r = 0; r < NROWS; r++)
		nshown += vd[r].shown;
	struct ts_table *t = NULL;
	if (table_create(&t, 2 + nshown + 3 + nscen))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	size_t c = 0;
	table_header(t, c++, "name", TABLE_LEFT);
	table_header(t, c++, "file", TABLE_LEFT);
	for (size_t r = 0; r < NROWS; r++)
		if (vd[r].shown)
			table_header(t, c++, vd[r].key, TABLE_LEFT);
	table_header(t, c++, "best", TABLE_LEFT);
	table_header(t, c++, "tied", TABLE_LEFT);
	table_header(t, c++, "no_clear_winner", TABLE_LEFT);
	for (size_t i = 0; i < nscen; i++)
		table_header(t, c++, report_csv_scenario_col(i), TABLE_LEFT);
	for (size_t k = 0; k < np; k++) {
		char b[NROWS * 40];
		table_add_row(t);
		c = 0;
		table_cell(t, c++, "%s", rs[k]->name);
		table_cell(t, c++, "%s", files[k]);
		for (size_t r = 0; r < NROWS; r++) {
			if (!vd[r].shown)
				continue;
			double v = vd[r].value[k];
			if (r == COMPARE_FITS)
				table_cell(t, c, "%s", rs[k]->fits ? "true" : "false");
			else if (r == NROWS - 1)
				table_cell(t, c, "%s", rs[k]->bottleneck);
			else if (isfinite(v))
				table_cell(t, c, "%.17g", v);
			c++;
		}
		table_cell(t, c++, "%s", key_list(b, sizeof b, vd, k, is_best));
		table_cell(t, c++, "%s", key_list(b, sizeof b, vd, k, is_tied));
		table_cell(t, c++, "%s", key_list(b, sizeof b, vd, k, is_unclear));
		for (size_t i = 0; i < nscen; i++)
			report_scenario_cell(t, c++, scen[k], report_csv_scenario_col(i));
	}
	int rc = table_status(t) ? ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory") : 0;
	if (!rc && (table_print_csv(t, out) || fflush(out)))
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the table failed");
	table_destroy(t);
	return rc;
}

/* The JSON of a comparison: a list of the results, each with its scenario
 * and "comparison": its scaling efficiency and the keys of the rows it
 * wins, of those it leads with others within the bands (tied) and of those
 * the bands leave undecided. */
static int write_json(const struct compare *cmp, const struct ts_result *const *rs,
		      const json_t *const *scen, const char *const *files, FILE *out,
		      struct ts_error *err)
{
	const struct compare_row *vd = cmp->row;
	size_t np = cmp->n;
	(void)files;
	json_t *docs = json_array();
	bool ok = docs != NULL;
	for (size_t k = 0; ok && k < np; k++) {
		json_t *d = report_result_document(rs[k], scen[k]);
		json_t *c = json_object(), *b = json_array(), *ti = json_array(),
		       *nc = json_array();
		double se = vd[COMPARE_SCALING].value[k];
		ok = d && !json_array_append_new(docs, d) && c &&
		     !json_object_set_new(d, "comparison", c) &&
		     !json_object_set_new(c, "scaling_efficiency",
					  isfinite(se) ? json_real(se) : json_null()) &&
		     b && !json_object_set_new(c, "best", b) && ti &&
		     !json_object_set_new(c, "tied", ti) && nc &&
		     !json_object_set_new(c, "no_clear_winner", nc);
		for (size_t r = 0; ok && r < NROWS; r++) {
			if (!vd[r].shown)
				continue;
			if (vd[r].best == k)
				ok = !json_array_append_new(b, json_string(vd[r].key));
			if (ok && is_tied(&vd[r], k))
				ok = !json_array_append_new(ti, json_string(vd[r].key));
			if (ok && vd[r].unclear)
				ok = !json_array_append_new(nc, json_string(vd[r].key));
		}
	}
	if (!ok) {
		json_decref(docs);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	int rc = 0;
	if (json_dumpf(docs, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) ||
	    fputc('\n', out) == EOF || fflush(out))
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the table failed");
	json_decref(docs);
	return rc;
}

/* Most characters in a line of the text's title. */
#define TITLE_WIDTH 100
/* Least width a scenario's column header wraps to (the values' widest,
 * "compute: 100% of the iteration", is 30). */
#define HEAD_WIDTH 24

/* Write text s in lines of at most width characters, broken at spaces (a
 * word longer than width on its own line). Returns nonzero on a write
 * error. */
static int print_wrapped(const char *s, size_t width, FILE *out)
{
	while (*s) {
		size_t len = strlen(s), cut = len;
		if (len > width) {
			cut = width;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (!cut)
				cut = strcspn(s, " ");
		}
		if (fprintf(out, "%.*s\n", (int)cut, s) < 0)
			return 1;
		s += cut;
		while (*s == ' ')
			s++;
	}
	return 0;
}

/* The text table: a row per metric, a column per scenario, '*' on the
 * best of a row; then what would fit, for each scenario that does not. */
static int write_text(const struct compare *cmp, const struct ts_result *const *rs,
		      const json_t *const *scen, const char *const *files, FILE *out,
		      struct ts_error *err)
{
	const struct compare_row *vd = cmp->row;
	size_t np = cmp->n;
	(void)scen;
	(void)files;
	struct ts_table *t = NULL;
	char(*heads)[COLUMN_NAME_MAX] = NULL;
	int rc = 0;
	if (table_create(&t, np + 1) || !(heads = ts_calloc(np, sizeof *heads))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	/* a scenario's name (with its --set overrides) is its column's
	 * header: long names wrap so the table keeps to TITLE_WIDTH columns
	 * where its values allow (three names of 60 characters made lines of
	 * 230), no header narrower than HEAD_WIDTH or its column's values */
	table_wrap_headers(t, HEAD_WIDTH, TITLE_WIDTH);
	table_header(t, 0, "", TABLE_LEFT);
	for (size_t k = 0; k < np; k++) {
		column_name(heads, k, rs[k]->name);
		table_header(t, k + 1, heads[k], TABLE_RIGHT);
	}
	for (size_t r = 0; r < NROWS; r++) {
		if (!vd[r].shown)
			continue;
		table_add_row(t);
		table_cell(t, 0, "%s%s", vd[r].label,
			   vd[r].unclear ? " (no clear winner)"
			   : vd[r].tied	 ? " (tied)"
					 : "");
		for (size_t k = 0; k < np; k++) {
			char b[200];
			text_cell(b, sizeof b, rs[k], vd[r].value[k], r);
			table_cell(t, k + 1, "%s%s", b,
				   k == vd[r].best || is_tied(&vd[r], k) ? " *" : "");
		}
	}
	if (table_status(t)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	char title[600];
	snprintf(title, sizeof title,
		 "Comparison of %zu scenarios. '*' marks the best of a row where its 80 %% band "
		 "overlaps no other's; where some bands overlap the best's, '*' marks each of "
		 "those and the row says tied; where all do, the row says no clear winner. "
		 "Scaling efficiency is throughput per GPU relative to the first scenario on the "
		 "same GPU type (that one's 100 %% is the reference, not a result).",
		 np);
	int e = print_wrapped(title, TITLE_WIDTH, out) || fputc('\n', out) == EOF ||
		table_print(t, out);
	for (size_t k = 0; !e && k < np; k++) {
		if (!rs[k]->remedies)
			continue;
		char nm[4 * sizeof rs[k]->name];
		ts_escape_ctl(nm, sizeof nm, rs[k]->name, sizeof rs[k]->name);
		e = fprintf(out, "\n%s does not fit in GPU memory; ", nm) < 0;
		report_remedies_text(rs[k], out);
	}
	if (e || fflush(out))
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the table failed");
out:
	table_destroy(t);
	ts_free(heads, np * sizeof *heads);
	return rc;
}

int report_compare_write(const struct compare *c, const struct ts_result *const *rs,
			 const json_t *const *scenarios, const char *const *files,
			 enum ts_format format, FILE *out, struct ts_error *err)
{
	return format == TS_FORMAT_CSV	  ? write_csv(c, rs, scenarios, files, out, err)
	       : format == TS_FORMAT_JSON ? write_json(c, rs, scenarios, files, out, err)
					  : write_text(c, rs, scenarios, files, out, err);
}
