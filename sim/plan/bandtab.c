/* The model error measured in validation, per regime: the table of the
 * reported bands (sim/plan/bandtab.h; what a run does with it: sim/run/band.c).
 * SPDX-License-Identifier: MIT */

/*
 * Model error. For every validation row that no constant was fitted on (the
 * held-out halves of the fitted sources, every row of the check-only ones)
 * r = ln(measured time / predicted time), throughput rows turned into time
 * by the reciprocal. A regime (GPU generation x single/multi node x
 * framework family; then the scale and family of any GPU; then the family
 * alone; then everything) keeps the 80th percentile of
 * |r| (err80) and the median r (bias). Regimes with fewer than BAND_MIN_ROWS
 * rows are left out, so a run falls back to the finest level that has
 * enough.
 */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/cfg.h"
#include "plan/bandtab.h"

void band_regime_key(char *buf, size_t n, int level, const char *gpu_name, uint32_t nodes,
		     enum work_framework fw)
{
	char gen[2] = {'?', '\0'};
	for (const char *c = gpu_name ? gpu_name : ""; *c; c++)
		if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z')) {
			gen[0] = (char)(*c >= 'a' ? *c - 'a' + 'A' : *c);
			break;
		}
	const char *scale = nodes > 1 ? "multi" : "single";
	const char *fam = fw == WORK_FW_DDP ? "ddp" : fw == WORK_FW_FSDP ? "fsdp" : "megatron";
	/* levels: g/s/f, * /s/f, * / * /f, * / * / * */
	snprintf(buf, n, "%s/%s/%s", level < 1 ? gen : "*", level < 2 ? scale : "*",
		 level < 3 ? fam : "*");
}

static const struct band_regime *find(const struct band_table *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->r[i].key, key))
			return &t->r[i];
	return NULL;
}

const struct band_regime *band_lookup_keys(const struct band_table *t,
					   const char (*key)[BAND_KEY_MAX])
{
	if (!t)
		return NULL;
	for (int l = 0; l < BAND_LEVELS; l++) {
		const struct band_regime *r = find(t, key[l]);
		if (r && r->rows >= BAND_MIN_ROWS)
			return r;
	}
	return NULL;
}

const struct band_regime *band_lookup(const struct band_table *t, const char *gpu_name,
				      uint32_t nodes, enum work_framework fw)
{
	char key[BAND_LEVELS][BAND_KEY_MAX];
	for (int l = 0; l < BAND_LEVELS; l++)
		band_regime_key(key[l], BAND_KEY_MAX, l, gpu_name, nodes, fw);
	return band_lookup_keys(t, (const char(*)[BAND_KEY_MAX])key);
}

/* Append source s to the comma-separated list l (n bytes) unless there. */
static void add_source(char *l, size_t n, const char *s)
{
	size_t k = strlen(s);
	for (const char *p = l; (p = strstr(p, s)); p += k)
		if ((p == l || p[-1] == ',') && (p[k] == ',' || p[k] == '\0'))
			return;
	size_t len = strlen(l);
	snprintf(l + len, n - len, "%s%s", len ? "," : "", s);
}

int band_table_build(const struct band_resid *res, size_t n, const char *exclude,
		     struct band_table *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	double *v = ts_malloc((n ? n : 1) * sizeof *v);
	double *a = ts_malloc((n ? n : 1) * sizeof *a);
	int rc = 0;
	if (!v || !a) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto done;
	}
	/* every key in order of first appearance, finest level first */
	for (int l = 0; l < BAND_LEVELS; l++)
		for (size_t i = 0; i < n; i++) {
			const char *key = res[i].key[l];
			if ((exclude && !strcmp(res[i].source, exclude)) || find(out, key))
				continue;
			struct band_regime g = {0};
			snprintf(g.key, sizeof g.key, "%s", key);
			size_t m = 0;
			for (size_t j = 0; j < n; j++) {
				if ((exclude && !strcmp(res[j].source, exclude)) ||
				    strcmp(res[j].key[l], key) || !isfinite(res[j].r))
					continue;
				v[m] = res[j].r;
				a[m++] = fabs(res[j].r);
				add_source(g.sources, sizeof g.sources, res[j].source);
			}
			if (m < BAND_MIN_ROWS)
				continue;
			if (out->n == BAND_MAX_REGIMES) {
				rc = ts_error_set(err, TS_ELIMIT, NULL, 0, "regimes",
						  "found more than %d regimes, expected at most %d",
						  BAND_MAX_REGIMES, BAND_MAX_REGIMES);
				goto done;
			}
			gsl_sort(v, 1, m);
			gsl_sort(a, 1, m);
			g.rows = (uint32_t)m;
			g.err80 = gsl_stats_quantile_from_sorted_data(a, 1, m, 0.8);
			g.bias = gsl_stats_quantile_from_sorted_data(v, 1, m, 0.5);
			out->r[out->n++] = g;
		}
done:
	ts_free(v, (n ? n : 1) * sizeof *v);
	ts_free(a, (n ? n : 1) * sizeof *a);
	return rc;
}

int band_coverage_of(const struct band_resid *res, size_t n, const char *source,
		     struct band_coverage *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	struct band_table *t = ts_calloc(1, sizeof *t);
	double *hw = ts_malloc((n ? n : 1) * sizeof *hw);
	int rc = 0;
	if (!t || !hw) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto done;
	}
	if ((rc = band_table_build(res, n, source, t, err)))
		goto done;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(res[i].source, source) || !isfinite(res[i].r))
			continue;
		out->rows++;
		const struct band_regime *rg =
		    band_lookup_keys(t, (const char(*)[BAND_KEY_MAX])res[i].key);
		if (!rg) {
			out->no_band++;
			continue;
		}
		add_source(out->regimes, sizeof out->regimes, rg->key);
		/* the band of a figure of 1 without spread: 1 x exp(+-err80)
		 * (sim/run/band.h, band_combine) */
		double lo = exp(-rg->err80), hi = exp(rg->err80);
		double meas = exp(res[i].r); /* measured / predicted time */
		out->inside += lo <= meas && meas <= hi;
		hw[m++] = (hi - lo) / 2.0;
	}
	out->coverage = out->rows ? (double)out->inside / (double)out->rows : 0.0;
	if (m) {
		gsl_sort(hw, 1, m);
		out->median_hw = gsl_stats_median_from_sorted_data(hw, 1, m);
	}
done:
	ts_free(t, sizeof *t);
	ts_free(hw, (n ? n : 1) * sizeof *hw);
	return rc;
}

static const char *const regime_keys[] = {"regime", "rows", "err80", "bias", "sources"};

int band_table_load(const char *root, struct band_table *out, bool *found, struct ts_error *err)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/configs/calibration/bands.cfg", root ? root : ".");
	memset(out, 0, sizeof *out);
	*found = false;
	FILE *probe = fopen(path, "r");
	if (!probe)
		return 0;
	fclose(probe);
	*found = true;
	config_t cfg;
	config_init(&cfg);
	int rc = cfg_load_file(&cfg, path, err);
	if (rc)
		goto done;
	const config_setting_t *top = config_root_setting(&cfg);
	static const char *const top_keys[] = {"time_error"};
	if ((rc = cfg_check_keys(top, path, "", top_keys, 1, err)))
		goto done;
	const config_setting_t *list = config_setting_get_member(top, "time_error");
	if (!list)
		goto done;
	if (!config_setting_is_list(list)) {
		rc = cfg_fail(err, TS_ETYPE, list, path, "time_error",
			      "found %s, expected a list ( { regime = ...; ... }, ... )",
			      cfg_type_name(list));
		goto done;
	}
	int cnt = config_setting_length(list);
	if (cnt > BAND_MAX_REGIMES) {
		rc = cfg_fail(err, TS_ELIMIT, list, path, "time_error",
			      "found %d regimes, expected at most %d", cnt, BAND_MAX_REGIMES);
		goto done;
	}
	for (int i = 0; i < cnt; i++) {
		const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
		char kp[CFG_KEY_MAX];
		snprintf(kp, sizeof kp, "time_error.[%d]", i);
		if ((rc = cfg_check_keys(g, path, kp, regime_keys, 5, err)))
			goto done;
		struct band_regime r = {0};
		uint32_t rows = 0;
		if ((rc = cfg_get_string(g, "regime", true, r.key, sizeof r.key, path, kp, err)) ||
		    (rc = cfg_get_uint(g, "rows", true, 1, UINT32_MAX, &rows, path, kp, err)) ||
		    (rc = cfg_get_number(g, "err80", TS_UNIT_COUNT_, true, 0.0, 5.0, &r.err80, path,
					 kp, err)) ||
		    (rc = cfg_get_number(g, "bias", TS_UNIT_COUNT_, true, -5.0, 5.0, &r.bias, path,
					 kp, err)))
			goto done;
		rc =
		    cfg_get_string(g, "sources", false, r.sources, sizeof r.sources, path, kp, err);
		if (rc < 0)
			goto done;
		rc = 0;
		r.rows = rows;
		if (find(out, r.key)) {
			rc = cfg_fail(err, TS_EINVALID, g, path, kp,
				      "found the regime \"%s\" a second time, expected each once",
				      r.key);
			goto done;
		}
		out->r[out->n++] = r;
	}
done:
	config_destroy(&cfg);
	if (rc)
		memset(out, 0, sizeof *out);
	return rc;
}

int band_table_write(const struct band_table *t, const char *header, void *fv)
{
	FILE *f = fv;
	if (fprintf(f, "%s", header ? header : "") < 0 || fprintf(f, "time_error = (\n") < 0)
		return TS_EIO;
	for (size_t i = 0; i < t->n; i++) {
		const struct band_regime *r = &t->r[i];
		if (fprintf(f,
			    "  { regime = \"%s\"; rows = %u; err80 = %.4f; bias = %+.4f; "
			    "sources = \"%s\"; }%s\n",
			    r->key, r->rows, r->err80, r->bias, r->sources,
			    i + 1 < t->n ? "," : "") < 0)
			return TS_EIO;
	}
	return fprintf(f, ");\n") < 0 ? TS_EIO : 0;
}
