/* The scaling-family table (see families.h).
 * SPDX-License-Identifier: MIT */
#include "report/families.h"

#include <math.h>

int report_families_write(const struct val_row *rows, const struct fam_family *f, size_t n,
			  FILE *out)
{
	size_t cal = 0, nb = 0, na = 0;
	double sb = 0.0, sa = 0.0;
	fprintf(out,
		"Scaling families: calibrated on the smallest run, the larger runs predicted\n");
	for (size_t k = 0; k < n; k++) {
		const struct fam_family *x = &f[k];
		const struct val_row *b = &rows[x->base];
		fprintf(out, "\nfamily %zu: %s\n", k + 1, x->key);
		fprintf(out, "  smallest run: %s, %lld GPUs, %s %.6g\n", b->id, (long long)b->gpus,
			val_metric_name(b->metric), b->measured);
		if (x->calibrated) {
			cal++;
			for (int p = 0; p < CALIBFIT_NPARAMS_; p++) {
				const struct calibfit_value *v = &x->fit.v[p];
				if (!v->fitted)
					continue;
				fprintf(out, "  %-10s %.6g -> %.6g (80 %%: %.6g .. %.6g)\n",
					calibfit_param_key((enum calibfit_param)p), v->before,
					v->value, v->p10, v->p90);
			}
		} else {
			fprintf(out, "  not calibrated: %s\n", x->why);
		}
		fprintf(out, "  %-16s %6s %12s %12s %8s %12s %8s\n", "run", "GPUs", "measured",
			"catalog", "error", "fitted", "error");
		for (size_t i = 0; i < x->n; i++) {
			const struct val_row *r = &rows[x->row[i]];
			char b1[32] = "-", b2[16] = "-", a1[32] = "-", a2[16] = "-";
			if (isfinite(x->before[i])) {
				snprintf(b1, sizeof b1, "%.6g", x->before[i]);
				snprintf(b2, sizeof b2, "%+.2f%%",
					 100.0 * val_error(r, x->before[i]));
			}
			if (isfinite(x->after[i])) {
				snprintf(a1, sizeof a1, "%.6g", x->after[i]);
				snprintf(a2, sizeof a2, "%+.2f%%",
					 100.0 * val_error(r, x->after[i]));
			}
			fprintf(out, "  %-16s %6lld %12.6g %12s %8s %12s %8s%s\n", r->id,
				(long long)r->gpus, r->measured, b1, b2, a1, a2,
				x->row[i] == x->base ? "  (fit)" : "");
		}
		if (x->dropped)
			fprintf(out, "  (%zu more runs not shown)\n", x->dropped);
		fprintf(out, "  larger runs: %zu, MAPE %.2f %% before, ", x->err_before.n,
			100.0 * x->err_before.mape);
		if (x->calibrated && x->err_after.n)
			fprintf(out, "%.2f %% after\n", 100.0 * x->err_after.mape);
		else
			fprintf(out, "none after\n");
		sb += x->err_before.mape * (double)x->err_before.n;
		nb += x->err_before.n;
		sa += x->err_after.mape * (double)x->err_after.n;
		na += x->err_after.n;
	}
	fprintf(out,
		"\n%zu of %zu families calibrated; larger runs' MAPE %.2f %% before (%zu runs), "
		"%.2f %% after (%zu runs)\n",
		cal, n, nb ? 100.0 * sb / (double)nb : 0.0, nb, na ? 100.0 * sa / (double)na : 0.0,
		na);
	return ferror(out) ? TS_EIO : 0;
}
