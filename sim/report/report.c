/* Reports of one result.
 *
 * One list of fields (name, kind, offset in struct ts_result) drives both the
 * JSON object and the CSV columns, so the two always carry the same names in
 * the same order; a dotted name ("memory_breakdown.weights_bytes") is a
 * nested object in JSON and a plain column name in CSV. JSON goes through
 * jansson and CSV through the table module; nothing is quoted by hand.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/ts.h"
#include "base/units.h"
#include "io/scenario.h"
#include "report/report.h"
#include "base/jstr.h"
#include "report/table.h"
#include "work/compute.h"

/* F_CNT: a count kept as a double (steps, checkpoints): an integer in JSON
 * and CSV when it is one and below 2^53, else a number. */
static void fmt_exact(char *buf, size_t n, double v);

enum field_kind { F_STR, F_U32, F_NUM, F_CNT, F_BOOL, F_LIST };

struct field {
	const char *name;
	enum field_kind kind;
	size_t off;  /* offset in struct ts_result */
	size_t size; /* bytes of a char array field */
};

#define R_(m) offsetof(struct ts_result, m)
#define STR(m)                                                                                     \
	{                                                                                          \
#m, F_STR, R_(m), sizeof(((struct ts_result *)0)->m)                               \
	}
#define NUM(m)                                                                                     \
	{                                                                                          \
#m, F_NUM, R_(m), 0                                                                \
	}
#define MEM(m)                                                                                     \
	{                                                                                          \
		"memory_breakdown." #m "_bytes", F_NUM, R_(mem.m), 0                               \
	}

#define BAND(m)                                                                                    \
	{#m "_p10", F_NUM, R_(band.m.p10), 0}, {#m "_p50", F_NUM, R_(band.m.p50), 0},              \
	{                                                                                          \
#m "_p90", F_NUM, R_(band.m.p90), 0                                                \
	}

static const struct field fields[] = {
    STR(name),
    {"gpus", F_U32, R_(gpus), 0},
    NUM(iteration_time_s),
    NUM(samples_per_s),
    NUM(tokens_per_s),
    NUM(model_flops_per_iteration),
    NUM(hardware_flops_per_iteration),
    NUM(tflops_per_gpu),
    NUM(mfu),
    NUM(mfu_palm),
    NUM(hfu),
    NUM(memory_per_gpu_bytes),
    NUM(memory_allocated_bytes),
    NUM(memory_reserved_bytes),
    NUM(memory_capacity_bytes),
    {"fits", F_BOOL, R_(fits), 0},
    STR(memory_verdict),
    NUM(memory_headroom_gib),
    NUM(memory_error),
    STR(memory_largest_term),
    MEM(weights),
    MEM(gradients),
    MEM(optimizer),
    MEM(activations),
    MEM(logits),
    MEM(buffers),
    MEM(reserve),
    MEM(cuda_context),
    MEM(workspaces),
    MEM(nccl),
    MEM(allocator),
    NUM(compute_s),
    NUM(recompute_s),
    NUM(exposed_comm_s),
    NUM(bubble_s),
    NUM(data_stall_s),
    NUM(optimizer_s),
    NUM(other_s),
    {"steps", F_CNT, R_(steps), 0},
    NUM(time_to_train_s),
    NUM(gpu_hours),
    NUM(energy_kwh),
    NUM(cost_usd),
    {"checkpoints", F_CNT, R_(checkpoints), 0},
    NUM(checkpoint_bytes),
    NUM(checkpoint_s),
    NUM(node_hours),
    NUM(avg_power_kw),
    NUM(usd_per_mtokens),
    NUM(usd_per_hour),
    NUM(usd_per_gpu_hour),
    NUM(utilisation),
    NUM(breakeven_months),
    NUM(failures_expected),
    NUM(failure_s),
    NUM(failure_lost_each_s),
    NUM(failure_restart_each_s),
    NUM(job_mtbf_s),
    NUM(gpu_energy_kwh),
    NUM(it_energy_kwh),
    NUM(facility_energy_kwh),
    STR(bottleneck),
    {"not_modelled", F_LIST, R_(not_modelled), sizeof(((struct ts_result *)0)->not_modelled)},
    {"warnings", F_LIST, R_(warnings), sizeof(((struct ts_result *)0)->warnings)},
    STR(gpu),
    STR(unit),
    NUM(epochs),
    NUM(epoch_s),
    NUM(usd_per_epoch),
    {"notes", F_LIST, R_(notes), sizeof(((struct ts_result *)0)->notes)},
    /* the reported 80 % band of each headline figure (sim/run/band.h) */
    BAND(iteration_time_s),
    BAND(samples_per_s),
    BAND(tokens_per_s),
    BAND(tflops_per_gpu),
    BAND(mfu),
    BAND(time_to_train_s),
    BAND(cost_usd),
    BAND(gpu_energy_kwh),
    BAND(memory_per_gpu_bytes),
    STR(band_regime),
    NUM(band_time_error),
    STR(granularity),
};

#define NFIELDS (sizeof fields / sizeof fields[0])

static const void *at(const struct ts_result *r, const struct field *f)
{
	return (const char *)r + f->off;
}

static double num_of(const struct ts_result *r, const struct field *f)
{
	double v;
	memcpy(&v, at(r, f), sizeof v);
	return v;
}

/* Length of a char array field that may lack its terminating NUL. */
static size_t str_len(const struct ts_result *r, const struct field *f)
{
	const char *s = at(r, f);
	const char *nul = memchr(s, '\0', f->size);
	return nul ? (size_t)(nul - s) : f->size;
}

/* strlen bounded by n (strnlen is not C11). */
static size_t bounded_len(const char *s, size_t n)
{
	const char *nul = memchr(s, '\0', n);
	return nul ? (size_t)(nul - s) : n;
}

static json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Whether v is a whole number that a JSON integer holds exactly. */
static bool whole(double v)
{
	return isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0;
}

/* A count: an integer when whole, else as json_num. */
static json_t *json_count(double v)
{
	return whole(v) ? json_integer((json_int_t)v) : json_num(v);
}

/* not_modelled "a, b,,c" -> ["a", "b", "c"]. */
static json_t *json_list(const char *s, size_t len)
{
	json_t *arr = json_array();
	size_t i = 0;
	while (arr && i < len) {
		size_t j = i;
		while (j < len && s[j] != ',')
			j++;
		size_t b = i, e = j;
		while (b < e && (s[b] == ' ' || s[b] == '\t'))
			b++;
		while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
			e--;
		if (e > b && json_array_append_new(arr, jstr_new(s + b, e - b))) {
			json_decref(arr);
			return NULL;
		}
		i = j + 1;
	}
	return arr;
}

static json_t *field_json(const struct ts_result *r, const struct field *f)
{
	switch (f->kind) {
	case F_STR:
		return jstr_new(at(r, f), str_len(r, f));
	case F_U32: {
		uint32_t v;
		memcpy(&v, at(r, f), sizeof v);
		return json_integer((json_int_t)v);
	}
	case F_NUM:
		return json_num(num_of(r, f));
	case F_CNT:
		return json_count(num_of(r, f));
	case F_BOOL:
		return json_boolean(*(const bool *)at(r, f));
	case F_LIST:
		return json_list(at(r, f), str_len(r, f));
	}
	return NULL;
}

json_t *report_result_to_json(const struct ts_result *r)
{
	return report_result_document(r, NULL);
}

/* Whether ", "-separated list holds key. */
static bool report_calib_has(const char *list, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = list; (p = strstr(p, key)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

json_t *report_result_document(const struct ts_result *r, const json_t *scenario)
{
	if (!r)
		return NULL;
	json_t *obj = json_object();
	if (!obj || json_object_set_new(obj, "trainsim_version", json_string(TS_VERSION)) ||
	    json_object_set_new(obj, "schema_version", json_integer(TS_SCHEMA_VERSION)))
		goto fail;
	for (size_t i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];
		json_t *into = obj;
		const char *key = f->name;
		const char *dot = strchr(key, '.');
		if (dot) {
			char group[64];
			size_t n = (size_t)(dot - key);
			memcpy(group, key, n);
			group[n] = '\0';
			into = json_object_get(obj, group);
			if (!into) {
				into = json_object();
				if (json_object_set_new(obj, group, into))
					goto fail;
			}
			key = dot + 1;
		}
		json_t *v = field_json(r, f);
		if (!v || json_object_set_new(into, key, v))
			goto fail;
	}
	if (r->calib_measured[0]) { /* constants from the user's measurements */
		json_t *c = json_object(), *m = json_array(), *k = json_array();
		if (!c || !m || !k || json_object_set_new(obj, "calibration", c) ||
		    json_object_set_new(c, "measured", m) || json_object_set_new(c, "catalog", k) ||
		    json_object_set_new(c, "residual", json_num(r->calib_residual)) ||
		    json_object_set_new(c, "band_time_error_before",
					json_num(r->calib_band_before))) {
			json_decref(m);
			json_decref(k);
			goto fail;
		}
		for (size_t i = 0; i < WORK_CALIB_COUNT; i++) {
			const char *key = work_calib_key(i);
			bool meas = report_calib_has(r->calib_measured, key);
			if (json_array_append_new(meas ? m : k, json_string(key)))
				goto fail;
		}
	}
	if (r->n_phases) { /* a run in phases: each phase's share */
		json_t *arr = json_array();
		if (!arr || json_object_set_new(obj, "phases", arr))
			goto fail;
		for (uint32_t i = 0; i < r->n_phases && i < TS_RESULT_MAX_PHASES; i++) {
			const struct ts_phase_result *x = &r->phases[i];
			json_t *o = json_object();
			if (!o || json_array_append_new(arr, o) ||
			    json_object_set_new(
				o, "name",
				jstr_new(x->name, bounded_len(x->name, sizeof x->name))) ||
			    json_object_set_new(o, "global_batch", json_count(x->global_batch)) ||
			    json_object_set_new(o, "seq_len", json_count(x->seq_len)) ||
			    json_object_set_new(o, "steps", json_count(x->steps)) ||
			    json_object_set_new(o, "tokens", json_num(x->tokens)) ||
			    json_object_set_new(o, "samples", json_num(x->samples)) ||
			    json_object_set_new(o, "iteration_time_s",
						json_num(x->iteration_time_s)) ||
			    json_object_set_new(o, "time_to_train_s",
						json_num(x->time_to_train_s)) ||
			    json_object_set_new(o, "gpu_hours", json_num(x->gpu_hours)) ||
			    json_object_set_new(o, "energy_kwh", json_num(x->energy_kwh)) ||
			    json_object_set_new(o, "cost_usd", json_num(x->cost_usd)) ||
			    json_object_set_new(o, "checkpoints", json_count(x->checkpoints)) ||
			    json_object_set_new(o, "failures_expected",
						json_num(x->failures_expected)) ||
			    json_object_set_new(o, "fits", json_boolean(x->fits)))
				goto fail;
		}
	}
	if (r->remedies) { /* what would fit, fastest first */
		json_t *arr = json_array();
		if (!arr || json_object_set_new(obj, "memory_remedies", arr))
			goto fail;
		for (uint32_t i = 0; i < r->remedies->n && i < REMEDY_MAX; i++) {
			const struct ts_remedy *x = &r->remedies->r[i];
			json_t *o = json_object();
			if (!o || json_array_append_new(arr, o) ||
			    json_object_set_new(
				o, "change",
				jstr_new(x->change, bounded_len(x->change, sizeof x->change))) ||
			    json_object_set_new(
				o, "set", jstr_new(x->set, bounded_len(x->set, sizeof x->set))) ||
			    json_object_set_new(o, "gpus", json_integer(x->gpus)) ||
			    json_object_set_new(o, "memory_per_gpu_bytes",
						json_num(x->memory_per_gpu_bytes)) ||
			    json_object_set_new(o, "memory_capacity_bytes",
						json_num(x->memory_capacity_bytes)) ||
			    json_object_set_new(o, "iteration_time_s",
						json_num(x->iteration_time_s)) ||
			    json_object_set_new(o, "iteration_time_change",
						json_num(x->time_change)))
				goto fail;
		}
	}
	if (json_object_set_new(obj, "scenario",
				scenario ? json_deep_copy(scenario) : json_object()))
		goto fail;
	return obj;
fail:
	json_decref(obj);
	return NULL;
}

int report_result_json(const struct ts_result *r, FILE *out)
{
	return report_result_json_with(r, NULL, out);
}

int report_result_json_with(const struct ts_result *r, const json_t *scenario, FILE *out)
{
	if (!r || !out)
		return TS_EINVALID;
	json_t *obj = report_result_document(r, scenario);
	if (!obj)
		return TS_ENOMEM;
	int rc = json_dumpf(obj, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	json_decref(obj);
	if (rc || fputc('\n', out) == EOF || ferror(out))
		return TS_EIO;
	return 0;
}

/* The scenario's columns of a CSV row, by key path (DESIGN.md's scenario
 * keys), before the result's. */
static const char *const scenario_cols[] = {
    "model.name",
    "cluster",
    "nodes",
    "gpus_per_node",
    "training.framework",
    "training.global_batch",
    "training.micro_batch",
    "training.seq_len",
    "training.precision",
    "training.optimizer",
    "training.recompute",
    "training.master_weights",
    "training.cross_entropy",
    "training.grad_reduce_in_fp32",
    "training.fp8_params",
    "training.recompute_layers",
    "parallel.reshard_after_forward",
    "training.iterations",
    "training.tokens",
    "training.samples",
    "training.epochs",
    "training.steps",
    "parallel.tp",
    "parallel.pp",
    "parallel.dp",
    "parallel.cp",
    "parallel.ep",
    "parallel.sp",
    "parallel.zero",
    "parallel.offload",
    "parallel.schedule",
    "parallel.interleave",
    "parallel.bucket",
    "data.dataset",
    "data.storage",
    "cost.usd_per_gpu_hour",
    "sim.granularity",
    "seed",
};
#define NSCOLS (sizeof scenario_cols / sizeof scenario_cols[0])

static bool skipped(const char *key, const char *const *skip, size_t nskip)
{
	for (size_t i = 0; i < nskip; i++)
		if (skip[i] && !strcmp(skip[i], key))
			return true;
	return false;
}

size_t report_csv_scenario_cols(const char *const *skip, size_t nskip)
{
	size_t n = 0;
	for (size_t i = 0; i < NSCOLS; i++)
		n += !skipped(scenario_cols[i], skip, nskip);
	return n;
}

size_t report_csv_ncols(void)
{
	return NSCOLS + NFIELDS;
}

size_t report_csv_ncols_skip(const char *const *skip, size_t nskip)
{
	return report_csv_scenario_cols(skip, nskip) + NFIELDS;
}

int report_result_csv_header(FILE *out)
{
	return report_csv_header(out, NULL, 0);
}

int report_csv_header(FILE *out, const char *const *skip, size_t nskip)
{
	if (!out)
		return TS_EINVALID;
	struct ts_table *t;
	size_t ns = report_csv_scenario_cols(skip, nskip);
	int rc = table_create(&t, ns + NFIELDS);
	if (rc)
		return rc;
	for (size_t i = 0, c = 0; i < NSCOLS; i++)
		if (!skipped(scenario_cols[i], skip, nskip))
			table_header(t, c++, scenario_cols[i], TABLE_LEFT);
	for (size_t i = 0; i < NFIELDS; i++)
		table_header(t, ns + i, fields[i].name, TABLE_LEFT);
	rc = table_status(t);
	if (!rc)
		rc = table_print_csv(t, out);
	table_destroy(t);
	return rc;
}

/* The shortest "%.{15,16,17}g" text that reads back as v. */
static void fmt_exact(char *buf, size_t n, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

const json_t *report_json_path(const json_t *obj, const char *path)
{
	char part[128];
	while (obj && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof part)
			return NULL;
		memcpy(part, path, n);
		part[n] = '\0';
		obj = json_is_object(obj) ? json_object_get(obj, part) : NULL;
		path += n;
		if (*path == '.')
			path++;
	}
	return obj;
}

const char *report_csv_scenario_col(size_t i)
{
	return i < NSCOLS ? scenario_cols[i] : NULL;
}

void report_scenario_cell(struct ts_table *t, size_t col, const json_t *scenario, const char *path)
{
	const json_t *v = report_json_path(scenario, path);
	char buf[40];
	if (json_is_string(v))
		table_cell(t, col, "%s", json_string_value(v));
	else if (json_is_integer(v))
		table_cell(t, col, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v)) {
		fmt_exact(buf, sizeof buf, json_real_value(v));
		table_cell(t, col, "%s", buf);
	} else if (json_is_boolean(v))
		table_cell(t, col, "%s", json_is_true(v) ? "true" : "false");
}

int report_result_csv_row(const struct ts_result *r, FILE *out)
{
	return report_csv_row(r, NULL, NULL, 0, out);
}

int report_csv_row(const struct ts_result *r, const json_t *scenario, const char *const *skip,
		   size_t nskip, FILE *out)
{
	if (!r || !out)
		return TS_EINVALID;
	struct ts_table *t;
	size_t ns = report_csv_scenario_cols(skip, nskip);
	int rc = table_create(&t, ns + NFIELDS);
	if (rc)
		return rc;
	table_add_row(t);
	for (size_t i = 0, c = 0; i < NSCOLS; i++) {
		if (skipped(scenario_cols[i], skip, nskip))
			continue;
		report_scenario_cell(t, c++, scenario, scenario_cols[i]);
	}
	for (size_t k = 0; k < NFIELDS; k++) {
		const struct field *f = &fields[k];
		size_t i = ns + k;
		char buf[40];
		switch (f->kind) {
		case F_STR:
		case F_LIST:
			table_cell(t, i, "%.*s", (int)str_len(r, f), (const char *)at(r, f));
			break;
		case F_U32: {
			uint32_t v;
			memcpy(&v, at(r, f), sizeof v);
			table_cell(t, i, "%u", (unsigned)v);
			break;
		}
		case F_NUM:
		case F_CNT: {
			double v = num_of(r, f);
			if (f->kind == F_CNT && whole(v)) {
				table_cell(t, i, "%.0f", v);
			} else if (isfinite(v)) {
				fmt_exact(buf, sizeof buf, v);
				table_cell(t, i, "%s", buf);
			}
			break;
		}
		case F_BOOL:
			table_cell(t, i, "%s", *(const bool *)at(r, f) ? "true" : "false");
			break;
		}
	}
	rc = table_status(t);
	if (!rc)
		rc = table_print_csv(t, out);
	table_destroy(t);
	return rc;
}

/* --- the text report */

#define NA TS_UNITS_NA

static const char *fmt_time(char *buf, size_t n, double s)
{
	if (!isfinite(s))
		snprintf(buf, n, NA);
	else if (s == 0.0)
		snprintf(buf, n, "0 s");
	else if (s < 0.0) {
		buf[0] = '-';
		ts_units_format(-s, TS_UNIT_TIME, buf + 1, n - 1);
	} else
		ts_units_format(s, TS_UNIT_TIME, buf, n);
	return buf;
}

/* A long duration in the unit people use for it. */
static const char *fmt_duration(char *buf, size_t n, double s)
{
	return ts_units_format_duration(s, buf, n);
}

static const char *fmt_gib(char *buf, size_t n, double bytes)
{
	return ts_units_format_num(buf, n, "%.1f GiB", bytes / (double)TS_GiB);
}

/* v with a decimal prefix (k, M, G, T, P) before `unit`. */
static const char *fmt_si(char *buf, size_t n, double v, const char *unit)
{
	static const char *const pre[] = {"", "k", "M", "G", "T", "P"};
	if (!isfinite(v)) {
		snprintf(buf, n, NA);
		return buf;
	}
	int i = 0;
	while (fabs(v) >= 1000.0 && i < 5) {
		v /= 1000.0;
		i++;
	}
	snprintf(buf, n, "%.4g %s%s%s", v, pre[i], *pre[i] ? " " : "", unit);
	return buf;
}

static const char *fmt_pct(char *buf, size_t n, double part, double whole)
{
	if (!isfinite(part) || !isfinite(whole) || whole <= 0.0)
		snprintf(buf, n, "n/a");
	else
		ts_units_format_num(buf, n, "%.1f %%", 100.0 * part / whole);
	return buf;
}

static const char *fmt_num(char *buf, size_t n, const char *fmt, double v)
{
	return ts_units_format_num(buf, n, fmt, v);
}

/* US$ in a unit a reader takes in at a glance: cents and thousands
 * separators below a million ("$656.18", "$26,143.63"), then millions and
 * billions ("$1.63M", "$2.10B"). */
static const char *fmt_usd(char *buf, size_t n, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, n, NA);
		return buf;
	}
	const char *sign = v < 0.0 ? "-" : "";
	double a = fabs(v);
	if (a >= 1e9) /* an absurd figure stays short (%.3g past 1e9 billions) */
		return ts_units_format_num(buf, n, v < 0.0 ? "-$%.2fB" : "$%.2fB", a / 1e9);
	if (a >= 1e6) {
		snprintf(buf, n, "%s$%.2fM", sign, a / 1e6);
		return buf;
	}
	/* whole dollars grouped by three, then the cents */
	double r = round(a * 100.0);
	long long d = (long long)(r / 100.0), c = (long long)fmod(r, 100.0);
	char g[32];
	if (d >= 1000000)
		snprintf(g, sizeof g, "%lld,%03lld,%03lld", d / 1000000, d / 1000 % 1000, d % 1000);
	else if (d >= 1000)
		snprintf(g, sizeof g, "%lld,%03lld", d / 1000, d % 1000);
	else
		snprintf(g, sizeof g, "%lld", d);
	snprintf(buf, n, "%s$%s.%02lld", sign, g, c);
	return buf;
}

/* Energy in kWh, MWh or GWh, whichever keeps the figure below a thousand
 * ("479.9 kWh", "13.97 MWh", "1.629 GWh"; 4 significant digits once
 * scaled). */
static const char *fmt_energy(char *buf, size_t n, double kwh)
{
	if (!isfinite(kwh) || fabs(kwh) < 1e3)
		return fmt_num(buf, n, "%.1f kWh", kwh);
	if (fabs(kwh) < 1e6)
		return fmt_num(buf, n, "%.4g MWh", kwh / 1e3);
	return fmt_num(buf, n, "%.4g GWh", kwh / 1e6);
}

const char *report_fmt(char *buf, size_t n, enum report_qty q, double v)
{
	switch (q) {
	case RQ_TIME:
		return fmt_time(buf, n, v);
	case RQ_DURATION:
		return fmt_duration(buf, n, v);
	case RQ_GIB:
		return fmt_gib(buf, n, v);
	case RQ_USD:
		return fmt_usd(buf, n, v);
	case RQ_USD_RATE:
		return fmt_num(buf, n, "$%.4g", v);
	case RQ_KWH:
		return fmt_energy(buf, n, v);
	case RQ_PERCENT:
		return fmt_num(buf, n, "%.1f %%", 100.0 * v);
	case RQ_COUNT:
		return fmt_num(buf, n, "%.0f", v);
	}
	snprintf(buf, n, NA);
	return buf;
}

const char *report_fmt_rate(char *buf, size_t n, double v, const char *unit)
{
	return fmt_si(buf, n, v, unit);
}

/* Print a titled table and free it; keeps the first error in *rc. */
static void emit(struct ts_table *t, const char *title, FILE *out, int *rc)
{
	if (!*rc)
		*rc = table_status(t);
	if (!*rc) {
		if (title)
			fprintf(out, "\n%s\n", title);
		*rc = table_print(t, out);
	}
	table_destroy(t);
}

/* A two-column table of label / value lines. */
static int kv_table(struct ts_table **t)
{
	int rc = table_create(t, 2);
	if (!rc)
		table_header(*t, 1, NULL, TABLE_LEFT);
	return rc;
}

static void kv(struct ts_table *t, const char *label, const char *value)
{
	table_add_row(t);
	table_cell(t, 0, "%s", label);
	table_cell(t, 1, "%s", value);
}

/* Decimals of the number that starts s ("20.1 s": 1, "640 ms": 0). */
static int decimals_of(const char *s)
{
	const char *dot = strchr(s, '.'), *sp = strchr(s, ' ');
	if (!dot || (sp && dot > sp))
		return 0;
	int d = 0;
	while (dot[1 + d] >= '0' && dot[1 + d] <= '9')
		d++;
	return d;
}

/* A bound's number (the part of b before its first space, unit dropped)
 * with the figure's decimals, or at least two significant digits, into
 * buf (n bytes): "543.4 ms" beside "640 ms" is "543". */
static const char *bound_number(char *buf, size_t n, const char *b, int head_dec)
{
	char *end;
	double v = strtod(b, &end);
	int d = head_dec;
	if (end != b && isfinite(v) && v != 0.0) {
		int need = 1 - (int)floor(log10(fabs(v)));
		d = need > d ? need : d;
	}
	d = d < 0 ? 0 : d > 4 ? 4 : d;
	if (end == b || !isfinite(v))
		snprintf(buf, n, "%.*s", (int)strcspn(b, " "), b);
	else
		snprintf(buf, n, "%.*f", d, v);
	return buf;
}

/* Append " (LO\u2013HI, 80 %)" to the formatted figure c (n bytes) from its
 * band's formatted bounds lo and hi, "20.1 s (18.9\u201322.4, 80 %)": the
 * bounds lose the unit when it is the figure's (the text after the first
 * space) and take the figure's decimals (at least two significant
 * digits); they keep their own unit otherwise ("950 ms (880 ms\u20131.02 s,
 * 80 %)"). Nothing when the band is a point (no model error and one
 * replica). */
static void band_suffix(char *c, size_t n, const char *lo, const char *hi)
{
	size_t len = strlen(c);
	if (!strcmp(lo, hi) || len + 1 >= n)
		return;
	const char *u = strchr(c, ' '), *ul = strchr(lo, ' '), *uh = strchr(hi, ' ');
	/* a number in e-notation keeps the bounds' own form */
	bool expo = strcspn(c, "eE") < (size_t)(u ? u - c : 0) ||
		    strcspn(lo, "eE") < (size_t)(ul ? ul - lo : 0);
	if (u && ul && uh && !strcmp(u, ul) && !strcmp(u, uh) && expo) {
		snprintf(c + len, n - len, " (%.*s\u2013%.*s, 80 %%)", (int)(ul - lo), lo,
			 (int)(uh - hi), hi);
	} else if (u && ul && uh && !strcmp(u, ul) && !strcmp(u, uh)) {
		char a[48], b[48];
		int d = decimals_of(c);
		snprintf(c + len, n - len, " (%s\u2013%s, 80 %%)", bound_number(a, sizeof a, lo, d),
			 bound_number(b, sizeof b, hi, d));
	} else {
		snprintf(c + len, n - len, " (%s\u2013%s, 80 %%)", lo, hi);
	}
}

/* kinds of banded figure for band_text */
enum band_fmt { BF_TIME, BF_DURATION, BF_SI, BF_NUM, BF_PCT, BF_GIB };

static const char *band_one(char *buf, size_t n, enum band_fmt k, const char *arg, double v)
{
	switch (k) {
	case BF_TIME:
		return fmt_time(buf, n, v);
	case BF_DURATION:
		return fmt_duration(buf, n, v);
	case BF_SI:
		return fmt_si(buf, n, v, arg);
	case BF_PCT:
		return fmt_num(buf, n, arg, 100.0 * v);
	case BF_GIB:
		return fmt_gib(buf, n, v);
	case BF_NUM:
		break;
	}
	return fmt_num(buf, n, arg, v);
}

/* The figure v formatted as kind k (arg: the unit of BF_SI, the printf
 * format of BF_NUM and BF_PCT) with its band b into c (n bytes). */
static const char *band_text(char *c, size_t n, enum band_fmt k, const char *arg, double v,
			     struct ts_band b)
{
	char lo[64], hi[64];
	band_one(c, n, k, arg, v);
	if (isfinite(b.p10) && isfinite(b.p90) && b.p10 > 0.0)
		band_suffix(c, n, band_one(lo, sizeof lo, k, arg, b.p10),
			    band_one(hi, sizeof hi, k, arg, b.p90));
	return c;
}

static void headline(const struct ts_result *r, FILE *out, int *rc)
{
	struct ts_table *t;
	char a[160], b[160], c[320];
	const struct ts_bands *bd = &r->band;
	if (*rc || (*rc = kv_table(&t)))
		return;
	kv(t, "iteration time",
	   band_text(a, sizeof a, BF_TIME, NULL, r->iteration_time_s, bd->iteration_time_s));
	if (r->per_sample) { /* a sample-based model: samples (images) and epochs, no tokens */
		char u[40];
		snprintf(u, sizeof u, "%.20s/s", r->unit);
		snprintf(c, sizeof c, "%s",
			 band_text(a, sizeof a, BF_SI, u, r->samples_per_s, bd->samples_per_s));
		if (r->epoch_samples > 0.0 && r->samples_per_s > 0.0) {
			size_t l = strlen(c);
			snprintf(c + l, sizeof c - l, " (an epoch of %.0f %.20s in %s)",
				 r->epoch_samples, r->unit,
				 fmt_duration(b, sizeof b, r->epoch_samples / r->samples_per_s));
		}
	} else {
		snprintf(
		    c, sizeof c, "%s, %s",
		    band_text(a, sizeof a, BF_SI, "samples/s", r->samples_per_s, bd->samples_per_s),
		    band_text(b, sizeof b, BF_SI, "tokens/s", r->tokens_per_s, bd->tokens_per_s));
	}
	kv(t, "throughput", c);
	kv(t, "per GPU",
	   band_text(a, sizeof a, BF_NUM, "%.1f TFLOP/s", r->tflops_per_gpu, bd->tflops_per_gpu));
	if (fabs(r->mfu_palm - r->mfu) < 5e-4) {
		kv(t, "MFU", band_text(a, sizeof a, BF_PCT, "%.1f %%", r->mfu, bd->mfu));
	} else { /* causal attention: both counts (sim/README.md, "MFU") */
		band_text(a, sizeof a, BF_PCT, "%.1f %%", r->mfu, bd->mfu);
		bool banded = strchr(a, '(') != NULL;
		snprintf(c, sizeof c,
			 "%s%scausal attention at half; %.1f %% counted in full, "
			 "as PaLM and Megatron do%s",
			 a, banded ? "; " : " (", 100.0 * r->mfu_palm, banded ? "" : ")");
		kv(t, "MFU", c);
	}
	kv(t, "HFU", fmt_num(a, sizeof a, "%.1f %%", 100.0 * r->hfu));
	emit(t, NULL, out, rc);
}

static void time_table(const struct ts_result *r, FILE *out, int *rc)
{
	const struct {
		const char *label;
		double s;
	} parts[] = {
	    {"compute", r->compute_s},
	    {"recompute", r->recompute_s},
	    {"exposed communication", r->exposed_comm_s},
	    {"pipeline bubble", r->bubble_s},
	    {"data stall", r->data_stall_s},
	    {"optimizer", r->optimizer_s},
	    {"other", r->other_s},
	};
	struct ts_table *t;
	char a[64], b[32];
	double it = r->iteration_time_s, sum = 0.0;
	if (*rc || (*rc = table_create(&t, 3)))
		return;
	table_header(t, 0, "part", TABLE_LEFT);
	table_header(t, 1, "time", TABLE_RIGHT);
	table_header(t, 2, "share", TABLE_RIGHT);
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		/* a remainder of floating-point rounding (1e-16 s) is shown as 0 */
		double shown = fabs(parts[i].s) <= 1e-9 * fabs(it) ? 0.0 : parts[i].s;
		table_add_row(t);
		table_cell(t, 0, "%s", parts[i].label);
		table_cell(t, 1, "%s", fmt_time(a, sizeof a, shown));
		table_cell(t, 2, "%s", fmt_pct(b, sizeof b, shown, it));
		sum += parts[i].s;
	}
	/* The parts sum to the iteration by construction; show a gap if not. */
	double gap = it - sum;
	if (isfinite(gap) && fabs(gap) > 1e-9 * fabs(it) && fabs(gap) > 0.0) {
		table_add_row(t);
		table_cell(t, 0, "(unattributed)");
		table_cell(t, 1, "%s", fmt_time(a, sizeof a, gap));
		table_cell(t, 2, "%s", fmt_pct(b, sizeof b, gap, it));
	}
	table_add_row(t);
	table_cell(t, 0, "iteration");
	table_cell(t, 1, "%s", fmt_time(a, sizeof a, it));
	table_cell(t, 2, "%s", fmt_pct(b, sizeof b, it, it));
	emit(t, "Time per iteration (critical path)", out, rc);
}

static void memory_table(const struct ts_result *r, FILE *out, int *rc)
{
	const struct ts_mem_breakdown *m = &r->mem;
	const struct {
		const char *label;
		double bytes;
	} parts[] = {
	    {"weights", m->weights},
	    {"gradients", m->gradients},
	    {"optimizer", m->optimizer},
	    {"activations", m->activations},
	    {"logits", m->logits},
	    {"buffers", m->buffers},
	    {"CUDA context", m->cuda_context},
	    {"workspaces", m->workspaces},
	    {"NCCL buffers", m->nccl},
	    {"allocator slack", m->allocator},
	};
	struct ts_table *t;
	char a[64], b[32];
	double total = r->memory_per_gpu_bytes, cap = r->memory_capacity_bytes;
	if (*rc || (*rc = table_create(&t, 3)))
		return;
	table_header(t, 0, "kind", TABLE_LEFT);
	table_header(t, 1, "size", TABLE_RIGHT);
	table_header(t, 2, "share", TABLE_RIGHT);
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		table_add_row(t);
		table_cell(t, 0, "%s", parts[i].label);
		table_cell(t, 1, "%s", fmt_gib(a, sizeof a, parts[i].bytes));
		table_cell(t, 2, "%s", fmt_pct(b, sizeof b, parts[i].bytes, total));
	}
	table_add_row(t);
	table_cell(t, 0, "total (peak)");
	table_cell(t, 1, "%s", fmt_gib(a, sizeof a, total));
	table_cell(t, 2, "%s", fmt_pct(b, sizeof b, total, total));
	table_add_row(t);
	table_cell(t, 0, "capacity");
	table_cell(t, 1, "%s", fmt_gib(a, sizeof a, cap));
	table_cell(t, 2, "%s", fmt_pct(b, sizeof b, total, cap));
	emit(t, "Memory per GPU (worst rank at its peak)", out, rc);
	if (*rc)
		return;
	char c[64], d[160];
	double head = fabs(cap - total);
	const char *big = r->memory_largest_term[0] ? r->memory_largest_term : "?";
	band_text(d, sizeof d, BF_GIB, NULL, total, r->band.memory_per_gpu_bytes);
	if (!strcmp(r->memory_verdict, "tight"))
		fprintf(out,
			"tight: holds %s of %s, %s headroom, the band reaching capacity (the "
			"memory model's %.0f %% error); largest term: %s\n",
			d, fmt_gib(b, sizeof b, cap), fmt_gib(c, sizeof c, head),
			100.0 * r->memory_error, big);
	else if (r->fits)
		fprintf(out, "fits: %s of %s, %s headroom; largest term: %s\n", d,
			fmt_gib(b, sizeof b, cap), fmt_gib(c, sizeof c, head), big);
	else
		fprintf(out, "does NOT fit: needs %s of %s, %s short%s; largest term: %s\n", d,
			fmt_gib(c, sizeof c, cap), fmt_gib(b, sizeof b, head),
			r->band.memory_per_gpu_bytes.p10 > 0.0 &&
				r->band.memory_per_gpu_bytes.p10 <= cap
			    ? " (the band reaches capacity: it may fit, within the memory "
			      "model's error)"
			    : "",
			big);
	report_remedies_text(r, out);
}

void report_remedies_text(const struct ts_result *r, FILE *out)
{
	char b[64], d[64];
	if (!r->remedies)
		return;
	if (!r->remedies->n)
		fprintf(out,
			"what would fit: none of the single changes tried (ZeRO, "
			"recomputation, micro-batch, TP, PP, offload, up to 8 times the nodes, "
			"a GPU with more memory)\n");
	for (uint32_t i = 0; i < r->remedies->n && i < REMEDY_MAX; i++) {
		const struct ts_remedy *x = &r->remedies->r[i];
		char ch[4 * sizeof x->change], st[4 * sizeof x->set];
		ts_escape_ctl(ch, sizeof ch, x->change, sizeof x->change);
		ts_escape_ctl(st, sizeof st, x->set, sizeof x->set);
		if (!i)
			fprintf(out, "what would fit (each simulated, the same GPUs first, fastest "
				     "first):\n");
		fprintf(out, "  %s: %s of %s, iteration %.4g s (%+.1f %%)  [", ch,
			fmt_gib(b, sizeof b, x->memory_per_gpu_bytes),
			fmt_gib(d, sizeof d, x->memory_capacity_bytes), x->iteration_time_s,
			100.0 * x->time_change);
		/* each override as the option that makes it */
		for (const char *tok = st; *tok;) {
			size_t len = strcspn(tok, " ");
			fprintf(out, "%s--set %.*s", tok == st ? "" : " ", (int)len, tok);
			tok += len + (tok[len] == ' ');
		}
		fprintf(out, "]\n");
	}
}

/* A run in phases: one row per phase, its batch, steps, iteration and its
 * share of the whole run. */
static void phase_table(const struct ts_result *r, FILE *out, int *rc)
{
	static const char *const head[] = {"phase",	"batch", "seq_len", "steps",
					   "iteration", "time",	 "cost"};
	struct ts_table *t;
	char a[64];
	if (*rc || !r->n_phases || (*rc = table_create(&t, 7)))
		return;
	for (int i = 0; i < 7; i++)
		table_header(t, (size_t)i, head[i], i ? TABLE_RIGHT : TABLE_LEFT);
	for (uint32_t i = 0; i < r->n_phases && i < TS_RESULT_MAX_PHASES; i++) {
		const struct ts_phase_result *x = &r->phases[i];
		table_add_row(t);
		table_cell(t, 0, "%.*s%s", (int)bounded_len(x->name, sizeof x->name), x->name,
			   x->fits ? "" : " (does NOT fit)");
		table_cell(t, 1, "%.0f", x->global_batch);
		table_cell(t, 2, "%s",
			   r->per_sample ? "-" : fmt_num(a, sizeof a, "%.0f", x->seq_len));
		table_cell(t, 3, "%s", fmt_num(a, sizeof a, "%.0f", x->steps));
		table_cell(t, 4, "%s", fmt_time(a, sizeof a, x->iteration_time_s));
		table_cell(t, 5, "%s", fmt_duration(a, sizeof a, x->time_to_train_s));
		table_cell(t, 6, "%s",
			   x->cost_usd > 0.0 ? fmt_num(a, sizeof a, "$%.2f", x->cost_usd) : "-");
	}
	emit(t, "Phases (each simulated on its own; the figures above are their sum)", out, rc);
	if (!*rc)
		fprintf(out, "per-iteration figures above: the longest phase's\n");
}

static void run_table(const struct ts_result *r, FILE *out, int *rc)
{
	struct ts_table *t;
	char a[64];
	if (*rc || (*rc = kv_table(&t)))
		return;
	kv(t, "steps", fmt_num(a, sizeof a, "%.0f", r->steps));
	if (r->checkpoints > 0.0) {
		char b[64], c[200];
		snprintf(c, sizeof c,
			 r->checkpoints < 1e9 ? "%.0f of %s, %s in all" : "%.3g of %s, %s in all",
			 r->checkpoints, fmt_gib(a, sizeof a, r->checkpoint_bytes),
			 fmt_duration(b, sizeof b, r->checkpoint_s));
		kv(t, "checkpoints", c);
	}
	if (r->failures_expected > 0.0) {
		char b[64], c[200];
		char d[64], e[64];
		snprintf(c, sizeof c,
			 r->failures_expected < 1e6 ? "%.1f expected, %s lost with restarts"
						    : "%.3g expected, %s lost with restarts",
			 r->failures_expected, fmt_duration(b, sizeof b, r->failure_s));
		kv(t, "failures", c);
		snprintf(c, sizeof c, "%s of work lost + %s restart (one per %s)",
			 fmt_duration(b, sizeof b, r->failure_lost_each_s),
			 fmt_duration(d, sizeof d, r->failure_restart_each_s),
			 fmt_duration(e, sizeof e, r->job_mtbf_s));
		kv(t, "each failure", c);
	}
	char tb[160];
	kv(t, "time to train",
	   band_text(tb, sizeof tb, BF_DURATION, NULL, r->time_to_train_s,
		     r->band.time_to_train_s));
	kv(t, "GPU-hours", fmt_num(a, sizeof a, "%.1f", r->gpu_hours));
	/* zero for a run of GPU-hours: energy is not modelled yet, no price given */
	bool run = isfinite(r->gpu_hours) && r->gpu_hours > 0.0;
	kv(t, "energy",
	   run && r->energy_kwh == 0.0
	       ? "not modelled"
	       : fmt_num(a, sizeof a, "%.1f kWh (facility: IT x PUE)", r->energy_kwh));
	if (run && r->energy_kwh > 0.0) {
		kv(t, "IT energy",
		   fmt_num(a, sizeof a, "%.1f kWh (GPUs, hosts, NICs, switches)",
			   r->it_energy_kwh));
		char gb[192];
		band_text(gb, sizeof gb, BF_NUM, "%.1f kWh", r->gpu_energy_kwh,
			  r->band.gpu_energy_kwh);
		size_t gl = strlen(gb);
		snprintf(gb + gl, sizeof gb - gl, "%sGPU boards alone, as papers count%s",
			 strchr(gb, '(') ? "; " : " (", strchr(gb, '(') ? "" : ")");
		kv(t, "GPU energy", gb);
	}
	if (run && r->energy_kwh > 0.0)
		kv(t, "mean power",
		   fmt_num(a, sizeof a, "%.1f kW (PUE included)", r->avg_power_kw));
	if (run && r->cost_usd == 0.0) {
		kv(t, "cost", "no price given (cost.usd_per_gpu_hour)");
	} else {
		/* the total, then what an hour of the run costs */
		char cb[320], h[64], gh[64];
		band_text(tb, sizeof tb, BF_NUM, "$%.2f", r->cost_usd, r->band.cost_usd);
		snprintf(cb, sizeof cb, "%s; %s per hour, %s per GPU-hour", tb,
			 fmt_num(h, sizeof h, "$%.2f", r->usd_per_hour),
			 fmt_num(gh, sizeof gh, "$%.4g", r->usd_per_gpu_hour));
		kv(t, "cost", run ? cb : tb);
		if (run && r->utilisation > 0.0 && r->utilisation < 1.0)
			kv(t, "owned hardware",
			   fmt_num(cb, sizeof cb,
				   "busy %.0f %% of the year: its yearly cost spread over the "
				   "busy hours",
				   100.0 * r->utilisation));
	}
	if (r->per_sample && r->epochs > 0.0) {
		char b[64], c[160];
		snprintf(c, sizeof c, "%s (%s epochs)", fmt_duration(b, sizeof b, r->epoch_s),
			 fmt_num(a, sizeof a, "%.4g", r->epochs));
		kv(t, "time per epoch", c);
		if (run && r->cost_usd > 0.0)
			kv(t, "cost per epoch", fmt_num(a, sizeof a, "$%.2f", r->usd_per_epoch));
	} else if (run && r->cost_usd > 0.0) {
		kv(t, "cost per million tokens", fmt_num(a, sizeof a, "$%.4g", r->usd_per_mtokens));
	}
	if (r->breakeven_months > 0.0)
		kv(t, "buying breaks even after",
		   fmt_num(a, sizeof a,
			   r->utilisation > 0.0 && r->utilisation < 1.0 ? "%.1f months"
									: "%.1f months of use",
			   r->breakeven_months));
	else if (r->breakeven_months < 0.0)
		kv(t, "buying breaks even", "never (the cloud costs less than running costs)");
	emit(t, r->n_phases ? "Whole run (the sum of its phases)" : "Whole run", out, rc);
	phase_table(r, out, rc);
	char w[4 * sizeof r->warnings];
	ts_escape_ctl(w, sizeof w, r->warnings, sizeof r->warnings);
	if (!*rc && w[0])
		fprintf(out, "warning: %s\n", w);
}

int report_result_text(const struct ts_result *r, FILE *out)
{
	if (!r || !out)
		return TS_EINVALID;
	int rc = 0;
	char name[4 * sizeof r->name]; /* a name from an input, its control characters escaped */
	ts_escape_ctl(name, sizeof name, r->name, sizeof r->name);
	fprintf(out, "%s%s(%u GPU%s)\n\n", name, name[0] ? "  " : "", (unsigned)r->gpus,
		r->gpus == 1 ? "" : "s");
	headline(r, out, &rc);
	time_table(r, out, &rc);
	memory_table(r, out, &rc);
	if (!rc && r->steps > 0.0)
		run_table(r, out, &rc);
	if (rc)
		return rc;
	if (r->calib_measured[0])
		fprintf(out,
			"\ncalibration: %.*s from your measurements (fit residual %.1f %%); the "
			"other constants from the catalog; band +-%.1f %% where the catalog's "
			"was +-%.1f %%\n",
			(int)bounded_len(r->calib_measured, sizeof r->calib_measured),
			r->calib_measured, 100.0 * expm1(r->calib_residual),
			100.0 * expm1(r->band_time_error), 100.0 * expm1(r->calib_band_before));
	size_t blen = bounded_len(r->bottleneck, sizeof r->bottleneck);
	if (blen)
		fprintf(out, "\nbottleneck: %.*s\n", (int)blen, r->bottleneck);
	json_t *nm =
	    json_list(r->not_modelled, bounded_len(r->not_modelled, sizeof r->not_modelled));
	if (!nm)
		return TS_ENOMEM;
	if (json_array_size(nm)) {
		fputs("\nnot modelled (accepted, no effect on the figures):\n", out);
		size_t i;
		json_t *v;
		json_array_foreach(nm, i, v) fprintf(out, "  - %s\n", json_string_value(v));
	}
	json_decref(nm);
	json_t *notes = json_list(r->notes, bounded_len(r->notes, sizeof r->notes));
	if (!notes)
		return TS_ENOMEM;
	size_t i;
	json_t *v;
	json_array_foreach(notes, i, v) fprintf(out, "note: %s\n", json_string_value(v));
	json_decref(notes);
	return ferror(out) ? TS_EIO : 0;
}

/* A JSON string of the C string s, any bytes (jstr_new). */
static json_t *js(const char *s)
{
	return jstr_new(s, s ? strlen(s) : 0);
}

static json_t *dump_value(char *v);

/* One "key = value  # where" line of the scenario dump as a JSON setting. */
static json_t *dump_setting(char *line)
{
	char *eq = strstr(line, " = ");
	if (!eq)
		return NULL;
	*eq = '\0';
	char *v = eq + 3, *where = strstr(v, "  # ");
	if (where) {
		*where = '\0';
		where += 4;
	}
	json_t *val = dump_value(v);
	json_t *o = json_object();
	if (!o || !val || json_object_set_new(o, "key", js(line)) ||
	    json_object_set_new(o, "value", val) ||
	    json_object_set_new(o, "where", js(where ? where : ""))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The value v of a dump line (its "  # where" cut off) as JSON: a number
 * (an integer when whole), a boolean, or a string (a libconfig string
 * without its quotes, or the bare text). */
static json_t *dump_value(char *v)
{
	json_t *val;
	if (*v == '"') { /* a libconfig string: up to its closing quote */
		char *w = v, *r = v + 1;
		for (; *r && *r != '"'; r++) {
			if (*r == '\\' && r[1])
				r++;
			*w++ = *r;
		}
		*w = '\0';
		val = js(v);
	} else if (!strcmp(v, "true") || !strcmp(v, "false")) {
		val = json_boolean(!strcmp(v, "true"));
	} else {
		char *end;
		double d = strtod(v, &end);
		val = *v && !*end && isfinite(d) && !strpbrk(v, "xXpP") ? json_real(d) : js(v);
		if (val && json_is_real(val) && d == floor(d) && fabs(d) < 9e15) {
			json_decref(val);
			val = json_integer((json_int_t)d);
		}
	}
	return val;
}

/* Set key path `key` ("parallel.tp") of obj to val (stolen): the groups
 * made as needed; a scalar where a group is needed ("model" before
 * "model.name") gives way to the group, a scalar after its group is
 * dropped (the group says more). Returns 0 or TS_ENOMEM. */
static int tree_set(json_t *obj, const char *key, json_t *val)
{
	char part[128];
	for (;;) {
		size_t n = strcspn(key, ".");
		if (n >= sizeof part) {
			json_decref(val);
			return 0;
		}
		memcpy(part, key, n);
		part[n] = '\0';
		if (!key[n]) {
			if (json_is_object(json_object_get(obj, part))) {
				json_decref(val);
				return 0;
			}
			return json_object_set_new(obj, part, val) ? TS_ENOMEM : 0;
		}
		json_t *g = json_object_get(obj, part);
		if (!json_is_object(g)) {
			g = json_object();
			if (!g || json_object_set_new(obj, part, g)) {
				json_decref(val);
				return TS_ENOMEM;
			}
		}
		obj = g;
		key += n + 1;
	}
}

/* One "key = value  # where" line into tree; other lines are skipped. */
static int tree_line(json_t *tree, char *line)
{
	char *eq = strstr(line, " = ");
	if (!eq)
		return 0;
	*eq = '\0';
	char *v = eq + 3, *where = strstr(v, "  # ");
	if (where)
		*where = '\0';
	json_t *val = dump_value(v);
	return val ? tree_set(tree, line, val) : TS_ENOMEM;
}

json_t *report_scenario_tree(const struct ts_scenario *sc)
{
	char *text;
	size_t len;
	if (!sc || ts_scenario_dump_text(sc, &text, &len))
		return NULL;
	json_t *tree = json_object(), *phases = NULL, *phase = NULL;
	int rc = tree ? 0 : TS_ENOMEM;
	for (char *p = text, *e; !rc && p && *p; p = e ? e + 1 : NULL) {
		if ((e = strchr(p, '\n')))
			*e = '\0';
		if (!strncmp(p, "# phase \"", 9)) { /* "# phase "NAME":" then "#   key = value" */
			char *q = strrchr(p + 9, '"');
			if (q)
				*q = '\0';
			phase = json_object();
			if (!phases && (!(phases = json_array()) ||
					json_object_set_new(tree, "phases", phases)))
				rc = TS_ENOMEM;
			if (!rc && (!phase || json_array_append_new(phases, phase) ||
				    json_object_set_new(phase, "name", js(p + 9))))
				rc = TS_ENOMEM;
		} else if (phase && !strncmp(p, "#   ", 4)) {
			rc = tree_line(phase, p + 4);
		} else if (p[0] == '#') {
			phase = NULL;
		} else {
			rc = tree_line(tree, p);
		}
	}
	free(text);
	if (rc) {
		json_decref(tree);
		return NULL;
	}
	return tree;
}

int report_scenario_json(const struct ts_scenario *sc, FILE *out)
{
	char *text;
	size_t len;
	int rc = ts_scenario_dump_text(sc, &text, &len);
	json_t *obj = json_object(), *set = json_array(), *cl = json_array();
	if (!rc && (!obj || !set || !cl || json_object_set_new(obj, "name", js(sc->name)) ||
		    json_object_set_new(obj, "file", js(sc->file)) ||
		    json_object_set(obj, "settings", set)))
		rc = TS_ENOMEM;
	bool in_cluster = false;
	for (char *p = text, *e; !rc && p && *p; p = e ? e + 1 : NULL) {
		if ((e = strchr(p, '\n')))
			*e = '\0';
		if (p == text) /* "# trainsim scenario ... resolved from FILE" */
			continue;
		if (!strncmp(p, "# not modelled: ", 16)) {
			if (json_object_set_new(obj, "not_modelled", js(p + 16)))
				rc = TS_ENOMEM;
		} else if (!strncmp(p, "# cluster ", 10)) {
			in_cluster = true;
		} else if (in_cluster && p[0] == '#') {
			if (json_array_append_new(cl, js(p[1] == ' ' ? p + 2 : p + 1)))
				rc = TS_ENOMEM;
		} else if (p[0] != '#') {
			json_t *o = dump_setting(p);
			if (!o || json_array_append_new(set, o))
				rc = TS_ENOMEM;
		}
	}
	free(text);
	if (!rc && json_object_set(obj, "cluster", cl))
		rc = TS_ENOMEM;
	if (!rc && (json_dumpf(obj, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) ||
		    fputc('\n', out) == EOF || ferror(out)))
		rc = TS_EIO;
	json_decref(set);
	json_decref(cl);
	json_decref(obj);
	return rc;
}
