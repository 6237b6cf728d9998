/* Edit distance and close-match suggestions.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"

#define MAXLEN 255

unsigned ts_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > MAXLEN)
		la = MAXLEN;
	if (lb > MAXLEN)
		lb = MAXLEN;
	unsigned row[MAXLEN + 1];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost =
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1])
				? 0u
				: 1u;
			unsigned best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static int contains_ci(const char *hay, const char *needle)
{
	size_t ln = strlen(needle);
	if (ln == 0)
		return 0;
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < ln && hay[i] &&
		       tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == ln)
			return 1;
	}
	return 0;
}

char *ts_suggest(const char *name, const char *const *cand, size_t ncand, size_t max, char *buf,
		 size_t n)
{
	enum { KEEP = 8 };
	size_t best[KEEP];
	unsigned bestd[KEEP];
	size_t nb = 0;
	if (max > KEEP)
		max = KEEP;
	buf[0] = '\0';
	size_t ln = strlen(name);
	unsigned limit = (unsigned)(ln / 2 > 2 ? ln / 2 : 2);
	for (int pass = 0; pass < 2 && nb == 0; pass++) {
		for (size_t i = 0; i < ncand; i++) {
			unsigned d = ts_edit_distance(name, cand[i]);
			if (contains_ci(cand[i], name) || contains_ci(name, cand[i]))
				d = d < 1 ? d : 1;
			if (pass == 0 && d > limit)
				continue;
			size_t pos = nb;
			while (pos > 0 && bestd[pos - 1] > d)
				pos--;
			if (pos >= max)
				continue;
			size_t end = nb < max ? nb : max - 1;
			for (size_t k = end; k > pos; k--) {
				best[k] = best[k - 1];
				bestd[k] = bestd[k - 1];
			}
			best[pos] = i;
			bestd[pos] = d;
			if (nb < max)
				nb++;
		}
	}
	size_t off = 0;
	for (size_t k = 0; k < nb && off < n; k++) {
		int w = snprintf(buf + off, n - off, "%s\"%s\"", k ? ", " : "", cand[best[k]]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (off >= n && n > 0)
		buf[n - 1] = '\0';
	return buf;
}
