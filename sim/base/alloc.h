/* The one allocation hook: every allocation of the library goes through it, so
 * tests can fail the Nth allocation and check that nothing leaks or crashes.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_ALLOC_H
#define TS_BASE_ALLOC_H

#include <stddef.h>

/* An allocator in the style of lua_Alloc: with nsize == 0 it frees p and
 * returns NULL; otherwise it returns a block of nsize bytes holding the first
 * min(osize, nsize) bytes of p (p may be NULL), or NULL on failure, leaving p
 * untouched. `ud` is the user data given to ts_alloc_set. */
typedef void *(*ts_alloc_fn)(void *ud, void *p, size_t osize, size_t nsize);

/* Install a process-wide allocator (NULL restores the default, realloc/free).
 * Set it before any simulation runs; it is not changed while threads run. */
void ts_alloc_set(ts_alloc_fn fn, void *ud);

/* Allocate n bytes; NULL on failure (or when n is 0). */
void *ts_malloc(size_t n);
/* Allocate n zeroed elements of `size` bytes; NULL on failure or overflow. */
void *ts_calloc(size_t n, size_t size);
/* Resize p from osize to nsize bytes; NULL on failure with p untouched. */
void *ts_realloc(void *p, size_t osize, size_t nsize);
/* Free p (NULL is fine). */
void ts_free(void *p, size_t osize);
/* Duplicate a C string; NULL on failure. Free with ts_free(s, strlen(s)+1). */
char *ts_strdup(const char *s);

/* Grow the array *arr of *cap elements of `size` bytes to hold at least
 * `need` elements (doubling), the new elements zeroed. Returns 0 or
 * TS_ENOMEM (the array is intact). Call it as ts_grow. */
int ts_grow_slow(void **arr, size_t *cap, size_t need, size_t size);
/* ts_grow without zeroing the new elements (their bytes are unspecified),
 * for arrays whose every element is written before it is read: memory of
 * the capacity not yet used is then not touched, so a large array costs
 * the pages it fills, not those of its doubled capacity. Returns 0 or
 * TS_ENOMEM (the array is intact). */
int ts_grow_raw_slow(void **arr, size_t *cap, size_t need, size_t size);

/* ts_grow_slow, with the common case (room enough) inline: the event loop
 * and the graph builder check their arrays once per task. */
static inline int ts_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	return need <= *cap ? 0 : ts_grow_slow(arr, cap, need, size);
}

/* ts_grow_raw_slow, with the common case inline (as ts_grow). */
static inline int ts_grow_raw(void **arr, size_t *cap, size_t need, size_t size)
{
	return need <= *cap ? 0 : ts_grow_raw_slow(arr, cap, need, size);
}

#endif
