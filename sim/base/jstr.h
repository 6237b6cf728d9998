/* JSON strings from arbitrary bytes, shared by every JSON writer.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_JSTR_H
#define TS_BASE_JSTR_H

#include <jansson.h>
#include <stddef.h>

/* A JSON string of the first `len` bytes of s (s may be NULL: ""), with every
 * byte that is not part of valid UTF-8 (and every NUL) replaced by '?'.
 * Returns a new reference (the caller owns it), NULL on out of memory. */
json_t *jstr_new(const char *s, size_t len);

#endif
