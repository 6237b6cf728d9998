/* Result reports: JSON keys and schema version, CSV header and row agree,
 * non-finite numbers, the text report's breakdown and memory verdict.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/units.h"
#include "report/report.h"
#include "testutil.h"

static const char *const stable_keys[] = {
    "schema_version", "iteration_time_s", "samples_per_s", "tokens_per_s",
    "model_flops_per_iteration", "tflops_per_gpu", "mfu", "hfu", "memory_per_gpu_bytes",
    "memory_capacity_bytes", "fits", "memory_verdict", "memory_headroom_gib", "memory_error",
    "memory_largest_term", "compute_s", "recompute_s", "exposed_comm_s", "bubble_s", "data_stall_s",
    "optimizer_s", "other_s", "time_to_train_s", "gpu_hours", "energy_kwh", "cost_usd",
    /* beyond the DESIGN.md minimum */
    "name", "gpus", "hardware_flops_per_iteration", "memory_breakdown", "steps", "bottleneck",
    "not_modelled", "mfu_palm", "trainsim_version", "scenario"};

static struct ts_result sample(void)
{
	struct ts_result r;
	memset(&r, 0, sizeof r);
	strcpy(r.name, "Llama-2-7B on one DGX A100, \"FSDP\"");
	r.gpus = 8;
	r.iteration_time_s = 2.0;
	r.samples_per_s = 256.0;
	r.tokens_per_s = 256.0 * 4096.0;
	r.model_flops_per_iteration = 2.0e16;
	r.hardware_flops_per_iteration = 2.5e16;
	r.tflops_per_gpu = 1250.0;
	r.mfu = 0.45;
	r.mfu_palm = 0.45;
	r.hfu = 0.55;
	r.mem.weights = 14.0 * 1073741824.0;
	r.mem.gradients = 14.0 * 1073741824.0;
	r.mem.optimizer = 40.0 * 1073741824.0;
	r.mem.activations = 20.0 * 1073741824.0;
	r.mem.logits = 2.0 * 1073741824.0;
	r.mem.buffers = 1.0 * 1073741824.0;
	r.mem.reserve = 2.1 * 1073741824.0;
	r.memory_per_gpu_bytes = 93.1 * 1073741824.0;
	r.memory_capacity_bytes = 79.3 * 1073741824.0;
	r.fits = false;
	r.compute_s = 1.2;
	r.recompute_s = 0.2;
	r.exposed_comm_s = 0.3;
	r.bubble_s = 0.1;
	r.data_stall_s = 0.0;
	r.optimizer_s = 0.15;
	r.other_s = 0.05;
	r.steps = 1000.0;
	r.time_to_train_s = 2000.0;
	r.gpu_hours = 2000.0 * 8.0 / 3600.0;
	r.energy_kwh = 30.0;
	r.cost_usd = 8.89;
	strcpy(r.bottleneck, "compute-bound: GEMMs on the GPUs");
	strcpy(r.not_modelled, "data.shuffle, training.ema ,, parallel.foo");
	return r;
}

static char *capture_r(int (*print)(const struct ts_result *, FILE *), const struct ts_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(print(r, f), 0);
	fclose(f);
	return buf;
}

static json_t *parse(const char *s)
{
	json_error_t err;
	json_t *j = json_loads(s, 0, &err);
	ck_assert_msg(j != NULL, "invalid JSON: %s at line %d", err.text, err.line);
	return j;
}

/* Numbers of any size print in a dozen characters or so, with their unit. */
START_TEST(huge_numbers_stay_short)
{
	char b[64];
	ck_assert_str_eq(ts_units_format_num(b, sizeof b, "%.1f days", 3.26e295), "3.26e+295 days");
	ck_assert_str_eq(ts_units_format_num(b, sizeof b, "$%.2f", 1e12), "$1e+12");
	ck_assert_str_eq(ts_units_format_num(b, sizeof b, "%.1f %%", 2e10), "2e+10 %");
	ck_assert_str_eq(ts_units_format_num(b, sizeof b, "%.1f h", 999999.96), "1000000.0 h");
	ck_assert_str_eq(ts_units_format_num(b, sizeof b, "%.0f", 42.0), "42");
	ck_assert_str_eq(ts_units_format_num(b, sizeof b, "%.1f kWh", INFINITY), TS_UNITS_NA);
	ck_assert_str_eq(ts_units_format_num(b, sizeof b, "%.1f kWh", NAN), TS_UNITS_NA);
	ck_assert_str_eq(ts_units_format(1e300, TS_UNIT_TIME, b, sizeof b), "1e+300 s");
	ck_assert_str_eq(ts_units_format(-INFINITY, TS_UNIT_BYTES, b, sizeof b), TS_UNITS_NA);
}
END_TEST

/* Money and energy in a unit read at a glance: thousands separators below
 * a million dollars, then M and B; kWh below a thousand, then MWh and GWh
 * with four significant digits (1,628,583.1 kWh is 1.628583 GWh). */
START_TEST(money_and_energy_scaled)
{
	char b[64];
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_USD, 656.178), "$656.18");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_USD, 26143.633), "$26,143.63");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_USD, 999999.996), "$1,000,000.00");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_USD, 1234567.0), "$1.23M");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_USD, 2.1e9), "$2.10B");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_USD, 0.07), "$0.07");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_USD, NAN), TS_UNITS_NA);
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_KWH, 479.887), "479.9 kWh");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_KWH, 13966.05), "13.97 MWh");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_KWH, 1628583.1), "1.629 GWh");
	ck_assert_str_eq(report_fmt(b, sizeof b, RQ_KWH, INFINITY), TS_UNITS_NA);
}
END_TEST

START_TEST(json_has_every_stable_key)
{
	struct ts_result r = sample();
	char *s = capture_r(report_result_json, &r);
	json_t *j = parse(s);
	ck_assert(json_is_object(j));
	for (size_t i = 0; i < sizeof stable_keys / sizeof stable_keys[0]; i++)
		ck_assert_msg(json_object_get(j, stable_keys[i]), "missing %s", stable_keys[i]);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "schema_version")),
			 TS_SCHEMA_VERSION);
	ck_assert(json_is_false(json_object_get(j, "fits")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "gpus")), 8);
	/* counts are integers */
	ck_assert(json_is_integer(json_object_get(j, "steps")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "steps")), 1000);
	ck_assert_str_eq(json_string_value(json_object_get(j, "trainsim_version")), TS_VERSION);
	ck_assert(json_real_value(json_object_get(j, "mfu")) == 0.45);
	ck_assert_str_eq(json_string_value(json_object_get(j, "name")), r.name);
	json_t *mem = json_object_get(j, "memory_breakdown");
	const char *mk[] = {"weights_bytes",	 "gradients_bytes",    "optimizer_bytes",
			    "activations_bytes", "logits_bytes",       "buffers_bytes",
			    "reserve_bytes",	 "cuda_context_bytes", "workspaces_bytes",
			    "nccl_bytes",	 "allocator_bytes"};
	for (size_t i = 0; i < sizeof mk / sizeof mk[0]; i++)
		ck_assert_msg(json_is_real(json_object_get(mem, mk[i])), "missing %s", mk[i]);
	ck_assert(json_real_value(json_object_get(mem, "optimizer_bytes")) == r.mem.optimizer);
	json_t *nm = json_object_get(j, "not_modelled");
	ck_assert_uint_eq(json_array_size(nm), 3);
	ck_assert_str_eq(json_string_value(json_array_get(nm, 1)), "training.ema");
	ck_assert_str_eq(json_string_value(json_object_get(j, "bottleneck")), r.bottleneck);
	json_decref(j);
	free(s);
}
END_TEST

START_TEST(non_finite_is_null)
{
	struct ts_result r = sample();
	r.mfu = NAN;
	r.cost_usd = INFINITY;
	memset(r.name, 'x', sizeof r.name); /* no terminating NUL */
	r.bottleneck[0] = (char)0xff;	    /* not UTF-8 */
	char *s = capture_r(report_result_json, &r);
	ck_assert_ptr_null(strstr(s, "nan"));
	ck_assert_ptr_null(strstr(s, "inf"));
	json_t *j = parse(s);
	ck_assert(json_is_null(json_object_get(j, "mfu")));
	ck_assert(json_is_null(json_object_get(j, "cost_usd")));
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(j, "name"))), sizeof r.name);
	json_decref(j);
	free(s);
	char *row = capture_r(report_result_csv_row, &r);
	ck_assert_ptr_null(strstr(row, "nan"));
	ck_assert_ptr_null(strstr(row, "inf"));
	free(row);
	char *text = capture_r(report_result_text, &r);
	ck_assert_ptr_nonnull(strstr(text, "not finite"));
	free(text);
}
END_TEST

/* Split one CSV line per RFC 4180; returns the field count and the i-th
 * field (unquoted) in *field when want == i. */
static size_t csv_fields(const char *line, size_t want, char *field, size_t n)
{
	size_t count = 0, k = 0;
	const char *p = line;
	for (;;) {
		bool quoted = *p == '"';
		if (quoted)
			p++;
		for (;;) {
			if (quoted && *p == '"' && p[1] == '"') {
				if (count == want && k + 1 < n)
					field[k++] = '"';
				p += 2;
			} else if (quoted && *p == '"') {
				p++;
				break;
			} else if (!quoted && (*p == ',' || *p == '\n' || !*p)) {
				break;
			} else {
				if (count == want && k + 1 < n)
					field[k++] = *p;
				p++;
			}
		}
		count++;
		if (*p != ',')
			break;
		p++;
	}
	if (field && n)
		field[k] = '\0';
	return count;
}

START_TEST(csv_header_and_row_agree)
{
	struct ts_result r = sample();
	char *h = NULL;
	size_t hlen = 0;
	FILE *f = open_memstream(&h, &hlen);
	ck_assert_int_eq(report_result_csv_header(f), 0);
	fclose(f);
	char *row = capture_r(report_result_csv_row, &r);
	char field[600];
	/* the scenario's columns first, then the result's */
	size_t ns = report_csv_scenario_cols(NULL, 0);
	size_t nh = csv_fields(h, 0, field, sizeof field);
	ck_assert_str_eq(field, "model.name");
	csv_fields(h, ns, field, sizeof field);
	ck_assert_str_eq(field, "name");
	size_t nr = csv_fields(row, ns, field, sizeof field);
	ck_assert_str_eq(field, r.name); /* quoted: holds a comma and quotes */
	ck_assert_uint_eq(nh, report_csv_ncols());
	ck_assert_uint_eq(nr, nh);
	/* one line each */
	ck_assert_ptr_eq(strchr(h, '\n'), h + strlen(h) - 1);
	ck_assert_ptr_eq(strchr(row, '\n'), row + strlen(row) - 1);
	/* same names as the JSON keys; values read back exactly */
	for (size_t i = 0; i < nh; i++) {
		char name[128];
		csv_fields(h, i, name, sizeof name);
		csv_fields(row, i, field, sizeof field);
		if (!strcmp(name, "mfu"))
			ck_assert(strtod(field, NULL) == 0.45);
		if (!strcmp(name, "fits"))
			ck_assert_str_eq(field, "false");
		if (!strcmp(name, "memory_breakdown.reserve_bytes"))
			ck_assert(strtod(field, NULL) == r.mem.reserve);
		if (!strcmp(name, "not_modelled"))
			ck_assert_str_eq(field, r.not_modelled);
	}
	for (size_t i = 0; i < sizeof stable_keys / sizeof stable_keys[0]; i++) {
		if (!strcmp(stable_keys[i], "schema_version") ||
		    !strcmp(stable_keys[i], "trainsim_version") ||
		    !strcmp(stable_keys[i], "scenario") ||
		    !strcmp(stable_keys[i], "memory_breakdown"))
			continue;
		bool found = false;
		for (size_t c = 0; c < nh && !found; c++) {
			char name[128];
			csv_fields(h, c, name, sizeof name);
			found = !strcmp(name, stable_keys[i]);
		}
		ck_assert_msg(found, "CSV lacks %s", stable_keys[i]);
	}
	free(h);
	free(row);
}
END_TEST

/* The scenario as nested keys in JSON and as key-path columns in CSV. */
START_TEST(scenario_in_json_and_csv)
{
	struct ts_result r = sample();
	r.steps = 1234.0;
	r.checkpoints = 7.0;
	json_error_t je;
	json_t *sc = json_loads("{\"model\": {\"name\": \"llama2-7b\", \"layers\": 32},"
				" \"cluster\": \"dgx-a100-80gb\", \"nodes\": 2,"
				" \"parallel\": {\"tp\": 4, \"sp\": true},"
				" \"training\": {\"global_batch\": 512, \"tokens\": 2.5e12}}",
				0, &je);
	ck_assert_ptr_nonnull(sc);
	json_t *d = report_result_document(&r, sc);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(json_integer_value(report_json_path(d, "scenario.parallel.tp")), 4);
	ck_assert_str_eq(json_string_value(report_json_path(d, "scenario.model.name")),
			 "llama2-7b");
	ck_assert_int_eq(json_integer_value(json_object_get(d, "checkpoints")), 7);
	json_decref(d);
	char *h = NULL, *row = NULL;
	size_t hlen = 0, rlen = 0;
	FILE *f = open_memstream(&h, &hlen);
	ck_assert_int_eq(report_csv_header(f, NULL, 0), 0);
	fclose(f);
	f = open_memstream(&row, &rlen);
	ck_assert_int_eq(report_csv_row(&r, sc, NULL, 0, f), 0);
	fclose(f);
	size_t nh = csv_fields(h, 0, NULL, 0);
	ck_assert_uint_eq(csv_fields(row, 0, NULL, 0), nh);
	const struct {
		const char *col, *want;
	} want[] = {{"model.name", "llama2-7b"},
		    {"cluster", "dgx-a100-80gb"},
		    {"nodes", "2"},
		    {"parallel.tp", "4"},
		    {"parallel.sp", "true"},
		    {"parallel.pp", ""},
		    {"training.global_batch", "512"},
		    {"training.tokens", "2500000000000"},
		    {"steps", "1234"},
		    {"checkpoints", "7"}};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		bool found = false;
		for (size_t i = 0; i < nh && !found; i++) {
			char name[128], field[128];
			csv_fields(h, i, name, sizeof name);
			if (strcmp(name, want[k].col))
				continue;
			found = true;
			csv_fields(row, i, field, sizeof field);
			ck_assert_msg(!strcmp(field, want[k].want),
				      "%s: found \"%s\", expected \"%s\"", want[k].col, field,
				      want[k].want);
		}
		ck_assert_msg(found, "CSV lacks the column %s", want[k].col);
	}
	free(h);
	free(row);
	/* a sweep leaves its axes' keys out of the scenario columns */
	const char *skip[] = {"nodes", "parallel.tp"};
	ck_assert_uint_eq(report_csv_ncols_skip(skip, 2) + 2, report_csv_ncols());
	json_decref(sc);
}
END_TEST

START_TEST(text_report)
{
	struct ts_result r = sample();
	char *s = capture_r(report_result_text, &r);
	ck_assert_ptr_nonnull(strstr(s, "does NOT fit: needs 93.1 GiB of 79.3 GiB"));
	ck_assert_ptr_nonnull(strstr(s, "2 s"));
	/* compute 1.2 of 2.0 s */
	ck_assert_ptr_nonnull(strstr(s, "compute                 1.2 s   60.0 %\n"));
	ck_assert_ptr_nonnull(strstr(s, "exposed communication  300 ms   15.0 %\n"));
	ck_assert_ptr_nonnull(strstr(s, "iteration                 2 s  100.0 %\n"));
	ck_assert_ptr_null(strstr(s, "unattributed"));
	ck_assert_ptr_nonnull(strstr(s, "MFU             45.0 %\n"));
	free(s);
	/* a causal model: both conventions, trainsim's first */
	r.mfu_palm = 0.52;
	s = capture_r(report_result_text, &r);
	ck_assert_ptr_nonnull(strstr(s, "MFU             45.0 % (causal attention at half; 52.0 % "
					"counted in full, as PaLM and Megatron do)\n"));
	r.mfu_palm = 0.45;
	free(s);
	s = capture_r(report_result_text, &r);
	ck_assert_ptr_nonnull(strstr(s, "256 samples/s, 1.049 M tokens/s"));
	ck_assert_ptr_nonnull(strstr(s, "Whole run"));
	ck_assert_ptr_nonnull(strstr(s, "33.3 min"));
	ck_assert_ptr_nonnull(strstr(s, "bottleneck: compute-bound"));
	ck_assert_ptr_nonnull(strstr(s, "  - parallel.foo\n"));
	free(s);

	r.fits = true;
	r.memory_per_gpu_bytes = 45.1 * 1073741824.0;
	r.steps = 0.0;
	r.other_s = 0.55; /* parts no longer sum to the iteration */
	s = capture_r(report_result_text, &r);
	ck_assert_ptr_null(strstr(s, "NOT fit"));
	ck_assert_ptr_nonnull(strstr(s, "fits: 45.1 GiB of 79.3 GiB"));
	ck_assert_ptr_null(strstr(s, "Whole run"));
	ck_assert_ptr_nonnull(strstr(s, "(unattributed)"));
	free(s);

	/* tight: the memory band reaches capacity, with the headroom (or the
	 * shortfall) and the largest term */
	strcpy(r.memory_verdict, "tight");
	strcpy(r.memory_largest_term, "activations");
	r.memory_error = 0.10;
	r.memory_per_gpu_bytes = 76.3 * 1073741824.0;
	s = capture_r(report_result_text, &r);
	ck_assert_ptr_nonnull(
	    strstr(s, "tight: holds 76.3 GiB of 79.3 GiB, 3.0 GiB headroom, the band reaching "
		      "capacity (the memory model's 10 % error); largest term: activations"));
	free(s);

	/* a band prints beside its figure, the unit once when both bounds
	 * share it: 20.1 s (18.9-22.4, 80 %) */
	r.iteration_time_s = 20.1;
	r.band.iteration_time_s = (struct ts_band){18.9, 20.1, 22.4};
	r.band.memory_per_gpu_bytes =
	    (struct ts_band){70.0 * 1073741824.0, 76.3 * 1073741824.0, 83.0 * 1073741824.0};
	s = capture_r(report_result_text, &r);
	ck_assert_ptr_nonnull(strstr(s, "iteration time  20.1 s (18.9\u2013"
					"22.4, 80 %)"));
	ck_assert_ptr_nonnull(strstr(s, "tight: holds 76.3 GiB (70.0\u2013"
					"83.0, 80 %) of 79.3 GiB"));
	free(s);
	/* short of capacity never reads "tight" (a result holds one verdict);
	 * a band reaching below capacity says it may fit */
	r.band.memory_per_gpu_bytes =
	    (struct ts_band){74.0 * 1073741824.0, 81.3 * 1073741824.0, 89.0 * 1073741824.0};
	r.fits = false;
	r.memory_per_gpu_bytes = 81.3 * 1073741824.0;
	strcpy(r.memory_verdict, "does not fit");
	s = capture_r(report_result_text, &r);
	ck_assert_ptr_nonnull(strstr(s, "does NOT fit: needs 81.3 GiB (74.0\u2013"
					"89.0, 80 %) of 79.3 GiB, 2.0 GiB short (the band reaches "
					"capacity: it may fit, within the memory model's error)"));
	free(s);
	memset(&r.band, 0, sizeof r.band);
	s = capture_r(report_result_text, &r);
	ck_assert_ptr_nonnull(strstr(
	    s,
	    "does NOT fit: needs 81.3 GiB of 79.3 GiB, 2.0 GiB short; largest term: activations"));
	free(s);
}
END_TEST

START_TEST(text_report_noise_and_unmodelled)
{
	struct ts_result r = sample();
	r.compute_s += r.other_s;
	r.other_s = 8.881784197001252e-16; /* what is left after subtracting six parts */
	r.energy_kwh = 0.0;
	r.cost_usd = 0.0;
	char *s = capture_r(report_result_text, &r);
	ck_assert_msg(strstr(s, "other                     0 s    0.0 %\n"), "%s", s);
	ck_assert_ptr_null(strstr(s, "e-16"));
	ck_assert_ptr_null(strstr(s, "e-07"));
	ck_assert_ptr_nonnull(strstr(s, "energy         not modelled\n"));
	ck_assert_ptr_nonnull(strstr(s, "no price given"));
	ck_assert_ptr_null(strstr(s, "unattributed"));
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tu_tcase("core");
	tcase_add_test(tc, huge_numbers_stay_short);
	tcase_add_test(tc, money_and_energy_scaled);
	tcase_add_test(tc, json_has_every_stable_key);
	tcase_add_test(tc, non_finite_is_null);
	tcase_add_test(tc, csv_header_and_row_agree);
	tcase_add_test(tc, scenario_in_json_and_csv);
	tcase_add_test(tc, text_report);
	tcase_add_test(tc, text_report_noise_and_unmodelled);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
