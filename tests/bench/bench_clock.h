/* Clocks of the benchmarks: wall time, and the CPU time of the process
 * (every thread), the figure that does not depend on what else a shared
 * machine runs; peak resident memory.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BENCH_CLOCK_H
#define TS_BENCH_CLOCK_H

#include <sys/resource.h>
#include <time.h>

/* Monotonic wall clock, s. */
static inline double bench_wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds the process has used (user and system, every thread). */
static inline double bench_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Peak resident set of the process so far, MiB (ru_maxrss is KiB on Linux). */
static inline double bench_peak_rss_mib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return -1.0;
	return (double)ru.ru_maxrss / 1024.0;
}

/* Minor page faults of the process so far (each a page the kernel mapped,
 * and zero-filled when fresh): a count the machine's load does not change. */
static inline long bench_minflt(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_minflt;
}

#endif
