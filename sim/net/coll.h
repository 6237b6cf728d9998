/* Collectives as fluid activities: NCCL's pipelined ring, one activity per
 * channel, with NCCL's latency model and protocol choice.
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

enum coll_algo { COLL_ALGO_AUTO, COLL_ALGO_RING, COLL_ALGO_COUNT_ };

/* Names ("all_reduce", "LL128", "auto", "ring") and their inverses (-1 if
 * unknown). */
const char *coll_op_name(enum coll_op op);
int coll_op_parse(const char *s);
const char *coll_proto_name(int proto);
int coll_proto_parse(const char *s);
const char *coll_algo_name(enum coll_algo a);
int coll_algo_parse(const char *s);

/* Bytes each edge of a ring carries per byte of the collective's size, for
 * n ranks: all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n,
 * broadcast 1 (n-1 edges used). nccl-tests' busbw = algbw x this factor
 * (nccl-tests doc/PERFORMANCE.md), so a ring that runs every edge at B
 * bytes/s shows busbw = B. */
double coll_bus_factor(enum coll_op op, uint32_t n);

/* One collective to run. `bytes` is the size as nccl-tests counts it: the
 * all-reduce buffer, the all-gather output, the reduce-scatter input, the
 * broadcast buffer. */
struct coll_spec {
	enum coll_op op;
	const uint32_t *ranks;  /* global GPU ranks, node-local ranks contiguous, in ring order */
	uint32_t nranks;        /* >= 1 */
	double bytes;           /* >= 0 */
	/* Class mode only: the number of node-local pieces this collective stands
	 * for, i.e. (identical groups running it at once) x (nodes each group
	 * spans); only the ring edges leaving ranks[0]'s node are built, and the
	 * engine spreads their load evenly over each link class. Must be 1 in
	 * full mode. */
	uint32_t mult;
	int algo;               /* enum coll_algo: COLL_ALGO_AUTO (0) or a forced one */
	int proto;              /* enum coll_proto: COLL_PROTO_AUTO (0) or a forced one */
	ts_event_fn done;       /* called once every channel is done (may be NULL) */
	void *ctx;
	uint64_t arg;
	uint32_t tag;           /* passed to the fluid observer */
};

/* What was chosen and predicted before contention. */
struct coll_plan {
	int algo, proto;
	uint32_t channels;      /* rings, each on its own NIC when crossing nodes */
	uint32_t nodes;         /* nodes the group spans */
	double latency_s;       /* NCCL-model latency term, s */
	double bus_Bps;         /* bottleneck busbw estimate without other traffic, bytes/s */
	double est_s;           /* latency + bytes x bus factor / (bus_Bps x protocol factor) */
};

struct ts_coll;

/* Create the collective launcher over `net` (borrowed). Returns 0 or
 * TS_ENOMEM. */
int coll_create(struct ts_coll **out, struct ts_net *net);
void coll_destroy(struct ts_coll *cc);

/* Plan without starting: algorithm, protocol, channels, latency. Returns 0,
 * TS_EINVALID (bad spec: no ranks, a rank out of range, a repeated rank,
 * mult != 1 in full mode, negative or NaN bytes) with `err` filled, or
 * TS_EUNSUPPORTED (an algorithm not built yet). */
int coll_plan(struct ts_coll *cc, const struct coll_spec *spec, struct coll_plan *plan,
	      struct ts_error *err);

/* Start the collective now; spec->done runs when it is over. Writes the plan
 * if `plan` is not NULL. Errors as coll_plan, plus TS_ENOMEM. */
int coll_start(struct ts_coll *cc, const struct coll_spec *spec, struct coll_plan *plan,
	       struct ts_error *err);

#endif
