/* Scenario loading: parse, apply --set, resolve model and cluster, read the
 * training, parallel, data, cost and sim groups, validate, and record where
 * every value came from.
 * SPDX-License-Identifier: MIT */

/* Loading runs in four steps over one libconfig tree: parse the text; apply
 * the --set arguments to the tree (each created setting labelled with its
 * argument, so provenance and messages can name it); interpret the tree
 * into a struct ts_scenario, checking every key against the known ones and
 * every value's type and range; then cross-check (parallel degrees against
 * the GPU count, batch sizes against dp) and record, key by key in a fixed
 * order, the value and where it came from. A value that is not given gets a
 * default, a value derived from others, or TS_UNSET where the training code
 * applies the framework's default. Nothing is printed; every failure is one
 * error record. To add a key: list it in its group's key table, read it in
 * that group's function, and note it in note_all(). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#define _XOPEN_SOURCE 700	/* realpath */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/units.h"
#include "io/costcfg.h"
#include "base/cfg.h"
#include "io/scenario.h"
#include "work/straggle.h"

#define MAX_NODES TS_MAX_GPUS /* a node holds at least one GPU */
#define MAX_GPUS_PER_NODE 1024
#define MAX_DEGREE 65536
/* Most simulated iterations: the schedule repeats from the second on, so
 * more only average identical iterations (and cost time and memory:
 * 100,000 took 41 s and 12 GB). */
#define MAX_ITERATIONS 100
/* Most batch sizes a ramp-up passes through (each is summed once when it is
 * turned into phases); Megatron-LM runs have tens to thousands. */
#define MAX_RAMPUP_INCREMENTS (1 << 20)

static const char *const fw_names[WORK_FW_COUNT_] = {"megatron", "deepspeed", "ddp", "fsdp"};
static const char *const opt_names[TS_OPT_COUNT_] = {"adam", "adamw", "sgd", "adam8bit",
						     "sgd-nomomentum"};
static const char *const rc_names[WORK_RECOMPUTE_COUNT_] = {"none", "selective", "full", "op"};
static const char *const off_names[TS_OFFLOAD_COUNT_] = {"none", "cpu", "nvme"};
static const char *const sched_names[TS_SCHED_COUNT_] = {"gpipe", "1f1b", "interleaved"};
static const char *const split_names[TS_SPLIT_COUNT_] = {"even", "front"};
static const char *const dispatch_names[TS_DISPATCH_COUNT_] = {"alltoall", "deepep"};
static const char *const cp_comm_names[TS_CP_COMM_COUNT_] = {"p2p", "a2a"};
static const char *const gran_names[TS_GRAN_COUNT_] = {"op", "layer", "stage", "auto"};
static const char *const mode_names[TS_MODE_COUNT_] = {"class", "full"};
static const char *const run_names[TS_RUN_COUNT_] = {"none", "tokens", "samples", "epochs",
						     "steps"};

#define NAME_FN(fn, type, table, count)                                                            \
	const char *fn(type v)                                                                     \
	{                                                                                          \
		return (unsigned)v < (count) ? table[v] : "?";                                     \
	}
NAME_FN(ts_optimizer_name, enum ts_optimizer, opt_names, TS_OPT_COUNT_)
NAME_FN(ts_offload_name, enum ts_offload, off_names, TS_OFFLOAD_COUNT_)
NAME_FN(ts_schedule_name, enum ts_schedule, sched_names, TS_SCHED_COUNT_)
NAME_FN(ts_granularity_name, enum ts_granularity, gran_names, TS_GRAN_COUNT_)
NAME_FN(ts_sim_mode_name, enum ts_sim_mode, mode_names, TS_MODE_COUNT_)
NAME_FN(ts_run_unit_name, enum ts_run_unit, run_names, TS_RUN_COUNT_)

/* ---- known keys ------------------------------------------------------- */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const root_keys[] = {
    "name", "model", "cluster", "nodes", "gpus_per_node", "nics_per_node", "training", "parallel",
    "data", "cost",  "sim",	"seed",	 "checkpoint",	  "power",	   "failures", "phases"};
static const char *const training_keys[] = {"framework",
					    "global_batch",
					    "micro_batch",
					    "seq_len",
					    "precision",
					    "optimizer",
					    "recompute",
					    "iterations",
					    "tokens",
					    "samples",
					    "epochs",
					    "steps",
					    "attention",
					    "rampup",
					    "master_weights",
					    "cross_entropy",
					    "mlm_head",
					    "grad_reduce_in_fp32",
					    "fp8_params",
					    "recompute_layers",
					    "recompute_interval",
					    "activation_offload_layers",
					    "optimizer_impl"};
static const char *const rampup_keys[] = {"start", "increment", "samples", "tokens"};
static const char *const attn_names[] = {"unfused", "flash"};
static const char *const parallel_keys[] = {"tp",
					    "pp",
					    "dp",
					    "cp",
					    "ep",
					    "sp",
					    "fsdp_version",
					    "limit_all_gathers",
					    "zero",
					    "offload",
					    "schedule",
					    "interleave",
					    "bucket",
					    "overlap_grad_reduce",
					    "tp_comm_overlap",
					    "first_stage_layers",
					    "last_stage_layers",
					    "account_for_embedding",
					    "account_for_loss",
					    "layer_split",
					    "ep_dispatcher",
					    "cp_comm",
					    "flushes",
					    "reshard_after_forward"};
static const char *const data_keys[] = {"dataset", "storage", "workers_per_gpu", "prefetch",
					"pinned"};
static const char *const sim_keys[] = {"granularity",
				       "mode",
				       "extrapolate",
				       "max_memory",
				       "straggler_sd",
				       "samples",
				       "jitter",
				       "net_noise",
				       "slow_node_probability",
				       "slow_node_slowdown",
				       "slow_link_probability",
				       "slow_link_bandwidth"};

/* One load in progress. */
struct ld {
	const struct hw_catalog *cat;
	const char *root;      /* project root: models/, configs/clusters/ */
	const char *file;      /* scenario file (or label) for messages */
	char dir[1024];	       /* its directory, for relative paths; "" = cwd */
	config_setting_t *top; /* root setting of the tree */
	struct ts_scenario *s;
	struct ts_error *err;
	const config_setting_t *g_training, *g_parallel, *g_data, *g_cost, *g_sim;
};

static const config_setting_t *member(const config_setting_t *g, const char *name)
{
	return g ? config_setting_get_member(g, name) : NULL;
}

/* Fetch group `name` of the root: NULL if absent, TS_ETYPE if not a group. */
static int group(struct ld *l, const char *name, const config_setting_t **out)
{
	const config_setting_t *g = member(l->top, name);
	*out = NULL;
	if (!g)
		return 0;
	if (!config_setting_is_group(g)) {
		char fb[160];
		return cfg_fail(l->err, TS_ETYPE, g, l->file, name,
				"found %s, expected a group %s = { ... };",
				cfg_found(g, fb, sizeof fb), name);
	}
	*out = g;
	return 0;
}

static int get_int(struct ld *l, const config_setting_t *g, const char *prefix, const char *name,
		   int64_t min, int64_t max, int64_t def, int64_t *out)
{
	char key[96];
	const config_setting_t *s = member(g, name);
	snprintf(key, sizeof key, "%s%s", prefix, name);
	if (!s) {
		*out = def;
		return 0;
	}
	return cfg_int(s, l->file, key, min, max, out, l->err);
}

static int get_u32(struct ld *l, const config_setting_t *g, const char *prefix, const char *name,
		   int64_t min, int64_t max, int64_t def, uint32_t *out)
{
	int64_t v;
	int rc = get_int(l, g, prefix, name, min, max, def, &v);
	if (!rc)
		*out = (uint32_t)v;
	return rc;
}

/* A boolean key that may be left unset: *out = 1 (true), 0 (false) or
 * TS_UNSET when the group lacks it (the plan then takes the framework's
 * default). Returns 0 or cfg_bool's error naming prefix + name. */
static int get_tribool(struct ld *l, const config_setting_t *g, const char *prefix,
		       const char *name, int *out)
{
	char key[96];
	const config_setting_t *s = member(g, name);
	bool b;
	int rc;
	*out = TS_UNSET;
	if (!s)
		return 0;
	snprintf(key, sizeof key, "%s%s", prefix, name);
	if ((rc = cfg_bool(s, l->file, key, &b, l->err)))
		return rc;
	*out = b ? 1 : 0;
	return 0;
}

static int get_enum(struct ld *l, const config_setting_t *g, const char *prefix, const char *name,
		    const char *const *names, size_t n, int def, int *out)
{
	char key[96];
	const config_setting_t *s = member(g, name);
	snprintf(key, sizeof key, "%s%s", prefix, name);
	if (!s) {
		*out = def;
		return 0;
	}
	return cfg_enum(s, l->file, key, names, n, out, l->err);
}

/* List a key that is accepted but not modelled (DESIGN.md, "Interfaces"). */
static int not_modelled(struct ts_scenario *s, struct ts_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), unused));

static int not_modelled(struct ts_scenario *s, struct ts_error *err, const char *fmt, ...)
{
	char buf[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t cap = s->n_not_modelled;
	char **a = ts_realloc(s->not_modelled, cap * sizeof *a, (cap + 1) * sizeof *a);
	if (!a)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	s->not_modelled = a;
	if (!(a[cap] = ts_strdup(buf)))
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	s->n_not_modelled++;
	return 0;
}

/* ---- model and cluster ------------------------------------------------- */

static int is_path(const char *name)
{
	size_t n = strlen(name);
	return strchr(name, '/') != NULL || (n > 4 && strcmp(name + n - 4, ".cfg") == 0);
}

/* A path relative to the scenario's directory. */
static void resolve_path(const struct ld *l, const char *name, char *buf, size_t n)
{
	if (name[0] != '/' && l->dir[0])
		snprintf(buf, n, "%s/%s", l->dir, name);
	else
		snprintf(buf, n, "%s", name);
}

/* The model line's value as libconfig text for --dump-config, when the
 * model's name does not give it back: an inline group whole, its
 * hf_config path made absolute, or a file or Hugging Face config named by
 * a path, absolute, so that the dump loads from any folder. NULL when out of
 * memory. */
static char *model_line_text(const struct ld *l, config_setting_t *ms)
{
	char rel[2048], abs[PATH_MAX];
	if (!config_setting_is_group(ms)) {
		const char *name = config_setting_get_string(ms);
		bool hf = strncmp(name, "hf:", 3) == 0;
		resolve_path(l, hf ? name + 3 : name, rel, sizeof rel);
		const char *p = realpath(rel, abs) ? abs : rel;
		size_t n = (hf ? 3 : 0) + strlen(p) + 3; /* quotes and NUL */
		char *t = ts_malloc(n);
		if (t)
			snprintf(t, n, "\"%s%s\"", hf ? "hf:" : "", p);
		return t;
	}
	/* hf_config is relative to the scenario (configs/README.md): written
	 * absolute, then put back as the file gave it */
	config_setting_t *k = config_setting_get_member(ms, "hf_config");
	const char *v = k ? config_setting_get_string(k) : NULL;
	char *was = NULL, *t = NULL;
	if (v && v[0] != '/') {
		resolve_path(l, v, rel, sizeof rel);
		if (realpath(rel, abs)) {
			size_t n = strlen(v) + 1;
			if (!(was = ts_malloc(n)))
				return NULL;
			memcpy(was, v, n);
			if (!config_setting_set_string(k, abs))
				goto out;
		}
	}
	t = cfg_setting_text(ms);
out:
	if (was) {
		config_setting_set_string(k, was);
		ts_free(was, strlen(was) + 1);
	}
	return t;
}

static int load_model(struct ld *l)
{
	const config_setting_t *ms = member(l->top, "model");
	char fb[160];
	int rc;
	if (!ms)
		return ts_error_set(
		    l->err, TS_EINVALID, l->file, 0, "model",
		    "found no model, expected model = \"NAME\" (a file of %s/models/) "
		    "or an inline group",
		    l->root);
	if (config_setting_is_group(ms)) {
		/* kept as text so that --dump-config gives the group back: the
		 * model's name ("BASE (modified)", an inline name) names no file */
		if (!(l->s->model_text = model_line_text(l, (config_setting_t *)ms)))
			return ts_error_set(l->err, TS_ENOMEM, l->file, 0, NULL, "out of memory");
		return ts_model_from_setting(l->root, ms, l->file, "model", &l->s->model, l->err);
	}
	if (config_setting_type(ms) != CONFIG_TYPE_STRING)
		return cfg_fail(
		    l->err, TS_ETYPE, ms, l->file, "model",
		    "found %s, expected a model name or a group { base = \"NAME\"; ... }",
		    cfg_found(ms, fb, sizeof fb));
	const char *name = config_setting_get_string(ms);
	char path[2048];
	if (strncmp(name, "hf:", 3) == 0) { /* a Hugging Face config.json */
		char rel[2040];
		resolve_path(l, name + 3, rel, sizeof rel);
		snprintf(path, sizeof path, "hf:%s", rel);
		snprintf(l->s->model_file, sizeof l->s->model_file, "%s", rel);
	} else if (is_path(name)) {
		resolve_path(l, name, path, sizeof path);
		snprintf(l->s->model_file, sizeof l->s->model_file, "%s", path);
	} else {
		snprintf(path, sizeof path, "%s", name);
	}
	if (l->s->model_file[0] && !(l->s->model_text = model_line_text(l, (config_setting_t *)ms)))
		return ts_error_set(l->err, TS_ENOMEM, l->file, 0, NULL, "out of memory");
	rc = ts_model_load(l->root, path, &l->s->model, l->err);
	if (rc == TS_EUNKNOWN_NAME && l->err && !l->err->file[0]) {
		/* name the scenario line that asked for the model */
		char msg[sizeof l->err->msg];
		snprintf(msg, sizeof msg, "%s", l->err->msg);
		return cfg_fail(l->err, rc, ms, l->file, "model", "%s", msg);
	}
	if (rc == TS_EIO && is_path(name) && l->err) {
		char msg[sizeof l->err->msg];
		const char *why = l->err->msg;
		if (!strncmp(why, "found ", 6)) /* "found something that is not a ..." */
			why += 6;
		snprintf(msg, sizeof msg, "found \"%.200s\": %.400s", path, why);
		return cfg_fail(l->err, rc, ms, l->file, "model", "%s", msg);
	}
	return rc;
}

/* The --set argument that gave the setting at dotted `key` of top, or an
 * enclosing group of it; NULL when the file gave it. The hardware layer
 * names the file it was handed, which for an inline group is the scenario:
 * this puts the blame on the --set argument instead. */
static const char *set_label(const config_setting_t *top, const char *key)
{
	char path[sizeof((struct ts_error *)0)->key];
	snprintf(path, sizeof path, "%s", key);
	while (path[0]) {
		const config_setting_t *s = config_setting_lookup((config_setting_t *)top, path);
		for (; s && !config_setting_is_root(s); s = config_setting_parent(s))
			if (config_setting_get_hook(s))
				return config_setting_get_hook(s);
		if (s)
			return NULL;
		char *cut = strrchr(path, '.'), *br = strrchr(path, '[');
		if (!cut || br > cut)
			cut = br;
		if (!cut)
			break;
		*cut = '\0';
	}
	return NULL;
}

static int load_cluster(struct ld *l)
{
	struct ts_scenario *s = l->s;
	struct hw_cluster_opts opts = {0, 0, 0};
	int rc;
	char fb[160];
	if ((rc = get_u32(l, l->top, "", "nodes", 1, MAX_NODES, 0, &opts.nodes)) ||
	    (rc = get_u32(l, l->top, "", "gpus_per_node", 1, MAX_GPUS_PER_NODE, 0,
			  &opts.gpus_per_node)) ||
	    (rc = get_u32(l, l->top, "", "nics_per_node", 1, MAX_GPUS_PER_NODE, 0,
			  &opts.nics_per_node)))
		return rc;
	const config_setting_t *cs = member(l->top, "cluster");
	if (!cs)
		return ts_error_set(l->err, TS_EINVALID, l->file, 0, "cluster",
				    "found no cluster, expected cluster = \"NAME\" (a file of "
				    "%s/configs/clusters/) or an inline group",
				    l->root);
	if (config_setting_is_group(cs)) {
		/* a count given twice, in the scenario and in its inline
		 * cluster: refuse rather than let one win unseen */
		static const char *const counts[] = {"nodes", "gpus_per_node", "nics_per_node"};
		for (size_t i = 0; i < COUNT(counts); i++) {
			const config_setting_t *in = member(cs, counts[i]);
			const config_setting_t *top = member(l->top, counts[i]);
			if (in && top) {
				char key[64], where[300], at[320];
				int line = 0;
				snprintf(key, sizeof key, "cluster.%s", counts[i]);
				/* the line of the scenario's count, or the --set that
				 * made it (which has no line) */
				cfg_where(top, l->file, where, sizeof where, &line);
				if (line > 0)
					snprintf(at, sizeof at, "line %d", line);
				else
					snprintf(at, sizeof at, "%s", where);
				return cfg_fail(l->err, TS_EINVALID, in, l->file, key,
						"found it beside the scenario's %s (%s), expected "
						"one of the two",
						counts[i], at);
			}
		}
		/* kept as text so that --dump-config gives the group back */
		if (!(s->cluster_text = cfg_setting_text(cs)))
			return ts_error_set(l->err, TS_ENOMEM, l->file, 0, NULL, "out of memory");
		rc = hw_cluster_from_setting(l->cat, cs, l->file, &opts, &s->cluster, l->err);
	} else if (config_setting_type(cs) == CONFIG_TYPE_STRING) {
		const char *name = config_setting_get_string(cs);
		char path[2048];
		struct stat st;
		if (is_path(name)) {
			resolve_path(l, name, path, sizeof path);
			if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
				return cfg_fail(
				    l->err, TS_EIO, cs, l->file, "cluster",
				    "found \"%.200s\", expected an existing cluster file", path);
			snprintf(s->cluster_file, sizeof s->cluster_file, "%s", path);
		} else {
			snprintf(path, sizeof path, "%s/configs/clusters/%s.cfg", l->root, name);
			if (!name[0] || stat(path, &st) != 0) {
				char dir[1100], near[256], all[512];
				snprintf(dir, sizeof dir, "%s/configs/clusters", l->root);
				cfg_names(dir, name, 3, near, sizeof near);
				if (!near[0])
					cfg_names(dir, NULL, 0, all, sizeof all);
				return cfg_fail(l->err, TS_EUNKNOWN_NAME, cs, l->file, "cluster",
						"found \"%.100s\", expected a cluster of %s; %s%s",
						name, dir, near[0] ? "closest: " : "known: ",
						near[0] ? near : (all[0] ? all : "none"));
			}
		}
		rc = hw_cluster_load(l->cat, path, &opts, &s->cluster, l->err);
	} else {
		return cfg_fail(
		    l->err, TS_ETYPE, cs, l->file, "cluster",
		    "found %s, expected a cluster name or a group { base = \"NAME\"; ... }",
		    cfg_found(cs, fb, sizeof fb));
	}
	if (rc) {
		s->cluster = NULL;
		/* an override the cluster refuses: name the scenario line that set it */
		const config_setting_t *o =
		    l->err && !l->err->line ? member(l->top, l->err->key) : NULL;
		if (o && (!strcmp(l->err->key, "nodes") || !strcmp(l->err->key, "gpus_per_node") ||
			  !strcmp(l->err->key, "nics_per_node"))) {
			char msg[sizeof l->err->msg], key[sizeof l->err->key];
			snprintf(msg, sizeof msg, "%s", l->err->msg);
			snprintf(key, sizeof key, "%s", l->err->key);
			return cfg_fail(l->err, rc, o, l->file, key, "%s", msg);
		}
		const char *by = l->err && !l->err->line && !strcmp(l->err->file, l->file)
				     ? set_label(l->top, l->err->key)
				     : NULL;
		if (by)
			snprintf(l->err->file, sizeof l->err->file, "%s", by);
		return rc;
	}
	s->nodes = hw_cluster_nodes(s->cluster);
	s->gpus_per_node = hw_cluster_gpus_per_node(s->cluster);
	s->nics_per_node = hw_cluster_nics_per_node(s->cluster);
	s->gpus = hw_cluster_gpus(s->cluster);
	if (s->gpus == 0)
		return cfg_fail(l->err, TS_EINVALID, cs, l->file, "cluster",
				"found a cluster without GPUs, expected at least one GPU");
	return 0;
}

/* ---- groups ------------------------------------------------------------ */

/* training.rampup = { start; increment; samples | tokens; } (Megatron-LM's
 * --rampup-batch-size START INCREMENT SAMPLES); tokens are turned into
 * samples in check(), where seq_len is known. */
static int read_rampup(struct ld *l)
{
	struct ts_training *t = &l->s->training;
	const config_setting_t *g = member(l->g_training, "rampup");
	const char *p = "training.rampup.";
	int rc;
	t->rampup_start = t->rampup_increment = 0;
	t->rampup_samples = 0.0;
	if (!g)
		return 0;
	if (!config_setting_is_group(g)) {
		char fb[160];
		return cfg_fail(l->err, TS_ETYPE, g, l->file, "training.rampup",
				"found %s, expected a group rampup = { start = 32; increment = 32; "
				"samples = 6.0e6; };",
				cfg_found(g, fb, sizeof fb));
	}
	if ((rc = cfg_check_keys(g, l->file, p, rampup_keys, COUNT(rampup_keys), l->err)))
		return rc;
	static const char *const need[] = {"start", "increment"};
	for (int i = 0; i < 2; i++)
		if (!member(g, need[i]))
			return cfg_fail(l->err, TS_EINVALID, g, l->file, "training.rampup",
					"found no %s, expected start, increment and samples (or "
					"tokens), as Megatron's --rampup-batch-size",
					need[i]);
	if ((rc = get_int(l, g, p, "start", 1, (int64_t)1 << 40, 0, &t->rampup_start)) ||
	    (rc = get_int(l, g, p, "increment", 1, (int64_t)1 << 40, 0, &t->rampup_increment)))
		return rc;
	const config_setting_t *ns = member(g, "samples"), *nt = member(g, "tokens");
	if (ns && nt)
		return cfg_fail(l->err, TS_EINVALID, nt, l->file, "training.rampup.tokens",
				"found both samples (line %d) and tokens, expected one ramp length",
				config_setting_source_line(ns));
	if (!ns && !nt)
		return cfg_fail(l->err, TS_EINVALID, g, l->file, "training.rampup",
				"found no ramp length, expected samples or tokens");
	double v;
	if ((rc = cfg_float(ns ? ns : nt, l->file,
			    ns ? "training.rampup.samples" : "training.rampup.tokens", CFG_POSITIVE,
			    1e30, &v, l->err)))
		return rc;
	/* tokens: a negative count marks them until seq_len is known (check) */
	t->rampup_samples = ns ? v : -v;
	return 0;
}

static int read_training(struct ld *l)
{
	struct ts_training *t = &l->s->training;
	const config_setting_t *g = l->g_training;
	const char *p = "training.";
	int rc, e;
	if ((rc = cfg_check_keys(g, l->file, p, training_keys, COUNT(training_keys), l->err)))
		return rc;
	if ((rc = get_enum(l, g, p, "framework", fw_names, WORK_FW_COUNT_, WORK_FW_MEGATRON, &e)))
		return rc;
	t->framework = (enum work_framework)e;
	if ((rc = get_int(l, g, p, "global_batch", 1, (int64_t)1 << 40, 0, &t->global_batch)) ||
	    (rc = get_int(l, g, p, "micro_batch", 1, (int64_t)1 << 30, 1, &t->micro_batch)) ||
	    (rc = get_int(l, g, p, "seq_len", 1, (int64_t)1 << 26, l->s->model.seq_len,
			  &t->seq_len)) ||
	    (rc = get_int(l, g, p, "iterations", 2, MAX_ITERATIONS, 3, &t->iterations)))
		return rc;
	const char *dt[TS_DTYPE_COUNT_];
	for (int i = 0; i < TS_DTYPE_COUNT_; i++)
		dt[i] = ts_dtype_name((enum ts_dtype)i);
	if ((rc = get_enum(l, g, p, "precision", dt, TS_DTYPE_COUNT_, TS_UNSET, &t->precision)))
		return rc;
	if ((rc = get_enum(l, g, p, "optimizer", opt_names, TS_OPT_COUNT_, TS_OPT_ADAM, &e)))
		return rc;
	t->optimizer = (enum ts_optimizer)e;
	if ((rc = get_enum(l, g, p, "recompute", rc_names, WORK_RECOMPUTE_COUNT_,
			   WORK_RECOMPUTE_NONE, &e)))
		return rc;
	t->recompute = (enum work_recompute)e;
	if ((rc = get_enum(l, g, p, "attention", attn_names, 2, 1, &e)))
		return rc;
	t->flash_attention = e == 1;
	static const char *const xent_names[WORK_XENT_COUNT_] = {"fused", "upcast", "chunked"};
	if ((rc = get_enum(l, g, p, "cross_entropy", xent_names, WORK_XENT_COUNT_, WORK_XENT_FUSED,
			   &e)))
		return rc;
	t->xent = (enum work_xent)e;
	static const char *const mlm_names[] = {"all", "masked"};
	if ((rc = get_enum(l, g, p, "mlm_head", mlm_names, 2, 0, &e)))
		return rc;
	t->mlm_masked = e == 1;
	if (t->mlm_masked && l->s->model.family != TS_FAMILY_BERT)
		return cfg_fail(l->err, TS_EINVALID, member(g, "mlm_head"), l->file,
				"training.mlm_head",
				"found \"masked\" with a %s model, expected a bert model (the "
				"masked-LM head is BERT's)",
				ts_model_family_name(l->s->model.family));
	if ((rc = get_tribool(l, g, p, "grad_reduce_in_fp32", &t->grad_reduce_in_fp32)))
		return rc;
	if ((rc = get_int(l, g, p, "recompute_layers", 0, 1 << 20, 0, &t->recompute_layers)))
		return rc;
	if ((rc = get_int(l, g, p, "recompute_interval", 0, 1 << 20, 0, &t->recompute_interval)))
		return rc;
	if ((rc = get_int(l, g, p, "activation_offload_layers", 0, 1 << 20, 0,
			  &t->activation_offload_layers)))
		return rc;
	t->fp8_params = false;
	if (member(g, "fp8_params") &&
	    (rc = cfg_bool(member(g, "fp8_params"), l->file, "training.fp8_params", &t->fp8_params,
			   l->err)))
		return rc;
	static const char *const impl_names[TS_OPTIMPL_COUNT_] = {"foreach", "fused", "for-loop"};
	if ((rc = get_enum(l, g, p, "optimizer_impl", impl_names, TS_OPTIMPL_COUNT_, TS_UNSET, &e)))
		return rc;
	t->optimizer_impl = e;
	t->master_weights = true;
	if (member(g, "master_weights") &&
	    (rc = cfg_bool(member(g, "master_weights"), l->file, "training.master_weights",
			   &t->master_weights, l->err)))
		return rc;

	t->run_unit = TS_RUN_NONE;
	t->run_length = 0.0;
	const config_setting_t *first = NULL;
	for (int u = TS_RUN_TOKENS; u < TS_RUN_COUNT_; u++) {
		const config_setting_t *s = member(g, run_names[u]);
		char key[64];
		if (!s)
			continue;
		snprintf(key, sizeof key, "training.%s", run_names[u]);
		if (first)
			return cfg_fail(l->err, TS_EINVALID, s, l->file, key,
					"found both %s and %s, expected one run length (tokens, "
					"samples, epochs or steps)",
					config_setting_name(first), run_names[u]);
		double v;
		if ((rc = cfg_float(s, l->file, key, CFG_POSITIVE, 1e30, &v, l->err)))
			return rc;
		t->run_unit = (enum ts_run_unit)u;
		t->run_length = v;
		first = s;
	}
	return read_rampup(l);
}

static int read_parallel(struct ld *l)
{
	struct ts_parallel *q = &l->s->parallel;
	const config_setting_t *g = l->g_parallel;
	const char *p = "parallel.";
	int rc, e;
	int64_t z;
	if ((rc = cfg_check_keys(g, l->file, p, parallel_keys, COUNT(parallel_keys), l->err)))
		return rc;
	if ((rc = get_u32(l, g, p, "tp", 1, MAX_DEGREE, 1, &q->tp)) ||
	    (rc = get_u32(l, g, p, "pp", 1, MAX_DEGREE, 1, &q->pp)) ||
	    (rc = get_u32(l, g, p, "cp", 1, MAX_DEGREE, 1, &q->cp)) ||
	    (rc = get_u32(l, g, p, "ep", 1, MAX_DEGREE, 1, &q->ep)) ||
	    (rc = get_u32(l, g, p, "dp", 1, (int64_t)MAX_NODES * MAX_GPUS_PER_NODE, 0, &q->dp)) ||
	    (rc = get_u32(l, g, p, "interleave", 1, 1024, 1, &q->interleave)) ||
	    (rc = get_u32(l, g, p, "flushes", 1, 1 << 16, 1, &q->flushes)) ||
	    (rc = get_u32(l, g, p, "first_stage_layers", 1, UINT16_MAX, 0,
			  &q->first_stage_layers)) ||
	    (rc = get_u32(l, g, p, "last_stage_layers", 1, UINT16_MAX, 0, &q->last_stage_layers)) ||
	    (rc = get_int(l, g, p, "zero", 0, 3, l->s->training.framework == WORK_FW_FSDP ? 3 : 0,
			  &z)))
		return rc;
	q->zero = (int)z;
	q->sp = false;
	if (member(g, "sp") &&
	    (rc = cfg_bool(member(g, "sp"), l->file, "parallel.sp", &q->sp, l->err)))
		return rc;
	q->account_embedding = q->account_loss = false;
	if (member(g, "account_for_embedding") &&
	    (rc = cfg_bool(member(g, "account_for_embedding"), l->file,
			   "parallel.account_for_embedding", &q->account_embedding, l->err)))
		return rc;
	if (member(g, "account_for_loss") &&
	    (rc = cfg_bool(member(g, "account_for_loss"), l->file, "parallel.account_for_loss",
			   &q->account_loss, l->err)))
		return rc;
	/* FSDP's implementation and FSDP1's rate limiter (plan.c checks them
	 * against the framework and the ZeRO stage) */
	int64_t fv;
	if ((rc = get_int(l, g, p, "fsdp_version", 1, 2, TS_UNSET, &fv)) ||
	    (rc = get_tribool(l, g, p, "limit_all_gathers", &q->limit_all_gathers)) ||
	    (rc = get_tribool(l, g, p, "reshard_after_forward", &q->reshard_after_forward)))
		return rc;
	q->fsdp_version = (int)fv;
	q->tp_comm_overlap = false;
	if (member(g, "tp_comm_overlap") &&
	    (rc = cfg_bool(member(g, "tp_comm_overlap"), l->file, "parallel.tp_comm_overlap",
			   &q->tp_comm_overlap, l->err)))
		return rc;
	if ((rc = get_enum(l, g, p, "offload", off_names, TS_OFFLOAD_COUNT_, TS_OFFLOAD_NONE, &e)))
		return rc;
	q->offload = (enum ts_offload)e;
	if ((rc = get_enum(l, g, p, "schedule", sched_names, TS_SCHED_COUNT_, TS_SCHED_1F1B, &e)))
		return rc;
	q->schedule = (enum ts_schedule)e;
	if ((rc =
		 get_enum(l, g, p, "layer_split", split_names, TS_SPLIT_COUNT_, TS_SPLIT_EVEN, &e)))
		return rc;
	q->layer_split = (enum ts_layer_split)e;
	if ((rc = get_enum(l, g, p, "ep_dispatcher", dispatch_names, TS_DISPATCH_COUNT_,
			   TS_DISPATCH_ALLTOALL, &e)))
		return rc;
	q->ep_dispatcher = (enum ts_ep_dispatcher)e;
	if ((rc = get_enum(l, g, p, "cp_comm", cp_comm_names, TS_CP_COMM_COUNT_, TS_CP_P2P, &e)))
		return rc;
	q->cp_comm = (enum ts_cp_comm)e;

	q->bucket_bytes = TS_UNSET;
	const config_setting_t *bs = member(g, "bucket");
	if (bs && config_setting_type(bs) == CONFIG_TYPE_STRING &&
	    strcmp(config_setting_get_string(bs), "none") == 0) {
		q->bucket_bytes = 0;
	} else if (bs) {
		double v;
		if ((rc = cfg_bytes(bs, l->file, "parallel.bucket", &v, l->err)))
			return rc;
		q->bucket_bytes = (int64_t)ceil(v);
	}
	return get_tribool(l, g, p, "overlap_grad_reduce", &q->overlap_grad_reduce);
}

static int read_data(struct ld *l)
{
	struct ts_data *d = &l->s->data;
	const config_setting_t *g = l->g_data;
	const char *p = "data.";
	int rc;
	if ((rc = cfg_check_keys(g, l->file, p, data_keys, COUNT(data_keys), l->err)))
		return rc;
	d->dataset[0] = d->storage[0] = '\0';
	if (member(g, "dataset") && (rc = cfg_string(member(g, "dataset"), l->file, "data.dataset",
						     d->dataset, sizeof d->dataset, l->err)))
		return rc;
	if (member(g, "storage") && (rc = cfg_string(member(g, "storage"), l->file, "data.storage",
						     d->storage, sizeof d->storage, l->err)))
		return rc;
	if ((rc = get_u32(l, g, p, "workers_per_gpu", 1, 1024, 4, &d->workers_per_gpu)) ||
	    (rc = get_u32(l, g, p, "prefetch", 0, 1024, 2, &d->prefetch)))
		return rc;
	d->pinned = true;
	if (member(g, "pinned") &&
	    (rc = cfg_bool(member(g, "pinned"), l->file, "data.pinned", &d->pinned, l->err)))
		return rc;
	return 0;
}

static int read_rest(struct ld *l)
{
	struct ts_scenario *s = l->s;
	int rc, e;
	int64_t v;
	if ((rc = costcfg_read(l->top, l->file, &s->cost, &s->checkpoint, &s->power, &s->failures,
			       l->err)) ||
	    (rc = cfg_check_keys(l->g_sim, l->file, "sim.", sim_keys, COUNT(sim_keys), l->err)))
		return rc;
	if ((rc = get_enum(l, l->g_sim, "sim.", "granularity", gran_names, TS_GRAN_COUNT_,
			   TS_GRAN_AUTO, &e)))
		return rc;
	s->sim.granularity = (enum ts_granularity)e;
	if ((rc = get_enum(l, l->g_sim, "sim.", "mode", mode_names, TS_MODE_COUNT_, TS_MODE_CLASS,
			   &e)))
		return rc;
	s->sim.mode = (enum ts_sim_mode)e;
	s->sim.extrapolate = true;
	if (member(l->g_sim, "extrapolate") &&
	    (rc = cfg_bool(member(l->g_sim, "extrapolate"), l->file, "sim.extrapolate",
			   &s->sim.extrapolate, l->err)))
		return rc;
	s->sim.max_memory = 0.0;
	const config_setting_t *mm = member(l->g_sim, "max_memory");
	if (mm && (rc = cfg_bytes(mm, l->file, "sim.max_memory", &s->sim.max_memory, l->err)))
		return rc;
	if (mm && !(s->sim.max_memory >= 1.0)) {
		return cfg_fail(l->err, TS_ERANGE, mm, l->file, "sim.max_memory",
				"found %g bytes, expected at least 1 byte", s->sim.max_memory);
	}
	s->sim.straggler_sd = STRAGGLE_SIGMA;
	const config_setting_t *sd = member(l->g_sim, "straggler_sd");
	if (sd && (rc = cfg_float(sd, l->file, "sim.straggler_sd", 0.0, 0.5, &s->sim.straggler_sd,
				  l->err)))
		return rc;
	if ((rc = get_u32(l, l->g_sim, "sim.", "samples", 1, 100000, MC_SAMPLES_DEFAULT,
			  &s->sim.samples)))
		return rc;
	const struct {
		const char *key;
		double lo, hi, def;
		double *out;
	} mc[] = {
	    {"jitter", 0.0, 0.5, 0.0, &s->sim.jitter},
	    {"net_noise", 0.0, 0.5, 0.0, &s->sim.net_noise},
	    {"slow_node_probability", 0.0, 1.0, 0.0, &s->sim.slow_node_p},
	    {"slow_node_slowdown", 0.0, 10.0, 0.1, &s->sim.slow_node_slowdown},
	    {"slow_link_probability", 0.0, 1.0, 0.0, &s->sim.slow_link_p},
	    /* a link at a hundredth of its speed is as slow as a fault that
	     * leaves it up gets; below, it is down (failures) */
	    {"slow_link_bandwidth", 0.01, 1.0, 0.5, &s->sim.slow_link_bw},
	};
	for (size_t i = 0; i < COUNT(mc); i++) {
		char key[64];
		snprintf(key, sizeof key, "sim.%s", mc[i].key);
		const config_setting_t *m = member(l->g_sim, mc[i].key);
		*mc[i].out = mc[i].def;
		if (m && (rc = cfg_float(m, l->file, key, mc[i].lo, mc[i].hi, mc[i].out, l->err)))
			return rc;
	}
	if ((rc = get_int(l, l->top, "", "seed", 0, INT64_MAX, 1, &v)))
		return rc;
	s->seed = (uint64_t)v;
	const config_setting_t *nm = member(l->top, "name");
	if (nm && (rc = cfg_string(nm, l->file, "name", s->name, sizeof s->name, l->err)))
		return rc;
	/* a file's name describes the file's run: once a --set changes the
	 * model or the cluster (and not the name too), the name is derived as
	 * when the file gives none; a --set of the node or GPU count is added
	 * to the file's name ("..., nodes=256"), so that a heading never names
	 * a run that is not the one reported */
	bool by_set = nm && config_setting_get_hook(nm);
	const config_setting_t *mset = member(l->top, "model"), *cm = member(l->top, "cluster"),
			       *nn = member(l->top, "nodes"), *gm = member(l->top, "gpus_per_node");
	if (!nm || (!by_set && ((mset && config_setting_get_hook(mset)) ||
				(cm && config_setting_get_hook(cm))))) {
		snprintf(s->name, sizeof s->name, "%.60s on %.60s", s->model.name,
			 hw_cluster_name(s->cluster));
	} else if (!by_set) {
		char suf[64] = "";
		size_t sl = 0;
		if (nn && config_setting_get_hook(nn))
			sl += (size_t)snprintf(suf + sl, sizeof suf - sl, ", nodes=%u", s->nodes);
		if (gm && config_setting_get_hook(gm))
			snprintf(suf + sl, sizeof suf - sl, ", gpus_per_node=%u", s->gpus_per_node);
		sl = strlen(suf);
		/* the suffix says which run this is, so it is never the part cut:
		 * a name too long for both is shortened at a whole UTF-8
		 * character and marked "..." */
		size_t k = strlen(s->name);
		if (sl && k + sl >= sizeof s->name) {
			k = sizeof s->name - 1 - sl - 3;
			while (k && ((unsigned char)s->name[k] & 0xC0) == 0x80)
				k--; /* not inside a character */
			memcpy(s->name + k, "...", 4);
			k += 3;
		}
		memcpy(s->name + k, suf, sl + 1);
	}
	return 0;
}

/* ---- cross-checks ------------------------------------------------------ */

/* The setting a cross-check error points at: the first of the named keys of
 * group g that is given, else the group itself, else nothing. */
static const config_setting_t *culprit(const config_setting_t *g, const char *a, const char *b,
				       const char *c, const char **key)
{
	const char *names[3] = {a, b, c};
	/* a key set to more than 1 first: tp = 1 cannot make a product that
	 * does not divide the GPUs, the pp = 25 beside it can */
	for (int i = 0; i < 3; i++) {
		const config_setting_t *m = names[i] ? member(g, names[i]) : NULL;
		int ty = m ? config_setting_type(m) : CONFIG_TYPE_NONE;
		if ((ty == CONFIG_TYPE_INT || ty == CONFIG_TYPE_INT64) &&
		    config_setting_get_int64(m) > 1) {
			*key = names[i];
			return m;
		}
	}
	for (int i = 0; i < 3; i++) {
		if (names[i] && member(g, names[i])) {
			*key = names[i];
			return member(g, names[i]);
		}
	}
	*key = a;
	return g;
}

/* The ramp-up against the global batch and the run length: Megatron's rule
 * that (global_batch - start) be a multiple of increment; a run length in
 * tokens or samples (steps and epochs do not say how many samples the ramp
 * leaves); a ramp shorter than the run. */
static int check_rampup(struct ld *l)
{
	struct ts_training *t = &l->s->training;
	const config_setting_t *g = member(l->g_training, "rampup");
	if (!t->rampup_start)
		return 0;
	const config_setting_t *ph = member(l->top, "phases");
	if (ph)
		return cfg_fail(
		    l->err, TS_EUNSUPPORTED, g, l->file, "training.rampup",
		    "found a ramp-up beside phases (line %d), expected one of the two (a "
		    "ramp-up inside a phase is not modelled yet)",
		    config_setting_source_line(ph));
	if (t->rampup_samples < 0.0)
		t->rampup_samples = -t->rampup_samples / (double)t->seq_len;
	if (t->rampup_start >= t->global_batch)
		return cfg_fail(l->err, TS_EINVALID, member(g, "start"), l->file,
				"training.rampup.start",
				"found %lld, expected less than global_batch = %lld",
				(long long)t->rampup_start, (long long)t->global_batch);
	if ((t->global_batch - t->rampup_start) % t->rampup_increment != 0)
		return cfg_fail(l->err, TS_EINVALID, member(g, "increment"), l->file,
				"training.rampup.increment",
				"found %lld, expected a divisor of global_batch - start = %lld - "
				"%lld = %lld (as Megatron-LM requires)",
				(long long)t->rampup_increment, (long long)t->global_batch,
				(long long)t->rampup_start,
				(long long)(t->global_batch - t->rampup_start));
	int64_t K = (t->global_batch - t->rampup_start) / t->rampup_increment;
	if (K > MAX_RAMPUP_INCREMENTS)
		return cfg_fail(
		    l->err, TS_ELIMIT, member(g, "increment"), l->file, "training.rampup.increment",
		    "found %lld increments of %lld from %lld to %lld, expected at most %d",
		    (long long)K, (long long)t->rampup_increment, (long long)t->rampup_start,
		    (long long)t->global_batch, MAX_RAMPUP_INCREMENTS);
	if (t->run_unit != TS_RUN_TOKENS && t->run_unit != TS_RUN_SAMPLES)
		return cfg_fail(l->err, TS_EINVALID, g, l->file, "training.rampup",
				"found a ramp-up with %s, expected the run length in tokens or "
				"samples (the ramp's samples count in it)",
				t->run_unit == TS_RUN_NONE ? "no run length"
							   : ts_run_unit_name(t->run_unit));
	/* each of the K sizes runs rampup_samples / K samples: at least one
	 * step of the largest, or the ramp would run more than it says */
	double bmax = (double)(t->rampup_start + (K - 1) * t->rampup_increment);
	if (t->rampup_samples / (double)K < bmax)
		return cfg_fail(
		    l->err, TS_EINVALID, g, l->file, "training.rampup",
		    "found a ramp of %.6g samples over %lld batch sizes (%lld to %.0f), "
		    "expected at least %.6g samples: one step of each size",
		    t->rampup_samples, (long long)K, (long long)t->rampup_start, bmax,
		    bmax * (double)K);
	double total =
	    t->run_unit == TS_RUN_TOKENS ? t->run_length / (double)t->seq_len : t->run_length;
	if (!(t->rampup_samples < total))
		return cfg_fail(l->err, TS_EINVALID, g, l->file, "training.rampup",
				"found a ramp of %.6g samples, expected fewer than the run's "
				"%.6g samples",
				t->rampup_samples, total);
	return 0;
}

static int check(struct ld *l)
{
	struct ts_scenario *s = l->s;
	struct ts_parallel *q = &s->parallel;
	struct ts_training *t = &s->training;
	const config_setting_t *gp = l->g_parallel, *gt = l->g_training, *c;
	const char *k;
	char key[64];

	uint64_t mp = (uint64_t)q->tp * q->pp * q->cp;
	if (q->dp) {
		if (mp * q->dp != s->gpus) {
			c = member(gp, "dp");
			return cfg_fail(l->err, TS_EINVALID, c, l->file, "parallel.dp",
					"found tp x pp x cp x dp = %u x %u x %u x %u = %llu, "
					"expected the job's %u GPUs (%u nodes x %u)",
					q->tp, q->pp, q->cp, q->dp,
					(unsigned long long)(mp * q->dp), s->gpus, s->nodes,
					s->gpus_per_node);
		}
	} else {
		if (mp > s->gpus || s->gpus % mp != 0) {
			c = culprit(gp, "tp", "pp", "cp", &k);
			snprintf(key, sizeof key, "parallel.%s", k);
			return cfg_fail(l->err, TS_EINVALID, c, l->file, key,
					"found tp x pp x cp = %u x %u x %u = %llu, expected a "
					"divisor of the job's %u GPUs (%u nodes x %u) to derive dp",
					q->tp, q->pp, q->cp, (unsigned long long)mp, s->gpus,
					s->nodes, s->gpus_per_node);
		}
		q->dp = (uint32_t)(s->gpus / mp);
	}
	if (q->dp % q->ep != 0)
		return cfg_fail(l->err, TS_EINVALID, member(gp, "ep"), l->file, "parallel.ep",
				"found %u, expected a divisor of dp = %u (experts are sharded "
				"inside data parallelism)",
				q->ep, q->dp);
	if (s->model.family == TS_FAMILY_LAYERS && q->tp > 1)
		return cfg_fail(l->err, TS_EUNSUPPORTED, member(gp, "tp"), l->file, "parallel.tp",
				"found %u, but tensor parallelism is modelled for transformers "
				"only and %s is a layer-list model; expected 1",
				q->tp, s->model.name);
	if (s->model.heads % q->tp != 0)
		return cfg_fail(l->err, TS_EINVALID, member(gp, "tp"), l->file, "parallel.tp",
				"found %u, expected a divisor of the %lld attention heads of %s",
				q->tp, (long long)s->model.heads, s->model.name);
	if ((int64_t)q->pp > s->model.layers)
		return cfg_fail(l->err, TS_EINVALID, member(gp, "pp"), l->file, "parallel.pp",
				"found %u, expected at most the %lld layers of %s", q->pp,
				(long long)s->model.layers, s->model.name);
	if (q->interleave > 1 && q->schedule != TS_SCHED_INTERLEAVED)
		return cfg_fail(
		    l->err, TS_EINVALID, member(gp, "interleave"), l->file, "parallel.interleave",
		    "found %u with schedule \"%s\", expected 1 (or schedule = \"interleaved\")",
		    q->interleave, sched_names[q->schedule]);
	if (q->schedule == TS_SCHED_INTERLEAVED && (q->pp < 2 || q->interleave < 2))
		return cfg_fail(l->err, TS_EINVALID, member(gp, "schedule"), l->file,
				"parallel.schedule",
				"found \"interleaved\" with pp = %u and interleave = %u, expected "
				"pp >= 2 and interleave >= 2",
				q->pp, q->interleave);
	/* the embedding and the loss may take a virtual stage of their own */
	int64_t slots =
	    s->model.layers + (q->account_embedding ? 1 : 0) + (q->account_loss ? 1 : 0);
	if ((int64_t)q->pp * q->interleave > slots)
		return cfg_fail(
		    l->err, TS_EINVALID, member(gp, "interleave"), l->file, "parallel.interleave",
		    "found pp x interleave = %u x %u, expected at most the %lld layers%s", q->pp,
		    q->interleave, (long long)slots,
		    slots > s->model.layers ? " (with the embedding and the loss counted "
					      "as parallel.account_for_* say)"
					    : "");

	if (t->global_batch == 0) {
		t->global_batch = t->micro_batch * (int64_t)q->dp;
	} else {
		if (t->global_batch % q->dp != 0)
			return cfg_fail(l->err, TS_EINVALID, member(gt, "global_batch"), l->file,
					"training.global_batch",
					"found %lld, expected a multiple of dp = %u",
					(long long)t->global_batch, q->dp);
		int64_t per = t->global_batch / q->dp;
		if (per % t->micro_batch != 0) {
			c = culprit(gt, "micro_batch", "global_batch", NULL, &k);
			snprintf(key, sizeof key, "training.%s", k);
			return cfg_fail(l->err, TS_EINVALID, c, l->file, key,
					"found micro_batch = %lld, expected a divisor of "
					"global_batch / dp = %lld / %u = %lld",
					(long long)t->micro_batch, (long long)t->global_batch,
					q->dp, (long long)per);
		}
	}
	if (s->model.family == TS_FAMILY_LAYERS && member(gt, "seq_len"))
		return cfg_fail(l->err, TS_EINVALID, member(gt, "seq_len"), l->file,
				"training.seq_len",
				"found %lld, but %s is a layer-list model that takes samples, "
				"not sequences; expected no seq_len",
				(long long)t->seq_len, s->model.name);
	if (t->seq_len > s->model.seq_len && s->model.position == TS_POS_LEARNED &&
	    s->model.family != TS_FAMILY_LAYERS)
		return cfg_fail(l->err, TS_ERANGE, member(gt, "seq_len"), l->file,
				"training.seq_len",
				"found %lld, expected at most the %lld learned positions of %s",
				(long long)t->seq_len, (long long)s->model.seq_len, s->model.name);
	return check_rampup(l);
}

/* ---- provenance ---------------------------------------------------------- */

static int note(struct ld *l, const char *key, const char *dflt, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Record key = value (printf-formatted) with the origin of the setting at
 * `key` in the tree, or `dflt` when the key was not given. */
static int note(struct ld *l, const char *key, const char *dflt, const char *fmt, ...)
{
	struct ts_scenario *s = l->s;
	if (ts_grow((void **)&s->origins, &s->cap_origins, s->n_origins + 1, sizeof *s->origins))
		return ts_error_set(l->err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	struct ts_scenario_origin *o = &s->origins[s->n_origins++];
	snprintf(o->key, sizeof o->key, "%s", key);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->value, sizeof o->value, fmt, ap);
	va_end(ap);
	const config_setting_t *set = config_setting_lookup(l->top, key);
	if (set) {
		char f[256];
		int line;
		cfg_where(set, l->file, f, sizeof f, &line);
		if (line > 0)
			snprintf(o->where, sizeof o->where, "%s:%d", f, line);
		else
			snprintf(o->where, sizeof o->where, "%s", f);
	} else {
		snprintf(o->where, sizeof o->where, "%s", dflt);
	}
	return 0;
}

static int note_all(struct ld *l)
{
	const struct ts_scenario *s = l->s;
	const struct ts_training *t = &s->training;
	const struct ts_parallel *q = &s->parallel;
	char cl[160], md[160], size[64];
	snprintf(cl, sizeof cl, "cluster %s", hw_cluster_name(s->cluster));
	snprintf(md, sizeof md, "model %s", s->model.name);
	if (q->bucket_bytes > 0)
		ts_units_format((double)q->bucket_bytes, TS_UNIT_BYTES, size, sizeof size);
	int rc = 0;
#define N(...)                                                                                     \
	do {                                                                                       \
		if ((rc = note(l, __VA_ARGS__)))                                                   \
			return rc;                                                                 \
	} while (0)
	N("name", "derived: MODEL on CLUSTER", "\"%s\"", s->name);
	N("model", "", "\"%s\"", s->model.name);
	/* an inline group is dumped whole by ts_scenario_dump; a cluster file
	 * by its path, which loads from any folder */
	if (s->cluster_file[0] && s->cluster_file[0] != '/') {
		char abs[PATH_MAX];
		N("cluster", "", "\"%s\"", realpath(s->cluster_file, abs) ? abs : s->cluster_file);
	} else {
		N("cluster", "", "\"%s\"",
		  s->cluster_file[0] ? s->cluster_file : hw_cluster_name(s->cluster));
	}
	N("nodes", cl, "%u", s->nodes);
	N("gpus_per_node", cl, "%u", s->gpus_per_node);
	N("nics_per_node", s->nics_per_node ? cl : "derived: the cluster has no NIC", "%u",
	  s->nics_per_node);
	N("training.framework", "default", "\"%s\"", fw_names[t->framework]);
	N("training.global_batch", "derived: micro_batch x dp", "%lld", (long long)t->global_batch);
	N("training.micro_batch", "default", "%lld", (long long)t->micro_batch);
	N("training.seq_len",
	  s->model.family == TS_FAMILY_LAYERS ? "derived: not used by a layer list (samples)" : md,
	  "%lld", (long long)t->seq_len);
	if (t->precision == TS_UNSET) /* as the plan resolves it */
		N("training.precision", "default: bf16 where the GPU has it, else fp16", "\"%s\"",
		  hw_cluster_gpu_type(s->cluster)->peak_flops[TS_BF16] > 0.0 ? "bf16" : "fp16");
	else
		N("training.precision", "", "\"%s\"", ts_dtype_name((enum ts_dtype)t->precision));
	N("training.optimizer", "default", "\"%s\"", opt_names[t->optimizer]);
	N("training.recompute", "default", "\"%s\"", rc_names[t->recompute]);
	N("training.master_weights", "default", "%s", t->master_weights ? "true" : "false");
	N("training.cross_entropy", "default", "\"%s\"", work_xent_name(t->xent));
	if (t->mlm_masked) /* only when set: dumps, digests and CSV stay as they were */
		N("training.mlm_head", "", "\"masked\"");
	if (t->grad_reduce_in_fp32 == TS_UNSET)
		N("training.grad_reduce_in_fp32", "default: unset, the framework's", "unset");
	else
		N("training.grad_reduce_in_fp32", "", "%s",
		  t->grad_reduce_in_fp32 ? "true" : "false");
	N("training.fp8_params", "default", "%s", t->fp8_params ? "true" : "false");
	N("training.recompute_layers", "default: 0, every layer", "%lld",
	  (long long)t->recompute_layers);
	if (t->recompute_interval) /* only when set: dumps, digests and CSV stay as they were */
		N("training.recompute_interval", "", "%lld", (long long)t->recompute_interval);
	if (t->activation_offload_layers) /* only when set, likewise */
		N("training.activation_offload_layers", "", "%lld",
		  (long long)t->activation_offload_layers);
	if (t->optimizer_impl != TS_UNSET) /* only when set, likewise */
		N("training.optimizer_impl", "", "\"%s\"",
		  t->optimizer_impl == TS_OPTIMPL_FUSED	    ? "fused"
		  : t->optimizer_impl == TS_OPTIMPL_FORLOOP ? "for-loop"
							    : "foreach");
	N("training.attention", "default", "\"%s\"", attn_names[t->flash_attention]);
	N("training.iterations", "default", "%lld", (long long)t->iterations);
	if (t->run_unit != TS_RUN_NONE) {
		char key[64];
		snprintf(key, sizeof key, "training.%s", run_names[t->run_unit]);
		N(key, "", "%.17g", t->run_length);
	}
	if (t->rampup_start)
		N("training.rampup", "", "{ start = %lld; increment = %lld; samples = %.17g; }",
		  (long long)t->rampup_start, (long long)t->rampup_increment, t->rampup_samples);
	N("parallel.tp", "default", "%u", q->tp);
	N("parallel.pp", "default", "%u", q->pp);
	N("parallel.dp", "derived: GPUs / (tp x pp x cp)", "%u", q->dp);
	N("parallel.cp", "default", "%u", q->cp);
	N("parallel.ep", "default", "%u", q->ep);
	N("parallel.sp", "default", "%s", q->sp ? "true" : "false");
	N("parallel.tp_comm_overlap", "default", "%s", q->tp_comm_overlap ? "true" : "false");
	if (q->reshard_after_forward == TS_UNSET)
		N("parallel.reshard_after_forward", "default: unset, the framework's", "unset");
	else
		N("parallel.reshard_after_forward", "", "%s",
		  q->reshard_after_forward ? "true" : "false");
	/* only when set: dumps and digests of scenarios without them stay */
	if (q->fsdp_version != TS_UNSET)
		N("parallel.fsdp_version", "", "%d", q->fsdp_version);
	if (q->limit_all_gathers != TS_UNSET)
		N("parallel.limit_all_gathers", "", "%s", q->limit_all_gathers ? "true" : "false");
	N("parallel.zero", "default", "%d", q->zero);
	N("parallel.offload", "default", "\"%s\"", off_names[q->offload]);
	N("parallel.schedule", "default", "\"%s\"", sched_names[q->schedule]);
	N("parallel.interleave", "default", "%u", q->interleave);
	if (q->first_stage_layers)
		N("parallel.first_stage_layers", "", "%u", q->first_stage_layers);
	else
		N("parallel.first_stage_layers", "default: unset, an even split", "unset");
	if (q->last_stage_layers)
		N("parallel.last_stage_layers", "", "%u", q->last_stage_layers);
	else
		N("parallel.last_stage_layers", "default: unset, an even split", "unset");
	N("parallel.account_for_embedding", "default", "%s",
	  q->account_embedding ? "true" : "false");
	N("parallel.account_for_loss", "default", "%s", q->account_loss ? "true" : "false");
	/* only when set: dumps and digests stay as they were */
	if (q->layer_split != TS_SPLIT_EVEN)
		N("parallel.layer_split", "", "\"%s\"", split_names[q->layer_split]);
	if (q->ep_dispatcher != TS_DISPATCH_ALLTOALL)
		N("parallel.ep_dispatcher", "", "\"%s\"", dispatch_names[q->ep_dispatcher]);
	if (q->cp_comm != TS_CP_P2P)
		N("parallel.cp_comm", "", "\"%s\"", cp_comm_names[q->cp_comm]);
	if (q->flushes > 1) /* likewise */
		N("parallel.flushes", "", "%u", q->flushes);
	if (q->bucket_bytes == TS_UNSET)
		N("parallel.bucket", "default: unset, the framework's", "unset");
	else if (q->bucket_bytes == 0)
		N("parallel.bucket", "", "\"none\"");
	else
		N("parallel.bucket", "", "\"%s\"  (%lld bytes)", size, (long long)q->bucket_bytes);
	if (q->overlap_grad_reduce == TS_UNSET)
		N("parallel.overlap_grad_reduce", "default: unset, the framework's", "unset");
	else
		N("parallel.overlap_grad_reduce", "", "%s",
		  q->overlap_grad_reduce ? "true" : "false");
	/* the plan's defaults (plan.c, resolve_input) */
	N("data.dataset", "default: c4-tokens for transformers, synthetic for layer lists",
	  "\"%s\"",
	  s->data.dataset[0]			? s->data.dataset
	  : s->model.family == TS_FAMILY_LAYERS ? "synthetic"
						: "c4-tokens");
	N("data.storage", "default", "\"%s\"", s->data.storage[0] ? s->data.storage : "local-nvme");
	N("data.workers_per_gpu", "default", "%u", s->data.workers_per_gpu);
	N("data.prefetch", "default", "%u", s->data.prefetch);
	N("data.pinned", "default", "%s", s->data.pinned ? "true" : "false");
	N("cost.usd_per_gpu_hour", "default: not given", "%g", s->cost.usd_per_gpu_hour);
	N("cost.usd_per_node_hour", "default: not given", "%g", s->cost.usd_per_node_hour);
	N("cost.usd_per_kwh", "default: EIA 2023 US industrial", "%g", s->cost.usd_per_kwh);
	N("cost.pue", "default: Uptime Institute 2023 average", "%g", s->cost.pue);
	if (s->cost.owned) {
		N("cost.owned.server_usd", "", "%g", s->cost.server_usd);
		N("cost.owned.network_usd", "default", "%g", s->cost.network_usd);
		N("cost.owned.storage_usd", "default", "%g", s->cost.storage_usd);
		N("cost.owned.years", "default", "%g", s->cost.years);
		N("cost.owned.upkeep_usd_per_year", "default", "%g", s->cost.upkeep_usd_per_year);
		N("cost.utilisation", "default: busy all year", "%g", s->cost.utilisation);
	}
	if (s->checkpoint.interval_steps > 0.0)
		N("checkpoint.interval", "", "%.0f", s->checkpoint.interval_steps);
	else if (s->checkpoint.interval_s > 0.0)
		N("checkpoint.interval", "", "\"%g s\"", s->checkpoint.interval_s);
	else if (s->checkpoint.interval_auto || s->checkpoint.interval_none)
		N("checkpoint.interval", "", "\"%s\"",
		  s->checkpoint.interval_auto ? "auto" : "none");
	else if (s->failures.gpu_mtbf_s > 0.0 || s->failures.node_mtbf_s > 0.0)
		N("checkpoint.interval", "default: Young's interval, failures are modelled",
		  "\"auto\"");
	else
		N("checkpoint.interval", "default: no failures modelled", "\"none\"");
	N("checkpoint.write_bandwidth", "default: not given", "\"%g B/s\"",
	  s->checkpoint.write_Bps);
	const double *mtbf[2] = {&s->failures.gpu_mtbf_s, &s->failures.node_mtbf_s};
	const char *mkey[2] = {"failures.gpu_mtbf", "failures.node_mtbf"};
	const char *mwhy[2] = {"default: Llama 3 log, GPU causes",
			       "default: Llama 3 log, other causes"};
	for (int i = 0; i < 2; i++) {
		if (*mtbf[i] > 0.0)
			N(mkey[i], mwhy[i], "\"%g h\"", *mtbf[i] / 3600.0);
		else
			N(mkey[i], mwhy[i], "\"none\"");
	}
	N("failures.restart", "default: assumption", "\"%g s\"", s->failures.restart_s);
	if (s->power.node_max_w > 0.0)
		N("power.node_max", "", "\"%g W\"", s->power.node_max_w);
	else
		N("power.node_max", "default: GPUs x (TDP + 412.5 W host share)", "derived");
	N("power.gpu_comm_fraction", "default: assumption", "%g", s->power.gpu_comm_frac);
	N("power.gpu_idle_fraction", "default: assumption", "%g", s->power.gpu_idle_frac);
	N("power.nic", "default: assumption", "\"%g W\"", s->power.nic_w);
	N("power.switch_port", "default: assumption", "\"%g W\"", s->power.switch_port_w);
	/* only when given: a scenario without a limit resolves, dumps and
	 * digests (sweep --resume) as before the key existed */
	if (s->power.gpu_limit_w > 0.0)
		N("power.gpu_limit", "", "\"%g W\"", s->power.gpu_limit_w);
	N("sim.granularity", "default", "\"%s\"", gran_names[s->sim.granularity]);
	N("sim.mode", "default", "\"%s\"", mode_names[s->sim.mode]);
	N("sim.extrapolate", "default", "%s", s->sim.extrapolate ? "true" : "false");
	char mem[32];
	ts_units_format(ts_scenario_max_memory(s), TS_UNIT_BYTES, mem, sizeof mem);
	char from[120];
	snprintf(from, sizeof from, "default: %s", ts_scenario_max_memory_from(s));
	N("sim.max_memory", s->sim.max_memory > 0.0 ? "" : from, "\"%s\"", mem);
	N("sim.straggler_sd", "default: Sinha et al. SC'22 (sim/work/straggle.h)", "%g",
	  s->sim.straggler_sd);
	N("sim.samples", "default: sim/run/mc.h", "%u", s->sim.samples);
	N("sim.jitter", "default: assumption (sim/README.md, Variability)", "%g", s->sim.jitter);
	N("sim.net_noise", "default: assumption (sim/README.md, Variability)", "%g",
	  s->sim.net_noise);
	N("sim.slow_node_probability", "default: assumption (sim/README.md, Variability)", "%g",
	  s->sim.slow_node_p);
	N("sim.slow_node_slowdown", "default: assumption (sim/README.md, Variability)", "%g",
	  s->sim.slow_node_slowdown);
	N("sim.slow_link_probability", "default: assumption (sim/README.md, Variability)", "%g",
	  s->sim.slow_link_p);
	N("sim.slow_link_bandwidth", "default: assumption (sim/README.md, Variability)", "%g",
	  s->sim.slow_link_bw);
	N("seed", "default", "%llu", (unsigned long long)s->seed);
#undef N
	return 0;
}

/* ---- the memory this process may use ----------------------------------- */

/* A cgroup memory limit file's value (v2 memory.max: bytes or "max"; v1
 * memory.limit_in_bytes: bytes, about 2^63 when unlimited), or 0 when the
 * file does not exist or sets no limit. */
static double cgroup_file_limit(const char *path)
{
	FILE *f = ts_fopen(path, "r");
	if (!f)
		return 0.0;
	char buf[64] = "";
	double v = 0.0;
	if (fgets(buf, sizeof buf, f) && strncmp(buf, "max", 3)) {
		char *end;
		v = strtod(buf, &end);
		if (end == buf || !(v > 0.0) || v >= 0x1p62)
			v = 0.0;
	}
	fclose(f);
	return v;
}

/* The memory limit of this process's cgroup, bytes, 0 when none: the
 * group's own file (its path from /proc/self/cgroup: "0::PATH" for v2,
 * "N:memory:PATH" for v1), else the file at the mount's root (which is the
 * group's inside a container). */
static double cgroup_limit(void)
{
	char line[1024], v2[1024] = "", v1[1024] = "", path[2200];
	FILE *f = ts_fopen("/proc/self/cgroup", "r");
	if (f) {
		while (fgets(line, sizeof line, f)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, "0::", 3))
				snprintf(v2, sizeof v2, "%s", line + 3);
			const char *m = strstr(line, ":memory:");
			if (m)
				snprintf(v1, sizeof v1, "%s", m + 8);
		}
		fclose(f);
	}
	double lim = 0.0;
	if (v2[0] && strcmp(v2, "/")) {
		snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", v2);
		lim = cgroup_file_limit(path);
	}
	if (!lim)
		lim = cgroup_file_limit("/sys/fs/cgroup/memory.max");
	if (!lim && v1[0] && strcmp(v1, "/")) {
		snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", v1);
		lim = cgroup_file_limit(path);
	}
	if (!lim)
		lim = cgroup_file_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes");
	return lim;
}

/* The least of physical memory, the address-space limit and the cgroup's
 * memory limit, and which it is; found once per process (a sweep's points
 * and a search's candidates then open nothing for it). */
static double mem_bound;
static const char *mem_bound_from;
static pthread_once_t mem_once = PTHREAD_ONCE_INIT;

static void find_mem_bound(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	mem_bound = pages > 0 && size > 0 ? (double)pages * (double)size : 8.0 * 1073741824.0;
	mem_bound_from = pages > 0 && size > 0
			     ? "half of the machine's physical memory"
			     : "half of 8 GiB (the machine does not tell its memory)";
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (double)rl.rlim_cur < mem_bound) {
		mem_bound = (double)rl.rlim_cur;
		mem_bound_from = "half of the address-space limit (ulimit -v)";
	}
	double cg = cgroup_limit();
	if (cg > 0.0 && cg < mem_bound) {
		mem_bound = cg;
		mem_bound_from = "half of the cgroup's memory limit (memory.max)";
	}
}

double ts_scenario_max_memory(const struct ts_scenario *s)
{
	if (s->sim.max_memory > 0.0)
		return s->sim.max_memory;
	pthread_once(&mem_once, find_mem_bound);
	return 0.5 * mem_bound;
}

const char *ts_scenario_max_memory_from(const struct ts_scenario *s)
{
	if (s->sim.max_memory > 0.0)
		return "sim.max_memory";
	pthread_once(&mem_once, find_mem_bound);
	return mem_bound_from;
}

/* ---- load ---------------------------------------------------------------- */

static int interpret(struct ld *l)
{
	int rc;
	if ((rc = cfg_check_keys(l->top, l->file, "", root_keys, COUNT(root_keys), l->err)) ||
	    (rc = group(l, "training", &l->g_training)) ||
	    (rc = group(l, "parallel", &l->g_parallel)) || (rc = group(l, "data", &l->g_data)) ||
	    (rc = group(l, "cost", &l->g_cost)) || (rc = group(l, "sim", &l->g_sim)) ||
	    (rc = load_model(l)) || (rc = load_cluster(l)) || (rc = read_training(l)) ||
	    (rc = read_parallel(l)) || (rc = read_data(l)) || (rc = read_rest(l)) ||
	    (rc = check(l)) || (rc = note_all(l)))
		return rc;
	return 0;
}

/* A phase's overlay on the scenario's tree: key=value arguments applied
 * after the --set arguments, labelled `label` ("file:line (phases[1])"). */
struct overlay {
	const char *const *args;
	size_t n;
	const char *label;
	const char *name; /* the phase's name for the report */
};

static int load(const struct hw_catalog *cat, const char *text, const char *file, const char *dir,
		const char *const *sets, size_t nsets, const struct overlay *ov,
		struct ts_scenario **out, struct ts_error *err);

/* The run-length unit (TS_RUN_TOKENS...) that --set argument `arg` sets
 * ("training.steps=100"), or TS_RUN_NONE. */
static int run_key_of(const char *arg)
{
	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (strncmp(arg, "training.", 9))
		return TS_RUN_NONE;
	arg += 9;
	size_t n = strcspn(arg, "= \t");
	for (int u = TS_RUN_TOKENS; u < TS_RUN_COUNT_; u++)
		if (strlen(run_names[u]) == n && !strncmp(arg, run_names[u], n))
			return u;
	return TS_RUN_NONE;
}

/* Append one item to a comma-separated list buffer (cut to fit). */
static void list_add(char *buf, size_t n, const char *item)
{
	size_t len = strlen(buf);
	if (len + 3 < n)
		snprintf(buf + len, n - len, "%s%s", len ? ", " : "", item);
}

/* Before --set argument `arg` (labelled `label`) is applied to cfg: when it
 * gives a run length, the tree's other run lengths (the file's, or an
 * earlier argument's) give way to it, and a note in s->notes says so. */
static void run_override(config_t *cfg, const char *arg, const char *label, const char *file,
			 struct ts_scenario *s)
{
	int u = run_key_of(arg);
	config_setting_t *tg = config_lookup(cfg, "training");
	if (u == TS_RUN_NONE || !tg || !config_setting_is_group(tg))
		return;
	for (int v = TS_RUN_TOKENS; v < TS_RUN_COUNT_; v++) {
		config_setting_t *old = config_setting_get_member(tg, run_names[v]);
		if (v == u || !old)
			continue;
		char f[300], item[400];
		int line;
		cfg_where(old, file, f, sizeof f, &line);
		if (line > 0)
			snprintf(item, sizeof item, "training.%s of %s:%d gives way to %s",
				 run_names[v], f, line, label);
		else
			snprintf(item, sizeof item, "training.%s of %s gives way to %s",
				 run_names[v], f, label);
		for (char *c = item; *c; c++) /* one item of a comma-separated list */
			if (*c == ',')
				*c = ';';
		list_add(s->notes, sizeof s->notes, item);
		config_setting_remove(tg, run_names[v]);
	}
}

/* A scalar setting as a --set value that parses back to it, into buf. */
static int value_text(const config_setting_t *v, char *buf, size_t n)
{
	switch (config_setting_type(v)) {
	case CONFIG_TYPE_INT:
		snprintf(buf, n, "%d", config_setting_get_int(v));
		return 0;
	case CONFIG_TYPE_INT64:
		snprintf(buf, n, "%lldL", (long long)config_setting_get_int64(v));
		return 0;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, n, "%.17e", config_setting_get_float(v));
		return 0;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, n, "%s", config_setting_get_bool(v) ? "true" : "false");
		return 0;
	case CONFIG_TYPE_STRING: {
		const char *t = config_setting_get_string(v);
		size_t o = 0;
		if (!t || n < 3)
			return -1;
		buf[o++] = '"';
		for (; *t && o + 3 < n; t++) {
			if (*t == '"' || *t == '\\')
				buf[o++] = '\\';
			buf[o++] = *t;
		}
		if (*t)
			return -1;
		buf[o++] = '"';
		buf[o] = '\0';
		return 0;
	}
	default:
		return -1;
	}
}

#define PHASE_MAX_ARGS 48
#define PHASE_ARG_LEN 320

/* One phase of a run, loaded from the same text and --set arguments with
 * the overlay args[0..n) on top; stored as the n-th phase of l->s. */
static int load_phase(struct ld *l, const char *text, const char *const *sets, size_t nsets,
		      char (*args)[PHASE_ARG_LEN], size_t n, const char *label, const char *name)
{
	struct ts_scenario *s = l->s;
	const char *argv[PHASE_MAX_ARGS];
	for (size_t i = 0; i < n; i++)
		argv[i] = args[i];
	if (s->n_phases >= TS_MAX_PHASES)
		return ts_error_set(l->err, TS_ELIMIT, l->file, 0, "phases",
				    "found more than %d phases, expected at most %d", TS_MAX_PHASES,
				    TS_MAX_PHASES);
	struct overlay ov = {argv, n, label, name};
	struct ts_scenario *ph = NULL;
	int rc = load(l->cat, text, l->file, l->dir, sets, nsets, &ov, &ph, l->err);
	if (rc)
		return rc;
	s->phases[s->n_phases++] = ph;
	return 0;
}

/* phases = ( { tokens = ...; seq_len = 8192; }, { ...; parallel = { cp = 16; }; } ):
 * each phase's keys as training.KEY and parallel.KEY overlay arguments. */
static int make_user_phases(struct ld *l, const config_setting_t *ph, const char *text,
			    const char *const *sets, size_t nsets)
{
	struct ts_training *t = &l->s->training;
	char fb[160];
	int rc;
	if (!config_setting_is_list(ph) || config_setting_length(ph) < 1)
		return cfg_fail(l->err, TS_ETYPE, ph, l->file, "phases",
				"found %s, expected a list of groups phases = ( { tokens = ...; "
				"seq_len = 8192; }, { ... } );",
				config_setting_is_list(ph) ? "an empty list"
							   : cfg_found(ph, fb, sizeof fb));
	if (t->run_unit != TS_RUN_NONE) {
		char key[64];
		snprintf(key, sizeof key, "training.%s", run_names[t->run_unit]);
		return cfg_fail(
		    l->err, TS_EINVALID, member(l->g_training, run_names[t->run_unit]), l->file,
		    key,
		    "found a run length beside phases (line %d), expected the run length "
		    "in each phase",
		    config_setting_source_line(ph));
	}
	/* a ramp-up beside phases was refused by check_rampup */
	/* a phase takes every training key but the ramp, a parallel group and a name */
	const char *keys[COUNT(training_keys) + 2];
	size_t nk = 0;
	for (size_t i = 0; i < COUNT(training_keys); i++)
		if (strcmp(training_keys[i], "rampup"))
			keys[nk++] = training_keys[i];
	keys[nk++] = "parallel";
	keys[nk++] = "name";
	int np = config_setting_length(ph);
	if (np > TS_MAX_PHASES)
		return cfg_fail(l->err, TS_ELIMIT, ph, l->file, "phases",
				"found %d phases, expected at most %d", np, TS_MAX_PHASES);
	for (int i = 0; i < np; i++) {
		const config_setting_t *g = config_setting_get_elem(ph, (unsigned)i);
		char path[32], key[160], label[400], name[64];
		snprintf(path, sizeof path, "phases.[%d]", i);
		if (!config_setting_is_group(g))
			return cfg_fail(l->err, TS_ETYPE, g, l->file, path,
					"found %s, expected a group { tokens = ...; ... }",
					cfg_found(g, fb, sizeof fb));
		if ((rc = cfg_check_keys(g, l->file, path, keys, nk, l->err)))
			return rc;
		snprintf(name, sizeof name, "phases[%d]", i);
		snprintf(label, sizeof label, "%s:%d (phases[%d])", l->file,
			 config_setting_source_line(g), i);
		char args[PHASE_MAX_ARGS][PHASE_ARG_LEN], v[PHASE_ARG_LEN - 64];
		size_t n = 0;
		int runs = 0;
		for (int m = 0; m < config_setting_length(g); m++) {
			const config_setting_t *c = config_setting_get_elem(g, (unsigned)m);
			const char *cn = config_setting_name(c);
			if (!strcmp(cn, "name")) {
				if ((rc = cfg_string(c, l->file, "phases.name", name, sizeof name,
						     l->err)))
					return rc;
				for (char *x = name; *x; x++)
					if (*x == ',')
						*x = ';';
				continue;
			}
			if (!strcmp(cn, "parallel")) {
				char pp[64];
				snprintf(pp, sizeof pp, "%s.parallel", path);
				if ((rc = cfg_check_keys(c, l->file, pp, parallel_keys,
							 COUNT(parallel_keys), l->err)))
					return rc;
				for (int j = 0; j < config_setting_length(c) && n < PHASE_MAX_ARGS;
				     j++) {
					const config_setting_t *d =
					    config_setting_get_elem(c, (unsigned)j);
					snprintf(key, sizeof key, "%s.%s", pp,
						 config_setting_name(d));
					if (value_text(d, v, sizeof v))
						return cfg_fail(l->err, TS_ETYPE, d, l->file, key,
								"found %s, expected a number, a "
								"string or a boolean",
								cfg_found(d, fb, sizeof fb));
					snprintf(args[n++], PHASE_ARG_LEN, "parallel.%s=%s",
						 config_setting_name(d), v);
				}
				continue;
			}
			snprintf(key, sizeof key, "%s.%s", path, cn);
			if (value_text(c, v, sizeof v))
				return cfg_fail(
				    l->err, TS_ETYPE, c, l->file, key,
				    "found %s, expected a number, a string or a boolean",
				    cfg_found(c, fb, sizeof fb));
			if (n < PHASE_MAX_ARGS)
				snprintf(args[n++], PHASE_ARG_LEN, "training.%s=%s", cn, v);
			for (int u = TS_RUN_TOKENS; u < TS_RUN_COUNT_; u++)
				runs += !strcmp(cn, run_names[u]);
		}
		if (runs == 0)
			return cfg_fail(
			    l->err, TS_EINVALID, g, l->file, path,
			    "found no run length in this phase, expected one of tokens, "
			    "samples, epochs or steps");
		if ((rc = load_phase(l, text, sets, nsets, args, n, label, name)))
			return rc;
	}
	return 0;
}

/* training.rampup as phases: the ramp's increments (batch start + k x
 * increment, k = 0 .. K-1, K = (global_batch - start) / increment, each for
 * samples / K samples, as Megatron-LM's ramp-up calculator,
 * RampupBatchsizeNumMicroBatchesCalculator in
 * megatron/core/num_microbatches_calculator.py) in at most
 * TS_RAMPUP_GROUPS groups of consecutive increments. A group is simulated
 * at one batch, B = its samples / its steps (steps = the sum over its
 * increments of ceil(samples / K / batch)), rounded to a multiple of
 * micro_batch x dp, for its steps: an iteration's time is linear in its
 * micro-batches, so steps x T(B) is the sum of the increments' times. Then
 * the full batch for the rest of the run. */
static int make_ramp_phases(struct ld *l, const char *text, const char *const *sets, size_t nsets)
{
	const struct ts_training *t = &l->s->training;
	int64_t K = (t->global_batch - t->rampup_start) / t->rampup_increment;
	/* the batch granularity: whole micro-batches on every DP rank, and with
	 * the interleaved schedule a multiple of the stages (Megatron-LM) */
	int64_t q = t->micro_batch * (int64_t)l->s->parallel.dp;
	if (l->s->parallel.schedule == TS_SCHED_INTERLEAVED)
		q *= (int64_t)l->s->parallel.pp;
	int64_t groups = K < TS_RAMPUP_GROUPS ? K : TS_RAMPUP_GROUPS;
	double per = t->rampup_samples / (double)K;
	int line = config_setting_source_line(member(l->g_training, "rampup"));
	char label[400], name[64], args[PHASE_MAX_ARGS][PHASE_ARG_LEN];
	int rc;
	snprintf(label, sizeof label, "%s:%d (training.rampup)", l->file, line);
	for (int64_t j = 0; j < groups; j++) {
		int64_t k0 = j * K / groups, k1 = (j + 1) * K / groups;
		double steps = 0.0, samples = 0.0;
		for (int64_t k = k0; k < k1; k++) {
			double b = (double)(t->rampup_start + k * t->rampup_increment);
			steps += ceil(per / b);
			samples += per;
		}
		double B = fmax((double)q, (double)q * nearbyint(samples / steps / (double)q));
		snprintf(name, sizeof name, "ramp-up %lld/%lld (batch %lld-%lld)",
			 (long long)(j + 1), (long long)groups,
			 (long long)(t->rampup_start + k0 * t->rampup_increment),
			 (long long)(t->rampup_start + (k1 - 1) * t->rampup_increment));
		snprintf(args[0], PHASE_ARG_LEN, "training.global_batch=%.0fL", B);
		snprintf(args[1], PHASE_ARG_LEN, "training.steps=%.17e", steps);
		if ((rc = load_phase(l, text, sets, nsets, args, 2, label, name)))
			return rc;
	}
	snprintf(name, sizeof name, "full batch %lld", (long long)t->global_batch);
	if (t->run_unit == TS_RUN_TOKENS)
		snprintf(args[0], PHASE_ARG_LEN, "training.tokens=%.17e",
			 t->run_length - t->rampup_samples * (double)t->seq_len);
	else
		snprintf(args[0], PHASE_ARG_LEN, "training.samples=%.17e",
			 t->run_length - t->rampup_samples);
	return load_phase(l, text, sets, nsets, args, 1, label, name);
}

static int make_phases(struct ld *l, const char *text, const char *const *sets, size_t nsets)
{
	const config_setting_t *ph = member(l->top, "phases");
	if (ph)
		return make_user_phases(l, ph, text, sets, nsets);
	if (l->s->training.rampup_start)
		return make_ramp_phases(l, text, sets, nsets);
	return 0;
}

static int load(const struct hw_catalog *cat, const char *text, const char *file, const char *dir,
		const char *const *sets, size_t nsets, const struct overlay *ov,
		struct ts_scenario **out, struct ts_error *err)
{
	int rc;
	*out = NULL;
	ts_error_clear(err);
	struct ts_scenario *s = ts_calloc(1, sizeof *s);
	char **labels = nsets ? ts_calloc(nsets, sizeof *labels) : NULL;
	if (!s || (nsets && !labels)) {
		ts_free(s, s ? sizeof *s : 0);
		ts_free(labels, labels ? nsets * sizeof *labels : 0);
		return ts_error_set(err, TS_ENOMEM, file, 0, NULL, "out of memory");
	}
	snprintf(s->file, sizeof s->file, "%s", file);
	struct ld l = {.cat = cat, .root = hw_catalog_root(cat), .file = file, .s = s, .err = err};
	if (!l.root)
		l.root = ".";
	snprintf(l.dir, sizeof l.dir, "%s", dir);

	config_t cfg;
	config_init(&cfg);
	if ((rc = cfg_parse(&cfg, text, file, err)))
		goto done;
	for (size_t i = 0; i < nsets; i++) {
		const char *a = sets[i] ? sets[i] : "";
		size_t n = strlen(a) + 7; /* "--set " + a + NUL, as freed below */
		if (!(labels[i] = ts_malloc(n))) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto done;
		}
		snprintf(labels[i], n, "--set %s", a);
		run_override(&cfg, a, labels[i], file, s);
		if ((rc = cfg_apply_set(&cfg, a, labels[i], file, err)))
			goto done;
	}
	l.top = config_root_setting(&cfg);
	if (ov) { /* a phase: its own run length and overlay, no phases of its own */
		config_setting_t *tg = config_setting_get_member(l.top, "training");
		config_setting_remove(l.top, "phases");
		if (tg && config_setting_is_group(tg)) {
			config_setting_remove(tg, "rampup");
			for (int u = TS_RUN_TOKENS; u < TS_RUN_COUNT_; u++)
				config_setting_remove(tg, run_names[u]);
		}
		for (size_t i = 0; i < ov->n && !rc; i++)
			rc = cfg_apply_set(&cfg, ov->args[i], ov->label, file, err);
		snprintf(s->phase_name, sizeof s->phase_name, "%s", ov->name);
	}
	if (!rc)
		rc = interpret(&l);
	if (!rc && !ov)
		rc = make_phases(&l, text, sets, nsets);
done:
	config_destroy(&cfg);
	for (size_t i = 0; i < nsets; i++)
		if (labels[i])
			ts_free(labels[i], strlen(labels[i]) + 1);
	ts_free(labels, nsets * sizeof *labels);
	if (rc) {
		ts_scenario_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* First line of --dump-config's text (ts_scenario_dump). */
#define DUMP_HEAD "# trainsim scenario "

/* The settings of a --dump-config text as key=value arguments, applied in
 * order over an empty scenario, they give the scenario it was dumped from:
 * each line "key = value  # where it came from" but the lines that only
 * inform (a value "derived" or "unset", a figure derived from others, a
 * default "not given" or "not used by" the model, which have no value to
 * give) and the comments; a size's
 * "(N bytes)" after its value is dropped. *args (owned, *n strings, each
 * ts_strdup'd) for ts_free_dump_args. Returns 0 or TS_ENOMEM. */
static int dump_args(const char *text, char ***args, size_t *n, size_t *cap)
{
	*args = NULL;
	*n = *cap = 0;
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0')) {
		size_t len = strcspn(l, "\n");
		/* the comment is the line's last "  # " (a value's string may
		 * hold one: an inline cluster's source) */
		const char *eq = strstr(l, " = "), *hash = NULL;
		for (const char *h = l; (h = strstr(h, "  # ")) && (size_t)(h - l) < len; h++)
			hash = h;
		if (l[0] == '#' || !eq || (size_t)(eq - l) > len || !hash || hash < eq)
			continue;
		const char *v = eq + 3, *c = hash + 4;
		size_t vl = (size_t)(hash - v);
		const char *bytes = strstr(v, "  (");
		if (v[0] != '{' && bytes && bytes < hash)
			vl = (size_t)(bytes - v);
		/* counts the cluster gives ("# cluster NAME") come back with it;
		 * given again beside an inline cluster that holds them they would
		 * be refused as given twice */
		if ((vl == 7 && !strncmp(v, "derived", 7)) ||
		    (vl == 5 && !strncmp(v, "unset", 5)) || !strncmp(c, "derived", 7) ||
		    !strncmp(c, "cluster ", 8) || !strncmp(c, "default: not given", 18) ||
		    !strncmp(c, "default: not used by", 20))
			continue;
		char *a = ts_malloc((size_t)(eq - l) + 1 + vl + 1);
		if (!a || ts_grow((void **)args, cap, *n + 1, sizeof **args)) {
			ts_free(a, a ? (size_t)(eq - l) + vl + 2 : 0);
			return TS_ENOMEM;
		}
		snprintf(a, (size_t)(eq - l) + vl + 2, "%.*s=%.*s", (int)(eq - l), l, (int)vl, v);
		(*args)[(*n)++] = a;
	}
	return 0;
}

static void free_dump_args(char **args, size_t n, size_t cap)
{
	for (size_t i = 0; i < n; i++)
		ts_free(args[i], strlen(args[i]) + 1);
	ts_free(args, cap * sizeof *args);
}

int ts_scenario_load(const struct hw_catalog *cat, const char *path, const char *const *sets,
		     size_t nsets, struct ts_scenario **out, struct ts_error *err)
{
	char *text;
	size_t len;
	*out = NULL;
	ts_error_clear(err);
	if (!path)
		return ts_error_set(err, TS_EIO, NULL, 0, NULL, "no scenario file given");
	int rc = cfg_read_text(path, &text, &len, err);
	if (rc)
		return rc;
	char dir[1024] = "";
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (slash == path)
		snprintf(dir, sizeof dir, "/");
	if (!strncmp(text, DUMP_HEAD, strlen(DUMP_HEAD))) {
		/* --dump-config's output: its settings over an empty scenario,
		 * then the --set arguments */
		char **args;
		size_t n, cap;
		const char **all = NULL;
		rc = dump_args(text, &args, &n, &cap);
		if (!rc && !(all = ts_calloc(n + nsets + 1, sizeof *all)))
			rc = TS_ENOMEM;
		if (rc) {
			rc = ts_error_set(err, TS_ENOMEM, path, 0, NULL, "out of memory");
		} else {
			for (size_t i = 0; i < n; i++)
				all[i] = args[i];
			for (size_t i = 0; i < nsets; i++)
				all[n + i] = sets[i];
			rc = load(cat, "", path, dir, all, n + nsets, NULL, out, err);
		}
		ts_free(all, (n + nsets + 1) * sizeof *all);
		free_dump_args(args, n, cap);
		ts_free(text, len + 1);
		return rc;
	}
	rc = load(cat, text, path, dir, sets, nsets, NULL, out, err);
	ts_free(text, len + 1);
	return rc;
}

int ts_scenario_load_string(const struct hw_catalog *cat, const char *text, const char *label,
			    const char *const *sets, size_t nsets, struct ts_scenario **out,
			    struct ts_error *err)
{
	*out = NULL;
	if (!text)
		return ts_error_set(err, TS_EIO, label, 0, NULL, "no scenario text given");
	return load(cat, text, label ? label : "<string>", "", sets, nsets, NULL, out, err);
}

void ts_scenario_destroy(struct ts_scenario *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n_phases; i++)
		ts_scenario_destroy(s->phases[i]);
	if (s->cluster)
		hw_cluster_destroy(s->cluster);
	if (s->cluster_text)
		ts_free(s->cluster_text, strlen(s->cluster_text) + 1);
	if (s->model_text)
		ts_free(s->model_text, strlen(s->model_text) + 1);
	for (size_t i = 0; i < s->n_not_modelled; i++)
		ts_free(s->not_modelled[i], strlen(s->not_modelled[i]) + 1);
	ts_free(s->not_modelled, s->n_not_modelled * sizeof *s->not_modelled);
	ts_free(s->origins, s->cap_origins * sizeof *s->origins);
	ts_free(s, sizeof *s);
}

char *ts_scenario_not_modelled(const struct ts_scenario *s, char *buf, size_t n)
{
	size_t off = 0;
	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < s->n_not_modelled && off < n; i++) {
		int w = snprintf(buf + off, n - off, "%s%s", i ? ", " : "", s->not_modelled[i]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

int ts_scenario_dump_text(const struct ts_scenario *s, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	FILE *m = open_memstream(text, len);
	if (!m)
		return TS_ENOMEM;
	int rc = ts_scenario_dump(s, m);
	if (fclose(m) && !rc)
		rc = TS_ENOMEM;
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

int ts_scenario_dump(const struct ts_scenario *s, FILE *out)
{
	if (fprintf(out, DUMP_HEAD "\"%s\" resolved from %s\n", s->name, s->file) < 0)
		return TS_EIO;
	for (size_t i = 0; i < s->n_origins; i++) {
		const struct ts_scenario_origin *o = &s->origins[i];
		const char *v = o->value;
		if (!strcmp(o->key, "cluster") && s->cluster_text)
			v = s->cluster_text;
		if (!strcmp(o->key, "model") && s->model_text)
			v = s->model_text;
		if (fprintf(out, "%s = %s  # %s\n", o->key, v, o->where) < 0)
			return TS_EIO;
		if (strcmp(o->key, "model") == 0 && ts_model_dump(&s->model, "model.", out))
			return TS_EIO;
	}
	/* a run in phases: each phase's own values, those its overlay set */
	for (uint32_t p = 0; p < s->n_phases; p++) {
		const struct ts_scenario *ph = s->phases[p];
		if (fprintf(out, "# phase \"%s\":\n", ph->phase_name) < 0)
			return TS_EIO;
		for (size_t i = 0; i < ph->n_origins; i++) {
			const struct ts_scenario_origin *o = &ph->origins[i];
			if ((strstr(o->where, " (phases[") ||
			     strstr(o->where, " (training.rampup)")) &&
			    fprintf(out, "#   %s = %s  # %s\n", o->key, o->value, o->where) < 0)
				return TS_EIO;
		}
	}
	char nm[1024];
	ts_scenario_not_modelled(s, nm, sizeof nm);
	if (fprintf(out, "# not modelled: %s\n", nm[0] ? nm : "(none)") < 0)
		return TS_EIO;
	if (!s->cluster)
		return 0;
	int need = hw_cluster_describe(s->cluster, NULL, 0);
	if (need <= 0)
		return 0;
	size_t n = (size_t)need + 1;
	char *buf = ts_malloc(n);
	if (!buf)
		return TS_ENOMEM;
	hw_cluster_describe(s->cluster, buf, n);
	int rc = 0;
	if (fprintf(out, "# cluster %s:\n", hw_cluster_name(s->cluster)) < 0)
		rc = TS_EIO;
	for (char *p = buf; !rc && *p;) {
		char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (fprintf(out, "#   %.*s\n", (int)len, p) < 0)
			rc = TS_EIO;
		p += len + (e ? 1 : 0);
	}
	ts_free(buf, n);
	return rc;
}

int ts_scenario_error(const struct ts_scenario *s, struct ts_error *err, int code, const char *key,
		      const char *fmt, ...)
{
	char file[300], msg[sizeof err->msg];
	int line = 0;
	snprintf(file, sizeof file, "%s", s->file);
	for (size_t i = 0; i < s->n_origins; i++) {
		const char *w = s->origins[i].where;
		if (strcmp(s->origins[i].key, key))
			continue;
		if (!strncmp(w, "--set", 5)) {
			snprintf(file, sizeof file, "%s", w);
			break;
		}
		const char *colon = strrchr(w, ':');
		if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
			snprintf(file, sizeof file, "%.*s", (int)(colon - w), w);
			line = atoi(colon + 1);
		}
		break;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ts_error_set(err, code, file, line, key, "%s", msg);
}
