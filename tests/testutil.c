/* Helpers shared by the Check suites.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "testutil.h"
#include "work/compute.h"

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

double tu_relerr(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

void tu_load_hw(struct hw_catalog **cat, struct work_calib *calib)
{
	struct ts_error e;
	char buf[1400];
	ts_error_clear(&e);
	ck_assert_msg(hw_catalog_load(tu_root(), cat, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
	ck_assert_msg(work_calib_load(tu_root(), calib, &e) == 0, "%s",
		      ts_error_format(&e, buf, sizeof buf));
}
