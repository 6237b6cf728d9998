/* Reading PyTorch profiler (Kineto) Chrome traces into per-class kernel
 * time per iteration.
 * SPDX-License-Identifier: MIT */

/*
 * The trace format is Chrome's Trace Event Format (complete events, "ph":
 * "X", ts and dur in microseconds) as Kineto writes it
 * (pytorch/kineto, libkineto/src/output_json.cpp): GPU kernels are events
 * of "cat": "kernel" on the device's pid, whose args carry the
 * "correlation" id of the host's launch ("cat": "cuda_runtime",
 * cudaLaunchKernel and friends); torch.profiler's schedule marks each
 * iteration with a host annotation "ProfilerStep#N". Recent PyTorch
 * versions record NCCL kernels' collective, element counts, dtype and
 * group size in their args (PyTorch's record_param_comms).
 *
 * One pass over the events collects the steps and the launches' times
 * (sorted by correlation id); a second classifies each kernel, assigns it
 * to the step whose host span holds its launch (a GPU runs behind its
 * host, so a kernel's own start may fall in the next step) and sums it.
 * Busy time is the union of an iteration's kernel intervals (streams
 * overlap). Classes are matched on the name, case-insensitively, first
 * rule first; a name no rule matches is counted under its own name and
 * reported, never given a class.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "io/kineto.h"

static const char *const class_names[KINETO_CLASS_COUNT_] = {
    "gemm", "attn_fwd", "attn_bwd", "membound", "optimizer", "nccl", "unknown",
};

const char *kineto_class_name(enum kineto_class c)
{
	return (unsigned)c < KINETO_CLASS_COUNT_ ? class_names[c] : "?";
}

static const char *const coll_names[KINETO_COLL_COUNT_] = {
    "all_reduce", "reduce_scatter", "all_gather", "send_recv",
    "broadcast",  "reduce",	    "all_to_all", "other",
};

const char *kineto_coll_name(enum kineto_coll_op op)
{
	return (unsigned)op < KINETO_COLL_COUNT_ ? coll_names[op] : "?";
}

/* ------------------------------------------------------------ the rules */

/* Whether lower-case `pat` occurs in s, ignoring case. */
static bool has(const char *s, const char *pat)
{
	size_t n = strlen(pat);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && tolower((unsigned char)s[i]) == pat[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/* "gemm" anywhere but in "fbgemm". */
static bool has_gemm(const char *s)
{
	for (const char *p = s; *p; p++)
		if (tolower((unsigned char)p[0]) == 'g' && tolower((unsigned char)p[1]) == 'e' &&
		    tolower((unsigned char)p[2]) == 'm' && tolower((unsigned char)p[3]) == 'm' &&
		    !(p - s >= 2 && tolower((unsigned char)p[-2]) == 'f' &&
		      tolower((unsigned char)p[-1]) == 'b'))
			return true;
	return false;
}

/* "lamb" anywhere but in "lambda". */
static bool has_lamb(const char *s)
{
	for (const char *p = s; *p; p++)
		if (tolower((unsigned char)p[0]) == 'l' && tolower((unsigned char)p[1]) == 'a' &&
		    tolower((unsigned char)p[2]) == 'm' && tolower((unsigned char)p[3]) == 'b' &&
		    !(tolower((unsigned char)p[4]) == 'd' && tolower((unsigned char)p[5]) == 'a'))
			return true;
	return false;
}

static bool has_any(const char *s, const char *const *pats)
{
	for (; *pats; pats++)
		if (has(s, *pats))
			return true;
	return false;
}

/* Fused attention: FlashAttention 2 and 3 (flash_fwd_kernel,
 * flash_bwd_dq_dk_dv_loop..., FlashAttnFwdSm90), PyTorch's memory-efficient
 * kernels (fmha_cutlassF / fmha_cutlassB), cuDNN's SDPA graphs
 * (..._sdpa_..._fprop / _bprop). */
static const char *const attn_pats[] = {"flash_fwd", "flash_bwd",  "flashattn", "fmha",
					"sdpa",	     "flash_attn", NULL};
static const char *const attn_bwd_pats[] = {"bwd", "bprop", "cutlassb", "backward", "dgrad", NULL};
/* The optimizer: PyTorch's foreach and fused kernels (multi_tensor_apply_kernel,
 * FusedAdamMathFunctor), Apex's and Transformer Engine's multi-tensor Adam
 * and LAMB ("lamb" by has_lamb: not the "lambda" of the many element-wise
 * kernels instantiated with one, as launch_clamp_scalar's {lambda()#1}). */
static const char *const optim_pats[] = {"multi_tensor_apply", "adam", NULL};
/* Matmuls: CUTLASS, cuBLAS's own kernels (sm80_xmma_*, sm90_xmma_*, nvjet_*,
 * ampere_*gemm*), implicit-GEMM convolutions (cuDNN's own single-precision
 * ones are named *_scudnn_*, as cudnn_infer_ampere_scudnn_128x64_relu_...);
 * "gemm" (has_gemm) but not FBGEMM's embedding kernels (fbgemm_gpu::...). */
static const char *const gemm_pats[] = {"cutlass", "xmma", "nvjet", "cublas", "scudnn", NULL};
/* Memory-bound: element-wise (PyTorch's elementwise_kernel,
 * vectorized_elementwise_kernel, unrolled_elementwise_kernel), norms
 * (cuDNN's batch norm: cudnn::bn_fw_tr_1C11_* forward in training,
 * cudnn::bn_bw_1C11_* backward; PyTorch's batch_norm_*), pooling
 * (max_pool_forward_nchw, avg_pool2d_...), softmax, reductions, copies,
 * casts, fills, dropout, layout transposes. */
static const char *const mem_pats[] = {
    "elementwise", "vectorized", "layer_norm", "layernorm", "rms_norm", "rmsnorm",
    "batch_norm",  "bn_fw_",	 "bn_bw_",     "max_pool",  "avg_pool", "softmax",
    "reduce",	   "copy",	 "cast",       "fill",	    "dropout",	"transpose",
    "nchwtonhwc",  "nhwctonchw", "catarray",   NULL};

enum kineto_class kineto_classify(const char *name)
{
	if (has(name, "nccl"))
		return KINETO_NCCL;
	if (has_any(name, attn_pats))
		return has_any(name, attn_bwd_pats) ? KINETO_ATTN_BWD : KINETO_ATTN_FWD;
	if (has_any(name, optim_pats) || has_lamb(name))
		return KINETO_OPTIM;
	if (has_gemm(name) || has_any(name, gemm_pats))
		return KINETO_GEMM;
	if (has_any(name, mem_pats))
		return KINETO_MEMBOUND;
	return KINETO_UNKNOWN;
}

/* The collective of an NCCL kernel or of its "Collective name" arg
 * ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "allreduce",
 * "_reduce_scatter_base"), underscores ignored. */
static enum kineto_coll_op coll_op(const char *s)
{
	char b[96];
	size_t n = 0;
	for (; *s && n + 1 < sizeof b; s++)
		if (*s != '_')
			b[n++] = (char)tolower((unsigned char)*s);
	b[n] = 0;
	static const struct {
		const char *pat;
		enum kineto_coll_op op;
	} map[] = {{"allreduce", KINETO_ALL_REDUCE}, {"reducescatter", KINETO_REDUCE_SCATTER},
		   {"allgather", KINETO_ALL_GATHER}, {"alltoall", KINETO_ALL_TO_ALL},
		   {"sendrecv", KINETO_SEND_RECV},   {"send", KINETO_SEND_RECV},
		   {"recv", KINETO_SEND_RECV},	     {"broadcast", KINETO_BROADCAST},
		   {"reduce", KINETO_REDUCE}};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strstr(b, map[i].pat))
			return map[i].op;
	return KINETO_COLL_OTHER;
}

/* Bytes of one element of a PyTorch dtype name as Kineto writes it; 0
 * when unknown. */
static double dtype_bytes(const char *d)
{
	static const struct {
		const char *name;
		double bytes;
	} map[] = {{"Float", 4}, {"Double", 8}, {"Half", 2},	      {"BFloat16", 2},
		   {"Int", 4},	 {"Long", 8},	{"Short", 2},	      {"Byte", 1},
		   {"Char", 1},	 {"Bool", 1},	{"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(d, map[i].name))
			return map[i].bytes;
	return 0.0;
}

/* ------------------------------------------------------------ the parse */

struct launch {
	int64_t corr;
	double ts;
};

struct span {
	double a, b;
	int32_t iter;
};

struct parse {
	const char *name;
	struct kineto_trace *t;
	struct ts_error *err;
	struct launch *launches;
	size_t nl, capl;
	struct span *spans;
	size_t ns, caps;
	uint32_t slot[2 * KINETO_MAX_UNKNOWN]; /* unknown index + 1, 0 empty */
	uint64_t slot_hash[2 * KINETO_MAX_UNKNOWN];
};

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;
	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int cmp_iter(const void *a, const void *b)
{
	const struct kineto_iter *x = a, *y = b;
	return x->start_s < y->start_s ? -1 : x->start_s > y->start_s;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->iter != y->iter)
		return x->iter < y->iter ? -1 : 1;
	return x->a < y->a ? -1 : x->a > y->a;
}

static int cmp_unknown(const void *a, const void *b)
{
	const struct kineto_unknown *x = a, *y = b;
	if (x->time_s != y->time_s)
		return x->time_s > y->time_s ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A number member of o (integer or real) into *v; false when absent or
 * not a number. */
static bool num(const json_t *o, const char *key, double *v)
{
	const json_t *j = json_object_get(o, key);
	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return true;
}

/* ts and dur of complete event e (index i) in seconds; TS_ESYNTAX when
 * they are not finite non-negative numbers. */
static int event_times(struct parse *p, const json_t *e, size_t i, double *ts, double *dur)
{
	double a, b;
	if (!num(e, "ts", &a) || !num(e, "dur", &b) || !isfinite(a) || !isfinite(b) || a < 0.0 ||
	    b < 0.0 || a > 1e18 || b > 1e15) {
		const char *n = json_string_value(json_object_get(e, "name"));
		return ts_error_set(p->err, TS_ESYNTAX, p->name, 0, NULL,
				    "traceEvents[%zu] (\"%.80s\"): found ts or dur missing, not a "
				    "number or out of range, expected microseconds >= 0",
				    i, n ? n : "");
	}
	*ts = a * 1e-6;
	*dur = b * 1e-6;
	return 0;
}

/* First pass: iterations and launches. */
static int first_pass(struct parse *p, const json_t *ev)
{
	struct kineto_trace *t = p->t;
	size_t n = json_array_size(ev);
	for (size_t i = 0; i < n; i++) {
		const json_t *e = json_array_get(ev, i);
		const char *ph = json_string_value(json_object_get(e, "ph"));
		const char *cat = json_string_value(json_object_get(e, "cat"));
		const char *name = json_string_value(json_object_get(e, "name"));
		if (!ph || strcmp(ph, "X") || !cat || !name)
			continue;
		double ts, dur;
		if (!strncmp(name, "ProfilerStep#", 13) && strcmp(cat, "gpu_user_annotation")) {
			char *end;
			errno = 0;
			long long step = strtoll(name + 13, &end, 10);
			if (errno || end == name + 13 || *end || step < 0)
				return ts_error_set(p->err, TS_ESYNTAX, p->name, 0, NULL,
						    "traceEvents[%zu]: found \"%.60s\", expected "
						    "ProfilerStep#N with N a step number",
						    i, name);
			int rc = event_times(p, e, i, &ts, &dur);
			if (rc)
				return rc;
			if (t->niters >= KINETO_MAX_ITERS)
				return ts_error_set(p->err, TS_ELIMIT, p->name, 0, NULL,
						    "found more than %u ProfilerStep events, "
						    "expected a few iterations",
						    KINETO_MAX_ITERS);
			if (ts_grow((void **)&t->iters, &t->cap_iters, t->niters + 1,
				    sizeof *t->iters))
				return ts_error_set(p->err, TS_ENOMEM, p->name, 0, NULL,
						    "out of memory");
			struct kineto_iter *it = &t->iters[t->niters++];
			memset(it, 0, sizeof *it);
			it->step = step;
			it->start_s = ts;
			it->dur_s = dur;
		} else if (!strcmp(cat, "cuda_runtime") || !strcmp(cat, "cuda_driver")) {
			double c;
			const json_t *args = json_object_get(e, "args");
			if (!num(args, "correlation", &c) || !(c >= 0.0 && c < 9e18))
				continue;
			int rc = event_times(p, e, i, &ts, &dur);
			if (rc)
				return rc;
			if (ts_grow((void **)&p->launches, &p->capl, p->nl + 1,
				    sizeof *p->launches))
				return ts_error_set(p->err, TS_ENOMEM, p->name, 0, NULL,
						    "out of memory");
			p->launches[p->nl++] = (struct launch){(int64_t)c, ts};
		}
	}
	if (t->niters)
		qsort(t->iters, t->niters, sizeof *t->iters, cmp_iter);
	if (p->nl)
		qsort(p->launches, p->nl, sizeof *p->launches, cmp_launch);
	return 0;
}

/* Host time of the launch with correlation id c, or -1. */
static double launch_ts(const struct parse *p, double c)
{
	if (!(c >= 0.0 && c < 9e18))
		return -1.0;
	int64_t k = (int64_t)c;
	size_t lo = 0, hi = p->nl;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->launches[mid].corr < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nl && p->launches[lo].corr == k ? p->launches[lo].ts : -1.0;
}

/* The iteration of host time h (a launch: inside a step's span) or of
 * kernel start k (between one step's start and the next's); -1. */
static int32_t iter_of(const struct kineto_trace *t, double h, double k)
{
	bool host = h >= 0.0;
	double x = host ? h : k;
	size_t lo = 0, hi = t->niters;
	while (lo < hi) { /* first step starting after x */
		size_t mid = lo + (hi - lo) / 2;
		if (t->iters[mid].start_s <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct kineto_iter *it = &t->iters[lo - 1];
	if (host || lo == t->niters)
		return x <= it->start_s + it->dur_s ? (int32_t)(lo - 1) : -1;
	return (int32_t)(lo - 1);
}

static int add_unknown(struct parse *p, const char *name, double dur)
{
	struct kineto_trace *t = p->t;
	uint64_t h = hash_fnv1a_str(name);
	size_t mask = 2 * KINETO_MAX_UNKNOWN - 1;
	for (size_t s = (size_t)h & mask;; s = (s + 1) & mask) {
		if (!p->slot[s]) {
			if (t->nunknown >= KINETO_MAX_UNKNOWN) {
				t->unknown_dropped++;
				return 0;
			}
			if (ts_grow((void **)&t->unknown, &t->cap_unknown, t->nunknown + 1,
				    sizeof *t->unknown))
				return ts_error_set(p->err, TS_ENOMEM, p->name, 0, NULL,
						    "out of memory");
			struct kineto_unknown *u = &t->unknown[t->nunknown++];
			snprintf(u->name, sizeof u->name, "%s", name);
			u->count = 1;
			u->time_s = dur;
			p->slot[s] = (uint32_t)t->nunknown;
			p->slot_hash[s] = h;
			return 0;
		}
		if (p->slot_hash[s] == h) {
			struct kineto_unknown *u = &t->unknown[p->slot[s] - 1];
			u->count++;
			u->time_s += dur;
			return 0;
		}
	}
}

static int add_coll(struct parse *p, const char *name, const json_t *args, double dur, int32_t iter)
{
	struct kineto_trace *t = p->t;
	if (t->ncolls >= KINETO_MAX_COLLS)
		return 0;
	if (ts_grow((void **)&t->colls, &t->cap_colls, t->ncolls + 1, sizeof *t->colls))
		return ts_error_set(p->err, TS_ENOMEM, p->name, 0, NULL, "out of memory");
	struct kineto_coll *c = &t->colls[t->ncolls++];
	memset(c, 0, sizeof *c);
	const char *cn = json_string_value(json_object_get(args, "Collective name"));
	c->op = coll_op(cn ? cn : name);
	if (c->op == KINETO_COLL_OTHER && cn)
		c->op = coll_op(name);
	c->dur_s = dur;
	c->iter = iter;
	const char *dt = json_string_value(json_object_get(args, "dtype"));
	double eb = dt ? dtype_bytes(dt) : 0.0, v;
	if (num(args, "In msg nelems", &v) && v >= 0.0 && v < 1e15)
		c->in_bytes = v * eb;
	if (num(args, "Out msg nelems", &v) && v >= 0.0 && v < 1e15)
		c->out_bytes = v * eb;
	if (num(args, "Group size", &v) && v >= 1.0 && v < 1e7)
		c->group = (uint32_t)v;
	return 0;
}

/* Second pass: the kernels. */
static int second_pass(struct parse *p, const json_t *ev)
{
	struct kineto_trace *t = p->t;
	size_t n = json_array_size(ev);
	for (size_t i = 0; i < n; i++) {
		const json_t *e = json_array_get(ev, i);
		const char *ph = json_string_value(json_object_get(e, "ph"));
		const char *cat = json_string_value(json_object_get(e, "cat"));
		const char *name = json_string_value(json_object_get(e, "name"));
		if (!ph || strcmp(ph, "X") || !cat || strcmp(cat, "kernel") || !name)
			continue;
		double ts, dur, c = -1.0;
		int rc = event_times(p, e, i, &ts, &dur);
		if (rc)
			return rc;
		const json_t *args = json_object_get(e, "args");
		t->nkernels++;
		num(args, "correlation", &c);
		int32_t it = iter_of(t, launch_ts(p, c), ts);
		enum kineto_class k = kineto_classify(name);
		if (k == KINETO_NCCL && (rc = add_coll(p, name, args, dur, it)))
			return rc;
		if (it < 0) {
			t->outside++;
			continue;
		}
		struct kineto_iter *s = &t->iters[it];
		s->class_s[k] += dur;
		s->kernels[k]++;
		t->class_s[k] += dur;
		t->kernels[k]++;
		if (k == KINETO_UNKNOWN && (rc = add_unknown(p, name, dur)))
			return rc;
		if (ts_grow((void **)&p->spans, &p->caps, p->ns + 1, sizeof *p->spans))
			return ts_error_set(p->err, TS_ENOMEM, p->name, 0, NULL, "out of memory");
		p->spans[p->ns++] = (struct span){ts, ts + dur, it};
	}
	/* busy time: the union of each iteration's kernel intervals */
	if (p->ns > 0) /* spans is NULL until a kernel is seen */
		qsort(p->spans, p->ns, sizeof *p->spans, cmp_span);
	for (size_t i = 0; i < p->ns;) {
		int32_t it = p->spans[i].iter;
		double a = p->spans[i].a, b = p->spans[i].b, busy = 0.0;
		for (; i < p->ns && p->spans[i].iter == it; i++) {
			if (p->spans[i].a > b) {
				busy += b - a;
				a = p->spans[i].a;
			}
			if (p->spans[i].b > b)
				b = p->spans[i].b;
		}
		t->iters[it].busy_s = busy + (b - a);
	}
	if (t->nunknown)
		qsort(t->unknown, t->nunknown, sizeof *t->unknown, cmp_unknown);
	return 0;
}

void kineto_free(struct kineto_trace *t)
{
	ts_free(t->iters, t->cap_iters * sizeof *t->iters);
	ts_free(t->unknown, t->cap_unknown * sizeof *t->unknown);
	ts_free(t->colls, t->cap_colls * sizeof *t->colls);
	memset(t, 0, sizeof *t);
}

static int parse_root(struct parse *p, const json_t *root)
{
	struct kineto_trace *t = p->t;
	const json_t *ev = root;
	if (json_is_object(root)) {
		ev = json_object_get(root, "traceEvents");
		const json_t *dp = json_object_get(root, "deviceProperties");
		const char *dn = json_string_value(json_object_get(json_array_get(dp, 0), "name"));
		if (dn)
			snprintf(t->device, sizeof t->device, "%s", dn);
	}
	if (!json_is_array(ev))
		return ts_error_set(p->err, TS_ESYNTAX, p->name, 0, NULL,
				    "found %s, expected a Chrome trace: an object with a "
				    "\"traceEvents\" array (as torch.profiler writes) or an array "
				    "of events",
				    json_is_object(root) ? "an object without \"traceEvents\""
							 : "a JSON scalar");
	if (json_array_size(ev) > KINETO_MAX_EVENTS)
		return ts_error_set(p->err, TS_ELIMIT, p->name, 0, NULL,
				    "found %zu events, expected at most %u (profile a few "
				    "iterations)",
				    json_array_size(ev), KINETO_MAX_EVENTS);
	int rc = first_pass(p, ev);
	if (!rc)
		rc = second_pass(p, ev);
	if (rc)
		return rc;
	if (!t->nkernels)
		return ts_error_set(p->err, TS_EINVALID, p->name, 0, NULL,
				    "found no GPU kernel (no event of \"cat\": \"kernel\"), "
				    "expected a trace recorded with "
				    "ProfilerActivity.CUDA");
	if (!t->niters)
		return ts_error_set(p->err, TS_EINVALID, p->name, 0, NULL,
				    "found %zu kernels but no ProfilerStep#N event, expected a "
				    "trace recorded with torch.profiler's schedule and "
				    "prof.step() once per iteration",
				    t->nkernels);
	return 0;
}

int kineto_parse(const char *text, size_t len, const char *name, struct kineto_trace *out,
		 struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	ts_error_clear(err);
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);
	if (!root)
		return ts_error_set(err, TS_ESYNTAX, name, je.line > 0 ? je.line : 0, NULL,
				    "found invalid JSON at column %d: %.200s, expected a Chrome "
				    "trace (torch.profiler's export_chrome_trace)",
				    je.column, je.text);
	struct parse *p = ts_calloc(1, sizeof *p);
	int rc;
	if (!p) {
		rc = ts_error_set(err, TS_ENOMEM, name, 0, NULL, "out of memory");
	} else {
		p->name = name;
		p->t = out;
		p->err = err;
		rc = parse_root(p, root);
		ts_free(p->launches, p->capl * sizeof *p->launches);
		ts_free(p->spans, p->caps * sizeof *p->spans);
		ts_free(p, sizeof *p);
	}
	json_decref(root);
	if (rc)
		kineto_free(out);
	return rc;
}

/* Inflate gzip data gz[0..n) into a new buffer *out of *outn bytes
 * (capacity *cap), at most KINETO_MAX_FILE. */
static int gunzip(const char *path, const unsigned char *gz, size_t n, char **out, size_t *outn,
		  size_t *cap, struct ts_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return ts_error_set(err, TS_ENOMEM, path, 0, NULL, "out of memory");
	char *buf = NULL;
	size_t len = 0, c = 0;
	int rc = 0, zr = Z_OK;
	z.next_in = (unsigned char *)(uintptr_t)gz;
	z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	while (zr != Z_STREAM_END) {
		if (len == c) {
			size_t nc = c ? 2 * c : 4 * n + 4096;
			if (nc > (size_t)KINETO_MAX_FILE + 1)
				nc = (size_t)KINETO_MAX_FILE + 1;
			if (nc == c) {
				rc = ts_error_set(
				    err, TS_EIO, path, 0, NULL,
				    "found more than %u bytes once inflated, expected "
				    "at most that (profile a few iterations of one rank)",
				    KINETO_MAX_FILE);
				break;
			}
			char *nb = ts_realloc(buf, c, nc);
			if (!nb) {
				rc = ts_error_set(err, TS_ENOMEM, path, 0, NULL, "out of memory");
				break;
			}
			buf = nb;
			c = nc;
		}
		z.next_out = (unsigned char *)buf + len;
		z.avail_out = (uInt)(c - len > UINT32_MAX ? UINT32_MAX : c - len);
		size_t before = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		len += before - z.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && z.avail_out == 0)) {
			rc = ts_error_set(err, TS_ESYNTAX, path, 0, NULL,
					  "found gzip data that does not inflate (%s), expected a "
					  "whole .json.gz",
					  z.msg ? z.msg : "truncated");
			break;
		}
	}
	inflateEnd(&z);
	if (rc) {
		ts_free(buf, c);
		return rc;
	}
	*out = buf;
	*outn = len;
	*cap = c;
	return 0;
}

int kineto_read(const char *path, struct kineto_trace *out, struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	ts_error_clear(err);
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "rb");
	if (!f)
		return ts_error_set(err, TS_EIO, path, 0, NULL, "cannot open: %s", strerror(errno));
	struct stat st;
	if (!in && !fstat(fileno(f), &st) && st.st_size > (off_t)KINETO_MAX_FILE) {
		fclose(f);
		return ts_error_set(err, TS_EIO, path, 0, NULL,
				    "found %lld bytes, expected at most %u (profile a few "
				    "iterations of one rank)",
				    (long long)st.st_size, KINETO_MAX_FILE);
	}
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 1 << 16;
			if (nc > (size_t)KINETO_MAX_FILE + 1)
				nc = (size_t)KINETO_MAX_FILE + 1;
			if (nc == cap) {
				rc = ts_error_set(err, TS_EIO, path, 0, NULL,
						  "found more than %u bytes, expected at most "
						  "that (profile a few iterations of one rank)",
						  KINETO_MAX_FILE);
				break;
			}
			char *nb = ts_realloc(buf, cap, nc);
			if (!nb) {
				rc = ts_error_set(err, TS_ENOMEM, path, 0, NULL, "out of memory");
				break;
			}
			buf = nb;
			cap = nc;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				rc = ts_error_set(err, TS_EIO, path, 0, NULL, "read failed: %s",
						  strerror(errno));
			break;
		}
	}
	if (!in)
		fclose(f);
	if (!rc && n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
		char *text = NULL;
		size_t tn = 0, tc = 0;
		rc = gunzip(path, (const unsigned char *)buf, n, &text, &tn, &tc, err);
		ts_free(buf, cap);
		buf = text;
		n = tn;
		cap = tc;
	}
	if (!rc)
		rc = kineto_parse(buf, n, path, out, err);
	ts_free(buf, cap);
	return rc;
}
