"""Finding and opening libtrainsim through cffi (ABI mode: no compiler needed).

The library is looked for, in this order:

1. ``$TRAINSIM_LIB``, the path of ``libtrainsim.so`` (when set, it is used or
   it is an error);
2. ``build/libtrainsim.so`` of the source tree the package was installed from
   (or lies in), as ``make run`` and the README's set-up build it;
3. the system's library path (``ldconfig``; an installed prefix through
   ``pkg-config --variable=libdir trainsim``);
4. else it is built: ``cmake -S SOURCE -B SOURCE/build`` and the shared library
   target, then taken from there.

Each call of cffi's ABI mode releases the GIL while C runs, so long calls
(a sweep, a search, an advice) let other Python threads go on.
"""
import os
import shutil
import subprocess
import threading

from cffi import FFI

CDEF = r"""
typedef struct _IO_FILE FILE;
typedef struct ts_env ts_env;
typedef struct ts_scenario ts_scenario;
typedef struct ts_plan ts_plan;
typedef struct ts_result ts_result;
typedef struct ts_sweep ts_sweep;
typedef struct ts_buffer ts_buffer;
typedef void (*ts_progress_fn)(void *user, size_t done, size_t total, double elapsed_s);

const char *ts_version(void);
const char *ts_strerror(int code);
const char *ts_errmsg(void);
int ts_errcode(void);
int ts_errinfo(const char **file, int *line, const char **key, const char **msg);

int ts_env_open(const char *root, ts_env **out);
int ts_env_load_calibration(ts_env *env, const char *path);
const char *ts_env_root(const ts_env *env);
void ts_env_close(ts_env *env);

int ts_scenario_load_file(const ts_env *env, const char *path, const char *const *sets,
                          size_t nsets, ts_scenario **out);
int ts_scenario_load_text(const ts_env *env, const char *text, const char *label,
                          const char *const *sets, size_t nsets, ts_scenario **out);
int ts_scenario_write_config(const ts_scenario *sc, FILE *out);
void ts_scenario_free(ts_scenario *sc);
int ts_plan_build(const ts_env *env, const ts_scenario *sc, ts_plan **out);
void ts_plan_free(ts_plan *p);
int ts_plan_simulate(const ts_plan *p, FILE *trace, ts_result **out);
void ts_result_free(ts_result *r);
int ts_result_find_remedies(const ts_env *env, const char *path, const char *const *sets,
                            size_t nsets, ts_result *r);
int ts_result_get(const ts_result *r, const char *key, double *value);
int ts_result_write(const ts_result *r, int format, FILE *out);
int ts_compare_write(const ts_result *const *rs, size_t n, int format, FILE *out);

int ts_sweep_open_with(const ts_env *env, const char *path, const char *const *sets,
                       size_t nsets, ts_sweep **out);
int ts_sweep_set_shard(ts_sweep *sw, size_t k, size_t n);
int ts_sweep_write(const ts_sweep *sw, int threads, FILE *out);
void ts_sweep_free(ts_sweep *sw);

typedef struct ts_search_opts {
    int objective;
    uint32_t max_gpus;
    int threads;
    size_t top;
    int format;
    const char *export_best;
    const char *state;
    bool resume;
    ts_progress_fn progress;
    void *user;
    bool layer_figures;
    bool *none_fit;
} ts_search_opts;
int ts_search_run(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
                  const ts_search_opts *o, FILE *out);

typedef struct ts_advise_opts {
    double deadline_s;
    double budget_usd;
    int mode;
    double power_limit_w;
    bool power_per_rack;
    uint32_t max_gpus;
    const char *candidates;
    int format;
    const char *export_dir;
    bool full_search;
    size_t transfer_top;
} ts_advise_opts;
typedef struct ts_advise_stats {
    size_t options;
    size_t evaluated;
    size_t searches;
    size_t simulated;
    double seconds;
    double cpu_seconds;
} ts_advise_stats;
int ts_advise_run(const ts_env *env, const char *path, const char *const *sets, size_t nsets,
                  const ts_advise_opts *o, FILE *out, ts_advise_stats *stats);

int ts_validate_write(const ts_env *env, const char *source, bool fit, int format,
                      FILE *out, FILE *fit_out);
int ts_list_write(const ts_env *env, const char *kind, int format, FILE *out);

struct ts_collective_opts {
    const char *cluster;
    uint32_t nodes;
    const char *const *sets;
    size_t nsets;
    const char *op;
    double min_bytes;
    double max_bytes;
    double factor;
    uint32_t gpus;
    const char *algo;
    const char *proto;
    const char *mode;
};
void ts_collective_opts_init(struct ts_collective_opts *o);
int ts_parse_size(const char *s, double *bytes);
int ts_collective_write(const ts_env *env, const struct ts_collective_opts *o, int format,
                        FILE *out);

int ts_buffer_open(ts_buffer **out);
FILE *ts_buffer_stream(ts_buffer *b);
int ts_buffer_finish(ts_buffer *b, char **text, size_t *len);
void ts_buffer_free(ts_buffer *b);
void ts_string_free(char *text);
"""

ffi = FFI()
ffi.cdef(CDEF)

_lock = threading.Lock()
_lib = None
_path = None


def source_dir():
    """The trainsim source tree: where the package was installed from, else
    the tree this file lies in (python/trainsim/ of a clone); None if neither."""
    try:
        from ._where import SOURCE_DIR  # written by setup.py at install
    except ImportError:
        SOURCE_DIR = None
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for root in (SOURCE_DIR, here):
        if root and os.path.isfile(os.path.join(root, "include", "trainsim.h")):
            return root
    return None


def _candidates():
    root = source_dir()
    if root:
        yield os.path.join(root, "build", "libtrainsim.so")
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "trainsim"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        if libdir:
            yield os.path.join(libdir, "libtrainsim.so")
    except (OSError, subprocess.SubprocessError):
        pass
    import ctypes.util
    name = ctypes.util.find_library("trainsim")
    if name:
        yield name


def _build(root):
    """Build the shared library in ROOT/build with CMake; its path."""
    if not shutil.which("cmake"):
        raise OSError("trainsim: libtrainsim.so not found and cmake is missing to build it "
                      "(sh cmake/deps.sh run installs what building needs, or set TRAINSIM_LIB)")
    build = os.path.join(root, "build")
    for cmd in (["cmake", "-S", root, "-B", build, "-DCMAKE_BUILD_TYPE=Release"],
                ["cmake", "--build", build, "--target", "trainsim_shared", "-j",
                 str(os.cpu_count() or 2)]):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise OSError("trainsim: building libtrainsim failed: %s\n%s" %
                          (" ".join(cmd), (p.stdout + p.stderr)[-2000:]))
    return os.path.join(build, "libtrainsim.so")


def lib():
    """The opened library (found, or built, once per process)."""
    global _lib, _path
    with _lock:
        if _lib is not None:
            return _lib
        env = os.environ.get("TRAINSIM_LIB")
        if env:
            if not os.path.exists(env):
                raise OSError("trainsim: TRAINSIM_LIB=%s: no such file" % env)
            path = env
        else:
            path = next((c for c in _candidates() if os.path.sep not in c or os.path.exists(c)),
                        None)
            if path is None:
                root = source_dir()
                if not root:
                    raise OSError("trainsim: libtrainsim.so not found: set TRAINSIM_LIB to its "
                                  "path, or install trainsim (cmake --install)")
                path = _build(root)
        _lib = ffi.dlopen(path)
        _path = path
        return _lib


def lib_path():
    """The path of the library in use (opening it if need be)."""
    lib()
    return _path
