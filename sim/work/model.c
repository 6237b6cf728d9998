/* Transformer model descriptions: loading, defaults, validation, parameters.
 * SPDX-License-Identifier: MIT */

/* A model is built in two steps. Loading collects the keys that are given
 * (in a file, in an inline group, or in the chain of `base` models it starts
 * from, outermost last so that it overrides) together with where each came
 * from, and marks them as given. Finishing then derives what was left out
 * (kv_heads = heads, head_dim = hidden / heads, ffn_hidden = 4h for gelu, the
 * family's conventions for activation, norm, positions, tying and biases) and
 * validates the result. Deriving only after all overrides are in means an
 * inline `{ base = "gpt3-175b"; hidden = 2304; heads = 24; }` gets the
 * head_dim of its own hidden and heads, not the base model's. */
#define _POSIX_C_SOURCE 200809L

#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/suggest.h"
#include "base/cfg.h"
#include "work/hfconfig.h"
#include "work/lnet.h"
#include "work/model.h"

#define MAX_DEPTH 8		   /* base chains */
#define MAX_DIM ((int64_t)1 << 26) /* any one size; keeps h*f*L exact in a double */
/* 8 x the deepest model of the catalog (Llama 3.1 405B's 126 layers, Meta's
 * model card; GPT-3 175B has 96, Brown et al. 2020 table 2.1): deeper is a
 * typo, and the per-layer plan makes a run linear in layers (1,000 layers
 * about 11 s, 10,000 about 280 s on one core) */
#define MAX_LAYERS ((int64_t)1024)
#define MAX_EXPERTS ((int64_t)4096)

/* The model keys, in the order of enum ts_model_key. */
#define MODEL_KEYS                                                                                 \
	"name", "family", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden",       \
	    "vocab", "seq_len", "activation", "norm", "position", "tied_embeddings", "bias",       \
	    "source", "num_experts", "top_k", "capacity_factor", "parallel_block",                 \
	    "parallel_norms", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "v_head_dim",     \
	    "moe_ffn_hidden", "shared_experts", "dense_layers", "mtp_depth"

static const char *const key_names[TS_MK_COUNT_] = {MODEL_KEYS};

/* Every key a model group may hold: the model keys, `base`, `hf_config`, and
 * the keys of a layer-list model (read by work_lnet_parse and
 * work_lnet_parse_layout). */
static const char *const group_keys[] = {MODEL_KEYS,   "base",		"hf_config", "input",
					 "layer_list", "memory_format", "unit"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const family_names[TS_FAMILY_COUNT_] = {"gpt", "llama", "bert", "layers"};
static const char *const act_names[TS_ACT_COUNT_] = {"gelu", "swiglu"};
static const char *const norm_names[TS_NORM_COUNT_] = {"layernorm", "rmsnorm"};
static const char *const pos_names[TS_POS_COUNT_] = {"learned", "rope", "alibi"};

const char *ts_model_key_name(enum ts_model_key k)
{
	return (unsigned)k < TS_MK_COUNT_ ? key_names[k] : "?";
}

const char *ts_model_family_name(enum ts_model_family f)
{
	return (unsigned)f < TS_FAMILY_COUNT_ ? family_names[f] : "?";
}

const char *ts_model_activation_name(enum ts_activation a)
{
	return (unsigned)a < TS_ACT_COUNT_ ? act_names[a] : "?";
}

const char *ts_model_norm_name(enum ts_norm n)
{
	return (unsigned)n < TS_NORM_COUNT_ ? norm_names[n] : "?";
}

const char *ts_model_position_name(enum ts_position p)
{
	return (unsigned)p < TS_POS_COUNT_ ? pos_names[p] : "?";
}

/* A model being loaded: values and origins, which keys were given, and the
 * group it is described by (for "missing key" messages). */
struct raw {
	struct ts_model m;
	unsigned given;	    /* bit k set: key k was given somewhere */
	char file[200];	    /* file of the outermost group */
	int line;	    /* line of the outermost group */
	const char *prefix; /* key prefix of the outermost group ("model.") */
};

static int load_file(const char *root, const char *name, struct raw *r, int depth,
		     const char *efile, int eline, const char *ekey, struct ts_error *err);
static void hf_resolve(const char *file, char *buf, size_t n, bool bare);

/* ---- small helpers ---------------------------------------------------- */

/* Copy src into dst (size n), cut to fit: names and paths are bounded. */
static void copy(char *dst, size_t n, const char *src)
{
	if (n == 0)
		return;
	size_t l = src ? strnlen(src, n - 1) : 0;
	if (l)
		memcpy(dst, src, l);
	dst[l] = '\0';
}

/* cfg_fail about `prefix` + `key` ("model." + "hidden"; key "" names the
 * group itself); fmt takes the two strings a and b. */
static int fail_at(struct ts_error *err, int code, const config_setting_t *s, const char *file,
		   const char *prefix, const char *key, const char *fmt, const char *a,
		   const char *b)
{
	char k[CFG_KEY_MAX];
	return cfg_fail(err, code, s, file, cfg_key_join(k, prefix, key), fmt, a, b);
}

/* ---- reading one group ------------------------------------------------ */

static void note_origin(struct raw *r, enum ts_model_key k, const config_setting_t *s,
			const char *file)
{
	struct ts_model_origin *o = &r->m.origin[k];
	cfg_where(s, file, o->file, sizeof o->file, &o->line);
	o->note = NULL;
	r->given |= 1u << k;
}

/* Apply one model group (a file's root or an inline group) to r. */
static int apply_group(const char *root, const config_setting_t *g, const char *file,
		       const char *prefix, struct raw *r, int depth, struct ts_error *err)
{
	int rc;
	char fb[128], kp[CFG_KEY_MAX];
	if (!config_setting_is_group(g))
		return fail_at(err, TS_ETYPE, g, file, prefix, "", "found %s, expected %s",
			       cfg_found(g, fb, sizeof fb), "a model group { layers = ...; }");
	if ((rc = cfg_check_keys(g, file, prefix, group_keys, COUNT(group_keys), err)))
		return rc;
	const config_setting_t *b = config_setting_get_member(g, "base");
	const config_setting_t *hfc = config_setting_get_member(g, "hf_config");
	if (b && hfc)
		return fail_at(err, TS_EINVALID, hfc, file, prefix, "hf_config",
			       "found both base and hf_config, expected one of them%s%s", "", "");
	if (b || hfc) {
		char bname[4096];
		const char *bkey = b ? "base" : "hf_config";
		if (!b)
			b = hfc;
		if ((rc = cfg_string(b, file, cfg_key_join(kp, prefix, bkey), bname, 256, err)))
			return rc;
		hf_resolve(file, bname, sizeof bname, hfc != NULL);
		if (depth >= MAX_DEPTH)
			return fail_at(
			    err, TS_ELIMIT, b, file, prefix, "base",
			    "found \"%s\" nested too deeply (a cycle?), expected at most %s levels",
			    bname, "8");
		char f[200], k[160];
		int line;
		cfg_where(b, file, f, sizeof f, &line);
		snprintf(k, sizeof k, "%s%s", prefix, bkey);
		if ((rc = load_file(root, bname, r, depth + 1, f, line, k, err)))
			return rc;
	}
	for (int k = 0; k < TS_MK_COUNT_; k++) {
		const config_setting_t *s = config_setting_get_member(g, key_names[k]);
		if (!s)
			continue;
		const char *key = cfg_key_join(kp, prefix, key_names[k]); /* for messages */
		int e = 0;
		struct ts_model *m = &r->m;
		switch ((enum ts_model_key)k) {
		case TS_MK_NAME:
			rc = cfg_string(s, file, key, m->name, sizeof m->name, err);
			break;
		case TS_MK_SOURCE:
			rc = cfg_string(s, file, key, m->source, sizeof m->source, err);
			break;
		case TS_MK_FAMILY:
			rc = cfg_enum(s, file, key, family_names, TS_FAMILY_COUNT_, &e, err);
			m->family = (enum ts_model_family)e;
			break;
		case TS_MK_ACTIVATION:
			rc = cfg_enum(s, file, key, act_names, TS_ACT_COUNT_, &e, err);
			m->activation = (enum ts_activation)e;
			break;
		case TS_MK_NORM:
			rc = cfg_enum(s, file, key, norm_names, TS_NORM_COUNT_, &e, err);
			m->norm = (enum ts_norm)e;
			break;
		case TS_MK_POSITION:
			rc = cfg_enum(s, file, key, pos_names, TS_POS_COUNT_, &e, err);
			m->position = (enum ts_position)e;
			break;
		case TS_MK_TIED_EMBEDDINGS:
			rc = cfg_bool(s, file, key, &m->tied_embeddings, err);
			break;
		case TS_MK_BIAS:
			rc = cfg_bool(s, file, key, &m->bias, err);
			break;
		case TS_MK_LAYERS:
			rc = cfg_int(s, file, key, 1, MAX_LAYERS, &m->layers, err);
			break;
		case TS_MK_HIDDEN:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->hidden, err);
			break;
		case TS_MK_HEADS:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->heads, err);
			break;
		case TS_MK_KV_HEADS:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->kv_heads, err);
			break;
		case TS_MK_HEAD_DIM:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->head_dim, err);
			break;
		case TS_MK_FFN_HIDDEN:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->ffn_hidden, err);
			break;
		case TS_MK_VOCAB:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->vocab, err);
			break;
		case TS_MK_SEQ_LEN:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->seq_len, err);
			break;
		case TS_MK_NUM_EXPERTS:
			rc = cfg_int(s, file, key, 1, MAX_EXPERTS, &m->num_experts, err);
			break;
		case TS_MK_TOP_K:
			rc = cfg_int(s, file, key, 1, MAX_EXPERTS, &m->top_k, err);
			break;
		case TS_MK_CAPACITY_FACTOR:
			rc = cfg_float(s, file, key, CFG_POSITIVE, 64.0, &m->capacity_factor, err);
			break;
		case TS_MK_PARALLEL_BLOCK:
			rc = cfg_bool(s, file, key, &m->parallel_block, err);
			break;
		case TS_MK_PARALLEL_NORMS:
			rc = cfg_int(s, file, key, 1, 2, &m->parallel_norms, err);
			break;
		case TS_MK_KV_LORA_RANK:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->kv_lora_rank, err);
			break;
		case TS_MK_Q_LORA_RANK:
			rc = cfg_int(s, file, key, 0, MAX_DIM, &m->q_lora_rank, err);
			break;
		case TS_MK_QK_ROPE_HEAD_DIM:
			rc = cfg_int(s, file, key, 0, MAX_DIM, &m->qk_rope_head_dim, err);
			break;
		case TS_MK_V_HEAD_DIM:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->v_head_dim, err);
			break;
		case TS_MK_MOE_FFN_HIDDEN:
			rc = cfg_int(s, file, key, 1, MAX_DIM, &m->moe_ffn_hidden, err);
			break;
		case TS_MK_SHARED_EXPERTS:
			rc = cfg_int(s, file, key, 0, MAX_EXPERTS, &m->shared_experts, err);
			break;
		case TS_MK_DENSE_LAYERS:
			rc = cfg_int(s, file, key, 0, MAX_LAYERS, &m->dense_layers, err);
			break;
		case TS_MK_MTP_DEPTH:
			rc = cfg_int(s, file, key, 0, 16, &m->mtp_depth, err);
			break;
		default:
			rc = 0;
			break;
		}
		if (rc)
			return rc;
		note_origin(r, (enum ts_model_key)k, s, file);
	}
	if ((rc = work_lnet_parse_layout(g, file, prefix, &r->m, err)))
		return rc;
	if (config_setting_get_member(g, "input") || config_setting_get_member(g, "layer_list"))
		return work_lnet_parse(g, file, prefix, &r->m, err);
	return 0;
}

/* ---- files and names -------------------------------------------------- */

static int is_path(const char *name)
{
	size_t n = strlen(name);
	return strchr(name, '/') != NULL || (n > 4 && strcmp(name + n - 4, ".cfg") == 0);
}

char *ts_model_names(const char *root, const char *near, size_t max, char *buf, size_t n)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/models", root ? root : ".");
	return cfg_names(dir, near, max, buf, n);
}

/* Model names of the form "hf:PATH" name a Hugging Face config.json. */
static bool is_hf(const char *name)
{
	return strncmp(name, "hf:", 3) == 0;
}

/* Turn a `base = "hf:PATH"` (or, when `bare`, an `hf_config = "PATH"`) read
 * into buf (size n) into "hf:" and PATH relative to the directory of `file`,
 * (for --set, the scenario's) unless PATH is absolute. Other names are left
 * as they are. */
static void hf_resolve(const char *file, char *buf, size_t n, bool bare)
{
	if (!bare && !is_hf(buf))
		return;
	char tmp[4096];
	const char *p = bare ? buf : buf + 3;
	const char *slash = file ? strrchr(file, '/') : NULL;
	if (p[0] != '/' && slash)
		snprintf(tmp, sizeof tmp, "hf:%.*s/%.3000s", (int)(slash - file), file, p);
	else
		snprintf(tmp, sizeof tmp, "hf:%.4000s", p);
	copy(buf, n, tmp);
}

/* Load the file of model `name` into r (which it overrides key by key).
 * efile/eline/ekey locate the reference to the model, for "unknown name". */
static int load_file(const char *root, const char *name, struct raw *r, int depth,
		     const char *efile, int eline, const char *ekey, struct ts_error *err)
{
	char path[4096];
	int rc;
	if (!root)
		root = ".";
	if (is_hf(name)) {
		if (!name[3])
			return ts_error_set(err, TS_EINVALID, efile, eline, ekey,
					    "found \"hf:\", expected \"hf:PATH\" naming a Hugging "
					    "Face config.json");
		rc = work_hf_read(name + 3, &r->m, &r->given, err);
		if (rc == TS_EIO && efile && err) {
			/* name the line that asked for the file */
			char msg[sizeof err->msg];
			snprintf(msg, sizeof msg, "%s", err->msg);
			return ts_error_set(
			    err, rc, efile, eline, ekey,
			    "found \"%.300s\" (%.300s), expected a readable Hugging "
			    "Face config.json",
			    name + 3, msg);
		}
		return rc;
	}
	if (is_path(name)) {
		copy(path, sizeof path, name);
	} else {
		snprintf(path, sizeof path, "%s/models/%s.cfg", root, name);
		struct stat st;
		if (name[0] == '\0' || stat(path, &st) != 0) {
			char near[256], all[512];
			ts_model_names(root, name, 3, near, sizeof near);
			if (!near[0])
				ts_model_names(root, NULL, 0, all, sizeof all);
			return ts_error_set(err, TS_EUNKNOWN_NAME, efile, eline, ekey,
					    "found \"%.80s\", expected a model of %s/models/; %s%s",
					    name, root, near[0] ? "closest: " : "known: ",
					    near[0] ? near : (all[0] ? all : "none"));
		}
	}
	char *text = NULL;
	size_t len = 0;
	if ((rc = cfg_read_text(path, &text, &len, err)))
		return rc;
	config_t cfg;
	config_init(&cfg);
	if ((rc = cfg_parse(&cfg, text, path, err)))
		goto out;
	rc = apply_group(root, config_root_setting(&cfg), path, "", r, depth, err);
	/* The model name is the file name unless the file says otherwise (this
	 * runs after the file's base, so the outermost file names the model). */
	if (!rc && !config_setting_get_member(config_root_setting(&cfg), "name")) {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		size_t l = strlen(base);
		if (l > 4 && strcmp(base + l - 4, ".cfg") == 0)
			l -= 4;
		snprintf(r->m.name, sizeof r->m.name, "%.*s", (int)l, base);
		copy(r->m.origin[TS_MK_NAME].file, sizeof r->m.origin[0].file, path);
		r->m.origin[TS_MK_NAME].line = 0;
		r->m.origin[TS_MK_NAME].note = "file name";
	}
out:
	config_destroy(&cfg);
	ts_free(text, len + 1);
	return rc;
}

/* ---- defaults and validation ------------------------------------------ */

/* Mark key k as derived (when not given) from key `from` (its origin is
 * copied, so messages point at the line that decided it), or from nothing
 * when `from` is TS_MK_COUNT_ or was not given either. */
static void derive(struct raw *r, enum ts_model_key k, enum ts_model_key from, const char *note)
{
	if (r->given & (1u << k))
		return;
	struct ts_model_origin *o = &r->m.origin[k];
	if (from < TS_MK_COUNT_ && (r->given & (1u << from))) {
		*o = r->m.origin[from];
	} else {
		o->file[0] = '\0';
		o->line = 0;
	}
	o->note = note;
}

/* Fill what was not given, then validate. */
static int finish(struct raw *r, struct ts_error *err)
{
	struct ts_model *m = &r->m;
	if ((r->given & (1u << TS_MK_FAMILY)) && m->family == TS_FAMILY_LAYERS) {
		if (m->nlnet == 0)
			return ts_error_set(err, TS_EINVALID, r->file, r->line, "layer_list",
					    "found no layer list, expected family = \"layers\" to "
					    "come with input = { ... } and layer_list = ( ... )");
		/* the transformer dimensions do not apply: 1 keeps their checks true */
		m->layers = (int64_t)m->nlnet;
		m->hidden = m->heads = m->kv_heads = m->head_dim = m->ffn_hidden = 1;
		m->vocab = m->seq_len = 1;
		m->tied_embeddings = m->bias = false;
		for (int k = TS_MK_LAYERS; k <= TS_MK_BIAS; k++)
			derive(r, (enum ts_model_key)k, TS_MK_COUNT_, "not used by a layer list");
		derive(r, TS_MK_SOURCE, TS_MK_COUNT_, "not given");
		return 0;
	}
	if (m->nlnet)
		return ts_error_set(err, TS_EINVALID, r->file, r->line, "family",
				    "found a layer list in a %s model, expected family = "
				    "\"layers\"",
				    family_names[m->family]);
	static const enum ts_model_key required[] = {TS_MK_LAYERS, TS_MK_HIDDEN, TS_MK_HEADS,
						     TS_MK_VOCAB, TS_MK_SEQ_LEN};
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
		if (!(r->given & (1u << required[i]))) {
			char k[160];
			snprintf(k, sizeof k, "%s%s", r->prefix, key_names[required[i]]);
			return ts_error_set(
			    err, TS_EINVALID, r->file, r->line, k,
			    "found no value, expected a positive integer (the key is required)");
		}
	}
	bool gpt = m->family != TS_FAMILY_LLAMA;
	if (!(r->given & (1u << TS_MK_FAMILY))) {
		m->family = TS_FAMILY_GPT;
		gpt = true;
	}
	derive(r, TS_MK_FAMILY, TS_MK_COUNT_, "default");
	if (!(r->given & (1u << TS_MK_ACTIVATION)))
		m->activation = gpt ? TS_ACT_GELU : TS_ACT_SWIGLU;
	derive(r, TS_MK_ACTIVATION, TS_MK_FAMILY, "family default");
	if (!(r->given & (1u << TS_MK_NORM)))
		m->norm = gpt ? TS_NORM_LAYERNORM : TS_NORM_RMSNORM;
	derive(r, TS_MK_NORM, TS_MK_FAMILY, "family default");
	if (!(r->given & (1u << TS_MK_POSITION)))
		m->position = gpt ? TS_POS_LEARNED : TS_POS_ROPE;
	derive(r, TS_MK_POSITION, TS_MK_FAMILY, "family default");
	if (!(r->given & (1u << TS_MK_TIED_EMBEDDINGS)))
		m->tied_embeddings = gpt;
	derive(r, TS_MK_TIED_EMBEDDINGS, TS_MK_FAMILY, "family default");
	if (!(r->given & (1u << TS_MK_BIAS)))
		m->bias = gpt;
	derive(r, TS_MK_BIAS, TS_MK_FAMILY, "family default");
	if (!(r->given & (1u << TS_MK_KV_HEADS)))
		m->kv_heads = m->heads;
	derive(r, TS_MK_KV_HEADS, TS_MK_HEADS, "= heads");
	if (!(r->given & (1u << TS_MK_HEAD_DIM)))
		m->head_dim = m->hidden % m->heads == 0 ? m->hidden / m->heads : 0;
	derive(r, TS_MK_HEAD_DIM, TS_MK_COUNT_, "= hidden / heads");
	if (!(r->given & (1u << TS_MK_FFN_HIDDEN)))
		m->ffn_hidden = m->activation == TS_ACT_GELU ? 4 * m->hidden : 0;
	derive(r, TS_MK_FFN_HIDDEN, TS_MK_COUNT_, "= 4 * hidden");
	derive(r, TS_MK_SOURCE, TS_MK_COUNT_, "not given");
	if (!(r->given & (1u << TS_MK_NUM_EXPERTS)) &&
	    (r->given & (1u << TS_MK_TOP_K | 1u << TS_MK_CAPACITY_FACTOR))) {
		char k[160];
		snprintf(k, sizeof k, "%s%s", r->prefix,
			 key_names[(r->given & (1u << TS_MK_TOP_K)) ? TS_MK_TOP_K
								    : TS_MK_CAPACITY_FACTOR]);
		return ts_error_set(err, TS_EINVALID, r->file, r->line, k,
				    "found a mixture-of-experts key without num_experts, expected "
				    "num_experts = N with it");
	}
	if (m->num_experts > 0) {
		if (!(r->given & (1u << TS_MK_TOP_K)))
			m->top_k = m->num_experts < 2 ? m->num_experts : 2;
		if (!(r->given & (1u << TS_MK_CAPACITY_FACTOR)))
			m->capacity_factor = 1.0;
	}
	derive(r, TS_MK_NUM_EXPERTS, TS_MK_COUNT_, "dense MLP");
	derive(r, TS_MK_TOP_K, TS_MK_NUM_EXPERTS, "default 2");
	derive(r, TS_MK_CAPACITY_FACTOR, TS_MK_NUM_EXPERTS, "default 1.0 (balanced, no drops)");
	if (!(r->given & (1u << TS_MK_PARALLEL_BLOCK)) &&
	    (r->given & (1u << TS_MK_PARALLEL_NORMS))) {
		char k[160];
		snprintf(k, sizeof k, "%s%s", r->prefix, key_names[TS_MK_PARALLEL_NORMS]);
		return ts_error_set(err, TS_EINVALID, r->file, r->line, k,
				    "found parallel_norms without parallel_block, expected "
				    "parallel_block = true with it");
	}
	if (!m->parallel_block)
		m->parallel_norms = 0;
	else if (!(r->given & (1u << TS_MK_PARALLEL_NORMS)))
		m->parallel_norms = 1;
	derive(r, TS_MK_PARALLEL_BLOCK, TS_MK_COUNT_, "sequential attention, then MLP");
	derive(r, TS_MK_PARALLEL_NORMS, TS_MK_PARALLEL_BLOCK, "one shared norm");
	/* latent attention: its other keys mean nothing without kv_lora_rank */
	static const enum ts_model_key mla[] = {TS_MK_Q_LORA_RANK, TS_MK_QK_ROPE_HEAD_DIM,
						TS_MK_V_HEAD_DIM};
	for (size_t i = 0; i < sizeof mla / sizeof mla[0]; i++)
		if (!(r->given & (1u << TS_MK_KV_LORA_RANK)) && (r->given & (1u << mla[i]))) {
			char k[160];
			snprintf(k, sizeof k, "%s%s", r->prefix, key_names[mla[i]]);
			return ts_error_set(err, TS_EINVALID, r->file, r->line, k,
					    "found a multi-head latent attention key without "
					    "kv_lora_rank, expected kv_lora_rank = N with it");
		}
	if (m->kv_lora_rank == 0) {
		m->q_lora_rank = m->qk_rope_head_dim = 0;
		m->v_head_dim = m->head_dim;
	} else if (!(r->given & (1u << TS_MK_V_HEAD_DIM))) {
		m->v_head_dim = m->head_dim;
	}
	derive(r, TS_MK_KV_LORA_RANK, TS_MK_COUNT_, "standard attention");
	derive(r, TS_MK_Q_LORA_RANK, TS_MK_KV_LORA_RANK, "queries from h");
	derive(r, TS_MK_QK_ROPE_HEAD_DIM, TS_MK_KV_LORA_RANK, "0");
	derive(r, TS_MK_V_HEAD_DIM, TS_MK_HEAD_DIM, "= head_dim");
	static const enum ts_model_key moe[] = {TS_MK_MOE_FFN_HIDDEN, TS_MK_SHARED_EXPERTS,
						TS_MK_DENSE_LAYERS};
	for (size_t i = 0; i < sizeof moe / sizeof moe[0]; i++)
		if (m->num_experts == 0 && (r->given & (1u << moe[i]))) {
			char k[160];
			snprintf(k, sizeof k, "%s%s", r->prefix, key_names[moe[i]]);
			return ts_error_set(err, TS_EINVALID, r->file, r->line, k,
					    "found a mixture-of-experts key without num_experts, "
					    "expected num_experts = N with it");
		}
	if (!(r->given & (1u << TS_MK_MOE_FFN_HIDDEN)))
		m->moe_ffn_hidden = m->num_experts > 0 ? m->ffn_hidden : 0;
	derive(r, TS_MK_MOE_FFN_HIDDEN, TS_MK_FFN_HIDDEN, "= ffn_hidden");
	derive(r, TS_MK_SHARED_EXPERTS, TS_MK_COUNT_, "none");
	derive(r, TS_MK_DENSE_LAYERS, TS_MK_COUNT_, "every layer MoE");
	derive(r, TS_MK_MTP_DEPTH, TS_MK_COUNT_, "next token only");
	return 0;
}

/* Where a validation error is reported: the key's own origin, or the
 * outermost group for values that were derived. */
struct at {
	const char *file;   /* file of the outermost group, NULL if unknown */
	int line;	    /* its line */
	const char *prefix; /* key prefix of the outermost group ("model.") */
};

static int bad(const struct ts_model *m, enum ts_model_key k, const struct at *at,
	       struct ts_error *err, int code, const char *fmt, long long a, long long b)
{
	const struct ts_model_origin *o = &m->origin[k];
	char key[160], msg[400];
	const char *file = o->file;
	int line = o->line;
	if (!file[0] && at->file) {
		file = at->file;
		line = at->line;
	}
	/* Keys of the outermost group (or set on the command line) carry its
	 * prefix; keys of a model file are plain. */
	bool outer = at->file && (line == 0 || strcmp(file, at->file) == 0);
	snprintf(key, sizeof key, "%s%s", outer ? at->prefix : "", key_names[k]);
	snprintf(msg, sizeof msg, fmt, a, b);
	return ts_error_set(err, code, file, line, key, "%s", msg);
}

static int validate(const struct ts_model *m, const struct at *at, struct ts_error *err)
{
	static const enum ts_model_key sizes[] = {TS_MK_LAYERS, TS_MK_HIDDEN,  TS_MK_HEADS,
						  TS_MK_VOCAB,	TS_MK_SEQ_LEN, TS_MK_KV_HEADS};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		const int64_t *v = sizes[i] == TS_MK_LAYERS    ? &m->layers
				   : sizes[i] == TS_MK_HIDDEN  ? &m->hidden
				   : sizes[i] == TS_MK_HEADS   ? &m->heads
				   : sizes[i] == TS_MK_VOCAB   ? &m->vocab
				   : sizes[i] == TS_MK_SEQ_LEN ? &m->seq_len
							       : &m->kv_heads;
		int64_t max = sizes[i] == TS_MK_LAYERS ? MAX_LAYERS : MAX_DIM;
		if (*v < 1 || *v > max)
			return bad(m, sizes[i], at, err, TS_ERANGE,
				   "found %lld, expected a positive integer of at most %lld",
				   (long long)*v, (long long)max);
	}
	if (m->head_dim == 0)
		return bad(
		    m, TS_MK_HEADS, at, err, TS_EINVALID,
		    "found %lld heads, expected a divisor of hidden = %lld (or give head_dim)",
		    (long long)m->heads, (long long)m->hidden);
	if (m->head_dim < 0 || m->head_dim > MAX_DIM)
		return bad(m, TS_MK_HEAD_DIM, at, err, TS_ERANGE,
			   "found %lld, expected a positive integer of at most %lld",
			   (long long)m->head_dim, (long long)MAX_DIM);
	if (m->heads > m->hidden)
		return bad(m, TS_MK_HEADS, at, err, TS_EINVALID,
			   "found %lld heads, expected at most hidden = %lld", (long long)m->heads,
			   (long long)m->hidden);
	if (m->heads * m->head_dim > MAX_DIM)
		return bad(m, TS_MK_HEAD_DIM, at, err, TS_ERANGE,
			   "found heads * head_dim = %lld, expected at most %lld",
			   (long long)(m->heads * m->head_dim), (long long)MAX_DIM);
	if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
		return bad(m, TS_MK_KV_HEADS, at, err, TS_EINVALID,
			   "found %lld, expected a divisor of heads = %lld", (long long)m->kv_heads,
			   (long long)m->heads);
	if (m->ffn_hidden == 0)
		return bad(m, TS_MK_ACTIVATION, at, err, TS_EINVALID,
			   "found swiglu without ffn_hidden, expected ffn_hidden to be given", 0,
			   0);
	if (m->ffn_hidden < 0 || m->ffn_hidden > MAX_DIM)
		return bad(m, TS_MK_FFN_HIDDEN, at, err, TS_ERANGE,
			   "found %lld, expected a positive integer of at most %lld",
			   (long long)m->ffn_hidden, (long long)MAX_DIM);
	if (m->num_experts > 0 && (m->top_k < 1 || m->top_k > m->num_experts))
		return bad(m, TS_MK_TOP_K, at, err, TS_EINVALID,
			   "found %lld, expected 1 to num_experts = %lld", (long long)m->top_k,
			   (long long)m->num_experts);
	if (m->num_experts > 0 && !(m->capacity_factor > 0.0))
		return bad(m, TS_MK_CAPACITY_FACTOR, at, err, TS_ERANGE,
			   "found a capacity factor <= 0, expected a positive number", 0, 0);
	if (m->parallel_block && (m->parallel_norms < 1 || m->parallel_norms > 2))
		return bad(m, TS_MK_PARALLEL_NORMS, at, err, TS_ERANGE,
			   "found %lld, expected 1 or 2", (long long)m->parallel_norms, 0);
	if (m->parallel_block && m->family == TS_FAMILY_BERT)
		return bad(m, TS_MK_PARALLEL_BLOCK, at, err, TS_EINVALID,
			   "found a parallel block in a post-LN bert model, expected a pre-LN "
			   "family (gpt or llama)",
			   0, 0);
	if (m->kv_lora_rank > 0 && m->kv_heads != m->heads)
		return bad(m, TS_MK_KV_HEADS, at, err, TS_EINVALID,
			   "found %lld with multi-head latent attention, expected heads = %lld "
			   "(keys and values are up-projected per head)",
			   (long long)m->kv_heads, (long long)m->heads);
	if (m->kv_lora_rank > 0 && m->qk_rope_head_dim >= m->head_dim)
		return bad(m, TS_MK_QK_ROPE_HEAD_DIM, at, err, TS_EINVALID,
			   "found %lld, expected less than head_dim = %lld (the rotary part of "
			   "a query/key head)",
			   (long long)m->qk_rope_head_dim, (long long)m->head_dim);
	if (m->kv_lora_rank > 0 && (m->parallel_block || m->family == TS_FAMILY_BERT))
		return bad(m, TS_MK_KV_LORA_RANK, at, err, TS_EINVALID,
			   "found multi-head latent attention with a parallel block or in a bert "
			   "model, expected a sequential gpt or llama block",
			   0, 0);
	if (m->num_experts > 0 && m->dense_layers >= m->layers)
		return bad(m, TS_MK_DENSE_LAYERS, at, err, TS_EINVALID,
			   "found %lld, expected fewer than layers = %lld (at least one MoE layer)",
			   (long long)m->dense_layers, (long long)m->layers);
	if (m->mtp_depth > 0 && m->family == TS_FAMILY_BERT)
		return bad(m, TS_MK_MTP_DEPTH, at, err, TS_EINVALID,
			   "found %lld in a bert model, expected 0 (multi-token prediction is a "
			   "decoder's)",
			   (long long)m->mtp_depth, 0);
	if ((unsigned)m->family >= TS_FAMILY_COUNT_ || (unsigned)m->activation >= TS_ACT_COUNT_ ||
	    (unsigned)m->norm >= TS_NORM_COUNT_ || (unsigned)m->position >= TS_POS_COUNT_)
		return bad(m, TS_MK_FAMILY, at, err, TS_EINVALID,
			   "found an out-of-range enumeration value", 0, 0);
	return 0;
}

int ts_model_validate(const struct ts_model *m, struct ts_error *err)
{
	const struct at at = {NULL, 0, ""};
	return validate(m, &at, err);
}

static void raw_init(struct raw *r, const char *file, int line, const char *prefix)
{
	memset(r, 0, sizeof *r);
	copy(r->file, sizeof r->file, file);
	r->line = line;
	r->prefix = prefix;
}

static int model_load(const char *root, const char *name, struct ts_model *out,
		      struct ts_error *err)
{
	struct raw r;
	raw_init(&r, "", 0, "");
	int rc = load_file(root, name ? name : "", &r, 0, NULL, 0, "model", err);
	if (rc)
		return rc;
	/* Missing keys are reported against the model file. */
	char path[4096];
	if (is_hf(name))
		copy(path, sizeof path, name + 3);
	else if (is_path(name))
		copy(path, sizeof path, name);
	else
		snprintf(path, sizeof path, "%s/models/%s.cfg", root ? root : ".", name);
	copy(r.file, sizeof r.file, path);
	const struct at at = {NULL, 0, ""};
	if ((rc = finish(&r, err)) || (rc = validate(&r.m, &at, err)))
		return rc;
	*out = r.m;
	return 0;
}

static int model_from_setting(const char *root, const void *setting, const char *file,
			      const char *key, struct ts_model *out, struct ts_error *err)
{
	const config_setting_t *g = setting;
	char prefix[160];
	snprintf(prefix, sizeof prefix, "%s%s", key && *key ? key : "", key && *key ? "." : "");
	char f[200];
	int line;
	cfg_where(g, file, f, sizeof f, &line);
	struct raw r;
	raw_init(&r, f, line, prefix);
	int rc = apply_group(root, g, file, prefix, &r, 0, err);
	if (rc)
		return rc;
	if (!config_setting_get_member(g, "name")) {
		/* Unnamed inline model: say what it started from. */
		const config_setting_t *b = config_setting_get_member(g, "base");
		if (!b)
			b = config_setting_get_member(g, "hf_config");
		char nm[sizeof r.m.name];
		snprintf(nm, sizeof nm, "%.50s%s", b ? r.m.name : "custom", b ? " (modified)" : "");
		copy(r.m.name, sizeof r.m.name, nm);
		copy(r.m.origin[TS_MK_NAME].file, sizeof r.m.origin[0].file, f);
		r.m.origin[TS_MK_NAME].line = line;
		r.m.origin[TS_MK_NAME].note = "inline model";
	}
	const struct at at = {f, line, prefix};
	if ((rc = finish(&r, err)) || (rc = validate(&r.m, &at, err)))
		return rc;
	*out = r.m;
	return 0;
}

int ts_model_load(const char *root, const char *name, struct ts_model *out, struct ts_error *err)
{
	return model_load(root, name, out, err);
}

int ts_model_from_setting(const char *root, const void *setting, const char *file, const char *key,
			  struct ts_model *out, struct ts_error *err)
{
	return model_from_setting(root, setting, file, key, out, err);
}

/* ---- parameters -------------------------------------------------------- */

/* Parameters of one transformer block: `moe` with the model's experts (when
 * it has any), else a dense MLP of ffn_hidden; `active` counts the top_k
 * routed experts a token uses instead of all of them. */
static double layer_params(const struct ts_model *m, bool moe, bool active)
{
	double h = (double)m->hidden, H = (double)m->heads, d = (double)m->head_dim;
	double a = H * d, k = (double)(m->kv_heads * m->head_dim), f = (double)m->ffn_hidden;
	double b = m->bias ? 1.0 : 0.0;
	double w = m->norm == TS_NORM_LAYERNORM ? 2.0 : 1.0; /* norm parameters per element */
	double attn;
	if (m->kv_lora_rank > 0) {
		double c = (double)m->kv_lora_rank, cq = (double)m->q_lora_rank;
		double r = (double)m->qk_rope_head_dim, dv = (double)m->v_head_dim;
		double q = cq > 0.0 ? h * cq + b * cq + w * cq + cq * a + b * a : h * a + b * a;
		double kv =
		    h * (c + r) + b * (c + r) + w * c + c * H * (d - r + dv) + b * H * (d - r + dv);
		attn = q + kv + H * dv * h + b * h;
	} else {
		attn = h * (a + 2.0 * k) + b * (a + 2.0 * k) + a * h + b * h;
	}
	bool swiglu = m->activation == TS_ACT_SWIGLU;
	double mlp;
	if (moe && m->num_experts > 0) {
		double fe = (double)m->moe_ffn_hidden;
		double one =
		    swiglu ? 3.0 * h * fe + b * (2.0 * fe + h) : 2.0 * h * fe + b * (fe + h);
		double routed = active ? (double)m->top_k : (double)m->num_experts;
		mlp = (routed + (double)m->shared_experts) * one + h * (double)m->num_experts;
	} else {
		mlp = swiglu ? 3.0 * h * f + b * (2.0 * f + h) : 2.0 * h * f + b * (f + h);
	}
	double norms = m->parallel_block ? (double)m->parallel_norms : 2.0;
	return attn + mlp + norms * w * h;
}

double ts_model_mtp_params(const struct ts_model *m)
{
	if (m->family == TS_FAMILY_LAYERS || m->mtp_depth <= 0)
		return 0.0;
	double h = (double)m->hidden, w = m->norm == TS_NORM_LAYERNORM ? 2.0 : 1.0;
	/* the block; norms of the hidden state and of the next token's
	 * embedding; the 2h x h projection; the norm before the shared head */
	return (double)m->mtp_depth * (layer_params(m, true, false) + 3.0 * w * h + 2.0 * h * h);
}

/* The parameters of the main model: `active` as ts_model_active_params. */
static double main_params(const struct ts_model *m, bool active)
{
	double h = (double)m->hidden, V = (double)m->vocab;
	double norm = m->norm == TS_NORM_LAYERNORM ? 2.0 * h : h;
	double D = m->num_experts > 0 ? (double)m->dense_layers : 0.0;
	double L = (double)m->layers;
	double layers =
	    D * layer_params(m, false, active) + (L - D) * layer_params(m, true, active);

	double once = V * h + norm;
	if (m->position == TS_POS_LEARNED)
		once += (double)m->seq_len * h;
	if (!m->tied_embeddings)
		once += V * h;
	if (m->family == TS_FAMILY_BERT)
		once += 2.0 * h			  /* token-type embeddings */
			+ h * h + h		  /* pooler */
			+ h * h + h + 2.0 * h + V /* MLM transform, its norm, output bias */
			+ 2.0 * h + 2.0;	  /* next-sentence head */
	return layers + once;
}

double ts_model_params(const struct ts_model *m)
{
	if (m->family == TS_FAMILY_LAYERS)
		return work_lnet_params(m);
	return main_params(m, false) + ts_model_mtp_params(m);
}

double ts_model_active_params(const struct ts_model *m)
{
	if (m->family == TS_FAMILY_LAYERS)
		return work_lnet_params(m);
	return main_params(m, true);
}

/* ---- dump --------------------------------------------------------------- */

int ts_model_dump(const struct ts_model *m, const char *prefix, FILE *out)
{
	for (int k = 0; k < TS_MK_COUNT_; k++) {
		char v[600], o[260];
		if (k >= TS_MK_NUM_EXPERTS && k <= TS_MK_CAPACITY_FACTOR && m->num_experts == 0)
			continue; /* dense models print no MoE keys */
		if ((k == TS_MK_PARALLEL_BLOCK || k == TS_MK_PARALLEL_NORMS) && !m->parallel_block)
			continue; /* nor sequential blocks the parallel ones */
		if (k >= TS_MK_KV_LORA_RANK && k <= TS_MK_V_HEAD_DIM && m->kv_lora_rank == 0)
			continue; /* nor standard attention the latent one's */
		if (k >= TS_MK_MOE_FFN_HIDDEN && k <= TS_MK_DENSE_LAYERS && m->num_experts == 0)
			continue;
		if (k == TS_MK_MTP_DEPTH && m->mtp_depth == 0)
			continue;
		switch ((enum ts_model_key)k) {
		case TS_MK_NAME:
			snprintf(v, sizeof v, "\"%s\"", m->name);
			break;
		case TS_MK_SOURCE:
			snprintf(v, sizeof v, "\"%s\"", m->source);
			break;
		case TS_MK_FAMILY:
			snprintf(v, sizeof v, "\"%s\"", ts_model_family_name(m->family));
			break;
		case TS_MK_ACTIVATION:
			snprintf(v, sizeof v, "\"%s\"", ts_model_activation_name(m->activation));
			break;
		case TS_MK_NORM:
			snprintf(v, sizeof v, "\"%s\"", ts_model_norm_name(m->norm));
			break;
		case TS_MK_POSITION:
			snprintf(v, sizeof v, "\"%s\"", ts_model_position_name(m->position));
			break;
		case TS_MK_TIED_EMBEDDINGS:
			snprintf(v, sizeof v, "%s", m->tied_embeddings ? "true" : "false");
			break;
		case TS_MK_BIAS:
			snprintf(v, sizeof v, "%s", m->bias ? "true" : "false");
			break;
		case TS_MK_LAYERS:
			snprintf(v, sizeof v, "%lld", (long long)m->layers);
			break;
		case TS_MK_HIDDEN:
			snprintf(v, sizeof v, "%lld", (long long)m->hidden);
			break;
		case TS_MK_HEADS:
			snprintf(v, sizeof v, "%lld", (long long)m->heads);
			break;
		case TS_MK_KV_HEADS:
			snprintf(v, sizeof v, "%lld", (long long)m->kv_heads);
			break;
		case TS_MK_HEAD_DIM:
			snprintf(v, sizeof v, "%lld", (long long)m->head_dim);
			break;
		case TS_MK_FFN_HIDDEN:
			snprintf(v, sizeof v, "%lld", (long long)m->ffn_hidden);
			break;
		case TS_MK_VOCAB:
			snprintf(v, sizeof v, "%lld", (long long)m->vocab);
			break;
		case TS_MK_SEQ_LEN:
			snprintf(v, sizeof v, "%lld", (long long)m->seq_len);
			break;
		case TS_MK_NUM_EXPERTS:
			snprintf(v, sizeof v, "%lld", (long long)m->num_experts);
			break;
		case TS_MK_TOP_K:
			snprintf(v, sizeof v, "%lld", (long long)m->top_k);
			break;
		case TS_MK_CAPACITY_FACTOR:
			snprintf(v, sizeof v, "%g", m->capacity_factor);
			break;
		case TS_MK_PARALLEL_BLOCK:
			snprintf(v, sizeof v, "%s", m->parallel_block ? "true" : "false");
			break;
		case TS_MK_PARALLEL_NORMS:
			snprintf(v, sizeof v, "%lld", (long long)m->parallel_norms);
			break;
		case TS_MK_KV_LORA_RANK:
		case TS_MK_Q_LORA_RANK:
		case TS_MK_QK_ROPE_HEAD_DIM:
		case TS_MK_V_HEAD_DIM:
		case TS_MK_MOE_FFN_HIDDEN:
		case TS_MK_SHARED_EXPERTS:
		case TS_MK_DENSE_LAYERS:
		case TS_MK_MTP_DEPTH: {
			const int64_t *x[] = {&m->kv_lora_rank,	    &m->q_lora_rank,
					      &m->qk_rope_head_dim, &m->v_head_dim,
					      &m->moe_ffn_hidden,   &m->shared_experts,
					      &m->dense_layers,	    &m->mtp_depth};
			snprintf(v, sizeof v, "%lld", (long long)*x[k - TS_MK_KV_LORA_RANK]);
			break;
		}
		default:
			v[0] = '\0';
			break;
		}
		const struct ts_model_origin *og = &m->origin[k];
		if (og->file[0] && og->line > 0)
			snprintf(o, sizeof o, "%s:%d%s%s", og->file, og->line, og->note ? ", " : "",
				 og->note ? og->note : "");
		else if (og->file[0])
			snprintf(o, sizeof o, "%s%s%s", og->file, og->note ? ", " : "",
				 og->note ? og->note : "");
		else
			snprintf(o, sizeof o, "default%s%s", og->note ? ": " : "",
				 og->note ? og->note : "");
		if (fprintf(out, "%s%s = %s  # %s\n", prefix ? prefix : "", key_names[k], v, o) < 0)
			return TS_EIO;
	}
	double p = ts_model_params(m);
	if (fprintf(out, "%sparameters = %.0f  # derived from the dimensions (%.3g)\n",
		    prefix ? prefix : "", p, p) < 0)
		return TS_EIO;
	return 0;
}
