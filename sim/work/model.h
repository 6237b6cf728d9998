/* Transformer model descriptions: the dimensions of a GPT, Llama or BERT
 * model, loaded from models/NAME.cfg or an inline libconfig group, validated,
 * and the parameter count they imply.
 * SPDX-License-Identifier: MIT */
#ifndef TS_WORK_MODEL_H
#define TS_WORK_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

/* gpt | llama | bert: transformers from their dimensions; layers: a layer
 * list (sim/work/lnet.h), for CNNs, ViTs and detectors. */
enum ts_model_family {
	TS_FAMILY_GPT,
	TS_FAMILY_LLAMA,
	TS_FAMILY_BERT,
	TS_FAMILY_LAYERS,
	TS_FAMILY_COUNT_
};

/* Entries of a layer list (sim/work/lnet.h describes each). */
enum ts_layer_op {
	TS_LOP_CONV,	   /* convolution: out channels, kernel, stride */
	TS_LOP_BN,	   /* batch normalisation */
	TS_LOP_RELU,	   /* ReLU */
	TS_LOP_MAXPOOL,	   /* max pooling: kernel, stride */
	TS_LOP_AVGPOOL,	   /* global average pooling */
	TS_LOP_LINEAR,	   /* fully connected: out features */
	TS_LOP_BOTTLENECK, /* ResNet v1.5 bottleneck blocks: mid, out, stride, repeat */
	TS_LOP_PATCH,	   /* ViT patch embedding: kernel (patch), out (width), class token */
	TS_LOP_ENCODER,	   /* pre-LN transformer encoder blocks: heads, mid (MLP), repeat */
	TS_LOP_LAYERNORM,  /* layer normalisation */
	/* diffusion transformers (DiT: Peebles and Xie 2023) */
	TS_LOP_LATENT_PATCH, /* patches of a latent: kernel (patch), out (width); no class
			      * token, fixed sine-cosine positions */
	TS_LOP_DIT_COND,     /* timestep MLP from a mid-wide frequency embedding and a
			      * table of out class rows: the conditioning c */
	TS_LOP_DIT,	     /* DiT blocks with adaLN-Zero: heads, mid (MLP), repeat */
	TS_LOP_DIT_FINAL,    /* adaLN, norm and a linear to kernel² x out per token, back
			      * to an image of out channels */
	/* speech (Conformer: Gulati et al. 2020) */
	TS_LOP_TOKENS,	   /* an image's rows as tokens: a linear of channels x width to out */
	TS_LOP_CONFORMER,  /* Conformer blocks: heads, mid (FFN), kernel (depthwise conv), repeat */
	TS_LOP_TRANSDUCER, /* RNN-T prediction network (one LSTM of mid) and joint network over
			    * every (frame, label) pair: out (vocabulary), labels per sample */
	/* contrastive image-text models (CLIP: Radford et al. 2021) */
	TS_LOP_TEXT,	    /* a text tower: out (vocabulary), context tokens, width, heads,
			     * mid (MLP), repeat (blocks); causal pre-LN blocks, final norm */
	TS_LOP_CONTRASTIVE, /* both towers' projections to out, the all-gather over DP and
			     * the logits of each rank's pairs against the whole batch */
	/* diffusion UNets (SDXL: Podell et al. 2023) */
	TS_LOP_UNET_IN,	  /* 3x3 convolution with bias to out channels, kept for a skip */
	TS_LOP_UNET_COND, /* time embedding (mid frequencies) and added conditioning (width)
			   * MLPs to out: the embedding every res block takes */
	TS_LOP_RES,	  /* ResNet block to out channels */
	TS_LOP_RES_CAT,	  /* ResNet block of the input and the last skip, concatenated */
	TS_LOP_XATTN,	  /* a transformer of repeat blocks: self- and cross-attention (heads;
			   * context tokens of width), GEGLU */
	TS_LOP_PUSH,	  /* keep the current activation for a skip */
	TS_LOP_DOWN,	  /* 3x3 convolution of stride 2 */
	TS_LOP_UP,	  /* nearest upsampling x2 and a 3x3 convolution */
	TS_LOP_UNET_OUT,  /* GroupNorm, SiLU, 3x3 convolution to out channels */
	TS_LOP_COUNT_
};

/* One entry of a layer list. Plain record; unused fields are 0. */
struct ts_layer {
	enum ts_layer_op op;
	int32_t out;	 /* output channels or features */
	int32_t mid;	 /* bottleneck inner width; encoder MLP width */
	int32_t kernel;	 /* square kernel (patch size for patch) */
	int32_t stride;	 /* stride (bottleneck: of its first block's 3x3 conv) */
	int32_t heads;	 /* encoder attention heads */
	int32_t repeat;	 /* blocks (bottleneck, encoder); 1 otherwise */
	int32_t labels;	 /* transducer: output labels per sample */
	int32_t width;	 /* text tower width */
	int32_t context; /* text tower tokens per sample */
	int line;	 /* line of the entry in its file, for messages */
};

/* Most entries of a layer list (blocks repeat, so a ResNet-50 takes 11). */
#define TS_MAX_LAYER_ENTRIES 64
enum ts_activation { TS_ACT_GELU, TS_ACT_SWIGLU, TS_ACT_COUNT_ };
enum ts_norm { TS_NORM_LAYERNORM, TS_NORM_RMSNORM, TS_NORM_COUNT_ };
/* learned: a seq_len x h table; rope: rotary (Su et al. 2021), no
 * parameters; alibi: a per-head linear bias added to the attention scores
 * (Press et al. 2022, https://arxiv.org/abs/2108.12409), no parameters and
 * no rotary kernel (flash attention applies the bias inside its kernel). */
enum ts_position { TS_POS_LEARNED, TS_POS_ROPE, TS_POS_ALIBI, TS_POS_COUNT_ };

/* The keys of a model description, in the order --dump-config prints them. */
enum ts_model_key {
	TS_MK_NAME,
	TS_MK_FAMILY,
	TS_MK_LAYERS,
	TS_MK_HIDDEN,
	TS_MK_HEADS,
	TS_MK_KV_HEADS,
	TS_MK_HEAD_DIM,
	TS_MK_FFN_HIDDEN,
	TS_MK_VOCAB,
	TS_MK_SEQ_LEN,
	TS_MK_ACTIVATION,
	TS_MK_NORM,
	TS_MK_POSITION,
	TS_MK_TIED_EMBEDDINGS,
	TS_MK_BIAS,
	TS_MK_SOURCE,
	TS_MK_NUM_EXPERTS, /* mixture of experts (printed only when num_experts > 0) */
	TS_MK_TOP_K,
	TS_MK_CAPACITY_FACTOR,
	TS_MK_PARALLEL_BLOCK, /* printed only when parallel_block is true */
	TS_MK_PARALLEL_NORMS,
	TS_MK_KV_LORA_RANK, /* multi-head latent attention (printed only with kv_lora_rank > 0) */
	TS_MK_Q_LORA_RANK,
	TS_MK_QK_ROPE_HEAD_DIM,
	TS_MK_V_HEAD_DIM,
	TS_MK_MOE_FFN_HIDDEN, /* fine-grained experts (printed only with num_experts > 0) */
	TS_MK_SHARED_EXPERTS,
	TS_MK_DENSE_LAYERS,
	TS_MK_MTP_DEPTH, /* multi-token prediction (printed only when > 0) */
	TS_MK_COUNT_
};

/* Where one value of a model came from: a file and line ("file:line"), a
 * label such as "--set model.layers=24" (line 0), or neither (a default or a
 * value derived from others, explained by `note`). */
struct ts_model_origin {
	char file[200];	  /* file path or label; "" for defaults */
	int line;	  /* 1-based line in file; 0 when not from a file line */
	const char *note; /* static text for defaults ("hidden / heads"), or NULL */
};

/* A transformer model. Plain record; sizes are element counts. */
struct ts_model {
	char name[64];		     /* "llama2-7b" (file name without .cfg, or given) */
	enum ts_model_family family; /* gpt | llama | bert: bias and head conventions */
	int64_t layers;		     /* transformer blocks */
	int64_t hidden;		     /* model width h, elements per token */
	int64_t heads;		     /* query heads */
	int64_t kv_heads;	     /* key/value heads (GQA/MQA); default heads */
	int64_t head_dim;	     /* elements per head; default hidden / heads */
	int64_t ffn_hidden; /* MLP inner width f; default 4h for gelu, explicit for swiglu */
	int64_t vocab;	    /* vocabulary size V, tokens */
	int64_t seq_len;    /* context length the model was trained with, tokens */
	enum ts_activation activation; /* gelu (2 MLP matrices) | swiglu (3) */
	enum ts_norm norm;	       /* layernorm (weight + bias) | rmsnorm (weight) */
	enum ts_position position;     /* learned (a seq_len x h table) | rope (no parameters) */
	bool tied_embeddings;	       /* output layer shares the input embedding matrix */
	bool bias;		       /* linear layers carry biases (gpt, bert: yes; llama: no) */
	char source[512];	       /* citation (paper or model card, with URL) */
	/* Mixture of experts (a GShard/Switch-style MoE MLP in every layer):
	 * num_experts expert MLPs of ffn_hidden each, a router of h x num_experts,
	 * each token sent to top_k experts; an expert takes at most
	 * capacity_factor x tokens x top_k / num_experts tokens (1.0 = balanced,
	 * no drops). num_experts 0 = a dense MLP (top_k and capacity_factor 0). */
	int64_t num_experts;
	int64_t top_k;		/* default 2 with experts */
	double capacity_factor; /* default 1.0 with experts, > 0 */
	/* Parallel attention and MLP (GPT-J, GPT-NeoX, PaLM, Falcon): both read
	 * the block input and their outputs are added to it, x + attn(n(x)) +
	 * mlp(n'(x)), instead of x' = x + attn(n(x)), x' + mlp(n(x')).
	 * parallel_norms: LayerNorms per block, 1 when both share one (GPT-J,
	 * PaLM, Falcon-7B) or 2 (GPT-NeoX, Falcon-40B); default 1. A sequential
	 * block has 2 norms and parallel_norms 0. */
	bool parallel_block;
	int64_t parallel_norms;
	/* Multi-head latent attention (DeepSeek-V2, https://arxiv.org/abs/2405.04434,
	 * section 2.1; DeepSeek-V3, https://arxiv.org/abs/2412.19437, section
	 * 2.1.1): keys and values are up-projected per head from a shared
	 * latent of kv_lora_rank elements per token (after an RMSNorm), queries
	 * from one of q_lora_rank (0: projected from h directly); of the
	 * head_dim elements of a query/key head, qk_rope_head_dim carry the
	 * rotary position (the key's part from h, shared by all heads); values
	 * have v_head_dim. kv_lora_rank 0 = standard attention (the other three
	 * 0; v_head_dim is then head_dim). kv_heads = heads with it. */
	int64_t kv_lora_rank;
	int64_t q_lora_rank;
	int64_t qk_rope_head_dim;
	int64_t v_head_dim;
	/* DeepSeekMoE (Dai et al. 2024, https://arxiv.org/abs/2401.06066;
	 * DeepSeek-V3 section 2.1.2): experts of moe_ffn_hidden each (default
	 * ffn_hidden), shared_experts of them that every token passes through
	 * besides its top_k routed ones (default 0), and the first dense_layers
	 * layers with a dense MLP of ffn_hidden instead (default 0). */
	int64_t moe_ffn_hidden;
	int64_t shared_experts;
	int64_t dense_layers;
	/* Multi-token prediction (DeepSeek-V3 section 2.2): mtp_depth sequential
	 * modules, each two norms, a 2h x h projection and one transformer
	 * block (of the MoE kind), sharing the embedding and the output head;
	 * their loss is computed every step. Default 0. */
	int64_t mtp_depth;
	struct ts_model_origin origin[TS_MK_COUNT_]; /* provenance of each key */
	/* family "layers" only: the input (channels x height x width per
	 * sample) and the layer list; the transformer keys are then 1 */
	int32_t in_c, in_h, in_w;
	struct ts_layer lnet[TS_MAX_LAYER_ENTRIES];
	uint32_t nlnet;
	char sample_unit[16]; /* unit = "images": what one sample is (layer lists;
			       * "" = "samples"), for per-sample throughput and price */
	bool lnet_nchw;	      /* memory_format = "nchw": activations channels-first (PyTorch's
			       * default), not channels-last; see work_lnet_parse_layout */
};

/* Name of a key ("ffn_hidden") and of enum values ("swiglu"). */
const char *ts_model_key_name(enum ts_model_key k);
const char *ts_model_family_name(enum ts_model_family f);
const char *ts_model_activation_name(enum ts_activation a);
const char *ts_model_norm_name(enum ts_norm n);
const char *ts_model_position_name(enum ts_position p);

/* Load model `name` from ROOT/models/NAME.cfg, or from the file `name` when
 * it contains '/' or ends in ".cfg", or from the Hugging Face config.json
 * PATH when `name` is "hf:PATH" (sim/work/hfconfig.h; PATH is used as is).
 * A file may start from another model with `base = "NAME"` (at most 8
 * levels); "hf:PATH" there, and `hf_config = "PATH"`, are resolved relative
 * to the directory of the file that says it. Fills *out (derived defaults applied,
 * validated). Returns 0, or TS_EIO (missing file, or unknown name: the
 * message lists the closest names in models/, and code is then
 * TS_EUNKNOWN_NAME), TS_ESYNTAX, TS_EUNKNOWN_KEY, TS_ETYPE, TS_ERANGE,
 * TS_EINVALID, TS_ELIMIT or TS_ENOMEM with `err` filled (file, line, key,
 * found, expected). */
int ts_model_load(const char *root, const char *name, struct ts_model *out, struct ts_error *err);

/* Build a model from a parsed libconfig group `setting` (a
 * config_setting_t *, passed as void * to keep libconfig out of this header)
 * read from `file` (for messages and provenance). The group may hold
 * `base = "NAME"` (a model of ROOT/models/, or "hf:PATH") or
 * `hf_config = "PATH"` (a Hugging Face config.json, PATH relative to the
 * directory of `file`, the scenario's for --set, unless absolute) whose
 * keys it then overrides.
 * A setting whose libconfig hook is non-NULL is taken to carry a C string
 * label of where it came from ("--set model.layers=24"), used instead of
 * file:line in messages and provenance. `key` is the dotted path of the group
 * ("model") for messages. Same errors as ts_model_load. */
int ts_model_from_setting(const char *root, const void *setting, const char *file, const char *key,
			  struct ts_model *out, struct ts_error *err);

/* Check the dimensions: positive sizes within limits; heads divides hidden
 * unless head_dim is given; kv_heads divides heads; swiglu needs an explicit
 * ffn_hidden. Returns 0 or TS_ERANGE / TS_EINVALID with `err` naming the
 * file and line the offending key came from. */
int ts_model_validate(const struct ts_model *m, struct ts_error *err);

/* Total parameter count implied by the dimensions (a count, as a double so
 * that no size overflows). With h = hidden, a = heads * head_dim,
 * k = kv_heads * head_dim, f = ffn_hidden, V = vocab, L = layers, and
 * b = 1 when the model has biases (0 otherwise):
 *
 *   per layer  QKV          h*(a + 2k) + b*(a + 2k)
 *              output proj  a*h + b*h
 *              MLP          gelu: 2*h*f + b*(f + h); swiglu: 3*h*f + b*(2f + h)
 *              norms        2 per layer (parallel_norms with parallel_block):
 *                           layernorm 2h each, rmsnorm h each
 *   MoE        the MLP above times num_experts, plus the router h*num_experts
 *   once       embeddings   V*h, plus seq_len*h for learned positions
 *              final norm   one more norm (BERT's post-LN puts it on the
 *                           embeddings instead; the count is the same)
 *              output       V*h unless tied_embeddings
 *   bert only  token types  2h; pooler h*h + h; MLM head transform
 *              h*h + h + 2h and output bias V; NSP head 2h + 2 (the
 *              pre-training model, as BertForPreTraining counts it)
 *
 * With multi-head latent attention (kv_lora_rank = c > 0, q_lora_rank = cq,
 * rotary part r, value head dv, H heads of head_dim d) the attention is
 * cq > 0: h*cq + cq (norm) + cq*H*d, else h*H*d; h*(c + r) + c (norm)
 * + c*H*(d - r + dv); output H*dv*h (norm weights as the model's norm).
 * With moe_ffn_hidden, shared_experts S and dense_layers D, the L - D MoE
 * layers hold (E + S) experts of moe_ffn_hidden and the D others a dense
 * MLP of ffn_hidden. mtp_depth modules each add one MoE layer, two norms,
 * 2h*h and a norm before the shared head.
 *
 * Matches the published counts of GPT-3, Llama 2/3, BERT and DeepSeek-V3
 * (see tests/check_model.c for the figures and their sources). */
double ts_model_params(const struct ts_model *m);

/* The parameters of the mtp_depth multi-token prediction modules (part of
 * ts_model_params; 0 without them). */
double ts_model_mtp_params(const struct ts_model *m);

/* Parameters one token passes through: ts_model_params less the routed
 * experts it does not use (num_experts - top_k per MoE layer), less the
 * multi-token prediction modules (inference does not run them), with the
 * embedding and the output head. */
double ts_model_active_params(const struct ts_model *m);

/* Write the names of the models in ROOT/models/ (file names without .cfg,
 * sorted) to buf as "a, b, c" (size n), or the up-to-`max` names closest to
 * `near` when it is not NULL. Returns buf ("" when the directory is empty or
 * missing). */
char *ts_model_names(const char *root, const char *near, size_t max, char *buf, size_t n);

/* Print every key as "PREFIXkey = value  # origin" lines to `out`.
 * Returns 0, or TS_EIO when writing fails. */
int ts_model_dump(const struct ts_model *m, const char *prefix, FILE *out);

#endif
