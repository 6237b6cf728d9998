/* JSON strings from arbitrary bytes: invalid UTF-8 and NULs become '?', so
 * text from any input (a file name, a scenario's name) can be written.
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "base/alloc.h"
#include "base/jstr.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
	if (c >= 0x01 && c <= 0x7F)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

json_t *jstr_new(const char *s, size_t len)
{
	if (!s)
		return json_string("");
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		size_t k = utf8_seq(u + i, len - i);
		if (!k)
			break;
		i += k;
	}
	if (i == len)
		return json_stringn(s, len);
	char *copy = ts_malloc(len);
	if (!copy)
		return NULL;
	memcpy(copy, s, i);
	while (i < len) {
		size_t k = utf8_seq(u + i, len - i);
		if (!k) {
			copy[i++] = '?';
			continue;
		}
		memcpy(copy + i, s + i, k);
		i += k;
	}
	json_t *j = json_stringn(copy, len);
	ts_free(copy, len);
	return j;
}
