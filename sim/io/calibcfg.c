/* Calibration overrides files: read and write.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/units.h"
#include "io/calibcfg.h"
#include "io/cfg.h"

int calibcfg_apply(const char *path, struct work_calib *c, struct ts_error *err)
{
	char *text;
	size_t len;
	ts_error_clear(err);
	int rc = cfg_read_text(path, &text, &len, err);
	if (rc)
		return rc;
	config_t cfg;
	config_init(&cfg);
	struct work_calib w = *c;
	const char *keys[WORK_CALIB_COUNT];
	for (size_t i = 0; i < WORK_CALIB_COUNT; i++)
		keys[i] = work_calib_key(i);
	rc = cfg_parse(&cfg, text, path, err);
	const config_setting_t *top = config_root_setting(&cfg);
	if (!rc)
		rc = cfg_check_keys(top, path, "", keys, WORK_CALIB_COUNT, err);
	for (size_t i = 0; i < WORK_CALIB_COUNT && !rc; i++) {
		const config_setting_t *g = config_setting_get_member(top, keys[i]);
		static const char *const inner[] = {"value", "source", "fitted_on"};
		char key[96], fb[160], why[200];
		if (!g)
			continue;
		snprintf(key, sizeof key, "%s.", keys[i]);
		if (!config_setting_is_group(g)) {
			rc = cfg_fail(err, TS_ETYPE, g, path, keys[i],
				      "found %s, expected { value = ...; source = \"...\"; }",
				      cfg_found(g, fb, sizeof fb));
			break;
		}
		if ((rc = cfg_check_keys(g, path, key, inner, 3, err)))
			break;
		const config_setting_t *v = config_setting_get_member(g, "value");
		snprintf(key, sizeof key, "%s.value", keys[i]);
		if (!v) {
			rc = cfg_fail(err, TS_EINVALID, g, path, key,
				      "found nothing, expected value = NUMBER;");
			break;
		}
		double *f = work_calib_field(&w, i);
		if (config_setting_type(v) == CONFIG_TYPE_STRING && !strcmp(keys[i], "launch_s")) {
			int e = ts_units_parse(config_setting_get_string(v), TS_UNIT_TIME, f, why,
					       sizeof why);
			if (e)
				rc = cfg_fail(err, e, v, path, key, "%s", why);
		} else {
			rc = cfg_float(v, path, key, 0.0, 1e12, f, err);
		}
	}
	if (!rc)
		*c = w;
	config_destroy(&cfg);
	ts_free(text, len + 1);
	return rc;
}

int calibcfg_write(FILE *out, const struct work_calib *c, const size_t *keys, size_t n,
		   const char *header, const char *source)
{
	struct work_calib w = *c;
	fprintf(out, "# %s\n# SPDX-License-Identifier: MIT\n", header);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s = {\n\tvalue = %.9g;\n\tsource = \"", work_calib_key(keys[i]),
			*work_calib_field(&w, keys[i]));
		for (const char *p = source; *p; p++)
			if (*p == '"' || *p == '\\')
				fprintf(out, "\\%c", *p);
			else if ((unsigned char)*p >= 0x20)
				fputc(*p, out);
		fputs("\";\n};\n", out);
	}
	return ferror(out) ? TS_EIO : 0;
}
