"""trainsim's commands as Python functions: data in, data out.

Every answer comes from the library's own writers, as the JSON or CSV that the
CLI prints (``ts_*_write`` into a memory buffer, sim/api/data.c), read with the
json module or pandas: nothing here formats or recomputes a figure.
"""
import io
import json
import os
import re
import tempfile
import threading
from collections.abc import Mapping

from ._lib import ffi, lib

TEXT, CSV, JSON = 0, 1, 2

# ---- errors -----------------------------------------------------------------


class Error(Exception):
    """A failed trainsim call: ``code`` (the library's negative TS_E* value),
    ``message`` (the whole line, "file:line: key: found ..., expected ..."),
    ``file``, ``line``, ``key`` and ``detail`` (what was found and expected),
    each "" or 0 when it does not apply."""

    code = None

    def __init__(self, message, code=None, file="", line=0, key="", detail=""):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.file, self.line, self.key, self.detail = file, line, key, detail


class OutOfMemory(Error, MemoryError):
    code = -1


class IOError_(Error, OSError):
    code = -2


class SyntaxError_(Error):
    code = -3


class UnknownKey(Error, KeyError):
    code = -4

    def __str__(self):  # KeyError would quote the message
        return self.message


class TypeError_(Error, TypeError):
    code = -5


class RangeError(Error, ValueError):
    code = -6


class UnknownName(Error, LookupError):
    code = -7


class UnitError(Error, ValueError):
    code = -8


class InvalidError(Error, ValueError):
    code = -9


class Unsupported(Error):
    code = -10


class UsageError(Error, ValueError):
    code = -11


class LimitError(Error):
    code = -12


_BY_CODE = {c.code: c for c in (OutOfMemory, IOError_, SyntaxError_, UnknownKey, TypeError_,
                                RangeError, UnknownName, UnitError, InvalidError, Unsupported,
                                UsageError, LimitError)}


def _s(p):
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else ""


def _raise(rc):
    """Raise the Error of this thread's last failure (rc: the call's code)."""
    L = lib()
    f, ln, k, m = (ffi.new("const char **"), ffi.new("int *"), ffi.new("const char **"),
                   ffi.new("const char **"))
    code = L.ts_errinfo(f, ln, k, m) or rc
    cls = _BY_CODE.get(code, Error)
    raise cls(_s(L.ts_errmsg()) or _s(L.ts_strerror(code)), code, _s(f[0]), ln[0], _s(k[0]),
              _s(m[0]))


def _check(rc):
    if rc:
        _raise(rc)


# ---- environment --------------------------------------------------------------

_envs = {}
_envs_lock = threading.Lock()


def _env(calib=None):
    """The environment (data root, catalogs, calibration) of calib: opened
    once per process and shared read-only by every call and thread, as the C
    API allows (a ts_env is only read once open and calibrated)."""
    key = os.path.abspath(calib) if calib else None
    with _envs_lock:
        env = _envs.get(key)
        if env is None:
            L = lib()
            out = ffi.new("ts_env **")
            _check(L.ts_env_open(ffi.NULL, out))
            env = out[0]
            if key and L.ts_env_load_calibration(env, key.encode()):
                try:
                    _raise(-1)
                finally:
                    L.ts_env_close(env)
            _envs[key] = env
        return env


def data_root():
    """The data root the library reads (configs/, models/, plots/)."""
    return _s(lib().ts_env_root(_env()))


def version():
    return _s(lib().ts_version())


# ---- writing into memory ------------------------------------------------------


def _capture(write):
    """Run write(FILE *) into a memory buffer; the text it wrote."""
    L = lib()
    out = ffi.new("ts_buffer **")
    _check(L.ts_buffer_open(out))
    b = out[0]
    rc = write(L.ts_buffer_stream(b))
    if rc:
        L.ts_buffer_free(b)
        _raise(rc)
    text, n = ffi.new("char **"), ffi.new("size_t *")
    _check(L.ts_buffer_finish(b, text, n))
    try:
        return ffi.unpack(text[0], n[0]).decode("utf-8")
    finally:
        L.ts_string_free(text[0])


# ---- scenario values ----------------------------------------------------------


def _value(v, key=""):
    """A Python value as libconfig text (as --set and scenario files take it);
    key names it in errors."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        # beyond 64 bits no L suffix: libconfig would clamp such a number to
        # INT64_MAX, and the library's own check says "beyond 64 bits" as the
        # CLI does
        return "%dL" % v if 2**31 <= abs(v) < 2**63 else str(v)
    if isinstance(v, float):
        r = repr(v)
        return r if ("." in r or "e" in r or "n" in r) else r + ".0"
    if isinstance(v, str):
        if "\0" in v:
            raise InvalidError("trainsim: %s: found a NUL character at index %d of %r, expected "
                               "text without NUL" % (key or "value", v.index("\0"), v),
                               key=key)
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(v, Mapping):
        return "{ " + " ".join("%s = %s;" % (k, _value(x, _sub(key, k))) for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        if v and all(isinstance(x, Mapping) for x in v):
            return "( " + ", ".join(_value(x, "%s[%d]" % (key, i)) for i, x in enumerate(v)) + " )"
        return "[ " + ", ".join(_value(x, "%s[%d]" % (key, i)) for i, x in enumerate(v)) + " ]"
    raise TypeError("trainsim: %scannot write %r as a scenario value" % (key + ": " if key else "", v))


def _sub(key, k):
    return "%s.%s" % (key, k) if key else str(k)


def to_libconfig(d):
    """A scenario (or sweep) given as a dict, as libconfig text."""
    return "".join("%s = %s;\n" % (k, _value(v, str(k))) for k, v in d.items())


def _sets(sets=None, overrides=None):
    """--set arguments from a dict {"training.micro_batch": 2}, a list of
    "key=value" strings, and keyword overrides (training__micro_batch=2)."""
    out = []
    if isinstance(sets, Mapping):
        out += ["%s=%s" % (k, _value(v, str(k))) for k, v in sets.items()]
    elif sets:
        out += [str(s) for s in sets]
    for k, v in (overrides or {}).items():
        out.append("%s=%s" % (k.replace("__", "."), _value(v, k.replace("__", "."))))
    return out


class _Strings:
    """A const char *const * array kept alive with its strings."""

    def __init__(self, items):
        self.keep = [ffi.new("char[]", s.encode()) for s in items]
        self.arr = ffi.new("const char *[]", self.keep) if self.keep else ffi.NULL
        self.n = len(self.keep)


def _is_text(s):
    return isinstance(s, str) and ("\n" in s or "=" in s or ";" in s) and not os.path.exists(s)


class _Scenario:
    """A loaded scenario (its handle freed with the object)."""

    def __init__(self, scenario, sets, env):
        L = lib()
        self.sets = _Strings(sets)
        out = ffi.new("ts_scenario **")
        self.path = None
        if isinstance(scenario, Mapping):
            text, label = to_libconfig(scenario), "<dict>"
        elif _is_text(scenario):
            text, label = scenario, "<string>"
        else:
            text = None
            self.path = os.fspath(scenario)
        if text is None:
            _check(L.ts_scenario_load_file(env, self.path.encode(), self.sets.arr, self.sets.n,
                                           out))
        else:
            _check(L.ts_scenario_load_text(env, text.encode(), label.encode(), self.sets.arr,
                                           self.sets.n, out))
        self.handle = ffi.gc(out[0], L.ts_scenario_free)


class _ScenarioFile:
    """A path for the calls that read a scenario file themselves (search,
    advise): the file, or the text or dict written to a temporary file
    (whose relative names then resolve from the working directory's
    absolute paths only)."""

    def __init__(self, scenario):
        self.tmp = None
        if isinstance(scenario, Mapping) or _is_text(scenario):
            text = to_libconfig(scenario) if isinstance(scenario, Mapping) else scenario
            fd, self.tmp = tempfile.mkstemp(prefix="trainsim-", suffix=".cfg")
            with os.fdopen(fd, "w") as f:
                f.write(text)
            self.path = self.tmp
        else:
            self.path = os.fspath(scenario)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        if self.tmp:
            os.unlink(self.tmp)


# ---- results ------------------------------------------------------------------


def _flatten(d, prefix="", out=None):
    out = {} if out is None else out
    for k, v in d.items():
        key = prefix + k
        if isinstance(v, Mapping):
            _flatten(v, key + ".", out)
        else:
            out[key] = v
    return out


class Result(Mapping):
    """One simulated scenario: a read-only mapping of the keys of
    ``trainsim run --format json`` (schema/result.schema.json), with dotted
    access to nested ones (``r["memory_breakdown.weights_bytes"]``,
    ``r["scenario.parallel.tp"]``)."""

    def __init__(self, data, handles=None):
        self._data = data
        self._handles = handles  # scenario, plan, result: kept for report()

    def __getitem__(self, key):
        if key in self._data:
            return self._data[key]
        node = self._data
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                raise KeyError(key)
            node = node[part]
        return node

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __repr__(self):
        return "<trainsim.Result %r: iteration_time_s=%r>" % (self._data.get("name"),
                                                               self._data.get("iteration_time_s"))

    def to_dict(self):
        """The result as plain nested dicts and lists (a copy)."""
        return json.loads(json.dumps(self._data))

    def to_series(self):
        """The result as a pandas Series, nested keys flattened with dots
        ("memory_breakdown.weights_bytes", "scenario.parallel.tp")."""
        import pandas as pd
        return pd.Series(_flatten(self._data), name=self._data.get("name"))

    def report(self):
        """The report ``trainsim run`` prints for people."""
        if not self._handles:
            raise Error("trainsim: this result has no report (not from trainsim.run)")
        return _capture(lambda f: lib().ts_result_write(self._handles[2], TEXT, f))


def _simulate(scenario, sets, calib, remedies):
    L = lib()
    env = _env(calib)
    sc = _Scenario(scenario, sets, env)
    plan = ffi.new("ts_plan **")
    _check(L.ts_plan_build(env, sc.handle, plan))
    p = ffi.gc(plan[0], L.ts_plan_free)
    res = ffi.new("ts_result **")
    _check(L.ts_plan_simulate(p, ffi.NULL, res))
    r = ffi.gc(res[0], L.ts_result_free)
    fits = ffi.new("double *")
    if remedies and sc.path and not L.ts_result_get(r, b"fits", fits) and fits[0] == 0.0:
        _check(L.ts_result_find_remedies(env, sc.path.encode(), sc.sets.arr, sc.sets.n, r))
    return sc, p, r


def run(scenario, sets=None, *, calib=None, remedies=True, **overrides):
    """Simulate one scenario, as ``trainsim run --format json``.

    scenario: a scenario file's path, libconfig text, or a dict of the same
    keys (``{"model": "gpt3-1.3b", "cluster": "dgx-a100-80gb", "training":
    {...}}``). sets: overrides as ``--set`` takes them, a dict
    ``{"training.micro_batch": 2}`` or a list of ``"key=value"``; keyword
    overrides name nested keys with a double underscore
    (``training__micro_batch=2``). calib: a calibration overrides file. A
    file scenario that does not fit gets its ``memory_remedies`` (what
    would fit, each simulated) as the CLI's, unless remedies is false.
    Returns a :class:`Result`."""
    sc, p, r = _simulate(scenario, _sets(sets, overrides), calib, remedies)
    data = json.loads(_capture(lambda f: lib().ts_result_write(r, JSON, f)))
    return Result(data, (sc, p, r))


def _frame(rows, **attrs):
    import pandas as pd
    df = pd.json_normalize(rows, sep=".") if rows else pd.DataFrame()
    df.attrs.update(attrs)
    return df


def compare(*scenarios, sets=None, calib=None, **overrides):
    """Simulate scenarios side by side, as ``trainsim compare --format json``:
    one row per scenario (its result keys flattened with dots, and the
    comparison's ``comparison.scaling_efficiency``, ``comparison.best``,
    ``comparison.tied``, ``comparison.no_clear_winner``)."""
    if len(scenarios) == 1 and isinstance(scenarios[0], (list, tuple)):
        scenarios = tuple(scenarios[0])
    s = _sets(sets, overrides)
    runs = [_simulate(x, s, calib, False) for x in scenarios]
    arr = ffi.new("const ts_result *[]", [r for _, _, r in runs])
    docs = json.loads(_capture(lambda f: lib().ts_compare_write(arr, len(runs), JSON, f)))
    for d in docs:
        d.pop("scenario", None)
    return _frame(docs)


def sweep(sweep_file=None, sets=None, *, base=None, axes=None, zip=False, threads=0, shard=None,
          calib=None, **overrides):
    """Run a sweep, as ``trainsim sweep``: a DataFrame of its CSV (one row
    per point: point, the axes, status, the scenario's and the result's
    columns, sweep_digest), the rows of ``trainsim sweep SWEEP.cfg`` exactly.

    sweep_file: a sweep file's path or its libconfig text; or base (a
    scenario path) and axes (``{"nodes": [1, 2, 4]}``, nested or dotted
    keys). sets/overrides: ``--set`` over the base of every point. shard:
    (K, N) for part K of N. threads: OpenMP threads (0: all cores). The CSV
    text itself is in ``df.attrs["csv"]``."""
    import pandas as pd
    L = lib()
    env = _env(calib)
    tmp = None
    if sweep_file is None:
        if base is None or not axes:
            raise UsageError("trainsim.sweep: give a sweep file, or base= and axes=")
        text = to_libconfig({"base": os.path.abspath(os.fspath(base)), "axes": dict(axes),
                             **({"zip": True} if zip else {})})
    elif _is_text(sweep_file):
        text = sweep_file
    else:
        text = None
    if text is not None:
        fd, tmp = tempfile.mkstemp(prefix="trainsim-sweep-", suffix=".cfg")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        sweep_file = tmp
    try:
        s = _Strings(_sets(sets, overrides))
        out = ffi.new("ts_sweep **")
        _check(L.ts_sweep_open_with(env, os.fspath(sweep_file).encode(), s.arr, s.n, out))
        sw = ffi.gc(out[0], L.ts_sweep_free)
        if shard:
            _check(L.ts_sweep_set_shard(sw, shard[0], shard[1]))
        csv = _capture(lambda f: L.ts_sweep_write(sw, threads, f))
    finally:
        if tmp:
            os.unlink(tmp)
    df = pd.read_csv(io.StringIO(csv))
    df.attrs["csv"] = csv
    return df


_OBJECTIVES = {"time": 0, "cost": 1}


def search(scenario, sets=None, *, objective="time", max_gpus=0, top=10, threads=0,
           layer_figures=True, calib=None, **overrides):
    """Search the layouts of a scenario, as ``trainsim search --format json``:
    one row per candidate, best first (``rank``, ``settings.*``,
    ``result.*``); the counts, the GPU counts and degrees skipped with their
    reasons are in ``df.attrs``. layer_figures=False screens at stage
    granularity throughout (``--granularity stage``: faster, the figures
    of stage)."""
    L = lib()
    env = _env(calib)
    o = ffi.new("ts_search_opts *")
    o.objective = _OBJECTIVES[objective]
    o.max_gpus, o.threads, o.top, o.format = max_gpus, threads, top, JSON
    o.layer_figures = bool(layer_figures)
    s = _Strings(_sets(sets, overrides))
    with _ScenarioFile(scenario) as path:
        doc = json.loads(_capture(lambda f: L.ts_search_run(env, path.encode(), s.arr, s.n, o,
                                                               f)))
    cands = doc.pop("candidates")
    return _frame(cands, **doc)


_UNITS = {"s": 1, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def _seconds(v):
    """Seconds from a number or "30d", "12h", "90min"."""
    if v is None or isinstance(v, (int, float)):
        return float(v or 0)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(s|min|h|d|w)?\s*", str(v))
    if not m:
        raise UsageError("trainsim: found %r, expected a duration such as 30d, 12h, 3600" % v)
    return float(m.group(1)) * _UNITS[m.group(2) or "s"]


def advise(scenario, sets=None, *, deadline=None, budget=None, mode="both", power_limit_kw=None,
           power_per_rack=False, max_gpus=0, candidates=None, full_search=False, calib=None,
           **overrides):
    """What to rent or buy, as ``trainsim advise --format json``: one row per
    option (node type x nodes x rent or buy) with its time to train, cost,
    energy and their bands, ``frontier`` (on the time-versus-cost frontier of
    the options meeting every constraint), ``recommended``,
    ``constraints_missed``, ``layout.*``; the question and the picks
    (``cheapest``, ``fastest``, ...) in ``df.attrs``. deadline: seconds or
    "30d"; budget: US$; power_limit_kw: kW."""
    L = lib()
    env = _env(calib)
    o = ffi.new("ts_advise_opts *")
    o.deadline_s = _seconds(deadline)
    o.budget_usd = float(budget or 0)
    o.mode = {"rent": 1, "buy": 2, "both": 3}[mode]
    o.power_limit_w = float(power_limit_kw or 0) * 1000.0
    o.power_per_rack = bool(power_per_rack)
    o.max_gpus = max_gpus
    keep = ffi.new("char[]", os.fspath(candidates).encode()) if candidates else ffi.NULL
    o.candidates = keep
    o.format = JSON
    o.full_search = bool(full_search)
    s = _Strings(_sets(sets, overrides))
    with _ScenarioFile(scenario) as path:
        doc = json.loads(_capture(lambda f: L.ts_advise_run(env, path.encode(), s.arr, s.n, o, f,
                                                               ffi.NULL)))
    options = doc.pop("options")
    return _frame(options, **doc)


def collective(cluster, op="all_reduce", *, min_bytes="8", max_bytes="128M", factor=2, nodes=0,
               gpus=0, algo=None, proto=None, mode=None, sets=None, calib=None):
    """A collective at each message size, as ``trainsim collective --format
    json`` (nccl-tests' columns: size_bytes, time_us, algbw_GBps,
    busbw_GBps, algo, proto, channels); sizes as nccl-tests writes them
    ("1M", "8G") or bytes. The run's figures (``avg_busbw_GBps``, ...) are in
    ``df.attrs``."""
    L = lib()
    env = _env(calib)
    o = ffi.new("struct ts_collective_opts *")
    L.ts_collective_opts_init(o)
    keep = []

    def cstr(v):
        keep.append(ffi.new("char[]", v.encode()))
        return keep[-1]

    def size(v):
        if isinstance(v, (int, float)):
            return float(v)
        b = ffi.new("double *")
        _check(L.ts_parse_size(cstr(str(v)), b))
        return b[0]

    o.cluster = cstr(cluster)
    o.op = cstr(op)
    o.min_bytes, o.max_bytes, o.factor = size(min_bytes), size(max_bytes), float(factor)
    o.nodes, o.gpus = nodes, gpus
    for field, v in (("algo", algo), ("proto", proto), ("mode", mode)):
        if v:
            setattr(o, field, cstr(v))
    s = _Strings(_sets(sets))
    o.sets, o.nsets = s.arr, s.n
    doc = json.loads(_capture(lambda f: L.ts_collective_write(env, o, JSON, f)))
    rows = doc.pop("rows")
    return _frame(rows, **doc)


def validate(source="all", *, calib=None):
    """Prediction against published measurement, one row per measurement
    (id, source, row, half, metric, predicted, measured, error_pct), as the
    first table of ``trainsim validate --format csv``; the summary tables
    that follow it there (per source, bands, leave-one-source-out) are in
    ``df.attrs["summary_csv"]``."""
    import pandas as pd
    L = lib()
    env = _env(calib)
    csv = _capture(lambda f: L.ts_validate_write(env, source.encode(), False, CSV, f, ffi.NULL))
    rows, _, rest = csv.partition("\n\n")
    df = pd.read_csv(io.StringIO(rows + "\n"))
    df.attrs["summary_csv"] = rest
    return df


def _catalog(kind, calib=None):
    doc = json.loads(_capture(lambda f: lib().ts_list_write(_env(calib), kind.encode(), JSON, f)))
    rows = doc.pop("rows")
    return _frame(rows, **doc)


def gpus():
    """The hardware catalog's GPUs, as ``trainsim list gpus --format json``."""
    return _catalog("gpus")


def clusters():
    """The bundled clusters, as ``trainsim list clusters --format json``."""
    return _catalog("clusters")


def models():
    """The bundled models, as ``trainsim list models --format json``."""
    return _catalog("models")


def catalog(kind):
    """Any catalog of ``trainsim list``: gpus, links, storage, clusters,
    models, datasets, scenarios."""
    return _catalog(kind)
