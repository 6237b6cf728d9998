/* Sub-commands of the trainsim tool; each returns the process exit code.
 * SPDX-License-Identifier: MIT */
#ifndef TS_CLI_H
#define TS_CLI_H

#include <stddef.h>

enum { CLI_OK = 0, CLI_USAGE = 1, CLI_BADINPUT = 2 };

struct hw_catalog;
struct work_calib;
struct ts_error;
struct outfile_arg;

/* trainsim collective ... (argv[0] is "collective"). */
int cli_collective(int argc, char **argv);
/* trainsim run SCENARIO.cfg ... */
int cli_run(int argc, char **argv);
/* trainsim list gpus|links|clusters|models */
int cli_list(int argc, char **argv);
/* trainsim validate */
int cli_validate(int argc, char **argv);

/* trainsim sweep SWEEP.cfg [-o RESULTS.csv] [-j N] [--resume] [--calib FILE] */
int cli_sweep(int argc, char **argv);
/* trainsim compare A.cfg B.cfg ... */
int cli_compare(int argc, char **argv);
/* trainsim search SCENARIO.cfg [--objective time|cost] [--top N] [--max-gpus N] */
int cli_search(int argc, char **argv);
/* trainsim calibrate SCENARIO.cfg --measured-iteration-s X [-o OVERRIDES.cfg] */
int cli_calibrate(int argc, char **argv);
/* trainsim plot scaling|breakdown|frontier|memory RESULTS.csv -o OUT.png|svg */
int cli_plot(int argc, char **argv);

/* Apply the calibration overrides file `path` (NULL: nothing) to *calib and
 * to the link efficiencies of cat;
 * prints the error and returns CLI_BADINPUT on failure. */
int cli_apply_calib(const char *cmd, const char *path, struct hw_catalog *cat,
		    struct work_calib *calib);

/* Directory holding configs/ and models/: $TS_DATA_DIR, else the source tree. */
const char *cli_data_root(void);
/* Print "trainsim CMD: file:line: key: message" and return CLI_BADINPUT. */
int cli_print_error(const char *cmd, const struct ts_error *err);
/* Check the outputs of a command against its inputs before any work
 * (outfile_check), ins[0..nin) (at most 13) and the bundled data of
 * cli_data_root() (configs/, models/, plots/): prints the error and returns CLI_USAGE (an output
 * that is an input, another output, a directory or a special file) or CLI_BADINPUT (its folder
 * cannot take it); CLI_OK otherwise. */
int cli_check_outputs(const char *cmd, const struct outfile_arg *outs, size_t nout,
		      const struct outfile_arg *ins, size_t nin);
/* Load the hardware catalog (and the compute calibration when calib is not
 * NULL); prints the error and returns CLI_BADINPUT on failure. */
int cli_load_common(const char *cmd, struct hw_catalog **cat, struct work_calib *calib);

#endif
