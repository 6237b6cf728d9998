/* Rank placement.
 *
 * A rank is a mixed-radix number whose digits are its coordinates, the
 * innermost dimension the least significant digit. Groups are the ranks
 * that differ in one digit; a class in class mode is the set of ranks with
 * one pipeline coordinate and one local GPU. Everything is arithmetic on
 * the degrees and strides but for a table of stage 0's classes (at most
 * LAYOUT_MAX_GPN rows), so 16,384-GPU layouts cost nothing.
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "par/layout.h"

static const char *const dim_names[LAYOUT_DIM_COUNT_] = {"tp", "cp", "dp", "pp"};

/* Fill the class tables of class mode: the classes of stage 0 (the ranks
 * with pp coordinate 0), in order of their lowest rank, one per local GPU,
 * or with `merge` one of all of them. */
static void class_tables(struct layout *l, bool merge)
{
	uint32_t gpus_per_node = l->gpus_per_node;
	memset(l->res, 0, sizeof l->res);
	memset(l->cnt, 0, sizeof l->cnt);
	memset(l->rep0, 0, sizeof l->rep0);
	memset(l->lead, 0, sizeof l->lead);
	memset(l->base0, 0, sizeof l->base0);
	l->per = 0;
	for (uint32_t q = 0; q < LAYOUT_MAX_GPN; q++)
		l->res_idx[q] = UINT32_MAX;
	for (uint32_t r = 0; r < l->gpus; r++) {
		if (layout_coord(l, r, LAYOUT_PP))
			continue;
		uint32_t q = merge ? 0 : r % gpus_per_node, i = l->res_idx[q];
		if (i == UINT32_MAX) {
			i = l->res_idx[q] = l->per++;
			l->res[i] = q;
			l->rep0[i] = r;
		}
		l->cnt[i]++;
		for (int d = 0; d < LAYOUT_DIM_COUNT_; d++) {
			if (layout_coord(l, r, (enum layout_dim)d))
				continue;
			if (!l->lead[d][i]++)
				l->base0[d][i] = r;
		}
	}
	if (merge)
		for (uint32_t q = 0; q < gpus_per_node; q++)
			l->res_idx[q] = 0;
	l->merged = merge;
	l->nclasses = l->deg[LAYOUT_PP] * l->per;
}

int layout_init(struct layout *l, uint32_t tp, uint32_t cp, uint32_t dp, uint32_t pp,
		const char *order, uint32_t gpus_per_node, bool class_mode, struct ts_error *err)
{
	memset(l, 0, sizeof *l);
	uint32_t deg[LAYOUT_DIM_COUNT_] = {tp, cp, dp, pp};
	for (int d = 0; d < LAYOUT_DIM_COUNT_; d++)
		if (deg[d] == 0)
			return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel",
					    "found %s = 0, "
					    "expected a degree >= 1",
					    dim_names[d]);
	if (gpus_per_node == 0)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "gpus_per_node",
				    "found 0, expected >= 1");
	if (!order || !*order) {
		for (uint32_t d = 0; d < LAYOUT_DIM_COUNT_; d++)
			l->order[d] = d;
	} else {
		bool seen[LAYOUT_DIM_COUNT_] = {false};
		const char *p = order;
		for (int i = 0; i < LAYOUT_DIM_COUNT_; i++) {
			int found = -1;
			for (int d = 0; d < LAYOUT_DIM_COUNT_; d++)
				if (!strncmp(p, dim_names[d], 2))
					found = d;
			char sep = found >= 0 ? p[2] : '?';
			if (found < 0 || seen[found] || (i < 3 && sep != '-') || (i == 3 && sep))
				return ts_error_set(err, TS_EINVALID, NULL, 0, "parallel.order",
						    "found \"%s\", expected tp, cp, dp and pp each "
						    "once, joined by '-', innermost first "
						    "(\"tp-cp-dp-pp\")",
						    order);
			seen[found] = true;
			l->order[i] = (uint32_t)found;
			p += 3;
		}
	}
	uint32_t stride = 1;
	for (int i = 0; i < LAYOUT_DIM_COUNT_; i++) {
		uint32_t d = l->order[i];
		l->deg[d] = deg[d];
		l->stride[d] = stride;
		stride *= deg[d];
	}
	l->gpus = stride;
	l->gpus_per_node = gpus_per_node;
	l->class_mode = class_mode;
	l->nclasses = l->gpus;
	if (!class_mode)
		return 0;
	if (gpus_per_node > LAYOUT_MAX_GPN)
		return ts_error_set(err, TS_EINVALID, NULL, 0, "gpus_per_node",
				    "found %u, "
				    "expected at most %u in class mode (sim.mode = \"full\" "
				    "has no limit)",
				    gpus_per_node, LAYOUT_MAX_GPN);
	class_tables(l, false);
	return 0;
}

bool layout_merge(struct layout *l, uint32_t nodes)
{
	uint32_t g = l->gpus_per_node;
	if (!l->class_mode || l->merged || l->gpus != nodes * g || l->stride[LAYOUT_PP] % g)
		return false;
	class_tables(l, true);
	return true;
}

const char *layout_order_name(const struct layout *l, char *buf)
{
	buf[0] = 0;
	for (int i = 0; i < LAYOUT_DIM_COUNT_; i++) {
		if (i)
			strcat(buf, "-");
		strcat(buf, dim_names[l->order[i]]);
	}
	return buf;
}

uint32_t layout_coord(const struct layout *l, uint32_t rank, enum layout_dim d)
{
	return rank / l->stride[d] % l->deg[d];
}

uint32_t layout_rank(const struct layout *l, const uint32_t coord[LAYOUT_DIM_COUNT_])
{
	uint32_t r = 0;
	for (int d = 0; d < LAYOUT_DIM_COUNT_; d++)
		r += coord[d] * l->stride[d];
	return r;
}

uint32_t layout_move(const struct layout *l, uint32_t rank, enum layout_dim d, uint32_t c)
{
	return rank - layout_coord(l, rank, d) * l->stride[d] + c * l->stride[d];
}

void layout_group(const struct layout *l, uint32_t rank, enum layout_dim d, uint32_t *out)
{
	for (uint32_t c = 0; c < l->deg[d]; c++)
		out[c] = layout_move(l, rank, d, c);
}

uint32_t layout_group_nodes(const struct layout *l, uint32_t rank, enum layout_dim d)
{
	uint32_t n = 0, last = UINT32_MAX;
	for (uint32_t c = 0; c < l->deg[d]; c++) {
		uint32_t node = layout_move(l, rank, d, c) / l->gpus_per_node;
		if (node != last)
			n++;
		last = node;
	}
	return n;
}

/* Index in its stage of the class of rank (class mode). */
static uint32_t class_index(const struct layout *l, uint32_t rank)
{
	uint32_t g = l->gpus_per_node, s = layout_coord(l, rank, LAYOUT_PP);
	uint32_t shift = (uint32_t)(((uint64_t)s * l->stride[LAYOUT_PP]) % g);
	return l->res_idx[(rank % g + g - shift) % g];
}

uint32_t layout_class_of(const struct layout *l, uint32_t rank)
{
	if (!l->class_mode)
		return rank;
	return layout_coord(l, rank, LAYOUT_PP) * l->per + class_index(l, rank);
}

uint32_t layout_class_rep(const struct layout *l, uint32_t k)
{
	if (!l->class_mode)
		return k;
	return l->rep0[k % l->per] + k / l->per * l->stride[LAYOUT_PP];
}

uint32_t layout_class_members(const struct layout *l, uint32_t k)
{
	return l->class_mode ? l->cnt[k % l->per] : 1;
}

uint32_t layout_class_stage(const struct layout *l, uint32_t k)
{
	return l->class_mode ? k / l->per : layout_coord(l, k, LAYOUT_PP);
}

uint32_t layout_group_lead(const struct layout *l, uint32_t k, enum layout_dim d, uint32_t *base)
{
	if (!l->class_mode) {
		*base = k;
		return layout_coord(l, k, d) == 0;
	}
	uint32_t i = k % l->per, n = l->lead[d][i];
	*base = n ? l->base0[d][i] + k / l->per * l->stride[LAYOUT_PP] : 0;
	return n;
}

uint32_t layout_coll_mult(const struct layout *l, uint32_t k, enum layout_dim d)
{
	if (!l->class_mode)
		return 1;
	uint32_t base, n = layout_group_lead(l, k, d, &base);
	return n * layout_group_nodes(l, base, d);
}

uint32_t layout_p2p_mult(const struct layout *l, uint32_t k)
{
	return layout_class_members(l, k);
}
