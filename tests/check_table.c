/* Text tables: alignment and widths, CSV quoting, JSON cells, bad calls and
 * failed allocations.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "report/table.h"
#include "testutil.h"

/* Print into a memory buffer; returns a malloc'd NUL-terminated string. */
static char *capture(int (*print)(const struct ts_table *, FILE *), const struct ts_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(print(t, f), 0);
	fclose(f);
	return buf;
}

static struct ts_table *sample(void)
{
	struct ts_table *t;
	ck_assert_int_eq(table_create(&t, 3), 0);
	ck_assert_int_eq(table_header(t, 0, "gpu", TABLE_LEFT), 0);
	ck_assert_int_eq(table_header(t, 1, "count", TABLE_AUTO), 0);
	ck_assert_int_eq(table_header(t, 2, "note", TABLE_AUTO), 0);
	table_add_row(t);
	table_cell(t, 0, "A100");
	table_cell(t, 1, "%d", 8);
	table_cell(t, 2, "fast, \"big\"");
	table_add_row(t);
	table_cell(t, 0, "RTX 4090");
	table_cell(t, 1, "%.1f", 1234.5);
	table_cell(t, 2, "µs");
	ck_assert_int_eq(table_status(t), 0);
	return t;
}

START_TEST(text_alignment)
{
	struct ts_table *t = sample();
	char *s = capture(table_print, t);
	const char *want = "gpu        count  note\n"
			   "--------  ------  -----------\n"
			   "A100           8  fast, \"big\"\n"
			   "RTX 4090  1234.5  µs\n";
	ck_assert_str_eq(s, want);
	free(s);
	table_destroy(t);
}
END_TEST

/* Headers wrap only as far as the line width needs: the columns below
 * are 3 ("row"), 5 ("12345") and 1 ("x") wide, the headers 22 and 13,
 * so one line is 3 + 2 + 22 + 2 + 13 = 42. For 30 columns the common
 * width L falls from 22: at 13 the headers wrap to "alpha beta" / "gamma
 * delta" (11) and "one two three" (13), 31 wide; at 12 to 11 and "one
 * two" / "three" (7), 3 + 2 + 11 + 2 + 7 = 25, the first within 30. */
START_TEST(headers_wrap_to_the_line_width)
{
	struct ts_table *t;
	ck_assert_int_eq(table_create(&t, 3), 0);
	table_header(t, 0, NULL, TABLE_LEFT);
	table_header(t, 1, "alpha beta gamma delta", TABLE_RIGHT);
	table_header(t, 2, "one two three", TABLE_RIGHT);
	table_add_row(t);
	table_cell(t, 0, "row");
	table_cell(t, 1, "12345");
	table_cell(t, 2, "x");
	char *s = capture(table_print, t);
	ck_assert_str_eq(s, "     alpha beta gamma delta  one two three\n"
			    "---  ----------------------  -------------\n"
			    "row                   12345              x\n");
	free(s);
	table_wrap_headers(t, 5, 50); /* 42 fits in 50: one line */
	s = capture(table_print, t);
	ck_assert_str_eq(s, "     alpha beta gamma delta  one two three\n"
			    "---  ----------------------  -------------\n"
			    "row                   12345              x\n");
	free(s);
	table_wrap_headers(t, 5, 30);
	s = capture(table_print, t);
	ck_assert_str_eq(s, "      alpha beta  one two\n"
			    "     gamma delta    three\n"
			    "---  -----------  -------\n"
			    "row        12345        x\n");
	free(s);
	/* 10 columns cannot be had: every header wraps at the least width, 5
	 * (a word per line, bottom-aligned: "one two three" starts a line
	 * lower than "alpha beta gamma delta") */
	table_wrap_headers(t, 5, 10);
	s = capture(table_print, t);
	ck_assert_str_eq(s, "     alpha\n"
			    "      beta    one\n"
			    "     gamma    two\n"
			    "     delta  three\n"
			    "---  -----  -----\n"
			    "row  12345      x\n");
	free(s);
	table_destroy(t);
}
END_TEST

START_TEST(csv_quoting)
{
	struct ts_table *t = sample();
	table_add_row(t);
	table_cell(t, 0, "two\nlines\x1b[2J");
	char *s = capture(table_print_csv, t);
	/* a control character is escaped as text shows it, never raw: the row
	 * stays one line and needs no quotes */
	const char *want = "gpu,count,note\n"
			   "A100,8,\"fast, \"\"big\"\"\"\n"
			   "RTX 4090,1234.5,µs\n"
			   "two\\nlines\\x1b[2J,,\n";
	ck_assert_str_eq(s, want);
	free(s);
	table_destroy(t);
}
END_TEST

START_TEST(json_cells)
{
	struct ts_table *t = sample();
	table_add_row(t);
	table_cell(t, 1, "1e3");
	table_cell(t, 2, "-0.5");
	table_add_row(t);
	table_cell(t, 1, "0x10"); /* not a JSON number */
	table_cell(t, 2, "nan");
	json_t *j = table_to_json(t);
	ck_assert_ptr_nonnull(j);
	ck_assert_uint_eq(json_array_size(j), 4);
	json_t *r0 = json_array_get(j, 0);
	ck_assert(json_is_integer(json_object_get(r0, "count")));
	ck_assert_int_eq(json_integer_value(json_object_get(r0, "count")), 8);
	ck_assert_str_eq(json_string_value(json_object_get(r0, "gpu")), "A100");
	json_t *r1 = json_array_get(j, 1);
	ck_assert(json_is_real(json_object_get(r1, "count")));
	ck_assert(json_real_value(json_object_get(r1, "count")) == 1234.5);
	json_t *r2 = json_array_get(j, 2);
	ck_assert(json_real_value(json_object_get(r2, "count")) == 1000.0);
	ck_assert(json_real_value(json_object_get(r2, "note")) == -0.5);
	ck_assert_ptr_null(json_object_get(r2, "gpu")); /* unset cells are left out */
	json_t *r3 = json_array_get(j, 3);
	ck_assert_str_eq(json_string_value(json_object_get(r3, "count")), "0x10");
	ck_assert_str_eq(json_string_value(json_object_get(r3, "note")), "nan");
	json_decref(j);
	table_destroy(t);
}
END_TEST

START_TEST(bad_calls_do_not_crash)
{
	struct ts_table *t;
	ck_assert_int_eq(table_create(&t, 0), TS_ERANGE);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(table_create(&t, 2), 0);
	ck_assert_int_eq(table_cell(t, 0, "x"), TS_EINVALID); /* no row yet */
	ck_assert_int_eq(table_status(t), TS_EINVALID);
	table_add_row(t);
	ck_assert_int_eq(table_cell(t, 2, "x"), TS_ERANGE);
	ck_assert_int_eq(table_header(t, 5, "x", TABLE_LEFT), TS_ERANGE);
	ck_assert_int_eq(table_header(t, 0, "x", (enum table_align)42), TS_ERANGE);
	ck_assert_str_eq(table_get(t, 9, 9), "");
	/* invalid UTF-8 and control characters */
	table_cell(t, 0, "a\xff\xfe\tb");
	table_cell(t, 1, "\xe2\x82");
	char *s = capture(table_print, t);
	ck_assert_ptr_nonnull(strstr(s, "a\xff\xfe b"));
	free(s);
	json_t *j = table_to_json(t);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(j, 0), "column 1")),
			 "a??\tb");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(j, 0), "column 2")),
			 "??");
	json_decref(j);
	table_destroy(t);
	table_destroy(NULL);
	ck_assert_int_eq(table_add_row(NULL), TS_EINVALID);
	ck_assert_int_eq(table_print(NULL, stdout), TS_EINVALID);
	ck_assert_ptr_null(table_to_json(NULL));
}
END_TEST

static struct tu_failalloc fa; /* the failing allocator's state */

START_TEST(failed_allocations_leak_nothing)
{
	for (fa.fail_at = 1; fa.fail_at < 200; fa.fail_at++) {
		fa.calls = 0;
		fa.live = 0;
		ts_alloc_set(tu_failing_alloc, &fa);
		struct ts_table *t;
		if (table_create(&t, 3) == 0) {
			table_header(t, 0, "a", TABLE_LEFT);
			table_header(t, 1, "b", TABLE_RIGHT);
			for (int r = 0; r < 20; r++) {
				table_add_row(t);
				table_cell(t, 0, "row %d", r);
				table_cell(t, 1, "%d", r * r);
				table_cell(t, 2, "%s", "x");
			}
			FILE *f = fopen("/dev/null", "w");
			table_print(t, f);
			table_print_csv(t, f);
			fclose(f);
			table_destroy(t);
		}
		ts_alloc_set(NULL, NULL);
		ck_assert_int_eq(fa.live, 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("table");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, text_alignment);
	tcase_add_test(tc, headers_wrap_to_the_line_width);
	tcase_add_test(tc, csv_quoting);
	tcase_add_test(tc, json_cells);
	tcase_add_test(tc, bad_calls_do_not_crash);
	tcase_add_test(tc, failed_allocations_leak_nothing);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
