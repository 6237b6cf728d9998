/* The catalog entries and bundled clusters added for the hardware people buy
 * and rent: each GPU and link type parses to the figures of the page it
 * cites, the entries relate as their datasheets say, each new cluster loads
 * with the devices and links its file describes, and the catalog's bounds
 * admit the slowest new link while refusing a physically meaningless one.
 * SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "work/memory.h"
#include "testutil.h"

static struct hw_catalog *cat;

static const struct hw_gpu_type *gpu(const char *name)
{
	int i = hw_catalog_find_gpu(cat, name);
	ck_assert_msg(i >= 0, "no GPU type %s in the catalog", name);
	return hw_catalog_gpu(cat, (size_t)i);
}

static const struct hw_link_type *link_type(const char *name)
{
	int i = hw_catalog_find_link(cat, name);
	ck_assert_msg(i >= 0, "no link type %s in the catalog", name);
	return hw_catalog_link(cat, (size_t)i);
}

/* A figure parsed from its unit string equals the datasheet's to rounding. */
static void near(const char *what, const char *name, double got, double want)
{
	ck_assert_msg(tu_relerr(got, want) < 1e-9, "%s of %s: got %.6g, want %.6g", what, name, got,
		      want);
}

/* ---------------------------------------------------------------- GPUs */

/* The datasheet figures each entry cites (configs/hardware/gpus.cfg):
 * dense bf16 (fp16 where there is no bf16) FLOP/s, fp32 FLOP/s, memory
 * bandwidth B/s, SMs and board power W. */
static const struct {
	const char *name;
	enum ts_dtype half; /* the 16-bit tensor dtype */
	double half_flops, fp32_flops, hbm_Bps;
	unsigned sms;
	double tdp_w;
} gpus[] = {
    {"H800-SXM5-80GB", TS_BF16, 989.4e12, 66.9e12, 3350e9, 132, 700},
    {"H20", TS_BF16, 148e12, 44e12, 4000e9, 78, 400},
    {"GH200-96GB", TS_BF16, 989e12, 66.9e12, 4000e9, 132, 1000},
    {"GB200", TS_BF16, 2500e12, 90e12, 8000e9, 148, 1200},
    {"A100-PCIe-40GB", TS_BF16, 312e12, 19.5e12, 1555e9, 108, 250},
    {"V100-SXM2-16GB", TS_FP16, 125e12, 15.7e12, 900e9, 80, 300},
    {"T4", TS_FP16, 65e12, 8.1e12, 320e9, 40, 70},
    {"L4", TS_BF16, 121e12, 30.3e12, 300e9, 58, 72},
    {"RTX-3090-Ti", TS_BF16, 79.6e12, 40e12, 1008e9, 84, 450},
    {"RTX-2080-Ti", TS_FP16, 53.8e12, 13.45e12, 616e9, 68, 250},
    /* added 2026-12-05: H100 SXM 96 GB (hmc-tech.com: 989.43 dense, 66.91
     * fp32, 700 W; 4,000 GB/s derived from six HBM3 stacks), H100 NVL (NVIDIA
     * H100 page: 1,671 bf16 and 3.9 TB/s with sparsity, 60 fp32, 350-400 W),
     * MI325X (AMD: 1,307.4 bf16 dense, 163.4 fp32, 6 TB/s, 304 CUs, 1,000 W) */
    {"H100-SXM5-96GB", TS_BF16, 989.4e12, 66.9e12, 4000e9, 132, 700},
    {"H100-NVL-94GB", TS_BF16, 1671e12 / 2, 60e12, 3900e9, 132, 400},
    {"MI325X", TS_BF16, 1307.4e12, 163.4e12, 6000e9, 304, 1000},
};

START_TEST(gpu_datasheet_figures)
{
	const struct hw_gpu_type *g = gpu(gpus[_i].name);
	near("16-bit peak", g->name, g->peak_flops[gpus[_i].half], gpus[_i].half_flops);
	near("fp32 peak", g->name, g->peak_flops[TS_FP32], gpus[_i].fp32_flops);
	near("hbm_bw", g->name, g->hbm_Bps, gpus[_i].hbm_Bps);
	ck_assert_uint_eq(g->sms, gpus[_i].sms);
	near("tdp", g->name, g->tdp_w, gpus[_i].tdp_w);
	/* every supported dtype has an efficiency, and its source says how it
	 * was obtained: measured (F1) or an assumption */
	for (int d = 0; d < TS_DTYPE_COUNT_; d++)
		ck_assert_msg((g->peak_flops[d] > 0.0) == (g->mamf_eff[d] > 0.0), "%s %s", g->name,
			      ts_dtype_name((enum ts_dtype)d));
	const char *src =
	    hw_catalog_gpu_source(cat, (size_t)hw_catalog_find_gpu(cat, g->name), "mamf_eff");
	ck_assert_ptr_nonnull(src);
	ck_assert_msg(strstr(src, "assumption") || strstr(src, "F1"),
		      "%s: mamf_eff source neither measured nor marked an assumption: %s", g->name,
		      src);
}
END_TEST

START_TEST(gpu_memory_and_dtypes)
{
	/* Google's page: 95 GiB user-allocatable of 96 GiB on a v5p chip */
	near("memory", "TPU-v5p", gpu("TPU-v5p")->mem_bytes, 95.0 * 1073741824.0);
	/* 96 GB nominal read as GiB x 79.11/80, the H100 fraction */
	near("memory", "H20", gpu("H20")->mem_bytes, 94.93 * 1073741824.0);
	/* Turing and Volta have no bf16, tf32 or fp8; the H20 entry gives no
	 * fp8 because no page read states its rate */
	ck_assert(gpu("T4")->peak_flops[TS_BF16] == 0.0);
	ck_assert(gpu("RTX-2080-Ti")->peak_flops[TS_TF32] == 0.0);
	ck_assert(gpu("V100-SXM2-16GB")->peak_flops[TS_BF16] == 0.0);
	ck_assert(gpu("H20")->peak_flops[TS_FP8] == 0.0);
	/* L4: dense = sparse / 2 (485 TFLOP/s fp8 with sparsity) */
	near("fp8 peak", "L4", gpu("L4")->peak_flops[TS_FP8], 485e12 / 2);
	/* GH200's efficiency is measured (821.0 of 989, F1), not assumed */
	near("mamf_eff", "GH200-96GB", gpu("GH200-96GB")->mamf_eff[TS_BF16], 0.8301);
}
END_TEST

/* Usable memory as the framework reports it (the catalog's `memory`), typed
 * from the page each entry cites, in bytes. The B200 has no framework figure:
 * its nvidia-smi total (183,359 MiB, sglang#27487) less the 550 MiB by which
 * PyTorch's total lies below nvidia-smi's on H100 (81,559 MiB against
 * 79.11 GiB). The H100 96 GB module has neither: 96 GiB x 79.11 / 80. */
#define GIB 1073741824.0
#define MIB 1048576.0
static const struct {
	const char *name;
	double mem_bytes;
	/* the capacity the vendor states per GPU: 141 GB H200, 186 GB per GPU of
	 * GB200 NVL72 (13.4 TB over 72), 180 GB as DGX B200 exposes it [S18],
	 * 192/256 GB MI300X/MI325X, 94 GB H100 NVL, 96 GB */
	double nominal_GB;
} capacities[] = {
    {"H200-SXM", 139.81 * GIB, 141},				  /* PyTorch on 8x H200 */
    {"GB200", 184.31 * GIB, 186},				  /* PyTorch, vllm#52511 */
    {"B200", (183359.0 - (81559.0 - 79.11 * 1024.0)) * MIB, 180}, /* derived */
    {"MI300X", 206141652992.0, 192},		       /* rocm-smi, legacy-rocm-build#4750 */
    {"MI325X", 255.98 * GIB, 256},		       /* PyTorch, vllm#41962 */
    {"H100-NVL-94GB", 93.00 * GIB, 94},		       /* PyTorch, VACE#56 */
    {"H100-SXM5-96GB", 96.0 * 79.11 / 80.0 * GIB, 96}, /* derived as H20 */
};

START_TEST(gpu_framework_capacity)
{
	const struct hw_gpu_type *g = gpu(capacities[_i].name);
	/* the catalog writes GiB to two decimals: 0.005 GiB of ~100-250 GiB */
	ck_assert_msg(tu_relerr(g->mem_bytes, capacities[_i].mem_bytes) < 5e-5,
		      "memory of %s: %.6g B, want %.6g B", g->name, g->mem_bytes,
		      capacities[_i].mem_bytes);
	/* what a framework sees lies below the stated capacity read as GiB (HBM
	 * stacks are binary-sized; the driver keeps some) by at most 2 %: the
	 * H100 80GB loses 1.1 % (79.11 of 80) */
	double nominal = capacities[_i].nominal_GB * GIB;
	ck_assert_msg(g->mem_bytes < nominal && g->mem_bytes > 0.98 * nominal,
		      "%s: %.4g GiB against %.0f nominal", g->name, g->mem_bytes / GIB,
		      capacities[_i].nominal_GB);
}
END_TEST

/* The memory model takes the CUDA context and library workspaces by
 * generation (sim/work/memory.c): the new names must land on theirs, an AMD
 * part on the "other" row. */
START_TEST(gpu_generation_of_new_names)
{
	ck_assert_int_eq(work_gpu_generation("H100-SXM5-96GB"), WORK_GEN_HOPPER);
	ck_assert_int_eq(work_gpu_generation("H100-NVL-94GB"), WORK_GEN_HOPPER);
	ck_assert_int_eq(work_gpu_generation("H200-SXM"), WORK_GEN_HOPPER);
	ck_assert_int_eq(work_gpu_generation("GB200"), WORK_GEN_BLACKWELL);
	ck_assert_int_eq(work_gpu_generation("B200"), WORK_GEN_BLACKWELL);
	ck_assert_int_eq(work_gpu_generation("MI325X"), WORK_GEN_OTHER);
	ck_assert_int_eq(work_gpu_generation("MI300X"), WORK_GEN_OTHER);
}
END_TEST

/* ---------------------------------------------------------------- links */

static const struct {
	const char *name;
	double bw_Bps, eff;
} links[] = {
    {"nvlink4-h800", 200e9, 0.72}, {"nvlink-c2c", 450e9, 0.72},	    {"efa-100g", 100e9 / 8, 0.85},
    {"opa-100", 100e9 / 8, 0.54},  {"roce-40g", 40e9 / 8, 0.97},    {"eth-1g", 1e9 / 8, 0.54},
    {"eth-100m", 100e6 / 8, 0.54}, {"tpu-ici-v5p-x6", 600e9, 0.90},
};

START_TEST(link_datasheet_figures)
{
	const struct hw_link_type *l = link_type(links[_i].name);
	near("bandwidth", l->name, l->bw_Bps, links[_i].bw_Bps);
	near("efficiency", l->name, l->efficiency, links[_i].eff);
	ck_assert_msg(l->lat_s > 0.0 && l->lat_s < 1e-4, "%s latency %g s", l->name, l->lat_s);
}
END_TEST

/* ------------------------------------------------------------ relations */

START_TEST(h800_is_h100_with_less_nvlink)
{
	const struct hw_gpu_type *h800 = gpu("H800-SXM5-80GB"), *h100 = gpu("H100-SXM5-80GB");
	for (int d = 0; d < TS_DTYPE_COUNT_; d++)
		ck_assert(h800->peak_flops[d] == h100->peak_flops[d]);
	ck_assert(h800->hbm_Bps == h100->hbm_Bps);
	/* 400 GB/s against 900 GB/s bidirectional per GPU */
	const struct hw_link_type *a = link_type("nvlink4-h800"), *b = link_type("nvlink4");
	ck_assert(a->bw_Bps * a->efficiency < b->bw_Bps * b->efficiency);
	near("NVLink ratio", "H800/H100", a->bw_Bps / b->bw_Bps, 400.0 / 900.0);
}
END_TEST

START_TEST(mi300x_equal_matmul_faster_memory)
{
	/* The datasheets: MI300X reaches 781.9 of 1,300 TFLOP/s, H100 SXM 792.1 of
	 * 989 (F1), so their achievable matmul rates are within 1 %; their HBM
	 * differs by 5,300 / 3,350 = 1.58. A memory-bound step must therefore
	 * differ where a compute-bound one does not (tests/cli_catalog.sh
	 * checks the simulated runs). */
	const struct hw_gpu_type *m = gpu("MI300X"), *h = gpu("H100-SXM5-80GB");
	double rm = m->peak_flops[TS_BF16] * m->mamf_eff[TS_BF16];
	double rh = h->peak_flops[TS_BF16] * h->mamf_eff[TS_BF16];
	ck_assert_msg(tu_relerr(rm, rh) < 0.01, "matmul %g vs %g", rm, rh);
	near("HBM ratio", "MI300X/H100", m->hbm_Bps / h->hbm_Bps, 5300.0 / 3350.0);
}
END_TEST

START_TEST(gb200_b200_above_hgx_b200_h20_below_h100)
{
	const struct hw_gpu_type *gb = gpu("GB200"), *b = gpu("B200");
	/* its former name still finds it (files written before the rename) */
	ck_assert_ptr_eq(gpu("B200-GB200"), gb);
	for (int d = 0; d < TS_DTYPE_COUNT_; d++)
		ck_assert_msg(gb->peak_flops[d] > b->peak_flops[d], "%s",
			      ts_dtype_name((enum ts_dtype)d));
	ck_assert(gb->tdp_w > b->tdp_w);
	/* PyTorch sees 184.31 GiB on a GB200 GPU, more than on HGX B200 */
	ck_assert(gb->mem_bytes > b->mem_bytes);
	/* H20: about 15 % of H100's 16-bit compute, but more HBM bandwidth */
	const struct hw_gpu_type *h20 = gpu("H20"), *h100 = gpu("H100-SXM5-80GB");
	double f = h20->peak_flops[TS_BF16] / h100->peak_flops[TS_BF16];
	ck_assert_msg(f > 0.14 && f < 0.16, "H20/H100 bf16 %g", f);
	ck_assert(h20->hbm_Bps > h100->hbm_Bps);
}
END_TEST

START_TEST(mi325x_is_mi300x_with_more_and_faster_hbm)
{
	/* AMD: the same CDNA 3 compute (1,307.4 TFLOP/s bf16 on both), HBM3E at
	 * 6 TB/s against 5.3, 256 GB against 192 */
	const struct hw_gpu_type *a = gpu("MI325X"), *b = gpu("MI300X");
	for (int d = 0; d < TS_DTYPE_COUNT_; d++)
		ck_assert(a->peak_flops[d] == b->peak_flops[d]);
	ck_assert_uint_eq(a->sms, b->sms);
	near("HBM ratio", "MI325X/MI300X", a->hbm_Bps / b->hbm_Bps, 6000.0 / 5300.0);
	ck_assert(a->mem_bytes > b->mem_bytes && a->tdp_w > b->tdp_w);
}
END_TEST

START_TEST(h100_nvl_between_pcie_and_sxm)
{
	/* NVIDIA's H100 table: NVL 1,671 bf16 (sparse) between PCIe's 1,513 and
	 * SXM's 1,979; 3.9 TB/s above both (2.0 and 3.35); 94 GB above both 80 */
	const struct hw_gpu_type *nvl = gpu("H100-NVL-94GB"), *pcie = gpu("H100-PCIe-80GB"),
				 *sxm = gpu("H100-SXM5-80GB");
	ck_assert(pcie->peak_flops[TS_BF16] < nvl->peak_flops[TS_BF16] &&
		  nvl->peak_flops[TS_BF16] < sxm->peak_flops[TS_BF16]);
	/* NVIDIA's table: 1,671 of 1,979 (with sparsity); the SXM entry carries
	 * 989.4 dense (S10's 1,978.9 / 2), so the ratio agrees to 1e-4 */
	double r = nvl->peak_flops[TS_BF16] / sxm->peak_flops[TS_BF16];
	ck_assert_msg(tu_relerr(r, 1671.0 / 1979.0) < 2e-4, "bf16 NVL/SXM %g", r);
	ck_assert(nvl->hbm_Bps > sxm->hbm_Bps && nvl->mem_bytes > sxm->mem_bytes);
	/* the 96 GB SXM5 module computes as the 80 GB one, with more memory */
	const struct hw_gpu_type *s96 = gpu("H100-SXM5-96GB");
	for (int d = 0; d < TS_DTYPE_COUNT_; d++)
		ck_assert(s96->peak_flops[d] == sxm->peak_flops[d]);
	ck_assert(s96->mem_bytes > sxm->mem_bytes && s96->hbm_Bps > sxm->hbm_Bps);
}
END_TEST

/* ------------------------------------------------------------- clusters */

static struct hw_cluster *load(const char *name)
{
	struct hw_cluster *c = NULL;
	struct ts_error e = {0};
	char buf[1500];
	int rc = hw_cluster_load(cat, name, NULL, &c, &e);
	ck_assert_msg(rc == 0, "%s: %s", name, ts_error_format(&e, buf, sizeof buf));
	return c;
}

/* Directed links of node 0 between two devices of the given kinds. */
static unsigned count_links(const struct hw_cluster *c, enum hw_dev_kind a, enum hw_dev_kind b,
			    double *bw)
{
	unsigned n = 0;
	for (uint32_t k = 0; k < hw_cluster_nlinks(c); k++) {
		const struct hw_link *l = hw_cluster_link(c, k);
		const struct hw_device *s = hw_cluster_device(c, l->src);
		const struct hw_device *d = hw_cluster_device(c, l->dst);
		if (s->node == 0 && d->node == 0 && s->kind == a && d->kind == b) {
			n++;
			*bw = l->bw_Bps;
		}
	}
	return n;
}

static const struct {
	const char *name, *gpu, *nic, *topology;
	uint32_t nodes, gpus, nics;
} clusters[] = {
    {"aws-p3-16xlarge", "V100-SXM2-16GB", "eth-25g", "switch", 1, 8, 1},
    {"aws-p4d-24xlarge", "A100-SXM4-40GB", "efa-100g", "switch", 1, 8, 4},
    {"aws-p5-48xlarge", "H100-SXM5-80GB", "efa-100g", "switch", 1, 8, 32},
    {"azure-nd-h100-v5", "H100-SXM5-80GB", "ib-ndr", "switch", 1, 8, 8},
    {"azure-nd-mi300x-v5", "MI300X", "ib-ndr", "switch", 1, 8, 8},
    {"hgx-h800", "H800-SXM5-80GB", "ib-ndr", "switch", 1, 8, 8},
    {"tpu-v5p-64", "TPU-v5p", "tpu-ici-v5p-x6", "torus3d", 64, 1, 1},
    {"gb200-nvl72", "GB200", NULL, "none", 1, 72, 0},
    {"gcp-a3-ultragpu-8g", "H200-SXM", "roce-400g", "switch", 1, 8, 8},
};

START_TEST(cluster_loads_as_described)
{
	struct hw_cluster *c = load(clusters[_i].name);
	ck_assert_str_eq(hw_cluster_gpu_type(c)->name, clusters[_i].gpu);
	ck_assert_str_eq(hw_cluster_topology(c), clusters[_i].topology);
	ck_assert_uint_eq(hw_cluster_nodes(c), clusters[_i].nodes);
	ck_assert_uint_eq(hw_cluster_gpus_per_node(c), clusters[_i].gpus);
	ck_assert_uint_eq(hw_cluster_nics_per_node(c), clusters[_i].nics);
	if (clusters[_i].nic) {
		const struct hw_device *nic = hw_cluster_device(c, hw_cluster_nic(c, 0, 0));
		ck_assert_str_eq(hw_catalog_link(cat, nic->type)->name, clusters[_i].nic);
	}
	ck_assert_str_ne(hw_cluster_source(c), "");
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(mi300x_is_a_mesh_not_a_switch)
{
	struct hw_cluster *c = load("azure-nd-mi300x-v5");
	double bw = 0.0;
	/* 8 x 7 directed GPU-to-GPU links, each one 64 GB/s Infinity Fabric link
	 * at its fitted 0.70; no NVSwitch, no in-switch reduction */
	ck_assert_uint_eq(count_links(c, HW_DEV_GPU, HW_DEV_GPU, &bw), 56);
	near("link", "xgmi-mi300x", bw, 64e9 * 0.70);
	ck_assert_uint_eq(count_links(c, HW_DEV_GPU, HW_DEV_NVSWITCH, &bw), 0);
	ck_assert(!hw_cluster_nvls(c));
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(nvlink_domains)
{
	double bw = 0.0;
	struct hw_cluster *c = load("hgx-h800");
	ck_assert_uint_eq(count_links(c, HW_DEV_GPU, HW_DEV_NVSWITCH, &bw), 8);
	near("GPU to NVSwitch", "hgx-h800", bw, 200e9 * 0.72);
	hw_cluster_destroy(c);
	c = load("gb200-nvl72");
	ck_assert_uint_eq(count_links(c, HW_DEV_GPU, HW_DEV_NVSWITCH, &bw), 72);
	near("GPU to NVSwitch", "gb200-nvl72", bw, 900e9 * 0.72);
	ck_assert(hw_cluster_nvls(c));
	ck_assert_uint_eq(hw_cluster_cpu_cores(c), 36 * 72);
	hw_cluster_destroy(c);
	c = load("aws-p5-48xlarge");
	ck_assert(hw_cluster_nvls(c));
	hw_cluster_destroy(c);
}
END_TEST

START_TEST(tpu_torus_links)
{
	struct hw_cluster *c = load("tpu-v5p-64");
	/* 64 routers with 2 x 3 outgoing torus links each, at 100 GB/s x 0.90 */
	unsigned n = 0;
	for (uint32_t k = 0; k < hw_cluster_nlinks(c); k++) {
		const struct hw_link *l = hw_cluster_link(c, k);
		if (hw_cluster_device(c, l->src)->kind == HW_DEV_SWITCH &&
		    hw_cluster_device(c, l->dst)->kind == HW_DEV_SWITCH) {
			n++;
			near("ICI link", "tpu-v5p-64", l->bw_Bps, 100e9 * 0.90);
		}
	}
	ck_assert_uint_eq(n, 64 * 6);
	hw_cluster_destroy(c);
}
END_TEST

/* --------------------------------------------------------------- bounds */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Load a catalog holding one link of the given bandwidth. */
static int load_link(const char *bw, struct ts_error *e)
{
	char dir[64], p[256];
	snprintf(dir, sizeof dir, "/tmp/ts_catnew_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof p, "%s/configs", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/configs/hardware", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/configs/hardware/links.cfg", dir);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"links = (\n"
		"\t{\n"
		"\t\tname = \"slow\";\n"
		"\t\tbandwidth = \"%s\";\n" /* line 4 */
		"\t\tlatency = \"25 us\";\n"
		"\t\tefficiency = 0.54;\n"
		"\t\tsource = \"test\";\n"
		"\t\tsources = { bandwidth = \"a\"; latency = \"b\"; efficiency = \"c\"; };\n"
		"\t}\n"
		");\n",
		bw);
	fclose(f);
	struct hw_catalog *c = NULL;
	int rc = hw_catalog_load(dir, &c, e);
	hw_catalog_destroy(c);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return rc;
}

START_TEST(bounds_admit_sub_gigabit_refuse_meaningless)
{
	struct ts_error e = {0};
	ck_assert_int_eq(load_link("100 Mbit/s", &e), 0);
	ck_assert_int_eq(load_link("100 bit/s", &e), TS_ERANGE);
	ck_assert_int_eq(e.line, 4);
	ck_assert_str_eq(e.key, "links[0].bandwidth");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("catalog_new");
	TCase *tc = tu_tcase("entries");
	tu_hw_fixture(tc, &cat, NULL);
	tcase_add_loop_test(tc, gpu_datasheet_figures, 0, (int)(sizeof gpus / sizeof *gpus));
	tcase_add_test(tc, gpu_memory_and_dtypes);
	tcase_add_loop_test(tc, gpu_framework_capacity, 0,
			    (int)(sizeof capacities / sizeof *capacities));
	tcase_add_test(tc, gpu_generation_of_new_names);
	tcase_add_loop_test(tc, link_datasheet_figures, 0, (int)(sizeof links / sizeof *links));
	suite_add_tcase(s, tc);
	tc = tu_tcase("relations");
	tu_hw_fixture(tc, &cat, NULL);
	tcase_add_test(tc, h800_is_h100_with_less_nvlink);
	tcase_add_test(tc, mi300x_equal_matmul_faster_memory);
	tcase_add_test(tc, gb200_b200_above_hgx_b200_h20_below_h100);
	tcase_add_test(tc, mi325x_is_mi300x_with_more_and_faster_hbm);
	tcase_add_test(tc, h100_nvl_between_pcie_and_sxm);
	suite_add_tcase(s, tc);
	tc = tu_tcase("clusters");
	tu_hw_fixture(tc, &cat, NULL);
	tcase_add_loop_test(tc, cluster_loads_as_described, 0,
			    (int)(sizeof clusters / sizeof *clusters));
	tcase_add_test(tc, mi300x_is_a_mesh_not_a_switch);
	tcase_add_test(tc, nvlink_domains);
	tcase_add_test(tc, tpu_torus_links);
	tcase_add_test(tc, bounds_admit_sub_gigabit_refuse_meaningless);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
