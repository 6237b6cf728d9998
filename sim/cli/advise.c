/* trainsim advise: what to rent or buy to train a scenario, by deadline,
 * budget and power.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: trainsim advise SCENARIO.cfg [--deadline DURATION] [--budget USD]\n"
	    "                       [--mode rent|buy|both] [--power-limit kW[/rack]]\n"
	    "                       [--max-gpus N] [--candidates FILE] [--full-search]\n"
	    "                       [--format text|csv|json] [-o OUT] [--export DIR]\n"
	    "                       [--set KEY=VALUE]... [--calib OVERRIDES.cfg] [--quiet]\n"
	    "  tries every node type and node count of the candidate catalog (default:\n"
	    "  configs/catalog/candidates.cfg), rented and bought; for each the fastest\n"
	    "  layout that fits, the whole run's time, energy and cost with their bands;\n"
	    "  writes the cheapest option within the deadline, the fastest within the\n"
	    "  budget, the time-versus-cost frontier, every option with why it is as\n"
	    "  fast as it is (or the constraints it misses), and the checks of host\n"
	    "  cores, RAM, local storage, power, cooling and power supplies\n"
	    "\n"
	    "  --deadline D      time to train at most: 30d, 720h, \"2 w\"\n"
	    "  --budget USD      money at most: 2000000, 2M, 500k ($ allowed); rent: the\n"
	    "                    run's cost; buy: the purchase plus the run's energy and upkeep\n"
	    "  --mode M          rent, buy or both (default both): which prices of the\n"
	    "                    catalog to try; a node type without that price is skipped\n"
	    "  --power-limit P   40kW for the facility (nodes x node power x PUE), 40kW/rack\n"
	    "                    for one rack (a node must fit in it); W, kW or MW. Applies\n"
	    "                    to bought options only: a rented option's power is the\n"
	    "                    provider's\n"
	    "  --max-gpus N      GPUs at most: larger options are listed with that\n"
	    "                    constraint and not simulated\n"
	    "  --candidates FILE the catalog of node types, prices and node counts to try\n"
	    "                    (default configs/catalog/candidates.cfg; format in\n"
	    "                    configs/README.md, \"Candidate catalog\")\n"
	    "  --full-search     search each option at its own size (exact, slower); by\n"
	    "                    default each node type is searched at one size and its\n"
	    "                    best layouts are carried over to its other node counts\n"
	    "  --format F        text (default, for people), csv (one row per option) or\n"
	    "                    json (the question, the recommendations and every option)\n"
	    "  -o, --output OUT  write the report to file OUT (default: standard output);\n"
	    "                    refused if it is an input or lies in the bundled folders\n"
	    "  --export DIR      write the scenario of each recommended or frontier option\n"
	    "                    to DIR (an existing folder) as NODE-TYPE-Nn-MODE.cfg;\n"
	    "                    `trainsim run` reproduces its figures; refused as -o is\n"
	    "  --set KEY=VALUE   change the scenario as `trainsim run --set` does, before\n"
	    "                    each option sets its cluster, node count and layout\n"
	    "                    (repeatable)\n"
	    "  --calib FILE      apply an overrides file of `trainsim calibrate`\n"
	    "  -q, --quiet       print nothing on standard error but errors\n"
	    "The time taken and options evaluated per second go to standard error\n"
	    "(--quiet: not).\n"
	    "\n"
	    "example:\n"
	    "  trainsim advise examples/what-to-buy/scenario.cfg --deadline 30d\n"
	    "  trainsim advise examples/what-to-buy/scenario.cfg --budget 2M \\\n"
	    "      --power-limit 40kW --mode buy --format csv -o options.csv\n"
	    "  trainsim plot frontier options.csv -o frontier.png\n");
}

/* A number with an optional unit suffix: units[i] scales by mult[i] (> 0);
 * *unit (if not NULL) gets the index of the suffix found. */
static int number_unit(const char *opt, const char *v, const char *const *units, const double *mult,
		       size_t n, const char *expected, double *out, size_t *unit)
{
	const char *s = v;
	if (*s == '$')
		s++;
	char *end;
	double x = strtod(s, &end);
	while (*end && isspace((unsigned char)*end))
		end++;
	size_t u = n;
	for (size_t i = 0; i < n && u == n; i++)
		if (!strcmp(end, units[i]))
			u = i;
	if (end == s || u == n || !isfinite(x) || !(x > 0.0)) {
		fprintf(stderr, "trainsim advise: %s: found \"%s\", expected %s\n", opt, v,
			expected);
		return -1;
	}
	*out = x * mult[u];
	if (unit)
		*unit = u;
	return 0;
}

int cli_advise(int argc, char **argv)
{
	const char *path = NULL, *calib_path = NULL, *format = "text", *out_path = NULL,
		   *mode = "both", *cands = NULL, *export_dir = NULL;
	bool quiet = false, full = false;
	double deadline = 0.0, budget = 0.0, power = 0.0;
	bool per_rack = false;
	long max_gpus = 0;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets) {
		fprintf(stderr, "trainsim advise: out of memory\n");
		return CLI_BADINPUT;
	}
	enum {
		O_DEADLINE = 1,
		O_BUDGET,
		O_MODE,
		O_POWER,
		O_MAX_GPUS,
		O_CANDS,
		O_FULL,
		O_FORMAT,
		O_OUT,
		O_EXPORT,
		O_SET,
		O_CALIB,
		O_QUIET
	};
	static const struct cli_opt opts[] = {{O_DEADLINE, "--deadline", NULL, "a duration"},
					      {O_BUDGET, "--budget", NULL, "an amount in US$"},
					      {O_MODE, "--mode", NULL, "rent, buy or both"},
					      {O_POWER, "--power-limit", NULL, "a power in kW"},
					      {O_MAX_GPUS, "--max-gpus", NULL, "a GPU count"},
					      {O_CANDS, "--candidates", NULL, "a catalog file"},
					      {O_FULL, "--full-search", NULL, NULL},
					      {O_FORMAT, "--format", NULL, "text, csv or json"},
					      {O_OUT, "--output", "-o", "a report file"},
					      {O_EXPORT, "--export", NULL, "a folder"},
					      {O_SET, "--set", NULL, "KEY=VALUE"},
					      {O_CALIB, "--calib", NULL, "an overrides file"},
					      {O_QUIET, "--quiet", "-q", NULL},
					      {0}};
	static const char *const tu[] = {"s", "min", "h", "d", "day", "days", "w", "week", "weeks"};
	static const double tm[] = {1, 60, 3600, 86400, 86400, 86400, 604800, 604800, 604800};
	static const char *const mu[] = {"", "k", "K", "M", "m"};
	static const double mm[] = {1, 1e3, 1e3, 1e6, 1e6};
	static const char *const pu[] = {"W", "kW", "MW", "W/rack", "kW/rack", "MW/rack"};
	static const double pm[] = {1, 1e3, 1e6, 1, 1e3, 1e6}; /* index >= 3: per rack */
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "advise", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP) {
			rc = p.rc;
			goto out;
		}
		if (id == O_DEADLINE) {
			if (number_unit("--deadline", v, tu, tm, 9,
					"a positive duration with a unit: s, min, h, d or w (30d)",
					&deadline, NULL))
				goto out;
		} else if (id == O_BUDGET) {
			if (number_unit("--budget", v, mu, mm, 5,
					"a positive amount of US$, optionally with k or M (2M)",
					&budget, NULL))
				goto out;
		} else if (id == O_POWER) {
			size_t u;
			if (number_unit("--power-limit", v, pu, pm, 6,
					"a positive power with W, kW or MW, and /rack for one rack "
					"(40kW/rack)",
					&power, &u))
				goto out;
			per_rack = u >= 3;
		} else if (id == O_MODE) {
			mode = v;
		} else if (id == O_CANDS) {
			cands = v;
		} else if (id == O_FULL) {
			full = true;
		} else if (id == O_FORMAT) {
			format = v;
		} else if (id == O_OUT) {
			out_path = v;
		} else if (id == O_EXPORT) {
			export_dir = v;
		} else if (id == O_SET) {
			sets[nsets++] = v;
		} else if (id == O_CALIB) {
			calib_path = v;
		} else if (id == O_QUIET) {
			quiet = true;
		} else if (id == O_MAX_GPUS) {
			if (cli_opt_long("advise", "--max-gpus", v, 1, 1L << 26,
					 "an integer from 1 to 67108864", &max_gpus))
				goto out;
		} else if (!path) {
			path = v;
		} else {
			fprintf(stderr,
				"trainsim advise: found a second scenario \"%s\", expected one\n",
				v);
			goto out;
		}
	}
	enum ts_advise_mode m = !strcmp(mode, "rent")	? TS_ADVISE_RENT
				: !strcmp(mode, "buy")	? TS_ADVISE_BUY
				: !strcmp(mode, "both") ? TS_ADVISE_BOTH
							: (enum ts_advise_mode)0;
	if (!m) {
		fprintf(stderr,
			"trainsim advise: --mode: found \"%s\", expected rent, buy or both\n",
			mode);
		goto out;
	}
	if (!path) {
		fprintf(stderr, "trainsim advise: found no scenario, expected SCENARIO.cfg\n");
		goto out;
	}
	if (cli_refuse_stdin("advise", path, "once per option"))
		goto out;
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt)) {
		rc = cli_fail("advise");
		goto out;
	}
	if (out_path && !strcmp(out_path, "-"))
		out_path = NULL;
	ts_env *env = NULL;
	if ((rc = cli_env("advise", calib_path, &env)))
		goto out;
	ts_output *of = NULL;
	const struct ts_output_arg outs[] = {{"-o", out_path}};
	const struct ts_output_arg ins[] = {
	    {NULL, path}, {"--calib", calib_path}, {"--candidates", cands}};
	if ((rc = cli_check_outputs("advise", env, outs, 1, ins, 3)))
		goto close;
	if (out_path && ts_output_open(out_path, "-o", &of)) {
		rc = cli_fail("advise");
		goto close;
	}
	ts_advise_opts ao = {.deadline_s = deadline,
			     .budget_usd = budget,
			     .mode = m,
			     .power_limit_w = power,
			     .power_per_rack = per_rack,
			     .max_gpus = (uint32_t)max_gpus,
			     .candidates = cands,
			     .format = fmt,
			     .export_dir = export_dir,
			     .full_search = full};
	ts_advise_stats st;
	if (ts_advise_run(env, path, sets, nsets, &ao, of ? ts_output_stream(of) : stdout, &st)) {
		rc = cli_fail("advise");
		goto close;
	}
	if (!quiet)
		fprintf(stderr,
			"trainsim advise: %zu options (%zu fit) in %.1f s, CPU %.1f s: %zu "
			"searches, %zu layouts simulated, %.1f options per second\n",
			st.options, st.evaluated, st.seconds, st.cpu_seconds, st.searches,
			st.simulated, st.seconds > 0.0 ? (double)st.options / st.seconds : 0.0);
	rc = ts_output_commit(of) ? cli_fail("advise") : CLI_OK;
	of = NULL;
close:
	ts_output_abort(of);
	ts_env_close(env);
out:
	free(sets);
	return rc;
}
