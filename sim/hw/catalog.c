/* The hardware catalog: GPU and link types read from configs/hardware/,
 * and the checked libconfig look-ups the whole hw layer shares.
 * SPDX-License-Identifier: MIT */

/*
 * Files are read in byte order of their names, so the catalog (and every index
 * into it) is the same on every machine. A file holds a list `gpus`, a list
 * `links`, or both; anything else at the top level is an unknown key. Every
 * entry carries a `source` summary and a `sources` group with one source per
 * number (the format is documented at the top of configs/hardware/gpus.cfg and
 * links.cfg). A name defined twice, in one file or in two, is an error.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/file.h"
#include "base/alloc.h"
#include "base/suggest.h"
#include "hw/catalog.h"
#include "base/cfg.h"
#include "hw/hw_int.h"

/* ---------------------------------------------------------------- dtypes */

/* NULL-terminated so it doubles as the allowed keys of `peak` and `mamf_eff`. */
static const char *const dtype_names[TS_DTYPE_COUNT_ + 1] = {"fp32", "tf32", "fp16",
							     "bf16", "fp8",  NULL};
static const double dtype_bytes[TS_DTYPE_COUNT_] = {4.0, 4.0, 2.0, 2.0, 1.0};

const char *ts_dtype_name(enum ts_dtype d)
{
	return (unsigned)d < TS_DTYPE_COUNT_ ? dtype_names[d] : "?";
}

int ts_dtype_parse(const char *s)
{
	for (int d = 0; d < TS_DTYPE_COUNT_; d++)
		if (s && strcasecmp(s, dtype_names[d]) == 0)
			return d;
	return -1;
}

double ts_dtype_bytes(enum ts_dtype d)
{
	return (unsigned)d < TS_DTYPE_COUNT_ ? dtype_bytes[d] : 0.0;
}

/* Sanity bounds on catalog figures. Each lies orders of magnitude outside
 * any hardware that exists or is announced, so it refuses only figures that
 * are physically meaningless (a typo in the exponent, a unit slip) and
 * would otherwise drive simulated durations past the int64-ns range or to
 * zero:
 * - link bandwidth 1 kB/s to 1e15 B/s: a 1 kB/s link is 10^5 slower than
 *   10 Mb/s Ethernet; 1 PB/s is 10^3 beyond NVLink 5's 1.8 TB/s per GPU;
 * - link latency at most 1 s: links are 0.1-10 us, a WAN round trip 0.1 s;
 * - efficiencies (mamf_eff, hbm_eff, flash_eff, link efficiency) from 1e-3:
 *   measured ones are 0.3-0.95;
 * - peak 1 GFLOP/s to 1e18 FLOP/s per GPU (B200: 2.25e15 dense bf16);
 * - memory 1 MB to 1e15 B per GPU (B200: 1.9e11 B);
 * - HBM bandwidth 1 MB/s to 1e15 B/s (B200: 8e12 B/s);
 * - TDP 1 W to 100 kW per GPU (B200: 1 kW). */
#define LINK_BW_MIN 1e3
#define LINK_BW_MAX 1e15
#define LINK_LAT_MAX 1.0
#define EFF_MIN 1e-3
#define PEAK_MIN 1e9
#define PEAK_MAX 1e18
#define MEM_MIN 1e6
#define MEM_MAX 1e15
#define HBM_MIN 1e6
#define HBM_MAX 1e15
#define TDP_MIN 1.0
#define TDP_MAX 1e5

int hw_cfg_link_bounds(const config_setting_t *e, double bw_Bps, double lat_s, double eff,
		       const char *file, const char *path, struct ts_error *err)
{
	int rc;
	if ((rc = cfg_bounds(e, "bandwidth", bw_Bps, LINK_BW_MIN, LINK_BW_MAX, "B/s",
			     "far outside any link", file, path, err)) ||
	    (rc = cfg_bounds(e, "latency", lat_s, 0.0, LINK_LAT_MAX, "s", "links take 0.1 to 10 us",
			     file, path, err)) ||
	    (rc = cfg_bounds(e, "efficiency", eff, EFF_MIN, 1.0, "",
			     "measured ones are 0.3 to 0.95", file, path, err)))
		return rc;
	return 0;
}

/* --------------------------------------------------------------- catalog */

enum {
	GPU_PEAK,
	GPU_MAMF,
	GPU_MEM,
	GPU_HBM_BW,
	GPU_HBM_EFF,
	GPU_SMS,
	GPU_TDP,
	GPU_FLASH_EFF, /* optional from here on: a source is required only with the number */
	GPU_POWER_MIN,
	GPU_SM_OUT_BW,
	GPU_NSRC
};
static const char *const gpu_src_keys[] = {"peak",	"mamf_eff",  "memory", "hbm_bw",
					   "hbm_eff",	"sms",	     "tdp",    "flash_eff",
					   "power_min", "sm_out_bw", NULL};
enum { LINK_BW, LINK_LAT, LINK_EFF, LINK_FLOW_CAP /* optional */, LINK_NSRC };
static const char *const link_src_keys[] = {"bandwidth", "latency", "efficiency", "flow_cap", NULL};

/* Where an entry was defined and the source of each of its numbers. */
struct entry_meta {
	uint32_t file; /* index into hw_catalog.files */
	int line;
	char *src[GPU_NSRC]; /* owned; GPU_NSRC >= LINK_NSRC */
};

struct hw_catalog {
	char *root;
	char **files; /* paths read, in order */
	size_t nfiles, cap_files;
	struct hw_gpu_type *gpus;
	struct entry_meta *gpu_meta;
	size_t ngpus, cap_gpus, cap_gpu_meta;
	struct hw_link_type *links;
	struct entry_meta *link_meta;
	size_t nlinks, cap_links, cap_link_meta;
	const char **gpu_names, **link_names; /* ngpus/nlinks + 1 entries, for suggestions */
};

static void free_str(char *s)
{
	if (s)
		ts_free(s, strlen(s) + 1);
}

void hw_catalog_destroy(struct hw_catalog *cat)
{
	if (!cat)
		return;
	for (size_t i = 0; i < cat->ngpus; i++)
		for (int k = 0; k < GPU_NSRC; k++)
			free_str(cat->gpu_meta[i].src[k]);
	for (size_t i = 0; i < cat->nlinks; i++)
		for (int k = 0; k < GPU_NSRC; k++)
			free_str(cat->link_meta[i].src[k]);
	for (size_t i = 0; i < cat->nfiles; i++)
		free_str(cat->files[i]);
	ts_free(cat->files, cat->cap_files * sizeof *cat->files);
	ts_free(cat->gpus, cat->cap_gpus * sizeof *cat->gpus);
	ts_free(cat->gpu_meta, cat->cap_gpu_meta * sizeof *cat->gpu_meta);
	ts_free(cat->links, cat->cap_links * sizeof *cat->links);
	ts_free(cat->link_meta, cat->cap_link_meta * sizeof *cat->link_meta);
	ts_free(cat->gpu_names, (cat->ngpus + 1) * sizeof *cat->gpu_names);
	ts_free(cat->link_names, (cat->nlinks + 1) * sizeof *cat->link_names);
	free_str(cat->root);
	ts_free(cat, sizeof *cat);
}

/* The `sources` group of an entry: one non-empty string per key in `keys`. */
/* Read the `sources` group: a string for each of keys[]; keys at index >=
 * nreq are required only when `e` itself has that key. */
static int parse_sources(const config_setting_t *e, const char *const *keys, int nreq, char **out,
			 const char *file, const char *path, struct ts_error *err)
{
	char p[CFG_KEY_MAX];
	cfg_key_join(p, path, "sources");
	const config_setting_t *g = config_setting_get_member(e, "sources");
	if (!g)
		return ts_error_set(err, TS_EINVALID, file, cfg_line(e), p,
				    "missing key \"sources\", expected a group with a source "
				    "string for each number");
	int rc = cfg_check_keys(g, file, p, keys, SIZE_MAX, err);
	if (rc)
		return rc;
	char buf[2048];
	for (int k = 0; keys[k]; k++) {
		bool req = k < nreq || config_setting_get_member(e, keys[k]) != NULL;
		if (!req && !config_setting_get_member(g, keys[k]))
			continue;
		rc = cfg_get_string(g, keys[k], true, buf, sizeof buf, file, p, err);
		if (rc)
			return rc;
		out[k] = ts_strdup(buf);
		if (!out[k])
			return ts_error_set(err, TS_ENOMEM, file, 0, NULL, "out of memory");
	}
	return 0;
}

static int check_unique(const struct hw_catalog *cat, bool gpu, const char *name, const char *file,
			int line, const char *path, struct ts_error *err)
{
	int i = gpu ? hw_catalog_find_gpu(cat, name) : hw_catalog_find_link(cat, name);
	if (i < 0)
		return 0;
	const struct entry_meta *m = gpu ? &cat->gpu_meta[i] : &cat->link_meta[i];
	return ts_error_set(err, TS_EINVALID, file, line, path,
			    "%s type \"%s\" is defined twice, first at %s:%d; expected unique "
			    "names",
			    gpu ? "GPU" : "link", name, cat->files[m->file], m->line);
}

static int parse_gpu(struct hw_catalog *cat, const config_setting_t *e, const char *file,
		     uint32_t fidx, const char *path, struct ts_error *err)
{
	static const char *const keys[] = {
	    "name",	 "peak",      "mamf_eff",  "memory", "hbm_bw",	"hbm_eff", "sms", "tdp",
	    "flash_eff", "power_min", "sm_out_bw", "source", "sources", "alias",   NULL};
	int rc = cfg_check_keys(e, file, path, keys, SIZE_MAX, err);
	if (rc)
		return rc;
	if (ts_grow((void **)&cat->gpus, &cat->cap_gpus, cat->ngpus + 1, sizeof *cat->gpus) ||
	    ts_grow((void **)&cat->gpu_meta, &cat->cap_gpu_meta, cat->ngpus + 1,
		    sizeof *cat->gpu_meta))
		return ts_error_set(err, TS_ENOMEM, file, 0, NULL, "out of memory");
	struct hw_gpu_type *g = &cat->gpus[cat->ngpus];
	struct entry_meta *m = &cat->gpu_meta[cat->ngpus];
	memset(g, 0, sizeof *g);
	memset(m, 0, sizeof *m);
	m->file = fidx;
	m->line = cfg_line(e);
	char p[CFG_KEY_MAX];
	if ((rc = cfg_get_string(e, "name", true, g->name, sizeof g->name, file, path, err)) ||
	    (rc = check_unique(cat, true, g->name, file, m->line, path, err)))
		return rc;
	cat->ngpus++; /* from here on the entry is owned by the catalog */
	if ((rc = cfg_get_string(e, "alias", false, g->alias, sizeof g->alias, file, path, err)) <
	    0)
		return rc; /* 1: not given */

	const config_setting_t *peak = config_setting_get_member(e, "peak");
	const config_setting_t *mamf = config_setting_get_member(e, "mamf_eff");
	cfg_key_join(p, path, "peak");
	if (!peak)
		return ts_error_set(err, TS_EINVALID, file, m->line, p,
				    "missing key \"peak\", expected a group of dense peaks per "
				    "dtype, e.g. { bf16 = \"312 TFLOP/s\"; }");
	if ((rc = cfg_check_keys(peak, file, p, dtype_names, SIZE_MAX, err)))
		return rc;
	bool any = false;
	for (int d = 0; d < TS_DTYPE_COUNT_; d++) {
		rc = cfg_get_number(peak, dtype_names[d], TS_UNIT_FLOPS, false, 0.0, INFINITY,
				    &g->peak_flops[d], file, p, err);
		if (rc < 0)
			return rc;
		if (rc == 0 && g->peak_flops[d] > 0.0 &&
		    (rc = cfg_bounds(peak, dtype_names[d], g->peak_flops[d], PEAK_MIN, PEAK_MAX,
				     "FLOP/s", "far outside any GPU", file, p, err)))
			return rc;
		any = any || g->peak_flops[d] > 0.0;
	}
	if (!any)
		return ts_error_set(err, TS_ERANGE, file, cfg_line(peak), p,
				    "found no dtype with a positive peak, expected at least one");
	cfg_key_join(p, path, "mamf_eff");
	if (!mamf)
		return ts_error_set(err, TS_EINVALID, file, m->line, p,
				    "missing key \"mamf_eff\", expected a group with a fraction "
				    "per dtype of \"peak\"");
	if ((rc = cfg_check_keys(mamf, file, p, dtype_names, SIZE_MAX, err)))
		return rc;
	for (int d = 0; d < TS_DTYPE_COUNT_; d++) {
		bool supported = g->peak_flops[d] > 0.0;
		rc = cfg_get_number(mamf, dtype_names[d], TS_UNIT_COUNT_, supported, CFG_POSITIVE,
				    1.0, &g->mamf_eff[d], file, p, err);
		if (rc < 0)
			return rc;
		if (rc == 0 && (rc = cfg_bounds(mamf, dtype_names[d], g->mamf_eff[d], EFF_MIN, 1.0,
						"", "measured ones are 0.3 to 0.95", file, p, err)))
			return rc;
		if (rc == 0 && !supported) {
			char k[CFG_KEY_MAX];
			return ts_error_set(
			    err, TS_EINVALID, file,
			    cfg_line(config_setting_get_member(mamf, dtype_names[d])),
			    cfg_key_join(k, p, dtype_names[d]),
			    "found an efficiency for %s, which has no peak; expected it only "
			    "for dtypes listed in \"peak\"",
			    dtype_names[d]);
		}
	}
	uint32_t sms;
	if ((rc = cfg_get_number(e, "memory", TS_UNIT_BYTES, true, CFG_POSITIVE, INFINITY,
				 &g->mem_bytes, file, path, err)) ||
	    (rc = cfg_get_number(e, "hbm_bw", TS_UNIT_BANDWIDTH, true, CFG_POSITIVE, INFINITY,
				 &g->hbm_Bps, file, path, err)) ||
	    (rc = cfg_get_number(e, "hbm_eff", TS_UNIT_COUNT_, true, CFG_POSITIVE, 1.0, &g->hbm_eff,
				 file, path, err)) ||
	    (rc = cfg_get_number(e, "flash_eff", TS_UNIT_COUNT_, false, CFG_POSITIVE, 1.0,
				 &g->flash_eff, file, path, err)) < 0 ||
	    (rc = cfg_get_uint(e, "sms", true, 1, 100000, &sms, file, path, err)) ||
	    (rc = cfg_get_number(e, "tdp", TS_UNIT_POWER, true, CFG_POSITIVE, INFINITY, &g->tdp_w,
				 file, path, err)) ||
	    (rc = cfg_get_number(e, "power_min", TS_UNIT_POWER, false, CFG_POSITIVE, INFINITY,
				 &g->power_min_w, file, path, err)) < 0 ||
	    (rc = cfg_get_number(e, "sm_out_bw", TS_UNIT_BANDWIDTH, false, CFG_POSITIVE, INFINITY,
				 &g->sm_out_Bps, file, path, err)) < 0 ||
	    (rc = cfg_get_string(e, "source", true, g->source, sizeof g->source, file, path, err)))
		return rc;
	if ((rc = cfg_bounds(e, "memory", g->mem_bytes, MEM_MIN, MEM_MAX, "B",
			     "far outside any GPU", file, path, err)) ||
	    (rc = cfg_bounds(e, "hbm_bw", g->hbm_Bps, HBM_MIN, HBM_MAX, "B/s",
			     "far outside any GPU", file, path, err)) ||
	    (rc = cfg_bounds(e, "hbm_eff", g->hbm_eff, EFF_MIN, 1.0, "",
			     "measured ones are 0.3 to 0.95", file, path, err)) ||
	    (rc = cfg_bounds(e, "flash_eff", g->flash_eff, EFF_MIN, 1.0, "",
			     "measured ones are 0.3 to 0.95", file, path, err)) ||
	    (rc = cfg_bounds(e, "tdp", g->tdp_w, TDP_MIN, TDP_MAX, "W", "far outside any GPU", file,
			     path, err)))
		return rc;
	/* per SM: H100 SXM's share of achievable HBM is 22.3 GB/s */
	if (g->sm_out_Bps > 0.0 &&
	    (rc = cfg_bounds(e, "sm_out_bw", g->sm_out_Bps, 1e8, HBM_MAX, "B/s",
			     "bytes per second per SM, far outside any GPU", file, path, err)))
		return rc;
	/* a minimum power limit lies below the default one (nvidia-smi: H100
	 * SXM 200 of 700 W) */
	if (g->power_min_w > 0.0 &&
	    (rc = cfg_bounds(e, "power_min", g->power_min_w, TDP_MIN, g->tdp_w, "W",
			     "the card's lowest power limit, at most its tdp", file, path, err)))
		return rc;
	g->sms = sms;
	return parse_sources(e, gpu_src_keys, GPU_FLASH_EFF, m->src, file, path, err);
}

static int parse_link(struct hw_catalog *cat, const config_setting_t *e, const char *file,
		      uint32_t fidx, const char *path, struct ts_error *err)
{
	static const char *const keys[] = {"name",     "bandwidth", "latency", "efficiency",
					   "flow_cap", "source",    "sources", NULL};
	int rc = cfg_check_keys(e, file, path, keys, SIZE_MAX, err);
	if (rc)
		return rc;
	if (ts_grow((void **)&cat->links, &cat->cap_links, cat->nlinks + 1, sizeof *cat->links) ||
	    ts_grow((void **)&cat->link_meta, &cat->cap_link_meta, cat->nlinks + 1,
		    sizeof *cat->link_meta))
		return ts_error_set(err, TS_ENOMEM, file, 0, NULL, "out of memory");
	struct hw_link_type *l = &cat->links[cat->nlinks];
	struct entry_meta *m = &cat->link_meta[cat->nlinks];
	memset(l, 0, sizeof *l);
	memset(m, 0, sizeof *m);
	m->file = fidx;
	m->line = cfg_line(e);
	if ((rc = cfg_get_string(e, "name", true, l->name, sizeof l->name, file, path, err)) ||
	    (rc = check_unique(cat, false, l->name, file, m->line, path, err)))
		return rc;
	cat->nlinks++;
	if ((rc = cfg_get_number(e, "bandwidth", TS_UNIT_BANDWIDTH, true, CFG_POSITIVE, INFINITY,
				 &l->bw_Bps, file, path, err)) ||
	    (rc = cfg_get_number(e, "latency", TS_UNIT_TIME, true, 0.0, INFINITY, &l->lat_s, file,
				 path, err)) ||
	    (rc = cfg_get_number(e, "efficiency", TS_UNIT_COUNT_, true, CFG_POSITIVE, 1.0,
				 &l->efficiency, file, path, err)) ||
	    (rc = cfg_get_number(e, "flow_cap", TS_UNIT_BANDWIDTH, false, CFG_POSITIVE, INFINITY,
				 &l->flow_cap_Bps, file, path, err)) < 0 ||
	    (rc =
		 cfg_get_string(e, "source", true, l->source, sizeof l->source, file, path, err)) ||
	    (rc = hw_cfg_link_bounds(e, l->bw_Bps, l->lat_s, l->efficiency, file, path, err)))
		return rc;
	return parse_sources(e, link_src_keys, LINK_FLOW_CAP, m->src, file, path, err);
}

static int parse_list(struct hw_catalog *cat, const config_setting_t *list, bool gpu,
		      const char *file, uint32_t fidx, struct ts_error *err)
{
	const char *what = gpu ? "gpus" : "links";
	if (!config_setting_is_list(list))
		return ts_error_set(err, TS_ETYPE, file, cfg_line(list), what,
				    "found %s, expected a list ( { ... }, { ... } )",
				    cfg_type_name(list));
	int n = config_setting_length(list);
	for (int i = 0; i < n; i++) {
		char path[CFG_KEY_MAX];
		snprintf(path, sizeof path, "%s[%d]", what, i);
		const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
		int rc = gpu ? parse_gpu(cat, e, file, fidx, path, err)
			     : parse_link(cat, e, file, fidx, path, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_file(struct hw_catalog *cat, uint32_t fidx, struct ts_error *err)
{
	/* "storage" is read by sim/data/catalog.c */
	static const char *const top[] = {"gpus", "links", "storage", NULL};
	const char *file = cat->files[fidx];
	config_t cfg;
	config_init(&cfg);
	int rc = cfg_load_file(&cfg, file, err);
	if (!rc)
		rc = cfg_check_keys(config_root_setting(&cfg), file, "", top, SIZE_MAX, err);
	const config_setting_t *s;
	if (!rc && (s = config_lookup(&cfg, "gpus")))
		rc = parse_list(cat, s, true, file, fidx, err);
	if (!rc && (s = config_lookup(&cfg, "links")))
		rc = parse_list(cat, s, false, file, fidx, err);
	config_destroy(&cfg);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect <root>/configs/hardware/ *.cfg into cat->files, sorted. */
static int list_files(struct hw_catalog *cat, const char *root, struct ts_error *err)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/configs/hardware", root);
	DIR *d = ts_opendir(dir);
	if (!d)
		return ts_error_set(err, TS_EIO, dir, 0, NULL,
				    "cannot open the hardware catalog directory: %s",
				    strerror(errno));
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 5 || de->d_name[0] == '.' || strcmp(de->d_name + len - 4, ".cfg") != 0)
			continue;
		char path[1280];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		char *copy = ts_strdup(path);
		if (!copy || ts_grow((void **)&cat->files, &cat->cap_files, cat->nfiles + 1,
				     sizeof *cat->files)) {
			free_str(copy);
			rc = ts_error_set(err, TS_ENOMEM, dir, 0, NULL, "out of memory");
			break;
		}
		cat->files[cat->nfiles++] = copy;
	}
	closedir(d);
	if (rc)
		return rc;
	if (cat->nfiles == 0)
		return ts_error_set(err, TS_EIO, dir, 0, NULL,
				    "found no *.cfg file, expected the GPU and link catalog");
	qsort(cat->files, cat->nfiles, sizeof *cat->files, cmp_str);
	return 0;
}

int hw_catalog_load(const char *root, struct hw_catalog **out, struct ts_error *err)
{
	*out = NULL;
	struct hw_catalog *cat = ts_calloc(1, sizeof *cat);
	if (!cat || !(cat->root = ts_strdup(root))) {
		ts_free(cat, sizeof *cat);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	int rc = list_files(cat, root, err);
	for (uint32_t f = 0; !rc && f < cat->nfiles; f++)
		rc = parse_file(cat, f, err);
	if (!rc) {
		cat->gpu_names = ts_calloc(cat->ngpus + 1, sizeof *cat->gpu_names);
		cat->link_names = ts_calloc(cat->nlinks + 1, sizeof *cat->link_names);
		if (!cat->gpu_names || !cat->link_names) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		} else {
			for (size_t i = 0; i < cat->ngpus; i++)
				cat->gpu_names[i] = cat->gpus[i].name;
			for (size_t i = 0; i < cat->nlinks; i++)
				cat->link_names[i] = cat->links[i].name;
		}
	}
	if (rc) {
		hw_catalog_destroy(cat);
		return rc;
	}
	*out = cat;
	return 0;
}

const char *hw_catalog_root(const struct hw_catalog *cat)
{
	return cat->root;
}

size_t hw_catalog_ngpus(const struct hw_catalog *cat)
{
	return cat->ngpus;
}

const struct hw_gpu_type *hw_catalog_gpu(const struct hw_catalog *cat, size_t i)
{
	return i < cat->ngpus ? &cat->gpus[i] : NULL;
}

size_t hw_catalog_nlinks(const struct hw_catalog *cat)
{
	return cat->nlinks;
}

const struct hw_link_type *hw_catalog_link(const struct hw_catalog *cat, size_t i)
{
	return i < cat->nlinks ? &cat->links[i] : NULL;
}

int hw_catalog_set_link_efficiency(struct hw_catalog *cat, size_t i, double efficiency)
{
	if (i >= cat->nlinks || !(efficiency > 0.0) || !(efficiency <= 1.0))
		return TS_ERANGE;
	cat->links[i].efficiency = efficiency;
	return 0;
}

int hw_catalog_set_gpu_eff(struct hw_catalog *cat, size_t i, double hbm_eff, double flash_eff)
{
	if (i >= cat->ngpus || !(hbm_eff > 0.0) || !(hbm_eff <= 1.0) || !(flash_eff >= 0.0) ||
	    !(flash_eff <= 1.0))
		return TS_ERANGE;
	cat->gpus[i].hbm_eff = hbm_eff;
	cat->gpus[i].flash_eff = flash_eff;
	return 0;
}

int hw_catalog_find_gpu(const struct hw_catalog *cat, const char *name)
{
	for (size_t i = 0; i < cat->ngpus; i++)
		if (strcasecmp(cat->gpus[i].name, name) == 0)
			return (int)i;
	/* a former name, kept so that files naming it still load */
	for (size_t i = 0; i < cat->ngpus; i++)
		if (cat->gpus[i].alias[0] && strcasecmp(cat->gpus[i].alias, name) == 0)
			return (int)i;
	return -1;
}

int hw_catalog_find_link(const struct hw_catalog *cat, const char *name)
{
	for (size_t i = 0; i < cat->nlinks; i++)
		if (strcasecmp(cat->links[i].name, name) == 0)
			return (int)i;
	return -1;
}

char *hw_catalog_suggest(const struct hw_catalog *cat, const char *kind, const char *name,
			 char *buf, size_t n)
{
	bool gpu = strcmp(kind, "gpu") == 0;
	return ts_suggest(name, gpu ? cat->gpu_names : cat->link_names,
			  gpu ? cat->ngpus : cat->nlinks, 3, buf, n);
}

static const char *find_source(const struct entry_meta *m, const char *const *keys, const char *key)
{
	for (int k = 0; keys[k]; k++)
		if (strcmp(keys[k], key) == 0)
			return m->src[k];
	return NULL;
}

const char *hw_catalog_gpu_source(const struct hw_catalog *cat, size_t i, const char *key)
{
	return i < cat->ngpus ? find_source(&cat->gpu_meta[i], gpu_src_keys, key) : NULL;
}

const char *hw_catalog_link_source(const struct hw_catalog *cat, size_t i, const char *key)
{
	return i < cat->nlinks ? find_source(&cat->link_meta[i], link_src_keys, key) : NULL;
}

const char *hw_catalog_gpu_file(const struct hw_catalog *cat, size_t i)
{
	return i < cat->ngpus ? cat->files[cat->gpu_meta[i].file] : NULL;
}

const char *hw_catalog_link_file(const struct hw_catalog *cat, size_t i)
{
	return i < cat->nlinks ? cat->files[cat->link_meta[i].file] : NULL;
}
