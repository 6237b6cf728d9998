/* An LD_PRELOAD shim for allocation-failure tests of the trainsim binary: it
 * fails one chosen allocation made by trainsim's own code or by libconfig.
 * SPDX-License-Identifier: MIT
 *
 * TS_FAILMALLOC=N arms it: the N-th call (1-based) of malloc, calloc, realloc
 * (with a size), strdup or strndup whose caller lies in the main executable
 * (trainsim: its allocation hook, whose default allocator calls realloc, and
 * the command-line tool) or in libconfig returns NULL; every other call goes
 * through. TS_FAILMALLOC_WHO=trainsim or =libconfig counts only the calls of
 * the one. Calls from the C
 * library itself, the dynamic loader, OpenMP, GSL and jansson are not
 * counted, so the count starts at trainsim's first allocation. Without
 * TS_FAILMALLOC the shim only counts; at exit it writes "failmalloc: COUNT
 * counted allocations" to stderr when TS_FAILMALLOC_REPORT is set, and always
 * "failmalloc: failed allocation N (caller OBJECT)" when it failed one;
 * TS_FAILMALLOC_TRACE adds the stack of the failed call.
 *
 * On SIGSEGV, SIGBUS, SIGFPE or SIGABRT it writes "failmalloc: signal S in
 * OBJECT" for the innermost stack frame outside the C library and this shim,
 * then dies by the same signal: the test reads that line to tell a crash in
 * libconfig (which does not check its own allocations) from one in
 * trainsim. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* glibc's own allocator, under the names it exports for interposers. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

#undef strdup
#undef strndup

enum who { WHO_BOTH, WHO_TRAINSIM, WHO_LIBCONFIG };

static enum who who;		/* whose allocations count */
static int trace;		/* TS_FAILMALLOC_TRACE: stack of the failed call */
static long fail_at = -1;	/* the counted call to fail; -1 none */
static atomic_long counted;	/* counted calls so far */
static atomic_int failed;	/* 1 once the chosen call failed */
static char failed_caller[128]; /* object that made it */
static const void *exe_base;	/* load address of the main executable */
static const void *self_base;	/* load address of this shim */

/* Short name of the object holding address a ("?" when none). */
static const char *object_of(const void *a, const void **base)
{
	Dl_info info;
	if (!dladdr(a, &info) || !info.dli_fname) {
		*base = NULL;
		return "?";
	}
	*base = info.dli_fbase;
	const char *slash = strrchr(info.dli_fname, '/');
	return slash ? slash + 1 : info.dli_fname;
}

/* Whether the object `obj` loaded at `base` is trainsim's own code: the
 * executable, or the shared library libtrainsim.so that the CLI links. */
static int is_trainsim(const char *obj, const void *base)
{
	return base == exe_base || !strncmp(obj, "libtrainsim.", 12);
}

/* Whether a call from `caller` counts, and if so whether to fail it. */
static int should_fail(const void *caller)
{
	if (!exe_base)
		return 0; /* before the constructor ran */
	const void *base;
	const char *obj = object_of(caller, &base);
	int mine = is_trainsim(obj, base);
	if (mine ? who == WHO_LIBCONFIG : (who == WHO_TRAINSIM || strncmp(obj, "libconfig.", 10)))
		return 0;
	long n = atomic_fetch_add(&counted, 1) + 1;
	if (n != fail_at)
		return 0;
	snprintf(failed_caller, sizeof failed_caller, "%s", mine ? "trainsim" : obj);
	atomic_store(&failed, 1);
	if (trace) {
		void *frames[32];
		int nf = backtrace(frames, 32);
		backtrace_symbols_fd(frames, nf, 2);
	}
	return 1;
}

void *malloc(size_t n)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (n != 0 && should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_realloc(p, n);
}

char *strdup(const char *s)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = __libc_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

char *strndup(const char *s, size_t max)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	size_t n = strnlen(s, max);
	char *d = __libc_malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static void put(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

static void on_signal(int sig)
{
	/* not async-signal-safe in general, but the process is dying and the
	 * unwinder was loaded by the constructor */
	void *frames[64];
	int n = backtrace(frames, 64);
	const char *where = "?";
	for (int i = 0; i < n; i++) {
		const void *base;
		const char *obj = object_of(frames[i], &base);
		if (base == self_base || !strncmp(obj, "libc.", 5) || !strcmp(obj, "?"))
			continue;
		where = is_trainsim(obj, base) ? "trainsim" : obj;
		break;
	}
	char line[256];
	snprintf(line, sizeof line, "failmalloc: signal %d in %s\n", sig, where);
	put(line);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void report(void)
{
	char line[256];
	if (atomic_load(&failed)) {
		snprintf(line, sizeof line, "failmalloc: failed allocation %ld (caller %s)\n",
			 fail_at, failed_caller);
		put(line);
	}
	if (getenv("TS_FAILMALLOC_REPORT")) {
		snprintf(line, sizeof line, "failmalloc: %ld counted allocations\n",
			 atomic_load(&counted));
		put(line);
	}
}

__attribute__((constructor)) static void failmalloc_init(void)
{
	const char *e = getenv("TS_FAILMALLOC");
	if (e && *e)
		fail_at = strtol(e, NULL, 10);
	trace = getenv("TS_FAILMALLOC_TRACE") != NULL;
	const char *w = getenv("TS_FAILMALLOC_WHO");
	who = !w || !*w			? WHO_BOTH
	      : !strcmp(w, "trainsim")	? WHO_TRAINSIM
	      : !strcmp(w, "libconfig") ? WHO_LIBCONFIG
					: WHO_BOTH;
	void *warm[4];
	backtrace(warm, 4); /* loads the unwinder now, not in a signal handler */
	const void *base;
	object_of((const void *)failmalloc_init, &base);
	self_base = base;
	Dl_info info; /* the program's entry point lies in the main executable */
	if (dladdr((const void *)getauxval(AT_ENTRY), &info))
		exe_base = info.dli_fbase;
	atexit(report);
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGFPE, on_signal);
	signal(SIGABRT, on_signal);
}
