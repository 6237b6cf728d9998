/* The catalogs as tables for trainsim list: what the environment offers of
 * a kind, and one entry field by field with the source of each field.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_LIST_H
#define TS_REPORT_LIST_H

#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "trainsim.h"

struct ts_env;

/* Whether kind is one list_write and list_entry_write know: "gpus",
 * "links", "clusters", "models", "datasets", "storage" or "scenarios". */
bool list_kind_known(const char *kind);

/* Write the entries of `kind` in env (the hardware catalog, or the files of
 * the data root's folder of that kind, sorted by name) as a table, CSV or
 * JSON (table_write; a value an entry does not state is "-" in text and
 * left out of CSV and JSON). Returns 0, TS_EUSAGE (an unknown kind), the
 * error of a file that does not load, TS_ELIMIT (more than 4096 files),
 * TS_EIO or TS_ENOMEM, with err set. */
int list_write(const struct ts_env *env, const char *kind, enum ts_format format, FILE *out,
	       struct ts_error *err);

/* Write entry `name` of `kind` field by field: the dotted field, its value
 * as the file states it, its source (the entry's sources.FIELD, else the
 * source of the group holding it, else the entry's source; in text a
 * numbered note listed after the table) and file:line relative to the data
 * root; text opens with the entry's file and line. Returns 0, TS_EUSAGE (an
 * unknown kind or no name), TS_EUNKNOWN_NAME (no such entry; the message
 * suggests the closest), the file's error, TS_EIO or TS_ENOMEM, with err
 * set. */
int list_entry_write(const struct ts_env *env, const char *kind, const char *name,
		     enum ts_format format, FILE *out, struct ts_error *err);

#endif
