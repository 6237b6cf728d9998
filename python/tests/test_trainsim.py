# The Python package against the CLI it wraps: each function's data is what
# the same command prints as JSON or CSV (exactly: the same writers), errors
# carry the library's record, and calls from several threads give the
# figures they give alone.
# SPDX-License-Identifier: MIT
import io
import os
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

import trainsim

DEFAULT = "configs/scenarios/default.cfg"


@pytest.fixture(autouse=True)
def in_src(src, monkeypatch):
    monkeypatch.chdir(src)


def test_run_is_the_cli_json(cli):
    want = cli("run", DEFAULT, "--format", "json", as_json=True)
    r = trainsim.run(DEFAULT)
    assert r["iteration_time_s"] == want["iteration_time_s"]  # exactly: the same double
    assert r.to_dict() == want
    assert isinstance(r, trainsim.Result) and set(r) == set(want)


def test_result_mapping_and_series():
    r = trainsim.run(DEFAULT)
    s = r.to_series()
    assert r["memory_breakdown.weights_bytes"] == r["memory_breakdown"]["weights_bytes"]
    assert s["memory_breakdown.weights_bytes"] == r["memory_breakdown"]["weights_bytes"]
    assert s["scenario.training.global_batch"] == 512  # configs/scenarios/default.cfg
    assert s["iteration_time_s"] == r["iteration_time_s"]
    # the critical-path parts sum to the iteration (DESIGN: exactly; here to rounding)
    parts = sum(r[k] for k in ("compute_s", "recompute_s", "exposed_comm_s", "bubble_s",
                               "data_stall_s", "optimizer_s", "other_s"))
    assert parts == pytest.approx(r["iteration_time_s"], rel=1e-12)
    assert "GPT-3 1.3B" in r.report().splitlines()[0]
    with pytest.raises(KeyError):
        r["no_such_key"]


def test_overrides_three_ways(cli):
    want = cli("run", DEFAULT, "--set", "training.micro_batch=2", "--set", "nodes=2",
               "--format", "json", as_json=True)
    a = trainsim.run(DEFAULT, training__micro_batch=2, nodes=2)
    b = trainsim.run(DEFAULT, {"training.micro_batch": 2, "nodes": 2})
    c = trainsim.run(DEFAULT, ["training.micro_batch=2", "nodes=2"])
    for r in (a, b, c):
        assert r.to_dict() == want
    assert a["scenario.training.micro_batch"] == 2 and a["gpus"] == 16


def test_dict_and_text_scenarios(cli, tmp_path):
    d = {"name": "small", "model": "gpt3-1.3b", "cluster": "dgx-a100-80gb",
         "training": {"global_batch": 64, "micro_batch": 4, "seq_len": 1024},
         "parallel": {"bucket": "40 MiB"}}
    text = trainsim.to_libconfig(d)
    f = tmp_path / "s.cfg"
    f.write_text(text)
    want = cli("run", str(f), "--format", "json", as_json=True)
    for scenario in (d, text, f, str(f)):
        assert trainsim.run(scenario)["iteration_time_s"] == want["iteration_time_s"], scenario


def test_sweep_has_the_cli_rows(cli, src):
    cwd = os.path.join(src, "examples", "scaling-sweep")
    out = cli("sweep", "sweep.cfg", cwd=cwd)
    df = trainsim.sweep(os.path.join(cwd, "sweep.cfg"))
    assert df.attrs["csv"] == out
    pd.testing.assert_frame_equal(df, pd.read_csv(io.StringIO(out)))
    assert df["nodes"].tolist() == [1, 2, 4, 8, 16, 32, 64]  # sweep.cfg's axis
    # the same points from base= and axes=, and a part
    df2 = trainsim.sweep(base=os.path.join(cwd, "base.cfg"), axes={"nodes": [1, 2, 4, 8, 16, 32, 64]})
    assert df2["iteration_time_s"].tolist() == df["iteration_time_s"].tolist()
    part = trainsim.sweep(os.path.join(cwd, "sweep.cfg"), shard=(2, 3))
    assert part["point"].tolist() == [1, 4]
    assert part["iteration_time_s"].tolist() == df["iteration_time_s"][[1, 4]].tolist()


def test_search_is_the_cli_json(cli):
    want = cli("search", DEFAULT, "--max-gpus", "8", "--top", "3", "--format", "json", "--quiet",
               as_json=True)
    df = trainsim.search(DEFAULT, max_gpus=8, top=3)
    assert df["rank"].tolist() == [c["rank"] for c in want["candidates"]] == [1, 2, 3]
    assert df["result.iteration_time_s"].tolist() == [c["result"]["iteration_time_s"]
                                                      for c in want["candidates"]]
    assert df["settings.micro_batch"].tolist() == [c["settings"]["micro_batch"]
                                                   for c in want["candidates"]]
    assert df.attrs["counts"] == want["counts"]


def test_compare_is_the_cli_json(cli, tmp_path):
    other = tmp_path / "box.cfg"
    other.write_text('name = "box"; model = "gpt3-1.3b"; cluster = "rtx4090-x4";\n')
    want = cli("compare", DEFAULT, str(other), "--format", "json", as_json=True)
    df = trainsim.compare(DEFAULT, str(other))
    assert df["name"].tolist() == [w["name"] for w in want]
    assert df["iteration_time_s"].tolist() == [w["iteration_time_s"] for w in want]
    for k in ("best", "tied", "no_clear_winner"):
        assert df["comparison." + k].tolist() == [w["comparison"][k] for w in want]


def test_collective_is_the_cli_json(cli):
    want = cli("collective", "--cluster", "dgx-a100-80gb", "-b", "1M", "-e", "1G", "-f", "32",
               "--format", "json", as_json=True)
    df = trainsim.collective("dgx-a100-80gb", min_bytes="1M", max_bytes="1G", factor=32)
    assert df.to_dict("records") == want["rows"]
    assert df["size_bytes"].tolist() == [1 << 20, 1 << 25, 1 << 30]  # 1M x 32 up to 1G
    assert df.attrs["avg_busbw_GBps"] == want["avg_busbw_GBps"]


def test_catalogs_are_the_cli_json(cli):
    for kind, fn in (("gpus", trainsim.gpus), ("clusters", trainsim.clusters),
                     ("models", trainsim.models)):
        want = cli("list", kind, "--format", "json", as_json=True)
        df = fn()
        assert df["name"].tolist() == [r["name"] for r in want["rows"]], kind
    assert {"dgx-a100-40gb", "dgx-a100-80gb", "dgx-h100", "rtx4090-x4",
            "ethernet-10g"} <= set(trainsim.clusters()["name"])  # DESIGN's bundled names


def test_validate_rows(cli):
    text = cli("validate", "--source", "meg24", "--format", "csv")
    want = pd.read_csv(io.StringIO(text.split("\n\n")[0] + "\n"))
    df = trainsim.validate("meg24")
    pd.testing.assert_frame_equal(df, want)
    assert len(df) == 11 and set(df["source"]) == {"meg24"}  # sim/README: 11 rows of meg24


def test_advise_is_the_cli_json(cli):
    want = cli("advise", "examples/what-to-buy/scenario.cfg", "--deadline", "30d", "--format",
               "json", as_json=True)
    df = trainsim.advise("examples/what-to-buy/scenario.cfg", deadline="30d")
    assert df["name"].tolist() == [o["name"] for o in want["options"]]
    assert df["cost_usd"].tolist() == [o["cost_usd"] for o in want["options"]]
    assert df["frontier"].tolist() == [o["frontier"] for o in want["options"]]
    assert df.attrs["fastest"] == want["fastest"]


def test_errors_carry_the_record(tmp_path):
    with pytest.raises(trainsim.UnknownKey) as e:
        trainsim.run(DEFAULT, training__micro_bach=2)
    assert isinstance(e.value, trainsim.Error) and e.value.code == -4
    assert e.value.key == "training.micro_bach" and "micro_batch" in e.value.message
    bad = tmp_path / "bad.cfg"
    bad.write_text('model = "gpt3-1.3b";\ncluster = "dgx-a100-80gb"\ntraining = {\n')
    with pytest.raises(trainsim.SyntaxError_) as e:
        trainsim.run(str(bad))
    assert e.value.file.endswith("bad.cfg") and e.value.line >= 2, (e.value.file, e.value.line)
    with pytest.raises(trainsim.IOError_) as e:
        trainsim.run(str(tmp_path / "missing.cfg"))
    assert e.value.file.endswith("missing.cfg") or "missing.cfg" in e.value.message
    with pytest.raises(trainsim.Error):
        trainsim.collective("no-such-cluster")


def test_values_out_of_reach_are_named():
    # an int beyond 64 bits gets the CLI's message (it was written with
    # libconfig's L suffix and clamped to 9223372036854775807)
    with pytest.raises(trainsim.RangeError) as e:
        trainsim.run(DEFAULT, {"nodes": 10**30})
    assert "beyond 64 bits" in e.value.message and "10000000000" in e.value.message
    # a NUL in a string names the key and the NUL (the key was cut short)
    with pytest.raises(trainsim.InvalidError) as e:
        trainsim.run(DEFAULT, {"name": "\x00x"})
    assert e.value.key == "name" and "NUL character at index 0" in e.value.message
    with pytest.raises(trainsim.InvalidError) as e:
        trainsim.run(DEFAULT, {"data": {"dataset": "a\x00"}})
    assert e.value.key == "data.dataset"


def test_threads_give_the_figures_of_one():
    sets = [{"nodes": n} for n in (1, 2, 4, 8)]
    alone = [trainsim.run(DEFAULT, s)["iteration_time_s"] for s in sets]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda s: trainsim.run(DEFAULT, s)["iteration_time_s"], sets))
    assert together == alone
    # an error on one thread is that thread's, not another's
    def bad(i):
        try:
            trainsim.run(DEFAULT, {"training.micro_batch%d" % i: 2})
        except trainsim.UnknownKey as e:
            return e.key
    with ThreadPoolExecutor(4) as pool:
        keys = list(pool.map(bad, range(4)))
    assert keys == ["training.micro_batch%d" % i for i in range(4)]


def test_plots(src):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    df = trainsim.sweep(os.path.join(src, "examples", "scaling-sweep", "sweep.cfg"))
    ax = trainsim.plot.scaling(df, log_x=True)
    # one series: throughput and its ideal line, the efficiency on the right
    assert [len(l.get_xdata()) for l in ax.get_lines()] == [7, 7]
    ideal = ax.get_lines()[1].get_ydata()
    assert ideal[-1] == pytest.approx(df["tokens_per_s"][0] * 64)  # linear in GPUs from 1 node
    ax = trainsim.plot.breakdown(df)
    assert len(ax.patches) == 7 * 7  # seven parts, seven points
    tops = [sum(p.get_height() for p in ax.patches[i::7]) for i in range(7)]
    assert tops == pytest.approx(df["iteration_time_s"].tolist(), rel=1e-9)
    opts = pd.DataFrame({"name": ["a", "b", "c"], "time_to_train_s": [3600.0, 7200.0, 7200.0],
                         "cost_usd": [30.0, 10.0, 20.0], "frontier": [True, True, False],
                         "fits": [True, True, True]})
    ax = trainsim.plot.frontier(opts)
    line = [l for l in ax.get_lines() if l.get_label() == "frontier"][0]
    assert list(line.get_xdata()) == [1.0, 2.0] and list(line.get_ydata()) == [30.0, 10.0]
