/* Counted file opens.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>

#include "base/file.h"

static _Atomic uint64_t opened;

FILE *ts_fopen(const char *path, const char *mode)
{
	atomic_fetch_add_explicit(&opened, 1, memory_order_relaxed);
	return fopen(path, mode);
}

int ts_open(const char *path, int flags)
{
	atomic_fetch_add_explicit(&opened, 1, memory_order_relaxed);
	return open(path, flags);
}

int ts_open_create(const char *path, int flags, unsigned mode)
{
	atomic_fetch_add_explicit(&opened, 1, memory_order_relaxed);
	return open(path, flags | O_CREAT, (mode_t)mode);
}

int ts_mkstemp(char *tmpl)
{
	atomic_fetch_add_explicit(&opened, 1, memory_order_relaxed);
	return mkstemp(tmpl);
}

DIR *ts_opendir(const char *path)
{
	atomic_fetch_add_explicit(&opened, 1, memory_order_relaxed);
	return opendir(path);
}

uint64_t ts_files_opened(void)
{
	return atomic_load_explicit(&opened, memory_order_relaxed);
}
