/* trainsim plot: charts of sweep or run results through gnuplot, run as an
 * external program on plots/KIND.gp with the data ts_plot_data prepares.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"

static const char *const kinds[] = {"scaling", "breakdown", "frontier",
				    "memory",  "compare",   "queue"};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trainsim plot scaling|breakdown|frontier|memory|compare|queue RESULTS.csv "
		"-o OUT.png|OUT.svg|OUT.pdf\n"
		"         [--title TEXT] [--x COLUMN] [--series COLUMN[,COLUMN...]] [--log-x]\n"
		"  RESULTS.csv: the output of trainsim sweep or run --format csv; for compare,\n"
		"  of trainsim compare --format csv; for queue, of trainsim queue --timeline\n"
		"  scaling    throughput against nodes or GPUs, a series (with its ideal line)\n"
		"             per value of the sweep's other axes; --x and --series choose the\n"
		"             columns, --log-x a base-2 logarithmic x axis\n"
		"  breakdown  where the iteration time goes, a bar per point\n"
		"  frontier   cost against time to train, the cheapest-for-its-speed points\n"
		"  memory     memory per GPU by kind against the capacity\n"
		"  compare    grouped bars per metric, relative to the first scenario\n"
		"  queue      jobs waiting and GPUs busy against time, with their means\n"
		"  --title    the chart's title (default: what it shows and the scenario's name)\n"
		"\n"
		"example:\n"
		"  trainsim sweep examples/scaling-sweep/sweep.cfg -o scaling.csv\n"
		"  trainsim plot scaling scaling.csv --log-x -o scaling.pdf\n");
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

/* The last line of file path that says something, trimmed, into buf ("" when
 * none): gnuplot ends its error with the message, after the offending
 * command and a caret line. */
static void last_line(const char *path, char *buf, size_t n)
{
	char line[512];
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *p = line, *e = line + strcspn(line, "\r\n");
		*e = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (*p && strspn(p, "^ ") != strlen(p))
			snprintf(buf, n, "%s", p);
	}
	fclose(f);
}

/* What gnuplot said on a run that succeeded (warnings), on stderr. */
static void relay(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[strspn(line, " \t^")])
			fprintf(stderr, "trainsim plot: gnuplot: %s\n", line);
	}
	fclose(f);
}

int cli_plot(int argc, char **argv)
{
	const char *kind = NULL, *in = NULL, *outp = NULL;
	ts_plot_opts po = {0};
	enum { O_OUT = 1, O_TITLE, O_X, O_SERIES, O_LOGX };
	static const struct cli_opt opts[] = {
	    {O_OUT, "--output", "-o", "OUT.png, OUT.svg or OUT.pdf"},
	    {O_TITLE, "--title", NULL, "a title"},
	    {O_X, "--x", NULL, "a column name"},
	    {O_SERIES, "--series", NULL, "column names, comma-separated"},
	    {O_LOGX, "--log-x", NULL, NULL},
	    {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "plot", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP)
			return p.rc;
		if (id == O_OUT) {
			outp = v;
		} else if (id == O_TITLE) {
			po.title = v;
		} else if (id == O_X) {
			po.x = v;
		} else if (id == O_SERIES) {
			po.series = v;
		} else if (id == O_LOGX) {
			po.log_x = true;
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
			"trainsim plot: found %s, expected KIND RESULTS.csv -o OUT.png|svg|pdf\n",
			!kind ? "no kind"
			: !in ? "no results file"
			      : "no -o");
		return CLI_USAGE;
	}
	bool known = false;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		known = known || !strcmp(kind, kinds[i]);
	if (!known) {
		fprintf(stderr,
			"trainsim plot: found kind \"%s\", expected scaling, breakdown, "
			"frontier, memory, compare or queue\n",
			kind);
		return CLI_USAGE;
	}
	const char *dot = strrchr(outp, '.');
	const char *fmt = dot && !strcmp(dot, ".svg")	? "svg"
			  : dot && !strcmp(dot, ".png") ? "png"
			  : dot && !strcmp(dot, ".pdf") ? "pdf"
							: NULL;
	if (!fmt) {
		fprintf(stderr,
			"trainsim plot: -o: found \"%s\", expected a name ending in .png, "
			".svg or .pdf\n",
			outp);
		return CLI_USAGE;
	}
	ts_env *env = NULL;
	int rc = cli_env("plot", NULL, &env);
	if (rc)
		return rc;
	const struct ts_output_arg outs[] = {{"-o", outp}};
	const struct ts_output_arg ins[] = {{NULL, in}};
	if ((rc = cli_check_outputs("plot", env, outs, 1, ins, 1))) {
		ts_env_close(env);
		return rc;
	}
	if (!on_path("gnuplot")) {
		fprintf(stderr,
			"trainsim plot: found no gnuplot on PATH, expected gnuplot "
			"installed (apt-get install gnuplot-nox); the CSV is still usable\n");
		ts_env_close(env);
		return CLI_BADINPUT;
	}
	char script[4096], plotdir[4096];
	snprintf(plotdir, sizeof plotdir, "%s/plots", ts_env_root(env));
	/* the data, the settings and gnuplot's log are temporary files in /tmp
	 * made by ts_output_open (so main's signal handler removes them too)
	 * and never committed: every way out removes them */
	ts_output *tf[3] = {NULL}, *of = NULL;
	static const char *const tname[3] = {"/tmp/trainsim-plot", "/tmp/trainsim-plotset",
					     "/tmp/trainsim-gnuplot"};
	for (int i = 0; i < 3; i++)
		if (ts_output_open(tname[i], "a temporary file", &tf[i])) {
			rc = cli_fail("plot");
			ts_env_close(env);
			goto out;
		}
	const char *tmp = ts_output_file(tf[0]), *set = ts_output_file(tf[1]),
		   *log = ts_output_file(tf[2]);
	FILE *d = ts_output_stream(tf[0]), *sf = ts_output_stream(tf[1]);
	rc = ts_plot_prepare(env, kind, in, &po, d, sf, script, sizeof script) ? cli_fail("plot")
									       : CLI_OK;
	ts_env_close(env);
	if ((fflush(d) | fflush(sf) | ferror(d) | ferror(sf)) && !rc) {
		fprintf(stderr, "trainsim plot: cannot write a temporary file in /tmp (%s)\n",
			strerror(errno));
		rc = CLI_BADINPUT;
	}
	if (rc)
		goto out;
	/* gnuplot writes a temporary file beside OUT, renamed onto OUT only
	 * when it succeeded; its messages go to the log, of which a failure
	 * shows the last line */
	if (ts_output_open(outp, "-o", &of)) {
		rc = cli_fail("plot");
		goto out;
	}
	char expr[8192];
	snprintf(expr, sizeof expr,
		 "datafile='%s'; outfile='%s'; fmt='%s'; plotdir='%s'; load '%s'", tmp,
		 ts_output_file(of), fmt, plotdir, set);
	for (char *q = expr; *q; q++) /* gnuplot single-quoted strings take no escapes */
		if (*q == '\\')
			*q = '/';
	fflush(stdout);
	/* the log's own stream is no file descriptor: gnuplot gets one of its
	 * own on the same file */
	int logfd = open(log, O_WRONLY | O_CLOEXEC);
	if (logfd < 0) {
		fprintf(stderr, "trainsim plot: cannot write a temporary file in /tmp (%s)\n",
			strerror(errno));
		ts_output_abort(of);
		rc = CLI_BADINPUT;
		goto out;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(logfd, STDOUT_FILENO);
		dup2(logfd, STDERR_FILENO);
		execlp("gnuplot", "gnuplot", "-e", expr, script, (char *)NULL);
		fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
		_exit(127);
	}
	close(logfd);
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		char last[512];
		last_line(log, last, sizeof last);
		fprintf(stderr, "trainsim plot: gnuplot failed on %s (%s %d)%s%s\n", script,
			pid >= 0 && WIFSIGNALED(status) ? "signal" : "exit",
			pid >= 0 && WIFSIGNALED(status) ? WTERMSIG(status)
			: WIFEXITED(status)		? WEXITSTATUS(status)
							: -1,
			last[0] ? ": " : "", last);
		ts_output_abort(of);
		rc = CLI_BADINPUT;
	} else if (ts_output_commit(of)) {
		rc = cli_fail("plot");
	} else {
		rc = CLI_OK;
		relay(log);
	}
out:
	for (int i = 0; i < 3; i++)
		ts_output_abort(tf[i]);
	return rc;
}
