/* A GPU under a board power limit: the sustained SM clock a limit leaves
 * compute-bound kernels, and the GPU type whose compute rates run at it.
 * SPDX-License-Identifier: MIT */
#ifndef TS_HW_POWERCAP_H
#define TS_HW_POWERCAP_H

#include "hw/catalog.h"

/* The board power of compute-bound work at SM clock f, as a share of the
 * default limit (TDP), with r = f / f_T the clock relative to the one the
 * GPU sustains at TDP (where the catalog's rates, mamf_eff and flash_eff
 * were measured):
 *   P / TDP = c + (1 - c) x r x v(r)^2,  v(r) = max(r, q),
 * the CMOS dynamic power alpha C V^2 f (Weste and Harris, CMOS VLSI Design,
 * 4th ed., chapter 5) with the supply voltage tracking the clock down to a
 * floor at q x f_T and held there below it, plus a part c that does not
 * follow the SM clock (HBM, whose clock a power limit leaves alone, and the
 * board). A limit L then leaves the clock at the r where P = L.
 *
 * c and q are fitted, together, on the only published table of training
 * time against power limit found with every row: Zeus's V100 trace
 * (You, Chung and Chowdhury, NSDI 2023; github.com/ml-energy/zeus,
 * examples/research_reproducibility/zeus_nsdi23/trace/summary_power_v100.csv,
 * the PCIe card of 250 W): the 70 rows of its compute-heavy workloads
 * (BERT-base on SQuAD and Sentiment140 at batch 32 and more, ResNet-50 on
 * ImageNet at batch 128 and more), each limit taken as a share of the
 * power the same job drew at the default limit (its average_power column),
 * each epoch's speed relative to the default as r. Least squares in log r
 * gives c = 0.071 and q = 0.884, rounded to 0.07 and 0.88: epoch time
 * within 2.4 % on average, 10 % at worst (root mean square 3.4 % in log r).
 * The whole epoch is taken as compute-bound there, while trainsim slows
 * only its compute-bound kernels, so the fit leans a little to slowing the
 * clock too much. Held out: Zeus's A40 trace (GDDR6, 300 W, the same 101
 * workload rows) comes out 10.7 % too fast on average, 45 % at the lowest
 * limit, where a GDDR6 board keeps more fixed power than an HBM one; a
 * GB300 cuBLAS GEMM of 617 TFLOP/s at 500 W against 1,600 to 2,174 at
 * 1,400 W (github.com/facebookexperimental/triton/pull/2023) is a ratio of
 * 0.284 to 0.386, the model's 0.399 (tests/check_powercap.c). */
#define POWERCAP_FIXED_SHARE 0.07
#define POWERCAP_VOLTAGE_FLOOR 0.88

/* The lowest limit trainsim accepts on a GPU whose catalog entry gives no
 * power_min, as a share of its TDP: above every minimum the catalog
 * sources (A100 SXM 100 of 400 W, H100 SXM 200 of 700 W), so that no
 * limit is accepted that the card refuses; an assumption. */
#define POWERCAP_MIN_SHARE_DEFAULT 0.5

/* The sustained SM clock of compute-bound work under a limit of `share` x
 * TDP, as a fraction of the clock at TDP: 1 for share >= 1, falling as the
 * cube root of (share - c)/(1 - c) down to the voltage floor q and linearly
 * below it; a small positive number (1e-3) for share <= c, which no card's
 * minimum limit reaches. */
double powercap_clock_ratio(double share);

/* The inverse: the board power share of compute-bound work at clock ratio
 * r (0 < r <= 1), c + (1 - c) r max(r, q)^2. */
double powercap_power_share(double r);

/* The lowest power limit GPU type g accepts, W: its catalog power_min, or
 * POWERCAP_MIN_SHARE_DEFAULT x its TDP when the catalog gives none. */
double powercap_min_w(const struct hw_gpu_type *g);

/* GPU type g under a power limit of limit_w (0, or at least its TDP: no
 * limit) into *out: a copy whose dense peaks, every dtype, are scaled by
 * powercap_clock_ratio(limit_w / TDP); memory, HBM bandwidth and TDP are
 * g's (HBM runs at its own clock, which a power limit does not lower).
 * So GEMMs, attention and every other compute-bound kernel slow down by
 * the clock and memory-bound kernels not at all. Returns the ratio. The
 * caller checks the limit against powercap_min_w and the TDP. */
double powercap_gpu(const struct hw_gpu_type *g, double limit_w, struct hw_gpu_type *out);

#endif
