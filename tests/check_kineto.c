/* Tests of the PyTorch profiler trace reader: real traces from Holistic
 * Trace Analysis' test data (tests/data/traces/README.md says where from
 * and how the figures were read) and synthetic ones computed by hand.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "io/kineto.h"
#include "testutil.h"

static const char *trace_path(const char *name)
{
	static char buf[1024];
	snprintf(buf, sizeof buf, "%s/tests/data/traces/%s", tu_root(), name);
	return buf;
}

static double class_sum(const struct kineto_trace *t)
{
	double s = 0.0;
	for (int c = 0; c < KINETO_CLASS_COUNT_; c++)
		s += t->class_s[c];
	return s;
}

static const struct kineto_unknown *find_unknown(const struct kineto_trace *t, const char *pat)
{
	for (size_t i = 0; i < t->nunknown; i++)
		if (strstr(t->unknown[i].name, pat))
			return &t->unknown[i];
	return NULL;
}

START_TEST(classify_rules)
{
	/* one real name of each class (the first from each family's kernels) */
	ck_assert_int_eq(kineto_classify("ampere_sgemm_32x32_sliced1x4_tn"), KINETO_GEMM);
	ck_assert_int_eq(
	    kineto_classify("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"),
	    KINETO_GEMM);
	ck_assert_int_eq(kineto_classify("nvjet_tst_192x192_64x3_2x1_v_bz_coopA_TNT"), KINETO_GEMM);
	ck_assert_int_eq(
	    kineto_classify("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_"
			    "16x4_nn_align4>(Params)"),
	    KINETO_GEMM);
	ck_assert_int_eq(
	    kineto_classify("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, "
			    "4, false, false, cutlass::bfloat16_t>>(Flash_fwd_params)"),
	    KINETO_ATTN_FWD);
	ck_assert_int_eq(kineto_classify("void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<...>"),
			 KINETO_ATTN_BWD);
	ck_assert_int_eq(kineto_classify("fmha_cutlassF_bf16_aligned_64x64_rf_sm80"),
			 KINETO_ATTN_FWD);
	ck_assert_int_eq(kineto_classify("fmha_cutlassB_bf16_aligned_64x64_k64_sm80"),
			 KINETO_ATTN_BWD);
	ck_assert_int_eq(kineto_classify("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma"),
			 KINETO_ATTN_BWD);
	ck_assert_int_eq(
	    kineto_classify("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgs"
			    "Storage<4096ul>)"),
	    KINETO_NCCL);
	ck_assert_int_eq(kineto_classify("void at::native::vectorized_elementwise_kernel<4, "
					 "at::native::CUDAFunctor_add<float>>"),
			 KINETO_MEMBOUND);
	ck_assert_int_eq(kineto_classify("void at::native::(anonymous namespace)::vectorized_layer_"
					 "norm_kernel<float, float>"),
			 KINETO_MEMBOUND);
	ck_assert_int_eq(kineto_classify("void at::native::reduce_kernel<512, 1, ...>"),
			 KINETO_MEMBOUND);
	ck_assert_int_eq(
	    kineto_classify("void at::native::(anonymous namespace)::multi_tensor_apply_"
			    "kernel<at::native::(anonymous namespace)::TensorListMetadata"
			    "<4>, FusedAdamMathFunctor<float, 4>>"),
	    KINETO_OPTIM);
	ck_assert_int_eq(
	    kineto_classify("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int)"),
	    KINETO_UNKNOWN);
	ck_assert_int_eq(kineto_classify("void fbgemm_gpu::gemm_like_name_kernel"), KINETO_GEMM);
	/* a lambda is no LAMB: ReLU's clamp is element-wise; Apex's LAMB is the
	 * optimizer */
	ck_assert_int_eq(kineto_classify("void at::native::vectorized_elementwise_kernel<4, "
					 "at::native::launch_clamp_scalar(...)::{lambda()#1}>"),
			 KINETO_MEMBOUND);
	ck_assert_int_eq(kineto_classify("void LAMBStage1Functor<float>"), KINETO_OPTIM);
	/* cuDNN's batch norm and its own implicit-GEMM convolution */
	ck_assert_int_eq(kineto_classify("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, "
					 "128, true, 1>"),
			 KINETO_MEMBOUND);
	ck_assert_int_eq(kineto_classify("cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1"),
			 KINETO_GEMM);
	ck_assert_int_eq(kineto_classify(""), KINETO_UNKNOWN);
}
END_TEST

START_TEST(real_resnet)
{
	struct kineto_trace t;
	struct ts_error e;
	int rc = kineto_read(trace_path("hta-resnet-2gpu-step5.json.gz"), &t, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ck_assert_str_eq(t.device, "NVIDIA A100-PG509-200");
	ck_assert_uint_eq(t.nkernels, 900);
	ck_assert_uint_eq(t.niters, 1);
	ck_assert_uint_eq(t.outside, 0);
	ck_assert_int_eq(t.iters[0].step, 5);
	/* the host step: 219,726.905 us */
	ck_assert_double_eq_tol(t.iters[0].dur_s, 0.219726905, 1e-12);
	/* every kernel in one class or another: 50,729.451 us in all */
	ck_assert_double_eq_tol(class_sum(&t), 0.050729451, 1e-9);
	ck_assert(t.iters[0].busy_s <= class_sum(&t) + 1e-12 && t.iters[0].busy_s > 0.0);
	/* NCCL: 5 all-reduces, 2 broadcasts; the first all-reduce carries
	 * 2,049,000 floats = 8,196,000 bytes over 2 ranks in 2,520.607 us */
	ck_assert_uint_eq(t.ncolls, 7);
	size_t ar = 0, bc = 0;
	const struct kineto_coll *first = NULL;
	for (size_t i = 0; i < t.ncolls; i++) {
		if (t.colls[i].op == KINETO_ALL_REDUCE && !ar++)
			first = &t.colls[i];
		bc += t.colls[i].op == KINETO_BROADCAST;
	}
	ck_assert_uint_eq(ar, 5);
	ck_assert_uint_eq(bc, 2);
	ck_assert_double_eq_tol(first->in_bytes, 8196000.0, 1e-6);
	ck_assert_double_eq_tol(first->out_bytes, 8196000.0, 1e-6);
	ck_assert_uint_eq(first->group, 2);
	ck_assert_double_eq_tol(first->dur_s, 2520.607e-6, 1e-12);
	ck_assert_int_eq(first->iter, 0);
	/* by class (summed from the file with Python's json module and the same
	 * rules, tests/data/traces/README.md): cuDNN's batch norm (bn_fw_tr_*,
	 * bn_bw_*), the max pools and the ReLUs (element-wise kernels with a
	 * {lambda()#1} in their names) memory-bound, 701 kernels, 24,380.427 us;
	 * GEMMs and implicit-GEMM convolutions (cuDNN's scudnn one among them)
	 * 182, 13,354.542 us; the SGD step's multi-tensor kernels 9, 691.989 us */
	ck_assert_uint_eq(t.kernels[KINETO_MEMBOUND], 701);
	ck_assert_double_eq_tol(t.class_s[KINETO_MEMBOUND], 24380.427e-6, 1e-9);
	ck_assert_uint_eq(t.kernels[KINETO_GEMM], 182);
	ck_assert_double_eq_tol(t.class_s[KINETO_GEMM], 13354.542e-6, 1e-9);
	ck_assert_uint_eq(t.kernels[KINETO_OPTIM], 9);
	ck_assert_double_eq_tol(t.class_s[KINETO_OPTIM], 691.989e-6, 1e-9);
	/* cuDNN's convolution set-up kernel has no rule: reported by name, 1
	 * kernel, 2.464 us */
	ck_assert_uint_eq(t.nunknown, 1);
	const struct kineto_unknown *u = find_unknown(&t, "computeOffsetsKernel");
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_eq(u->count, 1);
	ck_assert_double_eq_tol(u->time_s, 2.464e-6, 1e-12);
	/* the unknown list sums to the unknown class, largest first */
	double s = 0.0;
	for (size_t i = 0; i < t.nunknown; i++) {
		s += t.unknown[i].time_s;
		if (i)
			ck_assert(t.unknown[i].time_s <= t.unknown[i - 1].time_s);
	}
	ck_assert_double_eq_tol(s, t.class_s[KINETO_UNKNOWN], 1e-12);
	ck_assert(t.class_s[KINETO_GEMM] > 0.0 && t.class_s[KINETO_MEMBOUND] > 0.0);
	ck_assert_uint_eq(t.kernels[KINETO_NCCL], 7);
	kineto_free(&t);
}
END_TEST

START_TEST(real_sampled_unknown)
{
	struct kineto_trace t;
	struct ts_error e;
	int rc = kineto_read(trace_path("hta-sampled-rank0.json.gz"), &t, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ck_assert_uint_eq(t.niters, 2);
	ck_assert_int_eq(t.iters[0].step, 551);
	ck_assert_int_eq(t.iters[1].step, 552);
	ck_assert_double_eq_tol(t.iters[0].dur_s, 0.607312, 1e-12);
	ck_assert_double_eq_tol(t.iters[1].dur_s, 0.622928, 1e-12);
	/* each step launched 577 of the 1,154 kernels (by their launches) */
	uint32_t n0 = 0, n1 = 0;
	for (int c = 0; c < KINETO_CLASS_COUNT_; c++) {
		n0 += t.iters[0].kernels[c];
		n1 += t.iters[1].kernels[c];
	}
	ck_assert_uint_eq(n0, 577);
	ck_assert_uint_eq(n1, 577);
	ck_assert_uint_eq(t.outside, 0);
	const struct kineto_unknown *u = find_unknown(&t, "permute_2D_lengths_kernel");
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_eq(u->count, 8);
	ck_assert_double_eq_tol(u->time_s, 145e-6, 1e-12);
	/* send/recv without sizes in the args: counted, sizes 0 */
	ck_assert_uint_eq(t.ncolls, 10);
	for (size_t i = 0; i < t.ncolls; i++) {
		ck_assert_int_eq(t.colls[i].op, KINETO_SEND_RECV);
		ck_assert_double_eq(t.colls[i].in_bytes, 0.0);
		ck_assert_uint_eq(t.colls[i].group, 0);
	}
	kineto_free(&t);
}
END_TEST

/* A synthetic step 7 from 1000 to 2000 us on the host, step 8 from 2000 to
 * 2500 us. Launches (correlation 1..6) at 1100, 1200, 1300, 1400, 1500 and
 * 2100 us. Kernels:
 *   c1 GEMM        1150 + 100  (stream 7)
 *   c2 flash fwd   1200 +  50  (stream 7, overlaps c3)
 *   c3 elementwise 1220 +  40  (stream 8): busy 1150-1250 and 1250-1260
 *   c4 AllReduce   1900 + 300  (runs past the host's end of step 7, launched in it)
 *   c5 unknown     1950 +  20
 *   c6 Adam        2150 +  10  (step 8)
 *   no launch: flash bwd at 2300 + 30, assigned by its own start to step 8
 * Step 7 by class: gemm 100, attn_fwd 50, membound 40, nccl 300, unknown 20
 * us; busy 1150-1260 (110) + 1900-2200 (300) = 410 us (c5 inside c4).
 * Step 8: optimizer 10, attn_bwd 30; busy 40. All-reduce: 1,048,576
 * BFloat16 elements = 2 MiB over 8 ranks. */
static const char synthetic[] =
    "{\"deviceProperties\": [{\"name\": \"NVIDIA H100 80GB HBM3\"}], \"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#8\",\"ts\":2000,\"dur\":500}"
    ",\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"ts\":1000,\"dur\":"
    "1000},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#7\",\"ts\":1150,\"dur\":"
    "1100},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":1100,\"dur\":5,"
    "\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":1200,\"dur\":5,"
    "\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":1300,\"dur\":5,"
    "\"args\":{\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":1400,\"dur\":5,"
    "\"args\":{\"correlation\":4}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":1500,\"dur\":5,"
    "\"args\":{\"correlation\":5}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":2100,\"dur\":5,"
    "\"args\":{\"correlation\":6}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm90_xmma_gemm_bf16bf16_bf16f32\",\"ts\":1150,"
    "\"dur\":100,\"args\":{\"correlation\":1,\"stream\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd_kernel\",\"ts\":1200,\"dur\":50,"
    "\"args\":{\"correlation\":2,\"stream\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"vectorized_elementwise_kernel\",\"ts\":1220,"
    "\"dur\":40,\"args\":{\"correlation\":3,\"stream\":8}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL\","
    "\"ts\":1900,\"dur\":300,\"args\":{\"correlation\":4,\"Collective name\":\"allreduce\","
    "\"In msg nelems\":1048576,\"Out msg nelems\":1048576,\"Group size\":8,\"dtype\":"
    "\"BFloat16\"}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"my_custom_kernel\",\"ts\":1950,\"dur\":20,"
    "\"args\":{\"correlation\":5}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"multi_tensor_apply_kernel<FusedAdamMathFunctor>\","
    "\"ts\":2150,\"dur\":10,\"args\":{\"correlation\":6}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_bwd_dq_dk_dv_loop_kernel\",\"ts\":2300,"
    "\"dur\":30},\n"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"flow\",\"id\":4,\"ts\":1400},\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"args\":{\"name\":\"GPU 0\"}}\n"
    "]}\n";

START_TEST(synthetic_by_hand)
{
	struct kineto_trace t;
	struct ts_error e;
	int rc = kineto_parse(synthetic, strlen(synthetic), "synthetic", &t, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ck_assert_str_eq(t.device, "NVIDIA H100 80GB HBM3");
	ck_assert_uint_eq(t.niters, 2); /* the GPU-side annotation is not a step */
	ck_assert_int_eq(t.iters[0].step, 7);
	ck_assert_int_eq(t.iters[1].step, 8);
	const struct kineto_iter *a = &t.iters[0], *b = &t.iters[1];
	ck_assert_double_eq_tol(a->dur_s, 1000e-6, 1e-15);
	ck_assert_double_eq_tol(a->class_s[KINETO_GEMM], 100e-6, 1e-15);
	ck_assert_double_eq_tol(a->class_s[KINETO_ATTN_FWD], 50e-6, 1e-15);
	ck_assert_double_eq_tol(a->class_s[KINETO_MEMBOUND], 40e-6, 1e-15);
	ck_assert_double_eq_tol(a->class_s[KINETO_NCCL], 300e-6, 1e-15);
	ck_assert_double_eq_tol(a->class_s[KINETO_UNKNOWN], 20e-6, 1e-15);
	ck_assert_double_eq_tol(a->busy_s, 410e-6, 1e-15);
	ck_assert_double_eq_tol(b->class_s[KINETO_OPTIM], 10e-6, 1e-15);
	ck_assert_double_eq_tol(b->class_s[KINETO_ATTN_BWD], 30e-6, 1e-15);
	ck_assert_double_eq_tol(b->busy_s, 40e-6, 1e-15);
	ck_assert_uint_eq(t.nkernels, 7);
	ck_assert_uint_eq(t.outside, 0);
	ck_assert_uint_eq(t.nunknown, 1);
	ck_assert_str_eq(t.unknown[0].name, "my_custom_kernel");
	ck_assert_uint_eq(t.unknown[0].count, 1);
	ck_assert_uint_eq(t.ncolls, 1);
	ck_assert_int_eq(t.colls[0].op, KINETO_ALL_REDUCE);
	ck_assert_double_eq(t.colls[0].in_bytes, 2097152.0);
	ck_assert_uint_eq(t.colls[0].group, 8);
	ck_assert_int_eq(t.colls[0].iter, 0);
	kineto_free(&t);
}
END_TEST

/* A kernel before the first step, and one after the last step's span
 * without a launch: neither is counted in an iteration. */
START_TEST(synthetic_outside)
{
	static const char txt[] =
	    "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#0\",\"ts\":100,\"dur\":100},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":50,\"dur\":10},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":150,\"dur\":10},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":300,\"dur\":10}]";
	struct kineto_trace t;
	struct ts_error e;
	ck_assert_int_eq(kineto_parse(txt, strlen(txt), "x", &t, &e), 0);
	ck_assert_uint_eq(t.nkernels, 3);
	ck_assert_uint_eq(t.outside, 2);
	ck_assert_double_eq_tol(t.class_s[KINETO_GEMM], 10e-6, 1e-15);
	kineto_free(&t);
}
END_TEST

static void expect_error(const char *txt, int code, const char *words)
{
	struct kineto_trace t;
	struct ts_error e;
	int rc = kineto_parse(txt, strlen(txt), "bad.json", &t, &e);
	ck_assert_msg(rc == code, "%s: got %d (%s), expected %d", txt, rc, e.msg, code);
	ck_assert_str_eq(e.file, "bad.json");
	ck_assert_msg(strstr(e.msg, words), "message \"%s\" lacks \"%s\"", e.msg, words);
	ck_assert_ptr_null(t.iters);
	ck_assert_uint_eq(t.niters, 0);
}

START_TEST(errors)
{
	expect_error("{\"traceEvents\": [", TS_ESYNTAX, "invalid JSON");
	expect_error("42", TS_ESYNTAX, "expected a Chrome trace");
	expect_error("{\"events\": []}", TS_ESYNTAX, "without \"traceEvents\"");
	expect_error("[]", TS_EINVALID, "no GPU kernel");
	expect_error("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":1,\"dur\":1}]",
		     TS_EINVALID, "no ProfilerStep#N");
	expect_error("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":1,\"dur\":-3}]",
		     TS_ESYNTAX, "traceEvents[0] (\"gemm\")");
	expect_error("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":\"1\",\"dur\":3}]",
		     TS_ESYNTAX, "expected microseconds");
	expect_error("[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#x\","
		     "\"ts\":1,\"dur\":3}]",
		     TS_ESYNTAX, "ProfilerStep#N");
}
END_TEST

START_TEST(read_errors)
{
	struct kineto_trace t;
	struct ts_error e;
	ck_assert_int_eq(kineto_read("/nonexistent/trace.json", &t, &e), TS_EIO);
	ck_assert_str_eq(e.file, "/nonexistent/trace.json");
	/* gzip magic followed by garbage */
	char path[256];
	tu_tmpfile("kineto-gz", "\x1f\x8b\x08garbage", path, sizeof path);
	ck_assert_int_eq(kineto_read(path, &t, &e), TS_ESYNTAX);
	ck_assert_msg(strstr(e.msg, "gzip"), "%s", e.msg);
	unlink(path);
}
END_TEST

/* Every allocation failure gives TS_ENOMEM (or success once nothing fails)
 * and leaks nothing. */
START_TEST(alloc_failures)
{
	struct tu_failalloc fa;
	for (long n = 1;; n++) {
		memset(&fa, 0, sizeof fa);
		fa.fail_at = n;
		ts_alloc_set(tu_failing_alloc, &fa);
		struct kineto_trace t;
		struct ts_error e;
		int rc = kineto_parse(synthetic, strlen(synthetic), "s", &t, &e);
		if (!rc)
			kineto_free(&t);
		ts_alloc_set(NULL, NULL);
		ck_assert_msg(rc == 0 || rc == TS_ENOMEM, "call %ld: %d", n, rc);
		ck_assert_int_eq(fa.live, 0);
		if (!rc)
			break;
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kineto");
	TCase *tc = tu_tcase("kineto");
	tcase_add_test(tc, classify_rules);
	tcase_add_test(tc, real_resnet);
	tcase_add_test(tc, real_sampled_unknown);
	tcase_add_test(tc, synthetic_by_hand);
	tcase_add_test(tc, synthetic_outside);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, read_errors);
	tcase_add_test(tc, alloc_failures);
	suite_add_tcase(s, tc);
	return tu_run(s) ? 1 : 0;
}
