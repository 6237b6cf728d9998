/* libFuzzer target for the PyTorch profiler trace reader: the input is the
 * text of a Chrome trace (or gzip data). A parsed trace must have steps in
 * order, finite non-negative times and class sums that add up; a failure
 * must give a one-line message.
 * SPDX-License-Identifier: MIT */
#include "fuzzutil.h"
#include <math.h>

#include "io/kineto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1024 * 1024)
		return 0;
	struct kineto_trace t;
	struct ts_error e;
	int rc = kineto_read(fuzz_file(data, size), &t, &e);
	if (rc == 0) {
		if (t.niters == 0 || !t.iters || t.nkernels == 0)
			abort();
		double sum = 0.0, total = 0.0;
		for (size_t i = 0; i < t.niters; i++) {
			if (i && t.iters[i].start_s < t.iters[i - 1].start_s)
				abort();
			if (!isfinite(t.iters[i].busy_s) || t.iters[i].busy_s < 0.0)
				abort();
			for (int c = 0; c < KINETO_CLASS_COUNT_; c++)
				sum += t.iters[i].class_s[c];
		}
		for (int c = 0; c < KINETO_CLASS_COUNT_; c++) {
			if (!isfinite(t.class_s[c]) || t.class_s[c] < 0.0)
				abort();
			total += t.class_s[c];
		}
		if (fabs(sum - total) > 1e-9 * (1.0 + total))
			abort();
		for (size_t i = 0; i < t.ncolls; i++)
			if (!(t.colls[i].in_bytes >= 0.0) || !(t.colls[i].dur_s >= 0.0) ||
			    t.colls[i].iter >= (int32_t)t.niters)
				abort();
		if (t.nunknown > KINETO_MAX_UNKNOWN)
			abort();
	} else {
		fuzz_check_error(&e, rc);
	}
	kineto_free(&t);
	return 0;
}
