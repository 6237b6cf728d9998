/* Reports of one result: JSON and CSV with the stable result keys for
 * programs, and a readable text report for people.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_REPORT_H
#define TS_REPORT_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "run/result.h"

/* The result as one JSON object: "schema_version" (TS_SCHEMA_VERSION), then
 * every field of struct ts_result under its stable name (DESIGN.md, "The
 * scenario keys and the result keys"), with:
 *   "memory_breakdown": { "weights_bytes", "gradients_bytes",
 *       "optimizer_bytes", "activations_bytes", "logits_bytes",
 *       "buffers_bytes", "reserve_bytes", "cuda_context_bytes",
 *       "workspaces_bytes", "nccl_bytes", "allocator_bytes" },
 *   "bottleneck": string, "not_modelled": array of strings (the
 *   comma-separated list, trimmed, empty entries dropped).
 * A number that is NaN or infinite is written as null: it is a bug of the
 * producer, and a reader sees it. Returns a new reference, NULL on out of
 * memory. */
json_t *report_result_to_json(const struct ts_result *r);

/* Write report_result_to_json(r), indented, and a newline. Returns 0,
 * TS_ENOMEM, TS_EIO when writing fails, or TS_EINVALID for NULL arguments. */
int report_result_json(const struct ts_result *r, FILE *out);

struct ts_scenario;

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

/* Write the CSV header line: the JSON keys in the same order, the memory
 * breakdown as "memory_breakdown.weights_bytes" etc. Returns 0 or TS_EIO. */
int report_result_csv_header(FILE *out);

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

#endif
