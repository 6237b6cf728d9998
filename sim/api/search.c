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
#include "report/search.h"
#include "run/run.h"
#include "sweep/remedy.h"
#include "sweep/search.h"
#include "sweep/searchstate.h"
#include "work/ops.h"

/* A result and what would fit it. */
struct nofit {
	struct ts_result r;
	struct ts_remedies m;
};

/* When no candidate fits: the scenario as given, simulated, with what
 * would fit it (remedy_find), or NULL when it cannot be run or fits (the
 * search's own limits left nothing). Free with ts_free. */
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

/* ---- the winner as a scenario file -------------------------------------- */

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
	/* a candidate runs its micro-batches as one schedule (search.c) */
	{
		config_setting_t *par =
		    config_setting_get_member(config_root_setting(&cfg), "parallel");
		if (par && config_setting_is_group(par))
			config_setting_remove(par, "flushes");
	}
	/* the candidate's recompute mode is on every layer (search_candidate_run) */
	config_setting_t *trn = config_setting_get_member(config_root_setting(&cfg), "training");
	if (trn && config_setting_is_group(trn))
		config_setting_remove(trn, "recompute_interval");
	if (trn && config_setting_is_group(trn))
		config_setting_remove(trn, "activation_offload_layers");
	char a[14][96];
	snprintf(a[0], sizeof a[0], "nodes=%u", c->nodes);
	snprintf(a[1], sizeof a[1], "gpus_per_node=%u", c->gpus_per_node);
	snprintf(a[2], sizeof a[2], "parallel.tp=%u", c->tp);
	snprintf(a[3], sizeof a[3], "parallel.pp=%u", c->pp);
	snprintf(a[4], sizeof a[4], "parallel.cp=%u", c->cp);
	snprintf(a[5], sizeof a[5], "parallel.dp=%u", c->dp);
	snprintf(a[6], sizeof a[6], "parallel.zero=%d", c->zero);
	snprintf(a[7], sizeof a[7], "parallel.schedule=\"%s\"", ts_schedule_name(c->schedule));
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
	int wrc = report_search_scenario(path, sets, nsets, c, obj, &cfg, f);
	config_destroy(&cfg);
	if (wrc | fclose(f))
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
	h = hash_fnv1a(h, "search state 2", 14); /* 2: records with checksums */
	/* a stage search's digest as before */
	if (layer_figures)
		h = hash_fnv1a(h, "layer figures", 13);
	*d = h;
	return 0;
}

/* What the hooks of a search with a state file share. */
struct state {
	struct outfile *of;	  /* the state file, appended to */
	FILE *f;		  /* its stream */
	struct search_state kept; /* results of the earlier run (resume) */
	ts_progress_fn progress;
	void *user;
	bool write_failed;
	int write_errno; /* errno of the failed write */
};

static bool st_known(void *user, const struct search_cand *c, struct ts_result *res, int *rc)
{
	const struct state *st = user;
	return search_state_find(&st->kept, c, res, rc);
}

static void st_done(void *user, const struct search_cand *c, int rc, const struct ts_result *res)
{
	struct state *st = user;
	uint32_t k[10];
	int64_t mb;
	search_state_key(c, k, &mb);
	search_state_write(st->f, k, mb, rc, res);
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
		if (o->resume && search_state_read(o->state, d, &st.kept, &err)) {
			rc = api_fail(&err);
			goto out;
		}
		/* written anew: the digest, then the results kept (a last line cut
		 * short is dropped), into a temporary file put in place once whole
		 * (a failed write leaves the old state, or none, never an empty
		 * file), then those simulated now appended */
		if (outfile_open(o->state, "-o OUT.state", &st.of, &err)) {
			rc = api_fail(&err);
			goto out;
		}
		st.f = outfile_stream(st.of);
		search_state_write_head(st.f, d);
		for (size_t i = 0; i < st.kept.n; i++) {
			const struct search_state_entry *e = &st.kept.e[i];
			search_state_write(st.f, e->key, e->mb, e->rc, &e->res);
		}
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
	if (o->none_fit)
		*o->none_fit = !rc && !sr.ranked;
	if (!rc) {
		size_t top = o->top ? o->top : 10;
		struct ts_result *nofit = sr.ranked || o->format == TS_FORMAT_CSV
					      ? NULL
					      : nofit_remedies(env, path, sets, nsets);
		if (report_search_write(&sr, path, obj, top, nofit, o->format, out, &err))
			rc = api_fail(&err);
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
	search_state_free(&st.kept);
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
