/* trainsim merge: the parts of a sharded sweep (sweep --shard K/N) joined
 * into the CSV the whole sweep writes.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim merge PART.csv... [-o ALL.csv]\n"
		"\n"
		"Join the parts of a sweep run with --shard K/N (on one machine or many)\n"
		"into the CSV of the whole sweep: the same bytes as the unsharded run, rows\n"
		"in point order. The parts may come in any order; all N must be there,\n"
		"whole, and of one sweep (same axes, base, --set, calibration and trainsim\n"
		"version: each row's sweep_digest column says), or nothing is written.\n"
		"\n"
		"  -o FILE   the merged file, each row with the whole sweep's digest, so\n"
		"            that trainsim sweep --resume accepts it (- or no -o: standard\n"
		"            output, the same bytes)\n"
		"  -         as a part: read it from standard input\n"
		"\n"
		"example:\n"
		"  for k in 1 2 3 4; do\n"
		"    trainsim sweep examples/scaling-sweep/sweep.cfg --shard $k/4 -o part$k.csv\n"
		"  done\n"
		"  trainsim merge part*.csv -o scaling.csv\n");
}

int cli_merge(int argc, char **argv)
{
	const char *out_path = NULL;
	const char **parts = calloc((size_t)argc, sizeof *parts);
	size_t nparts = 0;
	int rc = CLI_USAGE;
	if (!parts) {
		fprintf(stderr, "trainsim merge: out of memory\n");
		return CLI_BADINPUT;
	}
	enum { O_OUT = 1 };
	static const struct cli_opt opts[] = {
	    {O_OUT, "--output", "-o", "a results file (- for standard output)"}, {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "merge", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP) {
			rc = p.rc;
			goto out;
		}
		if (id == O_OUT)
			out_path = strcmp(v, "-") ? v : NULL;
		else
			parts[nparts++] = v;
	}
	if (!nparts) {
		fprintf(stderr, "trainsim merge: found no part, expected PART.csv... (the files of "
				"trainsim sweep --shard K/N)\n");
		goto out;
	}
	ts_env *env = NULL;
	if ((rc = cli_env("merge", NULL, &env)))
		goto out;
	struct ts_output_arg outs[] = {{"-o", out_path}};
	struct ts_output_arg *ins = calloc(nparts, sizeof *ins);
	ts_output *o = NULL;
	if (!ins) {
		fprintf(stderr, "trainsim merge: out of memory\n");
		rc = CLI_BADINPUT;
		goto close;
	}
	for (size_t i = 0; i < nparts; i++)
		ins[i] = (struct ts_output_arg){NULL, strcmp(parts[i], "-") ? parts[i] : NULL};
	if ((rc = cli_check_outputs("merge", env, outs, 1, ins, nparts)))
		goto close;
	if (ts_output_open(out_path ? out_path : "-", "-o", &o)) {
		rc = cli_fail("merge");
	} else if (ts_sweep_merge(parts, nparts, out_path != NULL, ts_output_stream(o))) {
		rc = cli_fail("merge");
		ts_output_abort(o); /* nothing at -o */
	} else if (ts_output_commit(o)) {
		rc = cli_fail("merge");
	}
close:
	free(ins);
	ts_env_close(env);
out:
	free(parts);
	return rc;
}
