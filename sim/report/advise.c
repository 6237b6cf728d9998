/* The writers of trainsim advise: the answer for people (recommendations,
 * frontier, options, the buyer's checks by node type), CSV and JSON, from
 * the options sim/sweep/advise evaluated.
 * SPDX-License-Identifier: MIT */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/csv.h"
#include "base/err.h"
#include "report/advise.h"
#include "work/compute.h"

/* Rack power above which air cooling is not what most sites have: "most
 * operators have no racks above 20 kW" (Uptime Institute, Global Data
 * Center Survey 2023; hardware notes E1), W. A rack beyond it needs rear-door
 * or direct liquid cooling; NVIDIA's GB200 NVL72 rack draws about 120 kW and
 * is liquid-cooled (hardware notes X7). */
#define AIR_RACK_W 20000.0

/* Host memory per node against the GPUs' memory: at least as much RAM as
 * GPU memory (T. Dettmers, "Which GPU(s) to get for deep learning", 2023,
 * section "RAM"; NVIDIA's DGX systems ship 2 to 3 times their GPU memory). */
#define RAM_PER_GPU_MEMORY 1.0

const char *report_advise_mode_name(int m)
{
	return m == ADVISE_BUY ? "buy" : "rent";
}

static void size_str(char *b, size_t n, double bytes)
{
	if (bytes >= 1e12)
		snprintf(b, n, "%.1f TB", bytes / 1e12);
	else
		snprintf(b, n, "%.0f GB", bytes / 1e9);
}

static void option_label(const struct advise_result *ar, const struct advise_option *o, char *b,
			 size_t n)
{
	snprintf(b, n, "%u x %s, %s", o->nodes, ar->cat.t[o->type].name,
		 report_advise_mode_name(o->mode));
}

static void layout_str(const struct search_cand *c, char *b, size_t n)
{
	snprintf(b, n, "tp %u, pp %u, cp %u, dp %u, ZeRO %d, %s, micro-batch %lld, recompute %s",
		 c->tp, c->pp, c->cp, c->dp, c->zero,
		 c->schedule == TS_SCHED_INTERLEAVED ? "interleaved x2" : "1f1b",
		 (long long)c->micro_batch, work_recompute_name(c->recompute));
}

/* The file an option's scenario is exported to, under dir. */
void report_advise_export_name(const struct advise_result *ar, const struct advise_option *o,
			       const char *dir, char *b, size_t n)
{
	snprintf(b, n, "%s%s%s-%un-%s.cfg", dir ? dir : "", dir ? "/" : "", ar->cat.t[o->type].name,
		 o->nodes, report_advise_mode_name(o->mode));
}

bool report_advise_exported(const struct advise_result *ar, size_t i)
{
	return ar->o[i].evaluated && (ar->o[i].frontier || i == ar->cheapest || i == ar->fastest ||
				      i == ar->cheapest_mode[0] || i == ar->cheapest_mode[1]);
}

/* ---- checks -------------------------------------------------------------- */

/* The buyer's checks of node type ti, one line each, into lines (up to 6
 * of n bytes); returns how many. */
static size_t checks(const struct advise_result *ar, const struct advise_ask *a, size_t ti,
		     char lines[][400], size_t n)
{
	const struct advise_node_type *t = &ar->cat.t[ti];
	size_t k = 0;
	char x[32], y[32];
	(void)n; /* at most five lines */
	/* the GPUs' memory from any evaluated option of the type */
	double gpu_mem = 0.0;
	for (size_t i = 0; i < ar->n; i++)
		if (ar->o[i].type == ti && ar->o[i].evaluated)
			gpu_mem = ar->o[i].cand.res.memory_capacity_bytes;
	double lc = ar->loader_cores_per_gpu * (double)t->gpus_per_node;
	snprintf(lines[k++], sizeof lines[0],
		 "CPU: the loader's %.0f workers per GPU x %u GPU%s need %.0f cores per node, the "
		 "node has %.0f (%.1f per GPU)%s",
		 ar->loader_cores_per_gpu, t->gpus_per_node, t->gpus_per_node == 1 ? "" : "s", lc,
		 t->host_cores, t->host_cores / (double)(t->gpus_per_node ? t->gpus_per_node : 1),
		 lc > t->host_cores ? ": binds, too few cores" : ": ok");
	if (gpu_mem > 0.0) {
		double need = RAM_PER_GPU_MEMORY * gpu_mem * (double)t->gpus_per_node;
		size_str(x, sizeof x, t->host_ram_bytes);
		size_str(y, sizeof y, need);
		snprintf(lines[k++], sizeof lines[0],
			 "host RAM: %s per node for %s of GPU memory (at least as much RAM as GPU "
			 "memory, Dettmers 2023): %s",
			 x, y,
			 t->host_ram_bytes >= need ? "ok"
						   : "binds, add RAM (offload and "
						     "page cache need it)");
	}
	size_str(x, sizeof x, ar->dataset_bytes);
	size_str(y, sizeof y, t->nvme_bytes);
	snprintf(lines[k++], sizeof lines[0],
		 "storage: the dataset's %s %s the node's %s of local NVMe%s", x,
		 ar->dataset_bytes <= t->nvme_bytes ? "fits in" : "does not fit in", y,
		 ar->dataset_bytes <= t->nvme_bytes
		     ? " (a copy per node, no shared file system needed)"
		     : ": binds, a shared file system must serve it (data.storage)");
	double node = t->node_power_w + t->psu_redundant_w;
	if (a->power_w > 0.0 && a->per_rack) {
		double per = floor(a->power_w / node);
		snprintf(
		    lines[k++], sizeof lines[0],
		    "power: %.1f kW per node, %.0f per %.1f kW rack%s; above %.0f kW a rack "
		    "needs liquid or rear-door cooling (Uptime Institute 2023: most sites have "
		    "no rack above it)",
		    node / 1e3, per, a->power_w / 1e3,
		    per < 1.0 ? ": binds, a node exceeds the rack" : "", AIR_RACK_W / 1e3);
	} else if (a->power_w > 0.0) {
		snprintf(lines[k++], sizeof lines[0],
			 "power: %.1f kW per node x PUE %.2f, at most %.0f nodes in the %.1f kW "
			 "facility",
			 node / 1e3, ar->cat.pue, floor(a->power_w / (node * ar->cat.pue)),
			 a->power_w / 1e3);
	} else {
		snprintf(lines[k++], sizeof lines[0],
			 "power: %.1f kW per node, %.0f per %.0f kW air-cooled rack (Uptime "
			 "Institute 2023: most sites have no rack above it; beyond, liquid or "
			 "rear-door cooling); shipped %s-cooled",
			 node / 1e3, floor(AIR_RACK_W / node), AIR_RACK_W / 1e3, t->cooling);
	}
	if (t->psu_count)
		snprintf(lines[k++], sizeof lines[0],
			 "supplies: %u x %.1f kW, %u redundant: %.1f kW carry the %.1f kW node%s",
			 t->psu_count, t->psu_rating_w / 1e3, t->psu_redundant,
			 (double)(t->psu_count - t->psu_redundant) * t->psu_rating_w / 1e3,
			 t->node_power_w / 1e3,
			 t->psu_redundant_w > 0.0 || t->psu_redundant_usd > 0.0
			     ? ", their standby draw and price counted"
			     : " (draw and price in the node's figures)");
	return k;
}

/* ---- text ----------------------------------------------------------------- */

static void write_option_block(const struct advise_result *ar, size_t i, const char *dir, FILE *out)
{
	const struct advise_option *o = &ar->o[i];
	const struct ts_result *r = &o->cand.res;
	char lab[200], a[32], b[32], c[32], d[32], e[32], f[32], lay[200];
	option_label(ar, o, lab, sizeof lab);
	advise_duration(a, sizeof a, o->time_s);
	advise_duration(b, sizeof b, o->time_lo_s);
	advise_duration(c, sizeof c, o->time_hi_s);
	advise_money(d, sizeof d, o->cost_usd);
	advise_money(e, sizeof e, o->cost_lo_usd);
	advise_money(f, sizeof f, o->cost_hi_usd);
	fprintf(out, "  %s: %u x %s (%s)\n", lab, o->gpus, ar->cat.t[o->type].gpu,
		ar->cat.t[o->type].interconnect);
	fprintf(out, "    %s (band %s to %s), %s (band %s to %s), %.0f MWh", a, b, c, d, e, f,
		o->energy_kwh / 1e3);
	if (o->mode == ADVISE_BUY) {
		advise_money(a, sizeof a, o->capital_usd);
		advise_money(b, sizeof b, o->outlay_usd);
		fprintf(out, "; purchase %s, spent by the end of the run %s", a, b);
	}
	fputc('\n', out);
	layout_str(&o->cand, lay, sizeof lay);
	fprintf(out, "    layout: %s\n", lay);
	fprintf(out, "    memory: %s, %.1f GiB per GPU (%.1f GiB headroom)\n", r->memory_verdict,
		r->memory_per_gpu_bytes / 1073741824.0, r->memory_headroom_gib);
	fprintf(out, "    bottleneck: %s\n", r->bottleneck);
	fprintf(out, "    why: %s\n", o->why);
	if (o->risk[0])
		fprintf(out, "    deadline: %s\n", o->risk);
	if (dir) {
		char p[1200];
		report_advise_export_name(ar, o, dir, p, sizeof p);
		fprintf(out, "    scenario: %s\n", p);
	}
}

/* Drop the unit of band end e when it is that of the figure x ("101.0
 * days" beside "118.8 days" is "101.0"). */
static void same_unit(const char *x, char *e)
{
	const char *ux = strchr(x, ' '), *ue = strchr(e, ' ');
	if (ux && ue && !strcmp(ux, ue))
		*(char *)ue = '\0';
}

static void write_text(const struct advise_result *ar, const struct advise_ask *a, const char *path,
		       const char *catalog, const char *dir, FILE *out)
{
	char x[32], y[32], lab[200];
	char sn[4 * sizeof ar->scenario_name]; /* from an input: control characters escaped */
	ts_escape_ctl(sn, sizeof sn, ar->scenario_name, sizeof ar->scenario_name);
	fprintf(out, "Advice for %s (%s)\n", path, sn);
	fprintf(out, "asked: ");
	if (a->deadline_s > 0.0) {
		advise_duration(x, sizeof x, a->deadline_s);
		fprintf(out, "deadline %s, ", x);
	}
	if (a->budget_usd > 0.0) {
		advise_money(x, sizeof x, a->budget_usd);
		fprintf(out, "budget %s, ", x);
	}
	if (a->power_w > 0.0)
		fprintf(out, "power %.1f kW per %s, ", a->power_w / 1e3,
			a->per_rack ? "rack" : "facility");
	if (a->max_gpus)
		fprintf(out, "at most %u GPU%s, ", a->max_gpus, a->max_gpus == 1 ? "" : "s");
	fprintf(out, "%s\n",
		a->mode == ADVISE_RENT	? "rent"
		: a->mode == ADVISE_BUY ? "buy"
					: "rent or buy");
	size_t nev = 0;
	for (size_t i = 0; i < ar->n; i++)
		nev += ar->o[i].evaluated;
	fprintf(out,
		"catalog: %s, %zu node type%s, %zu option%s (%zu simulated with a layout that "
		"fits)\n",
		catalog, ar->cat.n, ar->cat.n == 1 ? "" : "s", ar->n, ar->n == 1 ? "" : "s", nev);
	fprintf(out, "layouts: %s\n\n",
		a->full_search ? "searched at every option's size"
			       : "each node type searched at one size, its best layouts carried "
				 "to every node count (--full-search: each option searched)");
	for (int m = 0; m < 2; m++) {
		if (!(a->mode & (m ? ADVISE_BUY : ADVISE_RENT)))
			continue;
		fprintf(out, "Cheapest option to %s%s:\n", m ? "buy" : "rent",
			a->deadline_s > 0.0 ? " within the deadline" : "");
		if (ar->cheapest_mode[m] < ar->n)
			write_option_block(ar, ar->cheapest_mode[m], dir, out);
		else
			fprintf(out, "  none meets every constraint (see the options below)\n");
	}
	fprintf(out, "Fastest option%s:\n", a->budget_usd > 0.0 ? " within the budget" : "");
	if (ar->fastest < ar->n)
		write_option_block(ar, ar->fastest, dir, out);
	else
		fprintf(out, "  none meets every constraint (see the options below)\n");
	fprintf(out, "\nTime-versus-cost frontier %s:\n",
		ar->frontier_feasible
		    ? "of the options that meet every constraint (no other of them both as fast "
		      "and as cheap)"
		    : "of all options, as none meets every constraint (no other both as fast and "
		      "as cheap)");
	for (size_t i = 0; i < ar->n; i++) {
		const struct advise_option *o = &ar->o[i];
		if (!o->frontier)
			continue;
		option_label(ar, o, lab, sizeof lab);
		advise_duration(x, sizeof x, o->time_s);
		advise_money(y, sizeof y, o->cost_usd);
		fprintf(out, "  %-32s %5u GPUs  %10s  %8s%s\n", lab, o->gpus, x, y,
			o->fails[0] ? "  (misses a constraint)" : "");
	}
	fprintf(out, "\nOptions (time to train and cost with their bands; * on the frontier):\n");
	fprintf(out, "  %-32s %5s %22s %26s  %s\n", "option", "GPUs", "time to train (band)",
		"cost (band)", "why, or the constraints missed");
	for (size_t i = 0; i < ar->n; i++) {
		const struct advise_option *o = &ar->o[i];
		option_label(ar, o, lab, sizeof lab);
		if (!o->evaluated) {
			fprintf(out, "%c %-32s %5u %22s %26s  misses: %s\n", ' ', lab, o->gpus, "-",
				"-", o->fails);
			continue;
		}
		char t0[32], t1[32], c0[32], c1[32], tb[128], cb[128];
		advise_duration(x, sizeof x, o->time_s);
		advise_duration(t0, sizeof t0, o->time_lo_s);
		advise_duration(t1, sizeof t1, o->time_hi_s);
		same_unit(x, t0);
		same_unit(x, t1);
		snprintf(tb, sizeof tb, "%s (%s-%s)", x, t0, t1);
		advise_money(y, sizeof y, o->cost_usd);
		advise_money(c0, sizeof c0, o->cost_lo_usd);
		advise_money(c1, sizeof c1, o->cost_hi_usd);
		snprintf(cb, sizeof cb, "%s (%s-%s)", y, c0, c1);
		fprintf(out, "%c %-32s %5u %22s %26s  %s%s%s%s\n", o->frontier ? '*' : ' ', lab,
			o->gpus, tb, cb, o->fails[0] ? "misses: " : "",
			o->fails[0] ? o->fails : o->why, o->risk[0] ? "; " : "", o->risk);
	}
	fprintf(out, "\nChecks by node type:\n");
	for (size_t ti = 0; ti < ar->cat.n; ti++) {
		bool any = false;
		for (size_t i = 0; i < ar->n; i++)
			any = any || ar->o[i].type == ti;
		if (!any)
			continue;
		char lines[6][400];
		size_t nl = checks(ar, a, ti, lines, 6);
		fprintf(out, "  %s (%s):\n", ar->cat.t[ti].name, ar->cat.t[ti].interconnect);
		for (size_t k = 0; k < nl; k++)
			fprintf(out, "    %s\n", lines[k]);
	}
	fprintf(out, "\n%zu options: %zu searches, %zu layouts simulated\n", ar->n, ar->searches,
		ar->simulated);
}

/* ---- CSV and JSON ----------------------------------------------------------- */

static const char *const csv_cols[] = {"name",
				       "node_type",
				       "cluster",
				       "interconnect",
				       "gpu",
				       "nodes",
				       "gpus",
				       "mode",
				       "fits",
				       "time_to_train_s",
				       "time_to_train_s_p10",
				       "time_to_train_s_p50",
				       "time_to_train_s_p90",
				       "cost_usd",
				       "cost_usd_p10",
				       "cost_usd_p50",
				       "cost_usd_p90",
				       "outlay_usd",
				       "capital_usd",
				       "energy_kwh",
				       "it_power_kw",
				       "tp",
				       "pp",
				       "cp",
				       "dp",
				       "zero",
				       "schedule",
				       "micro_batch",
				       "recompute",
				       "iteration_time_s",
				       "memory_per_gpu_bytes",
				       "memory_verdict",
				       "frontier",
				       "recommended",
				       "meets_constraints",
				       "constraints_missed",
				       "bottleneck",
				       "why",
				       "deadline_risk",
				       "scenario"};

static void csv_num(FILE *out, bool have, double v)
{
	if (have)
		fprintf(out, "%.10g", v);
}

/* What option i is recommended as, in the text's words ("cheapest to
 * rent", "cheapest to buy", "fastest", joined by " and "; "" for none),
 * into b (size n); returns b. */
static const char *recommended(const struct advise_result *ar, size_t i, char *b, size_t n)
{
	size_t len = 0;
	b[0] = '\0';
	if (i == ar->cheapest_mode[0])
		len += (size_t)snprintf(b + len, n - len, "cheapest to rent");
	if (i == ar->cheapest_mode[1] && len < n)
		len += (size_t)snprintf(b + len, n - len, "%scheapest to buy", len ? " and " : "");
	if (i == ar->fastest && len < n)
		snprintf(b + len, n - len, "%sfastest", len ? " and " : "");
	return b;
}

static void write_csv(const struct advise_result *ar, const char *dir, FILE *out)
{
	for (size_t k = 0; k < sizeof csv_cols / sizeof *csv_cols; k++)
		fprintf(out, "%s%s", k ? "," : "", csv_cols[k]);
	fputc('\n', out);
	for (size_t i = 0; i < ar->n; i++) {
		const struct advise_option *o = &ar->o[i];
		const struct advise_node_type *t = &ar->cat.t[o->type];
		const struct search_cand *c = &o->cand;
		bool e = o->evaluated;
		char lab[200], lay[64];
		option_label(ar, o, lab, sizeof lab);
		csv_put_field(out, lab);
		fputc(',', out);
		csv_put_field(out, t->name);
		fputc(',', out);
		csv_put_field(out, t->cluster);
		fputc(',', out);
		csv_put_field(out, t->interconnect);
		fprintf(out, ",%s,%u,%u,%s,%s,", t->gpu, o->nodes, o->gpus,
			report_advise_mode_name(o->mode), e ? "true" : "false");
		csv_num(out, e, o->time_s);
		fputc(',', out);
		csv_num(out, e, o->time_lo_s);
		fputc(',', out);
		csv_num(out, e, o->time_mid_s);
		fputc(',', out);
		csv_num(out, e, o->time_hi_s);
		fputc(',', out);
		csv_num(out, e, o->cost_usd);
		fputc(',', out);
		csv_num(out, e, o->cost_lo_usd);
		fputc(',', out);
		csv_num(out, e, o->cost_mid_usd);
		fputc(',', out);
		csv_num(out, e, o->cost_hi_usd);
		fputc(',', out);
		csv_num(out, e, o->outlay_usd);
		fputc(',', out);
		csv_num(out, o->mode == ADVISE_BUY, o->capital_usd);
		fputc(',', out);
		csv_num(out, e, o->energy_kwh);
		fprintf(out, ",%.10g,", o->it_power_w / 1e3);
		if (e) {
			snprintf(lay, sizeof lay, "%s",
				 c->schedule == TS_SCHED_INTERLEAVED ? "interleaved" : "1f1b");
			fprintf(out, "%u,%u,%u,%u,%d,%s,%lld,%s,%.10g,%.10g,%s", c->tp, c->pp,
				c->cp, c->dp, c->zero, lay, (long long)c->micro_batch,
				work_recompute_name(c->recompute), c->res.iteration_time_s,
				c->res.memory_per_gpu_bytes, c->res.memory_verdict);
		} else {
			fputs(",,,,,,,,,,", out);
		}
		char rec[64];
		fprintf(out, ",%s,%s,%s,", o->frontier ? "true" : "false",
			recommended(ar, i, rec, sizeof rec), o->fails[0] ? "false" : "true");
		csv_put_field(out, o->fails);
		fputc(',', out);
		csv_put_field(out, e ? c->res.bottleneck : "");
		fputc(',', out);
		csv_put_field(out, o->why);
		fputc(',', out);
		csv_put_field(out, o->risk);
		fputc(',', out);
		if (dir && report_advise_exported(ar, i)) {
			char p[1200];
			report_advise_export_name(ar, o, dir, p, sizeof p);
			csv_put_field(out, p);
		}
		fputc('\n', out);
	}
}

static bool jset(json_t *o, const char *key, json_t *v)
{
	return o && v && !json_object_set_new(o, key, v);
}

static json_t *jnum(bool have, double v)
{
	return have && isfinite(v) ? json_real(v) : json_null();
}

static int write_json(const struct advise_result *ar, const struct advise_ask *a, const char *path,
		      const char *catalog, const char *dir, FILE *out, struct ts_error *err)
{
	json_t *root = json_object(), *opts = json_array(), *ask = json_object();
	bool ok =
	    jset(root, "schema_version", json_integer(1)) &&
	    jset(root, "trainsim_version", json_string(ts_version())) &&
	    jset(root, "scenario", json_string(path)) &&
	    jset(root, "catalog", json_string(catalog)) &&
	    jset(ask, "deadline_s", jnum(a->deadline_s > 0.0, a->deadline_s)) &&
	    jset(ask, "budget_usd", jnum(a->budget_usd > 0.0, a->budget_usd)) &&
	    jset(ask, "power_limit_w", jnum(a->power_w > 0.0, a->power_w)) &&
	    jset(ask, "power_per_rack", json_boolean(a->per_rack)) &&
	    jset(ask, "max_gpus", a->max_gpus ? json_integer(a->max_gpus) : json_null()) &&
	    jset(ask, "mode",
		 json_string(a->mode == ADVISE_RENT  ? "rent"
			     : a->mode == ADVISE_BUY ? "buy"
						     : "both")) &&
	    jset(ask, "full_search", json_boolean(a->full_search)) &&
	    jset(root, "asked", json_incref(ask)) &&
	    jset(root, "frontier_of",
		 json_string(ar->frontier_feasible ? "options meeting every constraint"
						   : "all options (none meets every constraint)"));
	for (size_t i = 0; ok && i < ar->n; i++) {
		const struct advise_option *o = &ar->o[i];
		const struct advise_node_type *t = &ar->cat.t[o->type];
		const struct search_cand *c = &o->cand;
		bool e = o->evaluated;
		char lab[200], rec[64];
		option_label(ar, o, lab, sizeof lab);
		json_t *j = json_object(), *lay = json_object(), *miss = json_array();
		for (const char *s = o->fails; miss && *s;) {
			const char *end = strstr(s, "; ");
			size_t len = end ? (size_t)(end - s) : strlen(s);
			json_array_append_new(miss, json_stringn(s, len));
			s += len + (end ? 2 : 0);
		}
		ok = jset(j, "name", json_string(lab)) &&
		     jset(j, "node_type", json_string(t->name)) &&
		     jset(j, "cluster", json_string(t->cluster)) &&
		     jset(j, "interconnect", json_string(t->interconnect)) &&
		     jset(j, "gpu", json_string(t->gpu)) &&
		     jset(j, "nodes", json_integer(o->nodes)) &&
		     jset(j, "gpus", json_integer(o->gpus)) &&
		     jset(j, "mode", json_string(report_advise_mode_name(o->mode))) &&
		     jset(j, "fits", json_boolean(e)) &&
		     jset(j, "time_to_train_s", jnum(e, o->time_s)) &&
		     jset(j, "time_to_train_s_p10", jnum(e, o->time_lo_s)) &&
		     jset(j, "time_to_train_s_p50", jnum(e, o->time_mid_s)) &&
		     jset(j, "time_to_train_s_p90", jnum(e, o->time_hi_s)) &&
		     jset(j, "cost_usd", jnum(e, o->cost_usd)) &&
		     jset(j, "cost_usd_p10", jnum(e, o->cost_lo_usd)) &&
		     jset(j, "cost_usd_p50", jnum(e, o->cost_mid_usd)) &&
		     jset(j, "cost_usd_p90", jnum(e, o->cost_hi_usd)) &&
		     jset(j, "outlay_usd", jnum(e, o->outlay_usd)) &&
		     jset(j, "capital_usd", jnum(o->mode == ADVISE_BUY, o->capital_usd)) &&
		     jset(j, "energy_kwh", jnum(e, o->energy_kwh)) &&
		     jset(j, "it_power_kw", json_real(o->it_power_w / 1e3)) &&
		     jset(j, "frontier", json_boolean(o->frontier)) &&
		     jset(j, "recommended", json_string(recommended(ar, i, rec, sizeof rec))) &&
		     jset(j, "constraints_missed", miss) && jset(j, "why", json_string(o->why)) &&
		     jset(j, "deadline_risk", o->risk[0] ? json_string(o->risk) : json_null());
		if (ok && e)
			ok = jset(lay, "tp", json_integer(c->tp)) &&
			     jset(lay, "pp", json_integer(c->pp)) &&
			     jset(lay, "cp", json_integer(c->cp)) &&
			     jset(lay, "dp", json_integer(c->dp)) &&
			     jset(lay, "zero", json_integer(c->zero)) &&
			     jset(lay, "schedule",
				  json_string(c->schedule == TS_SCHED_INTERLEAVED ? "interleaved"
										  : "1f1b")) &&
			     jset(lay, "interleave", json_integer(c->interleave)) &&
			     jset(lay, "micro_batch", json_integer(c->micro_batch)) &&
			     jset(lay, "recompute",
				  json_string(work_recompute_name(c->recompute))) &&
			     jset(j, "layout", json_incref(lay)) &&
			     jset(j, "iteration_time_s", json_real(c->res.iteration_time_s)) &&
			     jset(j, "memory_per_gpu_bytes",
				  json_real(c->res.memory_per_gpu_bytes)) &&
			     jset(j, "memory_verdict", json_string(c->res.memory_verdict)) &&
			     jset(j, "bottleneck", json_string(c->res.bottleneck));
		if (ok && dir && report_advise_exported(ar, i)) {
			char p[1200];
			report_advise_export_name(ar, o, dir, p, sizeof p);
			ok = jset(j, "scenario", json_string(p));
		}
		json_decref(lay);
		ok = ok && !json_array_append(opts, j);
		json_decref(j);
	}
	ok = ok && jset(root, "options", json_incref(opts)) &&
	     jset(root, "cheapest",
		  ar->cheapest < ar->n ? json_integer((json_int_t)ar->cheapest) : json_null()) &&
	     jset(root, "cheapest_rent",
		  ar->cheapest_mode[0] < ar->n ? json_integer((json_int_t)ar->cheapest_mode[0])
					       : json_null()) &&
	     jset(root, "cheapest_buy",
		  ar->cheapest_mode[1] < ar->n ? json_integer((json_int_t)ar->cheapest_mode[1])
					       : json_null()) &&
	     jset(root, "fastest",
		  ar->fastest < ar->n ? json_integer((json_int_t)ar->fastest) : json_null());
	int io = ok ? json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : 0;
	if (ok)
		fputc('\n', out);
	json_decref(opts);
	json_decref(ask);
	json_decref(root);
	if (!ok)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	return io ? ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the JSON failed") : 0;
}

int report_advise_write(const struct advise_result *ar, const struct advise_ask *a,
			const char *path, const char *candidates, const char *dir,
			enum ts_format format, FILE *out, struct ts_error *err)
{
	if (format == TS_FORMAT_CSV)
		write_csv(ar, dir, out);
	else if (format == TS_FORMAT_JSON)
		return write_json(ar, a, path,
				  candidates ? candidates : "configs/catalog/candidates.cfg", dir,
				  out, err);
	else
		write_text(ar, a, path,
			   candidates ? candidates : "configs/catalog/candidates.cfg (bundled)",
			   dir, out);
	return 0;
}
