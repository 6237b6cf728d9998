/* The writers of trainsim calibrate: fixed-width tables of each fit.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/units.h"
#include "report/calibrate.h"

void report_calibrate_ratio(char *b, size_t n, double c0, double c1)
{
	if (c1 < c0)
		snprintf(b, n, "1/%g of", c0 / c1);
	else
		snprintf(b, n, "%g times", c1 / c0);
}

void report_calibrate_nccl(FILE *report, const char *path, const char *file,
			   const struct calib_link_fit *fit)
{
	char a[32], b[32];
	fprintf(report, "Calibration of %s to nccl-tests all-reduce %s (%u GPUs on %u node%s)\n\n",
		path, file, fit->gpus, fit->nodes, fit->nodes == 1 ? "" : "s");
	fprintf(report, "busbw plateau from %s: measured %.2f GB/s\n",
		ts_units_format(fit->from_bytes, TS_UNIT_BYTES, a, sizeof a),
		fit->measured_Bps / 1e9);
	fprintf(report, "%-12s %12s %12s %14s %14s\n", "link", "before", "fitted", "busbw before",
		"busbw fitted");
	snprintf(a, sizeof a, "%.2f GB/s", fit->before_Bps / 1e9);
	snprintf(b, sizeof b, "%.2f GB/s", fit->after_Bps / 1e9);
	fprintf(report, "%-12s %12.4f %12.4f %14s %14s\n", fit->link, fit->before_eff,
		fit->fitted_eff, a, b);
	fprintf(report,
		"fit: %zu plateaus simulated; the efficiency of the link the all-reduce is bound "
		"by (%s)\n",
		fit->evaluations, fit->nodes == 1 ? "the GPUs' own links" : "the NICs");
	if (fit->at_bound)
		fprintf(report,
			"note: the efficiency stopped at %g: the measurement is beyond what this "
			"link's efficiency explains\n",
			fit->fitted_eff);
}

void report_calibrate_iteration(FILE *report, const char *path, double measured,
				const struct work_calib *before, const struct calib_fit *fit)
{
	double c0 = *work_calib_field((struct work_calib *)before, fit->key),
	       c1 = *work_calib_field((struct work_calib *)&fit->calib, fit->key);
	char ratio[64];
	report_calibrate_ratio(ratio, sizeof ratio, c0, c1);
	fprintf(report, "Calibration of %s to a measured iteration of %.6g s\n\n", path, measured);
	fprintf(report, "%-10s %14s %14s %12s\n", "constant", "before", "fitted", "elasticity");
	for (size_t i = 0; i < CALIB_NKEYS; i++) {
		size_t k = calib_key(i);
		fprintf(report, "%-10s %14.6g %14.6g %12.3f%s\n", work_calib_key(k),
			*work_calib_field((struct work_calib *)before, k),
			*work_calib_field((struct work_calib *)&fit->calib, k), fit->elasticity[i],
			k == fit->key ? "  fitted" : "");
	}
	fprintf(report, "\niteration time  before %.6g s (%+.1f %%), fitted %.6g s (%+.1f %%)\n",
		fit->before_s, 100.0 * (fit->before_s - measured) / measured, fit->after_s,
		100.0 * (fit->after_s - measured) / measured);
	fprintf(report,
		"fit: %zu simulations; one measurement moves one constant, the one the time "
		"depends on most (elasticity = d ln T / d ln c)\n",
		fit->evaluations);
	if (fit->at_bound)
		fprintf(report,
			"note: %s stopped at %g, %s its committed value: the measurement is "
			"beyond what this constant explains\n",
			work_calib_key(fit->key), c1, ratio);
}

void report_calibrate_trace(FILE *report, const char *path, const char *trace_path,
			    const struct kineto_trace *t, const struct calibfit *f)
{
	fprintf(report, "Calibration of %s to profiler trace %s (%zu iteration%s on %s%s%s)\n\n",
		path, trace_path, t->niters, t->niters == 1 ? "" : "s", f->gpu,
		t->device[0] ? ", traced on " : "", t->device);
	fprintf(report, "%-10s %8s %14s %14s %14s %9s\n", "class", "kernels", "measured/iter",
		"catalog", "fitted", "fitted");
	double n = (double)t->niters;
	for (int k = 0; k < KINETO_CLASS_COUNT_; k++) {
		const struct calibfit_class *c = &f->cls[k];
		char m[32], b[32], a[32], e[32] = "";
		snprintf(m, sizeof m, "%.4g ms", 1e3 * c->measured_s);
		snprintf(b, sizeof b, "%.4g ms", 1e3 * c->before_s);
		snprintf(a, sizeof a, "%.4g ms", 1e3 * c->after_s);
		if (c->used)
			snprintf(e, sizeof e, "%+.1f %%",
				 100.0 * (c->after_s / c->measured_s - 1.0));
		bool pred = k != KINETO_NCCL && k != KINETO_UNKNOWN;
		fprintf(report, "%-10s %8.0f %14s %14s %14s %9s\n", kineto_class_name(k),
			(double)t->kernels[k] / n, m, pred ? b : "-", pred ? a : "-",
			c->used ? e : "not fitted");
	}
	if (t->nunknown) {
		fprintf(report,
			"\nunknown kernels (no class: not fitted, not guessed), largest first:\n");
		for (size_t i = 0; i < t->nunknown && i < 8; i++) {
			char nm[120];
			ts_escape_ctl(nm, sizeof nm, t->unknown[i].name,
				      strlen(t->unknown[i].name));
			fprintf(report, "  %6u x %10.4g ms  %.90s\n", t->unknown[i].count,
				1e3 * t->unknown[i].time_s, nm);
		}
		if (t->nunknown > 8)
			fprintf(report, "  ... and %zu more names\n", t->nunknown - 8);
	}
	if (t->ncolls) {
		double bytes = 0.0;
		size_t sized = 0;
		for (size_t i = 0; i < t->ncolls; i++)
			if (t->colls[i].in_bytes > 0.0) {
				bytes += t->colls[i].in_bytes;
				sized++;
			}
		fprintf(report,
			"\nNCCL: %zu kernels (%zu with sizes, %.4g MB), not fitted: a kernel's "
			"time includes waiting for the other ranks (trainsim calibrate "
			"--nccl-tests fits the links)\n",
			t->ncolls, sized, bytes / 1e6);
	}
}

void report_calibrate_fit(FILE *report, const struct calibfit *f, const char *what)
{
	fprintf(report, "\n%-11s %12s %12s %25s %11s  %s\n", "constant", "catalog", "fitted",
		"80 % band", "elasticity", "from");
	for (int q = 0; q < CALIBFIT_NPARAMS_; q++) {
		const struct calibfit_value *v = &f->v[q];
		char band[64] = "";
		if (v->fitted)
			snprintf(band, sizeof band, "%.4g - %.4g", v->p10, v->p90);
		fprintf(report, "%-11s %12.4g %12.4g %25s %11.3f  %s\n", calibfit_param_key(q),
			v->before, v->value, band, v->elasticity, v->fitted ? what : "catalog");
	}
	fprintf(report,
		"\nfit: residual %.2f %% rms over %zu measurements (catalog constants: "
		"%.2f %%), %zu simulations\n",
		100.0 * expm1(f->rms_after), f->rows, 100.0 * expm1(f->rms_before), f->evaluations);
}

void report_calibrate_trace_iteration(FILE *report, const struct calibfit *f)
{
	fprintf(report,
		"iteration: measured %.6g s (mean host step), catalog %.6g s (%+.1f %%), fitted "
		"%.6g s (%+.1f %%)\n",
		f->iter_measured_s, f->iter_before_s,
		100.0 * (f->iter_before_s / f->iter_measured_s - 1.0), f->iter_after_s,
		100.0 * (f->iter_after_s / f->iter_measured_s - 1.0));
}

void report_calibrate_runs(FILE *report, const char *csv_path, const char *gpu,
			   const struct report_calib_run *runs, size_t n)
{
	fprintf(report, "Calibration to %zu measured run%s of %s (%s)\n\n", n, n == 1 ? "" : "s",
		csv_path, gpu);
	fprintf(report, "%-60s %12s %12s %12s\n", "run", "measured", "catalog", "fitted");
	for (size_t i = 0; i < n; i++) {
		char lb[64];
		snprintf(lb, sizeof lb, "%.59s", runs[i].label);
		fprintf(report, "%-60s %12.6g %12.6g %12.6g  %s\n", lb, runs[i].measured,
			runs[i].catalog, runs[i].fitted, runs[i].metric);
	}
}
