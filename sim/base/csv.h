/* Reading CSV: the one reader of trainsim's CSV inputs (validation
 * measurements, a sweep's own output when resuming, results to plot); and
 * the one quoting of a field written to a stream.
 *
 * RFC 4180 as trainsim and common tools write it: fields separated by ',',
 * a field that holds ',' or '"' quoted with '"' and its '"' doubled; no line
 * breaks inside a field. A line's "\n" or "\r\n" ending is not part of it,
 * nor a UTF-8 byte-order mark that starts the file.
 * Quoting is checked: a '"' inside an unquoted field, a quoted field that
 * does not close, or text after the closing quote make the line broken.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_CSV_H
#define TS_BASE_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

/* What csv_split returns besides a field count. */
enum { CSV_TOO_MANY = -1, CSV_BROKEN = -2 };

/* Split `line` in place into its fields, unquoted: f[0..n) point into line.
 * Returns n (an empty line is one empty field), CSV_TOO_MANY when it has more
 * than max fields, or CSV_BROKEN when its quoting is broken. */
int csv_split(char *line, char **f, int max);

/* A CSV file read line by line. */
struct csv {
	FILE *fp;
	const char *path; /* for messages (borrowed) */
	char *line;	  /* the current line, split (owned) */
	size_t line_max;  /* its capacity */
	char **f;	  /* the current line's fields (owned) */
	int max_fields;
	int nf;	    /* fields of the current line */
	int lineno; /* 1-based number of the current line */
};

/* Open path for reading lines of at most line_max bytes and max_fields
 * fields. Returns 0, TS_EIO (cannot open: the message says why) or
 * TS_ENOMEM. Close with csv_close (also after a failed open). */
int csv_open(struct csv *c, const char *path, size_t line_max, int max_fields,
	     struct ts_error *err);

/* As csv_open, on a stream already open (standard input read into memory,
 * say), named `path` in messages; c owns fp from here, csv_close closes it
 * (also after a failed open). Returns 0 or TS_ENOMEM. */
int csv_open_stream(struct csv *c, FILE *fp, const char *path, size_t line_max, int max_fields,
		    struct ts_error *err);

/* Read and split the next line into c->f, c->nf: 1 when there was one, 0
 * at the end of the file, or with err naming file and line: TS_ESYNTAX
 * (more than max_fields fields, broken quoting), TS_ELIMIT (a line longer
 * than line_max), TS_EIO (reading failed). */
int csv_next(struct csv *c, struct ts_error *err);

/* The index of column `name` in the current line (a header), -1 if none. */
int csv_col(const struct csv *c, const char *name);

/* The next data line of a file whose line 1 is a header: the header gives
 * col[k], the index of names[k] for k < n (TS_ESYNTAX naming the first
 * missing one); blank lines are skipped. 1 for a data line in c, 0 at the
 * end, or the error of csv_next. */
int csv_row(struct csv *c, const char *const *names, int n, int *col, struct ts_error *err);

/* Close the file and free the buffers (a zeroed or failed struct is fine). */
void csv_close(struct csv *c);

/* Write field s to out, quoted as RFC 4180 asks when it holds ',' or '"'
 * (its '"' doubled); a control character (a line break, ESC) escaped as
 * text output shows it ("\n", "\x1b": ts_escape_ctl), never raw, so that
 * the line is one line csv_next reads back and a terminal showing it is not
 * driven by it; no separator. Write errors are left to the stream's error
 * flag. */
void csv_put_field(FILE *out, const char *s);

#endif
