/* Units of a layer-list model: ops (op granularity) or blocks (layer and
 * stage granularity) of work_lnet_ops turned into dp_unit records.
 * SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <string.h>

#include "base/alloc.h"
#include "plan/lnet_units.h"
#include "work/lnet.h"

/* Full recompute of the block of ops [i0, i1) (more than one op) on the
 * units: the first unit of the block keeps the block's input, the unit of
 * the block's last op (u_last) reruns the block's forward and makes the
 * rest of its activations again. The input is shared with the tensor the op
 * before the block saves (an in-place ReLU's output) unless that op's block
 * was itself checkpointed (prev_dropped), when the input must be kept here.
 * Returns the forward FLOPs rerun, 0 when the block is left as it is. */
static double checkpoint_block(const struct work_lnet_op *ops, size_t i0, size_t i1,
			       bool prev_dropped, struct dp_unit *u_first, struct dp_unit *u_last,
			       bool per_op, struct dp_unit *u_ops)
{
	double saved = 0.0, fwd = 0.0, flops = 0.0;
	uint32_t kernels = 0;
	for (size_t i = i0; i < i1; i++) {
		saved += ops[i].c.op.saved_bytes;
		fwd += ops[i].c.fwd_s;
		flops += ops[i].c.op.fwd_flops;
		kernels += ops[i].c.op.kernels;
	}
	double first = ops[i0].c.op.saved_bytes;
	if (!(saved > first)) /* nothing to gain (ViT's patch embedding) */
		return 0.0;
	for (size_t i = i0; per_op && i < i1; i++) /* op units: only the first keeps */
		u_ops[i - i0].act_bytes = 0.0;
	u_first->act_bytes = first + (prev_dropped ? ops[i0].shared_in_bytes : 0.0);
	u_last->recompute_s = fwd;
	u_last->kernels_rec = kernels;
	u_last->recompute_bytes = saved - first;
	return flops;
}

int lnet_units_build(const struct ts_model *m, int64_t b, int64_t dp, enum ts_dtype d,
		     const struct hw_gpu_type *g, const struct work_calib *c,
		     enum dp_granularity gran, double grad_elem_bytes, enum work_recompute r,
		     struct dp_unit **out, uint32_t *n, double *rec_flops, struct ts_error *err)
{
	struct work_lnet_op *ops;
	size_t nops;
	*out = NULL;
	*n = 0;
	*rec_flops = 0.0;
	int rc = work_lnet_ops(m, b, dp, d, g, c, &ops, &nops, err);
	if (rc)
		return rc;
	struct dp_unit *u = nops ? ts_calloc(nops, sizeof *u) : NULL;
	if (nops && !u) {
		ts_free(ops, nops * sizeof *ops);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	uint32_t k = 0;
	for (size_t i = 0; i < nops; i++) {
		const struct work_op_cost *o = &ops[i].c;
		bool join = gran != DP_GRAN_OP && k > 0 && ops[i - 1].block == ops[i].block;
		struct dp_unit *x = join ? &u[k - 1] : &u[k++];
		if (!join) {
			x->label = gran == DP_GRAN_OP ? "op" : "block";
			x->act_cat = GRAPH_MEM_ACTIVATIONS;
			x->layer =
			    (uint16_t)(ops[i].block > UINT16_MAX ? UINT16_MAX : ops[i].block);
		}
		x->fwd_s += o->fwd_s;
		x->dgrad_s += o->dgrad_s;
		x->wgrad_s += o->wgrad_s;
		x->kernels_fwd += o->op.kernels;
		x->kernels_bwd += o->op.bwd_kernels;
		x->grad_bytes += o->op.params * grad_elem_bytes;
		x->params += o->op.params;
		x->act_bytes += o->op.saved_bytes;
		x->dp_gather_bytes += o->op.dp_gather_bytes;
		x->fwd_flops += o->op.fwd_flops;
		x->dgrad_flops += o->op.dgrad_flops;
		x->wgrad_flops += o->op.wgrad_flops;
	}
	if (r == WORK_RECOMPUTE_FULL) {
		/* blocks are runs of ops of one block index; unit of op i: i at
		 * op granularity, else one per block, in order */
		uint32_t ub = 0;
		bool dropped = false; /* the previous block was checkpointed */
		for (size_t i0 = 0; i0 < nops;) {
			size_t i1 = i0 + 1;
			while (i1 < nops && ops[i1].block == ops[i0].block)
				i1++;
			if (i1 - i0 > 1) {
				bool per_op = gran == DP_GRAN_OP;
				struct dp_unit *first = per_op ? &u[i0] : &u[ub];
				struct dp_unit *last = per_op ? &u[i1 - 1] : &u[ub];
				double rf = checkpoint_block(ops, i0, i1, dropped, first, last,
							     per_op, per_op ? &u[i0] : NULL);
				last->recompute_flops += rf;
				*rec_flops += rf;
				dropped = rf > 0.0;
			} else {
				dropped = false;
			}
			ub++;
			i0 = i1;
		}
	}
	ts_free(ops, nops * sizeof *ops);
	if (k < nops) {
		struct dp_unit *a = ts_realloc(u, nops * sizeof *u, k * sizeof *u);
		if (!a) {
			ts_free(u, nops * sizeof *u);
			return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
		}
		u = a;
	}
	*out = u;
	*n = k;
	return 0;
}
