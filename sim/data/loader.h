/* The input pipeline of a data-parallel job: storage reads, CPU workers
 * that decode and batch, the host-to-device copy, as fluid tasks of the
 * task graph on the cluster's storage, CPU and link resources; and, after
 * the run, which stage limits it and what would fix it.
 * SPDX-License-Identifier: MIT */
#ifndef TS_DATA_LOADER_H
#define TS_DATA_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "data/catalog.h"
#include "io/scenario.h"
#include "net/net.h"
#include "par/unit.h"
#include "par/graph.h"

/* Share of a node's RAM the page cache may hold: an assumption (the OS, the
 * training processes and their workers' copies of the model and batches
 * keep the rest). A dataset no larger is read from memory after the first
 * epoch. */
#define DATA_PAGE_CACHE_FRACTION 0.75
/* A pageable (not pinned) host buffer is copied by the CUDA driver through
 * a pinned staging buffer, one extra host copy per transfer: an assumption
 * that this halves the rate the PCIe path would give a pinned copy. */
#define DATA_PAGEABLE_FRACTION 0.5
/* Data stall above this fraction of the iteration makes a run loader-bound
 * (the verdict of data_loader_explain and of the validation tests). */
#define DATA_LOADER_BOUND_FRACTION 0.05

/* Stages of the pipeline, in order (absent stages are skipped). */
enum data_stage { DATA_READ, DATA_DECODE, DATA_H2D, DATA_STAGE_COUNT_ };

/* What the pipeline does per batch on one GPU. Plain record. */
struct data_plan {
	struct data_dataset dataset; /* the dataset */
	struct data_storage storage; /* where batches are read from (page-cache when cached) */
	char storage_name[48];	     /* the storage the scenario names (before caching) */
	bool cached;		     /* the dataset fits in the page cache: reads from memory */
	bool pinned;		     /* host batches in pinned memory */
	double samples_per_batch;    /* samples per micro-batch per GPU */
	double read_bytes;	     /* bytes read per batch */
	double decode_core_s;	     /* CPU core-seconds per batch */
	double h2d_bytes;	     /* bytes copied to the GPU per batch */
	uint32_t workers;	     /* workers per GPU */
	uint32_t cores;		     /* cores of a node for workers, 0 = not given (unbounded) */
	double dataset_bytes;	     /* the whole dataset on disk */
	double cache_bytes;	     /* page cache of a node (0 when its RAM is not given) */
	uint32_t queue;		     /* batches loaded ahead */
	bool active;		     /* false: nothing to load (synthetic data) */
};

/* What the input pipeline reads, resolved by the plan (sim/plan/plan.h)
 * once: the dataset, the storage it is read from and the node's page
 * cache. Plain record. */
struct data_input {
	struct data_dataset dataset;
	struct data_storage storage;	/* the storage the scenario names */
	struct data_storage page_cache; /* the catalog's "page-cache" storage */
	bool has_page_cache;		/* page_cache was found */
};

/* One rank class the input pipeline feeds: the `ngpus` GPUs of one node
 * from global rank gpu0 stand for its members (each link and node resource
 * they use enters with coefficient 1/ngpus, times node_weight for the
 * node's storage and CPUs), and each member loads `share` of a micro-batch
 * (1 under data parallelism; 1/(tp x cp) for a GPU of the first pipeline
 * stage, whose tensor- and context-parallel group shares a micro-batch;
 * 0 for a class that loads nothing). node_weight is 1 when the class's
 * members are spread over every node alike; nodes / (nodes holding them)
 * when only some nodes do (class mode's node resources stand for every
 * node). */
struct data_feed {
	uint32_t gpu0, ngpus;
	double share;
	double node_weight;
};

struct data_loader;

/* The input pipeline of scenario sc (borrowed; its cluster, training and
 * data settings) reading input `in` (borrowed), for the rank classes
 * feeds[0..nfeeds) (class_mode: node resources are one class of every
 * node; otherwise one resource per node): create its resources in f
 * (storage, CPU pools; the links come from net). Stage s of class k is
 * at dp_data.stages[k * nstages + s]. Opens no file. Returns 0 or
 * TS_ENOMEM. Free with data_loader_destroy. */
int data_loader_create(const struct ts_scenario *sc, const struct data_input *in,
		       const struct ts_net *net, struct ts_fluid *f, const struct data_feed *feeds,
		       uint32_t nfeeds, bool class_mode, struct data_loader **out,
		       struct ts_error *err);
void data_loader_destroy(struct data_loader *l);

/* The pipeline for pipe_job.data; NULL when nothing is loaded. Owned by l. */
const struct dp_data *data_loader_job(const struct data_loader *l);
const struct data_plan *data_loader_plan(const struct data_loader *l);

/* After graph_run: the busy fraction of each stage's stream of rank class 0
 * in the window (t0, t1] (the stage nearest 1 limits the loader). `streams`
 * are the data streams pipe_build made (pipe_built.data_streams). */
void data_loader_busy(const struct data_loader *l, const struct ts_graph *g,
		      const uint32_t *streams, ts_time t0, ts_time t1,
		      double busy[DATA_STAGE_COUNT_]);

/* Whether a run with this data stall per iteration is loader-bound (stall
 * above DATA_LOADER_BOUND_FRACTION of the iteration). */
bool data_loader_bound(double data_stall_s, double iteration_s);

/* One line for the report when the run is loader-bound: the share of the
 * iteration lost, the stage that limits (from `busy`) and what would fix it
 * (more workers while cores are left, faster storage or caching, pinned
 * memory). Writes to buf (size n). */
void data_loader_explain(const struct data_loader *l, const double busy[DATA_STAGE_COUNT_],
			 double data_stall_s, double iteration_s, char *buf, size_t n);

#endif
