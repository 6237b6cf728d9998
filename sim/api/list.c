/* ts_list_write: the GPU and link types of the hardware catalog, the
 * bundled clusters (configs/clusters/) and models (models/), datasets,
 * storage types and scenarios (listinfo.c), as a table, CSV or JSON.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* opendir, readdir */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "base/file.h"
#include "base/suggest.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "plan/env.h"
#include "report/table.h"
#include "work/model.h"

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

int ts_list_write(const ts_env *env, const char *kind, enum ts_format format, FILE *out)
{
	size_t k = 0;
	while (kind && k < NKINDS && strcmp(kind, kinds[k]))
		k++;
	if (!kind || k == NKINDS) {
		char near[160];
		near[0] = '\0';
		if (kind)
			ts_suggest(kind, kinds, NKINDS, 1, near, sizeof near);
		return api_failf(TS_EUSAGE, NULL,
				 "found %s%s%s, expected gpus, links, clusters, models, "
				 "datasets, storage or scenarios%s%s",
				 kind ? "\"" : "no kind", kind ? kind : "", kind ? "\"" : "",
				 near[0] ? "; did you mean " : "", near);
	}
	bool people = format == TS_FORMAT_TEXT;
	struct ts_table *t = NULL;
	struct ts_error err;
	ts_error_clear(&err);
	int rc;
	switch (k) {
	case 0:
		rc = list_gpus(env->cat, &t, people);
		break;
	case 1:
		rc = list_links(env->cat, &t);
		break;
	case 2:
		rc = list_clusters(env->root, env->cat, &t, people, &err);
		break;
	case 3:
		rc = list_models(env->root, &t, &err);
		break;
	default:
		rc = list_more(env, kinds[k], &t, people, &err);
		break;
	}
	if (rc) {
		if (!err.code)
			ts_error_set(&err, rc, NULL, 0, NULL, "%s", ts_strerror(rc));
		rc = api_fail(&err);
	} else {
		rc = api_table_write(t, format, kinds[k], out);
		if (!rc && fflush(out))
			rc = api_failf(TS_EIO, NULL, "writing the %s failed", kinds[k]);
	}
	table_destroy(t);
	return rc;
}
