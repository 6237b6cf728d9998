/* Simulating a scenario end to end.
 *
 * plan: the DP group and the rank classes; the framework's conventions
 * (dtypes, bytes per parameter, buckets, overlap, reserve); per-op costs on
 * the cluster's GPU, memoised once per (model, shape, GPU) by
 * work_costs_compute. build: the units of one micro-batch (ops, layers, or
 * the whole model cut at bucket milestones) into the data-parallel task
 * graph. simulate: the graph on the event engine, collectives on the
 * cluster's links. measure: iteration time between optimizer steps after
 * the warm-up, the critical-path breakdown of the compute stream of rank
 * class 0 (all DP ranks are alike), the memory peak of its pool, FLOPs, MFU
 * and the whole run.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "net/coll.h"
#include "net/net.h"
#include "par/dp.h"
#include "par/graph.h"
#include "par/layout.h"
#include "par/pipe.h"
#include "data/loader.h"
#include "run/lnet_units.h"
#include "run/cost.h"
#include "run/run.h"
#include "work/memory.h"
#include "work/ops.h"

/* Most micro-batches per iteration and rank (gradient accumulation steps). */
#define RUN_MAX_ACCUM (1 << 16)

struct plan {
	const struct ts_scenario *sc;
	const struct hw_gpu_type *gpu;
	enum ts_dtype dtype;
	struct work_fw_conventions conv;
	struct work_shape shape;
	enum work_recompute rc;
	struct work_costs costs;
	uint32_t dp, accum;
	double params;
	const struct work_calib *calib;
};

/* Fail naming where scenario key `key` was set ("file:line", or the --set
 * argument), so messages of the plan point at the scenario like those of
 * the loader do. */
static int plan_fail(const struct ts_scenario *sc, struct ts_error *err, int code, const char *key,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int plan_fail(const struct ts_scenario *sc, struct ts_error *err, int code, const char *key,
		     const char *fmt, ...)
{
	char msg[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ts_scenario_error(sc, err, code, key, "%s", msg);
}

static int make_plan(const struct ts_scenario *sc, const struct work_calib *calib, struct plan *p,
		     struct ts_error *err)
{
	const struct ts_parallel *par = &sc->parallel;
	memset(p, 0, sizeof *p);
	p->sc = sc;
	if ((par->cp > 1 || par->ep > 1) && sc->model.family == TS_FAMILY_LAYERS)
		return plan_fail(sc, err, TS_EUNSUPPORTED,
				 par->cp > 1 ? "parallel.cp" : "parallel.ep",
				 "found %u, but context and expert parallelism are modelled for "
				 "transformers only; expected 1",
				 par->cp > 1 ? par->cp : par->ep);
	if (par->offload != TS_OFFLOAD_NONE && par->zero < 1)
		return plan_fail(sc, err, TS_EINVALID, "parallel.offload",
				 "found \"%s\" with parallel.zero = %d, expected zero >= 1 "
				 "(DeepSpeed ZeRO-Offload, ZeRO-Infinity and FSDP offload move "
				 "sharded state)",
				 ts_offload_name(par->offload), par->zero);
	if (par->offload == TS_OFFLOAD_NVME && par->zero != 3)
		return plan_fail(sc, err, TS_EINVALID, "parallel.offload",
				 "found \"nvme\" with parallel.zero = %d, expected zero = 3 "
				 "(DeepSpeed: \"NVMe offloading is available only with ZeRO "
				 "stage 3\", config-json, offload_optimizer)",
				 par->zero);
	if (par->tp_comm_overlap && par->tp > 1 && !par->sp)
		return plan_fail(sc, err, TS_EINVALID, "parallel.tp_comm_overlap",
				 "found true with parallel.sp = false, expected sp = true "
				 "(Megatron-Core overlaps the sequence-parallel all-gather and "
				 "reduce-scatter with the GEMMs)");
	if (par->zero != 0 && sc->model.family == TS_FAMILY_LAYERS)
		return plan_fail(sc, err, TS_EUNSUPPORTED, "parallel.zero",
				 "found %d for a layer-list model, but ZeRO is modelled for "
				 "transformers only; expected 0",
				 par->zero);
	if ((par->tp > 1 || par->pp > 1) && sc->model.family == TS_FAMILY_LAYERS)
		return plan_fail(sc, err, TS_EUNSUPPORTED,
				 par->tp > 1 ? "parallel.tp" : "parallel.pp",
				 "found %u, but tensor and pipeline parallelism are modelled for "
				 "transformers only; expected 1",
				 par->tp > 1 ? par->tp : par->pp);
	if (par->schedule == TS_SCHED_INTERLEAVED && par->interleave > 1 &&
	    sc->model.layers % ((int64_t)par->pp * par->interleave) != 0)
		return plan_fail(sc, err, TS_EINVALID, "parallel.interleave",
				 "found %u virtual stages per GPU for %lld layers on %u stages, "
				 "expected the layers to be a multiple of pp x interleave = %u "
				 "(Megatron-LM's interleaved schedule takes the same whole layers "
				 "per virtual stage)",
				 par->interleave, (long long)sc->model.layers, par->pp,
				 par->pp * par->interleave);
	p->gpu = hw_cluster_gpu_type(sc->cluster);
	int prec = sc->training.precision;
	if (prec == TS_UNSET)
		prec = p->gpu->peak_flops[TS_BF16] > 0.0 ? TS_BF16 : TS_FP16;
	p->dtype = (enum ts_dtype)prec;
	if (!(p->gpu->peak_flops[p->dtype] > 0.0))
		return plan_fail(sc, err, TS_EINVALID, "training.precision",
				 "found %s, but %s has no %s tensor cores; expected one of "
				 "the GPU's precisions",
				 ts_dtype_name(p->dtype), p->gpu->name, ts_dtype_name(p->dtype));
	if (work_fw_conventions(sc->training.framework, p->dtype, &p->conv))
		return plan_fail(
		    sc, err, TS_EINVALID, "training.framework",
		    "found %s with %s, expected a framework/precision pair it supports",
		    work_framework_name(sc->training.framework), ts_dtype_name(p->dtype));
	p->dp = par->dp;
	int64_t per_step = sc->training.micro_batch * (int64_t)p->dp;
	int64_t accum = sc->training.global_batch / per_step;
	if (accum < 1)
		return plan_fail(sc, err, TS_EINVALID, "training.global_batch",
				 "found %lld, expected at least micro_batch x dp = %lld",
				 (long long)sc->training.global_batch, (long long)per_step);
	if (accum > RUN_MAX_ACCUM)
		return plan_fail(sc, err, TS_ELIMIT, "training.global_batch",
				 "found %lld = %lld micro-batches of micro_batch x dp = %lld, "
				 "expected at most %d micro-batches per iteration",
				 (long long)sc->training.global_batch, (long long)accum,
				 (long long)per_step, RUN_MAX_ACCUM);
	p->accum = (uint32_t)accum;
	p->rc = sc->training.recompute;
	p->shape = (struct work_shape){
	    .micro_batch = sc->training.micro_batch,
	    .seq_len = sc->training.seq_len,
	    .tp = par->tp,
	    .cp = par->cp,
	    .ep = par->ep,
	    .sp = par->sp && par->tp > 1,
	    .dtype = p->dtype,
	    .flash = sc->training.flash_attention && p->dtype != TS_FP32 && p->dtype != TS_TF32,
	    .causal = sc->model.family != TS_FAMILY_BERT,
	};
	p->calib = calib;
	int rc = sc->model.family == TS_FAMILY_LAYERS
		     ? 0 /* layer lists: run_lnet_units */
		     : work_costs_compute(&sc->model, &p->shape, p->gpu, calib, &p->costs, err);
	if (rc && err && !err->file[0] && err->key[0] && strncmp(err->key, "parallel.", 9) == 0) {
		/* a degree the model cannot take (ep on a dense model): say
		 * where the scenario set it */
		char key[sizeof err->key], msg[sizeof err->msg];
		snprintf(key, sizeof key, "%s", err->key);
		snprintf(msg, sizeof msg, "%s", err->msg);
		return plan_fail(sc, err, rc, key, "%s", msg);
	}
	if (rc)
		return rc;
	p->params = ts_model_params(&sc->model);
	return 0;
}

/* The units of one micro-batch in forward order. */
static int make_units(const struct plan *p, enum dp_granularity gran, struct dp_unit **out,
		      uint32_t *n)
{
	const struct work_costs *c = &p->costs;
	const struct ts_model *m = &p->sc->model;
	double gb = ts_dtype_bytes(p->conv.reduce_dtype);
	uint32_t L = (uint32_t)m->layers;
	size_t cnt = gran == DP_GRAN_OP ? c->nembed_ops + L * c->nops + c->nhead_ops : L + 2u;
	struct dp_unit *u = ts_calloc(cnt, sizeof *u);
	if (!u)
		return TS_ENOMEM;
	size_t k = 0;
	if (gran == DP_GRAN_OP) {
		for (size_t i = 0; i < c->nembed_ops; i++, k++) {
			const struct work_op_cost *o = &c->embed_ops[i];
			u[k] = (struct dp_unit){.label = "embed",
						.fwd_s = o->fwd_s,
						.dgrad_s = o->dgrad_s,
						.wgrad_s = o->wgrad_s,
						.kernels_fwd = o->op.kernels,
						.kernels_bwd = o->op.bwd_kernels,
						.grad_bytes = o->op.params * gb,
						.act_bytes = o->op.saved_bytes,
						.act_cat = GRAPH_MEM_ACTIVATIONS,
						.layer = 0};
		}
		for (uint32_t l = 0; l < L; l++)
			for (size_t i = 0; i < c->nops; i++, k++) {
				const struct work_op_cost *o = &c->ops[i];
				double act = o->op.saved_bytes, rs = 0.0;
				if (p->rc == WORK_RECOMPUTE_FULL) {
					act = i == 0 ? c->layer_input_bytes : 0.0;
					rs = o->fwd_s;
				} else if (p->rc == WORK_RECOMPUTE_SELECTIVE &&
					   o->op.selective_bytes > 0.0) {
					act -= o->op.selective_bytes;
					rs = o->fwd_s;
				}
				u[k] = (struct dp_unit){.label = o->op.name,
							.fwd_s = o->fwd_s,
							.dgrad_s = o->dgrad_s,
							.wgrad_s = o->wgrad_s,
							.recompute_s = rs,
							.kernels_fwd = o->op.kernels,
							.kernels_bwd = o->op.bwd_kernels,
							.grad_bytes = o->op.params * gb,
							.act_bytes = act,
							.act_cat = GRAPH_MEM_ACTIVATIONS,
							.layer = (uint16_t)(l + 1)};
			}
		for (size_t i = 0; i < c->nhead_ops; i++, k++) {
			const struct work_op_cost *o = &c->head_ops[i];
			u[k] = (struct dp_unit){.label = o->op.name,
						.fwd_s = o->fwd_s,
						.dgrad_s = o->dgrad_s,
						.wgrad_s = o->wgrad_s,
						.kernels_fwd = o->op.kernels,
						.kernels_bwd = o->op.bwd_kernels,
						.grad_bytes = o->op.params * gb,
						.act_bytes = o->op.saved_bytes,
						.act_cat = GRAPH_MEM_LOGITS,
						.layer = (uint16_t)(L + 1)};
		}
	} else {
		u[k++] = (struct dp_unit){.label = "embed",
					  .fwd_s = c->embed_fwd_s,
					  .dgrad_s = 0.0,
					  .wgrad_s = c->embed_bwd_s,
					  .kernels_fwd = c->embed_kernels_fwd,
					  .kernels_bwd = c->embed_kernels_bwd,
					  .grad_bytes = c->embed_params * gb,
					  .act_bytes = c->embed_saved_bytes,
					  .act_cat = GRAPH_MEM_ACTIVATIONS,
					  .layer = 0};
		for (uint32_t l = 0; l < L; l++)
			u[k++] = (struct dp_unit){.label = "layer",
						  .fwd_s = c->layer_fwd_s,
						  .dgrad_s = c->layer_dgrad_s,
						  .wgrad_s = c->layer_wgrad_s,
						  .recompute_s = c->layer_recompute_s[p->rc],
						  .kernels_fwd = c->layer_kernels_fwd,
						  .kernels_bwd = c->layer_kernels_bwd,
						  .grad_bytes = c->layer_params * gb,
						  .act_bytes = c->layer_act_bytes[p->rc],
						  .act_cat = GRAPH_MEM_ACTIVATIONS,
						  .layer = (uint16_t)(l + 1)};
		u[k++] = (struct dp_unit){.label = "head",
					  .fwd_s = c->head_fwd_s,
					  .dgrad_s = c->head_dgrad_s,
					  .wgrad_s = c->head_wgrad_s,
					  .kernels_fwd = c->head_kernels_fwd,
					  .kernels_bwd = c->head_kernels_bwd,
					  .grad_bytes = c->head_params * gb,
					  .act_bytes = c->head_saved_bytes,
					  .act_cat = GRAPH_MEM_LOGITS,
					  .layer = (uint16_t)(L + 1)};
	}
	/* weights per unit, and Megatron-LM's tensor-parallel collectives
	 * (Shoeybi et al. 2019, §3, Fig. 3): per layer g (all-reduce) after the
	 * attention output projection and after fc2 in forward, f after the
	 * input gradients of qkv and fc1 in backward; the vocab-parallel
	 * embedding all-reduces its output, the head's input gradient is
	 * all-reduced */
	/* context parallelism: the attention runs beside the ring of K, V
	 * blocks; MoE: dispatch and combine all-to-alls after the router and
	 * the second expert GEMM in forward, their gradients after the expert
	 * GEMMs' backward (work_costs.layer_a2a_fwd, layer_a2a_bwd: 2 and 2) */
	double attn_f = 0.0, attn_b = 0.0;
	for (size_t i = 0; i < c->nops; i++)
		if (c->ops[i].op.kind == WORK_ATTN_FLASH || c->ops[i].op.kind == WORK_ATTN_CORE) {
			attn_f += c->ops[i].fwd_s;
			attn_b += c->ops[i].dgrad_s + c->ops[i].wgrad_s;
		}
	bool moe = c->layer_a2a_fwd > 0;
	for (size_t i = 0; i < k; i++) {
		struct dp_unit *x = &u[i];
		if (x->layer >= 1 && x->layer <= L && c->layer_cp_steps > 0) {
			bool at = gran != DP_GRAN_OP || !strcmp(x->label, "attn");
			x->ring_fwd_s = at ? (gran == DP_GRAN_OP ? x->fwd_s : attn_f) : 0.0;
			x->ring_bwd_s = at ? (gran == DP_GRAN_OP ? x->dgrad_s : attn_b) : 0.0;
		}
		if (x->layer >= 1 && x->layer <= L && moe) {
			if (gran != DP_GRAN_OP) {
				x->a2a_fwd = (uint8_t)c->layer_a2a_fwd;
				x->a2a_bwd = (uint8_t)c->layer_a2a_bwd;
			} else {
				x->a2a_fwd =
				    !strcmp(x->label, "router") || !strcmp(x->label, "expert_fc2");
				x->a2a_bwd = !strcmp(x->label, "expert_fc1") ||
					     !strcmp(x->label, "expert_fc2");
			}
		}
		x->params = gb > 0.0 ? x->grad_bytes / gb : 0.0;
		if (x->layer >= 1 && x->layer <= L) {
			if (gran != DP_GRAN_OP) {
				x->tp_fwd = x->tp_bwd = 2;
			} else {
				x->tp_fwd = !strcmp(x->label, "proj") || !strcmp(x->label, "fc2");
				x->tp_bwd = !strcmp(x->label, "qkv") || !strcmp(x->label, "fc1");
			}
		} else if (x->layer == 0 && (i + 1 == k || u[i + 1].layer != 0)) {
			x->tp_fwd = 1;
		} else if (x->layer == L + 1 && i > 0 && u[i - 1].layer != L + 1) {
			x->tp_bwd = 1;
		}
	}
	*out = u;
	*n = (uint32_t)k;
	return 0;
}

static double secs(ts_time t, double per)
{
	return ts_time_to_s(t) / per;
}

/* Tracing: every task of every simulated iteration on a track per stream
 * of rank class 0, and every transfer on a track per busy link (or link
 * class), recorded through the fluid observer as activities end. */
struct tracer {
	struct ts_trace *tr;
	struct ts_fluid *f;
	const struct ts_net *net;
	const struct ts_graph *g;
	uint32_t links_proc;
	uint32_t *track; /* per fluid resource: trace track, or UNSEEN / NOT_LINK */
	size_t captrack;
	ts_time *start; /* per activity id: when it started using resources */
	size_t capstart;
	int rc;
};

#define UNSEEN UINT32_MAX
#define NOT_LINK (UINT32_MAX - 1)

static void tr_start(void *ud, uint32_t act, uint32_t tag, ts_time t)
{
	(void)tag;
	struct tracer *x = ud;
	size_t old = x->capstart;
	if (ts_grow((void **)&x->start, &x->capstart, (size_t)act + 1, sizeof *x->start)) {
		x->rc = TS_ENOMEM;
		return;
	}
	(void)old;
	x->start[act] = t;
}

static void tr_end(void *ud, uint32_t act, uint32_t tag, ts_time t)
{
	struct tracer *x = ud;
	if (x->rc || act >= x->capstart)
		return;
	uint32_t n = fluid_activity_nuses(x->f, act);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = fluid_activity_res(x->f, act, i);
		size_t old = x->captrack;
		if (ts_grow((void **)&x->track, &x->captrack, (size_t)r + 1, sizeof *x->track)) {
			x->rc = TS_ENOMEM;
			return;
		}
		for (size_t k = old; k < x->captrack; k++)
			x->track[k] = UNSEEN;
		if (x->track[r] == UNSEEN) {
			char name[200];
			x->track[r] = NOT_LINK;
			if (net_res_name(x->net, r, name, sizeof name) &&
			    trace_track(x->tr, x->links_proc, name, &x->track[r]))
				x->track[r] = NOT_LINK;
		}
		if (x->track[r] == NOT_LINK)
			continue;
		const char *label =
		    tag < graph_ntasks(x->g) ? graph_rec(x->g, tag)->label : "transfer";
		trace_span(x->tr, x->track[r], label, x->start[act], t, "link");
	}
}

static void trace_tasks(struct ts_trace *tr, const struct ts_graph *g)
{
	uint32_t ns = graph_nstreams(g);
	uint32_t proc, tracks[64];
	if (trace_process(tr, "rank class 0", &proc))
		return;
	for (uint32_t s = 0; s < ns && s < 64; s++)
		trace_track(tr, proc, graph_stream_name(g, s), &tracks[s]);
	static const char *const cats[GRAPH_KIND_COUNT_] = {
	    "compute", "recompute", "optimizer", "comm", "p2p", "data", "host", "mark"};
	for (uint32_t t = 0; t < graph_ntasks(g); t++) {
		const struct graph_rec *r = graph_rec(g, t);
		if (r->stream == GRAPH_NONE || r->stream >= 64 || r->kind == GRAPH_MARK)
			continue;
		trace_span(tr, tracks[r->stream], r->label, r->start, r->end, cats[r->kind]);
	}
}

static void bottleneck(struct ts_result *r)
{
	double T = r->iteration_time_s;
	if (!r->fits) {
		snprintf(r->bottleneck, sizeof r->bottleneck,
			 "memory: needs %.1f GiB of %.1f GiB per GPU",
			 r->memory_per_gpu_bytes / 1073741824.0,
			 r->memory_capacity_bytes / 1073741824.0);
		return;
	}
	struct {
		const char *what;
		double s;
	} parts[] = {
	    {"compute (forward and backward kernels)", r->compute_s + r->recompute_s},
	    {"exposed communication (gradient reduction not hidden by backward)",
	     r->exposed_comm_s},
	    {"pipeline bubble", r->bubble_s},
	    {"data loading", r->data_stall_s},
	    {"optimizer step", r->optimizer_s},
	    {"host (kernel launches) and other waits", r->other_s},
	};
	size_t best = 0;
	for (size_t i = 1; i < sizeof parts / sizeof parts[0]; i++)
		if (parts[i].s > parts[best].s)
			best = i;
	snprintf(r->bottleneck, sizeof r->bottleneck, "%s: %.0f%% of the iteration",
		 parts[best].what, T > 0.0 ? 100.0 * parts[best].s / T : 0.0);
}

/* What an iteration is measured by: the span of the measured iterations,
 * the breakdown of the measured stream over it (both over `per`
 * iterations) and the measured pool's split at its peak, bytes. */
struct meas {
	ts_time span;
	struct graph_breakdown bd;
	double per;
	double at[GRAPH_MEM_COUNT_];
};

/* The extension of a steady state: the measurement r1 of the same scenario
 * simulated with m1 micro-batches per iteration, and the micro-batches m
 * the scenario really has (ts_run). */
struct extrap {
	struct meas r1;
	uint32_t m1, m;
};

/* The value at ex->m on the line through (m1, x1) and (m2, x2), in whole
 * nanoseconds (rounded to the nearest; exact when the line goes through
 * whole nanoseconds, as the schedule's does), at least 0. In integers so
 * that an exact line gives the whole run's figures to the last bit. */
static ts_time ext_ns(ts_time x1, ts_time x2, const struct extrap *ex, uint32_t m2)
{
	int64_t k = (int64_t)m2 - ex->m1;
	int64_t num = x1 * ((int64_t)m2 - ex->m) + x2 * ((int64_t)ex->m - ex->m1);
	if (num <= 0)
		return 0;
	return (num + k / 2) / k;
}

/* offload = "nvme": read and write bandwidth of a node's drives, those of
 * data.storage (default local-nvme) in configs/hardware/storage.cfg, all
 * its devices. Returns 0, or TS_EINVALID naming data.storage when that is
 * not a local storage with a write bandwidth. */
static int nvme_drives(const struct ts_scenario *sc, double *rd, double *wr, struct ts_error *err)
{
	const char *root = hw_catalog_root(hw_cluster_catalog(sc->cluster));
	const char *name = sc->data.storage[0] ? sc->data.storage : "local-nvme";
	struct data_catalog *cat = NULL;
	int rc = data_catalog_load(root ? root : ".", &cat, err);
	if (rc)
		return rc;
	const struct data_storage *st = data_catalog_find_storage(cat, name);
	if (st && st->kind == DATA_STORAGE_LOCAL && st->write_Bps > 0.0) {
		*rd = st->read_Bps * st->devices;
		*wr = st->write_Bps * st->devices;
	} else {
		rc = plan_fail(sc, err, TS_EINVALID, "data.storage",
			       "found \"%s\" with parallel.offload = \"nvme\", expected a "
			       "node-local drive with a write bandwidth to hold the optimizer "
			       "state (local-nvme, local-nvme-gen3, local-nvme-gen5, "
			       "local-nvme-raid8)",
			       name);
	}
	data_catalog_destroy(cat);
	return rc;
}

/* Simulate sc with `accum` micro-batches per iteration (0: as the global
 * batch gives). With ex, this run has m2 = accum micro-batches and its
 * per-iteration times and memory are carried to ex->m along the line
 * through ex->r1's and its own before anything is derived from them.
 * keep (may be NULL) receives this run's own measurement. */
static int run_at(const struct ts_scenario *sc, const struct work_calib *calib, uint32_t accum,
		  const struct extrap *ex, struct meas *keep, struct ts_result *out,
		  struct ts_trace *trace, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	struct plan *p = ts_calloc(1, sizeof *p);
	if (!p)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	int rc = make_plan(sc, calib, p, err);
	/* the micro-batches the results speak for, against those simulated */
	double batch_share = 1.0;
	if (!rc && accum) {
		batch_share = (double)(ex ? ex->m : accum) / (double)p->accum;
		p->accum = accum;
	}
	struct ts_evq *q = NULL;
	struct ts_fluid *f = NULL;
	struct ts_net *net = NULL;
	struct ts_coll *cc = NULL;
	struct ts_graph *g = NULL;
	struct dp_unit *units = NULL;
	uint32_t nunits = 0, *ranks = NULL;
	struct dp_built built = {0};
	struct pipe_built pbuilt = {0};
	struct layout lay;
	uint32_t *node_stage = NULL;
	struct data_loader *ld = NULL;
	if (rc)
		goto out;
	enum dp_granularity gran = sc->sim.granularity == TS_GRAN_OP	  ? DP_GRAN_OP
				   : sc->sim.granularity == TS_GRAN_STAGE ? DP_GRAN_STAGE
									  : DP_GRAN_LAYER;
	if (sc->model.family == TS_FAMILY_LAYERS &&
	    (rc = run_lnet_units(&sc->model, sc->training.micro_batch, p->dtype, p->gpu, calib,
				 gran, ts_dtype_bytes(p->conv.reduce_dtype), &units, &nunits, err)))
		goto out;
	rc = TS_ENOMEM;
	if ((!units && make_units(p, gran, &units, &nunits)) ||
	    !(ranks = ts_calloc(p->dp, sizeof *ranks)))
		goto nomem;
	for (uint32_t i = 0; i < p->dp; i++)
		ranks[i] = i;
	bool class_mode = sc->sim.mode == TS_MODE_CLASS;
	const struct ts_parallel *par = &sc->parallel;
	bool mp = par->tp > 1 || par->pp > 1 || par->zero > 0 || par->cp > 1 || par->ep > 1;
	uint32_t gpn = hw_cluster_gpus_per_node(sc->cluster);
	uint32_t nnodes = hw_cluster_nodes(sc->cluster);
	if (mp && (rc = layout_init(&lay, par->tp, par->cp, par->dp, par->pp, NULL, gpn, class_mode,
				    err)))
		goto out;
	/* nodes that hold different pipeline stages carry different traffic:
	 * class mode keeps their links in separate classes */
	node_stage = mp ? ts_calloc(nnodes, sizeof *node_stage) : NULL;
	if (mp && !node_stage)
		goto nomem;
	for (uint32_t nd = 0; mp && nd < nnodes; nd++)
		node_stage[nd] = layout_class_stage(&lay, layout_class_of(&lay, nd * gpn));
	if (evq_create(&q, 4096) || fluid_create(&f, q) ||
	    net_create_grouped(&net, sc->cluster, f, class_mode ? NET_CLASS : NET_FULL,
			       node_stage) ||
	    coll_create(&cc, net) || graph_create(&g, f, cc))
		goto nomem;
	if ((rc = data_loader_create(sc, net, f, p->dp, class_mode, &ld, err)))
		goto out;
	struct work_static st;
	rc = work_static_bytes(&p->conv, p->params, 0, p->dp, &st, err);
	if (rc)
		goto out;
	double bucket = sc->parallel.bucket_bytes == TS_UNSET ? p->conv.bucket_bytes
							      : (double)sc->parallel.bucket_bytes;
	double first = sc->parallel.bucket_bytes == TS_UNSET ? p->conv.first_bucket_bytes : 0.0;
	bool overlap = sc->parallel.overlap_grad_reduce == TS_UNSET
			   ? p->conv.overlap_grad_reduce
			   : sc->parallel.overlap_grad_reduce != 0;
	struct dp_job job = {
	    .units = units,
	    .nunits = nunits,
	    .gran = gran,
	    .accum = p->accum,
	    .iterations = (uint32_t)sc->training.iterations,
	    .bucket_bytes = bucket,
	    .first_bucket_bytes = first,
	    .overlap = overlap,
	    .optimizer_s =
		work_optimizer_time(p->gpu, calib, p->params, p->conv.optim_bytes_touched),
	    .optimizer_kernels = 1u + (uint32_t)(sc->model.layers * (int64_t)p->costs.nops / 48),
	    .launch_s = calib->launch_s,
	    .ranks = ranks,
	    .dp = p->dp,
	    .class_mode = class_mode,
	    .coll_mult = (p->dp + gpn - 1) / gpn,
	    .weights_bytes = st.weight_bytes,
	    .grads_bytes = st.grad_bytes,
	    .optimizer_bytes = st.optim_bytes,
	    .data = data_loader_job(ld),
	};
	if (mp) {
		/* tensor, pipeline or sharded data parallelism: the model-parallel
		 * schedule over the rank classes of the placement */
		double ab = work_act_bytes(p->dtype), nv_rd = 0.0, nv_wr = 0.0;
		if (par->offload == TS_OFFLOAD_NVME && (rc = nvme_drives(sc, &nv_rd, &nv_wr, err)))
			goto out;
		struct pipe_job pj = {
		    .units = units,
		    .nunits = nunits,
		    .gran = gran,
		    .sched = par->schedule == TS_SCHED_GPIPE	     ? PIPE_GPIPE
			     : par->schedule == TS_SCHED_INTERLEAVED ? PIPE_INTERLEAVED
								     : PIPE_1F1B,
		    .interleave = par->interleave,
		    .m = p->accum,
		    .iterations = (uint32_t)sc->training.iterations,
		    .lay = &lay,
		    .tp_bytes = (double)sc->training.micro_batch * (double)sc->training.seq_len /
				(double)par->cp * (double)sc->model.hidden * ab,
		    .cp_fwd_bytes = p->costs.layer_cp_kv_bytes,
		    .cp_bwd_bytes = p->costs.layer_cp_bwd_bytes,
		    .ep = par->ep,
		    .a2a_bytes = p->costs.layer_a2a_bytes,
		    .offload = par->offload != TS_OFFLOAD_NONE,
		    .net = net,
		    .cpu_adam_params_per_s = PIPE_CPU_ADAM_PARAMS_PER_S_NODE / (double)gpn,
		    .nvme = par->offload == TS_OFFLOAD_NVME,
		    .nvme_read_Bps = nv_rd,
		    .nvme_write_Bps = nv_wr,
		    .nvme_subgroup_params = PIPE_NVME_SUBGROUP_PARAMS,
		    .sp = par->sp,
		    .zero = par->zero,
		    .tp_overlap = par->tp_comm_overlap,
		    .comm_slowdown = calib->comm_compute_slowdown,
		    .bucket_bytes = bucket,
		    .overlap = overlap,
		    .weight_bpp = p->conv.weight_bytes,
		    .grad_bpp = p->conv.grad_bytes,
		    .optim_bpp = p->conv.optim_bytes,
		    .reduce_bpp = ts_dtype_bytes(p->conv.reduce_dtype),
		    .optimizer_s_per_param =
			work_optimizer_time(p->gpu, calib, 1.0, p->conv.optim_bytes_touched),
		    .optimizer_kernels = job.optimizer_kernels,
		    .launch_s = calib->launch_s,
		};
		rc = pipe_build(g, f, &pj, &pbuilt, err);
	} else {
		rc = dp_build(g, f, &job, &built, err);
	}
	if (rc)
		goto out;
	struct tracer tx = {.tr = trace, .f = f, .net = net, .g = g};
	if (trace) {
		struct fluid_observer obs = {.on_start = tr_start, .on_end = tr_end, .ud = &tx};
		if (trace_process(trace, "links", &tx.links_proc))
			goto nomem;
		fluid_set_observer(f, &obs);
	}
	rc = graph_run(g, err);
	fluid_set_observer(f, NULL);
	ts_free(tx.track, tx.captrack * sizeof *tx.track);
	ts_free(tx.start, tx.capstart * sizeof *tx.start);
	if (!rc && tx.rc)
		rc = ts_error_set(err, tx.rc, NULL, 0, NULL, "out of memory while tracing");
	if (rc)
		goto out;

	/* --- measure */
	uint32_t ni = mp ? pbuilt.niter : built.niter;
	const uint32_t *iter_end = mp ? pbuilt.iter_end : built.iter_end;
	uint32_t meas_stream = built.compute_stream, meas_pool = built.pool;
	if (mp) {
		/* the breakdown of the class whose step ends last, the memory of
		 * the fullest class */
		uint32_t lastk = 0, fullk = 0;
		for (uint32_t k = 1; k < pbuilt.nclasses; k++) {
			if (graph_rec(g, pbuilt.opt[k])->end > graph_rec(g, pbuilt.opt[lastk])->end)
				lastk = k;
			if (graph_pool_peak(g, pbuilt.pool[k], NULL) >
			    graph_pool_peak(g, pbuilt.pool[fullk], NULL))
				fullk = k;
		}
		meas_stream = pbuilt.compute[lastk];
		meas_pool = pbuilt.pool[fullk];
	}
	ts_time t_first = graph_rec(g, iter_end[0])->end;
	ts_time t_last = graph_rec(g, iter_end[ni - 1])->end;
	ts_time w0 = ni >= 2 ? t_first : 0, w1 = t_last;
	struct meas ms = {.per = ni >= 2 ? (double)(ni - 1) : 1.0, .span = w1 - w0};
	graph_breakdown(g, meas_stream, w0, w1, &ms.bd);
	double peak_bytes = graph_pool_peak(g, meas_pool, ms.at);
	if (keep)
		*keep = ms;
	if (ex) {
		/* every part of the iteration, and every kind of memory at the
		 * peak, on the line through the two simulated batch sizes */
		const struct meas *a = &ex->r1;
		uint32_t m2 = p->accum;
		ms.span = ext_ns(a->span, ms.span, ex, m2);
		for (int k = 0; k < GRAPH_KIND_COUNT_; k++) {
			ms.bd.busy[k] = ext_ns(a->bd.busy[k], ms.bd.busy[k], ex, m2);
			ms.bd.wait[k] = ext_ns(a->bd.wait[k], ms.bd.wait[k], ex, m2);
		}
		double w = ((double)ex->m - (double)ex->m1) / ((double)m2 - (double)ex->m1);
		peak_bytes = 0.0;
		for (int k = 0; k < GRAPH_MEM_COUNT_; k++) {
			ms.at[k] = a->at[k] == ms.at[k]
				       ? a->at[k]
				       : fmax(0.0, a->at[k] + (ms.at[k] - a->at[k]) * w);
			peak_bytes += ms.at[k];
		}
	}
	const struct ts_training *tr = &sc->training;
	double per = ms.per;
	snprintf(out->name, sizeof out->name, "%s", sc->name);
	out->gpus = sc->gpus;
	out->iteration_time_s = secs(ms.span, per);
	out->compute_s = secs(ms.bd.busy[GRAPH_COMPUTE], per);
	out->recompute_s = secs(ms.bd.busy[GRAPH_RECOMPUTE], per);
	/* the step, and waits for its parts off the GPU (NVMe offload's swap) */
	out->optimizer_s = secs(ms.bd.busy[GRAPH_OPTIMIZER] + ms.bd.wait[GRAPH_OPTIMIZER], per);
	out->exposed_comm_s = secs(ms.bd.wait[GRAPH_COMM], per);
	out->bubble_s = secs(ms.bd.wait[GRAPH_P2P], per);
	out->data_stall_s = secs(ms.bd.wait[GRAPH_DATA], per);
	out->mem.weights = ms.at[GRAPH_MEM_WEIGHTS];
	out->mem.gradients = ms.at[GRAPH_MEM_GRADIENTS];
	out->mem.optimizer = ms.at[GRAPH_MEM_OPTIMIZER];
	out->mem.activations = ms.at[GRAPH_MEM_ACTIVATIONS];
	out->mem.logits = ms.at[GRAPH_MEM_LOGITS];
	out->mem.buffers = ms.at[GRAPH_MEM_BUFFERS];
	double T = out->iteration_time_s;
	double tokens = (double)tr->global_batch * (double)tr->seq_len * batch_share;
	out->samples_per_s = (double)tr->global_batch * batch_share / T;
	out->tokens_per_s = tokens / T;
	out->model_flops_per_iteration =
	    work_model_flops_per_token(&sc->model, tr->seq_len) * tokens;
	/* the FLOPs the recompute mode reruns (work_costs.layer_recompute_flops,
	 * per rank and micro-batch) over every layer and micro-batch of the job */
	double recompute_flops = p->costs.layer_recompute_flops[p->rc] * (double)sc->model.layers *
				 tokens / ((double)tr->micro_batch * (double)tr->seq_len) *
				 (double)p->shape.tp * (double)(p->shape.cp > 1 ? p->shape.cp : 1);
	out->hardware_flops_per_iteration = out->model_flops_per_iteration + recompute_flops;
	double peak = p->gpu->peak_flops[TS_BF16] > 0.0 ? p->gpu->peak_flops[TS_BF16]
							: p->gpu->peak_flops[TS_FP16];
	out->tflops_per_gpu = out->model_flops_per_iteration / T / sc->gpus / 1e12;
	out->mfu = out->model_flops_per_iteration / (T * sc->gpus * peak);
	out->hfu = out->hardware_flops_per_iteration / (T * sc->gpus * peak);
	out->other_s = T - (out->compute_s + out->recompute_s + out->exposed_comm_s +
			    out->bubble_s + out->data_stall_s + out->optimizer_s);
	/* below the engine's 1 ns resolution it is the rounding of the sum
	 * (-5.6e-17 s), not a part of the iteration */
	if (fabs(out->other_s) < 1e-9)
		out->other_s = 0.0;
	double cap = p->gpu->mem_bytes;
	out->mem.reserve = work_reserve_bytes(&p->conv, cap);
	out->memory_per_gpu_bytes = peak_bytes + out->mem.reserve;
	out->memory_capacity_bytes = cap;
	out->fits = out->memory_per_gpu_bytes <= cap;
	/* whole run */
	double steps = 0.0;
	switch (tr->run_unit) {
	case TS_RUN_TOKENS:
		steps = ceil(tr->run_length / tokens);
		break;
	case TS_RUN_SAMPLES:
		steps = ceil(tr->run_length / (double)tr->global_batch);
		break;
	case TS_RUN_STEPS:
		steps = tr->run_length;
		break;
	case TS_RUN_EPOCHS: {
		/* passes over the dataset (data.dataset); a token dataset counts
		 * tokens, packed into sequences of seq_len */
		const struct data_dataset *ds = &data_loader_plan(ld)->dataset;
		double per_epoch = ds->per_token ? ds->samples / (double)tr->seq_len : ds->samples;
		steps = ceil(tr->run_length * per_epoch / (double)tr->global_batch);
		break;
	}
	default:
		break;
	}
	out->steps = steps;
	/* a checkpoint holds the weights and the optimizer state (not gradients) */
	double ckpt_bytes = p->params * (p->conv.weight_bytes + p->conv.optim_bytes);
	struct cost_ckpt ckw;
	if ((rc = cost_check_power(sc, p->gpu, err)) ||
	    (rc = cost_checkpoint(sc, ckpt_bytes, &ckw, err)))
		goto out;
	cost_whole_run(sc, p->gpu, ckpt_bytes, ckw.each_s, out);
	bottleneck(out);
	if (data_loader_bound(out->data_stall_s, T)) { /* say which stage, and the fix */
		double busy[DATA_STAGE_COUNT_];
		/* over the whole run: the loader may have run ahead of the window */
		data_loader_busy(ld, g, built.data_streams, 0, w1, busy);
		data_loader_explain(ld, busy, out->data_stall_s, T, out->bottleneck,
				    sizeof out->bottleneck);
	}
	ts_scenario_not_modelled(sc, out->not_modelled, sizeof out->not_modelled);
	if (trace)
		trace_tasks(trace, g);
	rc = 0;
	goto out;
nomem:
	rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
out:
	dp_built_free(&built);
	pipe_built_free(&pbuilt);
	data_loader_destroy(ld);
	graph_destroy(g);
	coll_destroy(cc);
	net_destroy(net);
	fluid_destroy(f);
	evq_destroy(q);
	ts_free(ranks, p->dp * sizeof *ranks);
	ts_free(node_stage, hw_cluster_nodes(sc->cluster) * sizeof *node_stage);
	ts_free(units, nunits * sizeof *units);
	ts_free(p, sizeof *p);
	return rc;
}

/* Shortest iterations simulated for an extension: the first has at least
 * RUN_EXTRAP_M1 micro-batches and two pipeline fills, the second at least
 * RUN_EXTRAP_DM and one fill more; both are multiples of the stage count
 * (interleaved 1F1B needs it). Chosen so that 1F1B has reached its steady
 * state (after p - 1 warm-up forwards) in both; tests/check_extrap.c
 * compares extensions against whole iterations. */
#define RUN_EXTRAP_M1 8u
#define RUN_EXTRAP_DM 4u

bool ts_run_extends(const struct ts_scenario *sc, uint32_t *m1, uint32_t *m2, uint32_t *m)
{
	const struct ts_training *tr = &sc->training;
	const struct ts_parallel *par = &sc->parallel;
	uint32_t u = par->pp > 0 ? par->pp : 1u;
	int64_t per_step = tr->micro_batch * (int64_t)par->dp;
	int64_t all = per_step > 0 ? tr->global_batch / per_step : 0;
	uint32_t a = u * (u >= RUN_EXTRAP_M1 / 2 ? 2u : (RUN_EXTRAP_M1 + u - 1) / u);
	uint32_t b = a + u * (u >= RUN_EXTRAP_DM ? 1u : (RUN_EXTRAP_DM + u - 1) / u);
	*m1 = a;
	*m2 = b;
	*m = all > 0 && all <= RUN_MAX_ACCUM ? (uint32_t)all : 0;
	/* a batch the plan refuses, or micro-batches interleaving cannot
	 * take, get their message from the whole run */
	return sc->sim.extrapolate && all >= (int64_t)a + b && all <= RUN_MAX_ACCUM &&
	       !(par->schedule == TS_SCHED_INTERLEAVED && all % u);
}

int ts_run(const struct ts_scenario *sc, const struct work_calib *calib, struct ts_result *out,
	   struct ts_trace *trace, struct ts_error *err)
{
	uint32_t m1, m2, m;
	/* a trace shows every micro-batch */
	if (trace || !ts_run_extends(sc, &m1, &m2, &m))
		return run_at(sc, calib, 0, NULL, NULL, out, trace, err);
	struct extrap ex = {.m1 = m1, .m = m};
	int rc = run_at(sc, calib, m1, NULL, &ex.r1, out, NULL, err);
	if (rc) {
		memset(out, 0, sizeof *out);
		return rc;
	}
	return run_at(sc, calib, m2, &ex, NULL, out, NULL, err);
}
