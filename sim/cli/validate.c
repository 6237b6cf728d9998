/* trainsim validate: predictions against the published measurements of
 * tests/validation/, per row and summarised; --fit refits the constants.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim validate [--source vtrain|bert|meg24|mpt|titan|vtrain-multi|all]\n"
		"                         [--fit] [--format text|csv]\n"
		"\n"
		"Predict published training measurements (tests/validation/) and print the\n"
		"prediction, the measurement and the error per row, with the mean absolute\n"
		"percentage error (MAPE) per source, on the fitting and held-out halves.\n"
		"\n"
		"  --source S   one source of measurements (default all)\n"
		"  --fit        first refit the constants on the fitting halves and print\n"
		"               the fit\n"
		"  --format F   text (a table) or csv\n"
		"\n"
		"example:\n"
		"  trainsim validate --source bert\n");
}

int cli_validate(int argc, char **argv)
{
	const char *source = "all", *format = "text";
	bool fit = false;
	enum { O_SOURCE = 1, O_FORMAT, O_FIT };
	static const struct cli_opt opts[] = {
	    {O_SOURCE, "--source", NULL, "vtrain, bert, meg24, mpt, titan, vtrain-multi or all"},
	    {O_FORMAT, "--format", NULL, "text or csv"},
	    {O_FIT, "--fit", NULL, NULL},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "validate", opts, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_ERR)
			return CLI_USAGE;
		if (id == CLI_OPT_HELP) {
			usage(stdout);
			return CLI_OK;
		}
		if (id == O_SOURCE) {
			source = v;
		} else if (id == O_FORMAT) {
			format = v;
		} else if (id == O_FIT) {
			fit = true;
		} else {
			fprintf(stderr,
				"trainsim validate: found the argument \"%s\", expected only "
				"options\n",
				v);
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
