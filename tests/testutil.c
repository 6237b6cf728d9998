/* Helpers shared by the Check suites.
 * SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "testutil.h"
#include "work/compute.h"
#include "work/model.h"

const char *tu_root(void)
{
	const char *r = getenv("TS_SOURCE_DIR");
	return r && *r ? r : TS_SOURCE_DIR;
}

TCase *tu_tcase(const char *name)
{
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, 0);
	return tc;
}

int tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf;
}

static char scratch[128];

const char *tu_scratch(const char *name)
{
	snprintf(scratch, sizeof scratch, "/tmp/%s-XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	return scratch;
}

void tu_scratch_remove(void)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
	ck_assert_int_eq(system(cmd), 0);
}

const char *tu_at(const char *name)
{
	static char buf[8][256];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "%s/%s", scratch, name);
	return buf[k];
}

void tu_put(const char *name, const char *text)
{
	FILE *f = fopen(tu_at(name), "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

const char *tu_get(const char *name)
{
	static char buf[4096];
	FILE *f = fopen(tu_at(name), "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

const char *tu_tmpfile(const char *name, const char *text, char *buf, size_t n)
{
	snprintf(buf, n, "/tmp/%s-XXXXXX", name);
	int fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

void *tu_failing_alloc(void *ud, void *p, size_t osize, size_t nsize)
{
	struct tu_failalloc *fa = ud;
	if (nsize == 0) {
		if (p)
			fa->live -= (long long)osize;
		free(p);
		return NULL;
	}
	if (++fa->calls == fa->fail_at)
		return NULL;
	void *q = realloc(p, nsize);
	if (q)
		fa->live += (long long)nsize - (long long)(p ? osize : 0);
	return q;
}

double tu_relerr(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

struct hw_catalog *tu_catalog(void)
{
	struct hw_catalog *cat = NULL;
	struct ts_error e;
	char buf[1400];
	ts_error_clear(&e);
	ck_assert_msg(hw_catalog_load(tu_root(), &cat, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	return cat;
}

void tu_load_hw(struct hw_catalog **cat, struct work_calib *calib)
{
	struct ts_error e;
	char buf[1400];
	*cat = tu_catalog();
	ts_error_clear(&e);
	ck_assert_msg(work_calib_load(tu_root(), calib, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
}

static struct hw_catalog **fixture_cat;
static struct work_calib *fixture_calib;

static void hw_setup(void)
{
	if (fixture_calib)
		tu_load_hw(fixture_cat, fixture_calib);
	else
		*fixture_cat = tu_catalog();
}

static void hw_teardown(void)
{
	hw_catalog_destroy(*fixture_cat);
	*fixture_cat = NULL;
}

void tu_hw_fixture(TCase *tc, struct hw_catalog **cat, struct work_calib *calib)
{
	fixture_cat = cat;
	fixture_calib = calib;
	tcase_add_checked_fixture(tc, hw_setup, hw_teardown);
}

struct ts_model tu_model(const char *name)
{
	struct ts_model m;
	struct ts_error e;
	char buf[1400];
	ts_error_clear(&e);
	ck_assert_msg(ts_model_load(tu_root(), name, &m, &e) == 0, "%s: %s", name,
		      ts_error_format(&e, buf, sizeof buf));
	return m;
}
