/* Hugging Face config.json import: each family's file (tests/data/hf/, copied
 * from the Hub, see its README) gives the published parameter count; bad
 * files are one-line errors naming the file, the key, what was found and
 * what was expected.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "work/model.h"
#include "testutil.h"

static int import(const char *dir, struct ts_model *m, struct ts_error *e)
{
	char name[1200];
	snprintf(name, sizeof name, "hf:%s/tests/data/hf/%s/config.json", tu_root(), dir);
	ts_error_clear(e);
	return ts_model_load(tu_root(), name, m, e);
}

static struct ts_model load_hf(const char *dir)
{
	struct ts_model m;
	struct ts_error e;
	char buf[1200];
	int rc = import(dir, &m, &e);
	ck_assert_msg(rc == 0, "%s: %s", dir, ts_error_format(&e, buf, sizeof buf));
	return m;
}

/* Published parameter counts; tol is relative (0 = exact). */
static const struct {
	const char *dir;
	double want;
	double tol;
	const char *source;
} published[] = {
    {"llama2-7b", 6738415616.0, 0.0,
     "element count of meta-llama/Llama-2-7b-hf (the paper's 7B; tests/check_model.c)"},
    /* 32 x (4096 x 6144 + 4096^2 + 3 x 4096 x 14336 + 2 x 4096)
     * + 2 x 32000 x 4096 + 4096 = 7,241,732,096 */
    {"mistral-7b", 7.24e9, 0.001, "mistralai/Mistral-7B-v0.1 on the Hub: 7.24B parameters"},
    {"mixtral-8x7b", 46.7e9, 0.002,
     "Jiang et al. 2024, Mixtral of Experts, and the model card: 46.7B total"},
    /* The Hub's 7.62B (7,615,616,512) includes Qwen2's q/k/v biases, which
     * trainsim does not count (qwen2_biases pins the difference). */
    {"qwen2-7b", 7.62e9, 0.001, "Qwen/Qwen2-7B on the Hub: 7.62B; Yang et al. 2024: 7B"},
    {"gpt2", 124439808.0, 0.0,
     "element count of openai-community/gpt2, the 124M of its model card (Radford et "
     "al. 2019 print 117M)"},
    {"pythia-1.4b", 1414647808.0, 0.0,
     "Biderman et al. 2023, Pythia, Table 1 / the EleutherAI/pythia README: 1,414,647,808"},
    {"falcon-7b", 6.92e9, 0.001, "tiiuae/falcon-7b on the Hub: 6.92B; Almazrouei et al. 2023: 7B"},
    /* BertModel's 335,141,888 plus the pre-training heads trainsim counts
     * (MLM transform 1024^2 + 1024 + 2 x 1024, output bias 30,522, NSP head
     * 2 x 1024 + 2: 1,084,220) */
    {"bert-large-uncased", 335141888.0 + 1084220.0, 0.0,
     "google-bert/bert-large-uncased: 335M BertModel + the pre-training heads"},
    /* trainsim leaves out BLOOM's embedding LayerNorm (2 x 14336 = 28,672);
     * the published figure is 28,480 above the count without it. */
    {"bloom", 176247271232.0, 2e-7,
     "BigScience 2022, BLOOM model card: 176,247,271,232 parameters"},
};

START_TEST(published_counts)
{
	struct ts_model m = load_hf(published[_i].dir);
	double got = ts_model_params(&m);
	double err = tu_relerr(got, published[_i].want);
	ck_assert_msg(err <= published[_i].tol, "%s: %.0f vs %.0f (%s): relative error %.2e > %.1e",
		      published[_i].dir, got, published[_i].want, published[_i].source, err,
		      published[_i].tol);
}
END_TEST

/* Mixtral's active parameters: all but 6 of the 8 experts' SwiGLU MLPs,
 * 46,702,792,704 - 32 x 6 x 3 x 4096 x 14336 = 12,879,921,152, the model
 * card's 12.9B. */
START_TEST(mixtral_active)
{
	struct ts_model m = load_hf("mixtral-8x7b");
	ck_assert_int_eq(m.num_experts, 8);
	ck_assert_int_eq(m.top_k, 2);
	ck_assert(m.capacity_factor == 1.0);
	double expert = 3.0 * (double)m.hidden * (double)m.ffn_hidden;
	double active =
	    ts_model_params(&m) - (double)m.layers * (double)(m.num_experts - m.top_k) * expert;
	ck_assert_msg(tu_relerr(active, 12.9e9) <= 0.002, "active %.0f", active);
}
END_TEST

/* Qwen2's q/k/v biases, 28 x (3584 + 2 x 4 x 128) = 129,024, are the whole
 * difference from the checkpoint's 7,615,616,512, and the source says so. */
START_TEST(qwen2_biases)
{
	struct ts_model m = load_hf("qwen2-7b");
	double qkv_bias = (double)m.layers * (double)((m.heads + 2 * m.kv_heads) * m.head_dim);
	ck_assert(ts_model_params(&m) + qkv_bias == 7615616512.0);
	ck_assert_msg(strstr(m.source, "not modelled: ") && strstr(m.source, "q/k/v"), "%s",
		      m.source);
	ck_assert(!m.bias);
}
END_TEST

/* The files describe the same models as the bundled ones: every dimension and
 * convention agrees. */
START_TEST(same_as_bundled)
{
	static const char *const pairs[][2] = {{"llama2-7b", "llama2-7b"},
					       {"mixtral-8x7b", "mixtral-8x7b"},
					       {"bert-large-uncased", "bert-large"}};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		struct ts_model a = load_hf(pairs[i][0]), b = tu_model(pairs[i][1]);
		ck_assert_str_eq(a.name, pairs[i][0]);
		ck_assert_int_eq(a.family, b.family);
		ck_assert_int_eq(a.layers, b.layers);
		ck_assert_int_eq(a.hidden, b.hidden);
		ck_assert_int_eq(a.heads, b.heads);
		ck_assert_int_eq(a.kv_heads, b.kv_heads);
		ck_assert_int_eq(a.head_dim, b.head_dim);
		ck_assert_int_eq(a.ffn_hidden, b.ffn_hidden);
		ck_assert_int_eq(a.vocab, b.vocab);
		ck_assert_int_eq(a.seq_len, b.seq_len);
		ck_assert_int_eq(a.activation, b.activation);
		ck_assert_int_eq(a.norm, b.norm);
		ck_assert_int_eq(a.position, b.position);
		ck_assert_int_eq(a.tied_embeddings, b.tied_embeddings);
		ck_assert_int_eq(a.bias, b.bias);
		ck_assert_int_eq(a.num_experts, b.num_experts);
		ck_assert_int_eq(a.top_k, b.top_k);
		ck_assert(ts_model_params(&a) == ts_model_params(&b));
	}
}
END_TEST

/* DeepSeek-V3's config.json gives the bundled models/deepseek-v3.cfg
 * (which trains at 4K: the file's 163,840 positions are YaRN-extended),
 * the same parameters: 682,636,472,320 with the MTP module. Absent keys take
 * DeepseekV3Config's defaults; q_lora_rank 0 (null in a file, as
 * DeepSeek-V2-Lite's) means queries from h; node-limited routing is listed
 * as not modelled. */
static int from_text(const char *text, const char *file, struct ts_model *m, struct ts_error *e);

START_TEST(deepseek_v3_import)
{
	struct ts_model a = load_hf("deepseek-v3"), b = tu_model("deepseek-v3");
	ck_assert_int_eq(a.seq_len, 163840);
	ck_assert_int_eq(a.head_dim, 192);
	ck_assert_int_eq(a.kv_lora_rank, b.kv_lora_rank);
	ck_assert_int_eq(a.q_lora_rank, b.q_lora_rank);
	ck_assert_int_eq(a.qk_rope_head_dim, b.qk_rope_head_dim);
	ck_assert_int_eq(a.v_head_dim, b.v_head_dim);
	ck_assert_int_eq(a.num_experts, b.num_experts);
	ck_assert_int_eq(a.top_k, b.top_k);
	ck_assert_int_eq(a.moe_ffn_hidden, b.moe_ffn_hidden);
	ck_assert_int_eq(a.shared_experts, b.shared_experts);
	ck_assert_int_eq(a.dense_layers, b.dense_layers);
	ck_assert_int_eq(a.mtp_depth, b.mtp_depth);
	ck_assert(ts_model_params(&a) == ts_model_params(&b));
	ck_assert(ts_model_params(&a) == 682636472320.0);
	ck_assert_msg(strstr(a.source, "n_group") != NULL, "%s", a.source);
	struct ts_model m;
	struct ts_error e;
	char file[1200];
	snprintf(file, sizeof file, "%s/tests/data/hf/scenario.cfg", tu_root());
	/* the class defaults are DeepSeek-V3's; a null q_lora_rank is none */
	ck_assert_int_eq(from_text("model = { hf_config = \"deepseek-v3/config.json\"; "
				   "q_lora_rank = 0; };",
				   file, &m, &e),
			 0);
	ck_assert_int_eq(m.q_lora_rank, 0);
	/* queries from h: h x 128 x 192 instead of h x 1536 + 1536 + 1536 x 128 x 192
	 * per layer (62 layers with the MTP block) */
	double h = 7168.0, q = 128.0 * 192.0;
	ck_assert_double_eq(ts_model_params(&m),
			    682636472320.0 + 62.0 * (h * q - (h * 1536.0 + 1536.0 + 1536.0 * q)));
}
END_TEST

/* Family conventions and defaults of absent keys. */
START_TEST(family_fields)
{
	/* GPT-2: n_inner null -> 4h; tied by default; learned positions */
	struct ts_model m = load_hf("gpt2");
	ck_assert_int_eq(m.hidden, 768);
	ck_assert_int_eq(m.ffn_hidden, 3072);
	ck_assert_int_eq(m.seq_len, 1024);
	ck_assert_int_eq(m.position, TS_POS_LEARNED);
	ck_assert(m.tied_embeddings && m.bias && !m.parallel_block);
	ck_assert_str_eq(m.origin[TS_MK_HIDDEN].note, "n_embd");
	ck_assert(strstr(m.origin[TS_MK_HIDDEN].file, "tests/data/hf/gpt2/config.json") != NULL);
	/* Falcon-7B: one KV head (multi_query), parallel block with one
	 * LayerNorm, tied (absent: default true), 2048 positions (absent) */
	m = load_hf("falcon-7b");
	ck_assert_int_eq(m.kv_heads, 1);
	ck_assert_int_eq(m.head_dim, 64);
	ck_assert_int_eq(m.ffn_hidden, 4 * 4544);
	ck_assert_int_eq(m.seq_len, 2048);
	ck_assert(m.parallel_block && m.parallel_norms == 1);
	ck_assert(m.tied_embeddings && !m.bias);
	ck_assert_int_eq(m.position, TS_POS_ROPE);
	ck_assert_int_eq(m.activation, TS_ACT_GELU);
	ck_assert_int_eq(m.norm, TS_NORM_LAYERNORM);
	/* Pythia: parallel residual with two LayerNorms, biases, untied */
	m = load_hf("pythia-1.4b");
	ck_assert(m.parallel_block && m.parallel_norms == 2);
	ck_assert(m.bias && !m.tied_embeddings);
	ck_assert_int_eq(m.position, TS_POS_ROPE);
	/* Mistral: the sliding window is named as not modelled */
	m = load_hf("mistral-7b");
	ck_assert_int_eq(m.kv_heads, 8);
	ck_assert_msg(strstr(m.source, "sliding_window") != NULL, "%s", m.source);
	/* BLOOM: ALiBi, no position parameters */
	m = load_hf("bloom");
	ck_assert_int_eq(m.position, TS_POS_ALIBI);
	ck_assert_int_eq(m.seq_len, 2048);
	ck_assert(m.tied_embeddings && m.bias);
}
END_TEST

/* Write `text` to a temporary config.json; returns its path in buf. */
static const char *tmp_json(const char *text, char *buf, size_t n)
{
	return tu_tmpfile("check_hfconfig", text, buf, n);
}

static const struct {
	const char *json;
	int code;
	const char *want[3];
} bad_files[] = {
    {"{\"model_type\": \"t5\", \"d_model\": 512}",
     TS_EUNSUPPORTED,
     {"model_type", "\"t5\", an encoder-decoder", "cannot describe it"}},
    {"{\"model_type\": \"llama\", \"is_encoder_decoder\": true}",
     TS_EUNSUPPORTED,
     {"encoder-decoder", NULL, NULL}},
    {"{\"model_type\": \"lama\"}",
     TS_EUNSUPPORTED,
     {"found \"lama\"", "did you mean \"llama\"", NULL}},
    {"{\"hidden_size\": 64}", TS_EINVALID, {"model_type", "found no value", NULL}},
    {"{\"model_type\": \"llama\", \"hidden_size\": \"4096\", \"num_hidden_layers\": 2}",
     TS_ETYPE,
     {"hidden_size", "found the string \"4096\"", "expected a positive integer"}},
    {"{\"model_type\": \"gpt2\", \"n_embd\": 64, \"n_head\": 4, \"vocab_size\": 100}",
     TS_EINVALID,
     {"n_layer", "found no value", "\"gpt2\" needs it"}},
    {"{\"model_type\": \"gpt2\", \"n_embd\": -64, \"n_layer\": 2}",
     TS_ERANGE,
     {"n_embd", "found -64", "positive integer"}},
    {"{\"model_type\": \"falcon\", \"hidden_size\": 64, \"parallel_attn\": \"yes\"}",
     TS_ETYPE,
     {"parallel_attn", "the string \"yes\"", "true or false"}},
    {"{\"model_type\": \"bert\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
     "\"num_attention_heads\": 4, \"intermediate_size\": 256, \"vocab_size\": 100, "
     "\"type_vocab_size\": 3}",
     TS_EUNSUPPORTED,
     {"type_vocab_size", "found 3", "expected 2"}},
    {"{\"model_type\": \"llama\",\n \"hidden_size\": 64,,}",
     TS_ESYNTAX,
     {"invalid JSON", ":2:", NULL}},
    {"[1, 2]", TS_ESYNTAX, {"found a JSON array", NULL, NULL}},
    {"{\"model_type\": \"llama\", \"model_type\": \"gpt2\"}",
     TS_ESYNTAX,
     {"duplicate", NULL, NULL}},
};

START_TEST(bad_input)
{
	char path[64], name[80], msg[1400];
	tmp_json(bad_files[_i].json, path, sizeof path);
	snprintf(name, sizeof name, "hf:%s", path);
	struct ts_model m;
	struct ts_error e;
	ts_error_clear(&e);
	int rc = ts_model_load(tu_root(), name, &m, &e);
	unlink(path);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(rc == bad_files[_i].code, "case %d: code %d, want %d (%s)", _i, rc,
		      bad_files[_i].code, msg);
	ck_assert_msg(strstr(msg, path) != NULL, "case %d: no file in %s", _i, msg);
	for (int k = 0; k < 3 && bad_files[_i].want[k]; k++)
		ck_assert_msg(strstr(msg, bad_files[_i].want[k]) != NULL, "case %d: no '%s' in %s",
			      _i, bad_files[_i].want[k], msg);
	ck_assert_msg(strchr(msg, '\n') == NULL, "case %d: message is not one line", _i);
}
END_TEST

/* The t5-small file itself is refused; a missing file names the path. */
START_TEST(refusals)
{
	struct ts_model m;
	struct ts_error e;
	char msg[1400];
	ck_assert_int_eq(import("t5-small", &m, &e), TS_EUNSUPPORTED);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(strstr(msg, "t5-small/config.json") && strstr(msg, "encoder-decoder"), "%s",
		      msg);
	ck_assert_int_eq(import("no-such-model", &m, &e), TS_EIO);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(strstr(msg, "no-such-model/config.json") != NULL, "%s", msg);
}
END_TEST

/* Keys and names that only some files use: Mistral-NeMo's head_dim (32
 * heads of 128 on a width of 5120; values of mistralai/Mistral-Nemo-Base-2407's
 * config.json), and Falcon's older model_type and key names.
 * NeMo by hand: layer 5120·(4096 + 2·1024) + 4096·5120 + 3·5120·14336
 * + 2·5120 = 272,640,000; 40 layers, untied embeddings 2·131072·5120 and
 * the final norm: 12,247,782,400 (the Hub: 12.2B). */
START_TEST(head_dim_and_aliases)
{
	char path[64], name[80], msg[1400];
	struct ts_model m;
	struct ts_error e;
	tmp_json("{\"model_type\": \"mistral\", \"hidden_size\": 5120, \"head_dim\": 128, "
		 "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
		 "\"intermediate_size\": 14336, \"num_hidden_layers\": 40, "
		 "\"vocab_size\": 131072, \"max_position_embeddings\": 1024000, "
		 "\"tie_word_embeddings\": false, \"sliding_window\": null}",
		 path, sizeof path);
	snprintf(name, sizeof name, "hf:%s", path);
	int rc = ts_model_load(tu_root(), name, &m, &e);
	unlink(path);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, msg, sizeof msg));
	ck_assert_int_eq(m.head_dim, 128);
	ck_assert(ts_model_params(&m) == 12247782400.0);
	ck_assert_msg(strstr(m.source, "not modelled") == NULL, "%s", m.source);

	tmp_json("{\"model_type\": \"RefinedWebModel\", \"n_embed\": 4544, \"n_head\": 71, "
		 "\"n_layer\": 32, \"vocab_size\": 65024, \"multi_query\": true, "
		 "\"parallel_attn\": true, \"bias\": false}",
		 path, sizeof path);
	snprintf(name, sizeof name, "hf:%s", path);
	rc = ts_model_load(tu_root(), name, &m, &e);
	unlink(path);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, msg, sizeof msg));
	struct ts_model f = load_hf("falcon-7b");
	ck_assert(ts_model_params(&m) == ts_model_params(&f));
	ck_assert_str_eq(m.origin[TS_MK_HIDDEN].note, "n_embed");
	ck_assert(m.parallel_block && m.kv_heads == 1);
}
END_TEST

static int from_text(const char *text, const char *file, struct ts_model *m, struct ts_error *e)
{
	config_t cfg;
	config_init(&cfg);
	ck_assert_msg(config_read_string(&cfg, text), "bad test text: %s", config_error_text(&cfg));
	ts_error_clear(e);
	int rc =
	    ts_model_from_setting(tu_root(), config_lookup(&cfg, "model"), file, "model", m, e);
	config_destroy(&cfg);
	return rc;
}

/* An inline group: hf_config (or base = "hf:...") relative to the file that
 * says it, overridden key by key, with derived values re-derived. */
START_TEST(inline_override)
{
	char file[1100], msg[1400];
	snprintf(file, sizeof file, "%s/tests/data/hf/inline.cfg", tu_root());
	struct ts_model m;
	struct ts_error e;
	int rc = from_text("model = { hf_config = \"gpt2/config.json\";\n layers = 2;\n"
			   " n_embd = 1; };",
			   file, &m, &e);
	ck_assert_int_eq(rc, TS_EUNKNOWN_KEY); /* JSON keys are not model keys */
	rc = from_text("model = { hf_config = \"gpt2/config.json\";\n layers = 2;\n hidden = 1024; "
		       "heads = 16; };",
		       file, &m, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, msg, sizeof msg));
	ck_assert_str_eq(m.name, "gpt2 (modified)");
	ck_assert_int_eq(m.layers, 2);
	ck_assert_int_eq(m.ffn_hidden, 4096); /* n_inner null: 4 x the new width */
	ck_assert_int_eq(m.head_dim, 64);
	ck_assert_int_eq(m.vocab, 50257); /* from the file */
	ck_assert_int_eq(m.origin[TS_MK_LAYERS].line, 2);
	rc = from_text("model = { base = \"hf:falcon-7b/config.json\"; parallel_block = false; };",
		       file, &m, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, msg, sizeof msg));
	ck_assert(!m.parallel_block && m.parallel_norms == 0);
	/* a sequential Falcon-7B has one more LayerNorm per layer: 32 x 2 x 4544 */
	ck_assert(ts_model_params(&m) == 6921720704.0 + 32.0 * 2.0 * 4544.0);
	rc = from_text("model = { base = \"llama2-7b\"; hf_config = \"gpt2/config.json\"; };", file,
		       &m, &e);
	ck_assert_int_eq(rc, TS_EINVALID);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(strstr(msg, "model.hf_config") && strstr(msg, "both base and hf_config"),
		      "%s", msg);
	rc = from_text("model = { hf_config = \"nothere/config.json\"; };", file, &m, &e);
	ck_assert_int_eq(rc, TS_EIO);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(strstr(msg, "tests/data/hf/nothere/config.json") != NULL, "%s", msg);
}
END_TEST

/* Scenario files name a config.json relative to themselves, as a string
 * "hf:PATH" or as hf_config in an inline group. */
START_TEST(scenarios)
{
	struct hw_catalog *cat = NULL;
	struct ts_error e;
	char buf[1400], path[1100];
	ck_assert_int_eq(hw_catalog_load(tu_root(), &cat, &e), 0);
	struct ts_scenario *s = NULL;
	snprintf(path, sizeof path, "%s/tests/data/hf/gpt2-scenario.cfg", tu_root());
	int rc = ts_scenario_load(cat, path, NULL, 0, &s, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, buf, sizeof buf));
	ck_assert_str_eq(s->model.name, "gpt2");
	ck_assert(ts_model_params(&s->model) == 124439808.0);
	ts_scenario_destroy(s);
	s = NULL;
	snprintf(path, sizeof path, "%s/tests/data/hf/pythia-inline.cfg", tu_root());
	rc = ts_scenario_load(cat, path, NULL, 0, &s, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, buf, sizeof buf));
	ck_assert_int_eq(s->model.layers, 4);
	ck_assert_int_eq(s->model.hidden, 2048);
	ck_assert(s->model.parallel_block);
	char nm[1000];
	ck_assert_str_eq(ts_scenario_not_modelled(s, nm, sizeof nm), "");
	ts_scenario_destroy(s);
	/* with tp > 1, at op granularity too, the parallel block is modelled
	 * (tests/check_plan.c counts its collectives) */
	const char *tp2[] = {"parallel.tp=2", "sim.granularity=\"op\""};
	s = NULL;
	rc = ts_scenario_load(cat, path, tp2, 2, &s, &e);
	ck_assert_msg(rc == 0, "%s", ts_error_format(&e, buf, sizeof buf));
	ck_assert_str_eq(ts_scenario_not_modelled(s, nm, sizeof nm), "");
	ck_assert_int_eq(plan_check_modelled(s, &e), 0);
	ts_scenario_destroy(s);
	hw_catalog_destroy(cat);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hfconfig");
	TCase *tc = tu_tcase("core");
	tcase_add_loop_test(tc, published_counts, 0, (int)(sizeof published / sizeof published[0]));
	tcase_add_test(tc, mixtral_active);
	tcase_add_test(tc, qwen2_biases);
	tcase_add_test(tc, same_as_bundled);
	tcase_add_test(tc, deepseek_v3_import);
	tcase_add_test(tc, family_fields);
	tcase_add_loop_test(tc, bad_input, 0, (int)(sizeof bad_files / sizeof bad_files[0]));
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, head_dim_and_aliases);
	tcase_add_test(tc, inline_override);
	tcase_add_test(tc, scenarios);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
