/* ts_search_write, ts_search_run: the fastest or cheapest modelled
 * settings that fit, as a ranked table, CSV or JSON; the winner as a
 * scenario file; a state file to resume an interrupted search.
 * SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "api/api_int.h"
#include "base/alloc.h"
#include "base/cfg.h"
#include "base/ts.h"
#include "base/units.h"
#include "plan/env.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "report/outfile.h"
#include "report/report.h"
#include "run/run.h"
#include "sweep/remedy.h"
#include "report/table.h"
#include "sweep/search.h"
#include "work/ops.h"

static void duration(char *b, size_t n, double s)
{
	if (s < 120.0)
		ts_units_format(s, TS_UNIT_TIME, b, n);
	else if (s < 172800.0)
		ts_units_format_num(b, n, "%.1f h", s / 3600.0);
	else
		ts_units_format_num(b, n, "%.1f days", s / 86400.0);
}

/* The 80 % band of candidate c's score (the p50 of its figure, as search
 * ranks): the band of the figure it ranks by (time to train or iteration
 * time; cost, or iteration time for GPU-seconds), scaled to the score. */
static struct ts_band score_band(const struct search_cand *c, enum search_objective obj)
{
	const struct ts_result *r = &c->res;
	const struct ts_bands *b = &r->band;
	struct ts_band f = obj == SEARCH_COST && r->cost_usd > 0.0	    ? b->cost_usd
			   : obj != SEARCH_COST && r->time_to_train_s > 0.0 ? b->time_to_train_s
									    : b->iteration_time_s;
	double x = c->score;
	if (!(f.p50 > 0.0) || !isfinite(x))
		return (struct ts_band){x, x, x};
	return (struct ts_band){x * f.p10 / f.p50, x, x * f.p90 / f.p50};
}

/* The recompute modes that resolve to c's plan, joined by sep, into buf. */
static const char *recompute_names(const struct search_cand *c, const char *sep, char *buf,
				   size_t n)
{
	buf[0] = '\0';
	for (int m = 0; m < WORK_RECOMPUTE_COUNT_; m++)
		if (c->recompute_equiv & (1u << m))
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? sep : "",
				 work_recompute_name((enum work_recompute)m));
	return buf;
}

/* The ranked table, its counts and why anything was skipped, as text. */
/* When no candidate fits: the scenario as given, simulated, with what
 * would fit it (remedy_find), or NULL when it cannot be run or fits (the
 * search's own limits left nothing). Free with ts_free. */
/* A result and what would fit it. */
struct nofit {
	struct ts_result r;
	struct ts_remedies m;
};

static struct ts_result *nofit_remedies(const ts_env *env, const char *path,
					const char *const *sets, size_t nsets)
{
	struct ts_scenario *sc = NULL;
	struct ts_plan *p = NULL;
	struct ts_error e;
	struct nofit *nf = ts_calloc(1, sizeof *nf);
	bool ok = nf && !ts_scenario_load(env->cat, path, sets, nsets, &sc, &e) &&
		  !plan_build(env, sc, &p, &e) && !run_plan(p, &nf->r, NULL, &e) && !nf->r.fits &&
		  !remedy_find(env, path, sets, nsets, &nf->r, &nf->m, &e);
	plan_destroy(p);
	ts_scenario_destroy(sc);
	if (!ok && nf) {
		ts_free(nf, sizeof *nf);
		nf = NULL;
	}
	return nf ? &nf->r : NULL;
}

static int write_text(const struct search_result *sr, const char *path, enum search_objective obj,
		      size_t top, const struct ts_result *nofit, FILE *out)
{
	struct ts_table *t = NULL;
	enum { NCOL = 15 };
	if (table_create(&t, NCOL))
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	int rc = 0;
	const char *const heads[NCOL] = {
	    "rank",	   "GPUs",	 "nodes",
	    "tp",	   "pp",	 "cp",
	    "dp",	   "ZeRO",	 "schedule",
	    "micro-batch", "recompute",	 "iteration",
	    "MFU",	   "memory/GPU", obj == SEARCH_COST ? "cost" : "time to train"};
	for (size_t k = 0; k < NCOL; k++)
		table_header(t, k, heads[k], k == 8 || k == 10 ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t i = 0; i < sr->ranked && i < top; i++) {
		const struct search_cand *c = &sr->c[i];
		const struct ts_result *r = &c->res;
		char a[64], b[64], lo[64], hi[64], rc_names[64];
		struct ts_band sb = score_band(c, obj);
		table_add_row(t);
		table_cell(t, 0, "%zu", i + 1);
		table_cell(t, 1, "%u", r->gpus);
		table_cell(t, 2, "%u", c->nodes);
		table_cell(t, 3, "%u", c->tp);
		table_cell(t, 4, "%u", c->pp);
		table_cell(t, 5, "%u", c->cp);
		table_cell(t, 6, "%u", c->dp);
		table_cell(t, 7, "%d", c->zero);
		if (c->schedule == TS_SCHED_INTERLEAVED)
			table_cell(t, 8, "interleaved x%u", c->interleave);
		else
			table_cell(t, 8, "%s", c->pp > 1 ? ts_schedule_name(c->schedule) : "-");
		table_cell(t, 9, "%lld", (long long)c->micro_batch);
		table_cell(t, 10, "%s", recompute_names(c, " = ", rc_names, sizeof rc_names));
		table_cell(t, 11, "%s",
			   ts_units_format(r->iteration_time_s, TS_UNIT_TIME, a, sizeof a));
		table_cell(t, 12, "%.1f %%", 100.0 * r->mfu);
		table_cell(t, 13, "%.1f GiB%s", r->memory_per_gpu_bytes / (double)TS_GiB,
			   c->tight ? " tight" : "");
		if (obj == SEARCH_COST) {
			const char *f = r->cost_usd > 0.0 ? "$%.0f" : "%.4g GPU-s/iter";
			ts_units_format_num(b, sizeof b, f, c->score);
			ts_units_format_num(lo, sizeof lo, f, sb.p10);
			ts_units_format_num(hi, sizeof hi, f, sb.p90);
		} else {
			duration(b, sizeof b, c->score);
			duration(lo, sizeof lo, sb.p10);
			duration(hi, sizeof hi, sb.p90);
		}
		if (sb.p10 < sb.p90)
			table_cell(t, 14, "%s (%s\u2013%s)", b, lo, hi);
		else
			table_cell(t, 14, "%s", b);
	}
	fprintf(out,
		"Search of %s by %s (%s, class mode, two iterations; ranked by the p50, the 80 %% "
		"band beside it)\n\n",
		path, obj == SEARCH_COST ? "cost" : "time to train",
		sr->n && sr->c[0].layer_figures ? "layer granularity, stage where it is the same"
						: "stage granularity");
	if (!sr->ranked) {
		fprintf(out,
			"No configuration fits in GPU memory (%zu pruned by the memory estimate, "
			"%zu simulated that did not fit).\n",
			sr->pruned, sr->simulated - sr->failed);
		if (nofit) {
			fprintf(out, "The scenario as given needs %.1f GiB per GPU of %.1f GiB; ",
				nofit->memory_per_gpu_bytes / (double)TS_GiB,
				nofit->memory_capacity_bytes / (double)TS_GiB);
			report_remedies_text(nofit, out);
		}
		fprintf(out, "\n");
	} else if (table_status(t) || table_print(t, out)) {
		rc = api_failf(TS_EIO, NULL, "writing the table failed");
		goto done;
	}
	fprintf(out,
		"\n%zu configurations: %zu pruned by the memory estimate, %zu simulated "
		"(%zu failed, %zu did not fit), %zu ranked",
		sr->n, sr->pruned, sr->simulated, sr->failed,
		sr->simulated - sr->failed - sr->ranked, sr->ranked);
	if (sr->tight)
		fprintf(out,
			" (%zu of them tight: their memory band reaches capacity, "
			"a risk, ranked after those that fit)",
			sr->tight);
	if (sr->bounded)
		fprintf(out,
			"; %zu bounded out (their least possible iteration "
			"cannot enter the top %zu: not simulated)",
			sr->bounded, top);
	if (sr->aliases)
		fprintf(out,
			"; %zu the same plan as another (not simulated; listed in its row, as "
			"\"none = selective\")",
			sr->aliases);
	if (sr->layouts_skipped)
		fprintf(out, "; %zu GPU counts skipped (the scenario does not load with them)",
			sr->layouts_skipped);
	if (sr->degrees_skipped)
		fprintf(out, "; %zu (tp, cp, pp) skipped (dp does not divide the global batch)",
			sr->degrees_skipped);
	fprintf(out, "\n");
	if (sr->resumed)
		fprintf(out,
			"simulated %zu in %.3f s (%zu of them taken from the state file): %.0f "
			"configurations per second\n",
			sr->simulated, sr->seconds, sr->resumed,
			sr->seconds > 0.0 ? (double)(sr->simulated - sr->resumed) / sr->seconds
					  : 0.0);
	else
		fprintf(out, "simulated %zu in %.3f s: %.0f configurations per second\n",
			sr->simulated, sr->seconds,
			sr->seconds > 0.0 ? (double)sr->simulated / sr->seconds : 0.0);
	if (sr->layouts_skipped)
		fprintf(out,
			"(each GPU count is loaded with --set nodes=N gpus_per_node=G "
			"parallel.dp=N*G: a scenario or cluster that fixes them is refused)\n");
	for (size_t i = 0; i < sr->layouts_skipped; i++)
		fprintf(out, "skipped %u GPUs (%u node%s x %u): %s\n", sr->skips[i].gpus,
			sr->skips[i].nodes, sr->skips[i].nodes == 1 ? "" : "s",
			sr->skips[i].gpus_per_node, sr->skips[i].why);
	for (size_t i = 0; i < sr->degrees_skipped; i++) {
		const struct search_skip_degrees *d = &sr->skipped_degrees[i];
		fprintf(out,
			"skipped %u GPUs tp %u cp %u pp %u: dp %u does not divide the global batch "
			"%lld\n",
			d->gpus, d->tp, d->cp, d->pp, d->dp, (long long)sr->global_batch);
	}
	if (ferror(out) || fflush(out))
		rc = api_failf(TS_EIO, NULL, "writing the table failed");
done:
	table_destroy(t);
	return rc;
}

/* ---- CSV and JSON ------------------------------------------------------- */

/* The schedule of c as a scenario names it. */
static const char *sched_of(const struct search_cand *c)
{
	return ts_schedule_name(c->schedule);
}

static int write_csv(const struct search_result *sr, enum search_objective obj, size_t top,
		     FILE *out)
{
	fprintf(out,
		"rank,gpus,nodes,gpus_per_node,tp,pp,cp,dp,zero,schedule,interleave,"
		"micro_batch,recompute,recompute_same_plan,iteration_time_s,mfu,"
		"memory_per_gpu_bytes,memory_verdict,tight,time_to_train_s,cost_usd,%s,%s_p10,"
		"%s_p50,%s_p90\n",
		obj == SEARCH_COST ? "score_cost" : "score_time_s",
		obj == SEARCH_COST ? "score_cost" : "score_time_s",
		obj == SEARCH_COST ? "score_cost" : "score_time_s",
		obj == SEARCH_COST ? "score_cost" : "score_time_s");
	for (size_t i = 0; i < sr->ranked && i < top; i++) {
		const struct search_cand *c = &sr->c[i];
		const struct ts_result *r = &c->res;
		char rc_names[64];
		fprintf(
		    out,
		    "%zu,%u,%u,%u,%u,%u,%u,%u,%d,%s,%u,%lld,%s,%s,%.17g,%.17g,%.17g,%s,%s,%.17g,"
		    "%.17g,%.17g,%.17g,%.17g,%.17g\n",
		    i + 1, r->gpus, c->nodes, c->gpus_per_node, c->tp, c->pp, c->cp, c->dp, c->zero,
		    sched_of(c), c->interleave, (long long)c->micro_batch,
		    work_recompute_name(c->recompute),
		    recompute_names(c, " ", rc_names, sizeof rc_names), r->iteration_time_s, r->mfu,
		    r->memory_per_gpu_bytes, r->memory_verdict, c->tight ? "true" : "false",
		    r->time_to_train_s, r->cost_usd, c->score, score_band(c, obj).p10,
		    score_band(c, obj).p50, score_band(c, obj).p90);
	}
	return ferror(out) || fflush(out) ? api_failf(TS_EIO, NULL, "writing the CSV failed") : 0;
}

/* Set key of o to v (stolen); false when out of memory. */
static bool jset(json_t *o, const char *key, json_t *v)
{
	return o && v && !json_object_set_new(o, key, v);
}

static json_t *cand_json(const struct search_cand *c, size_t rank, enum search_objective obj)
{
	const struct ts_result *r = &c->res;
	struct ts_band sb = score_band(c, obj);
	json_t *o = json_object(), *st = json_object(), *res = json_object(), *same = json_array();
	for (int m = 0; same && m < WORK_RECOMPUTE_COUNT_; m++)
		if (c->recompute_equiv & (1u << m))
			json_array_append_new(
			    same, json_string(work_recompute_name((enum work_recompute)m)));
	bool ok =
	    jset(st, "gpus", json_integer(r->gpus)) && jset(st, "nodes", json_integer(c->nodes)) &&
	    jset(st, "gpus_per_node", json_integer(c->gpus_per_node)) &&
	    jset(st, "tp", json_integer(c->tp)) && jset(st, "pp", json_integer(c->pp)) &&
	    jset(st, "cp", json_integer(c->cp)) && jset(st, "dp", json_integer(c->dp)) &&
	    jset(st, "zero", json_integer(c->zero)) &&
	    jset(st, "schedule", json_string(sched_of(c))) &&
	    jset(st, "interleave", json_integer(c->interleave)) &&
	    jset(st, "micro_batch", json_integer(c->micro_batch)) &&
	    jset(st, "recompute", json_string(work_recompute_name(c->recompute))) &&
	    jset(st, "recompute_same_plan", json_incref(same)) &&
	    jset(res, "iteration_time_s", json_real(r->iteration_time_s)) &&
	    jset(res, "mfu", json_real(r->mfu)) &&
	    jset(res, "samples_per_s", json_real(r->samples_per_s)) &&
	    jset(res, "tokens_per_s", json_real(r->tokens_per_s)) &&
	    jset(res, "memory_per_gpu_bytes", json_real(r->memory_per_gpu_bytes)) &&
	    jset(res, "memory_estimate_bytes", json_real(c->est_bytes)) &&
	    jset(res, "memory_verdict", json_string(r->memory_verdict)) &&
	    jset(res, "tight", json_boolean(c->tight)) &&
	    jset(res, "time_to_train_s", json_real(r->time_to_train_s)) &&
	    jset(res, "cost_usd", json_real(r->cost_usd)) &&
	    jset(res, "score", json_real(c->score)) && jset(res, "score_p10", json_real(sb.p10)) &&
	    jset(res, "score_p50", json_real(sb.p50)) &&
	    jset(res, "score_p90", json_real(sb.p90)) &&
	    jset(res, "iteration_time_s_p10", json_real(r->band.iteration_time_s.p10)) &&
	    jset(res, "iteration_time_s_p50", json_real(r->band.iteration_time_s.p50)) &&
	    jset(res, "iteration_time_s_p90", json_real(r->band.iteration_time_s.p90)) &&
	    jset(o, "rank", json_integer((json_int_t)rank)) &&
	    jset(o, "settings", json_incref(st)) && jset(o, "result", json_incref(res));
	json_decref(same);
	json_decref(st);
	json_decref(res);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int write_json(const struct search_result *sr, const char *path, enum search_objective obj,
		      size_t top, const struct ts_result *nofit, FILE *out)
{
	json_t *root = json_object(), *counts = json_object(), *cands = json_array(),
	       *sk = json_array(), *sd = json_array();
	bool ok = root && counts && cands && sk && sd;
	for (size_t i = 0; ok && i < sr->ranked && i < top; i++)
		ok = !json_array_append_new(cands, cand_json(&sr->c[i], i + 1, obj));
	for (size_t i = 0; ok && i < sr->layouts_skipped; i++) {
		json_t *o = json_object();
		ok = jset(o, "gpus", json_integer(sr->skips[i].gpus)) &&
		     jset(o, "nodes", json_integer(sr->skips[i].nodes)) &&
		     jset(o, "gpus_per_node", json_integer(sr->skips[i].gpus_per_node)) &&
		     jset(o, "reason", json_string(sr->skips[i].why)) &&
		     !json_array_append_new(sk, o);
	}
	for (size_t i = 0; ok && i < sr->degrees_skipped; i++) {
		const struct search_skip_degrees *d = &sr->skipped_degrees[i];
		char why[160];
		snprintf(why, sizeof why, "dp %u does not divide the global batch %lld", d->dp,
			 (long long)sr->global_batch);
		json_t *o = json_object();
		ok = jset(o, "gpus", json_integer(d->gpus)) && jset(o, "tp", json_integer(d->tp)) &&
		     jset(o, "cp", json_integer(d->cp)) && jset(o, "pp", json_integer(d->pp)) &&
		     jset(o, "dp", json_integer(d->dp)) && jset(o, "reason", json_string(why)) &&
		     !json_array_append_new(sd, o);
	}
	ok = ok && jset(counts, "configurations", json_integer((json_int_t)sr->n)) &&
	     jset(counts, "pruned", json_integer((json_int_t)sr->pruned)) &&
	     jset(counts, "simulated", json_integer((json_int_t)sr->simulated)) &&
	     jset(counts, "bounded", json_integer((json_int_t)sr->bounded)) &&
	     jset(counts, "resumed", json_integer((json_int_t)sr->resumed)) &&
	     jset(counts, "failed", json_integer((json_int_t)sr->failed)) &&
	     jset(counts, "did_not_fit",
		  json_integer((json_int_t)(sr->simulated - sr->failed - sr->ranked))) &&
	     jset(counts, "ranked", json_integer((json_int_t)sr->ranked)) &&
	     jset(counts, "tight", json_integer((json_int_t)sr->tight)) &&
	     jset(counts, "aliases", json_integer((json_int_t)sr->aliases)) &&
	     jset(counts, "gpu_counts_skipped", json_integer((json_int_t)sr->layouts_skipped)) &&
	     jset(counts, "degrees_skipped", json_integer((json_int_t)sr->degrees_skipped)) &&
	     jset(root, "schema_version", json_integer(TS_SCHEMA_VERSION)) &&
	     jset(root, "kind", json_string("search")) &&
	     jset(root, "trainsim_version", json_string(ts_version())) &&
	     jset(root, "scenario_file", json_string(path)) &&
	     jset(root, "objective", json_string(obj == SEARCH_COST ? "cost" : "time")) &&
	     jset(root, "global_batch", json_integer(sr->global_batch)) &&
	     jset(root, "counts", json_incref(counts)) &&
	     jset(root, "seconds", json_real(sr->seconds)) &&
	     jset(root, "skipped_gpu_counts", json_incref(sk)) &&
	     jset(root, "skipped_degrees", json_incref(sd)) &&
	     jset(root, "candidates", json_incref(cands));
	if (ok && nofit) { /* nothing fits: what would fit the scenario as given */
		json_t *doc = report_result_to_json(nofit);
		json_t *rem = doc ? json_object_get(doc, "memory_remedies") : NULL;
		ok = doc && rem && jset(root, "memory_remedies", json_incref(rem));
		json_decref(doc);
	}
	bool io = ok && !json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) &&
		  fputc('\n', out) != EOF && !fflush(out);
	json_decref(counts);
	json_decref(cands);
	json_decref(sk);
	json_decref(sd);
	json_decref(root);
	if (!ok)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	return io ? 0 : api_failf(TS_EIO, NULL, "writing the JSON failed");
}

/* ---- the winner as a scenario file -------------------------------------- */

/* Write libconfig setting s (its name when named) at indentation depth, so
 * that it parses back to the same value: floats with 17 digits (libconfig
 * 1.5 writes 6), strings escaped, 64-bit integers with their L. */
static void cfg_write_setting(const config_setting_t *s, int depth, FILE *out)
{
	const char *name = config_setting_name(s);
	fprintf(out, "%*s", 2 * depth, "");
	if (name)
		fprintf(out, "%s = ", name);
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		fprintf(out, "%d", config_setting_get_int(s));
		break;
	case CONFIG_TYPE_INT64:
		fprintf(out, "%lldL", (long long)config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT: {
		double v = config_setting_get_float(s);
		char b[40];
		snprintf(b, sizeof b, "%.17g", v);
		fprintf(out, "%s%s", b, strpbrk(b, ".eEn") ? "" : ".0");
		break;
	}
	case CONFIG_TYPE_BOOL:
		fputs(config_setting_get_bool(s) ? "true" : "false", out);
		break;
	case CONFIG_TYPE_STRING: {
		const char *v = config_setting_get_string(s);
		fputc('"', out);
		for (; v && *v; v++) {
			if (*v == '"' || *v == '\\')
				fprintf(out, "\\%c", *v);
			else if (*v == '\n')
				fputs("\\n", out);
			else if (*v == '\t')
				fputs("\\t", out);
			else
				fputc(*v, out);
		}
		fputc('"', out);
		break;
	}
	default: { /* group, array, list */
		int t = config_setting_type(s);
		const char *open = t == CONFIG_TYPE_GROUP   ? "{"
				   : t == CONFIG_TYPE_ARRAY ? "["
							    : "(";
		const char *close = t == CONFIG_TYPE_GROUP   ? "}"
				    : t == CONFIG_TYPE_ARRAY ? "]"
							     : ")";
		int n = config_setting_length(s);
		fprintf(out, "%s\n", open);
		for (int i = 0; i < n; i++) {
			cfg_write_setting(config_setting_get_elem(s, (unsigned)i), depth + 1, out);
			fputs(t == CONFIG_TYPE_GROUP ? "\n" : i + 1 < n ? ",\n" : "\n", out);
		}
		fprintf(out, "%*s%s", 2 * depth, "", close);
		break;
	}
	}
	if (name)
		fputc(';', out);
}

/* Make the model or cluster file that `key` of cfg names by a relative path
 * (read from the scenario's directory, sim/io/scenario.c) absolute, so that
 * the exported file reads it from anywhere. Returns 0 or TS_ENOMEM. */
static int absolute_file(config_t *cfg, const char *key, const char *scenario, struct ts_error *err)
{
	config_setting_t *v = config_setting_get_member(config_root_setting(cfg), key);
	const char *name =
	    v && config_setting_type(v) == CONFIG_TYPE_STRING ? config_setting_get_string(v) : NULL;
	if (!name)
		return 0;
	bool hf = !strncmp(name, "hf:", 3);
	const char *file = hf ? name + 3 : name;
	size_t n = strlen(file);
	if (file[0] == '/' ||
	    !(hf || strchr(file, '/') || (n > 4 && !strcmp(file + n - 4, ".cfg"))))
		return 0;
	char dir[2048], joined[4096], *abs;
	const char *slash = strrchr(scenario, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - scenario) : 1,
		 slash ? scenario : ".");
	snprintf(joined, sizeof joined, "%s/%s", dir[0] ? dir : "/", file);
	if (!(abs = realpath(joined, NULL)))
		return 0; /* left as it is: the loader says what is missing */
	char arg[4200];
	snprintf(arg, sizeof arg, "%s=\"%s%s\"", key, hf ? "hf:" : "", abs);
	free(abs);
	return cfg_apply_set(cfg, arg, "search", scenario, err);
}

/* Write scenario `path` with `sets` and the settings of candidate c as the
 * search simulated it (its layout, degrees, micro-batch, ZeRO stage,
 * schedule, recompute; two iterations, class mode, stage granularity, or
 * layer where it ran at layer: c->at_layer) to
 * file `dst`. Returns 0, the errors of reading and parsing the scenario,
 * TS_EIO or TS_ENOMEM (recorded). */
int api_search_export(const char *path, const char *const *sets, size_t nsets,
		      const struct search_cand *c, enum search_objective obj, const char *dst)
{
	struct ts_error err;
	ts_error_clear(&err);
	char *text = NULL;
	size_t len = 0;
	config_t cfg;
	config_init(&cfg);
	int rc = cfg_read_text(path, &text, &len, &err);
	if (!rc)
		rc = cfg_parse(&cfg, text, path, &err);
	if (text)
		ts_free(text, len + 1);
	for (size_t i = 0; !rc && i < nsets; i++)
		rc = cfg_apply_set(&cfg, sets[i], "--set", path, &err);
	if (rc) {
		config_destroy(&cfg);
		return api_fail(&err);
	}
	if (!rc)
		rc = absolute_file(&cfg, "model", path, &err);
	if (!rc)
		rc = absolute_file(&cfg, "cluster", path, &err);
	if (rc) {
		config_destroy(&cfg);
		return api_fail(&err);
	}
	/* the scenario's uneven stages hold for its own pipeline only
	 * (search_candidate_run) */
	if (c->pp != 1 || c->interleave != 1) {
		config_setting_t *par =
		    config_setting_get_member(config_root_setting(&cfg), "parallel");
		if (par && config_setting_is_group(par)) {
			config_setting_remove(par, "first_stage_layers");
			config_setting_remove(par, "last_stage_layers");
			config_setting_remove(par, "account_for_embedding");
			config_setting_remove(par, "account_for_loss");
		}
	}
	/* the candidate's recompute mode is on every layer (search_candidate_run) */
	config_setting_t *trn = config_setting_get_member(config_root_setting(&cfg), "training");
	if (trn && config_setting_is_group(trn))
		config_setting_remove(trn, "recompute_interval");
	char a[14][96];
	snprintf(a[0], sizeof a[0], "nodes=%u", c->nodes);
	snprintf(a[1], sizeof a[1], "gpus_per_node=%u", c->gpus_per_node);
	snprintf(a[2], sizeof a[2], "parallel.tp=%u", c->tp);
	snprintf(a[3], sizeof a[3], "parallel.pp=%u", c->pp);
	snprintf(a[4], sizeof a[4], "parallel.cp=%u", c->cp);
	snprintf(a[5], sizeof a[5], "parallel.dp=%u", c->dp);
	snprintf(a[6], sizeof a[6], "parallel.zero=%d", c->zero);
	snprintf(a[7], sizeof a[7], "parallel.schedule=\"%s\"", sched_of(c));
	snprintf(a[8], sizeof a[8], "parallel.interleave=%u", c->interleave);
	snprintf(a[9], sizeof a[9], "training.micro_batch=%lld", (long long)c->micro_batch);
	snprintf(a[10], sizeof a[10], "training.recompute=\"%s\"",
		 work_recompute_name(c->recompute));
	snprintf(a[11], sizeof a[11], "training.iterations=2");
	snprintf(a[12], sizeof a[12], "sim.granularity=\"%s\"", c->at_layer ? "layer" : "stage");
	snprintf(a[13], sizeof a[13], "sim.mode=\"class\"");
	for (size_t i = 0; !rc && i < 14; i++)
		rc = cfg_apply_set(&cfg, a[i], "search", path, &err);
	/* the name says what it is; it changes no figure */
	const config_setting_t *nm = config_setting_get_member(config_root_setting(&cfg), "name");
	const char *old = nm ? config_setting_get_string(nm) : NULL;
	char name[512], arg[600];
	snprintf(name, sizeof name,
		 "%s%sbest of trainsim search: %u GPUs, tp %u, pp %u, cp %u, dp %u", old ? old : "",
		 old ? ", " : "", c->res.gpus, c->tp, c->pp, c->cp, c->dp);
	for (char *q = name; *q; q++)
		if (*q == '"' || *q == '\\')
			*q = '\'';
	snprintf(arg, sizeof arg, "name=\"%s\"", name);
	if (!rc)
		rc = cfg_apply_set(&cfg, arg, "search", path, &err);
	if (rc) {
		config_destroy(&cfg);
		return api_fail(&err);
	}
	FILE *f = fopen(dst, "w");
	if (!f) {
		config_destroy(&cfg);
		return api_failf(TS_EIO, "--export-best", "%s: cannot be written (%s)", dst,
				 strerror(errno));
	}
	char rc_names[64];
	fprintf(
	    f,
	    "# The best settings trainsim search found for %s (by %s):\n"
	    "# %u GPUs (%u x %u), tp %u, pp %u, cp %u, dp %u, ZeRO %d, %s%s, micro-batch %lld,\n"
	    "# recompute %s (the same plan: %s); iteration %.10g s, memory per GPU %.10g bytes.\n"
	    "# Simulated as the search did (two iterations, class mode, %s granularity),\n"
	    "# so that `trainsim run` on this file gives the same figures; drop the sim\n"
	    "# group and training.iterations for a finer run. Relative paths are read\n"
	    "# from this file's directory.\n",
	    path, obj == SEARCH_COST ? "cost" : "time to train", c->res.gpus, c->nodes,
	    c->gpus_per_node, c->tp, c->pp, c->cp, c->dp, c->zero, sched_of(c),
	    c->schedule == TS_SCHED_INTERLEAVED ? " x2" : "", (long long)c->micro_batch,
	    work_recompute_name(c->recompute), recompute_names(c, ", ", rc_names, sizeof rc_names),
	    c->res.iteration_time_s, c->res.memory_per_gpu_bytes, c->at_layer ? "layer" : "stage");
	for (const char *const *x = sets; x < sets + nsets; x++)
		fprintf(f, "# with --set %s\n", *x);
	const config_setting_t *root = config_root_setting(&cfg);
	for (int i = 0; i < config_setting_length(root); i++) {
		cfg_write_setting(config_setting_get_elem(root, (unsigned)i), 0, f);
		fputc('\n', f);
	}
	config_destroy(&cfg);
	if (ferror(f) | fclose(f))
		return api_failf(TS_EIO, "--export-best", "%s: writing failed", dst);
	return 0;
}

/* ---- the state file of --resume ----------------------------------------- */

/* The digest of what a search's results depend on: the scenario file's
 * bytes, the --set arguments, the resolved scenario (--dump-config: the
 * model and cluster files it names), the compute constants, the objective,
 * the GPU limit and the trainsim version. Returns 0 or the scenario's error
 * (recorded). */
static int search_digest(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
			 enum search_objective obj, uint32_t max_gpus, bool layer_figures,
			 uint64_t *d)
{
	struct ts_error err;
	ts_error_clear(&err);
	uint64_t h = HASH_FNV1A_BASIS;
	char *text = NULL, *dump = NULL;
	size_t len = 0, dlen = 0;
	struct ts_scenario *sc = NULL;
	int rc = cfg_read_text(path, &text, &len, &err);
	if (rc)
		return api_fail(&err);
	h = hash_fnv1a(h, text, len);
	ts_free(text, len + 1);
	for (size_t i = 0; i < nsets; i++)
		h = hash_fnv1a(h, sets[i], strlen(sets[i]) + 1);
	if ((rc = ts_scenario_load(env->cat, path, sets, nsets, &sc, &err)))
		return api_fail(&err);
	rc = ts_scenario_dump_text(sc, &dump, &dlen);
	ts_scenario_destroy(sc);
	if (rc)
		return api_failf(rc, NULL, "out of memory");
	h = hash_fnv1a(h, dump, dlen);
	free(dump);
	h = hash_fnv1a(h, &env->calib, sizeof env->calib);
	uint32_t o = (uint32_t)obj;
	h = hash_fnv1a(h, &o, sizeof o);
	h = hash_fnv1a(h, &max_gpus, sizeof max_gpus);
	h = hash_fnv1a(h, ts_version(), strlen(ts_version()));
	uint64_t rs = sizeof(struct ts_result); /* the state holds its bytes */
	h = hash_fnv1a(h, &rs, sizeof rs);
	h = hash_fnv1a(h, "search state 1", 14);
	if (layer_figures) /* a stage search's digest as before */
		h = hash_fnv1a(h, "layer figures", 13);
	*d = h;
	return 0;
}

/* One candidate's result as the state file keeps it. */
struct state_entry {
	uint32_t key[10]; /* nodes, gpus/node, tp, pp, cp, dp, zero, schedule, interleave,
			   * recompute */
	int64_t mb;	  /* micro-batch */
	int rc;		  /* status */
	struct ts_result res;
};

/* What the hooks of a search with a state file share. */
struct state {
	struct outfile *of;    /* the state file, appended to */
	FILE *f;	       /* its stream */
	struct state_entry *e; /* results of the earlier run (resume) */
	size_t n, cap;
	ts_progress_fn progress;
	void *user;
	bool write_failed;
	int write_errno; /* errno of the failed write */
};

static void key_of(const struct search_cand *c, uint32_t k[10], int64_t *mb)
{
	uint32_t v[10] = {c->nodes,
			  c->gpus_per_node,
			  c->tp,
			  c->pp,
			  c->cp,
			  c->dp,
			  (uint32_t)c->zero,
			  (uint32_t)c->schedule,
			  c->interleave,
			  (uint32_t)c->recompute};
	memcpy(k, v, sizeof v);
	*mb = c->micro_batch;
}

static bool st_known(void *user, const struct search_cand *c, struct ts_result *res, int *rc)
{
	struct state *st = user;
	uint32_t k[10];
	int64_t mb;
	key_of(c, k, &mb);
	for (size_t i = 0; i < st->n; i++)
		if (st->e[i].mb == mb && !memcmp(st->e[i].key, k, sizeof k)) {
			*res = st->e[i].res;
			*rc = st->e[i].rc;
			return true;
		}
	return false;
}

/* One line per candidate: its key, status and result's bytes in hex (the
 * digest holds the version, so the layout of ts_result is that of this
 * build), so that a resumed search ranks bit for bit as an uninterrupted one. */
static void state_write(FILE *f, const uint32_t k[10], int64_t mb, int rc,
			const struct ts_result *res)
{
	for (int i = 0; i < 10; i++)
		fprintf(f, "%" PRIu32 " ", k[i]);
	fprintf(f, "%lld %d ", (long long)mb, rc);
	const unsigned char *b = (const unsigned char *)res;
	for (size_t i = 0; i < sizeof *res; i++)
		fprintf(f, "%02x", b[i]);
	fputc('\n', f);
}

static void st_done(void *user, const struct search_cand *c, int rc, const struct ts_result *res)
{
	struct state *st = user;
	uint32_t k[10];
	int64_t mb;
	key_of(c, k, &mb);
	state_write(st->f, k, mb, rc, res);
	if (!st->write_failed && (ferror(st->f) || fflush(st->f))) {
		st->write_failed = true;
		st->write_errno = errno;
	}
}

static void st_progress(void *user, size_t done, size_t total, double elapsed_s)
{
	struct state *st = user;
	if (st->progress)
		st->progress(st->user, done, total, elapsed_s);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Read state file `sp` of a search whose digest is d into st; a file that
 * does not exist is an empty state; a last line cut short (the search was
 * stopped while writing it) is dropped. Returns 0, TS_EINVALID (the file is
 * another search's, or its inputs changed), TS_EIO or TS_ENOMEM (recorded). */
static int state_read(const char *sp, uint64_t d, struct state *st)
{
	FILE *f = fopen(sp, "r");
	if (!f)
		return errno == ENOENT ? 0
				       : api_failf(TS_EIO, "--resume", "%s: cannot be read (%s)",
						   sp, strerror(errno));
	size_t cap = 0, hexlen = 2 * sizeof(struct ts_result);
	char *line = NULL;
	ssize_t got;
	int rc = 0;
	unsigned long long fd = 0;
	if ((got = getline(&line, &cap, f)) < 0 ||
	    sscanf(line, "# trainsim search state, digest %16llx", &fd) != 1) {
		rc = api_failf(TS_EINVALID, "--resume",
			       "%s: found no digest line, expected a trainsim search state file "
			       "(remove it, or search without --resume)",
			       sp);
		goto out;
	}
	if ((uint64_t)fd != d) {
		rc = api_failf(
		    TS_EINVALID, "--resume",
		    "%s: found the state of a search with other inputs (digest %016llx, "
		    "expected %016llx: the scenario, a --set, the model or cluster files, "
		    "the calibration, --objective, --max-gpus or the trainsim version "
		    "changed); search without --resume to start over",
		    sp, fd, (unsigned long long)d);
		goto out;
	}
	while ((got = getline(&line, &cap, f)) > 0) {
		if (line[got - 1] != '\n')
			break; /* cut short */
		struct state_entry e;
		long long mb;
		int n = 0, pos = 0;
		for (int i = 0; i < 10; i++, n += pos) {
			if (sscanf(line + n, "%" SCNu32 " %n", &e.key[i], &pos) != 1)
				goto bad;
		}
		if (sscanf(line + n, "%lld %d %n", &mb, &e.rc, &pos) != 2)
			goto bad;
		n += pos;
		e.mb = mb;
		if ((size_t)(got - 1 - n) != hexlen)
			goto bad;
		unsigned char *b = (unsigned char *)&e.res;
		for (size_t i = 0; i < sizeof e.res; i++) {
			int hi = hexval(line[n + 2 * i]), lo = hexval(line[n + 2 * i + 1]);
			if (hi < 0 || lo < 0)
				goto bad;
			b[i] = (unsigned char)(hi << 4 | lo);
		}
		if (ts_grow((void **)&st->e, &st->cap, st->n + 1, sizeof *st->e)) {
			rc = api_failf(TS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		st->e[st->n++] = e;
		continue;
	bad:
		rc = api_failf(TS_EINVALID, "--resume",
			       "%s:%zu: found a line that is not a candidate's result, expected "
			       "what trainsim search writes (remove the file to start over)",
			       sp, st->n + 2);
		goto out;
	}
out:
	free(line);
	fclose(f);
	return rc;
}

/* ---- the entry points --------------------------------------------------- */

int ts_search_run(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
		  const ts_search_opts *o, FILE *out)
{
	struct search_result sr;
	struct ts_error err;
	ts_error_clear(&err);
	if (!path || !*path)
		return api_failf(TS_EUSAGE, NULL, "found %s, expected SCENARIO.cfg",
				 path ? "an empty file name" : "no scenario file");
	if (o->resume && !o->state)
		return api_failf(TS_EUSAGE, "--resume", "found no state file, expected one");
	if (o->format != TS_FORMAT_TEXT && o->format != TS_FORMAT_CSV &&
	    o->format != TS_FORMAT_JSON)
		return api_failf(TS_EUSAGE, "--format",
				 "found format %d, expected text, csv or json", (int)o->format);
	enum search_objective obj = o->objective == TS_OBJECTIVE_COST ? SEARCH_COST : SEARCH_TIME;
	struct state st = {.progress = o->progress, .user = o->user};
	struct search_hooks h = {.progress = st_progress, .user = &st};
	int rc = 0;
	if (o->state) {
		uint64_t d = 0;
		if ((rc = search_digest(env, path, sets, nsets, obj, o->max_gpus, o->layer_figures,
					&d)))
			return rc;
		if (o->resume && (rc = state_read(o->state, d, &st)))
			goto out;
		/* written anew: the digest, then the results kept (a last line cut
		 * short is dropped), into a temporary file put in place once whole
		 * (a failed write leaves the old state, or none, never an empty
		 * file), then those simulated now appended */
		if (outfile_open(o->state, "-o OUT.state", &st.of, &err)) {
			rc = api_fail(&err);
			goto out;
		}
		st.f = outfile_stream(st.of);
		fprintf(st.f, "# trainsim search state, digest %016llx\n", (unsigned long long)d);
		for (size_t i = 0; i < st.n; i++)
			state_write(st.f, st.e[i].key, st.e[i].mb, st.e[i].rc, &st.e[i].res);
		if (outfile_publish(st.of, &err)) {
			rc = api_fail(&err);
			goto out;
		}
		h.known = st_known;
		h.done = st_done;
	}
	const struct search_opts so = {.obj = obj,
				       .max_gpus = o->max_gpus,
				       .threads = o->threads,
				       .top = o->top ? o->top : 10,
				       .layer_figures = o->layer_figures};
	if (search_run_opts(env, path, sets, nsets, &so, &h, &sr, &err)) {
		rc = api_fail(&err);
		goto out;
	}
	if (st.write_failed) {
		outfile_write_error(st.of, st.write_errno, &err);
		rc = api_fail(&err);
	}
	if (!rc && o->export_best) {
		if (!sr.ranked)
			rc = api_failf(TS_EINVALID, "--export-best",
				       "found no candidate that fits, expected one to export to %s",
				       o->export_best);
		else
			rc = api_search_export(path, sets, nsets, &sr.c[0], obj, o->export_best);
	}
	if (!rc) {
		size_t top = o->top ? o->top : 10;
		struct ts_result *nofit = sr.ranked || o->format == TS_FORMAT_CSV
					      ? NULL
					      : nofit_remedies(env, path, sets, nsets);
		rc = o->format == TS_FORMAT_CSV	   ? write_csv(&sr, obj, top, out)
		     : o->format == TS_FORMAT_JSON ? write_json(&sr, path, obj, top, nofit, out)
						   : write_text(&sr, path, obj, top, nofit, out);
		if (nofit) /* the first member of its struct nofit */
			ts_free(nofit, sizeof(struct nofit));
	}
	search_result_free(&sr);
out:
	if (!rc) {
		if (outfile_commit(st.of, &err)) /* NULL: no state file, 0 */
			rc = api_fail(&err);
	} else {
		outfile_abort(st.of); /* once in place, kept as it stands, to resume */
	}
	ts_free(st.e, st.cap * sizeof *st.e);
	return rc;
}

int ts_search_write(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
		    enum ts_objective objective, uint32_t max_gpus, int threads, size_t top,
		    FILE *out)
{
	ts_search_opts o = {.objective = objective,
			    .max_gpus = max_gpus,
			    .threads = threads,
			    .top = top,
			    .format = TS_FORMAT_TEXT};
	return ts_search_run(env, path, sets, nsets, &o, out);
}
