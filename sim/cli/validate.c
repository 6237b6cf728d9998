/* trainsim validate: predictions against the published measurements of
 * tests/validation/, per row and summarised; --fit refits the constants.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim validate [--source vtrain|bert|meg24|mpt|titan|vtrain-multi|"
		     "all] [--fit] [--format text|csv]\n");
}

int cli_validate(int argc, char **argv)
{
	const char *source = "all", *format = "text";
	bool fit = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return CLI_OK;
		} else if (!strcmp(a, "--fit")) {
			fit = true;
		} else if (!strcmp(a, "--source") || !strcmp(a, "--format")) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"trainsim validate: %s: found nothing, expected a value\n",
					a);
				usage(stderr);
				return CLI_USAGE;
			}
			if (!strcmp(a, "--source"))
				source = argv[++i];
			else
				format = argv[++i];
		} else {
			fprintf(stderr, "trainsim validate: unknown argument \"%s\"\n", a);
			usage(stderr);
			return CLI_USAGE;
		}
	}
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt)) {
		usage(stderr);
		return cli_fail("validate");
	}
	ts_env *env = NULL;
	int rc = cli_env("validate", NULL, &env);
	if (rc)
		return rc;
	/* with CSV on stdout the fit goes to stderr */
	if (ts_validate_write(env, source, fit, fmt, stdout,
			      fmt == TS_FORMAT_CSV ? stderr : stdout))
		rc = cli_fail("validate");
	ts_env_close(env);
	return rc;
}
