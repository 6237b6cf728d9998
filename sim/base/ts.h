/* Basic scalar types of trainsim: simulated time and byte counts.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_TS_H
#define TS_BASE_TS_H

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
 * place model maths (double seconds) turns into simulated time. */
ts_time ts_time_from_s(double s);

/* Nanoseconds to seconds. */
static inline double ts_time_to_s(ts_time t) { return (double)t / TS_NS_PER_S; }

#define TS_KiB ((ts_bytes)1024)
#define TS_MiB (TS_KiB * 1024)
#define TS_GiB (TS_MiB * 1024)

#endif
