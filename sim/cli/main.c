/* trainsim: the command-line tool. Dispatches sub-commands.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: trainsim COMMAND [ARGS]\n"
	    "\n"
	    "commands:\n"
	    "  run SCENARIO.cfg [--set KEY=VALUE]... [--format text|csv|json] [--trace OUT.json]\n"
	    "                                                              simulate one scenario\n"
	    "  collective --cluster NAME --op OP -b MIN -e MAX -f FACTOR   nccl-tests-style table\n"
	    "             [--format text|csv|json|nccl-tests]\n"
	    "  validate [--source vtrain|bert|meg24|mpt|titan|vtrain-multi|mlperf-training-v4.1|\n"
	    "           mlperf-training-v5.0|pytorch-blog-fsdp-ibm-2024|nemo-automodel-perf|all]\n"
	    "           [--fit] [--format text|csv] [--loso FILE]\n"
	    "                                                              predictions against "
	    "measurements\n"
	    "  list gpus|links|clusters|models|datasets|storage|scenarios [NAME]\n"
	    "       [--format text|csv|json]                               the bundled catalog;\n"
	    "                                                              NAME: every field\n"
	    "  compare A.cfg B.cfg [C.cfg ...] [--set KEY=VALUE]... [--format text|csv|json]\n"
	    "                                                              scenarios side by side\n"
	    "  sweep SWEEP.cfg [-o RESULTS.csv] [-j N] [--set KEY=VALUE]... [--shard K/N]\n"
	    "        [--resume [--force]]                                  a sweep as CSV rows\n"
	    "  merge PART.csv... [-o ALL.csv]                              the parts of a sharded "
	    "sweep\n"
	    "                                                              as one CSV\n"
	    "  search SCENARIO.cfg [--objective time|cost] [--top N] [--max-gpus N]\n"
	    "         [--format text|csv|json] [-o OUT [--resume]] [--export-best FILE.cfg]\n"
	    "                                                              the best settings that "
	    "fit\n"
	    "  advise SCENARIO.cfg [--deadline D] [--budget USD] [--mode rent|buy|both]\n"
	    "         [--power-limit kW[/rack]] [--max-gpus N] [--candidates FILE]\n"
	    "                                                              what to rent or buy\n"
	    "  queue JOBS.csv --cluster NAME --nodes N|LO:HI [--policy fifo|backfill|priority]\n"
	    "        [-o PER_JOB.csv] [--format text|csv|json]              a team's jobs on a "
	    "shared\n"
	    "                                                              cluster: waits, "
	    "utilisation\n"
	    "  calibrate SCENARIO.cfg --measured-iteration-s X [-o FILE]   fit constants to a "
	    "measurement\n"
	    "  plot scaling|breakdown|frontier|memory|compare RESULTS.csv -o OUT.png|svg|pdf\n"
	    "                                                              gnuplot charts of "
	    "results\n"
	    "  help [COMMAND]                                              this text, or "
	    "COMMAND's\n"
	    "  --version                                                   the version\n"
	    "\n"
	    "COMMAND --help describes one command.\n"
	    "\n"
	    "exit codes: 0 ok, 1 usage, 2 bad input, 3 search: no setting fits in GPU memory\n");
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporary files of the outputs being
 * written, then die by the same signal (the handler is reset on entry). */
static void on_stop(int sig)
{
	ts_output_remove_temps();
	raise(sig);
}

static void catch_stops(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_stop, .sa_flags = (int)SA_RESETHAND};
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		/* a signal ignored by whoever started us (nohup) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

int main(int argc, char **argv)
{
	catch_stops();
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	const char *cmd = argv[1];
	/* help COMMAND is COMMAND --help */
	char *hv[3];
	if (!strcmp(cmd, "help") && argc == 3 && strcmp(argv[2], "help")) {
		hv[0] = argv[0];
		hv[1] = argv[2];
		hv[2] = "--help";
		argc = 3;
		argv = hv;
		cmd = argv[1];
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("trainsim %s\n", ts_version());
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
	if (!strcmp(cmd, "compare"))
		return cli_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return cli_sweep(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return cli_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "search"))
		return cli_search(argc - 1, argv + 1);
	if (!strcmp(cmd, "advise"))
		return cli_advise(argc - 1, argv + 1);
	if (!strcmp(cmd, "calibrate"))
		return cli_calibrate(argc - 1, argv + 1);
	if (!strcmp(cmd, "queue"))
		return cli_queue(argc - 1, argv + 1);
	if (!strcmp(cmd, "plot"))
		return cli_plot(argc - 1, argv + 1);
	static const char *const cmds[] = {"run",   "collective", "validate", "list",	"compare",
					   "sweep", "merge",	  "search",   "advise", "calibrate",
					   "plot",  "queue",	  "help"};
	char near[160];
	ts_suggest(cmd, cmds, sizeof cmds / sizeof cmds[0], 1, near, sizeof near);
	fprintf(stderr,
		"trainsim: found unknown command \"%s\", expected run, collective, "
		"validate, list, compare, sweep, merge, search, advise, calibrate, plot, "
		"queue or help%s%s\n",
		cmd, near[0] ? "; did you mean " : "", near);
	return CLI_USAGE;
}
