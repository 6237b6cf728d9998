/* Stragglers as a mean slowdown: the expected maximum of n standard normal
 * speeds, times the spread of a GPU SKU's speeds (sim/work/straggle.h).
 *
 * E[max of n] = integral of x n phi(x) Phi(x)^(n-1) dx, the density of the
 * maximum being n phi Phi^(n-1). Phi^(n-1) is taken as exp((n-1) log1p(-Q))
 * with Q the upper tail, so that it stays exact for large n where Phi is
 * within rounding of 1. The integrand is smooth and negligible beyond
 * |x| = 12 for n up to 1e7 (its peak sits near sqrt(2 ln n) = 5.7, width
 * about 1 / sqrt(2 ln n)), so Simpson's rule on a fixed grid of 4,800
 * intervals (step 0.005) is accurate to about 1e-9.
 * SPDX-License-Identifier: MIT */
#include "work/straggle.h"

#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#define GRID_HALF 12.0
#define GRID_N 4800u /* even */

/* x^k times the density of the maximum of n standard normals at x */
static double density_x(double x, double n, int k)
{
	double q = gsl_cdf_ugaussian_Q(x);
	double log_cdf_pow = (n - 1.0) * log1p(-q);
	return (k == 2 ? x * x : x) * n * gsl_ran_ugaussian_pdf(x) * exp(log_cdf_pow);
}

/* E[M^k] of the maximum M of n >= 1 standard normals, k = 1 or 2 */
static double moment(double dn, int k)
{
	double h = 2.0 * GRID_HALF / GRID_N;
	double sum = density_x(-GRID_HALF, dn, k) + density_x(GRID_HALF, dn, k);
	for (uint32_t i = 1; i < GRID_N; i++)
		sum += (i % 2 ? 4.0 : 2.0) * density_x(-GRID_HALF + h * i, dn, k);
	return sum * h / 3.0;
}

double straggle_expected_max(uint64_t n)
{
	if (n <= 1)
		return 0.0;
	return moment((double)n, 1);
}

double straggle_max_sd(uint64_t n)
{
	if (n <= 1)
		return 1.0;
	double m = moment((double)n, 1);
	return sqrt(fmax(0.0, moment((double)n, 2) - m * m));
}

double straggle_max_draw(double u, uint64_t n)
{
	if (n < 1)
		n = 1;
	/* P(M <= x) = Phi(x)^n = u: the upper tail Q(x) = 1 - u^(1/n), kept
	 * exact for large n through expm1 */
	double q = -expm1(log(u) / (double)n);
	return gsl_cdf_ugaussian_Qinv(q);
}

double straggle_slowdown(uint64_t n, double sigma)
{
	if (n <= 1 || !(sigma > 0.0))
		return 0.0;
	return sigma * straggle_expected_max(n);
}
