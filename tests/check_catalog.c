/* Hardware catalog: the bundled GPU and link types, dtype helpers, look-ups,
 * load order, and errors that name file, line and key.
 * SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "testutil.h"

static struct hw_catalog *load_bundled(void)
{
	struct hw_catalog *cat = NULL;
	struct ts_error e = {0};
	int rc = hw_catalog_load(tu_root(), &cat, &e);
	char buf[1500];
	ck_assert_msg(rc == 0, "catalog: %s", ts_error_format(&e, buf, sizeof buf));
	return cat;
}

/* A scratch root with configs/hardware/ holding the given files. */
static char *scratch_root(void)
{
	static char dir[64];
	snprintf(dir, sizeof dir, "/tmp/ts_catalog_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char p[256];
	snprintf(p, sizeof p, "%s/configs", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/configs/hardware", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	return dir;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_root(const char *root)
{
	nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void put_file(const char *root, const char *name, const char *text)
{
	char p[256];
	snprintf(p, sizeof p, "%s/configs/hardware/%s", root, name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* One valid GPU entry; `extra` lines are inserted before the closing brace. */
static void gpu_entry(char *buf, size_t n, const char *name, const char *hbm_bw, const char *extra)
{
	snprintf(buf, n,
		 "gpus = (\n"				     /* 1 */
		 "\t{\n"				     /* 2 */
		 "\t\tname = \"%s\";\n"			     /* 3 */
		 "\t\tpeak = { bf16 = \"312 TFLOP/s\"; };\n" /* 4 */
		 "\t\tmamf_eff = { bf16 = 0.85; };\n"	     /* 5 */
		 "\t\tmemory = \"80 GiB\";\n"		     /* 6 */
		 "\t\thbm_bw = \"%s\";\n"		     /* 7 */
		 "\t\thbm_eff = 0.9;\n"			     /* 8 */
		 "\t\tsms = 108;\n"			     /* 9 */
		 "\t\ttdp = \"400 W\";\n"		     /* 10 */
		 "\t\tsource = \"test\";\n"		     /* 11 */
		 "\t\tsources = { peak = \"a\"; mamf_eff = \"b\"; memory = \"c\"; "
		 "hbm_bw = \"d\"; hbm_eff = \"e\"; sms = \"f\"; tdp = \"g\"; };\n" /* 12 */
		 "%s"								   /* 13 */
		 "\t}\n"
		 ");\n",
		 name, hbm_bw, extra);
}

/* The error names code, file, line and key, and the formatted message says
 * them too. */
static void assert_error(const struct ts_error *e, int code, const char *file, int line,
			 const char *key)
{
	char buf[1500], at[600];
	ts_error_format(e, buf, sizeof buf);
	ck_assert_msg(e->code == code, "code %d, want %d: %s", e->code, code, buf);
	ck_assert_msg(strstr(e->file, file) != NULL, "file \"%s\" lacks \"%s\"", e->file, file);
	ck_assert_msg(e->line == line, "line %d, want %d: %s", e->line, line, buf);
	snprintf(at, sizeof at, "%s:%d: %s: ", e->file, line, key);
	ck_assert_msg(strstr(buf, at) == buf, "\"%s\" does not start with \"%s\"", buf, at);
	ck_assert_str_eq(e->key, key);
}

START_TEST(bundled_entries_present)
{
	struct hw_catalog *cat = load_bundled();
	const char *gpus[] = {"V100-SXM2-32GB", "A100-SXM4-40GB", "A100-SXM4-80GB",
			      "H100-SXM5-80GB", "H200-SXM",	  "RTX-4090"};
	const char *links[] = {"pcie3-x16", "pcie4-x16", "pcie5-x16", "nvlink2",
			       "nvlink3",   "nvlink4",	 "ib-edr",    "ib-hdr",
			       "ib-ndr",    "eth-10g",	 "eth-25g",   "eth-100g"};
	for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++)
		ck_assert_msg(hw_catalog_find_gpu(cat, gpus[i]) >= 0, "no GPU %s", gpus[i]);
	for (size_t i = 0; i < sizeof links / sizeof *links; i++)
		ck_assert_msg(hw_catalog_find_link(cat, links[i]) >= 0, "no link %s", links[i]);
	ck_assert_str_eq(hw_catalog_root(cat), tu_root());
	hw_catalog_destroy(cat);
}
END_TEST

START_TEST(every_entry_sourced_and_positive)
{
	static const char *const gkeys[] = {"peak",    "mamf_eff", "memory", "hbm_bw",
					    "hbm_eff", "sms",	   "tdp"};
	static const char *const lkeys[] = {"bandwidth", "latency", "efficiency"};
	struct hw_catalog *cat = load_bundled();
	ck_assert_uint_ge(hw_catalog_ngpus(cat), 6);
	for (size_t i = 0; i < hw_catalog_ngpus(cat); i++) {
		const struct hw_gpu_type *g = hw_catalog_gpu(cat, i);
		ck_assert_msg(g->source[0] != '\0', "%s has no source", g->name);
		for (size_t k = 0; k < sizeof gkeys / sizeof *gkeys; k++) {
			const char *s = hw_catalog_gpu_source(cat, i, gkeys[k]);
			ck_assert_msg(s && *s, "%s.%s has no source", g->name, gkeys[k]);
		}
		/* a training dtype: 16-bit tensor cores, or fp32 alone on GPUs
		 * without them (Maxwell, Pascal GP102) */
		ck_assert_msg(g->peak_flops[TS_BF16] > 0.0 || g->peak_flops[TS_FP16] > 0.0 ||
				  g->peak_flops[TS_FP32] > 0.0,
			      "%s", g->name);
		for (int d = 0; d < TS_DTYPE_COUNT_; d++) {
			ck_assert(g->peak_flops[d] >= 0.0);
			if (g->peak_flops[d] > 0.0)
				ck_assert_msg(g->mamf_eff[d] > 0.0 && g->mamf_eff[d] <= 1.0,
					      "%s %s", g->name, ts_dtype_name(d));
		}
		ck_assert(g->mem_bytes > 1e9);
		ck_assert(g->hbm_Bps > 1e11);
		ck_assert(g->hbm_eff > 0.0 && g->hbm_eff <= 1.0);
		ck_assert_uint_gt(g->sms, 0);
		ck_assert(g->tdp_w > 0.0);
		ck_assert_ptr_nonnull(hw_catalog_gpu_file(cat, i));
	}
	ck_assert_uint_ge(hw_catalog_nlinks(cat), 12);
	for (size_t i = 0; i < hw_catalog_nlinks(cat); i++) {
		const struct hw_link_type *l = hw_catalog_link(cat, i);
		ck_assert_msg(l->source[0] != '\0', "%s has no source", l->name);
		for (size_t k = 0; k < sizeof lkeys / sizeof *lkeys; k++) {
			const char *s = hw_catalog_link_source(cat, i, lkeys[k]);
			ck_assert_msg(s && *s, "%s.%s has no source", l->name, lkeys[k]);
		}
		ck_assert(l->bw_Bps > 0.0);
		ck_assert(l->lat_s > 0.0);
		ck_assert(l->efficiency > 0.0 && l->efficiency <= 1.0);
	}
	ck_assert_ptr_null(hw_catalog_gpu_source(cat, 0, "no-such-key"));
	ck_assert_ptr_null(hw_catalog_gpu(cat, hw_catalog_ngpus(cat)));
	hw_catalog_destroy(cat);
}
END_TEST

/* Figures pinned to the hardware notes (hardware.md) and the field reports. */
START_TEST(pinned_figures)
{
	struct hw_catalog *cat = load_bundled();
	const struct hw_gpu_type *a80 =
	    hw_catalog_gpu(cat, (size_t)hw_catalog_find_gpu(cat, "A100-SXM4-80GB"));
	ck_assert(a80->mem_bytes == 85198045184.0);
	ck_assert(a80->peak_flops[TS_BF16] == 312e12);
	ck_assert(a80->peak_flops[TS_FP8] == 0.0);
	ck_assert(tu_relerr(a80->mamf_eff[TS_BF16], 267.9 / 312.0) < 1e-3);
	ck_assert(a80->hbm_Bps == 2039e9);
	ck_assert_uint_eq(a80->sms, 108);
	const struct hw_gpu_type *h100 =
	    hw_catalog_gpu(cat, (size_t)hw_catalog_find_gpu(cat, "H100-SXM5-80GB"));
	ck_assert(tu_relerr(h100->mamf_eff[TS_BF16], 792.1 / 989.0) < 1e-3);
	ck_assert_uint_eq(h100->sms, 132);
	ck_assert(h100->tdp_w == 700.0);
	const struct hw_gpu_type *v100 =
	    hw_catalog_gpu(cat, (size_t)hw_catalog_find_gpu(cat, "V100-SXM2-32GB"));
	ck_assert(v100->peak_flops[TS_BF16] == 0.0); /* Volta has no bf16 */
	ck_assert_uint_eq(v100->sms, 80);
	const struct hw_gpu_type *g4090 =
	    hw_catalog_gpu(cat, (size_t)hw_catalog_find_gpu(cat, "RTX-4090"));
	ck_assert(tu_relerr(g4090->peak_flops[TS_BF16], 165.2e12) < 1e-12); /* FP32 accumulate */
	ck_assert_uint_eq(g4090->sms, 128);
	const struct hw_link_type *nv3 =
	    hw_catalog_link(cat, (size_t)hw_catalog_find_link(cat, "nvlink3"));
	ck_assert(nv3->bw_Bps == 300e9);
	ck_assert(tu_relerr(nv3->efficiency, 216.0 / 300.0) < 1e-12);
	/* field report 9: one EDR NIC tops out near 12.2 GB/s */
	const struct hw_link_type *edr =
	    hw_catalog_link(cat, (size_t)hw_catalog_find_link(cat, "ib-edr"));
	ck_assert(tu_relerr(edr->bw_Bps * edr->efficiency, 12.2e9) < 0.01);
	const struct hw_link_type *e25 =
	    hw_catalog_link(cat, (size_t)hw_catalog_find_link(cat, "eth-25g"));
	ck_assert(e25->bw_Bps == 25e9 / 8);
	hw_catalog_destroy(cat);
}
END_TEST

START_TEST(dtype_helpers)
{
	ck_assert_str_eq(ts_dtype_name(TS_BF16), "bf16");
	ck_assert_str_eq(ts_dtype_name(TS_FP8), "fp8");
	ck_assert_int_eq(ts_dtype_parse("BF16"), TS_BF16);
	ck_assert_int_eq(ts_dtype_parse("tf32"), TS_TF32);
	ck_assert_int_eq(ts_dtype_parse("fp64"), -1);
	ck_assert(ts_dtype_bytes(TS_FP32) == 4.0);
	ck_assert(ts_dtype_bytes(TS_TF32) == 4.0);
	ck_assert(ts_dtype_bytes(TS_FP16) == 2.0);
	ck_assert(ts_dtype_bytes(TS_BF16) == 2.0);
	ck_assert(ts_dtype_bytes(TS_FP8) == 1.0);
}
END_TEST

START_TEST(find_and_suggest)
{
	struct hw_catalog *cat = load_bundled();
	ck_assert_int_eq(hw_catalog_find_gpu(cat, "a100-sxm4-80gb"),
			 hw_catalog_find_gpu(cat, "A100-SXM4-80GB"));
	ck_assert_int_eq(hw_catalog_find_gpu(cat, "A100"), -1);
	ck_assert_int_eq(hw_catalog_find_link(cat, "nvlink6"), -1);
	char buf[256];
	ck_assert_ptr_nonnull(
	    strstr(hw_catalog_suggest(cat, "gpu", "A100-SXM4-80G", buf, sizeof buf),
		   "\"A100-SXM4-80GB\""));
	ck_assert_ptr_nonnull(
	    strstr(hw_catalog_suggest(cat, "link", "nvlink6", buf, sizeof buf), "nvlink"));
	hw_catalog_destroy(cat);
}
END_TEST

/* Files load in byte order of their names, whatever the directory order. */
START_TEST(files_in_name_order)
{
	char *root = scratch_root();
	char a[2048], b[2048];
	gpu_entry(b, sizeof b, "Zeta", "2 TB/s", "");
	gpu_entry(a, sizeof a, "Alpha", "2 TB/s", "");
	put_file(root, "b.cfg", b);
	put_file(root, "a.cfg", a);
	struct hw_catalog *cat = NULL;
	struct ts_error e = {0};
	ck_assert_int_eq(hw_catalog_load(root, &cat, &e), 0);
	ck_assert_uint_eq(hw_catalog_ngpus(cat), 2);
	ck_assert_str_eq(hw_catalog_gpu(cat, 0)->name, "Alpha");
	ck_assert_str_eq(hw_catalog_gpu(cat, 1)->name, "Zeta");
	ck_assert_ptr_nonnull(strstr(hw_catalog_gpu_file(cat, 1), "b.cfg"));
	hw_catalog_destroy(cat);
	rm_root(root);
}
END_TEST

START_TEST(bad_missing_directory)
{
	struct hw_catalog *cat = (struct hw_catalog *)1;
	struct ts_error e = {0};
	ck_assert_int_eq(hw_catalog_load("/nonexistent/trainsim", &cat, &e), TS_EIO);
	ck_assert_ptr_null(cat);
	ck_assert_ptr_nonnull(strstr(e.file, "/nonexistent/trainsim/configs/hardware"));
}
END_TEST

START_TEST(bad_unknown_key_suggests)
{
	char *root = scratch_root();
	char t[2048];
	gpu_entry(t, sizeof t, "X", "2 TB/s", "\t\thbm_bandwith = \"2 TB/s\";\n");
	put_file(root, "gpus.cfg", t);
	struct hw_catalog *cat = NULL;
	struct ts_error e = {0};
	ck_assert_int_eq(hw_catalog_load(root, &cat, &e), TS_EUNKNOWN_KEY);
	assert_error(&e, TS_EUNKNOWN_KEY, "gpus.cfg", 13, "gpus[0].hbm_bandwith");
	ck_assert_ptr_nonnull(strstr(e.msg, "\"hbm_bw\""));
	rm_root(root);
}
END_TEST

START_TEST(bad_unknown_unit)
{
	char *root = scratch_root();
	char t[2048];
	gpu_entry(t, sizeof t, "X", "2039 GBps", "");
	put_file(root, "gpus.cfg", t);
	struct hw_catalog *cat = NULL;
	struct ts_error e = {0};
	ck_assert_int_eq(hw_catalog_load(root, &cat, &e), TS_EUNIT);
	assert_error(&e, TS_EUNIT, "gpus.cfg", 7, "gpus[0].hbm_bw");
	ck_assert_ptr_nonnull(strstr(e.msg, "GBps"));
	rm_root(root);
}
END_TEST

START_TEST(bad_wrong_type)
{
	char *root = scratch_root();
	char t[2048];
	gpu_entry(t, sizeof t, "X", "2 TB/s", "");
	char *p = strstr(t, "sms = 108");
	memcpy(p, "sms = \"1\"", 9); /* same length: a string where an integer goes */
	put_file(root, "gpus.cfg", t);
	struct hw_catalog *cat = NULL;
	struct ts_error e = {0};
	ck_assert_int_eq(hw_catalog_load(root, &cat, &e), TS_ETYPE);
	assert_error(&e, TS_ETYPE, "gpus.cfg", 9, "gpus[0].sms");
	rm_root(root);
}
END_TEST

START_TEST(bad_duplicate_name)
{
	char *root = scratch_root();
	char t[2048];
	gpu_entry(t, sizeof t, "Same", "2 TB/s", "");
	put_file(root, "a.cfg", t);
	put_file(root, "b.cfg", t);
	struct hw_catalog *cat = NULL;
	struct ts_error e = {0};
	ck_assert_int_eq(hw_catalog_load(root, &cat, &e), TS_EINVALID);
	assert_error(&e, TS_EINVALID, "b.cfg", 2, "gpus[0]");
	ck_assert_ptr_nonnull(strstr(e.msg, "a.cfg:2"));
	rm_root(root);
}
END_TEST

START_TEST(bad_zero_bandwidth)
{
	char *root = scratch_root();
	char t[2048];
	gpu_entry(t, sizeof t, "X", "0 GB/s", "");
	put_file(root, "gpus.cfg", t);
	struct hw_catalog *cat = NULL;
	struct ts_error e = {0};
	ck_assert_int_eq(hw_catalog_load(root, &cat, &e), TS_ERANGE);
	assert_error(&e, TS_ERANGE, "gpus.cfg", 7, "gpus[0].hbm_bw");
	rm_root(root);
}
END_TEST

static Suite *catalog_suite(void)
{
	Suite *s = suite_create("catalog");
	TCase *tc = tu_tcase("catalog");
	tcase_add_test(tc, bundled_entries_present);
	tcase_add_test(tc, every_entry_sourced_and_positive);
	tcase_add_test(tc, pinned_figures);
	tcase_add_test(tc, dtype_helpers);
	tcase_add_test(tc, find_and_suggest);
	tcase_add_test(tc, files_in_name_order);
	tcase_add_test(tc, bad_missing_directory);
	tcase_add_test(tc, bad_unknown_key_suggests);
	tcase_add_test(tc, bad_unknown_unit);
	tcase_add_test(tc, bad_wrong_type);
	tcase_add_test(tc, bad_duplicate_name);
	tcase_add_test(tc, bad_zero_bandwidth);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(catalog_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
