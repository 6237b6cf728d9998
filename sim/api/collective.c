/* ts_collective_write: an nccl-tests-style table of a collective on a
 * cluster, simulated size by size.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/units.h"
#include "api/api_int.h"
#include "hw/catalog.h"
#include "plan/env.h"
#include "hw/cluster.h"
#include "report/collective.h"
#include "net/coll.h"
#include "net/meter.h"
#include "net/net.h"
#include "run/result.h"

/* The options resolved from struct ts_collective_opts. */
struct copts {
	const char *cluster;
	struct hw_cluster_opts hw;
	int op, algo, proto;
	double min_b, max_b, factor;
	enum net_mode mode;
	uint32_t ngpus;	      /* 0 = all */
	const char *sets[16]; /* other KEY=VALUE of the cluster (borrowed) */
	size_t nsets;
	/* the argument that gave nodes, gpus_per_node and nics_per_node
	 * ("--nodes" or a --set's KEY=VALUE, borrowed), NULL for the file's */
	const char *count_arg[3];
};

/* Largest message size, bytes (1 PiB): the time of one collective stays
 * far inside the integer nanosecond clock. */
#define COLL_MAX_BYTES 1125899906842624.0
/* Most sizes in one sweep (nccl-tests' -b 8 -e 8G -f 2 has 31). */
#define COLL_MAX_ROWS 1000
/* Most nodes (as a scenario's nodes; the cluster then refuses more than
 * TS_MAX_GPUS GPUs). */
#define COLL_MAX_NODES TS_MAX_GPUS

/* An unknown name (of an op, algorithm, protocol, mode): TS_EUSAGE. */
static int bad(const char *what, const char *found, const char *expected)
{
	return api_failf(TS_EUSAGE, what, "found \"%s\", expected %s", found, expected);
}

/* A value that trainsim cannot use: TS_ERANGE. */
static int bad_value(const char *what, const char *found, const char *expected)
{
	return api_failf(TS_ERANGE, what, "found \"%s\", expected %s", found, expected);
}

/* The next size of the sweep: b x factor rounded down, at least b + 1. */
static double next_size(double b, double factor)
{
	double n = floor(b * factor);
	return n > b ? n : b + 1.0;
}

/* nccl-tests size: a number with an optional K/M/G/T/P suffix (x1024). */
static int size_of(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0.0 || s[0] == '-')
		return -1;
	double mul = 1.0;
	if (*end) {
		if (end[1] == '\0') {
			switch (toupper((unsigned char)*end)) {
			case 'K':
				mul = 1024.0;
				break;
			case 'M':
				mul = 1048576.0;
				break;
			case 'G':
				mul = 1073741824.0;
				break;
			case 'T':
				mul = 1099511627776.0;
				break;
			case 'P':
				mul = 1125899906842624.0;
				break;
			default:
				mul = 0.0;
			}
			if (mul == 0.0)
				return -1;
		} else if (ts_units_parse(s, TS_UNIT_BYTES, &v, NULL, 0)) {
			return -1;
		}
	}
	*out = floor(v * mul);
	return *out <= COLL_MAX_BYTES ? 0 : -1;
}

/* A whole number from lo to hi as ts_parse_count reads it (16, 1e2). */
static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	long long v;
	if (ts_parse_count(s, lo, hi, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A --set of the cluster's counts lands in the load options (as --nodes
 * does); any other key is kept for cluster_load, which lays it over the
 * cluster file like a scenario's inline cluster group. */
static int apply_set(struct copts *o, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv || !eq[1])
		return bad_value("--set", kv, "KEY=VALUE");
	const char *arg = kv;
	if (!strncmp(kv, "cluster.", 8))
		kv += 8;
	size_t kl = (size_t)(eq - kv);
	uint32_t *dst = NULL;
	if (kl == 5 && !strncmp(kv, "nodes", kl))
		dst = &o->hw.nodes;
	else if (kl == 13 && !strncmp(kv, "gpus_per_node", kl))
		dst = &o->hw.gpus_per_node;
	else if (kl == 13 && !strncmp(kv, "nics_per_node", kl))
		dst = &o->hw.nics_per_node;
	if (!dst) {
		if (o->nsets == sizeof o->sets / sizeof o->sets[0])
			return bad_value("--set", kv, "at most 16 cluster keys");
		o->sets[o->nsets++] = kv;
		return 0;
	}
	if (parse_u32(eq + 1, 1, dst == &o->hw.nodes ? COLL_MAX_NODES : 1024, dst))
		return bad_value("--set", kv,
				 dst == &o->hw.nodes ? "a whole number from 1 to 1048576"
						     : "a whole number from 1 to 1024");
	o->count_arg[dst == &o->hw.nodes ? 0 : dst == &o->hw.gpus_per_node ? 1 : 2] = arg;
	return 0;
}

/* Copy libconfig setting `src` into group, array or list `dst` as `name`
 * (NULL inside arrays and lists). */
static int copy_setting(config_setting_t *dst, const char *name, const config_setting_t *src)
{
	int type = config_setting_type(src);
	config_setting_t *d = config_setting_add(dst, name, type);
	if (!d)
		return -1;
	switch (type) {
	case CONFIG_TYPE_INT:
		return config_setting_set_int(d, config_setting_get_int(src)) ? 0 : -1;
	case CONFIG_TYPE_INT64:
		return config_setting_set_int64(d, config_setting_get_int64(src)) ? 0 : -1;
	case CONFIG_TYPE_FLOAT:
		return config_setting_set_float(d, config_setting_get_float(src)) ? 0 : -1;
	case CONFIG_TYPE_BOOL:
		return config_setting_set_bool(d, config_setting_get_bool(src)) ? 0 : -1;
	case CONFIG_TYPE_STRING:
		return config_setting_set_string(d, config_setting_get_string(src)) ? 0 : -1;
	default:
		for (int i = 0; i < config_setting_length(src); i++) {
			const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
			if (copy_setting(
				d, type == CONFIG_TYPE_GROUP ? config_setting_name(e) : NULL, e))
				return -1;
		}
		return 0;
	}
}

/* Lay "key.path=value" over group g: the value is a libconfig value (8,
 * 2.5, false, "text", { ... }, ( ... )) or else a bare word taken as a
 * string; missing groups on the path are created. */
static int set_one(config_setting_t *g, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char path[160];
	size_t kl = (size_t)(eq - kv);
	if (kl >= sizeof path)
		return bad_value("--set", kv, "a key of at most 159 characters");
	memcpy(path, kv, kl);
	path[kl] = '\0';
	const char *val = eq + 1;
	size_t vl = strlen(val);
	char *text = ts_malloc(vl + 8);
	if (!text) {
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	}
	snprintf(text, vl + 8, "v = %s;", val);
	config_t scratch;
	config_init(&scratch);
	int rc = 0;
	if (!config_read_string(&scratch, text)) {
		if (strpbrk(val, "\"{}[]();=")) {
			rc = bad_value(
			    "--set", kv,
			    "a libconfig value: 8, 1.5, true, \"text\", { key = value; }");
			goto out;
		}
		config_destroy(&scratch);
		config_init(&scratch);
		config_setting_t *sv =
		    config_setting_add(config_root_setting(&scratch), "v", CONFIG_TYPE_STRING);
		if (!sv || !config_setting_set_string(sv, val)) {
			rc = bad_value("--set", kv, "a value that fits in memory");
			goto out;
		}
	}
	config_setting_t *parent = g;
	char *p = path;
	for (char *dot; (dot = strchr(p, '.')); p = dot + 1) {
		*dot = '\0';
		config_setting_t *m = config_setting_get_member(parent, p);
		if (!m)
			m = config_setting_add(parent, p, CONFIG_TYPE_GROUP);
		if (!m || !config_setting_is_group(m)) {
			rc = bad_value("--set", kv, "a key path through groups of the cluster");
			goto out;
		}
		parent = m;
	}
	if (!*p || strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
		       strlen(p)) {
		rc = bad_value("--set", kv, "names of letters, digits, '_' and '-' joined by '.'");
		goto out;
	}
	if (config_setting_get_member(parent, p))
		config_setting_remove(parent, p);
	if (copy_setting(parent, p, config_setting_get_member(config_root_setting(&scratch), "v")))
		rc = bad_value("--set", kv, "a key of letters, digits, '_' and '-'");
out:
	config_destroy(&scratch);
	ts_free(text, vl + 8);
	return rc;
}

/* Record the loader's error e; one about a count that an option gave (the
 * loader reports those with no line: they are not the file's) is keyed by
 * that option, "--nodes" or --set "nodes=N", rather than by the file. */
static int fail_load(const struct ts_error *e, const struct copts *o)
{
	static const char *const keys[3] = {"nodes", "gpus_per_node", "nics_per_node"};
	const char *arg = NULL;
	for (int i = 0; i < 3 && e->line == 0; i++) {
		const char *k = !strncmp(e->key, "cluster.", 8) ? e->key + 8 : e->key;
		if (!strcmp(k, keys[i]))
			arg = o->count_arg[i];
	}
	if (!arg)
		return api_fail(e);
	char key[200];
	if (!strncmp(arg, "--", 2))
		snprintf(key, sizeof key, "%s", arg);
	else
		snprintf(key, sizeof key, "--set \"%.150s\"", arg);
	return api_failf(e->code, key, "%s", e->msg);
}

/* The cluster --cluster names, with the --set keys laid over it through
 * the inline-cluster path (cluster = { base = NAME; ... }). Returns 0 or the
 * error (recorded for ts_errmsg). */
static int cluster_load(const struct hw_catalog *cat, const struct copts *o,
			struct hw_cluster **out)
{
	struct ts_error err;
	ts_error_clear(&err);
	*out = NULL;
	if (!o->nsets) {
		return hw_cluster_load(cat, o->cluster, &o->hw, out, &err) ? fail_load(&err, o) : 0;
	}
	config_t cfg;
	config_init(&cfg);
	int rc = 0;
	config_setting_t *g =
	    config_setting_add(config_root_setting(&cfg), "cluster", CONFIG_TYPE_GROUP);
	config_setting_t *b = g ? config_setting_add(g, "base", CONFIG_TYPE_STRING) : NULL;
	if (!b || !config_setting_set_string(b, o->cluster))
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; !rc && i < o->nsets; i++)
		rc = set_one(g, o->sets[i]);
	if (!rc && hw_cluster_from_setting(cat, g, "--set", &o->hw, out, &err)) {
		/* name the --set argument whose key the loader refused */
		const char *arg = NULL;
		for (size_t i = 0; i < o->nsets && !arg; i++) {
			size_t kl = (size_t)(strchr(o->sets[i], '=') - o->sets[i]);
			if (!strncmp(err.key, "cluster.", 8) &&
			    !strncmp(err.key + 8, o->sets[i], kl) &&
			    (err.key[8 + kl] == '\0' || err.key[8 + kl] == '.'))
				arg = o->sets[i];
		}
		if (arg && err.code == TS_EUNKNOWN_KEY) {
			rc = api_failf(TS_EUNKNOWN_KEY, "--set",
				       "found \"%s\", expected a key of nodes, gpus_per_node, "
				       "nics_per_node or the cluster file (%s: %s)",
				       arg, err.key, err.msg);
		} else if (arg) {
			char key[200];
			snprintf(key, sizeof key, "--set \"%.150s\"", arg);
			rc = api_failf(err.code, key, "%s: %s", err.key, err.msg);
		} else {
			rc = fail_load(&err, o);
		}
	}
	config_destroy(&cfg);
	return rc;
}

/* Resolve the public options into o: names parsed, counts checked. */
static int resolve(const struct ts_collective_opts *in, struct copts *o)
{
	*o = (struct copts){.cluster = in->cluster,
			    .op = COLL_ALL_REDUCE,
			    .algo = COLL_ALGO_AUTO,
			    .proto = COLL_PROTO_AUTO,
			    .min_b = in->min_bytes,
			    .max_b = in->max_bytes,
			    .factor = in->factor,
			    .mode = NET_CLASS,
			    .ngpus = in->gpus};
	o->hw.nodes = in->nodes;
	o->count_arg[0] = in->nodes ? "--nodes" : NULL;
	if (in->op && (o->op = coll_op_parse(in->op)) < 0)
		return bad("--op", in->op,
			   "all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all "
			   "or send_recv");
	if (in->algo && ((o->algo = coll_algo_parse(in->algo)) < 0 || o->algo == COLL_ALGO_P2P))
		return bad("--algo", in->algo, "auto, ring, tree, nvls or collnet");
	if (in->proto && (o->proto = coll_proto_parse(in->proto)) < 0)
		return bad("--proto", in->proto, "auto, LL, LL128 or Simple");
	if (in->mode && !strcmp(in->mode, "full"))
		o->mode = NET_FULL;
	else if (in->mode && strcmp(in->mode, "class"))
		return bad("--mode", in->mode, "class or full");
	if (!o->cluster)
		return api_failf(TS_EUSAGE, "--cluster",
				 "found none, expected a cluster name such as dgx-a100-80gb "
				 "(trainsim list clusters)");
	if (in->nodes > COLL_MAX_NODES)
		return api_failf(TS_ERANGE, "--nodes",
				 "found %u, expected a whole number from 1 to %u",
				 (unsigned)in->nodes, COLL_MAX_NODES);
	for (size_t i = 0; i < in->nsets; i++) {
		int rc = apply_set(o, in->sets[i]);
		if (rc)
			return rc;
	}
	if (!(o->min_b >= 0.0) || !(o->max_b <= COLL_MAX_BYTES))
		return api_failf(TS_ERANGE, "-b",
				 "found %.0f to %.0f bytes, expected sizes from 0 to 1P", o->min_b,
				 o->max_b);
	if (!(o->factor > 1.0) || !isfinite(o->factor))
		return api_failf(TS_ERANGE, "-f", "found %g, expected a factor > 1", o->factor);
	if (o->min_b > o->max_b)
		return api_failf(TS_ERANGE, "-b",
				 "found %.0f bytes, above -e %.0f, expected -b <= -e", o->min_b,
				 o->max_b);
	int rows = 0;
	for (double b = o->min_b; b <= o->max_b && rows <= COLL_MAX_ROWS;
	     b = next_size(b, o->factor))
		rows++;
	if (rows > COLL_MAX_ROWS)
		return api_failf(TS_ERANGE, "-f",
				 "found %.10g, which makes more than %d sizes from -b %.0f to -e "
				 "%.0f, expected a larger factor or a narrower range",
				 o->factor, COLL_MAX_ROWS, o->min_b, o->max_b);
	return 0;
}

/* Elements per rank as nccl-tests prints them ("count", float). */
static double count_of(int op, double bytes, uint32_t n)
{
	if (op == COLL_ALL_GATHER || op == COLL_REDUCE_SCATTER || op == COLL_ALL_TO_ALL)
		return floor(bytes / 4.0 / n);
	return floor(bytes / 4.0);
}

/* Simulate the collective of o on the first n GPUs of c at each size:
 * *rows (grown as needed, *cap elements, freed by the caller) receives
 * *nrows sizes, *avg_bus the mean bus bandwidth, *used the mode run. */
static int simulate(const struct copts *o, const struct hw_cluster *c, uint32_t n,
		    struct report_coll_row **rows, size_t *cap, size_t *nrows, double *avg_bus,
		    enum net_mode *used, struct report_collective *note)
{
	struct coll_meter *m = NULL;
	struct ts_error err;
	ts_error_clear(&err);
	if (o->ngpus > hw_cluster_gpus(c))
		return api_failf(TS_ERANGE, "-g",
				 "found %u GPUs, expected at most the cluster's %u", o->ngpus,
				 hw_cluster_gpus(c));
	/* nccl-tests allocates a send and a receive buffer of the largest size
	 * on every GPU (its setupArgs and the allocations of common.cu: the
	 * per-rank operations' receive buffer is the whole size): a largest
	 * size whose two buffers exceed the GPU's memory could not run */
	const struct hw_gpu_type *g = hw_cluster_gpu_type(c);
	if (g && g->mem_bytes > 0.0 && 2.0 * o->max_b > g->mem_bytes)
		return api_failf(TS_ERANGE, "-e",
				 "found %.0f bytes, whose send and receive buffers (2 x %.4g GB) "
				 "exceed the %.4g GB of a %s, expected -e at most %.0f bytes",
				 o->max_b, o->max_b / 1e9, g->mem_bytes / 1e9, g->name,
				 floor(g->mem_bytes / 2.0));
	if (coll_meter_create(&m, c, n, o->mode, &err))
		return api_fail(&err);
	*used = coll_meter_mode(m);
	double sum_bus = 0.0;
	size_t nr = 0;
	int rc = 0;
	for (double b = o->min_b; b <= o->max_b; b = next_size(b, o->factor)) {
		/* whole float elements, as nccl-tests aligns each size to its count
		 * times the type's size (and, for the per-rank operations, to whole
		 * elements per rank), so size and count agree */
		double bytes = floor(b / 4.0) * 4.0;
		if (o->op == COLL_ALL_GATHER || o->op == COLL_REDUCE_SCATTER ||
		    o->op == COLL_ALL_TO_ALL)
			bytes = floor(b / (4.0 * n)) * 4.0 * n; /* whole elements per rank */
		if (bytes != b && note->round_from < 0.0) {
			note->round_from = b; /* said in the text output */
			note->round_to = bytes;
		}
		/* NCCL returns at once, launching no kernel, for a count of 0
		 * (taskAppend of src/enqueue.cc: "if (info->count == 0) return
		 * ncclSuccess"): nothing to simulate */
		if (bytes == 0.0) {
			note->zero_skipped++;
			continue;
		}
		if (nr && (*rows)[nr - 1].bytes == bytes)
			continue; /* rounded onto the previous size: one row */
		struct coll_plan p;
		double t = 0.0;
		if (coll_meter_run(m, (enum coll_op)o->op, bytes, o->algo, o->proto, &p, &t,
				   &err)) {
			rc = api_fail(&err);
			goto out;
		}
		double algbw = t > 0.0 ? bytes / t : 0.0;
		double bus = algbw * coll_bus_factor((enum coll_op)o->op, n);
		sum_bus += bus;
		if (nr == *cap) {
			size_t nc = *cap ? 2 * *cap : 64;
			struct report_coll_row *v =
			    ts_realloc(*rows, *cap * sizeof *v, nc * sizeof *v);
			if (!v) {
				rc = api_failf(TS_ENOMEM, NULL, "out of memory");
				goto out;
			}
			*rows = v;
			*cap = nc;
		}
		(*rows)[nr++] =
		    (struct report_coll_row){bytes, count_of(o->op, bytes, n), t,	algbw,
					     bus,   (enum coll_algo)p.algo,    p.proto, p.channels};
	}
	*avg_bus = nr ? sum_bus / (double)nr : 0.0;
	*nrows = nr;
	if (!nr)
		rc = api_failf(TS_ERANGE, "-e",
			       "found sizes %.0f to %.0f bytes, each of which rounds down to 0 B "
			       "(whole %s elements, as nccl-tests sizes them), expected -e of at "
			       "least %.0f bytes",
			       o->min_b, o->max_b,
			       o->op == COLL_ALL_GATHER || o->op == COLL_REDUCE_SCATTER ||
				       o->op == COLL_ALL_TO_ALL
				   ? "float per-rank"
				   : "float",
			       o->op == COLL_ALL_GATHER || o->op == COLL_REDUCE_SCATTER ||
				       o->op == COLL_ALL_TO_ALL
				   ? 4.0 * n
				   : 4.0);
out:
	coll_meter_destroy(m);
	return rc;
}

void ts_collective_opts_init(struct ts_collective_opts *o)
{
	*o = (struct ts_collective_opts){.min_bytes = 8, .max_bytes = 1 << 27, .factor = 2.0};
}

int ts_parse_size(const char *s, double *bytes)
{
	if (!s || size_of(s, bytes))
		return api_failf(TS_ERANGE, NULL,
				 "found \"%s\", expected a size from 0 to 1P such as 8, 64K, 1M "
				 "or 8G",
				 s ? s : "");
	return 0;
}

int ts_collective_write(const ts_env *env, const struct ts_collective_opts *opts,
			enum ts_format format, FILE *out)
{
	struct copts o;
	int rc = resolve(opts, &o);
	if (rc)
		return rc;
	struct hw_cluster *c = NULL;
	struct report_coll_row *rows = NULL;
	size_t cap = 0, nrows = 0;
	if ((rc = cluster_load(env->cat, &o, &c)))
		goto out;
	double avg_bus = 0.0;
	enum net_mode used = o.mode;
	uint32_t n = o.ngpus ? o.ngpus : hw_cluster_gpus(c);
	struct report_collective note = {.round_from = -1.0};
	if ((rc = simulate(&o, c, n, &rows, &cap, &nrows, &avg_bus, &used, &note)))
		goto out;
	struct report_collective rc_data = {(enum coll_op)o.op,
					    o.min_b,
					    o.max_b,
					    o.factor,
					    c,
					    n,
					    used,
					    rows,
					    nrows,
					    avg_bus,
					    note.round_from,
					    note.round_to,
					    note.zero_skipped};
	struct ts_error err;
	ts_error_clear(&err);
	if (report_collective_write(&rc_data, format, out, &err))
		rc = api_fail(&err);
out:
	ts_free(rows, cap * sizeof *rows);
	hw_cluster_destroy(c);
	return rc;
}
