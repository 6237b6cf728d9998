/* Rank placement: which GPU holds which (tensor, context, data, pipeline)
 * coordinate, the groups each rank communicates in, and the rank classes
 * that class mode simulates once with a multiplicity.
 * SPDX-License-Identifier: MIT */
#ifndef TS_PAR_LAYOUT_H
#define TS_PAR_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

/* The parallel dimensions. */
enum layout_dim { LAYOUT_TP, LAYOUT_CP, LAYOUT_DP, LAYOUT_PP, LAYOUT_DIM_COUNT_ };

/* A placement. Plain record filled by layout_init.
 *
 * Global rank r = sum over dimensions of coord[d] x stride[d], the
 * dimension order[0] varying fastest (innermost). The default order is
 * "tp-cp-dp-pp" (Megatron-LM's: tensor-parallel ranks share a node's
 * NVLink, pipeline stages are farthest apart; Narayanan et al. 2021,
 * "Efficient Large-Scale Language Model Training on GPU Clusters Using
 * Megatron-LM", §3.3). Ranks are numbered node by node, so an innermost
 * group of at most gpus_per_node ranks lies in one node.
 *
 * Rank classes (DESIGN.md, "The engine"): in class mode nothing tells apart
 * the ranks of one pipeline stage (they run the same schedule on alike
 * links), so class k is pipeline stage k with tp x cp x dp members; in full
 * mode class k is rank k. Both use the same code path. */
struct layout {
	uint32_t deg[LAYOUT_DIM_COUNT_];    /* degree of each dimension, >= 1 */
	uint32_t order[LAYOUT_DIM_COUNT_];  /* dimensions, innermost first */
	uint32_t stride[LAYOUT_DIM_COUNT_]; /* rank stride of each dimension */
	uint32_t gpus;                      /* product of the degrees */
	uint32_t gpus_per_node;             /* >= 1 */
	bool class_mode;                    /* classes = stages (true) or ranks */
	uint32_t nclasses;                  /* pp in class mode, gpus in full mode */
	/* class mode: groups along d in one class that sit on the same local
	 * GPUs of their nodes as the class's first group (so on the same link
	 * classes), and the same count for the members (index LAYOUT_PP) */
	uint32_t alike[LAYOUT_DIM_COUNT_];
};

/* Fill *l. `order` is NULL or "" for the default, else the four names
 * "tp", "cp", "dp", "pp" joined by '-', innermost first ("dp-tp-cp-pp").
 * Returns 0, or TS_EINVALID (a degree of 0, an order that is not a
 * permutation of the four names) with err filled (its key is
 * "parallel.order"). */
int layout_init(struct layout *l, uint32_t tp, uint32_t cp, uint32_t dp, uint32_t pp,
		const char *order, uint32_t gpus_per_node, bool class_mode,
		struct ts_error *err);

/* The order as text ("tp-cp-dp-pp") into buf (at least 12 bytes). */
const char *layout_order_name(const struct layout *l, char *buf);

/* Coordinate of rank along d, and the rank at the given coordinates. */
uint32_t layout_coord(const struct layout *l, uint32_t rank, enum layout_dim d);
uint32_t layout_rank(const struct layout *l, const uint32_t coord[LAYOUT_DIM_COUNT_]);

/* The rank with rank's coordinates but `c` along d. */
uint32_t layout_move(const struct layout *l, uint32_t rank, enum layout_dim d, uint32_t c);

/* The group of `rank` along d (the deg[d] ranks that differ from it only in
 * coordinate d), in coordinate order, which is increasing rank order and so
 * node-local ranks contiguous, as struct coll_spec wants them. out holds
 * deg[d] ranks. */
void layout_group(const struct layout *l, uint32_t rank, enum layout_dim d, uint32_t *out);

/* Nodes the group of `rank` along d spans. */
uint32_t layout_group_nodes(const struct layout *l, uint32_t rank, enum layout_dim d);

/* Class of a rank, the representative (lowest) rank of class k, its
 * members, and its pipeline stage. */
uint32_t layout_class_of(const struct layout *l, uint32_t rank);
uint32_t layout_class_rep(const struct layout *l, uint32_t k);
uint32_t layout_class_members(const struct layout *l, uint32_t k);
uint32_t layout_class_stage(const struct layout *l, uint32_t k);

/* struct coll_spec's `mult` for a collective over dimension d issued by
 * class k: in class mode the groups along d inside the class that use the
 * same local GPUs as the class's first group (alike[d]: groups on other
 * local GPUs load other link classes, which class mode leaves unbuilt, as
 * they would not meet the first group's traffic in full mode either) times
 * the nodes each spans (only ranks[0]'s node is built, see
 * sim/net/coll.h); 1 in full mode. For a send between pipeline stages (a
 * two-rank chain with one edge) use layout_p2p_mult. */
uint32_t layout_coll_mult(const struct layout *l, uint32_t k, enum layout_dim d);

/* mult of a one-way transfer from each member of class k to its peer: the
 * members on the same local GPU as the class's first rank in class mode
 * (one edge each), 1 in full mode. */
uint32_t layout_p2p_mult(const struct layout *l, uint32_t k);

#endif
