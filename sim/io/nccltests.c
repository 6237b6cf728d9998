/* nccl-tests output: a line scanner over the text, fields split on blanks.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/cfg.h"
#include "io/nccltests.h"

#define MAX_FIELDS 16

/* A field as a finite number, or false. */
static bool num(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && isfinite(*v);
}

static int parse_row(char *line, const char *path, size_t lineno, struct nccl_row *r,
		     struct nccl_table *tab, struct ts_error *err)
{
	char *f[MAX_FIELDS], *save = NULL;
	size_t n = 0;
	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save))
		if (n < MAX_FIELDS)
			f[n++] = t;
		else
			n++;
	if (n != 12 && n != 13)
		return ts_error_set(err, TS_ESYNTAX, path, (int)lineno, "row",
				    "found %zu fields, expected the 12 or 13 of an nccl-tests "
				    "row (size count type redop [root] time algbw busbw #wrong "
				    "time algbw busbw #wrong)",
				    n);
	size_t k = n - 12; /* 1 with a root column */
	/* all_reduce_perf's redop is a reduction, its root (2.10 on) -1: "none"
	 * is a gather's or an all-to-all's, a root of 0 or more a reduce's or a
	 * broadcast's */
	bool rooted = k && strcmp(f[4], "-1");
	if (!tab->other_line && (rooted || !strcmp(f[3], "none"))) {
		tab->other_line = lineno;
		snprintf(tab->other_redop, sizeof tab->other_redop, "%s", rooted ? "root" : f[3]);
	}
	/* sizes up to 1 EiB, bus bandwidths up to 1 PB/s (10^3 beyond NVLink 5):
	 * a figure past these is a damaged file, and would overflow once scaled */
	const struct {
		size_t i;
		const char *what;
		double *dst;
		double max;
	} want[] = {
	    {0, "size", &r->bytes, 0x1p60},
	    {6 + k, "out-of-place busbw", &r->oop_busbw_Bps, 1e6},
	    {10 + k, "in-place busbw", &r->ip_busbw_Bps, 1e6},
	};
	for (size_t i = 0; i < 3; i++)
		if (!num(f[want[i].i], want[i].dst) || *want[i].dst < 0.0 ||
		    *want[i].dst > want[i].max)
			return ts_error_set(err, TS_ESYNTAX, path, (int)lineno, want[i].what,
					    "found \"%.60s\", expected a number from 0 to %g%s",
					    f[want[i].i], want[i].max, i ? " (GB/s)" : " (bytes)");
	r->oop_busbw_Bps *= 1e9;
	r->ip_busbw_Bps *= 1e9;
	return 0;
}

int nccltests_read(const char *path, struct nccl_table *out, struct ts_error *err)
{
	char *text;
	size_t len;
	memset(out, 0, sizeof *out);
	int rc = cfg_read_text(path, &text, &len, err);
	if (rc)
		return rc;
	out->path = path;
	size_t lineno = 0;
	for (char *p = text, *next; p && *p; p = next) {
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		p += strspn(p, " \t\r");
		if (!*p)
			continue;
		if (*p == '#') {
			p += 1 + strspn(p + 1, " \t");
			if (!strncmp(p, "Rank", 4)) {
				const char *d = strrchr(p, ']');
				if (!out->nranks++ && d) {
					d += 1 + strspn(d + 1, " \t");
					size_t l = strcspn(d, "\r");
					while (l && (d[l - 1] == ' ' || d[l - 1] == '\t'))
						l--;
					snprintf(out->device, sizeof out->device, "%.*s",
						 (int)(l < 95 ? l : 95), d);
				}
			}
			continue;
		}
		struct nccl_row r;
		if ((rc = parse_row(p, path, lineno, &r, out, err)))
			goto fail;
		if (ts_grow((void **)&out->rows, &out->cap, out->n + 1, sizeof *out->rows)) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto fail;
		}
		out->rows[out->n++] = r;
	}
	if (!out->n) {
		rc = ts_error_set(err, TS_EINVALID, path, 0, NULL,
				  "found no rows, expected the table of all_reduce_perf (size "
				  "count type redop root time algbw busbw ...)");
		goto fail;
	}
	ts_free(text, len + 1);
	return 0;
fail:
	ts_free(text, len + 1);
	nccltests_free(out);
	return rc;
}

void nccltests_free(struct nccl_table *t)
{
	if (t && t->rows)
		ts_free(t->rows, t->cap * sizeof *t->rows);
	if (t)
		memset(t, 0, sizeof *t);
}

double nccltests_plateau(const struct nccl_table *t, double *from_bytes)
{
	double big = 0.0, sum = 0.0;
	size_t k = 0;
	*from_bytes = 0.0;
	for (size_t i = 0; i < t->n; i++)
		big = fmax(big, t->rows[i].bytes);
	for (size_t i = 0; i < t->n; i++) {
		const struct nccl_row *r = &t->rows[i];
		if (r->bytes < big / 8.0)
			continue;
		double b = r->oop_busbw_Bps > 0.0 && r->ip_busbw_Bps > 0.0
			       ? 0.5 * (r->oop_busbw_Bps + r->ip_busbw_Bps)
			       : fmax(r->oop_busbw_Bps, r->ip_busbw_Bps);
		sum += b;
		k++;
		if (!(*from_bytes > 0.0) || r->bytes < *from_bytes)
			*from_bytes = r->bytes;
	}
	return k ? sum / (double)k : 0.0;
}
