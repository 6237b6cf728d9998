/* Helpers shared by the Check suites.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>

#include "testutil.h"

const char *tu_root(void)
{
	const char *r = getenv("TS_SOURCE_DIR");
	return r && *r ? r : TS_SOURCE_DIR;
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
