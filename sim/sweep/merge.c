/* Merging the parts of a sharded sweep.
 *
 * Part K of N holds the sweep's header and the points K-1, K-1+N, K-1+2N,
 * ... of a sweep of P points, each row ending in a digest that says so
 * (base, calibration, version, "shard K/N of P points", a hash of the
 * axes). Every part is read whole and checked before a byte is written:
 * the same digest but for K, the same header, K from 1 to N each once, and
 * in each part exactly its points, in order, each row a whole line with
 * its part's digest. Point i is then row i / N of part i % N + 1, so the
 * rows are interleaved back in point order, each with the digest of the
 * whole sweep (the parts' without the shard), which is what an unsharded
 * run writes: the merged file is byte-identical to it, and resumable like
 * it.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"
#include "sweep/merge.h"
#include "sweep/sweep.h"

/* One part, read whole. */
struct part {
	const char *path; /* as given ("-": standard input) */
	char *text;	  /* the file, NUL-terminated (owned) */
	size_t len, cap;
	struct sweep_digest d;
	const char *dig;  /* the digest field of its first row (in text) */
	size_t diglen;	  /* its length */
	const char *head; /* the header line (in text) */
	size_t headlen;	  /* its length with the newline */
	const char *rows; /* the first row (in text) */
};

static const char *part_name(const struct part *p)
{
	return strcmp(p->path, "-") ? p->path : "standard input";
}

/* The most bytes part p may hold once its header and first row
 * (text[0..first), whole lines) are known: the header and the part's rows,
 * each at most SWEEP_ROW_MAX bytes; 0 when the first row's digest is not a
 * part's (the caller stops reading, and part_head says what it found). */
static size_t part_bound(const struct part *p, size_t first)
{
	struct sweep_digest d;
	size_t len;
	const char *row = strchr(p->text, '\n') + 1;
	const char *dig = sweep_row_digest(row, &len);
	if (!sweep_digest_parse(dig, len, &d) || d.shard_n < 2)
		return 0;
	size_t rows =
	    d.npoints > d.shard_k ? (d.npoints - d.shard_k + d.shard_n - 1) / d.shard_n : 0;
	return first + (rows + 1) * (size_t)SWEEP_ROW_MAX;
}

/* Read p->path whole into p->text, refusing at once what cannot be a part:
 * a file that is not a regular file (a device such as /dev/zero, a FIFO),
 * a NUL byte, a first row without a part's digest (reading stops
 * there: part_head says what it found), or more bytes than the part's rows
 * can fill (part_bound), so that no input is read without bound. */
static int part_read(struct part *p, struct ts_error *err)
{
	bool in = !strcmp(p->path, "-");
	FILE *f = stdin;
	if (!in) {
		/* O_NONBLOCK: opening a FIFO without a writer would block */
		int fd = ts_open(p->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			return ts_error_set(err, TS_EIO, p->path, 0, NULL,
					    "cannot open the file (%s)", strerror(errno));
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return ts_error_set(
			    err, TS_EIO, p->path, 0, NULL,
			    "found something that is not a regular file (a device, "
			    "a FIFO, a socket), expected the CSV of a sweep's part");
		}
		if (fcntl(fd, F_SETFL, O_RDONLY) || !(f = fdopen(fd, "rb"))) {
			int e = errno;
			close(fd);
			return ts_error_set(err, TS_EIO, p->path, 0, NULL,
					    "cannot open the file (%s)", strerror(e));
		}
	}
	int rc = 0;
	/* until the header and first row are read */
	size_t first = 0, bound = 2 * (size_t)SWEEP_ROW_MAX;
	p->cap = 1 << 16;
	p->len = 0;
	if (!(p->text = ts_malloc(p->cap)))
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	while (!rc) {
		if (p->cap - p->len < 2) {
			size_t cap = p->cap;
			if (ts_grow((void **)&p->text, &cap, p->cap * 2, 1)) {
				rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
				break;
			}
			p->cap = cap;
		}
		size_t want = p->cap - p->len - 1;
		if (want > bound + 1 - p->len)
			want = bound + 1 - p->len; /* one byte past the bound tells */
		size_t got = fread(p->text + p->len, 1, want, f);
		const char *nul = memchr(p->text + p->len, '\0', got);
		p->len += got;
		p->text[p->len] = '\0';
		if (nul) {
			int line = 1;
			for (const char *c = p->text; c < nul; c++)
				line += *c == '\n';
			rc = ts_error_set(err, TS_EINVALID, part_name(p), line, NULL,
					  "found a NUL byte, expected the CSV of a sweep's part");
			break;
		}
		if (!first) {
			const char *nl = memchr(p->text, '\n', p->len);
			if (nl)
				nl = memchr(nl + 1, '\n', p->len - (size_t)(nl + 1 - p->text));
			if (nl) {
				first = (size_t)(nl + 1 - p->text);
				if (!(bound = part_bound(p, first)))
					break; /* not a part: part_head says so */
			} else if (p->len >= 2 * (size_t)SWEEP_ROW_MAX) {
				break; /* no whole first row: part_head says so */
			}
		}
		if (p->len > bound) {
			rc = ts_error_set(err, TS_ELIMIT, part_name(p), 0, NULL,
					  "found more than %zu bytes, expected at most %zu (a "
					  "header and its rows of at most %d bytes each)",
					  bound, bound, SWEEP_ROW_MAX);
			break;
		}
		if (!got)
			break;
	}
	if (!rc && ferror(f))
		rc = ts_error_set(err, TS_EIO, part_name(p), 0, NULL, "reading failed");
	if (!in)
		fclose(f);
	return rc;
}

/* The header of p, the digest of its first row, and where its rows start. */
static int part_head(struct part *p, struct ts_error *err)
{
	p->head = p->text;
	char *hl = strchr(p->head, '\n');
	if (!hl)
		return ts_error_set(err, TS_EINVALID, part_name(p), 1, NULL,
				    "found no whole header line, expected the sweep's CSV header "
				    "(the part was cut short: run it again with --resume)");
	p->headlen = (size_t)(hl + 1 - p->head);
	p->rows = hl + 1;
	if (!strchr(p->rows, '\n'))
		return ts_error_set(err, TS_EINVALID, part_name(p), 2, NULL,
				    "found no whole row, expected the rows of one part of a "
				    "sharded sweep (the part was cut short: run it again with "
				    "--resume)");
	p->dig = sweep_row_digest(p->rows, &p->diglen);
	if (!sweep_digest_parse(p->dig, p->diglen, &p->d) || p->d.shard_n < 2) {
		size_t l = p->diglen;
		return ts_error_set(
		    err, TS_EINVALID, part_name(p), 2, "sweep_digest",
		    "found \"%.*s%s\", expected the digest of one part of a sharded sweep "
		    "(\"base ...; calibration ...; version ...; shard K/N of P points; axes "
		    "...\"), as trainsim sweep --shard K/N writes it last in each row",
		    (int)(l > 80 ? 80 : l), p->dig, l > 80 ? "..." : "");
	}
	return 0;
}

/* The fields of the line [s, end) as RFC 4180 splits it: the commas
 * outside quotes, plus one (a doubled '"' toggles twice, so it is outside
 * the field's quoting only where the field's text is). */
static size_t line_fields(const char *s, const char *end)
{
	size_t n = 1;
	bool quoted = false;
	for (; s < end; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (*s == ',' && !quoted)
			n++;
	}
	return n;
}

/* Check that the rows of p are its points, whole and complete, each with
 * the header's field count (a row with a field too many or too few would
 * shift the columns of the merged file). */
static int part_rows(const struct part *p, struct ts_error *err)
{
	size_t want = p->d.npoints > p->d.shard_k
			  ? (p->d.npoints - p->d.shard_k + p->d.shard_n - 1) / p->d.shard_n
			  : 0;
	size_t got = 0;
	const char *r = p->rows, *end = p->text + p->len;
	size_t headf = line_fields(p->head, p->head + p->headlen - 1);
	for (; r < end; got++) {
		const char *nl = memchr(r, '\n', (size_t)(end - r));
		int line = (int)got + 2;
		if (!nl)
			return ts_error_set(err, TS_EINVALID, part_name(p), line, NULL,
					    "found a row cut short, expected whole rows (the part "
					    "was interrupted: run it again with --resume)");
		size_t point = p->d.shard_k + got * p->d.shard_n;
		char id[32];
		int k = snprintf(id, sizeof id, "%zu,", point);
		if (got >= want || strncmp(r, id, (size_t)k)) {
			size_t l = strcspn(r, ",\n");
			return ts_error_set(err, TS_EINVALID, part_name(p), line, "point",
					    "found point \"%.*s\", expected %s of part %zu/%zu",
					    (int)(l > 24 ? 24 : l), r,
					    got >= want ? "no more rows" : id, p->d.shard_k + 1,
					    p->d.shard_n);
		}
		size_t dl;
		const char *dig = sweep_row_digest(r, &dl);
		if (dl != p->diglen || memcmp(dig, p->dig, dl))
			return ts_error_set(err, TS_EINVALID, part_name(p), line, "sweep_digest",
					    "found \"%.*s\", expected the digest of the part's "
					    "first row, \"%.*s\"",
					    (int)(dl > 80 ? 80 : dl), dig,
					    (int)(p->diglen > 80 ? 80 : p->diglen), p->dig);
		size_t nf = line_fields(r, nl);
		if (nf != headf)
			return ts_error_set(err, TS_EINVALID, part_name(p), line, NULL,
					    "found %zu fields, expected %zu as the header has", nf,
					    headf);
		int rc = sweep_row_check(p->head, r, part_name(p), line, err);
		if (rc)
			return rc;
		r = nl + 1;
	}
	if (got < want)
		return ts_error_set(err, TS_EINVALID, part_name(p), (int)got + 2, NULL,
				    "found %zu of the %zu rows of part %zu/%zu, expected all of "
				    "them (the part was interrupted: run it again with --resume)",
				    got, want, p->d.shard_k + 1, p->d.shard_n);
	return 0;
}

/* Check that b belongs to the sweep of a. */
static int part_same(const struct part *a, const struct part *b, struct ts_error *err)
{
	const char *what = NULL;
	if (a->d.shard_n != b->d.shard_n)
		what = "another part count";
	else if (a->d.npoints != b->d.npoints || a->d.axes != b->d.axes)
		what = "another sweep (other axes)";
	else if (a->d.base != b->d.base)
		what = "another base scenario (or --set)";
	else if (a->d.calib != b->d.calib)
		what = "another calibration";
	else if (strcmp(a->d.version, b->d.version))
		what = "another trainsim version";
	else if (a->headlen != b->headlen || memcmp(a->head, b->head, a->headlen))
		return ts_error_set(err, TS_EINVALID, part_name(b), 1, NULL,
				    "found another header than %s's, expected the parts of one "
				    "sweep",
				    part_name(a));
	if (what)
		return ts_error_set(err, TS_EINVALID, part_name(b), 2, "sweep_digest",
				    "found part %zu/%zu of %s than %s (part %zu/%zu), expected the "
				    "parts of one sweep",
				    b->d.shard_k + 1, b->d.shard_n, what, part_name(a),
				    a->d.shard_k + 1, a->d.shard_n);
	return 0;
}

static int merge_write(struct part *ps, size_t n, FILE *out, struct ts_error *err)
{
	size_t parts = ps[0].d.shard_n;
	/* by part index: the part, and the next row to copy */
	struct part **by = ts_calloc(parts, sizeof *by);
	const char **next = ts_calloc(parts, sizeof *next);
	int rc = 0;
	if (!by || !next) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = ps[i].d.shard_k;
		if (by[k]) {
			rc = ts_error_set(err, TS_EINVALID, part_name(&ps[i]), 2, "sweep_digest",
					  "found part %zu/%zu, which %s is too, expected each "
					  "part once",
					  k + 1, parts, part_name(by[k]));
			goto out;
		}
		by[k] = &ps[i];
		next[k] = ps[i].rows;
	}
	for (size_t k = 0; k < parts; k++)
		if (!by[k]) {
			rc = ts_error_set(err, TS_EINVALID, NULL, 0, NULL,
					  "found %zu part%s, expected all %zu parts of the sweep: "
					  "part %zu/%zu is missing",
					  n, n == 1 ? "" : "s", parts, k + 1, parts);
			goto out;
		}
	char whole_text[SWEEP_DIGEST_MAX];
	struct sweep_digest whole = ps[0].d;
	whole.shard_k = whole.shard_n = 0;
	if (sweep_digest_text(&whole, whole_text, sizeof whole_text)) {
		rc = ts_error_set(err, TS_ELIMIT, NULL, 0, NULL, "the sweep's digest is too long");
		goto out;
	}
	if (fwrite(ps[0].head, 1, ps[0].headlen, out) != ps[0].headlen)
		rc = TS_EIO;
	/* each row as its part wrote it, with the whole sweep's digest */
	for (size_t i = 0; !rc && i < ps[0].d.npoints; i++) {
		size_t k = i % parts;
		const char *nl = strchr(next[k], '\n');
		size_t l = (size_t)(nl - next[k]) - by[k]->diglen;
		if (fwrite(next[k], 1, l, out) != l || fputs(whole_text, out) == EOF ||
		    fputc('\n', out) == EOF)
			rc = TS_EIO;
		next[k] = nl + 1;
	}
	if (!rc && fflush(out))
		rc = TS_EIO;
	if (rc)
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL,
				  "writing the merged sweep failed (%s)", strerror(errno));
out:
	ts_free(by, parts * sizeof *by);
	ts_free(next, parts * sizeof *next);
	return rc;
}

int sweep_merge(const char *const *parts, size_t n, FILE *out, struct ts_error *err)
{
	if (!n)
		return ts_error_set(
		    err, TS_EUSAGE, NULL, 0, NULL,
		    "found no part, expected the PART.csv files of a sharded sweep");
	size_t dash = 0;
	for (size_t i = 0; i < n; i++)
		dash += !strcmp(parts[i], "-");
	if (dash > 1)
		return ts_error_set(err, TS_EUSAGE, NULL, 0, NULL,
				    "found \"-\" %zu times, expected standard input once at most",
				    dash);
	struct part *ps = ts_calloc(n, sizeof *ps);
	if (!ps)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		ps[i].path = parts[i];
		if (!(rc = part_read(&ps[i], err)) && !(rc = part_head(&ps[i], err)) &&
		    !(rc = part_rows(&ps[i], err)) && i)
			rc = part_same(&ps[0], &ps[i], err);
	}
	if (!rc)
		rc = merge_write(ps, n, out, err);
	for (size_t i = 0; i < n; i++)
		ts_free(ps[i].text, ps[i].cap);
	ts_free(ps, n * sizeof *ps);
	return rc;
}
