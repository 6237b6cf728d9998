/* Sub-commands of the trainsim tool; each returns the process exit code.
 * SPDX-License-Identifier: MIT */
#ifndef TS_CLI_H
#define TS_CLI_H

#include <stddef.h>

enum { CLI_OK = 0, CLI_USAGE = 1, CLI_BADINPUT = 2 };

struct hw_catalog;
struct work_calib;
struct ts_error;

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
/* Refuse (print and return CLI_USAGE) when the output file `out` exists and
 * is the same file (device and inode) as one of inputs[0..n) (NULL entries
 * are skipped), naming both; CLI_OK otherwise, also when out is NULL. */
int cli_check_output(const char *cmd, const char *out, const char *const *inputs, size_t n);
/* Load the hardware catalog (and the compute calibration when calib is not
 * NULL); prints the error and returns CLI_BADINPUT on failure. */
int cli_load_common(const char *cmd, struct hw_catalog **cat, struct work_calib *calib);

#endif
