"""trainsim from Python: predict how long, and at what cost, a neural network
trains on a cluster, over libtrainsim (the C library the ``trainsim`` CLI uses).

    import trainsim
    r = trainsim.run("configs/scenarios/default.cfg", training__micro_batch=2)
    r["iteration_time_s"], r.to_series()
    df = trainsim.sweep("examples/scaling-sweep/sweep.cfg")
    trainsim.plot.scaling(df)

Every function returns data: a :class:`Result` mapping (``run``) or a pandas
DataFrame (``sweep``, ``search``, ``advise``, ``compare``, ``collective``,
``validate``, ``gpus``, ``clusters``, ``models``), read from the JSON or CSV
the CLI writes. Failures raise :class:`Error` (a subclass per library error
code) with ``file``, ``line``, ``key`` and ``message``.

Threads: the library releases the GIL for every call. One environment (the
catalogs and calibration) is opened per process and shared read-only, which
the C API allows; every call makes its own scenario, plan, result and sweep,
so ``run``, ``sweep``, ``search``, ``advise``, ``compare``, ``collective`` and
the catalogs may run from several threads at once. ``sweep`` and ``search``
already use every core (OpenMP); pass ``threads=1`` when running many of them
in parallel.
"""
from . import plot
from ._core import (CSV, JSON, TEXT, Error, InvalidError, IOError_, LimitError, OutOfMemory,
                    RangeError, Result, SyntaxError_, TypeError_, UnitError, UnknownKey,
                    UnknownName, Unsupported, UsageError, advise, catalog, clusters, collective,
                    compare, data_root, gpus, models, run, search, sweep, to_libconfig, validate,
                    version)
from ._lib import lib_path, source_dir

__all__ = ["run", "sweep", "search", "advise", "compare", "collective", "validate", "gpus",
           "clusters", "models", "catalog", "plot", "Result", "Error", "version", "data_root",
           "lib_path", "source_dir", "to_libconfig"]
__version__ = "0.1.0"
