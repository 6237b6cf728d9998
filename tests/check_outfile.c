/* Output files: outputs checked against inputs (also through symlinks),
 * directories and device nodes refused, temporary files renamed on success
 * and removed alone on failure, write errors named with file and reason,
 * one writer at a time on a locked output.
 * SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700 /* symlink, mkfifo, lstat, setrlimit */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "report/outfile.h"
#include "testutil.h"

static const char *dir; /* the test's scratch folder */

static void setup(void)
{
	dir = tu_scratch("check_outfile");
}

static void teardown(void)
{
	tu_scratch_remove();
}

/* Number of entries of dir (besides . and ..). */
static int entries(void)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

START_TEST(output_is_input)
{
	struct ts_error err;
	tu_put("in.cfg", "x = 1;\n");
	ck_assert_int_eq(symlink("in.cfg", tu_at("link.json")), 0);
	struct outfile_arg ins[] = {{NULL, tu_at("in.cfg")}, {"--calib", NULL}};
	/* the path itself, another spelling, and a symlink to it */
	const char *same[] = {tu_at("in.cfg"), tu_at("./in.cfg"), tu_at("link.json")};
	for (size_t i = 0; i < 3; i++) {
		struct outfile_arg outs[] = {{"--trace", same[i]}};
		ts_error_clear(&err);
		ck_assert_int_eq(outfile_check(outs, 1, ins, 2, &err), TS_EUSAGE);
		ck_assert_str_eq(err.key, "--trace");
		ck_assert_ptr_nonnull(strstr(err.msg, "the same file as the input"));
		ck_assert_ptr_nonnull(strstr(err.msg, same[i]));
		ck_assert_ptr_nonnull(strstr(err.msg, tu_at("in.cfg")));
	}
	/* another file, missing or not, passes; missing inputs are skipped */
	tu_put("old.json", "{}");
	struct outfile_arg ok[] = {{"--trace", tu_at("new.json")}, {"-o", tu_at("old.json")}};
	struct outfile_arg gone[] = {{NULL, tu_at("nothere.cfg")}};
	ck_assert_int_eq(outfile_check(ok, 2, ins, 2, &err), 0);
	ck_assert_int_eq(outfile_check(ok, 2, gone, 1, &err), 0);
	ck_assert_int_eq(outfile_check(NULL, 0, ins, 2, &err), 0);
}
END_TEST

START_TEST(output_twice)
{
	struct ts_error err;
	tu_put("a.csv", "");
	ck_assert_int_eq(symlink("a.csv", tu_at("b.csv")), 0);
	struct outfile_arg outs[] = {{"-o", tu_at("a.csv")}, {"--trace", tu_at("b.csv")}};
	ck_assert_int_eq(outfile_check(outs, 2, NULL, 0, &err), TS_EUSAGE);
	ck_assert_str_eq(err.key, "--trace");
	ck_assert_ptr_nonnull(strstr(err.msg, "the same file as the output"));
	/* the same missing path twice */
	struct outfile_arg twice[] = {{"-o", tu_at("n.csv")}, {"--trace", tu_at("n.csv")}};
	ck_assert_int_eq(outfile_check(twice, 2, NULL, 0, &err), TS_EUSAGE);
}
END_TEST

/* An input folder stands for everything inside it, however the output
 * path is spelled. */
START_TEST(output_inside_input_folder)
{
	struct ts_error err;
	ck_assert_int_eq(mkdir(tu_at("data"), 0700), 0);
	ck_assert_int_eq(mkdir(tu_at("data/models"), 0700), 0);
	ck_assert_int_eq(symlink("data/models", tu_at("m")), 0);
	/* a link outside the folder to a file inside it (the bundled model) */
	tu_put("data/models/gpt.cfg", "x = 1;\n");
	ck_assert_int_eq(symlink("data/models/gpt.cfg", tu_at("link.json")), 0);
	struct outfile_arg ins[] = {{"bundled data", tu_at("data")}};
	const char *bad[] = {tu_at("data/new.cfg"), tu_at("data/models/x.cfg"), tu_at("m/x.cfg"),
			     tu_at("data/../data/y.cfg"), tu_at("link.json")};
	for (size_t i = 0; i < 5; i++) {
		struct outfile_arg outs[] = {{"-o", bad[i]}};
		ck_assert_int_eq(outfile_check(outs, 1, ins, 1, &err), TS_EUSAGE);
		ck_assert_ptr_nonnull(strstr(err.msg, "inside the folder"));
	}
	struct outfile_arg ok[] = {{"-o", tu_at("data.csv")}, {"--trace", tu_at("m.json")}};
	ck_assert_int_eq(outfile_check(ok, 2, ins, 1, &err), 0);
}
END_TEST

START_TEST(output_not_a_file)
{
	struct ts_error err;
	struct outfile_arg d[] = {{"-o", dir}};
	ck_assert_int_eq(outfile_check(d, 1, NULL, 0, &err), TS_EUSAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "a directory"));
	struct outfile_arg dev[] = {{"--trace", "/dev/null"}};
	ck_assert_int_eq(outfile_check(dev, 1, NULL, 0, &err), TS_EUSAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "a device node"));
	ck_assert_int_eq(mkfifo(tu_at("fifo"), 0600), 0);
	struct outfile_arg fifo[] = {{"-o", tu_at("fifo")}};
	ck_assert_int_eq(outfile_check(fifo, 1, NULL, 0, &err), TS_EUSAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "FIFO"));
	struct outfile_arg nodir[] = {{"-o", tu_at("no/such/x.csv")}};
	ck_assert_int_eq(outfile_check(nodir, 1, NULL, 0, &err), TS_EIO);
	ck_assert_ptr_nonnull(strstr(err.msg, "does not exist"));
	struct outfile_arg empty[] = {{"-o", ""}};
	ck_assert_int_eq(outfile_check(empty, 1, NULL, 0, &err), TS_EUSAGE);
}
END_TEST

/* A file made read-only is not replaced behind its mode. As root, the
 * check runs in a child dropped to nobody, since root may write anything. */
START_TEST(output_read_only)
{
	tu_put("ro.csv", "keep");
	ck_assert_int_eq(chmod(tu_at("ro.csv"), 0444), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ts_error err;
		if (geteuid() == 0 && setuid(65534) != 0)
			_exit(3);
		struct outfile_arg outs[] = {{"-o", tu_at("ro.csv")}};
		if (outfile_check(outs, 1, NULL, 0, &err) != TS_EIO)
			_exit(1);
		_exit(strstr(err.msg, "cannot be written") && strstr(err.msg, strerror(EACCES))
			  ? 0
			  : 2);
	}
	int st = 0;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "read-only output: child exit %d (1: not refused, 2: message, 3: setuid)",
		      WEXITSTATUS(st));
}
END_TEST

START_TEST(commit_renames)
{
	struct ts_error err;
	struct outfile *of;
	tu_put("t.json", "old");
	ck_assert_int_eq(chmod(tu_at("t.json"), 0640), 0);
	ck_assert_int_eq(outfile_open(tu_at("t.json"), "--trace", &of, &err), 0);
	fputs("new", outfile_stream(of));
	/* nothing moves before the commit; the temporary file is beside it */
	ck_assert_str_eq(tu_get("t.json"), "old");
	ck_assert_int_eq(entries(), 2);
	ck_assert_int_eq(strncmp(outfile_temp(of), dir, strlen(dir)), 0);
	ck_assert_int_eq(outfile_commit(of, &err), 0);
	ck_assert_str_eq(tu_get("t.json"), "new");
	ck_assert_int_eq(entries(), 1);
	struct stat st;
	ck_assert_int_eq(stat(tu_at("t.json"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640); /* the replaced file's mode */
	/* a new file: 0666 less the umask */
	mode_t old = umask(027);
	ck_assert_int_eq(outfile_open(tu_at("u.json"), NULL, &of, &err), 0);
	ck_assert_int_eq(outfile_commit(of, &err), 0);
	umask(old);
	ck_assert_int_eq(stat(tu_at("u.json"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
}
END_TEST

START_TEST(abort_removes_only_the_temporary)
{
	struct ts_error err;
	struct outfile *of;
	/* a symlink to someone's file: neither the link nor the file moves */
	tu_put("precious", "keep me");
	ck_assert_int_eq(symlink("precious", tu_at("t.json")), 0);
	ck_assert_int_eq(outfile_open(tu_at("t.json"), "--trace", &of, &err), 0);
	fputs("half a trace", outfile_stream(of));
	outfile_abort(of);
	ck_assert_str_eq(tu_get("precious"), "keep me");
	struct stat st;
	ck_assert_int_eq(lstat(tu_at("t.json"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(entries(), 2);
	outfile_abort(NULL);
	ck_assert_int_eq(outfile_commit(NULL, &err), 0);
}
END_TEST

/* A write that fails (here EFBIG past RLIMIT_FSIZE, as ENOSPC on a full
 * disk) is reported at commit naming the file and the reason, and leaves
 * nothing behind. */
START_TEST(write_error_named)
{
	struct ts_error err;
	struct outfile *of;
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = {4096, 4096};
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	ck_assert_int_eq(outfile_open(tu_at("big.csv"), "-o", &of, &err), 0);
	char line[100];
	memset(line, 'x', sizeof line - 2);
	line[98] = '\n';
	line[99] = '\0';
	for (int i = 0; i < 200; i++)
		fputs(line, outfile_stream(of));
	ck_assert_int_eq(outfile_commit(of, &err), TS_EIO);
	ck_assert_str_eq(err.key, "-o");
	ck_assert_ptr_nonnull(strstr(err.msg, tu_at("big.csv")));
	ck_assert_ptr_nonnull(strstr(err.msg, strerror(EFBIG)));
	ck_assert_int_eq(entries(), 0);
	/* the same through the locked, in-place writer */
	ck_assert_int_eq(outfile_open_locked(tu_at("rows.csv"), "-o", &of, &err), 0);
	for (int i = 0; i < 200; i++)
		fputs(line, outfile_stream(of));
	ck_assert_int_eq(outfile_commit(of, &err), TS_EIO);
	ck_assert_ptr_nonnull(strstr(err.msg, tu_at("rows.csv")));
	ck_assert_ptr_nonnull(strstr(err.msg, strerror(EFBIG)));
}
END_TEST

START_TEST(locked_one_writer)
{
	struct ts_error err;
	struct outfile *a, *b;
	tu_put("r.csv", "head\nrow 0\nrow 1\n");
	ck_assert_int_eq(outfile_open_locked(tu_at("r.csv"), "-o", &a, &err), 0);
	ck_assert_str_eq(tu_get("r.csv"), "head\nrow 0\nrow 1\n"); /* not truncated by opening */
	ck_assert_int_eq(outfile_open_locked(tu_at("r.csv"), "-o", &b, &err), TS_EIO);
	ck_assert_ptr_null(b);
	ck_assert_ptr_nonnull(strstr(err.msg, "locked by another process"));
	ck_assert_int_eq(outfile_truncate(a, 11, &err), 0);
	fputs("row 1'\n", outfile_stream(a));
	outfile_abort(a); /* in place: what is written stays */
	ck_assert_str_eq(tu_get("r.csv"), "head\nrow 0\nrow 1'\n");
	/* the lock went with it */
	ck_assert_int_eq(outfile_open_locked(tu_at("r.csv"), "-o", &b, &err), 0);
	ck_assert_int_eq(outfile_commit(b, &err), 0);
	ck_assert_int_eq(outfile_open_locked("/dev/null", "-o", &b, &err), TS_EIO);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a regular file"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tu_tcase("outfile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, output_is_input);
	tcase_add_test(tc, output_twice);
	tcase_add_test(tc, output_inside_input_folder);
	tcase_add_test(tc, output_not_a_file);
	tcase_add_test(tc, output_read_only);
	tcase_add_test(tc, commit_renames);
	tcase_add_test(tc, abort_removes_only_the_temporary);
	tcase_add_test(tc, write_error_named);
	tcase_add_test(tc, locked_one_writer);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
