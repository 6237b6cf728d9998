/* trainsim: the command-line tool. Dispatches sub-commands.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
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
		"  validate [--source vtrain|bert|all] [--fit] [--format text|csv]\n"
		"                                                              predictions against measurements\n"
		"  list gpus|links|clusters|models [--format text|csv|json]    the bundled hardware,\n"
		"                                                              clusters and models\n"
		"  help                                                        this text\n"
		"\n"
		"COMMAND --help describes one command.\n"
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
	if (!strcmp(cmd, "validate"))
		return cli_validate(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return cli_list(argc - 1, argv + 1);
	static const char *const cmds[] = {"run", "collective", "validate", "list", "help"};
	char near[160];
	ts_suggest(cmd, cmds, sizeof cmds / sizeof cmds[0], 1, near, sizeof near);
	fprintf(stderr, "trainsim: found unknown command \"%s\", expected run, collective, "
			"validate, list or help%s%s\n", cmd, near[0] ? "; did you mean " : "", near);
	return CLI_USAGE;
}
