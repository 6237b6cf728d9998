/* Helpers shared by the Check suites.
 * SPDX-License-Identifier: MIT */
#ifndef TS_TESTUTIL_H
#define TS_TESTUTIL_H

#include <check.h>
#include <stddef.h>

/* Project source directory (from TS_SOURCE_DIR in the environment, else the
 * compile-time default). */
const char *tu_root(void);

struct hw_catalog;
struct work_calib;
struct ts_model;

/* Load the hardware catalog from tu_root(), failing the test with the
 * formatted error (file, line, key) if it does not load. Free it with
 * hw_catalog_destroy. */
struct hw_catalog *tu_catalog(void);

/* Load the hardware catalog and the compute constants from tu_root(),
 * failing the test with the formatted error (file, line, key) if either
 * does not load. Free *cat with hw_catalog_destroy. */
void tu_load_hw(struct hw_catalog **cat, struct work_calib *calib);

/* Add to tc a checked fixture (run in each test's process) that loads the
 * catalog into *cat as tu_catalog does, and the compute constants into
 * *calib when calib is not NULL, before each test, and destroys the catalog
 * (setting *cat to NULL) after it. One catalog per suite process: the last
 * call's pointers serve every test case it was added to. */
void tu_hw_fixture(TCase *tc, struct hw_catalog **cat, struct work_calib *calib);

/* The model `name` (a bundled name, a path or "hf:PATH") as ts_model_load
 * reads it from tu_root(), failing the test with the name and the formatted
 * error if it does not load. */
struct ts_model tu_model(const char *name);

/* A test case without a time limit. Check's default kills a test after 4 s
 * of wall-clock time, which a loaded machine or a sanitizer build exceeds;
 * a test must never depend on the speed of the machine (timings belong in
 * tests/bench/). A hung test is stopped by the CTest TIMEOUT instead.
 * Check 0.15 treats a timeout of 0 as none: the timer is not armed. */
TCase *tu_tcase(const char *name);

/* Run a suite in fork mode; returns the number of failures. */
int tu_run(Suite *s);

/* A scratch folder for one test: tu_scratch makes /tmp/NAME-XXXXXX (a
 * checked fixture's setup calls it) and returns its path, valid until
 * tu_scratch_remove (the teardown) removes it with all it holds. Either
 * fails the test when it cannot. */
const char *tu_scratch(const char *name);
void tu_scratch_remove(void);

/* The scratch folder's path joined with name, in one of eight static
 * buffers (one call may take eight). */
const char *tu_at(const char *name);

/* Write text to the scratch file `name`, failing the test on an error. */
void tu_put(const char *name, const char *text);

/* The first 4095 bytes of the scratch file `name`, in a static buffer
 * (overwritten by the next call); fails the test when it cannot be read. */
const char *tu_get(const char *name);

/* Write text to a new file /tmp/NAME-XXXXXX, its path into buf (n bytes),
 * failing the test on an error; returns buf. The test removes the file. */
const char *tu_tmpfile(const char *name, const char *text, char *buf, size_t n);

/* An allocator for ts_alloc_set that fails one chosen call and counts the
 * bytes still allocated, for allocation-failure tests; ud is a struct
 * tu_failalloc, which the test zeroes (and arms) before each run. */
struct tu_failalloc {
	long fail_at;	/* the call that returns NULL (1-based), 0: none */
	long calls;	/* allocations and resizes so far */
	long long live; /* bytes allocated and not yet freed */
};
void *tu_failing_alloc(void *ud, void *p, size_t osize, size_t nsize);

/* Relative error |got - want| / |want|. */
double tu_relerr(double got, double want);

#endif
