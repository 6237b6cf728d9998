/* libFuzzer target for the results CSV that `sweep --resume` reads back:
 * the input is the content of a partial results file of a fixed sweep. The
 * scan must keep a prefix of whole rows (never more points than the sweep
 * has, never past the end of the file) or fail with a one-line message.
 * SPDX-License-Identifier: MIT */
#include "fuzzutil.h"

#include "io/sweepcfg.h"
#include "report/sweeprow.h"
#include "sweep/sweep.h"

static struct sweep_spec *spec(void)
{
	static struct sweep_spec *sp;
	static int tried;
	if (!tried) {
		tried = 1;
		struct ts_error e;
		if (sweepcfg_load_string(
			"base = { model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; "
			"};\naxes = { nodes = [1, 2, 4]; \"parallel.bucket\" = "
			"[\"25 MiB\", \"none\"]; };\n",
			"fuzz-sweep.cfg", &sp, &e) != 0)
			sp = NULL;
	}
	return sp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sweep_spec *sp = spec();
	if (!sp || size > 256 * 1024)
		return 0;
	const char *path = fuzz_file(data, size);
	size_t done = 0;
	long keep = 0;
	struct ts_error e;
	/* an input that holds "; version " is scanned against a digest (a row
	 * whose last field is "base 0000000000000001; calibration
	 * 0000000000000002; version 0.1.0" matches it), any other without one */
	static const struct sweep_digest dg = {1, 2, "0.1.0"};
	bool with = false;
	for (size_t k = 0; k + 10 <= size && !with; k++)
		with = !memcmp(data + k, "; version ", 10);
	int rc =
	    sweep_resume_scan(sp, &report_sweep_cols, path, with ? &dg : NULL, &done, &keep, &e);
	if (rc == 0) {
		if (done > sp->npoints || keep < 0 || (size_t)keep > size)
			abort();
		/* what is kept ends a line */
		if (keep > 0 && data[keep - 1] != '\n')
			abort();
		if (done > 0 && keep == 0)
			abort();
	} else {
		fuzz_check_error(&e, rc);
	}
	return 0;
}
