/* trainsim validate: predictions against the published measurements of
 * tests/validation/, per row and summarised; --fit refits the constants.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim validate [--source SOURCE|all] [--fit] [--format text|csv]\n"
		"                         [--bands FILE]\n"
		"       trainsim validate --loso FILE [--format text|csv]\n"
		"       trainsim validate --memory [--format text|csv]\n"
		"       trainsim validate --families [--source SOURCE|all]\n"
		"\n"
		"Predict published training measurements (tests/validation/) and print the\n"
		"prediction, the measurement and the error per row, with the mean absolute\n"
		"percentage error (MAPE) per source, on the fitting and held-out halves.\n"
		"With --source all, also how often each source's measurements fall inside\n"
		"the 80 %% band estimated from the other sources, and its median half-width.\n"
		"Last, the headline: each source's MAPE with the fitted constants refit\n"
		"without it (leave-one-source-out, configs/calibration/loso.cfg) beside its\n"
		"MAPE with the committed constants, and their means over the sources.\n"
		"\n"
		"  --source S   one source of measurements (default all): vtrain, bert,\n"
		"               meg24, mpt, titan, vtrain-multi, mlperf-training-v4.1,\n"
		"               mlperf-training-v5.0, pytorch-blog-fsdp-ibm-2024 or\n"
		"               nemo-automodel-perf\n"
		"  --fit        first refit the constants on the fitting halves and print\n"
		"               the fit\n"
		"  --format F   text (a table) or csv\n"
		"  --bands F    write the model-error table by regime to F (as\n"
		"               configs/calibration/bands.cfg; needs --source all)\n"
		"  --loso F     refit the constants without each fitted source (minutes)\n"
		"               and write the leave-one-source-out table to F (as\n"
		"               configs/calibration/loso.cfg)\n"
		"  --memory     the memory reports instead (tests/validation/memory_fit.csv\n"
		"               and memory_peaks.csv): predicted and measured peak per GPU\n"
		"               (the figure each source read: allocated, reserved or device),\n"
		"               the fit verdict against what the source reports, errors per\n"
		"               source and the leave-one-source-out headline\n"
		"  --families   scaling families instead (the same model, GPU type,\n"
		"               framework and precision at several GPU counts): each is\n"
		"               calibrated on its smallest run (gemm_k0, tc_sustain,\n"
		"               launch_s, as calibrate --runs) and its larger runs are\n"
		"               predicted with the committed and the fitted constants\n"
		"\n"
		"example:\n"
		"  trainsim validate --source bert\n"
		"  trainsim validate --source pytorch-blog-fsdp-ibm-2024\n"
		"  trainsim validate --memory\n"
		"  trainsim validate --families --source bert\n");
}

/* Whether dest is the bundled table that it regenerates,
 * configs/calibration/NAME of the data root (the same regular file, also
 * through a symlink or another spelling): the one output inside the bundled
 * data that validate may write, as configs/README.md documents. */
static bool bundled_table(const ts_env *env, const char *dest, const char *name)
{
	char own[4200];
	struct stat a, b;
	snprintf(own, sizeof own, "%s/configs/calibration/%s", ts_env_root(env), name);
	return !stat(dest, &a) && !stat(own, &b) && S_ISREG(a.st_mode) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int cli_validate(int argc, char **argv)
{
	const char *source = "all", *format = "text", *bands = NULL, *loso = NULL;
	bool fit = false, memory = false, families = false;
	enum { O_SOURCE = 1, O_FORMAT, O_FIT, O_BANDS, O_MEMORY, O_LOSO, O_FAMILIES };
	static const struct cli_opt opts[] = {
	    {O_SOURCE, "--source", NULL, "a source of measurements or all"},
	    {O_FORMAT, "--format", NULL, "text or csv"},
	    {O_FIT, "--fit", NULL, NULL},
	    {O_BANDS, "--bands", NULL, "a file to write the model-error table to"},
	    {O_MEMORY, "--memory", NULL, NULL},
	    {O_LOSO, "--loso", NULL, "a file to write the leave-one-source-out table to"},
	    {O_FAMILIES, "--families", NULL, NULL},
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
		} else if (id == O_FAMILIES) {
			families = true;
		} else if (id == O_LOSO) {
			loso = v;
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
	if (loso && (fit || bands || memory || strcmp(source, "all"))) {
		fprintf(stderr,
			"trainsim validate: --loso: found it with %s, expected it alone (or "
			"with --format)\n",
			fit	 ? "--fit"
			: bands	 ? "--bands"
			: memory ? "--memory"
				 : "--source");
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
	if (families && (fit || bands || memory || loso || strcmp(format, "text"))) {
		fprintf(stderr,
			"trainsim validate: --families: found it with %s, expected it alone "
			"(or with --source)\n",
			fit	 ? "--fit"
			: bands	 ? "--bands"
			: memory ? "--memory"
			: loso	 ? "--loso"
				 : "--format");
		return CLI_USAGE;
	}
	ts_env *env = NULL;
	int rc = cli_env("validate", NULL, &env);
	if (rc)
		return rc;
	if (families) {
		if (ts_validate_families_write(env, source, stdout))
			rc = cli_fail("validate");
		ts_env_close(env);
		return rc;
	}
	if (memory) {
		if (ts_validate_memory_write(env, fmt, stdout))
			rc = cli_fail("validate");
		ts_env_close(env);
		return rc;
	}
	/* the table goes to a new temporary file beside `bands` (or `loso`)
	 * (ts_output_open: never through a planted FILE.tmp or symlink, removed
	 * on SIGINT/SIGTERM), renamed onto it once whole; the output is checked
	 * before the minutes of work */
	const char *dest = loso ? loso : bands;
	const char *opt = loso ? "--loso" : "--bands";
	ts_output *o = NULL;
	FILE *bf = NULL;
	if (dest) {
		const struct ts_output_arg outs[] = {{opt, dest}};
		if (!strcmp(dest, "-")) {
			fprintf(stderr,
				"trainsim validate: %s: found \"-\", expected a file (the "
				"report already goes to standard output)\n",
				opt);
			ts_env_close(env);
			return CLI_USAGE;
		}
		if (!bundled_table(env, dest, loso ? "loso.cfg" : "bands.cfg") &&
		    (rc = cli_check_outputs("validate", env, outs, 1, NULL, 0))) {
			ts_env_close(env);
			return rc;
		}
		if (ts_output_open(dest, opt, &o)) {
			rc = cli_fail("validate");
			ts_env_close(env);
			return rc;
		}
		bf = ts_output_stream(o);
	}
	/* with CSV on stdout the fit goes to stderr */
	if (loso ? ts_validate_loso_write(env, fmt, stdout, bf)
		 : ts_validate_write_bands(env, source, fit, fmt, stdout,
					   fmt == TS_FORMAT_CSV ? stderr : stdout, bf))
		rc = cli_fail("validate");
	if (o) {
		if (rc)
			ts_output_abort(o);
		else if (ts_output_commit(o))
			rc = cli_fail("validate");
	}
	ts_env_close(env);
	return rc;
}
