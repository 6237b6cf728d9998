/* The public API (include/trainsim.h): environment, scenario, plan and
 * result. This folder is the one place where a program's calls meet the
 * library's internals; every public function records its failure in a
 * thread-local error for ts_errmsg().
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "io/scenario.h"
#include "plan/env.h"
#include "plan/plan.h"
#include "report/report.h"
#include "report/table.h"
#include "run/result.h"
#include "run/run.h"
#include "sweep/remedy.h"
#include "trace/trace.h"

static _Thread_local struct ts_error last_err;
static _Thread_local char last_msg[1400];

int api_fail(const struct ts_error *e)
{
	last_err = *e;
	if (!last_err.code)
		last_err.code = TS_EINVALID;
	if (!last_err.msg[0] && !last_err.key[0] && !last_err.file[0])
		snprintf(last_err.msg, sizeof last_err.msg, "%s", ts_strerror(last_err.code));
	ts_error_format(&last_err, last_msg, sizeof last_msg);
	return last_err.code;
}

int api_failf(int code, const char *key, const char *fmt, ...)
{
	struct ts_error e;
	ts_error_clear(&e);
	e.code = code;
	if (key)
		snprintf(e.key, sizeof e.key, "%s", key);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof e.msg, fmt, ap);
	va_end(ap);
	return api_fail(&e);
}

int api_table_write(const struct ts_table *t, enum ts_format format, const char *kind, FILE *out)
{
	struct ts_error err;
	ts_error_clear(&err);
	return table_write(t, format, kind, out, &err) ? api_fail(&err) : 0;
}

const char *ts_version(void)
{
	return TS_VERSION;
}

const char *ts_errmsg(void)
{
	return last_msg;
}

int ts_errcode(void)
{
	return last_err.code;
}

int ts_errinfo(const char **file, int *line, const char **key, const char **msg)
{
	if (file)
		*file = last_err.file;
	if (line)
		*line = last_err.line;
	if (key)
		*key = last_err.key;
	if (msg)
		*msg = last_err.msg;
	return last_err.code;
}

int ts_format_parse(const char *name, enum ts_format *out)
{
	static const char *const names[] = {"text", "csv", "json"};
	for (int i = 0; name && i < 3; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum ts_format)i;
			return 0;
		}
	return api_failf(TS_EUSAGE, "--format", "found \"%s\", expected text, csv or json",
			 name ? name : "");
}

int ts_parse_count(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = s && *s ? strtoll(s, &end, 10) : 0;
	bool ok = s && *s && end != s && !errno && !*end;
	if (s && *s && !ok && strspn(s, "0123456789+-.eE") == strlen(s)) {
		/* a whole number written as a float, as libconfig reads 1e2 and
		 * 16.0 in a scenario file and cfg_int takes them */
		errno = 0;
		double d = strtod(s, &end);
		ok = end != s && !*end && !errno && d == floor(d) && d >= (double)lo &&
		     d <= (double)hi;
		v = ok ? (long long)d : 0;
	}
	if (!ok || v < lo || v > hi)
		return api_failf(TS_ERANGE, NULL,
				 "found \"%s\", expected a whole number from %lld to %lld",
				 s ? s : "", lo, hi);
	*out = v;
	return 0;
}

int ts_env_open(const char *root, ts_env **out)
{
	struct ts_error err;
	ts_error_clear(&err);
	return env_open(root, out, &err) ? api_fail(&err) : 0;
}

int ts_env_load_calibration(ts_env *env, const char *path)
{
	struct ts_error err;
	ts_error_clear(&err);
	return env_apply_calib(env, path, &err) ? api_fail(&err) : 0;
}

const char *ts_env_root(const ts_env *env)
{
	return env->root;
}

void ts_env_close(ts_env *env)
{
	env_destroy(env);
}

int ts_scenario_load_file(const ts_env *env, const char *path, const char *const *sets,
			  size_t nsets, ts_scenario **out)
{
	struct ts_error err;
	ts_error_clear(&err);
	*out = NULL;
	if (!path || !*path)
		return api_failf(TS_EUSAGE, NULL, "found %s, expected SCENARIO.cfg",
				 path ? "an empty file name" : "no scenario file");
	return ts_scenario_load(env->cat, path, sets, nsets, out, &err) ? api_fail(&err) : 0;
}

int ts_scenario_write_config(const ts_scenario *sc, FILE *out)
{
	if (ts_scenario_dump(sc, out) || fflush(out))
		return api_failf(TS_EIO, NULL, "writing the scenario failed");
	return 0;
}

int ts_scenario_write_json(const ts_scenario *sc, FILE *out)
{
	if (report_scenario_json(sc, out) || fflush(out))
		return api_failf(TS_EIO, NULL, "writing the scenario failed");
	return 0;
}

void ts_scenario_free(ts_scenario *sc)
{
	ts_scenario_destroy(sc);
}

int ts_plan_build(const ts_env *env, const ts_scenario *sc, ts_plan **out)
{
	struct ts_error err;
	ts_error_clear(&err);
	return plan_build(env, sc, out, &err) ? api_fail(&err) : 0;
}

void ts_plan_free(ts_plan *p)
{
	plan_destroy(p);
}

int ts_plan_simulate(const ts_plan *p, FILE *trace, ts_result **out)
{
	struct ts_error err;
	struct ts_trace *tr = NULL;
	ts_error_clear(&err);
	struct api_result *ar = ts_calloc(1, sizeof *ar);
	*out = ar ? &ar->r : NULL;
	if (ar && !(ar->scenario = report_scenario_tree(p->sc))) {
		ts_free(ar, sizeof *ar);
		*out = NULL;
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	}
	if (ar)
		snprintf(ar->file, sizeof ar->file, "%s", p->sc->file);
	int trc = *out && trace ? trace_open(&tr, trace) : 0;
	if (!*out || trc) {
		ts_result_free(*out);
		*out = NULL;
		return trc == TS_EIO ? api_failf(TS_EIO, "--trace", "writing the trace failed")
				     : api_failf(TS_ENOMEM, NULL, "out of memory");
	}
	int rc = run_plan(p, *out, tr, &err);
	if (rc)
		api_fail(&err);
	else if (tr && (trace_write(tr, trace) || trace_status(tr) || fflush(trace)))
		rc = api_failf(TS_EIO, "--trace", "writing the trace failed");
	trace_destroy(tr);
	if (rc) {
		ts_result_free(*out);
		*out = NULL;
	}
	return rc;
}

int ts_result_find_remedies(const ts_env *env, const char *path, const char *const *sets,
			    size_t nsets, ts_result *r)
{
	struct ts_error err;
	ts_error_clear(&err);
	struct api_result *ar = (struct api_result *)(void *)r;
	if (remedy_find(env, path, sets, nsets, r, &ar->rem, &err))
		return api_fail(&err);
	return 0;
}

void ts_result_free(ts_result *r)
{
	if (!r)
		return;
	struct api_result *ar = (struct api_result *)(void *)r;
	json_decref(ar->scenario);
	ts_free(ar, sizeof *ar);
}

double ts_result_iteration_time_s(const ts_result *r)
{
	return r->iteration_time_s;
}

const char *ts_result_name(const ts_result *r)
{
	return r->name;
}

const char *ts_result_memory_verdict(const ts_result *r)
{
	return r->memory_verdict;
}

const char *ts_result_memory_largest_term(const ts_result *r)
{
	return r->memory_largest_term;
}

int ts_result_get(const ts_result *r, const char *key, double *value)
{
	json_t *o = report_result_document(r, api_result_scenario(r));
	if (!o)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	const json_t *v = o;
	const char *k = key ? key : "";
	char part[160];
	while (v && *k) {
		size_t n = strcspn(k, ".");
		snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1),
			 k);
		v = json_is_object(v) ? json_object_get(v, part) : NULL;
		k += n;
		if (*k == '.')
			k++;
	}
	int rc = 0;
	if (v && json_is_number(v))
		*value = json_number_value(v);
	else if (v && json_is_boolean(v))
		*value = json_is_true(v) ? 1.0 : 0.0;
	else
		rc = api_failf(TS_EUNKNOWN_KEY, key,
			       "found no number under this key, expected a result key of trainsim "
			       "run --format json such as iteration_time_s or tokens_per_s");
	json_decref(o);
	return rc;
}

int ts_result_write(const ts_result *r, enum ts_format format, FILE *out)
{
	int e;
	if (format == TS_FORMAT_JSON)
		e = report_result_json_with(r, api_result_scenario(r), out);
	else if (format == TS_FORMAT_CSV)
		e = report_result_csv_header(out) ||
		    report_csv_row(r, api_result_scenario(r), NULL, 0, out);
	else
		e = report_result_text(r, out);
	if (e || fflush(out))
		return api_failf(e == TS_ENOMEM ? TS_ENOMEM : TS_EIO, NULL,
				 "writing the report failed");
	return 0;
}
