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
#ifdef _OPENMP
#include <omp.h>
#endif

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
#include "run/mc.h"
#include "run/band.h"
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

/* Free simulation s; its task graph's storage goes back to arena a (may
 * be NULL) when a holds none. */
static void sim_destroy(struct sim *s, struct run_arena *a)
{
	pipe_built_free(&s->pbuilt);
	data_loader_destroy(s->ld);
	if (a && !a->g && s->g)
		a->g = s->g;
	else
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
 * stages in separate classes), the graph (on the storage of arena a's, when
 * a holds one; a may be NULL) and the input pipeline. With merge (and the
 * plan's class_merge), the classes of a stage are one where the node's
 * symmetry makes its GPUs alike (layout_merge, net_create_sym); a traced
 * run keeps a class per local GPU, as its timeline draws them. */
static int sim_create(const struct ts_plan *p, struct sim *s, struct run_arena *a, bool merge,
		      struct ts_error *err)
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
	merge = merge && p->class_merge && net_node_symmetric(sc->cluster) &&
		layout_merge(&s->lay, s->nnodes);
	for (uint32_t nd = 0; nd < s->nnodes; nd++)
		s->node_stage[nd] = layout_class_stage(&s->lay, layout_class_of(&s->lay, nd * gpn));
	if (evq_create(&s->q, 4096) || fluid_create(&s->f, s->q) ||
	    (merge ? net_create_sym(&s->net, sc->cluster, s->f, s->node_stage)
		   : net_create_grouped(&s->net, sc->cluster, s->f,
					p->class_mode ? NET_CLASS : NET_FULL, s->node_stage)) ||
	    coll_create(&s->cc, s->net))
		goto nomem;
	if (a && a->g) {
		s->g = a->g;
		a->g = NULL;
		graph_reset(s->g, s->f, s->cc);
	} else if (graph_create(&s->g, s->f, s->cc)) {
		goto nomem;
	}
	return sim_loader(p, s, err);
nomem:
	return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
}

/* The schedule of `iterations` iterations of `accum` micro-batches each on
 * s's graph. */
static int sim_schedule(const struct ts_plan *p, uint32_t accum, uint32_t iterations, struct sim *s,
			struct ts_error *err)
{
	const struct ts_scenario *sc = p->sc;
	const struct ts_parallel *par = &sc->parallel;
	uint32_t gpn = hw_cluster_gpus_per_node(sc->cluster);
	/* context parallelism by all-to-alls (parallel.cp_comm = "a2a"): the
	 * bytes of a layer's two, and their buffers: Transformer Engine's
	 * flash_attn_a2a_communicate makes a contiguous copy of each of Q, K,
	 * V in the exchange's layout and an empty_like output for it (2 x
	 * their bytes), as DeepSpeed-Ulysses' single_all_to_all does */
	bool a2a = sc->parallel.cp_comm == TS_CP_A2A && par->cp > 1;
	double cpa = p->costs.layer_cp_a2a_in_bytes + p->costs.layer_cp_a2a_out_bytes;
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
	    .flushes = par->flushes,
	    .iterations = iterations,
	    .lay = &s->lay,
	    .tp_bytes = (double)sc->training.micro_batch * (double)sc->training.seq_len /
			(double)par->cp * (double)sc->model.hidden * work_act_bytes(p->dtype),
	    /* ring attention: a K, V block per ring step; all-to-alls: Q, K, V
	     * and the output (their gradients backward) per layer */
	    .cp_fwd_bytes = a2a ? cpa : p->costs.layer_cp_kv_bytes,
	    .cp_bwd_bytes = a2a ? cpa : p->costs.layer_cp_bwd_bytes,
	    .cp_a2a = a2a,
	    .cp_a2a_in_frac = a2a && cpa > 0.0 ? p->costs.layer_cp_a2a_in_bytes / cpa : 0.0,
	    .ep = par->ep,
	    .a2a_bytes = p->costs.layer_a2a_bytes,
	    .cp_buf_fwd_bytes =
		a2a ? 2.0 * p->costs.layer_cp_a2a_in_bytes : p->costs.layer_cp_buf_fwd_bytes,
	    .cp_buf_bwd_bytes =
		a2a ? 2.0 * p->costs.layer_cp_a2a_in_bytes : p->costs.layer_cp_buf_bwd_bytes,
	    /* DeepEP reads the tokens it sends in place and allocates only those
	     * it receives (deep_ep Buffer.dispatch returns recv_x) */
	    .a2a_buf_bytes = p->costs.layer_a2a_buf_bytes *
			     (par->ep_dispatcher == TS_DISPATCH_DEEPEP ? 0.5 : 1.0),
	    .offload = par->offload != TS_OFFLOAD_NONE,
	    .reshard = par->reshard_after_forward != TS_UNSET
			   ? par->reshard_after_forward == 1
			   : !(sc->training.framework == WORK_FW_FSDP && par->pp > 1),
	    .gather_unlimited = par->limit_all_gathers == 0,
	    /* DeepSpeed ZeRO-3 prefetches stage3_prefetch_bucket_size
	     * elements ahead, 5e7 by default (deepspeed/runtime/zero/config.py
	     * at 03dc2b9); FSDP whole units */
	    .gather_ahead_elems = sc->training.framework == WORK_FW_DEEPSPEED ? 5e7 : 0.0,
	    .net = s->net,
	    .cpu_adam_params_per_s = PIPE_CPU_ADAM_PARAMS_PER_S_NODE / (double)gpn,
	    .nvme = par->offload == TS_OFFLOAD_NVME,
	    .nvme_read_Bps = p->nvme_read_Bps,
	    .nvme_write_Bps = p->nvme_write_Bps,
	    .nvme_subgroup_params = PIPE_NVME_SUBGROUP_PARAMS,
	    .act_offload_layers = (uint32_t)sc->training.activation_offload_layers,
	    .sp = par->sp,
	    .zero = par->zero,
	    .tp_overlap = par->tp_comm_overlap,
	    .straggle = p->straggle,
	    .bucket_bytes = p->bucket_bytes,
	    .first_bucket_bytes = p->first_bucket_bytes,
	    .overlap = p->overlap,
	    .weight_bpp = p->conv.weight_bytes,
	    .gather_bpp = p->conv.gather_bytes,
	    .grad_bpp = p->conv.grad_bytes,
	    .optim_bpp = p->conv.optim_bytes,
	    .reduce_bpp = ts_dtype_bytes(p->conv.reduce_dtype),
	    .buffer_bpp =
		(p->dp * (par->cp > 1 ? par->cp : 1) > 1 ? p->conv.bucket_copy_bpp : 0.0) +
		p->conv.autocast_copy_bpp,
	    .ipg_bpp = ts_dtype_bytes(p->conv.grad_dtype),
	    .ipg_max_bytes = p->conv.ipg_bucket_elems * ts_dtype_bytes(p->conv.grad_dtype),
	    .step_temp_bpp = p->conv.step_temp_bpp,
	    .step_temp_max_bytes = par->zero >= 3 && p->conv.step_group_params > 0.0
				       ? p->conv.step_group_params * p->conv.step_temp_bpp
				       : (double)INFINITY,
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

/* Measure the played graph: the span of the iterations after the warm-up
 * (after iteration `skip`, 0-based: the first by default, the first half
 * when the period had to settle), the breakdown of the compute stream of the
 * class whose step ends last, the memory of the fullest class (*peak bytes,
 * split in ms->at). *w1 receives the end of the window. */
static void sim_measure(const struct sim *s, uint32_t skip, struct meas *ms, double *peak,
			ts_time *w1)
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
	if (skip + 1 >= ni)
		skip = 0;
	ts_time t_first = graph_rec(g, iter_end[skip])->end;
	ts_time t_last = graph_rec(g, iter_end[ni - 1])->end;
	ts_time w0 = ni >= 2 ? t_first : 0;
	*w1 = t_last;
	*ms = (struct meas){.per = ni >= 2 ? (double)(ni - 1 - skip) : 1.0, .span = t_last - w0};
	graph_breakdown(g, meas_stream, w0, t_last, &ms->bd);
	*peak = graph_pool_peak(g, meas_pool, ms->at);
}

/* The steady state of the iteration period. An iteration repeats itself from
 * the second on unless something carries over from one to the next: an input
 * pipeline whose prefetch queue drains while its reads share a NIC with the
 * gradient all-reduce takes tens of iterations to reach its period (2 nodes
 * on 10 GbE reading ImageNet-21k from NFS: 0.32 s a step over 3 iterations,
 * 0.62 s over 100). The period has settled when the mean of the last k of
 * the n - 1 periods of n iterations, k = max(1, (n - 1) / 4), is within
 * RUN_SETTLE_TOL of the mean of the k before them; until then the run is
 * simulated again with twice the iterations, at most RUN_SETTLE_MAX_ITERS
 * (and within sim.max_memory), and measured over its steady iterations
 * (settle_start), or over its second half when it never settles. */
#define RUN_SETTLE_TOL 0.01
#define RUN_SETTLE_MAX_ITERS 96

/* Batches the input pipeline holds ready at the end of iteration `it`
 * (0-based): read by then, less those the iterations so far took. */
static int64_t queue_held(const struct sim *s, uint32_t it)
{
	const struct pipe_built *pb = &s->pbuilt;
	ts_time t = graph_rec(s->g, pb->iter_end[it])->end;
	uint32_t n = 0;
	while (n < pb->nloaded && graph_rec(s->g, pb->loaded[n])->end <= t)
		n++;
	return (int64_t)n - (int64_t)(it + 1) * pb->per_iter;
}

/* Whether s's iteration period has settled; *last_s and *prev_s receive the
 * two means compared, s. Fewer than three iterations compare nothing. With
 * an input pipeline, the batches it holds ready must also be the same at
 * both ends of the last k periods: while its prefetch queue fills (or
 * drains) the period can stay flat for many iterations and then change.
 * A queue that fills by less than a batch in k iterations passes for full;
 * where that slow filling competes with training for a link, the period
 * it changes can be missed. A queue that fills slowly beside work it does
 * not touch (the loader a little faster than the GPU) leaves the period as
 * it is, and so settles at once. */
static bool period_settled(const struct sim *s, double *last_s, double *prev_s)
{
	const struct pipe_built *pb = &s->pbuilt;
	uint32_t ni = pb->niter;
	*last_s = *prev_s = 0.0;
	if (ni < 3)
		return true;
	uint32_t k = (ni - 1) / 4 ? (ni - 1) / 4 : 1;
	ts_time e2 = graph_rec(s->g, pb->iter_end[ni - 1])->end;
	ts_time e1 = graph_rec(s->g, pb->iter_end[ni - 1 - k])->end;
	ts_time e0 = graph_rec(s->g, pb->iter_end[ni - 1 - 2 * k])->end;
	*last_s = ts_time_to_s(e2 - e1) / (double)k;
	*prev_s = ts_time_to_s(e1 - e0) / (double)k;
	if (pb->loaded && queue_held(s, ni - 1) != queue_held(s, ni - 1 - k))
		return false;
	return fabs(*last_s - *prev_s) <= RUN_SETTLE_TOL * *last_s;
}

/* The first iteration of the steady state of a settled run: going back from
 * the last, the iterations whose period is within RUN_SETTLE_TOL of the last
 * one and after which the input pipeline holds as many batches as at the
 * end, leaving at least the 2k periods compared by period_settled. 0 when
 * every period after the first is alike (the window of sim_measure). */
static uint32_t settle_start(const struct sim *s)
{
	const struct pipe_built *pb = &s->pbuilt;
	uint32_t ni = pb->niter;
	if (ni < 3)
		return 0;
	uint32_t k = (ni - 1) / 4 ? (ni - 1) / 4 : 1;
	const struct ts_graph *g = s->g;
	ts_time ref =
	    graph_rec(g, pb->iter_end[ni - 1])->end - graph_rec(g, pb->iter_end[ni - 2])->end;
	int64_t held = pb->loaded ? queue_held(s, ni - 1) : 0;
	uint32_t it = ni - 1; /* periods it .. ni - 1 are steady */
	while (it >= 2) {
		ts_time per = graph_rec(g, pb->iter_end[it - 1])->end -
			      graph_rec(g, pb->iter_end[it - 2])->end;
		if (fabs((double)(per - ref)) > RUN_SETTLE_TOL * (double)ref ||
		    (pb->loaded && queue_held(s, it - 1) != held))
			break;
		it--;
	}
	uint32_t start = it - 1; /* the window starts at the end of iteration it - 1 */
	return start < ni - 1 - 2 * k ? start : ni - 1 - 2 * k;
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

/* DeepEP's buffers on a GPU of plan p (work_deepep_buffer_bytes), over the
 * expert-parallel group, a token's hidden bytes as Megatron-Core's
 * fused_a2a.py counts them (hidden x max(element size, 2)); 0 with NCCL's
 * all-to-alls. */
static double deepep_bytes(const struct ts_plan *p)
{
	const struct ts_scenario *sc = p->sc;
	if (sc->parallel.ep_dispatcher != TS_DISPATCH_DEEPEP)
		return 0.0;
	double b = work_deepep_buffer_bytes(
	    (double)sc->model.hidden * fmax(work_act_bytes(p->dtype), 2.0), (int)sc->parallel.ep);
	return b > 0.0 ? b : 0.0;
}

/* NCCL communicators of more than one rank that a rank of plan p is in:
 * tensor, pipeline (point-to-point), context and expert parallel, and the
 * data-parallel one (gradients, ZeRO) over dp x cp. */
static uint32_t comms(const struct ts_plan *p)
{
	const struct ts_parallel *par = &p->sc->parallel;
	int64_t cp = p->shape.cp > 1 ? p->shape.cp : 1;
	return (uint32_t)(p->shape.tp > 1) + (uint32_t)(par->pp > 1) + (uint32_t)(cp > 1) +
	       (uint32_t)(p->shape.ep > 1) + (uint32_t)(p->dp * cp > 1);
}

/* The model runs cuDNN convolutions (a layer list with conv or bottleneck). */
static bool has_convs(const struct ts_model *m)
{
	if (m->family != TS_FAMILY_LAYERS)
		return false;
	for (uint32_t i = 0; i < m->nlnet; i++)
		if (m->lnet[i].op == TS_LOP_CONV || m->lnet[i].op == TS_LOP_BOTTLENECK)
			return true;
	return false;
}

/* The figures PyTorch and the driver report of out->mem: what the caching
 * allocator hands to tensors (torch.cuda.max_memory_allocated: the bytes
 * the schedule holds and the cuBLAS/cuDNN workspaces, which PyTorch
 * allocates through it), what it has reserved from the driver
 * (torch.cuda.max_memory_reserved: plus its slack); the device total that
 * nvidia-smi shows adds the CUDA context and NCCL's buffers, which are not
 * the allocator's, and is memory_per_gpu_bytes. */
static void mem_figures(struct ts_result *out)
{
	const struct ts_mem_breakdown *m = &out->mem;
	out->memory_allocated_bytes = m->weights + m->gradients + m->optimizer + m->activations +
				      m->logits + m->buffers + m->workspaces;
	out->memory_reserved_bytes = out->memory_allocated_bytes + m->allocator;
}

/* fits, the verdict with its margin and the largest term of out->mem. */
static void verdict(struct ts_result *out)
{
	mem_figures(out);
	double need = out->memory_per_gpu_bytes, cap = out->memory_capacity_bytes;
	const struct ts_mem_breakdown *m = &out->mem;
	const struct {
		const char *name;
		double bytes;
	} t[] = {{"weights", m->weights},
		 {"gradients", m->gradients},
		 {"optimizer", m->optimizer},
		 {"activations", m->activations},
		 {"logits", m->logits},
		 {"buffers", m->buffers},
		 {"cuda_context", m->cuda_context},
		 {"workspaces", m->workspaces},
		 {"nccl", m->nccl},
		 {"allocator", m->allocator}};
	size_t big = 0;
	for (size_t i = 1; i < sizeof t / sizeof t[0]; i++)
		if (t[i].bytes > t[big].bytes)
			big = i;
	snprintf(out->memory_largest_term, sizeof out->memory_largest_term, "%s", t[big].name);
	out->fits = need <= cap;
	out->memory_error = WORK_MEM_ERROR;
	out->memory_headroom_gib = (cap - need) / (1024.0 * 1024.0 * 1024.0);
	/* band_memory_verdict's rule; the band is set later (band_apply)
	 * and the verdict again from it */
	const char *v = !out->fits			       ? "does not fit"
			: cap <= need * (1.0 + WORK_MEM_ERROR) ? "tight"
							       : "fits";
	snprintf(out->memory_verdict, sizeof out->memory_verdict, "%s", v);
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
	snprintf(out->gpu, sizeof out->gpu, "%s", p->gpu->name);
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
	/* model FLOPs with attention in full (PaLM, Megatron), and as the
	 * kernels count them: a causal mask halves the attention core */
	double palm_flops = work_model_flops_per_token(&sc->model, tr->seq_len) * tokens;
	double attn = work_attn_flops_per_token(&sc->model, tr->seq_len) * tokens;
	double masked = p->shape.causal ? 0.5 : 0.0;
	/* a BERT head on the masked positions only computes that fraction of
	 * its logits: the rest are neither executed nor counted */
	if (p->shape.mlm_masked)
		palm_flops -= (1.0 - WORK_MLM_MASKED_FRACTION) *
			      work_mlm_head_flops_per_token(&sc->model) * tokens;
	out->model_flops_per_iteration = palm_flops - masked * attn;
	/* the FLOPs the recompute mode reruns (work_costs.layer_recompute_flops,
	 * per rank and micro-batch) over every layer and micro-batch of the job,
	 * a rerun attention core (a third of attn) counted as the model FLOPs */
	double recompute_flops = p->costs.layer_recompute_flops[p->recompute] *
				 (double)p->recompute_layers_n * tokens /
				 ((double)tr->micro_batch * (double)tr->seq_len) *
				 (double)p->shape.tp * (double)(p->shape.cp > 1 ? p->shape.cp : 1);
	/* op-level checkpointing reruns the core when it is unfused (flash
	 * keeps its output) */
	bool attn_rerun = p->recompute == WORK_RECOMPUTE_FULL ||
			  (p->recompute == WORK_RECOMPUTE_SELECTIVE && recompute_flops > 0.0) ||
			  (p->recompute == WORK_RECOMPUTE_OP && !p->shape.flash);
	if (attn_rerun && sc->model.layers > 0) /* in the layers that rerun (recompute_layers) */
		recompute_flops -=
		    masked * attn / 3.0 * (double)p->recompute_layers_n / (double)sc->model.layers;
	/* layer lists: the checkpointed blocks' forward, per micro-batch of a rank */
	recompute_flops += p->recompute_flops_mb * (double)tr->global_batch * batch_share /
			   (double)tr->micro_batch;
	out->hardware_flops_per_iteration = out->model_flops_per_iteration + recompute_flops;
	/* the 16-bit tensor peak by convention; fp32 on GPUs without one
	 * (Maxwell, Pascal GP102) */
	double peak = p->gpu->peak_flops[TS_BF16] > 0.0	  ? p->gpu->peak_flops[TS_BF16]
		      : p->gpu->peak_flops[TS_FP16] > 0.0 ? p->gpu->peak_flops[TS_FP16]
							  : p->gpu->peak_flops[TS_FP32];
	out->tflops_per_gpu = out->model_flops_per_iteration / T / sc->gpus / 1e12;
	out->mfu = out->model_flops_per_iteration / (T * sc->gpus * peak);
	out->mfu_palm = palm_flops / (T * sc->gpus * peak);
	out->hfu = out->hardware_flops_per_iteration / (T * sc->gpus * peak);
	out->other_s = T - (out->compute_s + out->recompute_s + out->exposed_comm_s +
			    out->bubble_s + out->data_stall_s + out->optimizer_s);
	/* below the engine's 1 ns resolution it is the rounding of the sum
	 * (-5.6e-17 s), not a part of the iteration */
	if (fabs(out->other_s) < 1e-9)
		out->other_s = 0.0;
	double cap = p->gpu->mem_bytes;
	struct work_overhead oh;
	work_overhead_bytes(&(struct work_overhead_in){.gen = work_gpu_generation(p->gpu->name),
						       .comms = comms(p),
						       .convs = has_convs(&sc->model),
						       .held_bytes = peak_bytes,
						       .alloc_fraction = p->conv.alloc_fraction,
						       .ep_lib_bytes = deepep_bytes(p)},
			    &oh);
	out->mem.cuda_context = oh.cuda_context;
	out->mem.workspaces = oh.workspaces;
	out->mem.nccl = oh.nccl;
	out->mem.allocator = oh.allocator;
	out->mem.reserve = oh.total;
	out->memory_per_gpu_bytes = peak_bytes + out->mem.reserve;
	out->memory_capacity_bytes = cap;
	verdict(out);
}

/* The words of cost_whole_run's warning that failures outnumber checkpoints. */
#define RUN_FAIL_WARNING "expected failures exceed the"

/* Append warning w to r->warnings (a comma-separated list; w holds none). */
static void run_warn(struct ts_result *r, const char *w)
{
	size_t len = strlen(r->warnings);
	if (len + 3 < sizeof r->warnings)
		snprintf(r->warnings + len, sizeof r->warnings - len, "%s%s", len ? ", " : "", w);
}

/* A run longer than this is taken for a mistake in its length (training.tokens
 * = 1e30 gave 7e19 days without a word): 10 years, s. */
#define RUN_ABSURD_TTT_S (10.0 * 365.25 * 86400.0)

/* NIC ports one non-blocking switch can have: NVIDIA's Quantum-2 switch
 * systems, its largest, have up to 2,048 NDR ports (NVIDIA's Quantum-2
 * announcement of 9 November 2021; ComputerBase, "Nvidia Quantum-2: Ein
 * 400-Gbit/s-Switch mit 57 Milliarden Transistoren", 2021-11: "Switch-Systeme
 * mit bis zu 2.048 Ports"); one Quantum-2 chip has 64 ports of 400 Gb/s or
 * 128 of 200 Gb/s. Beyond this a "switch" fabric is a network no one can
 * build: real ones are tiered Clos fabrics (Llama 3: 24K H100 GPUs over a
 * three-layer Clos network, Dubey et al. 2024, "The Llama 3 Herd of
 * Models", section 3.3.1, https://arxiv.org/abs/2407.21783). */
#define RUN_FLAT_PORTS_MAX 2048u

/* Warnings on a result that is computed right but asked wrong: a run of
 * more than 10 years, a flat network far beyond any built. (No comma in a
 * warning: the result's list is comma-separated.) */
static void run_warn_absurd(const struct ts_plan *p, struct ts_result *out)
{
	char w[300];
	if (out->time_to_train_s > RUN_ABSURD_TTT_S) {
		snprintf(w, sizeof w,
			 "the time to train is %.3g years (over 10): check the run length "
			 "(training.tokens / samples / epochs / steps)",
			 out->time_to_train_s / (365.25 * 86400.0));
		run_warn(out, w);
	}
	const struct hw_cluster *c = p->sc->cluster;
	uint64_t ports = (uint64_t)p->sc->nodes * hw_cluster_nics_per_node(c);
	if (ports > RUN_FLAT_PORTS_MAX && !strcmp(hw_cluster_topology(c), "switch")) {
		snprintf(w, sizeof w,
			 "%llu NIC ports on one non-blocking switch: more than the largest "
			 "switch system has (2048 NDR ports) so the fabric is ideal beyond any "
			 "built; give the cluster a tiered fabric (topology = \"fat-tree\") or "
			 "run a bundled one (h100-100k-halls or fat-tree-a100)",
			 (unsigned long long)ports);
		run_warn(out, w);
	}
}

/* What the model of plan p trains on, and for a sample-based model (a
 * layer list) its epoch: the dataset's samples, the epochs of the run,
 * the time and price of one (whole-run figures over the run's epochs, so
 * checkpoints and failures count; without a run length, the epoch's
 * samples at the iteration's throughput and no price). */
static void run_units(const struct ts_plan *p, struct ts_result *out)
{
	const struct ts_model *m = &p->sc->model;
	out->per_sample = m->family == TS_FAMILY_LAYERS;
	snprintf(out->unit, sizeof out->unit, "%s",
		 !out->per_sample    ? "tokens"
		 : m->sample_unit[0] ? m->sample_unit
				     : "samples");
	if (!out->per_sample)
		return;
	out->usd_per_mtokens = 0.0; /* not applicable: the price is per epoch */
	const struct data_dataset *ds = &p->input.dataset;
	out->epoch_samples = ds->per_token ? 0.0 : ds->samples;
	if (!(out->epoch_samples > 0.0))
		return;
	double run_samples = out->steps * (double)p->sc->training.global_batch;
	out->epochs = run_samples / out->epoch_samples;
	if (out->epochs > 0.0 && out->time_to_train_s > 0.0) {
		out->epoch_s = out->time_to_train_s / out->epochs;
		out->usd_per_epoch = out->cost_usd / out->epochs;
	} else if (out->samples_per_s > 0.0) {
		out->epoch_s = out->epoch_samples / out->samples_per_s;
	}
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
	run_units(p, out);
	snprintf(out->notes, sizeof out->notes, "%s", sc->notes);
	/* FSDP's NO_SHARD is DDP: say so rather than run it unsharded unseen */
	if (sc->training.framework == WORK_FW_FSDP && sc->parallel.zero == 0 && p->dp > 1)
		run_warn(out, "training.framework = \"fsdp\" with parallel.zero = 0 runs as FSDP's "
			      "NO_SHARD: weights and gradients and optimizer state replicated on "
			      "every rank and gradients all-reduced as DDP does (zero = 3 is "
			      "FULL_SHARD and zero = 2 SHARD_GRAD_OP)");
}

/* Simulate plan p with `accum` micro-batches per iteration (0: as the
 * global batch gives). With ex, this run has m2 = accum micro-batches and its
 * per-iteration times and memory are carried to ex->m along the line
 * through ex->r1's and its own before anything is derived from them.
 * keep (may be NULL) receives this run's own measurement. */
static int run_at(const struct ts_plan *p, uint32_t accum, const struct extrap *ex,
		  struct meas *keep, struct run_arena *a, struct ts_result *out,
		  struct ts_trace *trace, struct ts_error *err)
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
	uint32_t iters = (uint32_t)p->sc->training.iterations, skip;
	double last_s, prev_s;
	bool settled;
	uint32_t links[TIMELINE_MAX_LINKS], nlinks = 0;
	if (trace) {
		/* the busiest links are known once the run is over: a first,
		 * untraced run of the same schedule finds them */
		if (!(rc = sim_create(p, &s, a, false, err)) &&
		    !(rc = sim_schedule(p, accum, iters, &s, err)) &&
		    !(rc = sim_play(&s, NULL, NULL, 0, err)))
			nlinks = timeline_busiest_links(s.f, s.net, links, TIMELINE_MAX_LINKS);
		sim_destroy(&s, a);
		memset(&s, 0, sizeof s);
		if (rc)
			return rc;
	}
	for (;;) {
		if ((rc = sim_create(p, &s, a, !trace, err)) ||
		    (trace && (rc = graph_keep_detail(s.g))) ||
		    (rc = sim_schedule(p, accum, iters, &s, err)) ||
		    (rc = sim_play(&s, trace, links, nlinks, err)))
			goto out;
		settled = period_settled(&s, &last_s, &prev_s);
		uint32_t more = 2 * iters < RUN_SETTLE_MAX_ITERS ? 2 * iters : RUN_SETTLE_MAX_ITERS;
		/* the plan's size estimate is linear in the iterations */
		bool fits = p->est_bytes * (double)more <=
			    p->max_memory * (double)p->sc->training.iterations;
		/* a traced run keeps the file's iterations: its trace is that run */
		if (settled || trace || more <= iters || !fits)
			break;
		sim_destroy(&s, a);
		memset(&s, 0, sizeof s);
		iters = more;
	}
	skip = settled ? settle_start(&s) : iters / 2;
	sim_measure(&s, skip, &ms, &peak, &w1);
	if (keep)
		*keep = ms;
	if (ex)
		extend(ex, accum, &ms, &peak);
	iteration_results(p, &ms, peak, batch_share, out);
	run_results(p, batch_share, out);
	if (!settled) {
		size_t len = strlen(out->warnings);
		snprintf(out->warnings + len, sizeof out->warnings - len,
			 "%siteration period not settled after %u iterations (%.1f ms then %.1f "
			 "ms a step)",
			 len ? ", " : "", iters, 1e3 * prev_s, 1e3 * last_s);
	}
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
	sim_destroy(&s, a);
	return rc;
}

bool ts_run_extends(const struct ts_scenario *sc, uint32_t *m1, uint32_t *m2, uint32_t *m)
{
	return plan_extends(sc, m1, m2, m);
}

/* ---- Monte-Carlo replicas (sim/run/mc.h) ------------------------------- */

/* The figures a replica gives, in the order of struct ts_bands. */
enum {
	FIG_ITER,
	FIG_SAMPLES,
	FIG_TOKENS,
	FIG_TFLOPS,
	FIG_MFU,
	FIG_TTT,
	FIG_COST,
	FIG_GPU_KWH,
	FIG_MEM,
	FIG_COUNT_
};

/* Replicas drawn in parallel from this many on, and only outside any
 * parallel region (a sweep's thread, even a team of one, draws its own
 * replicas: threads of its own would cost more than the draws). A replica
 * costs about 1.5 us, so the default 200 take 0.3 ms, less than a thread
 * team's start and its idle spinning after (which counted in a run's CPU
 * time); 4,096 take about 6 ms. The results are the same either way. */
#define RUN_MC_PARALLEL_MIN 4096

static bool mc_parallel(uint32_t n)
{
#ifdef _OPENMP
	return n >= RUN_MC_PARALLEL_MIN && omp_get_level() == 0;
#else
	(void)n;
	return false;
#endif
}

/* The figures of replica i of n of plan p's run whose deterministic result
 * is h, into v[f x n + i] for each figure f: replica 0 is h itself; the
 * others run h's critical path at the pace of their draws (mc_draw) and
 * meet failures of their own (cost_whole_run_drawn). Speed draws come from
 * the stream of (seed, i), failures from that of (seed, i, phase + 1), so
 * the phases of one replica share its GPUs but not its failures. */
static void replica(const struct ts_plan *p, const struct ts_result *h, const struct mc_params *mp,
		    double each_s, uint64_t seed, uint32_t phase, uint32_t i, uint32_t n,
		    struct ts_result *r, double *v)
{
	const double head[FIG_COUNT_] = {h->iteration_time_s,
					 h->samples_per_s,
					 h->tokens_per_s,
					 h->tflops_per_gpu,
					 h->mfu,
					 h->time_to_train_s,
					 h->cost_usd,
					 h->gpu_energy_kwh,
					 h->memory_per_gpu_bytes};
	if (i == 0) {
		for (int f = 0; f < FIG_COUNT_; f++)
			v[(size_t)f * n] = head[f];
		return;
	}
	struct mc_rng speed, fail;
	struct mc_draw d;
	uint64_t rs = mc_seed(seed, i);
	mc_rng_seed(&speed, rs);
	mc_rng_seed(&fail, mc_seed(rs, (uint64_t)phase + 1));
	mc_draw(mp, &speed.r, &d);
	/* what cost_whole_run reads, and nothing the caller writes next
	 * (h->spread) */
	*r = (struct ts_result){.steps = h->steps,
				.compute_s = h->compute_s * d.compute,
				.recompute_s = h->recompute_s * d.compute,
				.optimizer_s = h->optimizer_s,
				.exposed_comm_s = h->exposed_comm_s * d.comm};
	double T = h->iteration_time_s + (r->compute_s - h->compute_s) +
		   (r->recompute_s - h->recompute_s) + (r->exposed_comm_s - h->exposed_comm_s);
	double k = T > 0.0 ? h->iteration_time_s / T : 1.0;
	r->iteration_time_s = T;
	if (h->steps > 0.0)
		cost_whole_run_drawn(p->sc, p->gpu, p->ckpt_bytes, each_s, &fail.r, r);
	const double x[FIG_COUNT_] = {T,
				      h->samples_per_s * k,
				      h->tokens_per_s * k,
				      h->tflops_per_gpu * k,
				      h->mfu * k,
				      r->time_to_train_s,
				      r->cost_usd,
				      r->gpu_energy_kwh,
				      h->memory_per_gpu_bytes};
	for (int f = 0; f < FIG_COUNT_; f++)
		v[(size_t)f * n + i] = x[f];
}

/* The figures of n replicas of plan p's run (one phase; its deterministic
 * result h) into v[f x n + i] (replica), master seed `seed`, phase index
 * `phase`. The same for any number of threads: each replica writes only
 * its own slots from its own streams. */
static void replicas(const struct ts_plan *p, const struct ts_result *h, uint64_t seed,
		     uint32_t phase, uint32_t n, double *v)
{
	struct mc_params mp;
	mc_params_init(p->sc, h->steps > 0.0 ? h->steps : 1.0, p->straggle, &mp);
	struct cost_ckpt ckw;
	cost_checkpoint(p->sc, p->ckpt_storage_set ? &p->ckpt_storage : NULL, p->ckpt_bytes, &ckw);
	int64_t nn = n;
#pragma omp parallel for schedule(static) if (mc_parallel(n))
	for (int64_t i = 0; i < nn; i++) {
		struct ts_result r;
		replica(p, h, &mp, ckw.each_s, seed, phase, (uint32_t)i, n, &r, v);
	}
}

/* Replicas of a run: sim.samples, at least 1. */
static uint32_t samples_of(const struct ts_plan *p)
{
	return p->sc->sim.samples > 1 ? p->sc->sim.samples : 1;
}

/* out->spread from the figures v[f x n + i] of n replicas (v sorted). */
static void spread_from(double *v, uint32_t n, struct ts_result *out)
{
	struct ts_bands *b = &out->spread;
	struct ts_band *band[FIG_COUNT_] = {&b->iteration_time_s,
					    &b->samples_per_s,
					    &b->tokens_per_s,
					    &b->tflops_per_gpu,
					    &b->mfu,
					    &b->time_to_train_s,
					    &b->cost_usd,
					    &b->gpu_energy_kwh,
					    &b->memory_per_gpu_bytes};
	for (int f = 0; f < FIG_COUNT_; f++)
		mc_band(v + (size_t)f * n, n, band[f]);
}

static int run_plan_once(const struct ts_plan *p, struct run_arena *a, struct ts_result *out,
			 struct ts_trace *trace, struct ts_error *err);

/* The run of plan p in phases: each phase simulated and extrapolated on
 * its own (run_plan), the whole-run figures summed, the per-iteration ones
 * those of the phase that takes longest, memory that of the phase with the
 * highest peak, fits only when every phase fits. */
static int run_phases(const struct ts_plan *p, struct run_arena *a, struct ts_result *out,
		      struct ts_error *err)
{
	struct ts_result *r = ts_calloc(1, sizeof *r);
	if (!r)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	struct ts_phase_result ph[TS_RESULT_MAX_PHASES];
	double sum[12] = {0}, tokens = 0.0, longest = -1.0, mem_share = -1.0;
	bool fits = true;
	char warnings[sizeof out->warnings] = "";
	struct ts_mem_breakdown mem = {0};
	double mem_bytes = 0.0, mem_cap = 0.0;
	int rc = 0;
	uint32_t n = p->n_phases < TS_RESULT_MAX_PHASES ? p->n_phases : TS_RESULT_MAX_PHASES;
	/* replicas: each phase's (vph), the whole run's (vsum: whole-run
	 * figures summed over the phases, per-iteration ones those of the
	 * longest phase) */
	uint32_t ns = samples_of(p);
	size_t nv = (size_t)ns * FIG_COUNT_;
	double *vph = ts_calloc(2 * nv, sizeof *vph), *vsum = vph + nv;
	if (!vph) {
		ts_free(r, sizeof *r);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	for (uint32_t i = 0; i < n && !rc; i++) {
		const struct ts_scenario *sc = p->phases[i]->sc;
		if ((rc = run_plan_once(p->phases[i], a, r, NULL, err)))
			break;
		replicas(p->phases[i], r, p->sc->seed, i, ns, vph);
		for (int f = FIG_TTT; f <= FIG_GPU_KWH; f++)
			for (uint32_t j = 0; j < ns; j++)
				vsum[(size_t)f * ns + j] += vph[(size_t)f * ns + j];
		struct ts_phase_result *x = &ph[i];
		memset(x, 0, sizeof *x);
		snprintf(x->name, sizeof x->name, "%s", sc->phase_name);
		x->global_batch = (double)sc->training.global_batch;
		x->seq_len = r->per_sample ? 1.0 : (double)sc->training.seq_len;
		x->steps = r->steps;
		x->samples = r->steps * x->global_batch;
		x->tokens = x->samples * x->seq_len;
		x->iteration_time_s = r->iteration_time_s;
		x->time_to_train_s = r->time_to_train_s;
		x->gpu_hours = r->gpu_hours;
		x->energy_kwh = r->energy_kwh;
		x->cost_usd = r->cost_usd;
		x->checkpoints = r->checkpoints;
		x->failures_expected = r->failures_expected;
		x->fits = r->fits;
		fits = fits && r->fits;
		tokens += x->tokens;
		const double add[12] = {r->steps,	  r->time_to_train_s,	r->gpu_hours,
					r->node_hours,	  r->energy_kwh,	r->gpu_energy_kwh,
					r->it_energy_kwh, r->cost_usd,		r->checkpoints,
					r->checkpoint_s,  r->failures_expected, r->failure_s};
		for (int k = 0; k < 12; k++)
			sum[k] += add[k];
		/* warnings of the phase's settings, once; the failures against
		 * the checkpoints are weighed over the whole run below */
		size_t wl = strlen(warnings), rl = strlen(r->warnings);
		if (rl && !strstr(warnings, r->warnings) &&
		    !strstr(r->warnings, RUN_FAIL_WARNING) && wl + rl + 3 < sizeof warnings)
			snprintf(warnings + wl, sizeof warnings - wl, "%s%.*s", wl ? ", " : "",
				 (int)rl, r->warnings);
		double share = r->memory_per_gpu_bytes / r->memory_capacity_bytes;
		if (share > mem_share) {
			mem_share = share;
			mem = r->mem;
			mem_bytes = r->memory_per_gpu_bytes;
			mem_cap = r->memory_capacity_bytes;
		}
		if (r->time_to_train_s > longest) {
			longest = r->time_to_train_s;
			*out = *r;
			memcpy(vsum, vph, (size_t)(FIG_MFU + 1) * ns * sizeof *vsum);
		}
	}
	ts_free(r, sizeof *r);
	if (rc) {
		ts_free(vph, 2 * nv * sizeof *vph);
		return rc;
	}
	memcpy(out->phases, ph, n * sizeof *ph);
	out->n_phases = n;
	snprintf(out->name, sizeof out->name, "%s", p->sc->name);
	out->fits = fits;
	out->mem = mem;
	out->memory_per_gpu_bytes = mem_bytes;
	out->memory_capacity_bytes = mem_cap;
	mem_figures(out);
	out->steps = sum[0];
	out->time_to_train_s = sum[1];
	out->gpu_hours = sum[2];
	out->node_hours = sum[3];
	out->energy_kwh = out->facility_energy_kwh = sum[4];
	out->gpu_energy_kwh = sum[5];
	out->it_energy_kwh = sum[6];
	out->cost_usd = sum[7];
	out->checkpoints = sum[8];
	out->checkpoint_s = sum[9];
	out->failures_expected = sum[10];
	out->failure_s = sum[11];
	out->avg_power_kw =
	    out->time_to_train_s > 0.0 ? out->energy_kwh / (out->time_to_train_s / 3600.0) : 0.0;
	out->usd_per_mtokens =
	    tokens > 0.0 && !out->per_sample ? out->cost_usd / (tokens / 1e6) : 0.0;
	out->usd_per_hour =
	    out->time_to_train_s > 0.0 ? out->cost_usd / (out->time_to_train_s / 3600.0) : 0.0;
	out->usd_per_gpu_hour = out->gpu_hours > 0.0 ? out->cost_usd / out->gpu_hours : 0.0;
	if (out->per_sample && out->epoch_samples > 0.0) {
		out->epochs = tokens / out->epoch_samples; /* seq_len is 1 per sample */
		out->epoch_s = out->epochs > 0.0 ? out->time_to_train_s / out->epochs : 0.0;
		out->usd_per_epoch = out->epochs > 0.0 ? out->cost_usd / out->epochs : 0.0;
	}
	snprintf(out->warnings, sizeof out->warnings, "%s", warnings);
	if (out->failures_expected > out->checkpoints &&
	    out->failures_expected >= COST_FAIL_WARN_MIN) {
		char w[200];
		snprintf(w, sizeof w,
			 "%.2g expected failures over the phases exceed their %.0f checkpoints",
			 out->failures_expected, out->checkpoints);
		run_warn(out, w);
	}
	snprintf(out->notes, sizeof out->notes, "%s", p->sc->notes);
	for (uint32_t j = 0; j < ns; j++)
		vsum[(size_t)FIG_MEM * ns + j] = mem_bytes;
	spread_from(vsum, ns, out);
	ts_free(vph, 2 * nv * sizeof *vph);
	return 0;
}

void run_arena_release(struct run_arena *a)
{
	graph_destroy(a->g);
	a->g = NULL;
}

int run_plan(const struct ts_plan *p, struct ts_result *out, struct ts_trace *trace,
	     struct ts_error *err)
{
	struct run_arena a = {0};
	int rc = run_plan_in(p, &a, out, trace, err);
	run_arena_release(&a);
	return rc;
}

/* The run of plan p once, deterministic: run_plan_in without the spread. */
static int run_plan_once(const struct ts_plan *p, struct run_arena *a, struct ts_result *out,
			 struct ts_trace *trace, struct ts_error *err)
{
	uint32_t m1, m2, m;
	if (p->n_phases) {
		memset(out, 0, sizeof *out);
		if (trace)
			return ts_error_set(err, TS_EUNSUPPORTED, p->sc->file, 0, "phases",
					    "found a trace asked of a run in phases, expected a "
					    "scenario of one phase (trace one phase with --set)");
		int rc = run_phases(p, a, out, err);
		if (rc)
			memset(out, 0, sizeof *out);
		return rc;
	}
	/* a trace shows every micro-batch: a larger graph than plan_build checked */
	int rc0 = trace ? plan_check_size(p, true, err) : 0;
	if (rc0) {
		memset(out, 0, sizeof *out);
		return rc0;
	}
	if (trace || !ts_run_extends(p->sc, &m1, &m2, &m))
		return run_at(p, 0, NULL, NULL, a, out, trace, err);
	struct extrap ex = {.m1 = m1, .m = m};
	int rc = run_at(p, m1, NULL, &ex.r1, a, out, NULL, err);
	if (rc) {
		memset(out, 0, sizeof *out);
		return rc;
	}
	return run_at(p, m2, &ex, NULL, a, out, NULL, err);
}

/* Every quantile of every figure of out->spread set to the figure (one replica). */
static void spread_of_one(struct ts_result *out)
{
	struct ts_bands *b = &out->spread;
	const struct {
		struct ts_band *band;
		double v;
	} f[] = {{&b->iteration_time_s, out->iteration_time_s},
		 {&b->samples_per_s, out->samples_per_s},
		 {&b->tokens_per_s, out->tokens_per_s},
		 {&b->tflops_per_gpu, out->tflops_per_gpu},
		 {&b->mfu, out->mfu},
		 {&b->time_to_train_s, out->time_to_train_s},
		 {&b->cost_usd, out->cost_usd},
		 {&b->gpu_energy_kwh, out->gpu_energy_kwh},
		 {&b->memory_per_gpu_bytes, out->memory_per_gpu_bytes}};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		*f[i].band = (struct ts_band){f[i].v, f[i].v, f[i].v};
}

/* The name of plan p's task size (phases: theirs, "mixed" when they differ). */
static const char *gran_of(const struct ts_plan *p)
{
	static const char *const names[] = {
	    [DP_GRAN_OP] = "op", [DP_GRAN_LAYER] = "layer", [DP_GRAN_STAGE] = "stage"};
	if (!p->n_phases)
		return names[p->gran];
	for (uint32_t i = 1; i < p->n_phases; i++)
		if (p->phases[i]->gran != p->phases[0]->gran)
			return "mixed";
	return names[p->phases[0]->gran];
}

int run_plan_in(const struct ts_plan *p, struct run_arena *a, struct ts_result *out,
		struct ts_trace *trace, struct ts_error *err)
{
	int rc = run_plan_once(p, a, out, trace, err);
	if (rc)
		return rc;
	snprintf(out->granularity, sizeof out->granularity, "%s", gran_of(p));
	if (!p->n_phases) { /* a run in phases has its spread from run_phases */
		uint32_t n = samples_of(p);
		if (n == 1)
			spread_of_one(out);
		else {
			double *v = ts_calloc((size_t)n * FIG_COUNT_, sizeof *v);
			if (!v) {
				memset(out, 0, sizeof *out);
				return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			}
			replicas(p, out, p->sc->seed, 0, n, v);
			spread_from(v, n, out);
			ts_free(v, (size_t)n * FIG_COUNT_ * sizeof *v);
		}
	}
	band_apply(out,
		   band_lookup(p->env ? p->env->bands : NULL, p->gpu->name, p->sc->nodes,
			       p->sc->training.framework),
		   log1p(out->memory_error));
	if (p->env && p->env->fit.present) { /* a calibration from measurements */
		snprintf(out->calib_measured, sizeof out->calib_measured, "%s",
			 p->env->fit.measured);
		out->calib_residual = p->env->fit.residual;
		band_calibrated(out, p->env->fit.before, p->env->fit.residual);
	}
	/* the band's fast end never beyond the hardware: the iteration's
	 * hardware FLOPs at the whole dense peak of the GEMMs' precision (the
	 * 16-bit peak mfu and hfu count against when it is unset or has none) */
	{
		int prec = p->sc->training.precision;
		double pk = prec >= 0 && prec < TS_DTYPE_COUNT_ ? p->gpu->peak_flops[prec] : 0.0;
		double p16 = p->gpu->peak_flops[TS_BF16] > 0.0	 ? p->gpu->peak_flops[TS_BF16]
			     : p->gpu->peak_flops[TS_FP16] > 0.0 ? p->gpu->peak_flops[TS_FP16]
								 : p->gpu->peak_flops[TS_FP32];
		double peak = pk > p16 ? pk : p16;
		if (peak > 0.0 && p->sc->gpus > 0)
			band_cap_peak(out, out->hardware_flops_per_iteration /
					       ((double)p->sc->gpus * peak));
	}
	/* the verdict follows from the memory band against capacity */
	snprintf(out->memory_verdict, sizeof out->memory_verdict, "%s",
		 band_memory_verdict(out->band.memory_per_gpu_bytes, out->memory_per_gpu_bytes,
				     out->memory_capacity_bytes));
	/* the headline is the deterministic run; variability the scenario sets
	 * (slow nodes, jitter...) can move the replicas' whole band off it */
	const struct ts_band *it = &out->band.iteration_time_s;
	if (out->iteration_time_s < it->p10 || out->iteration_time_s > it->p90) {
		char w[200];
		snprintf(w, sizeof w,
			 "the iteration time %.4g s is the run without the sim variability draws, "
			 "outside their 80 %% band (median replica %.4g s)",
			 out->iteration_time_s, it->p50);
		run_warn(out, w);
	}
	run_warn_absurd(p, out);
	return 0;
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
