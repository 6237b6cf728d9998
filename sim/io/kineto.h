/* Reading a PyTorch profiler trace (the Chrome trace JSON that
 * torch.profiler / Kineto writes): GPU kernels by trainsim op class per
 * iteration, NCCL collectives with their sizes, and the kernels no rule
 * knows, reported by name.
 * SPDX-License-Identifier: MIT */
#ifndef TS_IO_KINETO_H
#define TS_IO_KINETO_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Largest trace file read, bytes (jansson holds the whole tree, several
 * times the text): a few iterations of one rank, which is what calibration
 * needs, stay far below it. */
#define KINETO_MAX_FILE (256u << 20)
/* Most events, iterations, distinct unknown kernel names and collectives kept. */
#define KINETO_MAX_EVENTS 20000000u
#define KINETO_MAX_ITERS 4096u
#define KINETO_MAX_UNKNOWN 4096u
#define KINETO_MAX_COLLS 1000000u

/* trainsim's op classes as a trace shows them (kineto_classify). */
enum kineto_class {
	KINETO_GEMM,	 /* dense matmuls and implicit-GEMM convolutions */
	KINETO_ATTN_FWD, /* fused attention forward (flash, fmha, cuDNN SDPA) */
	KINETO_ATTN_BWD, /* fused attention backward */
	KINETO_MEMBOUND, /* element-wise, norms, softmax, reductions, copies, casts */
	KINETO_OPTIM,	 /* the optimizer's multi-tensor kernels */
	KINETO_NCCL,	 /* NCCL collectives and point-to-point */
	KINETO_UNKNOWN,	 /* no rule matched: reported, never guessed */
	KINETO_CLASS_COUNT_
};

/* Short name of a class ("gemm", "attn_fwd", ...). */
const char *kineto_class_name(enum kineto_class c);

/* The class of a kernel by its name (the rules in kineto.c, case
 * insensitive, first match wins: NCCL, attention, optimizer, GEMM,
 * memory-bound); KINETO_UNKNOWN when none matches. */
enum kineto_class kineto_classify(const char *name);

/* NCCL collective kinds. */
enum kineto_coll_op {
	KINETO_ALL_REDUCE,
	KINETO_REDUCE_SCATTER,
	KINETO_ALL_GATHER,
	KINETO_SEND_RECV,
	KINETO_BROADCAST,
	KINETO_REDUCE,
	KINETO_ALL_TO_ALL,
	KINETO_COLL_OTHER,
	KINETO_COLL_COUNT_
};

/* Name of a collective kind ("all_reduce", ...). */
const char *kineto_coll_name(enum kineto_coll_op op);

/* One NCCL kernel. Plain record. */
struct kineto_coll {
	enum kineto_coll_op op;
	double dur_s;	  /* kernel duration, s (waiting for the slowest rank included) */
	double in_bytes;  /* "In msg nelems" x the dtype's size, bytes; 0 when the trace
			   * does not give it */
	double out_bytes; /* "Out msg nelems" x the dtype's size, bytes; 0 when not given */
	uint32_t group;	  /* "Group size", ranks; 0 when not given */
	int32_t iter;	  /* index of its iteration, -1 outside every iteration */
};

/* One iteration (a ProfilerStep#N annotation). Plain record. */
struct kineto_iter {
	int64_t step;			     /* N of ProfilerStep#N */
	double start_s;			     /* its start on the trace's clock, s */
	double dur_s;			     /* its length on the host, s */
	double class_s[KINETO_CLASS_COUNT_]; /* kernel time by class, s */
	uint32_t kernels[KINETO_CLASS_COUNT_];
	double busy_s; /* time some kernel of this iteration ran (overlaps counted
			* once), s */
};

/* A kernel name that no rule knows. Plain record. */
struct kineto_unknown {
	char name[200]; /* the name, cut at 199 bytes */
	uint32_t count; /* kernels of that name */
	double time_s;	/* their total time, s */
};

/* A parsed trace. Owned by the caller; free with kineto_free. */
struct kineto_trace {
	char device[96];	   /* deviceProperties[0].name, "" if absent */
	struct kineto_iter *iters; /* in step order */
	size_t niters;
	double class_s[KINETO_CLASS_COUNT_]; /* kernel time by class over the iterations, s */
	uint32_t kernels[KINETO_CLASS_COUNT_];
	size_t nkernels;		/* kernel events in the file */
	size_t outside;			/* kernel events in no iteration */
	struct kineto_unknown *unknown; /* by time, largest first */
	size_t nunknown;
	size_t unknown_dropped;	   /* distinct unknown names beyond KINETO_MAX_UNKNOWN */
	struct kineto_coll *colls; /* NCCL kernels in file order */
	size_t ncolls;
	size_t cap_iters, cap_unknown, cap_colls; /* allocated elements (kineto_free) */
};

/* Parse trace `path` ("-" for standard input), plain or gzipped (as
 * torch.profiler.tensorboard_trace_handler(use_gzip=True) writes
 * .pt.trace.json.gz), at most KINETO_MAX_FILE bytes either way: a JSON object with a "traceEvents"
 * array (or a bare array) of complete events ("ph": "X") with "ts" and "dur" in microseconds.
 * Kernels are events of "cat" "kernel"; iterations are the "ProfilerStep#N" events (on the host). A
 * kernel belongs to the iteration whose host span holds its launch (the "cuda_runtime" event of the
 * same "correlation" arg), else its own start. NCCL kernels' sizes come from their args
 * ("Collective name", "In msg nelems", "Out msg nelems", "Group size",
 * "dtype") when the profiler recorded them. Returns 0, TS_EIO (cannot
 * read; larger than KINETO_MAX_FILE), TS_ESYNTAX (not JSON, gzip that does not inflate; no event
 * array; an event whose ts or dur is not a finite non-negative number),
 * TS_EINVALID (no kernel, or no ProfilerStep#N in the file), TS_ELIMIT
 * (more than KINETO_MAX_EVENTS or KINETO_MAX_ITERS) or TS_ENOMEM, with
 * `err` naming the file, what was found and what was expected; *out is
 * empty on failure. */
int kineto_read(const char *path, struct kineto_trace *out, struct ts_error *err);

/* The same from `len` bytes of text (no NUL needed); `name` is used in
 * messages. */
int kineto_parse(const char *text, size_t len, const char *name, struct kineto_trace *out,
		 struct ts_error *err);

void kineto_free(struct kineto_trace *t);

#endif
