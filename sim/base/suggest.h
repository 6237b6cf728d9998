/* "Did you mean": the candidates closest to a misspelt name.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_SUGGEST_H
#define TS_BASE_SUGGEST_H

#include <stddef.h>

/* Case-insensitive Levenshtein distance between a and b (each at most 255
 * characters are compared). */
unsigned ts_edit_distance(const char *a, const char *b);

/* ts_suggest (the closest candidates, for "did you mean") is public: see
 * trainsim.h. */
#include "trainsim.h"

#endif
