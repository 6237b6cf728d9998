/* ts_compare_write: several results side by side, the best of each row
 * marked: a text table with a column per scenario, a CSV with a row per
 * scenario, a JSON list of the results.
 * SPDX-License-Identifier: MIT */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "base/ts.h"
#include "base/units.h"
#include "report/report.h"
#include "report/table.h"
#include "run/result.h"

enum better { NONE, LOWER, HIGHER };

/* One row of the comparison. */
struct row {
	const char *label; /* text report */
	const char *key;   /* CSV/JSON */
	enum better better;
};

static const struct row rows[] = {
    {"GPUs", "gpus", NONE},
    {"iteration time", "iteration_time_s", LOWER},
    {"throughput", "tokens_per_s", HIGHER},
    {"scaling efficiency (same GPU type)", "scaling_efficiency", HIGHER},
    {"MFU", "mfu", HIGHER},
    {"memory per GPU", "memory_per_gpu_bytes", LOWER},
    {"fits in memory", "fits", NONE},
    {"time to train", "time_to_train_s", LOWER},
    {"energy", "energy_kwh", LOWER},
    {"cost", "cost_usd", LOWER},
    {"cost per million tokens", "usd_per_mtokens", LOWER},
    {"time per epoch", "epoch_s", LOWER},
    {"bottleneck", "bottleneck", NONE},
};
#define NROWS (sizeof rows / sizeof rows[0])
enum { ROW_TPUT = 2, ROW_SCALING = 3, ROW_FITS = 6, ROW_PRICE = 10, ROW_EPOCH = 11 };

/* What the results of one comparison count in. */
struct units {
	bool any_sample;  /* some result is of a sample-based model */
	bool all_sample;  /* all are: throughput in samples/s, price per epoch */
	bool mixed;	  /* some count tokens and some samples: no best for those rows */
	const char *unit; /* the common sample unit ("images") when all_sample and one */
};

static void units_of(const struct ts_result *const *rs, size_t np, struct units *u)
{
	u->any_sample = false;
	u->all_sample = true;
	u->unit = rs[0]->per_sample ? rs[0]->unit : NULL;
	for (size_t k = 0; k < np; k++) {
		u->any_sample = u->any_sample || rs[k]->per_sample;
		u->all_sample = u->all_sample && rs[k]->per_sample;
		if (!rs[k]->per_sample || !u->unit || strcmp(rs[k]->unit, u->unit))
			u->unit = NULL;
	}
	u->mixed = u->any_sample && !u->all_sample;
	if (u->all_sample && !u->unit)
		u->unit = "samples";
}

/* The first result of rs[0..k] on the GPU type of rs[k]: throughput per
 * GPU is compared like with like, never across GPU types. */
static const struct ts_result *same_gpu_base(const struct ts_result *const *rs, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (!strcmp(rs[j]->gpu, rs[k]->gpu))
			return rs[j];
	return rs[k];
}

/* Whether another result of rs[0..np) runs on the GPU type of rs[k]. */
static bool gpu_shared(const struct ts_result *const *rs, size_t np, size_t k)
{
	for (size_t j = 0; j < np; j++)
		if (j != k && !strcmp(rs[j]->gpu, rs[k]->gpu))
			return true;
	return false;
}

/* A result's throughput in its own unit: samples/s for a sample-based
 * model, tokens/s for a transformer. */
static double tput(const struct ts_result *r)
{
	return r->per_sample ? r->samples_per_s : r->tokens_per_s;
}

static double value(const struct ts_result *const *rs, size_t np, size_t k, size_t row)
{
	const struct ts_result *r = rs[k];
	switch (row) {
	case 0:
		return (double)r->gpus;
	case 1:
		return r->iteration_time_s;
	case 2:
		return tput(r);
	case 3: { /* NaN for a GPU type no other result runs on */
		const struct ts_result *b = same_gpu_base(rs, k);
		if (!gpu_shared(rs, np, k))
			return (double)NAN;
		return (tput(r) / r->gpus) / (tput(b) / b->gpus);
	}
	case 4:
		return r->mfu;
	case 5:
		return r->memory_per_gpu_bytes;
	case 6:
		return r->fits ? 1.0 : 0.0;
	case 7:
		return r->time_to_train_s;
	case 8:
		return r->energy_kwh;
	case 9:
		return r->cost_usd;
	case 10:
		return r->per_sample ? r->usd_per_epoch : r->usd_per_mtokens;
	case 11:
		return r->per_sample ? r->epoch_s : 0.0;
	default:
		return 0.0;
	}
}

/* The band x [p10/p50, p90/p50] of b, for a figure x that scales like b's
 * (energy like GPU energy, a price like the cost). */
static struct ts_band scaled(struct ts_band b, double x)
{
	if (!(b.p50 > 0.0))
		return (struct ts_band){x, x, x};
	return (struct ts_band){x * b.p10 / b.p50, x, x * b.p90 / b.p50};
}

/* The reported 80 % band of row `row`'s value v of result r; a point at v
 * for rows without one (GPUs, scaling efficiency, whose model error
 * largely cancels in the ratio; fits; bottleneck). */
static struct ts_band band_of(const struct ts_result *r, double v, size_t row)
{
	const struct ts_bands *b = &r->band;
	switch (row) {
	case 1:
		return b->iteration_time_s;
	case 2:
		return r->per_sample ? b->samples_per_s : b->tokens_per_s;
	case 4:
		return b->mfu;
	case 5:
		return b->memory_per_gpu_bytes;
	case 7:
		return b->time_to_train_s;
	case 8:
		return scaled(b->gpu_energy_kwh, v);
	case 9:
		return b->cost_usd;
	case 10:
		return scaled(b->cost_usd, v);
	case 11:
		return scaled(
		    b->time_to_train_s.p50 > 0.0 ? b->time_to_train_s : b->iteration_time_s, v);
	default:
		return (struct ts_band){v, v, v};
	}
}

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
	if (row == ROW_TPUT && r->per_sample) {
		char u[40];
		snprintf(u, sizeof u, "%.20s/s", r->unit);
		report_fmt_rate(b, n, v, u);
		return;
	}
	if (row == ROW_PRICE && r->per_sample) {
		if (v > 0.0)
			report_fmt(b, n, RQ_USD, v);
		else
			snprintf(b, n, "-");
		return;
	}
	if (row == ROW_SCALING && !isfinite(v)) {
		snprintf(b, n, "- (only %s)", r->gpu);
		return;
	}
	if (row == ROW_EPOCH) {
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

/* What a comparison says of one row: its label (text) and key (CSV,
 * JSON) in the comparison's units, whether it is shown, and its verdict
 * from the 80 % bands (sim/run/band.h). The candidates are the results
 * that fit and have a figure (for scaling efficiency, not the reference
 * of their GPU type, whose 100 % is a definition); with fewer than two
 * there is nothing to compare and no verdict. The best candidate leads
 * with every candidate whose band overlaps the best's: a lead of one is
 * the winner (best), a lead of some is a tie (lead[k] for each), a lead
 * of all is no clear winner (unclear). */
struct verdict {
	const char *label, *key;
	bool shown;
	size_t best;  /* the winner; np: none */
	bool tied;    /* a lead of two or more, not all the candidates */
	bool unclear; /* every candidate leads */
	bool *lead;   /* [np]: in a tie, whether result k leads (borrowed) */
};

/* Whether result k is a candidate of row r. */
static bool candidate(const ts_result *const *rs, size_t np, size_t k, size_t r)
{
	double v = value(rs, np, k, r);
	if (!isfinite(v) || !rs[k]->fits || (v == 0.0 && r >= 7))
		return false;
	return r != ROW_SCALING || same_gpu_base(rs, k) != rs[k];
}

static void judge(const ts_result *const *rs, size_t np, const struct units *u, size_t r,
		  struct verdict *vd)
{
	bool *lead = vd->lead;
	memset(vd, 0, sizeof *vd);
	memset(lead, 0, np * sizeof *lead);
	vd->lead = lead;
	vd->shown = !(r == ROW_EPOCH && !u->any_sample);
	vd->best = np;
	vd->label = rows[r].label;
	vd->key = rows[r].key;
	if (r == ROW_TPUT && u->all_sample) {
		vd->label = "throughput";
		vd->key = "samples_per_s";
	} else if (r == ROW_TPUT && u->mixed) {
		vd->label = "throughput (tokens/s or samples/s)";
		vd->key = "throughput_per_s";
	} else if (r == ROW_PRICE && u->all_sample) {
		vd->label = "cost per epoch";
		vd->key = "usd_per_epoch";
	} else if (r == ROW_PRICE && u->mixed) {
		vd->label = "cost per million tokens or per epoch";
		vd->key = "usd_per_mtokens_or_epoch";
	}
	/* throughput and price in two units (tokens and samples) have no best */
	if (rows[r].better == NONE ||
	    (u->mixed && (r == ROW_TPUT || r == ROW_PRICE || r == ROW_EPOCH)))
		return;
	size_t best = np, ncand = 0;
	double bv = 0.0;
	for (size_t k = 0; k < np; k++) {
		if (!candidate(rs, np, k, r))
			continue;
		double v = value(rs, np, k, r);
		ncand++;
		if (best == np || (rows[r].better == LOWER ? v < bv : v > bv)) {
			best = k;
			bv = v;
		}
	}
	if (ncand < 2)
		return;
	struct ts_band wb = band_of(rs[best], bv, r);
	size_t nlead = 0;
	for (size_t k = 0; k < np; k++) {
		if (!candidate(rs, np, k, r))
			continue;
		struct ts_band kb = band_of(rs[k], value(rs, np, k, r), r);
		vd->lead[k] = k == best || (kb.p10 <= wb.p90 && wb.p10 <= kb.p90);
		nlead += vd->lead[k];
	}
	if (nlead == 1)
		vd->best = best;
	else if (nlead < ncand)
		vd->tied = true;
	else
		vd->unclear = true;
	if (!vd->tied)
		memset(vd->lead, 0, np * sizeof *vd->lead);
}

/* The keys of the shown rows whose verdict has pred(vd, k), separated by
 * ';', into b (size n). */
static const char *key_list(char *b, size_t n, const struct verdict *vd, size_t k,
			    bool (*pred)(const struct verdict *, size_t))
{
	size_t len = 0;
	b[0] = '\0';
	for (size_t r = 0; r < NROWS; r++)
		if (vd[r].shown && pred(&vd[r], k) && len < n)
			len +=
			    (size_t)snprintf(b + len, n - len, "%s%s", len ? ";" : "", vd[r].key);
	return b;
}

static bool is_best(const struct verdict *vd, size_t k)
{
	return vd->best == k;
}

static bool is_tied(const struct verdict *vd, size_t k)
{
	return vd->tied && vd->lead[k];
}

static bool is_unclear(const struct verdict *vd, size_t k)
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
static int write_csv(const ts_result *const *rs, size_t np, const struct verdict *vd, FILE *out)
{
	size_t nscen = 0, nshown = 0;
	while (report_csv_scenario_col(nscen))
		nscen++;
	for (size_t r = 0; r < NROWS; r++)
		nshown += vd[r].shown;
	struct ts_table *t = NULL;
	if (table_create(&t, 2 + nshown + 3 + nscen))
		return api_failf(TS_ENOMEM, NULL, "out of memory");
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
		table_cell(t, c++, "%s", api_result_file(rs[k]));
		for (size_t r = 0; r < NROWS; r++) {
			if (!vd[r].shown)
				continue;
			double v = value(rs, np, k, r);
			if (r == ROW_FITS)
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
			report_scenario_cell(t, c++, api_result_scenario(rs[k]),
					     report_csv_scenario_col(i));
	}
	int rc = table_status(t) ? api_failf(TS_ENOMEM, NULL, "out of memory") : 0;
	if (!rc && (table_print_csv(t, out) || fflush(out)))
		rc = api_failf(TS_EIO, NULL, "writing the table failed");
	table_destroy(t);
	return rc;
}

/* The JSON of a comparison: a list of the results, each with its scenario
 * and "comparison": its scaling efficiency and the keys of the rows it
 * wins, of those it leads with others within the bands (tied) and of those
 * the bands leave undecided. */
static int write_json(const ts_result *const *rs, size_t np, const struct verdict *vd, FILE *out)
{
	json_t *docs = json_array();
	bool ok = docs != NULL;
	for (size_t k = 0; ok && k < np; k++) {
		json_t *d = report_result_document(rs[k], api_result_scenario(rs[k]));
		json_t *c = json_object(), *b = json_array(), *ti = json_array(),
		       *nc = json_array();
		double se = value(rs, np, k, ROW_SCALING);
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
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	}
	int rc = 0;
	if (json_dumpf(docs, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) ||
	    fputc('\n', out) == EOF || fflush(out))
		rc = api_failf(TS_EIO, NULL, "writing the table failed");
	json_decref(docs);
	return rc;
}

/* Most characters in a line of the text's title. */
#define TITLE_WIDTH 100

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
static int write_text(const ts_result *const *rs, size_t np, const struct verdict *vd, FILE *out)
{
	struct ts_table *t = NULL;
	char(*heads)[COLUMN_NAME_MAX] = NULL;
	int rc = 0;
	if (table_create(&t, np + 1) || !(heads = ts_calloc(np, sizeof *heads))) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
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
			text_cell(b, sizeof b, rs[k], value(rs, np, k, r), r);
			table_cell(t, k + 1, "%s%s", b,
				   k == vd[r].best || is_tied(&vd[r], k) ? " *" : "");
		}
	}
	if (table_status(t)) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
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
		rc = api_failf(TS_EIO, NULL, "writing the table failed");
out:
	table_destroy(t);
	ts_free(heads, np * sizeof *heads);
	return rc;
}

int ts_compare_write(const ts_result *const *rs, size_t np, enum ts_format format, FILE *out)
{
	if (np < 2)
		return api_failf(TS_EUSAGE, NULL, "found %zu scenario%s, expected at least two", np,
				 np == 1 ? "" : "s");
	struct units u;
	struct verdict vd[NROWS];
	bool *lead = ts_calloc(NROWS * np, sizeof *lead);
	if (!lead)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	units_of(rs, np, &u);
	for (size_t r = 0; r < NROWS; r++) {
		vd[r].lead = lead + r * np;
		judge(rs, np, &u, r, &vd[r]);
	}
	int rc = format == TS_FORMAT_CSV    ? write_csv(rs, np, vd, out)
		 : format == TS_FORMAT_JSON ? write_json(rs, np, vd, out)
					    : write_text(rs, np, vd, out);
	ts_free(lead, NROWS * np * sizeof *lead);
	return rc;
}
