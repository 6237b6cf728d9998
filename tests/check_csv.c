/* The one CSV reader: splitting (quotes, doubled quotes, empty fields, CRLF),
 * broken quoting and too many fields refused, a too-long line refused with
 * its file and line, header columns found by name and blank lines skipped;
 * and the table writer's CSV reads back to the same cells.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* mkstemp, open_memstream */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csv.h"
#include "base/err.h"
#include "report/table.h"
#include "testutil.h"

START_TEST(split_fields)
{
	char line[] = "a,\"b, \"\"quoted\"\"\",,\"\",last\r\n";
	char *f[8];
	ck_assert_int_eq(csv_split(line, f, 8), 5);
	ck_assert_str_eq(f[0], "a");
	ck_assert_str_eq(f[1], "b, \"quoted\"");
	ck_assert_str_eq(f[2], "");
	ck_assert_str_eq(f[3], "");
	ck_assert_str_eq(f[4], "last");
	char empty[] = "\n";
	ck_assert_int_eq(csv_split(empty, f, 8), 1);
	ck_assert_str_eq(f[0], "");
	char trailing[] = "x,";
	ck_assert_int_eq(csv_split(trailing, f, 8), 2);
	ck_assert_str_eq(f[1], "");
}
END_TEST

START_TEST(split_refuses)
{
	char *f[3];
	const char *broken[] = {"a,b\"c", "\"open,b", "\"closed\"x,b", "\"a\"\"\n"};
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		char line[32];
		strcpy(line, broken[i]);
		ck_assert_msg(csv_split(line, f, 3) == CSV_BROKEN, "\"%s\" not refused", broken[i]);
	}
	char many[] = "1,2,3,4";
	ck_assert_int_eq(csv_split(many, f, 3), CSV_TOO_MANY);
	char three[] = "1,2,3";
	ck_assert_int_eq(csv_split(three, f, 3), 3);
}
END_TEST

static char *write_tmp(const char *text)
{
	static char path[64];
	tu_tmpfile("check_csv", text, path, sizeof path);
	return path;
}

START_TEST(file_rows_by_header)
{
	char *path = write_tmp("id,value,unused\nr1,1.5,x\n\n\"r,2\",2.5,y\n");
	struct csv c;
	struct ts_error err;
	static const char *const names[] = {"value", "id"};
	int col[2];
	ck_assert_int_eq(csv_open(&c, path, 64, 4, &err), 0);
	ck_assert_int_eq(csv_row(&c, names, 2, col, &err), 1);
	ck_assert_int_eq(col[0], 1);
	ck_assert_int_eq(col[1], 0);
	ck_assert_str_eq(c.f[col[1]], "r1");
	ck_assert_int_eq(csv_row(&c, names, 2, col, &err), 1); /* the blank line skipped */
	ck_assert_int_eq(c.lineno, 4);
	ck_assert_str_eq(c.f[col[1]], "r,2");
	ck_assert_str_eq(c.f[col[0]], "2.5");
	ck_assert_int_eq(csv_row(&c, names, 2, col, &err), 0);
	csv_close(&c);
	static const char *const missing[] = {"id", "measured"};
	ck_assert_int_eq(csv_open(&c, path, 64, 4, &err), 0);
	ck_assert_int_eq(csv_row(&c, missing, 2, col, &err), TS_ESYNTAX);
	ck_assert_str_eq(err.key, "measured");
	ck_assert_int_eq(err.line, 1);
	csv_close(&c);
	unlink(path);
	/* Excel's "CSV UTF-8": a byte-order mark and CRLF; "id" is still found */
	path = write_tmp("\xef\xbb\xbfid,value\r\nr1,1.5\r\n");
	ck_assert_int_eq(csv_open(&c, path, 64, 4, &err), 0);
	ck_assert_int_eq(csv_row(&c, names, 2, col, &err), 1);
	ck_assert_int_eq(col[1], 0);
	ck_assert_str_eq(c.f[col[1]], "r1");
	ck_assert_str_eq(c.f[col[0]], "1.5");
	csv_close(&c);
	unlink(path);
}
END_TEST

START_TEST(file_errors_name_the_line)
{
	char *path = write_tmp("a,b\n0123456789012345678901234567890123456789\nc,d\n");
	struct csv c;
	struct ts_error err;
	ck_assert_int_eq(csv_open(&c, path, 16, 4, &err), 0);
	ck_assert_int_eq(csv_next(&c, &err), 1);
	ck_assert_int_eq(csv_next(&c, &err), TS_ELIMIT);
	ck_assert_int_eq(err.line, 2);
	ck_assert_str_eq(err.file, path);
	csv_close(&c);
	unlink(path);
	path = write_tmp("a,b\n\"x,1\n");
	ck_assert_int_eq(csv_open(&c, path, 64, 4, &err), 0);
	ck_assert_int_eq(csv_next(&c, &err), 1);
	ck_assert_int_eq(csv_next(&c, &err), TS_ESYNTAX);
	ck_assert_int_eq(err.line, 2);
	ck_assert_ptr_nonnull(strstr(err.msg, "quoting"));
	csv_close(&c);
	unlink(path);
	ck_assert_int_eq(csv_open(&c, "/nonexistent/x.csv", 64, 4, &err), TS_EIO);
	csv_close(&c);
}
END_TEST

/* What report/table.c writes, csv.c reads back cell for cell. */
START_TEST(table_round_trip)
{
	struct ts_table *t;
	ck_assert_int_eq(table_create(&t, 3), 0);
	table_header(t, 0, "name", TABLE_LEFT);
	table_header(t, 1, "note", TABLE_LEFT);
	table_header(t, 2, "n", TABLE_RIGHT);
	table_add_row(t);
	table_cell(t, 0, "a, \"b\"");
	table_cell(t, 1, "%s", "");
	table_cell(t, 2, "%d", 7);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	ck_assert_int_eq(table_print_csv(t, m), 0);
	fclose(m);
	table_destroy(t);
	char *nl = strchr(buf, '\n');
	ck_assert_ptr_nonnull(nl);
	char *f[4];
	ck_assert_int_eq(csv_split(nl + 1, f, 4), 3);
	ck_assert_str_eq(f[0], "a, \"b\"");
	ck_assert_str_eq(f[1], "");
	ck_assert_str_eq(f[2], "7");
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("csv");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, split_fields);
	tcase_add_test(tc, split_refuses);
	tcase_add_test(tc, file_rows_by_header);
	tcase_add_test(tc, file_errors_name_the_line);
	tcase_add_test(tc, table_round_trip);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
