/* Training as a task graph, the one schedule builder of every job:
 * pipeline schedules (GPipe, 1F1B, interleaved 1F1B) over stages, Megatron-LM
 * tensor-parallel collectives on the compute path, data-parallel gradient
 * reduction in buckets with ZeRO sharding, the optimizer step and the input
 * pipeline, on the rank classes of a placement (sim/par/layout.h). Pure
 * data parallelism is the one-stage case: tp = cp = pp = 1, every micro-batch
 * a forward and a backward on each rank, the buckets reduced as they become
 * ready (PyTorch DDP, Megatron-LM's DDP), the step after the last.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PAR_PIPE_H
#define TS_PAR_PIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "net/coll.h"
#include "net/net.h"
#include "par/graph.h"
#include "par/layout.h"
#include "par/unit.h"

enum pipe_schedule { PIPE_GPIPE, PIPE_1F1B, PIPE_INTERLEAVED };

/* A training job. Units are those of the whole model in forward order
 * (embedding, layers, head), with their times on one rank
 * of a tensor-parallel group (already split by tp); the builder cuts them
 * into pp x interleave chunks by pipe_split. */
struct pipe_job {
	const struct dp_unit *units;
	uint32_t nunits;
	enum dp_granularity gran;
	enum pipe_schedule sched;
	uint32_t interleave;	      /* model chunks per stage, v >= 1 (> 1: interleaved) */
	const uint32_t *chunk_layers; /* layers of each of the pp x v chunks (virtual
				       * stage c at [c]; borrowed), summing to the model's
				       * layers; NULL: pipe_even_layers */
	uint32_t m;		      /* micro-batches per pipeline and iteration, >= 1 */
	uint32_t iterations;	      /* >= 1; the first is a warm-up */
	const struct layout *lay;     /* placement (borrowed) */
	/* the m micro-batches run as this many schedules one after the
	 * other, m / flushes each (0 or 1: one); m a multiple of it, and
	 * with interleave m / flushes of pp */
	uint32_t flushes;
	/* tensor parallelism: bytes of one activation b x s x h at its dtype;
	 * each unit's tp_fwd / tp_bwd collectives move this many */
	double tp_bytes;
	bool sp; /* reduce-scatter + all-gather instead of all-reduce */
	/* context parallelism (ring attention over the CP group, lay->deg[CP]
	 * ranks): bytes of the K, V chunk each rank passes on per ring step,
	 * forward, and of K, V with their gradients backward; cp - 1 steps per
	 * layer and pass */
	double cp_fwd_bytes, cp_bwd_bytes;
	/* ... or, with cp_a2a (DeepSpeed-Ulysses; Megatron-Core's cp_comm_type
	 * "a2a"), the bytes of a layer's two all-to-alls over the CP group on
	 * the compute path, cp_a2a_in_frac of them before the attention (Q, K,
	 * V; backward, the output's gradient and Q, K, V's taken as the same
	 * split) and the rest after it */
	bool cp_a2a;
	double cp_a2a_in_frac;
	/* expert parallelism: degree (>= 1, divides lay->deg[DP]; the group is
	 * ep consecutive DP ranks) and bytes each rank puts into one MoE
	 * all-to-all (units' a2a_fwd, a2a_bwd count them) */
	uint32_t ep;
	double a2a_bytes;
	/* the buffers of those exchanges (GRAPH_MEM_BUFFERS), bytes per rank:
	 * the ring's in a forward and in a backward (work_costs
	 * layer_cp_buf_fwd_bytes, layer_cp_buf_bwd_bytes), an MoE layer's
	 * all-to-alls' (layer_a2a_buf_bytes). Each pass holds them from the
	 * start of the first layer of its chunk that exchanges to the end of
	 * the last one (pipe.c, xbuf_window): a layer's attention or MoE block
	 * takes them again as soon as the one before gave them back, and a
	 * window of whole layers gives the same peak at every granularity.
	 * A backward that reruns a forward holds the larger of the two */
	double cp_buf_fwd_bytes, cp_buf_bwd_bytes, a2a_buf_bytes;
	/* Megatron-Core's tp_comm_overlap: a segment's TP collectives start
	 * with its compute (pipelined chunk by chunk with the GEMMs; the
	 * residual of the first and last chunk is not modelled), its compute
	 * takes the units' tpo_*_s longer (the overlapped GEMMs slowed by the
	 * comm kernels beside them, work_tpo_slowdown), and the next segment
	 * waits for both */
	bool tp_overlap;
	/* stragglers (sim/work/straggle.h): every forward, backward and
	 * recompute segment takes (1 + straggle) times as long, the pace of the
	 * job's slowest GPU; >= 0, 0 = every GPU at the median speed */
	double straggle;
	/* data parallelism and ZeRO */
	int zero;				/* 0..3 */
	double bucket_bytes;			/* 0 = one reduction per chunk */
	double first_bucket_bytes;		/* PyTorch DDP's smaller first bucket (the
						 * last units of a chunk); 0 = same */
	bool overlap;				/* reduce during backward */
	double weight_bpp, grad_bpp, optim_bpp; /* bytes per parameter (framework) */
	double gather_bpp; /* bytes per parameter a weight all-gather moves and a gathered
			    * unit holds (work_fw_conventions gather_bytes) */
	double reduce_bpp; /* bytes per parameter of the gradient reduction */
	/* framework buffers held all iteration (GRAPH_MEM_BUFFERS): buffer_bpp
	 * bytes per parameter of the rank (DDP's bucket copies) plus ipg_bpp
	 * per parameter up to ipg_max_bytes (DeepSpeed's reduction bucket);
	 * work_buffer_bytes (sim/work/memory.h) */
	double buffer_bpp, ipg_bpp, ipg_max_bytes;
	/* the optimizer step's own temporaries (GRAPH_MEM_BUFFERS, allocated
	 * when the step starts and freed when it ends): step_temp_bpp bytes per
	 * parameter of the rank's optimizer shard, at most step_temp_max_bytes;
	 * work_step_temp_bytes (sim/work/memory.h). None with offload */
	double step_temp_bpp, step_temp_max_bytes;
	double optimizer_s_per_param; /* optimizer step seconds per parameter on a rank */
	uint32_t optimizer_kernels;
	double launch_s; /* host time per kernel launch, s */
	/* CPU offload (zero >= 1), as DeepSpeed ZeRO-Offload (Ren et al. 2021)
	 * and FSDP's CPUOffload do it: the optimizer state (and with zero = 3
	 * the parameter shard and, with zero >= 2, the gradient shard) lives in
	 * host memory; each reduced gradient shard goes down, the step runs on
	 * the host at cpu_adam_params_per_s (per rank), and the updated weight
	 * shard comes back up (zero 1, 2: after the step; zero 3: before each
	 * unit's all-gather), as fluid transfers over the links from the GPU
	 * to its nearest CPU socket in `net` (borrowed), so they share them
	 * with NIC and input-pipeline traffic */
	bool offload;
	/* ZeRO-3: a unit's gathered weights are freed after its forward and
	 * gathered again for its backward (FSDP reshard_after_forward); false:
	 * gathered at the first micro-batch's forward and kept until the last
	 * one's backward (FSDP2's policy with pipelining) */
	bool reshard;
	/* ZeRO-3: how far a unit's all-gather may run ahead of its compute.
	 * false (FSDP2's fully_shard, FSDP1 with limit_all_gathers, PyTorch's
	 * default): one unit prefetched, a unit's all-gather starts once the
	 * unit before it is next on the compute stream, and its weights are
	 * counted from that issue to its free (the allocator hands out the
	 * all-gather's output when the CPU issues it), so while the next
	 * unit's all-gather is in flight two units' weights are held, as FSDP
	 * holds them (FSDP2 fully_shard prefetches one unit by default).
	 * true (FSDP1 with limit_all_gathers = false): every all-gather starts
	 * as soon as the class's gather stream is free, a forward's after the
	 * work before it on the compute stream (FSDP's root pre-forward makes
	 * its all-gather stream wait for the compute stream), and holds its
	 * gathered weights from its start to its unit's free: the CPU issues
	 * them ahead of the GPU and the caching allocator cannot reuse a
	 * freed unit's block before the compute stream is done with it
	 * (Zhao et al. 2023, "PyTorch FSDP", VLDB, section 4.4; PyTorch
	 * torch/distributed/fsdp/_runtime_utils.py, _unshard and its
	 * _free_event_queue of two events) */
	bool gather_unlimited;
	/* ZeRO-3, limited: the most weight elements of a unit counted from its
	 * all-gather's issue (the prefetch in flight); the rest from when the
	 * unit is next on the compute stream. <= 0: the whole unit (FSDP
	 * prefetches whole units). DeepSpeed prefetches at most
	 * stage3_prefetch_bucket_size elements ahead of the module it runs,
	 * 5e7 by default (deepspeed/runtime/zero/config.py,
	 * prefetch_bucket_size; partitioned_param_coordinator.py,
	 * fetch_sub_module) */
	double gather_ahead_elems;
	const struct ts_net *net;
	double cpu_adam_params_per_s;
	/* NVMe offload (with offload), as DeepSpeed's ZeRO-Infinity swaps the
	 * optimizer state (Rajbhandari et al. 2021, "ZeRO-Infinity: Breaking
	 * the GPU Memory Wall for Extreme Scale Deep Learning", SC'21): the
	 * optim_bpp bytes per parameter of a rank's shard live on its node's
	 * drives, and the host step runs over sub-groups of at most
	 * nvme_subgroup_params parameters: read sub-group i from NVMe, step
	 * it on the CPU, write it back. With pipeline_read and pipeline_write
	 * (DeepSpeed's PipelinedOptimizerSwapper) the read of i + 1 is issued
	 * once i is read and the step reaches i, and the write of i runs
	 * while i + 1 steps; the step of i + 1 waits for the write of i - 1
	 * to finish, and the step ends with the last write. Reads and writes
	 * are fluid activities on one resource per node that every GPU of the
	 * node shares, read at nvme_read_Bps and written at nvme_write_Bps
	 * (bytes/s of all the node's drives; a drive busy writing does not
	 * read), on "nvme read" and "nvme write" streams; the breakdown charges
	 * the time the GPU waits for them to exposed communication, as the
	 * offload copies over PCIe. The gradients are not swapped to NVMe. */
	bool nvme;
	double nvme_read_Bps, nvme_write_Bps; /* > 0 with nvme */
	/* Activation offload to host memory, as Transformer Engine's CPU
	 * offload runs it under Megatron-Core's cpu_offloading with
	 * cpu_offloading_num_layers = act_offload_layers (one stage, one
	 * chunk: pp = 1; at most the model's layers - 1). Layers 1 ..
	 * act_offload_layers (transformer blocks, counted from the input) copy
	 * the activations their forward saved (act_bytes of their units, not
	 * the logits) to the host on a "offload d2h" stream once their forward
	 * has run; the forward of the next layer allocates its own, and at its
	 * end the compute stream waits for that copy and frees the offloaded
	 * layer's bytes (a double buffer: layer l's activations are held until
	 * layer l + 1's forward ends, so a copy slower than a layer's forward
	 * stalls compute). In backward, layer l's activations come back on an
	 * "offload h2d" stream once the backward of layer l + 1 starts (after
	 * the reload before it), taking their bytes when the copy starts, and
	 * layer l's backward waits for the copy; its backward frees them as
	 * without offload. The copies use the routes of `offload` (`net`). At
	 * stage granularity a pass is cut at the layers' edges where either
	 * side offloads, so its memory is layer's. 0 = none. */
	uint32_t act_offload_layers;
	double nvme_subgroup_params; /* > 0 with nvme */
	/* input pipeline (stage s of class k at [k * nstages + s]): each
	 * micro-batch is loaded for the classes of the
	 * first stage before its first forward there; NULL: every batch is
	 * ready when the GPU wants it */
	const struct dp_data *data;
};

/* Parameters per sub-group of the NVMe-offloaded step: DeepSpeed's default
 * zero_optimization.sub_group_size, 1e9 (deepspeed/runtime/zero/config.py).
 * The pipelined swap modelled is DeepSpeed's offload_optimizer with
 * pipeline_read and pipeline_write set (both default to false there). */
#define PIPE_NVME_SUBGROUP_PARAMS 1e9
/* Most sub-groups a rank's step is split into (a bound on the tasks built;
 * beyond it the sub-groups grow). */
#define PIPE_NVME_MAX_SUBGROUPS 1024u

/* Updates per second of DeepSpeed's CPU-Adam on the host of one node
 * (stated assumption: the step is memory-bound, about 28 bytes of fp32
 * master weight, two moments and gradient read and written per parameter,
 * at about 110 GB/s of a two-socket server's DDR bandwidth; ZeRO-Offload's
 * CPU-Adam is vectorised to reach it, Ren et al. 2021, "ZeRO-Offload:
 * Democratizing Billion-Scale Model Training", USENIX ATC, §4.3). The
 * node's GPUs share it: each rank steps its shard at this / GPUs per
 * node. */
#define PIPE_CPU_ADAM_PARAMS_PER_S_NODE 4e9

/* What the builder made, for measuring. Arrays owned; free with
 * pipe_built_free. */
struct pipe_built {
	uint32_t nclasses;
	uint32_t *compute;  /* per class: compute stream */
	uint32_t *pool;	    /* per class: memory pool */
	uint32_t *opt;	    /* per class: optimizer task of the last iteration */
	uint32_t *iter_end; /* per iteration: a mark after every class's optimizer */
	uint32_t niter;
	uint32_t data_streams[DP_DATA_MAX_STAGES]; /* input-pipeline streams of the first
						    * class of the first stage */
	bool data_class_set;			   /* data_streams were made */
	uint32_t *loaded;     /* per batch read by that class (the simulated iterations'
			       * micro-batches, then a queue's worth ahead): the task
			       * of its last loader stage; NULL without a loader */
	uint32_t nloaded;     /* entries of loaded */
	uint32_t per_iter;    /* batches an iteration of that class takes */
	uint32_t *stream_cls; /* per stream of the graph: the class it belongs to */
	uint32_t nstreams;    /* entries of stream_cls */
	size_t capsc;	      /* capacity of stream_cls */
};

/* Bucket assignment in reverse parameter order, as PyTorch DDP does it:
 * tensors (here: units with gradients, last unit first) fill a bucket until
 * it holds at least `cap` bytes (the first bucket at least `first`); a unit
 * bigger than the cap ends up alone in its bucket. Writes, per unit, its
 * bucket index (0 = first reduced), and returns the number of buckets
 * (0 when no unit has gradients). cap == 0 puts everything in one bucket. */
uint32_t dp_assign_buckets(const struct dp_unit *units, uint32_t n, double cap, double first,
			   uint32_t *bucket_of);

/* Layers of chunk c of `chunks` when L layers are dealt out as evenly as
 * possible: every chunk gets floor(L / chunks), and the L mod chunks extra
 * layers go to the middle chunks 1, 2, ... first, then to the last and the
 * first, which also carry the head and the embedding. Llama 3 405B's 126
 * layers on 16 stages so get 7 layers on the first and last stages and 8 on
 * the others, as Meta ran it (Llama Team 2024, "The Llama 3 Herd of
 * Models", §3.3.2). One chunk gets all L. */
uint32_t pipe_even_layers(uint32_t L, uint32_t chunks, uint32_t c);

/* First unit of each chunk: chunk c (virtual stage c, held by stage c mod
 * pp) is units [first[c], first[c+1]); first has chunks + 1 entries. The
 * embedding units join chunk 0 and the head units the last chunk
 * (Megatron-LM places them so). The L layers (units with 1 <= layer <= L)
 * go layers[c] to chunk c, in order (a chunk of no layers holds only the
 * embedding or the head, or nothing), or with layers NULL as
 * pipe_even_layers deals them. One chunk holds every unit, whatever their
 * layers. Returns 0 or TS_EINVALID when layers is NULL and there are fewer
 * layers than chunks (more than one), or when layers does not sum to L. */
int pipe_split(const struct dp_unit *units, uint32_t n, uint32_t chunks, const uint32_t *layers,
	       uint32_t *first);

/* Add the job's tasks to g; GPU resources are created in f. Returns 0,
 * TS_ENOMEM, or TS_EINVALID (empty job, micro-batches not a multiple of pp
 * for the interleaved schedule, fewer layers than chunks) with err filled.
 *
 * Schedules, per stage s of p, m micro-batches (Narayanan et al. 2021,
 * §2.2): GPipe runs every forward, then every backward; 1F1B runs
 * min(p - s - 1, m) forwards, then alternates one forward and one backward,
 * then the remaining backwards, so that at most p - s micro-batches hold
 * activations; interleaved runs Megatron-LM's order over v chunks
 * (warm-up (p - s - 1) x 2 + (v - 1) x p forwards). Activations and their
 * gradients go from chunk to chunk as one-way transfers (GRAPH_P2P) over
 * the links between the two stages' GPUs. */
/* With graph_keep_detail(g) set before the build, every task gets its
 * struct graph_detail (micro-batch, layers, FLOPs, bytes, the class that
 * issued it and a pipeline transfer's receiver) for traces. */
int pipe_build(struct ts_graph *g, struct ts_fluid *f, const struct pipe_job *job,
	       struct pipe_built *out, struct ts_error *err);
void pipe_built_free(struct pipe_built *b);

#endif
