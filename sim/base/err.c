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

char *ts_escape_ctl(char *dst, size_t n, const char *src, size_t len)
{
	size_t k = 0;
	if (!n)
		return dst;
	for (size_t i = 0; i < len && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];
		char esc[5];
		size_t w = 1;
		if (c == '\n' || c == '\r' || c == '\t')
			esc[0] = '\\', esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't', w = 2;
		else if (c < 0x20 || c == 0x7f)
			w = (size_t)snprintf(esc, sizeof esc, "\\x%02x", c);
		else
			esc[0] = (char)c;
		if (k + w >= n)
			break;
		memcpy(dst + k, esc, w);
		k += w;
	}
	dst[k] = '\0';
	return dst;
}

char *ts_error_format(const struct ts_error *e, char *buf, size_t n)
{
	size_t off = 0;
	/* the fields with their control characters escaped (at most 4x) */
	char file[4 * sizeof e->file], key[4 * sizeof e->key], msg[4 * sizeof e->msg];
	ts_escape_ctl(file, sizeof file, e->file, sizeof e->file);
	ts_escape_ctl(key, sizeof key, e->key, sizeof e->key);
	ts_escape_ctl(msg, sizeof msg, e->msg, sizeof e->msg);
	buf[0] = '\0';
#define APPEND(...)                                                                                \
	do {                                                                                       \
		int w_ = snprintf(buf + off, n - off, __VA_ARGS__);                                \
		if (w_ > 0)                                                                        \
			off = (size_t)w_ >= n - off ? n - 1 : off + (size_t)w_;                    \
	} while (0)
	if (file[0]) {
		if (e->line > 0)
			APPEND("%s:%d: ", file, e->line);
		else
			APPEND("%s: ", file);
	}
	if (key[0])
		APPEND("%s: ", key);
	APPEND("%s", msg[0] ? msg : ts_strerror(e->code));
#undef APPEND
	return buf;
}
