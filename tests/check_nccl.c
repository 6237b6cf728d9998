/* Validation of the collectives against nccl-tests numbers people measured:
 * every collective case of shared/data/field-reports.md and every busbw row
 * of shared/data/measurements.csv, each within 15 %.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "engine/evq.h"
#include "engine/fluid.h"
#include "hw/catalog.h"
#include "hw/cluster.h"
#include "net/coll.h"
#include "net/net.h"
#include "testutil.h"

#define GiB 1073741824.0

/* One measured case. Rows marked "fitted" check a fit, not the model: the
 * NVLink efficiency in configs/hardware/links.cfg was fitted on NCCL-002 and
 * NCCL-007, InfiniBand's on field report 9 (one EDR NIC), Ethernet's on
 * field report 11. NVLS rows (NCCL-005, NCCL-006) fit nothing: their busbw
 * comes from the NVLink rate, the NVLS coefficients and NCCL's own
 * nvlsEfficiency (sim/net/coll.c). */
struct vcase {
	const char *id;		   /* field report or measurements.csv row */
	const char *cluster;	   /* configs/clusters/NAME.cfg */
	uint32_t nodes, gpn, nics; /* cluster overrides, 0 = the file's */
	int algo, proto;	   /* forced where the run forced them (NCCL_ALGO/PROTO) */
	bool nvls;		   /* the row ran NVLink SHARP */
	double bytes;		   /* nccl-tests size of the row */
	double busbw_GBps;	   /* measured */
	const char *note;	   /* fitted or validation; the assumptions */
	const char *gap;	   /* a known gap above 15 % and its cause, or NULL */
};

/* Known gaps: cases above 15 % whose cause the reports do not let trainsim
 * settle. They print as KNOWN GAP and fail once they come within 15 %, so
 * that they move to the validated rows. What is known, and what would
 * settle each:
 *
 * FR 3, three GPUs (28.0 predicted, ~20 measured). The ring 0-1-2 crosses
 * PCIe 4 twice, one edge per link direction, so it runs at 0.89 x 31.5 GB/s.
 * The host CPU's vendor is not stated (nvidia-smi gives 2 sockets of 32
 * cores). On Intel, NCCL (src/graph/paths.cc, ncclTopoCheckP2p: p2pLevel =
 * PATH_PXB) does not use peer-to-peer across the CPU, so NODE edges go
 * through host memory, and it counts GPU-to-GPU traffic through an Intel
 * root complex as 1.2x PCIe bytes, "64B PCI TLPs" (src/graph/topo.h,
 * INTEL_P2P_OVERHEAD): 28.0 / 1.2 = 23.4 GB/s, still +17 %. PCIe framing
 * says the same: 64-byte payloads with 24 bytes of TLP overhead carry 0.727
 * of the line, 256-byte ones 0.914, so 28.0 x 0.727 / 0.914 = 22.3 (+11.5 %).
 * Either needs an Intel host, which the report does not show. Settles it: lscpu,
 * NCCL_DEBUG=INFO's "via P2P" / "via SHM" lines, p2pBandwidthLatencyTest.
 *
 * FR 4 / NCCL-001 (215.8 predicted, 116.3 measured). busbw = algbw for two
 * ranks, so the bridge moved 116 GB/s per direction: 0.39 of the catalog's
 * 300. At NVLink's 0.72 that is 161 GB/s of line rate, 6.5 NVLink links of
 * 25 GB/s. The report does not say how many bridges the pair had: with the
 * 12 links split over 3 bridges, 1 bridge gives 72 (-38 %), 2 give 144
 * (+24 %), 3 give 216 (+86 %); none is within 15 %, so the bridge count
 * alone does not explain it. Settles it: nvidia-smi topo -m (NV4, NV8 or
 * NV12) and nvidia-smi nvlink -s on the reporter's pair.
 *
 * FR 6, four GPUs (28.0 predicted, 35 measured). The switch layout of the
 * bundled box is a commenter's guess; with it each ring edge bounces through
 * host memory (GeForce has no peer-to-peer on the stock driver) and crosses
 * its switch uplink twice, so 4 and 8 GPUs both run at 63 x 0.89 / 2. The
 * maintainer (nccl#1639) puts the ceiling in the CPU and memory: 8 flows at
 * 28 GB/s in both directions. 4 x 35 x 2 = 280 GB/s and 8 x 28 x 2 = 448
 * GB/s over two sockets (224 each) are not one per-socket capacity, so a
 * forwarding limit on the cpu alone would not fit both rows without a
 * constant fitted on them. Settles it: nvidia-smi topo -m (PIX/PXB: switches;
 * NODE/SYS: root ports), which GPUs the 4-GPU run used, and NCCL_DEBUG=INFO's
 * transport lines. */
#define GAP_FR3                                                                                    \
	"PCIe 4 hop at 0.89 x 31.5 GB/s; an Intel host (NCCL: host-memory path, 64-byte "          \
	"TLPs, 1.2x bytes) would give 22-23, but the report does not name the CPU"
#define GAP_FR4                                                                                    \
	"bridge at 300 GB/s x 0.72; 116 GB/s needs ~161 GB/s of line rate (6.5 links), "           \
	"between 1 and 2 of 3 bridges; the report does not give the link count"
#define GAP_FR6                                                                                    \
	"4 GPUs share the assumed switch uplinks like 8 (63 x 0.89 / 2 GB/s); the box's "          \
	"layout and the 4-GPU run's GPUs are not stated"

static const struct vcase cases[] = {
    {"FR 1 / NCCL-007 (nccl-tests#149)", "dgx-a100-80gb", 1, 0, 0, 0, 0, false, 1.0 * GiB, 200.0,
     "fitted (NVLink): 8x A100-SXM4-80GB on NVSwitch, 1 GiB, about 200 GB/s", NULL},
    {"FR 7 / NCCL-002 one node (nccl-tests#175)", "dgx-a100-80gb", 1, 0, 0, 0, 0, false, 4.0 * GiB,
     232.54, "fitted (NVLink): 8x A100 on NVSwitch, 4 GiB, peak", NULL},
    {"FR 7 two nodes (nccl-tests#175)", "dgx-a100-80gb", 2, 0, 4, 0, 0, false, 4.0 * GiB, 86.0,
     "validation; assumed: DGX A100 PCIe tree, the four dual-port 200 Gb/s HCAs as four "
     "HDR ports (a second port adds nothing beyond the PCIe slot)",
     NULL},
    {"FR 3 NVLink pair (nccl-tests#178)", "a100-pcie-8x-bridged", 1, 2, 0, 0, 0, false, 8.0 * GiB,
     208.0, "validation; GPUs 0-1, bridged by NVLink (NV12), 8 GiB", NULL},
    {"FR 3 three GPUs (nccl-tests#178)", "a100-pcie-8x-bridged", 1, 3, 0, 0, 0, false, 8.0 * GiB,
     20.0, "validation; GPUs 0-2: the ring crosses PCIe between pairs, 8 GiB", GAP_FR3},
    {"FR 4 / NCCL-001 (nccl-tests#194)", "h100-pcie-bridged", 1, 2, 0, 0, 0, false, 4.0 * GiB,
     116.26, "validation; 2 H100 PCIe joined by an NVLink bridge, 4 GiB", GAP_FR4},
    {"FR 6 eight GPUs (nccl#1639)", "pcie-8gpu", 1, 0, 0, 0, 0, false, 8.0 * GiB, 28.0,
     "validation; assumed: the bundled 8-GPU PCIe box (two switches per socket) stands "
     "for the reporter's 8x RTX 5090 server, peak at 8 GiB",
     NULL},
    {"FR 6 four GPUs (nccl#1639)", "pcie-8gpu", 1, 4, 0, 0, 0, false, 8.0 * GiB, 35.0,
     "validation; the first 4 GPUs of the same box, 8 GiB", GAP_FR6},
    {"FR 9 one EDR NIC (nccl-tests#29)", "dgx1-v100", 2, 0, 1, 0, 0, false, 4.0 * GiB, 12.2,
     "fitted (InfiniBand); assumed: two DGX-1 V100 nodes keeping one EDR NIC each (the "
     "GPUs are not stated), 4 GiB",
     NULL},
    {"FR 9 four EDR NICs (nccl-tests#29)", "dgx1-v100", 2, 0, 4, 0, 0, false, 4.0 * GiB, 48.0,
     "validation; two DGX-1 V100 nodes with four EDR NICs each, 4 GiB", NULL},
    {"FR 11 (nccl-tests#83)", "azure-v100-25g", 2, 0, 0, COLL_ALGO_RING, COLL_PROTO_SIMPLE, false,
     2.0 * GiB, 1.7,
     "fitted (Ethernet): 2 x 4 V100-PCIe over 25 Gb/s TCP, NCCL_ALGO=Ring PROTO=Simple, "
     "2 GiB",
     NULL},
    {"NCCL-005 (nccl-tests#290)", "dgx-h100", 1, 0, 0, 0, 0, true, 4.0 * GiB, 476.0,
     "validation (NVLS); assumed 4 GiB, the size is not stated", NULL},
    {"NCCL-006 (nccl-tests#272)", "dgx-h200", 1, 0, 0, 0, 0, true, 4.0 * GiB, 475.0,
     "validation (NVLS); -e 4G, peak at 4 GiB", NULL},
};

#define NCASES (sizeof cases / sizeof cases[0])

static struct hw_catalog *cat;

static void setup(void)
{
	struct ts_error err;
	if (hw_catalog_load(tu_root(), &cat, &err)) {
		char buf[1200];
		ck_abort_msg("catalog: %s", ts_error_format(&err, buf, sizeof buf));
	}
}

static void teardown(void)
{
	hw_catalog_destroy(cat);
}

struct timing {
	struct ts_evq *q;
	ts_time end;
};

static void on_done(void *ctx, uint64_t arg)
{
	(void)arg;
	struct timing *t = ctx;
	t->end = evq_now(t->q);
}

static bool cluster_file_exists(const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/configs/clusters/%s.cfg", tu_root(), name);
	return access(path, R_OK) == 0;
}

START_TEST(measured_case)
{
	const struct vcase *m = &cases[_i];
	/* a measurement whose cluster is missing is a failure, never a skip */
	ck_assert_msg(cluster_file_exists(m->cluster), "%s: configs/clusters/%s.cfg does not exist",
		      m->id, m->cluster);
	struct hw_cluster_opts o = {
	    .nodes = m->nodes, .gpus_per_node = m->gpn, .nics_per_node = m->nics};
	struct hw_cluster *c;
	struct ts_error err;
	if (hw_cluster_load(cat, m->cluster, &o, &c, &err)) {
		char buf[1200];
		ck_abort_msg("%s: %s", m->id, ts_error_format(&err, buf, sizeof buf));
	}
	ck_assert_msg(!m->nvls || hw_cluster_nvls(c),
		      "%s: %s does not declare the NVLink SHARP NVSwitch the measurement used",
		      m->id, m->cluster);
	uint32_t n = hw_cluster_gpus(c);
	struct ts_evq *q;
	struct ts_fluid *f;
	struct ts_net *net;
	struct ts_coll *cc;
	ck_assert_int_eq(evq_create(&q, 64), 0);
	ck_assert_int_eq(fluid_create(&f, q), 0);
	ck_assert_int_eq(net_create(&net, c, f, NET_CLASS), 0);
	ck_assert_int_eq(coll_create(&cc, net), 0);
	uint32_t ranks[64];
	ck_assert_uint_le(n, 64);
	for (uint32_t i = 0; i < n; i++)
		ranks[i] = i;
	struct timing tm = {.q = q};
	struct coll_spec s = {.op = COLL_ALL_REDUCE,
			      .ranks = ranks,
			      .nranks = n,
			      .bytes = m->bytes,
			      .mult = hw_cluster_nodes(c),
			      .algo = m->algo,
			      .proto = m->proto,
			      .done = on_done,
			      .ctx = &tm};
	struct coll_plan p;
	ck_assert_int_eq(coll_start(cc, &s, &p, &err), 0);
	fluid_run(f, TS_TIME_MAX);
	double t = ts_time_to_s(tm.end);
	double bus = m->bytes / t * coll_bus_factor(COLL_ALL_REDUCE, n) / 1e9;
	double e = tu_relerr(bus, m->busbw_GBps);
	printf("%-44s predicted %7.2f GB/s measured %7.2f GB/s error %5.1f%%  %s/%s, %u GPUs"
	       "  (%s)\n",
	       m->id, bus, m->busbw_GBps, 100.0 * e, coll_algo_name((enum coll_algo)p.algo),
	       coll_proto_name(p.proto), n, m->note);
	if (m->nvls)
		ck_assert_int_eq(p.algo, COLL_ALGO_NVLS);
	coll_destroy(cc);
	net_destroy(net);
	fluid_destroy(f);
	evq_destroy(q);
	hw_cluster_destroy(c);
	if (m->gap) {
		printf("%-44s KNOWN GAP: %s\n", m->id, m->gap);
		ck_assert_msg(e > 0.15,
			      "%s: now within 15 %% (%.2f vs %.2f GB/s), expected the "
			      "known gap: make it a validated row",
			      m->id, bus, m->busbw_GBps);
		return;
	}
	ck_assert_msg(e <= 0.15, "%s: predicted %.2f GB/s, measured %.2f GB/s", m->id, bus,
		      m->busbw_GBps);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nccl");
	TCase *tc = tu_tcase("measured");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, measured_case, 0, (int)NCASES);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
