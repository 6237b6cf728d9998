/* Error codes (one X-macro list in trainsim.h generates the enum and
 * ts_strerror) and the detailed error record that library calls fill for the caller to print.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_ERR_H
#define TS_BASE_ERR_H

#include <stdarg.h>

/* The error codes (TS_ERRNO_MAP, enum ts_errno) and ts_strerror are part of
 * the public API: one list, in the public header. */
#include "trainsim.h"

/* The detail of the last error: where it is (file, line), which key, and a
 * message saying what was found and what was expected. A plain record owned by
 * the caller; library calls that take a `struct ts_error *` fill it on failure
 * (it may be NULL when the caller does not want the detail). */
struct ts_error {
	int code;	/* TS_E* value, 0 when no error */
	char file[256]; /* input file, "" when not from a file */
	int line;	/* 1-based line in file, 0 when unknown */
	char key[160];	/* dotted key path, "" when none */
	char msg[768];	/* what was found and what was expected */
};

/* Fill `e` (if not NULL) and return `code`, so a caller can write
 * `return ts_error_set(e, TS_ERANGE, file, line, "training.micro_batch",
 * "found %d, expected a positive integer", v);`. file and key may be NULL. */
int ts_error_set(struct ts_error *e, int code, const char *file, int line, const char *key,
		 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Clear `e` to "no error". */
void ts_error_clear(struct ts_error *e);

/* Write the one-line form "file:line: key: message" into buf (size n);
 * parts that are unknown are left out, and every control character of
 * the three (a newline, a terminal escape sequence from an input's text) is
 * shown escaped as ts_escape_ctl does, so the line is one line and nothing
 * from an input reaches a terminal raw. Returns buf. */
char *ts_error_format(const struct ts_error *e, char *buf, size_t n);

/* The first `len` bytes of src (up to its NUL) into dst (size n, always
 * NUL-terminated), each control character (0x01-0x1F, 0x7F) shown as an
 * escape: \n, \r, \t, else \xHH (ESC is \x1b). Other bytes, the
 * backslash and UTF-8 included, are copied as they are, so escaping twice
 * changes nothing. Cut at a whole character or escape when dst is full.
 * For any text from an input (a name, a file name, a value) that is printed
 * for people to read. Returns dst. */
char *ts_escape_ctl(char *dst, size_t n, const char *src, size_t len);

#endif
