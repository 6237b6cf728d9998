#!/bin/bash
# The CSV that programs read is read by pandas.read_csv with its defaults (no
# comment=, no skiprows=): a sweep's -o file, its standard output and the merge
# of its parts (the header first, the digest in the last column, sweep_digest),
# search's and queue's CSV. Each table is checked against the csv module's
# reading of the same bytes (the columns, in order, and the values) and against
# what the sweep file says (its axis values, one row per point). Needs
# Debian's python3-pandas (sh cmake/deps.sh test installs it).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
PY_NEEDS="pandas"
. "$(dirname "$0")/pylib.bash"

EX=$SRC/examples/scaling-sweep
checks=$((checks + 1))
(cd "$EX" && "$BIN" sweep sweep.cfg -o "$TMP/r.csv" -j 2 2>/dev/null) || fail "sweep -o failed"
checks=$((checks + 1))
(cd "$EX" && "$BIN" sweep sweep.cfg -j 2 >"$TMP/stdout.csv" 2>/dev/null) || fail "sweep to stdout failed"
for k in 1 2 3; do
	checks=$((checks + 1))
	(cd "$EX" && "$BIN" sweep sweep.cfg --shard $k/3 -o "$TMP/part-$k.csv" 2>/dev/null) || fail "sweep --shard $k/3"
done
checks=$((checks + 1))
"$BIN" merge "$TMP/part-2.csv" "$TMP/part-3.csv" "$TMP/part-1.csv" -o "$TMP/merged.csv" 2>"$TMP/m.err" ||
	fail "merge: $(cat "$TMP/m.err")"

# the same check on each of the sweep's files: pandas' columns are the CSV
# header's, one row per point with sweep.cfg's node counts (1 to 64, doubling),
# the figures as written, one digest for all rows
SWEEP_CHECK='
import csv, sys
import pandas as pd
path, want_part = sys.argv[1], sys.argv[2]
df = pd.read_csv(path)
head, *rows = list(csv.reader(open(path)))
assert list(df.columns) == head, (list(df.columns)[:4], head[:4])
assert head[:3] == ["point", "nodes", "status"] and head[-1] == "sweep_digest", (head[:3], head[-1])
assert df.shape == (len(rows), len(head)) and len(rows) == 7, df.shape
assert df["point"].tolist() == list(range(7)), df["point"].tolist()
assert df["nodes"].tolist() == [1, 2, 4, 8, 16, 32, 64], df["nodes"].tolist()
assert (df["status"] == "ok").all(), df["status"].tolist()
assert df["gpus"].tolist() == [8 * n for n in df["nodes"]], df["gpus"].tolist()
col = head.index("iteration_time_s")
assert df["iteration_time_s"].dtype == "float64", df["iteration_time_s"].dtype
assert df["iteration_time_s"].tolist() == [float(r[col]) for r in rows]
assert df["model.name"].unique().tolist() == ["gpt3-1.3b"], df["model.name"].unique()
d = df["sweep_digest"].unique().tolist()
assert len(d) == 1 and d[0].startswith("base ") and "; calibration " in d[0] and "; version " in d[0], d
assert ("shard" in d[0]) == (want_part == "part"), d
'
for f in r stdout merged; do
	pyc $f.csv "$SWEEP_CHECK" whole
done
checks=$((checks + 1))
cmp -s "$TMP/r.csv" "$TMP/stdout.csv" && cmp -s "$TMP/r.csv" "$TMP/merged.csv" ||
	fail "sweep -o, sweep's standard output and merge differ"
# a part: its points only (0, 3, 6 of part 1/3), each row naming the part
pyc part-1.csv '
import sys
import pandas as pd
df = pd.read_csv(sys.argv[1])
assert df["point"].tolist() == [0, 3, 6] and df["nodes"].tolist() == [1, 8, 64], df[["point", "nodes"]]
assert df["sweep_digest"].str.contains("; shard 1/3 of 7 points; axes ").all(), df["sweep_digest"][0]
'

# search --format csv: one row per candidate, ranked
checks=$((checks + 1))
"$BIN" search "$SRC/configs/scenarios/default.cfg" --max-gpus 8 --top 3 --format csv --quiet \
	>"$TMP/search.csv" 2>"$TMP/search.err" || fail "search --format csv: $(cat "$TMP/search.err")"
pyc search.csv '
import csv, sys
import pandas as pd
df = pd.read_csv(sys.argv[1])
head, *rows = list(csv.reader(open(sys.argv[1])))
assert list(df.columns) == head and df.shape == (3, len(head)), (df.shape, head[:3])
assert df["rank"].tolist() == [1, 2, 3] and (df["gpus"] <= 8).all(), df[["rank", "gpus"]]
assert df["iteration_time_s"].is_monotonic_increasing, df["iteration_time_s"].tolist()
'

# queue: the figures (--format csv), each job (-o) and the timeline
checks=$((checks + 1))
(cd "$SRC/examples/team-sizing" && "$BIN" queue jobs.csv --cluster dgx-a100-80gb --nodes 2:4:2 --format csv \
	-o "$TMP/jobs.csv" --timeline "$TMP/timeline.csv" >"$TMP/queue.csv" 2>"$TMP/queue.err") ||
	fail "queue: $(cat "$TMP/queue.err")"
pyc queue.csv '
import csv, sys
import pandas as pd
for name, first, n in (("queue.csv", "nodes", 2), ("jobs.csv", "id", None), ("timeline.csv", "t_s", None)):
    path = sys.argv[1].replace("queue.csv", name)
    df = pd.read_csv(path)
    head, *rows = list(csv.reader(open(path)))
    assert list(df.columns) == head and head[0] == first, (name, head[:3])
    assert len(df) == len(rows) and (n is None or len(df) == n), (name, len(df))
jobs = pd.read_csv(sys.argv[1].replace("queue.csv", "jobs.csv"))
listed = pd.read_csv(sys.argv[2])
assert sorted(jobs["id"]) == sorted(listed["id"]), "the jobs are not those of jobs.csv"
' "$SRC/examples/team-sizing/jobs.csv"
finish
