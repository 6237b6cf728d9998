/* trainsim queue: a team's jobs on the cluster it would buy, scheduled as
 * Slurm would (FIFO, EASY backfill, fair-share), and how many nodes keep
 * the queue short.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: trainsim queue JOBS.csv --cluster NAME --nodes N|LO:HI[:STEP]\n"
	    "                      [--policy fifo|backfill|priority] [--place packed|spread]\n"
	    "                      [-o PER_JOB.csv] [--format text|csv|json] [--timeline FILE]\n"
	    "                      [--input csv|sacct|swf|helios] [--failures] [--preempt] "
	    "[--checkpoint "
	    "D]\n"
	    "                      [--partitions NAME:NODES,...]\n"
	    "                      [--target-p90 D] [--target-utilisation F] [-j N]\n"
	    "       trainsim queue --synthetic N [--load L | --rate PER_HOUR] [--sizes G:W,...]\n"
	    "                      [--duration DIST] [--users N] [--seed S] --cluster NAME ...\n"
	    "  schedules a job list (or a synthetic mix) on N nodes of a cluster and reports\n"
	    "  utilisation, waits (overall and by job size), completion time, slowdown,\n"
	    "  makespan, fragmentation and each user's share; over LO:HI nodes, the smallest\n"
	    "  cluster meeting the targets\n"
	    "\n"
	    "  JOBS.csv          columns id,submit_s,gpus,duration_s and optionally time_limit_s,\n"
	    "                    priority,user,account,scenario,tokens,steps,recorded_start_s,\n"
	    "                    partition\n"
	    "                    (a trace's own start: its waits are then set beside the\n"
	    "                    replay's, as for sacct's Start and SWF's wait); a job with a\n"
	    "                    scenario file (relative to JOBS.csv) and tokens or steps runs as\n"
	    "                    long as trainsim simulates it on the GPUs it is given. Also a\n"
	    "                    Slurm `sacct --parsable2` export, a Parallel Workloads Archive\n"
	    "                    SWF log or a Helios cluster_log.csv (--input, else by content);\n"
	    "                    - reads it from standard input (scenario files are then\n"
	    "                    relative to the current folder)\n"
	    "  --cluster NAME    bundled cluster or cluster file: GPUs per node, leaf switches\n"
	    "  --nodes N         node count; LO:HI[:STEP] runs every count from LO to HI\n"
	    "  --policy P        fifo (strict order), backfill (EASY, the default; judged by\n"
	    "                    time_limit_s, else the run time) or priority (fair-share with\n"
	    "                    backfill)\n"
	    "  --place P         packed (best fit, the default) or spread (one node per leaf)\n"
	    "  -o, --output F    per-job CSV: id,submit_s,start_s,end_s,gpus,wait_s,run_s,...\n"
	    "  --format F        text (default), csv (one row per node count) or json\n"
	    "  --timeline F      queue length and busy GPUs over time, CSV\n"
	    "  --failures        node failures at trainsim's default rates (configs/README.md,\n"
	    "                    failures), restart from the last checkpoint (--checkpoint, 1h)\n"
	    "  --preempt         a waiting job may requeue running jobs of a lower priority\n"
	    "                    column (Slurm's PreemptMode=REQUEUE): they restart from their\n"
	    "                    last checkpoint\n"
	    "  --partitions P    Slurm partitions NAME:NODES,... over consecutive nodes; a job\n"
	    "                    runs in the one its partition column names (none: the first);\n"
	    "                    the last may give no count and take the nodes left\n"
	    "  --target-p90 D    with LO:HI: p90 wait at most D (30min, 2h, 3600)\n"
	    "  --target-utilisation F  with LO:HI: utilisation at least F (0.8)\n"
	    "  --synthetic N     N jobs: Poisson arrivals at --rate jobs per hour or --load L\n"
	    "                    of the first node count (default 0.7), sizes --sizes\n"
	    "                    GPUS:WEIGHT,... (default 1:1), run times --duration exp:MEAN,\n"
	    "                    lognormal:MEDIAN:SIGMA, fixed:S or uniform:LO:HI (seconds;\n"
	    "                    default exp:3600), --users N, --seed S\n"
	    "  -j N              threads for a node-count sweep\n"
	    "  --calib FILE      apply an overrides file of `trainsim calibrate`\n"
	    "  -q, --quiet       print nothing on standard error but errors\n"
	    "\n"
	    "examples:\n"
	    "  trainsim queue examples/team-sizing/jobs.csv --cluster dgx-h100 --nodes 4 \\\n"
	    "      --policy backfill -o per_job.csv --format json\n"
	    "  trainsim queue examples/team-sizing/jobs.csv --cluster dgx-h100 --nodes 2:8 \\\n"
	    "      --target-p90 2h\n"
	    "  trainsim queue --synthetic 5000 --sizes 1:6,8:3,32:1 --duration exp:7200 \\\n"
	    "      --load 0.8 --cluster dgx-a100-80gb --nodes 8 --timeline tl.csv\n");
}

/* A duration: a number of seconds, or with s, min, h, d. */
static int duration(const char *opt, const char *v, double *out)
{
	char *end;
	double x = strtod(v, &end);
	while (*end && isspace((unsigned char)*end))
		end++;
	double m = !*end		 ? 1
		   : !strcmp(end, "s")	 ? 1
		   : !strcmp(end, "min") ? 60
		   : !strcmp(end, "h")	 ? 3600
		   : !strcmp(end, "d")	 ? 86400
					 : -1;
	if (end == v || m < 0 || !isfinite(x) || !(x > 0.0)) {
		fprintf(stderr,
			"trainsim queue: %s: found \"%s\", expected a positive duration: s, min, h "
			"or d (2h)\n",
			opt, v);
		return -1;
	}
	*out = x * m;
	return 0;
}

static int number(const char *opt, const char *v, double lo, double hi, const char *what,
		  double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || !isfinite(x) || x < lo || x > hi) {
		fprintf(stderr, "trainsim queue: %s: found \"%s\", expected %s\n", opt, v, what);
		return -1;
	}
	*out = x;
	return 0;
}

int cli_queue(int argc, char **argv)
{
	enum {
		O_CLUSTER = 1,
		O_NODES,
		O_POLICY,
		O_PLACE,
		O_OUT,
		O_FORMAT,
		O_TIMELINE,
		O_INPUT,
		O_FAILURES,
		O_PREEMPT,
		O_CHECKPOINT,
		O_PARTS,
		O_TP90,
		O_TUTIL,
		O_SYNTH,
		O_LOAD,
		O_RATE,
		O_SIZES,
		O_DURATION,
		O_USERS,
		O_SEED,
		O_THREADS,
		O_CALIB,
		O_QUIET
	};
	static const struct cli_opt opts[] = {
	    {O_CLUSTER, "--cluster", NULL, "a cluster name or file"},
	    {O_NODES, "--nodes", NULL, "a node count or LO:HI[:STEP]"},
	    {O_POLICY, "--policy", NULL, "fifo, backfill or priority"},
	    {O_PLACE, "--place", NULL, "packed or spread"},
	    {O_OUT, "--output", "-o", "a per-job CSV file"},
	    {O_FORMAT, "--format", NULL, "text, csv or json"},
	    {O_TIMELINE, "--timeline", NULL, "a CSV file"},
	    {O_INPUT, "--input", NULL, "csv, sacct, swf or helios"},
	    {O_FAILURES, "--failures", NULL, NULL},
	    {O_PREEMPT, "--preempt", NULL, NULL},
	    {O_CHECKPOINT, "--checkpoint", NULL, "a duration"},
	    {O_PARTS, "--partitions", NULL, "NAME:NODES,..."},
	    {O_TP90, "--target-p90", NULL, "a duration"},
	    {O_TUTIL, "--target-utilisation", NULL, "a fraction"},
	    {O_SYNTH, "--synthetic", NULL, "a job count"},
	    {O_LOAD, "--load", NULL, "an offered load"},
	    {O_RATE, "--rate", NULL, "jobs per hour"},
	    {O_SIZES, "--sizes", NULL, "GPUS:WEIGHT,..."},
	    {O_DURATION, "--duration", NULL, "a distribution"},
	    {O_USERS, "--users", NULL, "a user count"},
	    {O_SEED, "--seed", NULL, "an integer"},
	    {O_THREADS, "--threads", "-j", "a thread count"},
	    {O_CALIB, "--calib", NULL, "an overrides file"},
	    {O_QUIET, "--quiet", "-q", NULL},
	    {0}};
	ts_queue_opts o = {.policy = TS_QUEUE_BACKFILL};
	const char *path = NULL, *out_path = NULL, *tl_path = NULL, *format = "text", *calib = NULL,
		   *policy = NULL, *place = NULL;
	bool quiet = false, have_nodes = false;
	struct cli_opts p;
	const char *v;
	double x;
	long n;
	cli_opt_init(&p, "queue", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		switch (id) {
		case CLI_OPT_STOP:
			return p.rc;
		case O_CLUSTER:
			o.cluster = v;
			break;
		case O_NODES: {
			/* N or LO:HI[:STEP], each a whole number as ts_parse_count
			 * reads it (16, 1e2) */
			long long part[3] = {0, 0, 0};
			int k = 0;
			bool ok = strlen(v) < 128;
			char buf[128];
			snprintf(buf, sizeof buf, "%s", ok ? v : "");
			for (char *t = buf, *c; ok && t; t = c, k++) {
				if ((c = strchr(t, ':')))
					*c++ = '\0';
				ok = k < 3 && !ts_parse_count(t, 1, 1000000, &part[k]);
			}
			unsigned lo = (unsigned)part[0], hi = (unsigned)part[1],
				 st = (unsigned)part[2];
			if (!ok || (k >= 2 && hi < lo)) {
				fprintf(
				    stderr,
				    "trainsim queue: --nodes: found \"%s\", expected a node count "
				    "or LO:HI[:STEP] from 1 to 1000000\n",
				    v);
				return CLI_USAGE;
			}
			o.nodes = lo;
			o.nodes_max = k >= 2 ? hi : 0;
			o.nodes_step = k == 3 ? st : 0;
			have_nodes = true;
			break;
		}
		case O_POLICY:
			policy = v;
			break;
		case O_PLACE:
			place = v;
			break;
		case O_OUT:
			out_path = v;
			break;
		case O_FORMAT:
			format = v;
			break;
		case O_TIMELINE:
			tl_path = v;
			break;
		case O_INPUT:
			o.input = v;
			break;
		case O_FAILURES:
			o.failures = true;
			break;
		case O_PREEMPT:
			o.preempt = true;
			break;
		case O_CHECKPOINT:
			if (duration("--checkpoint", v, &o.checkpoint_s))
				return CLI_USAGE;
			break;
		case O_PARTS:
			o.partitions = v;
			break;
		case O_TP90:
			if (duration("--target-p90", v, &o.target_p90_wait_s))
				return CLI_USAGE;
			break;
		case O_TUTIL:
			if (number("--target-utilisation", v, 0.0, 1.0, "a fraction from 0 to 1",
				   &o.target_utilisation))
				return CLI_USAGE;
			break;
		case O_SYNTH:
			/* the library's bound (sim/sweep/queue.h QUEUE_SYNTH_MAX):
			 * about 0.5 GB and 10 s at the top */
			if (cli_opt_long("queue", "--synthetic", v, 1, 1L << 20,
					 "a job count from 1 to 1048576 (a longer list comes "
					 "from a job file)",
					 &n))
				return CLI_USAGE;
			o.synth_jobs = (size_t)n;
			break;
		case O_LOAD:
			if (number("--load", v, 1e-6, 100.0, "an offered load above 0 (0.7)",
				   &o.synth_load))
				return CLI_USAGE;
			break;
		case O_RATE:
			if (number("--rate", v, 1e-9, 1e12, "a positive number of jobs per hour",
				   &x))
				return CLI_USAGE;
			o.synth_rate_per_s = x / 3600.0;
			break;
		case O_SIZES:
			o.synth_sizes = v;
			break;
		case O_DURATION:
			o.synth_duration = v;
			break;
		case O_USERS:
			if (cli_opt_long("queue", "--users", v, 1, 1000000,
					 "a user count from 1 to 1000000", &n))
				return CLI_USAGE;
			o.synth_users = (uint32_t)n;
			break;
		case O_SEED:
			if (cli_opt_long("queue", "--seed", v, 1, 2147483647L,
					 "an integer from 1 to 2147483647", &n))
				return CLI_USAGE;
			o.seed = (uint64_t)n;
			break;
		case O_THREADS:
			if (cli_opt_long("queue", "-j", v, 1, 4096, "a thread count from 1 to 4096",
					 &n))
				return CLI_USAGE;
			o.threads = (int)n;
			break;
		case O_CALIB:
			calib = v;
			break;
		case O_QUIET:
			quiet = true;
			break;
		default:
			if (path) {
				fprintf(stderr,
					"trainsim queue: found a second job list \"%s\", expected "
					"one\n",
					v);
				return CLI_USAGE;
			}
			path = v;
		}
	}
	if (policy) {
		if (!strcmp(policy, "fifo"))
			o.policy = TS_QUEUE_FIFO;
		else if (!strcmp(policy, "backfill"))
			o.policy = TS_QUEUE_BACKFILL;
		else if (!strcmp(policy, "priority"))
			o.policy = TS_QUEUE_PRIORITY;
		else {
			fprintf(stderr,
				"trainsim queue: --policy: found \"%s\", expected fifo, backfill "
				"or priority\n",
				policy);
			return CLI_USAGE;
		}
	}
	if (place && strcmp(place, "packed") && strcmp(place, "spread")) {
		fprintf(stderr,
			"trainsim queue: --place: found \"%s\", expected packed or spread\n",
			place);
		return CLI_USAGE;
	}
	o.spread = place && !strcmp(place, "spread");
	if (!path == !o.synth_jobs) {
		fprintf(stderr,
			"trainsim queue: found %s, expected a job list (JOBS.csv) or "
			"--synthetic N\n",
			path ? "both a job list and --synthetic" : "no jobs");
		return CLI_USAGE;
	}
	if (!o.cluster || !have_nodes) {
		fprintf(stderr,
			"trainsim queue: found no %s, expected --cluster NAME and --nodes N\n",
			!o.cluster ? "--cluster" : "--nodes");
		return CLI_USAGE;
	}
	o.jobs = path;
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt))
		return cli_fail("queue");
	if (out_path && !strcmp(out_path, "-") && tl_path && !strcmp(tl_path, "-")) {
		fprintf(stderr, "trainsim queue: -o and --timeline: found both \"-\", expected "
				"one on standard output at most\n");
		return CLI_USAGE;
	}
	ts_env *env = NULL;
	int rc;
	if ((rc = cli_env("queue", calib, &env)))
		return rc;
	const struct ts_output_arg outs[] = {{"-o", out_path}, {"--timeline", tl_path}};
	const struct ts_output_arg ins[] = {{NULL, path}, {"--calib", calib}};
	ts_queue *q = NULL;
	ts_output *jo = NULL, *to = NULL;
	if ((rc = cli_check_outputs("queue", env, outs, 2, ins, 2)))
		goto out;
	if (ts_queue_run(env, &o, &q)) {
		rc = cli_fail("queue");
		goto out;
	}
	if ((out_path && ts_output_open(out_path, "-o", &jo)) ||
	    (tl_path && ts_output_open(tl_path, "--timeline", &to)) ||
	    (jo && ts_queue_write_jobs(q, ts_output_stream(jo))) ||
	    (to && ts_queue_write_timeline(q, ts_output_stream(to)))) {
		rc = cli_fail("queue");
		goto out;
	}
	bool jstd = out_path && !strcmp(out_path, "-"), tstd = tl_path && !strcmp(tl_path, "-");
	if (!jstd && !tstd && ts_queue_write(q, fmt, stdout)) {
		rc = cli_fail("queue");
		goto out;
	}
	rc = ts_output_commit(jo) ? cli_fail("queue") : CLI_OK;
	jo = NULL;
	if (!rc) {
		rc = ts_output_commit(to) ? cli_fail("queue") : CLI_OK;
		to = NULL;
	}
	if (!rc && !quiet)
		fprintf(stderr, "trainsim queue: %llu events, %zu scenario shapes simulated\n",
			(unsigned long long)ts_queue_events(q), ts_queue_simulated(q));
out:
	ts_output_abort(jo);
	ts_output_abort(to);
	ts_queue_free(q);
	ts_env_close(env);
	return rc;
}
