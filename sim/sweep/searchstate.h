/* The state file of a resumable search (trainsim search --state, --resume):
 * a digest line, then one line per candidate simulated, so that a search
 * stopped part way takes the results it has and simulates the rest.
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_SEARCHSTATE_H
#define TS_SWEEP_SEARCHSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "run/result.h"
#include "sweep/search.h"

/* One candidate's result as the state file keeps it. */
struct search_state_entry {
	uint32_t key[10]; /* nodes, gpus/node, tp, pp, cp, dp, zero, schedule, interleave,
			   * recompute */
	int64_t mb;	  /* micro-batch */
	int rc;		  /* status of its simulation */
	struct ts_result res;
};

/* The results read from a state file (owned; free with
 * search_state_free). */
struct search_state {
	struct search_state_entry *e; /* [n] in file order */
	size_t n, cap;
};

/* The key of candidate c as the state file writes it: k and *mb. */
void search_state_key(const struct search_cand *c, uint32_t k[10], int64_t *mb);

/* Whether s holds candidate c; its result and status into *res and *rc. */
bool search_state_find(const struct search_state *s, const struct search_cand *c,
		       struct ts_result *res, int *rc);

/* Write the first line of a state file, "# trainsim search state, digest
 * %016llx" (d: the digest of what the search's results depend on). Write
 * errors are left to the stream. */
void search_state_write_head(FILE *f, uint64_t d);

/* Write one candidate's line: its key, status and result's bytes in hex
 * (the digest holds the version, so the layout of ts_result is that of this
 * build), so that a resumed search ranks bit for bit as an uninterrupted
 * one; then a space and the FNV-1a 64 of the line's text before it (16 hex
 * digits), which search_state_read checks. Write errors are left to the
 * stream. */
void search_state_write(FILE *f, const uint32_t k[10], int64_t mb, int rc,
			const struct ts_result *res);

/* Read state file `path` of a search whose digest is d into s; a file that
 * does not exist is an empty state; a last line cut short (the search was
 * stopped while writing it) is dropped. Returns 0, or TS_EINVALID (the file
 * is another search's, or its inputs changed, or a record's checksum does
 * not match: the message names the file and line), TS_EIO or TS_ENOMEM with
 * err set (key "--resume"). */
int search_state_read(const char *path, uint64_t d, struct search_state *s, struct ts_error *err);

/* Free what s holds (s itself is the caller's). */
void search_state_free(struct search_state *s);

#endif
