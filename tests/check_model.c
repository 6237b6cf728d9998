/* Model descriptions: bundled files load, parameter counts match the
 * published ones, defaults are derived, bad dimensions are clear errors.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "work/model.h"
#include "testutil.h"

/* Published parameter counts. Each row: the model, the expected count, its
 * source, and the relative tolerance (0 = must be exact). */
static const struct {
	const char *model;
	double want;
	double tol;
	const char *source;
} published[] = {
    /* Llama 2: exact element count of the HF checkpoint (sum of tensor
     * sizes in model.safetensors.index.json / 2 bytes for bf16), which the
     * paper rounds to 7B and 70B. */
    {"llama2-7b", 6738415616.0, 0.0,
     "HF meta-llama/Llama-2-7b-hf, 6,738,415,616 (13.48 GB of bf16 weights)"},
    {"llama2-70b", 68976648192.0, 0.0, "HF meta-llama/Llama-2-70b-hf, 68,976,648,192"},
    /* Llama 3 8B: the model card's "8.03B". */
    {"llama3-8b", 8.03e9, 0.001, "HF meta-llama/Meta-Llama-3-8B model card, 8.03B"},
    /* Llama 3 70B and 405B: the paper's rounded sizes (70B, 405B). */
    {"llama3-70b", 70e9, 0.01, "Llama Team 2024, The Llama 3 Herd of Models: 70B"},
    {"llama3-405b", 405e9, 0.005, "Llama Team 2024, The Llama 3 Herd of Models: 405B"},
    /* GPT-3 175B: Brown et al. report 175.0B; this count (exact value in
     * exact_counts) is the 174.6B usually quoted for the Megatron-style
     * model of the same dimensions. */
    {"gpt3-175b", 174.6e9, 0.001, "12 l h^2 (1 + 13/(12h)) + (V + s) h = 174.6B"},
    {"gpt3-175b", 175.0e9, 0.005, "Brown et al. 2020, Table 2.1: 175.0B"},
    /* Table 2.1 of Brown et al. rounds the smaller models. */
    {"gpt3-1.3b", 1.3e9, 0.02, "Brown et al. 2020, Table 2.1: 1.3B"},
    {"gpt3-6.7b", 6.7e9, 0.01, "Brown et al. 2020, Table 2.1: 6.7B"},
    {"gpt3-13b", 13.0e9, 0.02, "Brown et al. 2020, Table 2.1: 13.0B"},
    {"llama2-13b", 13.0e9, 0.005, "HF meta-llama/Llama-2-13b-hf, 13,015,864,320"},
    /* BERT-large: the pre-training model (encoder, embeddings, pooler,
     * MLM head with tied decoder, NSP head) is 336,226,108; the model card
     * says 336M, Devlin et al. round to 340M. */
    {"bert-large", 336e6, 0.001, "HF google-bert/bert-large-uncased model card: 336M"},
    /* Mixtral: 8 experts of a SwiGLU MLP per layer and the router. */
    {"mixtral-8x7b", 46.7e9, 0.002,
     "Jiang et al. 2024 (Mixtral of Experts) and the model card: 46.7B total"},
};

START_TEST(published_counts)
{
	size_t i = (size_t)_i;
	struct ts_model m = tu_model(published[i].model);
	double got = ts_model_params(&m);
	double err = tu_relerr(got, published[i].want);
	ck_assert_msg(err <= published[i].tol, "%s: %.0f vs %.0f (%s): relative error %.2e > %.1e",
		      published[i].model, got, published[i].want, published[i].source, err,
		      published[i].tol);
}
END_TEST

/* Hand-computed from the formula in model.h (exact integers). */
START_TEST(exact_counts)
{
	struct ts_model m = tu_model("gpt3-175b");
	/* 96 (12 h^2 + 13 h) + V h + s h + 2 h, h = 12288 */
	ck_assert(ts_model_params(&m) == 174604259328.0);
	m = tu_model("llama3-8b");
	/* 32 (h (h + 2*1024) + h^2 + 3 h f + 2h) + 2 V h + h */
	ck_assert(ts_model_params(&m) == 8030261248.0);
	m = tu_model("bert-large");
	/* BertModel (335,141,888) + MLM transform/bias (1,082,170) + NSP (2,050) */
	ck_assert(ts_model_params(&m) == 336226108.0);
	m = tu_model("llama2-13b");
	ck_assert(ts_model_params(&m) == 13015864320.0);
}
END_TEST

START_TEST(fields_and_defaults)
{
	struct ts_model m = tu_model("llama2-70b");
	ck_assert_str_eq(m.name, "llama2-70b");
	ck_assert_int_eq(m.family, TS_FAMILY_LLAMA);
	ck_assert_int_eq(m.layers, 80);
	ck_assert_int_eq(m.kv_heads, 8);
	ck_assert_int_eq(m.head_dim, 128); /* derived: 8192 / 64 */
	ck_assert_ptr_nonnull(m.origin[TS_MK_HEAD_DIM].note);
	ck_assert_int_eq(m.origin[TS_MK_HEAD_DIM].line, 0);
	ck_assert_int_gt(m.origin[TS_MK_LAYERS].line, 0);
	ck_assert(strstr(m.origin[TS_MK_LAYERS].file, "models/llama2-70b.cfg") != NULL);
	ck_assert(strstr(m.source, "arxiv.org") != NULL);
	m = tu_model("bert-large");
	ck_assert_int_eq(m.kv_heads, 16); /* default = heads */
	ck_assert(m.tied_embeddings);
	/* every bundled model cites its source with a URL */
	const char *all[] = {"gpt3-1.3b",  "gpt3-6.7b",	   "gpt3-13b",	"gpt3-175b",  "llama2-7b",
			     "llama2-13b", "llama2-70b",   "llama3-8b", "llama3-70b", "llama3-405b",
			     "bert-large", "mixtral-8x7b", "falcon-7b"};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		m = tu_model(all[i]);
		ck_assert_msg(strstr(m.source, "https://") != NULL, "%s has no URL", all[i]);
		ck_assert_int_eq(ts_model_validate(&m, NULL), 0);
	}
}
END_TEST

/* Parse `text`, build the model from its `model` group. */
static int inline_model(const char *text, struct ts_model *m, struct ts_error *e, char *msg,
			size_t n)
{
	config_t cfg;
	config_init(&cfg);
	ck_assert_msg(config_read_string(&cfg, text), "bad test text: %s", config_error_text(&cfg));
	ts_error_clear(e);
	int rc = ts_model_from_setting(tu_root(), config_lookup(&cfg, "model"), "inline.cfg",
				       "model", m, e);
	config_destroy(&cfg);
	ts_error_format(e, msg, n);
	return rc;
}

START_TEST(inline_with_base)
{
	struct ts_model m;
	struct ts_error e;
	char msg[1200];
	int rc = inline_model("model = {\n base = \"gpt3-175b\";\n layers = 24;\n"
			      " hidden = 2304;\n heads = 24;\n};\n",
			      &m, &e, msg, sizeof msg);
	ck_assert_msg(rc == 0, "%s", msg);
	ck_assert_int_eq(m.layers, 24);
	ck_assert_int_eq(m.hidden, 2304);
	ck_assert_int_eq(m.ffn_hidden, 4 * 2304); /* re-derived, not the base's */
	ck_assert_int_eq(m.vocab, 50257);	  /* from the base */
	ck_assert_int_eq(m.head_dim, 96);	  /* re-derived: 2304 / 24 */
	ck_assert_str_eq(m.name, "gpt3-175b (modified)");
	ck_assert_str_eq(m.origin[TS_MK_LAYERS].file, "inline.cfg");
	ck_assert_int_eq(m.origin[TS_MK_LAYERS].line, 3);
	ck_assert(strstr(m.origin[TS_MK_VOCAB].file, "gpt3-175b.cfg") != NULL);

	rc = inline_model("model = { layers = 2; hidden = 64; heads = 4; vocab = 100;"
			  " seq_len = 32; };",
			  &m, &e, msg, sizeof msg);
	ck_assert_msg(rc == 0, "%s", msg);
	ck_assert_str_eq(m.name, "custom");
	ck_assert_int_eq(m.family, TS_FAMILY_GPT);
	ck_assert_int_eq(m.head_dim, 16);
	/* 2 (12*64^2 + 13*64) + 100*64 + 32*64 + 2*64 */
	ck_assert(ts_model_params(&m) == 2.0 * (12 * 4096 + 13 * 64) + 100 * 64 + 32 * 64 + 128);
}
END_TEST

/* Each case: text, expected code, then substrings the formatted message must
 * contain (file, line, key, found value). */
static const struct {
	const char *text;
	int code;
	const char *want[4];
} bad_cases[] = {
    {"model = {\n base = \"gpt3-175b\";\n heads = 100;\n};",
     TS_EINVALID,
     {"inline.cfg:3:", "model.heads", "100", "divisor of hidden"}},
    {"model = {\n base = \"llama2-70b\";\n kv_heads = 7;\n};",
     TS_EINVALID,
     {"inline.cfg:3:", "model.kv_heads", "7", "divisor of heads"}},
    {"model = {\n base = \"gpt3-175b\";\n layers = 0;\n};",
     TS_ERANGE,
     {"inline.cfg:3:", "model.layers", "found 0", "from 1 to 1024"}},
    {"model = {\n base = \"gpt3-175b\";\n hidden = -5;\n};",
     TS_ERANGE,
     {"inline.cfg:3:", "model.hidden", "-5", "positive"}},
    {"model = {\n base = \"gpt3-175b\";\n layers = \"many\";\n};",
     TS_ETYPE,
     {"inline.cfg:3:", "model.layers", "\"many\"", "integer"}},
    {"model = {\n base = \"gpt3-175b\";\n laers = 3;\n};",
     TS_EUNKNOWN_KEY,
     {"inline.cfg:3:", "model.laers", "\"layers\"", "unknown"}},
    {"model = {\n base = \"gpt3-17b\";\n};",
     TS_EUNKNOWN_NAME,
     {"inline.cfg:2:", "model.base", "\"gpt3-17b\"", "gpt3-175b"}},
    {"model = {\n family = \"llama\";\n layers = 2; hidden = 64; heads = 4;\n"
     " vocab = 10; seq_len = 8;\n};",
     TS_EINVALID,
     {"inline.cfg:2:", "model.activation", "swiglu", "ffn_hidden"}},
    {"model = {\n layers = 2;\n hidden = 64;\n heads = 4;\n vocab = 10;\n};",
     TS_EINVALID,
     {"inline.cfg:1:", "model.seq_len", "required", "no value"}},
    {"model = {\n base = \"gpt3-175b\";\n activation = \"relu\";\n};",
     TS_EUNKNOWN_NAME,
     {"inline.cfg:3:", "model.activation", "\"relu\"", "\"swiglu\""}},
    {"model = {\n base = \"gpt3-175b\";\n tied_embeddings = 1;\n};",
     TS_ETYPE,
     {"inline.cfg:3:", "model.tied_embeddings", "1", "true or false"}},
    {"model = {\n base = \"gpt3-175b\";\n hidden = 4096.5;\n};",
     TS_ERANGE,
     {"inline.cfg:3:", "model.hidden", "4096.5", "whole number"}},
    /* an image its layer list cannot take: never a model of 0 parameters */
    {"model = {\n base = \"vit-b16\";\n input = { channels = 3;\n height = 225;\n"
     " width = 224; };\n};",
     TS_EINVALID,
     {"inline.cfg:4:", "model.input.height", "found 225", "patch size divides"}},
    {"model = {\n base = \"vit-b16\";\n input = { channels = 3; height = 224;\n"
     " width = 8; };\n};",
     TS_EINVALID,
     {"inline.cfg:4:", "model.input.width", "found 8", "patch size divides"}},
    {"model = {\n base = \"resnet50\";\n input = { channels = 3; height = 4; width = 4; "
     "};\n};",
     TS_EINVALID,
     {"inline.cfg:3:", "model.input.height", "found 4", "kernel"}},
    {"model = {\n input = { channels = 3; height = 32; width = 32; };\n"
     " layer_list = ( { op = \"conv\"; out = 8; kernel = 3; },\n"
     " { op = \"conv\"; out = 8; kernel = 3; stride = 64; },\n"
     " { op = \"conv\"; out = 8; kernel = 3; } );\n};",
     TS_EINVALID,
     {"inline.cfg:5:", "model.layer_list.[2]", "smaller than the kernel", "fit the shape"}},
    {"model = {\n input = { channels = 3; height = 32; width = 32; };\n"
     " layer_list = ( { op = \"relu\"; } );\n};",
     TS_EINVALID,
     {"inline.cfg:3:", "model.layer_list.[0]", "no entry with parameters", "fit the shape"}},
};

START_TEST(bad_input)
{
	size_t i = (size_t)_i;
	struct ts_model m;
	struct ts_error e;
	char msg[1200];
	int rc = inline_model(bad_cases[i].text, &m, &e, msg, sizeof msg);
	ck_assert_msg(rc == bad_cases[i].code, "case %zu: code %d, want %d (%s)", i, rc,
		      bad_cases[i].code, msg);
	ck_assert_int_eq(e.code, rc);
	for (int k = 0; k < 4 && bad_cases[i].want[k]; k++)
		ck_assert_msg(strstr(msg, bad_cases[i].want[k]) != NULL,
			      "case %zu: \"%s\" not in \"%s\"", i, bad_cases[i].want[k], msg);
	ck_assert_msg(strchr(msg, '\n') == NULL, "case %zu: message is not one line", i);
}
END_TEST

START_TEST(unknown_name_suggests)
{
	struct ts_model m;
	struct ts_error e;
	char msg[1200];
	ck_assert_int_eq(ts_model_load(tu_root(), "llama2-7", &m, &e), TS_EUNKNOWN_NAME);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(strstr(msg, "\"llama2-7b\"") != NULL, "%s", msg);
	ck_assert_int_eq(ts_model_load(tu_root(), "/nonexistent/x.cfg", &m, &e), TS_EIO);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(strstr(msg, "/nonexistent/x.cfg") != NULL, "%s", msg);
	/* a size beyond 32 bits is read whole (libconfig alone would wrap it to
	 * 10) and refused by its range, on its line */
	char tmp[64];
	tu_tmpfile("ts_model",
		   "# big\nlayers = 2; hidden = 64; heads = 4; seq_len = 8;\nvocab = 4294967306;\n",
		   tmp, sizeof tmp);
	ck_assert_int_eq(ts_model_load(tu_root(), tmp, &m, &e), TS_ERANGE);
	ts_error_format(&e, msg, sizeof msg);
	ck_assert_msg(strstr(msg, ":3:") && strstr(msg, "vocab") && strstr(msg, "4294967306"), "%s",
		      msg);
	remove(tmp);
	char names[512];
	ts_model_names(tu_root(), NULL, 0, names, sizeof names);
	ck_assert_msg(
	    strstr(names, "bert-large, clip-vit-l-14, conformer-l, deepseek-v3, dit-xl-2") != NULL,
	    "%s", names);
}
END_TEST

START_TEST(dump_lists_every_key)
{
	struct ts_model m = tu_model("llama3-8b");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(ts_model_dump(&m, "model.", f), 0);
	fclose(f);
	for (int k = 0; k < TS_MK_COUNT_; k++) {
		char key[64];
		snprintf(key, sizeof key, "model.%s = ", ts_model_key_name((enum ts_model_key)k));
		/* a dense model prints no mixture-of-experts keys */
		if (k >= TS_MK_NUM_EXPERTS)
			ck_assert_msg(strstr(buf, key) == NULL, "%s printed", key);
		else
			ck_assert_msg(strstr(buf, key) != NULL, "%s missing", key);
	}
	ck_assert(strstr(buf, "llama3-8b.cfg:") != NULL);
	ck_assert(strstr(buf, "hidden / heads") != NULL);
	free(buf);
}
END_TEST

/* DeepSeek-V3 (DeepSeek-AI 2024, https://arxiv.org/abs/2412.19437): "671B
 * total parameters with 37B activated for each token" (abstract; section
 * 4.2), and 685B on the model card "which includes 671B of the Main Model
 * weights and 14B of the Multi-Token Prediction (MTP) Module weights"
 * (https://huggingface.co/deepseek-ai/DeepSeek-V3). By hand from
 * models/deepseek-v3.cfg (h 7168, 128 heads of 192 = 128 + 64 rotary,
 * values 128, latents 512 and 1536, experts of 2048, vocabulary 129280):
 *   attention   h·1536 + 1536 + 1536·128·192 + h·(512 + 64) + 512
 *               + 512·128·(128 + 128) + 128·128·h        =    187,107,328
 *   MoE layer   attention + 257·3·h·2048 + h·256 + 2h    = 11,507,286,016
 *   dense layer attention + 3·h·18432 + 2h               =    583,483,392
 *   main        58 MoE + 3 dense + 2·V·h + h             = 671,026,404,352
 *   MTP module  MoE layer + 3h + 2h·h                    = 11,610,067,968
 *   activated   58·(attention + 9·3·h·2048 + h·256 + 2h) + 3 dense
 *               + 2·V·h + h                              = 37,552,282,624
 * The MTP module shares the embedding and the head; with the checkpoint's
 * copies of both (2·V·h) it is 13.46B, the card's "14B" rounded. */
START_TEST(deepseek_v3_counts)
{
	struct ts_model m = tu_model("deepseek-v3");
	double mtp = ts_model_mtp_params(&m);
	ck_assert_double_eq(ts_model_params(&m), 671026404352.0 + 11610067968.0);
	ck_assert_double_eq(mtp, 11610067968.0);
	ck_assert_double_eq(ts_model_active_params(&m), 37552282624.0);
	ck_assert_msg(tu_relerr(ts_model_params(&m) - mtp, 671e9) < 0.001, "%.0f",
		      ts_model_params(&m) - mtp);
	/* 37B activated: the report rounds down (1.5 % above it here; 36.6B
	 * without the input embedding's table) */
	ck_assert(tu_relerr(ts_model_active_params(&m), 37e9) < 0.02);
	double h = 7168.0, V = 129280.0;
	ck_assert(fabs(mtp + 2.0 * V * h - 14e9) / 14e9 < 0.05);
	/* a dense model's active parameters are all of them but MTP's */
	struct ts_model d = tu_model("llama2-7b");
	ck_assert_double_eq(ts_model_active_params(&d), ts_model_params(&d));
	/* Mixtral: 12.9B active per token (Jiang et al. 2024, section 2.1) */
	struct ts_model x = tu_model("mixtral-8x7b");
	ck_assert(tu_relerr(ts_model_active_params(&x), 12.9e9) < 0.005);
	/* the keys print only when used */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(ts_model_dump(&m, "model.", f), 0);
	ck_assert_int_eq(ts_model_dump(&d, "dense.", f), 0);
	fclose(f);
	ck_assert(strstr(buf, "model.kv_lora_rank = 512") && strstr(buf, "model.mtp_depth = 1") &&
		  strstr(buf, "model.dense_layers = 3") && strstr(buf, "model.shared_experts = 1"));
	ck_assert(!strstr(buf, "dense.kv_lora_rank") && !strstr(buf, "dense.mtp_depth") &&
		  !strstr(buf, "dense.moe_ffn_hidden"));
	free(buf);
}
END_TEST

/* The latent-attention and DeepSeekMoE keys refuse what they cannot mean,
 * naming the key. */
START_TEST(deepseek_keys_refused)
{
	static const struct {
		const char *text, *key;
	} bad[] = {
	    {"model = { base = \"llama2-7b\"; q_lora_rank = 64; };", "q_lora_rank"},
	    {"model = { base = \"llama2-7b\"; kv_lora_rank = 64; kv_heads = 8; };", "kv_heads"},
	    {"model = { base = \"llama2-7b\"; kv_lora_rank = 64; qk_rope_head_dim = 128; };",
	     "qk_rope_head_dim"},
	    {"model = { base = \"llama2-7b\"; shared_experts = 1; };", "shared_experts"},
	    {"model = { base = \"llama2-7b\"; moe_ffn_hidden = 1024; };", "moe_ffn_hidden"},
	    {"model = { base = \"mixtral-8x7b\"; dense_layers = 32; };", "dense_layers"},
	    {"model = { base = \"bert-large\"; mtp_depth = 1; };", "mtp_depth"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ts_model m;
		struct ts_error e;
		char msg[512];
		int rc = inline_model(bad[i].text, &m, &e, msg, sizeof msg);
		ck_assert_msg(rc == TS_EINVALID, "%s: %d", bad[i].text, rc);
		ck_assert_msg(strstr(msg, bad[i].key) != NULL, "%s: %s", bad[i].text, msg);
	}
}
END_TEST

START_TEST(moe_keys)
{
	struct ts_model m = tu_model("mixtral-8x7b");
	ck_assert_int_eq(m.num_experts, 8);
	ck_assert_int_eq(m.top_k, 2);
	ck_assert(m.capacity_factor == 1.0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(ts_model_dump(&m, "model.", f), 0);
	fclose(f);
	ck_assert(strstr(buf, "model.num_experts = 8") != NULL);
	ck_assert(strstr(buf, "model.top_k = 2") != NULL);
	ck_assert(strstr(buf, "model.capacity_factor = 1") != NULL);
	free(buf);
	/* defaults: top-2, capacity 1.0 */
	struct ts_error e;
	char msg[512];
	ck_assert_int_eq(inline_model("model = { base = \"llama2-7b\"; num_experts = 4; };", &m, &e,
				      msg, sizeof msg),
			 0);
	ck_assert_int_eq(m.top_k, 2);
	ck_assert(m.capacity_factor == 1.0);
	/* a dense model has none: params unchanged */
	struct ts_model d = tu_model("llama2-7b");
	ck_assert_int_eq(d.num_experts, 0);
	/* 4 experts: the MLP 4 times plus a 4096 x 4 router, per layer:
	 * 6,738,415,616 + 32 x (3 x 3 x 4096 x 11008 + 4 x 4096) */
	ck_assert_double_eq_tol(ts_model_params(&m),
				6738415616.0 + 32.0 * (3.0 * 3.0 * 4096.0 * 11008.0 + 4.0 * 4096.0),
				0.5);
	/* bad input: one line naming the key */
	ck_assert_int_eq(
	    inline_model("model = { base = \"llama2-7b\"; top_k = 2; };", &m, &e, msg, sizeof msg),
	    TS_EINVALID);
	ck_assert_msg(strstr(msg, "top_k") && strstr(msg, "num_experts"), "%s", msg);
	ck_assert_int_eq(inline_model("model = { base = \"llama2-7b\"; num_experts = 4; "
				      "top_k = 5; };",
				      &m, &e, msg, sizeof msg),
			 TS_EINVALID);
	ck_assert_msg(strstr(msg, "top_k") && strstr(msg, "found 5"), "%s", msg);
	ck_assert_int_eq(inline_model("model = { base = \"llama2-7b\"; num_experts = 4; "
				      "capacity_factor = -1.0; };",
				      &m, &e, msg, sizeof msg),
			 TS_ERANGE);
	ck_assert_msg(strstr(msg, "capacity_factor"), "%s", msg);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("model");
	TCase *t = tu_tcase("model");
	tcase_add_loop_test(t, published_counts, 0, (int)(sizeof published / sizeof published[0]));
	tcase_add_test(t, exact_counts);
	tcase_add_test(t, fields_and_defaults);
	tcase_add_test(t, inline_with_base);
	tcase_add_loop_test(t, bad_input, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
	tcase_add_test(t, unknown_name_suggests);
	tcase_add_test(t, dump_lists_every_key);
	tcase_add_test(t, moe_keys);
	tcase_add_test(t, deepseek_v3_counts);
	tcase_add_test(t, deepseek_keys_refused);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
