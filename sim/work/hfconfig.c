/* Transformer dimensions from a Hugging Face config.json.
 * SPDX-License-Identifier: MIT */

/* The file is parsed by jansson. `model_type` picks one mapping, written
 * per family below from the configuration classes of Hugging Face
 * `transformers` (src/transformers/models/<type>/configuration_<type>.py):
 * a key absent from the file takes that class's default, since
 * save_pretrained leaves out values equal to the defaults (Falcon-7B's file
 * has no tie_word_embeddings and no max_position_embeddings). The
 * dimensions themselves (width, layers, heads, vocabulary) are required: a
 * file without them is more likely broken than default-sized.
 *
 * Every key set here is marked given with an origin of (file, line 0, the
 * JSON key), so the model's own derivations (head_dim = hidden / heads,
 * ffn_hidden = 4h) and validation run after it exactly as for a .cfg file,
 * and an inline group can still override any key. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/cfg.h"
#include "base/suggest.h"
#include "work/hfconfig.h"

#define HF_MAX_DIM ((int64_t)1 << 26)

enum hf_type {
	HF_LLAMA,
	HF_MISTRAL,
	HF_MIXTRAL,
	HF_QWEN2,
	HF_GPT2,
	HF_GPT_NEOX,
	HF_FALCON,
	HF_BERT,
	HF_BLOOM,
	HF_DEEPSEEK_V3,
	HF_TYPE_COUNT_
};

/* model_type values, with Falcon's two older names last. */
static const char *const type_names[] = {"llama", "mistral",	 "mixtral",	    "qwen2",
					 "gpt2",  "gpt_neox",	 "falcon",	    "bert",
					 "bloom", "deepseek_v3", "RefinedWebModel", "RefinedWeb"};
#define NTYPES (sizeof type_names / sizeof type_names[0])

/* Encoder-decoder model types, refused by name. */
static const char *const encdec_names[] = {
    "t5",   "mt5",   "umt5",	"longt5", "switch_transformers",
    "bart", "mbart", "pegasus", "marian", "encoder-decoder"};

struct hf {
	const char *path;
	json_t *root;
	const char *type; /* model_type as written */
	struct ts_model *m;
	unsigned *given;
	struct ts_error *err;
	char notmod[240]; /* "; "-separated things trainsim does not count */
};

/* ---- values ------------------------------------------------------------ */

static char *found(const json_t *v, char *buf, size_t n)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		snprintf(buf, n, "the string \"%.60s\"", json_string_value(v));
		break;
	case JSON_INTEGER:
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		snprintf(buf, n, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		snprintf(buf, n, "true");
		break;
	case JSON_FALSE:
		snprintf(buf, n, "false");
		break;
	case JSON_NULL:
		snprintf(buf, n, "null");
		break;
	case JSON_OBJECT:
		snprintf(buf, n, "an object");
		break;
	default:
		snprintf(buf, n, "an array");
		break;
	}
	return buf;
}

static int fail(struct hf *h, int code, const char *key, const char *fmt, const char *a,
		const char *b)
{
	return ts_error_set(h->err, code, h->path, 0, key, fmt, a, b);
}

/* The value of `key`, or of `alt` when `key` is absent (NULL when both are
 * absent or null); *name says which was found. */
static const json_t *lookup(const struct hf *h, const char *key, const char *alt, const char **name)
{
	const json_t *v = json_object_get(h->root, key);
	*name = key;
	if ((!v || json_is_null(v)) && alt) {
		v = json_object_get(h->root, alt);
		*name = alt;
	}
	return v && !json_is_null(v) ? v : NULL;
}

static void mark(struct hf *h, enum ts_model_key k, const char *note)
{
	if (k >= TS_MK_COUNT_) /* a key of the file that is no model key */
		return;
	struct ts_model_origin *o = &h->m->origin[k];
	snprintf(o->file, sizeof o->file, "%s", h->path);
	o->line = 0;
	o->note = note;
	*h->given |= 1u << k;
}

/* A positive integer key (alias `alt`) into *dst as model key k. Absent:
 * `def` when def > 0 (noted as transformers' default), an error when
 * required, else untouched. Returns 0 or an error. */
static int size_key(struct hf *h, enum ts_model_key k, int64_t *dst, const char *key,
		    const char *alt, int64_t def, bool required)
{
	const char *name;
	const json_t *v = lookup(h, key, alt, &name);
	char fb[96];
	if (!v) {
		if (def > 0) {
			*dst = def;
			mark(h, k, "absent: the transformers default");
			return 0;
		}
		if (required)
			return fail(h, TS_EINVALID, key,
				    "found no value, expected a positive integer (model_type "
				    "\"%s\" needs it)%s",
				    h->type, "");
		return 0;
	}
	int64_t x;
	if (json_is_integer(v)) {
		x = (int64_t)json_integer_value(v);
	} else if (json_is_real(v) && json_real_value(v) >= 1.0 &&
		   json_real_value(v) <= (double)HF_MAX_DIM &&
		   json_real_value(v) == (double)(int64_t)json_real_value(v)) {
		x = (int64_t)json_real_value(v);
	} else {
		return fail(h, json_is_number(v) ? TS_ERANGE : TS_ETYPE, name,
			    "found %s, expected a positive integer%s", found(v, fb, sizeof fb), "");
	}
	if (x < 1 || x > HF_MAX_DIM)
		return fail(h, TS_ERANGE, name,
			    "found %s, expected a positive integer of at most %s",
			    found(v, fb, sizeof fb), "67108864");
	*dst = x;
	mark(h, k, name);
	return 0;
}

/* A boolean key into *out (def when absent). *from is the key's name, or
 * NULL when the default was taken. */
static int bool_key(struct hf *h, const char *key, bool def, bool *out, const char **from)
{
	const char *name;
	const json_t *v = lookup(h, key, NULL, &name);
	char fb[96];
	*from = NULL;
	if (!v) {
		*out = def;
		return 0;
	}
	if (!json_is_boolean(v))
		return fail(h, TS_ETYPE, key, "found %s, expected true or false%s",
			    found(v, fb, sizeof fb), "");
	*out = json_is_true(v);
	*from = name;
	return 0;
}

/* A string key: *out is its text, or NULL when absent. */
static int str_key(struct hf *h, const char *key, const char **out)
{
	const char *name;
	const json_t *v = lookup(h, key, NULL, &name);
	char fb[96];
	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return fail(h, TS_ETYPE, key, "found %s, expected a string%s",
			    found(v, fb, sizeof fb), "");
	*out = json_string_value(v);
	return 0;
}

/* A boolean model key k from `key` with default def. */
static int flag(struct hf *h, enum ts_model_key k, bool *dst, const char *key, bool def)
{
	const char *from;
	int rc = bool_key(h, key, def, dst, &from);
	if (!rc)
		mark(h, k, from ? from : "absent: the transformers default");
	return rc;
}

static void not_modelled(struct hf *h, const char *what)
{
	size_t l = strlen(h->notmod);
	snprintf(h->notmod + l, sizeof h->notmod - l, "%s%s", l ? "; " : "", what);
}

/* The conventions a model_type fixes (not keys of its file). */
static void conventions(struct hf *h, enum ts_model_family fam, enum ts_activation act,
			enum ts_norm norm, enum ts_position pos)
{
	struct ts_model *m = h->m;
	m->family = fam;
	m->activation = act;
	m->norm = norm;
	m->position = pos;
	mark(h, TS_MK_FAMILY, "model_type");
	mark(h, TS_MK_ACTIVATION, "model_type (gated MLP or not)");
	mark(h, TS_MK_NORM, "model_type");
	mark(h, TS_MK_POSITION, "model_type");
}

/* The activation key must be a string when present; its value does not
 * change the count (a gated MLP has three matrices whatever its function). */
static int act_key(struct hf *h, const char *key)
{
	const char *s;
	int rc = str_key(h, key, &s);
	if (!rc && s)
		h->m->origin[TS_MK_ACTIVATION].note = key;
	return rc;
}

/* ---- families ------------------------------------------------------------ */

/* Llama, Mistral, Mixtral, Qwen2: pre-RMSNorm decoders with RoPE, a gated
 * (SwiGLU) MLP and no biases by default. */
/* The sizes every family requires, read in this order (the first bad one
 * is the error): hidden, layers and heads, each under key[i] or else its
 * alias[i] (alias NULL: none); the MLP width under `ffn` when ffn is not
 * NULL; vocab_size. Returns 0 or an error. */
static int core_sizes(struct hf *h, const char *const key[3], const char *const alias[3],
		      const char *ffn)
{
	struct ts_model *m = h->m;
	const enum ts_model_key k[3] = {TS_MK_HIDDEN, TS_MK_LAYERS, TS_MK_HEADS};
	int64_t *dst[3] = {&m->hidden, &m->layers, &m->heads};
	int rc;
	for (int i = 0; i < 3; i++)
		if ((rc = size_key(h, k[i], dst[i], key[i], alias ? alias[i] : NULL, 0, true)))
			return rc;
	if (ffn && (rc = size_key(h, TS_MK_FFN_HIDDEN, &m->ffn_hidden, ffn, NULL, 0, true)))
		return rc;
	return size_key(h, TS_MK_VOCAB, &m->vocab, "vocab_size", NULL, 0, true);
}

/* The names transformers' current configurations use for core_sizes. */
static const char *const std_keys[3] = {"hidden_size", "num_hidden_layers", "num_attention_heads"};

static int llama_like(struct hf *h, enum hf_type t)
{
	struct ts_model *m = h->m;
	int rc;
	conventions(h, TS_FAMILY_LLAMA, TS_ACT_SWIGLU, TS_NORM_RMSNORM, TS_POS_ROPE);
	if ((rc = core_sizes(h, std_keys, NULL, "intermediate_size")) ||
	    (rc = size_key(h, TS_MK_KV_HEADS, &m->kv_heads, "num_key_value_heads", NULL, 0,
			   false)) ||
	    (rc = size_key(h, TS_MK_HEAD_DIM, &m->head_dim, "head_dim", NULL, 0, false)) ||
	    (rc = act_key(h, "hidden_act")))
		return rc;
	/* LlamaConfig defaults to 2048 positions, MistralConfig, MixtralConfig
	 * and Qwen2Config to 32768 */
	if ((rc = size_key(h, TS_MK_SEQ_LEN, &m->seq_len, "max_position_embeddings", NULL,
			   t == HF_LLAMA ? 2048 : 32768, false)) ||
	    (rc =
		 flag(h, TS_MK_TIED_EMBEDDINGS, &m->tied_embeddings, "tie_word_embeddings", false)))
		return rc;
	bool ab = false, mb = false;
	const char *f1, *f2;
	if ((rc = bool_key(h, "attention_bias", false, &ab, &f1)) ||
	    (rc = bool_key(h, "mlp_bias", false, &mb, &f2)))
		return rc;
	/* trainsim's bias is all linear layers or none */
	m->bias = ab && mb;
	mark(h, TS_MK_BIAS, f1 ? f1 : "model_type (no biases)");
	if (ab != mb)
		not_modelled(h, ab ? "attention_bias (q/k/v/o biases)" : "mlp_bias");
	if (t == HF_QWEN2)
		not_modelled(h, "the q/k/v projection biases Qwen2 always has "
				"(layers x (q + 2 kv) widths, about 0.002 % of 7B)");
	if (t == HF_MIXTRAL) {
		if ((rc = size_key(h, TS_MK_NUM_EXPERTS, &m->num_experts, "num_local_experts", NULL,
				   8, false)) ||
		    (rc = size_key(h, TS_MK_TOP_K, &m->top_k, "num_experts_per_tok", NULL, 2,
				   false)))
			return rc;
		m->capacity_factor = 1.0; /* Mixtral routes without dropping tokens */
		mark(h, TS_MK_CAPACITY_FACTOR, "dropless routing (1.0)");
	}
	const json_t *sw = json_object_get(h->root, "sliding_window");
	bool use_sw = t != HF_QWEN2; /* Qwen2 has use_sliding_window, default false */
	if (t == HF_QWEN2) {
		const char *from;
		if ((rc = bool_key(h, "use_sliding_window", false, &use_sw, &from)))
			return rc;
	}
	if (use_sw && sw && json_is_integer(sw) && json_integer_value(sw) < m->seq_len)
		not_modelled(h, "sliding_window (attention is counted over the whole sequence)");
	return 0;
}

/* GPT-2: learned positions, pre-LayerNorm, GeLU MLP of n_inner (4h when
 * null), biases, tied output. */
static int gpt2(struct hf *h)
{
	struct ts_model *m = h->m;
	int rc;
	conventions(h, TS_FAMILY_GPT, TS_ACT_GELU, TS_NORM_LAYERNORM, TS_POS_LEARNED);
	m->bias = true;
	mark(h, TS_MK_BIAS, "model_type (Conv1D layers with biases)");
	if ((rc = core_sizes(h, (const char *const[]){"n_embd", "n_layer", "n_head"}, std_keys,
			     NULL)) ||
	    (rc = size_key(h, TS_MK_SEQ_LEN, &m->seq_len, "n_positions", NULL, 1024, false)) ||
	    (rc = size_key(h, TS_MK_FFN_HIDDEN, &m->ffn_hidden, "n_inner", NULL, 0, false)) ||
	    (rc = act_key(h, "activation_function")) ||
	    (rc = flag(h, TS_MK_TIED_EMBEDDINGS, &m->tied_embeddings, "tie_word_embeddings", true)))
		return rc;
	return 0;
}

/* GPT-NeoX (Pythia): rotary positions, LayerNorm, GeLU MLP, biases, untied
 * output; with use_parallel_residual (the default) attention and MLP read
 * the same input, each through its own LayerNorm. */
static int gpt_neox(struct hf *h)
{
	struct ts_model *m = h->m;
	int rc;
	conventions(h, TS_FAMILY_GPT, TS_ACT_GELU, TS_NORM_LAYERNORM, TS_POS_ROPE);
	if ((rc = core_sizes(h, std_keys, NULL, "intermediate_size")) ||
	    (rc = size_key(h, TS_MK_SEQ_LEN, &m->seq_len, "max_position_embeddings", NULL, 2048,
			   false)) ||
	    (rc = act_key(h, "hidden_act")) ||
	    (rc = flag(h, TS_MK_TIED_EMBEDDINGS, &m->tied_embeddings, "tie_word_embeddings",
		       false)) ||
	    (rc = flag(h, TS_MK_BIAS, &m->bias, "attention_bias", true)) ||
	    (rc = flag(h, TS_MK_PARALLEL_BLOCK, &m->parallel_block, "use_parallel_residual", true)))
		return rc;
	if (m->parallel_block) {
		m->parallel_norms = 2; /* input_layernorm and post_attention_layernorm */
		mark(h, TS_MK_PARALLEL_NORMS, "model_type (two LayerNorms of the block input)");
	}
	if (!m->bias)
		not_modelled(h, "the MLP biases GPT-NeoX keeps without attention_bias");
	return 0;
}

/* Falcon (tiiuae): rotary or ALiBi, LayerNorm, GeLU MLP of ffn_hidden_size
 * (4h when null), biases per `bias`, tied output. The block is parallel
 * when parallel_attn or new_decoder_architecture; its KV heads are
 * num_kv_heads with the new architecture, one with multi_query, else all. */
static int falcon(struct hf *h)
{
	struct ts_model *m = h->m;
	int rc;
	bool alibi = false, mq = true, nda = false, par = true;
	const char *f_alibi, *f_mq, *f_nda, *f_par;
	if ((rc = bool_key(h, "alibi", false, &alibi, &f_alibi)) ||
	    (rc = bool_key(h, "multi_query", true, &mq, &f_mq)) ||
	    (rc = bool_key(h, "new_decoder_architecture", false, &nda, &f_nda)) ||
	    (rc = bool_key(h, "parallel_attn", true, &par, &f_par)))
		return rc;
	conventions(h, TS_FAMILY_LLAMA, TS_ACT_GELU, TS_NORM_LAYERNORM,
		    alibi ? TS_POS_ALIBI : TS_POS_ROPE);
	if (f_alibi)
		m->origin[TS_MK_POSITION].note = alibi ? "alibi" : "alibi false: rotary";
	if ((rc = core_sizes(h, std_keys, (const char *const[]){"n_embed", "n_layer", "n_head"},
			     NULL)) ||
	    (rc = size_key(h, TS_MK_SEQ_LEN, &m->seq_len, "max_position_embeddings", NULL, 2048,
			   false)) ||
	    (rc = size_key(h, TS_MK_FFN_HIDDEN, &m->ffn_hidden, "ffn_hidden_size", NULL, 0,
			   false)) ||
	    (rc = act_key(h, "activation")) ||
	    (rc = flag(h, TS_MK_TIED_EMBEDDINGS, &m->tied_embeddings, "tie_word_embeddings",
		       true)) ||
	    (rc = flag(h, TS_MK_BIAS, &m->bias, "bias", false)))
		return rc;
	if (nda) {
		if ((rc = size_key(h, TS_MK_KV_HEADS, &m->kv_heads, "num_kv_heads", "n_head_kv", 0,
				   false)))
			return rc;
	} else {
		m->kv_heads = mq ? 1 : m->heads;
		mark(h, TS_MK_KV_HEADS,
		     mq ? (f_mq ? "multi_query" : "multi_query (default true)")
			: "multi_query false: one KV head per head");
	}
	m->parallel_block = nda || par;
	mark(h, TS_MK_PARALLEL_BLOCK,
	     nda ? "new_decoder_architecture"
		 : (f_par ? "parallel_attn" : "parallel_attn (default true)"));
	if (m->parallel_block) {
		/* FalconDecoderLayer: the new architecture has ln_attn and ln_mlp
		 * unless num_ln_in_parallel_attn is 1; the old one input_layernorm */
		int64_t nln = nda ? 2 : 1;
		const char *from = "model_type (one input_layernorm)";
		if (nda) {
			if ((rc = size_key(h, TS_MK_PARALLEL_NORMS, &nln, "num_ln_in_parallel_attn",
					   NULL, 2, false)))
				return rc;
			from = h->m->origin[TS_MK_PARALLEL_NORMS].note;
			if (nln > 2) {
				char fb[32];
				snprintf(fb, sizeof fb, "%lld", (long long)nln);
				return fail(h, TS_ERANGE, "num_ln_in_parallel_attn",
					    "found %s, expected 1 or 2%s", fb, "");
			}
		}
		m->parallel_norms = nln;
		mark(h, TS_MK_PARALLEL_NORMS, from);
	}
	return 0;
}

/* BERT: the pre-training model of sim/work/model.h's bert family (learned
 * absolute positions, two token types, post-LayerNorm, GeLU, biases, tied
 * MLM output). */
static int bert(struct hf *h)
{
	struct ts_model *m = h->m;
	int rc;
	int64_t types = 2;
	const char *pet;
	conventions(h, TS_FAMILY_BERT, TS_ACT_GELU, TS_NORM_LAYERNORM, TS_POS_LEARNED);
	m->bias = true;
	mark(h, TS_MK_BIAS, "model_type");
	if ((rc = core_sizes(h, std_keys, NULL, "intermediate_size")) ||
	    (rc = size_key(h, TS_MK_SEQ_LEN, &m->seq_len, "max_position_embeddings", NULL, 512,
			   false)) ||
	    (rc = act_key(h, "hidden_act")) ||
	    (rc = flag(h, TS_MK_TIED_EMBEDDINGS, &m->tied_embeddings, "tie_word_embeddings",
		       true)) ||
	    (rc = size_key(h, TS_MK_COUNT_, &types, "type_vocab_size", NULL, 2, false)) ||
	    (rc = str_key(h, "position_embedding_type", &pet)))
		return rc;
	if (types != 2) {
		char fb[32];
		snprintf(fb, sizeof fb, "%lld", (long long)types);
		return fail(h, TS_EUNSUPPORTED, "type_vocab_size",
			    "found %s, expected 2 (trainsim's BERT counts two token types)%s", fb,
			    "");
	}
	if (pet && strcmp(pet, "absolute") != 0)
		return fail(h, TS_EUNSUPPORTED, "position_embedding_type",
			    "found \"%.60s\", expected \"absolute\" (trainsim's BERT has learned "
			    "positions)%s",
			    pet, "");
	return 0;
}

/* BLOOM: ALiBi, LayerNorm, GeLU MLP of 4h, biases, tied output; trained on
 * 2048-token sequences (BigScience 2022, https://arxiv.org/abs/2211.05100,
 * section 3.5), which the file does not say. */
static int bloom(struct hf *h)
{
	struct ts_model *m = h->m;
	int rc;
	conventions(h, TS_FAMILY_GPT, TS_ACT_GELU, TS_NORM_LAYERNORM, TS_POS_ALIBI);
	m->bias = true;
	mark(h, TS_MK_BIAS, "model_type");
	m->seq_len = 2048;
	mark(h, TS_MK_SEQ_LEN, "BLOOM's training sequence length (ALiBi sets no limit)");
	if ((rc = core_sizes(
		 h, (const char *const[]){"hidden_size", "n_layer", "n_head"},
		 (const char *const[]){"n_embed", "num_hidden_layers", "num_attention_heads"},
		 NULL)) ||
	    (rc = flag(h, TS_MK_TIED_EMBEDDINGS, &m->tied_embeddings, "tie_word_embeddings", true)))
		return rc;
	not_modelled(h, "the LayerNorm after the word embeddings (2h parameters)");
	return 0;
}

/* ---- the file ---------------------------------------------------------- */

/* The model's name: the directory of a file named config.json (as the Hub
 * lays models out), else the file name without .json. */
static void name_from_path(struct hf *h)
{
	const char *p = h->path, *slash = strrchr(p, '/');
	const char *base = slash ? slash + 1 : p;
	int len = (int)strlen(base);
	if (strcmp(base, "config.json") == 0 && slash && slash > p) {
		const char *q = slash;
		while (q > p && q[-1] != '/')
			q--;
		base = q;
		len = (int)(slash - q);
	} else if (len > 5 && strcmp(base + len - 5, ".json") == 0) {
		len -= 5;
	}
	snprintf(h->m->name, sizeof h->m->name, "%.*s", len > 63 ? 63 : len, base);
	mark(h, TS_MK_NAME, "the file's directory or name");
}

/* An integer key of at least 0 into *dst as model key k (def when absent;
 * null counts as 0, as DeepSeek-V2-Lite's "q_lora_rank": null means no
 * query latent). Returns 0 or an error. */
static int count_key(struct hf *h, enum ts_model_key k, int64_t *dst, const char *key, int64_t def,
		     int64_t max)
{
	const json_t *v = json_object_get(h->root, key);
	char fb[96], mx[32];
	if (!v) {
		*dst = def;
		mark(h, k, "absent: the transformers default");
		return 0;
	}
	if (json_is_null(v)) {
		*dst = 0;
		mark(h, k, key);
		return 0;
	}
	snprintf(mx, sizeof mx, "%lld", (long long)max);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return fail(h, json_is_integer(v) ? TS_ERANGE : TS_ETYPE, key,
			    "found %s, expected an integer from 0 to %s", found(v, fb, sizeof fb),
			    mx);
	*dst = (int64_t)json_integer_value(v);
	mark(h, k, key);
	return 0;
}

/* DeepSeek-V3 (transformers' DeepseekV3Config; the checkpoint's
 * config.json, https://huggingface.co/deepseek-ai/DeepSeek-V3): a llama-like
 * decoder with multi-head latent attention (kv_lora_rank, q_lora_rank,
 * qk_nope_head_dim + qk_rope_head_dim = head_dim, v_head_dim), DeepSeekMoE
 * (n_routed_experts of moe_intermediate_size, n_shared_experts,
 * num_experts_per_tok, the first first_k_dense_replace layers dense of
 * intermediate_size) and num_nextn_predict_layers multi-token prediction
 * modules (a key of the checkpoint's file, not of the class: 0 when absent).
 * Absent keys take DeepseekV3Config's defaults, which are DeepSeek-V3's. */
static int deepseek_v3(struct hf *h)
{
	struct ts_model *m = h->m;
	int rc;
	int64_t nope = 0, rope = 0, freq = 1;
	conventions(h, TS_FAMILY_LLAMA, TS_ACT_SWIGLU, TS_NORM_RMSNORM, TS_POS_ROPE);
	if ((rc = core_sizes(h, std_keys, NULL, "intermediate_size")) ||
	    (rc = size_key(h, TS_MK_KV_HEADS, &m->kv_heads, "num_key_value_heads", NULL, 0,
			   false)) ||
	    (rc = act_key(h, "hidden_act")) ||
	    (rc = size_key(h, TS_MK_SEQ_LEN, &m->seq_len, "max_position_embeddings", NULL, 4096,
			   false)) ||
	    (rc = flag(h, TS_MK_TIED_EMBEDDINGS, &m->tied_embeddings, "tie_word_embeddings",
		       false)) ||
	    (rc = flag(h, TS_MK_BIAS, &m->bias, "attention_bias", false)) ||
	    (rc = size_key(h, TS_MK_KV_LORA_RANK, &m->kv_lora_rank, "kv_lora_rank", NULL, 512,
			   false)) ||
	    (rc = count_key(h, TS_MK_Q_LORA_RANK, &m->q_lora_rank, "q_lora_rank", 1536,
			    HF_MAX_DIM)) ||
	    (rc = count_key(h, TS_MK_QK_ROPE_HEAD_DIM, &m->qk_rope_head_dim, "qk_rope_head_dim", 64,
			    HF_MAX_DIM)) ||
	    (rc = size_key(h, TS_MK_HEAD_DIM, &nope, "qk_nope_head_dim", NULL, 128, false)) ||
	    (rc = size_key(h, TS_MK_V_HEAD_DIM, &m->v_head_dim, "v_head_dim", NULL, 128, false)) ||
	    (rc = size_key(h, TS_MK_NUM_EXPERTS, &m->num_experts, "n_routed_experts", NULL, 256,
			   false)) ||
	    (rc = size_key(h, TS_MK_TOP_K, &m->top_k, "num_experts_per_tok", NULL, 8, false)) ||
	    (rc = size_key(h, TS_MK_MOE_FFN_HIDDEN, &m->moe_ffn_hidden, "moe_intermediate_size",
			   NULL, 2048, false)) ||
	    (rc = count_key(h, TS_MK_SHARED_EXPERTS, &m->shared_experts, "n_shared_experts", 1,
			    4096)) ||
	    (rc = count_key(h, TS_MK_DENSE_LAYERS, &m->dense_layers, "first_k_dense_replace", 3,
			    100000)) ||
	    (rc =
		 count_key(h, TS_MK_MTP_DEPTH, &m->mtp_depth, "num_nextn_predict_layers", 0, 16)) ||
	    (rc = count_key(h, TS_MK_COUNT_, &freq, "moe_layer_freq", 1, 100000)))
		return rc;
	rope = m->qk_rope_head_dim;
	m->head_dim = nope + rope; /* a query/key head: its non-rotary and rotary parts */
	h->m->origin[TS_MK_HEAD_DIM].note = "qk_nope_head_dim + qk_rope_head_dim";
	if (!(*h->given & (1u << TS_MK_KV_HEADS))) {
		m->kv_heads = m->heads;
		mark(h, TS_MK_KV_HEADS, "absent: num_attention_heads");
	}
	m->capacity_factor = 1.0; /* no token dropping (the report, section 2.1.2) */
	mark(h, TS_MK_CAPACITY_FACTOR, "no token dropping (1.0)");
	if (freq != 1)
		not_modelled(h, "moe_layer_freq other than 1 (counted as every layer MoE)");
	if (json_object_get(h->root, "n_group") || json_object_get(h->root, "topk_group"))
		not_modelled(h, "node-limited routing (n_group, topk_group)");
	return 0;
}

static int read_model(struct hf *h)
{
	char fb[200], sugg[160];
	const char *type;
	int rc = str_key(h, "model_type", &type);
	if (rc)
		return rc;
	if (!type)
		return fail(h, TS_EINVALID, "model_type",
			    "found no value, expected a model_type string such as \"llama\"%s%s",
			    "", "");
	h->type = type;
	bool encdec = false;
	const char *from;
	if ((rc = bool_key(h, "is_encoder_decoder", false, &encdec, &from)))
		return rc;
	for (size_t i = 0; i < sizeof encdec_names / sizeof encdec_names[0]; i++)
		encdec = encdec || strcmp(type, encdec_names[i]) == 0;
	if (encdec)
		return fail(
		    h, TS_EUNSUPPORTED, "model_type",
		    "found \"%.60s\", an encoder-decoder (encoder, decoder and the "
		    "cross-attention between them), expected a decoder-only or encoder-only "
		    "model: a trainsim model is one stack of identical blocks and cannot "
		    "describe it%s",
		    type, "");
	int t = -1;
	for (size_t i = 0; i < NTYPES; i++)
		if (strcmp(type, type_names[i]) == 0)
			t = i >= HF_TYPE_COUNT_ ? HF_FALCON : (int)i;
	if (t < 0) {
		ts_suggest(type, type_names, HF_TYPE_COUNT_, 1, sugg, sizeof sugg);
		snprintf(fb, sizeof fb, "%s%s", sugg[0] ? "; did you mean " : "", sugg);
		return fail(h, TS_EUNSUPPORTED, "model_type",
			    "found \"%.60s\", expected llama, mistral, mixtral, qwen2, gpt2, "
			    "gpt_neox, falcon, bert, bloom or deepseek_v3%s",
			    type, fb);
	}
	name_from_path(h);
	switch ((enum hf_type)t) {
	case HF_GPT2:
		rc = gpt2(h);
		break;
	case HF_GPT_NEOX:
		rc = gpt_neox(h);
		break;
	case HF_FALCON:
		rc = falcon(h);
		break;
	case HF_BERT:
		rc = bert(h);
		break;
	case HF_BLOOM:
		rc = bloom(h);
		break;
	case HF_DEEPSEEK_V3:
		rc = deepseek_v3(h);
		break;
	default:
		rc = llama_like(h, (enum hf_type)t);
		break;
	}
	if (rc)
		return rc;
	snprintf(h->m->source, sizeof h->m->source,
		 "Hugging Face config.json %.160s (model_type %.40s)%s%.240s", h->path, type,
		 h->notmod[0] ? "; not modelled: " : "", h->notmod);
	mark(h, TS_MK_SOURCE, "model_type");
	return 0;
}

int work_hf_read(const char *path, struct ts_model *m, unsigned *given, struct ts_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = cfg_read_text(path, &text, &len, err);
	if (rc)
		return rc;
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	ts_free(text, len + 1);
	if (!root)
		return ts_error_set(err, TS_ESYNTAX, path, je.line > 0 ? je.line : 0, NULL,
				    "found invalid JSON at column %d: %.200s, expected a Hugging "
				    "Face config.json",
				    je.column, je.text);
	struct hf h = {path, root, "", m, given, err, ""};
	if (!json_is_object(root))
		rc = ts_error_set(err, TS_ESYNTAX, path, 0, NULL,
				  "found a JSON %s, expected an object (a Hugging Face "
				  "config.json)",
				  json_is_array(root) ? "array" : "scalar");
	else
		rc = read_model(&h);
	json_decref(root);
	return rc;
}
