/* trainsim search: the fastest or cheapest modelled settings that fit.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim search SCENARIO.cfg [--objective time|cost] [--top N]\n"
		     "                       [--max-gpus N] [-j THREADS] [--set KEY=VALUE]...\n"
		     "                       [--calib OVERRIDES.cfg]\n"
		     "  enumerates the GPU count, tensor, pipeline and data parallelism, the\n"
		     "  micro-batch, the pipeline schedule (1f1b, interleaved), the ZeRO stages\n"
		     "  the framework takes, recompute and context parallelism (cp, powers of\n"
		     "  two up to 16); prunes what cannot fit by a static memory estimate and\n"
		     "  simulates the rest\n");
}

static int parse_count(const char *opt, const char *v, long max, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > max) {
		fprintf(stderr,
			"trainsim search: %s: found \"%s\", expected an integer from 1 "
			"to %ld\n",
			opt, v, max);
		return CLI_USAGE;
	}
	*out = n;
	return 0;
}

int cli_search(int argc, char **argv)
{
	const char *path = NULL, *objective = "time", *calib_path = NULL;
	long top = 10, max_gpus = 0, threads = 0;
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t nsets = 0;
	int rc = CLI_USAGE;
	if (!sets)
		return CLI_BADINPUT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			rc = CLI_OK;
			goto out;
		} else if (!strcmp(a, "--objective") || !strcmp(a, "--top") ||
			   !strcmp(a, "--max-gpus") || !strcmp(a, "-j") || !strcmp(a, "--set") ||
			   !strcmp(a, "--calib")) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"trainsim search: %s: found nothing, expected a "
					"value after it\n",
					a);
				goto out;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--objective"))
				objective = v;
			else if (!strcmp(a, "--set"))
				sets[nsets++] = v;
			else if (!strcmp(a, "--calib"))
				calib_path = v;
			else if (parse_count(a, v,
					     !strcmp(a, "--max-gpus") ? 1L << 26
					     : !strcmp(a, "-j")	      ? 1024
								      : 1L << 20,
					     !strcmp(a, "--top")	? &top
					     : !strcmp(a, "--max-gpus") ? &max_gpus
									: &threads))
				goto out;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"trainsim search: found unknown option \"%s\", expected "
				"--objective, --top, --max-gpus, -j, --set or --calib\n",
				a);
			goto out;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr,
				"trainsim search: found a second scenario \"%s\", expected "
				"one\n",
				a);
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
