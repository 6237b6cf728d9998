/* Several results side by side (trainsim compare): each compared figure
 * of each result, and each row's verdict from the results' 80 % bands (a
 * winner, a tie, or no clear winner); report/compare writes them.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "run/compare.h"
#include "run/result.h"

enum better { NONE, LOWER, HIGHER };

/* One row of the comparison. */
struct row {
	const char *label; /* text report */
	const char *key;   /* CSV/JSON */
	enum better better;
};

static const struct row rows[] = {
    {"GPUs", "gpus", NONE},
    {"iteration time", "iteration_time_s", LOWER},
    {"throughput", "tokens_per_s", HIGHER},
    {"scaling efficiency (same GPU type)", "scaling_efficiency", HIGHER},
    {"MFU", "mfu", HIGHER},
    {"memory per GPU", "memory_per_gpu_bytes", LOWER},
    {"fits in memory", "fits", NONE},
    {"time to train", "time_to_train_s", LOWER},
    {"energy", "energy_kwh", LOWER},
    {"cost", "cost_usd", LOWER},
    {"cost per million tokens", "usd_per_mtokens", LOWER},
    {"time per epoch", "epoch_s", LOWER},
    {"bottleneck", "bottleneck", NONE},
};

/* What the results of one comparison count in. */
struct units {
	bool any_sample;  /* some result is of a sample-based model */
	bool all_sample;  /* all are: throughput in samples/s, price per epoch */
	bool mixed;	  /* some count tokens and some samples: no best for those rows */
	const char *unit; /* the common sample unit ("images") when all_sample and one */
};

static void units_of(const struct ts_result *const *rs, size_t np, struct units *u)
{
	u->any_sample = false;
	u->all_sample = true;
	u->unit = rs[0]->per_sample ? rs[0]->unit : NULL;
	for (size_t k = 0; k < np; k++) {
		u->any_sample = u->any_sample || rs[k]->per_sample;
		u->all_sample = u->all_sample && rs[k]->per_sample;
		if (!rs[k]->per_sample || !u->unit || strcmp(rs[k]->unit, u->unit))
			u->unit = NULL;
	}
	u->mixed = u->any_sample && !u->all_sample;
	if (u->all_sample && !u->unit)
		u->unit = "samples";
}

/* The first result of rs[0..k] on the GPU type of rs[k]: throughput per
 * GPU is compared like with like, never across GPU types. */
static const struct ts_result *same_gpu_base(const struct ts_result *const *rs, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (!strcmp(rs[j]->gpu, rs[k]->gpu))
			return rs[j];
	return rs[k];
}

/* Whether another result of rs[0..np) runs on the GPU type of rs[k]. */
static bool gpu_shared(const struct ts_result *const *rs, size_t np, size_t k)
{
	for (size_t j = 0; j < np; j++)
		if (j != k && !strcmp(rs[j]->gpu, rs[k]->gpu))
			return true;
	return false;
}

/* A result's throughput in its own unit: samples/s for a sample-based
 * model, tokens/s for a transformer. */
static double tput(const struct ts_result *r)
{
	return r->per_sample ? r->samples_per_s : r->tokens_per_s;
}

static double value(const struct ts_result *const *rs, size_t np, size_t k, size_t row)
{
	const struct ts_result *r = rs[k];
	switch (row) {
	case 0:
		return (double)r->gpus;
	case 1:
		return r->iteration_time_s;
	case 2:
		return tput(r);
	case 3: { /* NaN for a GPU type no other result runs on */
		const struct ts_result *b = same_gpu_base(rs, k);
		if (!gpu_shared(rs, np, k))
			return (double)NAN;
		return (tput(r) / r->gpus) / (tput(b) / b->gpus);
	}
	case 4:
		return r->mfu;
	case 5:
		return r->memory_per_gpu_bytes;
	case 6:
		return r->fits ? 1.0 : 0.0;
	case 7:
		return r->time_to_train_s;
	case 8:
		return r->energy_kwh;
	case 9:
		return r->cost_usd;
	case 10:
		return r->per_sample ? r->usd_per_epoch : r->usd_per_mtokens;
	case 11:
		return r->per_sample ? r->epoch_s : 0.0;
	default:
		return 0.0;
	}
}

/* The band x [p10/p50, p90/p50] of b, for a figure x that scales like b's
 * (energy like GPU energy, a price like the cost). */
static struct ts_band scaled(struct ts_band b, double x)
{
	if (!(b.p50 > 0.0))
		return (struct ts_band){x, x, x};
	return (struct ts_band){x * b.p10 / b.p50, x, x * b.p90 / b.p50};
}

/* The reported 80 % band of row `row`'s value v of result r; a point at v
 * for rows without one (GPUs, scaling efficiency, whose model error
 * largely cancels in the ratio; fits; bottleneck). */
static struct ts_band band_of(const struct ts_result *r, double v, size_t row)
{
	const struct ts_bands *b = &r->band;
	switch (row) {
	case 1:
		return b->iteration_time_s;
	case 2:
		return r->per_sample ? b->samples_per_s : b->tokens_per_s;
	case 4:
		return b->mfu;
	case 5:
		return b->memory_per_gpu_bytes;
	case 7:
		return b->time_to_train_s;
	case 8:
		return scaled(b->gpu_energy_kwh, v);
	case 9:
		return b->cost_usd;
	case 10:
		return scaled(b->cost_usd, v);
	case 11:
		return scaled(
		    b->time_to_train_s.p50 > 0.0 ? b->time_to_train_s : b->iteration_time_s, v);
	default:
		return (struct ts_band){v, v, v};
	}
}

/* Whether result k is a candidate of row r. */
static bool candidate(const struct ts_result *const *rs, size_t np, size_t k, size_t r)
{
	double v = value(rs, np, k, r);
	if (!isfinite(v) || !rs[k]->fits || (v == 0.0 && r >= 7))
		return false;
	return r != COMPARE_SCALING || same_gpu_base(rs, k) != rs[k];
}

static void judge(const struct ts_result *const *rs, size_t np, const struct units *u, size_t r,
		  struct compare_row *vd)
{
	bool *lead = vd->lead;
	double *val = vd->value;
	memset(vd, 0, sizeof *vd);
	memset(lead, 0, np * sizeof *lead);
	vd->lead = lead;
	vd->value = val;
	for (size_t k = 0; k < np; k++)
		val[k] = value(rs, np, k, r);
	vd->shown = !(r == COMPARE_EPOCH && !u->any_sample);
	vd->best = np;
	vd->label = rows[r].label;
	vd->key = rows[r].key;
	if (r == COMPARE_TPUT && u->all_sample) {
		vd->label = "throughput";
		vd->key = "samples_per_s";
	} else if (r == COMPARE_TPUT && u->mixed) {
		vd->label = "throughput (tokens/s or samples/s)";
		vd->key = "throughput_per_s";
	} else if (r == COMPARE_PRICE && u->all_sample) {
		vd->label = "cost per epoch";
		vd->key = "usd_per_epoch";
	} else if (r == COMPARE_PRICE && u->mixed) {
		vd->label = "cost per million tokens or per epoch";
		vd->key = "usd_per_mtokens_or_epoch";
	}
	/* throughput and price in two units (tokens and samples) have no best */
	if (rows[r].better == NONE ||
	    (u->mixed && (r == COMPARE_TPUT || r == COMPARE_PRICE || r == COMPARE_EPOCH)))
		return;
	size_t best = np, ncand = 0;
	double bv = 0.0;
	for (size_t k = 0; k < np; k++) {
		if (!candidate(rs, np, k, r))
			continue;
		double v = value(rs, np, k, r);
		ncand++;
		if (best == np || (rows[r].better == LOWER ? v < bv : v > bv)) {
			best = k;
			bv = v;
		}
	}
	if (ncand < 2)
		return;
	struct ts_band wb = band_of(rs[best], bv, r);
	size_t nlead = 0;
	for (size_t k = 0; k < np; k++) {
		if (!candidate(rs, np, k, r))
			continue;
		struct ts_band kb = band_of(rs[k], value(rs, np, k, r), r);
		vd->lead[k] = k == best || (kb.p10 <= wb.p90 && wb.p10 <= kb.p90);
		nlead += vd->lead[k];
	}
	if (nlead == 1)
		vd->best = best;
	else if (nlead < ncand)
		vd->tied = true;
	else
		vd->unclear = true;
	if (!vd->tied)
		memset(vd->lead, 0, np * sizeof *vd->lead);
}

int compare_make(const struct ts_result *const *rs, size_t np, struct compare **out)
{
	*out = NULL;
	struct compare *c = ts_calloc(1, sizeof *c);
	bool *lead = ts_calloc(COMPARE_NROWS * (np ? np : 1), sizeof *lead);
	double *val = ts_calloc(COMPARE_NROWS * (np ? np : 1), sizeof *val);
	if (!c || !lead || !val) {
		ts_free(c, sizeof *c);
		ts_free(lead, COMPARE_NROWS * (np ? np : 1) * sizeof *lead);
		ts_free(val, COMPARE_NROWS * (np ? np : 1) * sizeof *val);
		return TS_ENOMEM;
	}
	c->n = np;
	struct units u;
	units_of(rs, np, &u);
	for (size_t r = 0; r < COMPARE_NROWS; r++) {
		c->row[r].lead = lead + r * np;
		c->row[r].value = val + r * np;
		judge(rs, np, &u, r, &c->row[r]);
	}
	*out = c;
	return 0;
}

void compare_destroy(struct compare *c)
{
	if (!c)
		return;
	size_t m = COMPARE_NROWS * (c->n ? c->n : 1);
	ts_free(c->row[0].lead, m * sizeof *c->row[0].lead);
	ts_free(c->row[0].value, m * sizeof *c->row[0].value);
	ts_free(c, sizeof *c);
}
