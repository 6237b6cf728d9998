/* trainsim collective: an nccl-tests-style table of a collective on a
 * cluster, simulated size by size.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim collective --cluster NAME [--nodes N] [--set KEY=VALUE]...\n"
		"         [--op all_reduce|all_gather|reduce_scatter|broadcast|reduce|all_to_all|\n"
		"               send_recv] [-b MIN] [-e MAX] [-f FACTOR] [-g GPUS]\n"
		"         [--algo auto|ring|tree|nvls|collnet] [--proto auto|LL|LL128|Simple]\n"
		"         [--mode class|full] [--format text|csv|json|nccl-tests]\n"
		"\n"
		"Simulate one collective on a cluster at each message size, as nccl-tests'\n"
		"all_reduce_perf measures it: time, algorithm and bus bandwidth per size.\n"
		"\n"
		"  sizes take nccl-tests suffixes (8, 64K, 1M, 8G: powers of 1024) or units (\"1 "
		"GiB\")\n"
		"  --set: any key of the cluster file, with or without \"cluster.\" in front\n"
		"         (nodes=2, fabric.oversubscription=2, node.p2p=false, nic=\"ib-ndr\")\n"
		"  -g: use only the first GPUS GPUs of the cluster (default all)\n"
		"  --format nccl-tests: what nccl-tests prints (commented header, size count\n"
		"         type redop root, out-of-place and in-place time algbw busbw #wrong),\n"
		"         for tools that read it, trainsim calibrate --nccl-tests among them\n"
		"\n"
		"example:\n"
		"  trainsim collective --cluster dgx-h100 --nodes 2 -b 8 -e 8G -f 2\n"
		"  trainsim collective --cluster dgx-a100-80gb --format nccl-tests >ar.txt\n");
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
	enum {
		O_CLUSTER = 1,
		O_NODES,
		O_SET,
		O_OP,
		O_MIN,
		O_MAX,
		O_FACTOR,
		O_GPUS,
		O_ALGO,
		O_PROTO,
		O_MODE,
		O_FORMAT
	};
	static const struct cli_opt opts[] = {
	    {O_CLUSTER, "--cluster", NULL, "a cluster name"},
	    {O_NODES, "--nodes", NULL, "a node count"},
	    {O_SET, "--set", NULL, "KEY=VALUE"},
	    {O_OP, "--op", "-o", "a collective"},
	    {O_MIN, "--minbytes", "-b", "a value (a size such as 8, 64K, 1M or 8G)"},
	    {O_MAX, "--maxbytes", "-e", "a value (a size such as 8, 64K, 1M or 8G)"},
	    {O_FACTOR, "--stepfactor", "-f", "a value (a factor > 1)"},
	    {O_GPUS, "--gpus", "-g", "a value (a GPU count)"},
	    {O_ALGO, "--algo", NULL, "an algorithm"},
	    {O_PROTO, "--proto", NULL, "a protocol"},
	    {O_MODE, "--mode", NULL, "class or full"},
	    {O_FORMAT, "--format", NULL, "text, csv, json or nccl-tests"},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "collective", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP) {
			rc = p.rc;
			goto out;
		}
		if (id == O_CLUSTER) {
			o.cluster = v;
		} else if (id == O_NODES) {
			long n;
			if (cli_opt_long("collective", "--nodes", v, 1, TS_MAX_GPUS,
					 "a whole number from 1 to 1048576", &n)) {
				rc = CLI_BADINPUT;
				goto out;
			}
			o.nodes = (uint32_t)n;
		} else if (id == O_SET) {
			sets[o.nsets++] = v;
		} else if (id == O_OP) {
			o.op = v;
		} else if (id == O_MIN || id == O_MAX) {
			if (ts_parse_size(v, id == O_MIN ? &o.min_bytes : &o.max_bytes)) {
				rc = bad_value(id == O_MIN ? "-b" : "-e", v,
					       "a size from 0 to 1P such as 8, 64K, 1M or 8G");
				goto out;
			}
		} else if (id == O_FACTOR) {
			char *end;
			o.factor = strtod(v, &end);
			if (end == v || *end || !(o.factor > 1.0) || !isfinite(o.factor)) {
				rc = bad_value("-f", v, "a factor > 1");
				goto out;
			}
		} else if (id == O_GPUS) {
			long n;
			if (cli_opt_long("collective", "-g", v, 1, UINT32_MAX,
					 "a whole number >= 1", &n)) {
				rc = CLI_BADINPUT;
				goto out;
			}
			o.gpus = (uint32_t)n;
		} else if (id == O_ALGO) {
			o.algo = v;
		} else if (id == O_PROTO) {
			o.proto = v;
		} else if (id == O_MODE) {
			o.mode = v;
		} else if (id == O_FORMAT) {
			format = v;
		} else {
			fprintf(stderr,
				"trainsim collective: found the argument \"%s\", expected only "
				"options (see trainsim collective --help)\n",
				v);
			goto out;
		}
	}
	enum ts_format fmt = TS_FORMAT_NCCL_TESTS;
	if (strcmp(format, "nccl-tests") && ts_format_parse(format, &fmt)) {
		fprintf(stderr,
			"trainsim collective: --format: found \"%s\", expected text, csv, json or "
			"nccl-tests\n",
			format);
		rc = CLI_USAGE;
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
