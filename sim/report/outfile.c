/* Output files.
 *
 * outfile_check runs before any work: an output that is an input (compared
 * by device and inode, which sees through symlinks and "./" spellings), an
 * earlier output, a directory or a special file is refused, and so is a
 * folder that cannot take the file, so a long run never ends in "cannot
 * write". outfile_open writes a temporary file beside the target (same
 * folder, hence same file system, so rename(2) is atomic) and only
 * outfile_commit puts it in place: a failure removes the temporary file and
 * nothing else; whatever the path named (a symlink, someone's file, a
 * device) is untouched. An output that is a symlink is written to its
 * target (the new file replaces the target, in the target's folder, and
 * the link stays); a name under /proc, or a link into it (/dev/stdout), is
 * refused, since renaming onto it would replace the link, not write the
 * stream it stands for. The stream writes through a cookie (fopencookie)
 * that keeps the errno of the first failed write(2), so a full disk is
 * reported with its reason however late stdio notices it.
 *
 * No temporary file outlives its writer. It is named
 * ".NAME.trainsim-HOST-PID.XXXXXX", after the output, this machine and
 * this process. While it is open its name sits in a fixed table of slots
 * (each claimed with an atomic compare-and-swap, then marked ready), which
 * outfile_remove_temps walks with nothing but atomic loads and unlink(2):
 * a signal handler may call it (the command-line tool does on SIGINT,
 * SIGTERM and SIGHUP). What no handler can catch (SIGKILL, a power cut)
 * the next writer into the same folder cleans: outfile_open removes the
 * temporary files there whose HOST is this machine and whose PID is no
 * longer a live process (kill(pid, 0) fails with ESRCH), if they are
 * regular files of this user. A PID since reused keeps its file until that
 * process ends too; a file of another machine sharing the folder is never
 * touched.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* fopencookie, flock */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"
#include "report/outfile.h"

/* ---- temporary files: the table a signal handler reads ----------------- */

/* Temporary files open at once that a signal handler removes; more are
 * written all the same, and left to the next writer's cleaning. */
#define OUTFILE_SLOTS 64

enum { SLOT_FREE, SLOT_CLAIMED, SLOT_READY };

static struct {
	atomic_int state; /* SLOT_*: only a SLOT_READY path is read */
	char path[4300];  /* the temporary file (as outfile_open makes it) */
} slots[OUTFILE_SLOTS];

/* Register tmp; the slot's index, or -1 when every slot is taken (or the
 * name would not fit: a cut name could be another file's). */
static int slot_take(const char *tmp)
{
	if (strlen(tmp) >= sizeof slots[0].path)
		return -1;
	for (int i = 0; i < OUTFILE_SLOTS; i++) {
		int free_ = SLOT_FREE;
		if (atomic_compare_exchange_strong(&slots[i].state, &free_, SLOT_CLAIMED)) {
			snprintf(slots[i].path, sizeof slots[i].path, "%s", tmp);
			atomic_store(&slots[i].state, SLOT_READY);
			return i;
		}
	}
	return -1;
}

static void slot_drop(int i)
{
	if (i >= 0)
		atomic_store(&slots[i].state, SLOT_FREE);
}

/* Set by outfile_remove_temps: the process is stopping, and a temporary file
 * made from now on (by another thread, in the moment before the process
 * dies) is removed by its maker (outfile_open checks after registering). */
static atomic_int stopping;

/* Threads between making a temporary file and registering it: a handler
 * running on another thread waits for them (they block the caught signals
 * meanwhile, so it never runs on theirs), else a signal in that moment left
 * the file behind. */
static atomic_int opening;

void outfile_remove_temps(void)
{
	atomic_store(&stopping, 1);
	/* at most 50 ms: the window is a mkstemp and a compare-and-swap */
	for (int k = 0; k < 200 && atomic_load(&opening) > 0; k++) {
		struct timespec ts = {0, 250000};
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < OUTFILE_SLOTS; i++)
		if (atomic_load(&slots[i].state) == SLOT_READY)
			unlink(slots[i].path);
}

/* This machine's part of a temporary file's name: its host name up to the
 * first '.', letters, digits and '-' kept, anything else '_', at most 32
 * bytes ("host" when it has none). */
static void host_tag(char *buf, size_t n)
{
	char h[256] = "";
	if (gethostname(h, sizeof h - 1) != 0 || !h[0])
		snprintf(h, sizeof h, "host");
	h[sizeof h - 1] = '\0';
	size_t k = 0;
	for (const char *c = h; *c && *c != '.' && k + 1 < n && k < 32; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '-';
		buf[k++] = ok ? *c : '_';
	}
	buf[k] = '\0';
}

/* Remove from folder dir the temporary files of writers on this machine
 * (".NAME.trainsim-HOST-PID.XXXXXX", HOST = host) whose process is gone:
 * regular files of this user, PID not alive. Best effort: what cannot be
 * read or removed stays. */
static void remove_stale(const char *dir, const char *host)
{
	DIR *d = ts_opendir(dir);
	if (!d)
		return;
	char mark[64], path[PATH_MAX + 300];
	int ml = snprintf(mark, sizeof mark, ".trainsim-%s-", host);
	uid_t me = getuid();
	for (struct dirent *e; (e = readdir(d));) {
		const char *n = e->d_name, *m;
		if (n[0] != '.' || !(m = strstr(n + 1, mark)))
			continue;
		const char *p = m + ml;
		char *end;
		errno = 0;
		long pid = strtol(p, &end, 10);
		if (end == p || errno || pid <= 0 || pid > INT_MAX || *end != '.' ||
		    strlen(end + 1) != 6)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive, or another user's */
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, n);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == me)
			unlink(path);
	}
	closedir(d);
}

/* ---- the output ------------------------------------------------------------- */

struct outfile {
	FILE *f;      /* the stream, writing through the cookie to fd */
	int fd;	      /* the open file (temporary or in place) */
	int werr;     /* errno of the first failed write, 0 when none */
	bool atomic;  /* true: a temporary file renamed at commit */
	char *path;   /* the output path (owned) */
	char *tmp;    /* the temporary file, or a copy of path (owned) */
	char opt[32]; /* the option naming the output, "" when none */
	int slot;     /* the temporary file's slot for signal handlers, -1 none */
};

/* ---- checking -------------------------------------------------------- */

static const char *opt_of(const struct outfile_arg *a)
{
	return a->opt && a->opt[0] ? a->opt : NULL;
}

/* Input a as the messages name it, into buf: "PATH" or "PATH" (OPT). */
static const char *input_name(const struct outfile_arg *a, char *buf, size_t n)
{
	const char *opt = opt_of(a);
	snprintf(buf, n, "\"%s\"%s%s%s", a->path, opt ? " (" : "", opt ? opt : "", opt ? ")" : "");
	return buf;
}

/* The folder of path into buf ("." when none). */
static void folder_of(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(buf, n, ".");
	else if (slash == path)
		snprintf(buf, n, "/");
	else
		snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

/* Whether the file `path` (existing or not) lies inside folder `dir`, both
 * taken to their real paths (symlinks and ".." resolved). */
static bool inside(const char *path, const char *dir)
{
	char folder[4096], rf[PATH_MAX], rd[PATH_MAX];
	folder_of(path, folder, sizeof folder);
	if (!realpath(folder, rf) || !realpath(dir, rd))
		return false;
	size_t n = strlen(rd);
	return !strncmp(rf, rd, n) && (rf[n] == '/' || rf[n] == '\0' || !strcmp(rd, "/"));
}

/* Whether path is, or leads through symlinks to, a file of /proc (as
 * /dev/stdout -> /proc/self/fd/1 does): such a name stands for a file
 * descriptor of this process, which a rename would replace, not write. */
static bool via_proc(const char *path)
{
	char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
	snprintf(cur, sizeof cur, "%s", path);
	for (int hop = 0; hop < 40; hop++) { /* Linux follows at most 40 links */
		if (!strncmp(cur, "/proc/", 6))
			return true;
		ssize_t n = readlink(cur, link, sizeof link - 1);
		if (n < 0)
			return false;
		link[n] = '\0';
		if (link[0] == '/') {
			snprintf(cur, sizeof cur, "%s", link);
		} else {
			folder_of(cur, dir, sizeof dir);
			snprintf(cur, sizeof cur, "%.2000s/%.2000s", dir, link);
		}
	}
	return false;
}

/* The file an output named `path` really is: path itself, or the target
 * of the symlink path names (resolved into real, PATH_MAX bytes), so that
 * the new file replaces the target and the link stays. NULL when path is a
 * symlink whose target does not exist or cannot be resolved (errno set). */
static const char *target_of(const char *path, char *real)
{
	struct stat sl;
	if (lstat(path, &sl) != 0 || !S_ISLNK(sl.st_mode))
		return path;
	return realpath(path, real);
}

static int check_one(const struct outfile_arg *o, const struct outfile_arg *outs, size_t k,
		     const struct outfile_arg *ins, size_t nin, struct ts_error *err)
{
	const char *opt = opt_of(o);
	struct stat so, si;
	char in[1024]; /* an input's name, for messages */
	if (!o->path[0])
		return ts_error_set(err, TS_EUSAGE, NULL, 0, opt,
				    "found an empty file name, expected an output file");
	if (via_proc(o->path))
		return ts_error_set(err, TS_EUSAGE, NULL, 0, opt,
				    "found \"%s\", a file descriptor of this process (under "
				    "/proc), expected a file to write (use - for standard output)",
				    o->path);
	char real[PATH_MAX];
	const char *target = target_of(o->path, real);
	if (!target)
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", a symlink whose target %s, expected a "
				    "symlink to a file that exists, or a file",
				    o->path,
				    errno == ENOENT ? "does not exist" : "cannot be resolved");
	bool exists = stat(o->path, &so) == 0;
	if (exists && S_ISDIR(so.st_mode))
		return ts_error_set(err, TS_EUSAGE, NULL, 0, opt,
				    "found \"%s\", a directory, expected a file to write", o->path);
	if (exists && !S_ISREG(so.st_mode))
		return ts_error_set(err, TS_EUSAGE, NULL, 0, opt,
				    "found \"%s\", a %s, expected a regular file to write (it "
				    "would be replaced, not written into)",
				    o->path,
				    S_ISCHR(so.st_mode) || S_ISBLK(so.st_mode) ? "device node"
				    : S_ISFIFO(so.st_mode)		       ? "FIFO"
				    : S_ISSOCK(so.st_mode)		       ? "socket"
									       : "special file");
	/* replacing a file its owner made read-only would defeat the mode */
	if (exists && access(o->path, W_OK) != 0)
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", which cannot be written (%s), expected a "
				    "writable file",
				    o->path, strerror(errno));
	for (size_t i = 0; i < nin; i++) {
		if (!ins[i].path || stat(ins[i].path, &si) != 0)
			continue;
		/* the link's target counts: a link from elsewhere into the folder
		 * would otherwise replace a file inside it */
		if (S_ISDIR(si.st_mode) &&
		    (inside(o->path, ins[i].path) || inside(target, ins[i].path)))
			return ts_error_set(
			    err, TS_EUSAGE, NULL, 0, opt,
			    "found \"%s\", inside the folder %s of the inputs, expected a "
			    "file elsewhere (it would replace or add to the inputs)",
			    o->path, input_name(&ins[i], in, sizeof in));
		if (exists && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return ts_error_set(
			    err, TS_EUSAGE, NULL, 0, opt,
			    "found \"%s\", the same file as the input %s, expected another "
			    "file (writing it would destroy the input)",
			    o->path, input_name(&ins[i], in, sizeof in));
	}
	for (size_t j = 0; j < k; j++) {
		if (!outs[j].path)
			continue;
		bool same = !strcmp(outs[j].path, o->path);
		if (!same && exists && stat(outs[j].path, &si) == 0)
			same = si.st_dev == so.st_dev && si.st_ino == so.st_ino;
		if (same)
			return ts_error_set(err, TS_EUSAGE, NULL, 0, opt,
					    "found \"%s\", the same file as the output \"%s\"%s%s, "
					    "expected another file (one would overwrite the other)",
					    o->path, outs[j].path, opt_of(&outs[j]) ? " of " : "",
					    opt_of(&outs[j]) ? outs[j].opt : "");
	}
	char dir[4096];
	struct stat sd;
	folder_of(target, dir, sizeof dir);
	int st = stat(dir, &sd) != 0 ? errno : 0;
	if (st || !S_ISDIR(sd.st_mode))
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", whose folder \"%s\" %s, expected a writable "
				    "file in an existing folder",
				    o->path, dir,
				    st == ENOENT ? "does not exist"
				    : st	 ? strerror(st)
						 : "is not a folder");
	if (access(dir, W_OK | X_OK) != 0)
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", whose folder \"%s\" cannot be written (%s), "
				    "expected a writable file in a writable folder",
				    o->path, dir, strerror(errno));
	return 0;
}

int outfile_check(const struct outfile_arg *outs, size_t nout, const struct outfile_arg *ins,
		  size_t nin, struct ts_error *err)
{
	for (size_t k = 0; k < nout; k++) {
		if (!outs[k].path)
			continue;
		int rc = check_one(&outs[k], outs, k, ins, nin, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- writing --------------------------------------------------------- */

static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
	struct outfile *of = c;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(of->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!of->werr)
				of->werr = w < 0 ? errno : ENOSPC;
			return (ssize_t)done; /* 0: the error (fopencookie(3)) */
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static int cookie_seek(void *c, off64_t *pos, int whence)
{
	struct outfile *of = c;
	off_t r = lseek(of->fd, (off_t)*pos, whence);
	if (r < 0)
		return -1;
	*pos = (off64_t)r;
	return 0;
}

static void of_free(struct outfile *of)
{
	if (of->path)
		ts_free(of->path, strlen(of->path) + 1);
	if (of->tmp)
		ts_free(of->tmp, strlen(of->tmp) + 1);
	ts_free(of, sizeof *of);
}

/* A new record for path, its stream made on fd (already open). */
static int of_make(const char *path, const char *opt, const char *tmp, int fd, bool atomic,
		   struct outfile **out, struct ts_error *err)
{
	struct outfile *of = ts_calloc(1, sizeof *of);
	if (of && (!(of->path = ts_strdup(path)) || !(of->tmp = ts_strdup(tmp)))) {
		of_free(of);
		of = NULL;
	}
	if (!of)
		return ts_error_set(err, TS_ENOMEM, NULL, 0, opt, "out of memory");
	of->fd = fd;
	of->atomic = atomic;
	of->slot = -1;
	snprintf(of->opt, sizeof of->opt, "%s", opt ? opt : "");
	cookie_io_functions_t io = {.write = cookie_write, .seek = cookie_seek};
	if (!(of->f = fopencookie(of, "w", io))) {
		of_free(of);
		return ts_error_set(err, TS_ENOMEM, NULL, 0, opt, "out of memory");
	}
	*out = of;
	return 0;
}

int outfile_open(const char *path, const char *opt, struct outfile **out, struct ts_error *err)
{
	*out = NULL;
	char dir[4096], tmp[4300], real[PATH_MAX];
	const char *named = path;
	if (!(path = target_of(path, real)))
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", a symlink whose target cannot be resolved "
				    "(%s), expected a symlink to a file that exists, or a file",
				    named, strerror(errno));
	folder_of(path, dir, sizeof dir);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	/* hidden, named after the output, this machine and process, in its
	 * folder; those of writers that died there are removed first */
	char host[40];
	host_tag(host, sizeof host);
	remove_stale(dir, host);
	snprintf(tmp, sizeof tmp, "%s/.%.100s.trainsim-%s-%ld.XXXXXX", dir, base, host,
		 (long)getpid());
	/* made and registered with the caught signals blocked on this thread
	 * and `opening` counted, so no handler unlinks the slots in between */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	atomic_fetch_add(&opening, 1);
	int fd = ts_mkstemp(tmp);
	int mk_errno = errno;
	int slot = fd >= 0 ? slot_take(tmp) : -1;
	atomic_fetch_sub(&opening, 1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0)
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", which cannot be written: a temporary file in "
				    "\"%s\" cannot be made (%s), expected a writable folder",
				    path, dir, strerror(mk_errno));
	if (atomic_load(&stopping)) { /* a handler's sweep may have missed it */
		close(fd);
		unlink(tmp);
		slot_drop(slot);
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found the process stopping (a signal), expected to write "
				    "\"%s\"",
				    path);
	}
	int rc = of_make(path, opt, tmp, fd, true, out, err);
	if (rc) {
		close(fd);
		unlink(tmp);
		slot_drop(slot);
	} else {
		(*out)->slot = slot;
	}
	return rc;
}

int outfile_open_locked(const char *path, const char *opt, struct outfile **out,
			struct ts_error *err)
{
	*out = NULL;
	int fd = ts_open_create(path, O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0)
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", which cannot be written (%s), expected a "
				    "writable file",
				    path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", which is not a regular file, expected one",
				    path);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		close(fd);
		if (e == EWOULDBLOCK)
			return ts_error_set(err, TS_EIO, NULL, 0, opt,
					    "found \"%s\" locked by another process (another "
					    "trainsim writing it?), expected one writer at a time",
					    path);
		return ts_error_set(err, TS_EIO, NULL, 0, opt,
				    "found \"%s\", which cannot be locked (%s), expected a "
				    "lockable file",
				    path, strerror(e));
	}
	int rc = of_make(path, opt, path, fd, false, out, err);
	if (rc)
		close(fd);
	if (!rc && fseek((*out)->f, 0, SEEK_END)) {
		rc = outfile_write_error(*out, errno, err);
		outfile_abort(*out);
		*out = NULL;
	}
	return rc;
}

FILE *outfile_stream(const struct outfile *of)
{
	return of->f;
}

const char *outfile_temp(const struct outfile *of)
{
	return of->tmp;
}

int outfile_write_error(const struct outfile *of, int errnum, struct ts_error *err)
{
	int e = of->werr ? of->werr : errnum;
	return ts_error_set(err, TS_EIO, NULL, 0, of->opt[0] ? of->opt : NULL,
			    "writing \"%s\" failed (%s)", of->path,
			    e ? strerror(e) : "write error");
}

int outfile_truncate(struct outfile *of, long keep, struct ts_error *err)
{
	if (fflush(of->f) || ftruncate(of->fd, (off_t)keep) || fseek(of->f, 0, SEEK_END))
		return outfile_write_error(of, errno, err);
	return 0;
}

/* The mode a new output takes: that of the file it replaces, else 0666
 * less the umask (read from /proc, since umask(2) cannot be read without
 * changing it, and other threads may be creating files). */
static mode_t new_mode(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	unsigned mask = 022;
	FILE *f = ts_fopen("/proc/self/status", "r");
	if (f) {
		char line[256];
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "Umask: %o", &mask) == 1)
				break;
		fclose(f);
	}
	return (mode_t)(0666 & ~mask);
}

int outfile_commit(struct outfile *of, struct ts_error *err)
{
	if (!of)
		return 0;
	int rc = 0, e = 0;
	bool bad = fflush(of->f) != 0 || ferror(of->f);
	if (bad)
		e = errno;
	if (!bad && of->atomic && fchmod(of->fd, new_mode(of->path)))
		bad = true, e = errno;
	if (!bad && fsync(of->fd) && errno != EINVAL && errno != EROFS)
		bad = true, e = errno;
	if (fclose(of->f) && !bad)
		bad = true, e = errno;
	if (close(of->fd) && !bad)
		bad = true, e = errno;
	if (bad)
		rc = outfile_write_error(of, e, err);
	if (of->atomic) {
		if (!rc && rename(of->tmp, of->path))
			rc = ts_error_set(err, TS_EIO, NULL, 0, of->opt[0] ? of->opt : NULL,
					  "writing \"%s\" failed: the finished file \"%s\" cannot "
					  "be renamed onto it (%s)",
					  of->path, of->tmp, strerror(errno));
		if (rc)
			unlink(of->tmp);
	}
	slot_drop(of->slot); /* after the rename: a handler's unlink then finds nothing */
	of_free(of);
	return rc;
}

int outfile_publish(struct outfile *of, struct ts_error *err)
{
	if (!of->atomic)
		return 0;
	int e = 0;
	bool bad = fflush(of->f) != 0 || ferror(of->f);
	if (bad)
		e = errno;
	if (!bad && fchmod(of->fd, new_mode(of->path)))
		bad = true, e = errno;
	if (!bad && fsync(of->fd) && errno != EINVAL && errno != EROFS)
		bad = true, e = errno;
	if (bad)
		return outfile_write_error(of, e, err);
	if (rename(of->tmp, of->path))
		return ts_error_set(err, TS_EIO, NULL, 0, of->opt[0] ? of->opt : NULL,
				    "writing \"%s\" failed: the file \"%s\" cannot be renamed onto "
				    "it (%s)",
				    of->path, of->tmp, strerror(errno));
	slot_drop(of->slot);
	of->slot = -1;
	char *path = ts_strdup(of->path);
	if (path) { /* else the name of the temporary file stays, for messages */
		ts_free(of->tmp, strlen(of->tmp) + 1);
		of->tmp = path;
	}
	of->atomic = false;
	return 0;
}

void outfile_abort(struct outfile *of)
{
	if (!of)
		return;
	fclose(of->f);
	close(of->fd);
	if (of->atomic)
		unlink(of->tmp);
	slot_drop(of->slot);
	of_free(of);
}
