/* Merging the parts of a sharded sweep (trainsim sweep --shard K/N, each
 * part perhaps on another machine) into the output the whole sweep gives.
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_MERGE_H
#define TS_SWEEP_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

/* Read the part files parts[0..n) ("-": standard input, once at most), each
 * as `trainsim sweep --shard K/N -o PART.csv` writes it (the header, then
 * its rows, each ending in the digest that names its part), check that
 * they are the N parts of one sweep, whole, and write the header and the
 * rows of all of them in point order, each with the whole sweep's digest,
 * to out: the bytes `trainsim sweep -o FILE` writes (and writes to
 * standard output). Parts may come in any order. Returns 0, TS_EIO (a part
 * cannot be read or is not a regular file, such as /dev/zero or a FIFO;
 * writing failed), TS_ELIMIT (a part longer than its header and rows of at
 * most SWEEP_ROW_MAX bytes can be: a part is never read without bound),
 * TS_EINVALID (a part without a row, whose first row has no part's digest,
 * or with a NUL byte; parts of different sweeps, base scenarios,
 * calibrations, versions or part counts; a part given twice or missing; a
 * part whose rows are cut short, are not its points or carry another
 * digest), TS_EUSAGE (no part, "-" twice) or TS_ENOMEM, with err naming the
 * part file and line. */
int sweep_merge(const char *const *parts, size_t n, FILE *out, struct ts_error *err);

#endif
