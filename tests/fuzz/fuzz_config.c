/* libFuzzer target for scenario loading: the first line of the input is a
 * --set argument, the rest the scenario text.
 * SPDX-License-Identifier: MIT */
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hw_catalog *cat = fuzz_catalog();
	if (!cat || size > 64 * 1024)
		return 0;
	char *buf = fuzz_text(data, size);
	if (!buf)
		return 0;
	char *nl = strchr(buf, '\n');
	const char *set = NULL, *text = buf;
	if (nl) {
		*nl = '\0';
		set = buf;
		text = nl + 1;
	}
	const char *sets[1] = {set};
	struct ts_scenario *s = NULL;
	struct ts_error e;
	int rc = ts_scenario_load_string(cat, text, "fuzz.cfg", sets, set && *set ? 1 : 0, &s, &e);
	fuzz_check_load(rc, s, &e);
	free(buf);
	return 0;
}
