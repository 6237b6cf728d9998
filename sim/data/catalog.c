/* The input pipeline's catalog: storage types and datasets from libconfig
 * files, every value checked (type, unit, range) and every error naming the
 * file, line and key, what was found and what was expected.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/alloc.h"
#include "base/suggest.h"
#include "base/units.h"
#include "data/catalog.h"
#include "base/cfg.h"

#define MAX_STORAGE 256

static const char *const kind_names[DATA_STORAGE_KIND_COUNT_] = {"local", "shared", "memory"};
static const char *const layout_names[DATA_LAYOUT_COUNT_] = {"files", "packed", "none"};

const char *data_storage_kind_name(enum data_storage_kind k)
{
	return (unsigned)k < DATA_STORAGE_KIND_COUNT_ ? kind_names[k] : "?";
}

const char *data_layout_name(enum data_layout l)
{
	return (unsigned)l < DATA_LAYOUT_COUNT_ ? layout_names[l] : "?";
}

struct data_catalog {
	struct data_storage *st;
	size_t n, cap; /* entries read, entries allocated */
};

/* ---- checked reads of one group's members ------------------------------ */

struct rd {
	const char *file;
	const char *prefix; /* "storage.[2]." or "dataset." */
	struct ts_error *err;
};

static int fail(const struct rd *r, int code, const config_setting_t *s, const char *key,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* An error at setting s about member `key` of the group being read. */
static int fail(const struct rd *r, int code, const config_setting_t *s, const char *key,
		const char *fmt, ...)
{
	char k[CFG_KEY_MAX], msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ts_error_set(r->err, code, r->file, cfg_line(s), cfg_key_join(k, r->prefix, key),
			    "%s", msg);
}

/* ---- storage ------------------------------------------------------------ */

static int read_storage(const struct rd *r, const config_setting_t *e, struct data_storage *d)
{
	static const char *const keys[] = {"name",   "kind",	"read",	   "write",
					   "iops",   "latency", "devices", "client",
					   "source", "seek",	"rpm"};
	int rc, k = 0;
	double v;
	memset(d, 0, sizeof *d);
	if (!config_setting_is_group(e))
		return fail(r, TS_ETYPE, e, "", "found %s, expected a group { name = ...; }",
			    cfg_type_name(e));
	if ((rc = cfg_check_keys(e, r->file, r->prefix, keys, sizeof keys / sizeof keys[0],
				 r->err)) ||
	    (rc = cfg_get_string(e, "name", true, d->name, sizeof d->name, r->file, r->prefix,
				 r->err)) ||
	    (rc = cfg_get_enum(e, "kind", true, kind_names, DATA_STORAGE_KIND_COUNT_, &k, r->file,
			       r->prefix, r->err)) ||
	    (rc = cfg_get_number(e, "read", TS_UNIT_BANDWIDTH, true, 1.0, 1e16, &d->read_Bps,
				 r->file, r->prefix, r->err)) ||
	    (rc = cfg_get_number(e, "latency", TS_UNIT_TIME, true, 0.0, 10.0, &d->lat_s, r->file,
				 r->prefix, r->err)) ||
	    (rc = cfg_get_string(e, "source", true, d->source, sizeof d->source, r->file, r->prefix,
				 r->err)))
		return rc;
	d->kind = (enum data_storage_kind)k;
	if ((rc = cfg_get_number(e, "write", TS_UNIT_BANDWIDTH, false, 1.0, 1e16, &d->write_Bps,
				 r->file, r->prefix, r->err)) < 0)
		return rc;
	if ((rc = cfg_get_number(e, "iops", TS_UNIT_COUNT_, false, 1.0, 1e12, &d->iops, r->file,
				 r->prefix, r->err)) < 0)
		return rc;
	d->devices = 1;
	if ((rc = cfg_get_number(e, "devices", TS_UNIT_COUNT_, false, 1.0, 1024.0, &v, r->file,
				 r->prefix, r->err)) < 0)
		return rc;
	if (rc == 0) {
		if (d->kind != DATA_STORAGE_LOCAL || v != floor(v))
			return fail(r, TS_EINVALID, config_setting_get_member(e, "devices"),
				    "devices",
				    "found %g on a %s storage, expected a whole number of "
				    "drives on a local storage only",
				    v, kind_names[d->kind]);
		d->devices = (uint32_t)v;
	}
	/* a rotating drive: average seek (datasheet, read) and spindle speed; a
	 * random request waits for both, then reads at the sequential rate */
	double seek = 0.0, rpm = 0.0;
	int hs, hr;
	if ((hs = cfg_get_number(e, "seek", TS_UNIT_TIME, false, 0.0, 1.0, &seek, r->file,
				 r->prefix, r->err)) < 0)
		return hs;
	if ((hr = cfg_get_number(e, "rpm", TS_UNIT_COUNT_, false, 1000.0, 100000.0, &rpm, r->file,
				 r->prefix, r->err)) < 0)
		return hr;
	if ((hs == 0) != (hr == 0)) {
		const char *key = hs == 0 ? "seek" : "rpm";
		return fail(r, TS_EINVALID, config_setting_get_member(e, key), key,
			    "found %s without %s, expected seek and rpm together (a rotating "
			    "drive's positioning is the seek plus half a revolution)",
			    key, hs == 0 ? "rpm" : "seek");
	}
	if (hs == 0 && (d->kind != DATA_STORAGE_LOCAL || d->iops > 0.0))
		return fail(r, TS_EINVALID, config_setting_get_member(e, "seek"), "seek",
			    "found seek and rpm %s, expected them on a local storage without "
			    "iops (a rotating drive's request rate follows from them)",
			    d->iops > 0.0 ? "with iops" : "on a storage that is not local");
	if (hs == 0)
		d->position_s = seek + 0.5 * 60.0 / rpm;
	if ((rc = cfg_get_number(e, "client", TS_UNIT_BANDWIDTH, false, 1.0, 1e16, &d->client_Bps,
				 r->file, r->prefix, r->err)) < 0)
		return rc;
	if (rc == 0 && d->kind != DATA_STORAGE_SHARED)
		return fail(r, TS_EINVALID, config_setting_get_member(e, "client"), "client",
			    "found a per-client cap on a %s storage, expected it only on a shared "
			    "file system",
			    kind_names[d->kind]);
	return 0;
}

int data_catalog_load(const char *root, struct data_catalog **out, struct ts_error *err)
{
	char path[1200];
	config_t cfg;
	*out = NULL;
	snprintf(path, sizeof path, "%s/configs/hardware/storage.cfg", root ? root : ".");
	config_init(&cfg);
	struct data_catalog *c = ts_calloc(1, sizeof *c);
	int rc = c ? cfg_load_file(&cfg, path, err) : TS_ENOMEM;
	if (rc)
		goto done;
	const config_setting_t *list = config_lookup(&cfg, "storage");
	struct rd r = {.file = path, .prefix = "", .err = err};
	if (!list || !config_setting_is_list(list)) {
		rc = fail(&r, list ? TS_ETYPE : TS_EINVALID, list, "storage",
			  "found %s, expected a list storage = ( { ... }, ... );",
			  list ? cfg_type_name(list) : "nothing");
		goto done;
	}
	int n = config_setting_length(list);
	if (n < 1 || n > MAX_STORAGE) {
		rc = fail(&r, TS_ERANGE, list, "storage", "found %d entries, expected 1 to %d", n,
			  MAX_STORAGE);
		goto done;
	}
	if (!(c->st = ts_calloc((size_t)n, sizeof *c->st))) {
		rc = TS_ENOMEM;
		goto done;
	}
	c->cap = (size_t)n;
	for (int i = 0; i < n && !rc; i++) {
		char pre[48];
		snprintf(pre, sizeof pre, "storage.[%d].", i);
		r.prefix = pre;
		const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
		if ((rc = read_storage(&r, e, &c->st[i])))
			break;
		for (int j = 0; j < i; j++)
			if (!strcmp(c->st[j].name, c->st[i].name)) {
				rc = fail(&r, TS_EINVALID, e, "name",
					  "found \"%s\" a second time, expected unique names",
					  c->st[i].name);
				break;
			}
		c->n = (size_t)i + 1;
	}
done:
	config_destroy(&cfg);
	if (rc == TS_ENOMEM)
		ts_error_set(err, rc, NULL, 0, NULL, "out of memory");
	if (rc) {
		data_catalog_destroy(c);
		return rc;
	}
	*out = c;
	return 0;
}

void data_catalog_destroy(struct data_catalog *c)
{
	if (!c)
		return;
	ts_free(c->st, c->cap * sizeof *c->st);
	ts_free(c, sizeof *c);
}

size_t data_catalog_nstorage(const struct data_catalog *c)
{
	return c->n;
}

const struct data_storage *data_catalog_storage(const struct data_catalog *c, size_t i)
{
	return i < c->n ? &c->st[i] : NULL;
}

const struct data_storage *data_catalog_find_storage(const struct data_catalog *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->st[i].name, name))
			return &c->st[i];
	return NULL;
}

char *data_catalog_suggest_storage(const struct data_catalog *c, const char *name, char *buf,
				   size_t n)
{
	const char *names[MAX_STORAGE];
	for (size_t i = 0; i < c->n; i++)
		names[i] = c->st[i].name;
	return ts_suggest(name, names, c->n, 3, buf, n);
}

/* ---- datasets ----------------------------------------------------------- */

/* Dataset names of ROOT/configs/datasets closest to `name`, into buf. */
static void dataset_names(const char *dir, const char *name, char *buf, size_t n)
{
	char store[32][48];
	const char *names[32];
	size_t k = 0;
	DIR *d = ts_opendir(dir);
	buf[0] = '\0';
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d)) && k < 32;) {
		size_t l = strlen(e->d_name);
		if (l > 4 && l < 48 && !strcmp(e->d_name + l - 4, ".cfg")) {
			snprintf(store[k], sizeof store[k], "%.*s", (int)(l - 4), e->d_name);
			names[k] = store[k];
			k++;
		}
	}
	closedir(d);
	ts_suggest(name, names, k, 3, buf, n);
}

static int read_dataset(const struct rd *r, const config_setting_t *g, struct data_dataset *d)
{
	static const char *const keys[] = {"name",
					   "layout",
					   "samples",
					   "bytes_per_sample",
					   "bytes_per_token",
					   "device_bytes_per_sample",
					   "device_bytes_per_token",
					   "decode_per_sample",
					   "decode_per_token",
					   "source"};
	int rc, k = 0;
	if ((rc = cfg_check_keys(g, r->file, r->prefix, keys, sizeof keys / sizeof keys[0],
				 r->err)) ||
	    (rc = cfg_get_string(g, "name", false, d->name, sizeof d->name, r->file, r->prefix,
				 r->err)) < 0 ||
	    (rc = cfg_get_enum(g, "layout", true, layout_names, DATA_LAYOUT_COUNT_, &k, r->file,
			       r->prefix, r->err)) ||
	    (rc = cfg_get_number(g, "samples", TS_UNIT_COUNT_, true, 1.0, 1e15, &d->samples,
				 r->file, r->prefix, r->err)) ||
	    (rc = cfg_get_string(g, "source", true, d->source, sizeof d->source, r->file, r->prefix,
				 r->err)))
		return rc;
	d->layout = (enum data_layout)k;
	d->per_token = config_setting_get_member(g, "bytes_per_token") != NULL;
	const char *unit = d->per_token ? "token" : "sample";
	static const char *const pairs[3][2] = {
	    {"bytes_per_sample", "bytes_per_token"},
	    {"device_bytes_per_sample", "device_bytes_per_token"},
	    {"decode_per_sample", "decode_per_token"}};
	double *dst[3] = {&d->disk_bytes, &d->device_bytes, &d->decode_core_s};
	for (int i = 0; i < 3; i++) {
		const char *want = pairs[i][d->per_token], *other = pairs[i][!d->per_token];
		if (config_setting_get_member(g, other))
			return fail(r, TS_EINVALID, config_setting_get_member(g, other), other,
				    "found a per-%s key in a per-%s dataset, expected %s "
				    "(bytes_per_token makes every size and cost per token)",
				    d->per_token ? "sample" : "token", unit, want);
		if ((rc = cfg_get_number(g, want, i == 2 ? TS_UNIT_TIME : TS_UNIT_BYTES, true, 0.0,
					 i == 2 ? 3600.0 : 1e12, dst[i], r->file, r->prefix,
					 r->err)))
			return rc;
	}
	(void)unit;
	return 0;
}

int data_dataset_load(const char *root, const char *name, struct data_dataset *out,
		      struct ts_error *err)
{
	char dir[1100], path[1300];
	struct stat st;
	snprintf(dir, sizeof dir, "%s/configs/datasets", root ? root : ".");
	snprintf(path, sizeof path, "%s/%s.cfg", dir, name);
	memset(out, 0, sizeof *out);
	if (!name[0] || strchr(name, '/') || stat(path, &st) != 0) {
		char near[200];
		dataset_names(dir, name, near, sizeof near);
		return ts_error_set(err, TS_EUNKNOWN_NAME, NULL, 0, "data.dataset",
				    "found \"%.60s\", expected a dataset of %s%s%s", name, dir,
				    near[0] ? "; closest: " : "", near);
	}
	config_t cfg;
	config_init(&cfg);
	int rc = cfg_load_file(&cfg, path, err);
	if (!rc) {
		const config_setting_t *g = config_lookup(&cfg, "dataset");
		struct rd r = {.file = path, .prefix = "dataset.", .err = err};
		if (!g || !config_setting_is_group(g))
			rc = fail(&r, g ? TS_ETYPE : TS_EINVALID, g, "",
				  "found %s, expected a group dataset = { ... };",
				  g ? cfg_type_name(g) : "nothing");
		else
			rc = read_dataset(&r, g, out);
	}
	config_destroy(&cfg);
	if (!rc && !out->name[0])
		snprintf(out->name, sizeof out->name, "%.47s", name);
	return rc;
}
