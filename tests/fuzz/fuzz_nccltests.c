/* libFuzzer target for the nccl-tests output parser: the input is the text
 * of an all_reduce_perf (or similar) log. A parsed table must have rows of
 * finite, non-negative numbers; a failure must give a one-line message.
 * SPDX-License-Identifier: MIT */
#include "fuzzutil.h"
#include <math.h>

#include "io/nccltests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	struct nccl_table t = {0};
	struct ts_error e;
	int rc = nccltests_read(fuzz_file(data, size), &t, &e);
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
		fuzz_check_error(&e, rc);
	}
	nccltests_free(&t);
	return 0;
}
