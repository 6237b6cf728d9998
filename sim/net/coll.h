/* Collectives as fluid activities: NCCL's pipelined ring, double binary
 * tree and NVLink SHARP, all-to-all and send/recv, with NCCL's tuning model
 * choosing algorithm and protocol by size.
 * SPDX-License-Identifier: MIT */
#ifndef TS_NET_COLL_H
#define TS_NET_COLL_H

#include <stdint.h>

#include "base/err.h"
#include "engine/evq.h"
#include "net/net.h"

enum coll_op {
	COLL_ALL_REDUCE,
	COLL_ALL_GATHER,
	COLL_REDUCE_SCATTER,
	COLL_BROADCAST,
	COLL_REDUCE,
	COLL_ALL_TO_ALL,
	COLL_SEND_RECV,
	COLL_OP_COUNT_
};

/* NCCL's protocols; AUTO (0, what a zeroed spec holds) lets the tuning model
 * choose by size. */
enum coll_proto {
	COLL_PROTO_AUTO,
	COLL_PROTO_LL,
	COLL_PROTO_LL128,
	COLL_PROTO_SIMPLE,
	COLL_PROTO_COUNT_
};

/* NCCL's algorithms; AUTO (0) lets the tuning model choose. TREE and NVLS
 * serve all-reduce only (as in NCCL 2.12-2.18), NVLS inside one node on an
 * NVLink SHARP switch (hw_cluster_nvls); COLLNET across nodes on a fabric
 * whose switches reduce in the network (hw_cluster_collnet). P2P is what
 * all-to-all and send/recv run as (not a choice). */
enum coll_algo {
	COLL_ALGO_AUTO,
	COLL_ALGO_RING,
	COLL_ALGO_TREE,
	COLL_ALGO_NVLS,
	COLL_ALGO_COLLNET,
	COLL_ALGO_P2P,
	COLL_ALGO_COUNT_
};

/* Names ("all_reduce", "send_recv", "LL128", "auto", "ring", "nvls") and
 * their inverses (-1 if unknown). */
const char *coll_op_name(enum coll_op op);
int coll_op_parse(const char *s);
const char *coll_proto_name(int proto);
int coll_proto_parse(const char *s);
const char *coll_algo_name(enum coll_algo a);
int coll_algo_parse(const char *s);

/* nccl-tests' bus factor for n ranks (doc/PERFORMANCE.md): all-reduce
 * 2(n-1)/n, all-gather, reduce-scatter and all-to-all (n-1)/n, broadcast,
 * reduce and send/recv 1; busbw = algbw x this factor. It is also the bytes
 * each ring edge carries per byte of the collective (broadcast and reduce use
 * n-1 edges), so a ring that runs every edge at B bytes/s shows busbw = B.
 * 0 for n <= 1. */
double coll_bus_factor(enum coll_op op, uint32_t n);

/* One collective to run. `bytes` is the size as nccl-tests counts it: the
 * all-reduce buffer, the all-gather output, the reduce-scatter input, the
 * broadcast and reduce buffer, the all-to-all buffer of each rank (1/n of it
 * to every rank), the buffer each rank sends to the next in send/recv (rank
 * i to rank i+1 mod n, as sendrecv_perf). */
struct coll_spec {
	enum coll_op op;
	const uint32_t *ranks; /* global GPU ranks, node-local ranks contiguous, in ring order */
	uint32_t nranks;       /* >= 1 */
	double bytes;	       /* >= 0 */
	/* Back-to-back repeats (0 or 1: one): the collective runs as `count`
	 * identical collectives of `bytes` each, one after the other with
	 * nothing between, i.e. count x its latency then count x its bytes on
	 * the same channels, algorithm and protocol (chosen for `bytes`). Stage
	 * granularity issues a pass's tensor-parallel collectives so. */
	uint32_t count;
	/* Class mode only: the number of node-local pieces this collective stands
	 * for, i.e. (identical groups running it at once) x (nodes each group
	 * spans); only the ring edges leaving ranks[0]'s node are built, and the
	 * engine spreads their load evenly over each link class. Must be 1 in
	 * full mode. */
	uint32_t mult;
	int algo;	  /* enum coll_algo: COLL_ALGO_AUTO (0) or a forced one
			   * (ring, tree, nvls, collnet) */
	int proto;	  /* enum coll_proto: COLL_PROTO_AUTO (0) or a forced one */
	ts_event_fn done; /* called once every channel is done (may be NULL) */
	void *ctx;
	uint64_t arg;
	uint32_t tag; /* passed to the fluid observer */
	/* 0, or a key naming the contents of `ranks`: for the lifetime of the
	 * ts_coll, specs with one nonzero key have the same ranks, so a start
	 * finds its plan without reading them (a task graph passes where it
	 * stored them; a data-parallel group of 131,072 ranks is 512 KiB to
	 * hash and compare on every start otherwise). */
	uint64_t ranks_key;
};

/* What was chosen and predicted before contention. */
struct coll_plan {
	int algo, proto;
	uint32_t channels; /* activities: rings or trees, each on its own NIC when
			    * crossing nodes; 1 for NVLS and point to point */
	uint32_t nodes;	   /* nodes the group spans */
	double latency_s;  /* NCCL-model latency term, s */
	double bus_Bps;	   /* busbw (algbw x bus factor) the chosen algorithm and
			    * protocol reach alone, from the fluid bottleneck, bytes/s */
	double est_s;	   /* NCCL tuning-model time that chose them, s */
};

struct ts_coll;

/* Create the collective launcher over `net` (borrowed). Returns 0 or
 * TS_ENOMEM. */
int coll_create(struct ts_coll **out, struct ts_net *net);
void coll_destroy(struct ts_coll *cc);

/* Plan without starting: algorithm, protocol, channels, latency. The choice
 * follows NCCL's tuning model (src/graph/tuning.cc, see coll.c): the least
 * latency + bytes / algbw among enabled algorithms and protocols, with
 * NCCL's per-algorithm bandwidth factors. Returns 0, TS_EINVALID (bad spec:
 * no ranks, a rank out of range, a repeated rank, mult != 1 in full mode,
 * negative or NaN bytes, an unknown op or protocol) with `err` filled, or
 * TS_EUNSUPPORTED with `err` naming the reason (a forced algorithm that
 * cannot run the op or group: tree or nvls for other than all-reduce, nvls
 * across nodes or without NVLink SHARP, collnet without in-network
 * reduction; a protocol NVLS or point to point does not use). */
int coll_plan(struct ts_coll *cc, const struct coll_spec *spec, struct coll_plan *plan,
	      struct ts_error *err);

/* Start the collective now; spec->done runs when it is over. Writes the plan
 * if `plan` is not NULL. Errors as coll_plan, plus TS_ENOMEM. */
int coll_start(struct ts_coll *cc, const struct coll_spec *spec, struct coll_plan *plan,
	       struct ts_error *err);

#endif
