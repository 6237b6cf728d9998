/* Helpers shared by the Check suites.
 * SPDX-License-Identifier: MIT */
#ifndef TS_TESTUTIL_H
#define TS_TESTUTIL_H

#include <check.h>

/* Project source directory (from TS_SOURCE_DIR in the environment, else the
 * compile-time default). */
const char *tu_root(void);

struct hw_catalog;
struct work_calib;

/* Load the hardware catalog and the compute constants from tu_root(),
 * failing the test with the formatted error (file, line, key) if either
 * does not load. Free *cat with hw_catalog_destroy. */
void tu_load_hw(struct hw_catalog **cat, struct work_calib *calib);

/* Run a suite in fork mode; returns the number of failures. */
int tu_run(Suite *s);

/* Relative error |got - want| / |want|. */
double tu_relerr(double got, double want);

#endif
