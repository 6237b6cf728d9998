/* Sub-commands of the trainsim tool; each returns the process exit code.
 * SPDX-License-Identifier: MIT */
#ifndef TS_CLI_H
#define TS_CLI_H

enum { CLI_OK = 0, CLI_USAGE = 1, CLI_BADINPUT = 2 };

/* trainsim collective ... (argv[0] is "collective"). */
int cli_collective(int argc, char **argv);

#endif
