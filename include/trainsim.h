/* trainsim: the public API of libtrainsim, a discrete-event simulator of
 * distributed deep-learning training clusters.
 *
 * The objects, in the order a program meets them:
 *
 *   ts_env       the environment: the data root (hardware catalog, clusters,
 *                models, datasets, plots) and the compute calibration, read
 *                once. Read-only once open; one environment may serve many
 *                scenarios and threads.
 *   ts_scenario  one scenario file (libconfig) with its --set overrides,
 *                loaded against an environment.
 *   ts_plan      a scenario made ready to simulate in an environment.
 *   ts_result    the figures of one simulated plan (iteration time,
 *                throughput, memory, time to train, energy, cost).
 *
 *     ts_env *env; ts_scenario *sc; ts_plan *p; ts_result *r;
 *     if (ts_env_open(NULL, &env) || ts_scenario_load_file(env, path, NULL, 0, &sc) ||
 *         ts_plan_build(env, sc, &p) || ts_plan_simulate(p, NULL, &r))
 *             fprintf(stderr, "%s\n", ts_errmsg());
 *     else
 *             printf("%.9g\n", ts_result_iteration_time_s(r));
 *
 * Conventions of every function below:
 * - Errors: a function that can fail returns an int, 0 on success or one of
 *   the negative TS_E* codes; ts_errmsg() then gives the one-line detail
 *   "file:line: key: found ..., expected ..." of the last failure on the
 *   calling thread. On failure an output handle is set to NULL.
 * - Ownership: a handle returned through `**out` belongs to the caller, who
 *   frees it with the matching *_free / ts_env_close (each accepts NULL).
 *   Strings returned by accessors belong to the object they come from and
 *   live as long as it does. Input strings are copied, never kept.
 * - Units: SI base units unless the name says otherwise: seconds (_s),
 *   bytes (_bytes), bytes per second (_Bps), dollars (_usd), kWh (_kwh).
 * - The library never prints and never exits: it writes only to the FILE *
 *   a caller passes and to files the caller names.
 * - Thread safety: distinct objects may be used from distinct threads; one
 *   object is not to be used by two threads at once, except a ts_env after
 *   it is open and calibrated, which is only read.
 *
 * Build: cc prog.c $(pkg-config --cflags --libs trainsim)
 * SPDX-License-Identifier: MIT */
#ifndef TRAINSIM_H
#define TRAINSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TS_API __attribute__((visibility("default")))
#else
#define TS_API
#endif

/* ---- version ---------------------------------------------------------- */

#define TRAINSIM_VERSION_MAJOR 0
#define TRAINSIM_VERSION_MINOR 1
#define TRAINSIM_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH"; static, never NULL. */
TS_API const char *ts_version(void);

/* ---- limits ------------------------------------------------------------- */

/* The most GPUs one cluster may hold, nodes x GPUs per node (2^20), and so
 * the most nodes: the largest count tests/bench/bench_scale.c simulates (a
 * data-parallel and a TP x PP job, class mode, in seconds); larger clusters
 * are refused with TS_ERANGE naming the key. */
#define TS_MAX_GPUS 1048576u

/* ---- errors ------------------------------------------------------------- */

/* Error codes: X(name, value, short text). 0 is success, every error is
 * negative; the list is shared with the library's internals, so a code a
 * function returns is always one of these. */
#define TS_ERRNO_MAP(X)                                                                            \
	X(OK, 0, "success")                                                                        \
	X(NOMEM, -1, "out of memory")                                                              \
	X(IO, -2, "cannot read file")                                                              \
	X(SYNTAX, -3, "syntax error")                                                              \
	X(UNKNOWN_KEY, -4, "unknown key")                                                          \
	X(TYPE, -5, "wrong type")                                                                  \
	X(RANGE, -6, "value out of range")                                                         \
	X(UNKNOWN_NAME, -7, "unknown name")                                                        \
	X(UNIT, -8, "unknown or missing unit")                                                     \
	X(INVALID, -9, "invalid configuration")                                                    \
	X(UNSUPPORTED, -10, "not supported")                                                       \
	X(USAGE, -11, "bad usage")                                                                 \
	X(LIMIT, -12, "size limit exceeded")

enum ts_errno {
#define TS_ERR_ENUM(name, val, text) TS_E##name = val,
	TS_ERRNO_MAP(TS_ERR_ENUM)
#undef TS_ERR_ENUM
};

/* Short text of an error code ("out of memory"); static, never NULL. */
TS_API const char *ts_strerror(int code);

/* The one-line detail of the last failed call on this thread:
 * "file:line: key: found ..., expected ..." (parts that do not apply are
 * left out); "" when no call has failed. The text is thread-local and stays
 * valid until the next failing call on the same thread. */
TS_API const char *ts_errmsg(void);

/* The code of the last failed call on this thread (0 when none). */
TS_API int ts_errcode(void);

/* The parts of the last failed call's record on this thread, each owned by
 * the library and valid until the next failing call on the thread: the
 * input file ("" when none), its 1-based line (0 when unknown), the dotted
 * key ("" when none) and what was found and expected ("" when the code says
 * all). Any pointer may be NULL. Returns the code (0 when none), as
 * ts_errcode. For bindings that raise an exception with these as fields. */
TS_API int ts_errinfo(const char **file, int *line, const char **key, const char **msg);

/* Write to buf (size n) up to `max` of the `ncand` candidates closest to
 * `name` (case-insensitive edit distance), closest first, as "\"a\",
 * \"b\"", keeping only those within a distance of max(2, strlen(name)/2)
 * unless none is; candidates that contain `name` count as close. For "did
 * you mean" in a program's own messages. Returns buf ("" when ncand is 0). */
TS_API char *ts_suggest(const char *name, const char *const *cand, size_t ncand, size_t max,
			char *buf, size_t n);

/* ---- output formats ----------------------------------------------------- */

enum ts_format {
	TS_FORMAT_TEXT = 0,	  /* a table or report for people */
	TS_FORMAT_CSV = 1,	  /* RFC 4180 with units in the column names */
	TS_FORMAT_JSON = 2,	  /* one object with "schema_version" */
	TS_FORMAT_NCCL_TESTS = 3, /* the text nccl-tests prints (ts_collective_write only;
				     ts_format_parse does not give it) */
};

/* Parse "text", "csv" or "json" into *out. Returns 0 or TS_EUSAGE. */
TS_API int ts_format_parse(const char *name, enum ts_format *out);

/* Parse a count given on a command line (--nodes 16, --set nodes=16) into
 * *out: decimal digits, or a whole number written as a float (1e2, 16.0),
 * which a config file's integer keys accept too; from lo to hi inclusive.
 * Hexadecimal, inf, nan and fractions are refused. Returns 0 or TS_ERANGE
 * ("found \"S\", expected a whole number from LO to HI"). */
TS_API int ts_parse_count(const char *s, long long lo, long long hi, long long *out);

/* ---- environment -------------------------------------------------------- */

typedef struct ts_env ts_env;

/* Open the environment rooted at the data directory `root` (holding
 * configs/hardware/, configs/clusters/, models/, plots/), reading the
 * hardware and storage catalogs and the compute calibration.
 * root NULL searches, in this order:
 *   1. $TS_DATA_DIR when it is set and not empty (first, because a user
 *      who sets it means it: it is how one adds hardware or models without
 *      touching an installation; when set, it is used or it is an error);
 *   2. ../share/trainsim next to the library's own file (an installed
 *      libtrainsim.so, or the executable it is linked into), so an
 *      installed prefix works wherever it is moved;
 *   3. the source tree the library was built from.
 * The first that holds configs/hardware/ wins; when none does, the error
 * (TS_EIO) names all three. Returns 0, TS_EIO, TS_ESYNTAX, ... (the file
 * that failed is in ts_errmsg()), TS_ENOMEM. Close with ts_env_close. */
TS_API int ts_env_open(const char *root, ts_env **out);

/* Apply a calibration overrides file (as `trainsim calibrate` writes) to the
 * environment's compute constants and link efficiencies. Only before the
 * environment is shared. Returns 0 or the file's error. */
TS_API int ts_env_load_calibration(ts_env *env, const char *path);

/* The data root in use (owned by env). */
TS_API const char *ts_env_root(const ts_env *env);

/* Free the environment (NULL is fine). Every scenario, plan and sweep made
 * from it must be freed first. */
TS_API void ts_env_close(ts_env *env);

/* ---- scenario ----------------------------------------------------------- */

typedef struct ts_scenario ts_scenario;

/* Load the scenario file `path` with the overrides sets[0..nsets) applied in
 * order, each "dotted.key=value" (a libconfig scalar, a bare word taken as a
 * string, or a { ... } group). Names (model, cluster, GPU, dataset) resolve
 * in env, which must outlive the scenario. Returns 0, TS_EIO, TS_ESYNTAX,
 * TS_EUNKNOWN_KEY, TS_ERANGE, TS_EINVALID, ... or TS_ENOMEM. */
TS_API int ts_scenario_load_file(const ts_env *env, const char *path, const char *const *sets,
				 size_t nsets, ts_scenario **out);

/* Write the resolved scenario (libconfig, every value with where it came
 * from) to out. Returns 0 or TS_EIO. */
TS_API int ts_scenario_write_config(const ts_scenario *sc, FILE *out);

/* Write the resolved scenario as one JSON object (the same settings as
 * ts_scenario_write_config, with "schema_version") to out. Returns 0 or
 * TS_EIO. */
TS_API int ts_scenario_write_json(const ts_scenario *sc, FILE *out);

/* The model file the scenario names by path (model = "my-model.cfg"), as
 * the scenario resolved it, or NULL when it names a bundled model (owned by
 * sc). With ts_scenario_cluster_file, the inputs an output must not
 * overwrite (ts_output_check). */
TS_API const char *ts_scenario_model_file(const ts_scenario *sc);

/* The cluster file the scenario names by path, or NULL when it names a
 * bundled cluster or holds its own (owned by sc). */
TS_API const char *ts_scenario_cluster_file(const ts_scenario *sc);

/* Free the scenario (NULL is fine). */
TS_API void ts_scenario_free(ts_scenario *sc);

/* ---- plan --------------------------------------------------------------- */

typedef struct ts_plan ts_plan;

/* Make the scenario ready to simulate in env: every cross-key check and
 * default, the framework's conventions, the per-op costs, the dataset (read
 * from the data root's configs/datasets/: the last file a plan's run
 * needs; simulating it opens none), storage, checkpoint storage and power.
 * env and sc must outlive the plan (it borrows them). Returns 0, or
 * TS_EUNSUPPORTED (a setting trainsim does not model), TS_EINVALID (keys
 * that contradict each other, a setting that cannot be laid out), TS_ERANGE
 * (a run shorter than one step, a power limit below the GPUs' draw),
 * TS_ELIMIT, TS_EUNKNOWN_NAME (dataset or storage), the dataset file's
 * errors, or TS_ENOMEM, with ts_errmsg() naming the scenario file, line and
 * key; *out is NULL then. Free with ts_plan_free. */
TS_API int ts_plan_build(const ts_env *env, const ts_scenario *sc, ts_plan **out);

/* Free the plan (NULL is fine). */
TS_API void ts_plan_free(ts_plan *p);

/* ---- result ------------------------------------------------------------- */

typedef struct ts_result ts_result;

/* Simulate the plan's iterations and extrapolate the whole run. When trace
 * is not NULL, a Chrome trace (JSON, for Perfetto or chrome://tracing) of
 * the simulated iterations is streamed to it as events happen (no span is
 * held in memory); on failure the stream holds a partial document, so a
 * caller that wrote to a file should discard it (ts_output_abort). A traced
 * run simulates every micro-batch, and is refused with TS_ELIMIT, before
 * anything is simulated, when its estimated size exceeds sim.max_memory.
 * A setting that does not fit in GPU memory is a result (fits = false), not
 * an error. Returns 0, TS_EINVALID, TS_ELIMIT, TS_EIO (writing the trace)
 * or TS_ENOMEM.
 * Free *out with ts_result_free. */
TS_API int ts_plan_simulate(const ts_plan *p, FILE *trace, ts_result **out);

/* Free the result (NULL is fine). */
TS_API void ts_result_free(ts_result *r);

/* When r (simulated from the scenario file `path` with sets[0..nsets), as
 * loaded by ts_scenario_load_file) does not fit in GPU memory, look for
 * what would: a higher ZeRO stage, recomputation, a smaller micro-batch
 * (more accumulation), more tensor or pipeline parallelism, offload to CPU
 * memory, more nodes, the same layout on a bundled cluster whose GPU has
 * more memory; each kind at its smallest step that fits (and ZeRO-3 with
 * full recomputation together when nothing alone fits), each simulated.
 * The fastest that fit (same GPUs first, then more or other hardware) are
 * attached to r: ts_result_write prints them ("memory_remedies" in JSON,
 * "What would fit" in text). Several simulations: call it for a result
 * someone reads, not inside a search. Nothing happens when r fits.
 * Returns 0, or the scenario's load errors and TS_ENOMEM. */
TS_API int ts_result_find_remedies(const ts_env *env, const char *path, const char *const *sets,
				   size_t nsets, ts_result *r);

/* Mean iteration time over the steady iterations (warm-up excluded), s. */
TS_API double ts_result_iteration_time_s(const ts_result *r);

/* The scenario's name (owned by r). */
TS_API const char *ts_result_name(const ts_result *r);

/* The memory verdict: "does not fit" (the peak is above the GPU's
 * capacity), "tight" (it is not, but its 80 % band, the memory model's
 * stated error either side, reaches capacity: a risk) or "fits" (owned by
 * r); "fits" in ts_result_get is 1 exactly for the last two. The headroom (capacity less the
 * peak, GiB, negative when short) and the error (a fraction of the peak)
 * are the numbers "memory_headroom_gib" and "memory_error" of
 * ts_result_get. */
TS_API const char *ts_result_memory_verdict(const ts_result *r);

/* The largest term of the memory breakdown at the peak ("activations",
 * "weights", "optimizer", "cuda_context", "nccl", ...; owned by r). */
TS_API const char *ts_result_memory_largest_term(const ts_result *r);

/* The number under a stable result key of `trainsim run --format json`
 * ("tokens_per_s", "mfu", "memory_per_gpu_bytes", "cost_usd", ...; the
 * memory breakdown as "memory_breakdown.weights_bytes"; a boolean such as
 * "fits" as 0 or 1; a number of the scenario run as "scenario.parallel.tp";
 * the 80 % band of a headline figure as "iteration_time_s_p10", "_p50",
 * "_p90") into *value, in the key's unit. Returns 0,
 * TS_EUNKNOWN_KEY (no such key, or not a number) or TS_ENOMEM. */
TS_API int ts_result_get(const ts_result *r, const char *key, double *value);

/* Write the result: TS_FORMAT_TEXT the readable report, TS_FORMAT_CSV a
 * header line and one row (the scenario's columns named by key path, such
 * as "model.name", "nodes", "parallel.tp", then the result keys),
 * TS_FORMAT_JSON one object ("trainsim_version", "schema_version", the
 * stable result keys, and "scenario": the resolved scenario as nested
 * keys, as --dump-config prints it without its comments). The JSON Schema
 * is schema/result.schema.json of the data root. Returns 0, TS_EIO or
 * TS_ENOMEM. r must come from ts_plan_simulate. */
TS_API int ts_result_write(const ts_result *r, enum ts_format format, FILE *out);

/* Write results rs[0..n) (n >= 2, each from ts_plan_simulate) side by
 * side, each row judged by the 80 % bands: its best wins where its band
 * overlaps no other's, the results whose bands overlap the best's tie,
 * and all of them overlapping is no clear winner. Text a column per
 * scenario, '*' on a winner and on each of a tie; CSV a row per scenario
 * ("name", "file", a column per compared figure by its result key,
 * "best", "tied" and "no_clear_winner": the keys of the rows it wins,
 * ties and of those the bands leave undecided, separated by ';', then the
 * scenario's columns by key path); scaling efficiency relative to the
 * first result on the same GPU type; JSON a list of the results as
 * ts_result_write writes them, each with "comparison":
 * {"scaling_efficiency" (null: no other result on its GPU type), "best",
 * "tied", "no_clear_winner": those keys}. Returns 0, TS_EUSAGE (n < 2),
 * TS_EIO or TS_ENOMEM. */
TS_API int ts_compare_write(const ts_result *const *rs, size_t n, enum ts_format format, FILE *out);

/* ---- output files ------------------------------------------------------- */

/* A file a program writes or reads, as its user named it: opt is the option
 * that named it ("--trace", "-o"; NULL or "" for a positional argument), used
 * to key messages; path NULL means not given (skipped), and "-" as an output
 * means standard output (skipped by the check). */
struct ts_output_arg {
	const char *opt;
	const char *path;
};

/* Check the outputs outs[0..nout) of one command against its inputs
 * ins[0..nin) and the data root of env (its configs/, models/ and plots/,
 * which stand for every file inside them) before any work. An output is
 * refused when it is the same file as an input or an earlier output (same
 * device and inode: also through a symlink or another spelling), lies
 * under the data root's folders, is a directory or an existing file that is
 * not a regular file (a device node, a FIFO), or cannot be written (its
 * mode, its folder). Missing inputs are skipped. Returns 0, TS_EUSAGE (an
 * input, another output, a directory, a special file) or TS_EIO (not
 * writable), ts_errmsg() keyed by the output's option and naming both
 * files; TS_ENOMEM. Touches no file. */
TS_API int ts_output_check(const ts_env *env, const struct ts_output_arg *outs, size_t nout,
			   const struct ts_output_arg *ins, size_t nin);

/* An output file being written: a failure leaves the old file (or nothing)
 * in place rather than half a file. */
typedef struct ts_output ts_output;

/* Open output `path` ("-": standard output) for writing. A file is written
 * as a new temporary file in the same folder
 * (".NAME.trainsim-HOST-PID.XXXXXX"); nothing at
 * path changes until ts_output_commit renames it onto path (a symlink at
 * path keeps pointing where it did: the new file replaces its target, in
 * the target's folder). opt (may be NULL) keys
 * errors. Returns 0, TS_EUSAGE (path NULL or empty), TS_EIO (the folder
 * cannot be written; ts_errmsg() holds the reason) or TS_ENOMEM; *out NULL on failure. Finish with
 * ts_output_commit or ts_output_abort, which free it. */
TS_API int ts_output_open(const char *path, const char *opt, ts_output **out);

/* The stream to write to (owned by o: never fclose it); stdout for "-". */
TS_API FILE *ts_output_stream(const ts_output *o);

/* Remove the temporary file of every output of ts_output_open in this
 * process not yet committed or aborted (up to 64 at once), and nothing
 * else. Async-signal-safe: for a handler of SIGINT, SIGTERM or SIGHUP to
 * call before the process dies, so that an interrupted write leaves no
 * ".NAME.trainsim-HOST-PID.XXXXXX" behind. (A process killed without a
 * handler, by SIGKILL, leaves its file to the next ts_output_open in that
 * folder, which removes those of processes of this machine that are gone.)
 * The library installs no handler itself. */
TS_API void ts_output_remove_temps(void);

/* The name of the file being written (the temporary file of
 * ts_output_open, for a program that writes it by name such as gnuplot; the
 * path itself for ts_sweep_output_open), or NULL for standard output. Owned
 * by o. */
TS_API const char *ts_output_file(const ts_output *o);

/* Finish: flush, fsync, close and rename the temporary file onto the path
 * (keeping the mode of the file it replaces); for standard output, flush
 * it. A write error of any earlier write on the stream or of this call
 * (ENOSPC, EFBIG, ...) is TS_EIO naming the file and the reason, and the
 * temporary file is removed. Frees o (NULL is fine: returns 0). */
TS_API int ts_output_commit(ts_output *o);

/* Give up: close and remove the temporary file (nothing else); a sweep's
 * results file (ts_sweep_output_open) is left as it stands, unlocked, its
 * whole rows resumable. Frees o; NULL is fine. */
TS_API void ts_output_abort(ts_output *o);

/* Record that a write to o's stream failed (errnum: errno as the failing
 * call left it, 0 if unknown) as the last error, naming the file and the
 * reason; returns TS_EIO. For a caller whose write failed before
 * ts_output_commit. */
TS_API int ts_output_write_error(const ts_output *o, int errnum);

/* ---- sweeps ------------------------------------------------------------- */

typedef struct ts_sweep ts_sweep;

/* Progress of a sweep: done of total points, elapsed_s seconds since the
 * run began. Called from the thread that called ts_sweep_run. */
typedef void (*ts_progress_fn)(void *user, size_t done, size_t total, double elapsed_s);

/* Load the sweep file `path` (a base scenario plus axes) and check every
 * axis value against env, which must outlive the sweep. Returns 0, the
 * file's error, or TS_ENOMEM. */
TS_API int ts_sweep_open(const ts_env *env, const char *path, ts_sweep **out);

/* ts_sweep_open with the overrides sets[0..nsets) ("key=value", as in
 * ts_scenario_load_file) laid over the base scenario of every point before
 * its axis values (and counted in the digest of the output file). A set of
 * a key that is an axis is TS_EUSAGE (the axis would override it); more
 * errors as ts_sweep_open. */
TS_API int ts_sweep_open_with(const ts_env *env, const char *path, const char *const *sets,
			      size_t nsets, ts_sweep **out);

/* Run only part k (1 <= k <= n) of n of the sweep: the points k-1, k-1+n,
 * k-1+2n, ... (interleaved, so each part gets a like share of small and
 * large points), keeping their ids in the whole sweep. Call before
 * ts_sweep_output_open; each row's digest (the last column, "sweep_digest")
 * then names the part ("shard K/N of P points"), for ts_sweep_merge.
 * Returns 0 or TS_EUSAGE. */
TS_API int ts_sweep_set_shard(ts_sweep *sw, size_t k, size_t n);

/* Number of points ts_sweep_run runs from the start: those of the part set
 * by ts_sweep_set_shard, or all. */
TS_API size_t ts_sweep_points(const ts_sweep *sw);

/* Merge the parts parts[0..n) of a sharded sweep (files that
 * `trainsim sweep --shard K/N` wrote, in any order; "-" is standard input)
 * into out: the bytes the whole sweep writes, each row with the whole
 * sweep's digest (to a file and to standard output alike: digest is
 * ignored, kept for programs written before the digest became a column,
 * when it chose a first line). Every part is
 * read and checked before anything is written: all N parts of one sweep
 * (same axes, base, --set, calibration, version and header), each once and
 * whole. Returns 0, TS_EIO, TS_EINVALID (the message names the part file,
 * its line and what differs or is missing), TS_EUSAGE or TS_ENOMEM. */
TS_API int ts_sweep_merge(const char *const *parts, size_t n, bool digest, FILE *out);

/* The base scenario file of the sweep (owned by sw), NULL when inline. */
TS_API const char *ts_sweep_base_path(const ts_sweep *sw);

/* Load point i (< the number of points) of the sweep as a scenario: the
 * base with that point's axis values. Returns 0, the scenario's error or
 * TS_ENOMEM. Free *out with ts_scenario_free. */
TS_API int ts_sweep_point_load(const ts_sweep *sw, size_t i, ts_scenario **out);

/* Open the results file of the sweep for ts_sweep_run and write what
 * precedes the rows; *first receives the first point to run (of the part,
 * for a sharded sweep, whose resumable rows are those of its points).
 * path NULL or "-": standard output, the CSV header is written, *first 0.
 * Else the file is opened in place (created when missing) under an
 * exclusive lock held until ts_output_commit or ts_output_abort, so a second
 * writer is refused. The first line is the header (pandas.read_csv reads
 * the file with its defaults); every row's last column, "sweep_digest", is
 * a digest of the base scenario, the calibration (the environment's
 * constants and overrides file) and the version: with resume, an existing
 * file keeps its whole rows of points 0, 1, ... when its header and their
 * digest match, and *first is the next point; without resume the file
 * starts over (header). Returns 0, TS_EIO (cannot be opened, locked by
 * another process, a write error), TS_EINVALID (resume into another
 * sweep's file, or a file whose first row has another or a damaged digest:
 * the message says which of base, calibration, version and part changed)
 * or TS_ENOMEM; *out NULL on failure. */
TS_API int ts_sweep_output_open(const ts_sweep *sw, const char *path, bool resume, ts_output **out,
				size_t *first);

/* Simulate points first.. of the sweep on `threads` OpenMP threads (0: the
 * default) and write one CSV row per point, in point order, to out.
 * progress (may be NULL) is called as points finish. A point that fails
 * or does not fit is a row with its status. Returns 0, TS_EIO or TS_ENOMEM. */
TS_API int ts_sweep_run(const ts_sweep *sw, size_t first, int threads, FILE *out,
			ts_progress_fn progress, void *user);

/* Free the sweep (NULL is fine). */
TS_API void ts_sweep_free(ts_sweep *sw);

/* ---- search ------------------------------------------------------------- */

enum ts_objective {
	TS_OBJECTIVE_TIME = 0, /* shortest time to train */
	TS_OBJECTIVE_COST = 1, /* lowest cost (GPU-seconds per iteration without prices) */
};

/* Search the settings of the scenario file `path` (with sets[0..nsets) as in
 * ts_scenario_load_file): GPU count up to max_gpus (0: the scenario's),
 * tp, pp, dp, cp, micro-batch, schedule, ZeRO, recompute; prune by a static
 * memory estimate, simulate the rest on `threads` threads (0: default),
 * and write the best `top` that fit as a table, with counts and speed, to
 * out. Returns 0, the scenario's error, TS_EIO or TS_ENOMEM. */
TS_API int ts_search_write(const ts_env *env, const char *path, const char *const *sets,
			   size_t nsets, enum ts_objective objective, uint32_t max_gpus,
			   int threads, size_t top, FILE *out);

/* Options of ts_search_run; a zero field takes the default. */
typedef struct ts_search_opts {
	enum ts_objective objective; /* what ranks first */
	uint32_t max_gpus;	     /* most GPUs tried (0: the scenario's) */
	int threads;		     /* OpenMP threads (0: the default) */
	size_t top;		     /* candidates written (0: 10) */
	enum ts_format format;	     /* text (a table, counts, every skip and why), csv (one
				      * row per candidate) or json (candidates' settings and
				      * results, counts, skips with reasons) */
	const char *export_best;     /* write the best candidate here as a scenario file that
				      * `trainsim run` reproduces (NULL: none) */
	const char *state;	     /* the state file: each simulated candidate is appended
				      * as it finishes (NULL: none) */
	bool resume;		     /* take the results of state from an earlier run of the
				      * same inputs (its digest must match: else TS_EINVALID) */
	ts_progress_fn progress;     /* called as candidates finish (NULL: none), done and
				      * total counting the candidates to simulate */
	void *user;		     /* passed to progress */
	bool layer_figures;	     /* false: every candidate at stage granularity; true: the
				      * figures of layer granularity (`trainsim run`'s
				      * default), stage only where it gives them, so the
				      * top ranks are exact at layer; slower */
	bool *none_fit;		     /* out (NULL: not asked): set to whether no candidate
				      * fits in GPU memory (the report then says what would
				      * make the scenario fit) */
} ts_search_opts;

/* Search as ts_search_write does, with options o (borrowed): the report in
 * o->format to out, the winner to o->export_best, the state to o->state.
 * Returns 0, the scenario's error, TS_EUSAGE (resume without a state file),
 * TS_EINVALID (a state file of other inputs; no candidate fits and
 * export_best is given), TS_EIO or TS_ENOMEM. */
TS_API int ts_search_run(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
			 const ts_search_opts *o, FILE *out);

/* ---- advice: what to buy or rent ------------------------------------------ */

/* What a buyer may rent or buy (bits). */
enum ts_advise_mode {
	TS_ADVISE_RENT = 1, /* cloud price per GPU-hour */
	TS_ADVISE_BUY = 2,  /* purchase amortised, power, PUE, upkeep */
	TS_ADVISE_BOTH = 3,
};

/* Options of ts_advise_run; a zero field is no constraint or the default. */
typedef struct ts_advise_opts {
	double deadline_s;	  /* time to train at most, s */
	double budget_usd;	  /* money spent at most, US$: rent the run's cost; buy the
				   * purchase plus the run's energy and upkeep */
	enum ts_advise_mode mode; /* what to price (0: both) */
	double power_limit_w;	  /* power limit, W (bought options only) */
	bool power_per_rack;	  /* the limit is one rack's (else the facility's, PUE counted) */
	uint32_t max_gpus;	  /* GPUs at most */
	const char *candidates;	  /* catalog file (NULL: configs/catalog/candidates.cfg of the
				   * data root) */
	enum ts_format format;	  /* text (the answer for people), csv (one row per option)
				   * or json */
	const char *export_dir;	  /* write the scenario of every recommended or frontier
				   * option into this existing folder, as NODE-TYPE-Nn-MODE.cfg,
				   * that `trainsim run` reproduces (NULL: none); the files are
				   * checked as ts_output_check checks outputs (not in the
				   * bundled folders, not the scenario, catalog or overrides)
				   * before any is written: TS_EUSAGE or TS_EIO keyed --export */
	bool full_search;	  /* search every option at its own size (exact; slower)
				   * rather than carry each node type's best layouts over
				   * from one search at a reference size */
	size_t transfer_top;	  /* layouts carried over per node type (0: 6; at most 21) */
} ts_advise_opts;

/* What ts_advise_run did, for a progress line or a benchmark. */
typedef struct ts_advise_stats {
	size_t options;	    /* options listed (node type x count x mode) */
	size_t evaluated;   /* of them, simulated with a layout that fits */
	size_t searches;    /* layout searches run */
	size_t simulated;   /* layouts simulated, in searches and out */
	double seconds;	    /* wall time, s */
	double cpu_seconds; /* CPU time of the process meanwhile, s */
} ts_advise_stats;

/* Answer "what should we rent or buy to train this": for scenario `path`
 * (with sets[0..nsets) as in ts_scenario_load_file; its model, run length,
 * batch and dataset are kept, its cluster replaced) and each option of the
 * catalog (node type x node count x rent or buy), find the fastest layout
 * that fits (the search's), the whole run's time, energy and cost with
 * their bands, and the constraints of o (borrowed) it misses; write the
 * cheapest option within the deadline, the fastest within the budget, the
 * time-versus-cost frontier, every option (a why line, or the constraints
 * it misses) and the buyer's checks (host cores, RAM, local storage, power,
 * cooling, supplies) to out in o->format. stats (may be NULL) receives the
 * counts and times. Returns 0, the scenario's or catalog's error (file,
 * line, key, found, expected; also a catalog with no node type priced for
 * o->mode), TS_EUSAGE (a bad option), TS_EIO or TS_ENOMEM. */
TS_API int ts_advise_run(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
			 const ts_advise_opts *o, FILE *out, ts_advise_stats *stats);

/* Mark on[i] for each point (time_s[i], cost_usd[i]) of n that no other
 * point dominates (at most as long and as costly, and better in one):
 * the time-versus-cost frontier ts_advise_run reports. Equal points are all
 * kept; a NaN point is never marked and dominates none. */
TS_API void ts_advise_frontier(const double *time_s, const double *cost_usd, size_t n, bool *on);

/* ---- calibration -------------------------------------------------------- */

/* Fit the compute constant the scenario's iteration time depends on most so
 * that the simulated iteration takes measured_s seconds; write the fit to
 * report (text) and, only when the fit succeeds, the overrides file (for
 * ts_env_load_calibration) to overrides. A fit that stops at a bound and
 * still misses by more than 5 % is TS_ERANGE and writes no overrides.
 * Returns 0, the scenario's error, TS_ERANGE, TS_EIO or TS_ENOMEM. */
TS_API int ts_calibrate_iteration(ts_env *env, const char *path, const char *const *sets,
				  size_t nsets, double measured_s, FILE *overrides, FILE *report);

/* Fit the efficiency of the link type an all-reduce of the scenario is bound
 * by to nccl-tests output (all_reduce_perf text, file nccl_path): write the
 * fit to report and, only when it succeeds, the overrides file to
 * overrides. Returns 0, the files' error, TS_EIO or TS_ENOMEM. */
TS_API int ts_calibrate_nccl(ts_env *env, const char *path, const char *const *sets, size_t nsets,
			     const char *nccl_path, FILE *overrides, FILE *report);

/* Fit several constants at once to a PyTorch profiler trace (Chrome trace
 * JSON as torch.profiler writes it, plain or gzipped; trace_path, "-" for
 * standard input) of the scenario's rank 0: the GEMM, attention and
 * memory-bound kernel time per iteration against trainsim's prediction for
 * the same ops (tc_sustain, the GPU's hbm_eff and flash_eff), then launch_s
 * against the traced iteration; unknown kernels are listed, not fitted.
 * Writes the fit (each constant with its 80 % band, the residual) to
 * report and, only when it succeeds, the overrides to overrides (with a
 * `fit` group that marks the constants as measured). Returns 0, the
 * files' errors, TS_ERANGE (the trace contradicts the model: the message
 * names the class), TS_EUNSUPPORTED (a model the trace fit does not map),
 * TS_EIO or TS_ENOMEM. */
TS_API int ts_calibrate_trace(ts_env *env, const char *path, const char *const *sets, size_t nsets,
			      const char *trace_path, FILE *overrides, FILE *report);

/* The same fit to a CSV of small runs (csv_path; columns scenario, set,
 * metric, value: a scenario file relative to the CSV's folder, --set
 * overrides separated by ';', iteration_time_s | samples_per_s |
 * tokens_per_s and the measured value): gemm_k0, tc_sustain and launch_s
 * by nonlinear least squares. Returns 0, the files' errors, TS_ESYNTAX (a
 * row), TS_ELIMIT (more than 64 runs), TS_ERANGE (a run the model cannot
 * explain, named with the term that dominates it), TS_EIO or TS_ENOMEM. */
TS_API int ts_calibrate_runs(ts_env *env, const char *csv_path, FILE *overrides, FILE *report);

/* ---- validation --------------------------------------------------------- */

/* Predict the published measurements of the data root's tests/validation/
 * (source: "vtrain", "bert", "meg24", "mpt", "titan", "vtrain-multi", one
 * source_key of measurements_new.csv ("mlperf-training-v4.1",
 * "mlperf-training-v5.0", "pytorch-blog-fsdp-ibm-2024",
 * "nemo-automodel-perf") or "all"); write one row per measurement, the
 * error statistics, and the leave-one-source-out table (each source's MAPE
 * with the constants refit without it, from configs/calibration/loso.cfg,
 * beside its MAPE with the committed constants; the mean over sources last,
 * and in text a last line with that headline) as a table (TS_FORMAT_TEXT)
 * or CSV to out. With fit, first refit the constants on the fitting halves
 * and write the fit to fit_out. Returns 0, TS_EUSAGE (an unknown source or
 * JSON), the files' error, TS_EIO or TS_ENOMEM. */
TS_API int ts_validate_write(const ts_env *env, const char *source, bool fit, enum ts_format format,
			     FILE *out, FILE *fit_out);

/* ts_validate_write, and with source "all" also a table of the 80 % bands'
 * coverage per source: each source's unseen rows (every row, predicted
 * with the constants refit without its source, configs/calibration/loso.cfg;
 * without that file the held-out half of a fitted source) against bands
 * estimated leave-one-source-out from the other sources' unseen rows
 * (coverage and median half-width, sim/run/band.h). With bands non-NULL,
 * also write the model-error table of every regime, from every source's
 * unseen rows, to bands in the format of configs/calibration/bands.cfg.
 * Returns what ts_validate_write returns, and TS_EUSAGE for bands with a
 * source other than "all". */
TS_API int ts_validate_write_bands(const ts_env *env, const char *source, bool fit,
				   enum ts_format format, FILE *out, FILE *fit_out, FILE *bands);

/* Refit the fitted constants (gemm_k0, launch_s, tc_sustain) without each
 * source they are fitted on, and once on all of them (sim/run/loso.h:
 * five Nelder-Mead fits, minutes), predict every row of each left-out
 * source with its refit, and write the leave-one-source-out table (text
 * or CSV) to out and, when loso is non-NULL, the table in the format of
 * configs/calibration/loso.cfg to loso. Returns 0, TS_EUSAGE (JSON), the
 * files' error, TS_EIO or TS_ENOMEM. */
TS_API int ts_validate_loso_write(const ts_env *env, enum ts_format format, FILE *out, FILE *loso);

/* Predict the peak memory per GPU and the fit verdict of every public
 * report of the data root's tests/validation/memory_fit.csv and
 * memory_peaks.csv (each measured figure as its source read it: PyTorch's
 * allocated or reserved peak, or the device total), and write one row per
 * report, then per source the MAPE, bias and worst error of the measured
 * peaks, the verdicts on the reported side, and the 80 % band estimated
 * from the other sources with the share of the source's peaks inside it;
 * in text a last line with the leave-one-source-out headline (the mean of
 * the sources' MAPEs). As a table (TS_FORMAT_TEXT) or CSV. Returns 0,
 * TS_EUSAGE (JSON), the files' errors, TS_EIO or TS_ENOMEM. */
TS_API int ts_validate_memory_write(const ts_env *env, enum ts_format format, FILE *out);

/* Group the validation rows of `source` (NULL or "all": every source) into
 * scaling families (the same model, GPU type, framework and precision at
 * growing GPU counts), calibrate each on its smallest run (the multi-
 * constant fit of trainsim calibrate --runs) and write per family the
 * smallest run, the fitted constants with their 80 % bands, every run's
 * error with the committed and the fitted constants, the larger runs' mean
 * absolute error before and after, and why a family was not calibrated.
 * Text only. Returns 0, TS_EUSAGE (unknown source), the files' errors,
 * TS_EIO or TS_ENOMEM. */
TS_API int ts_validate_families_write(const ts_env *env, const char *source, FILE *out);

/* ---- catalogs ----------------------------------------------------------- */

/* Write what the environment offers of `kind`: "gpus", "links", "clusters",
 * "models", "datasets", "storage" or "scenarios", as a table, CSV or JSON
 * (sorted by name). Returns 0, TS_EUSAGE (an unknown kind; ts_errmsg()
 * suggests the closest), the error of a file that does not load, TS_EIO or
 * TS_ENOMEM. */
TS_API int ts_list_write(const ts_env *env, const char *kind, enum ts_format format, FILE *out);

/* Write entry `name` of `kind` (as ts_list_write names them) field by
 * field: the dotted field, its value as the file states it, its source
 * (the entry's sources.FIELD, else the source of the group holding it,
 * else the entry's source) and file:line, relative to the data root. Text
 * opens with the entry's file, line and source. Returns 0, TS_EUSAGE (an
 * unknown kind), TS_EUNKNOWN_NAME (no such entry; ts_errmsg() suggests the
 * closest), the file's error, TS_EIO or TS_ENOMEM. */
TS_API int ts_list_entry_write(const ts_env *env, const char *kind, const char *name,
			       enum ts_format format, FILE *out);

/* ---- charts ------------------------------------------------------------- */

/* Options of a chart; a NULL field (or 0) takes the default. */
typedef struct ts_plot_opts {
	const char *title;  /* the chart's title (default: what it shows and the scenario) */
	const char *x;	    /* scaling: the column on x (default: the sweep axis nodes,
			     * gpus or gpus_per_node, else gpus) */
	const char *series; /* scaling: columns, comma-separated, whose values make one
			     * series each (default: the sweep's other axes) */
	bool log_x;	    /* scaling: a base-2 logarithmic x axis */
} ts_plot_opts;

/* Prepare a chart of kind "scaling" (throughput against nodes or GPUs, one
 * series per value of the sweep's other axes, each with its ideal line),
 * "breakdown" (where the iteration time goes), "frontier" (cost against
 * time to train), "memory" (memory per GPU by kind) from the results CSV
 * csv_path (as trainsim sweep or run --format csv write it; rows whose
 * status is not ok or that do not fit are left out), or "compare" (grouped
 * bars per metric, relative to the first scenario) from a trainsim compare
 * CSV, or "queue" (jobs waiting and GPUs busy against time, with their
 * time-means) from the timeline of trainsim queue --timeline: write the
 * whitespace-separated columns the gnuplot script reads to data, gnuplot
 * settings (title, axis label, series count; may be NULL) to settings, and
 * the path of that script (under the data root) into script (size n). opts
 * may be NULL. The caller runs gnuplot with datafile, outfile, fmt ("png",
 * "svg" or "pdf") and plotdir set and the settings loaded. Returns 0,
 * TS_EUSAGE (an unknown kind, an option the kind does not take), TS_EIO (a
 * file that cannot be read), TS_ESYNTAX (broken CSV, with file and line),
 * TS_EINVALID (a missing column, no row to plot), TS_ENOMEM. */
TS_API int ts_plot_prepare(const ts_env *env, const char *kind, const char *csv_path,
			   const ts_plot_opts *opts, FILE *data, FILE *settings, char *script,
			   size_t n);

/* ts_plot_prepare with the default options and no settings. */
TS_API int ts_plot_data(const ts_env *env, const char *kind, const char *csv_path, FILE *data,
			char *script, size_t n);

/* ---- collectives -------------------------------------------------------- */

/* One nccl-tests-style measurement of a collective on a cluster. */
struct ts_collective_opts {
	const char *cluster;	 /* bundled cluster name or file (required) */
	uint32_t nodes;		 /* node count, 0: the cluster's */
	const char *const *sets; /* "key=value" laid over the cluster file (with or
				    without "cluster." in front) */
	size_t nsets;		 /* number of sets, at most 16 besides the counts */
	const char *op;		 /* all_reduce (NULL), all_gather, reduce_scatter,
				    broadcast, reduce, all_to_all, send_recv */
	double min_bytes;	 /* first message size, bytes */
	double max_bytes;	 /* last message size, bytes (>= min_bytes) */
	double factor;		 /* size step factor, > 1 */
	uint32_t gpus;		 /* use the first `gpus` GPUs, 0: all */
	const char *algo;	 /* auto (NULL), ring, tree, nvls, collnet */
	const char *proto;	 /* auto (NULL), LL, LL128, Simple */
	const char *mode;	 /* class (NULL) or full rank expansion */
};

/* Fill o with the defaults: all_reduce from 8 bytes to 128 MiB by factor 2
 * on every GPU of the cluster, automatic algorithm and protocol, class mode. */
TS_API void ts_collective_opts_init(struct ts_collective_opts *o);

/* Parse a message size as nccl-tests writes it (8, 64K, 1M, 8G: powers of
 * 1024) or with a unit ("1 GiB") into *bytes (whole bytes, at most 1 PiB).
 * Returns 0 or TS_ERANGE. */
TS_API int ts_parse_size(const char *s, double *bytes);

/* Simulate the collective of o at each size from min_bytes to max_bytes and
 * write the table (size, count, time, algbw, busbw, algorithm, protocol,
 * channels) and the mean bus bandwidth to out. TS_FORMAT_NCCL_TESTS writes
 * what nccl-tests (all_reduce_perf, ...) prints instead: its commented
 * header with one "#  Rank" line per GPU, the columns size count type redop
 * root, then time algbw busbw #wrong out-of-place and in-place (the same
 * simulated figures; #wrong "N/A", nothing being checked), and its closing
 * lines, so that tools that read nccl-tests output (ts_calibrate_nccl
 * among them) read it. Returns 0, TS_EUSAGE (an
 * unknown op, algorithm, protocol or mode; no cluster), TS_ERANGE (sizes,
 * GPUs, a --set value), the cluster's error, TS_EIO or TS_ENOMEM. */
TS_API int ts_collective_write(const ts_env *env, const struct ts_collective_opts *o,
			       enum ts_format format, FILE *out);

/* ---- queue: a shared cluster's jobs ---------------------------------------- */

enum ts_queue_policy {
	TS_QUEUE_FIFO = 0,     /* strict FIFO: no job overtakes an earlier one */
	TS_QUEUE_BACKFILL = 1, /* EASY backfill (Slurm's default): a job may start early
				* if it does not delay the reserved start of the first
				* waiting job, judged by time limits, else run times */
	TS_QUEUE_PRIORITY = 2, /* fair-share priority (Slurm's multifactor, simplified)
				* with EASY backfill */
};

/* Options of ts_queue_run; a zero field takes the default. */
typedef struct ts_queue_opts {
	const char *cluster; /* bundled cluster name or cluster file (required): GPUs
			      * per node, leaf switches, and where scenario jobs run */
	uint32_t nodes;	     /* node count, >= 1 (required) */
	uint32_t nodes_max;  /* > nodes: run every count nodes, nodes + step, ...,
			      * nodes_max (a sweep) */
	uint32_t nodes_step; /* the sweep's step (0: 1) */
	const char *jobs;    /* job list file, or NULL for the synthetic mix */
	const char *input;   /* its format: "csv", "sacct", "swf", "helios" (NULL: by
			      * content) */
	enum ts_queue_policy policy;
	bool spread;		    /* place jobs spread (worst fit, one node per leaf
				     * switch) rather than packed (best fit) */
	bool failures;		    /* node failures at the rates of failures.gpu_mtbf and
				     * node_mtbf's defaults (configs/README.md) */
	double checkpoint_s;	    /* with failures or preempt: checkpoint interval, s of
				     * run time (0: 3600) */
	double repair_s;	    /* with failures: a node's repair, s (0: 4 h) */
	double restart_s;	    /* with failures or preempt: a job's restart, s (0: 600) */
	size_t synth_jobs;	    /* synthetic mix: jobs (0: 1000) */
	double synth_rate_per_s;    /* its Poisson arrivals, jobs/s (0: from synth_load) */
	double synth_load;	    /* or its offered load on `nodes` nodes, GPU-s asked per
				     * GPU-s there (0: 0.7) */
	const char *synth_sizes;    /* "GPUS:WEIGHT,..." (NULL: "1:1") */
	const char *synth_duration; /* "exp:MEAN", "lognormal:MEDIAN:SIGMA", "fixed:S",
				     * "uniform:LO:HI", seconds (NULL: "exp:3600") */
	uint32_t synth_users;	    /* jobs spread over users u1..uN (0: none) */
	uint64_t seed;		    /* synthetic mix and failures (0: 1) */
	double target_p90_wait_s;   /* a sweep's target: p90 wait at most this, s (0: none) */
	double target_utilisation;  /* and utilisation at least this, 0-1 (0: none) */
	int threads;		    /* OpenMP threads of a sweep (0: the default) */
	bool preempt;		    /* a waiting job may requeue running jobs whose priority column
				     * is lower, as Slurm's PreemptMode=REQUEUE: they lose the run
				     * since their last checkpoint (checkpoint_s) and pay restart_s */
	const char *partitions;	    /* Slurm partitions, "NAME:NODES,...": consecutive nodes
				     * in that order, the first the default of jobs naming
				     * none; the last may give no count and take the nodes
				     * left (NULL: one partition of every node) */
} ts_queue_opts;

/* The answer of ts_queue_run: every node count's figures and, for the
 * chosen count (the smallest meeting the targets, else the largest), each
 * job's times and the timeline. */
typedef struct ts_queue ts_queue;

/* Schedule the jobs of o (borrowed) on o->nodes (to o->nodes_max) nodes of
 * o->cluster. A job naming a scenario file (relative to the job list's
 * folder) runs for the time trainsim simulates for the GPUs it is placed
 * on, once per distinct shape (nodes, GPUs per node, leaf switches, jobs
 * sharing its leaves' uplinks). Returns 0, TS_EUSAGE (a bad option,
 * named), the job file's or a scenario's error (file, line, key), TS_EIO
 * or TS_ENOMEM. Free with ts_queue_free. */
TS_API int ts_queue_run(const ts_env *env, const ts_queue_opts *o, ts_queue **out);

/* Write the figures: text (the cluster, utilisation, waits overall and by
 * job size, completion, slowdown, makespan, fragmentation, each user's
 * share; a sweep's table and the smallest count meeting the targets),
 * csv (one row per node count) or json (one object: "schema_version",
 * "jobs", "utilisation", "mean_wait_s", "p90_wait_s", "makespan_s", ...,
 * "by_size", "users", and with a sweep "sweep" and "chosen_nodes").
 * Returns 0, TS_EIO or TS_ENOMEM. */
TS_API int ts_queue_write(const ts_queue *q, enum ts_format format, FILE *out);

/* Write one CSV row per job of the chosen count: id, submit_s, start_s,
 * end_s, gpus, wait_s, run_s, alone_s, nodes, leaves, restarts, user,
 * state (done, timeout, too_big). Returns 0 or TS_EIO. */
TS_API int ts_queue_write_jobs(const ts_queue *q, FILE *out);

/* Write the chosen count's timeline as CSV: t_s, busy_gpus, queued_jobs,
 * down_gpus, utilisation (busy of all GPUs), one row per change (gnuplot:
 * plots/queue.gp). Returns 0 or TS_EIO. */
TS_API int ts_queue_write_timeline(const ts_queue *q, FILE *out);

/* A figure of the chosen count by its JSON key ("utilisation",
 * "p90_wait_s", "nodes", ...) into *value. Returns 0 or TS_EUNKNOWN_KEY. */
TS_API int ts_queue_get(const ts_queue *q, const char *key, double *value);

/* Scenario shapes simulated (each once) and events run, for a progress
 * line or a benchmark. */
TS_API size_t ts_queue_simulated(const ts_queue *q);
TS_API uint64_t ts_queue_events(const ts_queue *q);

/* Free the answer (NULL is fine). */
TS_API void ts_queue_free(ts_queue *q);

/* ---- data in memory: for bindings (python/) ------------------------------- */

/* A growing text buffer with a FILE * to write into: any ts_*_write (and
 * ts_sweep_write) writes its text, CSV or JSON to ts_buffer_stream(b), and
 * ts_buffer_finish hands the bytes over, so a binding gets each command's
 * answer as data (the JSON documents of schema/, the CSV of the CLI) with
 * no file and no parsing of reports. */
typedef struct ts_buffer ts_buffer;

/* Open an empty buffer. Returns 0 or TS_ENOMEM; *out NULL on failure.
 * Finish with ts_buffer_finish or ts_buffer_free. */
TS_API int ts_buffer_open(ts_buffer **out);

/* The stream writing into b (owned by b: never fclose it). */
TS_API FILE *ts_buffer_stream(ts_buffer *b);

/* Close the stream and hand over what was written: *text (NUL-terminated,
 * malloc'd, the caller frees it with ts_string_free) and its length in
 * bytes into *len (may be NULL). Frees b, whatever the outcome. Returns 0,
 * or TS_ENOMEM/TS_EIO (the writes failed: *text NULL). */
TS_API int ts_buffer_finish(ts_buffer *b, char **text, size_t *len);

/* Discard the buffer and what it holds (NULL is fine). */
TS_API void ts_buffer_free(ts_buffer *b);

/* Free a string that the library handed over (ts_buffer_finish); NULL is
 * fine. */
TS_API void ts_string_free(char *text);

/* ts_scenario_load_file from scenario text in memory (libconfig, as a
 * scenario file holds it); `label` names it in messages (NULL: "<string>").
 * Relative file names in it (model = "my-model.cfg") are taken from the
 * working directory. Same returns as ts_scenario_load_file. */
TS_API int ts_scenario_load_text(const ts_env *env, const char *text, const char *label,
				 const char *const *sets, size_t nsets, ts_scenario **out);

/* Run every point of the sweep (of its part, after ts_sweep_set_shard) on
 * `threads` OpenMP threads (0: the default) and write the CSV that
 * `trainsim sweep` prints to out: the header, then one row per point in
 * point order, the digest last in each. No file is opened or locked.
 * Returns 0, TS_EIO or TS_ENOMEM. */
TS_API int ts_sweep_write(const ts_sweep *sw, int threads, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
