/* A growing string: the one text builder of the config writers (a
 * scenario's settings written back as text, a sweep point's settings).
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_SBUF_H
#define TS_BASE_SBUF_H

#include <stddef.h>

/* Zero-initialise ({0}) before use. p holds len bytes and a NUL in cap
 * bytes (allocated with ts_realloc, owned by the buffer); rc is 0, or
 * TS_ENOMEM from the first allocation that failed, after which every
 * append does nothing. */
struct sbuf {
	char *p;
	size_t len, cap;
	int rc;
};

/* Append the n bytes at s (the capacity doubles as needed, from 256). */
void sbuf_add(struct sbuf *b, const char *s, size_t n);

/* Append the NUL-terminated string s. */
void sbuf_str(struct sbuf *b, const char *s);

/* The text as a string of exactly strlen + 1 bytes (the caller frees it
 * with ts_free and that size), "" when nothing was appended; NULL when an
 * allocation failed. The buffer is emptied either way. */
char *sbuf_take(struct sbuf *b);

#endif
