/* trainsim collective: an nccl-tests-style table from the simulator.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "cli/cli.h"

int cli_collective(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "trainsim collective: not built yet\n");
	return CLI_USAGE;
}
