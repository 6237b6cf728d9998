/* The error record's one-line form: control characters from an input (a
 * newline, a terminal escape sequence) are shown escaped wherever they are,
 * file, key or message, and ts_escape_ctl escapes them whole or not at all.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "io/sweepcfg.h"
#include "testutil.h"

START_TEST(escape_control_characters)
{
	char b[64];
	ck_assert_str_eq(ts_escape_ctl(b, sizeof b, "a\nb\rc\td", 64), "a\\nb\\rc\\td");
	/* ESC ] 0 ; ... BEL and DEL as \xHH; UTF-8 and backslashes as they are */
	ck_assert_str_eq(ts_escape_ctl(b, sizeof b, "\x1b]0;X\x07\x7f", 64), "\\x1b]0;X\\x07\\x7f");
	ck_assert_str_eq(ts_escape_ctl(b, sizeof b, "caf\xc3\xa9 \\n", 64), "caf\xc3\xa9 \\n");
	/* escaping twice changes nothing */
	char c[64];
	ts_escape_ctl(b, sizeof b, "x\ny", 64);
	ck_assert_str_eq(ts_escape_ctl(c, sizeof c, b, 64), b);
	/* len bounds the source; a full destination cuts before an escape */
	ck_assert_str_eq(ts_escape_ctl(b, sizeof b, "abcdef", 3), "abc");
	ck_assert_str_eq(ts_escape_ctl(b, 6, "abc\x1b", 64), "abc"); /* "\x1b" needs 4 */
	ck_assert_str_eq(ts_escape_ctl(b, 8, "abc\x1b", 64), "abc\\x1b");
}
END_TEST

START_TEST(format_is_one_line)
{
	struct ts_error e;
	char b[1400];
	ts_error_set(&e, TS_ESYNTAX, "dir\n/a.cfg", 3, "na\tme", "found \"%s\", expected x",
		     "\x1b[2J\ncleared");
	ts_error_format(&e, b, sizeof b);
	ck_assert_str_eq(b, "dir\\n/a.cfg:3: na\\tme: found \"\\x1b[2J\\ncleared\", expected x");
}
END_TEST

/* the sweep file of the report: an axis value that clears the screen and
 * sets the terminal's title, as a scalar where a list belongs; and a
 * newline in the same place */
START_TEST(sweep_file_errors_escaped)
{
	const char *texts[] = {
	    "base = \"default\";\naxes = { nodes = \"\\x1b]0;PWNED\\x07\\x1b[2J\"; };\n",
	    "base = \"default\";\naxes = { nodes = \"a\\nb\"; };\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct sweep_spec *sp = NULL;
		struct ts_error e;
		char b[1400];
		ck_assert_int_ne(sweepcfg_load_string(texts[i], "s.cfg", &sp, &e), 0);
		ck_assert_ptr_null(sp);
		ts_error_format(&e, b, sizeof b);
		for (const char *p = b; *p; p++)
			ck_assert_msg((unsigned char)*p >= 0x20 && *p != 0x7f,
				      "raw control character 0x%02x in \"%s\"", *p, b);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("err");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, escape_control_characters);
	tcase_add_test(tc, format_is_one_line);
	tcase_add_test(tc, sweep_file_errors_escaped);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
