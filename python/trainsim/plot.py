"""Charts with matplotlib, of the same content as ``trainsim plot`` draws with
gnuplot (plots/*.gp): where the iteration time goes, throughput against the
cluster's size, and cost against time to train. Each function takes the
DataFrame (or Result) that trainsim's functions return and returns the
matplotlib Axes; ``ax=`` draws into an existing one. Rows whose status is not
ok or that do not fit are left out, as ``trainsim plot`` leaves them.
"""

PARTS = [("compute_s", "compute"), ("recompute_s", "recompute"),
         ("exposed_comm_s", "exposed communication"), ("bubble_s", "pipeline bubble"),
         ("data_stall_s", "data stall"), ("optimizer_s", "optimizer"), ("other_s", "other")]


def _plt():
    import matplotlib.pyplot as plt
    return plt


def _ok(df):
    import pandas as pd
    if not isinstance(df, pd.DataFrame):  # a Result, or a list of them
        rows = [df] if hasattr(df, "to_series") else list(df)
        df = pd.DataFrame([r.to_series() for r in rows])
    keep = df
    if "status" in keep:
        keep = keep[keep["status"] == "ok"]
    if "fits" in keep:
        keep = keep[keep["fits"].astype(str).str.lower().isin(["true", "1", "1.0"])]
    return keep


def _axes_columns(df):
    """A sweep's axis columns: those between point and status."""
    cols = list(df.columns)
    if "point" in cols and "status" in cols:
        return cols[cols.index("point") + 1:cols.index("status")]
    return []


def breakdown(results, *, label=None, title=None, ax=None):
    """Stacked bars of one iteration's critical path per row (compute,
    recompute, exposed communication, pipeline bubble, data stall,
    optimizer, other), in seconds. label: the column naming each bar
    (default: the sweep's axes, else name)."""
    df = _ok(results)
    if ax is None:
        ax = _plt().subplots(figsize=(8, 4.5))[1]
    axes = _axes_columns(df)
    if label:
        labels = df[label].astype(str)
    elif axes:
        labels = df[axes].astype(str).agg(", ".join, axis=1)
    else:
        labels = df["name"].astype(str)
    bottom = [0.0] * len(df)
    x = range(len(df))
    for col, name in PARTS:
        vals = df[col].astype(float).tolist() if col in df else [0.0] * len(df)
        ax.bar(x, vals, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=30 if len(df) > 6 else 0, ha="right" if len(df) > 6 else "center")
    ax.set_ylabel("time per iteration (s)")
    ax.set_xlabel(label or (", ".join(axes) if axes else "scenario"))
    ax.set_ylim(bottom=0)
    ax.set_title(title or "Where the iteration time goes")
    ax.legend(fontsize="small")
    return ax


def scaling(sweep, *, x=None, series=None, log_x=False, title=None, ax=None):
    """Throughput (tokens/s) against x (default: the sweep axis nodes, gpus
    or gpus_per_node, else gpus), one series per value of the other axes
    (series: columns), each with its ideal line (linear in GPUs from the
    series' first point, dashed) and its 80 % band (tokens_per_s_p10 to
    _p90) shaded; with one series, the scaling efficiency on the right
    axis."""
    df = _ok(sweep)
    axes = _axes_columns(df)
    if x is None:
        x = next((a for a in ("nodes", "gpus", "gpus_per_node") if a in axes), "gpus")
    if series is None:
        series = [a for a in axes if a != x]
    elif isinstance(series, str):
        series = [s for s in series.split(",") if s]
    if ax is None:
        ax = _plt().subplots(figsize=(8, 4.5))[1]
    groups = df.groupby(series, sort=False) if series else [((), df)]
    n = 0
    for key, g in groups:
        g = g.sort_values(x)
        key = key if isinstance(key, tuple) else (key,)
        name = ", ".join("%s=%s" % (s, v) for s, v in zip(series, key)) or "throughput"
        tput = g["tokens_per_s"].astype(float)
        gp = g["gpus"].astype(float)
        ideal = tput.iloc[0] / gp.iloc[0] * gp
        line, = ax.plot(g[x], tput, marker="o", label=name)
        ax.plot(g[x], ideal, linestyle="--", color=line.get_color(), label="ideal" if not series else None)
        if "tokens_per_s_p10" in g and "tokens_per_s_p90" in g:
            ax.fill_between(g[x], g["tokens_per_s_p10"].astype(float),
                            g["tokens_per_s_p90"].astype(float), color=line.get_color(), alpha=0.15)
        n += 1
        last = (g, tput, ideal)
    if n == 1:
        g, tput, ideal = last
        right = ax.twinx()
        right.plot(g[x], 100.0 * tput / ideal, color="grey", marker="s", linestyle=":",
                   label="scaling efficiency")
        right.set_ylabel("scaling efficiency (%)")
        right.set_ylim(0, 105)
    if log_x:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(x)
    ax.set_ylabel("throughput (tokens/s)")
    ax.set_title(title or "Throughput against %s" % x)
    ax.legend(fontsize="small")
    return ax


def frontier(options, *, title=None, ax=None):
    """Cost (US$) against time to train (hours, log scale), every option as
    a point with its 80 % band, the time-versus-cost frontier (the options
    that no other is both as fast and as cheap as) as a line."""
    df = _ok(options)
    if ax is None:
        ax = _plt().subplots(figsize=(8, 4.5))[1]
    hours = df["time_to_train_s"].astype(float) / 3600.0
    cost = df["cost_usd"].astype(float)
    if "time_to_train_s_p10" in df:
        xerr = [hours - df["time_to_train_s_p10"].astype(float) / 3600.0,
                df["time_to_train_s_p90"].astype(float) / 3600.0 - hours]
        yerr = [cost - df["cost_usd_p10"].astype(float), df["cost_usd_p90"].astype(float) - cost]
        ax.errorbar(hours, cost, xerr=xerr, yerr=yerr, fmt="o", alpha=0.5, label="options")
    else:
        ax.plot(hours, cost, "o", alpha=0.5, label="options")
    if "frontier" in df:
        on = df[df["frontier"].astype(bool)].sort_values("time_to_train_s")
        ax.plot(on["time_to_train_s"].astype(float) / 3600.0, on["cost_usd"].astype(float),
                "-o", color="C3", label="frontier")
        for _, r in on.iterrows():
            ax.annotate(str(r.get("name", "")), (r["time_to_train_s"] / 3600.0, r["cost_usd"]),
                        fontsize="x-small", xytext=(4, 4), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("time to train (hours)")
    ax.set_ylabel("cost (US$)")
    ax.set_title(title or "Cost against time to train")
    ax.legend(fontsize="small")
    return ax
