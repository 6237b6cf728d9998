/* Output files: every output path checked against every input before any
 * work, and outputs written so that a failure leaves the old file (or
 * nothing) in place rather than half a file or a deleted stranger.
 * SPDX-License-Identifier: MIT */
#ifndef TS_REPORT_OUTFILE_H
#define TS_REPORT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

/* A file named on the command line: the option that named it ("--trace",
 * "-o"; NULL or "" when positional) and its path (NULL: not given,
 * skipped). */
struct outfile_arg {
	const char *opt;
	const char *path;
};

/* Check outputs outs[0..nout) against inputs ins[0..nin) before any work.
 * An output is refused when it is the same file as an input (same device
 * and inode, so also through a symlink or another spelling of the path),
 * the same file (or path) as an earlier output, a directory, or an existing
 * file that is not a regular file (a device node, a FIFO, a socket); also
 * when it exists and its mode forbids writing it (it is not replaced behind
 * that), or its folder does not exist or cannot be written. An input that
 * is a folder (the bundled data) stands for every file inside it: an output
 * anywhere under it is refused. Missing inputs are skipped. Returns 0,
 * TS_EUSAGE (an input, an earlier output, a directory, a special file) or
 * TS_EIO (not writable, the folder) with `err` keyed by the output's option
 * and its message naming both files. Never prints. */
int outfile_check(const struct outfile_arg *outs, size_t nout, const struct outfile_arg *ins,
		  size_t nin, struct ts_error *err);

/* An output being written (opaque). */
struct outfile;

/* Open output `path` for writing as a new temporary file in the same folder
 * (mkstemp, named ".NAME.trainsim-HOST-PID.XXXXXX", after this machine and
 * process, and registered for outfile_remove_temps); the temporary files
 * in that folder of processes of this machine that died (killed by
 * SIGKILL) are removed first. Nothing at `path` changes until
 * outfile_commit renames the temporary file onto it. A symlink at `path`
 * is followed: the temporary file is made in its target's folder and
 * renamed onto the target, so the link stays and points to the new file. `opt` (may be NULL) keys
 * errors. Returns 0, or TS_EIO (the folder cannot be written; the message holds strerror) or
 * TS_ENOMEM; *out is NULL on failure. */
int outfile_open(const char *path, const char *opt, struct outfile **out, struct ts_error *err);

/* Open output `path` in place for a writer that appends and may be
 * resumed (a sweep's CSV): created when missing, never truncated here, and
 * held under an exclusive lock (flock) until outfile_commit or
 * outfile_abort, so a second writer is refused instead of tearing rows.
 * Returns 0, TS_EIO (cannot be opened or created; another process holds the
 * lock: the message says so; not a regular file), or TS_ENOMEM; *out is NULL
 * on failure. */
int outfile_open_locked(const char *path, const char *opt, struct outfile **out,
			struct ts_error *err);

/* The stream to write to (owned by of; do not fclose it). */
FILE *outfile_stream(const struct outfile *of);

/* The file being written: the temporary file of outfile_open (for a
 * program that writes it by name, such as gnuplot), or the path of
 * outfile_open_locked. Owned by of. */
const char *outfile_temp(const struct outfile *of);

/* For outfile_open_locked: cut the file to its first `keep` bytes (0: empty)
 * and write from there on. Returns 0 or TS_EIO (with strerror). */
int outfile_truncate(struct outfile *of, long keep, struct ts_error *err);

/* Finish: flush, fsync, close, and for outfile_open rename the temporary
 * file onto the path (with the mode of the file it replaces, else 0666
 * less the umask). A write error of any earlier call on the stream, or of
 * this one (ENOSPC, EIO, EFBIG...), is reported naming the file and
 * strerror, and the temporary file is removed. Frees of (NULL is fine:
 * returns 0). Returns 0 or TS_EIO. */
int outfile_commit(struct outfile *of, struct ts_error *err);

/* For a file that a process appends to as it works (a search's state,
 * whole at every flush): put what outfile_open's stream holds so far in
 * place now, as outfile_commit would (flush, fsync, rename onto the path),
 * and keep the stream open, writing on in place; outfile_commit then
 * flushes, fsyncs and closes, and outfile_abort leaves the file as it
 * stands. A no-op for outfile_open_locked or a second call. Returns 0 or
 * TS_EIO naming the file and strerror (nothing is in place: outfile_abort
 * removes the temporary file). */
int outfile_publish(struct outfile *of, struct ts_error *err);

/* Give up: close, remove the temporary file of outfile_open (and nothing
 * else), release the lock of outfile_open_locked leaving that file as it
 * stands (its whole rows can be resumed). Frees of; NULL is fine. */
void outfile_abort(struct outfile *of);

/* Remove the temporary file of every output of outfile_open not yet
 * committed or aborted in this process. Async-signal-safe (atomic loads
 * and unlink(2)), for a handler of SIGINT, SIGTERM or SIGHUP to call before
 * the process dies; the outputs' paths are untouched. Up to 64 outputs at
 * once are registered; a temporary file beyond them is left to the next
 * writer into its folder. */
void outfile_remove_temps(void);

/* Report a failed write on of's stream (errno as the failing call left it)
 * naming the file and strerror: returns TS_EIO. For writers that detect
 * the failure themselves before outfile_commit. */
int outfile_write_error(const struct outfile *of, int errnum, struct ts_error *err);

#endif
