/* Simulating a plan end to end.
 *
 * The plan (sim/plan/plan.h) holds the checked scenario, the framework's
 * conventions, the units of one micro-batch and what the input pipeline
 * reads. create: the engine, the cluster's network, the task graph and the
 * input pipeline. schedule: the units of every micro-batch into the task
 * graph of sim/par/pipe.h (pure data parallelism is its one-stage case),
 * the loader's tasks in it. play: the graph on the event engine, collectives on the
 * cluster's links. measure: iteration time between optimizer steps after
 * the warm-up, the critical-path breakdown of the compute stream of the
 * class that ends last, the memory peak of the fullest pool. results:
 * FLOPs, MFU, memory, and the whole run (steps, checkpoints, failures,
 * energy, cost). Nothing here opens a file.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "net/coll.h"
#include "net/net.h"
#include "par/graph.h"
#include "par/layout.h"
#include "par/pipe.h"
#include "data/loader.h"
#include "plan/plan.h"
#include "run/cost.h"
#include "run/run.h"
#include "run/timeline.h"
#include "work/memory.h"
#include "work/ops.h"

static double secs(ts_time t, double per)
{
	return ts_time_to_s(t) / per;
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

/* One simulation of the plan's job with `accum` micro-batches per
 * iteration: the engine, the cluster's network, the task graph, the input
 * pipeline and the schedule built on them. */
struct sim {
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_net *net;
	struct ts_coll *cc;
	struct ts_graph *g;
	struct data_loader *ld;
	struct layout lay;	  /* the placement */
	uint32_t *node_stage;	  /* per node, the stage of its class */
	uint32_t nnodes;	  /* entries of node_stage */
	struct pipe_built pbuilt; /* the schedule */
};

static void sim_destroy(struct sim *s)
{
	pipe_built_free(&s->pbuilt);
	data_loader_destroy(s->ld);
	graph_destroy(s->g);
	coll_destroy(s->cc);
	net_destroy(s->net);
	fluid_destroy(s->f);
	evq_destroy(s->q);
	ts_free(s->node_stage, s->nnodes * sizeof *s->node_stage);
}

/* The input pipeline of every schedule: the classes of the first pipeline
 * stage load, each GPU 1/(tp x cp) of a micro-batch (its tensor- and
 * context-parallel group takes one micro-batch together; with pure data
 * parallelism every GPU loads whole micro-batches); in class mode their
 * node resources weigh nodes / (nodes holding first-stage GPUs), as only
 * those nodes load. */
static int sim_loader(const struct ts_plan *p, struct sim *s, struct ts_error *err)
{
	const struct ts_scenario *sc = p->sc;
	const struct ts_parallel *par = &sc->parallel;
	uint32_t gpn = hw_cluster_gpus_per_node(sc->cluster);
	uint32_t n = s->lay.nclasses;
	struct data_feed *fd = ts_calloc(n, sizeof *fd);
	if (!fd)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	uint32_t loading = 0;
	for (uint32_t nd = 0; nd < s->nnodes; nd++)
		for (uint32_t i = 0; i < gpn; i++)
			if (layout_class_stage(&s->lay, layout_class_of(&s->lay, nd * gpn + i)) ==
			    0) {
				loading++;
				break;
			}
	double nw = p->class_mode && loading ? (double)s->nnodes / (double)loading : 1.0;
	for (uint32_t k = 0; k < n; k++)
		fd[k] = (struct data_feed){.gpu0 = layout_class_rep(&s->lay, k),
					   .ngpus = 1,
					   .share = layout_class_stage(&s->lay, k) == 0
							? 1.0 / ((double)par->tp * (double)par->cp)
							: 0.0,
					   .node_weight = nw};
	int rc = data_loader_create(sc, &p->input, s->net, s->f, fd, n, p->class_mode, &s->ld, err);
	ts_free(fd, n * sizeof *fd);
	return rc;
}

/* The engine, the network (links of nodes that hold different pipeline
 * stages in separate classes), the graph and the input pipeline. */
static int sim_create(const struct ts_plan *p, struct sim *s, struct ts_error *err)
{
	const struct ts_scenario *sc = p->sc;
	const struct ts_parallel *par = &sc->parallel;
	int rc;
	uint32_t gpn = hw_cluster_gpus_per_node(sc->cluster);
	s->nnodes = hw_cluster_nodes(sc->cluster);
	if ((rc = layout_init(&s->lay, par->tp, par->cp, par->dp, par->pp, NULL, gpn, p->class_mode,
			      err)))
		return rc;
	if (!(s->node_stage = ts_calloc(s->nnodes, sizeof *s->node_stage)))
		goto nomem;
	for (uint32_t nd = 0; nd < s->nnodes; nd++)
		s->node_stage[nd] = layout_class_stage(&s->lay, layout_class_of(&s->lay, nd * gpn));
	if (evq_create(&s->q, 4096) || fluid_create(&s->f, s->q) ||
	    net_create_grouped(&s->net, sc->cluster, s->f, p->class_mode ? NET_CLASS : NET_FULL,
			       s->node_stage) ||
	    coll_create(&s->cc, s->net) || graph_create(&s->g, s->f, s->cc))
		goto nomem;
	return sim_loader(p, s, err);
nomem:
	return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
}

/* The schedule of `accum` micro-batches per iteration on s's graph. */
static int sim_schedule(const struct ts_plan *p, uint32_t accum, struct sim *s,
			struct ts_error *err)
{
	const struct ts_scenario *sc = p->sc;
	const struct ts_parallel *par = &sc->parallel;
	uint32_t gpn = hw_cluster_gpus_per_node(sc->cluster);
	struct pipe_job pj = {
	    .units = p->units,
	    .nunits = p->nunits,
	    .gran = p->gran,
	    .sched = par->schedule == TS_SCHED_GPIPE	     ? PIPE_GPIPE
		     : par->schedule == TS_SCHED_INTERLEAVED ? PIPE_INTERLEAVED
							     : PIPE_1F1B,
	    .interleave = par->interleave,
	    .chunk_layers = sc->model.family == TS_FAMILY_LAYERS ? NULL : p->chunk_layers,
	    .m = accum,
	    .iterations = (uint32_t)sc->training.iterations,
	    .lay = &s->lay,
	    .tp_bytes = (double)sc->training.micro_batch * (double)sc->training.seq_len /
			(double)par->cp * (double)sc->model.hidden * work_act_bytes(p->dtype),
	    .cp_fwd_bytes = p->costs.layer_cp_kv_bytes,
	    .cp_bwd_bytes = p->costs.layer_cp_bwd_bytes,
	    .ep = par->ep,
	    .a2a_bytes = p->costs.layer_a2a_bytes,
	    .offload = par->offload != TS_OFFLOAD_NONE,
	    .net = s->net,
	    .cpu_adam_params_per_s = PIPE_CPU_ADAM_PARAMS_PER_S_NODE / (double)gpn,
	    .nvme = par->offload == TS_OFFLOAD_NVME,
	    .nvme_read_Bps = p->nvme_read_Bps,
	    .nvme_write_Bps = p->nvme_write_Bps,
	    .nvme_subgroup_params = PIPE_NVME_SUBGROUP_PARAMS,
	    .sp = par->sp,
	    .zero = par->zero,
	    .tp_overlap = par->tp_comm_overlap,
	    .comm_slowdown = p->calib->comm_compute_slowdown,
	    .bucket_bytes = p->bucket_bytes,
	    .first_bucket_bytes = p->first_bucket_bytes,
	    .overlap = p->overlap,
	    .weight_bpp = p->conv.weight_bytes,
	    .grad_bpp = p->conv.grad_bytes,
	    .optim_bpp = p->conv.optim_bytes,
	    .reduce_bpp = ts_dtype_bytes(p->conv.reduce_dtype),
	    .optimizer_s_per_param = p->optimizer_s_per_param,
	    .optimizer_kernels = p->optimizer_kernels,
	    .launch_s = p->calib->launch_s,
	    .data = data_loader_job(s->ld),
	};
	return pipe_build(s->g, s->f, &pj, &s->pbuilt, err);
}

/* Play the graph. With trace, its timeline (sim/run/timeline.h) is
 * written as it plays, with the utilisation of the links in links[0..nlinks)
 * (the graph kept its details: sim_create_traced). */
static int sim_play(struct sim *s, struct ts_trace *trace, const uint32_t *links, uint32_t nlinks,
		    struct ts_error *err)
{
	struct timeline *tl = NULL;
	if (trace) {
		struct timeline_src src = {.tr = trace,
					   .g = s->g,
					   .f = s->f,
					   .net = s->net,
					   .lay = &s->lay,
					   .pb = &s->pbuilt,
					   .links = links,
					   .nlinks = nlinks};
		int rc = timeline_begin(&src, &tl);
		if (rc) {
			timeline_end(tl);
			return ts_error_set(err, rc, NULL, 0, NULL, "%s while tracing",
					    rc == TS_EIO ? "writing the trace failed"
							 : "out of memory");
		}
	}
	int rc = graph_run(s->g, err);
	int trc = timeline_end(tl);
	if (!rc && trc)
		rc = ts_error_set(err, trc, NULL, 0, NULL, "%s while tracing",
				  trc == TS_EIO ? "writing the trace failed" : "out of memory");
	return rc;
}

/* Measure the played graph: the span of the iterations after the warm-up,
 * the breakdown of the compute stream of the class whose step ends last,
 * the memory of the fullest class (*peak bytes, split in ms->at). *w1
 * receives the end of the window. */
static void sim_measure(const struct sim *s, struct meas *ms, double *peak, ts_time *w1)
{
	const struct ts_graph *g = s->g;
	const struct pipe_built *pb = &s->pbuilt;
	uint32_t ni = pb->niter;
	const uint32_t *iter_end = pb->iter_end;
	uint32_t lastk = 0, fullk = 0;
	for (uint32_t k = 1; k < pb->nclasses; k++) {
		if (graph_rec(g, pb->opt[k])->end > graph_rec(g, pb->opt[lastk])->end)
			lastk = k;
		if (graph_pool_peak(g, pb->pool[k], NULL) >
		    graph_pool_peak(g, pb->pool[fullk], NULL))
			fullk = k;
	}
	uint32_t meas_stream = pb->compute[lastk], meas_pool = pb->pool[fullk];
	ts_time t_first = graph_rec(g, iter_end[0])->end;
	ts_time t_last = graph_rec(g, iter_end[ni - 1])->end;
	ts_time w0 = ni >= 2 ? t_first : 0;
	*w1 = t_last;
	*ms = (struct meas){.per = ni >= 2 ? (double)(ni - 1) : 1.0, .span = t_last - w0};
	graph_breakdown(g, meas_stream, w0, t_last, &ms->bd);
	*peak = graph_pool_peak(g, meas_pool, ms->at);
}

/* Carry measurement ms of m2 micro-batches to ex->m along the line through
 * ex->r1's and its own: every part of the iteration and every kind of
 * memory at the peak. */
static void extend(const struct extrap *ex, uint32_t m2, struct meas *ms, double *peak)
{
	const struct meas *a = &ex->r1;
	ms->span = ext_ns(a->span, ms->span, ex, m2);
	for (int k = 0; k < GRAPH_KIND_COUNT_; k++) {
		ms->bd.busy[k] = ext_ns(a->bd.busy[k], ms->bd.busy[k], ex, m2);
		ms->bd.wait[k] = ext_ns(a->bd.wait[k], ms->bd.wait[k], ex, m2);
	}
	double w = ((double)ex->m - (double)ex->m1) / ((double)m2 - (double)ex->m1);
	*peak = 0.0;
	for (int k = 0; k < GRAPH_MEM_COUNT_; k++) {
		ms->at[k] = a->at[k] == ms->at[k]
				? a->at[k]
				: fmax(0.0, a->at[k] + (ms->at[k] - a->at[k]) * w);
		*peak += ms->at[k];
	}
}

/* The per-iteration results of measurement ms, whose micro-batches stand
 * for batch_share of the scenario's, with peak_bytes at the memory peak:
 * times, throughput, FLOPs, memory. */
static void iteration_results(const struct ts_plan *p, const struct meas *ms, double peak_bytes,
			      double batch_share, struct ts_result *out)
{
	const struct ts_scenario *sc = p->sc;
	const struct ts_training *tr = &sc->training;
	double per = ms->per;
	snprintf(out->name, sizeof out->name, "%s", sc->name);
	out->gpus = sc->gpus;
	out->iteration_time_s = secs(ms->span, per);
	out->compute_s = secs(ms->bd.busy[GRAPH_COMPUTE], per);
	out->recompute_s = secs(ms->bd.busy[GRAPH_RECOMPUTE], per);
	/* the step, and waits for its parts off the GPU (NVMe offload's swap) */
	out->optimizer_s = secs(ms->bd.busy[GRAPH_OPTIMIZER] + ms->bd.wait[GRAPH_OPTIMIZER], per);
	out->exposed_comm_s = secs(ms->bd.wait[GRAPH_COMM], per);
	out->bubble_s = secs(ms->bd.wait[GRAPH_P2P], per);
	out->data_stall_s = secs(ms->bd.wait[GRAPH_DATA], per);
	out->mem.weights = ms->at[GRAPH_MEM_WEIGHTS];
	out->mem.gradients = ms->at[GRAPH_MEM_GRADIENTS];
	out->mem.optimizer = ms->at[GRAPH_MEM_OPTIMIZER];
	out->mem.activations = ms->at[GRAPH_MEM_ACTIVATIONS];
	out->mem.logits = ms->at[GRAPH_MEM_LOGITS];
	out->mem.buffers = ms->at[GRAPH_MEM_BUFFERS];
	double T = out->iteration_time_s;
	double tokens = (double)tr->global_batch * (double)tr->seq_len * batch_share;
	out->samples_per_s = (double)tr->global_batch * batch_share / T;
	out->tokens_per_s = tokens / T;
	out->model_flops_per_iteration =
	    work_model_flops_per_token(&sc->model, tr->seq_len) * tokens;
	/* the FLOPs the recompute mode reruns (work_costs.layer_recompute_flops,
	 * per rank and micro-batch) over every layer and micro-batch of the job */
	double recompute_flops = p->costs.layer_recompute_flops[p->recompute] *
				 (double)sc->model.layers * tokens /
				 ((double)tr->micro_batch * (double)tr->seq_len) *
				 (double)p->shape.tp * (double)(p->shape.cp > 1 ? p->shape.cp : 1);
	/* layer lists: the checkpointed blocks' forward, per micro-batch of a rank */
	recompute_flops += p->recompute_flops_mb * (double)tr->global_batch * batch_share /
			   (double)tr->micro_batch;
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
}

/* The whole run: steps from the run length, checkpoints, failures, energy
 * and cost (sim/run/cost.h). */
static void run_results(const struct ts_plan *p, double batch_share, struct ts_result *out)
{
	const struct ts_scenario *sc = p->sc;
	const struct ts_training *tr = &sc->training;
	double steps = 0.0, per_step = plan_units_per_step(p, batch_share);
	if (tr->run_unit != TS_RUN_NONE) {
		steps =
		    tr->run_unit == TS_RUN_STEPS ? tr->run_length : ceil(tr->run_length / per_step);
	}
	out->steps = steps;
	struct cost_ckpt ckw;
	cost_checkpoint(sc, p->ckpt_storage_set ? &p->ckpt_storage : NULL, p->ckpt_bytes, &ckw);
	cost_whole_run(sc, p->gpu, p->ckpt_bytes, ckw.each_s, out);
}

/* Simulate plan p with `accum` micro-batches per iteration (0: as the
 * global batch gives). With ex, this run has m2 = accum micro-batches and its
 * per-iteration times and memory are carried to ex->m along the line
 * through ex->r1's and its own before anything is derived from them.
 * keep (may be NULL) receives this run's own measurement. */
static int run_at(const struct ts_plan *p, uint32_t accum, const struct extrap *ex,
		  struct meas *keep, struct ts_result *out, struct ts_trace *trace,
		  struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	/* the micro-batches the results speak for, against those simulated */
	double batch_share = 1.0;
	if (accum)
		batch_share = (double)(ex ? ex->m : accum) / (double)p->accum;
	else
		accum = p->accum;
	struct sim s = {0};
	struct meas ms;
	double peak;
	ts_time w1;
	int rc;
	uint32_t links[TIMELINE_MAX_LINKS], nlinks = 0;
	if (trace) {
		/* the busiest links are known once the run is over: a first,
		 * untraced run of the same schedule finds them */
		if (!(rc = sim_create(p, &s, err)) && !(rc = sim_schedule(p, accum, &s, err)) &&
		    !(rc = sim_play(&s, NULL, NULL, 0, err)))
			nlinks = timeline_busiest_links(s.f, s.net, links, TIMELINE_MAX_LINKS);
		sim_destroy(&s);
		memset(&s, 0, sizeof s);
		if (rc)
			return rc;
	}
	if ((rc = sim_create(p, &s, err)) || (trace && (rc = graph_keep_detail(s.g))) ||
	    (rc = sim_schedule(p, accum, &s, err)) ||
	    (rc = sim_play(&s, trace, links, nlinks, err)))
		goto out;
	sim_measure(&s, &ms, &peak, &w1);
	if (keep)
		*keep = ms;
	if (ex)
		extend(ex, accum, &ms, &peak);
	iteration_results(p, &ms, peak, batch_share, out);
	run_results(p, batch_share, out);
	bottleneck(out);
	double T = out->iteration_time_s;
	if (data_loader_bound(out->data_stall_s, T)) { /* say which stage, and the fix */
		double busy[DATA_STAGE_COUNT_];
		/* over the whole run: the loader may have run ahead of the window */
		data_loader_busy(s.ld, s.g, s.pbuilt.data_streams, 0, w1, busy);
		data_loader_explain(s.ld, busy, out->data_stall_s, T, out->bottleneck,
				    sizeof out->bottleneck);
	}
	ts_scenario_not_modelled(p->sc, out->not_modelled, sizeof out->not_modelled);
out:
	sim_destroy(&s);
	return rc;
}

bool ts_run_extends(const struct ts_scenario *sc, uint32_t *m1, uint32_t *m2, uint32_t *m)
{
	return plan_extends(sc, m1, m2, m);
}

int run_plan(const struct ts_plan *p, struct ts_result *out, struct ts_trace *trace,
	     struct ts_error *err)
{
	uint32_t m1, m2, m;
	/* a trace shows every micro-batch: a larger graph than plan_build checked */
	int rc0 = trace ? plan_check_size(p, true, err) : 0;
	if (rc0) {
		memset(out, 0, sizeof *out);
		return rc0;
	}
	if (trace || !ts_run_extends(p->sc, &m1, &m2, &m))
		return run_at(p, 0, NULL, NULL, out, trace, err);
	struct extrap ex = {.m1 = m1, .m = m};
	int rc = run_at(p, m1, NULL, &ex.r1, out, NULL, err);
	if (rc) {
		memset(out, 0, sizeof *out);
		return rc;
	}
	return run_at(p, m2, &ex, NULL, out, NULL, err);
}

int ts_run(const struct ts_scenario *sc, const struct work_calib *calib, struct ts_result *out,
	   struct ts_trace *trace, struct ts_error *err)
{
	struct ts_env env;
	struct ts_plan *p = NULL;
	memset(out, 0, sizeof *out);
	int rc = env_wrap(hw_cluster_catalog(sc->cluster), calib, &env, err);
	if (!rc && !(rc = plan_build(&env, sc, &p, err)))
		rc = run_plan(p, out, trace, err);
	plan_destroy(p);
	env_release(&env);
	return rc;
}
