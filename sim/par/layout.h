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
 * Rank classes (DESIGN.md, "The engine"): in class mode the ranks of one
 * pipeline stage that sit on the same local GPU of their nodes form a class
 * (one member per node of the stage): they run the same schedule on links
 * of the same link classes (sim/net/net.h splits those by stage), so full
 * mode, where class k is rank k, gives them the same times whenever the
 * nodes of a stage are alike. Classes are no coarser than the link
 * classes: a stage's ranks on other local GPUs load other links (their own
 * NVLink ports, PCIe switches and NICs) and are classes of their own, so
 * every group's traffic that meets another in full mode meets it in class
 * mode too. Both modes use the same code path.
 *
 * Where the node's symmetry makes its GPUs alike (sim/net/net.h,
 * net_node_symmetric) their link classes merge, and so can the classes of
 * a stage: layout_merge makes one class of each stage, its members all the
 * stage's ranks (8 times fewer classes on a DGX). */
#define LAYOUT_MAX_GPN 128u /* class mode: most GPUs per node */
struct layout {
	uint32_t deg[LAYOUT_DIM_COUNT_];    /* degree of each dimension, >= 1 */
	uint32_t order[LAYOUT_DIM_COUNT_];  /* dimensions, innermost first */
	uint32_t stride[LAYOUT_DIM_COUNT_]; /* rank stride of each dimension */
	uint32_t gpus;			    /* product of the degrees */
	uint32_t gpus_per_node;		    /* >= 1 */
	bool class_mode;		    /* classes = (stage, local GPU) or ranks */
	bool merged;			    /* class mode: one class per stage (layout_merge) */
	uint32_t nclasses;		    /* pp x per in class mode, gpus in full mode */
	/* class mode; stage s's ranks are stage 0's plus s x stride[PP], so
	 * one table of stage 0 serves all stages. Class s x per + i holds the
	 * ranks of stage s whose local GPU is (res[i] + s x stride[PP]) mod
	 * gpus_per_node. */
	uint32_t per;			  /* classes per stage */
	uint32_t res_idx[LAYOUT_MAX_GPN]; /* local GPU in stage 0 -> i, UINT32_MAX if none */
	uint32_t res[LAYOUT_MAX_GPN];	  /* i -> local GPU in stage 0 */
	uint32_t cnt[LAYOUT_MAX_GPN];	  /* i -> members */
	uint32_t rep0[LAYOUT_MAX_GPN];	  /* i -> lowest member in stage 0 */
	/* i -> groups along d whose first rank (coordinate d = 0) is in the
	 * class, and the lowest such first rank in stage 0 */
	uint32_t lead[LAYOUT_DIM_COUNT_][LAYOUT_MAX_GPN];
	uint32_t base0[LAYOUT_DIM_COUNT_][LAYOUT_MAX_GPN];
};

/* Fill *l. `order` is NULL or "" for the default, else the four names
 * "tp", "cp", "dp", "pp" joined by '-', innermost first ("dp-tp-cp-pp").
 * Returns 0, or TS_EINVALID (a degree of 0, an order that is not a
 * permutation of the four names, more than LAYOUT_MAX_GPN GPUs per node in
 * class mode) with err filled. */
int layout_init(struct layout *l, uint32_t tp, uint32_t cp, uint32_t dp, uint32_t pp,
		const char *order, uint32_t gpus_per_node, bool class_mode, struct ts_error *err);

/* In class mode, make one class of each pipeline stage (all its local
 * GPUs together), for a net whose link classes are merged over the node's
 * GPU symmetry (net_create_sym): `nodes` nodes of gpus_per_node GPUs each
 * must hold the layout's ranks exactly, and each node ranks of one stage
 * only (the pipeline stride a multiple of gpus_per_node), so that the
 * net's split by stage (net_create_grouped's node groups) keeps every
 * stage's links apart. Returns true when merged; false (l unchanged) in
 * full mode, when already merged, or when the placement does not allow it.
 * Never fails otherwise. */
bool layout_merge(struct layout *l, uint32_t nodes);

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

/* The groups along d that class k leads, i.e. whose first rank (coordinate
 * d = 0) is a member of k: returns their number (0: k leads none) and puts
 * the lowest such first rank in *base. Groups led by one class are alike:
 * their members sit on the same local GPUs, so their member classes are
 * the same. Full mode: 1 and *base = k when rank k has coordinate 0 along
 * d, else 0. */
uint32_t layout_group_lead(const struct layout *l, uint32_t k, enum layout_dim d, uint32_t *base);

/* struct coll_spec's `mult` for the collective over dimension d led by
 * class k (layout_group_lead > 0): in class mode the groups k leads times
 * the nodes each spans (only the first rank's node is built, see
 * sim/net/coll.h); 1 in full mode. For a send between pipeline stages use
 * layout_p2p_mult. */
uint32_t layout_coll_mult(const struct layout *l, uint32_t k, enum layout_dim d);

/* mult of a one-way transfer from each member of class k to its peer (one
 * edge each): the members of k in class mode, 1 in full mode. */
uint32_t layout_p2p_mult(const struct layout *l, uint32_t k);

#endif
