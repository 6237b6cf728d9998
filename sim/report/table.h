/* Tables of text cells: aligned columns for people, CSV (RFC 4180 quoting)
 * and JSON (through jansson) for programs, all from the same cells.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_TABLE_H
#define TS_REPORT_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trainsim.h"

struct ts_table;

enum table_align {
	TABLE_AUTO, /* right if every non-empty cell of the column is a number, else left */
	TABLE_LEFT, /* text */
	TABLE_RIGHT /* numbers and quantities ("1.234 s") */
};

/* Most columns of one table. */
#define TABLE_MAX_COLS 1024

/* Create an empty table of `ncols` columns (1..TABLE_MAX_COLS), headers empty
 * and aligned TABLE_AUTO. Returns 0, TS_ENOMEM, or TS_ERANGE for a bad ncols;
 * *t is NULL on failure. The caller frees it with table_destroy. */
int table_create(struct ts_table **t, size_t ncols);

/* Free the table and every cell (NULL is fine). */
void table_destroy(struct ts_table *t);

/* Set the header text (copied; NULL = empty) and alignment of column `col`
 * (0-based). Returns 0, TS_ENOMEM, or TS_ERANGE for a bad column or alignment. */
int table_header(struct ts_table *t, size_t col, const char *name, enum table_align align);

/* Let table_print wrap headers at spaces onto several lines when the table
 * would be wider than line_width characters: every header to the largest
 * common width that brings the table within line_width, but never below
 * min_width nor below the widest cell of its column (a word longer than
 * that keeps a line of its own); the lines are bottom-aligned on the
 * dashes. min_width 0 (the default) prints each header on one line. CSV and
 * JSON keep headers whole. */
void table_wrap_headers(struct ts_table *t, size_t min_width, size_t line_width);

/* Append an empty row; table_cell fills its cells. Returns 0 or TS_ENOMEM. */
int table_add_row(struct ts_table *t);

/* Set cell `col` of the last row to the printf-formatted text (an earlier
 * value is replaced). Returns 0, TS_ENOMEM, TS_EINVALID when no row was
 * added yet, or TS_ERANGE for a bad column. */
int table_cell(struct ts_table *t, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The first error any of the calls above returned on this table, 0 if none:
 * callers may fill a table without checking each call and check once. */
int table_status(const struct ts_table *t);

/* Number of columns and of rows added. */
size_t table_ncols(const struct ts_table *t);
size_t table_nrows(const struct ts_table *t);

/* Text of a cell ("" when unset or out of range); owned by the table. */
const char *table_get(const struct ts_table *t, size_t row, size_t col);

/* The heading of column col (owned by the table), NULL when unset. */
const char *table_head(const struct ts_table *t, size_t col);

/* Whether cell (row, col) was set (an empty text counts as set). */
bool table_has(const struct ts_table *t, size_t row, size_t col);

/* Print the header line (when any header is set), a rule of dashes, and the
 * rows, columns separated by two spaces and padded to the widest cell (UTF-8
 * characters counted, control characters shown as spaces). Returns 0 or
 * TS_EIO when writing fails. */
int table_print(const struct ts_table *t, FILE *out);

/* Print the header line and the rows as CSV: fields holding a comma, a
 * double quote, CR or LF are quoted and their quotes doubled (RFC 4180);
 * lines end in "\n". Returns 0 or TS_EIO. */
int table_print_csv(const struct ts_table *t, FILE *out);

/* The rows as a JSON array of objects keyed by header (an empty header is
 * keyed "column N", 1-based; of equal headers the last column wins). Cells
 * that are JSON numbers ("12", "-3.5e9") become numbers, other cells strings;
 * unset cells are left out. Returns a new reference, NULL on out of memory. */
json_t *table_to_json(const struct ts_table *t);

/* Write t in a format: TS_FORMAT_TEXT as table_print; TS_FORMAT_CSV and
 * TS_FORMAT_JSON with each heading "name(unit)" made a key (snake_case,
 * the unit a suffix: "memory(GiB)" -> "memory_GiB", "hbm(GB/s)" ->
 * "hbm_GBps", "size(B)" -> "size_bytes", "params(B)" ->
 * "params_billions"), CSV as table_print_csv and JSON as one object
 * {"trainsim_version", "schema_version", "kind" (when kind is not NULL),
 * "rows": table_to_json}. Returns 0, TS_EUSAGE (another format), TS_ENOMEM
 * (also a table whose filling failed) or TS_EIO, with err set. */
struct ts_error;
int table_write(const struct ts_table *t, enum ts_format format, const char *kind, FILE *out,
		struct ts_error *err);

#endif
