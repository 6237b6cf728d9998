/* The writers of trainsim collective: an nccl-tests-style table of one
 * collective simulated size by size on a cluster.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_COLLECTIVE_H
#define TS_REPORT_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/cluster.h"
#include "net/coll.h"
#include "net/net.h"
#include "trainsim.h"

/* Most sizes the nccl-tests layout prints (nccl-tests' -b 8 -e 8G -f 2 has
 * 31); the mean bus bandwidth counts them all. */
#define REPORT_COLL_NCCL_ROWS 1000

/* One simulated size. */
struct report_coll_row {
	double bytes;	     /* message size, bytes */
	double count;	     /* elements of 4 bytes per rank, as nccl-tests counts them */
	double time_s;	     /* one collective, s */
	double algbw_Bps;    /* bytes / time, bytes/s */
	double busbw_Bps;    /* algbw x the op's bus factor (nccl-tests), bytes/s */
	enum coll_algo algo; /* algorithm chosen */
	int proto;	     /* protocol chosen (coll_proto_name) */
	uint32_t channels;   /* channels */
};

/* A collective simulated at each size (every pointer borrowed). */
struct report_collective {
	enum coll_op op;		    /* the collective */
	double min_bytes, max_bytes;	    /* the sizes asked for, bytes */
	double factor;			    /* their step factor */
	const struct hw_cluster *cluster;   /* where it ran */
	uint32_t ranks;			    /* GPUs taking part */
	enum net_mode mode;		    /* class or full, as simulated */
	const struct report_coll_row *rows; /* [nrows] by size */
	size_t nrows;
	double avg_busbw_Bps; /* mean bus bandwidth of the rows, bytes/s */
	/* the first size asked for that was rounded down to whole elements
	 * (-1: none) and what it became, bytes; sizes of 0 B left out */
	double round_from, round_to;
	size_t zero_skipped;
};

/* Write o as a table (text: two comment lines, the table with nccl-tests'
 * headings, the mean bus bandwidth; CSV and JSON with key headings, JSON
 * with the cluster, op, nodes, GPUs and mean) or, TS_FORMAT_NCCL_TESTS,
 * as nccl-tests prints it. Returns 0, TS_ENOMEM or TS_EIO, with err set. */
int report_collective_write(const struct report_collective *o, enum ts_format format, FILE *out,
			    struct ts_error *err);

#endif
