/* trainsim validate: predictions against the published measurements of
 * tests/validation/, per row and summarised; --fit refits the constants.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim validate [--source vtrain|bert|meg24|mpt|titan|vtrain-multi|all]\n"
		"                         [--fit] [--format text|csv] [--bands FILE]\n"
		"       trainsim validate --memory [--format text|csv]\n"
		"\n"
		"Predict published training measurements (tests/validation/) and print the\n"
		"prediction, the measurement and the error per row, with the mean absolute\n"
		"percentage error (MAPE) per source, on the fitting and held-out halves.\n"
		"With --source all, also how often each source's held-out measurements fall\n"
		"inside the 80 %% band estimated from the other sources, and its median\n"
		"half-width.\n"
		"\n"
		"  --source S   one source of measurements (default all)\n"
		"  --fit        first refit the constants on the fitting halves and print\n"
		"               the fit\n"
		"  --format F   text (a table) or csv\n"
		"  --bands F    write the model-error table by regime to F (as\n"
		"               configs/calibration/bands.cfg; needs --source all)\n"
		"  --memory     the memory reports instead (tests/validation/memory_fit.csv\n"
		"               and memory_peaks.csv): predicted and measured peak per GPU\n"
		"               (the figure each source read: allocated, reserved or device),\n"
		"               the fit verdict against what the source reports, errors per\n"
		"               source and the leave-one-source-out headline\n"
		"\n"
		"example:\n"
		"  trainsim validate --source bert\n"
		"  trainsim validate --memory\n");
}

int cli_validate(int argc, char **argv)
{
	const char *source = "all", *format = "text", *bands = NULL;
	bool fit = false, memory = false;
	enum { O_SOURCE = 1, O_FORMAT, O_FIT, O_BANDS, O_MEMORY };
	static const struct cli_opt opts[] = {
	    {O_SOURCE, "--source", NULL, "vtrain, bert, meg24, mpt, titan, vtrain-multi or all"},
	    {O_FORMAT, "--format", NULL, "text or csv"},
	    {O_FIT, "--fit", NULL, NULL},
	    {O_BANDS, "--bands", NULL, "a file to write the model-error table to"},
	    {O_MEMORY, "--memory", NULL, NULL},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "validate", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP)
			return p.rc;
		if (id == O_SOURCE) {
			source = v;
		} else if (id == O_FORMAT) {
			format = v;
		} else if (id == O_FIT) {
			fit = true;
		} else if (id == O_BANDS) {
			bands = v;
		} else if (id == O_MEMORY) {
			memory = true;
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
	if (bands && strcmp(source, "all")) {
		fprintf(stderr,
			"trainsim validate: --bands: found --source %s, expected --source all "
			"(each source's band is estimated on the others)\n",
			source);
		return CLI_USAGE;
	}
	if (memory && (fit || bands || strcmp(source, "all"))) {
		fprintf(stderr,
			"trainsim validate: --memory: found it with %s, expected it alone "
			"(or with --format)\n",
			fit	? "--fit"
			: bands ? "--bands"
				: "--source");
		return CLI_USAGE;
	}
	ts_env *env = NULL;
	int rc = cli_env("validate", NULL, &env);
	if (rc)
		return rc;
	if (memory) {
		if (ts_validate_memory_write(env, fmt, stdout))
			rc = cli_fail("validate");
		ts_env_close(env);
		return rc;
	}
	/* the table goes to a temporary file, renamed over `bands` once whole */
	char tmp[4096];
	FILE *bf = NULL;
	if (bands) {
		snprintf(tmp, sizeof tmp, "%s.tmp", bands);
		if (!(bf = fopen(tmp, "w"))) {
			fprintf(stderr,
				"trainsim validate: --bands: cannot open %s for writing: %s, "
				"expected a writable path\n",
				tmp, strerror(errno));
			ts_env_close(env);
			return CLI_BADINPUT;
		}
	}
	/* with CSV on stdout the fit goes to stderr */
	if (ts_validate_write_bands(env, source, fit, fmt, stdout,
				    fmt == TS_FORMAT_CSV ? stderr : stdout, bf))
		rc = cli_fail("validate");
	if (bf) {
		if (fclose(bf) && !rc) {
			fprintf(stderr, "trainsim validate: --bands: writing %s failed\n", tmp);
			rc = CLI_BADINPUT;
		}
		if (rc)
			remove(tmp);
		else if (rename(tmp, bands)) {
			fprintf(stderr, "trainsim validate: --bands: cannot rename %s to %s: %s\n",
				tmp, bands, strerror(errno));
			rc = CLI_BADINPUT;
		}
	}
	ts_env_close(env);
	return rc;
}
