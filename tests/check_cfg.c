/* The configuration reader (base/cfg): whole trees only (a name or a string
 * lost to a failed allocation is an error, never a default), and loading the
 * catalog and a scenario with each allocation failing in turn through the
 * allocation hook: the same scenario or an error with a message, and no leak.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/cfg.h"
#include "base/units.h"
#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "testutil.h"

START_TEST(a_parsed_tree_is_whole)
{
	config_t cfg;
	config_init(&cfg);
	struct ts_error e;
	ck_assert_int_eq(
	    cfg_parse(&cfg, "a = 1; b = \"x\"; g = { c = [1, 2]; d = (\"y\", { e = 2.5; }); };",
		      "t.cfg", &e),
	    0);
	ck_assert(cfg_intact(config_root_setting(&cfg)));
	ck_assert(!cfg_intact(NULL));
	/* a string whose text is lost (as when libconfig's strdup fails) */
	config_setting_t *s = config_lookup(&cfg, "b");
	ck_assert_ptr_nonnull(s);
	config_setting_set_string(s, NULL);
	ck_assert_ptr_null(config_setting_get_string(s));
	ck_assert(!cfg_intact(config_root_setting(&cfg)));
	ck_assert(cfg_intact(config_lookup(&cfg, "g")));
	/* every reader says out of memory for it, never reads a default */
	char buf[64];
	double d;
	int i;
	static const char *const names[] = {"x", "y"};
	ck_assert_int_eq(cfg_string(s, "t.cfg", "b", buf, sizeof buf, &e), TS_ENOMEM);
	ck_assert_int_eq(cfg_enum(s, "t.cfg", "b", names, 2, &i, &e), TS_ENOMEM);
	ck_assert_int_eq(cfg_bytes(s, "t.cfg", "b", &d, &e), TS_ENOMEM);
	const config_setting_t *root = config_root_setting(&cfg);
	ck_assert_int_eq(cfg_get_string(root, "b", true, buf, sizeof buf, "t.cfg", "", &e),
			 TS_ENOMEM);
	ck_assert_int_eq(
	    cfg_get_number(root, "b", TS_UNIT_BYTES, true, 0.0, 1e9, &d, "t.cfg", "", &e),
	    TS_ENOMEM);
	ck_assert_str_eq(e.key, "b");
	ck_assert_int_eq(e.line, 1);
	/* deep inside a list */
	config_setting_t *l = config_lookup(&cfg, "g.d");
	config_setting_set_string(config_setting_get_elem(l, 0), NULL);
	ck_assert(!cfg_intact(config_lookup(&cfg, "g")));
	config_destroy(&cfg);
}
END_TEST

static struct tu_failalloc fa; /* the failing allocator's state */

/* Load the catalog and a scenario with one --set, dump it into *text; 0 or
 * the error code (with err filled). */
static int load_dump(char **text, struct ts_error *err)
{
	static const char *const sets[] = {"parallel.tp=2", "training.micro_batch=2"};
	struct hw_catalog *cat = NULL;
	struct ts_scenario *s = NULL;
	char path[1024];
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", tu_root());
	*text = NULL;
	int rc = hw_catalog_load(tu_root(), &cat, err);
	if (!rc)
		rc = ts_scenario_load(cat, path, sets, 2, &s, err);
	if (!rc) {
		size_t len = 0;
		FILE *f = open_memstream(text, &len);
		ck_assert_ptr_nonnull(f);
		rc = ts_scenario_dump(s, f);
		fclose(f);
		if (rc) /* the dump has no error record of its own */
			ts_error_set(err, rc, NULL, 0, NULL, "dumping the scenario failed");
	}
	ts_scenario_destroy(s);
	hw_catalog_destroy(cat);
	return rc;
}

/* Every size read through cfg_bytes or cfg_get_number (scenario buckets and
 * memory limits, cluster host memory, dataset bytes per sample, GPU memory)
 * needs its unit: "40" and 40 are refused with file, line, key, what was
 * found and what was expected; a size of 0 is 0 in any unit. */
START_TEST(sizes_need_their_unit)
{
	config_t cfg;
	struct ts_error e;
	double d = -1.0;
	config_init(&cfg);
	ck_assert_int_eq(cfg_parse(&cfg,
				   "a = \"40\";\nb = 40;\nc = 40.0;\nz = 0;\nm = \"40 MiB\";\n",
				   "t.cfg", &e),
			 0);
	const config_setting_t *root = config_root_setting(&cfg);
	char msg[600];
	static const char *const keys[] = {"a", "b", "c"};
	for (int i = 0; i < 3; i++) {
		const config_setting_t *s = config_setting_get_member(root, keys[i]);
		ck_assert_int_eq(cfg_bytes(s, "t.cfg", keys[i], &d, &e), TS_EUNIT);
		ts_error_format(&e, msg, sizeof msg);
		ck_assert_int_eq(e.line, i + 1);
		ck_assert_str_eq(e.key, keys[i]);
		ck_assert_msg(strstr(msg, "t.cfg:") && strstr(msg, "without a unit") &&
				  strstr(msg, "\"40 MiB\"") && strstr(msg, "\"40 B\""),
			      "%s", msg);
		ck_assert_int_eq(cfg_get_number(root, keys[i], TS_UNIT_BYTES, true, 0.0, 1e12, &d,
						"t.cfg", "g", &e),
				 TS_EUNIT);
		ck_assert_int_eq(e.line, i + 1);
	}
	ck_assert_str_eq(e.key, "g.c");
	ck_assert_int_eq(
	    cfg_get_number(root, "z", TS_UNIT_BYTES, true, 0.0, 1e12, &d, "t.cfg", "", &e), 0);
	ck_assert_double_eq(d, 0.0);
	ck_assert_int_eq(
	    cfg_get_number(root, "m", TS_UNIT_BYTES, true, 0.0, 1e12, &d, "t.cfg", "", &e), 0);
	ck_assert_double_eq(d, 40.0 * 1048576.0);
	ck_assert_int_eq(cfg_bytes(config_setting_get_member(root, "m"), "t.cfg", "m", &d, &e), 0);
	ck_assert_double_eq(d, 40.0 * 1048576.0);
	config_destroy(&cfg);
}
END_TEST

START_TEST(failed_allocations_give_the_answer_or_an_error)
{
	struct ts_error e;
	char *want, *got, msg[1400];
	fa.calls = 0;
	fa.fail_at = 0;
	fa.live = 0;
	ts_alloc_set(tu_failing_alloc, &fa);
	int rc = load_dump(&want, &e);
	ts_alloc_set(NULL, NULL);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, msg, sizeof msg));
	ck_assert_int_eq(fa.live, 0);
	long total = fa.calls;
	ck_assert_int_gt(total, 100);
	/* every allocation up to 400, then a spread over the rest */
	for (long k = 1; k <= 500; k++) {
		fa.fail_at = k <= 400 ? k : 400 + (total - 400) * (k - 400) / 100;
		fa.calls = 0;
		fa.live = 0;
		ts_error_clear(&e);
		ts_alloc_set(tu_failing_alloc, &fa);
		rc = load_dump(&got, &e);
		ts_alloc_set(NULL, NULL);
		if (rc == 0) {
			ck_assert_msg(got && !strcmp(got, want),
				      "allocation %ld failing: success with another scenario",
				      fa.fail_at);
		} else {
			ck_assert_msg(e.code == rc && rc < 0,
				      "allocation %ld failing: code %d, error record %d",
				      fa.fail_at, rc, e.code);
			ts_error_format(&e, msg, sizeof msg);
			ck_assert_msg(msg[0] != '\0', "allocation %ld failing: no message",
				      fa.fail_at);
		}
		ck_assert_msg(fa.live == 0, "allocation %ld failing: %lld bytes leaked", fa.fail_at,
			      fa.live);
		free(got);
	}
	free(want);
}
END_TEST

/* An unknown unit names the units of its kind, or the one it differs
 * from only in case. */
START_TEST(unknown_unit_names_the_units)
{
	char why[300];
	double v;
	ck_assert_int_eq(ts_units_parse("1 gib", TS_UNIT_BYTES, &v, why, sizeof why), TS_EUNIT);
	ck_assert_msg(strstr(why, "\"gib\"") && strstr(why, "closest: \"GiB\""), "%s", why);
	ck_assert_int_eq(ts_units_parse("3 fortnights", TS_UNIT_TIME, &v, why, sizeof why),
			 TS_EUNIT);
	ck_assert_msg(strstr(why, "\"fortnights\"") && strstr(why, "one of: ns, us") &&
			  strstr(why, "min, h, d"),
		      "%s", why);
}
END_TEST

/* A time that rounds to 1000 of a unit at 4 digits is written in the next
 * one: 0.99999 s is "1 s", not "1000 ms"; 0.9999 s stays "999.9 ms". */
START_TEST(time_rounds_into_next_unit)
{
	char b[32];
	ck_assert_str_eq(ts_units_format(0.99999, TS_UNIT_TIME, b, sizeof b), "1 s");
	ck_assert_str_eq(ts_units_format(0.9999, TS_UNIT_TIME, b, sizeof b), "999.9 ms");
	ck_assert_str_eq(ts_units_format(999.996e-6, TS_UNIT_TIME, b, sizeof b), "1 ms");
	ck_assert_str_eq(ts_units_format(2.5e-9, TS_UNIT_TIME, b, sizeof b), "2.5 ns");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cfg");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, a_parsed_tree_is_whole);
	tcase_add_test(tc, sizes_need_their_unit);
	tcase_add_test(tc, unknown_unit_names_the_units);
	tcase_add_test(tc, time_rounds_into_next_unit);
	tcase_add_test(tc, failed_allocations_give_the_answer_or_an_error);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
