/* Planning a scenario: the checks that take more than one key, the
 * defaults that depend on the framework and the GPU, and everything a run
 * reads from the environment (dataset, storage, drives), resolved once.
 *
 * Cross-key checks live here and nowhere else: the schedule builders and
 * the input pipeline trust the plan. Errors name the scenario key and the
 * line that set it (ts_scenario_error); an error of a lower layer that
 * names a key but no file (work_costs_compute: "parallel.ep" on a dense
 * model) is placed at that key's line the same way.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/units.h"
#include "hw/cluster.h"
#include "hw/powercap.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "net/net.h"
#include "par/graph.h"
#include "par/layout.h"
#include "par/pipe.h"
#include "plan/lnet_units.h"
#include "plan/plan.h"
#include "work/compute.h"
#include "work/ops.h"
#include "work/straggle.h"

/* Fail naming where scenario key `key` was set ("file:line", or the --set
 * argument). */
static int plan_fail(const struct ts_scenario *sc, struct ts_error *err, int code, const char *key,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int plan_fail(const struct ts_scenario *sc, struct ts_error *err, int code, const char *key,
		     const char *fmt, ...)
{
	char msg[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ts_scenario_error(sc, err, code, key, "%s", msg);
}

/* An error of a lower layer that names a key but no file: place it at the
 * scenario line of that key. */
static int place(const struct ts_scenario *sc, struct ts_error *err, int rc)
{
	if (!rc || !err || err->file[0] || !err->key[0])
		return rc;
	char key[sizeof err->key], msg[sizeof err->msg];
	snprintf(key, sizeof key, "%s", err->key);
	snprintf(msg, sizeof msg, "%s", err->msg);
	return plan_fail(sc, err, rc, key, "%s", msg);
}

int plan_check_modelled(const struct ts_scenario *sc, struct ts_error *err)
{
	const struct ts_parallel *par = &sc->parallel;
	if (sc->model.family != TS_FAMILY_LAYERS)
		return 0;
	if (par->cp > 1 || par->ep > 1)
		return plan_fail(sc, err, TS_EUNSUPPORTED,
				 par->cp > 1 ? "parallel.cp" : "parallel.ep",
				 "found %u, but context and expert parallelism are modelled for "
				 "transformers only; expected 1",
				 par->cp > 1 ? par->cp : par->ep);
	if (par->zero != 0)
		return plan_fail(sc, err, TS_EUNSUPPORTED, "parallel.zero",
				 "found %d for a layer-list model, but ZeRO is modelled for "
				 "transformers only; expected 0",
				 par->zero);
	if (sc->training.recompute == WORK_RECOMPUTE_SELECTIVE ||
	    sc->training.recompute == WORK_RECOMPUTE_OP)
		/* selective recompute reruns a transformer's attention core
		 * (Korthikanti et al. 2022, §5), op-level checkpointing keeps a
		 * transformer block's matmul and attention outputs; a layer
		 * list checkpoints whole blocks (plan/lnet_units.h) */
		return plan_fail(
		    sc, err, TS_EUNSUPPORTED, "training.recompute",
		    "found \"%s\" for the layer-list model %s, but it is modelled for "
		    "transformer blocks; expected \"none\" or "
		    "\"full\" (each block's input kept, its forward rerun in backward)",
		    work_recompute_name(sc->training.recompute), sc->model.name);
	if (par->tp > 1 || par->pp > 1)
		return plan_fail(sc, err, TS_EUNSUPPORTED,
				 par->tp > 1 ? "parallel.tp" : "parallel.pp",
				 "found %u, but tensor and pipeline parallelism are modelled for "
				 "transformers only; expected 1",
				 par->tp > 1 ? par->tp : par->pp);
	return 0;
}

/* Op-level selective checkpointing and layer-level checkpointing at an
 * interval are policies of PyTorch's own checkpoint (torch.utils.checkpoint,
 * with torchtitan's policies): the PyTorch-native frameworks (ddp, fsdp)
 * run them; Megatron-LM's recompute is selective (its attention core),
 * full or a number of layers, and DeepSpeed's activation checkpointing
 * API checkpoints whole blocks. recompute_interval goes with full
 * recompute only, and not with recompute_layers. */
static int check_pytorch_recompute(const struct ts_scenario *sc, struct ts_error *err)
{
	const struct ts_training *t = &sc->training;
	bool op = t->recompute == WORK_RECOMPUTE_OP, every = t->recompute_interval > 1;
	if ((op || every) && t->framework != WORK_FW_DDP && t->framework != WORK_FW_FSDP)
		return plan_fail(
		    sc, err, TS_EUNSUPPORTED,
		    op ? "training.recompute" : "training.recompute_interval",
		    "found %s with framework \"%s\", which cannot run it: it is PyTorch's "
		    "selective "
		    "checkpointing (torch.utils.checkpoint, as torchtitan applies it); expected "
		    "framework \"ddp\" or \"fsdp\", or %s",
		    op ? "recompute = \"op\"" : "recompute_interval",
		    work_framework_name(t->framework),
		    op ? "recompute \"selective\" or \"full\""
		       : "recompute_layers (the first N layers of each chunk, as Megatron-LM's "
			 "--recompute-num-layers)");
	if (t->recompute_interval && t->recompute != WORK_RECOMPUTE_FULL)
		return plan_fail(sc, err, TS_EINVALID, "training.recompute_interval",
				 "found %lld with recompute \"%s\", expected it with recompute = "
				 "\"full\" only (torchtitan's layer-level selective checkpointing "
				 "wraps every N-th block in a full checkpoint)",
				 (long long)t->recompute_interval,
				 work_recompute_name(t->recompute));
	if (t->recompute_interval && t->recompute_layers)
		return plan_fail(sc, err, TS_EINVALID, "training.recompute_interval",
				 "found %lld with recompute_layers = %lld, expected one of the two "
				 "(every N-th layer, or the first N of each chunk)",
				 (long long)t->recompute_interval, (long long)t->recompute_layers);
	if (t->recompute_interval && sc->model.family == TS_FAMILY_LAYERS)
		return plan_fail(sc, err, TS_EUNSUPPORTED, "training.recompute_interval",
				 "found %lld for the layer-list model %s, but it is modelled for "
				 "transformer layers; expected 0",
				 (long long)t->recompute_interval, sc->model.name);
	return 0;
}

/* Activation offload (training.activation_offload_layers = N) as the
 * frameworks that have it allow it: Megatron-Core's cpu_offloading takes
 * cpu_offloading_num_layers between 0 and num_layers - 1, needs pipeline
 * parallelism 1 and no recompute (Megatron Bridge, "CPU Offloading",
 * https://docs.nvidia.com/nemo/megatron-bridge/latest/training/cpu-offloading.html:
 * "PP must be 1", recompute_granularity = None); PyTorch's own stacks
 * offload with saved-tensor hooks on one stage (Transformer Engine's CPU
 * offload "supports all PyTorch modules",
 * https://nvidia.github.io/TransformerEngine/features/other_optimizations/cpu_offloading/cpu_offloading.html),
 * with any recompute. DeepSpeed offloads only the checkpoints it
 * partitions (cpu_checkpointing with partition_activations), which is not
 * modelled; neither are layer lists. */
static int check_act_offload(const struct ts_scenario *sc, struct ts_error *err)
{
	const struct ts_training *t = &sc->training;
	const struct ts_parallel *par = &sc->parallel;
	long long n = (long long)t->activation_offload_layers;
	if (!n)
		return 0;
	if (sc->model.family == TS_FAMILY_LAYERS)
		return plan_fail(sc, err, TS_EUNSUPPORTED, "training.activation_offload_layers",
				 "found %lld for the layer-list model %s, but it is modelled for "
				 "transformer layers; expected 0",
				 n, sc->model.name);
	if (t->framework == WORK_FW_DEEPSPEED)
		return plan_fail(sc, err, TS_EUNSUPPORTED, "training.activation_offload_layers",
				 "found %lld with framework \"deepspeed\", which offloads only "
				 "partitioned checkpoints (cpu_checkpointing), not modelled; "
				 "expected framework \"megatron\", \"ddp\" or \"fsdp\", or 0",
				 n);
	if (par->pp > 1)
		return plan_fail(
		    sc, err, TS_EUNSUPPORTED, "training.activation_offload_layers",
		    "found %lld with parallel.pp = %lld, expected pp = 1 (Megatron-Core's "
		    "cpu_offloading refuses pipeline parallelism)",
		    n, (long long)par->pp);
	if (t->framework == WORK_FW_MEGATRON && t->recompute != WORK_RECOMPUTE_NONE)
		return plan_fail(sc, err, TS_EUNSUPPORTED, "training.activation_offload_layers",
				 "found %lld with recompute \"%s\" and framework \"megatron\", "
				 "expected recompute \"none\" (Megatron-Core's cpu_offloading "
				 "refuses activation recomputation)",
				 n, work_recompute_name(t->recompute));
	if (n >= (long long)sc->model.layers)
		return plan_fail(sc, err, TS_EINVALID, "training.activation_offload_layers",
				 "found %lld for a model of %lld layers, expected 0 to %lld "
				 "(Megatron-Core's cpu_offloading_num_layers: the last layer's "
				 "activations are used at once by its backward)",
				 n, (long long)sc->model.layers, (long long)sc->model.layers - 1);
	return 0;
}

/* The keys whose values contradict each other. The offload rule is here
 * once: DeepSpeed ZeRO-Offload, ZeRO-Infinity and FSDP offload move sharded
 * state, so offload needs ZeRO, and NVMe needs stage 3. */
static int check_pairs(const struct ts_scenario *sc, struct ts_error *err)
{
	const struct ts_parallel *par = &sc->parallel;
	if (par->offload != TS_OFFLOAD_NONE && par->zero < 1)
		return plan_fail(sc, err, TS_EINVALID, "parallel.offload",
				 "found \"%s\" with parallel.zero = %d, expected zero >= 1 "
				 "(DeepSpeed ZeRO-Offload, ZeRO-Infinity and FSDP offload move "
				 "sharded state)",
				 ts_offload_name(par->offload), par->zero);
	if (par->offload == TS_OFFLOAD_NVME && par->zero != 3)
		return plan_fail(sc, err, TS_EINVALID, "parallel.offload",
				 "found \"nvme\" with parallel.zero = %d, expected zero = 3 "
				 "(DeepSpeed: \"NVMe offloading is available only with ZeRO "
				 "stage 3\", config-json, offload_optimizer)",
				 par->zero);
	if (par->tp_comm_overlap && par->tp > 1 && !par->sp)
		return plan_fail(sc, err, TS_EINVALID, "parallel.tp_comm_overlap",
				 "found true with parallel.sp = false, expected sp = true "
				 "(Megatron-Core overlaps the sequence-parallel all-gather and "
				 "reduce-scatter with the GEMMs)");
	/* FSDP1 and FSDP2 are PyTorch's two fully sharded implementations;
	 * only FSDP1 has a rate limiter to turn off (FSDP2's fully_shard
	 * prefetches one unit, with no such option) */
	bool fsdp3 = sc->training.framework == WORK_FW_FSDP && par->zero == 3;
	if ((par->fsdp_version != TS_UNSET || par->limit_all_gathers != TS_UNSET) && !fsdp3) {
		bool v = par->fsdp_version != TS_UNSET;
		return plan_fail(
		    sc, err, TS_EINVALID,
		    v ? "parallel.fsdp_version" : "parallel.limit_all_gathers",
		    "found %s with training.framework = \"%s\" and parallel.zero = %d, "
		    "expected framework \"fsdp\" with zero = 3 (PyTorch FSDP's full "
		    "sharding)",
		    v ? (par->fsdp_version == 1 ? "1" : "2")
		      : (par->limit_all_gathers ? "true" : "false"),
		    work_framework_name(sc->training.framework), par->zero);
	}
	if (par->limit_all_gathers == 0 && par->fsdp_version != 1)
		return plan_fail(sc, err, TS_EINVALID, "parallel.limit_all_gathers",
				 "found false with parallel.fsdp_version = %s, expected "
				 "fsdp_version = 1 (limit_all_gathers is an option of FSDP1's "
				 "FullyShardedDataParallel; FSDP2's fully_shard has none)",
				 par->fsdp_version == TS_UNSET ? "unset (2)" : "2");
	if (par->ep > 1 && par->dp % par->ep)
		return plan_fail(sc, err, TS_EINVALID, "parallel.ep",
				 "found %u, expected a divisor of dp = %u (expert parallelism "
				 "runs inside data parallelism)",
				 par->ep, par->dp);
	/* the all-to-alls give each CP rank heads / cp of every TP rank's heads
	 * (Transformer Engine: "The number of attention heads needs to be
	 * divisible by CP size!") */
	if (par->cp_comm == TS_CP_A2A && par->cp > 1) {
		int64_t hl = sc->model.heads / (int64_t)par->tp,
			kl = (sc->model.kv_heads >= (int64_t)par->tp
				  ? sc->model.kv_heads / (int64_t)par->tp
				  : 1);
		if (hl % (int64_t)par->cp || kl % (int64_t)par->cp)
			return plan_fail(sc, err, TS_EINVALID, "parallel.cp_comm",
					 "found \"a2a\" with %lld heads and %lld KV heads per "
					 "tensor-parallel rank and parallel.cp = %u, expected both "
					 "divisible by cp (each rank takes heads / cp of them)",
					 (long long)hl, (long long)kl, par->cp);
	}
	/* DeepEP dispatches over an expert-parallel group of a size it has a
	 * configuration for (work_deepep_buffer_bytes) */
	if (par->ep_dispatcher == TS_DISPATCH_DEEPEP &&
	    (sc->model.num_experts == 0 || work_deepep_buffer_bytes(2.0, (int)par->ep) < 0.0))
		return plan_fail(sc, err, TS_EINVALID, "parallel.ep_dispatcher",
				 "found \"deepep\" with %s parallel.ep = %u, expected a model "
				 "with experts and ep of 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, "
				 "144 or 160 (DeepEP's configurations by group size)",
				 sc->model.num_experts == 0 ? "a model without experts and"
							    : "a model with experts and",
				 par->ep);
	return 0;
}

/* Megatron-LM's uneven first and last stages (transformer_config.py,
 * TransformerConfig.__post_init__, "Uneven PP"; transformer_block.py,
 * get_num_layers_to_build): f layers on the first stage, l on the last, the
 * rest split evenly over the stages between (pp less one per key given);
 * with v virtual stages per GPU each chunk of a stage holds its stage's
 * layers / v, so f, l and the middle stages' layers must be multiples of
 * v. An unset key leaves its stage a middle one. */
static int split_first_last(const struct ts_scenario *sc, uint32_t *out, struct ts_error *err)
{
	const struct ts_parallel *par = &sc->parallel;
	int64_t L = sc->model.layers, f = par->first_stage_layers, l = par->last_stage_layers;
	uint32_t pp = par->pp, v = par->interleave;
	const char *key = f ? "parallel.first_stage_layers" : "parallel.last_stage_layers";
	if (pp < 2)
		return plan_fail(sc, err, TS_EINVALID, key,
				 "found %lld with parallel.pp = 1, expected pp >= 2 (the first "
				 "and last stage layers split a pipeline)",
				 (long long)(f ? f : l));
	if (par->account_embedding || par->account_loss)
		return plan_fail(sc, err, TS_EINVALID, key,
				 "found %lld with parallel.%s = true, expected one of the two ways "
				 "to split the layers (Megatron-LM refuses "
				 "num_layers_in_first/last_pipeline_stage with "
				 "account_for_embedding/loss_in_pipeline_split)",
				 (long long)(f ? f : l),
				 par->account_embedding ? "account_for_embedding"
							: "account_for_loss");
	if (f % v || l % v)
		return plan_fail(
		    sc, err, TS_EINVALID,
		    f % v ? "parallel.first_stage_layers" : "parallel.last_stage_layers",
		    "found %lld layers on the %s stage with interleave = %u, expected a "
		    "multiple of %u (Megatron-LM gives each of a stage's virtual stages "
		    "the same layers; Llama 3's layout, one layer fewer on the first "
		    "and last stages, is parallel.account_for_embedding and "
		    "account_for_loss)",
		    (long long)(f % v ? f : l), f % v ? "first" : "last", v, v);
	int64_t mid = L - f - l;
	uint32_t nmid = pp - (f ? 1u : 0u) - (l ? 1u : 0u);
	if (mid < 0 || (mid > 0) != (nmid > 0) || (nmid && mid % nmid) ||
	    (nmid && (mid / nmid) % v) || (nmid && mid / nmid < 1))
		return plan_fail(
		    sc, err, TS_EINVALID, key,
		    "found first_stage_layers = %lld and last_stage_layers = %lld of %lld layers "
		    "on "
		    "%u stages, which leaves %lld layers for the %u stages between; expected them "
		    "to split evenly, %s per stage",
		    (long long)f, (long long)l, (long long)L, pp, (long long)mid, nmid,
		    v > 1 ? "a positive multiple of interleave" : "at least one");
	int64_t per_mid = nmid ? mid / nmid : 0;
	for (uint32_t j = 0; j < v; j++)
		for (uint32_t st = 0; st < pp; st++) {
			int64_t n = st == 0 && f ? f : st + 1 == pp && l ? l : per_mid;
			out[j * pp + st] = (uint32_t)(n / v);
		}
	return 0;
}

/* Megatron-LM's account_for_embedding/loss_in_pipeline_split
 * (transformer_block.py, get_num_layers_to_build): the embedding and the
 * loss count as one layer each, the L + e + l slots are split evenly over
 * pp x v virtual stages, and the first virtual stage builds one layer fewer
 * (it holds the embedding), the last one fewer (it holds the loss). With
 * one slot per virtual stage the first holds only the embedding and the
 * last only the output projection and the loss: Llama 3 405B's layout
 * (Llama Team 2024, "The Llama 3 Herd of Models", §3.3.2). */
static int split_accounted(const struct ts_scenario *sc, uint32_t *out, struct ts_error *err)
{
	const struct ts_parallel *par = &sc->parallel;
	uint32_t pp = par->pp, v = par->interleave, V = pp * v;
	int64_t e = par->account_embedding, l = par->account_loss;
	int64_t slots = sc->model.layers + e + l;
	const char *key = e ? "parallel.account_for_embedding" : "parallel.account_for_loss";
	if (slots % V)
		return plan_fail(
		    sc, err, TS_EINVALID, key,
		    "found %lld layers + %lld (embedding) + %lld (loss) = %lld on pp x "
		    "interleave = %u virtual stages, expected a multiple of %u",
		    (long long)sc->model.layers, (long long)e, (long long)l, (long long)slots, V,
		    V);
	for (uint32_t c = 0; c < V; c++)
		out[c] = (uint32_t)(slots / V) - (c == 0 ? (uint32_t)e : 0u) -
			 (c + 1 == V ? (uint32_t)l : 0u);
	return 0;
}

/* parallel.layer_split = "front": the split of NeMo AutoModel's PyTorch
 * pipelining (nemo_automodel/components/distributed/pipelining/
 * functional.py, generate_hf_model_fqn_per_model_part, at commit
 * ce005dd86d78, the one that added the performance summary): L // V layers
 * on each of the V = pp x v virtual stages, one more on each of the first
 * L % V, the embedding added to virtual stage 0 and the final norm and
 * head to the last, neither counted as a layer; virtual stage c runs on
 * pipeline rank c mod pp ("loop" placement, stage_ids_this_rank), which is
 * trainsim's chunk order. 61 layers on 32 virtual stages: 2 on stages
 * 0-28, 1 on 29-31. The first/last and account_for keys are other splits:
 * one of them with it is refused. */
static int split_front(const struct ts_scenario *sc, uint32_t *out, struct ts_error *err)
{
	const struct ts_parallel *par = &sc->parallel;
	uint32_t V = par->pp * par->interleave;
	uint32_t L = (uint32_t)sc->model.layers;
	if (par->first_stage_layers || par->last_stage_layers || par->account_embedding ||
	    par->account_loss)
		return plan_fail(
		    sc, err, TS_EINVALID, "parallel.layer_split",
		    "found \"front\" with parallel.%s, expected one way to split the "
		    "layers (\"front\" is PyTorch pipelining's split as NeMo AutoModel "
		    "makes it; the other keys are Megatron-LM's)",
		    par->first_stage_layers  ? "first_stage_layers"
		    : par->last_stage_layers ? "last_stage_layers"
		    : par->account_embedding ? "account_for_embedding"
					     : "account_for_loss");
	if (L < V) /* the loader refuses it first; kept for a plan built without it */
		return plan_fail(sc, err, TS_EINVALID, "parallel.layer_split",
				 "found \"front\" for %u layers on pp x interleave = %u virtual "
				 "stages, expected at least one layer per virtual stage",
				 L, V);
	for (uint32_t c = 0; c < V; c++)
		out[c] = L / V + (c < L % V ? 1u : 0u);
	return 0;
}

int plan_stage_layers(const struct ts_scenario *sc, uint32_t *out, struct ts_error *err)
{
	const struct ts_parallel *par = &sc->parallel;
	uint32_t pp = par->pp, v = par->interleave, V = pp * v;
	int64_t L = sc->model.layers;
	if (par->layer_split == TS_SPLIT_FRONT)
		return split_front(sc, out, err);
	if (par->first_stage_layers || par->last_stage_layers)
		return split_first_last(sc, out, err);
	if (par->account_embedding || par->account_loss)
		return split_accounted(sc, out, err);
	if (v > 1 && L % V != 0)
		return plan_fail(sc, err, TS_EINVALID, "parallel.interleave",
				 "found %u virtual stages per GPU for %lld layers on %u stages, "
				 "expected the layers to be a multiple of pp x interleave = %u "
				 "(Megatron-LM's interleaved schedule takes the same whole layers "
				 "per virtual stage), parallel.first_stage_layers and "
				 "last_stage_layers that make them so, or parallel.layer_split = "
				 "\"front\" (PyTorch pipelining's uneven split)",
				 v, (long long)L, pp, V);
	for (uint32_t c = 0; c < V; c++)
		out[c] = pipe_even_layers((uint32_t)L, V, c);
	return 0;
}

/* power.gpu_limit outside the GPU's range of power limits: above its TDP
 * (the default limit, which nvidia-smi also gives as the maximum on the
 * GPUs of the catalog) or below its lowest limit (powercap_min_w). */
static int check_gpu_limit(const struct ts_scenario *sc, const struct hw_gpu_type *g,
			   struct ts_error *err)
{
	double L = sc->power.gpu_limit_w, lo = powercap_min_w(g);
	if (!(L > 0.0) || (L <= g->tdp_w && L >= lo))
		return 0;
	return plan_fail(sc, err, TS_ERANGE, "power.gpu_limit",
			 "found %g W, expected a power limit of %s from %g W (%s) to %g W (its "
			 "TDP, the default limit)",
			 L, g->name, lo,
			 g->power_min_w > 0.0 ? "its lowest, configs/hardware/gpus.cfg power_min"
					      : "half its TDP: the catalog gives no power_min",
			 g->tdp_w);
}

/* power.node_max below what the node's GPUs draw. */
static int check_power(const struct ts_scenario *sc, const struct hw_gpu_type *g,
		       struct ts_error *err)
{
	double G = (double)sc->gpus_per_node, gpus_w = G * g->tdp_w;
	if (!(sc->power.node_max_w > 0.0) || sc->power.node_max_w >= gpus_w)
		return 0;
	return plan_fail(sc, err, TS_ERANGE, "power.node_max",
			 "found %.0f W, expected at least the %.0f W the node's GPUs draw "
			 "(%.0f x %s at a TDP of %.0f W)",
			 sc->power.node_max_w, gpus_w, G, g->name, g->tdp_w);
}

/* The dataset and the storage of the input pipeline: data.dataset (default
 * c4-tokens for transformers, synthetic for layer-list models) read from
 * configs/datasets/, data.storage (default local-nvme) and the page cache
 * from the environment's storage catalog. */
static int resolve_input(const struct ts_env *env, const struct ts_scenario *sc,
			 const struct data_input *reuse, struct data_input *in,
			 struct ts_error *err)
{
	if (reuse) {
		in->dataset = reuse->dataset;
	} else {
		const char *dname = sc->data.dataset[0]			   ? sc->data.dataset
				    : sc->model.family == TS_FAMILY_LAYERS ? "synthetic"
									   : "c4-tokens";
		struct ts_error e2 = {0};
		int rc = data_dataset_load(env->root, dname, &in->dataset, &e2);
		if (rc) {
			if (e2.file[0]) { /* an error inside the dataset file: keep its place */
				if (err)
					*err = e2;
				return rc;
			}
			return plan_fail(sc, err, rc, "data.dataset", "%s", e2.msg);
		}
	}
	const char *sname = sc->data.storage[0] ? sc->data.storage : "local-nvme";
	const struct data_storage *st = data_catalog_find_storage(env->data, sname);
	if (!st) {
		char near[160];
		data_catalog_suggest_storage(env->data, sname, near, sizeof near);
		return plan_fail(sc, err, TS_EUNKNOWN_NAME, "data.storage",
				 "found \"%.60s\", expected a storage of "
				 "configs/hardware/storage.cfg; closest: %s",
				 sname, near[0] ? near : "(none)");
	}
	in->storage = *st;
	const struct data_storage *pc = data_catalog_find_storage(env->data, "page-cache");
	in->has_page_cache = pc != NULL;
	if (pc)
		in->page_cache = *pc;
	return 0;
}

/* offload = "nvme": read and write bandwidth of a node's drives, those of
 * data.storage (default local-nvme), all its devices; TS_EINVALID naming
 * data.storage when that is not a local storage with a write bandwidth. */
static int nvme_drives(const struct ts_scenario *sc, const struct data_input *in, double *rd,
		       double *wr, struct ts_error *err)
{
	const struct data_storage *st = &in->storage;
	if (st->kind == DATA_STORAGE_LOCAL && st->write_Bps > 0.0) {
		*rd = st->read_Bps * st->devices;
		*wr = st->write_Bps * st->devices;
		return 0;
	}
	return plan_fail(sc, err, TS_EINVALID, "data.storage",
			 "found \"%s\" with parallel.offload = \"nvme\", expected a "
			 "node-local drive with a write bandwidth to hold the optimizer "
			 "state (local-nvme, local-nvme-gen3, local-nvme-gen5, "
			 "local-nvme-raid8)",
			 st->name);
}

int plan_ckpt_storage(const struct ts_scenario *sc, const struct data_catalog *cat,
		      const struct data_storage **out, struct ts_error *err)
{
	const struct ts_checkpoint *ck = &sc->checkpoint;
	const char *key = ck->storage[0] ? "checkpoint.storage" : "data.storage";
	const char *name = ck->storage[0]	 ? ck->storage
			   : sc->data.storage[0] ? sc->data.storage
						 : "local-nvme";
	*out = data_catalog_find_storage(cat, name);
	if (*out)
		return 0;
	char close[200];
	data_catalog_suggest_storage(cat, name, close, sizeof close);
	return plan_fail(sc, err, TS_EUNKNOWN_NAME, key,
			 "found \"%s\", expected a storage type of "
			 "configs/hardware/storage.cfg; close matches: %s",
			 name, close[0] ? close : "(none)");
}

/* The unit of one op at op granularity: its costs, its gradients in the
 * reduction dtype (gb bytes per parameter), act_bytes saved for backward
 * (in memory category cat), rs seconds of recompute, in layer `layer`. */
static struct dp_unit op_unit(const struct work_op_cost *o, const char *label, double gb,
			      double act_bytes, double rs, enum graph_mem cat, uint16_t layer)
{
	return (struct dp_unit){.label = label,
				.fwd_s = o->fwd_s,
				.dgrad_s = o->dgrad_s,
				.wgrad_s = o->wgrad_s,
				.recompute_s = rs,
				.kernels_rec = rs > 0.0 ? o->op.kernels : 0,
				.kernels_fwd = o->op.kernels,
				.kernels_bwd = o->op.bwd_kernels,
				.grad_bytes = o->op.params * gb,
				.act_bytes = act_bytes,
				.act_cat = cat,
				.layer = layer,
				.tp_fwd = o->op.tp_fwd,
				.tp_bwd = o->op.tp_bwd,
				.fwd_flops = o->op.fwd_flops,
				.dgrad_flops = o->op.dgrad_flops,
				.wgrad_flops = o->op.wgrad_flops,
				.recompute_flops = rs > 0.0 ? o->op.fwd_flops : 0.0};
}

/* Seconds op o adds in each phase (fwd, dgrad, wgrad) under the TP
 * communication overlap: its time x work_tpo_slowdown; all 0 without
 * parallel.tp_comm_overlap. */
static void op_tpo(const struct ts_plan *p, const struct work_op_cost *o, double out[3])
{
	const struct ts_parallel *par = &p->sc->parallel;
	uint32_t tp = par->tp > 1 ? (uint32_t)par->tp : 1u;
	double ph_s[3] = {o->fwd_s, o->dgrad_s, o->wgrad_s};
	for (int i = 0; i < 3; i++)
		out[i] = par->tp_comm_overlap && o->op.kind == WORK_GEMM
			     ? ph_s[i] * work_tpo_slowdown(o->op.name, (enum work_phase)i, tp,
							   p->gpu_run.sms,
							   p->calib->comm_compute_slowdown)
			     : 0.0;
}

/* The TP-overlap seconds of one layer's ops (lc) into unit x, with
 * recompute mode rl: the rerun adds its overlapped forward GEMMs' share
 * (full: all; op-level: each op's sac_rerun; selective reruns only the
 * attention core, which overlaps nothing). */
static void layer_tpo(const struct ts_plan *p, const struct work_costs *lc, enum work_recompute rl,
		      struct dp_unit *x)
{
	for (size_t i = 0; i < lc->nops; i++) {
		double t[3];
		op_tpo(p, &lc->ops[i], t);
		x->tpo_fwd_s += t[0];
		x->tpo_dgrad_s += t[1];
		x->tpo_wgrad_s += t[2];
		if (rl == WORK_RECOMPUTE_FULL)
			x->tpo_rec_s += t[0];
		else if (rl == WORK_RECOMPUTE_OP)
			x->tpo_rec_s += lc->ops[i].op.sac_rerun * t[0];
	}
}

/* The FLOPs of ops[0..n) into a unit (forward, input and weight gradient). */
static void unit_flops(struct dp_unit *u, const struct work_op_cost *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		u->fwd_flops += ops[i].op.fwd_flops;
		u->dgrad_flops += ops[i].op.dgrad_flops;
		u->wgrad_flops += ops[i].op.wgrad_flops;
	}
}

/* The units of one micro-batch in forward order. */
/* The recompute mode of model layer l (0-based): with
 * training.recompute_layers = N and full recompute, Megatron-LM's block
 * method recomputes the first N layers of each pipeline chunk
 * (megatron/core/transformer/transformer_block.py, _checkpointed_forward:
 * recompute_method "block") and keeps the others' activations; layers past
 * the decoder's (multi-token prediction) keep the scenario's mode.
 * With training.recompute_interval = N > 1 (torchtitan's layer-level
 * selective checkpointing, selective_ac_option = "N": a counter over the
 * blocks it wraps, in the process, checkpoints the block when the counter
 * is a multiple of N; torchtitan/distributed/activation_checkpoint.py at
 * 25413d224c5adb926c497c63c04ec58d39a3a643, _apply_ac_to_transformer_block)
 * the N-th, 2N-th, ... layer of each rank's layers, in the order of its
 * chunks, recomputes in full and the others keep their activations. */
static enum work_recompute layer_rc(const struct ts_plan *p, uint32_t l)
{
	uint64_t N = (uint64_t)p->sc->training.recompute_layers;
	uint64_t I = (uint64_t)p->sc->training.recompute_interval;
	if (I > 1 && p->recompute == WORK_RECOMPUTE_FULL && l < (uint32_t)p->sc->model.layers &&
	    p->nchunks > 0) {
		uint32_t pp = p->sc->parallel.pp ? p->sc->parallel.pp : 1u, start = 0;
		for (uint32_t k = 0; k < p->nchunks; k++) {
			if (l < start + p->chunk_layers[k]) {
				uint64_t pos = l - start; /* layers before it on its rank */
				for (uint32_t j = k % pp; j < k; j += pp)
					pos += p->chunk_layers[j];
				return (pos + 1) % I == 0 ? WORK_RECOMPUTE_FULL
							  : WORK_RECOMPUTE_NONE;
			}
			start += p->chunk_layers[k];
		}
		return p->recompute;
	}
	if (!N || p->recompute != WORK_RECOMPUTE_FULL || l >= (uint32_t)p->sc->model.layers)
		return p->recompute;
	uint32_t start = 0;
	for (uint32_t k = 0; k < p->nchunks; k++) {
		if (l < start + p->chunk_layers[k])
			return l - start < N ? WORK_RECOMPUTE_FULL : WORK_RECOMPUTE_NONE;
		start += p->chunk_layers[k];
	}
	return p->recompute;
}

static int make_units(const struct ts_plan *p, enum dp_granularity gran, struct dp_unit **out,
		      uint32_t *n)
{
	const struct work_costs *c = &p->costs;
	const struct ts_model *m = &p->sc->model;
	double gb = ts_dtype_bytes(p->conv.reduce_dtype);
	uint32_t L = (uint32_t)m->layers;
	/* the first D layers of a MoE model are dense; the M multi-token
	 * prediction blocks run on the last stage after layer L (as layer L) */
	uint32_t D = m->num_experts > 0 ? (uint32_t)m->dense_layers : 0u;
	uint32_t M = (uint32_t)m->mtp_depth;
	const struct work_costs *dc = D > 0 ? &p->dense_costs : c;
	size_t cnt = gran == DP_GRAN_OP
			 ? c->nembed_ops + (L - D + M) * c->nops + D * dc->nops + c->nhead_ops
			 : L + M + 2u;
	struct dp_unit *u = ts_calloc(cnt, sizeof *u);
	if (!u)
		return TS_ENOMEM;
	size_t k = 0;
	if (gran == DP_GRAN_OP) {
		for (size_t i = 0; i < c->nembed_ops; i++, k++) {
			const struct work_op_cost *o = &c->embed_ops[i];
			u[k] = op_unit(o, "embed", gb, o->op.saved_bytes, 0.0,
				       GRAPH_MEM_ACTIVATIONS, 0);
		}
		for (uint32_t l = 0; l < L + M; l++) {
			const struct work_costs *lc = l < D ? dc : c;
			enum work_recompute rl = layer_rc(p, l);
			/* full recompute reruns the layer's forward before the
			 * backward of its last op (the first to run) and makes
			 * its activations again, held until each op's backward
			 * frees its own (at the same peak: all of them as the
			 * layer's backward starts); selective reruns the
			 * attention core inside its op's backward; op-level
			 * checkpointing is full recompute of the ops it does
			 * not save (each op keeps the outputs it saves, the
			 * first the block's input too) */
			bool sac = rl == WORK_RECOMPUTE_OP;
			double saved = 0.0, fwd = 0.0, flops = 0.0, kept = 0.0;
			uint32_t kern = 0;
			for (size_t i = 0; i < lc->nops; i++) {
				const struct work_op *w = &lc->ops[i].op;
				double share = sac ? w->sac_rerun : 1.0;
				saved += w->saved_bytes;
				fwd += share * lc->ops[i].fwd_s;
				flops += share * w->fwd_flops;
				kern += share > 0.0 ? w->kernels : 0u;
				kept += w->sac_bytes;
			}
			for (size_t i = 0; i < lc->nops; i++, k++) {
				const struct work_op_cost *o = &lc->ops[i];
				double act = o->op.saved_bytes, rs = 0.0, rb = 0.0;
				bool last = i + 1 == lc->nops;
				if (rl == WORK_RECOMPUTE_FULL) {
					act = i == 0 ? lc->layer_input_bytes : 0.0;
					rs = last ? fwd : 0.0;
					rb = last ? saved - lc->layer_input_bytes : 0.0;
				} else if (sac) {
					act = o->op.sac_bytes +
					      (i == 0 ? lc->layer_input_bytes : 0.0);
					rs = last ? fwd : 0.0;
					rb = last ? saved - lc->layer_input_bytes - kept : 0.0;
				} else if (rl == WORK_RECOMPUTE_SELECTIVE &&
					   o->op.selective_bytes > 0.0) {
					act -= o->op.selective_bytes;
					rs = o->fwd_s;
					rb = o->op.selective_bytes;
				}
				u[k] = op_unit(o, o->op.name, gb, act, rs, GRAPH_MEM_ACTIVATIONS,
					       (uint16_t)(l < L ? l + 1 : L));
				u[k].recompute_bytes = rb > 0.0 ? rb : 0.0;
				double t[3];
				op_tpo(p, o, t);
				u[k].tpo_fwd_s = t[0];
				u[k].tpo_dgrad_s = t[1];
				u[k].tpo_wgrad_s = t[2];
				/* the layer's rerun sits on its last op */
				if ((rl == WORK_RECOMPUTE_FULL || sac) && last) {
					struct dp_unit tmp = {0};
					layer_tpo(p, lc, rl, &tmp);
					u[k].tpo_rec_s = tmp.tpo_rec_s;
				} else if (rs > 0.0) {
					u[k].tpo_rec_s = t[0];
				}
				if ((rl == WORK_RECOMPUTE_FULL || sac) && last) {
					u[k].kernels_rec = kern;
					u[k].recompute_flops = flops;
				}
			}
		}
		for (size_t i = 0; i < c->nhead_ops; i++, k++) {
			const struct work_op_cost *o = &c->head_ops[i];
			u[k] = op_unit(o, o->op.name, gb, o->op.saved_bytes, 0.0, GRAPH_MEM_LOGITS,
				       (uint16_t)(L + 1));
		}
	} else {
		u[k++] = (struct dp_unit){.label = "embed",
					  .fwd_s = c->embed_fwd_s,
					  .dgrad_s = 0.0,
					  .wgrad_s = c->embed_bwd_s,
					  .kernels_fwd = c->embed_kernels_fwd,
					  .kernels_bwd = c->embed_kernels_bwd,
					  .grad_bytes = c->embed_params * gb,
					  .act_bytes = c->embed_saved_bytes,
					  .act_cat = GRAPH_MEM_ACTIVATIONS,
					  .layer = 0};
		for (uint32_t l = 0; l < L + M; l++) {
			const struct work_costs *lc = l < D ? dc : c;
			enum work_recompute rl = layer_rc(p, l);
			u[k++] = (struct dp_unit){
			    .label = l < L ? "layer" : "mtp layer",
			    .fwd_s = lc->layer_fwd_s,
			    .dgrad_s = lc->layer_dgrad_s,
			    .wgrad_s = lc->layer_wgrad_s,
			    .recompute_s = lc->layer_recompute_s[rl],
			    /* the activations the rerun makes again (full: the
			     * layer's; selective: the attention core's) */
			    .recompute_bytes = fmax(0.0, lc->layer_act_bytes[WORK_RECOMPUTE_NONE] -
							     lc->layer_act_bytes[rl]),
			    .kernels_rec = lc->layer_recompute_kernels[rl],
			    .kernels_fwd = lc->layer_kernels_fwd,
			    .kernels_bwd = lc->layer_kernels_bwd,
			    .grad_bytes = lc->layer_params * gb,
			    .act_bytes = lc->layer_act_bytes[rl],
			    .act_cat = GRAPH_MEM_ACTIVATIONS,
			    .layer = (uint16_t)(l < L ? l + 1 : L)};
		}
		u[k++] = (struct dp_unit){.label = "head",
					  .fwd_s = c->head_fwd_s,
					  .dgrad_s = c->head_dgrad_s,
					  .wgrad_s = c->head_wgrad_s,
					  .kernels_fwd = c->head_kernels_fwd,
					  .kernels_bwd = c->head_kernels_bwd,
					  .grad_bytes = c->head_params * gb,
					  .act_bytes = c->head_saved_bytes,
					  .act_cat = GRAPH_MEM_LOGITS,
					  .layer = (uint16_t)(L + 1)};
		unit_flops(&u[0], c->embed_ops, c->nembed_ops);
		for (uint32_t l = 0; l < L + M; l++) {
			const struct work_costs *lc = l < D ? dc : c;
			unit_flops(&u[1 + l], lc->ops, lc->nops);
			layer_tpo(p, lc, layer_rc(p, l), &u[1 + l]);
			u[1 + l].recompute_flops = lc->layer_recompute_flops[layer_rc(p, l)];
		}
		unit_flops(&u[L + M + 1], c->head_ops, c->nhead_ops);
	}
	/* weights per unit, and Megatron-LM's tensor-parallel collectives
	 * (Shoeybi et al. 2019, §3, Fig. 3): per layer g (all-reduce) after the
	 * attention output projection and after fc2 in forward, f after the
	 * input gradients of qkv and fc1 in backward; the vocab-parallel
	 * embedding all-reduces its output, the head's input gradient is
	 * all-reduced */
	/* context parallelism: the attention runs beside the ring of K, V
	 * blocks; MoE: dispatch and combine all-to-alls after the router and
	 * the second expert GEMM in forward, their gradients after the expert
	 * GEMMs' backward (work_costs.layer_a2a_fwd, layer_a2a_bwd: 2 and 2) */
	double attn_f = 0.0, attn_b = 0.0;
	for (size_t i = 0; i < c->nops; i++)
		if (c->ops[i].op.kind == WORK_ATTN_FLASH || c->ops[i].op.kind == WORK_ATTN_CORE) {
			attn_f += c->ops[i].fwd_s;
			attn_b += c->ops[i].dgrad_s + c->ops[i].wgrad_s;
		}
	bool moe = c->layer_a2a_fwd > 0;
	for (size_t i = 0; i < k; i++) {
		struct dp_unit *x = &u[i];
		if (x->layer >= 1 && x->layer <= L && c->layer_cp_steps > 0) {
			bool at = gran != DP_GRAN_OP || !strcmp(x->label, "attn");
			x->ring_fwd_s = at ? (gran == DP_GRAN_OP ? x->fwd_s : attn_f) : 0.0;
			x->ring_bwd_s = at ? (gran == DP_GRAN_OP ? x->dgrad_s : attn_b) : 0.0;
		}
		bool dense = x->layer >= 1 && x->layer <= D;
		if (x->layer >= 1 && x->layer <= L && moe && !dense) {
			if (gran != DP_GRAN_OP) {
				x->a2a_fwd = (uint8_t)c->layer_a2a_fwd;
				x->a2a_bwd = (uint8_t)c->layer_a2a_bwd;
			} else {
				x->a2a_fwd =
				    !strcmp(x->label, "router") || !strcmp(x->label, "expert_fc2");
				x->a2a_bwd = !strcmp(x->label, "expert_fc1") ||
					     !strcmp(x->label, "expert_fc2");
			}
		}
		x->params = gb > 0.0 ? x->grad_bytes / gb : 0.0;
		if (x->layer >= 1 && x->layer <= L) {
			/* op granularity: each op's own tp_fwd / tp_bwd (op_unit) */
			if (gran != DP_GRAN_OP) {
				x->tp_fwd = (uint8_t)(dense ? dc : c)->layer_tp_fwd;
				x->tp_bwd = (uint8_t)(dense ? dc : c)->layer_tp_bwd;
			}
		} else if (x->layer == 0 && (i + 1 == k || u[i + 1].layer != 0)) {
			x->tp_fwd = 1;
		} else if (x->layer == L + 1 && i > 0 && u[i - 1].layer != L + 1) {
			x->tp_bwd = 1;
		}
	}
	*out = u;
	*n = (uint32_t)k;
	return 0;
}

double plan_units_per_step(const struct ts_plan *p, double batch_share)
{
	const struct ts_training *tr = &p->sc->training;
	switch (tr->run_unit) {
	case TS_RUN_TOKENS:
		return (double)tr->global_batch * (double)tr->seq_len * batch_share;
	case TS_RUN_SAMPLES:
		return (double)tr->global_batch;
	case TS_RUN_EPOCHS: {
		/* passes over the dataset (data.dataset); a token dataset counts
		 * tokens, packed into sequences of seq_len */
		const struct data_dataset *ds = &p->input.dataset;
		double per_epoch = ds->per_token ? ds->samples / (double)tr->seq_len : ds->samples;
		return (double)tr->global_batch / per_epoch;
	}
	default:
		return 1.0;
	}
}

/* plan_stage_exact of scenario sc (plan.h). */
static bool stage_exact(const struct ts_scenario *sc)
{
	const struct ts_parallel *par = &sc->parallel;
	uint32_t gpn = hw_cluster_gpus_per_node(sc->cluster);
	/* tensor parallelism over a whole node: no other group's traffic
	 * on its links */
	bool tp_alone = par->tp <= 1 || (par->tp == gpn && !par->tp_comm_overlap);
	return tp_alone && par->cp <= 1 && par->ep <= 1 && par->offload == TS_OFFLOAD_NONE;
}

/* Refuse a run length of less than one optimizer step of the full global
 * batch (5e-324 tokens made 0 steps and a run of 0 s); epochs count passes
 * over p's resolved dataset. */
static int check_run_length(const struct ts_plan *p, struct ts_error *err)
{
	const struct ts_training *tr = &p->sc->training;
	double per_step = plan_units_per_step(p, 1.0);
	if (tr->run_unit == TS_RUN_NONE || tr->run_length / per_step >= 1.0)
		return 0;
	char key[64];
	snprintf(key, sizeof key, "training.%s", ts_run_unit_name(tr->run_unit));
	return plan_fail(p->sc, err, TS_ERANGE, key,
			 "found %g, less than one step (%.6g %s per step), expected at least one "
			 "step",
			 tr->run_length, per_step, ts_run_unit_name(tr->run_unit));
}

static int build(const struct ts_env *env, const struct ts_scenario *sc,
		 const struct data_input *reuse, struct ts_plan **out, struct ts_error *err)
{
	const struct ts_parallel *par = &sc->parallel;
	*out = NULL;
	int rc;
	if ((rc = plan_check_modelled(sc, err)) || (rc = check_pairs(sc, err)))
		return rc;
	struct ts_plan *p = ts_calloc(1, sizeof *p);
	if (!p)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	p->nchunks = par->pp * par->interleave;
	if (!(p->chunk_layers = ts_calloc(p->nchunks, sizeof *p->chunk_layers))) {
		ts_free(p, sizeof *p);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	if (sc->model.family != TS_FAMILY_LAYERS &&
	    (rc = plan_stage_layers(sc, p->chunk_layers, err)))
		goto fail;
	p->env = env;
	p->sc = sc;
	p->calib = &env->calib;
	p->gpu = hw_cluster_gpu_type(sc->cluster);
	if ((rc = check_gpu_limit(sc, p->gpu, err)))
		goto fail;
	p->clock_ratio = powercap_gpu(p->gpu, sc->power.gpu_limit_w, &p->gpu_run);
	int prec = sc->training.precision;
	if (prec == TS_UNSET)
		prec = p->gpu->peak_flops[TS_BF16] > 0.0 ? TS_BF16 : TS_FP16;
	p->dtype = (enum ts_dtype)prec;
	if (!(p->gpu->peak_flops[p->dtype] > 0.0)) {
		rc = plan_fail(sc, err, TS_EINVALID, "training.precision",
			       "found %s, but %s has no %s tensor cores; expected one of "
			       "the GPU's precisions",
			       ts_dtype_name(p->dtype), p->gpu->name, ts_dtype_name(p->dtype));
		goto fail;
	}
	if (work_fw_conventions(sc->training.framework, p->dtype, &p->conv)) {
		rc =
		    plan_fail(sc, err, TS_EINVALID, "training.framework",
			      "found %s with %s, expected a framework/precision pair it supports",
			      work_framework_name(sc->training.framework), ts_dtype_name(p->dtype));
		goto fail;
	}
	if (sc->training.optimizer == TS_OPT_ADAM8BIT)
		work_fw_adam8bit(&p->conv);
	else if (sc->training.optimizer == TS_OPT_SGD ||
		 sc->training.optimizer == TS_OPT_SGD_NOMOMENTUM)
		work_fw_sgd(&p->conv, sc->training.optimizer == TS_OPT_SGD);
	if (!sc->training.master_weights)
		work_fw_no_master(&p->conv, p->dtype);
	work_fw_precision_options(&p->conv, sc->training.grad_reduce_in_fp32 == 0,
				  sc->training.fp8_params);
	/* the step's temporaries (work_step_temp_bytes) are torch.optim's
	 * foreach intermediate: none for a fused step, nor for SGD without
	 * weight decay (torch/optim/sgd.py, _multi_tensor_sgd;
	 * pytorch/pytorch#105599); a for-loop step holds one tensor's
	 * intermediates at a time, left out */
	int impl = sc->training.optimizer_impl;
	if (impl != TS_UNSET && impl != TS_OPTIMPL_FUSED && !p->conv.torch_optimizer) {
		rc = plan_fail(sc, err, TS_EINVALID, "training.optimizer_impl",
			       "found \"%s\" with %s, whose step is its own fused one; expected "
			       "\"fused\" or unset",
			       impl == TS_OPTIMPL_FORLOOP ? "for-loop" : "foreach",
			       work_framework_name(sc->training.framework));
		goto fail;
	}
	if (p->conv.torch_optimizer && impl != TS_UNSET && impl != TS_OPTIMPL_FOREACH)
		p->conv.step_temp_bpp = 0.0; /* SGD's: work_fw_sgd */
	p->dp = par->dp;
	int64_t per_step = sc->training.micro_batch * (int64_t)p->dp;
	int64_t accum = sc->training.global_batch / per_step;
	if (accum < 1) {
		rc = plan_fail(sc, err, TS_EINVALID, "training.global_batch",
			       "found %lld, expected at least micro_batch x dp = %lld",
			       (long long)sc->training.global_batch, (long long)per_step);
		goto fail;
	}
	if (accum > PLAN_MAX_ACCUM) {
		rc = plan_fail(sc, err, TS_ELIMIT, "training.global_batch",
			       "found %lld = %lld micro-batches of micro_batch x dp = %lld, "
			       "expected at most %d micro-batches per iteration",
			       (long long)sc->training.global_batch, (long long)accum,
			       (long long)per_step, PLAN_MAX_ACCUM);
		goto fail;
	}
	p->accum = (uint32_t)accum;
	/* parallel.flushes: the micro-batches as that many schedules of
	 * accum / flushes each (NeMo AutoModel: local_batch_size / micro-batch
	 * per schedule.step, global_batch / (local_batch_size x dp) of them,
	 * recipes/llm/benchmark.py) */
	uint32_t nflush = par->flushes > 1 ? par->flushes : 1u;
	if (nflush > 1 && par->pp < 2) {
		rc = plan_fail(sc, err, TS_EINVALID, "parallel.flushes",
			       "found %u with parallel.pp = 1, expected pp >= 2 (a flush "
			       "empties a pipeline)",
			       nflush);
		goto fail;
	}
	if (accum % nflush) {
		rc = plan_fail(sc, err, TS_EINVALID, "parallel.flushes",
			       "found %u, expected a divisor of the %lld micro-batches per "
			       "pipeline",
			       nflush, (long long)accum);
		goto fail;
	}
	int64_t per_sched = accum / nflush;
	/* The interleaved schedule runs the micro-batches in rounds of pp
	 * (pipe.c, stage_order). Megatron-LM requires that; PyTorch's
	 * ScheduleInterleaved1F1B (torch/distributed/pipelining/schedules.py,
	 * torch 2.8 and 2.9) runs rounds of m / max(1, m // pp), the same
	 * schedule when pp divides m and another one otherwise, which trainsim
	 * does not build. */
	if (par->schedule == TS_SCHED_INTERLEAVED && par->interleave > 1 && per_sched % par->pp) {
		int64_t m = per_sched;
		int64_t rounds = m / par->pp > 1 ? m / par->pp : 1;
		char torch[96];
		if (m % rounds)
			snprintf(torch, sizeof torch,
				 "refuses it too: not a multiple of its %lld rounds",
				 (long long)rounds);
		else
			snprintf(torch, sizeof torch,
				 "would run rounds of %lld, a schedule trainsim does not build",
				 (long long)(m / rounds));
		rc = plan_fail(sc, err, TS_EINVALID,
			       nflush > 1 ? "parallel.flushes" : "training.global_batch",
			       "found %lld micro-batches per %s, expected a multiple of "
			       "the %u pipeline stages for the interleaved schedule "
			       "(Megatron-LM requires it; PyTorch's Interleaved1F1B %s)",
			       (long long)m, nflush > 1 ? "flush" : "pipeline", par->pp, torch);
		goto fail;
	}
	p->recompute = sc->training.recompute;
	if (sc->training.recompute_layers && p->recompute != WORK_RECOMPUTE_FULL) {
		rc = plan_fail(sc, err, TS_EINVALID, "training.recompute_layers",
			       "found %lld with recompute \"%s\", expected it with recompute = "
			       "\"full\" only (Megatron-LM's --recompute-num-layers goes with "
			       "--recompute-granularity full)",
			       (long long)sc->training.recompute_layers,
			       work_recompute_name(p->recompute));
		goto fail;
	}
	if ((rc = check_pytorch_recompute(sc, err)) || (rc = check_act_offload(sc, err)))
		goto fail;
	for (uint32_t l = 0; l < (uint32_t)sc->model.layers; l++)
		p->recompute_layers_n += layer_rc(p, l) != WORK_RECOMPUTE_NONE;
	p->shape = (struct work_shape){
	    .micro_batch = sc->training.micro_batch,
	    .seq_len = sc->training.seq_len,
	    .tp = par->tp,
	    .cp = par->cp,
	    .ep = par->ep,
	    .sp = par->sp && par->tp > 1,
	    .dtype = p->dtype,
	    .flash = sc->training.flash_attention && p->dtype != TS_FP32 && p->dtype != TS_TF32,
	    .causal = sc->model.family != TS_FAMILY_BERT,
	    .xent = sc->training.xent,
	    .mlm_masked = sc->training.mlm_masked,
	};
	p->gran = sc->sim.granularity == TS_GRAN_OP	 ? DP_GRAN_OP
		  : sc->sim.granularity == TS_GRAN_STAGE ? DP_GRAN_STAGE
		  : sc->sim.granularity == TS_GRAN_LAYER ? DP_GRAN_LAYER
		  : stage_exact(sc)			 ? DP_GRAN_STAGE
							 : DP_GRAN_LAYER;
	p->class_mode = sc->sim.mode == TS_MODE_CLASS;
	p->class_merge = p->class_mode;
	if (sc->model.family == TS_FAMILY_LAYERS) {
		rc = lnet_units_build(&sc->model, sc->training.micro_batch, p->dp, p->dtype,
				      &p->gpu_run, p->calib, p->gran,
				      ts_dtype_bytes(p->conv.reduce_dtype), p->recompute, &p->units,
				      &p->nunits, &p->recompute_flops_mb, err);
		if ((rc = place(sc, err, rc)))
			goto fail;
	} else {
		rc = work_costs_compute(&sc->model, &p->shape, &p->gpu_run, p->calib, &p->costs,
					err);
		if ((rc = place(sc, err, rc)))
			goto fail;
		struct ts_model dm;
		if (work_dense_model(&sc->model, &dm)) {
			struct work_shape ds = p->shape;
			ds.ep = 1; /* no experts to shard */
			rc = work_costs_compute(&dm, &ds, &p->gpu_run, p->calib, &p->dense_costs,
						err);
			if ((rc = place(sc, err, rc)))
				goto fail;
		}
		if (make_units(p, p->gran, &p->units, &p->nunits)) {
			rc = ts_error_set(err, TS_ENOMEM, NULL, 0, NULL, "out of memory");
			goto fail;
		}
	}
	p->params = ts_model_params(&sc->model);
	p->bucket_bytes =
	    par->bucket_bytes == TS_UNSET ? p->conv.bucket_bytes : (double)par->bucket_bytes;
	p->first_bucket_bytes = par->bucket_bytes == TS_UNSET ? p->conv.first_bucket_bytes : 0.0;
	p->straggle = straggle_slowdown((uint64_t)par->tp * par->cp * par->pp * par->dp,
					sc->sim.straggler_sd);
	p->overlap = par->overlap_grad_reduce == TS_UNSET ? p->conv.overlap_grad_reduce
							  : par->overlap_grad_reduce != 0;
	p->optimizer_s_per_param =
	    work_optimizer_time(&p->gpu_run, p->calib, 1.0, p->conv.optim_bytes_touched);
	p->optimizer_kernels = 1u + (uint32_t)(sc->model.layers * (int64_t)p->costs.nops / 48);
	if ((rc = resolve_input(env, sc, reuse, &p->input, err)) || (rc = check_run_length(p, err)))
		goto fail;
	if (par->offload == TS_OFFLOAD_NVME &&
	    (rc = nvme_drives(sc, &p->input, &p->nvme_read_Bps, &p->nvme_write_Bps, err)))
		goto fail;
	/* a checkpoint holds the weights and the optimizer state (not gradients) */
	p->ckpt_bytes = p->params * (p->conv.weight_bytes + p->conv.optim_bytes);
	if ((rc = check_power(sc, p->gpu, err)))
		goto fail;
	const struct ts_checkpoint *ck = &sc->checkpoint;
	/* resolved whenever checkpoints may be written: failures modelled
	 * checkpoint by default (sim/run/cost.h, cost_ckpt_auto) */
	if (!ck->interval_none && !(ck->write_Bps > 0.0)) {
		const struct data_storage *st;
		if ((rc = plan_ckpt_storage(sc, env->data, &st, err)))
			goto fail;
		p->ckpt_storage = *st;
		p->ckpt_storage_set = true;
	}
	p->max_memory = ts_scenario_max_memory(sc);
	p->est_bytes = plan_estimate(p, false);
	p->est_trace_bytes = plan_estimate(p, true);
	if ((rc = plan_check_size(p, false, err)))
		goto fail;
	/* a run in phases: each phase its own plan (its own checks) */
	for (uint32_t i = 0; i < sc->n_phases; i++) {
		if ((rc = build(env, sc->phases[i], NULL, &p->phases[i], err)))
			goto fail;
		p->n_phases = i + 1;
	}
	*out = p;
	return 0;
fail:
	plan_destroy(p);
	return rc;
}

/* The shortest iterations of an extension are chosen so that 1F1B has
 * reached its steady state (after p - 1 warm-up forwards) in both, and
 * multiples of the stage count as interleaved 1F1B needs;
 * tests/check_extrap.c compares extensions against whole iterations. */
bool plan_extends(const struct ts_scenario *sc, uint32_t *m1, uint32_t *m2, uint32_t *m)
{
	const struct ts_training *tr = &sc->training;
	const struct ts_parallel *par = &sc->parallel;
	uint32_t u = par->pp > 0 ? par->pp : 1u;
	int64_t per_step = tr->micro_batch * (int64_t)par->dp;
	int64_t all = per_step > 0 ? tr->global_batch / per_step : 0;
	uint32_t a = u * (u >= PLAN_EXTRAP_M1 / 2 ? 2u : (PLAN_EXTRAP_M1 + u - 1) / u);
	uint32_t b = a + u * (u >= PLAN_EXTRAP_DM ? 1u : (PLAN_EXTRAP_DM + u - 1) / u);
	if (par->schedule != TS_SCHED_INTERLEAVED && u >= PLAN_EXTRAP_M1) {
		/* without interleaving any count will do: p + p/2 micro-batches
		 * have every stage past its p - 1 warm-up forwards for p/2
		 * steady steps, and p/2 (>= PLAN_EXTRAP_DM) more are the slope */
		a = u + u / 2;
		b = a + u / 2;
	}
	*m1 = a;
	*m2 = b;
	*m = all > 0 && all <= PLAN_MAX_ACCUM ? (uint32_t)all : 0;
	/* a batch the plan refuses, or micro-batches interleaving cannot
	 * take, get their message from the whole run */
	/* several flushes are simulated whole: each has its own warm-up */
	return sc->sim.extrapolate && all >= (int64_t)a + b && all <= PLAN_MAX_ACCUM &&
	       !(par->schedule == TS_SCHED_INTERLEAVED && all % u) && par->flushes <= 1;
}

/* Micro-batches per iteration a run of p simulates at once: the longer of
 * the two short runs of an extension (they follow each other), else all;
 * a traced run simulates all. */
static uint32_t simulated_mb(const struct ts_plan *p, bool trace)
{
	uint32_t m1, m2, m;
	if (!trace && plan_extends(p->sc, &m1, &m2, &m))
		return m2;
	return p->accum;
}

/* Graph tasks that one GPU task with `kernels` launches adds where its
 * launches are tasks (par/pipe.c, gpu: a trace, or a class whose host
 * waits for loaded batches): a first launch, and with more kernels the
 * other launches and a mark that waits for them. Elsewhere the launches'
 * ends are known when the graph is built and add no task. */
static double launch_tasks(uint32_t kernels, double launch_s)
{
	if (kernels == 0 || !(launch_s > 0.0))
		return 0.0;
	return kernels > 1 ? 3.0 : 1.0;
}

/* The size model. A run's memory is its task graph: every task of every
 * simulated iteration and micro-batch on every rank class is one record
 * (par/graph.c, struct gtask) with about 2 dependencies (an edge and a
 * successor each) and, for collectives, a record and its ranks, sized by
 * graph_bytes.
 *
 * Per micro-batch and class (par/pipe.c), each unit the class holds (a layer
 * or an op) makes a forward, two backward (input and weight gradients) and
 * a recompute GPU task, one graph task each, plus their launches where those
 * are tasks (a trace, or the first stage, whose host waits for loaded
 * batches); and one task per collective after it for each group it leads:
 * in class mode every class leads its groups, in full mode one rank of each
 * (tensor-parallel, expert all-to-all, context-parallel ring steps, ZeRO
 * gathers and per-micro-batch gradient reductions). At stage granularity a
 * pass is one segment, cut at gradient buckets where the micro-batch reduces
 * them (the last, or every one with ZeRO-2/3), with each kind of collective
 * once per segment: the lesser of that and the per-unit count. 8 more per
 * micro-batch and class (input pipeline, pipeline sends, memory marks) and
 * per iteration each unit's gradient bucket (3 per data-parallel group) and
 * 16 per class (optimizer step, marks). The engine (fluid activities and
 * resources, the event queue, collectives' per-channel transfers) is bounded
 * by the activities alive at once and the links, not by the tasks: counted
 * per rank class below, sized by fluid_bytes and evq_bytes.
 *
 * Peak RSS (/usr/bin/time -f %M, Release build) against the estimate, for
 * configs/scenarios/default.cfg (GPT-3 1.3B, 8 GPUs) with --set; RSS
 * includes about 4 MiB of program and catalogs; "all mb" is
 * sim.extrapolate = false, every micro-batch simulated:
 *   as it is (DP 8, stage by auto, class mode):     4.9 MiB, estimate  0.3 MiB
 *   sim.granularity = "op":                        13.8 MiB, estimate 12.0 MiB
 *   TP 2 x PP 4, op, all 128 mb:                    102 MiB, estimate  141 MiB
 *   ZeRO-3, op, all 128 mb:                        22.4 MiB, estimate 18.4 MiB
 *   TP 2 x CP 2 (layer by auto), all 64 mb:        18.8 MiB, estimate 20.4 MiB
 *   sim.mode = "full", 256 GPUs, TP 2 x PP 2:      33.4 MiB, estimate 50.4 MiB
 *   sim.mode = "full", 1,024 GPUs (batch 4096):    66.3 MiB, estimate  114 MiB
 *   sim.mode = "full", 128 GPUs, ZeRO-3, stage:    18.2 MiB, estimate 14.4 MiB
 * and Llama 3 405B (TP 8, SP, PP 16, 16 micro-batches, 2 iterations) in full
 * mode, 1F1B and ZeRO-1: 1,024 GPUs 54 MiB at stage granularity (estimate
 * 129 MiB), 187 MiB at layer (293 MiB); as the bundled scenario has it
 * (interleaved x 8, ZeRO-2, stage): 1,024 GPUs 318 MiB (524 MiB), 4,096
 * GPUs 1.22 GiB (2.04 GiB), 16,384 GPUs 4.85 GiB (8.2 GiB); 1F1B at 16,384
 * GPUs 0.78 GiB (2.0 GiB) at stage, 2.85 GiB (4.55 GiB) at layer. Above the 4 MiB
 * of program, never below the peak; against the records the graph uses
 * (graph_used_bytes) 1.1 to 4.3 times above on the cases of
 * tests/check_plan.c, estimate_bounds_the_graph. */
double plan_estimate(const struct ts_plan *p, bool trace)
{
	const struct ts_scenario *sc = p->sc;
	const struct ts_parallel *par = &sc->parallel;
	double accum = (double)simulated_mb(p, trace);
	bool mp = par->tp > 1 || par->pp > 1 || par->zero > 0 || par->cp > 1 || par->ep > 1;
	double classes = p->class_mode ? 1.0 : (double)p->dp;
	double pp = par->pp ? (double)par->pp : 1.0;
	if (mp) {
		struct layout lay;
		struct ts_error e;
		uint32_t gpn = hw_cluster_gpus_per_node(sc->cluster);
		if (layout_init(&lay, par->tp, par->cp, par->dp, par->pp, NULL, gpn, p->class_mode,
				&e) == 0) {
			/* as the run merges a stage's classes (run.c, sim_create);
			 * a trace keeps a class per local GPU */
			if (!trace && p->class_merge && net_node_symmetric(sc->cluster))
				layout_merge(&lay, hw_cluster_nodes(sc->cluster));
			classes = (double)lay.nclasses;
		} else
			classes = (double)sc->gpus;
	}
	/* classes that hold each unit (those of its stage) */
	double holders = mp ? classes / pp : classes;
	/* members of a group per collective task: every class leads its
	 * groups in class mode, one rank of each in full mode */
	bool full = !p->class_mode;
	double g_tp = full ? (double)par->tp : 1.0, g_ep = full ? (double)par->ep : 1.0;
	double g_cp = full ? (double)par->cp : 1.0, g_dp = full ? (double)par->dp : 1.0;
	/* the share of classes whose launches are tasks: all with a trace,
	 * else the first stage's where there is data to load (their host
	 * waits for loaded batches) */
	bool loads = p->input.dataset.layout != DATA_LAYOUT_NONE;
	double launch_share = trace ? 1.0 : loads ? 1.0 / pp : 0.0;
	double launch = p->calib ? p->calib->launch_s : 0.0;
	double unit_tasks = 0.0, unit_colls = 0.0, unit_coll_ranks = 0.0;
	double seg_colls = 0.0, seg_launch = 0.0; /* stage granularity, per segment */
	double grad = 0.0;
	bool any_rec = false;
	for (uint32_t u = 0; u < p->nunits; u++) {
		const struct dp_unit *x = &p->units[u];
		double lt = launch_tasks(x->kernels_fwd, launch) +
			    launch_tasks(x->kernels_bwd / 2, launch) +
			    launch_tasks(x->kernels_bwd - x->kernels_bwd / 2, launch);
		double t = 3.0;
		if (x->recompute_s > 0.0) {
			t += 1.0;
			lt += launch_tasks(x->kernels_rec, launch);
			any_rec = true;
		}
		/* collective tasks per class, and their records' ranks */
		double ntp = par->tp > 1 ? (double)x->tp_fwd + x->tp_bwd : 0.0;
		double na2a = par->ep > 1 ? (double)x->a2a_fwd + x->a2a_bwd : 0.0;
		double c = ntp / g_tp + na2a / g_ep;
		double cr = ntp * par->tp / g_tp + na2a * par->ep / g_ep;
		if (par->cp > 1 && (x->ring_fwd_s > 0.0 || x->ring_bwd_s > 0.0)) {
			c += 2.0 * par->cp / g_cp;
			cr += 2.0 * par->cp * 2.0 / g_cp;
		}
		/* ZeRO-3 gathers a unit's weights before its forward and backward;
		 * ZeRO-2 and 3 reduce its gradients every micro-batch */
		if (par->zero >= 2 && x->params > 0.0) {
			double z = par->zero == 3 ? 3.0 : 1.0;
			c += z / g_dp;
			cr += z * par->dp / g_dp;
		}
		unit_tasks += t + c + lt * launch_share;
		unit_colls += c;
		unit_coll_ranks += cr;
		seg_colls = fmax(seg_colls, c);
		seg_launch = fmax(seg_launch, lt / t);
		grad += x->grad_bytes > 0.0 ? x->grad_bytes : 0.0;
	}
	/* per class and micro-batch: the units of its stage; its passes (a
	 * forward and a backward of each of its chunks, and their recompute),
	 * each ending in a mark and a pipeline send */
	double v = par->schedule == TS_SCHED_INTERLEAVED && par->interleave > 1
		       ? (double)par->interleave
		       : 1.0;
	double passes = (2.0 + (any_rec ? 1.0 : 0.0)) * v;
	double per_class = unit_tasks / (mp ? pp : 1.0);
	double colls_class = unit_colls / (mp ? pp : 1.0);
	double ranks_class = unit_coll_ranks / (mp ? pp : 1.0);
	if (p->gran == DP_GRAN_STAGE && par->zero < 3) {
		/* (ZeRO-3 cuts a stage's passes at every FSDP unit, in both
		 * directions, with its gathers: layer's graph, counted above)
		 * a pass is one segment, the backward cut at each of the stage's
		 * gradient buckets (at most one per unit;
		 * par/pipe.c, dp_assign_buckets) where the micro-batch
		 * reduces them (the last, or every one with ZeRO-2/3), each cut
		 * with its reduction; a segment's tensor-parallel collectives
		 * counted as three (struct seg: one per kind of unit, the
		 * layers' and, on the first and last stage, the embedding's or
		 * the head's, and the last unit's own), two each with sequence
		 * parallelism; the test of this estimate holds it above the
		 * graph on every case */
		double nbk = (double)p->nunits;
		if (par->zero < 3 && p->bucket_bytes > 0.0)
			nbk = fmin(nbk, ceil(grad / p->bucket_bytes) + (double)p->nchunks);
		double cuts = p->overlap ? nbk / (mp ? pp : 1.0) : 0.0;
		if (par->zero < 2)
			cuts /= accum > 1.0 ? accum : 1.0;
		double segs = passes + (1.0 + (any_rec ? 1.0 : 0.0)) * cuts;
		double seg_tp = par->tp > 1 ? 3.0 * (par->sp ? 2.0 : 1.0) / g_tp : 0.0;
		double sc_colls = fmax(seg_colls, seg_tp);
		double stage = segs * (1.0 + sc_colls + seg_launch * launch_share) + cuts / g_dp;
		if (stage < per_class) {
			per_class = stage;
			colls_class = segs * sc_colls + cuts / g_dp;
			ranks_class = segs * sc_colls * (double)par->tp + cuts;
		}
	}
	/* the passes' marks and pipeline sends (a send a two-rank
	 * collective), and the input pipeline's tasks */
	per_class += 2.0 * passes + 4.0;
	colls_class += passes;
	ranks_class += 2.0 * passes;
	/* gradient buckets: at most one per unit, each one collective over a
	 * data-parallel group: per class in class mode, per group in full mode */
	double buckets = (double)p->nunits * holders / g_dp;
	double iters = (double)sc->training.iterations;
	double per_iter = accum * classes * per_class + buckets * 3.0 + classes * 16.0;
	double tasks = iters * per_iter;
	double colls = iters * (accum * classes * colls_class + buckets);
	double coll_ranks = iters * (accum * classes * ranks_class + buckets * (double)p->dp);
	/* the engine: per rank class (of every GPU in full mode) its GPU, NVLink,
	 * PCIe and NIC resources and the link classes of its node (8), up to 64
	 * activities alive at once (its streams' tasks, and a collective's
	 * per-channel transfers) on 4 resources each, and their events */
	double engine = fluid_bytes(8.0 * classes, 64.0 * classes, 4.0) + evq_bytes(64.0 * classes);
	/* a trace keeps each task's details (graph_keep_detail) */
	return graph_bytes(tasks, 2.0 * tasks, colls, coll_ranks) + engine +
	       (trace ? graph_detail_bytes(tasks) : 0.0);
}

int plan_check_size(const struct ts_plan *p, bool trace, struct ts_error *err)
{
	const struct ts_scenario *sc = p->sc;
	double est = trace ? p->est_trace_bytes : p->est_bytes;
	if (est <= p->max_memory)
		return 0;
	char need[32], lim[32];
	ts_units_format(est, TS_UNIT_BYTES, need, sizeof need);
	ts_units_format(p->max_memory, TS_UNIT_BYTES, lim, sizeof lim);
	char limit_from[140] = ""; /* where a default limit comes from */
	if (!(sc->sim.max_memory > 0.0))
		snprintf(limit_from, sizeof limit_from, " (%s)", ts_scenario_max_memory_from(sc));
	const char *with = trace ? " with --trace (every micro-batch simulated)" : "";
	if (!p->class_mode)
		return plan_fail(sc, err, TS_ELIMIT, "sim.mode",
				 "full mode needs about %s for %u ranks x %u micro-batches x %lld "
				 "iterations%s, above sim.max_memory %s%s; use sim.mode = "
				 "\"class\" or raise sim.max_memory",
				 need, sc->gpus, simulated_mb(p, trace),
				 (long long)sc->training.iterations, with, lim, limit_from);
	if (p->gran == DP_GRAN_OP)
		return plan_fail(
		    sc, err, TS_ELIMIT, "sim.granularity",
		    "op granularity needs about %s for %u ops x %u micro-batches x %lld "
		    "iterations%s, above sim.max_memory %s%s; use sim.granularity = "
		    "\"layer\" or raise sim.max_memory",
		    need, p->nunits, simulated_mb(p, trace), (long long)sc->training.iterations,
		    with, lim, limit_from);
	uint32_t m1, m2, m;
	struct ts_scenario ext = *sc; /* would extension have simulated fewer? */
	ext.sim.extrapolate = true;
	if (!trace && !sc->sim.extrapolate && plan_extends(&ext, &m1, &m2, &m))
		return plan_fail(sc, err, TS_ELIMIT, "sim.extrapolate",
				 "false simulates all %u micro-batches of an iteration, which need "
				 "about %s for %u units x %lld iterations, above sim.max_memory "
				 "%s%s; use sim.extrapolate = true (%u micro-batches at most) or "
				 "raise sim.max_memory",
				 p->accum, need, p->nunits, (long long)sc->training.iterations, lim,
				 limit_from, m2);
	return plan_fail(sc, err, TS_ELIMIT, "training.iterations",
			 "found %lld iterations, which need about %s for %u micro-batches x %u "
			 "units%s, above sim.max_memory %s%s; simulate fewer iterations or raise "
			 "sim.max_memory",
			 (long long)sc->training.iterations, need, simulated_mb(p, trace),
			 p->nunits, with, lim, limit_from);
}

bool plan_stage_exact(const struct ts_plan *p)
{
	return stage_exact(p->sc);
}

int plan_build(const struct ts_env *env, const struct ts_scenario *sc, struct ts_plan **out,
	       struct ts_error *err)
{
	return build(env, sc, NULL, out, err);
}

int plan_build_with(const struct ts_env *env, const struct ts_scenario *sc,
		    const struct data_input *in, struct ts_plan **out, struct ts_error *err)
{
	return build(env, sc, in, out, err);
}

int plan_input(const struct ts_env *env, const struct ts_scenario *sc, struct data_input *out,
	       struct ts_error *err)
{
	memset(out, 0, sizeof *out);
	return resolve_input(env, sc, NULL, out, err);
}

void plan_destroy(struct ts_plan *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->n_phases; i++)
		plan_destroy(p->phases[i]);
	ts_free(p->units, p->nunits * sizeof *p->units);
	ts_free(p->chunk_layers, p->nchunks * sizeof *p->chunk_layers);
	ts_free(p, sizeof *p);
}
