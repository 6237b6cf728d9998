/* A comparison of several results (trainsim compare): each compared
 * figure of each result and each row's verdict from the 80 % bands.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_COMPARE_H
#define TS_RUN_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "run/result.h"

/* The compared figures, in the order of the rows. */
enum compare_row_id {
	COMPARE_GPUS,	    /* GPUs (no verdict) */
	COMPARE_ITERATION,  /* iteration time, s (lower is better) */
	COMPARE_TPUT,	    /* throughput in each result's unit, tokens/s or samples/s */
	COMPARE_SCALING,    /* throughput per GPU over the first result's on the same GPU
			     * type, 0-1 (NaN: no other result on its GPU type) */
	COMPARE_MFU,	    /* MFU, 0-1 */
	COMPARE_MEMORY,	    /* memory per GPU, bytes */
	COMPARE_FITS,	    /* 1 fits, 0 does not (no verdict) */
	COMPARE_TTT,	    /* time to train, s */
	COMPARE_ENERGY,	    /* energy, kWh */
	COMPARE_COST,	    /* cost, US$ */
	COMPARE_PRICE,	    /* US$ per million tokens, or per epoch for a sample-based model */
	COMPARE_EPOCH,	    /* time per epoch, s (sample-based models) */
	COMPARE_BOTTLENECK, /* the bottleneck sentence (no figure, no verdict) */
	COMPARE_NROWS
};

/* What a comparison says of one row: its label (text) and key (CSV,
 * JSON) in the comparison's units, whether it is shown, and its verdict
 * from the 80 % bands (sim/run/band.h). The candidates are the results
 * that fit and have a figure (for scaling efficiency, not the reference
 * of their GPU type, whose 100 % is a definition); with fewer than two
 * there is nothing to compare and no verdict. The best candidate leads
 * with every candidate whose band overlaps the best's: a lead of one is
 * the winner (best), a lead of some is a tie (lead[k] for each), a lead
 * of all is no clear winner (unclear). */
struct compare_row {
	const char *label, *key;
	bool shown;
	size_t best;   /* the winner; np: none */
	bool tied;     /* a lead of two or more, not all the candidates */
	bool unclear;  /* every candidate leads */
	bool *lead;    /* [np]: in a tie, whether result k leads */
	double *value; /* [np]: result k's figure (NaN: none; 0 for the bottleneck) */
};

/* A comparison of n results. */
struct compare {
	size_t n;			       /* results compared */
	struct compare_row row[COMPARE_NROWS]; /* by enum compare_row_id */
};

/* Compare rs[0..n): each row's figures, label and key in the results'
 * units (samples/s and US$ per epoch when all are sample-based), whether
 * it is shown (time per epoch only with a sample-based model) and its
 * verdict. rs is read, not kept. Returns 0 or TS_ENOMEM; free *out with
 * compare_destroy. */
int compare_make(const struct ts_result *const *rs, size_t n, struct compare **out);

/* Free c (NULL is fine). */
void compare_destroy(struct compare *c);

#endif
