/* The reported 80 % band of a result's headline figures: the simulation's
 * own spread combined with the model error that validation measured for the
 * run's regime (configs/calibration/bands.cfg, written by `trainsim validate
 * --bands`).
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_BAND_H
#define TS_RUN_BAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "run/result.h"
#include "plan/bandtab.h"

/* Combine one figure's spread s with a model error of err80 (80 % half-width,
 * log units) into its reported band: in log space with a normal
 * approximation, sigma^2 = sigma_spread^2 + sigma_model^2, sigma_spread =
 * (ln p90 - ln p10) / (2 BAND_Z), sigma_model = err80 / BAND_Z, centred on
 * the spread's p50 (no bias shift). A figure of 0 or below (not computed)
 * keeps its spread. */
struct ts_band band_combine(struct ts_band s, double err80);

/* out->band from out->spread: the time-like figures (iteration, time to
 * train, cost, GPU energy) and the throughput-like ones (samples, tokens,
 * TFLOP/s, MFU: the reciprocal band of time, which in log space is the same
 * width) with rg's err80 (none when rg is NULL), memory with mem_err80
 * (log units). Also sets out->band_regime ("none" without rg) and
 * out->band_time_error. */
void band_apply(struct ts_result *out, const struct band_regime *rg, double mem_err80);

/* Narrow out's time-like and throughput-like bands by what a calibration
 * from measurements taught: with sigma = err80 / BAND_Z of the regime,
 * and the calibration's rms error of ln(predicted / measured) before
 * (catalog constants) and after (fitted) the fit, the variance it
 * explained, before^2 - after^2, comes off the regime's,
 *   sigma'^2 = max(sigma^2 - (before^2 - after^2), after^2),
 * so the band never gets wider and never narrower than the fit's
 * residual (err80' >= BAND_Z x after). Sets band_time_error to err80' and
 * calib_band_before to err80; memory is untouched. */
void band_calibrated(struct ts_result *out, double before, double after);

/* Bound the fast end of out's time-like and throughput-like bands by what
 * the hardware can do: when the iteration band's p10 lies below floor_s
 * (the iteration's hardware FLOPs at the GPUs' whole dense peak), every
 * fast end moves by the same factor floor_s / p10 (the time-like p10s up,
 * the throughput-like p90s down), so no band shows an MFU above 100 % or
 * TFLOP/s above the peak; the slow ends and p50s are untouched. A floor
 * of 0 or less changes nothing. */
void band_cap_peak(struct ts_result *out, double floor_s);

/* The memory verdict of need bytes against capacity cap, with need's
 * memory band [p10, p90]: "does not fit" when need > cap; "tight" when
 * need fits but its band reaches capacity (cap <= p90: within the memory
 * model's error of it); else "fits". One rule: a result's `fits` is true
 * exactly when this is not "does not fit". Static string. */
const char *band_memory_verdict(struct ts_band mem, double need, double cap);

#endif
