/* Text tables.
 *
 * A table is a fixed number of columns and a growing array of rows; a row is
 * an array of ncols owned C strings (NULL = unset, printed as ""). Nothing is
 * laid out until printing: widths are the widest cell per column, counted in
 * UTF-8 characters. The first failing call is remembered (table_status) and
 * leaves the table as it was, so every later call stays safe.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "base/err.h"
#include "base/jstr.h"
#include "report/table.h"
#include "run/result.h"

struct ts_table {
	size_t ncols;
	char **head;		 /* ncols header texts (NULL = empty) */
	enum table_align *align; /* ncols */
	char ***rows;		 /* nrows arrays of ncols cells */
	size_t nrows, caprows;
	size_t head_wrap;  /* least width a header wraps to; 0: never wraps */
	size_t line_width; /* the width wrapping aims for */
	int status;	   /* first error */
};

static int fail(struct ts_table *t, int rc)
{
	if (t && !t->status)
		t->status = rc;
	return rc;
}

static void free_str(char *s)
{
	if (s)
		ts_free(s, strlen(s) + 1);
}

int table_create(struct ts_table **tp, size_t ncols)
{
	*tp = NULL;
	if (ncols == 0 || ncols > TABLE_MAX_COLS)
		return TS_ERANGE;
	struct ts_table *t = ts_calloc(1, sizeof *t);
	if (!t)
		return TS_ENOMEM;
	t->ncols = ncols;
	t->head = ts_calloc(ncols, sizeof *t->head);
	t->align = ts_calloc(ncols, sizeof *t->align);
	if (!t->head || !t->align) {
		table_destroy(t);
		return TS_ENOMEM;
	}
	*tp = t;
	return 0;
}

static void free_row(const struct ts_table *t, char **row)
{
	for (size_t c = 0; c < t->ncols; c++)
		free_str(row[c]);
	ts_free(row, t->ncols * sizeof *row);
}

void table_destroy(struct ts_table *t)
{
	if (!t)
		return;
	for (size_t r = 0; r < t->nrows; r++)
		free_row(t, t->rows[r]);
	ts_free(t->rows, t->caprows * sizeof *t->rows);
	if (t->head)
		for (size_t c = 0; c < t->ncols; c++)
			free_str(t->head[c]);
	ts_free(t->head, t->ncols * sizeof *t->head);
	ts_free(t->align, t->ncols * sizeof *t->align);
	ts_free(t, sizeof *t);
}

int table_header(struct ts_table *t, size_t col, const char *name, enum table_align align)
{
	if (!t)
		return TS_EINVALID;
	if (col >= t->ncols || (align != TABLE_AUTO && align != TABLE_LEFT && align != TABLE_RIGHT))
		return fail(t, TS_ERANGE);
	char *copy = NULL;
	if (name && *name && !(copy = ts_strdup(name)))
		return fail(t, TS_ENOMEM);
	free_str(t->head[col]);
	t->head[col] = copy;
	t->align[col] = align;
	return 0;
}

void table_wrap_headers(struct ts_table *t, size_t min_width, size_t line_width)
{
	if (t) {
		t->head_wrap = min_width;
		t->line_width = line_width;
	}
}

int table_add_row(struct ts_table *t)
{
	if (!t)
		return TS_EINVALID;
	if (ts_grow((void **)&t->rows, &t->caprows, t->nrows + 1, sizeof *t->rows))
		return fail(t, TS_ENOMEM);
	char **row = ts_calloc(t->ncols, sizeof *row);
	if (!row)
		return fail(t, TS_ENOMEM);
	t->rows[t->nrows++] = row;
	return 0;
}

int table_cell(struct ts_table *t, size_t col, const char *fmt, ...)
{
	if (!t)
		return TS_EINVALID;
	if (t->nrows == 0 || !fmt)
		return fail(t, TS_EINVALID);
	if (col >= t->ncols)
		return fail(t, TS_ERANGE);
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(ap2);
		return fail(t, TS_EINVALID);
	}
	char *s = ts_malloc((size_t)n + 1);
	if (!s) {
		va_end(ap2);
		return fail(t, TS_ENOMEM);
	}
	vsnprintf(s, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	char **row = t->rows[t->nrows - 1];
	free_str(row[col]);
	row[col] = s;
	return 0;
}

int table_status(const struct ts_table *t)
{
	return t ? t->status : TS_EINVALID;
}
size_t table_ncols(const struct ts_table *t)
{
	return t ? t->ncols : 0;
}
size_t table_nrows(const struct ts_table *t)
{
	return t ? t->nrows : 0;
}

const char *table_get(const struct ts_table *t, size_t row, size_t col)
{
	if (!t || row >= t->nrows || col >= t->ncols || !t->rows[row][col])
		return "";
	return t->rows[row][col];
}

const char *table_head(const struct ts_table *t, size_t col)
{
	return t && col < t->ncols ? t->head[col] : NULL;
}

bool table_has(const struct ts_table *t, size_t row, size_t col)
{
	return t && row < t->nrows && col < t->ncols && t->rows[row][col];
}

static const char *head_text(const struct ts_table *t, size_t col)
{
	return t->head[col] ? t->head[col] : "";
}

static bool any_header(const struct ts_table *t)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (t->head[c])
			return true;
	return false;
}

/* UTF-8 characters in s (continuation bytes are not counted). */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

/* Whether s is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool is_json_number(const char *s, bool *integral)
{
	const char *p = s;
	*integral = true;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return false;
	if (*p == '.') {
		*integral = false;
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		*integral = false;
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

static bool right_aligned(const struct ts_table *t, size_t col)
{
	if (t->align[col] != TABLE_AUTO)
		return t->align[col] == TABLE_RIGHT;
	bool seen = false, integral;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *s = t->rows[r][col];
		if (!s || !*s)
			continue;
		if (!is_json_number(s, &integral))
			return false;
		seen = true;
	}
	return seen;
}

static void put_text(const char *s, FILE *out)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		fputc(c < 0x20 || c == 0x7F ? ' ' : c, out);
	}
}

static void put_spaces(size_t n, FILE *out)
{
	while (n--)
		fputc(' ', out);
}

/* One line of cells (`cells` NULL means the header line). */
static void print_line(const struct ts_table *t, char *const *cells, const size_t *width,
		       const bool *right, FILE *out)
{
	for (size_t c = 0; c < t->ncols; c++) {
		const char *s = cells ? (cells[c] ? cells[c] : "") : head_text(t, c);
		size_t pad = width[c] - text_width(s);
		bool last = c + 1 == t->ncols;
		if (c > 0)
			fputs("  ", out);
		if (right[c])
			put_spaces(pad, out);
		put_text(s, out);
		if (!right[c] && !last)
			put_spaces(pad, out);
	}
	fputc('\n', out);
}

/* The next line of header s wrapped at `limit` characters: its length in
 * bytes; *skip the bytes to the start of the line after it (the spaces
 * between dropped). A line breaks at its last space within the limit; a
 * word longer than the limit is a line of its own. */
static size_t wrap_next(const char *s, size_t limit, size_t *skip)
{
	size_t chars = 0, i = 0, cut = 0;
	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) == 0x80)
			continue;
		if (s[i] == ' ' && chars <= limit)
			cut = i;
		if (chars++ == limit)
			break;
	}
	if (!s[i])
		cut = i; /* the rest fits */
	else if (!cut)
		cut = strcspn(s, " "); /* one long word */
	size_t j = cut;
	while (s[j] == ' ')
		j++;
	*skip = j;
	return cut;
}

/* Lines of header s wrapped at limit characters; *widest the longest. */
static size_t wrap_count(const char *s, size_t limit, size_t *widest)
{
	size_t n = 0, skip;
	*widest = 0;
	while (*s) {
		size_t len = wrap_next(s, limit, &skip);
		size_t w = 0;
		for (size_t i = 0; i < len; i++)
			w += ((unsigned char)s[i] & 0xC0) != 0x80;
		if (w > *widest)
			*widest = w;
		n++;
		s += skip;
	}
	return n;
}

/* limit[c]: the width column c's header wraps to, given the cells' widths
 * cell[c]: the largest common L (headers no wider than the cells never
 * wrap) whose table is at most line_width wide, else head_wrap; a column's
 * header never wraps below its cells' width. */
static void head_limits(const struct ts_table *t, const size_t *cell, size_t *limit)
{
	size_t top = t->head_wrap;
	for (size_t c = 0; c < t->ncols; c++)
		if (text_width(head_text(t, c)) > top)
			top = text_width(head_text(t, c));
	for (size_t L = top;; L--) {
		size_t total = 2 * (t->ncols - 1);
		for (size_t c = 0; c < t->ncols; c++) {
			size_t hw;
			limit[c] = cell[c] > L ? cell[c] : L;
			wrap_count(head_text(t, c), limit[c], &hw);
			total += hw > cell[c] ? hw : cell[c];
		}
		if (total <= t->line_width || L <= t->head_wrap)
			return;
	}
}

/* The header lines of a table whose headers wrap, bottom-aligned so each
 * column's last line sits on its dashes. */
static void print_wrapped_head(const struct ts_table *t, const size_t *width, const size_t *limit,
			       const bool *right, FILE *out)
{
	size_t nl = 0, w;
	for (size_t c = 0; c < t->ncols; c++) {
		size_t k = wrap_count(head_text(t, c), limit[c], &w);
		if (k > nl)
			nl = k;
	}
	for (size_t i = 0; i < nl; i++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = head_text(t, c);
			size_t k = wrap_count(s, limit[c], &w), len = 0, skip = 0;
			bool has = i + k >= nl;
			for (size_t j = 0; has && j <= i + k - nl; j++) {
				s += skip;
				len = wrap_next(s, limit[c], &skip);
			}
			if (!has)
				len = 0;
			size_t sw = 0;
			for (size_t b = 0; b < len; b++)
				sw += ((unsigned char)s[b] & 0xC0) != 0x80;
			size_t pad = width[c] - sw;
			if (!len && c + 1 == t->ncols)
				break; /* no trailing spaces */
			if (c > 0)
				fputs("  ", out);
			if (right[c])
				put_spaces(pad, out);
			for (size_t b = 0; b < len; b++) {
				unsigned char ch = (unsigned char)s[b];
				fputc(ch < 0x20 || ch == 0x7F ? ' ' : ch, out);
			}
			if (!right[c] && c + 1 < t->ncols)
				put_spaces(pad, out);
		}
		fputc('\n', out);
	}
}

int table_print(const struct ts_table *t, FILE *out)
{
	if (!t || !out)
		return TS_EINVALID;
	size_t *width = ts_calloc(t->ncols, sizeof *width);
	bool *right = ts_calloc(t->ncols, sizeof *right);
	if (!width || !right) {
		ts_free(width, t->ncols * sizeof *width);
		ts_free(right, t->ncols * sizeof *right);
		return TS_ENOMEM;
	}
	bool header = any_header(t);
	size_t *limit = t->head_wrap ? ts_calloc(t->ncols, sizeof *limit) : NULL;
	if (t->head_wrap && !limit) {
		ts_free(width, t->ncols * sizeof *width);
		ts_free(right, t->ncols * sizeof *right);
		return TS_ENOMEM;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		right[c] = right_aligned(t, c);
		for (size_t r = 0; r < t->nrows; r++) {
			const char *s = t->rows[r][c];
			size_t w = s ? text_width(s) : 0;
			if (w > width[c])
				width[c] = w;
		}
	}
	if (limit && header)
		head_limits(t, width, limit);
	for (size_t c = 0; c < t->ncols; c++) {
		size_t hw = text_width(head_text(t, c));
		if (limit && header)
			wrap_count(head_text(t, c), limit[c], &hw);
		if (header && hw > width[c])
			width[c] = hw;
	}
	if (header) {
		if (limit)
			print_wrapped_head(t, width, limit, right, out);
		else
			print_line(t, NULL, width, right, out);
		for (size_t c = 0; c < t->ncols; c++) {
			if (c > 0)
				fputs("  ", out);
			for (size_t i = 0; i < width[c]; i++)
				fputc('-', out);
		}
		fputc('\n', out);
	}
	for (size_t r = 0; r < t->nrows; r++)
		print_line(t, t->rows[r], width, right, out);
	if (limit)
		ts_free(limit, t->ncols * sizeof *limit);
	ts_free(width, t->ncols * sizeof *width);
	ts_free(right, t->ncols * sizeof *right);
	return ferror(out) ? TS_EIO : 0;
}

int table_print_csv(const struct ts_table *t, FILE *out)
{
	if (!t || !out)
		return TS_EINVALID;
	if (any_header(t)) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c > 0)
				fputc(',', out);
			csv_put_field(out, head_text(t, c));
		}
		fputc('\n', out);
	}
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c > 0)
				fputc(',', out);
			csv_put_field(out, t->rows[r][c] ? t->rows[r][c] : "");
		}
		fputc('\n', out);
	}
	return ferror(out) ? TS_EIO : 0;
}

static json_t *cell_json(const char *s)
{
	bool integral;
	if (is_json_number(s, &integral)) {
		if (integral) {
			errno = 0;
			char *end;
			long long v = strtoll(s, &end, 10);
			if (errno == 0 && *end == '\0')
				return json_integer((json_int_t)v);
		}
		double d = strtod(s, NULL);
		if (isfinite(d))
			return json_real(d);
	}
	return jstr_new(s, strlen(s));
}

/* The key of column c: its header, or "column N". */
static const char *col_key(const struct ts_table *t, size_t c, char *buf, size_t n)
{
	if (t->head[c])
		return t->head[c];
	snprintf(buf, n, "column %zu", c + 1);
	return buf;
}

json_t *table_to_json(const struct ts_table *t)
{
	if (!t)
		return NULL;
	json_t *arr = json_array();
	if (!arr)
		return NULL;
	for (size_t r = 0; r < t->nrows; r++) {
		json_t *obj = json_object();
		if (!obj || json_array_append_new(arr, obj))
			goto fail;
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->rows[r][c];
			if (!s)
				continue;
			char buf[32];
			json_t *v = cell_json(s);
			/* keys must be UTF-8 as well */
			const char *key = col_key(t, c, buf, sizeof buf);
			json_t *k = jstr_new(key, strlen(key));
			if (!v || !k) {
				json_decref(v);
				json_decref(k);
				goto fail;
			}
			int rc = json_object_set_new(obj, json_string_value(k), v);
			json_decref(k);
			if (rc)
				goto fail;
		}
	}
	return arr;
fail:
	json_decref(arr);
	return NULL;
}

static int write_keyed(const struct ts_table *t, enum ts_format format, const char *kind, FILE *out,
		       struct ts_error *err);

/* The CSV/JSON key of a text heading "name(unit)": snake_case with the
 * unit as suffix ("memory(GiB)" -> "memory_GiB", "hbm(GB/s)" ->
 * "hbm_GBps", "bf16(TFLOP/s)" -> "bf16_TFLOPS", "size(B)" -> "size_bytes",
 * "params(B)" (billions) -> "params_billions"); other headings unchanged. */
static void heading_key(const char *h, char *buf, size_t n)
{
	const char *open = strchr(h, '('), *close = open ? strchr(open, ')') : NULL;
	if (!open || !close || close[1]) {
		snprintf(buf, n, "%s", h);
		return;
	}
	int nb = (int)(open - h);
	while (nb > 0 && h[nb - 1] == ' ')
		nb--;
	char unit[64];
	snprintf(unit, sizeof unit, "%.*s", (int)(close - open - 1), open + 1);
	const char *u = unit;
	if (!strcmp(unit, "B"))
		u = strncmp(h, "params", 6) ? "bytes" : "billions";
	else if (!strcmp(unit, "TFLOP/s"))
		u = "TFLOPS";
	else if (!strcmp(unit, "GB/s"))
		u = "GBps";
	snprintf(buf, n, "%.*s_%s", nb, h, u);
	for (char *p = buf; *p; p++)
		if (*p == ' ' || *p == '/' || *p == '-')
			*p = '_';
}

/* A copy of t with its headings as keys (heading_key), for CSV and JSON;
 * NULL on out of memory. */
static struct ts_table *keyed_copy(const struct ts_table *t)
{
	size_t nc = table_ncols(t), nr = table_nrows(t);
	struct ts_table *k;
	if (table_create(&k, nc))
		return NULL;
	char key[160];
	for (size_t c = 0; c < nc; c++) {
		const char *h = table_head(t, c);
		if (h) {
			heading_key(h, key, sizeof key);
			table_header(k, c, key, TABLE_LEFT);
		}
	}
	for (size_t r = 0; r < nr; r++) {
		table_add_row(k);
		for (size_t c = 0; c < nc; c++) {
			if (table_has(t, r, c))
				table_cell(k, c, "%s", table_get(t, r, c));
		}
	}
	if (table_status(k)) {
		table_destroy(k);
		return NULL;
	}
	return k;
}

int table_write(const struct ts_table *t, enum ts_format format, const char *kind, FILE *out,
		struct ts_error *err)
{
	if (format == TS_FORMAT_CSV || format == TS_FORMAT_JSON) {
		if (table_status(t))
			return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		struct ts_table *k = keyed_copy(t);
		if (!k)
			return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		int rc = write_keyed(k, format, kind, out, err);
		table_destroy(k);
		return rc;
	}
	return write_keyed(t, format, kind, out, err);
}

/* table_write of a table whose headings are already keys. */
static int write_keyed(const struct ts_table *t, enum ts_format format, const char *kind, FILE *out,
		       struct ts_error *err)
{
	if (format != TS_FORMAT_TEXT && format != TS_FORMAT_CSV && format != TS_FORMAT_JSON)
		return ts_error_set(err, TS_EUSAGE, NULL, 0, "--format",
				    "found format %d, expected text, csv or json", (int)format);
	if (table_status(t))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	int e;
	if (format == TS_FORMAT_CSV) {
		e = table_print_csv(t, out);
	} else if (format == TS_FORMAT_TEXT) {
		e = table_print(t, out);
	} else {
		json_t *root = json_object(), *rows = table_to_json(t);
		e = !root || !rows ||
		    json_object_set_new(root, "trainsim_version", json_string(TS_VERSION)) ||
		    json_object_set_new(root, "schema_version", json_integer(TS_SCHEMA_VERSION)) ||
		    (kind && json_object_set_new(root, "kind", json_string(kind))) ||
		    json_object_set(root, "rows", rows) ||
		    json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
		    fputc('\n', out) == EOF;
		json_decref(rows);
		json_decref(root);
	}
	return e ? ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the table failed") : 0;
}
