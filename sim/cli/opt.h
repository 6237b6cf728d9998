/* The one option parser of every trainsim command: a table of options per
 * command, read the same way everywhere.
 *
 *   --name VALUE, --name=VALUE     a long option with a value
 *   -x VALUE, -xVALUE (-j4)        a short option with a value
 *   --flag, -f                     an option without a value
 *   -h, --help                     the command's usage on standard output
 *                                  (CLI_OPT_STOP, exit status 0)
 *   -                              an argument (standard output or input
 *                                  where a command takes a file)
 *   --                             everything after it is an argument
 *
 * A value that starts with '-' is taken as the value ("-b -8" gives "-8" to
 * -b, for the command to judge). Messages name the command, the option,
 * what was found and what was expected.
 * SPDX-License-Identifier: MIT */
#ifndef TS_CLI_OPT_H
#define TS_CLI_OPT_H

#include <stdbool.h>
#include <stdio.h>

/* One option of a command's table; the table ends with an entry whose id is 0. */
struct cli_opt {
	int id;		   /* what cli_opt_next returns for it, > 0 */
	const char *lng;   /* "--calib", or NULL */
	const char *shrt;  /* "-o" (one letter), or NULL */
	const char *value; /* what the value is, for messages ("an overrides
			      file"); NULL for an option without a value */
};

/* What cli_opt_next returns besides an option's id. */
enum {
	CLI_OPT_END = 0,   /* no more arguments */
	CLI_OPT_ARG = -1,  /* a plain argument, in *val */
	CLI_OPT_STOP = -2, /* stop with exit status p->rc: the usage was printed
			    * (-h, --help: 0) or a malformed option's message (1) */
};

/* The state of one parse of argv[1..argc). */
struct cli_opts {
	const char *cmd;	    /* "run": names the command in messages */
	const struct cli_opt *opts; /* the table */
	void (*usage)(FILE *out);   /* prints the command's usage */
	int argc;
	char **argv;
	int i;	   /* next argv index */
	bool rest; /* after "--": every argument is plain */
	int rc;	   /* with CLI_OPT_STOP: the exit status */
};

/* Start parsing argv[1..argc) of command cmd with the table opts; usage
 * prints the command's help. */
void cli_opt_init(struct cli_opts *p, const char *cmd, const struct cli_opt *opts,
		  void (*usage)(FILE *out), int argc, char **argv);

/* The next argument: an option's id with *val its value (NULL for an option
 * without one), CLI_OPT_ARG with *val the argument, CLI_OPT_END, or
 * CLI_OPT_STOP with p->rc the exit status: 0 after printing the usage on
 * stdout for -h or --help, 1 after printing "trainsim CMD: ..." on stderr
 * (an unknown option, a missing value, a value given to an option that
 * takes none). */
int cli_opt_next(struct cli_opts *p, const char **val);

/* Parse v as a whole number from lo to hi into *out (digits, or a whole
 * float such as 1e2, as ts_parse_count takes); else print "trainsim CMD:
 * OPT: found "v", expected WHAT" and return -1. */
int cli_opt_long(const char *cmd, const char *opt, const char *v, long lo, long hi,
		 const char *what, long *out);

#endif
