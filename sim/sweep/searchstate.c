/* The state file of a resumable search: its lines written and read.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "sweep/searchstate.h"

void search_state_key(const struct search_cand *c, uint32_t k[10], int64_t *mb)
{
	uint32_t v[10] = {c->nodes,
			  c->gpus_per_node,
			  c->tp,
			  c->pp,
			  c->cp,
			  c->dp,
			  (uint32_t)c->zero,
			  (uint32_t)c->schedule,
			  c->interleave,
			  (uint32_t)c->recompute};
	memcpy(k, v, sizeof v);
	*mb = c->micro_batch;
}

bool search_state_find(const struct search_state *st, const struct search_cand *c,
		       struct ts_result *res, int *rc)
{
	uint32_t k[10];
	int64_t mb;
	search_state_key(c, k, &mb);
	for (size_t i = 0; i < st->n; i++)
		if (st->e[i].mb == mb && !memcmp(st->e[i].key, k, sizeof k)) {
			*res = st->e[i].res;
			*rc = st->e[i].rc;
			return true;
		}
	return false;
}

void search_state_write_head(FILE *f, uint64_t d)
{
	fprintf(f, "# trainsim search state, digest %016llx\n", (unsigned long long)d);
}

void search_state_write(FILE *f, const uint32_t k[10], int64_t mb, int rc,
			const struct ts_result *res)
{
	/* the line is built whole first: its checksum covers its text */
	char head[10 * 11 + 2 * 24];
	int n = 0;
	for (int i = 0; i < 10; i++)
		n += snprintf(head + n, sizeof head - (size_t)n, "%" PRIu32 " ", k[i]);
	n += snprintf(head + n, sizeof head - (size_t)n, "%lld %d ", (long long)mb, rc);
	uint64_t h = hash_fnv1a(HASH_FNV1A_BASIS, head, (size_t)n);
	fputs(head, f);
	const unsigned char *b = (const unsigned char *)res;
	char hex[3];
	for (size_t i = 0; i < sizeof *res; i++) {
		snprintf(hex, sizeof hex, "%02x", b[i]);
		h = hash_fnv1a(h, hex, 2);
		fputs(hex, f);
	}
	fprintf(f, " %016llx\n", (unsigned long long)h);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int search_state_read(const char *sp, uint64_t d, struct search_state *st, struct ts_error *err)
{
	FILE *f = fopen(sp, "r");
	if (!f)
		return errno == ENOENT
			   ? 0
			   : ts_error_set(err, TS_EIO, NULL, 0, "--resume",
					  "%s: cannot be read (%s)", sp, strerror(errno));
	size_t cap = 0, hexlen = 2 * sizeof(struct ts_result);
	char *line = NULL;
	ssize_t got;
	int rc = 0;
	unsigned long long fd = 0;
	if ((got = getline(&line, &cap, f)) < 0 ||
	    sscanf(line, "# trainsim search state, digest %16llx", &fd) != 1) {
		rc = ts_error_set(err, TS_EINVALID, NULL, 0, "--resume",
				  "%s: found no digest line, expected a trainsim search state file "
				  "(remove it, or search without --resume)",
				  sp);
		goto out;
	}
	if ((uint64_t)fd != d) {
		rc = ts_error_set(
		    err, TS_EINVALID, NULL, 0, "--resume",
		    "%s: found the state of a search with other inputs (digest %016llx, "
		    "expected %016llx: the scenario, a --set, the model or cluster files, "
		    "the calibration, --objective, --max-gpus or the trainsim version "
		    "changed); search without --resume to start over",
		    sp, fd, (unsigned long long)d);
		goto out;
	}
	while ((got = getline(&line, &cap, f)) > 0) {
		if (line[got - 1] != '\n')
			break; /* cut short */
		struct search_state_entry e;
		long long mb;
		int n = 0, pos = 0;
		for (int i = 0; i < 10; i++, n += pos) {
			if (sscanf(line + n, "%" SCNu32 " %n", &e.key[i], &pos) != 1)
				goto bad;
		}
		if (sscanf(line + n, "%lld %d %n", &mb, &e.rc, &pos) != 2)
			goto bad;
		n += pos;
		e.mb = mb;
		/* the record, a space and its checksum: FNV-1a 64 of the text before
		 * the space, so that a record changed on disk is refused, not ranked */
		if ((size_t)(got - 1 - n) != hexlen + 17 || line[n + hexlen] != ' ')
			goto bad;
		unsigned long long sum = 0;
		int sl = 0;
		if (sscanf(line + n + hexlen + 1, "%16llx%n", &sum, &sl) != 1 || sl != 16 ||
		    (uint64_t)sum != hash_fnv1a(HASH_FNV1A_BASIS, line, (size_t)n + hexlen)) {
			rc = ts_error_set(err, TS_EINVALID, NULL, 0, "--resume",
					  "%s:%zu: found a candidate's result whose checksum does "
					  "not match, expected the record as trainsim search wrote "
					  "it (the file was changed or damaged: remove it to start "
					  "over)",
					  sp, st->n + 2);
			goto out;
		}
		unsigned char *b = (unsigned char *)&e.res;
		for (size_t i = 0; i < sizeof e.res; i++) {
			int hi = hexval(line[n + 2 * i]), lo = hexval(line[n + 2 * i + 1]);
			if (hi < 0 || lo < 0)
				goto bad;
			b[i] = (unsigned char)(hi << 4 | lo);
		}
		if (ts_grow((void **)&st->e, &st->cap, st->n + 1, sizeof *st->e)) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
		st->e[st->n++] = e;
		continue;
	bad:
		rc = ts_error_set(err, TS_EINVALID, NULL, 0, "--resume",
				  "%s:%zu: found a line that is not a candidate's result, expected "
				  "what trainsim search writes (remove the file to start over)",
				  sp, st->n + 2);
		goto out;
	}
out:
	free(line);
	fclose(f);
	return rc;
}

void search_state_free(struct search_state *s)
{
	ts_free(s->e, s->cap * sizeof *s->e);
	*s = (struct search_state){0};
}
