/* Loading sweep files. libconfig 1.5 takes no quoted setting names, so a
 * quoted axis name ("parallel.bucket" = ...) is rewritten before parsing to
 * a name libconfig accepts, with each dot as '*' kept on the same line
 * (so line numbers hold) and turned back when the axes are read. An inline
 * base group is written back as libconfig text, so every point is loaded by
 * the same scenario loader as `trainsim run` with the axes as --set values.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/cfg.h"
#include "base/sbuf.h"
#include "io/sweepcfg.h"

static const char *const sweep_keys[] = {"base", "axes", "zip"};

/* A string as a libconfig literal. */
static void sb_quoted(struct sbuf *b, const char *s)
{
	sbuf_add(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sbuf_add(b, "\\", 1);
		sbuf_add(b, s, 1);
	}
	sbuf_add(b, "\"", 1);
}

/* A string as the CSV and messages show it: control characters escaped
 * (ts_escape_ctl), so a value never prints a newline or a terminal escape. */
static void sb_shown(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		char e[8];
		ts_escape_ctl(e, sizeof e, s, 1);
		sbuf_str(b, e);
	}
}

/* A scalar setting as libconfig text (set) and as CSV text (shown); 0 or
 * TS_ETYPE for an aggregate. */
static int scalar_text(const config_setting_t *s, struct sbuf *set, struct sbuf *shown)
{
	char buf[64];
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(buf, sizeof buf, "%lld", (long long)config_setting_get_int64(s));
		sbuf_str(set, buf);
		sbuf_str(shown, buf);
		return 0;
	case CONFIG_TYPE_FLOAT:
		cfg_float_text(buf, sizeof buf, config_setting_get_float(s));
		sbuf_str(set, buf);
		sbuf_str(shown, buf);
		return 0;
	case CONFIG_TYPE_BOOL:
		sbuf_str(set, config_setting_get_bool(s) ? "true" : "false");
		sbuf_str(shown, config_setting_get_bool(s) ? "true" : "false");
		return 0;
	case CONFIG_TYPE_STRING:
		sb_quoted(set, config_setting_get_string(s));
		sb_shown(shown, config_setting_get_string(s));
		return 0;
	default:
		return TS_ETYPE;
	}
}

/* Rewrite "a.b" = / "a.b" : into a*b = (see the top of the file). */
static int unquote_names(const char *text, char **out, size_t *cap)
{
	struct sbuf b = {0};
	const char *p = text;
	while (*p) {
		if (*p == '#' || (p[0] == '/' && p[1] == '/')) { /* comment to end of line */
			const char *e = strchr(p, '\n');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			sbuf_add(&b, p, n);
			p += n;
			continue;
		}
		if (*p == '"') {
			const char *q = p + 1;
			while (*q && *q != '"' && *q != '\n') {
				if (*q == '\\' && q[1])
					q++;
				q++;
			}
			if (*q != '"') {
				sbuf_add(&b, p, (size_t)(q - p));
				p = q;
				continue;
			}
			const char *r = q + 1;
			while (*r == ' ' || *r == '\t')
				r++;
			bool name = (*r == '=' || *r == ':') && q > p + 1 &&
				    (isalpha((unsigned char)p[1]) || p[1] == '_');
			for (const char *c = p + 1; name && c < q; c++)
				if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.')
					name = false;
			if (name) {
				for (const char *c = p + 1; c < q; c++)
					sbuf_add(&b, *c == '.' ? "*" : c, 1);
			} else {
				sbuf_add(&b, p, (size_t)(q + 1 - p));
			}
			p = q + 1;
			continue;
		}
		sbuf_add(&b, p, 1);
		p++;
	}
	if (b.rc) {
		ts_free(b.p, b.cap);
		return b.rc;
	}
	if (!b.p)
		sbuf_add(&b, "", 0);
	*out = b.p;
	*cap = b.cap;
	return b.rc;
}

struct ld {
	struct sweep_spec *sp;
	const char *file;
	struct ts_error *err;
};

static int add_axis(struct ld *l, const config_setting_t *s, const char *key)
{
	struct sweep_spec *sp = l->sp;
	char fb[160];
	if (sp->naxes >= SWEEP_MAX_AXES)
		return cfg_fail(l->err, TS_ELIMIT, s, l->file, "axes",
				"found more than %d axes, expected at most %d", SWEEP_MAX_AXES,
				SWEEP_MAX_AXES);
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
		return cfg_fail(l->err, TS_ETYPE, s, l->file, key,
				"found %s, expected an array of values [a, b, ...]",
				cfg_found(s, fb, sizeof fb));
	int n = config_setting_length(s);
	if (n < 1)
		return cfg_fail(l->err, TS_EINVALID, s, l->file, key,
				"found an empty axis, expected at least one value");
	/* "parallel.tp" = [...] beside parallel = { tp = [...]; }: both would
	 * be applied to every point and the last would win unseen */
	for (size_t b = 0; b < sp->naxes; b++)
		if (!strcmp(sp->axes[b].key, key))
			return cfg_fail(l->err, TS_EINVALID, s, l->file, key,
					"found a second axis of this key (the first is on line "
					"%d), expected one axis per key",
					sp->axes[b].line);
	/* nodes and cluster.nodes (gpus_per_node, nics_per_node alike) are one
	 * count, which a scenario refuses to be given twice: every point would
	 * be invalid */
	static const char *const counts[] = {"nodes", "gpus_per_node", "nics_per_node"};
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		char alias[64];
		if (!strcmp(key, counts[c]))
			snprintf(alias, sizeof alias, "cluster.%s", counts[c]);
		else if (!strncmp(key, "cluster.", 8) && !strcmp(key + 8, counts[c]))
			snprintf(alias, sizeof alias, "%s", counts[c]);
		else
			continue;
		for (size_t b = 0; b < sp->naxes; b++)
			if (!strcmp(sp->axes[b].key, alias))
				return cfg_fail(l->err, TS_EINVALID, s, l->file, key,
						"found axes \"%s\" (line %d) and \"%s\", which "
						"set the same count (the scenario's %s, or its "
						"cluster's), expected one of the two",
						alias, sp->axes[b].line, key, counts[c]);
	}
	struct sweep_axis *a = &sp->axes[sp->naxes++];
	snprintf(a->key, sizeof a->key, "%s", key);
	a->line = (int)config_setting_source_line(s);
	a->set = ts_calloc((size_t)n, sizeof *a->set);
	a->shown = ts_calloc((size_t)n, sizeof *a->shown);
	a->n = (size_t)n; /* destroy frees the arrays with this count */
	if (!a->set || !a->shown)
		return ts_error_set(l->err, TS_ENOMEM, l->file, 0, NULL, "out of memory");
	for (int i = 0; i < n; i++) {
		const config_setting_t *v = config_setting_get_elem(s, (unsigned)i);
		struct sbuf set = {0}, shown = {0};
		int rc = scalar_text(v, &set, &shown);
		a->set[i] = sbuf_take(&set);
		a->shown[i] = sbuf_take(&shown);
		if (!rc && (!a->set[i] || !a->shown[i]))
			return ts_error_set(l->err, TS_ENOMEM, l->file, 0, NULL, "out of memory");
		if (rc)
			return cfg_fail(l->err, TS_ETYPE, v, l->file, key,
					"found %s as value %d, expected a number, string or "
					"boolean",
					cfg_found(v, fb, sizeof fb), i + 1);
	}
	return 0;
}

/* Axes of group g under dotted prefix `prefix`. */
static int read_axes(struct ld *l, const config_setting_t *g, const char *prefix)
{
	int n = config_setting_length(g);
	for (int i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		char key[128], name[128];
		const char *nm = config_setting_name(s);
		size_t k = 0;
		for (; *nm && k + 1 < sizeof name; nm++) /* "a*b" back to "a.b" */
			name[k++] = *nm == '*' ? '.' : *nm;
		name[k] = '\0';
		if (strlen(prefix) + strlen(name) + 2 > sizeof key)
			return cfg_fail(l->err, TS_ELIMIT, s, l->file, "axes",
					"found a key of more than %zu characters, expected a "
					"scenario key",
					sizeof key - 1);
		memcpy(key, prefix, strlen(prefix) + 1);
		if (*prefix)
			strcat(key, ".");
		strcat(key, name);
		int rc = config_setting_is_group(s) ? read_axes(l, s, key) : add_axis(l, s, key);
		if (rc)
			return rc;
	}
	return 0;
}

static int interpret(struct ld *l, config_setting_t *top, const char *dir)
{
	struct sweep_spec *sp = l->sp;
	int rc;
	if ((rc = cfg_check_keys(top, l->file, "", sweep_keys, 3, l->err)))
		return rc;
	const config_setting_t *base = config_setting_get_member(top, "base");
	const config_setting_t *axes = config_setting_get_member(top, "axes");
	const config_setting_t *zip = config_setting_get_member(top, "zip");
	char fb[160];
	if (!base)
		return ts_error_set(l->err, TS_EINVALID, l->file, 0, "base",
				    "found no base scenario, expected base = \"scenario.cfg\"; "
				    "or base = { ... };");
	sp->base_line = (int)config_setting_source_line(base);
	if (config_setting_type(base) == CONFIG_TYPE_STRING) {
		const char *p = config_setting_get_string(base);
		size_t n = strlen(dir) + strlen(p) + 2;
		if (!(sp->base_path = ts_malloc(n)))
			return ts_error_set(l->err, TS_ENOMEM, l->file, 0, NULL, "out of memory");
		if (p[0] == '/' || !dir[0])
			snprintf(sp->base_path, n, "%s", p);
		else
			snprintf(sp->base_path, n, "%s/%s", dir, p);
	} else if (config_setting_is_group(base)) {
		struct sbuf b = {0};
		int m = config_setting_length(base);
		for (int i = 0; i < m; i++) {
			const config_setting_t *c = config_setting_get_elem(base, (unsigned)i);
			char *v = cfg_setting_text(c);
			if (!v) {
				ts_free(b.p, b.cap);
				return ts_error_set(l->err, TS_ENOMEM, l->file, 0, NULL,
						    "out of memory");
			}
			sbuf_str(&b, config_setting_name(c));
			sbuf_str(&b, " = ");
			sbuf_str(&b, v);
			sbuf_str(&b, ";\n");
			ts_free(v, strlen(v) + 1);
		}
		if (!(sp->base_text = sbuf_take(&b)))
			return ts_error_set(l->err, TS_ENOMEM, l->file, 0, NULL, "out of memory");
	} else {
		return cfg_fail(l->err, TS_ETYPE, base, l->file, "base",
				"found %s, expected a scenario file name or a group { ... }",
				cfg_found(base, fb, sizeof fb));
	}
	if (zip && (rc = cfg_bool(zip, l->file, "zip", &sp->zip, l->err)))
		return rc;
	if (!axes || !config_setting_is_group(axes))
		return axes ? cfg_fail(l->err, TS_ETYPE, axes, l->file, "axes",
				       "found %s, expected a group axes = { key = [values]; };",
				       cfg_found(axes, fb, sizeof fb))
			    : ts_error_set(l->err, TS_EINVALID, l->file, 0, "axes",
					   "found no axes, expected axes = { key = [values]; };");
	if ((rc = read_axes(l, axes, "")))
		return rc;
	if (!sp->naxes)
		return cfg_fail(l->err, TS_EINVALID, axes, l->file, "axes",
				"found an empty group, expected at least one axis");
	double points = sp->zip ? (double)sp->axes[0].n : 1.0;
	for (size_t a = 0; a < sp->naxes; a++) {
		if (sp->zip && sp->axes[a].n != sp->axes[0].n)
			return cfg_fail(l->err, TS_EINVALID, axes, l->file, sp->axes[a].key,
					"found %zu values with zip = true, expected %zu as on "
					"axis %s",
					sp->axes[a].n, sp->axes[0].n, sp->axes[0].key);
		if (!sp->zip)
			points *= (double)sp->axes[a].n;
	}
	if (points > SWEEP_MAX_POINTS)
		return cfg_fail(l->err, TS_ELIMIT, axes, l->file, "axes",
				"found %.0f points, expected at most %d", points, SWEEP_MAX_POINTS);
	sp->npoints = (size_t)points;
	return 0;
}

static int load(const char *text, const char *label, const char *dir, struct sweep_spec **out,
		struct ts_error *err)
{
	*out = NULL;
	ts_error_clear(err);
	struct sweep_spec *sp = ts_calloc(1, sizeof *sp);
	if (!sp)
		return ts_error_set(err, TS_ENOMEM, label, 0, NULL, "out of memory");
	snprintf(sp->file, sizeof sp->file, "%s", label);
	char *clean = NULL;
	size_t cap = 0;
	int rc = unquote_names(text, &clean, &cap);
	if (rc) {
		sweepcfg_destroy(sp);
		return ts_error_set(err, rc, label, 0, NULL, "out of memory");
	}
	config_t cfg;
	config_init(&cfg);
	struct ld l = {.sp = sp, .file = label, .err = err};
	rc = cfg_parse(&cfg, clean, label, err);
	if (!rc)
		rc = interpret(&l, config_root_setting(&cfg), dir);
	config_destroy(&cfg);
	ts_free(clean, cap);
	if (rc) {
		sweepcfg_destroy(sp);
		return rc;
	}
	*out = sp;
	return 0;
}

int sweepcfg_load(const char *path, struct sweep_spec **out, struct ts_error *err)
{
	char *text;
	size_t len;
	*out = NULL;
	ts_error_clear(err);
	if (!path)
		return ts_error_set(err, TS_EIO, NULL, 0, NULL, "no sweep file given");
	int rc = cfg_read_text(path, &text, &len, err);
	if (rc)
		return rc;
	char dir[1024] = "";
	const char *slash = strrchr(path, '/');
	if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	rc = load(text, path, dir, out, err);
	ts_free(text, len + 1);
	return rc;
}

int sweepcfg_load_string(const char *text, const char *label, struct sweep_spec **out,
			 struct ts_error *err)
{
	*out = NULL;
	if (!text)
		return ts_error_set(err, TS_EIO, label, 0, NULL, "no sweep text given");
	return load(text, label ? label : "<string>", "", out, err);
}

void sweepcfg_destroy(struct sweep_spec *sp)
{
	if (!sp)
		return;
	for (size_t a = 0; a < sp->naxes; a++) {
		struct sweep_axis *x = &sp->axes[a];
		for (size_t i = 0; i < x->n; i++) {
			if (x->set && x->set[i])
				ts_free(x->set[i], strlen(x->set[i]) + 1);
			if (x->shown && x->shown[i])
				ts_free(x->shown[i], strlen(x->shown[i]) + 1);
		}
		ts_free(x->set, x->n * sizeof *x->set);
		ts_free(x->shown, x->n * sizeof *x->shown);
	}
	for (size_t k = 0; k < sp->nsets; k++)
		ts_free(sp->sets[k], strlen(sp->sets[k]) + 1);
	if (sp->base_path)
		ts_free(sp->base_path, strlen(sp->base_path) + 1);
	if (sp->base_text)
		ts_free(sp->base_text, strlen(sp->base_text) + 1);
	ts_free(sp, sizeof *sp);
}

size_t sweepcfg_value_index(const struct sweep_spec *sp, size_t i, size_t a)
{
	if (sp->zip)
		return i;
	for (size_t b = sp->naxes; b-- > a + 1;)
		i /= sp->axes[b].n;
	return i % sp->axes[a].n;
}

int sweepcfg_set_base(struct sweep_spec *sp, const char *const *sets, size_t n,
		      struct ts_error *err)
{
	for (size_t k = 0; k < n; k++) {
		const char *eq = strchr(sets[k], '=');
		if (!eq || eq == sets[k])
			return ts_error_set(err, TS_EUSAGE, NULL, 0, "--set",
					    "found \"%s\", expected KEY=VALUE", sets[k]);
		size_t klen = (size_t)(eq - sets[k]);
		while (klen && (sets[k][klen - 1] == ' ' || sets[k][klen - 1] == '\t'))
			klen--;
		for (size_t a = 0; a < sp->naxes; a++)
			if (strlen(sp->axes[a].key) == klen &&
			    !strncmp(sp->axes[a].key, sets[k], klen))
				return ts_error_set(
				    err, TS_EUSAGE, NULL, 0, "--set",
				    "found \"%s\", a key that is an axis of %s (line %d), "
				    "expected a key the axes leave alone (each point sets "
				    "its axis values after the base)",
				    sets[k], sp->file, sp->axes[a].line);
		if (sp->nsets >= SWEEP_MAX_SETS)
			return ts_error_set(err, TS_ELIMIT, NULL, 0, "--set",
					    "found more than %d, expected at most %d",
					    SWEEP_MAX_SETS, SWEEP_MAX_SETS);
		if (!(sp->sets[sp->nsets] = ts_strdup(sets[k])))
			return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		sp->nsets++;
	}
	return 0;
}

int sweepcfg_set_shard(struct sweep_spec *sp, size_t k, size_t n, struct ts_error *err)
{
	if (n == 0 || k >= n)
		return ts_error_set(err, TS_EUSAGE, NULL, 0, "--shard",
				    "found part %zu of %zu, expected K/N with 1 <= K <= N", k + 1,
				    n);
	sp->shard_k = k;
	sp->shard_n = n;
	return 0;
}

size_t sweepcfg_shard_points(const struct sweep_spec *sp)
{
	size_t n = sp->shard_n ? sp->shard_n : 1;
	return sp->npoints > sp->shard_k ? (sp->npoints - sp->shard_k + n - 1) / n : 0;
}
