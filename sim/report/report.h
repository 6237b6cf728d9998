/* Reports of one result: JSON and CSV with the stable result keys for
 * programs, and a readable text report for people.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_REPORT_H
#define TS_REPORT_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "run/result.h"

/* The result as one JSON object: "trainsim_version" (TS_VERSION),
 * "schema_version" (TS_SCHEMA_VERSION), then
 * every field of struct ts_result under its stable name (DESIGN.md, "The
 * scenario keys and the result keys"), with:
 *   "memory_breakdown": { "weights_bytes", "gradients_bytes",
 *       "optimizer_bytes", "activations_bytes", "logits_bytes",
 *       "buffers_bytes", "reserve_bytes", "cuda_context_bytes",
 *       "workspaces_bytes", "nccl_bytes", "allocator_bytes" },
 *   "bottleneck": string, "not_modelled": array of strings (the
 *   comma-separated list, trimmed, empty entries dropped); counts (steps,
 *   checkpoints, gpus) as integers when whole; last "scenario": an empty
 *   object (report_result_document gives the scenario).
 * A number that is NaN or infinite is written as null: it is a bug of the
 * producer, and a reader sees it. Returns a new reference, NULL on out of
 * memory. */
/* Write what would fit of a result that does not fit (its remedies, as
 * remedy_find attached them: one line each with the --set options that
 * make it, or a line saying none of the changes tried fits); nothing when
 * none were looked for. Write errors are left to the stream. */
void report_remedies_text(const struct ts_result *r, FILE *out);

json_t *report_result_to_json(const struct ts_result *r);

/* report_result_to_json with "scenario" a deep copy of `scenario` (the
 * report_scenario_tree of the scenario run; NULL: an empty object). Same
 * returns. The schema: share/trainsim/schema/result.schema.json. */
json_t *report_result_document(const struct ts_result *r, const json_t *scenario);

/* The value under dotted key path `path` ("parallel.tp") of obj, borrowed;
 * NULL when absent or obj is NULL. */
const json_t *report_json_path(const json_t *obj, const char *path);

/* Write report_result_to_json(r), indented, and a newline. Returns 0,
 * TS_ENOMEM, TS_EIO when writing fails, or TS_EINVALID for NULL arguments. */
int report_result_json(const struct ts_result *r, FILE *out);

/* report_result_json of report_result_document(r, scenario). Same returns. */
int report_result_json_with(const struct ts_result *r, const json_t *scenario, FILE *out);

struct ts_scenario;

/* The resolved scenario as --dump-config prints it, as nested JSON keys
 * without the comments saying where each value came from: "parallel.tp = 1"
 * is {"parallel": {"tp": 1}}; numbers (integers when whole), booleans and
 * strings as in report_scenario_json; a named model is "model": {"name",
 * ...}; a run in phases adds "phases": [ {"name", the keys each phase
 * sets} ]. Returns a new reference, NULL on out of memory (or sc NULL). */
json_t *report_scenario_tree(const struct ts_scenario *sc);

/* The resolved scenario (ts_scenario_dump, as --dump-config prints it) as
 * one JSON object, indented, and a newline:
 *   { "name", "file",
 *     "settings": [ { "key", "value", "where" }, ... ]  (in dump order;
 *         a value is a number, a boolean or a string as the file writes
 *         it, a string without its quotes),
 *     "not_modelled": string, "cluster": [ lines describing the cluster ] }
 * Returns 0, TS_ENOMEM, or TS_EIO when writing fails. */
int report_scenario_json(const struct ts_scenario *sc, FILE *out);

/* Number of CSV columns (the same for the header and every row). */
size_t report_csv_ncols(void);

/* Number of the scenario's CSV columns, and of all columns, without the
 * key paths skip[0..nskip) (a sweep's axes, which have their own columns). */
size_t report_csv_scenario_cols(const char *const *skip, size_t nskip);
size_t report_csv_ncols_skip(const char *const *skip, size_t nskip);

/* Write the CSV header line: the scenario's columns by key path
 * ("model.name", "cluster", "nodes", "parallel.tp",
 * "training.global_batch", ...), then the JSON keys of the result in the
 * same order, the memory breakdown as "memory_breakdown.weights_bytes"
 * etc. Returns 0 or TS_EIO. */
int report_result_csv_header(FILE *out);

/* The i-th scenario column's key path ("model.name"), NULL past the last. */
const char *report_csv_scenario_col(size_t i);

/* Set cell `col` of t's last row to the value under key path `path` of
 * `scenario` as the CSV writes it (a whole number as an integer, a
 * boolean as true/false, a string as is); left unset when absent. */
struct ts_table;
void report_scenario_cell(struct ts_table *t, size_t col, const json_t *scenario, const char *path);

/* report_result_csv_header without the scenario columns skip[0..nskip). */
int report_csv_header(FILE *out, const char *const *skip, size_t nskip);

/* report_result_csv_row with the scenario columns from `scenario` (a
 * report_scenario_tree; NULL or an absent key: empty fields), without
 * skip[0..nskip). Same returns. */
int report_csv_row(const struct ts_result *r, const json_t *scenario, const char *const *skip,
		   size_t nskip, FILE *out);

/* Write one CSV line of r under report_result_csv_header's columns; numbers
 * with 17 significant digits, a non-finite number as an empty field,
 * booleans as true/false, not_modelled as its comma-separated text (quoted).
 * Returns 0, TS_ENOMEM, TS_EIO, or TS_EINVALID for NULL arguments. */
int report_result_csv_row(const struct ts_result *r, FILE *out);

/* Write the readable report: headline (iteration time, throughput, TFLOP/s
 * per GPU, MFU, HFU), the time breakdown (s and % of the iteration), the
 * memory per GPU against capacity in GiB ("fits" or "does NOT fit: needs X
 * GiB of Y GiB"), the whole run when steps > 0, the bottleneck and what is
 * not modelled. Returns 0, TS_ENOMEM, TS_EIO, or TS_EINVALID for NULL
 * arguments. */
int report_result_text(const struct ts_result *r, FILE *out);

/* What a figure of a text report is, for report_fmt. */
enum report_qty {
	RQ_TIME,     /* s, with a prefix: "6.489 s", "12.3 ms" */
	RQ_DURATION, /* s, in the unit people use: "2.5 h", "31.0 days" */
	RQ_GIB,	     /* bytes as "%.1f GiB" */
	RQ_USD,	     /* US$: "$656.18", "$26,143.63", "$1.63M", "$2.10B" */
	RQ_USD_RATE, /* US$ per unit (per million tokens) as "$%.4g" */
	RQ_KWH,	     /* kWh: "479.9 kWh", then "13.97 MWh", "1.629 GWh" */
	RQ_PERCENT,  /* a fraction 0-1 as "%.1f %%" */
	RQ_COUNT,    /* a count as "%.0f" */
};

/* The one number formatter of the text reports (run, compare): v as q into
 * buf (size n, truncated), "n/a" when not finite; returns buf. */
const char *report_fmt(char *buf, size_t n, enum report_qty q, double v);

/* A rate v with a decimal prefix before unit ("161.6 k tokens/s", "%.4g");
 * returns buf. */
const char *report_fmt_rate(char *buf, size_t n, double v, const char *unit);

#endif
