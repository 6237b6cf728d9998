/* Output files: outputs checked against inputs (also through symlinks),
 * directories and device nodes refused, temporary files renamed on success
 * and removed alone on failure, write errors named with file and reason,
 * one writer at a time on a locked output.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* mkdtemp, asprintf */
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

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/check_outfile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* dir/name into a static buffer (one of eight, so a call can take several). */
static const char *at(const char *name)
{
	static char buf[8][256];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static char *get(const char *name)
{
	static char buf[4096];
	FILE *f = fopen(at(name), "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
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
	put("in.cfg", "x = 1;\n");
	ck_assert_int_eq(symlink("in.cfg", at("link.json")), 0);
	struct outfile_arg ins[] = {{NULL, at("in.cfg")}, {"--calib", NULL}};
	/* the path itself, another spelling, and a symlink to it */
	const char *same[] = {at("in.cfg"), at("./in.cfg"), at("link.json")};
	for (size_t i = 0; i < 3; i++) {
		struct outfile_arg outs[] = {{"--trace", same[i]}};
		ts_error_clear(&err);
		ck_assert_int_eq(outfile_check(outs, 1, ins, 2, &err), TS_EUSAGE);
		ck_assert_str_eq(err.key, "--trace");
		ck_assert_ptr_nonnull(strstr(err.msg, "the same file as the input"));
		ck_assert_ptr_nonnull(strstr(err.msg, same[i]));
		ck_assert_ptr_nonnull(strstr(err.msg, at("in.cfg")));
	}
	/* another file, missing or not, passes; missing inputs are skipped */
	put("old.json", "{}");
	struct outfile_arg ok[] = {{"--trace", at("new.json")}, {"-o", at("old.json")}};
	struct outfile_arg gone[] = {{NULL, at("nothere.cfg")}};
	ck_assert_int_eq(outfile_check(ok, 2, ins, 2, &err), 0);
	ck_assert_int_eq(outfile_check(ok, 2, gone, 1, &err), 0);
	ck_assert_int_eq(outfile_check(NULL, 0, ins, 2, &err), 0);
}
END_TEST

START_TEST(output_twice)
{
	struct ts_error err;
	put("a.csv", "");
	ck_assert_int_eq(symlink("a.csv", at("b.csv")), 0);
	struct outfile_arg outs[] = {{"-o", at("a.csv")}, {"--trace", at("b.csv")}};
	ck_assert_int_eq(outfile_check(outs, 2, NULL, 0, &err), TS_EUSAGE);
	ck_assert_str_eq(err.key, "--trace");
	ck_assert_ptr_nonnull(strstr(err.msg, "the same file as the output"));
	/* the same missing path twice */
	struct outfile_arg twice[] = {{"-o", at("n.csv")}, {"--trace", at("n.csv")}};
	ck_assert_int_eq(outfile_check(twice, 2, NULL, 0, &err), TS_EUSAGE);
}
END_TEST

/* An input folder stands for everything inside it, however the output
 * path is spelled. */
START_TEST(output_inside_input_folder)
{
	struct ts_error err;
	ck_assert_int_eq(mkdir(at("data"), 0700), 0);
	ck_assert_int_eq(mkdir(at("data/models"), 0700), 0);
	ck_assert_int_eq(symlink("data/models", at("m")), 0);
	struct outfile_arg ins[] = {{"bundled data", at("data")}};
	const char *bad[] = {at("data/new.cfg"), at("data/models/x.cfg"), at("m/x.cfg"),
			     at("data/../data/y.cfg")};
	for (size_t i = 0; i < 4; i++) {
		struct outfile_arg outs[] = {{"-o", bad[i]}};
		ck_assert_int_eq(outfile_check(outs, 1, ins, 1, &err), TS_EUSAGE);
		ck_assert_ptr_nonnull(strstr(err.msg, "inside the folder"));
	}
	struct outfile_arg ok[] = {{"-o", at("data.csv")}, {"--trace", at("m.json")}};
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
	ck_assert_int_eq(mkfifo(at("fifo"), 0600), 0);
	struct outfile_arg fifo[] = {{"-o", at("fifo")}};
	ck_assert_int_eq(outfile_check(fifo, 1, NULL, 0, &err), TS_EUSAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "FIFO"));
	struct outfile_arg nodir[] = {{"-o", at("no/such/x.csv")}};
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
	put("ro.csv", "keep");
	ck_assert_int_eq(chmod(at("ro.csv"), 0444), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ts_error err;
		if (geteuid() == 0 && setuid(65534) != 0)
			_exit(3);
		struct outfile_arg outs[] = {{"-o", at("ro.csv")}};
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
	put("t.json", "old");
	ck_assert_int_eq(chmod(at("t.json"), 0640), 0);
	ck_assert_int_eq(outfile_open(at("t.json"), "--trace", &of, &err), 0);
	fputs("new", outfile_stream(of));
	/* nothing moves before the commit; the temporary file is beside it */
	ck_assert_str_eq(get("t.json"), "old");
	ck_assert_int_eq(entries(), 2);
	ck_assert_int_eq(strncmp(outfile_temp(of), dir, strlen(dir)), 0);
	ck_assert_int_eq(outfile_commit(of, &err), 0);
	ck_assert_str_eq(get("t.json"), "new");
	ck_assert_int_eq(entries(), 1);
	struct stat st;
	ck_assert_int_eq(stat(at("t.json"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640); /* the replaced file's mode */
	/* a new file: 0666 less the umask */
	mode_t old = umask(027);
	ck_assert_int_eq(outfile_open(at("u.json"), NULL, &of, &err), 0);
	ck_assert_int_eq(outfile_commit(of, &err), 0);
	umask(old);
	ck_assert_int_eq(stat(at("u.json"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
}
END_TEST

START_TEST(abort_removes_only_the_temporary)
{
	struct ts_error err;
	struct outfile *of;
	/* a symlink to someone's file: neither the link nor the file moves */
	put("precious", "keep me");
	ck_assert_int_eq(symlink("precious", at("t.json")), 0);
	ck_assert_int_eq(outfile_open(at("t.json"), "--trace", &of, &err), 0);
	fputs("half a trace", outfile_stream(of));
	outfile_abort(of);
	ck_assert_str_eq(get("precious"), "keep me");
	struct stat st;
	ck_assert_int_eq(lstat(at("t.json"), &st), 0);
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
	ck_assert_int_eq(outfile_open(at("big.csv"), "-o", &of, &err), 0);
	char line[100];
	memset(line, 'x', sizeof line - 2);
	line[98] = '\n';
	line[99] = '\0';
	for (int i = 0; i < 200; i++)
		fputs(line, outfile_stream(of));
	ck_assert_int_eq(outfile_commit(of, &err), TS_EIO);
	ck_assert_str_eq(err.key, "-o");
	ck_assert_ptr_nonnull(strstr(err.msg, at("big.csv")));
	ck_assert_ptr_nonnull(strstr(err.msg, strerror(EFBIG)));
	ck_assert_int_eq(entries(), 0);
	/* the same through the locked, in-place writer */
	ck_assert_int_eq(outfile_open_locked(at("rows.csv"), "-o", &of, &err), 0);
	for (int i = 0; i < 200; i++)
		fputs(line, outfile_stream(of));
	ck_assert_int_eq(outfile_commit(of, &err), TS_EIO);
	ck_assert_ptr_nonnull(strstr(err.msg, at("rows.csv")));
	ck_assert_ptr_nonnull(strstr(err.msg, strerror(EFBIG)));
}
END_TEST

START_TEST(locked_one_writer)
{
	struct ts_error err;
	struct outfile *a, *b;
	put("r.csv", "head\nrow 0\nrow 1\n");
	ck_assert_int_eq(outfile_open_locked(at("r.csv"), "-o", &a, &err), 0);
	ck_assert_str_eq(get("r.csv"), "head\nrow 0\nrow 1\n"); /* not truncated by opening */
	ck_assert_int_eq(outfile_open_locked(at("r.csv"), "-o", &b, &err), TS_EIO);
	ck_assert_ptr_null(b);
	ck_assert_ptr_nonnull(strstr(err.msg, "locked by another process"));
	ck_assert_int_eq(outfile_truncate(a, 11, &err), 0);
	fputs("row 1'\n", outfile_stream(a));
	outfile_abort(a); /* in place: what is written stays */
	ck_assert_str_eq(get("r.csv"), "head\nrow 0\nrow 1'\n");
	/* the lock went with it */
	ck_assert_int_eq(outfile_open_locked(at("r.csv"), "-o", &b, &err), 0);
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
