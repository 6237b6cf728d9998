/* trainsim plot: charts of sweep or run results through gnuplot, run as an
 * external program on plots/KIND.gp.
 *
 * The CSV is read here (RFC 4180 quoting, columns found by name) and the
 * numbers a chart needs are written to a temporary whitespace-separated
 * file, so the gnuplot scripts never parse CSV; each script names its data
 * columns at its top.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"

#define MAX_COLS 256
#define MAX_ROWS 100000
#define LINE_MAX_ 32768

static const char *const kinds[] = {"scaling", "breakdown", "frontier", "memory"};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim plot scaling|breakdown|frontier|memory RESULTS.csv "
		"-o OUT.png|OUT.svg\n"
		"  RESULTS.csv: the output of trainsim sweep, or of trainsim run --format csv\n");
}

/* Split one CSV line into at most MAX_COLS fields, in place. */
static int split(char *line, char **f)
{
	int n = 0;
	char *p = line;
	while (n < MAX_COLS) {
		char *w = p;
		f[n++] = w;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					break;
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
			while (*p && *p != ',')
				p++;
		} else {
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				*w++ = *p++;
		}
		char end = *p;
		*w = '\0';
		if (end != ',')
			break;
		p++;
	}
	return n;
}

struct csv {
	char *head[MAX_COLS];
	int ncols;
	char headbuf[LINE_MAX_];
};

static int col(const struct csv *c, const char *name)
{
	for (int i = 0; i < c->ncols; i++)
		if (!strcmp(c->head[i], name))
			return i;
	return -1;
}

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return false;
	char dir[4096];
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(dir, sizeof dir, "%.*s/%s", (int)n, n ? p : ".", prog);
		if (access(dir, X_OK) == 0)
			return true;
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

/* A label of a row for the x axis: the sweep's axis values, else the name. */
static void label(const struct csv *c, char **f, int nf, char *buf, size_t n)
{
	int st = col(c, "status"), pt = col(c, "point");
	size_t k = 0;
	buf[0] = '\0';
	if (st > 0 && pt == 0) {
		for (int i = 1; i < st && i < nf; i++)
			k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s", i > 1 ? " " : "",
					      f[i]);
	} else {
		int nm = col(c, "name");
		snprintf(buf, n, "%s", nm >= 0 && nm < nf ? f[nm] : "?");
	}
	for (char *p = buf; *p; p++)
		if (*p == '"')
			*p = '\'';
}

static double num(char **f, int nf, int i)
{
	if (i < 0 || i >= nf || !*f[i])
		return (double)NAN;
	char *end;
	double v = strtod(f[i], &end);
	return *end ? (double)NAN : v;
}

struct row {
	double v[10];
	char label[200];
};

static int by_first(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->v[0] < y->v[0] ? -1 : x->v[0] > y->v[0] ? 1 : 0;
}

int cli_plot(int argc, char **argv)
{
	const char *kind = NULL, *in = NULL, *outp = NULL;
	enum { O_OUT = 1 };
	static const struct cli_opt opts[] = {{O_OUT, "--output", "-o", "OUT.png or OUT.svg"}, {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "plot", opts, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_ERR)
			return CLI_USAGE;
		if (id == CLI_OPT_HELP) {
			usage(stdout);
			return CLI_OK;
		}
		if (id == O_OUT) {
			outp = v;
		} else if (!kind) {
			kind = v;
		} else if (!in) {
			in = v;
		} else {
			fprintf(stderr,
				"trainsim plot: found an extra argument \"%s\", expected KIND "
				"RESULTS.csv -o OUT\n",
				v);
			return CLI_USAGE;
		}
	}
	if (!kind || !in || !outp) {
		fprintf(stderr,
			"trainsim plot: found %s, expected KIND RESULTS.csv -o OUT.png|svg\n",
			!kind ? "no kind"
			: !in ? "no results file"
			      : "no -o");
		return CLI_USAGE;
	}
	int k = -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(kind, kinds[i]))
			k = i;
	if (k < 0) {
		fprintf(stderr,
			"trainsim plot: found kind \"%s\", expected scaling, breakdown, "
			"frontier or memory\n",
			kind);
		return CLI_USAGE;
	}
	const char *dot = strrchr(outp, '.');
	const char *fmt = dot && !strcmp(dot, ".svg")	? "svg"
			  : dot && !strcmp(dot, ".png") ? "png"
							: NULL;
	if (!fmt) {
		fprintf(stderr,
			"trainsim plot: -o: found \"%s\", expected a name ending in .png "
			"or .svg\n",
			outp);
		return CLI_USAGE;
	}
	if (!on_path("gnuplot")) {
		fprintf(stderr,
			"trainsim plot: found no gnuplot on PATH, expected gnuplot "
			"installed (apt-get install gnuplot-nox); the CSV is still usable\n");
		return CLI_BADINPUT;
	}
	ts_env *env = NULL;
	int erc = cli_env("plot", NULL, &env);
	if (erc)
		return erc;
	char script[4096], plotdir[4096];
	snprintf(script, sizeof script, "%s/plots/%s.gp", ts_env_root(env), kind);
	snprintf(plotdir, sizeof plotdir, "%s/plots", ts_env_root(env));
	ts_env_close(env);
	if (access(script, R_OK)) {
		fprintf(stderr,
			"trainsim plot: found no %s, expected the bundled gnuplot "
			"script\n",
			script);
		return CLI_BADINPUT;
	}
	FILE *f = fopen(in, "r");
	if (!f) {
		fprintf(stderr,
			"trainsim plot: found \"%s\", which cannot be read, expected a "
			"results CSV\n",
			in);
		return CLI_BADINPUT;
	}
	static struct csv c;
	static char line[LINE_MAX_];
	static struct row rows[2048];
	size_t nr = 0;
	int rc = CLI_BADINPUT;
	if (!fgets(c.headbuf, sizeof c.headbuf, f)) {
		fprintf(stderr, "trainsim plot: %s: found an empty file, expected a CSV header\n",
			in);
		fclose(f);
		return CLI_BADINPUT;
	}
	c.ncols = split(c.headbuf, c.head);
	static const char *const need[4][8] = {
	    {"gpus", "tokens_per_s", NULL},
	    {"compute_s", "recompute_s", "exposed_comm_s", "bubble_s", "data_stall_s",
	     "optimizer_s", "other_s", NULL},
	    {"time_to_train_s", "cost_usd", NULL},
	    {"memory_breakdown.weights_bytes", "memory_breakdown.gradients_bytes",
	     "memory_breakdown.optimizer_bytes", "memory_breakdown.activations_bytes",
	     "memory_breakdown.logits_bytes", "memory_breakdown.buffers_bytes",
	     "memory_breakdown.reserve_bytes", "memory_capacity_bytes"},
	};
	int ci[8];
	int nneed = 0;
	for (int i = 0; i < 8 && need[k][i]; i++, nneed++) {
		ci[i] = col(&c, need[k][i]);
		if (ci[i] < 0) {
			fprintf(stderr,
				"trainsim plot: %s:1: found no column %s, expected the "
				"columns of trainsim sweep or run --format csv\n",
				in, need[k][i]);
			fclose(f);
			return CLI_BADINPUT;
		}
	}
	int st = col(&c, "status"), fits = col(&c, "fits");
	char *fld[MAX_COLS];
	while (fgets(line, sizeof line, f) && nr < sizeof rows / sizeof rows[0]) {
		int nf = split(line, fld);
		if (st >= 0 && (st >= nf || strcmp(fld[st], "ok")))
			continue;
		if (k != 3 && fits >= 0 && fits < nf && strcmp(fld[fits], "true"))
			continue;
		struct row *r = &rows[nr];
		bool ok = true;
		for (int i = 0; i < nneed; i++) {
			r->v[i] = num(fld, nf, ci[i]);
			ok = ok && isfinite(r->v[i]);
		}
		if (!ok || (k == 2 && !(r->v[0] > 0.0)))
			continue;
		label(&c, fld, nf, r->label, sizeof r->label);
		nr++;
	}
	fclose(f);
	if (!nr) {
		fprintf(stderr,
			"trainsim plot: %s: found no row to plot (status ok%s), expected "
			"at least one\n",
			in, k == 2 ? ", with a run length and a price" : "");
		return CLI_BADINPUT;
	}
	if (k == 0 || k == 2)
		qsort(rows, nr, sizeof rows[0], by_first);
	char tmp[] = "/tmp/trainsim-plot-XXXXXX";
	int fd = mkstemp(tmp);
	FILE *d = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!d) {
		fprintf(stderr, "trainsim plot: cannot write a temporary file\n");
		if (fd >= 0)
			close(fd);
		return CLI_BADINPUT;
	}
	double best_cost = INFINITY;
	for (size_t i = 0; i < nr; i++) {
		struct row *r = &rows[i];
		switch (k) {
		case 0: /* gpus tokens/s ideal efficiency */
			fprintf(d, "%.17g %.17g %.17g %.17g\n", r->v[0], r->v[1],
				rows[0].v[1] / rows[0].v[0] * r->v[0],
				(r->v[1] / r->v[0]) / (rows[0].v[1] / rows[0].v[0]));
			break;
		case 1:
			fprintf(d, "\"%s\"", r->label);
			for (int j = 0; j < 7; j++)
				fprintf(d, " %.17g", r->v[j]);
			fputc('\n', d);
			break;
		case 2: { /* hours cost frontier label; sorted by time: a point is on the
			   * frontier when it is cheaper than every faster one */
			bool front = r->v[1] < best_cost;
			if (front)
				best_cost = r->v[1];
			fprintf(d, "%.17g %.17g %d \"%s\"\n", r->v[0] / 3600.0, r->v[1], front,
				r->label);
			break;
		}
		default:
			fprintf(d, "\"%s\"", r->label);
			for (int j = 0; j < 8; j++)
				fprintf(d, " %.17g", r->v[j] / 1073741824.0);
			fputc('\n', d);
		}
	}
	if (fclose(d)) {
		remove(tmp);
		return CLI_BADINPUT;
	}
	char expr[8192];
	const char *base = strrchr(in, '/');
	snprintf(expr, sizeof expr,
		 "datafile='%s'; outfile='%s'; fmt='%s'; title_in='%s'; plotdir='%s'", tmp, outp,
		 fmt, base ? base + 1 : in, plotdir);
	for (char *q = expr; *q; q++) /* gnuplot single-quoted strings take no escapes */
		if (*q == '\\')
			*q = '/';
	pid_t pid = fork();
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", "-e", expr, script, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "trainsim plot: gnuplot failed on %s (exit %d)\n", script,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		rc = CLI_BADINPUT;
	} else {
		rc = CLI_OK;
	}
	remove(tmp);
	return rc;
}
