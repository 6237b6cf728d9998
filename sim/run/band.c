/* The reported 80 % band: the simulation's spread combined with the model
 * error measured in validation, per regime.
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
 *
 * Combination. Each figure's spread and the model error are combined in
 * log space as independent normals: sigma^2 = sigma_spread^2 +
 * sigma_model^2, sigma_model = err80 / z (z = 1.2816, so that a normal of
 * that sigma puts 80 % of its mass within +-err80), and the band is
 * p50 x exp(+-z sigma). The band is centred on the prediction, not shifted
 * by the regime's bias: the biases of the sources differ in sign (one
 * source runs slower than predicted, another faster), so a bias estimated
 * on the other sources moves a band the wrong way as often as the right
 * way, while err80 of |r| already widens the band by the bias it has seen.
 * The headline figure is never corrected.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "run/band.h"

struct ts_band band_combine(struct ts_band s, double err80)
{
	if (!(s.p10 > 0.0 && s.p50 > 0.0 && s.p90 > 0.0))
		return s;
	double sm = (log(s.p90) - log(s.p10)) / (2.0 * BAND_Z);
	double sd = err80 / BAND_Z;
	double w = BAND_Z * sqrt(sm * sm + sd * sd);
	return (struct ts_band){s.p50 * exp(-w), s.p50, s.p50 * exp(w)};
}

/* The band of every time-derived figure of out: its run-to-run spread
 * combined with the model error e (log units) */
static void band_time_figures(struct ts_result *out, double e)
{
	const struct ts_bands *s = &out->spread;
	struct ts_bands *b = &out->band;
	b->iteration_time_s = band_combine(s->iteration_time_s, e);
	b->samples_per_s = band_combine(s->samples_per_s, e);
	b->tokens_per_s = band_combine(s->tokens_per_s, e);
	b->tflops_per_gpu = band_combine(s->tflops_per_gpu, e);
	b->mfu = band_combine(s->mfu, e);
	b->time_to_train_s = band_combine(s->time_to_train_s, e);
	b->cost_usd = band_combine(s->cost_usd, e);
	b->gpu_energy_kwh = band_combine(s->gpu_energy_kwh, e);
}

void band_apply(struct ts_result *out, const struct band_regime *rg, double mem_err80)
{
	double e = rg ? rg->err80 : 0.0;
	band_time_figures(out, e);
	out->band.memory_per_gpu_bytes = band_combine(out->spread.memory_per_gpu_bytes, mem_err80);
	snprintf(out->band_regime, sizeof out->band_regime, "%s", rg ? rg->key : "none");
	out->band_time_error = e;
}

void band_calibrated(struct ts_result *out, double before, double after)
{
	double e = out->band_time_error;
	double sd = e / BAND_Z, taught = before * before - after * after;
	double v = sd * sd - (taught > 0.0 ? taught : 0.0);
	if (v < after * after)
		v = after * after;
	double e2 = BAND_Z * sqrt(v);
	if (e2 > e && e > 0.0)
		e2 = e;
	band_time_figures(out, e2);
	out->calib_band_before = e;
	out->band_time_error = e2;
}

void band_cap_peak(struct ts_result *out, double floor_s)
{
	struct ts_bands *b = &out->band;
	double lo = b->iteration_time_s.p10;
	if (!(floor_s > 0.0) || !(lo > 0.0) || lo >= floor_s)
		return;
	double q = floor_s / lo;
	b->iteration_time_s.p10 = floor_s;
	b->time_to_train_s.p10 *= q;
	b->cost_usd.p10 *= q;
	b->gpu_energy_kwh.p10 *= q;
	b->samples_per_s.p90 /= q;
	b->tokens_per_s.p90 /= q;
	b->tflops_per_gpu.p90 /= q;
	b->mfu.p90 /= q;
}

const char *band_memory_verdict(struct ts_band mem, double need, double cap)
{
	if (!(need <= cap))
		return "does not fit";
	return cap <= mem.p90 ? "tight" : "fits";
}
