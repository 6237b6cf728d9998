/* Reading CSV.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "base/file.h"

int csv_split(char *line, char **f, int max)
{
	line[strcspn(line, "\r\n")] = '\0';
	char *p = line;
	int n = 0;
	for (;;) {
		if (n >= max)
			return CSV_TOO_MANY;
		char *w = p;
		f[n++] = w;
		if (*p == '"') {
			for (p++;; p++) {
				if (!*p)
					return CSV_BROKEN; /* not closed */
				if (*p == '"') {
					if (p[1] != '"')
						break;
					p++;
				}
				*w++ = *p;
			}
			p++;
			if (*p && *p != ',')
				return CSV_BROKEN; /* text after the closing quote */
		} else {
			for (; *p && *p != ','; p++) {
				if (*p == '"')
					return CSV_BROKEN;
				*w++ = *p;
			}
		}
		char end = *p;
		*w = '\0';
		if (end != ',')
			return n;
		p++;
	}
}

int csv_open_stream(struct csv *c, FILE *fp, const char *path, size_t line_max, int max_fields,
		    struct ts_error *err)
{
	*c = (struct csv){.fp = fp, .path = path, .line_max = line_max, .max_fields = max_fields};
	if (!(c->line = ts_malloc(line_max)) ||
	    !(c->f = ts_calloc((size_t)max_fields, sizeof *c->f)))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	return 0;
}

int csv_open(struct csv *c, const char *path, size_t line_max, int max_fields, struct ts_error *err)
{
	FILE *fp = ts_fopen(path, "r");
	if (!fp) {
		*c = (struct csv){.path = path};
		return ts_error_set(err, TS_EIO, path, 0, NULL, "cannot open the file: %s",
				    strerror(errno));
	}
	int rc = csv_open_stream(c, fp, path, line_max, max_fields, err);
	if (rc)
		return rc;
	/* a directory opens for reading; its first read would only say
	 * "reading failed" */
	struct stat st;
	if (!fstat(fileno(c->fp), &st) && S_ISDIR(st.st_mode))
		return ts_error_set(err, TS_EIO, path, 0, NULL,
				    "found a directory, expected a CSV file");
	return 0;
}

int csv_next(struct csv *c, struct ts_error *err)
{
	if (!fgets(c->line, (int)c->line_max, c->fp))
		return ferror(c->fp) ? ts_error_set(err, TS_EIO, c->path, c->lineno + 1, NULL,
						    "reading failed")
				     : 0;
	c->lineno++;
	/* a UTF-8 byte-order mark before the header (Excel's "CSV UTF-8") is
	 * not part of the first field */
	if (c->lineno == 1 && !strncmp(c->line, "\xef\xbb\xbf", 3))
		memmove(c->line, c->line + 3, strlen(c->line + 3) + 1);
	size_t len = strlen(c->line);
	if (len + 1 == c->line_max && c->line[len - 1] != '\n' && !feof(c->fp))
		return ts_error_set(err, TS_ELIMIT, c->path, c->lineno, NULL,
				    "found a line longer than %zu bytes, expected shorter lines",
				    c->line_max - 2);
	c->nf = csv_split(c->line, c->f, c->max_fields);
	if (c->nf == CSV_TOO_MANY)
		return ts_error_set(err, TS_ESYNTAX, c->path, c->lineno, NULL,
				    "found more than %d fields, expected at most %d", c->max_fields,
				    c->max_fields);
	if (c->nf == CSV_BROKEN)
		return ts_error_set(err, TS_ESYNTAX, c->path, c->lineno, NULL,
				    "found broken quoting (a '\"' inside an unquoted field, a "
				    "quoted field not closed, or text after its closing quote), "
				    "expected RFC 4180 CSV");
	return 1;
}

int csv_col(const struct csv *c, const char *name)
{
	for (int i = 0; i < c->nf; i++)
		if (!strcmp(c->f[i], name))
			return i;
	return -1;
}

int csv_row(struct csv *c, const char *const *names, int n, int *col, struct ts_error *err)
{
	int rc;
	while ((rc = csv_next(c, err)) > 0) {
		if (c->lineno == 1) {
			for (int k = 0; k < n; k++)
				if ((col[k] = csv_col(c, names[k])) < 0)
					return ts_error_set(err, TS_ESYNTAX, c->path, 1, names[k],
							    "missing column in the header");
			continue;
		}
		if (!(c->nf == 1 && !*c->f[0]))
			return 1;
	}
	return rc;
}

void csv_close(struct csv *c)
{
	if (c->fp)
		fclose(c->fp);
	ts_free(c->line, c->line_max);
	ts_free(c->f, (size_t)c->max_fields * sizeof *c->f);
	*c = (struct csv){0};
}

void csv_put_field(FILE *out, const char *s)
{
	bool quote = strpbrk(s, ",\"") != NULL;
	if (quote)
		fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f) {
			char e[8];
			fputs(ts_escape_ctl(e, sizeof e, s, 1), out);
			continue;
		}
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	if (quote)
		fputc('"', out);
}
