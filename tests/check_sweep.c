/* Sweeps (sim/io/sweepcfg.c, sim/sweep/sweep.c): one key on two axes is
 * refused naming both lines; the digest of what makes the rows changes with
 * the resolved base and the calibration and not with where a value was
 * written; --resume refuses rows of another setup and says which part
 * changed; a part of a sharded sweep (--shard K/N) holds every N-th point
 * and its digest line names the part and the axes; --set changes the base's
 * digest and refuses an axis key.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/catalog.h"
#include "io/sweepcfg.h"
#include "report/sweeprow.h"
#include "sweep/sweep.h"
#include "testutil.h"
#include "work/compute.h"

static struct hw_catalog *cat;
static struct work_calib calib;

#define BASE                                                                                       \
	"base = { model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; "                            \
	"training = { global_batch = %d; micro_batch = 4; }; };\n"

static struct sweep_spec *load(const char *text)
{
	struct sweep_spec *sp;
	struct ts_error err;
	ck_assert_msg(sweepcfg_load_string(text, "s.cfg", &sp, &err) == 0, "%s", err.msg);
	return sp;
}

START_TEST(two_axes_one_key)
{
	struct sweep_spec *sp;
	struct ts_error err;
	/* the quoted dotted name and the nested group name the same key */
	const char *text = "base = \"b.cfg\";\n"
			   "axes = { \"parallel.tp\" = [1, 2];\n"
			   "         parallel = { tp = [4, 8]; }; };\n";
	ck_assert_int_eq(sweepcfg_load_string(text, "s.cfg", &sp, &err), TS_EINVALID);
	ck_assert_ptr_null(sp);
	ck_assert_str_eq(err.file, "s.cfg");
	ck_assert_int_eq(err.line, 3);
	ck_assert_str_eq(err.key, "parallel.tp");
	ck_assert_ptr_nonnull(strstr(err.msg, "the first is on line 2"));
	/* two different keys of one group are two axes */
	sp = load("base = \"b.cfg\";\naxes = { \"parallel.tp\" = [1, 2]; parallel = { pp = [1]; "
		  "}; };\n");
	ck_assert_uint_eq(sp->naxes, 2);
	sweepcfg_destroy(sp);
}
END_TEST

START_TEST(digest)
{
	char text[512];
	struct ts_error err;
	struct sweep_digest a, b, c;
	snprintf(text, sizeof text, BASE "axes = { nodes = [1, 2]; };\n", 64);
	struct sweep_spec *sp = load(text);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &a, &err), 0);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &b, &err), 0);
	ck_assert(a.base == b.base && a.calib == b.calib && !strcmp(a.version, b.version));
	ck_assert_str_eq(a.version, TS_VERSION);
	/* other axes, same base: the same digest (the rows check their axes) */
	sweepcfg_destroy(sp);
	snprintf(text, sizeof text, "# another sweep\n" BASE "axes = { nodes = [4]; };\n", 64);
	sp = load(text);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &b, &err), 0);
	ck_assert(a.base == b.base);
	/* sim.max_memory (default: half of this machine's memory) decides only
	 * whether a point may run, never its figures: the same digest */
	sweepcfg_destroy(sp);
	snprintf(text, sizeof text,
		 "base = { model = \"gpt3-1.3b\"; cluster = \"dgx-a100-80gb\"; "
		 "training = { global_batch = 64; micro_batch = 4; }; "
		 "sim = { max_memory = \"3 GiB\"; }; };\naxes = { nodes = [1, 2]; };\n");
	sp = load(text);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &b, &err), 0);
	ck_assert(a.base == b.base);
	/* another global batch: another base */
	sweepcfg_destroy(sp);
	snprintf(text, sizeof text, BASE "axes = { nodes = [1, 2]; };\n", 128);
	sp = load(text);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &b, &err), 0);
	ck_assert(a.base != b.base && a.calib == b.calib);
	/* another constant: another calibration */
	struct work_calib other = calib;
	*work_calib_field(&other, 0) *= 2.0;
	ck_assert_int_eq(sweep_digest(sp, cat, &other, NULL, &c, &err), 0);
	ck_assert(c.base == b.base && c.calib != b.calib);
	/* the field reads back: no comma, quote or newline to quote in CSV */
	char line[SWEEP_DIGEST_MAX];
	ck_assert_int_eq(sweep_digest_text(&a, line, sizeof line), 0);
	ck_assert_int_eq(strncmp(line, "base ", 5), 0);
	ck_assert_ptr_null(strpbrk(line, ",\"\r\n"));
	ck_assert(sweep_digest_parse(line, strlen(line), &c));
	ck_assert(c.base == a.base && c.calib == a.calib && !strcmp(c.version, a.version));
	ck_assert_int_eq(sweep_digest_text(&a, line, 20), TS_ELIMIT);
	/* a row's last field */
	size_t len;
	const char *f = sweep_row_digest("0,1,ok,x,base 1; calibration 2\n", &len);
	ck_assert_uint_eq(len, 21);
	ck_assert_int_eq(strncmp(f, "base 1; calibration 2\n", 22), 0);
	sweepcfg_destroy(sp);
}
END_TEST

START_TEST(shard_and_sets)
{
	char text[512], line[512];
	struct ts_error err;
	struct sweep_digest a, b, p;
	snprintf(text, sizeof text,
		 BASE "axes = { nodes = [1, 2, 4]; training = { seq_len = [512, 1024]; }; };\n",
		 64);
	struct sweep_spec *sp = load(text);
	/* 6 points in 4 parts: 0 4 | 1 5 | 2 | 3 */
	const size_t want[4] = {2, 2, 1, 1};
	for (size_t k = 0; k < 4; k++) {
		ck_assert_int_eq(sweepcfg_set_shard(sp, k, 4, &err), 0);
		ck_assert_uint_eq(sweepcfg_shard_points(sp), want[k]);
	}
	ck_assert_int_eq(sweepcfg_set_shard(sp, 4, 4, &err), TS_EUSAGE);
	ck_assert_int_eq(sweepcfg_set_shard(sp, 0, 0, &err), TS_EUSAGE);
	/* part 2 of 4 (k = 1): the line names it and reads back whole */
	ck_assert_int_eq(sweepcfg_set_shard(sp, 1, 4, &err), 0);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &p, &err), 0);
	ck_assert_int_eq(sweep_digest_text(&p, line, sizeof line), 0);
	ck_assert_ptr_nonnull(strstr(line, "; shard 2/4 of 6 points; axes "));
	ck_assert(sweep_digest_parse(line, strlen(line), &b));
	ck_assert(b.base == p.base && b.calib == p.calib && b.axes == p.axes);
	ck_assert_uint_eq(b.shard_k, 1);
	ck_assert_uint_eq(b.shard_n, 4);
	ck_assert_uint_eq(b.npoints, 6);
	/* the whole sweep's line has no part, and the same base */
	ck_assert_int_eq(sweepcfg_set_shard(sp, 0, 1, &err), 0);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &a, &err), 0);
	ck_assert_int_eq(sweep_digest_text(&a, line, sizeof line), 0);
	ck_assert_ptr_null(strstr(line, "shard"));
	ck_assert(sweep_digest_parse(line, strlen(line), &b));
	ck_assert_uint_eq(b.shard_n, 0);
	ck_assert(a.base == p.base);
	/* damaged parts are not digests, nor is the comment line of old */
	const char *bad[] = {
	    "base 1; calibration 2; version 0.1.0; shard 0/4 of 6 points; axes 3",
	    "base 1; calibration 2; version 0.1.0; shard 5/4 of 6 points; axes 3",
	    "base 1; calibration 2; version 0.1.0; shard 1/1 of 6 points; axes 3",
	    "base 1; calibration 2; version 0.1.0; shard 1/4",
	    "base 1; calibration 2; version 0.1.0; shard 1/4 of 6 points; axes 3; more",
	    "# trainsim sweep digest: base 1, calibration 2, version 0.1.0",
	    ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!sweep_digest_parse(bad[i], strlen(bad[i]), &b), "%s", bad[i]);
	/* other axis values: another axes hash, the same base */
	sweepcfg_destroy(sp);
	snprintf(text, sizeof text,
		 BASE "axes = { nodes = [1, 2, 8]; training = { seq_len = [512, 1024]; }; };\n",
		 64);
	sp = load(text);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &b, &err), 0);
	ck_assert(b.base == a.base && b.axes != a.axes);
	/* --set: another base; a set of an axis key is refused */
	const char *sets[] = {"training.global_batch=128"};
	ck_assert_int_eq(sweepcfg_set_base(sp, sets, 1, &err), 0);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &b, &err), 0);
	ck_assert(b.base != a.base);
	const char *axis[] = {"training.seq_len = 2048"};
	ck_assert_int_eq(sweepcfg_set_base(sp, axis, 1, &err), TS_EUSAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "a key that is an axis"));
	sweepcfg_destroy(sp);
}
END_TEST

/* A file of sweep sp: the header and `rows` rows of the points, each with
 * the digest d (NULL: an empty field) last; with old, the digest line that
 * trainsim wrote above the header before the column; its path into path. */
static void output(char *path, size_t n, const struct sweep_spec *sp, const struct sweep_digest *d,
		   size_t rows, bool old)
{
	char dig[SWEEP_DIGEST_MAX] = "";
	static char buf[SWEEP_ROW_MAX];
	snprintf(path, n, "/tmp/check_sweep_XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	if (d)
		ck_assert_int_eq(sweep_digest_text(d, dig, sizeof dig), 0);
	if (old)
		fprintf(f, "# trainsim sweep digest: %s\n", dig);
	ck_assert_int_eq(sweep_csv_header(sp, &report_sweep_cols, buf, sizeof buf), 0);
	fputs(buf, f);
	for (size_t i = 0; i < rows; i++) {
		ck_assert_int_eq(sweep_point_row(sp, &report_sweep_cols, cat, &calib, i, dig, buf,
						 sizeof buf, NULL),
				 0);
		fputs(buf, f);
	}
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(resume_same_setup_only)
{
	char text[512], path[64];
	struct ts_error err;
	struct sweep_digest d, other;
	snprintf(text, sizeof text, BASE "axes = { nodes = [1, 2]; };\n", 64);
	struct sweep_spec *sp = load(text);
	ck_assert_int_eq(sweep_digest(sp, cat, &calib, NULL, &d, &err), 0);
	size_t done;
	long keep;
	/* the same setup: one row kept */
	output(path, sizeof path, sp, &d, 1, false);
	ck_assert_int_eq(sweep_resume_scan(sp, &report_sweep_cols, path, &d, &done, &keep, &err),
			 0);
	ck_assert_uint_eq(done, 1);
	ck_assert_int_gt(keep, 0);
	/* this run with another base, calibration or version than the rows':
	 * refused, each named */
	const char *want[] = {"the base scenario (inline) changed", "the calibration changed",
			      "the version (trainsim " TS_VERSION
			      " wrote them, this is 0.0.0-old)"};
	for (int k = 0; k < 3; k++) {
		other = d;
		if (k == 0)
			other.base ^= 1;
		else if (k == 1)
			other.calib ^= 1;
		else
			snprintf(other.version, sizeof other.version, "0.0.0-old");
		ck_assert_int_eq(
		    sweep_resume_scan(sp, &report_sweep_cols, path, &other, &done, &keep, &err),
		    TS_EINVALID);
		ck_assert_int_eq(err.line, 2);
		ck_assert_msg(strstr(err.msg, want[k]) != NULL, "%s", err.msg);
		ck_assert_ptr_nonnull(strstr(err.msg, "--resume --force starts over"));
	}
	unlink(path);
	/* no digest: refused when one is expected, read as before when not */
	output(path, sizeof path, sp, NULL, 2, false);
	ck_assert_int_eq(sweep_resume_scan(sp, &report_sweep_cols, path, &d, &done, &keep, &err),
			 TS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.msg, "found a damaged digest"));
	ck_assert_int_eq(sweep_resume_scan(sp, &report_sweep_cols, path, NULL, &done, &keep, &err),
			 0);
	ck_assert_uint_eq(done, 2);
	unlink(path);
	/* the digest line above the header of old: refused, saying so */
	output(path, sizeof path, sp, &d, 2, true);
	ck_assert_int_eq(sweep_resume_scan(sp, &report_sweep_cols, path, &d, &done, &keep, &err),
			 TS_EINVALID);
	ck_assert_int_eq(err.line, 1);
	ck_assert_msg(strstr(err.msg, "the column sweep_digest"), "%s", err.msg);
	unlink(path);
	/* a header alone: nothing to keep, the header stays */
	output(path, sizeof path, sp, &d, 0, false);
	ck_assert_int_eq(sweep_resume_scan(sp, &report_sweep_cols, path, &d, &done, &keep, &err),
			 0);
	ck_assert_uint_eq(done, 0);
	unlink(path);
	/* killed inside the header: started afresh, not taken for another sweep */
	output(path, sizeof path, sp, &d, 0, false);
	ck_assert_int_eq(truncate(path, 120), 0);
	ck_assert_int_eq(sweep_resume_scan(sp, &report_sweep_cols, path, &d, &done, &keep, &err),
			 0);
	ck_assert_uint_eq(done, 0);
	ck_assert_int_eq(keep, 0);
	unlink(path);
	sweepcfg_destroy(sp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tu_tcase("sweep");
	tu_hw_fixture(tc, &cat, &calib);
	tcase_add_test(tc, two_axes_one_key);
	tcase_add_test(tc, digest);
	tcase_add_test(tc, resume_same_setup_only);
	tcase_add_test(tc, shard_and_sets);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
