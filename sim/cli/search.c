/* trainsim search: the fastest or cheapest modelled settings that fit.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim search SCENARIO.cfg [--objective time|cost] [--top N]\n"
		     "                       [--max-gpus N] [-j THREADS] [--set KEY=VALUE]...\n"
		     "                       [--calib OVERRIDES.cfg]\n"
		     "  enumerates the GPU count, tensor, pipeline and data parallelism, the\n"
		     "  micro-batch, the pipeline schedule (1f1b, interleaved), the ZeRO stages\n"
		     "  the framework takes, recompute and context parallelism (cp, powers of\n"
		     "  two up to 16); prunes what cannot fit by a static memory estimate and\n"
		     "  simulates the rest\n"
		     "\n"
		     "example:\n"
		     "  trainsim search configs/scenarios/default.cfg --max-gpus 64 --top 5\n");
}

int cli_search(int argc, char **argv)
{
	const char *path = NULL, *objective = "time", *calib_path = NULL;
	long top = 10, max_gpus = 0, threads = 0;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets) {
		fprintf(stderr, "trainsim search: out of memory\n");
		return CLI_BADINPUT;
	}
	enum { O_OBJECTIVE = 1, O_TOP, O_MAX_GPUS, O_JOBS, O_SET, O_CALIB };
	static const struct cli_opt opts[] = {{O_OBJECTIVE, "--objective", NULL, "time or cost"},
					      {O_TOP, "--top", NULL, "a count"},
					      {O_MAX_GPUS, "--max-gpus", NULL, "a GPU count"},
					      {O_JOBS, "--jobs", "-j", "a thread count"},
					      {O_SET, "--set", NULL, "KEY=VALUE"},
					      {O_CALIB, "--calib", NULL, "an overrides file"},
					      {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "search", opts, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_ERR)
			goto out;
		if (id == CLI_OPT_HELP) {
			usage(stdout);
			rc = CLI_OK;
			goto out;
		}
		if (id == O_OBJECTIVE) {
			objective = v;
		} else if (id == O_SET) {
			sets[nsets++] = v;
		} else if (id == O_CALIB) {
			calib_path = v;
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
	if (strcmp(objective, "time") && strcmp(objective, "cost")) {
		fprintf(stderr,
			"trainsim search: --objective: found \"%s\", expected time or "
			"cost\n",
			objective);
		goto out;
	}
	/* the scenario is loaded again for every GPU count: standard input
	 * would be empty from the second on */
	if (path && !strcmp(path, "-")) {
		fprintf(stderr, "trainsim search: found \"-\", expected a scenario file (search "
				"reads it once per GPU count; save standard input to a file)\n");
		goto out;
	}
	ts_env *env = NULL;
	if ((rc = cli_env("search", calib_path, &env)))
		goto out;
	rc = ts_search_write(env, path, sets, nsets,
			     strcmp(objective, "cost") ? TS_OBJECTIVE_TIME : TS_OBJECTIVE_COST,
			     (uint32_t)max_gpus, (int)threads, (size_t)top, stdout)
		 ? cli_fail("search")
		 : CLI_OK;
	ts_env_close(env);
out:
	free(sets);
	return rc;
}
