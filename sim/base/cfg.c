/* Typed reads of libconfig settings with one-line errors, files, names, and
 * the --set overrides applied to a parsed tree.
 * SPDX-License-Identifier: MIT */

/* --set KEY=VALUE is applied to the libconfig tree before the scenario is
 * interpreted, so an override behaves exactly like the same line in the
 * file. The value is parsed by libconfig itself as "v = VALUE;" in a
 * scratch configuration and the result copied into the tree; when that does
 * not parse and VALUE does not start like a string or an aggregate, VALUE is
 * a bare word and becomes a string ("megatron", "25 MiB"). */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/suggest.h"
#include "base/units.h"
#include "base/cfg.h"
#include "base/file.h"
#include "base/sbuf.h"

#define SET_MAX_DEPTH 32 /* nesting of a --set group value */

void cfg_where(const config_setting_t *s, const char *file, char *f, size_t n, int *line)
{
	const void *hook = s ? config_setting_get_hook(s) : NULL;
	if (hook) {
		snprintf(f, n, "%s", (const char *)hook);
		*line = 0;
	} else {
		snprintf(f, n, "%s", file ? file : "");
		*line = s ? (int)config_setting_source_line(s) : 0;
	}
}

static const char *type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	default:
		return "nothing";
	}
}

char *cfg_found(const config_setting_t *s, char *buf, size_t n)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(buf, n, "%lld", config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		if (isfinite(config_setting_get_float(s)))
			snprintf(buf, n, "%g (a float)", config_setting_get_float(s));
		else /* 1e400 reads as infinite: say so in words */
			snprintf(buf, n, "a float beyond the range of a double");
		break;
	case CONFIG_TYPE_STRING:
		if (config_setting_get_string(s)) /* NULL: lost by libconfig (cfg_intact) */
			snprintf(buf, n, "\"%.100s\" (a string)", config_setting_get_string(s));
		else
			snprintf(buf, n, "a string whose text was lost (out of memory)");
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, n, "%s (a boolean)", config_setting_get_bool(s) ? "true" : "false");
		break;
	default:
		snprintf(buf, n, "%s", type_name(config_setting_type(s)));
		break;
	}
	return buf;
}

int cfg_fail(struct ts_error *err, int code, const config_setting_t *s, const char *file,
	     const char *key, const char *fmt, ...)
{
	char f[256], msg[768];
	int line;
	cfg_where(s, file, f, sizeof f, &line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ts_error_set(err, code, f, line, key, "%s", msg);
}

/* The text of string setting s, or NULL after failing with TS_ENOMEM when
 * libconfig lost it (a tree that passed cfg_intact never has one). */
static const char *text_of(const config_setting_t *s, const char *file, const char *key,
			   struct ts_error *err)
{
	const char *v = config_setting_get_string(s);
	if (!v)
		cfg_fail(err, TS_ENOMEM, s, file, key, "out of memory: the string was lost");
	return v;
}

int cfg_int(const config_setting_t *s, const char *file, const char *key, int64_t min, int64_t max,
	    int64_t *out, struct ts_error *err)
{
	char fb[160];
	int64_t v;
	int t = config_setting_type(s);
	if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
		v = config_setting_get_int64(s);
	} else if (t == CONFIG_TYPE_FLOAT) {
		double d = config_setting_get_float(s);
		if (!(d >= (double)min && d <= (double)max && d == floor(d)))
			return cfg_fail(err, TS_ERANGE, s, file, key,
					"found %s, expected a whole number from %lld to %lld",
					cfg_found(s, fb, sizeof fb), (long long)min,
					(long long)max);
		v = (int64_t)d;
	} else {
		return cfg_fail(err, TS_ETYPE, s, file, key, "found %s, expected an integer",
				cfg_found(s, fb, sizeof fb));
	}
	if (v < min || v > max) {
		/* a count without a useful ceiling reads best as positive; a
		 * small range (parallel.fsdp_version: 1 to 2) is said whole */
		if (min == 1 && v < 1 && max > 65536)
			return cfg_fail(err, TS_ERANGE, s, file, key,
					"found %s, expected a positive integer",
					cfg_found(s, fb, sizeof fb));
		return cfg_fail(err, TS_ERANGE, s, file, key,
				"found %s, expected an integer from %lld to %lld",
				cfg_found(s, fb, sizeof fb), (long long)min, (long long)max);
	}
	*out = v;
	return 0;
}

int cfg_float(const config_setting_t *s, const char *file, const char *key, double min, double max,
	      double *out, struct ts_error *err)
{
	char fb[160];
	double v;
	int t = config_setting_type(s);
	if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
		v = (double)config_setting_get_int64(s);
	else if (t == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else
		return cfg_fail(err, TS_ETYPE, s, file, key, "found %s, expected a number",
				cfg_found(s, fb, sizeof fb));
	if (!isfinite(v) || v < min || v > max) {
		if (min == CFG_POSITIVE)
			return cfg_fail(err, TS_ERANGE, s, file, key,
					"found %s, expected a number greater than 0 and at most %g",
					cfg_found(s, fb, sizeof fb), max);
		return cfg_fail(err, TS_ERANGE, s, file, key,
				"found %s, expected a number from %g to %g",
				cfg_found(s, fb, sizeof fb), min, max);
	}
	*out = v;
	return 0;
}

int cfg_bool(const config_setting_t *s, const char *file, const char *key, bool *out,
	     struct ts_error *err)
{
	char fb[160];
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return cfg_fail(err, TS_ETYPE, s, file, key, "found %s, expected true or false",
				cfg_found(s, fb, sizeof fb));
	*out = config_setting_get_bool(s) != 0;
	return 0;
}

int cfg_string(const config_setting_t *s, const char *file, const char *key, char *dst, size_t n,
	       struct ts_error *err)
{
	char fb[160];
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return cfg_fail(err, TS_ETYPE, s, file, key, "found %s, expected a string",
				cfg_found(s, fb, sizeof fb));
	const char *v = text_of(s, file, key, err);
	if (!v)
		return TS_ENOMEM;
	/* the bound is of bytes, as stored: UTF-8 text outside ASCII takes 2
	 * to 4 bytes a character, so the message counts bytes */
	if (strlen(v) >= n)
		return cfg_fail(err, TS_ERANGE, s, file, key,
				"found %s of %zu bytes, expected at most %zu bytes (a character "
				"outside ASCII takes 2 to 4 in UTF-8)",
				cfg_found(s, fb, sizeof fb), strlen(v), n - 1);
	snprintf(dst, n, "%s", v);
	return 0;
}

int cfg_enum(const config_setting_t *s, const char *file, const char *key, const char *const *names,
	     size_t n, int *out, struct ts_error *err)
{
	char fb[160], opts[256] = "";
	size_t off = 0;
	for (size_t i = 0; i < n && off < sizeof opts; i++) {
		int w = snprintf(opts + off, sizeof opts - off, "%s\"%s\"",
				 i == 0 ? "" : (i + 1 == n ? " or " : ", "), names[i]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return cfg_fail(err, TS_ETYPE, s, file, key, "found %s, expected %s",
				cfg_found(s, fb, sizeof fb), opts);
	const char *v = text_of(s, file, key, err);
	if (!v)
		return TS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	char near[160];
	ts_suggest(v, names, n, 2, near, sizeof near);
	return cfg_fail(err, TS_EUNKNOWN_NAME, s, file, key, "found %s, expected %s%s%s",
			cfg_found(s, fb, sizeof fb), opts, near[0] ? "; closest: " : "", near);
}

/* Refuse a size written as a bare number (40, 40L, 4.0): without a unit it
 * would silently be bytes, where the writer most often meant MiB or GiB. */
static int cfg_bare_size(const config_setting_t *s, const char *file, const char *key,
			 struct ts_error *err)
{
	bool integer = config_setting_type(s) != CONFIG_TYPE_FLOAT;
	double v = integer ? (double)config_setting_get_int64(s) : config_setting_get_float(s);
	if (!(v > 0.0)) /* "0 B" would only meet the key's own range check */
		return cfg_fail(err, TS_EUNIT, s, file, key,
				"found the number %g without a unit, expected a size with its unit "
				"as a string (e.g. \"16 GiB\")",
				v);
	return cfg_fail(err, TS_EUNIT, s, file, key,
			"found the number %g without a unit, expected a size with its unit as a "
			"string (e.g. \"%g MiB\", or \"%g B\" for bytes)",
			v, v, v);
}

int cfg_bytes(const config_setting_t *s, const char *file, const char *key, double *out,
	      struct ts_error *err)
{
	char fb[160], why[256];
	double v;
	int t = config_setting_type(s);
	if (t == CONFIG_TYPE_STRING) {
		const char *text = text_of(s, file, key, err);
		if (!text)
			return TS_ENOMEM;
		int rc = ts_units_parse(text, TS_UNIT_BYTES, &v, why, sizeof why);
		if (rc && !strncmp(why, "found ", 6)) /* the reason names the value */
			return cfg_fail(err, rc, s, file, key, "%s", why);
		if (rc)
			return cfg_fail(err, rc, s, file, key, "found \"%.100s\": %s", text, why);
	} else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT) {
		return cfg_bare_size(s, file, key, err);
	} else {
		return cfg_fail(err, TS_ETYPE, s, file, key,
				"found %s, expected a size with its unit (e.g. \"25 MiB\")",
				cfg_found(s, fb, sizeof fb));
	}
	if (!isfinite(v) || v < 1.0 || v > 0x1p60)
		return cfg_fail(
		    err, TS_ERANGE, s, file, key,
		    "found %s, expected a positive size of at most 1048576 TiB (2^60 B)",
		    cfg_found(s, fb, sizeof fb));
	*out = v;
	return 0;
}

int cfg_line(const config_setting_t *s)
{
	return s ? (int)config_setting_source_line(s) : 0;
}

const char *cfg_type_name(const config_setting_t *s)
{
	switch (s ? config_setting_type(s) : CONFIG_TYPE_NONE) {
	case CONFIG_TYPE_GROUP:
		return "a group { }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a floating-point number";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array [ ]";
	case CONFIG_TYPE_LIST:
		return "a list ( )";
	default:
		return "nothing";
	}
}

char *cfg_key_join(char *buf, const char *prefix, const char *key)
{
	size_t pl = prefix ? strlen(prefix) : 0;
	bool dot = pl && prefix[pl - 1] == '.';
	if (!key || !*key) /* the group itself: no trailing dot */
		snprintf(buf, CFG_KEY_MAX, "%.*s", (int)(dot ? pl - 1 : pl), pl ? prefix : "");
	else if (pl)
		snprintf(buf, CFG_KEY_MAX, "%s%s%s", prefix, dot ? "" : ".", key);
	else
		snprintf(buf, CFG_KEY_MAX, "%s", key);
	return buf;
}

int cfg_check_keys(const config_setting_t *g, const char *file, const char *path,
		   const char *const *names, size_t n, struct ts_error *err)
{
	char here[CFG_KEY_MAX];
	cfg_key_join(here, path, "");
	if (!g)
		return 0;
	if (!config_setting_is_group(g))
		return cfg_fail(err, TS_ETYPE, g, file, here, "found %s, expected a group { ... }",
				cfg_type_name(g));
	size_t nn = 0;
	while (nn < n && names[nn])
		nn++;
	int len = config_setting_length(g);
	for (int i = 0; i < len; i++) {
		const config_setting_t *c = config_setting_get_elem(g, (unsigned)i);
		const char *nm = c ? config_setting_name(c) : NULL;
		if (!nm) /* libconfig lost it (see cfg_intact): never skip a key */
			return cfg_fail(err, TS_ENOMEM, c ? c : g, file, here,
					"out of memory: a key of the group was lost");
		size_t k = 0;
		while (k < nn && strcmp(names[k], nm) != 0)
			k++;
		if (k < nn)
			continue;
		char near[160], key[CFG_KEY_MAX];
		ts_suggest(nm, names, nn, 3, near, sizeof near);
		return cfg_fail(err, TS_EUNKNOWN_KEY, c, file, cfg_key_join(key, path, nm),
				"found unknown key \"%s\", expected a key of %s%s%s", nm,
				here[0] ? here : "the file", near[0] ? "; did you mean " : "",
				near);
	}
	return 0;
}

int cfg_member(const config_setting_t *g, const char *key, bool required, const char *file,
	       const char *path, const char *expected, const config_setting_t **out,
	       struct ts_error *err)
{
	*out = g ? config_setting_get_member(g, key) : NULL;
	if (*out)
		return 0;
	if (!required)
		return 1;
	char k[CFG_KEY_MAX];
	return cfg_fail(err, TS_EINVALID, g, file, cfg_key_join(k, path, key),
			"missing key \"%s\", expected %s", key, expected);
}

int cfg_get_string(const config_setting_t *g, const char *key, bool required, char *out, size_t n,
		   const char *file, const char *path, struct ts_error *err)
{
	const config_setting_t *s;
	int rc = cfg_member(g, key, required, file, path, "a string", &s, err);
	if (rc)
		return rc;
	char k[CFG_KEY_MAX];
	cfg_key_join(k, path, key);
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return cfg_fail(err, TS_ETYPE, s, file, k,
				"found %s, expected a string in double quotes", cfg_type_name(s));
	const char *v = text_of(s, file, k, err);
	if (!v)
		return TS_ENOMEM;
	size_t len = strlen(v);
	if (len == 0)
		return cfg_fail(err, TS_ERANGE, s, file, k,
				"found an empty string, expected a non-empty one");
	if (len >= n)
		return cfg_fail(err, TS_ERANGE, s, file, k,
				"found a string of %zu characters, expected at most %zu", len,
				n - 1);
	memcpy(out, v, len + 1);
	return 0;
}

/* "a size in bytes" or "a number" for kind. */
static const char *kind_text(enum ts_unit_kind kind)
{
	return kind == TS_UNIT_COUNT_ ? "a number" : ts_unit_kind_name(kind);
}

int cfg_get_number(const config_setting_t *g, const char *key, enum ts_unit_kind kind,
		   bool required, double lo, double hi, double *out, const char *file,
		   const char *path, struct ts_error *err)
{
	const config_setting_t *s;
	int rc = cfg_member(g, key, required, file, path, kind_text(kind), &s, err);
	if (rc)
		return rc;
	char k[CFG_KEY_MAX];
	cfg_key_join(k, path, key);
	int type = config_setting_type(s);
	bool integer = type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64;
	double v;
	if (kind == TS_UNIT_COUNT_ && (integer || type == CONFIG_TYPE_FLOAT)) {
		v = integer ? (double)config_setting_get_int64(s) : config_setting_get_float(s);
	} else if (kind == TS_UNIT_BYTES && integer && config_setting_get_int64(s) == 0) {
		v = 0.0; /* zero bytes, in any unit */
	} else if (kind == TS_UNIT_BYTES && (integer || type == CONFIG_TYPE_FLOAT)) {
		return cfg_bare_size(s, file, k, err);
	} else if (kind != TS_UNIT_COUNT_ && type == CONFIG_TYPE_STRING) {
		char why[256];
		const char *text = text_of(s, file, k, err);
		if (!text)
			return TS_ENOMEM;
		rc = ts_units_parse(text, kind, &v, why, sizeof why);
		if (rc)
			return cfg_fail(err, rc, s, file, k, "%s", why);
	} else if (kind != TS_UNIT_COUNT_ && (integer || type == CONFIG_TYPE_FLOAT)) {
		return cfg_fail(err, TS_ETYPE, s, file, k,
				"found the number %g without a unit, expected %s as a string",
				integer ? (double)config_setting_get_int64(s)
					: config_setting_get_float(s),
				kind_text(kind));
	} else {
		return cfg_fail(err, TS_ETYPE, s, file, k, "found %s, expected %s%s",
				cfg_type_name(s), kind_text(kind),
				kind == TS_UNIT_COUNT_ ? "" : " as a string");
	}
	if (!isfinite(v) || v < lo || v > hi) {
		char fb[160], a[48], b[48];
		cfg_found(s, fb, sizeof fb);
		if (lo == CFG_POSITIVE && isinf(hi))
			return cfg_fail(err, TS_ERANGE, s, file, k,
					"found %s, expected %s greater than zero", fb,
					kind_text(kind));
		if (kind == TS_UNIT_COUNT_) {
			snprintf(a, sizeof a, "%g", lo);
			snprintf(b, sizeof b, "%g", hi);
		} else { /* bounds in the unit of the kind */
			ts_units_format(lo, kind, a, sizeof a);
			ts_units_format(hi, kind, b, sizeof b);
		}
		if (lo == CFG_POSITIVE)
			return cfg_fail(err, TS_ERANGE, s, file, k,
					"found %s, expected %s greater than 0 and at most %s", fb,
					kind_text(kind), b);
		if (isinf(hi))
			return cfg_fail(err, TS_ERANGE, s, file, k,
					"found %s, expected %s of at least %s", fb, kind_text(kind),
					a);
		if (kind != TS_UNIT_COUNT_)
			return cfg_fail(err, TS_ERANGE, s, file, k, "found %s, expected %s to %s",
					fb, a, b);
		return cfg_fail(err, TS_ERANGE, s, file, k,
				"found %s, expected a number from %s to %s", fb, a, b);
	}
	*out = v;
	return 0;
}

int cfg_get_uint(const config_setting_t *g, const char *key, bool required, uint32_t lo,
		 uint32_t hi, uint32_t *out, const char *file, const char *path,
		 struct ts_error *err)
{
	const config_setting_t *s;
	int rc = cfg_member(g, key, required, file, path, "an integer", &s, err);
	if (rc)
		return rc;
	char k[CFG_KEY_MAX];
	cfg_key_join(k, path, key);
	int type = config_setting_type(s);
	if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
		return cfg_fail(err, TS_ETYPE, s, file, k,
				"found %s, expected an integer (no quotes)", cfg_type_name(s));
	long long v = config_setting_get_int64(s);
	if (v < (long long)lo || v > (long long)hi)
		return cfg_fail(err, TS_ERANGE, s, file, k,
				"found %lld, expected an integer from %u to %u", v, lo, hi);
	*out = (uint32_t)v;
	return 0;
}

int cfg_get_bool(const config_setting_t *g, const char *key, bool required, bool *out,
		 const char *file, const char *path, struct ts_error *err)
{
	const config_setting_t *s;
	int rc = cfg_member(g, key, required, file, path, "true or false", &s, err);
	if (rc)
		return rc;
	if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
		char k[CFG_KEY_MAX];
		return cfg_fail(err, TS_ETYPE, s, file, cfg_key_join(k, path, key),
				"found %s, expected true or false (no quotes)", cfg_type_name(s));
	}
	*out = config_setting_get_bool(s) != 0;
	return 0;
}

int cfg_get_enum(const config_setting_t *g, const char *key, bool required,
		 const char *const *names, size_t n, int *out, const char *file, const char *path,
		 struct ts_error *err)
{
	const config_setting_t *s;
	int rc = cfg_member(g, key, required, file, path, "a name", &s, err);
	if (rc)
		return rc;
	char k[CFG_KEY_MAX];
	return cfg_enum(s, file, cfg_key_join(k, path, key), names, n, out, err);
}

int cfg_bounds(const config_setting_t *g, const char *key, double v, double lo, double hi,
	       const char *unit, const char *why, const char *file, const char *path,
	       struct ts_error *err)
{
	const config_setting_t *s = config_setting_get_member(g, key);
	if (!s || (v >= lo && v <= hi))
		return 0;
	char k[CFG_KEY_MAX];
	return cfg_fail(err, TS_ERANGE, s, file, cfg_key_join(k, path, key),
			"found %g %s, expected %g to %g %s (%s)", v, unit, lo, hi, unit, why);
}

static int cfg_text_checked(char *buf, size_t n, size_t got, const char *path, char **text,
			    size_t *len, struct ts_error *err);

/* Read standard input whole (at most CFG_MAX_FILE bytes) into *buf of
 * *n bytes and a NUL; 0 or an error keyed "-". */
static int read_stdin(char **buf, size_t *n, struct ts_error *err)
{
	size_t cap = CFG_MAX_FILE + 2, got = 0;
	char *b = ts_malloc(cap);
	if (!b)
		return ts_error_set(err, TS_ENOMEM, "-", 0, NULL, "out of memory reading the file");
	for (;;) {
		ssize_t r = read(STDIN_FILENO, b + got, cap - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			ts_free(b, cap);
			return ts_error_set(err, TS_EIO, "-", 0, NULL,
					    "cannot read standard input: %s", strerror(e));
		}
		if (r == 0 || (got += (size_t)r) == cap - 1)
			break;
	}
	if (got > CFG_MAX_FILE) {
		ts_free(b, cap);
		return ts_error_set(
		    err, TS_ELIMIT, "-", 0, NULL,
		    "found more than %u bytes on standard input, expected at most %u", CFG_MAX_FILE,
		    CFG_MAX_FILE);
	}
	char *t = ts_realloc(b, cap, got + 1);
	if (!t) {
		ts_free(b, cap);
		return ts_error_set(err, TS_ENOMEM, "-", 0, NULL, "out of memory reading the file");
	}
	t[got] = '\0';
	*buf = t;
	*n = got;
	return 0;
}

int cfg_read_text(const char *path, char **text, size_t *len, struct ts_error *err)
{
	if (!strcmp(path, "-")) {
		char *buf = NULL;
		size_t n = 0;
		int rc = read_stdin(&buf, &n, err);
		if (rc)
			return rc;
		return cfg_text_checked(buf, n, n, "-", text, len, err);
	}
	int fd = ts_open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return ts_error_set(err, TS_EIO, path, 0, NULL, "cannot open the file: %s",
				    strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ts_error_set(
		    err, TS_EIO, path, 0, NULL,
		    "found something that is not a regular file, expected a .cfg file");
	}
	if (st.st_size > (off_t)CFG_MAX_FILE) {
		close(fd);
		return ts_error_set(err, TS_ELIMIT, path, 0, NULL,
				    "found %lld bytes, expected at most %u", (long long)st.st_size,
				    CFG_MAX_FILE);
	}
	size_t n = (size_t)st.st_size;
	char *buf = ts_malloc(n + 1);
	if (!buf) {
		close(fd);
		return ts_error_set(err, TS_ENOMEM, path, 0, NULL,
				    "out of memory reading the file");
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return cfg_text_checked(buf, n, got, path, text, len, err);
}

/* The checks of cfg_read_text on buf (n + 1 bytes, the first got read and
 * a NUL after them), which it takes over: *text and *len on success, freed
 * on failure. */
static int cfg_text_checked(char *buf, size_t n, size_t got, const char *path, char **text,
			    size_t *len, struct ts_error *err)
{
	/* libconfig reads up to the first NUL byte and ignores the rest, so a
	 * NUL would silently cut the file short. */
	const char *nul = memchr(buf, '\0', got);
	if (nul) {
		int line = 1;
		for (const char *p = buf; p < nul; p++)
			line += *p == '\n';
		ts_free(buf, n + 1);
		return ts_error_set(err, TS_ESYNTAX, path, line, NULL,
				    "found a NUL byte, expected a text file");
	}
	/* A UTF-8 byte-order mark (written by some Windows editors) is skipped. */
	if (got >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		memmove(buf, buf + 3, got - 2);
	*text = buf;
	*len = n;
	return 0;
}

/* Line of the first @include directive (at the start of a line), or 0. */
static int include_line(const char *text)
{
	int line = 1;
	for (const char *p = text; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (strncmp(p, "@include", 8) == 0)
			return line;
		while (*p && *p != '\n')
			p++;
		if (*p == '\n') {
			p++;
			line++;
		}
	}
	return 0;
}

/* libconfig reads an integer literal without an L suffix as 32 bits and
 * silently wraps larger ones (3000000000 becomes -1294967296). Copy text to
 * *out (ts_malloc'd, size *n) with an L appended to every integer literal
 * beyond the 32-bit range, outside strings and comments. Returns 0, or the
 * line of a literal beyond 64 bits (*out is then NULL), or -1 without
 * memory. */
static int widen_ints(const char *text, char **out, size_t *n)
{
	size_t len = strlen(text), cap = len + len / 4 + 16, o = 0;
	char *buf = ts_malloc(cap);
	int line = 1;
	*out = NULL;
	if (!buf)
		return -1;
	for (const char *p = text; *p;) {
		const char *start = p;
		if (*p == '"') { /* string, with escapes */
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					p++;
				if (*p == '\n')
					line++;
				p++;
			}
			if (*p)
				p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			p += 2;
			while (*p && !(p[0] == '*' && p[1] == '/')) {
				if (*p == '\n')
					line++;
				p++;
			}
			if (*p)
				p += 2;
		} else if (isalpha((unsigned char)*p) || *p == '_' || *p == '*') {
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '*' || *p == '-')
				p++;
		} else if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p) || *p == '.' ||
			       ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
				p++;
			/* a plain decimal or hex integer without suffix? */
			bool hex = start[0] == '0' && (start[1] == 'x' || start[1] == 'X');
			bool plain = true;
			for (const char *q = start + (hex ? 2 : 0); q < p; q++)
				if (!(hex ? isxdigit((unsigned char)*q)
					  : isdigit((unsigned char)*q)))
					plain = false;
			if (plain && p - start < 40) {
				char num[48];
				memcpy(num, start, (size_t)(p - start));
				num[p - start] = '\0';
				errno = 0;
				unsigned long long v = strtoull(num, NULL, hex ? 16 : 10);
				if (errno == ERANGE ||
				    (!hex && v > (unsigned long long)INT64_MAX)) {
					ts_free(buf, cap);
					return line;
				}
				if (v > 0x7fffffffull) {
					size_t k = (size_t)(p - start);
					if (o + k + 2 >= cap) {
						char *nb = ts_realloc(buf, cap, cap + k + 64);
						if (!nb) {
							ts_free(buf, cap);
							return -1;
						}
						buf = nb;
						cap += k + 64;
					}
					memcpy(buf + o, start, k);
					o += k;
					buf[o++] = 'L';
					continue;
				}
			}
		} else {
			if (*p == '\n')
				line++;
			p++;
		}
		size_t k = (size_t)(p - start);
		if (o + k + 1 >= cap) {
			size_t ncap = o + k + cap;
			char *nb = ts_realloc(buf, cap, ncap);
			if (!nb) {
				ts_free(buf, cap);
				return -1;
			}
			buf = nb;
			cap = ncap;
		}
		memcpy(buf + o, start, k);
		o += k;
	}
	buf[o] = '\0';
	*out = buf;
	*n = cap;
	return 0;
}

bool cfg_intact(const config_setting_t *s)
{
	if (!s)
		return false;
	int type = config_setting_type(s);
	if (type == CONFIG_TYPE_STRING)
		return config_setting_get_string(s) != NULL;
	if (type != CONFIG_TYPE_GROUP && type != CONFIG_TYPE_LIST && type != CONFIG_TYPE_ARRAY)
		return true;
	int n = config_setting_length(s);
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (!e || (type == CONFIG_TYPE_GROUP && !config_setting_name(e)) || !cfg_intact(e))
			return false;
	}
	return true;
}

int cfg_parse(config_t *cfg, const char *text, const char *file, struct ts_error *err)
{
	int inc = include_line(text);
	if (inc)
		return ts_error_set(err, TS_EUNSUPPORTED, file, inc, NULL,
				    "found @include, expected plain settings (configurations "
				    "compose by name: model = \"NAME\", cluster = \"NAME\")");
	char *wide;
	size_t n;
	int bad = widen_ints(text, &wide, &n);
	if (bad < 0)
		return ts_error_set(err, TS_ENOMEM, file, 0, NULL,
				    "out of memory parsing the file");
	if (bad > 0)
		return ts_error_set(err, TS_ERANGE, file, bad, NULL,
				    "found an integer beyond 64 bits, expected at most %lld",
				    (long long)INT64_MAX);
	int ok = config_read_string(cfg, wide);
	ts_free(wide, n);
	if (!ok) {
		const char *t = config_error_text(cfg);
		return ts_error_set(err, TS_ESYNTAX, file, config_error_line(cfg), NULL,
				    "found a syntax error (%s), expected libconfig settings "
				    "(key = value;)",
				    t ? t : "?");
	}
	if (!cfg_intact(config_root_setting(cfg)))
		return ts_error_set(err, TS_ENOMEM, file, 0, NULL,
				    "out of memory parsing the file (a name or a string was lost)");
	return 0;
}

int cfg_load_file(config_t *cfg, const char *path, struct ts_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = cfg_read_text(path, &text, &len, err);
	if (rc)
		return rc;
	rc = cfg_parse(cfg, text, path, err);
	ts_free(text, len + 1);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *cfg_names(const char *dir, const char *near, size_t max, char *buf, size_t n)
{
	char **names = NULL;
	size_t cnt = 0, cap = 0;
	if (n)
		buf[0] = '\0';
	DIR *d = ts_opendir(dir);
	if (!d)
		return buf;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l <= 4 || strcmp(e->d_name + l - 4, ".cfg") != 0 || e->d_name[0] == '.')
			continue;
		if (ts_grow((void **)&names, &cap, cnt + 1, sizeof *names))
			break;
		char *s = ts_malloc(l - 3);
		if (!s)
			break;
		memcpy(s, e->d_name, l - 4);
		s[l - 4] = '\0';
		names[cnt++] = s;
	}
	closedir(d);
	if (cnt)
		qsort(names, cnt, sizeof *names, cmp_str);
	if (near) {
		ts_suggest(near, (const char *const *)names, cnt, max, buf, n);
	} else {
		size_t off = 0;
		for (size_t i = 0; i < cnt && off < n; i++) {
			int w = snprintf(buf + off, n - off, "%s%s", i ? ", " : "", names[i]);
			if (w < 0)
				break;
			off += (size_t)w;
		}
	}
	for (size_t i = 0; i < cnt; i++)
		ts_free(names[i], strlen(names[i]) + 1);
	ts_free(names, cap * sizeof *names);
	return buf;
}

/* ---- --set ----------------------------------------------------------- */

/* Copy setting src as member `name` of dst (name NULL inside lists and
 * arrays), labelling every copy. NULL on failure. */
static config_setting_t *copy_setting(config_setting_t *dst, const char *name,
				      const config_setting_t *src, const char *label, int depth)
{
	int t = config_setting_type(src);
	if (depth > SET_MAX_DEPTH)
		return NULL;
	config_setting_t *d = config_setting_add(dst, name, t);
	if (!d)
		return NULL;
	config_setting_set_hook(d, (void *)(uintptr_t)label);
	int ok = CONFIG_TRUE;
	switch (t) {
	case CONFIG_TYPE_INT:
		ok = config_setting_set_int(d, config_setting_get_int(src));
		break;
	case CONFIG_TYPE_INT64:
		ok = config_setting_set_int64(d, config_setting_get_int64(src));
		break;
	case CONFIG_TYPE_FLOAT:
		ok = config_setting_set_float(d, config_setting_get_float(src));
		break;
	case CONFIG_TYPE_BOOL:
		ok = config_setting_set_bool(d, config_setting_get_bool(src));
		break;
	case CONFIG_TYPE_STRING:
		ok = config_setting_set_string(d, config_setting_get_string(src));
		break;
	case CONFIG_TYPE_GROUP:
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_ARRAY: {
		int n = config_setting_length(src);
		for (int i = 0; i < n && ok; i++) {
			const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
			const char *en = t == CONFIG_TYPE_GROUP ? config_setting_name(e) : NULL;
			ok = copy_setting(d, en, e, label, depth + 1) != NULL;
		}
		break;
	}
	default:
		break;
	}
	return ok ? d : NULL;
}

/* Lay group src over group dst key by key, as if each key of src were set
 * on its own: a key that is a group in both merges in turn, any other key of
 * src replaces dst's (or is added); dst's other keys stay. Returns false on
 * failure (out of memory, nesting past SET_MAX_DEPTH). */
static bool merge_group(config_setting_t *dst, const config_setting_t *src, const char *label,
			int depth)
{
	if (depth > SET_MAX_DEPTH)
		return false;
	int n = config_setting_length(src);
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
		const char *name = config_setting_name(e);
		config_setting_t *old = config_setting_get_member(dst, name);
		if (old && config_setting_is_group(old) && config_setting_is_group(e)) {
			if (!merge_group(old, e, label, depth + 1))
				return false;
			continue;
		}
		if (old)
			config_setting_remove(dst, name);
		if (!copy_setting(dst, name, e, label, depth + 1))
			return false;
	}
	return true;
}

static int valid_name(const char *s, size_t n)
{
	if (n == 0 || !isalpha((unsigned char)s[0]))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

static void trim(const char **b, const char **e)
{
	while (*b < *e && isspace((unsigned char)**b))
		(*b)++;
	while (*e > *b && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* Parse VALUE as "v = VALUE;" into scratch; *v = the value, or NULL when
 * VALUE is a bare word. */
static int parse_value(config_t *scratch, const char *arg, const char *val, size_t vlen,
		       const config_setting_t **v, struct ts_error *err)
{
	char *text = ts_malloc(vlen + 8);
	if (!text)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory for --set");
	memcpy(text, "v = ", 4);
	memcpy(text + 4, val, vlen);
	memcpy(text + 4 + vlen, ";\n", 3);
	*v = NULL;
	int rc = 0, wrc;
	char *wide = NULL;
	size_t wn = 0;
	bool shaped = strchr("{[(\"", val[0]) != NULL;
	if (include_line(text)) {
		rc = ts_error_set(err, TS_ESYNTAX, NULL, 0, NULL,
				  "--set '%.200s': found @include, expected a value", arg);
	} else if ((wrc = widen_ints(text, &wide, &wn)) != 0) {
		rc = wrc < 0
			 ? ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory for --set")
			 : ts_error_set(err, TS_ERANGE, NULL, 0, NULL,
					"--set '%.200s': found an integer beyond 64 bits, "
					"expected at most %lld",
					arg, (long long)INT64_MAX);
	} else if (config_read_string(scratch, wide)) {
		const config_setting_t *root = config_root_setting(scratch);
		if (!cfg_intact(root)) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory for --set");
		} else if (config_setting_length(root) != 1) {
			rc = ts_error_set(err, TS_ESYNTAX, NULL, 0, NULL,
					  "--set '%.200s': found more than one value, expected one",
					  arg);
		} else {
			*v = config_setting_get_member(root, "v");
			if (!*v)
				rc = ts_error_set(
				    err, TS_ESYNTAX, NULL, 0, NULL,
				    "--set '%.200s': found a malformed value, expected one value",
				    arg);
		}
	} else if (shaped) {
		const char *t = config_error_text(scratch);
		rc = ts_error_set(err, TS_ESYNTAX, NULL, 0, NULL,
				  "--set '%.200s': found a malformed value (%s), expected a "
				  "libconfig value: 8, 1.5e9, true, \"text\", { key = value; }",
				  arg, t ? t : "?");
	}
	ts_free(text, vlen + 8);
	if (wide)
		ts_free(wide, wn);
	return rc;
}

int cfg_apply_set(config_t *cfg, const char *arg, const char *label, const char *file,
		  struct ts_error *err)
{
	const char *eq = strchr(arg, '=');
	if (!eq)
		return ts_error_set(err, TS_ESYNTAX, NULL, 0, NULL,
				    "--set '%.200s': found no '=', expected key.path=value", arg);
	const char *kb = arg, *ke = eq, *vb = eq + 1, *ve = eq + 1 + strlen(eq + 1);
	trim(&kb, &ke);
	trim(&vb, &ve);
	if (kb == ke)
		return ts_error_set(err, TS_ESYNTAX, NULL, 0, NULL,
				    "--set '%.200s': found an empty key, expected key.path=value",
				    arg);
	if (vb == ve)
		return ts_error_set(err, TS_ESYNTAX, NULL, 0, NULL,
				    "--set '%.200s': found an empty value, expected key.path=value",
				    arg);
	if ((size_t)(ke - kb) >= 160)
		return ts_error_set(
		    err, TS_ESYNTAX, NULL, 0, NULL,
		    "--set '%.200s': found a key of %zu characters, expected at most 159", arg,
		    (size_t)(ke - kb));
	char path[160];
	memcpy(path, kb, (size_t)(ke - kb));
	path[ke - kb] = '\0';
	/* every component a libconfig name */
	for (const char *p = path;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (!valid_name(p, n))
			return ts_error_set(err, TS_ESYNTAX, NULL, 0, path,
					    "--set '%.200s': found \"%.*s\" in the key, expected "
					    "names of letters, digits, '_' and '-' joined by '.'",
					    arg, (int)n, p);
		if (!dot)
			break;
		p = dot + 1;
	}

	config_t scratch;
	config_init(&scratch);
	const config_setting_t *v;
	int rc = parse_value(&scratch, arg, vb, (size_t)(ve - vb), &v, err);
	if (rc)
		goto out;

	config_setting_t *parent = config_root_setting(cfg);
	char *p = path;
	for (;;) {
		char *dot = strchr(p, '.');
		if (!dot)
			break;
		*dot = '\0';
		config_setting_t *c = config_setting_get_member(parent, p);
		if (c && config_setting_type(c) == CONFIG_TYPE_STRING &&
		    config_setting_is_root(parent) &&
		    (strcmp(p, "model") == 0 || strcmp(p, "cluster") == 0)) {
			/* model = "NAME" becomes model = { base = "NAME"; } */
			char name[256];
			snprintf(name, sizeof name, "%s", config_setting_get_string(c));
			config_setting_remove(parent, p);
			c = config_setting_add(parent, p, CONFIG_TYPE_GROUP);
			config_setting_t *b =
			    c ? config_setting_add(c, "base", CONFIG_TYPE_STRING) : NULL;
			if (!b || !config_setting_set_string(b, name)) {
				rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL,
						  "out of memory for --set");
				goto out;
			}
			config_setting_set_hook(c, (void *)(uintptr_t)label);
			config_setting_set_hook(b, (void *)(uintptr_t)label);
		} else if (!c) {
			c = config_setting_add(parent, p, CONFIG_TYPE_GROUP);
			if (!c) {
				rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL,
						  "out of memory for --set");
				goto out;
			}
			config_setting_set_hook(c, (void *)(uintptr_t)label);
		} else if (!config_setting_is_group(c)) {
			char fb[160], f[256];
			int line;
			cfg_where(c, file, f, sizeof f, &line);
			if (line > 0)
				rc = ts_error_set(
				    err, TS_ETYPE, NULL, 0, path,
				    "--set '%.200s': found %s (%s:%d), expected a group "
				    "to set a key inside",
				    arg, cfg_found(c, fb, sizeof fb), f[0] ? f : "line", line);
			else
				rc = ts_error_set(err, TS_ETYPE, NULL, 0, path,
						  "--set '%.200s': found %s (from %s), expected a "
						  "group to set a key inside",
						  arg, cfg_found(c, fb, sizeof fb), f);
			goto out;
		}
		*dot = '.';
		parent = c;
		p = dot + 1;
	}
	config_setting_t *old = config_setting_get_member(parent, p);
	if (v && old && config_setting_is_group(old) && config_setting_is_group(v)) {
		/* a group over a group merges (configs/README.md, "Overriding
		 * keys"): --set 'training={ micro_batch = 2; }' keeps the file's
		 * other training keys, as --set training.micro_batch=2 does */
		if (!merge_group(old, v, label, 0))
			rc = ts_error_set(err, TS_ESYNTAX, NULL, 0, path,
					  "--set '%.200s': found a value nested too deeply or "
					  "mixed-type array, expected at most %d levels",
					  arg, SET_MAX_DEPTH);
	} else if (v) {
		if (old)
			config_setting_remove(parent, p);
		if (!copy_setting(parent, p, v, label, 0))
			rc = ts_error_set(err, TS_ESYNTAX, NULL, 0, path,
					  "--set '%.200s': found a value nested too deeply or "
					  "mixed-type array, expected at most %d levels",
					  arg, SET_MAX_DEPTH);
	} else {
		/* a bare word: the value text as a string */
		if (old)
			config_setting_remove(parent, p);
		size_t n = (size_t)(ve - vb);
		char *s = ts_malloc(n + 1);
		config_setting_t *d = s ? config_setting_add(parent, p, CONFIG_TYPE_STRING) : NULL;
		if (s) {
			memcpy(s, vb, n);
			s[n] = '\0';
		}
		if (!d || !config_setting_set_string(d, s))
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory for --set");
		else
			config_setting_set_hook(d, (void *)(uintptr_t)label);
		if (s)
			ts_free(s, n + 1);
	}
	if (!rc && !cfg_intact(config_root_setting(cfg)))
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL,
				  "out of memory for --set '%.200s' (a name or a string was lost)",
				  arg);
out:
	config_destroy(&scratch);
	return rc;
}

/* ---- writing settings back as text ------------------------------------- */

char *cfg_float_text(char *buf, size_t n, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".eEn"))
		strncat(buf, ".0", n - strlen(buf) - 1);
	return buf;
}

/* A string as a libconfig literal on one line. */
static void sb_quoted(struct sbuf *b, const char *s)
{
	sbuf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[8];
		if (c == '"' || c == '\\') {
			e[0] = '\\';
			e[1] = (char)c;
			e[2] = '\0';
		} else if (c == '\n' || c == '\t' || c == '\r' || c == '\f') {
			snprintf(e, sizeof e, "\\%c",
				 c == '\n'   ? 'n'
				 : c == '\t' ? 't'
				 : c == '\r' ? 'r'
					     : 'f');
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(e, sizeof e, "\\x%02x", c);
		} else {
			e[0] = (char)c;
			e[1] = '\0';
		}
		sbuf_str(b, e);
	}
	sbuf_add(b, "\"", 1);
}

static void write_setting(struct sbuf *b, const config_setting_t *s)
{
	char buf[64];
	int t = config_setting_type(s);
	switch (t) {
	case CONFIG_TYPE_GROUP:
	case CONFIG_TYPE_ARRAY:
	case CONFIG_TYPE_LIST: {
		sbuf_str(b, t == CONFIG_TYPE_GROUP ? "{ " : t == CONFIG_TYPE_ARRAY ? "[" : "(");
		int n = config_setting_length(s);
		for (int i = 0; i < n; i++) {
			const config_setting_t *c = config_setting_get_elem(s, (unsigned)i);
			if (t == CONFIG_TYPE_GROUP) {
				sbuf_str(b, config_setting_name(c));
				sbuf_str(b, " = ");
				write_setting(b, c);
				sbuf_str(b, "; ");
			} else {
				if (i)
					sbuf_str(b, ", ");
				write_setting(b, c);
			}
		}
		sbuf_str(b, t == CONFIG_TYPE_GROUP ? "}" : t == CONFIG_TYPE_ARRAY ? "]" : ")");
		return;
	}
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(buf, sizeof buf, "%lld", (long long)config_setting_get_int64(s));
		sbuf_str(b, buf);
		return;
	case CONFIG_TYPE_FLOAT:
		sbuf_str(b, cfg_float_text(buf, sizeof buf, config_setting_get_float(s)));
		return;
	case CONFIG_TYPE_BOOL:
		sbuf_str(b, config_setting_get_bool(s) ? "true" : "false");
		return;
	case CONFIG_TYPE_STRING:
		sb_quoted(b, config_setting_get_string(s));
		return;
	default:
		return;
	}
}

char *cfg_setting_text(const config_setting_t *s)
{
	struct sbuf b = {0};
	write_setting(&b, s);
	return sbuf_take(&b);
}
