/* The hardware catalog: GPU and link types with a source beside every
 * number, loaded from configs/hardware/NAME.cfg.
 * SPDX-License-Identifier: MIT */
#ifndef TS_HW_CATALOG_H
#define TS_HW_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum ts_dtype { TS_FP32, TS_TF32, TS_FP16, TS_BF16, TS_FP8, TS_DTYPE_COUNT_ };

/* Name of a dtype ("bf16"), and the inverse (-1 if unknown). */
const char *ts_dtype_name(enum ts_dtype d);
int ts_dtype_parse(const char *s);
/* Bytes per element of a dtype (tf32 is stored as fp32). */
double ts_dtype_bytes(enum ts_dtype d);

/* A GPU type. Plain record; numbers per GPU. */
struct hw_gpu_type {
	char name[48];	/* "A100-SXM4-80GB" */
	char alias[48]; /* a former name that still finds it ("B200-GB200"), "" for none */
	double peak_flops[TS_DTYPE_COUNT_]; /* dense tensor FLOP/s per dtype, 0 = unsupported (fp32
					       = non-tensor) */
	double mamf_eff[TS_DTYPE_COUNT_];   /* max achievable matmul fraction of peak (eta_max) */
	double mem_bytes;		    /* usable device memory as nvidia-smi reports, bytes */
	double hbm_Bps;			    /* memory bandwidth, bytes/s */
	double hbm_eff;	    /* achievable fraction of hbm_Bps for streaming kernels */
	double flash_eff;   /* flash attention: fraction of the bf16/fp16 dense peak, 0..1;
			     * 0 = not given (the calibration's flash_eff applies) */
	uint32_t sms;	    /* streaming multiprocessors (for waves) */
	double tdp_w;	    /* board power, W */
	double power_min_w; /* lowest power limit the card accepts (nvidia-smi's "Min Power
			     * Limit"), W; 0 = not given (sim/hw/powercap.h) */
	double sm_out_Bps;  /* the rate one SM's GEMM tile outputs leave it at, bytes/s per SM,
			     * when it is below the SM's share of achievable HBM bandwidth
			     * (work_gemm_k0); 0 = not given (HBM bandwidth alone) */
	char source[512];   /* where the numbers come from */
};

/* A link type (per direction). Plain record. */
struct hw_link_type {
	char name[48];	     /* "nvlink3", "pcie4-x16", "ib-hdr", "eth-10g" */
	double bw_Bps;	     /* line rate per direction, bytes/s */
	double efficiency;   /* achievable fraction of line rate, 0..1 */
	double lat_s;	     /* one-way latency of one hop, s */
	double flow_cap_Bps; /* bytes/s one TCP flow of NCCL's socket transport carries on
			      * this link when nothing else limits it (the host's kernel TCP
			      * stack: one core per stream); 0 = not a socket link */
	char source[512];    /* where the numbers come from */
};

struct hw_catalog;

/* Load every configs/hardware/ *.cfg file under `root` (the project's
 * source directory, or TS_DATA_DIR), in byte order of the file names, so
 * indices are the same on every machine. Each file holds a list `gpus`
 * and/or a list `links` (format: the comments at the top of
 * configs/hardware/gpus.cfg and links.cfg). Returns 0, or TS_EIO, TS_ESYNTAX,
 * TS_EUNKNOWN_KEY, TS_ETYPE, TS_ERANGE, TS_EUNIT, TS_EINVALID (a missing key,
 * a name defined twice) or TS_ENOMEM with `err` filled (file, line, key,
 * found, expected) and *out = NULL. Free with hw_catalog_destroy. */
int hw_catalog_load(const char *root, struct hw_catalog **out, struct ts_error *err);
void hw_catalog_destroy(struct hw_catalog *cat);

/* Directory the catalog was loaded from (the project root). */
const char *hw_catalog_root(const struct hw_catalog *cat);

size_t hw_catalog_ngpus(const struct hw_catalog *cat);
const struct hw_gpu_type *hw_catalog_gpu(const struct hw_catalog *cat, size_t i);
size_t hw_catalog_nlinks(const struct hw_catalog *cat);
const struct hw_link_type *hw_catalog_link(const struct hw_catalog *cat, size_t i);

/* Replace the efficiency of link type i (a calibration override, sim/io/
 * calibcfg.h); clusters built afterwards use it. Returns 0, or TS_ERANGE
 * (i out of range, efficiency outside (0, 1]). */
int hw_catalog_set_link_efficiency(struct hw_catalog *cat, size_t i, double efficiency);
/* Set GPU type i's achievable HBM fraction (0, 1] and flash-attention
 * fraction [0, 1] (0: the calibration's applies), as a calibration from a
 * user's measurements does. Returns 0 or TS_ERANGE. */
int hw_catalog_set_gpu_eff(struct hw_catalog *cat, size_t i, double hbm_eff, double flash_eff);

/* Find by exact name (case-insensitive); -1 when absent. */
int hw_catalog_find_gpu(const struct hw_catalog *cat, const char *name);
int hw_catalog_find_link(const struct hw_catalog *cat, const char *name);

/* Up to three names of `kind` ("gpu" or "link") closest to `name` by edit
 * distance, comma-separated, into buf. Returns buf. */
char *hw_catalog_suggest(const struct hw_catalog *cat, const char *kind, const char *name,
			 char *buf, size_t n);

/* The source of one number of GPU type i (key: "peak", "mamf_eff", "memory",
 * "hbm_bw", "hbm_eff", "sms", "tdp", "flash_eff", "power_min", "sm_out_bw") or of link type i (key:
 * "bandwidth", "latency", "efficiency"), as its catalog file states it; NULL for an unknown key or
 * index. Owned by the catalog. */
const char *hw_catalog_gpu_source(const struct hw_catalog *cat, size_t i, const char *key);
const char *hw_catalog_link_source(const struct hw_catalog *cat, size_t i, const char *key);

/* The catalog file that defines GPU type i or link type i; NULL if i is out
 * of range. Owned by the catalog. */
const char *hw_catalog_gpu_file(const struct hw_catalog *cat, size_t i);
const char *hw_catalog_link_file(const struct hw_catalog *cat, size_t i);

#endif
