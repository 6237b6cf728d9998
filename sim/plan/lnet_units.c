/* Units of a layer-list model: ops (op granularity) or blocks (layer and
 * stage granularity) of work_lnet_ops turned into dp_unit records.
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "base/alloc.h"
#include "plan/lnet_units.h"
#include "work/lnet.h"

int lnet_units_build(const struct ts_model *m, int64_t b, int64_t dp, enum ts_dtype d,
		     const struct hw_gpu_type *g, const struct work_calib *c,
		     enum dp_granularity gran, double grad_elem_bytes, struct dp_unit **out,
		     uint32_t *n, struct ts_error *err)
{
	struct work_lnet_op *ops;
	size_t nops;
	*out = NULL;
	*n = 0;
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
