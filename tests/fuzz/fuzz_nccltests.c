/* libFuzzer target for the nccl-tests output parser: the input is the text
 * of an all_reduce_perf (or similar) log. A parsed table must have rows of
 * finite, non-negative numbers; a failure must give a one-line message.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* memfd_create */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/err.h"
#include "io/nccltests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The parser reads a path: the input goes to an in-memory file whose
 * /proc/self/fd path is handed over. */
static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	if (fd < 0) {
		fd = memfd_create("fuzz-nccl", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	struct nccl_table t = {0};
	struct ts_error e;
	int rc = nccltests_read(path, &t, &e);
	if (rc == 0) {
		if (t.n == 0 || !t.rows)
			abort();
		for (size_t i = 0; i < t.n; i++) {
			const struct nccl_row *r = &t.rows[i];
			if (!isfinite(r->bytes) || !isfinite(r->oop_busbw_Bps) ||
			    !isfinite(r->ip_busbw_Bps) || r->bytes < 0.0 ||
			    r->oop_busbw_Bps < 0.0 || r->ip_busbw_Bps < 0.0)
				abort();
		}
	} else {
		char msg[1400];
		if (e.code != rc)
			abort();
		ts_error_format(&e, msg, sizeof msg);
		if (strchr(msg, '\n'))
			abort();
	}
	nccltests_free(&t);
	return 0;
}
