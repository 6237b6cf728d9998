/* Tests of the input pipeline (sim/data/): decode-bound rates, workers
 * against cores, a shared file system's aggregate, the page cache, and the
 * ResNet-50 rows and data-loading field reports as validation cases.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "data/catalog.h"
#include "data/loader.h"
#include "hw/catalog.h"
#include "io/scenario.h"
#include "run/run.h"
#include "testutil.h"
#include "work/compute.h"
#include "work/lnet.h"

static struct hw_catalog *cat;
static struct work_calib calib;

static struct ts_result run_text(const char *text, const char *const *sets, size_t nsets)
{
	struct ts_scenario *sc;
	struct ts_error err;
	char buf[1400];
	if (ts_scenario_load_string(cat, text, "test", sets, nsets, &sc, &err))
		ck_abort_msg("scenario: %s", ts_error_format(&err, buf, sizeof buf));
	struct ts_result r;
	if (ts_run(sc, &calib, &r, NULL, &err))
		ck_abort_msg("run: %s", ts_error_format(&err, buf, sizeof buf));
	ts_scenario_destroy(sc);
	return r;
}

/* ResNet-50, batch 256 per GPU, fp16, ImageNet JPEGs decoded on the CPU at
 * 5 ms of one core per image (configs/datasets/imagenet-1k.cfg). */
static const char *rn50 = "model = \"resnet50\"; cluster = \"dgx-a100-80gb\";\n"
			  "training = { framework = \"ddp\"; micro_batch = 256; precision = "
			  "\"fp16\"; optimizer = \"sgd\"; };\n"
			  "data = { dataset = \"imagenet-1k\"; };\n";

/* One GPU with one worker: the worker decodes 1 / 5 ms = 200 images/s,
 * far below the A100's >2,000 images/s, so the run goes at 200 images/s
 * and is loader-bound on the decode stage. */
START_TEST(decode_rate_sets_the_pace)
{
	const char *sets[] = {"gpus_per_node=1", "data.workers_per_gpu=1"};
	struct ts_result r = run_text(rn50, sets, 2);
	printf("decode-bound: %.1f images/s (hand: 200), stall %.1f%%\n", r.samples_per_s,
	       100.0 * r.data_stall_s / r.iteration_time_s);
	ck_assert_msg(tu_relerr(r.samples_per_s, 200.0) < 0.01, "%g", r.samples_per_s);
	ck_assert(data_loader_bound(r.data_stall_s, r.iteration_time_s));
	ck_assert_msg(strstr(r.bottleneck, "decode") && strstr(r.bottleneck, "workers_per_gpu"),
		      "%s", r.bottleneck);
	/* and a synthetic run of the same model is not */
	const char *syn[] = {"gpus_per_node=1", "data.dataset=synthetic"};
	r = run_text(rn50, syn, 2);
	ck_assert(!data_loader_bound(r.data_stall_s, r.iteration_time_s));
	ck_assert(r.samples_per_s > 2000.0);
}
END_TEST

/* rtx4090-x4: 4 GPUs, 16 cores, of which 4 run the training processes and
 * 12 are left for workers. Workers per GPU 1, 2, 3 give 4 x w x 200 =
 * 800, 1,600, 2,400 images/s; at 4 and 8 the 12 cores are all used: 12 /
 * 5 ms = 2,400 images/s. */
START_TEST(workers_double_until_cores_run_out)
{
	static const struct {
		const char *w;
		double want;
	} c[] = {{"data.workers_per_gpu=1", 800.0},
		 {"data.workers_per_gpu=2", 1600.0},
		 {"data.workers_per_gpu=3", 2400.0},
		 {"data.workers_per_gpu=4", 2400.0},
		 {"data.workers_per_gpu=8", 2400.0}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		const char *sets[] = {"cluster=rtx4090-x4", c[i].w};
		struct ts_result r = run_text(rn50, sets, 2);
		printf("rtx4090-x4 %s: %.1f images/s (hand: %.0f)\n", c[i].w, r.samples_per_s,
		       c[i].want);
		ck_assert_msg(tu_relerr(r.samples_per_s, c[i].want) < 0.01, "%s: %g", c[i].w,
			      r.samples_per_s);
	}
}
END_TEST

/* NFS (1.25 GB/s aggregate) and ImageNet-21k (1.56 TB, larger than a node's
 * page cache) with DALI-like cheap decoding: 1.25e9 / 110e3 = 11,364
 * images/s in all whatever the node count, so each node gets 1/n of it. */
START_TEST(shared_fs_divides_its_aggregate)
{
	const char *text = "model = \"resnet50\"; cluster = \"dgx-a100-80gb\";\n"
			   "training = { framework = \"ddp\"; micro_batch = 256; precision = "
			   "\"fp16\"; optimizer = \"sgd\"; };\n"
			   "data = { dataset = \"imagenet-21k\"; storage = \"nfs\"; "
			   "workers_per_gpu = 12; };\n";
	double want = 1.25e9 / 110e3;
	for (int nodes = 1; nodes <= 4; nodes *= 2) {
		char set[32];
		snprintf(set, sizeof set, "nodes=%d", nodes);
		const char *sets[] = {set};
		struct ts_result r = run_text(text, sets, 1);
		printf("nfs, %d node(s): %.0f images/s in all, %.0f per node (hand: %.0f in "
		       "all)\n",
		       nodes, r.samples_per_s, r.samples_per_s / nodes, want);
		ck_assert_msg(tu_relerr(r.samples_per_s, want) < 0.02, "%d nodes: %g", nodes,
			      r.samples_per_s);
		ck_assert_msg(strstr(r.bottleneck, "read") && strstr(r.bottleneck, "storage"), "%s",
			      r.bottleneck);
	}
}
END_TEST

/* ImageNet-1k (141 GB) fits in 0.75 x 1 TB of a DGX A100's page cache: the
 * same NFS then no longer limits the run. */
START_TEST(page_cache_serves_a_dataset_that_fits)
{
	const char *text = "model = \"resnet50\"; cluster = \"dgx-a100-80gb\"; nodes = 2;\n"
			   "training = { framework = \"ddp\"; micro_batch = 256; precision = "
			   "\"fp16\"; optimizer = \"sgd\"; };\n"
			   "data = { dataset = \"imagenet-1k-dali\"; storage = \"nfs\"; };\n";
	struct ts_result r = run_text(text, NULL, 0);
	printf("nfs with page cache, 2 nodes: %.0f images/s\n", r.samples_per_s);
	ck_assert(r.samples_per_s > 2.0 * 1.25e9 / 110e3);
	ck_assert(!data_loader_bound(r.data_stall_s, r.iteration_time_s));
}
END_TEST

/* The default dataset of a transformer (c4-tokens) leaves a GPU-bound run
 * as fast as with no input pipeline: the loader runs ahead. */
START_TEST(tokens_do_not_slow_a_language_model)
{
	const char *text = "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\";\n"
			   "training = { global_batch = 64; micro_batch = 4; seq_len = 2048; };\n";
	struct ts_result r = run_text(text, NULL, 0);
	const char *syn[] = {"data.dataset=synthetic"};
	struct ts_result s = run_text(text, syn, 1);
	ck_assert_msg(tu_relerr(r.iteration_time_s, s.iteration_time_s) < 1e-6, "%g vs %g",
		      r.iteration_time_s, s.iteration_time_s);
	ck_assert(r.data_stall_s == 0.0);
}
END_TEST

START_TEST(catalog_and_errors)
{
	struct data_catalog *c;
	struct ts_error err;
	char buf[1400];
	ck_assert_int_eq(data_catalog_load(tu_root(), &c, &err), 0);
	const struct data_storage *s = data_catalog_find_storage(c, "local-nvme");
	ck_assert_ptr_nonnull(s);
	ck_assert(s->read_Bps == 7e9 && s->kind == DATA_STORAGE_LOCAL); /* hardware.md T2 */
	s = data_catalog_find_storage(c, "nfs");
	ck_assert(s && s->kind == DATA_STORAGE_SHARED && s->read_Bps == 1.25e9);
	for (size_t i = 0; i < data_catalog_nstorage(c); i++)
		ck_assert(strlen(data_catalog_storage(c, i)->source) > 20);
	data_catalog_destroy(c);
	struct data_dataset d;
	ck_assert_int_eq(data_dataset_load(tu_root(), "imagenet-1k", &d, &err), 0);
	ck_assert(d.samples == 1281167.0 && d.decode_core_s == 0.005);
	ck_assert_int_eq(data_dataset_load(tu_root(), "imagenet1k", &d, &err), TS_EUNKNOWN_NAME);
	ck_assert_msg(strstr(err.msg, "imagenet-1k"), "%s", err.msg);
	/* an unknown storage names the scenario key */
	struct ts_scenario *sc;
	const char *sets[] = {"data.storage=nvme"};
	ck_assert_int_eq(ts_scenario_load_string(cat, rn50, "t.cfg", sets, 1, &sc, &err), 0);
	struct ts_result r;
	ck_assert_int_eq(ts_run(sc, &calib, &r, NULL, &err), TS_EUNKNOWN_NAME);
	ts_error_format(&err, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "data.storage") && strstr(buf, "local-nvme"), "%s", buf);
	ts_scenario_destroy(sc);
}
END_TEST

/* Published parameter counts: ResNet-50 25,557,032 (torchvision's count of
 * He et al. 2016) and ViT-B/16 86,567,656 (Dosovitskiy et al. 2021, 86 M;
 * the timm count). */
START_TEST(layer_list_parameters)
{
	struct ts_model m;
	struct ts_error err;
	ck_assert_int_eq(ts_model_load(tu_root(), "resnet50", &m, &err), 0);
	ck_assert(ts_model_params(&m) == 25557032.0);
	/* 4.1 G multiply-adds forward (He et al. 2016, Table 1: 3.8e9 without
	 * the classifier and batch norm shortcut convs) */
	ck_assert(fabs(work_lnet_fwd_flops(&m) / 2.0 / 4.1e9 - 1.0) < 0.03);
	/* VGG-16: 138,357,544 (torchvision's vgg16, Simonyan & Zisserman 2015)
	 * less the 13 convolutions' biases, 2 x 64 + 2 x 128 + 3 x 256 + 6 x 512 =
	 * 4,224, which layer-list convolutions do not carry */
	ck_assert_int_eq(ts_model_load(tu_root(), "vgg16", &m, &err), 0);
	ck_assert_msg(ts_model_params(&m) == 138357544.0 - 4224.0, "%.0f", ts_model_params(&m));
	ck_assert_int_eq(ts_model_load(tu_root(), "vit-b16", &m, &err), 0);
	ck_assert(ts_model_params(&m) == 86567656.0);
	ck_assert_int_eq(ts_model_load(tu_root(), "lidar-det-1b", &m, &err), 0);
	ck_assert(ts_model_params(&m) > 0.9e9 && ts_model_params(&m) < 1.1e9);
}
END_TEST

/* DiT-XL/2 (Peebles and Xie 2023, https://arxiv.org/abs/2212.09748): 675 M
 * parameters and 118.6 Gflops per 256 x 256 image forward (Table 4; the
 * paper's "flops" are multiply-adds). By hand (D 1152, f 4608, 256 tokens):
 *   block    4D² + 4D + 2Df + f + D + 6D² + 6D          = 23,905,152  x 28
 *   patch    2·2·4·D + D = 19,584; timestep MLP 256·D + D + D² + D = 1,624,320
 *   classes  1001·D = 1,153,152; final 2D² + 2D + D·32 + 32 = 2,693,408
 *   total                                                = 674,834,720
 * multiply-adds per block 12·D²·256 + 2·256²·D + 6D² = 4,235,821,056, with
 * the embeddings and the final layer 118.62 G in all. It runs on one DGX
 * A100 at bf16 and fits. */
START_TEST(dit_xl_2)
{
	struct ts_model m;
	struct ts_error err;
	ck_assert_int_eq(ts_model_load(tu_root(), "dit-xl-2", &m, &err), 0);
	ck_assert_double_eq(ts_model_params(&m), 674834720.0);
	ck_assert(tu_relerr(ts_model_params(&m), 675e6) < 0.001);
	double macs = work_lnet_fwd_flops(&m) / 2.0;
	ck_assert_msg(tu_relerr(macs, 118.6e9) < 0.001, "%.6e", macs);
	ck_assert(macs > 28.0 * 4235821056.0);
	struct ts_result r = run_text("model = \"dit-xl-2\"; cluster = \"dgx-a100-80gb\";\n"
				      "training = { global_batch = 256; micro_batch = 32;\n"
				      "  precision = \"bf16\"; iterations = 2; };\n",
				      NULL, 0);
	ck_assert(r.fits && r.iteration_time_s > 0.0 && r.mfu > 0.0 && r.mfu < 1.0);
	ck_assert_double_eq(r.model_flops_per_iteration, 3.0 * 256.0 * 2.0 * macs);
	/* a DiT op needs the latent's patches */
	const char *bad = "model = { family = \"layers\"; input = { channels = 3; height = 224;\n"
			  "  width = 224; }; layer_list = ( { op = \"patch\"; kernel = 16; out = "
			  "768; },\n  { op = \"dit\"; heads = 12; mid = 3072; } ); };\n"
			  "cluster = \"dgx-a100-80gb\";\n";
	struct ts_scenario *sc = NULL;
	ck_assert_int_eq(ts_scenario_load_string(cat, bad, "t.cfg", NULL, 0, &sc, &err),
			 TS_EINVALID);
	ck_assert_msg(strstr(err.msg, "latent_patch") && strstr(err.key, "layer_list.[1]"), "%s %s",
		      err.key, err.msg);
}
END_TEST

/* Conformer (L) (Gulati et al. 2020, https://arxiv.org/abs/2005.08100,
 * Table 1: 118.8 M parameters; 17 blocks of 512, 8 heads, kernel 32, one
 * LSTM of 640). By hand (D 512, f 2048, K 32, H 640, V 1024):
 *   subsampling  9·512 + 512·9·512 + (512·20)·512 + 512    =   7,607,296
 *   block        24D² + (K + 32)·D                          =   6,324,224  x 17
 *   transducer   V·H + 8H² + 8H + D·H + H + H² + H + H·V + V =   5,332,224
 *   total                                                   = 120,451,328
 * 1.4 % above the paper's, which does not give the subsampling's or the
 * joint network's sizes. Forward FLOPs of one 12 s utterance (1200 frames,
 * 300 after subsampling, 48 labels): per block 2·T·(2·2·D·f + 3D² + D² +
 * 2D² + D²) + 2·(2T - 1)·D² + 6·T²·D = 4,208,115,712; the convolutions
 * 221,184,000 + 28,311,552,000 and the token projection 3,145,728,000; the
 * transducer 2·48·4H·H x 2 + 2·300·H·D + 2·48·H² + 2·300·48·H·V =
 * 19,424,870,400: 122,641,301,504 in all (the paper gives no FLOPs). */
START_TEST(conformer_l)
{
	struct ts_model m;
	struct ts_error err;
	ck_assert_int_eq(ts_model_load(tu_root(), "conformer-l", &m, &err), 0);
	ck_assert_double_eq(ts_model_params(&m), 120451328.0);
	ck_assert(tu_relerr(ts_model_params(&m), 118.8e6) < 0.015);
	ck_assert_double_eq(work_lnet_fwd_flops(&m), 122641301504.0);
	ck_assert_double_eq(17.0 * 4208115712.0 + 221184000.0 + 28311552000.0 + 3145728000.0 +
				19424870400.0,
			    122641301504.0);
	struct ts_result r = run_text("model = \"conformer-l\"; cluster = \"dgx-a100-80gb\";\n"
				      "training = { global_batch = 256; micro_batch = 32;\n"
				      "  precision = \"bf16\"; iterations = 2; };\n",
				      NULL, 0);
	ck_assert(r.fits && r.iteration_time_s > 0.0 && r.mfu > 0.0 && r.mfu < 1.0);
	ck_assert_double_eq(r.model_flops_per_iteration, 3.0 * 256.0 * 122641301504.0);
	/* a transducer needs its labels */
	const char *bad = "model = { base = \"conformer-l\"; layer_list = (\n"
			  "  { op = \"tokens\"; out = 512; },\n"
			  "  { op = \"transducer\"; out = 1024; mid = 640; } ); };\n"
			  "cluster = \"dgx-a100-80gb\";\n";
	struct ts_scenario *sc = NULL;
	ck_assert_int_ne(ts_scenario_load_string(cat, bad, "t.cfg", NULL, 0, &sc, &err), 0);
	ck_assert_msg(strstr(err.key, "layer_list.[1].labels") != NULL, "%s: %s", err.key, err.msg);
}
END_TEST

/* Closed forms of the SDXL UNet's parts (forward FLOPs per sample, hw
 * pixels or tokens; Podell et al. 2023 and diffusers' UNet2DConditionModel),
 * written apart from sim/work/lnet.c's walk to check it. */
static double sd_conv(double ci, double co, double k, double hw)
{
	return 2.0 * hw * co * ci * k * k;
}

static double sd_res(double ci, double co, double hw)
{
	double f = sd_conv(ci, co, 3, hw) + 2.0 * 1280.0 * co + sd_conv(co, co, 3, hw);
	return ci != co ? f + sd_conv(ci, co, 1, hw) : f;
}

static double sd_tr(double C, double n, double N)
{
	double blk = 2 * N * 3 * C * C + 4 * N * N * C + 2 * N * C * C /* self-attention */
		     + 2 * N * C * C + 2 * 77 * 2 * C * 2048 + 4 * N * 77 * C +
		     2 * N * C * C			      /* cross-attention */
		     + 2 * N * 8 * C * C + 2 * N * 4 * C * C; /* GEGLU */
	return 2 * N * C * C + n * blk + 2 * N * C * C;	      /* proj_in, proj_out */
}

/* SDXL's UNet (Podell et al. 2023, https://arxiv.org/abs/2307.01952,
 * Table 1: 2.6B parameters; the paper gives no FLOPs). 2,567,463,684
 * parameters, the count of the released diffusers UNet (ResNet blocks
 * 2Ci + 9CiCo + Co + 1280Co + Co + 2Co + 9Co² + Co [+ CiCo + Co];
 * transformer blocks 18C² + 2·2048·C + 17C, and 2C² + 4C once per
 * transformer: 5 transformers of 2 blocks at 640 channels, 7 of 10 at
 * 1280), and forward FLOPs per 1024 x 1024 image (128 x 128 latents)
 * from the closed forms above: 6.76 T. It runs on a DGX H100 at
 * 4 images per GPU and fits; a res_cat without a skip left is refused at
 * its entry. */
START_TEST(sdxl_unet)
{
	struct ts_model m;
	struct ts_error err;
	ck_assert_int_eq(ts_model_load(tu_root(), "sdxl-unet", &m, &err), 0);
	ck_assert_double_eq(ts_model_params(&m), 2567463684.0);
	ck_assert(tu_relerr(ts_model_params(&m), 2.6e9) < 0.015);
	double h0 = 128 * 128, h1 = 64 * 64, h2 = 32 * 32, T = 1280;
	double f = sd_conv(4, 320, 3, h0) + 2 * (320 * T + T * T + 2816 * T + T * T);
	f += 2 * sd_res(320, 320, h0) + sd_conv(320, 320, 3, h1);
	f += 2 * sd_tr(640, 2, h1) + sd_res(320, 640, h1) + sd_res(640, 640, h1) +
	     sd_conv(640, 640, 3, h2);
	f += sd_res(640, 1280, h2) + 3 * sd_res(1280, 1280, h2) + 3 * sd_tr(1280, 10, h2);
	f += sd_res(2560, 1280, h2) * 2 + sd_res(1920, 1280, h2) + 3 * sd_tr(1280, 10, h2) +
	     sd_conv(1280, 1280, 3, h1);
	f += sd_res(1920, 640, h1) + sd_res(1280, 640, h1) + sd_res(960, 640, h1) +
	     3 * sd_tr(640, 2, h1) + sd_conv(640, 640, 3, h0);
	f += sd_res(960, 320, h0) + 2 * sd_res(640, 320, h0) + sd_conv(320, 4, 3, h0);
	ck_assert_msg(work_lnet_fwd_flops(&m) == f, "%.6e vs %.6e", work_lnet_fwd_flops(&m), f);
	ck_assert_double_eq(f, 6761236398080.0);
	struct ts_result r = run_text("model = \"sdxl-unet\"; cluster = \"dgx-h100\";\n"
				      "training = { global_batch = 32; micro_batch = 4;\n"
				      "  precision = \"bf16\"; iterations = 2; };\n",
				      NULL, 0);
	ck_assert(r.fits && r.iteration_time_s > 0.0 && r.mfu > 0.0 && r.mfu < 1.0);
	const char *bad = "model = { base = \"sdxl-unet\"; layer_list = (\n"
			  "  { op = \"unet_in\"; out = 320; },\n"
			  "  { op = \"unet_cond\"; out = 1280; mid = 320; width = 2816; },\n"
			  "  { op = \"res_cat\"; out = 320; },\n"
			  "  { op = \"res_cat\"; out = 320; } ); };\n"
			  "cluster = \"dgx-h100\";\n";
	struct ts_scenario *sc = NULL;
	ck_assert_int_eq(ts_scenario_load_string(cat, bad, "t.cfg", NULL, 0, &sc, &err),
			 TS_EINVALID);
	ck_assert_msg(strstr(err.key, "layer_list.[3]") && strstr(err.msg, "skip"), "%s: %s",
		      err.key, err.msg);
}
END_TEST

/* Validation: NVIDIA DeepLearningExamples ResNet-50 v1.5 (PyTorch, DALI,
 * ../shared/data/measurements.csv rows DLE-RN50-001..008). The run settings
 * are those of the repository's benchmark launcher (PyTorch/Classification/
 * ConvNets/configs.yml, which launch.py reads for --mode
 * benchmark_training): batch 256 per GPU, except FP32 on the DGX-1 V100 at
 * 112; 16 loader workers per GPU on the DGX A100, 8 on the DGX-1; AMP runs with memory_format nhwc
 * (channels-last), TF32 and FP32 keep PyTorch's default NCHW, so their tensor-core convolutions
 * (TF32) pay cuDNN's layout transposes (work_lnet_ops) and their CUDA-core ones (FP32) do not. SGD,
 * DDP, DALI decoding on the GPU (imagenet-1k-dali); the DGX-1 V100 16GB runs on
 * configs/clusters/dgx1-v100.cfg (V100 32 GB catalog entry). No constant is fitted to these rows.
 * Tolerance 15 % on images/s, and none of the rows is loader-bound. A row outside 15 % is a known
 * gap: pinned to its present error (+-10 points, so that a change shows) and required to stay
 * outside 15 % (so that a row the model comes to explain moves to the validated ones); `why` says
 * what the model lacks. */
START_TEST(resnet50_rows)
{
	static const struct {
		const char *id, *cluster, *prec;
		int gpus, batch;
		double measured; /* images/s */
		double pinned;	 /* present error when outside 15 %, else 0 */
		const char *why; /* of a known gap */
	} rows[] = {
	    {"DLE-RN50-001", "dgx-a100-80gb", "tf32", 1, 256, 938, 0.0, NULL},
	    {"DLE-RN50-002", "dgx-a100-80gb", "fp16", 1, 256, 2470, 0.0, NULL},
	    {"DLE-RN50-003", "dgx-a100-80gb", "tf32", 8, 256, 7248, 0.0, NULL},
	    {"DLE-RN50-004", "dgx-a100-80gb", "fp16", 8, 256, 16621, 0.42,
	     "8-GPU AMP scales 6.72x measured (TF32 7.72x): a per-node limit that only "
	     "the fast runs hit, likely the CPU side of the input pipeline (16 loader "
	     "threads per GPU on 128 cores); not modelled "
	     "(the gradient all-reduce, 102 MB over NVSwitch, is about 1 ms and overlapped)"},
	    {"DLE-RN50-005", "dgx1-v100", "fp32", 1, 112, 367, 0.0, NULL},
	    {"DLE-RN50-006", "dgx1-v100", "fp16", 1, 256, 1200, 0.0, NULL},
	    {"DLE-RN50-007", "dgx1-v100", "fp32", 8, 112, 2855, 0.0, NULL},
	    {"DLE-RN50-008", "dgx1-v100", "fp16", 8, 256, 8322, 0.0, NULL},
	};
	printf("%-13s %-14s %-5s %4s %10s %10s %8s  loader-bound\n", "row", "cluster", "prec",
	       "gpus", "predicted", "measured", "error");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char text[800];
		snprintf(text, sizeof text,
			 "model = { base = \"resnet50\"; memory_format = \"%s\"; };\n"
			 "cluster = \"%s\"; gpus_per_node = %d;\n"
			 "training = { framework = \"ddp\"; micro_batch = %d; precision = \"%s\"; "
			 "optimizer = \"sgd\"; };\n"
			 "data = { dataset = \"imagenet-1k-dali\"; };\n",
			 strcmp(rows[i].prec, "fp16") ? "nchw" : "nhwc", rows[i].cluster,
			 rows[i].gpus, rows[i].batch, rows[i].prec);
		const char *w[] = {strcmp(rows[i].cluster, "dgx1-v100") ? "data.workers_per_gpu=16"
									: "data.workers_per_gpu=8"};
		struct ts_result r = run_text(text, w, 1);
		double e = (r.samples_per_s - rows[i].measured) / rows[i].measured;
		bool lb = data_loader_bound(r.data_stall_s, r.iteration_time_s);
		printf("%-13s %-14s %-5s %4d %10.0f %10.0f %+7.1f%%  %s%s%s\n", rows[i].id,
		       rows[i].cluster, rows[i].prec, rows[i].gpus, r.samples_per_s,
		       rows[i].measured, 100.0 * e, lb ? "yes" : "no",
		       rows[i].why ? "  known gap: " : "", rows[i].why ? rows[i].why : "");
		fflush(stdout);
		ck_assert_msg(!lb, "%s loader-bound", rows[i].id);
		if (rows[i].pinned == 0.0) {
			ck_assert_msg(fabs(e) <= 0.15, "%s: %+.1f%%", rows[i].id, 100.0 * e);
		} else {
			ck_assert_msg(fabs(e) > 0.15,
				      "%s: %+.1f%% is within 15 %%: move it to the validated rows",
				      rows[i].id, 100.0 * e);
			ck_assert_msg(fabs(e - rows[i].pinned) <= 0.10,
				      "%s: %+.1f%% (pinned %+.0f%%)", rows[i].id, 100.0 * e,
				      100.0 * rows[i].pinned);
		}
	}
}
END_TEST

/* Out-of-sample check of the layout and CUDA-core terms (nothing was fitted
 * to it): torchvision ResNet-50 training iterations on one V100-SXM2 at
 * batch 128 (github.com/sandeepkumar-skb/pytorch_experiments,
 * torchvision_exp/README.md): AMP NHWC 110.93 ms, AMP NCHW 152.20 ms, FP32
 * NCHW 342.37 ms. Synthetic data. Tolerance 15 % on the iteration time
 * (20 % for FP32, a known gap: +15.7 % since gemm_k0 comes from H100
 * tensor-core GEMMs, OpenXLA's table, and doubles K0 on the V100's CUDA
 * cores too, 15 -> 30 elements; within 15 % at the earlier fitted value),
 * and the NCHW penalty of AMP (1.37x measured) within 10 %. The FP32 NHWC
 * figure (412.84 ms) is not checked: cuDNN's CUDA-core kernels are native
 * NCHW, and the model has no layout cost for them. */
START_TEST(resnet50_layout_v100)
{
	static const struct {
		const char *prec, *fmt;
		double ms;
	} c[] = {{"fp16", "nhwc", 110.93}, {"fp16", "nchw", 152.20}, {"fp32", "nchw", 342.37}};
	double t[3];
	for (size_t i = 0; i < 3; i++) {
		char text[600];
		snprintf(text, sizeof text,
			 "model = { base = \"resnet50\"; memory_format = \"%s\"; };\n"
			 "cluster = \"dgx1-v100\"; gpus_per_node = 1;\n"
			 "training = { framework = \"ddp\"; micro_batch = 128; precision = \"%s\"; "
			 "optimizer = \"sgd\"; };\n"
			 "data = { dataset = \"synthetic\"; };\n",
			 c[i].fmt, c[i].prec);
		struct ts_result r = run_text(text, NULL, 0);
		t[i] = r.iteration_time_s * 1e3;
		printf("V100 b=128 %s %s: %.1f ms (measured %.2f, error %+.1f%%)\n", c[i].prec,
		       c[i].fmt, t[i], c[i].ms, 100.0 * (t[i] - c[i].ms) / c[i].ms);
		double tol = strcmp(c[i].prec, "fp32") ? 0.15 : 0.20;
		ck_assert_msg(tu_relerr(t[i], c[i].ms) <= tol, "%s %s: %g ms", c[i].prec, c[i].fmt,
			      t[i]);
	}
	double ratio = t[1] / t[0], want = 152.20 / 110.93;
	printf("NCHW / NHWC under AMP: %.2f (measured %.2f)\n", ratio, want);
	ck_assert_msg(tu_relerr(ratio, want) <= 0.10, "%g", ratio);
}
END_TEST

/* memory_format: the transposes are what a hand count gives. One 3x3
 * convolution 64 -> 64 on 56 x 56 (batch 32, fp16): in = out = 32 x 64 x
 * 56 x 56 elements, 2 (in + out) x 2 B per phase at the A100 80GB's
 * 2039 GB/s x 0.88; fp32 takes no transposes; a bad value is an error that
 * names the key. */
START_TEST(layout_transposes)
{
	struct ts_model m;
	struct ts_error err;
	ck_assert_int_eq(ts_model_load(tu_root(), "resnet50", &m, &err), 0);
	ck_assert(!m.lnet_nchw);
	m.nlnet = 2;
	m.in_c = 64;
	m.in_h = m.in_w = 56;
	memset(&m.lnet[0], 0, 2 * sizeof m.lnet[0]);
	for (int i = 0; i < 2; i++) {
		m.lnet[i].op = TS_LOP_CONV;
		m.lnet[i].out = 64;
		m.lnet[i].kernel = 3;
		m.lnet[i].stride = 1;
		m.lnet[i].repeat = 1;
	}
	int gi = hw_catalog_find_gpu(cat, "A100-SXM4-80GB");
	ck_assert_int_ge(gi, 0);
	const struct hw_gpu_type *g = hw_catalog_gpu(cat, (size_t)gi);
	struct work_lnet_op *a, *b;
	size_t na, nb;
	ck_assert_int_eq(work_lnet_ops(&m, 32, 1, TS_FP16, g, &calib, &a, &na, &err), 0);
	m.lnet_nchw = true;
	ck_assert_int_eq(work_lnet_ops(&m, 32, 1, TS_FP16, g, &calib, &b, &nb, &err), 0);
	ck_assert(na == 2 && nb == 2);
	double el = 32.0 * 64 * 56 * 56, want = 2.0 * (el + el) * 2.0 / (2039e9 * 0.88);
	/* the second convolution has all three phases */
	ck_assert(tu_relerr(b[1].c.fwd_s - a[1].c.fwd_s, want) < 1e-9);
	ck_assert(tu_relerr(b[1].c.dgrad_s - a[1].c.dgrad_s, want) < 1e-9);
	ck_assert(tu_relerr(b[1].c.wgrad_s - a[1].c.wgrad_s, want) < 1e-9);
	ck_assert(b[1].c.op.kernels == a[1].c.op.kernels + 2);
	ck_assert(b[1].c.op.bwd_kernels == a[1].c.op.bwd_kernels + 4);
	/* the first has no input gradient, so no dgrad transposes */
	ck_assert(b[0].c.dgrad_s == 0.0 && b[0].c.op.bwd_kernels == a[0].c.op.bwd_kernels + 2);
	ts_free(a, na * sizeof *a);
	ts_free(b, nb * sizeof *b);
	ck_assert_int_eq(work_lnet_ops(&m, 32, 1, TS_FP32, g, &calib, &b, &nb, &err), 0);
	ck_assert(b[1].transpose_bytes == 0.0);
	ts_free(b, nb * sizeof *b);

	struct ts_scenario *sc;
	const char *text = "model = { base = \"resnet50\"; memory_format = \"nwhc\"; };\n"
			   "cluster = \"dgx-a100-80gb\";\n";
	/* an unknown name, as for every other choice key */
	ck_assert_int_eq(ts_scenario_load_string(cat, text, "t.cfg", NULL, 0, &sc, &err),
			 TS_EUNKNOWN_NAME);
	char buf[1400];
	ts_error_format(&err, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "memory_format") && strstr(buf, "nchw"), "%s", buf);
	text = "model = { base = \"resnet50\"; memory_format = 1; };\n"
	       "cluster = \"dgx-a100-80gb\";\n";
	ck_assert_int_eq(ts_scenario_load_string(cat, text, "t.cfg", NULL, 0, &sc, &err), TS_ETYPE);
}
END_TEST

/* Field report 23: one RTX 3090 (stand-in: RTX 4090 of rtx4090-x4),
 * image classification with a DataLoader of 2 workers starves the GPU
 * (3 it/s, GPU idle 70-92 %); with more workers it is compute-bound
 * (13 it/s). Model and batch are not stated: ResNet-50 at batch 32 and
 * imagenet-1k decoding are assumptions, and 8 workers stand for the raised
 * count. The verdicts must match; the it/s are printed beside the report's
 * (no tolerance: the report's model is unknown). */
START_TEST(field_report_23_workers)
{
	const char *text = "model = \"resnet50\"; cluster = \"rtx4090-x4\"; gpus_per_node = 1;\n"
			   "training = { framework = \"ddp\"; micro_batch = 32; precision = "
			   "\"fp16\"; optimizer = \"sgd\"; };\n"
			   "data = { dataset = \"imagenet-1k\"; workers_per_gpu = 2; };\n";
	struct ts_result a = run_text(text, NULL, 0);
	const char *more[] = {"data.workers_per_gpu=8", "data.prefetch=4"};
	struct ts_result b = run_text(text, more, 2);
	printf("field report 23: 2 workers %.1f it/s (measured 3), loader-bound %s (measured "
	       "yes); 8 workers %.1f it/s (measured 13), loader-bound %s (measured no)\n",
	       1.0 / a.iteration_time_s,
	       data_loader_bound(a.data_stall_s, a.iteration_time_s) ? "yes" : "no",
	       1.0 / b.iteration_time_s,
	       data_loader_bound(b.data_stall_s, b.iteration_time_s) ? "yes" : "no");
	ck_assert(data_loader_bound(a.data_stall_s, a.iteration_time_s));
	ck_assert(!data_loader_bound(b.data_stall_s, b.iteration_time_s));
	ck_assert(b.samples_per_s > 2.0 * a.samples_per_s);
}
END_TEST

/* Field report 25: 8 V100 (p3.16xlarge; stand-in dgx1-v100, 40 cores),
 * real ImageNet from EFS (NFS), TensorFlow input pipeline: about 250
 * images/s against 6,679 synthetic. Assumption: one decode worker per GPU
 * process (the pipeline's parallelism is not stated). The verdict must
 * match; the throughput is printed with its error: the model predicts
 * 8 x 200 = 1,600 images/s, far above 250 (the report blames the
 * pipeline's settings, which are not stated), so no 15 % bound is claimed. */
START_TEST(field_report_25_efs)
{
	const char *text =
	    "model = \"resnet50\"; cluster = \"dgx1-v100\";\n"
	    "training = { framework = \"ddp\"; micro_batch = 64; precision = "
	    "\"fp16\"; optimizer = \"sgd\"; };\n"
	    "data = { dataset = \"imagenet-1k\"; storage = \"nfs\"; workers_per_gpu = 1; };\n";
	struct ts_result r = run_text(text, NULL, 0);
	const char *syn[] = {"data.dataset=synthetic"};
	struct ts_result s = run_text(text, syn, 1);
	printf("field report 25: %.0f images/s (measured ~250, error %+.0f%%), loader-bound %s "
	       "(measured yes); synthetic %.0f images/s (measured 6,679, error %+.0f%%)\n",
	       r.samples_per_s, 100.0 * (r.samples_per_s - 250.0) / 250.0,
	       data_loader_bound(r.data_stall_s, r.iteration_time_s) ? "yes" : "no",
	       s.samples_per_s, 100.0 * (s.samples_per_s - 6679.0) / 6679.0);
	ck_assert(data_loader_bound(r.data_stall_s, r.iteration_time_s));
	ck_assert(!data_loader_bound(s.data_stall_s, s.iteration_time_s));
	ck_assert(r.samples_per_s < 0.5 * s.samples_per_s);
}
END_TEST

/* A loader-bound job stays loader-bound under every schedule. GPT-3 1.3B
 * on one DGX A100 (8 GPUs), sequences of 64 tokens, 32 per micro-batch,
 * 512 per iteration, each sequence standing for an ImageNet JPEG (5 ms of
 * one core to decode, configs/datasets/imagenet-1k.cfg; the 141 GB dataset
 * fits in the page cache, so reads are not the limit) with one worker per
 * GPU:
 * - DP 8 and ZeRO-3 over 8: dp = 8, 512 / (32 x 8) = 2 micro-batches per
 *   iteration; each GPU's worker decodes its 32 sequences in 32 x 5 ms =
 *   160 ms, while the forward and backward of a micro-batch take about
 *   100 ms: the iteration is paced at 2 x 160 ms = 0.32 s by the loader.
 * - TP 2 x PP 2 (dp = 2): 512 / (32 x 2) = 8 micro-batches; the two GPUs
 *   of a first-stage tensor-parallel group share a micro-batch, 16
 *   sequences each, 16 x 5 ms = 80 ms per micro-batch, while a stage
 *   computes a quarter of the model (about 25 ms): 8 x 80 ms = 0.64 s.
 * So each layout runs at the loader's pace (iteration within 1 % below --
 * the two measured iterations are a short window on a steady state whose
 * phase the warm-up sets -- and 10 % above micro-batches x decode time per
 * micro-batch), and the
 * GPUs' wait for data shows as data_stall_s, more than
 * DATA_LOADER_BOUND_FRACTION of the iteration, named as the bottleneck,
 * and more than 15 % of it: under DP 8 the GPUs are busy about 0.195 s
 * computing, 0.044 s on the tail of the gradient all-reduce (2.6 GB, not
 * hidden by 2 micro-batches of 64 tokens) and 0.022 s on the step that
 * follows it, which leaves about 0.058 s (18 %) of the 0.32 s waiting.
 * Before the input pipeline was part of the model-parallel schedule,
 * ZeRO-3 and TP x PP reported no stall at all and ran at compute speed. */
START_TEST(loader_bound_under_every_schedule)
{
	const char *text = "model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; nodes = 1;\n"
			   "training = { global_batch = 512; micro_batch = 32; seq_len = 64; };\n"
			   "data = { dataset = \"imagenet-1k\"; workers_per_gpu = 1; };\n";
	const struct {
		const char *what;
		const char *sets[2];
		size_t nsets;
		double accum, decode_s; /* micro-batches, decode per micro-batch per GPU */
	} cases[] = {
	    {"DP 8", {"parallel.zero=0"}, 1, 2.0, 32 * 5e-3},
	    {"ZeRO-3 over 8", {"parallel.zero=3"}, 1, 2.0, 32 * 5e-3},
	    {"TP 2 x PP 2", {"parallel.tp=2", "parallel.pp=2"}, 2, 8.0, 16 * 5e-3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ts_result r = run_text(text, cases[i].sets, cases[i].nsets);
		double pace = cases[i].accum * cases[i].decode_s;
		ck_assert_msg(r.iteration_time_s >= 0.99 * pace && r.iteration_time_s <= 1.1 * pace,
			      "%s: iteration %.6f s, loader pace %.6f s", cases[i].what,
			      r.iteration_time_s, pace);
		ck_assert_msg(data_loader_bound(r.data_stall_s, r.iteration_time_s) &&
				  r.data_stall_s > 0.15 * r.iteration_time_s,
			      "%s: data stall %.6f s of %.6f s", cases[i].what, r.data_stall_s,
			      r.iteration_time_s);
		ck_assert_msg(!strncmp(r.bottleneck, "data loading", 12), "%s: %s", cases[i].what,
			      r.bottleneck);
	}
}
END_TEST

/* An input pipeline that shares the NIC with the gradient
 * all-reduce is in its steady state only once its prefetch queue is full (2
 * x 12 workers = 24 batches per GPU). Until then it reads ahead as fast as
 * the NIC lets it and the all-reduce crawls; once the last batch a run
 * needs is read, the all-reduce has the NIC alone. Three iterations
 * gave 0.319 s (the second situation), 50 gave 0.614 s (a mix of the
 * three). Steady state, by hand: per node and step the NIC brings in 8 GPUs
 * x 256 images x 110 kB = 225.28 MB of JPEGs and carries 2 x 15/16 x
 * 25,557,032 x 4 B = 191.68 MB of ring all-reduce each way, together 416.96
 * MB at 0.54 x 1.25 GB/s (eth-10g) = 0.6177 s; compute (about 0.09 s) hides
 * under it but for the first bucket. */
START_TEST(nic_shared_with_reads_settles)
{
	const char *text = "model = \"resnet50\"; cluster = \"ethernet-10g\"; nodes = 2;\n"
			   "training = { framework = \"ddp\"; micro_batch = 256; precision = "
			   "\"fp16\"; optimizer = \"sgd\"; };\n"
			   "data = { dataset = \"imagenet-21k\"; storage = \"nfs\"; "
			   "workers_per_gpu = 12; };\n";
	double hand =
	    (8.0 * 256.0 * 110e3 + 2.0 * 15.0 / 16.0 * 25557032.0 * 4.0) / (0.54 * 1.25e9);
	struct ts_result r = run_text(text, NULL, 0);
	const char *more[] = {"training.iterations=48"};
	struct ts_result r48 = run_text(text, more, 1);
	printf("NIC shared with NFS reads: %.4f s (3 iterations asked), %.4f s (48), hand "
	       "%.4f s; warnings '%s'\n",
	       r.iteration_time_s, r48.iteration_time_s, hand, r.warnings);
	ck_assert_msg(r.iteration_time_s >= hand && tu_relerr(r.iteration_time_s, hand) < 0.02,
		      "%g s against %g s by hand", r.iteration_time_s, hand);
	ck_assert_msg(tu_relerr(r.iteration_time_s, r48.iteration_time_s) < 0.005, "%g vs %g",
		      r.iteration_time_s, r48.iteration_time_s);
	ck_assert_msg(!strstr(r.warnings, "not settled"), "%s", r.warnings);
	/* a queue of 12 x 1024 batches per GPU does not fill in 96 iterations:
	 * the report says so */
	const char *deep[] = {"data.prefetch=1024"};
	struct ts_result rd = run_text(text, deep, 1);
	printf("prefetch 1024: %.4f s; warnings '%s'\n", rd.iteration_time_s, rd.warnings);
	ck_assert_msg(strstr(rd.warnings, "iteration period not settled after 96 iterations"), "%s",
		      rd.warnings);
}
END_TEST

/* A local 7,200 rpm drive under a loader's random reads of whole JPEGs: each
 * file waits for an average seek (8.2 ms, HGST Ultrastar 7K4000) and half a
 * revolution (4.17 ms), then reads at 150 MB/s. ImageNet-21k's 110 kB files:
 * 12.367 + 0.733 = 13.100 ms a file, and a batch of 64 pays the request
 * latency (12.4 ms) once: 64 / (64 x 13.100 ms + 12.4 ms) = 75.2 images/s.
 * The IOPS model it replaces took the lesser of 120 requests/s x 110 kB and
 * 150 MB/s: 120 images/s, 1.6x faster (2.3x for 1 MiB requests of packed
 * files, 126 against 54 MB/s). */
START_TEST(hdd_seeks_per_file)
{
	const char *text = "model = \"resnet50\"; cluster = \"rtx4090-x4\"; gpus_per_node = 1;\n"
			   "training = { framework = \"ddp\"; micro_batch = 64; precision = "
			   "\"fp16\"; optimizer = \"sgd\"; };\n"
			   "data = { dataset = \"imagenet-21k\"; storage = \"local-hdd\"; "
			   "workers_per_gpu = 8; };\n";
	struct ts_result r = run_text(text, NULL, 0);
	double pos = 8.2e-3 + 0.5 * 60.0 / 7200.0;
	double hand = 64.0 / (64.0 * (pos + 110e3 / 150e6) + 12.4e-3);
	printf("local HDD, ImageNet-21k files: %.2f images/s, hand %.2f\n", r.samples_per_s, hand);
	ck_assert_msg(tu_relerr(r.samples_per_s, hand) < 1e-3, "%g vs %g", r.samples_per_s, hand);
	ck_assert_msg(strstr(r.bottleneck, "read"), "%s", r.bottleneck);
	/* seek and rpm go together, on local drives, without iops */
	static const struct {
		const char *entry, *key;
	} bad[] = {
	    {"seek = \"8 ms\";", "seek"},
	    {"rpm = 7200;", "rpm"},
	    {"seek = \"8 ms\"; rpm = 7200; iops = 100;", "seek"},
	};
	char dir[] = "/tmp/hdd-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/configs", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/configs/hardware", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/configs/hardware/storage.cfg", dir);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		FILE *fp = fopen(path, "w");
		ck_assert_ptr_nonnull(fp);
		fprintf(fp,
			"storage = (\n  { name = \"disk\"; kind = \"local\"; read = \"150 MB/s\";"
			" latency = \"1 ms\";\n    %s source = \"test\"; }\n);\n",
			bad[i].entry);
		fclose(fp);
		struct data_catalog *c = NULL;
		struct ts_error err;
		ck_assert_int_eq(data_catalog_load(dir, &c, &err), TS_EINVALID);
		printf("%s -> %s: %s\n", bad[i].entry, err.key, err.msg);
		ck_assert_msg(strstr(err.key, bad[i].key), "%s", err.key);
		ck_assert_int_eq(err.line, 3);
	}
	unlink(path);
	snprintf(path, sizeof path, "%s/configs/hardware", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/configs", dir);
	rmdir(path);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("loader");
	TCase *tc = tu_tcase("core");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, decode_rate_sets_the_pace);
	tcase_add_test(tc, workers_double_until_cores_run_out);
	tcase_add_test(tc, shared_fs_divides_its_aggregate);
	tcase_add_test(tc, page_cache_serves_a_dataset_that_fits);
	tcase_add_test(tc, tokens_do_not_slow_a_language_model);
	tcase_add_test(tc, catalog_and_errors);
	tcase_add_test(tc, layer_list_parameters);
	tcase_add_test(tc, dit_xl_2);
	tcase_add_test(tc, conformer_l);
	tcase_add_test(tc, sdxl_unet);
	tcase_add_test(tc, resnet50_rows);
	tcase_add_test(tc, resnet50_layout_v100);
	tcase_add_test(tc, layout_transposes);
	tcase_add_test(tc, field_report_23_workers);
	tcase_add_test(tc, field_report_25_efs);
	tcase_add_test(tc, loader_bound_under_every_schedule);
	tcase_add_test(tc, nic_shared_with_reads_settles);
	tcase_add_test(tc, hdd_seeks_per_file);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
