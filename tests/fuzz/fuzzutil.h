/* Helpers shared by the libFuzzer targets: the input as a string or as a
 * file, the bundled hardware catalog, and the checks every target makes of
 * a loaded scenario and of a failure. A check that fails aborts, which
 * libFuzzer reports as a crash with the input that caused it.
 *
 * Include this header first: it asks for memfd_create.
 * SPDX-License-Identifier: MIT */
#ifndef TS_FUZZUTIL_H
#define TS_FUZZUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Project source directory (TS_SOURCE_DIR in the environment, else the
 * compile-time default). */
static inline const char *fuzz_root(void)
{
	const char *r = getenv("TS_SOURCE_DIR");
	return r && *r ? r : TS_SOURCE_DIR;
}

/* The bundled hardware catalog, loaded on the first call and kept for the
 * process; NULL when it does not load. */
static inline struct hw_catalog *fuzz_catalog(void)
{
	static struct hw_catalog *cat;
	static int tried;
	if (!tried) {
		tried = 1;
		struct ts_error e;
		if (hw_catalog_load(fuzz_root(), &cat, &e) != 0)
			cat = NULL;
	}
	return cat;
}

/* The input as a NUL-terminated string the caller frees (free()); NULL
 * when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return NULL;
	memcpy(buf, data, size);
	buf[size] = '\0';
	return buf;
}

/* A path whose file holds exactly the input, for parsers that read a path:
 * an in-memory file (memfd) made on the first call and rewritten on each,
 * named by /proc/self/fd. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("fuzz-input", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return path;
}

/* A failure returned rc: its record must carry the same code and format
 * as one line. */
static inline void fuzz_check_error(const struct ts_error *e, int rc)
{
	char msg[1400];
	if (e->code != rc)
		abort();
	ts_error_format(e, msg, sizeof msg);
	if (strchr(msg, '\n'))
		abort();
}

/* A scenario load that returned rc with *s and e: a loaded scenario must
 * be complete and consistent (its parallel degrees multiply to its GPUs,
 * its global batch divides by dp x micro-batch) and must dump, and is then
 * destroyed; a failure must leave no scenario and a one-line error. */
static inline void fuzz_check_load(int rc, struct ts_scenario *s, const struct ts_error *e)
{
	if (rc != 0) {
		if (s != NULL)
			abort();
		fuzz_check_error(e, rc);
		return;
	}
	if (!s || !s->cluster || s->parallel.dp == 0 || s->gpus == 0 ||
	    (uint64_t)s->parallel.tp * s->parallel.pp * s->parallel.cp * s->parallel.dp !=
		s->gpus ||
	    s->training.global_batch % ((int64_t)s->parallel.dp * s->training.micro_batch) != 0)
		abort();
	static FILE *devnull;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (devnull)
		ts_scenario_dump(s, devnull);
	ts_scenario_destroy(s);
}

#endif
