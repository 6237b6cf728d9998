/* trainsim run: simulate one scenario and report it.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cli/cli.h"
#include "hw/catalog.h"
#include "report/outfile.h"
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

int cli_check_outputs(const char *cmd, const struct outfile_arg *outs, size_t nout,
		      const struct outfile_arg *ins, size_t nin)
{
	/* the bundled data is an input of every command */
	struct outfile_arg all[16];
	char dirs[3][4200];
	static const char *const sub[] = {"configs", "models", "plots"};
	size_t n = 0;
	for (size_t i = 0; i < nin && n < 13; i++)
		all[n++] = ins[i];
	for (size_t i = 0; i < 3; i++) {
		snprintf(dirs[i], sizeof dirs[i], "%s/%s", cli_data_root(), sub[i]);
		all[n++] = (struct outfile_arg){"bundled data", dirs[i]};
	}
	struct ts_error err;
	ts_error_clear(&err);
	if (!outfile_check(outs, nout, all, n, &err))
		return CLI_OK;
	cli_print_error(cmd, &err);
	return err.code == TS_EUSAGE ? CLI_USAGE : CLI_BADINPUT;
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
	if (dump && !strcmp(format, "csv")) {
		fprintf(stderr, "trainsim run: --format: found csv with --dump-config, expected "
				"text or json (a scenario is no table)\n");
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
	const struct outfile_arg outs[] = {{"--trace", dump ? NULL : trace_path}};
	const struct outfile_arg ins[] = {{NULL, path},
					  {"--calib", calib_path},
					  {"model", sc->model_file},
					  {"cluster", sc->cluster_file}};
	if ((rc = cli_check_outputs("run", outs, 1, ins, 4)))
		goto done;
	if (dump) {
		rc = CLI_OK;
		if ((!strcmp(format, "json") ? report_scenario_json(sc, stdout)
					     : ts_scenario_dump(sc, stdout)) ||
		    fflush(stdout)) {
			fprintf(
			    stderr,
			    "trainsim run: writing the scenario to standard output failed (%s)\n",
			    strerror(errno));
			rc = CLI_BADINPUT;
		}
		goto done;
	}
	struct ts_trace *tr = NULL;
	struct outfile *tf = NULL;
	if (trace_path) {
		if (outfile_open(trace_path, "--trace", &tf, &err)) {
			rc = cli_print_error("run", &err);
			goto done;
		}
		if (trace_create(&tr)) {
			outfile_abort(tf);
			fprintf(stderr, "trainsim run: --trace: out of memory\n");
			rc = CLI_BADINPUT;
			goto done;
		}
	}
	struct ts_result res;
	rc = CLI_OK;
	if (ts_run(sc, &calib, &res, tr, &err))
		rc = cli_print_error("run", &err);
	/* the trace first, so that a failure leaves nothing on stdout; a
	 * failure removes only the temporary file */
	if (tr) {
		if (!rc && (trace_write(tr, outfile_stream(tf)) || trace_status(tr))) {
			outfile_write_error(tf, errno, &err);
			rc = cli_print_error("run", &err);
		}
		trace_destroy(tr);
		if (rc)
			outfile_abort(tf);
		else if (outfile_commit(tf, &err))
			rc = cli_print_error("run", &err);
	}
	if (!rc) {
		int e;
		if (!strcmp(format, "json"))
			e = report_result_json(&res, stdout);
		else if (!strcmp(format, "csv"))
			e = report_result_csv_header(stdout) || report_result_csv_row(&res, stdout);
		else
			e = report_result_text(&res, stdout);
		if (e || fflush(stdout)) {
			fprintf(stderr,
				"trainsim run: writing the report to standard output failed (%s)\n",
				strerror(errno));
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
