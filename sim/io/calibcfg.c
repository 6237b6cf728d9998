/* Calibration overrides files: read and write.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/units.h"
#include "io/calibcfg.h"
#include "base/cfg.h"

/* Most link types one overrides file names. */
#define CALIBCFG_MAX_LINKS 32

/* links = ( { name; efficiency; source; }, ... ): catalog indices into
 * idx and efficiencies into eff, *n of them. */
static int read_links(const config_setting_t *l, const char *path, const struct hw_catalog *cat,
		      size_t *idx, double *eff, size_t *n, struct ts_error *err)
{
	static const char *const inner[] = {"name", "efficiency", "source"};
	char key[96], fb[160], name[64], close[200];
	int rc;
	*n = 0;
	if (!l)
		return 0;
	if (!config_setting_is_list(l) || config_setting_length(l) > CALIBCFG_MAX_LINKS)
		return cfg_fail(err, TS_ETYPE, l, path, "links",
				"found %s, expected a list of at most %d ( { name = \"nvlink3\"; "
				"efficiency = 0.8; }, ... )",
				cfg_found(l, fb, sizeof fb), CALIBCFG_MAX_LINKS);
	for (int i = 0; i < config_setting_length(l); i++) {
		const config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
		snprintf(key, sizeof key, "links[%d].", i);
		if (!config_setting_is_group(e))
			return cfg_fail(err, TS_ETYPE, e, path, "links",
					"found %s, expected { name = ...; efficiency = ...; }",
					cfg_found(e, fb, sizeof fb));
		if ((rc = cfg_check_keys(e, path, key, inner, 3, err)))
			return rc;
		if ((rc = cfg_get_string(e, "name", true, name, sizeof name, path, key, err)))
			return rc;
		int k = cat ? hw_catalog_find_link(cat, name) : 0;
		if (k < 0) {
			char nk[CFG_KEY_MAX];
			return cfg_fail(err, TS_EUNKNOWN_NAME, config_setting_get_member(e, "name"),
					path, cfg_key_join(nk, key, "name"),
					"found \"%s\", expected a link type of configs/hardware/; "
					"close matches: %s",
					name,
					hw_catalog_suggest(cat, "link", name, close, sizeof close));
		}
		if ((rc = cfg_get_number(e, "efficiency", TS_UNIT_COUNT_, true, 1e-6, 1.0, &eff[*n],
					 path, key, err)))
			return rc;
		idx[(*n)++] = (size_t)k;
	}
	return 0;
}

/* gpus = ( { name; hbm_eff; flash_eff; source; }, ... ): catalog indices
 * into idx and fractions into hbm and flash (0: keep), *n of them. */
static int read_gpus(const config_setting_t *l, const char *path, const struct hw_catalog *cat,
		     size_t *idx, double *hbm, double *flash, size_t *n, struct ts_error *err)
{
	static const char *const inner[] = {"name", "hbm_eff", "flash_eff", "source"};
	char key[96], fb[160], name[64], close[200];
	int rc;
	*n = 0;
	if (!l)
		return 0;
	if (!config_setting_is_list(l) || config_setting_length(l) > CALIBCFG_MAX_LINKS)
		return cfg_fail(err, TS_ETYPE, l, path, "gpus",
				"found %s, expected a list of at most %d ( { name = "
				"\"A100-SXM4-80GB\"; hbm_eff = 0.8; }, ... )",
				cfg_found(l, fb, sizeof fb), CALIBCFG_MAX_LINKS);
	for (int i = 0; i < config_setting_length(l); i++) {
		const config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
		snprintf(key, sizeof key, "gpus[%d].", i);
		if (!config_setting_is_group(e))
			return cfg_fail(err, TS_ETYPE, e, path, "gpus",
					"found %s, expected { name = ...; hbm_eff = ...; }",
					cfg_found(e, fb, sizeof fb));
		if ((rc = cfg_check_keys(e, path, key, inner, 4, err)))
			return rc;
		if ((rc = cfg_get_string(e, "name", true, name, sizeof name, path, key, err)))
			return rc;
		int k = cat ? hw_catalog_find_gpu(cat, name) : 0;
		if (k < 0) {
			char nk[CFG_KEY_MAX];
			return cfg_fail(err, TS_EUNKNOWN_NAME, config_setting_get_member(e, "name"),
					path, cfg_key_join(nk, key, "name"),
					"found \"%s\", expected a GPU type of configs/hardware/; "
					"close matches: %s",
					name,
					hw_catalog_suggest(cat, "gpu", name, close, sizeof close));
		}
		hbm[*n] = flash[*n] = 0.0;
		if ((rc = cfg_get_number(e, "hbm_eff", TS_UNIT_COUNT_, true, 1e-6, 1.0, &hbm[*n],
					 path, key, err)) ||
		    (config_setting_get_member(e, "flash_eff") &&
		     (rc = cfg_get_number(e, "flash_eff", TS_UNIT_COUNT_, true, 1e-6, 1.0,
					  &flash[*n], path, key, err))))
			return rc;
		idx[(*n)++] = (size_t)k;
	}
	return 0;
}

/* fit = { measured; before; residual; rows; } into *fit. */
static int read_fit(const config_setting_t *g, const char *path, struct calibcfg_fit *fit,
		    struct ts_error *err)
{
	static const char *const inner[] = {"measured", "before", "residual", "rows"};
	char fb[160];
	int rc;
	memset(fit, 0, sizeof *fit);
	if (!g)
		return 0;
	if (!config_setting_is_group(g))
		return cfg_fail(err, TS_ETYPE, g, path, "fit",
				"found %s, expected { measured = \"...\"; residual = ...; }",
				cfg_found(g, fb, sizeof fb));
	double rows = 0.0;
	if ((rc = cfg_check_keys(g, path, "fit.", inner, 4, err)) ||
	    (rc = cfg_get_string(g, "measured", true, fit->measured, sizeof fit->measured, path,
				 "fit.", err)) ||
	    (rc = cfg_get_number(g, "before", TS_UNIT_COUNT_, true, 0.0, 100.0, &fit->before, path,
				 "fit.", err)) ||
	    (rc = cfg_get_number(g, "residual", TS_UNIT_COUNT_, true, 0.0, 100.0, &fit->residual,
				 path, "fit.", err)) ||
	    (rc = cfg_get_number(g, "rows", TS_UNIT_COUNT_, true, 1.0, 1e6, &rows, path, "fit.",
				 err)))
		return rc;
	fit->rows = (int)rows;
	fit->present = true;
	return 0;
}

int calibcfg_apply(const char *path, struct hw_catalog *cat, struct work_calib *c,
		   struct calibcfg_fit *fit, struct ts_error *err)
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
	const char *keys[WORK_CALIB_COUNT + 3];
	for (size_t i = 0; i < WORK_CALIB_COUNT; i++)
		keys[i] = work_calib_key(i);
	keys[WORK_CALIB_COUNT] = "links";
	keys[WORK_CALIB_COUNT + 1] = "gpus";
	keys[WORK_CALIB_COUNT + 2] = "fit";
	rc = cfg_parse(&cfg, text, path, err);
	const config_setting_t *top = config_root_setting(&cfg);
	size_t nl = 0, li[CALIBCFG_MAX_LINKS];
	double le[CALIBCFG_MAX_LINKS];
	size_t ng = 0, gix[CALIBCFG_MAX_LINKS];
	double gh[CALIBCFG_MAX_LINKS], gf[CALIBCFG_MAX_LINKS];
	struct calibcfg_fit fr;
	if (!rc)
		rc = cfg_check_keys(top, path, "", keys, WORK_CALIB_COUNT + 3, err);
	if (!rc)
		rc = read_links(config_setting_get_member(top, "links"), path, cat, li, le, &nl,
				err);
	if (!rc)
		rc = read_gpus(config_setting_get_member(top, "gpus"), path, cat, gix, gh, gf, &ng,
			       err);
	if (!rc)
		rc = read_fit(config_setting_get_member(top, "fit"), path, &fr, err);
	for (size_t i = 0; i < WORK_CALIB_COUNT && !rc; i++) {
		const config_setting_t *g = config_setting_get_member(top, keys[i]);
		static const char *const inner[] = {"value", "source", "fitted_on"};
		char key[96], fb[160], why[300];
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
		const config_setting_t *v;
		if ((rc = cfg_member(g, "value", true, path, keys[i], "value = NUMBER;", &v, err)))
			break;
		snprintf(key, sizeof key, "%s.value", keys[i]);
		double *f = work_calib_field(&w, i);
		if (config_setting_type(v) == CONFIG_TYPE_STRING && !strcmp(keys[i], "launch_s")) {
			int e = ts_units_parse(config_setting_get_string(v), TS_UNIT_TIME, f, why,
					       sizeof why);
			if (e)
				rc = cfg_fail(err, e, v, path, key, "%s", why);
		} else {
			rc = cfg_float(v, path, key, 0.0, 1e12, f, err);
		}
		int e;
		if (!rc && (e = work_calib_check(i, *f, why, sizeof why)))
			rc = cfg_fail(err, e, v, path, key, "%s", why);
	}
	if (!rc) {
		*c = w;
		for (size_t i = 0; i < nl; i++)
			hw_catalog_set_link_efficiency(cat, li[i], le[i]);
		for (size_t i = 0; i < ng; i++) {
			const struct hw_gpu_type *g = hw_catalog_gpu(cat, gix[i]);
			hw_catalog_set_gpu_eff(cat, gix[i], gh[i],
					       gf[i] > 0.0 ? gf[i] : g->flash_eff);
		}
		if (fit)
			*fit = fr;
	}
	config_destroy(&cfg);
	ts_free(text, len + 1);
	return rc;
}

/* Write text quoted for libconfig (without the quotes). */
static void put_quoted(FILE *out, const char *source)
{
	for (const char *p = source; *p; p++)
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if ((unsigned char)*p >= 0x20)
			fputc(*p, out);
}

int calibcfg_write_link(FILE *out, const char *link, double efficiency, const char *header,
			const char *source)
{
	fprintf(out, "# %s\n# SPDX-License-Identifier: MIT\nlinks = (\n\t{\n\t\tname = \"", header);
	put_quoted(out, link);
	fprintf(out, "\";\n\t\tefficiency = %.9g;\n\t\tsource = \"", efficiency);
	put_quoted(out, source);
	fputs("\";\n\t}\n);\n", out);
	return ferror(out) ? TS_EIO : 0;
}

int calibcfg_write(FILE *out, const struct work_calib *c, const size_t *keys, size_t n,
		   const char *header, const char *source)
{
	struct work_calib w = *c;
	fprintf(out, "# %s\n# SPDX-License-Identifier: MIT\n", header);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s = {\n\tvalue = %.9g;\n\tsource = \"", work_calib_key(keys[i]),
			*work_calib_field(&w, keys[i]));
		put_quoted(out, source);
		fputs("\";\n};\n", out);
	}
	return ferror(out) ? TS_EIO : 0;
}

int calibcfg_write_gpu(FILE *out, const char *gpu, double hbm_eff, double flash_eff,
		       const char *source)
{
	fputs("gpus = (\n\t{\n\t\tname = \"", out);
	put_quoted(out, gpu);
	fprintf(out, "\";\n\t\thbm_eff = %.9g;\n", hbm_eff);
	if (flash_eff > 0.0)
		fprintf(out, "\t\tflash_eff = %.9g;\n", flash_eff);
	fputs("\t\tsource = \"", out);
	put_quoted(out, source);
	fputs("\";\n\t}\n);\n", out);
	return ferror(out) ? TS_EIO : 0;
}

int calibcfg_write_fit(FILE *out, const struct calibcfg_fit *fit)
{
	fputs("fit = {\n\tmeasured = \"", out);
	put_quoted(out, fit->measured);
	fprintf(out, "\";\n\tbefore = %.9g;\n\tresidual = %.9g;\n\trows = %d;\n};\n", fit->before,
		fit->residual, fit->rows);
	return ferror(out) ? TS_EIO : 0;
}
