/* libFuzzer target for scenario loading: the first line of the input is a
 * --set argument, the rest the scenario text.
 * SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hw_catalog *catalog(void)
{
	static struct hw_catalog *cat;
	static int tried;
	if (!tried) {
		tried = 1;
		const char *root = getenv("TS_SOURCE_DIR");
		struct ts_error e;
		if (hw_catalog_load(root && *root ? root : TS_SOURCE_DIR, &cat, &e) != 0)
			cat = NULL;
	}
	return cat;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hw_catalog *cat = catalog();
	if (!cat || size > 64 * 1024)
		return 0;
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
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
	char msg[1200];
	if (rc == 0) {
		/* a loaded scenario must be complete and consistent */
		if (!s || !s->cluster || s->parallel.dp == 0 || s->gpus == 0 ||
		    (uint64_t)s->parallel.tp * s->parallel.pp * s->parallel.cp * s->parallel.dp !=
			s->gpus ||
		    s->training.global_batch %
			    ((int64_t)s->parallel.dp * s->training.micro_batch) !=
			0)
			abort();
		static FILE *devnull;
		if (!devnull)
			devnull = fopen("/dev/null", "w");
		if (devnull)
			ts_scenario_dump(s, devnull);
		ts_scenario_destroy(s);
	} else {
		if (s != NULL || e.code != rc)
			abort();
		ts_error_format(&e, msg, sizeof msg);
		if (strchr(msg, '\n'))
			abort();
	}
	free(buf);
	return 0;
}
