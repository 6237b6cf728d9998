/* Benchmark: how the cost of one class-mode run grows with the GPU count.
 * Two Llama-class jobs on DGX H100 nodes at 16,384, 65,536, 262,144 and
 * 1,048,576 GPUs (or the counts in TS_BENCH_SCALE_GPUS, comma-separated):
 * Llama 3 8B data-parallel (micro-batch 1, 2 micro-batches per rank) and
 * Llama 3 405B with TP 8 x PP 16 and sequence parallelism (16 micro-batches
 * per pipeline, as Meta's run), both with sequences of 8,192 tokens, ZeRO-1
 * and full recomputation (so that both fit in an H100's 80 GB), each at the
 * default granularity in a process of its own: wall and
 * CPU seconds, page faults and peak RSS, and the growth exponent
 * log(cpu2 / cpu1) / log(gpus2 / gpus1) between neighbouring counts. A
 * count above the largest cluster trainsim accepts prints the error.
 * Not a test: prints its figures.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_clock.h"

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "work/compute.h"

#define MAX_COUNTS 16
#define GPUS_PER_NODE 8

struct job {
	const char *name;  /* printed */
	const char *model; /* models/NAME.cfg */
	unsigned ranks;	   /* GPUs of one model replica (tp x pp) */
	unsigned micro;	   /* micro-batches per replica and iteration */
	const char *extra; /* scenario text appended */
};

static const struct job jobs[] = {
    {"llama3-8b DP", "llama3-8b", 1, 2, "parallel = { tp = 1; pp = 1; zero = 1; };"},
    {"llama3-405b TP8 PP16", "llama3-405b", 128, 16,
     "parallel = { tp = 8; pp = 16; sp = true; zero = 1; };"},
};

/* What a child reports to its parent through a pipe. */
struct figures {
	int ok;
	double wall_s, cpu_s, rss_mib, iter_s;
	long faults;
	char err[400];
};

/* One run of job j on gpus GPUs in this process. */
static void one(const struct job *j, unsigned long gpus, struct figures *f)
{
	struct hw_catalog *cat = NULL;
	struct work_calib calib;
	struct ts_error err;
	struct ts_scenario *sc = NULL;
	struct ts_result r;
	char text[1024], buf[1400];
	unsigned long nodes = gpus / GPUS_PER_NODE, dp = gpus / j->ranks;
	snprintf(text, sizeof text,
		 "model = \"%s\"; cluster = \"dgx-h100\"; nodes = %lu;"
		 "training = { framework = \"megatron\"; global_batch = %lu; micro_batch = 1;"
		 " seq_len = 8192; recompute = \"full\"; };"
		 "%s",
		 j->model, nodes, dp * j->micro, j->extra);
	const char *root = getenv("TS_DATA_DIR");
	root = root && *root ? root : TS_SOURCE_DIR;
	memset(f, 0, sizeof *f);
	if (hw_catalog_load(root, &cat, &err) || work_calib_load(root, &calib, &err) ||
	    ts_scenario_load_string(cat, text, "bench_scale", NULL, 0, &sc, &err)) {
		snprintf(f->err, sizeof f->err, "%s", ts_error_format(&err, buf, sizeof buf));
		return;
	}
	long f0 = bench_minflt();
	double t0 = bench_wall_s(), c0 = bench_cpu_s();
	int rc = ts_run(sc, &calib, &r, NULL, &err);
	f->wall_s = bench_wall_s() - t0;
	f->cpu_s = bench_cpu_s() - c0;
	f->faults = bench_minflt() - f0;
	f->rss_mib = bench_peak_rss_mib();
	if (rc)
		snprintf(f->err, sizeof f->err, "%s", ts_error_format(&err, buf, sizeof buf));
	else {
		f->ok = 1;
		f->iter_s = r.iteration_time_s;
	}
	ts_scenario_destroy(sc);
	hw_catalog_destroy(cat);
}

/* Runs one() in a child, so that its faults and peak RSS are its own. */
static int forked(const struct job *j, unsigned long gpus, struct figures *f)
{
	int fd[2];
	if (pipe(fd))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(fd[0]);
		struct figures mine;
		one(j, gpus, &mine);
		ssize_t w = write(fd[1], &mine, sizeof mine);
		_exit(w == (ssize_t)sizeof mine ? 0 : 1);
	}
	close(fd[1]);
	ssize_t got = read(fd[0], f, sizeof *f);
	close(fd[0]);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) ||
	    got != (ssize_t)sizeof *f)
		return -1;
	return 0;
}

int main(void)
{
	unsigned long counts[MAX_COUNTS] = {16384, 65536, 262144, 1048576};
	int nc = 4;
	const char *env = getenv("TS_BENCH_SCALE_GPUS");
	if (env && *env) {
		nc = 0;
		for (const char *s = env; *s && nc < MAX_COUNTS;) {
			char *end;
			unsigned long v = strtoul(s, &end, 10);
			if (end == s)
				break;
			counts[nc++] = v;
			s = *end == ',' ? end + 1 : end;
		}
	}
	printf(
	    "bench_scale: one class-mode run per process, DGX H100 nodes, default granularity\n");
	printf("%-22s %9s %10s %10s %10s %10s %13s %9s\n", "job", "GPUs", "CPU s", "wall s",
	       "faults", "RSS MiB", "iteration s", "exponent");
	for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
		double prev_cpu = 0.0;
		unsigned long prev_g = 0;
		for (int i = 0; i < nc; i++) {
			struct figures f;
			if (forked(&jobs[k], counts[i], &f)) {
				printf("%-22s %9lu  (the run's process failed)\n", jobs[k].name,
				       counts[i]);
				prev_g = 0;
				continue;
			}
			if (!f.ok) {
				printf("%-22s %9lu  %s\n", jobs[k].name, counts[i], f.err);
				prev_g = 0;
				continue;
			}
			char ex[32] = "";
			if (prev_g && prev_cpu > 0.0)
				snprintf(ex, sizeof ex, "%.2f",
					 log(f.cpu_s / prev_cpu) /
					     log((double)counts[i] / (double)prev_g));
			printf("%-22s %9lu %10.3f %10.3f %10ld %10.1f %13.4f %9s\n", jobs[k].name,
			       counts[i], f.cpu_s, f.wall_s, f.faults, f.rss_mib, f.iter_s, ex);
			prev_cpu = f.cpu_s;
			prev_g = counts[i];
		}
	}
	return 0;
}
