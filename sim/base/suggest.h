/* "Did you mean": the candidates closest to a misspelt name.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_SUGGEST_H
#define TS_BASE_SUGGEST_H

#include <stddef.h>

/* Case-insensitive Levenshtein distance between a and b (each at most 255
 * characters are compared). */
unsigned ts_edit_distance(const char *a, const char *b);

/* Write to buf (size n) up to `max` of the `ncand` candidates closest to
 * `name`, closest first, as "\"a\", \"b\"", keeping only those within a
 * distance of max(2, strlen(name)/2) unless none is; candidates that contain
 * `name` as a substring count as close. Returns buf ("" when ncand is 0). */
char *ts_suggest(const char *name, const char *const *cand, size_t ncand, size_t max, char *buf,
		 size_t n);

#endif
