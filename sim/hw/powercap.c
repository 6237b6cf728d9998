/* A GPU under a board power limit (sim/hw/powercap.h).
 *
 * The board power of compute-bound work is P/TDP = c + (1 - c) r v(r)^2
 * with v(r) = max(r, q): above the voltage floor q it grows as r^3, below
 * it as r q^2, and it is continuous and increasing in r, so a limit share
 * p in (c, 1] has exactly one clock ratio r in (0, 1]:
 *   d = (p - c)/(1 - c);  r = cbrt(d) when d >= q^3, else d / q^2.
 * SPDX-License-Identifier: MIT */
#include "hw/powercap.h"

#include <math.h>

#define C POWERCAP_FIXED_SHARE
#define Q POWERCAP_VOLTAGE_FLOOR

/* the clock ratio below which nothing is modelled (share <= c) */
#define RATIO_MIN 1e-3

double powercap_clock_ratio(double share)
{
	if (!(share < 1.0))
		return 1.0;
	double d = (share - C) / (1.0 - C);
	if (!(d > 0.0))
		return RATIO_MIN;
	double r = d >= Q * Q * Q ? cbrt(d) : d / (Q * Q);
	return fmax(RATIO_MIN, fmin(1.0, r));
}

double powercap_power_share(double r)
{
	double v = fmax(r, Q);
	return C + (1.0 - C) * r * v * v;
}

double powercap_min_w(const struct hw_gpu_type *g)
{
	return g->power_min_w > 0.0 ? g->power_min_w : POWERCAP_MIN_SHARE_DEFAULT * g->tdp_w;
}

double powercap_gpu(const struct hw_gpu_type *g, double limit_w, struct hw_gpu_type *out)
{
	*out = *g;
	if (!(limit_w > 0.0) || !(g->tdp_w > 0.0))
		return 1.0;
	double r = powercap_clock_ratio(limit_w / g->tdp_w);
	for (int d = 0; d < TS_DTYPE_COUNT_; d++)
		out->peak_flops[d] = g->peak_flops[d] * r;
	return r;
}
