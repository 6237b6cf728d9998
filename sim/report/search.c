/* The writers of trainsim search: the ranked candidates that
 * sim/sweep/search simulated as a table for people, CSV or JSON, and the
 * best one as a scenario file.
 * SPDX-License-Identifier: MIT */
#include <jansson.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/ts.h"
#include "base/units.h"
#include "report/report.h"
#include "report/search.h"
#include "report/table.h"
#include "work/ops.h"

/* A time to train as search prints it: seconds below two minutes, then
 * hours, then days. */
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
static int write_text(const struct search_result *sr, const char *path, enum search_objective obj,
		      size_t top, const struct ts_result *nofit, FILE *out, struct ts_error *err)
{
	struct ts_table *t = NULL;
	enum { NCOL = 15 };
	if (table_create(&t, NCOL))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
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
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the table failed");
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
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the table failed");
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
		     FILE *out, struct ts_error *err)
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
	return ferror(out) || fflush(out)
		   ? ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the CSV failed")
		   : 0;
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
		      size_t top, const struct ts_result *nofit, FILE *out, struct ts_error *err)
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
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	return io ? 0 : ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the JSON failed");
}

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

int report_search_write(const struct search_result *sr, const char *path, enum search_objective obj,
			size_t top, const struct ts_result *nofit, enum ts_format format, FILE *out,
			struct ts_error *err)
{
	return format == TS_FORMAT_CSV	  ? write_csv(sr, obj, top, out, err)
	       : format == TS_FORMAT_JSON ? write_json(sr, path, obj, top, nofit, out, err)
					  : write_text(sr, path, obj, top, nofit, out, err);
}

int report_search_scenario(const char *path, const char *const *sets, size_t nsets,
			   const struct search_cand *c, enum search_objective obj,
			   const config_t *cfg, FILE *f)
{
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
	const config_setting_t *root = config_root_setting(cfg);
	for (int i = 0; i < config_setting_length(root); i++) {
		cfg_write_setting(config_setting_get_elem(root, (unsigned)i), 0, f);
		fputc('\n', f);
	}
	return ferror(f) ? TS_EIO : 0;
}
