/* libFuzzer target for --set strings: each line of the input is one --set
 * argument (at most 16), applied to the bundled default scenario. A loaded
 * scenario must be complete and consistent; a failure must leave no scenario
 * and give a one-line message.
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

static const char *root(void)
{
	const char *r = getenv("TS_SOURCE_DIR");
	return r && *r ? r : TS_SOURCE_DIR;
}

static struct hw_catalog *catalog(void)
{
	static struct hw_catalog *cat;
	static int tried;
	if (!tried) {
		tried = 1;
		struct ts_error e;
		if (hw_catalog_load(root(), &cat, &e) != 0)
			cat = NULL;
	}
	return cat;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hw_catalog *cat = catalog();
	if (!cat || size > 16 * 1024)
		return 0;
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
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
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", root());
	struct ts_scenario *s = NULL;
	struct ts_error e;
	int rc = ts_scenario_load(cat, path, sets, n, &s, &e);
	if (rc == 0) {
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
		char msg[1400];
		if (s != NULL || e.code != rc)
			abort();
		ts_error_format(&e, msg, sizeof msg);
		if (strchr(msg, '\n'))
			abort();
	}
	free(buf);
	return 0;
}
