/* Basic scalar types of trainsim: simulated time and byte counts.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_TS_H
#define TS_BASE_TS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Simulated time in integer nanoseconds. Never a float clock: results stay
 * bit-identical across machines and event order is exact. */
typedef int64_t ts_time;

/* A count of bytes (memory, message sizes). */
typedef int64_t ts_bytes;

#define TS_TIME_MAX INT64_MAX
#define TS_NS_PER_S 1000000000.0

/* Convert seconds to nanoseconds, rounding up (a task never finishes early)
 * and clamping to [0, TS_TIME_MAX]; NaN maps to TS_TIME_MAX. This is the one
 * place model maths (double seconds) turns into simulated time. Inline: the
 * event loop turns every activity's end into time. */
static inline ts_time ts_time_from_s(double s)
{
	if (isnan(s))
		return TS_TIME_MAX;
	if (s <= 0.0)
		return 0;
	double ns = s * TS_NS_PER_S;
	if (ns >= 9.2e18)
		return TS_TIME_MAX;
	/* ceil(ns): ns is in (0, 9.2e18), so the conversion truncates it
	 * exactly (from 2^53 on every double is an integer already) */
	ts_time t = (ts_time)ns;
	return (double)t < ns ? t + 1 : t;
}

/* now + dt for now, dt >= 0, with the same limit as ts_time_after. */
static inline bool ts_time_add(ts_time now, ts_time dt, ts_time *at)
{
	if (dt >= TS_TIME_MAX - now) {
		*at = TS_TIME_MAX;
		return false;
	}
	*at = now + dt;
	return true;
}

/* The time `s` seconds (rounded up) after `now` >= 0, into *at: false, and
 * *at = TS_TIME_MAX, when it lies at or past TS_TIME_MAX (about 292 years
 * of simulated time) or s is NaN or infinite; callers report that as
 * TS_ELIMIT. Never overflows. */
static inline bool ts_time_after(ts_time now, double s, ts_time *at)
{
	if (!isfinite(s) || s * TS_NS_PER_S >= 9.2e18) {
		*at = TS_TIME_MAX;
		return false;
	}
	return ts_time_add(now, ts_time_from_s(s), at);
}

/* Nanoseconds to seconds. */
static inline double ts_time_to_s(ts_time t)
{
	return (double)t / TS_NS_PER_S;
}

#define TS_KiB ((ts_bytes)1024)
#define TS_MiB (TS_KiB * 1024)
#define TS_GiB (TS_MiB * 1024)

#endif
