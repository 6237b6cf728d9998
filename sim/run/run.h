/* Simulate a scenario: plan the ranks, build the iteration's task graph,
 * play it on the event engine, and measure the result.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_RUN_H
#define TS_RUN_RUN_H

#include "base/err.h"
#include "io/scenario.h"
#include "io/trace.h"
#include "run/result.h"
#include "work/compute.h"

/* Simulate scenario `sc` with the efficiency constants `calib` and fill
 * `out` (every stable result key). When `trace` is not NULL, every task of
 * every simulated iteration is recorded on it (one track per stream).
 * A scenario that does not fit in memory is still simulated and reported
 * with fits = false. Returns 0, TS_EUNSUPPORTED for a setting not modelled
 * yet (the message names the key), TS_EINVALID for an inconsistent
 * scenario, or TS_ENOMEM, with `err` filled. Never prints. */
int ts_run(const struct ts_scenario *sc, const struct work_calib *calib, struct ts_result *out,
	   struct ts_trace *trace, struct ts_error *err);

#endif
