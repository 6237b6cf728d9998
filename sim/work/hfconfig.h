/* Transformer dimensions from a Hugging Face `config.json` (the file
 * `transformers` saves beside a checkpoint), mapped onto struct ts_model.
 * SPDX-License-Identifier: MIT */
#ifndef TS_WORK_HFCONFIG_H
#define TS_WORK_HFCONFIG_H

#include <stdint.h>

#include "base/err.h"
#include "work/model.h"

/* Read the Hugging Face config.json at `path` (a file path, used as is) with
 * jansson and set the model keys it determines in *m, setting bit k of
 * *given for every key k it set (enum ts_model_key) and recording each key's
 * origin as `path` with a note naming the JSON key it came from. Keys it
 * does not set are left as they are, so the caller (ts_model_load, or an
 * inline group with `base = "hf:PATH"`) derives and validates the rest.
 *
 * `model_type` selects the mapping (sim/README.md, "Models", lists it key
 * by key): llama, mistral, qwen2 (hidden_size, num_hidden_layers,
 * num_attention_heads, num_key_value_heads, head_dim, intermediate_size,
 * vocab_size, max_position_embeddings, tie_word_embeddings, hidden_act);
 * mixtral (those and num_local_experts, num_experts_per_tok); gpt2 (n_embd,
 * n_layer, n_head, n_positions, n_inner, activation_function); gpt_neox
 * (use_parallel_residual, rotary_pct, attention_bias); falcon (also its
 * older names RefinedWebModel and RefinedWeb: parallel_attn,
 * new_decoder_architecture, multi_query, num_kv_heads,
 * num_ln_in_parallel_attn, alibi, bias, ffn_hidden_size); bert
 * (type_vocab_size must be 2, absolute positions); bloom (ALiBi). What a
 * family has that trainsim does not count (Qwen2's q/k/v biases, Mistral's
 * sliding window, BLOOM's embedding LayerNorm) is named in m->source after
 * "not modelled:". Encoder-decoder models (t5, mt5, bart, or any config
 * with is_encoder_decoder true) are refused: a ts_model is one stack of
 * identical blocks and cannot describe an encoder, a decoder and the
 * cross-attention between them.
 *
 * Returns 0, or TS_EIO (unreadable file), TS_ELIMIT (file too large),
 * TS_ESYNTAX (not JSON: line and column of jansson's message; or not an
 * object), TS_ETYPE / TS_ERANGE (a key of the wrong type or value: `err`
 * names the file, the JSON key, what was found and what was expected),
 * TS_EINVALID (a required key missing), TS_EUNSUPPORTED (an unknown or
 * encoder-decoder model_type, or a setting trainsim cannot count), or
 * TS_ENOMEM; `err` (which may be NULL) filled. *m may be partly written on
 * error. */
int work_hf_read(const char *path, struct ts_model *m, unsigned *given, struct ts_error *err);

#endif
