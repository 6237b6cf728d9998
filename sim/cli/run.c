/* trainsim run: simulate one scenario and report it.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "cli/cli.h"
#include "hw/catalog.h"
#include "report/report.h"
#include "io/scenario.h"
#include "trace/trace.h"
#include "run/run.h"
#include "work/compute.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim run SCENARIO.cfg [--set KEY=VALUE]... [--format text|csv|json]\n"
		"                    [--trace OUT.json] [--dump-config] [--calib OVERRIDES.cfg]\n");
}

const char *cli_data_root(void)
{
	const char *r = getenv("TS_DATA_DIR");
	return r && *r ? r : TS_SOURCE_DIR;
}

int cli_print_error(const char *cmd, const struct ts_error *err)
{
	char buf[1400];
	fprintf(stderr, "trainsim %s: %s\n", cmd, ts_error_format(err, buf, sizeof buf));
	return CLI_BADINPUT;
}

int cli_check_output(const char *cmd, const char *out, const char *const *inputs, size_t n)
{
	struct stat so, si;
	if (!out || stat(out, &so) != 0)
		return CLI_OK;
	for (size_t i = 0; i < n; i++) {
		if (inputs[i] && stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino) {
			fprintf(stderr,
				"trainsim %s: -o: found \"%s\", the same file as the input \"%s\", "
				"expected another file (writing it would destroy the input)\n",
				cmd, out, inputs[i]);
			return CLI_USAGE;
		}
	}
	return CLI_OK;
}

int cli_load_common(const char *cmd, struct hw_catalog **cat, struct work_calib *calib)
{
	struct ts_error err;
	ts_error_clear(&err);
	*cat = NULL;
	if (hw_catalog_load(cli_data_root(), cat, &err))
		return cli_print_error(cmd, &err);
	if (calib && work_calib_load(cli_data_root(), calib, &err)) {
		hw_catalog_destroy(*cat);
		*cat = NULL;
		return cli_print_error(cmd, &err);
	}
	return CLI_OK;
}

int cli_run(int argc, char **argv)
{
	const char *path = NULL, *format = "text", *trace_path = NULL, *calib_path = NULL;
	bool dump = false;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets)
		return CLI_BADINPUT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(sets);
			return CLI_OK;
		} else if (!strcmp(a, "--dump-config")) {
			dump = true;
		} else if (!strcmp(a, "--set") || !strcmp(a, "--format") || !strcmp(a, "--trace") ||
			   !strcmp(a, "--calib")) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"trainsim run: %s: found nothing, expected %s after it\n",
					a,
					!strcmp(a, "--set")	? "KEY=VALUE"
					: !strcmp(a, "--trace") ? "an output file"
					: !strcmp(a, "--calib") ? "an overrides file"
								: "text, csv or json");
				goto out;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--set"))
				sets[nsets++] = v;
			else if (!strcmp(a, "--trace"))
				trace_path = v;
			else if (!strcmp(a, "--calib"))
				calib_path = v;
			else
				format = v;
		} else if (!strncmp(a, "--set=", 6)) {
			sets[nsets++] = a + 6;
		} else if (!strncmp(a, "--format=", 9)) {
			format = a + 9;
		} else if (!strncmp(a, "--trace=", 8)) {
			trace_path = a + 8;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim run: found unknown option \"%s\", expected --set, "
				"--format, --trace, --calib or --dump-config (see trainsim run "
				"--help)\n",
				a);
			goto out;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr,
				"trainsim run: found a second scenario \"%s\", expected one "
				"(use trainsim compare for several)\n",
				a);
			goto out;
		}
	}
	if (!path || !*path) {
		fprintf(stderr, "trainsim run: found %s, expected SCENARIO.cfg\n",
			path ? "an empty file name" : "no scenario file");
		goto out;
	}
	if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json")) {
		fprintf(stderr,
			"trainsim run: --format: found \"%s\", expected text, csv or json\n",
			format);
		goto out;
	}
	struct hw_catalog *cat = NULL;
	struct work_calib calib;
	rc = cli_load_common("run", &cat, &calib);
	if (!rc && (rc = cli_apply_calib("run", calib_path, cat, &calib)))
		hw_catalog_destroy(cat);
	if (rc)
		goto out;
	struct ts_scenario *sc = NULL;
	struct ts_error err;
	ts_error_clear(&err);
	if (ts_scenario_load(cat, path, sets, nsets, &sc, &err)) {
		rc = cli_print_error("run", &err);
		hw_catalog_destroy(cat);
		goto out;
	}
	if (dump) {
		rc = CLI_OK;
		if (ts_scenario_dump(sc, stdout) || fflush(stdout)) {
			fprintf(stderr, "trainsim run: writing the scenario failed\n");
			rc = CLI_BADINPUT;
		}
		goto done;
	}
	struct ts_trace *tr = NULL;
	FILE *tf = NULL;
	if (trace_path) {
		tf = fopen(trace_path, "w");
		if (!tf) {
			fprintf(stderr,
				"trainsim run: --trace: found \"%s\", which cannot be "
				"written (%s), expected a writable file\n",
				trace_path, strerror(errno));
			rc = CLI_BADINPUT;
			goto done;
		}
		int trc = trace_open(&tr, tf);
		if (trc) {
			fclose(tf);
			remove(trace_path);
			fprintf(stderr, "trainsim run: --trace: writing \"%s\" failed (%s)\n",
				trace_path, trc == TS_ENOMEM ? "out of memory" : "write error");
			rc = CLI_BADINPUT;
			goto done;
		}
	}
	struct ts_result res;
	rc = CLI_OK;
	if (ts_run(sc, &calib, &res, tr, &err))
		rc = cli_print_error("run", &err);
	/* the trace first, so that a failure leaves nothing on stdout */
	if (tr) {
		if (!rc && (trace_write(tr, tf) || trace_status(tr))) {
			fprintf(stderr, "trainsim run: --trace: writing \"%s\" failed\n",
				trace_path);
			rc = CLI_BADINPUT;
		}
		trace_destroy(tr);
	}
	if (tf && fclose(tf) && !rc) {
		fprintf(stderr, "trainsim run: --trace: writing \"%s\" failed\n", trace_path);
		rc = CLI_BADINPUT;
	}
	if (tf && rc)
		remove(trace_path);
	if (!rc) {
		int e;
		if (!strcmp(format, "json"))
			e = report_result_json(&res, stdout);
		else if (!strcmp(format, "csv"))
			e = report_result_csv_header(stdout) || report_result_csv_row(&res, stdout);
		else
			e = report_result_text(&res, stdout);
		if (e || fflush(stdout)) {
			fprintf(stderr, "trainsim run: writing the report failed\n");
			rc = CLI_BADINPUT;
		}
	}
done:
	ts_scenario_destroy(sc);
	hw_catalog_destroy(cat);
out:
	free(sets);
	return rc;
}
