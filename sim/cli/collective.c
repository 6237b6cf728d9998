/* trainsim collective: an nccl-tests-style table of a collective on a
 * cluster, simulated size by size.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim collective --cluster NAME [--nodes N] [--set KEY=VALUE]...\n"
		"         [--op all_reduce|all_gather|reduce_scatter|broadcast|reduce|all_to_all|\n"
		"               send_recv] [-b MIN] [-e MAX] [-f FACTOR] [-g GPUS]\n"
		"         [--algo auto|ring|tree|nvls|collnet] [--proto auto|LL|LL128|Simple]\n"
		"         [--mode class|full] [--format text|csv|json]\n"
		"  sizes take nccl-tests suffixes (8, 64K, 1M, 8G: powers of 1024) or units (\"1 "
		"GiB\")\n"
		"  --set: any key of the cluster file, with or without \"cluster.\" in front\n"
		"         (nodes=2, fabric.oversubscription=2, node.p2p=false, nic=\"ib-ndr\")\n"
		"  -g: use only the first GPUS GPUs of the cluster (default all)\n");
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi || s[0] == '-')
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A value the command line gives that trainsim cannot use: exit 2. */
static int bad_value(const char *what, const char *found, const char *expected)
{
	fprintf(stderr, "trainsim collective: %s: found \"%s\", expected %s\n", what, found,
		expected);
	return CLI_BADINPUT;
}

int cli_collective(int argc, char **argv)
{
	struct ts_collective_opts o;
	const char *format = "text";
	const char **sets = calloc((size_t)argc, sizeof *sets);
	int rc = CLI_USAGE;
	if (!sets)
		return CLI_BADINPUT;
	ts_collective_opts_init(&o);
	o.sets = sets;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			rc = CLI_OK;
			goto out;
		}
		if (!v) {
			fprintf(stderr,
				"trainsim collective: %s: found nothing, expected a value "
				"after it (see trainsim collective --help)\n",
				a);
			goto out;
		}
		i++;
		if (!strcmp(a, "--cluster")) {
			o.cluster = v;
		} else if (!strcmp(a, "--nodes")) {
			if (parse_u32(v, 1, 65536, &o.nodes)) {
				rc = bad_value("--nodes", v, "a whole number from 1 to 65536");
				goto out;
			}
		} else if (!strcmp(a, "--set")) {
			sets[o.nsets++] = v;
		} else if (!strcmp(a, "--op") || !strcmp(a, "-o")) {
			o.op = v;
		} else if (!strcmp(a, "-b") || !strcmp(a, "--minbytes")) {
			if (ts_parse_size(v, &o.min_bytes)) {
				rc = bad_value("-b", v,
					       "a size from 0 to 1P such as 8, 64K, 1M or 8G");
				goto out;
			}
		} else if (!strcmp(a, "-e") || !strcmp(a, "--maxbytes")) {
			if (ts_parse_size(v, &o.max_bytes)) {
				rc = bad_value("-e", v,
					       "a size from 0 to 1P such as 8, 64K, 1M or 8G");
				goto out;
			}
		} else if (!strcmp(a, "-f") || !strcmp(a, "--stepfactor")) {
			char *end;
			o.factor = strtod(v, &end);
			if (end == v || *end || !(o.factor > 1.0) || !isfinite(o.factor)) {
				rc = bad_value("-f", v, "a factor > 1");
				goto out;
			}
		} else if (!strcmp(a, "-g") || !strcmp(a, "--gpus")) {
			if (parse_u32(v, 1, UINT32_MAX, &o.gpus)) {
				rc = bad_value("-g", v, "a whole number >= 1");
				goto out;
			}
		} else if (!strcmp(a, "--algo")) {
			o.algo = v;
		} else if (!strcmp(a, "--proto")) {
			o.proto = v;
		} else if (!strcmp(a, "--mode")) {
			o.mode = v;
		} else if (!strcmp(a, "--format")) {
			format = v;
		} else {
			fprintf(
			    stderr,
			    "trainsim collective: unknown option: found \"%s\", expected one of "
			    "the options of trainsim collective --help\n",
			    a);
			goto out;
		}
	}
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt)) {
		rc = cli_fail("collective");
		goto out;
	}
	ts_env *env = NULL;
	if ((rc = cli_env("collective", NULL, &env)))
		goto out;
	if (ts_collective_write(env, &o, fmt, stdout))
		rc = cli_fail("collective");
	ts_env_close(env);
out:
	free(sets);
	return rc;
}
