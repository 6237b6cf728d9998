/* The catalogs as tables (trainsim list KIND): the GPU and link types of
 * the hardware catalog, the bundled clusters (configs/clusters/), models
 * (models/), datasets, storage types and scenarios; and the catalog entries
 * one by one (trainsim list KIND NAME): every field of a GPU, link,
 * storage, cluster, model, dataset or scenario as its file states it, with
 * the source the file gives for it.
 *
 * A field's source is the nearest that the file names: the entry's
 * `sources.KEY` string for its top-level key KEY, else the `source` of the
 * innermost group holding it, else the entry's `source`. The files are read
 * as text (libconfig), not resolved: what the user sees is what they would
 * edit.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* opendir, readdir */
#include <dirent.h>
#include <libconfig.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/cfg.h"
#include "base/file.h"
#include "base/suggest.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "plan/env.h"
#include "report/list.h"
#include "report/table.h"
#include "work/model.h"

/* Where the entries of a kind live. */
struct where {
	const char *kind;  /* "gpus" */
	const char *dir;   /* folder under the data root */
	const char *list;  /* the list of entries in each file of dir ("gpus"), or NULL:
			      one entry per file, named by the file */
	const char *group; /* the entry's group in its own file ("cluster"), NULL: the
			      file's root */
};

static const struct where wheres[] = {
    {"gpus", "configs/hardware", "gpus", NULL},
    {"links", "configs/hardware", "links", NULL},
    {"storage", "configs/hardware", "storage", NULL},
    {"clusters", "configs/clusters", NULL, "cluster"},
    {"models", "models", NULL, NULL},
    {"datasets", "configs/datasets", NULL, "dataset"},
    {"scenarios", "configs/scenarios", NULL, NULL},
};
#define NWHERES (sizeof wheres / sizeof wheres[0])

/* qsort order of *.cfg file names (char[256] elements). */
static int cmp_name(const void *a, const void *b)
{
	/* by the name without ".cfg", as trainsim list shows it */
	const char *x = a, *y = b;
	size_t nx = strlen(x) - 4, ny = strlen(y) - 4;
	int c = strncmp(x, y, nx < ny ? nx : ny);
	return c ? c : (nx > ny) - (nx < ny);
}

/* The numbered sources of one entry's text listing ("[2]" in the table,
 * the text below it). */
struct notes {
	const char *v[128];
	size_t n;
};

/* The number of source s in ns (added when new), from 1; 0 when full. */
static size_t note_of(struct notes *ns, const char *s)
{
	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], s))
			return i + 1;
	if (ns->n == sizeof ns->v / sizeof ns->v[0])
		return 0;
	ns->v[ns->n++] = s;
	return ns->n;
}

/* A setting's scalar value as the file states it, into buf. */
static void value_of(const config_setting_t *s, char *buf, size_t n)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		snprintf(buf, n, "%s", config_setting_get_string(s));
		break;
	case CONFIG_TYPE_INT:
		snprintf(buf, n, "%d", config_setting_get_int(s));
		break;
	case CONFIG_TYPE_INT64:
		snprintf(buf, n, "%lld", config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, n, "%.10g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, n, "%s", config_setting_get_bool(s) ? "true" : "false");
		break;
	default:
		buf[0] = '\0';
	}
}

/* The string member `name` of group g, or NULL. */
static const char *str_member(const config_setting_t *g, const char *name)
{
	const char *v = NULL;
	if (g && config_setting_is_group(g) &&
	    config_setting_lookup_string((config_setting_t *)g, name, &v))
		return v;
	return NULL;
}

/* Add a row per scalar under s (path its dotted name) to t: field, value,
 * source (the nearest, as the file header says), line. inherited: the
 * source of the innermost enclosing group; entry: the entry (for sources.KEY). */
static void walk(struct ts_table *t, const config_setting_t *s, const char *path,
		 const char *inherited, const config_setting_t *entry, const char *file,
		 struct notes *ns)
{
	if (config_setting_is_aggregate(s)) {
		const char *own =
		    config_setting_is_group(s) && s != entry ? str_member(s, "source") : NULL;
		int n = config_setting_length(s);
		for (int i = 0; i < n; i++) {
			const config_setting_t *c = config_setting_get_elem(s, (unsigned)i);
			const char *name = config_setting_name(c);
			char sub[512];
			if (name && (!strcmp(name, "source") || !strcmp(name, "sources")))
				continue;
			if (name)
				snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", name);
			else
				snprintf(sub, sizeof sub, "%s[%d]", path, i);
			const char *src = own ? own : inherited;
			/* sources.KEY of the entry for its top-level key KEY */
			if (s == entry && name) {
				const config_setting_t *ss =
				    config_setting_get_member((config_setting_t *)entry, "sources");
				const char *k = str_member(ss, name);
				if (k)
					src = k;
			}
			walk(t, c, sub, src, entry, file, ns);
		}
		return;
	}
	char v[1024];
	value_of(s, v, sizeof v);
	table_add_row(t);
	table_cell(t, 0, "%s", path);
	table_cell(t, 1, "%s", v);
	size_t k = ns && inherited ? note_of(ns, inherited) : 0;
	if (ns && k)
		table_cell(t, 2, "[%zu]", k);
	else if (ns)
		table_cell(t, 2, "-");
	else if (inherited)
		table_cell(t, 2, "%s", inherited);
	table_cell(t, 3, "%s:%d", file, (int)config_setting_source_line(s));
}

/* Find entry `name` of w under root: loads the file into cfg, and sets
 * *entry and the file's path relative to root into rel. TS_EUNKNOWN_NAME
 * with the closest names when there is none. */
static int find_entry(const char *root, const struct where *w, const char *name, config_t *cfg,
		      config_setting_t **entry, char *rel, size_t nrel, struct ts_error *err)
{
	char dir[1100], path[2600];
	snprintf(dir, sizeof dir, "%s/%s", root, w->dir);
	*entry = NULL;
	if (!w->list) {
		snprintf(rel, nrel, "%s/%s.cfg", w->dir, name);
		snprintf(path, sizeof path, "%s/%s", root, rel);
		FILE *f = strchr(name, '/') ? NULL : ts_fopen(path, "r");
		if (!f) {
			char near[300];
			cfg_names(dir, name, 3, near, sizeof near);
			return ts_error_set(err, TS_EUNKNOWN_NAME, NULL, 0, NULL,
					    "found no %s named \"%s\" in %s, expected one of its "
					    "files%s%s",
					    w->kind, name, dir, near[0] ? "; did you mean " : "",
					    near);
		}
		fclose(f);
		int rc = cfg_load_file(cfg, path, err);
		if (rc)
			return rc;
		config_setting_t *r = config_root_setting(cfg);
		*entry = w->group ? config_setting_get_member(r, w->group) : r;
		if (!*entry || !config_setting_is_group(*entry))
			return ts_error_set(err, TS_EINVALID, rel, 0, w->group,
					    "found no group \"%s\", expected the %s's settings",
					    w->group, w->kind);
		return 0;
	}
	/* an entry of a list in one of the catalog files */
	DIR *d = ts_opendir(dir);
	if (!d)
		return ts_error_set(err, TS_EIO, dir, 0, NULL, "cannot open the folder");
	struct dirent *e;
	char files[16][256];
	size_t nf = 0;
	while ((e = readdir(d)) && nf < 16) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] != '.' && len > 4 && !strcmp(e->d_name + len - 4, ".cfg"))
			snprintf(files[nf++], sizeof files[0], "%s", e->d_name);
	}
	closedir(d);
	qsort(files, nf, sizeof files[0], cmp_name);
	const char *names[512];
	size_t nn = 0;
	for (size_t i = 0; i < nf; i++) {
		snprintf(path, sizeof path, "%s/%.255s", dir, files[i]);
		config_destroy(cfg);
		config_init(cfg);
		int rc = cfg_load_file(cfg, path, err);
		if (rc)
			return rc;
		config_setting_t *l = config_lookup(cfg, w->list);
		int n = l ? config_setting_length(l) : 0;
		for (int k = 0; k < n; k++) {
			config_setting_t *g = config_setting_get_elem(l, (unsigned)k);
			const char *nm = str_member(g, "name");
			if (nm && !strcmp(nm, name)) {
				*entry = g;
				snprintf(rel, nrel, "%s/%.255s", w->dir, files[i]);
				return 0;
			}
		}
	}
	/* not found: suggest from the last file that has the list */
	char near[300] = "";
	for (size_t i = nf; i-- > 0 && !nn;) {
		snprintf(path, sizeof path, "%s/%.255s", dir, files[i]);
		config_destroy(cfg);
		config_init(cfg);
		if (cfg_load_file(cfg, path, err))
			continue;
		config_setting_t *l = config_lookup(cfg, w->list);
		int n = l ? config_setting_length(l) : 0;
		for (int k = 0; k < n && nn < 512; k++) {
			const char *nm =
			    str_member(config_setting_get_elem(l, (unsigned)k), "name");
			if (nm)
				names[nn++] = nm;
		}
		if (nn)
			ts_suggest(name, names, nn, 3, near, sizeof near);
	}
	ts_error_clear(err);
	return ts_error_set(err, TS_EUNKNOWN_NAME, NULL, 0, NULL,
			    "found no %s named \"%s\" in %s, expected a name that trainsim list "
			    "%s shows%s%s",
			    w->kind, name, dir, w->kind, near[0] ? "; did you mean " : "", near);
}

int list_entry_write(const struct ts_env *env, const char *kind, const char *name,
		     enum ts_format format, FILE *out, struct ts_error *err)
{
	size_t k = 0;
	while (kind && k < NWHERES && strcmp(kind, wheres[k].kind))
		k++;
	if (!kind || k == NWHERES || !name || !*name)
		return ts_error_set(err, TS_EUSAGE, NULL, 0, NULL, "found no kind and name");
	const struct where *w = &wheres[k];
	config_t cfg;
	config_init(&cfg);
	config_setting_t *entry = NULL;
	char rel[1400];
	struct ts_table *t = NULL;
	bool people = format == TS_FORMAT_TEXT;
	int rc = find_entry(env->root, w, name, &cfg, &entry, rel, sizeof rel, err);
	if (rc)
		goto out;
	static const char *const heads[] = {"field", "value", "source", "file"};
	if (table_create(&t, 4)) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < 4; i++)
		table_header(t, i, heads[i], TABLE_LEFT);
	struct notes ns = {.n = 0};
	walk(t, entry, "", str_member(entry, "source"), entry, rel, people ? &ns : NULL);
	if (people)
		fprintf(out, "%s %s: %s, line %d\n\n", w->kind, name, rel,
			(int)config_setting_source_line(entry));
	rc = table_write(t, format, w->kind, out, err);
	if (!rc && people && ns.n) {
		fprintf(out, "\nsources:\n");
		for (size_t i = 0; i < ns.n; i++)
			fprintf(out, "  [%zu] %s\n", i + 1, ns.v[i]);
	}
	if (!rc && fflush(out))
		rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the %s failed", w->kind);
out:
	table_destroy(t);
	config_destroy(&cfg);
	return rc;
}
/* One row per entry of a list kind (storage) with the fields cols[1..n). */
static int list_rows(const char *root, const struct where *w, const char *const *cols, size_t n,
		     struct ts_table *t, bool people, struct ts_error *err)
{
	char dir[1100], path[1400];
	snprintf(dir, sizeof dir, "%s/%s", root, w->dir);
	DIR *d = ts_opendir(dir);
	if (!d)
		return 0; /* no such folder: nothing bundled */
	char files[256][256];
	size_t nf = 0;
	struct dirent *e;
	while ((e = readdir(d)) && nf < 256) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] != '.' && len > 4 && !strcmp(e->d_name + len - 4, ".cfg"))
			snprintf(files[nf++], sizeof files[0], "%s", e->d_name);
	}
	closedir(d);
	qsort(files, nf, sizeof files[0], cmp_name);
	int rc = 0;
	for (size_t i = 0; i < nf && !rc; i++) {
		config_t cfg;
		config_init(&cfg);
		snprintf(path, sizeof path, "%s/%.255s", dir, files[i]);
		if (!(rc = cfg_load_file(&cfg, path, err))) {
			config_setting_t *r = config_root_setting(&cfg);
			config_setting_t *l = w->list ? config_lookup(&cfg, w->list) : NULL;
			int m = w->list ? (l ? config_setting_length(l) : 0) : 1;
			for (int k = 0; k < m; k++) {
				config_setting_t *g =
				    w->list    ? config_setting_get_elem(l, (unsigned)k)
				    : w->group ? config_setting_get_member(r, w->group)
					       : r;
				table_add_row(t);
				if (!w->list)
					table_cell(t, 0, "%.*s", (int)(strlen(files[i]) - 4),
						   files[i]);
				for (size_t c = w->list ? 0 : 1; c < n; c++) {
					const char *key =
					    strcmp(cols[c], "title") ? cols[c] : "name";
					config_setting_t *s =
					    g ? config_setting_get_member(g, key) : NULL;
					char v[512];
					if (s && !config_setting_is_aggregate(s)) {
						value_of(s, v, sizeof v);
						table_cell(t, c, "%s", v);
					} else if (people) {
						table_cell(t, c, "-");
					}
				}
			}
		}
		config_destroy(&cfg);
	}
	return rc;
}

static int list_more(const struct ts_env *env, const char *kind, struct ts_table **out, bool people,
		     struct ts_error *err)
{
	static const char *const storage[] = {"name", "kind",	 "read",   "write",
					      "iops", "latency", "client", "devices"};
	static const char *const datasets[] = {"name", "layout", "samples", "bytes_per_sample",
					       "bytes_per_token"};
	static const char *const scenarios[] = {"name",	   "title", "model",
						"cluster", "nodes", "gpus_per_node"};
	const char *const *cols = storage;
	size_t n = 8, k = 2;
	if (!strcmp(kind, "datasets")) {
		cols = datasets;
		n = 5;
		k = 5;
	} else if (!strcmp(kind, "scenarios")) {
		cols = scenarios;
		n = 6;
		k = 6;
	}
	struct ts_table *t;
	if (table_create(&t, n))
		return TS_ENOMEM;
	for (size_t i = 0; i < n; i++)
		table_header(t, i, cols[i], TABLE_LEFT);
	int rc = list_rows(env->root, &wheres[k], cols, n, t, people, err);
	if (rc) {
		table_destroy(t);
		return rc;
	}
	*out = t;
	return 0;
}

static const char *const kinds[] = {"gpus",	"links",   "clusters", "models",
				    "datasets", "storage", "scenarios"};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* Most files listed from one directory. */
#define LIST_MAX_FILES 4096

/* An unset value: "-" for people, an empty cell (left out of JSON) for programs. */
static void cell_none(struct ts_table *t, size_t col, bool people)
{
	if (people)
		table_cell(t, col, "-");
}

static int list_gpus(const struct hw_catalog *cat, struct ts_table **out, bool people)
{
	static const char *const heads[] = {
	    "name", "bf16(TFLOP/s)", "fp16(TFLOP/s)", "memory(GiB)", "hbm(GB/s)", "sms", "tdp(W)"};
	struct ts_table *t;
	if (table_create(&t, 7))
		return TS_ENOMEM;
	for (size_t i = 0; i < 7; i++)
		table_header(t, i, heads[i], i ? TABLE_RIGHT : TABLE_LEFT);
	for (size_t i = 0; i < hw_catalog_ngpus(cat); i++) {
		const struct hw_gpu_type *g = hw_catalog_gpu(cat, i);
		table_add_row(t);
		table_cell(t, 0, "%s", g->name);
		const enum ts_dtype dt[] = {TS_BF16, TS_FP16};
		for (size_t k = 0; k < 2; k++) {
			if (g->peak_flops[dt[k]] > 0.0)
				table_cell(t, 1 + k, "%.1f", g->peak_flops[dt[k]] / 1e12);
			else
				cell_none(t, 1 + k, people);
		}
		table_cell(t, 3, "%.2f", g->mem_bytes / 1073741824.0);
		table_cell(t, 4, "%.0f", g->hbm_Bps / 1e9);
		table_cell(t, 5, "%u", (unsigned)g->sms);
		table_cell(t, 6, "%.0f", g->tdp_w);
	}
	*out = t;
	return 0;
}

static int list_links(const struct hw_catalog *cat, struct ts_table **out)
{
	static const char *const heads[] = {"name", "bw(GB/s)", "efficiency", "latency(us)"};
	struct ts_table *t;
	if (table_create(&t, 4))
		return TS_ENOMEM;
	for (size_t i = 0; i < 4; i++)
		table_header(t, i, heads[i], i ? TABLE_RIGHT : TABLE_LEFT);
	for (size_t i = 0; i < hw_catalog_nlinks(cat); i++) {
		const struct hw_link_type *l = hw_catalog_link(cat, i);
		table_add_row(t);
		table_cell(t, 0, "%s", l->name);
		table_cell(t, 1, "%.4g", l->bw_Bps / 1e9);
		table_cell(t, 2, "%.2f", l->efficiency);
		table_cell(t, 3, "%.3g", l->lat_s * 1e6);
	}
	*out = t;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct names {
	char **v;
	size_t n, cap;
};

static void names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	*nm = (struct names){0};
}

/* The *.cfg files of dir, without .cfg, sorted bytewise (the same order on
 * every machine). A missing directory has no names. */
static int names_of(const char *dir, struct names *nm)
{
	*nm = (struct names){0};
	DIR *d = ts_opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len <= 4 || strcmp(e->d_name + len - 4, ".cfg"))
			continue;
		if (nm->n == LIST_MAX_FILES) {
			rc = TS_ELIMIT;
			break;
		}
		if (nm->n == nm->cap) {
			size_t cap = nm->cap ? 2 * nm->cap : 16;
			char **v = realloc(nm->v, cap * sizeof *v);
			if (!v) {
				rc = TS_ENOMEM;
				break;
			}
			nm->v = v;
			nm->cap = cap;
		}
		if (!(nm->v[nm->n] = malloc(len - 3))) {
			rc = TS_ENOMEM;
			break;
		}
		memcpy(nm->v[nm->n], e->d_name, len - 4);
		nm->v[nm->n++][len - 4] = '\0';
	}
	closedir(d);
	if (rc)
		names_free(nm);
	else if (nm->n)
		qsort(nm->v, nm->n, sizeof *nm->v, cmp_str);
	return rc;
}

static int list_clusters(const char *root, const struct hw_catalog *cat, struct ts_table **out,
			 bool people, struct ts_error *err)
{
	static const char *const heads[] = {"name",	     "nodes", "gpus_per_node", "gpu",
					    "nics_per_node", "nic",   "description"};
	char dir[1100];
	struct names nm;
	snprintf(dir, sizeof dir, "%s/configs/clusters", root);
	int rc = names_of(dir, &nm);
	if (rc)
		return ts_error_set(err, rc, dir, 0, NULL,
				    "found more than %d files or no memory, "
				    "expected a directory of cluster files",
				    LIST_MAX_FILES);
	struct ts_table *t;
	if (table_create(&t, 7)) {
		names_free(&nm);
		return TS_ENOMEM;
	}
	for (size_t i = 0; i < 7; i++)
		table_header(t, i, heads[i], i == 1 || i == 2 || i == 4 ? TABLE_RIGHT : TABLE_LEFT);
	for (size_t i = 0; i < nm.n && !rc; i++) {
		char path[1400];
		struct hw_cluster *c = NULL;
		snprintf(path, sizeof path, "%s/%s.cfg", dir, nm.v[i]);
		if ((rc = hw_cluster_load(cat, path, NULL, &c, err)))
			break;
		table_add_row(t);
		table_cell(t, 0, "%s", nm.v[i]);
		table_cell(t, 1, "%u", (unsigned)hw_cluster_nodes(c));
		table_cell(t, 2, "%u", (unsigned)hw_cluster_gpus_per_node(c));
		table_cell(t, 3, "%s", hw_cluster_gpu_type(c)->name);
		table_cell(t, 4, "%u", (unsigned)hw_cluster_nics_per_node(c));
		uint32_t nic = hw_cluster_nic(c, 0, 0);
		const struct hw_device *dev = nic == UINT32_MAX ? NULL : hw_cluster_device(c, nic);
		const struct hw_link_type *lt = dev ? hw_catalog_link(cat, dev->type) : NULL;
		if (lt)
			table_cell(t, 5, "%s", lt->name);
		else
			cell_none(t, 5, people);
		table_cell(t, 6, "%s", hw_cluster_description(c));
		hw_cluster_destroy(c);
	}
	names_free(&nm);
	if (rc) {
		table_destroy(t);
		return rc;
	}
	*out = t;
	return 0;
}

static int list_models(const char *root, struct ts_table **out, struct ts_error *err)
{
	static const char *const heads[] = {"name",	"family", "layers", "hidden",	"heads",
					    "kv_heads", "ffn",	  "vocab",  "params(B)"};
	char dir[1100];
	struct names nm;
	snprintf(dir, sizeof dir, "%s/models", root);
	int rc = names_of(dir, &nm);
	if (rc)
		return ts_error_set(err, rc, dir, 0, NULL,
				    "found more than %d files or no memory, "
				    "expected a directory of model files",
				    LIST_MAX_FILES);
	struct ts_table *t;
	struct ts_model *m = ts_calloc(1, sizeof *m);
	if (!m || table_create(&t, 9)) {
		ts_free(m, sizeof *m);
		names_free(&nm);
		return TS_ENOMEM;
	}
	for (size_t i = 0; i < 9; i++)
		table_header(t, i, heads[i], i >= 2 ? TABLE_RIGHT : TABLE_LEFT);
	for (size_t i = 0; i < nm.n && !rc; i++) {
		if ((rc = ts_model_load(root, nm.v[i], m, err)))
			break;
		table_add_row(t);
		table_cell(t, 0, "%s", nm.v[i]);
		table_cell(t, 1, "%s", ts_model_family_name(m->family));
		if (m->family == TS_FAMILY_LAYERS) { /* no transformer dimensions */
			for (size_t k = 2; k <= 7; k++)
				table_cell(t, k, "-");
		} else {
			table_cell(t, 2, "%lld", (long long)m->layers);
			table_cell(t, 3, "%lld", (long long)m->hidden);
			table_cell(t, 4, "%lld", (long long)m->heads);
			table_cell(t, 5, "%lld", (long long)m->kv_heads);
			table_cell(t, 6, "%lld", (long long)m->ffn_hidden);
			table_cell(t, 7, "%lld", (long long)m->vocab);
		}
		table_cell(t, 8, "%.3f", ts_model_params(m) / 1e9);
	}
	ts_free(m, sizeof *m);
	names_free(&nm);
	if (rc) {
		table_destroy(t);
		return rc;
	}
	*out = t;
	return 0;
}

bool list_kind_known(const char *kind)
{
	for (size_t k = 0; kind && k < NKINDS; k++)
		if (!strcmp(kind, kinds[k]))
			return true;
	return false;
}

int list_write(const struct ts_env *env, const char *kind, enum ts_format format, FILE *out,
	       struct ts_error *err)
{
	size_t k = 0;
	while (kind && k < NKINDS && strcmp(kind, kinds[k]))
		k++;
	if (!kind || k == NKINDS)
		return ts_error_set(err, TS_EUSAGE, NULL, 0, NULL, "found no kind");
	bool people = format == TS_FORMAT_TEXT;
	struct ts_table *t = NULL;
	int rc;
	switch (k) {
	case 0:
		rc = list_gpus(env->cat, &t, people);
		break;
	case 1:
		rc = list_links(env->cat, &t);
		break;
	case 2:
		rc = list_clusters(env->root, env->cat, &t, people, err);
		break;
	case 3:
		rc = list_models(env->root, &t, err);
		break;
	default:
		rc = list_more(env, kinds[k], &t, people, err);
		break;
	}
	if (rc) {
		if (!err->code)
			ts_error_set(err, rc, NULL, 0, NULL, "%s", ts_strerror(rc));
	} else {
		rc = table_write(t, format, kinds[k], out, err);
		if (!rc && fflush(out))
			rc = ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the %s failed",
					  kinds[k]);
	}
	table_destroy(t);
	return rc;
}
