/* Sub-commands of the trainsim tool; each returns the process exit code.
 * SPDX-License-Identifier: MIT */
#ifndef TS_CLI_H
#define TS_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "trainsim.h"

/* exit codes; CLI_NOFIT: `search` found no setting that fits in GPU memory */
enum { CLI_OK = 0, CLI_USAGE = 1, CLI_BADINPUT = 2, CLI_NOFIT = 3 };

/* trainsim collective ... (argv[0] is "collective"). */
int cli_collective(int argc, char **argv);
/* trainsim run SCENARIO.cfg ... */
int cli_run(int argc, char **argv);
/* trainsim list gpus|links|clusters|models */
int cli_list(int argc, char **argv);
/* trainsim validate */
int cli_validate(int argc, char **argv);

/* trainsim sweep SWEEP.cfg [-o RESULTS.csv] [-j N] [--resume [--force]] [--calib FILE] */
int cli_sweep(int argc, char **argv);
/* trainsim merge PART.csv... [-o ALL.csv] */
int cli_merge(int argc, char **argv);
/* trainsim compare A.cfg B.cfg ... */
int cli_compare(int argc, char **argv);
/* trainsim search SCENARIO.cfg [--objective time|cost] [--top N] [--max-gpus N] */
int cli_search(int argc, char **argv);
/* trainsim advise SCENARIO.cfg [--deadline D] [--budget USD] [--mode rent|buy|both] ... */
int cli_advise(int argc, char **argv);
/* trainsim queue JOBS.csv --cluster NAME --nodes N [--policy fifo|backfill|priority] ... */
int cli_queue(int argc, char **argv);
/* trainsim calibrate SCENARIO.cfg --measured-iteration-s X [-o OVERRIDES.cfg] */
int cli_calibrate(int argc, char **argv);
/* trainsim plot scaling|breakdown|frontier|memory RESULTS.csv -o OUT.png|svg */
int cli_plot(int argc, char **argv);

/* Print "trainsim CMD: " and the last library error (ts_errmsg()) on
 * stderr; returns the exit code: CLI_USAGE for TS_EUSAGE, else CLI_BADINPUT. */
int cli_fail(const char *cmd);
/* Refuse "-" (standard input, which can be read once) as the scenario of
 * command cmd, which reads it again `why` ("once per option"): prints the
 * error and returns true; false for any other path. */
bool cli_refuse_stdin(const char *cmd, const char *path, const char *why);
/* Open the environment (the data root found as ts_env_open says) and apply
 * the calibration overrides file calib (NULL: none); prints the error and
 * returns its exit code on failure, *env NULL. */
int cli_env(const char *cmd, const char *calib, ts_env **env);
/* Check the outputs outs[0..nout) of a command against its inputs
 * ins[0..nin) and the bundled data of env before any work
 * (ts_output_check): prints the error and returns CLI_USAGE for every
 * refusal (an output that is an input, another output, bundled data, a
 * directory, a special file, or one that cannot be written), CLI_BADINPUT
 * only when out of memory; CLI_OK otherwise. */
int cli_check_outputs(const char *cmd, const ts_env *env, const struct ts_output_arg *outs,
		      size_t nout, const struct ts_output_arg *ins, size_t nin);

#endif
