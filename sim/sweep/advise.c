/* Advising a buyer: candidate clusters from a catalog, the best layout of
 * each, whole-run time, energy and cost, constraints and the frontier.
 *
 * Each node type of the catalog is one cluster file with --set values (NIC
 * count, ...). An option is a node type, a node count and a mode (rent or
 * buy). Its layout comes from the search (sim/sweep/search.c, through its
 * API): by default one bounded search per node type at a reference size
 * (ADVISE_REF_NODES nodes, whatever its node counts), whose best
 * ADVISE_TOP layouts (degrees, micro-batch, schedule, ZeRO, recompute) are
 * then simulated at every larger node count of the type, each in up to
 * three ways: with dp scaled to the GPUs, the same with the micro-batch
 * divided as dp grows (the micro-batches per rank kept), and with the
 * pipeline deepened instead (dp kept; what a slow network favours), the
 * fastest that fits kept; counts below the reference size are searched
 * (a search there costs less than the reference's); with full_search every option is
 * searched at its own size instead (exact, and slower by the number of
 * options times a search). A layout that fits at the reference size keeps
 * fitting with more data-parallel ranks under ZeRO, and the candidates
 * ranked best by a search differ from one size to the next mostly in dp
 * (examples/what-to-buy/README.md compares the two ways).
 *
 * Each option is simulated exactly as `trainsim search` simulates a
 * candidate (search_candidate_run: two iterations, class mode, stage
 * granularity) on its layout scenario with the option's cost group, so the
 * scenario that ts_advise_run exports reproduces its figures with
 * `trainsim run`.
 * SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700

#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/cfg.h"
#include "base/units.h"
#include "plan/plan.h"
#include "sweep/advise.h"

/* ---- the catalog -------------------------------------------------------- */

static const char *const top_keys[] = {"catalog"};
static const char *const cat_keys[] = {"buy", "node_types", "source"};
static const char *const buy_keys[] = {"years", "upkeep_usd_per_node_year", "storage_usd",
				       "usd_per_kwh", "pue"};
static const char *const type_keys[] = {
    "name",    "cluster",    "sets", "interconnect", "host_cores", "host_ram",	  "nvme",
    "cooling", "node_power", "psu",  "rent",	     "buy",	   "node_counts", "source"};
static const char *const psu_keys[] = {"count", "redundant", "rating", "redundant_w",
				       "redundant_usd"};
static const char *const rent_keys[] = {"usd_per_gpu_hour", "source"};
static const char *const tbuy_keys[] = {"server_usd", "network_usd", "source"};
static const char *const cooling_names[] = {"air", "liquid"};

#define NKEYS(a) (sizeof(a) / sizeof *(a))

/* A cluster named by a path (a '/' or ".cfg") is read from the catalog's
 * folder unless absolute; a bare name is a bundled cluster. */
static void cluster_path(const char *catalog, const char *name, char *out, size_t n)
{
	size_t len = strlen(name);
	bool file = strchr(name, '/') || (len > 4 && !strcmp(name + len - 4, ".cfg"));
	if (!file || name[0] == '/') {
		snprintf(out, n, "%s", name);
		return;
	}
	const char *slash = strrchr(catalog, '/');
	char joined[1024];
	snprintf(joined, sizeof joined, "%.*s/%s", slash ? (int)(slash - catalog) : 1,
		 slash ? catalog : ".", name);
	char *abs = realpath(joined, NULL);
	snprintf(out, n, "%s", abs ? abs : joined);
	free(abs);
}

/* Key path k ("catalog.node_types.[1].") without its trailing dot, into
 * b (size n); returns b. */
static const char *no_dot(const char *k, char *b, size_t n)
{
	size_t len = strlen(k);
	snprintf(b, n, "%.*s", (int)(len && k[len - 1] == '.' ? len - 1 : len), k);
	return b;
}

static int load_type(const config_setting_t *g, const char *file, const char *path,
		     struct advise_node_type *t, struct ts_error *err)
{
	int rc;
	const config_setting_t *s;
	char cl[512];
	memset(t, 0, sizeof *t);
	t->line = cfg_line(g);
	if ((rc = cfg_check_keys(g, file, path, type_keys, NKEYS(type_keys), err)) ||
	    (rc = cfg_get_string(g, "name", true, t->name, sizeof t->name, file, path, err)) < 0 ||
	    (rc = cfg_get_string(g, "cluster", true, cl, sizeof cl, file, path, err)) < 0 ||
	    (rc = cfg_get_string(g, "interconnect", false, t->interconnect, sizeof t->interconnect,
				 file, path, err)) < 0 ||
	    (rc = cfg_get_number(g, "host_cores", TS_UNIT_COUNT_, true, 1.0, 1e6, &t->host_cores,
				 file, path, err)) < 0 ||
	    (rc = cfg_get_number(g, "host_ram", TS_UNIT_BYTES, true, CFG_POSITIVE, 1e18,
				 &t->host_ram_bytes, file, path, err)) < 0 ||
	    (rc = cfg_get_number(g, "nvme", TS_UNIT_BYTES, true, 0.0, 1e18, &t->nvme_bytes, file,
				 path, err)) < 0 ||
	    (rc = cfg_get_number(g, "node_power", TS_UNIT_POWER, true, CFG_POSITIVE, 1e7,
				 &t->node_power_w, file, path, err)) < 0)
		return rc;
	/* the name makes the file names of --export (NAME-4n-rent.cfg), which
	 * must stay in their folder and be plain file names */
	const char *bad = NULL;
	for (const unsigned char *c = (const unsigned char *)t->name; *c && !bad; c++)
		if (*c < 0x20 || *c == 0x7f)
			bad = "a control character";
	if (!bad && strchr(t->name, '/'))
		bad = "'/'";
	if (!bad && strstr(t->name, ".."))
		bad = "\"..\"";
	if (!bad && (!t->name[0] || t->name[0] == '.'))
		bad = t->name[0] ? "a leading '.'" : "nothing";
	if (bad) {
		char k[CFG_KEY_MAX];
		return cfg_fail(err, TS_EINVALID, config_setting_get_member(g, "name"), file,
				cfg_key_join(k, path, "name"),
				"found \"%s\" with %s, expected a name that can be part of a "
				"file name (--export writes NAME-4n-rent.cfg into its folder): "
				"no '/', no \"..\", no control character, no leading '.'",
				t->name, bad);
	}
	cluster_path(file, cl, t->cluster, sizeof t->cluster);
	t->cluster_line = cfg_line(config_setting_get_member(g, "cluster"));
	int cool = 0;
	if ((rc = cfg_get_enum(g, "cooling", false, cooling_names, NKEYS(cooling_names), &cool,
			       file, path, err)) < 0)
		return rc;
	snprintf(t->cooling, sizeof t->cooling, "%s", cooling_names[cool]);
	char sub[200];
	/* --set values: a list of strings */
	if ((s = config_setting_get_member(g, "sets"))) {
		snprintf(sub, sizeof sub, "%ssets", path);
		if (!config_setting_is_aggregate(s) || config_setting_is_group(s))
			return cfg_fail(err, TS_ETYPE, s, file, sub,
					"found %s, expected a list of \"key=value\" strings",
					cfg_type_name(s));
		int n = config_setting_length(s);
		if (n > ADVISE_MAX_SETS)
			return cfg_fail(err, TS_ELIMIT, s, file, sub,
					"found %d values, expected at most %d", n, ADVISE_MAX_SETS);
		for (int i = 0; i < n; i++) {
			const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
			char k[220];
			snprintf(k, sizeof k, "%s.[%d]", sub, i);
			if ((rc = cfg_string(e, file, k, t->sets[i], sizeof t->sets[i], err)))
				return rc;
			t->set_lines[i] = cfg_line(e);
			if (!t->set_lines[i])
				t->set_lines[i] = cfg_line(s);
			if (!strchr(t->sets[i], '='))
				return cfg_fail(err, TS_EINVALID, e, file, k,
						"found \"%s\", expected \"key=value\"", t->sets[i]);
		}
		t->nsets = (size_t)n;
	}
	/* node counts: an array of increasing positive integers */
	snprintf(sub, sizeof sub, "%snode_counts", path);
	if ((rc = cfg_member(g, "node_counts", true, file, path, "an array of node counts", &s,
			     err)) < 0)
		return rc;
	if (!config_setting_is_aggregate(s) || config_setting_is_group(s) ||
	    config_setting_length(s) < 1)
		return cfg_fail(err, TS_ETYPE, s, file, sub,
				"found %s, expected an array of node counts such as [4, 8, 16]",
				cfg_type_name(s));
	int n = config_setting_length(s);
	if (n > ADVISE_MAX_COUNTS)
		return cfg_fail(err, TS_ELIMIT, s, file, sub,
				"found %d counts, expected at most %d", n, ADVISE_MAX_COUNTS);
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		char k[220];
		int64_t v;
		snprintf(k, sizeof k, "%s.[%d]", sub, i);
		if ((rc = cfg_int(e, file, k, 1, 65536, &v, err)))
			return rc;
		if (i && (uint32_t)v <= t->counts[i - 1])
			return cfg_fail(err, TS_EINVALID, e, file, k,
					"found %lld after %u, expected increasing counts",
					(long long)v, t->counts[i - 1]);
		t->counts[i] = (uint32_t)v;
	}
	t->ncounts = (size_t)n;
	/* power supplies */
	if ((s = config_setting_get_member(g, "psu"))) {
		snprintf(sub, sizeof sub, "%spsu.", path);
		if ((rc = cfg_check_keys(s, file, sub, psu_keys, NKEYS(psu_keys), err)) ||
		    (rc = cfg_get_uint(s, "count", true, 1, 64, &t->psu_count, file, sub, err)) <
			0 ||
		    (rc = cfg_get_uint(s, "redundant", true, 0, 63, &t->psu_redundant, file, sub,
				       err)) < 0 ||
		    (rc = cfg_get_number(s, "rating", TS_UNIT_POWER, true, CFG_POSITIVE, 1e6,
					 &t->psu_rating_w, file, sub, err)) < 0 ||
		    (rc = cfg_get_number(s, "redundant_w", TS_UNIT_POWER, false, 0.0, 1e6,
					 &t->psu_redundant_w, file, sub, err)) < 0 ||
		    (rc = cfg_get_number(s, "redundant_usd", TS_UNIT_COUNT_, false, 0.0, 1e9,
					 &t->psu_redundant_usd, file, sub, err)) < 0)
			return rc;
		char k[220];
		snprintf(k, sizeof k, "%sredundant", sub);
		if (t->psu_redundant >= t->psu_count)
			return cfg_fail(
			    err, TS_EINVALID, config_setting_get_member(s, "redundant"), file, k,
			    "found %u redundant of %u supplies, expected fewer redundant "
			    "than supplies",
			    t->psu_redundant, t->psu_count);
		double carry = (double)(t->psu_count - t->psu_redundant) * t->psu_rating_w;
		snprintf(k, sizeof k, "%srating", sub);
		if (carry < t->node_power_w)
			return cfg_fail(
			    err, TS_EINVALID, config_setting_get_member(s, "rating"), file, k,
			    "found %u x %.0f W carrying the load, expected at least the "
			    "node's %.0f W (node_power)",
			    t->psu_count - t->psu_redundant, t->psu_rating_w, t->node_power_w);
	}
	if ((s = config_setting_get_member(g, "rent"))) {
		snprintf(sub, sizeof sub, "%srent.", path);
		if ((rc = cfg_check_keys(s, file, sub, rent_keys, NKEYS(rent_keys), err)) ||
		    (rc = cfg_get_number(s, "usd_per_gpu_hour", TS_UNIT_COUNT_, true, CFG_POSITIVE,
					 1e6, &t->usd_per_gpu_hour, file, sub, err)) < 0)
			return rc;
		t->rent = true;
	}
	if ((s = config_setting_get_member(g, "buy"))) {
		snprintf(sub, sizeof sub, "%sbuy.", path);
		if ((rc = cfg_check_keys(s, file, sub, tbuy_keys, NKEYS(tbuy_keys), err)) ||
		    (rc = cfg_get_number(s, "server_usd", TS_UNIT_COUNT_, true, CFG_POSITIVE, 1e12,
					 &t->server_usd, file, sub, err)) < 0 ||
		    (rc = cfg_get_number(s, "network_usd", TS_UNIT_COUNT_, false, 0.0, 1e12,
					 &t->network_usd, file, sub, err)) < 0)
			return rc;
		t->buy = true;
	}
	char grp[200];
	if (!t->rent && !t->buy)
		return cfg_fail(err, TS_EINVALID, g, file, no_dot(path, grp, sizeof grp),
				"found neither rent nor buy in node type \"%s\", expected a rent "
				"price, a purchase price or both",
				t->name);
	return 0;
}

int advise_catalog_load(const char *path, struct advise_catalog *out, struct ts_error *err)
{
	config_t cfg;
	memset(out, 0, sizeof *out);
	snprintf(out->file, sizeof out->file, "%s", path);
	out->years = 4.0;
	out->usd_per_kwh = 0.0806; /* as cost = {} defaults: EIA 2023 (configs/README.md) */
	out->pue = 1.58;	   /* Uptime Institute 2023 */
	config_init(&cfg);
	int rc = cfg_load_file(&cfg, path, err);
	if (rc) {
		config_destroy(&cfg);
		return rc;
	}
	const config_setting_t *root = config_root_setting(&cfg), *c, *b, *l;
	if ((rc = cfg_check_keys(root, path, "", top_keys, NKEYS(top_keys), err)) ||
	    (rc = cfg_member(root, "catalog", true, path, "", "a group catalog = { ... }", &c,
			     err)) < 0)
		goto done;
	if (!config_setting_is_group(c)) {
		rc = cfg_fail(err, TS_ETYPE, c, path, "catalog", "found %s, expected a group",
			      cfg_type_name(c));
		goto done;
	}
	if ((rc = cfg_check_keys(c, path, "catalog.", cat_keys, NKEYS(cat_keys), err)))
		goto done;
	if ((b = config_setting_get_member(c, "buy"))) {
		const char *p = "catalog.buy.";
		if ((rc = cfg_check_keys(b, path, p, buy_keys, NKEYS(buy_keys), err)) ||
		    (rc = cfg_get_number(b, "years", TS_UNIT_COUNT_, false, 0.1, 100.0, &out->years,
					 path, p, err)) < 0 ||
		    (rc = cfg_get_number(b, "upkeep_usd_per_node_year", TS_UNIT_COUNT_, false, 0.0,
					 1e9, &out->upkeep_usd_per_node_year, path, p, err)) < 0 ||
		    (rc = cfg_get_number(b, "storage_usd", TS_UNIT_COUNT_, false, 0.0, 1e12,
					 &out->storage_usd, path, p, err)) < 0 ||
		    (rc = cfg_get_number(b, "usd_per_kwh", TS_UNIT_COUNT_, false, 0.0, 100.0,
					 &out->usd_per_kwh, path, p, err)) < 0 ||
		    (rc = cfg_get_number(b, "pue", TS_UNIT_COUNT_, false, 1.0, 5.0, &out->pue, path,
					 p, err)) < 0)
			goto done;
	}
	if ((rc = cfg_member(c, "node_types", true, path, "catalog.",
			     "a list of node types ( { name = ...; }, ... )", &l, err)) < 0)
		goto done;
	if (!config_setting_is_list(l) || config_setting_length(l) < 1) {
		rc = cfg_fail(err, TS_ETYPE, l, path, "catalog.node_types",
			      "found %s, expected a list of node types ( { ... }, { ... } )",
			      cfg_type_name(l));
		goto done;
	}
	int n = config_setting_length(l);
	if (n > ADVISE_MAX_TYPES) {
		rc = cfg_fail(err, TS_ELIMIT, l, path, "catalog.node_types",
			      "found %d node types, expected at most %d", n, ADVISE_MAX_TYPES);
		goto done;
	}
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(l, (unsigned)i);
		char p[64];
		snprintf(p, sizeof p, "catalog.node_types.[%d].", i);
		char grp[64];
		if (!config_setting_is_group(g)) {
			rc = cfg_fail(err, TS_ETYPE, g, path, no_dot(p, grp, sizeof grp),
				      "found %s, expected a group { ... }", cfg_type_name(g));
			goto done;
		}
		if ((rc = load_type(g, path, p, &out->t[i], err)) < 0)
			goto done;
		for (int k = 0; k < i; k++)
			if (!strcmp(out->t[k].name, out->t[i].name)) {
				char key[80];
				snprintf(key, sizeof key, "%sname", p);
				const config_setting_t *nm = config_setting_get_member(g, "name");
				rc = cfg_fail(err, TS_EINVALID, nm ? nm : g, path, key,
					      "found the name \"%s\" a second time (line %d), "
					      "expected each node type once",
					      out->t[i].name, out->t[k].line);
				goto done;
			}
	}
	out->n = (size_t)n;
	rc = 0;
done:
	config_destroy(&cfg);
	return rc < 0 ? rc : 0;
}

/* An error err of loading the scenario with option sets of node type t
 * (catalog c) that one of the type's own sets caused (its file is that
 * set's "--set ..." label): rewritten to name the catalog file, the line
 * and key of the entry (its cluster, or its sets entry). Other errors stay
 * as they are. Returns err->code. */
static int blame_catalog(const struct advise_catalog *c, size_t ti, struct ts_error *err)
{
	const struct advise_node_type *t = &c->t[ti];
	char lab[sizeof err->file + 64], key[96],
	    msg[sizeof err->msg + sizeof err->key + sizeof t->sets[0] + 8];
	int line = 0;
	/* as the loader labels it, as far as err->file holds it */
	snprintf(lab, sizeof lab, "--set cluster=\"%.*s\"", (int)sizeof err->file, t->cluster);
	if (!strncmp(err->file, lab, sizeof err->file - 1)) {
		line = t->cluster_line;
		snprintf(key, sizeof key, "catalog.node_types.[%zu].cluster", ti);
		snprintf(msg, sizeof msg, "%s", err->msg);
	}
	for (size_t j = 0; !line && j < t->nsets; j++) {
		snprintf(lab, sizeof lab, "--set %s", t->sets[j]);
		if (strncmp(err->file, lab, sizeof err->file - 1))
			continue;
		line = t->set_lines[j];
		snprintf(key, sizeof key, "catalog.node_types.[%zu].sets.[%zu]", ti, j);
		snprintf(msg, sizeof msg, "\"%s\": %s%s%s", t->sets[j], err->key,
			 err->key[0] ? ": " : "", err->msg);
	}
	if (!line)
		return err->code;
	return ts_error_set(err, err->code, c->file, line, key, "%s", msg);
}

/* ---- figures ------------------------------------------------------------- */

void advise_band(const struct ts_result *r, const char *key, double *lo, double *mid, double *hi)
{
	const struct ts_band *b =
	    !strcmp(key, "cost_usd") ? &r->band.cost_usd : &r->band.time_to_train_s;
	double v = !strcmp(key, "cost_usd") ? r->cost_usd : r->time_to_train_s;
	/* the reported 80 % band (sim/run/band.h); a result made without one
	 * (zero quantiles) is its own band */
	*lo = b->p10 > 0.0 ? b->p10 : v;
	*mid = b->p50 > 0.0 ? b->p50 : v;
	*hi = b->p90 > 0.0 ? b->p90 : v;
}

void advise_frontier(const double *time, const double *cost, const bool *ok, size_t n, bool *on)
{
	for (size_t i = 0; i < n; i++) {
		on[i] = !ok || ok[i];
		for (size_t j = 0; j < n && on[i]; j++) {
			if (j == i || (ok && !ok[j]))
				continue;
			if (time[j] <= time[i] && cost[j] <= cost[i] &&
			    (time[j] < time[i] || cost[j] < cost[i]))
				on[i] = false;
		}
	}
}

/* ---- the options ---------------------------------------------------------- */

static double cpu_now(void)
{
	return (double)clock() / (double)CLOCKS_PER_SEC;
}

static double wall_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The --set values of option o (type t, catalog c) after the scenario's:
 * the cluster, the type's own, the node power and the cost group. */
static void option_sets(const struct advise_catalog *c, const struct advise_node_type *t,
			struct advise_option *o)
{
	size_t k = 0;
	snprintf(o->sets[k++], sizeof o->sets[0], "cluster=\"%s\"", t->cluster);
	for (size_t i = 0; i < t->nsets; i++)
		snprintf(o->sets[k++], sizeof o->sets[0], "%s", t->sets[i]);
	snprintf(o->sets[k++], sizeof o->sets[0], "power.node_max=\"%.17g W\"",
		 t->node_power_w + t->psu_redundant_w);
	if (o->mode == ADVISE_RENT)
		snprintf(o->sets[k++], sizeof o->sets[0],
			 "cost={ usd_per_gpu_hour = %.17g; usd_per_kwh = %.17g; pue = %.17g; }",
			 t->usd_per_gpu_hour, c->usd_per_kwh, c->pue);
	else
		snprintf(o->sets[k++], sizeof o->sets[0],
			 "cost={ owned = { server_usd = %.17g; network_usd = %.17g; "
			 "storage_usd = %.17g; years = %.17g; upkeep_usd_per_year = %.17g; }; "
			 "usd_per_kwh = %.17g; pue = %.17g; }",
			 t->server_usd + t->psu_redundant_usd, t->network_usd, c->storage_usd,
			 c->years, c->upkeep_usd_per_node_year * (double)o->nodes, c->usd_per_kwh,
			 c->pue);
	o->nsets = k;
}

/* The scenario's sets followed by option o's, into argv (room for nsets +
 * o->nsets + extra). */
static size_t join_sets(const char **argv, const char *const *sets, size_t nsets,
			const struct advise_option *o)
{
	size_t k = 0;
	for (size_t i = 0; i < nsets; i++)
		argv[k++] = sets[i];
	for (size_t i = 0; i < o->nsets; i++)
		argv[k++] = o->sets[i];
	return k;
}

/* Load the layout scenario of `nodes` nodes of gpn GPUs as search_run_hooks
 * loads its layouts (pure data parallelism, the degrees set per candidate),
 * with the scenario's global batch gb. */
static int load_layout(const struct ts_env *env, const char *path, const char **argv, size_t n,
		       uint32_t nodes, uint32_t gpn, int64_t gb, struct ts_scenario **out,
		       struct ts_error *err)
{
	struct search_layout_buf lb;
	search_layout_sets(nodes, gpn, &lb, argv + n);
	int rc = ts_scenario_load(env->cat, path, argv, n + SEARCH_LAYOUT_SETS, out, err);
	if (!rc)
		(*out)->training.global_batch = gb;
	return rc;
}

/* Whether layout x, moved to g GPUs (dp scaled), is a candidate the search
 * would enumerate for a global batch gb: dp whole and dividing gb, the
 * micro-batch dividing each rank's share, interleaving with whole rounds. */
static bool transfer(const struct search_cand *x, uint32_t nodes, uint32_t gpn, int64_t gb,
		     struct search_cand *out)
{
	uint32_t g = nodes * gpn, mp = x->tp * x->pp * x->cp;
	if (!mp || g % mp || gpn % x->tp)
		return false;
	uint32_t dp = g / mp;
	if (x->pp > SEARCH_MAX_PP)
		return false;
	if (gb % (int64_t)dp)
		return false;
	int64_t per_rank = gb / (int64_t)dp;
	if (per_rank % x->micro_batch)
		return false;
	int64_t m = per_rank / x->micro_batch;
	if (x->schedule == TS_SCHED_INTERLEAVED && m % x->pp)
		return false;
	if (x->zero > 0 && dp < 2)
		return false;
	*out = *x;
	out->nodes = nodes;
	out->gpus_per_node = gpn;
	out->dp = dp;
	out->score = INFINITY;
	out->bounded = out->pruned = out->alias = false;
	memset(&out->res, 0, sizeof out->res);
	return true;
}

/* Layout x with its pipeline deepened k times on k times the GPUs (dp
 * kept), for a model of L layers: the search's rules on the stages (at most
 * SEARCH_MAX_PP, the layers divided or SEARCH_MIN_LAYERS_UNEVEN per stage,
 * whole layers per virtual stage when interleaved), then transfer's. Where
 * the network is slow the best layout of more nodes pipelines across them
 * rather than adding data-parallel ranks. */
static bool transfer_pp(const struct search_cand *x, uint32_t k, uint32_t L, uint32_t nodes,
			uint32_t gpn, int64_t gb, struct search_cand *out)
{
	if (k < 2)
		return false;
	struct search_cand y = *x;
	y.pp = x->pp * k;
	if (y.pp > SEARCH_MAX_PP || y.pp > L || (L % y.pp && L / y.pp < SEARCH_MIN_LAYERS_UNEVEN) ||
	    (y.schedule == TS_SCHED_INTERLEAVED && L % (2 * y.pp)))
		return false;
	return transfer(&y, nodes, gpn, gb, out);
}

/* Whether result a ranks before b as the search ranks (fits clearly before
 * tight; then the shorter time to train). */
static bool better(const struct ts_result *a, const struct ts_result *b)
{
	bool ta = !strcmp(a->memory_verdict, "tight"), tb = !strcmp(b->memory_verdict, "tight");
	if (ta != tb)
		return tb;
	return a->time_to_train_s < b->time_to_train_s;
}

/* The layouts a search ranked at exactly g GPUs, best first, up to max,
 * into ls; returns how many. */
static size_t ranked_at(const struct search_result *sr, uint32_t g, struct search_cand *ls,
			size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < sr->n && k < max; i++)
		if (isfinite(sr->c[i].score) && sr->c[i].res.gpus == g)
			ls[k++] = sr->c[i];
	return k;
}

/* Search option o's node type at `nodes` nodes (top ranked, time), into
 * the layouts ls (up to max at exactly that size). */
static int search_at(const struct ts_env *env, const char *path, const char **argv, size_t n,
		     uint32_t nodes, uint32_t gpn, size_t top, struct search_cand *ls, size_t max,
		     size_t *nl, struct advise_result *out, struct ts_error *err)
{
	struct search_result sr;
	int rc = search_run_env(env, path, argv, n, SEARCH_TIME, nodes * gpn, 1, top, &sr, err);
	if (rc)
		return rc;
	out->searches++;
	out->simulated += sr.simulated;
	*nl = ranked_at(&sr, nodes * gpn, ls, max);
	search_result_free(&sr);
	if (!*nl && top) { /* bounded out at this size: search it all */
		if ((rc = search_run_env(env, path, argv, n, SEARCH_TIME, nodes * gpn, 1, 0, &sr,
					 err)))
			return rc;
		out->searches++;
		out->simulated += sr.simulated;
		*nl = ranked_at(&sr, nodes * gpn, ls, max);
		search_result_free(&sr);
	}
	return 0;
}

static void add_fail(struct advise_option *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void add_fail(struct advise_option *o, const char *fmt, ...)
{
	size_t len = strlen(o->fails);
	if (len && len + 2 < sizeof o->fails)
		len += (size_t)snprintf(o->fails + len, sizeof o->fails - len, "; ");
	va_list ap;
	va_start(ap, fmt);
	if (len < sizeof o->fails)
		vsnprintf(o->fails + len, sizeof o->fails - len, fmt, ap);
	va_end(ap);
}

void advise_money(char *b, size_t n, double v)
{
	if (!(v > 0.0))
		snprintf(b, n, "$0");
	else if (v >= 1e6)
		snprintf(b, n, "$%.2fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(b, n, "$%.0fk", v / 1e3);
	else
		snprintf(b, n, "$%.0f", v);
}

void advise_duration(char *b, size_t n, double s)
{
	ts_units_format_duration(s, b, n);
}

/* The constraints option o misses (ask a, type t, loader cores per node
 * lc). */
static void constraints(const struct advise_ask *a, const struct advise_node_type *t,
			const struct advise_catalog *c, double lc, struct advise_option *o)
{
	char x[32], y[32];
	if (a->max_gpus && o->gpus > a->max_gpus)
		add_fail(o, "%u GPU%s, more than --max-gpus %u", o->gpus, o->gpus == 1 ? "" : "s",
			 a->max_gpus);
	if (o->mode == ADVISE_BUY && a->power_w > 0.0) {
		double node = t->node_power_w + t->psu_redundant_w;
		if (a->per_rack && node > a->power_w)
			add_fail(o, "one node is rated %.1f kW, more than the %.1f kW rack",
				 node / 1e3, a->power_w / 1e3);
		else if (!a->per_rack && (double)o->nodes * node * c->pue > a->power_w)
			add_fail(o,
				 "%u nodes x %.1f kW x PUE %.2f = %.1f kW, more than the %.1f kW "
				 "facility",
				 o->nodes, node / 1e3, c->pue,
				 (double)o->nodes * node * c->pue / 1e3, a->power_w / 1e3);
	}
	if (lc > t->host_cores)
		add_fail(o, "the loader needs %.0f cores per node, the node has %.0f", lc,
			 t->host_cores);
	if (!o->evaluated)
		return;
	if (a->deadline_s > 0.0 && o->time_s > a->deadline_s) {
		advise_duration(x, sizeof x, o->time_s);
		advise_duration(y, sizeof y, a->deadline_s);
		add_fail(o, "%s, past the %s deadline", x, y);
	}
	/* the band against the deadline: the run's variability and the
	 * model's error (advise_band) can take it either way */
	o->risk[0] = '\0';
	if (a->deadline_s > 0.0 && o->time_s <= a->deadline_s && o->time_hi_s > a->deadline_s) {
		advise_duration(x, sizeof x, o->time_hi_s);
		snprintf(o->risk, sizeof o->risk, "at risk: its band reaches %s", x);
	} else if (a->deadline_s > 0.0 && o->time_s > a->deadline_s &&
		   o->time_lo_s <= a->deadline_s) {
		advise_duration(x, sizeof x, o->time_lo_s);
		snprintf(o->risk, sizeof o->risk, "may meet it: its band starts at %s", x);
	}
	if (a->budget_usd > 0.0 && o->outlay_usd > a->budget_usd) {
		advise_money(x, sizeof x, o->outlay_usd);
		advise_money(y, sizeof y, a->budget_usd);
		add_fail(o, "spends %s, over the %s budget", x, y);
	}
}

const char *advise_bound(const struct ts_result *r)
{
	const double share[] = {r->compute_s + r->recompute_s, r->exposed_comm_s, r->bubble_s,
				r->data_stall_s, r->optimizer_s + r->other_s};
	static const char *const label[] = {"compute-bound", "network-bound", "bubble-bound",
					    "loader-bound", "optimizer-and-host-bound"};
	size_t best = 0;
	for (size_t k = 1; k < sizeof share / sizeof share[0]; k++)
		if (share[k] > share[best])
			best = k;
	return label[best];
}

/* The why line of option o among the options os[0..n): what sets its pace
 * (the breakdown's largest parts) and the same GPUs on another
 * interconnect. */
static void why_line(const struct advise_result *ar, size_t i)
{
	struct advise_option *o = &ar->o[i];
	const struct ts_result *r = &o->cand.res;
	double it = r->iteration_time_s > 0.0 ? r->iteration_time_s : 1.0;
	double comp = (r->compute_s + r->recompute_s) / it, comm = r->exposed_comm_s / it,
	       bub = r->bubble_s / it, stall = r->data_stall_s / it,
	       rest = (r->optimizer_s + r->other_s) / it;
	size_t len = 0, n = sizeof o->why;
	const char *what = advise_bound(r);
	len += (size_t)snprintf(o->why + len, n - len, "%s (%.0f %% compute", what, 100.0 * comp);
	if (comm >= 0.005)
		len += (size_t)snprintf(o->why + len, n - len, ", network %.0f %%", 100.0 * comm);
	if (bub >= 0.005)
		len += (size_t)snprintf(o->why + len, n - len, ", bubble %.0f %%", 100.0 * bub);
	if (stall >= 0.005)
		len +=
		    (size_t)snprintf(o->why + len, n - len, ", data stall %.0f %%", 100.0 * stall);
	if (rest >= 0.005 && len < n)
		len += (size_t)snprintf(o->why + len, n - len, ", optimizer and host %.0f %%",
					100.0 * rest);
	if (len < n)
		len += (size_t)snprintf(o->why + len, n - len, ")");
	const struct advise_node_type *t = &ar->cat.t[o->type];
	/* a loader that stalls: the cores its workers ask for */
	if (stall >= 0.01 && len < n)
		len += (size_t)snprintf(o->why + len, n - len,
					"; the loader needs %.0f cores per node, the node has %.0f",
					ar->loader_cores_per_gpu * (double)t->gpus_per_node,
					t->host_cores);
	/* the fastest other interconnect for the same GPUs, count and mode */
	size_t best = ar->n;
	for (size_t j = 0; j < ar->n; j++) {
		const struct advise_option *p = &ar->o[j];
		if (j == i || !p->evaluated || p->type == o->type || p->gpus != o->gpus ||
		    strcmp(ar->cat.t[p->type].gpu, t->gpu) || p->time_s >= o->time_s)
			continue;
		if (best == ar->n || p->time_s < ar->o[best].time_s)
			best = j;
	}
	if (best < ar->n && len < n) {
		const struct advise_option *p = &ar->o[best];
		len += (size_t)snprintf(o->why + len, n - len,
					"; %s (%s) instead saves %.1f %% of the time to train",
					ar->cat.t[p->type].name, ar->cat.t[p->type].interconnect,
					100.0 * (1.0 - p->time_s / o->time_s));
	}
}

/* Simulate layout x on the layout scenario of option o, into o. */
static int simulate_option(const struct ts_env *env, const char *path, const char *const *sets,
			   size_t nsets, const struct data_input *in, const struct search_cand *x,
			   uint32_t gpn, int64_t gb, struct advise_option *o,
			   struct advise_result *ar, struct ts_error *err)
{
	const char *argv[ADVISE_MAX_USER_SETS + ADVISE_MAX_SETS + 4 + 12];
	size_t n = join_sets(argv, sets, nsets, o);
	struct ts_scenario *lay = NULL;
	int rc = load_layout(env, path, argv, n, o->nodes, gpn, gb, &lay, err);
	if (rc)
		return rc;
	o->cand = *x;
	rc = search_candidate_run(env, lay, in, x, &o->cand.res, err);
	ar->simulated++;
	ts_scenario_destroy(lay);
	return rc;
}

/* Evaluate every count of node type ti in mode `mode` (the first mode of
 * the type: its layouts then serve the other). */
static int eval_type(const struct ts_env *env, const char *path, const char *const *sets,
		     size_t nsets, const struct advise_ask *a, const struct data_input *in,
		     int64_t gb, size_t ti, struct advise_result *ar, struct ts_error *err)
{
	struct advise_node_type *t = &ar->cat.t[ti];
	size_t top = a->transfer_top ? a->transfer_top : ADVISE_TOP;
	struct search_cand ref[ADVISE_MAX_TOP];
	size_t nref = 0;
	if (top > ADVISE_MAX_TOP)
		top = ADVISE_MAX_TOP;
	uint32_t layers = (uint32_t)ar->layers;
	const char *argv[ADVISE_MAX_USER_SETS + ADVISE_MAX_SETS + 4 + 12];
	/* the options of this type, in count order, rent before buy */
	size_t first = ar->n, last = ar->n;
	for (size_t i = 0; i < ar->n; i++)
		if (ar->o[i].type == ti) {
			if (first == ar->n)
				first = i;
			last = i + 1;
		}
	if (first == ar->n)
		return 0;
	/* GPUs per node and GPU type from the cluster, with the type's sets */
	{
		struct ts_scenario *sc = NULL;
		size_t n = join_sets(argv, sets, nsets, &ar->o[first]);
		int rc = ts_scenario_load(env->cat, path, argv, n, &sc, err);
		if (rc)
			return rc;
		t->gpus_per_node = sc->gpus_per_node;
		snprintf(t->gpu, sizeof t->gpu, "%s", hw_cluster_gpu_type(sc->cluster)->name);
		ts_scenario_destroy(sc);
	}
	uint32_t gpn = t->gpus_per_node;
	for (size_t i = first; i < last; i++)
		ar->o[i].gpus = ar->o[i].nodes * gpn;
	/* the reference size: ADVISE_REF_NODES nodes, fewer when --max-gpus says so */
	uint32_t refn = ADVISE_REF_NODES;
	while (refn > 1 && a->max_gpus && refn * gpn > a->max_gpus)
		refn /= 2;
	if (a->max_gpus && refn * gpn > a->max_gpus)
		refn = 0;
	if (!a->full_search && refn) {
		size_t n = join_sets(argv, sets, nsets, &ar->o[first]);
		int rc = search_at(env, path, argv, n, refn, gpn, top, ref, top, &nref, ar, err);
		if (rc)
			return rc;
	}
	for (size_t i = first; i < last; i++) {
		struct advise_option *o = &ar->o[i];
		if (a->max_gpus && o->gpus > a->max_gpus)
			continue;
		/* the other mode of the same count: its layout, simulated with its costs */
		if (i > first && ar->o[i - 1].nodes == o->nodes && ar->o[i - 1].evaluated) {
			int rc = simulate_option(env, path, sets, nsets, in, &ar->o[i - 1].cand,
						 gpn, gb, o, ar, err);
			if (rc && rc != TS_ENOMEM) {
				o->rc = rc;
				ts_error_format(err, o->err, sizeof o->err);
				continue;
			} else if (rc)
				return rc;
			o->evaluated = o->cand.res.fits;
			continue;
		}
		struct search_cand ls[3 * ADVISE_MAX_TOP]; /* each layout carried three ways */
		size_t nl = 0;
		/* from the reference size up, the reference's layouts carried
		 * over (at it, they are its own); below it a search is cheaper
		 * than the reference's: searched (exact) */
		if (!a->full_search && nref && o->nodes >= refn) {
			uint32_t mult = o->nodes % refn ? 0 : o->nodes / refn;
			for (size_t k = 0; k < nref; k++) {
				if (transfer(&ref[k], o->nodes, gpn, gb, &ls[nl]))
					nl++;
				if (transfer_pp(&ref[k], mult, layers, o->nodes, gpn, gb, &ls[nl]))
					nl++;
				/* dp scaled with the micro-batches per rank kept: the
				 * micro-batch divided by the growth of dp */
				struct search_cand y = ref[k];
				if (mult >= 2 && y.micro_batch % mult == 0) {
					y.micro_batch /= mult;
					if (transfer(&y, o->nodes, gpn, gb, &ls[nl]))
						nl++;
				}
			}
		}
		/* none carried over (the global batch does not spread over this
		 * many GPUs as the reference's layouts have it): searched too */
		if (a->full_search || !nref || o->nodes < refn || !nl) {
			size_t n = join_sets(argv, sets, nsets, o);
			int rc =
			    search_at(env, path, argv, n, o->nodes, gpn, 1, ls, 1, &nl, ar, err);
			if (rc == TS_ENOMEM)
				return rc;
			if (rc) {
				o->rc = rc;
				ts_error_format(err, o->err, sizeof o->err);
				continue;
			}
		}
		/* simulate each layout with the option's costs; keep the best that fits */
		bool have = false;
		struct search_cand best;
		for (size_t k = 0; k < nl; k++) {
			struct advise_option tmp = *o;
			int rc = simulate_option(env, path, sets, nsets, in, &ls[k], gpn, gb, &tmp,
						 ar, err);
			if (rc == TS_ENOMEM)
				return rc;
			if (rc || !tmp.cand.res.fits)
				continue;
			if (!have || better(&tmp.cand.res, &best.res)) {
				best = tmp.cand;
				have = true;
			}
		}
		if (have) {
			o->cand = best;
			o->evaluated = true;
		}
	}
	return 0;
}

int advise_run(const struct ts_env *env, const char *path, const char *const *sets, size_t nsets,
	       const char *catalog_path, const struct advise_ask *ask, struct advise_result *out,
	       struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	double w0 = wall_now(), c0 = cpu_now();
	if (nsets > ADVISE_MAX_USER_SETS)
		return ts_error_set(err, TS_ELIMIT, NULL, 0, "--set",
				    "found %zu values, expected at most %d", nsets,
				    ADVISE_MAX_USER_SETS);
	int rc = advise_catalog_load(catalog_path, &out->cat, err);
	if (rc)
		return rc;
	struct ts_scenario *base = NULL;
	struct data_input in;
	if ((rc = ts_scenario_load(env->cat, path, sets, nsets, &base, err)))
		return rc;
	if (!(base->training.run_length > 0.0) && !base->n_phases) {
		rc = ts_scenario_error(base, err, TS_EINVALID, "training.tokens",
				       "found no run length, expected training.tokens, samples, "
				       "epochs or steps (advice compares whole runs)");
		ts_scenario_destroy(base);
		return rc;
	}
	if ((rc = plan_input(env, base, &in, err))) {
		ts_scenario_destroy(base);
		return rc;
	}
	int64_t gb = base->training.global_batch;
	out->layers = base->model.layers;
	snprintf(out->scenario_name, sizeof out->scenario_name, "%s", base->name);
	snprintf(out->model_name, sizeof out->model_name, "%s", base->model.name);
	out->per_token = in.dataset.per_token;
	out->dataset_bytes = in.dataset.disk_bytes * in.dataset.samples;
	out->loader_cores_per_gpu =
	    (double)(base->data.workers_per_gpu ? base->data.workers_per_gpu : 4);
	out->decode_core_s_per_tok = in.dataset.decode_core_s;
	ts_scenario_destroy(base);
	/* the options: type, count, rent then buy */
	out->cap = 0;
	int mode = ask->mode ? ask->mode : ADVISE_BOTH;
	for (size_t ti = 0; ti < out->cat.n; ti++) {
		const struct advise_node_type *t = &out->cat.t[ti];
		for (size_t k = 0; k < t->ncounts; k++)
			for (int m = ADVISE_RENT; m <= ADVISE_BUY; m <<= 1) {
				if (!(mode & m) || (m == ADVISE_RENT && !t->rent) ||
				    (m == ADVISE_BUY && !t->buy))
					continue;
				if (ts_grow((void **)&out->o, &out->cap, out->n + 1,
					    sizeof *out->o)) {
					rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL,
							  "out of memory");
					goto fail;
				}
				struct advise_option *o = &out->o[out->n++];
				memset(o, 0, sizeof *o);
				o->type = ti;
				o->nodes = t->counts[k];
				o->mode = m;
				option_sets(&out->cat, t, o);
			}
	}
	if (!out->n) {
		/* every node type lacks the price the mode needs */
		rc = ts_error_set(err, TS_EINVALID, catalog_path, 0, "catalog.node_types",
				  "found no node type with %s, expected at least one for --mode %s",
				  mode == ADVISE_RENT  ? "a rent price (rent.usd_per_gpu_hour)"
				  : mode == ADVISE_BUY ? "a purchase price (buy.server_usd)"
						       : "a rent or a purchase price (rent, buy)",
				  mode == ADVISE_RENT  ? "rent"
				  : mode == ADVISE_BUY ? "buy"
						       : "both");
		goto fail;
	}
	for (size_t ti = 0; ti < out->cat.n; ti++)
		if ((rc = eval_type(env, path, sets, nsets, ask, &in, gb, ti, out, err))) {
			rc = blame_catalog(&out->cat, ti, err);
			goto fail;
		}
	/* whole-run figures and constraints */
	for (size_t i = 0; i < out->n; i++) {
		struct advise_option *o = &out->o[i];
		const struct advise_node_type *t = &out->cat.t[o->type];
		const struct ts_result *r = &o->cand.res;
		o->capital_usd =
		    (double)o->nodes * (t->server_usd + t->network_usd + t->psu_redundant_usd) +
		    out->cat.storage_usd;
		o->it_power_w = (double)o->nodes * (t->node_power_w + t->psu_redundant_w);
		if (o->evaluated) {
			o->time_s = r->time_to_train_s;
			o->cost_usd = r->cost_usd;
			o->energy_kwh = r->energy_kwh;
			advise_band(r, "time_to_train_s", &o->time_lo_s, &o->time_mid_s,
				    &o->time_hi_s);
			advise_band(r, "cost_usd", &o->cost_lo_usd, &o->cost_mid_usd,
				    &o->cost_hi_usd);
			double hours = o->time_s / 3600.0;
			double share = hours * o->capital_usd / (out->cat.years * 8766.0);
			o->outlay_usd = o->mode == ADVISE_BUY ? o->capital_usd + o->cost_usd - share
							      : o->cost_usd;
		} else if (!o->rc && !(ask->max_gpus && o->gpus > ask->max_gpus)) {
			add_fail(o, "no layout fits in GPU memory");
		}
		if (o->rc)
			add_fail(o, "not simulated: %s", o->err);
		double lc = out->loader_cores_per_gpu * (double)t->gpus_per_node;
		constraints(ask, t, &out->cat, lc, o);
	}
	/* frontier over the evaluated options; recommendations over those that
	 * meet every constraint */
	{
		size_t n = out->n ? out->n : 1;
		double *tm = ts_calloc(n, sizeof *tm), *cs = ts_calloc(n, sizeof *cs);
		bool *ok = ts_calloc(n, sizeof *ok), *on = ts_calloc(n, sizeof *on);
		if (!tm || !cs || !ok || !on) {
			ts_free(tm, n * sizeof *tm);
			ts_free(cs, n * sizeof *cs);
			ts_free(ok, n * sizeof *ok);
			ts_free(on, n * sizeof *on);
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto fail;
		}
		/* the trade-off among the options a buyer can take: those that
		 * meet every constraint; with none, among all, to show what the
		 * constraints cost */
		bool any = false;
		for (size_t i = 0; i < out->n; i++)
			any = any || (out->o[i].evaluated && !out->o[i].fails[0]);
		for (size_t i = 0; i < out->n; i++) {
			tm[i] = out->o[i].time_s;
			cs[i] = out->o[i].cost_usd;
			ok[i] = out->o[i].evaluated && (!any || !out->o[i].fails[0]);
		}
		out->frontier_feasible = any;
		advise_frontier(tm, cs, ok, out->n, on);
		out->cheapest = out->fastest = out->n;
		out->cheapest_mode[0] = out->cheapest_mode[1] = out->n;
		for (size_t i = 0; i < out->n; i++) {
			struct advise_option *o = &out->o[i];
			o->frontier = on[i];
			if (!o->evaluated || o->fails[0])
				continue;
			if (out->cheapest == out->n || o->cost_usd < out->o[out->cheapest].cost_usd)
				out->cheapest = i;
			size_t *cm = &out->cheapest_mode[o->mode == ADVISE_BUY];
			if (*cm == out->n || o->cost_usd < out->o[*cm].cost_usd)
				*cm = i;
			if (out->fastest == out->n || o->time_s < out->o[out->fastest].time_s)
				out->fastest = i;
		}
		ts_free(tm, n * sizeof *tm);
		ts_free(cs, n * sizeof *cs);
		ts_free(ok, n * sizeof *ok);
		ts_free(on, n * sizeof *on);
	}
	for (size_t i = 0; i < out->n; i++)
		if (out->o[i].evaluated)
			why_line(out, i);
	out->seconds = wall_now() - w0;
	out->cpu_seconds = cpu_now() - c0;
	return 0;
fail:
	ts_free(out->o, out->cap * sizeof *out->o);
	out->cap = 0;
	out->o = NULL;
	out->n = 0;
	return rc;
}

void advise_result_free(struct advise_result *r)
{
	if (r && r->o)
		ts_free(r->o, r->cap * sizeof *r->o);
	if (r)
		r->o = NULL;
}
