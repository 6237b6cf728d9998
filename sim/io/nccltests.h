/* Reading nccl-tests output (all_reduce_perf and friends): the table of
 * sizes with out-of-place and in-place times and bandwidths.
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_NCCLTESTS_H
#define TS_IO_NCCLTESTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* One size of the table. Plain record. */
struct nccl_row {
	double bytes;	      /* size column, bytes */
	double oop_busbw_Bps; /* out-of-place busbw, bytes/s (the GB/s column x 1e9) */
	double ip_busbw_Bps;  /* in-place busbw, bytes/s */
};

/* A parsed file. Plain record owned by the caller; free with
 * nccltests_free. */
struct nccl_table {
	struct nccl_row *rows; /* in file order */
	size_t n;
	size_t cap;
	uint32_t nranks;   /* "#  Rank  N ..." lines, 0 when the file has none */
	const char *path;  /* as read (borrowed: the caller's) */
	char device[96];   /* the first Rank line's device name (after its "[0x..]"), "" if none */
	size_t other_line; /* the first row that is not an all-reduce's (redop "none":
			    * a gather, an all-to-all; a root of 0 or more: a reduce, a
			    * broadcast), 0 if none */
	char other_redop[16]; /* that row's redop field */
};

/* Parse nccl-tests output `path`. Lines starting with '#' are comments
 * except the "#  Rank" lines, counted into nranks (the first one's device
 * name kept); blank lines are
 * skipped; every other line is a row of 12 fields (size count type redop
 * time algbw busbw #wrong time algbw busbw #wrong, nccl-tests before 2.10)
 * or 13 (with root after redop), busbw in GB/s (1e9 bytes/s). Returns 0,
 * or TS_EIO, TS_ESYNTAX (a row of another shape, a field that is not a
 * number; file, line, the field, found and expected), TS_EINVALID (no
 * rows), TS_ENOMEM, with `err` filled. */
int nccltests_read(const char *path, struct nccl_table *out, struct ts_error *err);

void nccltests_free(struct nccl_table *t);

/* Mean busbw of the large-size plateau, bytes/s: rows of at least 1/8 of
 * the largest size (the last four of a x2 sweep), each the mean of its
 * out-of-place and in-place busbw (the one given when the other is 0);
 * the plateau's smallest size into *from_bytes. 0 for an empty table. */
double nccltests_plateau(const struct nccl_table *t, double *from_bytes);

#endif
