/* Internals shared by the files of sim/hw/: reading libconfig files and
 * checked look-ups that fill a struct ts_error naming file, line and key.
 * SPDX-License-Identifier: MIT */
#ifndef TS_HW_INT_H
#define TS_HW_INT_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/units.h"

/* Longest dotted key path kept for messages (fits struct ts_error.key). */
#define HW_KEY_MAX 160

/* Read `path` into `cfg` (initialised here; the caller destroys it also on
 * failure). Returns 0, TS_EIO (cannot open) or TS_ESYNTAX (with the line). */
int hw_cfg_read(config_t *cfg, const char *path, struct ts_error *err);

/* Source line of a setting (0 when unknown). */
int hw_cfg_line(const config_setting_t *s);

/* "an integer", "a string", ... for messages. */
const char *hw_cfg_type_name(const config_setting_t *s);

/* `prefix.key` (or `key` when prefix is empty) into buf of HW_KEY_MAX. */
char *hw_key_join(char *buf, const char *prefix, const char *key);

/* Every member of group `g` must be named in `allowed` (NULL-terminated);
 * otherwise TS_EUNKNOWN_KEY naming the closest allowed keys. Also rejects a
 * `g` that is not a group (TS_ETYPE). `path` is g's dotted key. */
int hw_cfg_check_keys(const config_setting_t *g, const char *const *allowed,
		      const char *file, const char *path, struct ts_error *err);

/* Checked look-ups of member `key` of group `g` (path = g's dotted key).
 * Each returns 0 when found and valid, 1 when absent and !required, or an
 * error: TS_EINVALID (absent but required), TS_ETYPE, TS_ERANGE, TS_EUNIT. */

/* A string, non-empty, shorter than `n` bytes, copied into out. */
int hw_cfg_string(const config_setting_t *g, const char *key, bool required,
		  char *out, size_t n, const char *file, const char *path,
		  struct ts_error *err);
/* A quantity with a unit ("300 GB/s") parsed by ts_units_parse, strictly
 * positive unless allow_zero; in SI base units. Sizes also accept a bare
 * integer (bytes). */
int hw_cfg_quantity(const config_setting_t *g, const char *key,
		    enum ts_unit_kind kind, bool required, bool allow_zero,
		    double *out, const char *file, const char *path,
		    struct ts_error *err);
/* An integer in [lo, hi]. */
int hw_cfg_uint(const config_setting_t *g, const char *key, bool required,
		uint32_t lo, uint32_t hi, uint32_t *out, const char *file,
		const char *path, struct ts_error *err);
/* A fraction in (0, 1] (a float or an integer). */
int hw_cfg_fraction(const config_setting_t *g, const char *key, bool required,
		    double *out, const char *file, const char *path,
		    struct ts_error *err);
/* A boolean. */
int hw_cfg_bool(const config_setting_t *g, const char *key, bool required,
		bool *out, const char *file, const char *path,
		struct ts_error *err);

#endif
