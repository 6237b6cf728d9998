/* trainsim collective: an nccl-tests-style table of a collective on a
 * cluster, simulated size by size.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/units.h"
#include "cli/cli.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "io/table.h"
#include "net/coll.h"
#include "net/net.h"
#include "run/result.h"

struct copts {
	const char *cluster;
	struct hw_cluster_opts hw;
	int op, algo, proto;
	double min_b, max_b, factor;
	const char *format;
	enum net_mode mode;
	uint32_t ngpus; /* 0 = all */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim collective --cluster NAME [--nodes N] [--set KEY=VALUE]...\n"
		"         [--op all_reduce|all_gather|reduce_scatter|broadcast|reduce|all_to_all|\n"
		"               send_recv] [-b MIN] [-e MAX] [-f FACTOR] [-g GPUS]\n"
		"         [--algo auto|ring|tree|nvls|collnet] [--proto auto|LL|LL128|Simple]\n"
		"         [--mode class|full] [--format text|csv|json]\n"
		"  sizes take nccl-tests suffixes (8, 64K, 1M, 8G: powers of 1024) or units (\"1 "
		"GiB\")\n"
		"  --set keys: nodes, gpus_per_node, nics_per_node\n"
		"  -g: use only the first GPUS GPUs of the cluster (default all)\n");
}

/* Largest message size, bytes (1 PiB): the time of one collective stays
 * far inside the integer nanosecond clock. */
#define COLL_MAX_BYTES 1125899906842624.0
/* Most sizes in one sweep (nccl-tests' -b 8 -e 8G -f 2 has 31). */
#define COLL_MAX_ROWS 1000
/* Most nodes (as a scenario's nodes). */
#define COLL_MAX_NODES 65536

/* A malformed command line: exit 1. */
static int bad(const char *what, const char *found, const char *expected)
{
	fprintf(stderr, "trainsim collective: %s: found \"%s\", expected %s\n", what, found,
		expected);
	return CLI_USAGE;
}

/* A value the command line gives that trainsim cannot use: exit 2. */
static int bad_value(const char *what, const char *found, const char *expected)
{
	fprintf(stderr, "trainsim collective: %s: found \"%s\", expected %s\n", what, found,
		expected);
	return CLI_BADINPUT;
}

/* The next size of the sweep: b x factor rounded down, at least b + 1. */
static double next_size(double b, double factor)
{
	double n = floor(b * factor);
	return n > b ? n : b + 1.0;
}

/* nccl-tests size: a number with an optional K/M/G/T/P suffix (x1024). */
static int parse_size(const char *s, double *out)
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

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi || s[0] == '-')
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int apply_set(struct copts *o, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq)
		return bad_value("--set", kv, "KEY=VALUE");
	size_t kl = (size_t)(eq - kv);
	uint32_t *dst = NULL;
	if (kl == 5 && !strncmp(kv, "nodes", kl))
		dst = &o->hw.nodes;
	else if (kl == 13 && !strncmp(kv, "gpus_per_node", kl))
		dst = &o->hw.gpus_per_node;
	else if (kl == 13 && !strncmp(kv, "nics_per_node", kl))
		dst = &o->hw.nics_per_node;
	if (!dst)
		return bad_value("--set", kv, "a key of nodes, gpus_per_node, nics_per_node");
	if (parse_u32(eq + 1, 1, dst == &o->hw.nodes ? COLL_MAX_NODES : 1024, dst))
		return bad_value("--set", kv,
				 dst == &o->hw.nodes ? "a whole number from 1 to 65536"
						     : "a whole number from 1 to 1024");
	return 0;
}

static int parse_args(int argc, char **argv, struct copts *o)
{
	*o = (struct copts){.op = COLL_ALL_REDUCE,
			    .algo = COLL_ALGO_AUTO,
			    .proto = COLL_PROTO_AUTO,
			    .min_b = 8,
			    .max_b = 1 << 27,
			    .factor = 2.0,
			    .format = "text",
			    .mode = NET_CLASS};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
		if (!v) {
			fprintf(stderr,
				"trainsim collective: %s: found nothing, expected a value "
				"after it (see trainsim collective --help)\n",
				a);
			return CLI_USAGE;
		}
		i++;
		if (!strcmp(a, "--cluster")) {
			o->cluster = v;
		} else if (!strcmp(a, "--nodes")) {
			if (parse_u32(v, 1, COLL_MAX_NODES, &o->hw.nodes))
				return bad_value("--nodes", v, "a whole number from 1 to 65536");
		} else if (!strcmp(a, "--set")) {
			int rc = apply_set(o, v);
			if (rc)
				return rc;
		} else if (!strcmp(a, "--op") || !strcmp(a, "-o")) {
			if ((o->op = coll_op_parse(v)) < 0)
				return bad("--op", v,
					   "all_reduce, all_gather, reduce_scatter, broadcast, "
					   "reduce, all_to_all or send_recv");
		} else if (!strcmp(a, "-b") || !strcmp(a, "--minbytes")) {
			if (parse_size(v, &o->min_b))
				return bad_value("-b", v,
						 "a size from 0 to 1P such as 8, 64K, 1M or 8G");
		} else if (!strcmp(a, "-e") || !strcmp(a, "--maxbytes")) {
			if (parse_size(v, &o->max_b))
				return bad_value("-e", v,
						 "a size from 0 to 1P such as 8, 64K, 1M or 8G");
		} else if (!strcmp(a, "-f") || !strcmp(a, "--stepfactor")) {
			char *end;
			o->factor = strtod(v, &end);
			if (end == v || *end || !(o->factor > 1.0) || !isfinite(o->factor))
				return bad_value("-f", v, "a factor > 1");
		} else if (!strcmp(a, "-g") || !strcmp(a, "--gpus")) {
			if (parse_u32(v, 1, UINT32_MAX, &o->ngpus))
				return bad_value("-g", v, "a whole number >= 1");
		} else if (!strcmp(a, "--algo")) {
			if ((o->algo = coll_algo_parse(v)) < 0 || o->algo == COLL_ALGO_P2P)
				return bad("--algo", v, "auto, ring, tree, nvls or collnet");
		} else if (!strcmp(a, "--proto")) {
			if ((o->proto = coll_proto_parse(v)) < 0)
				return bad("--proto", v, "auto, LL, LL128 or Simple");
		} else if (!strcmp(a, "--mode")) {
			if (!strcmp(v, "class"))
				o->mode = NET_CLASS;
			else if (!strcmp(v, "full"))
				o->mode = NET_FULL;
			else
				return bad("--mode", v, "class or full");
		} else if (!strcmp(a, "--format")) {
			if (strcmp(v, "text") && strcmp(v, "csv") && strcmp(v, "json"))
				return bad("--format", v, "text, csv or json");
			o->format = v;
		} else {
			return bad("unknown option", a,
				   "one of the options of trainsim collective --help");
		}
	}
	if (!o->cluster) {
		fprintf(stderr, "trainsim collective: --cluster: found none, expected a cluster "
				"name such as dgx-a100-80gb (trainsim list clusters)\n");
		return CLI_USAGE;
	}
	if (o->min_b > o->max_b) {
		fprintf(stderr,
			"trainsim collective: -b: found %.0f bytes, above -e %.0f, "
			"expected -b <= -e\n",
			o->min_b, o->max_b);
		return CLI_BADINPUT;
	}
	int rows = 0;
	for (double b = o->min_b; b <= o->max_b && rows <= COLL_MAX_ROWS;
	     b = next_size(b, o->factor))
		rows++;
	if (rows > COLL_MAX_ROWS) {
		fprintf(stderr,
			"trainsim collective: -f: found %.10g, which makes more than %d sizes "
			"from -b %.0f to -e %.0f, expected a larger factor or a narrower "
			"range\n",
			o->factor, COLL_MAX_ROWS, o->min_b, o->max_b);
		return CLI_BADINPUT;
	}
	return 0;
}

struct timing {
	struct ts_evq *q;
	ts_time end;
};

static void coll_done(void *ctx, uint64_t arg)
{
	(void)arg;
	struct timing *t = ctx;
	t->end = evq_now(t->q);
}

/* Elements per rank as nccl-tests prints them ("count", float). */
static double count_of(int op, double bytes, uint32_t n)
{
	if (op == COLL_ALL_GATHER || op == COLL_REDUCE_SCATTER || op == COLL_ALL_TO_ALL)
		return floor(bytes / 4.0 / n);
	return floor(bytes / 4.0);
}

static int simulate(const struct copts *o, const struct hw_cluster *c, struct ts_table *tab,
		    double *avg_bus, enum net_mode *used)
{
	struct ts_evq *q = NULL;
	struct ts_fluid *f = NULL;
	struct ts_net *net = NULL;
	struct ts_coll *cc = NULL;
	uint32_t *ranks = NULL;
	int rc = CLI_BADINPUT;
	uint32_t n = hw_cluster_gpus(c);
	if (o->ngpus) {
		if (o->ngpus > n) {
			fprintf(stderr,
				"trainsim collective: -g: found %u GPUs, expected at most the "
				"cluster's %u\n",
				o->ngpus, n);
			return CLI_BADINPUT;
		}
		n = o->ngpus;
	}
	enum net_mode mode = o->mode;
	/* class mode needs a group that looks the same from every node */
	if (n % hw_cluster_gpus_per_node(c) != 0)
		mode = NET_FULL;
	*used = mode;
	if (evq_create(&q, 1024) || fluid_create(&f, q) || net_create(&net, c, f, mode) ||
	    coll_create(&cc, net) || !(ranks = ts_calloc(n, sizeof *ranks))) {
		fprintf(stderr, "trainsim collective: out of memory\n");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		ranks[i] = i;
	uint32_t nodes = (n + hw_cluster_gpus_per_node(c) - 1) / hw_cluster_gpus_per_node(c);
	struct timing tm = {.q = q};
	double sum_bus = 0.0;
	int nrows = 0;
	for (double b = o->min_b; b <= o->max_b; b = next_size(b, o->factor)) {
		double bytes = b;
		if (o->op == COLL_ALL_GATHER || o->op == COLL_REDUCE_SCATTER ||
		    o->op == COLL_ALL_TO_ALL)
			bytes = floor(b / (4.0 * n)) * 4.0 * n; /* whole elements per rank */
		struct coll_spec s = {.op = (enum coll_op)o->op,
				      .ranks = ranks,
				      .nranks = n,
				      .bytes = bytes,
				      .mult = mode == NET_CLASS ? nodes : 1,
				      .algo = o->algo,
				      .proto = o->proto,
				      .done = coll_done,
				      .ctx = &tm};
		struct coll_plan p;
		struct ts_error err;
		ts_error_clear(&err);
		ts_time t0 = evq_now(q);
		int e = coll_start(cc, &s, &p, &err);
		if (e) {
			char buf[1024];
			fprintf(stderr, "trainsim collective: %s\n",
				ts_error_format(&err, buf, sizeof buf));
			goto out;
		}
		fluid_run(f, TS_TIME_MAX);
		double t = ts_time_to_s(tm.end - t0);
		double algbw = t > 0.0 ? bytes / t : 0.0;
		double bus = algbw * coll_bus_factor((enum coll_op)o->op, n);
		sum_bus += bus;
		nrows++;
		table_add_row(tab);
		table_cell(tab, 0, "%.0f", bytes);
		table_cell(tab, 1, "%.0f", count_of(o->op, bytes, n));
		table_cell(tab, 2, "float");
		table_cell(tab, 3, "%s",
			   o->op == COLL_ALL_GATHER || o->op == COLL_BROADCAST ||
				   o->op == COLL_ALL_TO_ALL || o->op == COLL_SEND_RECV
			       ? "none"
			       : "sum");
		table_cell(tab, 4, "%.2f", t * 1e6);
		table_cell(tab, 5, "%.2f", algbw / 1e9);
		table_cell(tab, 6, "%.2f", bus / 1e9);
		table_cell(tab, 7, "%s", coll_algo_name((enum coll_algo)p.algo));
		table_cell(tab, 8, "%s", coll_proto_name(p.proto));
		table_cell(tab, 9, "%u", p.channels);
	}
	*avg_bus = nrows ? sum_bus / nrows : 0.0;
	rc = table_status(tab) ? CLI_BADINPUT : CLI_OK;
out:
	ts_free(ranks, n * sizeof *ranks);
	coll_destroy(cc);
	net_destroy(net);
	fluid_destroy(f);
	evq_destroy(q);
	return rc;
}

int cli_collective(int argc, char **argv)
{
	struct copts o;
	int rc = parse_args(argc, argv, &o);
	if (rc < 0)
		return CLI_OK;
	if (rc)
		return rc;
	struct hw_catalog *cat = NULL;
	struct hw_cluster *c = NULL;
	struct ts_table *tab = NULL;
	struct ts_error err;
	ts_error_clear(&err);
	rc = cli_load_common("collective", &cat, NULL);
	if (rc)
		return rc;
	rc = CLI_BADINPUT;
	if (hw_cluster_load(cat, o.cluster, &o.hw, &c, &err)) {
		cli_print_error("collective", &err);
		goto out;
	}
	static const char *const heads[] = {"size(B)",	"count(elements)", "type",	  "redop",
					    "time(us)", "algbw(GB/s)",	   "busbw(GB/s)", "algo",
					    "proto",	"channels"};
	if (table_create(&tab, 10)) {
		fprintf(stderr, "trainsim collective: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < 10; i++)
		table_header(tab, i, heads[i],
			     i == 2 || i == 3 || (i >= 7 && i <= 8) ? TABLE_LEFT : TABLE_RIGHT);
	double avg_bus = 0.0;
	enum net_mode used = o.mode;
	rc = simulate(&o, c, tab, &avg_bus, &used);
	if (rc)
		goto out;
	uint32_t n = o.ngpus ? o.ngpus : hw_cluster_gpus(c);
	if (!strcmp(o.format, "csv")) {
		table_print_csv(tab, stdout);
	} else if (!strcmp(o.format, "json")) {
		json_t *root = json_object();
		json_object_set_new(root, "schema_version", json_integer(TS_SCHEMA_VERSION));
		json_object_set_new(root, "cluster", json_string(hw_cluster_name(c)));
		json_object_set_new(root, "op", json_string(coll_op_name((enum coll_op)o.op)));
		json_object_set_new(root, "nodes", json_integer(hw_cluster_nodes(c)));
		json_object_set_new(root, "gpus", json_integer(n));
		json_object_set_new(root, "avg_busbw_GBps", json_real(avg_bus / 1e9));
		json_object_set_new(root, "rows", table_to_json(tab));
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
		json_decref(root);
	} else {
		printf("# trainsim collective: %s on %s, %u node(s) x %u GPU(s) of %s, %u ranks\n",
		       coll_op_name((enum coll_op)o.op), hw_cluster_name(c), hw_cluster_nodes(c),
		       hw_cluster_gpus_per_node(c), hw_cluster_gpu_type(c)->name, n);
		printf("# simulated (%s mode); time is one collective, busbw as nccl-tests defines "
		       "it\n",
		       used == NET_CLASS ? "class" : "full");
		table_print(tab, stdout);
		printf("# Avg bus bandwidth    : %.3f GB/s\n", avg_bus / 1e9);
	}
	rc = CLI_OK;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "trainsim collective: writing the table failed\n");
		rc = CLI_BADINPUT;
	}
out:
	table_destroy(tab);
	hw_cluster_destroy(c);
	hw_catalog_destroy(cat);
	return rc;
}
