/* The input pipeline's catalog: storage types (configs/hardware/storage.cfg)
 * and datasets (configs/datasets/NAME.cfg), each number with its source.
 * SPDX-License-Identifier: MIT */
#ifndef TS_DATA_CATALOG_H
#define TS_DATA_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Where a storage type's data lives. */
enum data_storage_kind {
	DATA_STORAGE_LOCAL,  /* drives in each node: per-node bandwidth and IOPS */
	DATA_STORAGE_SHARED, /* a shared file system: aggregate bandwidth and IOPS for
			      * all nodes, a per-client cap, reads over the node's NICs */
	DATA_STORAGE_MEMORY, /* host memory (the page cache): per-node copy bandwidth */
	DATA_STORAGE_KIND_COUNT_
};

/* A storage type. Plain record. */
struct data_storage {
	char name[48]; /* "local-nvme", "nfs", ... */
	enum data_storage_kind kind;
	double read_Bps;   /* local/memory: per device; shared: aggregate, bytes/s */
	double write_Bps;  /* sequential write, as read_Bps; 0 = not given (the
			    * storage cannot hold NVMe-offloaded optimizer state) */
	double iops;	   /* local: per device; shared: aggregate; 0 = not limiting */
	double lat_s;	   /* latency of one request, s */
	double position_s; /* local rotating drives: average seek plus half a revolution,
			    * the time each random request holds its drive before its
			    * bytes flow, s; 0 = no mechanical positioning */
	uint32_t devices;  /* local: drives per node read in parallel (RAID 0); 1 */
	double client_Bps; /* shared: most one node reads, bytes/s; 0 = only its NICs */
	char source[640];  /* where the numbers come from */
};

/* How a dataset is laid out on disk. */
enum data_layout {
	DATA_LAYOUT_FILES,  /* a file (one request or more) per sample: JPEGs, point clouds */
	DATA_LAYOUT_PACKED, /* samples packed into large files read sequentially */
	DATA_LAYOUT_NONE,   /* generated in memory (synthetic): no storage, no decode */
	DATA_LAYOUT_COUNT_
};

/* A dataset. Plain record. Per-sample sizes are either per sample or, for
 * token datasets, per token (a sample is then a sequence of seq_len tokens). */
struct data_dataset {
	char name[48]; /* "imagenet-1k" */
	enum data_layout layout;
	double samples;	      /* samples in one epoch */
	double disk_bytes;    /* bytes on disk per sample (or per token) */
	double device_bytes;  /* bytes copied to the GPU per sample (or per token) */
	double decode_core_s; /* CPU core-seconds to read-parse, decode and augment one
			       * sample (or token) */
	bool per_token;	      /* sizes and decode are per token */
	char source[900];     /* where the numbers come from */
};

/* Request size of packed reads (sequential readahead of large files), bytes:
 * an assumption (Linux readahead windows and file-system stripes are of this
 * order). */
#define DATA_PACKED_REQUEST_BYTES (1024.0 * 1024.0)

struct data_catalog;

/* Load the storage types of ROOT/configs/hardware/storage.cfg (list
 * `storage`; format at the top of that file). Datasets are read on demand.
 * Returns 0, or TS_EIO, TS_ESYNTAX, TS_EUNKNOWN_KEY, TS_ETYPE, TS_ERANGE,
 * TS_EUNIT, TS_EINVALID (missing key, name twice) or TS_ENOMEM with `err`
 * naming file, line and key; *out NULL on failure. Free with
 * data_catalog_destroy. */
int data_catalog_load(const char *root, struct data_catalog **out, struct ts_error *err);
void data_catalog_destroy(struct data_catalog *c);

size_t data_catalog_nstorage(const struct data_catalog *c);
const struct data_storage *data_catalog_storage(const struct data_catalog *c, size_t i);
/* By exact name; NULL when absent. */
const struct data_storage *data_catalog_find_storage(const struct data_catalog *c,
						     const char *name);
/* Up to three storage names closest to `name` into buf ("a, b, c"). */
char *data_catalog_suggest_storage(const struct data_catalog *c, const char *name, char *buf,
				   size_t n);

/* Load dataset `name` from ROOT/configs/datasets/NAME.cfg into *out.
 * Returns 0, or TS_EUNKNOWN_NAME (no such file: the message lists the
 * closest names), TS_EIO, TS_ESYNTAX, TS_EUNKNOWN_KEY, TS_ETYPE, TS_ERANGE,
 * TS_EUNIT or TS_EINVALID with `err` naming file, line and key. */
int data_dataset_load(const char *root, const char *name, struct data_dataset *out,
		      struct ts_error *err);

/* Names of storage kinds and layouts ("shared", "packed"). */
const char *data_storage_kind_name(enum data_storage_kind k);
const char *data_layout_name(enum data_layout l);

#endif
