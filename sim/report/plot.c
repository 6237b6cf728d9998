/* The data of a chart (trainsim plot): the numbers a gnuplot chart of results needs, read from
 * a results CSV (trainsim sweep, run --format csv or compare --format csv;
 * columns found by name) and written whitespace-separated, so the gnuplot
 * scripts (plots/KIND.gp) never parse CSV; each script names its data
 * columns at its top. The settings (title, axis label, number of series)
 * are gnuplot assignments the caller loads before the script.
 *
 * Scaling: rows are grouped into series by the values of the series
 * columns (by default the sweep's axes other than x: the columns between
 * "point" and "status"), each series sorted by x and written as one data
 * block (blocks apart by two blank lines, each opening with its title, as
 * gnuplot's index and columnheader read them), with its ideal line:
 * linear in GPUs from the series' first point.
 *
 * Queue: the timeline of trainsim queue --timeline (a row per change of
 * the state, which holds until the next row's time) is streamed, not
 * kept, so a timeline of any length plots; the time-means of the
 * utilisation and of the jobs waiting over the timeline's span go in the
 * key (over a run's span, first submit to last end, the first is the
 * run's utilisation).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "base/err.h"
#include "report/plot.h"

/* The code of the failure err records (TS_EINVALID when none is). */
static int plot_code(const struct ts_error *err)
{
	return err->code ? err->code : TS_EINVALID;
}

/* Longest line, most columns, most rows and most series of a results CSV. */
#define PLOT_LINE_MAX 32768
#define PLOT_MAX_COLS 256
#define PLOT_MAX_ROWS 2048
#define PLOT_MAX_SERIES 32
#define PLOT_NAME 96

enum { K_SCALING, K_BREAKDOWN, K_FRONTIER, K_MEMORY, K_COMPARE, K_QUEUE, K_COUNT_ };
static const char *const kinds[K_COUNT_] = {"scaling", "breakdown", "frontier",
					    "memory",  "compare",   "queue"};

/* A CSV's header, kept while its rows are read. */
struct header {
	char name[PLOT_MAX_COLS][PLOT_NAME];
	int n;
	int point, status, name_col; /* -1 when absent */
};

static void keep_header(const struct csv *c, struct header *h)
{
	h->n = c->nf < PLOT_MAX_COLS ? c->nf : PLOT_MAX_COLS;
	for (int i = 0; i < h->n; i++)
		snprintf(h->name[i], PLOT_NAME, "%s", c->f[i]);
	h->point = csv_col(c, "point");
	h->status = csv_col(c, "status");
	h->name_col = csv_col(c, "name");
}

static int col_of(const struct header *h, const char *name)
{
	for (int i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], name))
			return i;
	return -1;
}

/* Is column i a sweep axis (between "point" and "status")? */
static bool is_axis(const struct header *h, int i)
{
	return h->point == 0 && h->status > 0 && i > 0 && i < h->status;
}

/* The last part of a dotted key ("parallel.tp" -> "tp"). */
static const char *short_name(const char *key)
{
	const char *d = strrchr(key, '.');
	return d ? d + 1 : key;
}

/* A gnuplot string expression for the right side of an assignment: the
 * text in single quotes (which take no escapes), each quote of it written
 * as a concatenation, 'a'."'".'b' for a'b. (A doubled quote inside single
 * quotes fails at the start of the text: gnuplot 5.4 reads the title 'x'
 * quoted so as an empty string followed by a stray token.) */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'') {
			fputs("'.\"'\".'", f);
			continue;
		}
		/* a control character (a newline would end the string and
		 * start a gnuplot command) never reaches the script */
		unsigned char c = (unsigned char)*s;
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
	fputc('\'', f);
}

/* 0 when option `name`'s value s (may be NULL) holds no control character,
 * else an error naming it: a title or column name is one line of text. */
static int one_line(const char *name, const char *s, struct ts_error *err)
{
	for (const char *c = s; c && *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
			return ts_error_set(
			    err, TS_EUSAGE, NULL, 0, name,
			    "found a control character (0x%02x) at byte %d, expected one "
			    "line of text",
			    (unsigned)(unsigned char)*c, (int)(c - s) + 1);
	return 0;
}

/* A double-quoted string of the data file (a double quote becomes a single). */
static void data_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' ? '\'' : *s, f);
	fputc('"', f);
}

/* The axis label of column `col`: its name and unit. */
static void axis_label(const char *col, char *buf, size_t n)
{
	const char *s = short_name(col);
	if (!strcmp(s, "nodes"))
		snprintf(buf, n, "nodes (count)");
	else if (!strcmp(s, "gpus"))
		snprintf(buf, n, "GPUs (count)");
	else if (!strcmp(s, "gpus_per_node"))
		snprintf(buf, n, "GPUs per node (count)");
	else
		snprintf(buf, n, "%s", col);
}

static double num(const struct csv *c, int i)
{
	if (i < 0 || i >= c->nf || !*c->f[i])
		return (double)NAN;
	char *end;
	double v = strtod(c->f[i], &end);
	return *end ? (double)NAN : v;
}

/* A bar's label: the sweep's axes ("nodes=16 tp=8"), else the name. */
static void label(const struct csv *c, const struct header *h, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < c->nf && i < h->n; i++)
		if (is_axis(h, i))
			k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s=%s", k ? " " : "",
					      short_name(h->name[i]), c->f[i]);
	if (!buf[0])
		snprintf(buf, n, "%s",
			 h->name_col >= 0 && h->name_col < c->nf ? c->f[h->name_col] : "?");
}

struct row {
	double v[10];
	double x;	/* scaling: the x column */
	uint32_t ser;	/* scaling: its series */
	uint32_t order; /* scaling: its place in the file */
	char label[200];
};

static int by_series_x(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->ser != y->ser)
		return x->ser < y->ser ? -1 : 1;
	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_first(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->v[0] < y->v[0] ? -1 : x->v[0] > y->v[0] ? 1 : 0;
}

/* Scaling's columns: x, and the series columns (ser, *nser). Returns 0 or
 * fails naming what was found. */
static int scaling_cols(const struct header *h, const ts_plot_opts *o, const char *path, int *x,
			int *ser, int *nser, struct ts_error *err)
{
	*x = -1;
	*nser = 0;
	if (o && o->x) {
		if ((*x = col_of(h, o->x)) < 0)
			return ts_error_set(err, TS_EINVALID, NULL, 0, "--x",
					    "%s: found no column \"%s\", expected a column of the "
					    "results (a sweep axis, gpus, ...)",
					    path, o->x);
	} else {
		static const char *const pref[] = {"nodes", "gpus", "gpus_per_node"};
		for (size_t p = 0; p < 3 && *x < 0; p++)
			for (int i = 0; i < h->n && *x < 0; i++)
				if (is_axis(h, i) && !strcmp(short_name(h->name[i]), pref[p]))
					*x = i;
		if (*x < 0)
			*x = col_of(h, "gpus");
	}
	if (o && o->series) {
		const char *s = o->series;
		while (*s) {
			size_t len = strcspn(s, ",");
			char nm[PLOT_NAME];
			snprintf(nm, sizeof nm, "%.*s", (int)len, s);
			int c = col_of(h, nm);
			if (c < 0)
				return ts_error_set(
				    err, TS_EINVALID, NULL, 0, "--series",
				    "%s: found no column \"%s\", expected columns of "
				    "the results, comma-separated",
				    path, nm);
			if (*nser < 8)
				ser[(*nser)++] = c;
			s += len;
			if (*s == ',')
				s++;
		}
	} else {
		for (int i = 0; i < h->n && *nser < 8; i++)
			if (is_axis(h, i) && i != *x)
				ser[(*nser)++] = i;
	}
	return 0;
}

/* The compare chart: the metrics of each scenario (a row of a compare
 * CSV, the first MAXS rows) relative to the first scenario's. */
static int plot_compare(struct csv *c, const char *path, const ts_plot_opts *o, FILE *data,
			FILE *settings, struct ts_error *err)
{
	static const struct {
		const char *key, *label;
	} metrics[] = {
	    {"iteration_time_s", "iteration time"},
	    {"tokens_per_s", "tokens/s"},
	    {"samples_per_s", "samples/s"},
	    {"mfu", "MFU"},
	    {"memory_per_gpu_bytes", "memory per GPU"},
	    {"time_to_train_s", "time to train"},
	    {"energy_kwh", "energy"},
	    {"cost_usd", "cost"},
	    {"usd_per_mtokens", "$ per M tokens"},
	    {"usd_per_epoch", "$ per epoch"},
	};
	enum { NM = sizeof metrics / sizeof metrics[0], MAXS = 16 };
	double v[NM][MAXS];
	bool have[NM] = {false};
	char scen[MAXS][PLOT_NAME];
	int ns = 0, rc;
	for (int m = 0; m < NM; m++)
		for (int s = 0; s < MAXS; s++)
			v[m][s] = (double)NAN;
	/* trainsim compare --format csv (or run --format csv): a row per
	 * scenario, named by its "name" column, a column per metric */
	int nm = csv_col(c, "name"), col[NM];
	for (int m = 0; m < NM; m++)
		have[m] = (col[m] = csv_col(c, metrics[m].key)) >= 0;
	if (nm < 0) {
		ts_error_set(err, TS_EINVALID, path, c->lineno, NULL,
			     "found no \"name\" column, expected the CSV of trainsim compare "
			     "--format csv (a row per scenario)");
		return plot_code(err);
	}
	rc = 0;
	while (ns < MAXS && (rc = csv_next(c, err)) > 0) {
		snprintf(scen[ns], PLOT_NAME, "%s", nm < c->nf ? c->f[nm] : "?");
		for (int m = 0; m < NM; m++)
			if (have[m])
				v[m][ns] = num(c, col[m]);
		ns++;
	}
	if (rc < 0)
		return plot_code(err);
	int shown = 0;
	for (int m = 0; m < NM; m++) {
		bool ok = have[m] && ns > 0 && v[m][0] > 0.0 && isfinite(v[m][0]);
		for (int s = 0; ok && s < ns; s++)
			ok = isfinite(v[m][s]);
		if (!ok)
			continue;
		if (!shown++) {
			data_str(data, "metric");
			for (int s = 0; s < ns; s++) {
				fputc(' ', data);
				data_str(data, scen[s]);
			}
			fputc('\n', data);
		}
		data_str(data, metrics[m].label);
		for (int s = 0; s < ns; s++)
			fprintf(data, " %.17g", v[m][s] / v[m][0]);
		fputc('\n', data);
	}
	if (ns < 1 || !shown) {
		return ts_error_set(
		    err, TS_EINVALID, NULL, 0, NULL,
		    "%s: found no metric with a figure for every scenario, expected "
		    "the CSV of trainsim compare --format csv",
		    path);
	}
	if (settings) {
		char t[400];
		snprintf(t, sizeof t, "Relative to %s", scen[0]);
		fputs("title_plot = ", settings);
		gp_str(settings, o && o->title ? o->title : t);
		fprintf(settings, "\nnseries = %d\nylabel = ", ns);
		snprintf(t, sizeof t, "relative to %s (= 1)", scen[0]);
		gp_str(settings, t);
		fputc('\n', settings);
	}
	return 0;
}

/* The queue chart: jobs waiting, and the GPUs busy (and down) as a
 * percentage of the cluster's, against time, from a timeline CSV. Data
 * columns: t_s queued busy_pct down_gpus; the settings give the time
 * axis's unit (tunit, s), the means, the cluster's GPUs and has_down. */
static int plot_queue(struct csv *c, const char *path, const ts_plot_opts *o, FILE *data,
		      FILE *settings, struct ts_error *err)
{
	static const char *const names[4] = {"t_s", "queued_jobs", "utilisation", "busy_gpus"};
	int col[4], down = csv_col(c, "down_gpus"), rc = 0;
	for (int i = 0; i < 4; i++)
		if ((col[i] = csv_col(c, names[i])) < 0)
			return ts_error_set(err, TS_EINVALID, path, c->lineno, NULL,
					    "found no column %s, expected the CSV of trainsim "
					    "queue --timeline",
					    names[i]);
	double t0 = (double)NAN, tp = (double)NAN, prev[3] = {0, 0, 0}, area[2] = {0, 0};
	double gpus = (double)NAN, max_down = 0.0, max_queued = 0.0;
	size_t nr = 0;
	while ((rc = csv_next(c, err)) > 0) {
		double v[5];
		for (int i = 0; i < 4; i++)
			v[i] = num(c, col[i]);
		v[4] = down >= 0 ? num(c, down) : 0.0;
		for (int i = 0; i < 5; i++)
			if (!isfinite(v[i]) || v[i] < 0.0 || (i == 2 && v[i] > 1.0))
				return ts_error_set(
				    err, TS_EINVALID, path, c->lineno,
				    i < 4 ? names[i] : "down_gpus", "found \"%.40s\", expected %s",
				    c->f[i < 4 ? col[i] : down],
				    i == 2 ? "a fraction from 0 to 1" : "a number of at least 0");
		if (nr && v[0] < tp)
			return ts_error_set(err, TS_EINVALID, path, c->lineno, "t_s",
					    "found %.17g after %.17g, expected times in order",
					    v[0], tp);
		if (!nr)
			t0 = v[0];
		else {
			area[0] += prev[0] * (v[0] - tp);
			area[1] += prev[1] * (v[0] - tp);
		}
		/* the cluster's GPUs, from a row with busy GPUs */
		if (v[3] > 0.0 && v[2] > 0.0 && !isfinite(gpus))
			gpus = round(v[3] / v[2]);
		max_down = fmax(max_down, v[4]);
		max_queued = fmax(max_queued, v[1]);
		prev[0] = v[1];
		prev[1] = v[2];
		prev[2] = v[4];
		tp = v[0];
		fprintf(data, "%.17g %.17g %.17g %.17g\n", v[0], v[1], 100.0 * v[2], v[4]);
		nr++;
	}
	if (rc < 0)
		return plot_code(err);
	if (!nr)
		return ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				    "%s: found no row to plot, expected the timeline of trainsim "
				    "queue --timeline",
				    path);
	if (settings) {
		double span = tp - t0;
		/* the time axis in the unit that suits the span */
		static const struct {
			double below_s, unit_s;
			const char *name;
		} units[] = {{1200.0, 1.0, "s"},
			     {36000.0, 60.0, "min"},
			     {864000.0, 3600.0, "h"},
			     {HUGE_VAL, 86400.0, "days"}};
		size_t u = 0;
		while (span >= units[u].below_s)
			u++;
		char t[400];
		fputs("title_plot = ", settings);
		gp_str(settings, o && o->title ? o->title : "Queue length and GPU utilisation");
		snprintf(t, sizeof t, "time (%s)", units[u].name);
		fputs("\nxlabel = ", settings);
		gp_str(settings, t);
		fprintf(settings, "\nnseries = 1\nlogx = 0\ntunit = %.17g\n", units[u].unit_s);
		fprintf(settings, "mean_util = %.17g\nmean_queued = %.17g\n",
			span > 0.0 ? 100.0 * area[1] / span : 100.0 * prev[1],
			span > 0.0 ? area[0] / span : prev[0]);
		/* down GPUs drawn only when some were, as a percentage */
		fprintf(settings, "gpus = %.17g\nhas_down = %d\n", isfinite(gpus) ? gpus : 0.0,
			max_down > 0.0 && isfinite(gpus));
		/* no job ever waited (the script then takes 0 to 1 jobs), or
		 * one instant: a range, not gnuplot's "empty range" warning */
		fprintf(settings, "max_queued = %.17g\n", max_queued);
		if (span <= 0.0)
			fprintf(settings, "set xrange [%.17g:%.17g]\n", t0 / units[u].unit_s - 1.0,
				t0 / units[u].unit_s + 1.0);
	}
	return 0;
}

int plot_prepare(const char *root, const char *kind, const char *csv_path, const ts_plot_opts *o,
		 FILE *data, FILE *settings, char *script, size_t n, struct ts_error *err)
{
	int k = -1;
	for (int i = 0; kind && i < K_COUNT_; i++)
		if (!strcmp(kind, kinds[i]))
			k = i;
	if (k < 0)
		return ts_error_set(err, TS_EUSAGE, NULL, 0, NULL,
				    "found kind \"%s\", expected scaling, breakdown, frontier, "
				    "memory, compare or queue",
				    kind ? kind : "");
	int rc0;
	if (o &&
	    ((rc0 = one_line("--title", o->title, err)) || (rc0 = one_line("--x", o->x, err)) ||
	     (rc0 = one_line("--series", o->series, err))))
		return rc0;
	if (k != K_SCALING && o && (o->x || o->series || o->log_x))
		return ts_error_set(err, TS_EUSAGE, NULL, 0,
				    o->x	? "--x"
				    : o->series ? "--series"
						: "--log-x",
				    "found it with plot %s, expected it with plot scaling only",
				    kind);
	snprintf(script, n, "%s/plots/%s.gp", root, kind);
	if (access(script, R_OK))
		return ts_error_set(err, TS_EIO, NULL, 0, NULL,
				    "found no %s, expected the bundled gnuplot script", script);
	static const char *const need[K_COUNT_][8] = {
	    {"gpus", "tokens_per_s", NULL},
	    {"compute_s", "recompute_s", "exposed_comm_s", "bubble_s", "data_stall_s",
	     "optimizer_s", "other_s", NULL},
	    {"time_to_train_s", "cost_usd", NULL},
	    {"memory_breakdown.weights_bytes", "memory_breakdown.gradients_bytes",
	     "memory_breakdown.optimizer_bytes", "memory_breakdown.activations_bytes",
	     "memory_breakdown.logits_bytes", "memory_breakdown.buffers_bytes",
	     "memory_breakdown.reserve_bytes", "memory_capacity_bytes"},
	    {NULL},
	    {NULL},
	};
	struct csv c;
	struct row *rows = NULL;
	struct header *h = NULL;
	size_t nr = 0;
	int ci[8], nneed = 0, rc;
	char first_name[200] = "";
	if (!(rc = csv_open(&c, csv_path, PLOT_LINE_MAX, PLOT_MAX_COLS, err)))
		/* comment lines before the header: the digest line of sweep -o */
		while ((rc = csv_next(&c, err)) > 0 && c.nf > 0 && c.f[0][0] == '#')
			;
	if (rc < 0) {
		rc = plot_code(err);
		goto out;
	}
	if (!rc) {
		rc = ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				  "%s: found an empty file, expected a CSV header", csv_path);
		goto out;
	}
	if (k == K_COMPARE || k == K_QUEUE) {
		rc = k == K_COMPARE ? plot_compare(&c, csv_path, o, data, settings, err)
				    : plot_queue(&c, csv_path, o, data, settings, err);
		goto flush;
	}
	if (!(h = ts_calloc(1, sizeof *h))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	keep_header(&c, h);
	for (int i = 0; i < 8 && need[k][i]; i++, nneed++) {
		if ((ci[i] = csv_col(&c, need[k][i])) < 0) {
			ts_error_set(err, TS_EINVALID, csv_path, c.lineno, NULL,
				     "found no column %s, expected the columns of trainsim sweep "
				     "or run --format csv",
				     need[k][i]);
			rc = plot_code(err);
			goto out;
		}
	}
	int xcol = -1, ser[8], nser = 0;
	/* frontier: the 80 % bands of time and cost when the file has them
	 * (trainsim advise --format csv), else each point is its own band */
	static const char *const band_cols[4] = {"time_to_train_s_p10", "time_to_train_s_p90",
						 "cost_usd_p10", "cost_usd_p90"};
	int bc[4] = {-1, -1, -1, -1};
	/* and its own frontier (equal times are both kept there) */
	int fcol = k == K_FRONTIER ? csv_col(&c, "frontier") : -1;
	if (k == K_FRONTIER)
		for (int b = 0; b < 4; b++)
			bc[b] = csv_col(&c, band_cols[b]);
	if (k == K_SCALING && (rc = scaling_cols(h, o, csv_path, &xcol, ser, &nser, err)))
		goto out;
	int st = h->status, fits = csv_col(&c, "fits");
	/* scaling: the 80 % band of throughput, when the CSV has it */
	int band_lo = csv_col(&c, "tokens_per_s_p10"), band_hi = csv_col(&c, "tokens_per_s_p90");
	char skey[PLOT_MAX_SERIES][200];
	uint32_t nsk = 0;
	if (!(rows = ts_calloc(PLOT_MAX_ROWS, sizeof *rows))) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	while (nr < PLOT_MAX_ROWS && (rc = csv_next(&c, err)) > 0) {
		if (st >= 0 && (st >= c.nf || strcmp(c.f[st], "ok")))
			continue;
		if (k != K_MEMORY && fits >= 0 && fits < c.nf && strcmp(c.f[fits], "true"))
			continue;
		struct row *r = &rows[nr];
		bool ok = true;
		for (int i = 0; i < nneed; i++) {
			r->v[i] = num(&c, ci[i]);
			/* an empty cell is a figure the row does not have (no run
			 * length, no price); any other cell must be a finite number:
			 * trainsim writes nothing else in a row that is ok */
			bool empty = ci[i] >= c.nf || !*c.f[ci[i]];
			/* every figure plotted is a time, a size, a price or a
			 * rate: never negative (-1e308 was drawn) */
			if (!empty && (!isfinite(r->v[i]) || r->v[i] < 0.0 ||
				       (k == K_SCALING && i == 0 && !(r->v[i] >= 1.0)))) {
				ts_error_set(err, TS_EINVALID, csv_path, c.lineno, need[k][i],
					     "found \"%.40s\", expected %s", c.f[ci[i]],
					     k == K_SCALING && i == 0 ? "a GPU count of at least 1"
								      : "a finite number >= 0");
				rc = plot_code(err);
				goto out;
			}
			ok = ok && isfinite(r->v[i]);
		}
		if (!ok || (k == K_FRONTIER && !(r->v[0] > 0.0)))
			continue;
		for (int b = 0; k == K_FRONTIER && b < 4; b++) {
			double v = bc[b] >= 0 ? num(&c, bc[b]) : (double)NAN;
			r->v[2 + b] = isfinite(v) ? v : r->v[b < 2 ? 0 : 1];
		}
		if (fcol >= 0)
			r->v[6] = fcol < c.nf && !strcmp(c.f[fcol], "true");
		if (k == K_SCALING) {
			/* the band, or the figure itself where the CSV has none */
			r->v[2] = band_lo >= 0 ? num(&c, band_lo) : r->v[1];
			r->v[3] = band_hi >= 0 ? num(&c, band_hi) : r->v[1];
			if (!isfinite(r->v[2]) || !isfinite(r->v[3]) || !(r->v[2] > 0.0)) {
				r->v[2] = r->v[1];
				r->v[3] = r->v[1];
			}
			r->x = num(&c, xcol);
			if (!isfinite(r->x) || (o && o->log_x && !(r->x > 0.0))) {
				ts_error_set(err, TS_EINVALID, csv_path, c.lineno, h->name[xcol],
					     "found \"%.40s\" on x, expected a %snumber",
					     xcol < c.nf ? c.f[xcol] : "",
					     o && o->log_x ? "positive " : "");
				rc = plot_code(err);
				goto out;
			}
			/* the series: "tp = 2, pp = 4" */
			char key[200] = "";
			size_t kl = 0;
			for (int s = 0; s < nser; s++)
				kl += (size_t)snprintf(
				    key + kl, kl < sizeof key ? sizeof key - kl : 0, "%s%s = %s",
				    s ? ", " : "", short_name(h->name[ser[s]]),
				    ser[s] < c.nf ? c.f[ser[s]] : "");
			uint32_t si = 0;
			while (si < nsk && strcmp(skey[si], key))
				si++;
			if (si == nsk) {
				if (nsk == PLOT_MAX_SERIES) {
					rc = ts_error_set(
					    err, TS_EINVALID, NULL, 0, "--series",
					    "%s: found more than %d series, expected at "
					    "most %d (choose --series)",
					    csv_path, PLOT_MAX_SERIES, PLOT_MAX_SERIES);
					goto out;
				}
				snprintf(skey[nsk++], sizeof skey[0], "%s", key);
			}
			r->ser = si;
			r->order = (uint32_t)nr;
		}
		if (!first_name[0] && h->name_col >= 0 && h->name_col < c.nf)
			snprintf(first_name, sizeof first_name, "%s", c.f[h->name_col]);
		label(&c, h, r->label, sizeof r->label);
		nr++;
	}
	if (rc < 0) {
		rc = plot_code(err);
		goto out;
	}
	if (!nr) {
		rc = ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
				  "%s: found no row to plot (status ok%s), expected at least one",
				  csv_path,
				  k == K_FRONTIER ? ", with a run length and a price" : "");
		goto out;
	}
	if (k == K_SCALING)
		qsort(rows, nr, sizeof rows[0], by_series_x);
	if (k == K_FRONTIER)
		qsort(rows, nr, sizeof rows[0], by_first);
	double best_cost = HUGE_VAL;
	for (size_t i = 0; i < nr; i++) {
		struct row *r = &rows[i];
		switch (k) {
		case K_SCALING: { /* x tokens/s ideal efficiency gpus, a block per series */
			size_t f0 = i;
			while (f0 > 0 && rows[f0 - 1].ser == r->ser)
				f0--;
			const struct row *b = &rows[f0];
			if (i == f0) {
				if (i > 0)
					fputs("\n\n", data);
				data_str(data, skey[r->ser][0] ? skey[r->ser] : "simulated");
				fputs(" x tokens_per_s ideal efficiency gpus tokens_per_s_p10 "
				      "tokens_per_s_p90\n",
				      data);
			}
			fprintf(data, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", r->x, r->v[1],
				b->v[1] / b->v[0] * r->v[0],
				(r->v[1] / r->v[0]) / (b->v[1] / b->v[0]), r->v[0], r->v[2],
				r->v[3]);
			break;
		}
		case K_BREAKDOWN:
			data_str(data, r->label);
			for (int j = 0; j < 7; j++)
				fprintf(data, " %.17g", r->v[j]);
			fputc('\n', data);
			break;
		case K_FRONTIER: { /* hours cost frontier label, then the bands (hours low,
				    * high, cost low, high); sorted by time: a point is on the
				    * frontier when it is cheaper than every faster one */
			bool front = fcol >= 0 ? r->v[6] != 0.0 : r->v[1] < best_cost;
			if (r->v[1] < best_cost)
				best_cost = r->v[1];
			fprintf(data, "%.17g %.17g %d ", r->v[0] / 3600.0, r->v[1], front);
			data_str(data, r->label);
			fprintf(data, " %.17g %.17g %.17g %.17g\n", r->v[2] / 3600.0,
				r->v[3] / 3600.0, r->v[4], r->v[5]);
			break;
		}
		default:
			data_str(data, r->label);
			for (int j = 0; j < 8; j++)
				fprintf(data, " %.17g", r->v[j] / 1073741824.0);
			fputc('\n', data);
		}
	}
	if (settings) {
		static const char *const what[] = {"Throughput scaling", "Time per iteration",
						   "Cost against time to train", "Memory per GPU"};
		char t[400], xl[200] = "";
		snprintf(t, sizeof t, "%s%s%s", what[k], first_name[0] ? ": " : "", first_name);
		fputs("title_plot = ", settings);
		gp_str(settings, o && o->title ? o->title : t);
		if (k == K_SCALING) {
			axis_label(h->name[xcol], xl, sizeof xl);
		} else {
			size_t l = 0;
			for (int i = 0; i < h->n; i++)
				if (is_axis(h, i))
					l += (size_t)snprintf(
					    xl + l, l < sizeof xl ? sizeof xl - l : 0, "%s%s",
					    l ? ", " : "sweep points: ", short_name(h->name[i]));
			if (!xl[0])
				snprintf(xl, sizeof xl, "scenario");
		}
		fputs("\nxlabel = ", settings);
		gp_str(settings, xl);
		fprintf(settings, "\nnseries = %u\nlogx = %d\n", k == K_SCALING ? nsk : 1,
			o && o->log_x ? 1 : 0);
		if (k == K_SCALING || k == K_FRONTIER) {
			/* one x or one y value: a range around it, not gnuplot's
			 * "empty range" warning */
			double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
			for (size_t i = 0; i < nr; i++) {
				double xy[2] = {k == K_SCALING ? rows[i].x : rows[i].v[0] / 3600.0,
						rows[i].v[1]};
				for (int a = 0; a < 2; a++) {
					lo[a] = fmin(lo[a], xy[a]);
					hi[a] = fmax(hi[a], xy[a]);
				}
			}
			for (int a = 0; a < 2; a++)
				if (lo[a] == hi[a])
					fprintf(settings, "set %crange [%.17g:%.17g]\n",
						a ? 'y' : 'x',
						lo[a] > 0.0 ? lo[a] / 2.0 : lo[a] - 1.0,
						lo[a] > 0.0 ? lo[a] * 2.0 : lo[a] + 1.0);
		}
	}
	rc = 0;
flush:
	if (!rc &&
	    (fflush(data) || ferror(data) || (settings && (fflush(settings) || ferror(settings)))))
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the chart data failed");
out:
	ts_free(rows, PLOT_MAX_ROWS * sizeof *rows);
	ts_free(h, sizeof *h);
	csv_close(&c);
	return rc;
}
