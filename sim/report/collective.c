/* The writers of trainsim collective: the simulated sizes of one
 * collective as a table (text, CSV, JSON) or as nccl-tests prints them.
 * SPDX-License-Identifier: MIT */
#include <jansson.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "net/coll.h"
#include "report/collective.h"
#include "report/table.h"
#include "run/result.h"

/* The reduction nccl-tests names for op ("none" where nothing is reduced). */
static const char *redop_of(enum coll_op op)
{
	return op == COLL_ALL_GATHER || op == COLL_BROADCAST || op == COLL_ALL_TO_ALL ||
		       op == COLL_SEND_RECV
		   ? "none"
		   : "sum";
}

/* The root nccl-tests prints: 0 for the rooted collectives, -1 otherwise. */
static int root_of(enum coll_op op)
{
	return op == COLL_BROADCAST || op == COLL_REDUCE ? 0 : -1;
}

/* A time as nccl-tests prints it (7 wide: 2, 1 or 0 decimals as it grows). */
static void nccl_time(char *b, size_t n, double us)
{
	snprintf(b, n, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
}

/* The table in nccl-tests' own layout (common.cu of NVIDIA/nccl-tests:
 * the preamble, "# Using devices" and a Rank line per GPU, the two-line
 * header, the rows, the closing lines). */
static void write_nccl(const struct report_collective *o, FILE *out)
{
	const struct hw_cluster *c = o->cluster;
	uint32_t n = o->ranks;
	size_t nrows = o->nrows < REPORT_COLL_NCCL_ROWS ? o->nrows : REPORT_COLL_NCCL_ROWS;
	const char *gpu = hw_cluster_gpu_type(c)->name;
	uint32_t per = hw_cluster_gpus_per_node(c);
	fprintf(out,
		"# nThread 1 nGpus 1 minBytes %.0f maxBytes %.0f step: %g(factor) warmup iters: 0 "
		"iters: 1 agg iters: 1 validation: 0 graph: 0\n",
		o->min_bytes, o->max_bytes, o->factor);
	fprintf(out, "#\n# trainsim collective: %s simulated on %s (%u node(s) x %u GPU(s))\n",
		coll_op_name(o->op), hw_cluster_name(c), hw_cluster_nodes(c), per);
	fprintf(out, "#\n# Using devices\n");
	for (uint32_t r = 0; r < n; r++) {
		char host[32];
		uint32_t dev = per ? r % per : r;
		snprintf(host, sizeof host, "node%u", per ? r / per : 0);
		fprintf(out, "#  Rank %2u Group  0 Pid %6u on %10s device %2u [0x%02x] %s\n", r, r,
			host, dev, dev, gpu);
	}
	fprintf(out,
		"#\n# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
		"in-place          \n",
		"", "", "", "", "");
	fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size",
		"count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
		"algbw", "busbw", "#wrong");
	fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)",
		"(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
		"(GB/s)", "");
	for (size_t i = 0; i < nrows; i++) {
		const struct report_coll_row *r = &o->rows[i];
		char t[32];
		nccl_time(t, sizeof t, r->time_s * 1e6);
		fprintf(out, "%12.0f  %12.0f  %8s  %6s  %6d", r->bytes, r->count, "float",
			redop_of(o->op), root_of(o->op));
		for (int place = 0; place < 2; place++)
			fprintf(out, "  %7s  %6.2f  %6.2f  %5s", t, r->algbw_Bps / 1e9,
				r->busbw_Bps / 1e9, "N/A");
		fputc('\n', out);
	}
	fprintf(out, "# Out of bounds values : 0 OK\n");
	fprintf(out, "# Avg bus bandwidth    : %g \n", o->avg_busbw_Bps / 1e9);
	fprintf(out, "#\n\n");
}

/* The table of the sizes: nccl-tests' headings in text, the result key
 * style (snake_case, the unit as suffix) in CSV and JSON. */
static int make_table(const struct report_collective *o, bool keys, struct ts_table **out)
{
	static const char *const text_heads[] = {
	    "size(B)",	   "count(elements)", "type", "redop", "time(us)",
	    "algbw(GB/s)", "busbw(GB/s)",     "algo", "proto", "channels"};
	static const char *const key_heads[] = {
	    "size_bytes", "count_elements", "type", "redop", "time_us",
	    "algbw_GBps", "busbw_GBps",	    "algo", "proto", "channels"};
	const char *const *heads = keys ? key_heads : text_heads;
	struct ts_table *tab;
	if (table_create(&tab, 10))
		return TS_ENOMEM;
	for (size_t i = 0; i < 10; i++)
		table_header(tab, i, heads[i],
			     i == 2 || i == 3 || (i >= 7 && i <= 8) ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t i = 0; i < o->nrows; i++) {
		const struct report_coll_row *r = &o->rows[i];
		table_add_row(tab);
		table_cell(tab, 0, "%.0f", r->bytes);
		table_cell(tab, 1, "%.0f", r->count);
		table_cell(tab, 2, "float");
		table_cell(tab, 3, "%s", redop_of(o->op));
		table_cell(tab, 4, "%.2f", r->time_s * 1e6);
		table_cell(tab, 5, "%.2f", r->algbw_Bps / 1e9);
		table_cell(tab, 6, "%.2f", r->busbw_Bps / 1e9);
		table_cell(tab, 7, "%s", coll_algo_name(r->algo));
		table_cell(tab, 8, "%s", coll_proto_name(r->proto));
		table_cell(tab, 9, "%u", r->channels);
	}
	if (table_status(tab)) {
		table_destroy(tab);
		return TS_ENOMEM;
	}
	*out = tab;
	return 0;
}

int report_collective_write(const struct report_collective *o, enum ts_format format, FILE *out,
			    struct ts_error *err)
{
	const struct hw_cluster *c = o->cluster;
	struct ts_table *tab = NULL;
	if (format == TS_FORMAT_NCCL_TESTS) {
		write_nccl(o, out);
	} else if (make_table(o, format == TS_FORMAT_CSV || format == TS_FORMAT_JSON, &tab)) {
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	} else if (format == TS_FORMAT_CSV) {
		table_print_csv(tab, out);
	} else if (format == TS_FORMAT_JSON) {
		json_t *root = json_object();
		json_object_set_new(root, "trainsim_version", json_string(TS_VERSION));
		json_object_set_new(root, "schema_version", json_integer(TS_SCHEMA_VERSION));
		json_object_set_new(root, "cluster", json_string(hw_cluster_name(c)));
		json_object_set_new(root, "op", json_string(coll_op_name(o->op)));
		json_object_set_new(root, "nodes", json_integer(hw_cluster_nodes(c)));
		json_object_set_new(root, "gpus", json_integer(o->ranks));
		json_object_set_new(root, "avg_busbw_GBps", json_real(o->avg_busbw_Bps / 1e9));
		json_object_set_new(root, "rows", table_to_json(tab));
		json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		fputc('\n', out);
		json_decref(root);
	} else {
		fprintf(out,
			"# trainsim collective: %s on %s, %u node(s) x %u GPU(s) of %s, %u ranks\n",
			coll_op_name(o->op), hw_cluster_name(c), hw_cluster_nodes(c),
			hw_cluster_gpus_per_node(c), hw_cluster_gpu_type(c)->name, o->ranks);
		fprintf(out,
			"# simulated (%s mode); time is one collective, busbw as nccl-tests "
			"defines it\n",
			o->mode == NET_CLASS ? "class" : "full");
		if (o->round_from >= 0.0)
			fprintf(out,
				"# sizes rounded down to whole float elements, as nccl-tests does "
				"(%.0f B ran as %.0f B)\n",
				o->round_from, o->round_to);
		if (o->zero_skipped)
			fprintf(out,
				"# %zu size%s of 0 B left out: NCCL returns without launching a "
				"kernel for a count of 0\n",
				o->zero_skipped, o->zero_skipped == 1 ? "" : "s");
		table_print(tab, out);
		fprintf(out, "# Avg bus bandwidth    : %.3f GB/s\n", o->avg_busbw_Bps / 1e9);
	}
	table_destroy(tab);
	if (fflush(out) || ferror(out))
		return ts_error_set(err, TS_EIO, NULL, 0, NULL, "writing the table failed");
	return 0;
}
