/* ts_plot_data: the numbers a gnuplot chart of results needs, read from a
 * results CSV (trainsim sweep, or run --format csv; columns found by name)
 * and written whitespace-separated, so the gnuplot scripts (plots/KIND.gp)
 * never parse CSV; each script names its data columns at its top.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "base/csv.h"
#include "plan/env.h"

/* Longest line, most columns and most rows of a results CSV. */
#define PLOT_LINE_MAX 32768
#define PLOT_MAX_COLS 256
#define PLOT_MAX_ROWS 2048

static const char *const kinds[] = {"scaling", "breakdown", "frontier", "memory"};

/* A label of a row for the x axis: the sweep's axis values, else the name. */
static void label(const struct csv *c, int st, int pt, int nm, char *buf, size_t n)
{
	char **f = c->f;
	int nf = c->nf;
	size_t k = 0;
	buf[0] = '\0';
	if (st > 0 && pt == 0) {
		for (int i = 1; i < st && i < nf; i++)
			k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s", i > 1 ? " " : "",
					      f[i]);
	} else {
		snprintf(buf, n, "%s", nm >= 0 && nm < nf ? f[nm] : "?");
	}
	for (char *p = buf; *p; p++)
		if (*p == '"')
			*p = '\'';
}

static double num(const struct csv *c, int i)
{
	if (i < 0 || i >= c->nf || !*c->f[i])
		return (double)NAN;
	char *end;
	double v = strtod(c->f[i], &end);
	return *end ? (double)NAN : v;
}

struct row {
	double v[10];
	char label[200];
};

static int by_first(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->v[0] < y->v[0] ? -1 : x->v[0] > y->v[0] ? 1 : 0;
}

int ts_plot_data(const ts_env *env, const char *kind, const char *csv_path, FILE *data,
		 char *script, size_t n)
{
	int k = -1;
	for (int i = 0; kind && i < 4; i++)
		if (!strcmp(kind, kinds[i]))
			k = i;
	if (k < 0)
		return api_failf(TS_EUSAGE, NULL,
				 "found kind \"%s\", expected scaling, breakdown, frontier or "
				 "memory",
				 kind ? kind : "");
	snprintf(script, n, "%s/plots/%s.gp", env->root, kind);
	if (access(script, R_OK))
		return api_failf(TS_EIO, NULL, "found no %s, expected the bundled gnuplot script",
				 script);
	static const char *const need[4][8] = {
	    {"gpus", "tokens_per_s", NULL},
	    {"compute_s", "recompute_s", "exposed_comm_s", "bubble_s", "data_stall_s",
	     "optimizer_s", "other_s", NULL},
	    {"time_to_train_s", "cost_usd", NULL},
	    {"memory_breakdown.weights_bytes", "memory_breakdown.gradients_bytes",
	     "memory_breakdown.optimizer_bytes", "memory_breakdown.activations_bytes",
	     "memory_breakdown.logits_bytes", "memory_breakdown.buffers_bytes",
	     "memory_breakdown.reserve_bytes", "memory_capacity_bytes"},
	};
	struct csv c;
	struct ts_error err;
	struct row *rows = NULL;
	size_t nr = 0;
	int ci[8], nneed = 0, rc;
	ts_error_clear(&err);
	if (!(rc = csv_open(&c, csv_path, PLOT_LINE_MAX, PLOT_MAX_COLS, &err)))
		/* comment lines before the header: the digest line of sweep -o */
		while ((rc = csv_next(&c, &err)) > 0 && c.nf > 0 && c.f[0][0] == '#')
			;
	if (rc < 0) {
		rc = api_fail(&err);
		goto out;
	}
	if (!rc) {
		rc = api_failf(TS_EINVALID, NULL, "%s: found an empty file, expected a CSV header",
			       csv_path);
		goto out;
	}
	for (int i = 0; i < 8 && need[k][i]; i++, nneed++) {
		if ((ci[i] = csv_col(&c, need[k][i])) < 0) {
			ts_error_set(&err, TS_EINVALID, csv_path, c.lineno, NULL,
				     "found no column %s, expected the columns of trainsim sweep "
				     "or run --format csv",
				     need[k][i]);
			rc = api_fail(&err);
			goto out;
		}
	}
	int st = csv_col(&c, "status"), fits = csv_col(&c, "fits");
	int pt = csv_col(&c, "point"), nm = csv_col(&c, "name");
	if (!(rows = ts_calloc(PLOT_MAX_ROWS, sizeof *rows))) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	while (nr < PLOT_MAX_ROWS && (rc = csv_next(&c, &err)) > 0) {
		if (st >= 0 && (st >= c.nf || strcmp(c.f[st], "ok")))
			continue;
		if (k != 3 && fits >= 0 && fits < c.nf && strcmp(c.f[fits], "true"))
			continue;
		struct row *r = &rows[nr];
		bool ok = true;
		for (int i = 0; i < nneed; i++) {
			r->v[i] = num(&c, ci[i]);
			/* an empty cell is a figure the row does not have (no run
			 * length, no price); any other cell must be a finite number:
			 * trainsim writes nothing else in a row that is ok */
			bool empty = ci[i] >= c.nf || !*c.f[ci[i]];
			if (!empty &&
			    (!isfinite(r->v[i]) || (k == 0 && i == 0 && !(r->v[i] >= 1.0)))) {
				ts_error_set(&err, TS_EINVALID, csv_path, c.lineno, need[k][i],
					     "found \"%.40s\", expected %s", c.f[ci[i]],
					     k == 0 && i == 0 ? "a GPU count of at least 1"
							      : "a finite number");
				rc = api_fail(&err);
				goto out;
			}
			ok = ok && isfinite(r->v[i]);
		}
		if (!ok || (k == 2 && !(r->v[0] > 0.0)))
			continue;
		label(&c, st, pt, nm, r->label, sizeof r->label);
		nr++;
	}
	if (rc < 0) {
		rc = api_fail(&err);
		goto out;
	}
	if (!nr) {
		rc = api_failf(TS_EINVALID, NULL,
			       "%s: found no row to plot (status ok%s), expected at least one",
			       csv_path, k == 2 ? ", with a run length and a price" : "");
		goto out;
	}
	if (k == 0 || k == 2)
		qsort(rows, nr, sizeof rows[0], by_first);
	double best_cost = INFINITY;
	for (size_t i = 0; i < nr; i++) {
		struct row *r = &rows[i];
		switch (k) {
		case 0: /* gpus tokens/s ideal efficiency */
			fprintf(data, "%.17g %.17g %.17g %.17g\n", r->v[0], r->v[1],
				rows[0].v[1] / rows[0].v[0] * r->v[0],
				(r->v[1] / r->v[0]) / (rows[0].v[1] / rows[0].v[0]));
			break;
		case 1:
			fprintf(data, "\"%s\"", r->label);
			for (int j = 0; j < 7; j++)
				fprintf(data, " %.17g", r->v[j]);
			fputc('\n', data);
			break;
		case 2: { /* hours cost frontier label; sorted by time: a point is on the
			   * frontier when it is cheaper than every faster one */
			bool front = r->v[1] < best_cost;
			if (front)
				best_cost = r->v[1];
			fprintf(data, "%.17g %.17g %d \"%s\"\n", r->v[0] / 3600.0, r->v[1], front,
				r->label);
			break;
		}
		default:
			fprintf(data, "\"%s\"", r->label);
			for (int j = 0; j < 8; j++)
				fprintf(data, " %.17g", r->v[j] / 1073741824.0);
			fputc('\n', data);
		}
	}
	rc = fflush(data) || ferror(data) ? api_failf(TS_EIO, NULL, "writing the chart data failed")
					  : 0;
out:
	ts_free(rows, PLOT_MAX_ROWS * sizeof *rows);
	csv_close(&c);
	return rc;
}
