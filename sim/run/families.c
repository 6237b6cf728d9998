/* Scaling families of the validation rows, calibrated on their smallest
 * run (see families.h).
 * SPDX-License-Identifier: MIT */
#include "run/families.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "io/scenario.h"

/* Copy the value after `key` in scenario text (a quoted string, or the
 * rest of the line for "model =") into out. */
static void field(const char *text, const char *key, char *out, size_t cap)
{
	out[0] = '\0';
	const char *p = strstr(text, key);
	if (!p)
		return;
	p += strlen(key);
	while (*p == ' ' || *p == '=')
		p++;
	size_t k = 0;
	if (*p == '{') { /* a braced group: up to its closing brace */
		int depth = 0;
		do {
			depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
			if (k + 1 < cap)
				out[k++] = *p;
			p++;
		} while (*p && depth > 0);
	} else if (*p == '"') {
		p++;
		while (*p && *p != '"' && k + 1 < cap)
			out[k++] = *p++;
	} else {
		while (*p && *p != '\n' && k + 1 < cap)
			out[k++] = *p++;
	}
	out[k] = '\0';
}

static void family_key(const struct val_row *r, char *out, size_t cap)
{
	char model[1024], cluster[64], prec[16], fw[24], seq[24], rec[24];
	const char *t = strstr(r->scenario, "training");
	/* "model" as a key: at the start of the text or of a line, or after "; " */
	const char *m = strncmp(r->scenario, "model", 5) ? NULL : r->scenario;
	if (!m && (m = strstr(r->scenario, "\nmodel")))
		m++;
	if (!m && (m = strstr(r->scenario, "; model =")))
		m += 2;
	field(m ? m : "", "model", model, sizeof model);
	field(r->scenario, "cluster", cluster, sizeof cluster);
	field(r->scenario, "precision", prec, sizeof prec);
	field(r->scenario, "framework", fw, sizeof fw);
	/* the training sequence length: BERT's two phases are two families */
	field(t ? t : r->scenario, "seq_len", seq, sizeof seq);
	seq[strcspn(seq, "; }")] = '\0';
	/* activation recomputation: a run that recomputes its forward is
	 * another job than one that does not (MosaicML's MPT-13B on H100 ran
	 * 8 and 32 GPUs without it and 128 and 512 with it), and one run of
	 * either says nothing of the other's efficiency */
	field(t ? t : r->scenario, "recompute", rec, sizeof rec);
	/* at most 31 + 180 + 40 + 15 + 23 + 23 + 23 bytes and the separators:
	 * the 512 bytes of a family's key hold it whole, so two families never
	 * share a cut key */
	snprintf(out, cap, "%s | %.180s | %.40s | %s | %s | seq %s%s%s", r->source, model, cluster,
		 prec, fw, seq, rec[0] && strcmp(rec, "none") ? " | recompute " : "",
		 rec[0] && strcmp(rec, "none") ? rec : "");
}

/* The measured figure of row r as calibfit_runs takes it: metric 0
 * (iteration s), 1 (samples/s) or 2 (tokens/s); -1 when it cannot. */
static int run_metric(const struct val_row *r, double *v)
{
	double g = (double)r->gpus;
	switch (r->metric) {
	case VAL_ITERATION_S:
		*v = r->measured;
		return 0;
	case VAL_SAMPLES_PER_S:
		*v = r->measured;
		return 1;
	case VAL_TOKENS_PER_S_PER_GPU:
		*v = r->measured * g;
		return 2;
	case VAL_TFLOPS_PER_GPU: /* the source's FLOPs / (time x GPUs) */
		if (!(r->source_flops > 0.0))
			return -1;
		*v = r->source_flops / (r->measured * 1e12 * g);
		return 0;
	case VAL_MFU_PERCENT: /* the source's FLOPs / (time x GPUs x its peak) */
		if (!(r->source_flops > 0.0 && r->source_peak > 0.0))
			return -1;
		*v = r->source_flops / (r->measured / 100.0 * r->source_peak * g);
		return 0;
	default:
		return -1;
	}
}

static void stats(const struct val_row *rows, const struct fam_family *f, const double *pred,
		  struct val_err_stats *s)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < f->n; i++) {
		if (f->row[i] == f->base)
			continue;
		if (!isfinite(pred[i])) {
			s->not_run++;
			continue;
		}
		double e = val_error(&rows[f->row[i]], pred[i]);
		s->n++;
		s->mean += e;
		s->mape += fabs(e);
		if (fabs(e) > s->worst)
			s->worst = fabs(e);
	}
	if (s->n) {
		s->mean /= (double)s->n;
		s->mape /= (double)s->n;
	}
}

static int calibrate(const struct hw_catalog *cat, const struct work_calib *c,
		     const struct val_row *rows, struct fam_family *f, struct ts_error *err)
{
	/* the smallest run that trainsim models */
	size_t bi = f->n;
	for (size_t i = 0; i < f->n; i++)
		if (isfinite(f->before[i])) {
			bi = i;
			break;
		}
	if (bi == f->n) {
		snprintf(f->why, sizeof f->why, "no run of the family is modelled yet");
		return 0;
	}
	const struct val_row *b = &rows[f->row[bi]];
	f->base = f->row[bi];
	struct calibfit_run run;
	memset(&run, 0, sizeof run);
	run.metric = run_metric(b, &run.measured);
	if (run.metric < 0) {
		snprintf(f->why, sizeof f->why, "%s: its metric %s has no iteration time", b->id,
			 val_metric_name(b->metric));
		return 0;
	}
	struct ts_scenario *sc = NULL;
	int rc = ts_scenario_load_string(cat, b->scenario, b->id, NULL, 0, &sc, err);
	if (rc)
		return rc;
	run.sc = sc;
	snprintf(run.label, sizeof run.label, "%s", b->id);
	struct ts_error fe;
	ts_error_clear(&fe);
	if (calibfit_runs(&run, 1, c, &f->fit, &fe)) {
		snprintf(f->why, sizeof f->why, "%s", fe.msg);
	} else {
		f->calibrated = true;
	}
	ts_scenario_destroy(sc);
	return 0;
}

int fam_compute(const struct hw_catalog *cat, const struct work_calib *c,
		const struct val_row *rows, size_t n, const char *source, struct fam_family **out,
		size_t *nout, struct ts_error *err)
{
	*out = NULL;
	*nout = 0;
	bool all = !source || !strcmp(source, "all");
	char(*keys)[512] = ts_calloc(n ? n : 1, sizeof *keys);
	bool *done = ts_calloc(n ? n : 1, sizeof *done);
	struct fam_family *fams = ts_calloc(n ? n : 1, sizeof *fams);
	int rc = 0;
	if (!keys || !done || !fams) {
		rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		family_key(&rows[i], keys[i], sizeof keys[i]);
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) {
		if (done[i] || (!all && strcmp(rows[i].source, source)))
			continue;
		struct fam_family *f = &fams[nf];
		memset(f, 0, sizeof *f);
		snprintf(f->key, sizeof f->key, "%s", keys[i]);
		for (size_t j = i; j < n; j++) {
			if (done[j] || strcmp(keys[j], keys[i]))
				continue;
			done[j] = true;
			if (f->n == FAM_MEMBERS_MAX) {
				f->dropped++;
				continue;
			}
			/* insertion by GPUs, stable */
			size_t k = f->n++;
			while (k > 0 && rows[f->row[k - 1]].gpus > rows[j].gpus) {
				f->row[k] = f->row[k - 1];
				k--;
			}
			f->row[k] = j;
		}
		if (f->n < 2 || rows[f->row[0]].gpus == rows[f->row[f->n - 1]].gpus)
			continue; /* one GPU count: no family */
		nf++;
	}
	for (size_t k = 0; k < nf; k++) {
		struct fam_family *f = &fams[k];
		f->base = f->row[0];
		for (size_t i = 0; i < f->n; i++) {
			f->after[i] = NAN;
			if ((rc = val_predict(cat, c, &rows[f->row[i]], &f->before[i], err)))
				goto fail;
		}
		if ((rc = calibrate(cat, c, rows, f, err)))
			goto fail;
		if (f->calibrated)
			for (size_t i = 0; i < f->n; i++)
				if ((rc = val_predict(cat, &f->fit.fitted.calib, &rows[f->row[i]],
						      &f->after[i], err)))
					goto fail;
		stats(rows, f, f->before, &f->err_before);
		stats(rows, f, f->after, &f->err_after);
	}
	ts_free(keys, (n ? n : 1) * sizeof *keys);
	ts_free(done, (n ? n : 1) * sizeof *done);
	if (!nf) {
		ts_free(fams, (n ? n : 1) * sizeof *fams);
		return 0;
	}
	struct fam_family *fit = ts_realloc(fams, (n ? n : 1) * sizeof *fams, nf * sizeof *fams);
	*out = fit ? fit : fams;
	*nout = nf;
	if (!fit) { /* keep the array whole: free it all on the error path */
		ts_free(fams, (n ? n : 1) * sizeof *fams);
		*out = NULL;
		*nout = 0;
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	return 0;
fail:
	ts_free(keys, (n ? n : 1) * sizeof *keys);
	ts_free(done, (n ? n : 1) * sizeof *done);
	ts_free(fams, (n ? n : 1) * sizeof *fams);
	return rc;
}
