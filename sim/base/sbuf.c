/* A growing string (see sbuf.h).
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/sbuf.h"

void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->rc)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *q = ts_realloc(b->p, b->cap, cap);
		if (!q) {
			b->rc = TS_ENOMEM;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sbuf_str(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

char *sbuf_take(struct sbuf *b)
{
	char *r = NULL;
	if (!b->rc && !b->p)
		sbuf_add(b, "", 0);
	if (!b->rc)
		r = ts_realloc(b->p, b->cap, b->len + 1);
	if (!r)
		ts_free(b->p, b->cap);
	*b = (struct sbuf){0};
	return r;
}
