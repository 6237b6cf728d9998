/* trainsim list: the GPU and link types of the hardware catalog, the bundled
 * clusters (configs/clusters/) and models (models/), as a table, CSV or JSON.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim list gpus|links|clusters|models [--format text|csv|json]\n");
}

int cli_list(int argc, char **argv)
{
	const char *kind = NULL, *format = "text";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return CLI_OK;
		} else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
			const char *v = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
			if (!v) {
				fprintf(stderr, "trainsim list: --format: found nothing, expected "
						"text, csv or json\n");
				return CLI_USAGE;
			}
			if (strcmp(v, "text") && strcmp(v, "csv") && strcmp(v, "json")) {
				fprintf(stderr,
					"trainsim list: --format: found \"%s\", expected "
					"text, csv or json\n",
					v);
				return CLI_USAGE;
			}
			format = v;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim list: found unknown option \"%s\", expected "
				"--format (see trainsim list --help)\n",
				a);
			return CLI_USAGE;
		} else if (!kind) {
			kind = a;
		} else {
			fprintf(stderr,
				"trainsim list: found a second kind \"%s\", expected one of "
				"gpus, links, clusters, models\n",
				a);
			return CLI_USAGE;
		}
	}
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt))
		return cli_fail("list");
	ts_env *env = NULL;
	int rc = cli_env("list", NULL, &env);
	if (rc)
		return rc;
	if (ts_list_write(env, kind, fmt, stdout))
		rc = cli_fail("list");
	ts_env_close(env);
	return rc;
}
