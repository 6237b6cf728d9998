/* trainsim: the command-line tool. Dispatches sub-commands.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim COMMAND [ARGS]\n"
		"\n"
		"commands:\n"
		"  run SCENARIO.cfg [--set KEY=VALUE]... [--format text|csv|json] [--trace OUT.json]\n"
		"                                                              simulate one scenario\n"
		"  collective --cluster NAME --op OP -b MIN -e MAX -f FACTOR   nccl-tests-style table\n"
		"  help                                                        this text\n"
		"\n"
		"exit codes: 0 ok, 1 usage, 2 bad input\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(cmd, "run"))
		return cli_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "collective"))
		return cli_collective(argc - 1, argv + 1);
	fprintf(stderr, "trainsim: unknown command \"%s\"\n", cmd);
	usage(stderr);
	return CLI_USAGE;
}
