/* Layer-list models (family = "layers"): CNNs, vision transformers and
 * detectors as a list of convolutions, norms, pools, linear layers and
 * blocks, from which parameters, FLOPs, activation bytes and ops follow.
 * SPDX-License-Identifier: MIT */
#ifndef TS_WORK_LNET_H
#define TS_WORK_LNET_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "work/compute.h"
#include "work/model.h"
#include "work/ops.h"

/* Parse `input = { channels; height; width; }` and `layer_list = ( ... )` of
 * model group `setting` (a config_setting_t *, as void * to keep libconfig
 * out of this header) of `file` into m->in_* and m->lnet. Entries:
 *   { op = "conv"; out = 64; kernel = 7; stride = 2; }   same padding
 *   { op = "bn"; }  { op = "relu"; }  { op = "layernorm"; }
 *   { op = "maxpool"; kernel = 3; stride = 2; }  { op = "avgpool"; }  (global)
 *   { op = "linear"; out = 1000; }  (on the pooled features, or the class token)
 *   { op = "bottleneck"; mid = 64; out = 256; stride = 1; repeat = 3; }
 *   { op = "patch"; kernel = 16; out = 768; }  (ViT patches plus a class token)
 *   { op = "encoder"; heads = 12; mid = 3072; repeat = 12; }
 * and a diffusion transformer (DiT, Peebles and Xie 2023):
 *   { op = "latent_patch"; kernel = 2; out = 1152; }  (no class token; fixed positions)
 *   { op = "dit_cond"; out = 1001; mid = 256; }  (class rows; timestep frequencies)
 *   { op = "dit"; heads = 16; mid = 4608; repeat = 28; }  (adaLN-Zero blocks)
 *   { op = "dit_final"; kernel = 2; out = 8; }  (back to an image of 8 channels)
 * a speech model (Conformer, Gulati et al. 2020) over frames x mel bins:
 *   { op = "tokens"; out = 512; }  (rows as tokens: a linear of channels x width)
 *   { op = "conformer"; heads = 8; mid = 2048; kernel = 32; repeat = 17; }
 *   { op = "transducer"; out = 1024; mid = 640; labels = 48; }  (RNN-T decoder and loss)
 * and CLIP (Radford et al. 2021) after an image tower:
 *   { op = "text"; out = 49408; context = 77; width = 768; heads = 12; mid = 3072;
 *     repeat = 12; }
 *   { op = "contrastive"; out = 768; }  (projections, DP all-gather, logits, loss)
 * and a diffusion UNet (SDXL, Podell et al. 2023) over latents:
 *   { op = "unet_in"; out = 320; }  { op = "unet_cond"; out = 1280; mid = 320; width = 2816; }
 *   { op = "res"; out = 640; }  { op = "push"; }  { op = "down"; }  { op = "up"; }
 *   { op = "xattn"; heads = 10; repeat = 2; width = 2048; context = 77; }
 *   { op = "res_cat"; out = 640; }  (with the last skip pushed)  { op = "unet_out"; out = 4; }
 * Returns 0 or TS_ETYPE, TS_ERANGE, TS_EUNKNOWN_KEY, TS_EUNKNOWN_NAME,
 * TS_EINVALID (an entry that does not fit the shape before it) or
 * TS_ELIMIT (more than TS_MAX_LAYER_ENTRIES), with `err` naming file, line
 * and key. */
int work_lnet_parse(const void *setting, const char *file, const char *prefix, struct ts_model *m,
		    struct ts_error *err);

/* Read `memory_format` ("nhwc" | "nchw") of model group `setting` (as for
 * work_lnet_parse) into m->lnet_nchw; absent leaves it as it is (false,
 * channels-last, unless a base model said otherwise). It tells how the
 * activations of a layer-list model lie in memory: cuDNN's tensor-core
 * convolutions work on NHWC and transpose NCHW tensors in and out around
 * each call (NVIDIA, "Convolutional Layers User's Guide", section Tensor
 * Layout: docs.nvidia.com/deeplearning/performance/dl-performance-
 * convolutional); PyTorch keeps NCHW unless the model is converted to
 * channels_last. Returns 0 or TS_ETYPE / TS_EUNKNOWN_NAME with `err` naming
 * file, line and key. */
int work_lnet_parse_layout(const void *setting, const char *file, const char *prefix,
			   struct ts_model *m, struct ts_error *err);

/* Parameters of a layer-list model: conv C_in·k²·C_out (no bias, followed
 * by batch norm), batch norm 2C, linear F·out + out, patch embedding
 * p²·C·D + D plus (T+1)·D positions and a class token D, encoder block
 * 4D² + 4D (QKV, projection) + 2·D·f + f + D (MLP) + 4D (two LayerNorms),
 * layernorm 2D; latent patch p²·C·D + D; DiT conditioning f·D + D + D² + D
 * + classes·D, block 4D² + 4D + 2·D·f + f + D + 6D² + 6D (norms without
 * parameters), final layer 2D² + 2D + D·p²·out + p²·out. ResNet-50 gives
 * 25.6 M, ViT-B/16 86.6 M and DiT-XL/2 674.8 M, the published counts
 * (tests/check_loader.c). */
double work_lnet_params(const struct ts_model *m);

/* Forward FLOPs of one sample (2 per multiply-add; convolutions and linear
 * layers as GEMMs, attention 4·T²·D per encoder block). */
double work_lnet_fwd_flops(const struct ts_model *m);

/* One op of a layer-list model with the index of the layer-list block it
 * belongs to (for layer-granularity units). */
struct work_lnet_op {
	struct work_op_cost c;
	uint32_t block;		/* index of the entry (and repeat) it comes from */
	double shared_in_bytes; /* bytes of its input that the op before it already
				 * saves (an in-place ReLU's output) and that it
				 * therefore does not count in c.op.saved_bytes */
	double transpose_bytes; /* NCHW <-> NHWC copies around a tensor-core
				 * convolution in each phase it runs, bytes; 0
				 * for NHWC, fp32 and non-convolutions */
};

/* The ops of one micro-batch of `micro_batch` samples (a contrastive loss:
 * against the micro_batch x dp samples of the dp data-parallel ranks) at
 * precision d with
 * their times on GPU g (work_op_time), in forward order, into a new array
 * *ops of *n (free with ts_free(*ops, *n * sizeof **ops)). Convolutions are
 * implicit GEMMs, M = batch·H_out·W_out, N = C_out, K = C_in·k², timed with
 * work_gemm_eff; fp32 runs on the CUDA cores (the catalog's fp32 peak is
 * the non-tensor one), where the tensor-core factors do not apply: no
 * tc_sustain, and K0 (work_gemm_k0) at the CUDA cores' rate and 4-byte
 * outputs.
 * With m->lnet_nchw, a convolution at a tensor-core precision also reads
 * and writes its two activation operands once more in each phase
 * (forward: input in, output back; dgrad: dY in, dX back; wgrad: X and dY
 * in), 2·(in + out) elements at achievable HBM bandwidth and two more
 * kernels per phase. Norms, activations, pools and residual adds are
 * memory-bound (bytes at achievable HBM bandwidth: batch norm reads its
 * input twice and writes once forward, reads input and gradient twice and
 * writes once backward); attention is flash for fp16/bf16, unfused
 * otherwise. The first convolution computes no input gradient. Saved
 * bytes are each op's input at activation precision. Returns 0, TS_ENOMEM,
 * or TS_EUNSUPPORTED when g lacks dtype d. */
int work_lnet_ops(const struct ts_model *m, int64_t micro_batch, int64_t dp, enum ts_dtype d,
		  const struct hw_gpu_type *g, const struct work_calib *c,
		  struct work_lnet_op **ops, size_t *n, struct ts_error *err);

#endif
