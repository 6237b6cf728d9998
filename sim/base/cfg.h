/* Reading configuration files: typed reads of libconfig settings with
 * one-line errors, files, names, and --set. Used by every loader (scenarios,
 * models, sweeps, costs, calibration overrides).
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_CFG_H
#define TS_BASE_CFG_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/units.h"

/* Largest configuration file read, bytes. */
#define CFG_MAX_FILE (1u << 20)

/* Longest dotted key path kept for messages (fits struct ts_error.key). */
#define CFG_KEY_MAX 160

/* Lower bound of cfg_get_number for "greater than zero". */
#define CFG_POSITIVE 0x1p-1022

/* Source line of a setting (0 when unknown or NULL). */
int cfg_line(const config_setting_t *s);

/* "an integer", "a string", "a group { }", ... for "found ..." messages. */
const char *cfg_type_name(const config_setting_t *s);

/* `prefix.key` into buf of CFG_KEY_MAX bytes: `key` when prefix is empty,
 * no second dot when prefix ends with one ("training."), `prefix` without
 * its trailing dot when key is empty; cut to fit. Returns buf. */
char *cfg_key_join(char *buf, const char *prefix, const char *key);

/* Settings created by --set carry a label ("--set parallel.tp=8", a C string
 * owned by the loader) in their libconfig hook; messages and provenance use
 * it instead of file:line. cfg_where gives either. */
void cfg_where(const config_setting_t *s, const char *file, char *f, size_t n, int *line);

/* "8", "2.5 (a float)", "\"8x\" (a string)", "a group": what a setting
 * holds, for "found ..." messages. Returns buf. */
char *cfg_found(const config_setting_t *s, char *buf, size_t n);

/* Fill err for setting s (file:line or --set label) and key path `key`;
 * returns code. */
int cfg_fail(struct ts_error *err, int code, const config_setting_t *s, const char *file,
	     const char *key, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Typed reads. Each checks the libconfig type and the range and fails with
 * TS_ETYPE or TS_ERANGE naming file, line, key, found and expected. */
int cfg_int(const config_setting_t *s, const char *file, const char *key, int64_t min, int64_t max,
	    int64_t *out, struct ts_error *err);
/* A finite number (int or float) in [min, max]; min = CFG_POSITIVE asks for
 * a number greater than zero. */
int cfg_float(const config_setting_t *s, const char *file, const char *key, double min, double max,
	      double *out, struct ts_error *err);
int cfg_bool(const config_setting_t *s, const char *file, const char *key, bool *out,
	     struct ts_error *err);
/* A string of fewer than n bytes copied to dst. */
int cfg_string(const config_setting_t *s, const char *file, const char *key, char *dst, size_t n,
	       struct ts_error *err);
/* A string that must be one of names[0..n): *out = its index; else
 * TS_EUNKNOWN_NAME listing the choices (closest first). */
int cfg_enum(const config_setting_t *s, const char *file, const char *key, const char *const *names,
	     size_t n, int *out, struct ts_error *err);
/* A size in bytes: a string with a unit ("25 MiB"); TS_EUNIT for an
 * unknown unit or none ("40", 40: a bare number is not taken as bytes). */
int cfg_bytes(const config_setting_t *s, const char *file, const char *key, double *out,
	      struct ts_error *err);

/* Fail with TS_EUNKNOWN_KEY on the first member of group g whose name is not
 * in names[0..n) (or before the first NULL entry, which ends the list when
 * it comes sooner: pass SIZE_MAX for a NULL-terminated list), suggesting the
 * closest. `path` is the group's dotted key, with or without a trailing dot
 * ("training", "training.", "gpus.[0]"), or "" for the root of a file. A
 * NULL group has no keys; a setting that is not a group is TS_ETYPE. */
int cfg_check_keys(const config_setting_t *g, const char *file, const char *path,
		   const char *const *names, size_t n, struct ts_error *err);

/* Checked reads of member `key` of group g, whose dotted key is `path` ("" for
 * the root), for files without --set (messages name file:line). Each returns
 * 0 when found and valid, 1 when absent and not required, or an error:
 * TS_EINVALID (absent but required), TS_ETYPE, TS_ERANGE, TS_EUNIT,
 * TS_EUNKNOWN_NAME. */

/* Member `key` of g into *out (NULL when absent): 0, 1 when absent and not
 * required, or TS_EINVALID "missing key ..., expected `expected`". */
int cfg_member(const config_setting_t *g, const char *key, bool required, const char *file,
	       const char *path, const char *expected, const config_setting_t **out,
	       struct ts_error *err);
/* A string, non-empty, shorter than `n` bytes, copied into out. */
int cfg_get_string(const config_setting_t *g, const char *key, bool required, char *out, size_t n,
		   const char *file, const char *path, struct ts_error *err);
/* A number of `kind` in [lo, hi] into *out: for a unit kind, a string with a
 * unit ("300 GB/s") parsed by ts_units_parse into SI base units (a size
 * without a unit, "40" or 40, is TS_EUNIT, but for 0); for TS_UNIT_COUNT_, a plain integer or
 * float. lo = CFG_POSITIVE asks for a value greater than zero. */
int cfg_get_number(const config_setting_t *g, const char *key, enum ts_unit_kind kind,
		   bool required, double lo, double hi, double *out, const char *file,
		   const char *path, struct ts_error *err);
/* An integer (no quotes, no fraction) in [lo, hi]. */
int cfg_get_uint(const config_setting_t *g, const char *key, bool required, uint32_t lo,
		 uint32_t hi, uint32_t *out, const char *file, const char *path,
		 struct ts_error *err);
/* true or false (no quotes). */
int cfg_get_bool(const config_setting_t *g, const char *key, bool required, bool *out,
		 const char *file, const char *path, struct ts_error *err);
/* A string that must be one of names[0..n): *out = its index. */
int cfg_get_enum(const config_setting_t *g, const char *key, bool required,
		 const char *const *names, size_t n, int *out, const char *file, const char *path,
		 struct ts_error *err);
/* Refuse a value v read from member `key` of g (absent: accepted) outside
 * [lo, hi], `unit` naming its unit in the message (file:line: path.key:
 * found ..., expected lo to hi unit (why)). For physically meaningless
 * figures that would otherwise overflow the simulation. TS_ERANGE. */
int cfg_bounds(const config_setting_t *g, const char *key, double v, double lo, double hi,
	       const char *unit, const char *why, const char *file, const char *path,
	       struct ts_error *err);

/* Whether libconfig kept every name and string value under s (false for
 * NULL). libconfig 1.5 does not check its own allocations: a strdup that
 * fails while it parses or adds a setting leaves a group member without a
 * name (a key that lookups then miss, so that a default would be read in its
 * place) or a string setting without text. cfg_parse and cfg_apply_set check
 * the whole tree and fail with TS_ENOMEM, so a tree they return is whole. */
bool cfg_intact(const config_setting_t *s);

/* Read a regular file (or standard input for path "-", read once and whole)
 * of at most CFG_MAX_FILE bytes into a NUL-terminated
 * buffer owned by the caller (ts_free(*text, *len + 1)); a leading UTF-8
 * byte-order mark is dropped. TS_EIO, TS_ELIMIT or TS_ENOMEM; TS_ESYNTAX
 * (with its line) for a NUL byte in the file, which libconfig would take
 * for the end of the text. */
int cfg_read_text(const char *path, char **text, size_t *len, struct ts_error *err);

/* Parse `text` (read from `file`, for messages) into cfg, which the caller
 * has initialised. `@include` is refused (TS_EUNSUPPORTED); a libconfig
 * error is TS_ESYNTAX with its line and text; a tree that lost a name or a
 * string to a failed allocation (see cfg_intact) is TS_ENOMEM. */
int cfg_parse(config_t *cfg, const char *text, const char *file, struct ts_error *err);

/* cfg_read_text then cfg_parse: the one way a .cfg file is read, so that
 * every file gets the same checks (integers past 32 bits keep their value:
 * libconfig 1.5 would truncate 156000000000 to 1381177344 without an L).
 * cfg is initialised by the caller (config_init), who destroys it on
 * success and failure alike. Errors of the two. */
int cfg_load_file(config_t *cfg, const char *path, struct ts_error *err);

/* Names of the *.cfg files of directory `dir` (sorted, without .cfg): all of
 * them as "a, b, c", or the up to `max` closest to `near` when not NULL.
 * Returns buf ("" when none). */
char *cfg_names(const char *dir, const char *near, size_t max, char *buf, size_t n);

/* Apply one --set argument "key.path=value" to the tree of cfg: the value
 * parses as a libconfig scalar, a "string", a { group }, a [ array ] or a
 * ( list ); anything else that does not parse is taken as a bare-word string.
 * Missing intermediate groups are created; a string `model` or `cluster` that
 * a path goes through becomes a group { base = "that name"; }. A group value
 * set on a group merges into it key by key (groups in both merge in turn),
 * so "g={ a = 1; }" equals "g.a=1"; any other value replaces the setting
 * (a group over model = "NAME" replaces the name). Every setting
 * created is labelled with `label` (borrowed; must outlive cfg). `file` (may
 * be NULL) is the file cfg was parsed from, named with the line of a
 * setting the argument cannot go through. Returns 0 or TS_ESYNTAX /
 * TS_ETYPE / TS_ENOMEM with a message that names the argument. */
int cfg_apply_set(config_t *cfg, const char *arg, const char *label, const char *file,
		  struct ts_error *err);

/* Setting s (not the root) as one line of libconfig text that reads back
 * to the same value: a group as "{ a = 1; b = \"x\"; }", an array as
 * "[1, 2]", a list as "( ... )", a float with a decimal point (so it stays a
 * float) and as many digits as it takes to read back exactly (at most 17),
 * and each string quoted with '"' and '\\' escaped and any control character
 * written as \n, \t, \r, \f or \xHH (libconfig's escapes), so the text holds
 * no newline. Returns a string of strlen + 1 bytes owned by the caller
 * (ts_free with that size), or NULL when out of memory. */
char *cfg_setting_text(const config_setting_t *s);

/* The shortest text of v (15 to 17 significant digits) that strtod reads
 * back as v, with ".0" added when it would otherwise read as an integer;
 * into buf of n bytes (32 suffice). Returns buf. */
char *cfg_float_text(char *buf, size_t n, double v);

#endif
