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
 * grad_elem_bytes.
 *
 * Recompute r: WORK_RECOMPUTE_FULL checkpoints every block of more than one
 * op (a bottleneck, an encoder block; as torch.utils.checkpoint wraps each
 * block): the forward keeps only the block's input (the saved bytes of its
 * first op, which saves its input), and before the block's backward its
 * forward runs again (recompute_s, its kernels) and makes the rest of its
 * saved bytes again (recompute_bytes), held until the backward of the unit
 * that carries them ends. At op granularity the rerun sits on the block's
 * last op, the first whose backward runs; its backward frees the block's
 * activations, early for the block's other ops but at the same peak (the
 * whole block's activations as its backward starts). A block that saves
 * nothing beyond its input (one op; ViT's patch embedding and position add)
 * gains nothing and is not rerun. *rec_flops gets the
 * forward FLOPs rerun per micro-batch. WORK_RECOMPUTE_NONE keeps every
 * op's saved bytes; WORK_RECOMPUTE_SELECTIVE (the transformer's attention
 * recompute) is refused by the plan before this is called.
 *
 * Writes a new array *out of *n (free with ts_free(*out, *n * sizeof
 * **out)). Returns 0, TS_ENOMEM or the errors of work_lnet_ops. */
int lnet_units_build(const struct ts_model *m, int64_t b, int64_t dp, enum ts_dtype d,
		     const struct hw_gpu_type *g, const struct work_calib *c,
		     enum dp_granularity gran, double grad_elem_bytes, enum work_recompute r,
		     struct dp_unit **out, uint32_t *n, double *rec_flops, struct ts_error *err);

#endif
