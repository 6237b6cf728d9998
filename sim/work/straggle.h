/* Stragglers as a mean slowdown of a synchronous step: the job computes at
 * the pace of its slowest GPU, and the slowest of n GPUs is slower the
 * larger n is.
 * SPDX-License-Identifier: MIT */
#ifndef TS_WORK_STRAGGLE_H
#define TS_WORK_STRAGGLE_H

#include <stdint.h>

/* Spread of the compute speed of GPUs of one SKU, as a fraction of the
 * median (the standard deviation of a normal). Source: Sinha et al.,
 * "Not All GPUs Are Created Equal: Characterizing Variability in
 * Large-Scale, Accelerator-Rich Systems", SC'22 (arXiv 2208.11035v3,
 * abstract): 8 % (max 22 %) average performance variation between GPUs of
 * the same SKU on Summit, Vortex, Frontera, Longhorn and Corona (over 90 %
 * of each cluster's GPUs, several thousand). Assumed reading: the 8 % is the
 * spread from the fastest to the slowest GPU of a cluster; a normal over
 * about 4,000 GPUs spans 2 x 3.6 = 7.2 standard deviations, so
 * sigma = 8 % / 7.2 = 1.1 %, taken as 1 %. Not fitted to any row. */
#define STRAGGLE_SIGMA 0.01

/* Expected maximum of n independent standard normal variables, E[max Z_i]
 * (0 for n = 1, 1/sqrt(pi) = 0.5642 for n = 2, about sqrt(2 ln n) for
 * large n), by Simpson's rule over [-12, 12] of x n phi(x) Phi(x)^(n-1).
 * n >= 1; returns 0 for n <= 1. Accurate to 1e-9 up to n = 1e7. */
double straggle_expected_max(uint64_t n);

/* Standard deviation of the maximum of n independent standard normal
 * variables (1 for n = 1, sqrt(1 - 1/pi) = 0.8256 for n = 2, about
 * 0.37 for n = 1,024), by the same quadrature as straggle_expected_max
 * (its second moment less the squared mean). n >= 1. */
double straggle_max_sd(uint64_t n);

/* One draw of the maximum of n independent standard normal variables from
 * one uniform u in (0, 1), exactly: the maximum's distribution function
 * Phi(x)^n inverted at u, so the draw costs the same for any n (a job's
 * 16,384 GPUs need no 16,384 draws). n >= 1 (0 is read as 1). */
double straggle_max_draw(double u, uint64_t n);

/* Fraction by which a synchronous job of n GPUs computes slower than its
 * median GPU: sigma x E[max of n standard normals]. With static per-GPU
 * speeds the slowest GPU paces the job in every layout: its tensor-parallel
 * group waits for it at every collective, its pipeline runs at its stage's
 * pace, and the data-parallel replicas wait for its gradients at the step.
 * sigma >= 0 (STRAGGLE_SIGMA); n >= 1; returns 0 for n <= 1 or sigma <= 0.
 * A mean slowdown: the distribution of step times is not modelled. */
double straggle_slowdown(uint64_t n, double sigma);

#endif
