/* The units of one micro-batch of a layer-list model (family "layers") for
 * the data-parallel schedule: one per op, or one per block of the list.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PLAN_LNET_UNITS_H
#define TS_PLAN_LNET_UNITS_H

#include <stdint.h>

#include "par/unit.h"
#include "work/compute.h"
#include "work/model.h"

/* Units of model m (family "layers") for micro-batch b at precision d on
 * GPU g with constants c, in forward order: each op of work_lnet_ops at op
 * granularity (dp: the data-parallel ranks a contrastive loss gathers
 * over), the ops of one block summed at layer and stage granularity
 * (the schedule builder merges them at stage). Gradient bytes are params x
 * grad_elem_bytes. Writes a new array *out of *n (free with
 * ts_free(*out, *n * sizeof **out)). Returns 0, TS_ENOMEM or the errors of
 * work_lnet_ops. */
int lnet_units_build(const struct ts_model *m, int64_t b, int64_t dp, enum ts_dtype d,
		     const struct hw_gpu_type *g, const struct work_calib *c,
		     enum dp_granularity gran, double grad_elem_bytes, struct dp_unit **out,
		     uint32_t *n, struct ts_error *err);

#endif
