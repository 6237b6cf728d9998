/* Private to sim/net: the collective launcher's state shared by coll.c (API,
 * tuning model, start) and coll_build.c (each algorithm's activities).
 * SPDX-License-Identifier: MIT */
#ifndef TS_NET_NET_INT_H
#define TS_NET_NET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "engine/fluid.h"
#include "net/coll.h"

#define COLL_NONE UINT32_MAX
#define COLL_MAX_ROUTE 64

/* The activities of one algorithm over one group: activity k uses
 * uses[off[k] .. off[k+1]), coefficients in bytes per byte of that
 * activity's progress at full wire efficiency; every activity carries an
 * equal share of the collective's bytes. */
struct coll_shape {
	bool built;
	uint32_t nact;
	struct fluid_use *uses;
	size_t capuses;
	uint32_t *off;
	size_t capoff;
	double algbw_Bps; /* nact x the common activity rate at the bottleneck, alone */
};

struct coll_pending {
	uint32_t left;
	uint32_t next_free;
	ts_event_fn done;
	void *ctx;
	uint64_t arg;
};

/* A collective started before, as coll_start runs it again: the spec's
 * key (everything coll_plan reads of it) and what it chose, with its
 * channels' uses already scaled by the efficiency. */
#define COLL_MEMO 512	 /* slots */
#define COLL_MEMO_WAYS 8 /* slots a spec may take (of one set) */
#define COLL_RKEYS 256	 /* remembered hashes of keyed ranks */
struct coll_memo {
	bool used;
	uint64_t last_use; /* ts_coll's memo_clock when last found or made */
	enum coll_op op;
	int algo, proto;
	uint32_t mult, n;
	uint64_t hash;
	uint64_t ranks_key; /* the spec's coll_spec.ranks_key (0: none) */
	double bytes;
	uint32_t *ranks;
	size_t capranks;
	struct coll_plan plan;
	double bound; /* flow bound of each channel, 0 for none */
	ts_time lat;
	uint32_t nact;
	struct fluid_use *uses; /* channel k's at [off[k], off[k + 1]) */
	size_t capuses;
	uint32_t *off;
	size_t capoff;
};

struct ts_coll {
	struct ts_net *net;
	/* collectives started, in the set of slots of the hash of the spec's
	 * key (a new one takes the least recently used slot of its set); a
	 * pipeline's tensor-parallel all-reduces, sends and bucket reductions
	 * repeat a few specs thousands of times */
	struct coll_memo memo[COLL_MEMO];
	uint64_t memo_clock;
	/* the hash of the ranks of recent nonzero coll_spec.ranks_key values,
	 * direct-mapped by the key */
	struct {
		uint64_t key, hash;
	} rkey[COLL_RKEYS];
	struct coll_pending *pend;
	size_t npend, cappend;
	uint32_t free_pend;
	double *acc; /* per fluid resource: coefficient being built */
	size_t capacc;
	uint32_t *touched;
	size_t ntouched, captouched;
	uint32_t *order; /* one channel's ring order */
	size_t caporder;
	uint32_t *nics; /* channel -> NIC index */
	size_t capnics;
	uint32_t *blk; /* node block b of the group: ranks [blk[b], blk[b+1]) */
	size_t capblk;
	uint32_t *seen_gpu, *seen_node; /* validation stamps */
	size_t capseen_gpu, capseen_node;
	uint32_t epoch;
	/* The group last planned (op, ranks, mult) and what is known of it;
	 * the buckets of one iteration all reduce over one group. */
	bool have_last;
	enum coll_op last_op;
	uint32_t last_mult, last_n;
	uint64_t last_hash;
	uint32_t *last_ranks;
	size_t caplast;
	uint32_t nodes; /* node blocks of the group */
	uint32_t nch;	/* channels: distinct NICs of the first node (1 inside a node) */
	bool intra_pci; /* a node-local ring edge crosses PCIe or host memory */
	struct coll_shape shape[COLL_ALGO_COUNT_];
};

/* Build cc->shape[algo] for spec `s` (validated; cc->blk, nodes, nch and
 * nics set). Returns 0, TS_ENOMEM, or TS_EINVALID / TS_EUNSUPPORTED with
 * `err` filled (no route, a group NVLS cannot serve). */
int coll_build_ring(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err);
int coll_build_tree(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err);
int coll_build_nvls(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err);
int coll_build_collnet(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err);
int coll_build_p2p(struct ts_coll *cc, const struct coll_spec *s, struct ts_error *err);

#endif
