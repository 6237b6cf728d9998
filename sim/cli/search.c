/* trainsim search: the fastest or cheapest modelled settings that fit.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim search SCENARIO.cfg [--objective time|cost] [--top N]\n"
		"                       [--max-gpus N] [-j THREADS] [--set KEY=VALUE]...\n"
		"                       [--calib OVERRIDES.cfg] [--format text|csv|json]\n"
		"                       [-o OUT [--resume]] [--export-best BEST.cfg] [--quiet]\n"
		"                       [--granularity auto|layer|stage]\n"
		"  enumerates the GPU count, tensor, pipeline and data parallelism, the\n"
		"  micro-batch, the pipeline schedule (1f1b, interleaved), the ZeRO stages\n"
		"  the framework takes, recompute and context parallelism (cp, powers of\n"
		"  two up to 16); prunes what cannot fit by a static memory estimate and\n"
		"  simulates the rest; says why any GPU count or (tp, cp, pp) was skipped\n"
		"\n"
		"  --objective O     time (time to train, the default) or cost\n"
		"  --top N           the N best, found exactly (10 unless given): the\n"
		"                    candidates are simulated in increasing order of a\n"
		"                    proven lower bound of their iteration until none\n"
		"                    left can enter the N\n"
		"  --max-gpus N      GPU counts 1, 2, 4, ... up to N (default: the\n"
		"                    scenario's)\n"
		"  -j THREADS        threads (default: every core)\n"
		"  --format F        text (a table), csv (one row per candidate) or json\n"
		"                    (settings and results, counts, skips and why)\n"
		"  -o OUT            write the report to OUT (standard output otherwise);\n"
		"                    each simulated candidate is kept in OUT.state\n"
		"  --resume          take the candidates OUT.state holds (a search that was\n"
		"                    stopped part way) and simulate the rest; refused\n"
		"                    when the scenario, a --set, the model or\n"
		"                    cluster, the calibration, --objective, --max-gpus,\n"
		"                    --granularity or the version changed\n"
		"  --export-best F   write the best candidate as a scenario file that\n"
		"                    `trainsim run F` reproduces (the search's two\n"
		"                    iterations, class mode, its granularity)\n"
		"  --granularity G   auto or layer (the default): the figures of layer\n"
		"                    granularity, as `trainsim run` gives them (its\n"
		"                    default, auto: stage where that gives the same, i.e.\n"
		"                    TP 1 or over whole nodes without TP overlap, no\n"
		"                    CP or EP, ZeRO below 3, no offload; layer\n"
		"                    elsewhere); stage: every candidate at stage\n"
		"                    granularity, a screening a few times faster whose\n"
		"                    figures may differ from `run`'s by -0.3 to +20 %%;\n"
		"                    it, not the scenario's sim.granularity, decides\n"
		"When no setting fits in GPU memory the report says so and what would\n"
		"make the scenario fit, and the exit status is 3.\n"
		"Progress goes to standard error: a live line with the time left on a\n"
		"terminal; otherwise a line a minute once a search has run for a minute\n"
		"(--quiet: none).\n"
		"\n"
		"example:\n"
		"  trainsim search configs/scenarios/default.cfg --max-gpus 64 --top 5\n"
		"  trainsim search configs/scenarios/default.cfg --max-gpus 64 --format json \\\n"
		"      -o search.json --export-best best.cfg\n"
		"  trainsim run best.cfg --trace best.json\n");
}

/* Progress of a search: a live line with the time left on a terminal, a
 * line a minute in a log (none for a search shorter than a minute). */
struct progress_state {
	bool tty;
	bool shown;    /* a live line is on the terminal */
	double last_s; /* when the last line was written, s */
};

static void progress(void *ud, size_t done, size_t total, double elapsed_s)
{
	struct progress_state *ps = ud;
	double left = done ? elapsed_s / (double)done * (double)(total - done) : 0.0;
	if (ps->tty) {
		if (ps->shown && done < total && elapsed_s - ps->last_s < 0.2)
			return; /* five updates a second at most */
		ps->last_s = elapsed_s;
		ps->shown = true;
		/* total counts every candidate that may need simulating: a
		 * bounded search ends before it (the ETA is an upper bound) */
		fprintf(stderr, "\rtrainsim search: %zu/%zu candidates, %.1f s, ETA %.0f s   ",
			done, total, elapsed_s, left);
	} else if (elapsed_s - ps->last_s >= 60.0 && done < total) {
		ps->last_s = elapsed_s;
		fprintf(stderr, "trainsim search: %zu/%zu candidates after %.0f s, ETA %.0f s\n",
			done, total, elapsed_s, left);
	}
}

int cli_search(int argc, char **argv)
{
	const char *path = NULL, *objective = "time", *calib_path = NULL, *format = "text",
		   *out_path = NULL, *best_path = NULL, *gran = "layer";
	bool resume = false, quiet = false;
	long top = 10, max_gpus = 0, threads = 0;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets) {
		fprintf(stderr, "trainsim search: out of memory\n");
		return CLI_BADINPUT;
	}
	enum {
		O_OBJECTIVE = 1,
		O_TOP,
		O_MAX_GPUS,
		O_JOBS,
		O_SET,
		O_CALIB,
		O_FORMAT,
		O_OUT,
		O_RESUME,
		O_BEST,
		O_QUIET,
		O_GRAN
	};
	static const struct cli_opt opts[] = {
	    {O_OBJECTIVE, "--objective", NULL, "time or cost"},
	    {O_TOP, "--top", NULL, "a count"},
	    {O_MAX_GPUS, "--max-gpus", NULL, "a GPU count"},
	    {O_JOBS, "--jobs", "-j", "a thread count"},
	    {O_SET, "--set", NULL, "KEY=VALUE"},
	    {O_CALIB, "--calib", NULL, "an overrides file"},
	    {O_FORMAT, "--format", NULL, "text, csv or json"},
	    {O_OUT, "--output", "-o", "a report file"},
	    {O_RESUME, "--resume", NULL, NULL},
	    {O_BEST, "--export-best", NULL, "a scenario file to write"},
	    {O_QUIET, "--quiet", "-q", NULL},
	    {O_GRAN, "--granularity", NULL, "auto, layer or stage"},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "search", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP) {
			rc = p.rc;
			goto out;
		}
		if (id == O_OBJECTIVE) {
			objective = v;
		} else if (id == O_SET) {
			sets[nsets++] = v;
		} else if (id == O_CALIB) {
			calib_path = v;
		} else if (id == O_FORMAT) {
			format = v;
		} else if (id == O_OUT) {
			out_path = v;
		} else if (id == O_RESUME) {
			resume = true;
		} else if (id == O_QUIET) {
			quiet = true;
		} else if (id == O_BEST) {
			best_path = v;
		} else if (id == O_GRAN) {
			gran = v;
		} else if (id == O_TOP || id == O_MAX_GPUS || id == O_JOBS) {
			long max = id == O_MAX_GPUS ? 1L << 26 : id == O_JOBS ? 1024 : 1L << 20;
			char what[64];
			snprintf(what, sizeof what, "an integer from 1 to %ld", max);
			if (cli_opt_long("search",
					 id == O_TOP	    ? "--top"
					 : id == O_MAX_GPUS ? "--max-gpus"
							    : "-j",
					 v, 1, max, what,
					 id == O_TOP	    ? &top
					 : id == O_MAX_GPUS ? &max_gpus
							    : &threads))
				goto out;
		} else if (!path) {
			path = v;
		} else {
			fprintf(stderr,
				"trainsim search: found a second scenario \"%s\", expected "
				"one\n",
				v);
			goto out;
		}
	}
	if (strcmp(gran, "stage") && strcmp(gran, "layer") && strcmp(gran, "auto")) {
		fprintf(stderr,
			"trainsim search: --granularity: found \"%s\", expected auto, layer "
			"(the same: run's figures) or stage\n",
			gran);
		goto out;
	}
	if (strcmp(objective, "time") && strcmp(objective, "cost")) {
		fprintf(stderr,
			"trainsim search: --objective: found \"%s\", expected time or "
			"cost\n",
			objective);
		goto out;
	}
	/* the scenario is loaded again for every GPU count: standard input
	 * would be empty from the second on */
	if (cli_refuse_stdin("search", path, "once per GPU count"))
		goto out;
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt)) {
		rc = cli_fail("search");
		goto out;
	}
	if (out_path && !strcmp(out_path, "-"))
		out_path = NULL;
	if (resume && !out_path) {
		fprintf(stderr, "trainsim search: --resume: found no -o, expected -o OUT to resume "
				"(the state is kept in OUT.state)\n");
		goto out;
	}
	ts_env *env = NULL;
	if ((rc = cli_env("search", calib_path, &env)))
		goto out;
	char *state = NULL;
	ts_output *of = NULL;
	if (out_path) {
		size_t n = strlen(out_path) + sizeof ".state";
		if (!(state = malloc(n))) {
			fprintf(stderr, "trainsim search: out of memory\n");
			rc = CLI_BADINPUT;
			goto close;
		}
		snprintf(state, n, "%s.state", out_path);
	}
	const struct ts_output_arg outs[] = {
	    {"-o", out_path}, {"--export-best", best_path}, {"-o OUT.state", state}};
	const struct ts_output_arg ins[] = {{NULL, path}, {"--calib", calib_path}};
	if ((rc = cli_check_outputs("search", env, outs, 3, ins, 2)))
		goto close;
	if (out_path && ts_output_open(out_path, "-o", &of)) {
		rc = cli_fail("search");
		goto close;
	}
	struct progress_state ps = {.tty = isatty(STDERR_FILENO)};
	bool none_fit = false;
	ts_search_opts so = {.objective =
				 strcmp(objective, "cost") ? TS_OBJECTIVE_TIME : TS_OBJECTIVE_COST,
			     .max_gpus = (uint32_t)max_gpus,
			     .threads = (int)threads,
			     .top = (size_t)top,
			     .format = fmt,
			     .export_best = best_path,
			     .state = state,
			     .resume = resume,
			     .progress = quiet ? NULL : progress,
			     .user = &ps,
			     .layer_figures = strcmp(gran, "stage") != 0,
			     .none_fit = &none_fit};
	int src = ts_search_run(env, path, sets, nsets, &so, of ? ts_output_stream(of) : stdout);
	if (ps.shown)
		fputc('\n', stderr); /* end the live line */
	if (src) {
		rc = cli_fail("search");
		goto close;
	}
	rc = ts_output_commit(of) ? cli_fail("search") : CLI_OK;
	of = NULL;
	if (rc == CLI_OK && none_fit) {
		fprintf(stderr, "trainsim search: no setting fits in GPU memory\n");
		rc = CLI_NOFIT;
	}
close:
	ts_output_abort(of);
	free(state);
	ts_env_close(env);
out:
	free(sets);
	return rc;
}
