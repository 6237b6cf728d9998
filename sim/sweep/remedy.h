/* What would fit: for a scenario that does not fit in GPU memory, the
 * smallest single changes (ZeRO stage, recomputation, micro-batch, TP, PP,
 * offload, more GPUs, a GPU with more memory) that make it fit, each
 * simulated, with the iteration time it costs.
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_REMEDY_H
#define TS_SWEEP_REMEDY_H

#include <stddef.h>

#include "base/err.h"
#include "plan/env.h"
#include "run/result.h"

/* Find the changes of the scenario loaded from `path` with sets[0..nsets)
 * (as the caller ran it, result `base`) that fit, and put the fastest
 * REMEDY_MAX of them, fastest first, into *out (owned by the caller) and
 * point base->remedies at it. Each kind of change is tried at its smallest step
 * that fits (ZeRO one stage up at a time, the micro-batch halved, TP and
 * PP doubled, nodes doubled, up to 8 times), and two together where no
 * single change fits (ZeRO-3 with full recomputation). A change the plan
 * refuses (an invalid layout) is skipped. Does nothing when base fits.
 * Each candidate is simulated at the default granularity in class mode.
 * Returns 0, or the error of loading the scenario (TS_ENOMEM and the
 * loader's); a candidate's own failure is no error. */
int remedy_find(const struct ts_env *env, const char *path, const char *const *sets, size_t nsets,
		struct ts_result *base, struct ts_remedies *out, struct ts_error *err);

#endif
