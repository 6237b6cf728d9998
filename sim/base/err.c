/* Error codes and detailed error records.
 * SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"

const char *ts_strerror(int code)
{
	switch (code) {
#define TS_ERR_CASE(name, val, text)                                                               \
	case val:                                                                                  \
		return text;
		TS_ERRNO_MAP(TS_ERR_CASE)
#undef TS_ERR_CASE
	default:
		return "unknown error";
	}
}

static void copy_str(char *dst, size_t n, const char *src)
{
	if (!src) {
		dst[0] = '\0';
		return;
	}
	snprintf(dst, n, "%s", src);
}

int ts_error_set(struct ts_error *e, int code, const char *file, int line, const char *key,
		 const char *fmt, ...)
{
	if (!e)
		return code;
	e->code = code;
	copy_str(e->file, sizeof e->file, file);
	e->line = line;
	copy_str(e->key, sizeof e->key, key);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return code;
}

void ts_error_clear(struct ts_error *e)
{
	if (e)
		memset(e, 0, sizeof *e);
}

char *ts_error_format(const struct ts_error *e, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
#define APPEND(...)                                                                                \
	do {                                                                                       \
		int w_ = snprintf(buf + off, n - off, __VA_ARGS__);                                \
		if (w_ > 0)                                                                        \
			off = (size_t)w_ >= n - off ? n - 1 : off + (size_t)w_;                    \
	} while (0)
	if (e->file[0]) {
		if (e->line > 0)
			APPEND("%s:%d: ", e->file, e->line);
		else
			APPEND("%s: ", e->file);
	}
	if (e->key[0])
		APPEND("%s: ", e->key);
	APPEND("%s", e->msg[0] ? e->msg : ts_strerror(e->code));
#undef APPEND
	return buf;
}
