/* Scenario loading: the bundled default, defaults and derived values, --set
 * overrides, inline models, and one clear error for every kind of bad input.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "io/scenario.h"
#include "testutil.h"

static struct hw_catalog *cat;

#define BASE "model = \"gpt3-1.3b\";\ncluster = \"dgx-a100-80gb\";\n"

/* Load text (as "t.cfg") with --set arguments; fail the test on error. */
static struct ts_scenario *ok(const char *text, const char *const *sets, size_t nsets)
{
	struct ts_scenario *s = NULL;
	struct ts_error e;
	char buf[1200];
	int rc = ts_scenario_load_string(cat, text, "t.cfg", sets, nsets, &s, &e);
	ck_assert_msg(rc == 0, "load: %s", ts_error_format(&e, buf, sizeof buf));
	ck_assert_ptr_nonnull(s);
	return s;
}

static const struct ts_scenario_origin *origin(const struct ts_scenario *s, const char *key)
{
	for (size_t i = 0; i < s->n_origins; i++)
		if (strcmp(s->origins[i].key, key) == 0)
			return &s->origins[i];
	ck_abort_msg("no origin for %s", key);
	return NULL;
}

static char *dump(const struct ts_scenario *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(ts_scenario_dump(s, f), 0);
	fclose(f);
	return buf;
}

START_TEST(default_cfg_loads)
{
	char path[1024], msg[1200];
	snprintf(path, sizeof path, "%s/configs/scenarios/default.cfg", tu_root());
	struct ts_scenario *s;
	struct ts_error e;
	int rc = ts_scenario_load(cat, path, NULL, 0, &s, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, msg, sizeof msg));
	ck_assert_str_eq(s->model.name, "gpt3-1.3b");
	ck_assert_ptr_nonnull(s->cluster);
	ck_assert_uint_eq(s->gpus, 8);
	ck_assert_uint_eq(s->nodes, 1);
	ck_assert_uint_eq(s->parallel.dp, 8);
	ck_assert_int_eq(s->training.global_batch, 512);
	ck_assert_int_eq(s->training.micro_batch, 4);
	ck_assert_int_eq(s->training.precision, TS_BF16);
	ck_assert_int_eq(s->training.framework, WORK_FW_MEGATRON);
	ck_assert_int_eq(s->training.run_unit, TS_RUN_TOKENS);
	ck_assert(s->training.run_length == 300e9);
	ck_assert_int_eq(s->parallel.bucket_bytes, 40 * 1024 * 1024);
	ck_assert_int_eq(s->parallel.overlap_grad_reduce, 1);
	ck_assert(s->cost.usd_per_gpu_hour == 2.0);
	ck_assert_uint_eq(s->n_not_modelled, 0);
	char *d = dump(s);
	ck_assert_msg(strstr(d, "parallel.dp = 8  # derived: GPUs / (tp x pp x cp)") != NULL, "%s",
		      d);
	ck_assert_msg(strstr(d, "training.micro_batch = 4  # ") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "default.cfg:13") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "model.layers = 24  # ") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "gpt3-1.3b.cfg:") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "data.workers_per_gpu = 4  # default") != NULL, "%s", d);
	free(d);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(defaults)
{
	struct ts_scenario *s = ok(BASE, NULL, 0);
	ck_assert_str_eq(s->name, "gpt3-1.3b on dgx-a100-80gb");
	ck_assert_int_eq(s->training.framework, WORK_FW_MEGATRON);
	ck_assert_int_eq(s->training.micro_batch, 1);
	ck_assert_int_eq(s->training.global_batch, 8); /* micro_batch x dp */
	ck_assert_int_eq(s->training.seq_len, 2048);   /* the model's */
	ck_assert_int_eq(s->training.precision, TS_UNSET);
	ck_assert_int_eq(s->training.optimizer, TS_OPT_ADAM);
	ck_assert_int_eq(s->training.recompute, WORK_RECOMPUTE_NONE);
	ck_assert_int_eq(s->training.iterations, 3);
	ck_assert_int_eq(s->training.run_unit, TS_RUN_NONE);
	ck_assert_uint_eq(s->parallel.tp, 1);
	ck_assert_uint_eq(s->parallel.pp, 1);
	ck_assert_uint_eq(s->parallel.cp, 1);
	ck_assert_uint_eq(s->parallel.ep, 1);
	ck_assert_uint_eq(s->parallel.dp, 8);
	ck_assert(!s->parallel.sp);
	ck_assert_int_eq(s->parallel.zero, 0);
	ck_assert_int_eq(s->parallel.offload, TS_OFFLOAD_NONE);
	ck_assert_int_eq(s->parallel.schedule, TS_SCHED_1F1B);
	ck_assert_uint_eq(s->parallel.interleave, 1);
	ck_assert_int_eq(s->parallel.bucket_bytes, TS_UNSET);
	ck_assert_int_eq(s->parallel.overlap_grad_reduce, TS_UNSET);
	ck_assert_uint_eq(s->data.workers_per_gpu, 4);
	ck_assert_uint_eq(s->data.prefetch, 2);
	ck_assert(s->cost.usd_per_gpu_hour == 0.0);
	ck_assert_int_eq(s->sim.granularity, TS_GRAN_AUTO);
	ck_assert_int_eq(s->sim.mode, TS_MODE_CLASS);
	ck_assert_uint_eq(s->seed, 1);
	ck_assert_str_eq(origin(s, "training.iterations")->where, "default");
	ck_assert_str_eq(origin(s, "model")->where, "t.cfg:1");
	ck_assert_str_eq(origin(s, "training.seq_len")->where, "model gpt3-1.3b");
	ck_assert_str_eq(origin(s, "nodes")->where, "cluster dgx-a100-80gb");
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(dp_derived)
{
	struct ts_scenario *s = ok(BASE "parallel = { tp = 2; };", NULL, 0);
	ck_assert_uint_eq(s->parallel.dp, 4);
	ts_scenario_destroy(s);
	s = ok(BASE "parallel = { tp = 2; pp = 2; };", NULL, 0);
	ck_assert_uint_eq(s->parallel.dp, 2);
	ts_scenario_destroy(s);
	s = ok(BASE "nodes = 4;\nparallel = { tp = 8; };", NULL, 0);
	ck_assert_uint_eq(s->gpus, 32);
	ck_assert_uint_eq(s->parallel.dp, 4);
	ts_scenario_destroy(s);
	s = ok(BASE "gpus_per_node = 4;\ntraining = { global_batch = 64; micro_batch = 2; };", NULL,
	       0);
	ck_assert_uint_eq(s->gpus, 4);
	ck_assert_uint_eq(s->parallel.dp, 4);
	ts_scenario_destroy(s);
	s = ok(BASE "parallel = { tp = 2; dp = 4; };", NULL, 0);
	ck_assert_uint_eq(s->parallel.dp, 4);
	ck_assert_str_eq(origin(s, "parallel.dp")->where, "t.cfg:3");
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(set_scalars)
{
	const char *sets[] = {
	    "parallel.tp=2",		    /* int */
	    "training.framework=deepspeed", /* bare word */
	    "parallel.bucket=25 MiB",	    /* bare word with a space */
	    "parallel.sp=true",		    /* bool */
	    "cost.usd_per_gpu_hour=1.5",    /* float */
	    "training.precision=\"fp16\"",  /* quoted string */
	    "nodes = 2",		    /* spaces around '=' */
	    "training.tokens=1e9",	    /* new path in an existing group */
	    "sim.mode=full",		    /* new group */
	    "seed=12345678901",		    /* int64 */
	    "training.iterations=0x10",	    /* hex */
	};
	struct ts_scenario *s =
	    ok(BASE "training = { micro_batch = 2; };\n", sets, sizeof sets / sizeof sets[0]);
	ck_assert_uint_eq(s->parallel.tp, 2);
	ck_assert_int_eq(s->training.framework, WORK_FW_DEEPSPEED);
	ck_assert_int_eq(s->parallel.bucket_bytes, 25 * 1024 * 1024);
	ck_assert(s->parallel.sp);
	ck_assert(s->cost.usd_per_gpu_hour == 1.5);
	ck_assert_int_eq(s->training.precision, TS_FP16);
	ck_assert_uint_eq(s->nodes, 2);
	ck_assert_uint_eq(s->gpus, 16);
	ck_assert_uint_eq(s->parallel.dp, 8);
	ck_assert_int_eq(s->training.micro_batch, 2); /* from the file, kept */
	ck_assert_int_eq(s->training.run_unit, TS_RUN_TOKENS);
	ck_assert(s->training.run_length == 1e9);
	ck_assert_int_eq(s->sim.mode, TS_MODE_FULL);
	ck_assert_uint_eq(s->seed, 12345678901ull);
	ck_assert_int_eq(s->training.iterations, 16);
	ck_assert_str_eq(origin(s, "parallel.tp")->where, "--set parallel.tp=2");
	ck_assert_str_eq(origin(s, "training.micro_batch")->where, "t.cfg:3");
	ts_scenario_destroy(s);

	/* big integer literals in the file: 64-bit, not wrapped */
	s = ok(BASE "training = { tokens = 2000000000000; };\nseed = 3000000000;\n", NULL, 0);
	ck_assert(s->training.run_length == 2e12);
	ck_assert_uint_eq(s->seed, 3000000000ull);
	ts_scenario_destroy(s);

	/* later --set wins; "none" bucket */
	const char *two[] = {"parallel.tp=2", "parallel.tp=4", "parallel.bucket=none"};
	s = ok(BASE, two, 3);
	ck_assert_uint_eq(s->parallel.tp, 4);
	ck_assert_int_eq(s->parallel.bucket_bytes, 0);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(set_groups_and_models)
{
	const char *g[] = {
	    "model={ base = \"gpt3-175b\"; layers = 24; hidden = 2304; heads = 24; }"};
	struct ts_scenario *s = ok(BASE, g, 1);
	ck_assert_int_eq(s->model.layers, 24);
	ck_assert_int_eq(s->model.hidden, 2304);
	ck_assert_int_eq(s->model.vocab, 50257);
	ck_assert_str_eq(s->model.name, "gpt3-175b (modified)");
	ck_assert(strstr(s->model.origin[TS_MK_LAYERS].file, "--set model=") ==
		  s->model.origin[TS_MK_LAYERS].file);
	ts_scenario_destroy(s);

	const char *bare[] = {"model=llama2-7b"};
	s = ok(BASE, bare, 1);
	ck_assert_str_eq(s->model.name, "llama2-7b");
	ck_assert_int_eq(s->training.seq_len, 4096);
	ts_scenario_destroy(s);

	/* a key inside a model given by name: the name becomes the base */
	const char *inside[] = {"model.layers=4"};
	s = ok(BASE, inside, 1);
	ck_assert_int_eq(s->model.layers, 4);
	ck_assert_int_eq(s->model.hidden, 2048);
	ts_scenario_destroy(s);

	/* new paths create groups; data.* is modelled (sim/data/loader.c) */
	const char *data[] = {"data.dataset=c4-tokens", "data.workers_per_gpu=8",
			      "data.pinned=false"};
	s = ok(BASE, data, 3);
	ck_assert_str_eq(s->data.dataset, "c4-tokens");
	ck_assert_uint_eq(s->data.workers_per_gpu, 8);
	ck_assert(!s->data.pinned);
	ck_assert_uint_eq(s->n_not_modelled, 0);
	ts_scenario_destroy(s);

	/* a group over a group merges key by key, as training.micro_batch=2
	 * would: the file's global_batch, seq_len and tokens stay (replacing
	 * the group dropped them, and the run fell back to its defaults) */
	const char *merge[] = {"training={ micro_batch = 2; }"};
	s = ok(BASE "training = { global_batch = 96; micro_batch = 1; seq_len = 1024;\n"
		    "  tokens = 5e9; };\n",
	       merge, 1);
	ck_assert_int_eq(s->training.micro_batch, 2);
	ck_assert_int_eq(s->training.global_batch, 96);
	ck_assert_int_eq(s->training.seq_len, 1024);
	ck_assert_int_eq(s->training.run_unit, TS_RUN_TOKENS);
	ck_assert(s->training.run_length == 5e9);
	ck_assert_str_eq(origin(s, "training.global_batch")->where, "t.cfg:3");
	ck_assert_str_eq(origin(s, "training.micro_batch")->where,
			 "--set training={ micro_batch = 2; }");
	ts_scenario_destroy(s);

	/* nested groups merge in turn: the inline model's base and layers stay */
	const char *nest[] = {"model={ layers = 6; }", "cluster={ base = \"dgx-a100-80gb\"; }"};
	s = ok("model = { base = \"llama2-7b\"; layers = 8; hidden = 2048; };\n"
	       "cluster = \"dgx-a100-40gb\";\n",
	       nest, 2);
	ck_assert_int_eq(s->model.layers, 6);
	ck_assert_int_eq(s->model.hidden, 2048);
	ck_assert_int_eq(s->model.ffn_hidden, 11008); /* llama2-7b's, kept as the base */
	/* a group over cluster = "NAME" replaces the name */
	ck_assert(strncmp(hw_cluster_name(s->cluster), "dgx-a100-80gb", 13) == 0);
	ts_scenario_destroy(s);
}
END_TEST

START_TEST(inline_model_and_not_modelled)
{
	struct ts_scenario *s = ok("model = {\n  base = \"llama2-7b\";\n  layers = 8;\n};\n"
				   "cluster = \"dgx-a100-80gb\";\n"
				   "parallel = { tp = 2; cp = 2; offload = \"nvme\"; };\n",
				   NULL, 0);
	ck_assert_int_eq(s->model.layers, 8);
	ck_assert_int_eq(s->model.ffn_hidden, 11008);
	ck_assert_uint_eq(s->parallel.dp, 2);
	/* context parallelism and CPU and NVMe offload are modelled
	 * (sim/par/pipe.c) */
	ck_assert_uint_eq(s->n_not_modelled, 0);
	ck_assert_str_eq(s->model.origin[TS_MK_LAYERS].file, "t.cfg");
	ck_assert_int_eq(s->model.origin[TS_MK_LAYERS].line, 3);
	char *d = dump(s);
	ck_assert_msg(strstr(d, "model.layers = 8  # t.cfg:3") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "# not modelled: (none)") != NULL, "%s", d);
	free(d);
	ts_scenario_destroy(s);
}
END_TEST

/* Bad input: text (as "bad.cfg"), an optional --set, the expected code, and
 * what the formatted one-line message must contain. */
static const struct {
	const char *text;
	const char *set;
	int code;
	const char *want[4];
} bad[] = {
    /* syntax error: libconfig's line and text */
    {BASE "training = {\n micro_batch = ;\n};\n",
     NULL,
     TS_ESYNTAX,
     {"bad.cfg:4:", "syntax error", NULL}},
    /* unknown keys, with the closest known one */
    {BASE "trainig = { micro_batch = 2; };\n",
     NULL,
     TS_EUNKNOWN_KEY,
     {"bad.cfg:3:", "trainig", "\"training\""}},
    {BASE "training = {\n micro_bach = 2;\n};\n",
     NULL,
     TS_EUNKNOWN_KEY,
     {"bad.cfg:4:", "training.micro_bach", "\"micro_batch\""}},
    {BASE "parallel = { tpp = 2; };\n",
     NULL,
     TS_EUNKNOWN_KEY,
     {"bad.cfg:3:", "parallel.tpp", "\"tp\""}},
    /* wrong types */
    {BASE "parallel = {\n tp = \"two\";\n};\n",
     NULL,
     TS_ETYPE,
     {"bad.cfg:4:", "parallel.tp", "\"two\"", "integer"}},
    {BASE "training = 5;\n", NULL, TS_ETYPE, {"bad.cfg:3:", "training", "5", "group"}},
    {BASE "parallel = { sp = 1; };\n",
     NULL,
     TS_ETYPE,
     {"bad.cfg:3:", "parallel.sp", "1", "true or false"}},
    /* unknown names, with close matches */
    {"model = \"gpt3-1.3\";\ncluster = \"dgx-a100-80gb\";\n",
     NULL,
     TS_EUNKNOWN_NAME,
     {"bad.cfg:1:", "model", "\"gpt3-1.3\"", "\"gpt3-1.3b\""}},
    {"model = \"gpt3-1.3b\";\ncluster = \"dgx-a100-80g\";\n",
     NULL,
     TS_EUNKNOWN_NAME,
     {"bad.cfg:2:", "cluster", "\"dgx-a100-80g\"", "\"dgx-a100-80gb\""}},
    {BASE "training = { framework = \"megatronn\"; };\n",
     NULL,
     TS_EUNKNOWN_NAME,
     {"bad.cfg:3:", "training.framework", "\"megatronn\"", "\"megatron\""}},
    {BASE "training = { precision = \"bf61\"; };\n",
     NULL,
     TS_EUNKNOWN_NAME,
     {"bad.cfg:3:", "training.precision", "\"bf61\"", "\"bf16\""}},
    {BASE "parallel = { schedule = \"1f1f\"; };\n",
     NULL,
     TS_EUNKNOWN_NAME,
     {"bad.cfg:3:", "parallel.schedule", "\"1f1f\"", "\"1f1b\""}},
    /* units */
    {BASE "parallel = { bucket = \"25 MiBs\"; };\n",
     NULL,
     TS_EUNIT,
     {"bad.cfg:3:", "parallel.bucket", "25 MiBs", "size"}},
    {BASE "parallel = { bucket = \"25 GB/s\"; };\n",
     NULL,
     TS_EUNIT,
     {"bad.cfg:3:", "parallel.bucket", "25 GB/s", NULL}},
    /* a size without a unit is not taken as bytes: "40" and 40 alike */
    {BASE "parallel = { bucket = \"40\"; };\n",
     NULL,
     TS_EUNIT,
     {"bad.cfg:3:", "parallel.bucket", "found \"40\" without a unit", "\"40 MiB\""}},
    {BASE "parallel = { bucket = 40; };\n",
     NULL,
     TS_EUNIT,
     {"bad.cfg:3:", "parallel.bucket", "found the number 40 without a unit", "\"40 B\""}},
    {BASE "sim = { max_memory = \"12\"; };\n",
     NULL,
     TS_EUNIT,
     {"bad.cfg:3:", "sim.max_memory", "found \"12\" without a unit", "\"12 MiB\""}},
    {BASE, "parallel.bucket=40", TS_EUNIT, {"--set parallel.bucket=40", "without a unit", NULL}},
    /* two run lengths in one file stay an error naming both */
    {BASE "training = { tokens = 1e9;\n steps = 10; };\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "training.steps", "found both tokens and steps", NULL}},
    /* phases: each with its own run length, none beside them */
    {BASE "training = { tokens = 1e9; };\nphases = ( { tokens = 1e9; } );\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:3:", "training.tokens", "beside phases (line 4)", "in each phase"}},
    {BASE "phases = ( { tokens = 1e9; },\n { seq_len = 1024; } );\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "phases.[1]", "no run length", NULL}},
    {BASE "phases = ( { tokens = 1e9; sequence = 1024; } );\n",
     NULL,
     TS_EUNKNOWN_KEY,
     {"bad.cfg:3:", "sequence", "seq_len", NULL}},
    {BASE "phases = ( { tokens = 1e9; parallel = { tp = 3; }; } );\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:3 (phases[0])", "parallel.tp", "found tp x pp x cp = 3", NULL}},
    /* ramp-up: Megatron's divisibility rule, a run length in tokens or samples */
    {BASE "training = { global_batch = 512; tokens = 1e12;\n rampup = { start = 32; increment "
	  "= 100; samples = 1e6; }; };\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "training.rampup.increment", "512 - 32 = 480", NULL}},
    {BASE "training = { global_batch = 1099511627776; micro_batch = 131072; tokens = 1e30;\n "
	  "rampup = { start = 1; increment = 1; samples = 1e6; }; };\n",
     NULL,
     TS_ELIMIT,
     {"bad.cfg:4:", "training.rampup.increment", "1099511627775 increments", "at most 1048576"}},
    {BASE "training = { global_batch = 512; steps = 1000;\n rampup = { start = 32; increment "
	  "= 32; samples = 1e6; }; };\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "training.rampup", "with steps", "tokens or samples"}},
    {BASE "training = { global_batch = 512; samples = 1e6;\n rampup = { start = 32; increment "
	  "= 32; samples = 1e6; }; };\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "training.rampup", "fewer than the run's", NULL}},
    /* a ramp-up beside phases; no phase at all */
    {BASE "training = { global_batch = 512;\n rampup = { start = 32; increment = 32; samples = "
	  "1e6; }; };\nphases = ( { tokens = 1e12; } );\n",
     NULL,
     TS_EUNSUPPORTED,
     {"bad.cfg:4:", "training.rampup", "beside phases (line 5)", "one of the two"}},
    {BASE "phases = ( );\n", NULL, TS_ETYPE, {"bad.cfg:3:", "phases", "found an empty list", NULL}},
    /* a ramp shorter than one step of each of its 15 sizes (32 to 480) */
    {BASE "training = { global_batch = 512; samples = 1e6;\n rampup = { start = 32; increment "
	  "= 32; samples = 1; }; };\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "training.rampup", "over 15 batch sizes (32 to 480)", "at least 7200 samples"}},
    /* zero and negative sizes */
    {BASE "training = { micro_batch = 0; };\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "training.micro_batch", "found 0", "positive"}},
    {BASE "training = { global_batch = -8; };\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "training.global_batch", "-8", "positive"}},
    {BASE "nodes = 0;\n", NULL, TS_ERANGE, {"bad.cfg:3:", "nodes", "found 0", "positive"}},
    {BASE "parallel = { zero = 4; };\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "parallel.zero", "4", "0 to 3"}},
    {BASE "cost = { usd_per_gpu_hour = -1.0; };\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "cost.usd_per_gpu_hour", "-1", NULL}},
    {BASE "cost = { usd_per_gpu_hour = 1e999; };\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "cost.usd_per_gpu_hour", "beyond the range of a double", NULL}},
    {BASE "training = { iterations = 1; };\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "training.iterations", "found 1", "2 to"}},
    {BASE "training = { tokens = 0.0; };\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "training.tokens", "found 0", "greater than 0"}},
    /* integers beyond 32 bits are read as 64-bit, never wrapped */
    {BASE "parallel = { tp = 4294967304; };\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "parallel.tp", "4294967304", NULL}},
    {BASE "seed = 99999999999999999999;\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:3:", "beyond 64 bits", NULL}},
    {BASE,
     "parallel.tp=4294967298",
     TS_ERANGE,
     {"--set parallel.tp=4294967298", "4294967298", NULL}},
    /* divisibility */
    {BASE "training = {\n global_batch = 512;\n micro_batch = 3;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:5:", "training.micro_batch", "micro_batch = 3", "= 64"}},
    {BASE "training = {\n global_batch = 100;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "training.global_batch", "found 100", "dp = 8"}},
    {BASE "parallel = {\n tp = 3;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "parallel.tp", "= 3", "8 GPUs"}},
    {BASE "parallel = {\n dp = 4;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "parallel.dp", "x 4 = 4", "8 GPUs"}},
    {"model = { base = \"gpt3-1.3b\"; hidden = 1536; heads = 12; };\n"
     "cluster = \"dgx-a100-80gb\";\nparallel = {\n tp = 8;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "parallel.tp", "found 8", "12 attention heads"}},
    {BASE "parallel = {\n ep = 16;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "parallel.ep", "found 16", "dp = 8"}},
    {BASE "parallel = {\n interleave = 2;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "parallel.interleave", "found 2", "interleaved"}},
    /* a layer-list model: no tensor parallelism, no sequence length */
    {"model = \"resnet50\";\ncluster = \"dgx-a100-80gb\";\nparallel = {\n tp = 2;\n};\n",
     NULL,
     TS_EUNSUPPORTED,
     {"bad.cfg:4:", "parallel.tp", "found 2", "layer-list model; expected 1"}},
    {"model = \"resnet50\";\ncluster = \"dgx-a100-80gb\";\ntraining = {\n seq_len = 4096;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "training.seq_len", "found 4096", "expected no seq_len"}},
    /* nodes in the inline cluster and in the scenario: one would win unseen */
    {"model = \"gpt3-1.3b\";\ncluster = {\n base = \"dgx-a100-80gb\";\n nodes = 2;\n};\n"
     "nodes = 1;\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:4:", "cluster.nodes", "scenario's nodes (line 6)", "one of the two"}},
    {BASE "training = {\n tokens = 1e9;\n steps = 10;\n};\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:5:", "training.steps", "tokens and steps", NULL}},
    {BASE "training = {\n seq_len = 4096;\n};\n",
     NULL,
     TS_ERANGE,
     {"bad.cfg:4:", "training.seq_len", "found 4096", "2048 learned positions"}},
    /* model errors inside a scenario */
    {"model = {\n base = \"llama2-70b\";\n kv_heads = 7;\n};\ncluster = \"dgx-a100-80gb\";\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg:3:", "model.kv_heads", "found 7", "divisor of heads"}},
    {"cluster = \"dgx-a100-80gb\";\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg", "model", "found no model", NULL}},
    {"model = \"gpt3-1.3b\";\n",
     NULL,
     TS_EINVALID,
     {"bad.cfg", "cluster", "found no cluster", NULL}},
    {"@include \"/etc/passwd\"\n" BASE, NULL, TS_EUNSUPPORTED, {"bad.cfg:1:", "@include", NULL}},
    /* malformed --set arguments name the argument */
    {BASE, "parallel.tp", TS_ESYNTAX, {"--set 'parallel.tp'", "no '='", NULL}},
    {BASE, "parallel.tp=", TS_ESYNTAX, {"--set 'parallel.tp='", "empty value", NULL}},
    {BASE, "=4", TS_ESYNTAX, {"--set '=4'", "empty key", NULL}},
    {BASE, "parallel..tp=4", TS_ESYNTAX, {"--set 'parallel..tp=4'", "in the key", NULL}},
    {BASE,
     "model={ base = \"gpt3-175b\"; layers = ",
     TS_ESYNTAX,
     {"--set 'model={ base", "malformed value", NULL}},
    {BASE, "parallel.tp=\"2", TS_ESYNTAX, {"--set 'parallel.tp=\"2'", "malformed", NULL}},
    {BASE "nodes = 1;\n", "nodes.x=1", TS_ETYPE, {"nodes", "found 1 (bad.cfg:3)", "group", NULL}},
    /* --set values are checked like file values, and say where they came from */
    {BASE,
     "trainig.micro_batch=2",
     TS_EUNKNOWN_KEY,
     {"--set trainig.micro_batch=2", "trainig", "\"training\""}},
    {BASE,
     "parallel.tp=8x",
     TS_ETYPE,
     {"--set parallel.tp=8x", "parallel.tp", "\"8x\"", "integer"}},
    {BASE,
     "training.framework=megatorn",
     TS_EUNKNOWN_NAME,
     {"--set training.framework=megatorn", "\"megatorn\"", "\"megatron\""}},
    {BASE, "model=gpt3-175", TS_EUNKNOWN_NAME, {"--set model=gpt3-175", "\"gpt3-175b\"", NULL}},
};

START_TEST(bad_input)
{
	size_t i = (size_t)_i;
	struct ts_scenario *s = (void *)1;
	struct ts_error e;
	char msg[1200];
	const char *sets[1] = {bad[i].set};
	int rc =
	    ts_scenario_load_string(cat, bad[i].text, "bad.cfg", sets, bad[i].set ? 1 : 0, &s, &e);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(rc == bad[i].code, "case %zu: code %d (%s), want %d; message: %s", i, rc,
		      ts_strerror(rc), bad[i].code, msg);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(e.code, rc);
	for (int k = 0; k < 4 && bad[i].want[k]; k++)
		ck_assert_msg(strstr(msg, bad[i].want[k]) != NULL, "case %zu: \"%s\" not in: %s", i,
			      bad[i].want[k], msg);
	ck_assert_msg(strchr(msg, '\n') == NULL, "case %zu: not one line: %s", i, msg);
}
END_TEST

START_TEST(missing_file)
{
	struct ts_scenario *s;
	struct ts_error e;
	char msg[1200];
	ck_assert_int_eq(ts_scenario_load(cat, "/nonexistent/dir/s.cfg", NULL, 0, &s, &e), TS_EIO);
	ck_assert_ptr_null(s);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(strstr(msg, "/nonexistent/dir/s.cfg") && strstr(msg, "No such file"), "%s",
		      msg);
	/* a directory is not a scenario */
	ck_assert_int_eq(ts_scenario_load(cat, tu_root(), NULL, 0, &s, &e), TS_EIO);
}
END_TEST

START_TEST(relative_model_path)
{
	/* a model given as a path is found next to the scenario file */
	char dir[] = "/tmp/ts_scenario_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char p[256], q[256];
	snprintf(p, sizeof p, "%s/tiny.cfg", dir);
	FILE *f = fopen(p, "w");
	fputs("layers = 2; hidden = 64; heads = 4; vocab = 100; seq_len = 128;\n", f);
	fclose(f);
	snprintf(q, sizeof q, "%s/s.cfg", dir);
	f = fopen(q, "w");
	fputs("model = \"tiny.cfg\";\ncluster = \"dgx-a100-80gb\";\n", f);
	fclose(f);
	struct ts_scenario *s;
	struct ts_error e;
	char msg[1200];
	int rc = ts_scenario_load(cat, q, NULL, 0, &s, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, msg, sizeof msg));
	ck_assert_str_eq(s->model.name, "tiny");
	ck_assert_int_eq(s->model.layers, 2);
	ts_scenario_destroy(s);
	remove(p);
	remove(q);
	rmdir(dir);
}
END_TEST

/* A --set run length replaces the file's (another unit) and says so; the
 * same unit given twice is a plain override without a note. */
START_TEST(run_length_override)
{
	static const char *text = BASE "training = {\n tokens = 1e9;\n};\n";
	const char *steps[] = {"training.steps=100"};
	struct ts_scenario *s = ok(text, steps, 1);
	ck_assert_int_eq(s->training.run_unit, TS_RUN_STEPS);
	ck_assert_double_eq(s->training.run_length, 100.0);
	ck_assert_msg(strstr(s->notes, "training.tokens of t.cfg:4 gives way to --set "
				       "training.steps=100"),
		      "%s", s->notes);
	ts_scenario_destroy(s);
	const char *epochs[] = {"training.epochs=2", "training.samples=5000"};
	s = ok(text, epochs, 2); /* the last run length wins */
	ck_assert_int_eq(s->training.run_unit, TS_RUN_SAMPLES);
	ck_assert_double_eq(s->training.run_length, 5000.0);
	ck_assert_msg(strstr(s->notes, "training.epochs of --set training.epochs=2 gives way"),
		      "%s", s->notes);
	ts_scenario_destroy(s);
	const char *tokens[] = {"training.tokens=2e9"};
	s = ok(text, tokens, 1);
	ck_assert_int_eq(s->training.run_unit, TS_RUN_TOKENS);
	ck_assert_double_eq(s->training.run_length, 2e9);
	ck_assert_str_eq(s->notes, "");
	ts_scenario_destroy(s);
}
END_TEST

/* phases = ( ... ): each phase the base with its overlay and its own run
 * length; the base itself has none. */
START_TEST(phases_overlay)
{
	static const char *text = BASE
	    "nodes = 2;\ntraining = { global_batch = 512; micro_batch = 4; seq_len = 1536; };\n"
	    "phases = ( { name = \"short context\"; tokens = 1.5e12; seq_len = 1024; },\n"
	    " { tokens = 2e11; seq_len = 2048; parallel = { cp = 2; tp = 2; }; } );\n";
	struct ts_scenario *s = ok(text, NULL, 0);
	ck_assert_uint_eq(s->n_phases, 2);
	ck_assert_int_eq(s->training.run_unit, TS_RUN_NONE);
	const struct ts_scenario *a = s->phases[0], *b = s->phases[1];
	ck_assert_str_eq(a->phase_name, "short context");
	ck_assert_str_eq(b->phase_name, "phases[1]");
	ck_assert_int_eq(a->training.seq_len, 1024);
	ck_assert_double_eq(a->training.run_length, 1.5e12);
	ck_assert_uint_eq(a->parallel.dp, 16); /* 16 GPUs of 2 nodes */
	ck_assert_int_eq(b->training.seq_len, 2048);
	ck_assert_uint_eq(b->parallel.cp, 2);
	ck_assert_uint_eq(b->parallel.tp, 2);
	ck_assert_uint_eq(b->parallel.dp, 4); /* 16 / (2 x 2) */
	ck_assert_int_eq(b->training.global_batch, 512);
	ck_assert_uint_eq(a->n_phases, 0);
	ck_assert_str_eq(origin(b, "parallel.cp")->where, "t.cfg:6 (phases[1])");
	ts_scenario_destroy(s);
}
END_TEST

/* training.rampup as phases. Batch 32 to 512 by 32: K = 480 / 32 = 15
 * increments of 2e6 / 15 = 133,333.3 samples each, in 4 groups of
 * increments [0,3) [3,7) [7,11) [11,15):
 *   batches 32, 64, 96: steps 4167 + 2084 + 1389 = 7640, 400,000 samples,
 *     B = 400,000 / 7640 = 52.4 -> the nearest multiple of micro_batch x
 *     dp = 4 x 8 = 32: 64;
 *   128..224: 1042 + 834 + 695 + 596 = 3167, 533,333 / 3167 = 168.4 -> 160;
 *   256..352: 521 + 463 + 417 + 379 = 1780, 533,333 / 1780 = 299.6 -> 288;
 *   384..480: 348 + 321 + 298 + 278 = 1245, 533,333 / 1245 = 428.4 -> 416;
 * then 300e9 - 2e6 x 2048 = 295.904e9 tokens at the full batch. */
START_TEST(rampup_phases)
{
	static const char *text =
	    BASE "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; tokens = "
		 "300e9;\n rampup = { start = 32; increment = 32; samples = 2e6; }; };\n";
	struct ts_scenario *s = ok(text, NULL, 0);
	static const int64_t batch[5] = {64, 160, 288, 416, 512};
	static const double steps[4] = {7640, 3167, 1780, 1245};
	ck_assert_uint_eq(s->n_phases, 5);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(s->phases[i]->training.global_batch, batch[i]);
		ck_assert_int_eq(s->phases[i]->training.run_unit, TS_RUN_STEPS);
		ck_assert_double_eq(s->phases[i]->training.run_length, steps[i]);
		ck_assert_int_eq(s->phases[i]->training.rampup_start, 0);
	}
	ck_assert_str_eq(s->phases[0]->phase_name, "ramp-up 1/4 (batch 32-96)");
	ck_assert_str_eq(s->phases[3]->phase_name, "ramp-up 4/4 (batch 384-480)");
	ck_assert_int_eq(s->phases[4]->training.global_batch, 512);
	ck_assert_int_eq(s->phases[4]->training.run_unit, TS_RUN_TOKENS);
	ck_assert_double_eq_tol(s->phases[4]->training.run_length, 295.904e9, 1.0);
	/* the ramp in tokens: 4.096e9 tokens / 2048 = 2e6 samples, the same phases */
	static const char *tok =
	    BASE "training = { global_batch = 512; micro_batch = 4; seq_len = 2048; tokens = "
		 "300e9;\n rampup = { start = 32; increment = 32; tokens = 4.096e9; }; };\n";
	struct ts_scenario *t = ok(tok, NULL, 0);
	ck_assert_uint_eq(t->n_phases, 5);
	for (int i = 0; i < 4; i++)
		ck_assert_double_eq(t->phases[i]->training.run_length, steps[i]);
	ts_scenario_destroy(t);
	ts_scenario_destroy(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("scenario");
	TCase *t = tu_tcase("scenario");
	tu_hw_fixture(t, &cat, NULL);
	tcase_add_test(t, default_cfg_loads);
	tcase_add_test(t, defaults);
	tcase_add_test(t, dp_derived);
	tcase_add_test(t, set_scalars);
	tcase_add_test(t, set_groups_and_models);
	tcase_add_test(t, inline_model_and_not_modelled);
	tcase_add_loop_test(t, bad_input, 0, (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(t, missing_file);
	tcase_add_test(t, relative_model_path);
	tcase_add_test(t, run_length_override);
	tcase_add_test(t, phases_overlay);
	tcase_add_test(t, rampup_phases);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
