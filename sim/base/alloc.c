/* Allocation through one replaceable hook.
 * SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"

static void *default_alloc(void *ud, void *p, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (nsize == 0) {
		free(p);
		return NULL;
	}
	return realloc(p, nsize);
}

static ts_alloc_fn alloc_fn = default_alloc;
static void *alloc_ud;

void ts_alloc_set(ts_alloc_fn fn, void *ud)
{
	alloc_fn = fn ? fn : default_alloc;
	alloc_ud = fn ? ud : NULL;
}

void *ts_malloc(size_t n)
{
	if (n == 0)
		return NULL;
	return alloc_fn(alloc_ud, NULL, 0, n);
}

void *ts_calloc(size_t n, size_t size)
{
	if (n == 0 || size == 0 || n > SIZE_MAX / size)
		return NULL;
	void *p = alloc_fn(alloc_ud, NULL, 0, n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *ts_realloc(void *p, size_t osize, size_t nsize)
{
	if (nsize == 0) {
		ts_free(p, osize);
		return NULL;
	}
	return alloc_fn(alloc_ud, p, osize, nsize);
}

void ts_free(void *p, size_t osize)
{
	if (p)
		alloc_fn(alloc_ud, p, osize, 0);
}

char *ts_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = ts_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

int ts_grow_slow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t old = *cap;
	int rc = ts_grow_raw_slow(arr, cap, need, size);
	if (!rc && *cap > old)
		memset((char *)*arr + old * size, 0, (*cap - old) * size);
	return rc;
}

int ts_grow_raw_slow(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / size)
			return TS_ENOMEM;
		ncap *= 2;
	}
	void *p = ts_realloc(*arr, *cap * size, ncap * size);
	if (!p)
		return TS_ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}
