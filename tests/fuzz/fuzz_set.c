/* libFuzzer target for --set strings: each line of the input is one --set
 * argument (at most 16), applied to the bundled default scenario. A loaded
 * scenario must be complete and consistent; a failure must leave no scenario
 * and give a one-line message.
 * SPDX-License-Identifier: MIT */
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hw_catalog *cat = fuzz_catalog();
	if (!cat || size > 16 * 1024)
		return 0;
	char *buf = fuzz_text(data, size);
	if (!buf)
		return 0;
	const char *sets[16];
	size_t n = 0;
	for (char *p = buf; p && n < 16;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		sets[n++] = p;
		p = nl ? nl + 1 : NULL;
	}
	char path[1024];
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", fuzz_root());
	struct ts_scenario *s = NULL;
	struct ts_error e;
	int rc = ts_scenario_load(cat, path, sets, n, &s, &e);
	fuzz_check_load(rc, s, &e);
	free(buf);
	return 0;
}
