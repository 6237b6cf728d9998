#!/bin/bash
# The Python package as a user installs it: a fresh virtual environment that
# sees the system's packages (Debian's python3-cffi, pandas, matplotlib),
# `pip install --no-index --no-build-isolation` of a copy of python/, then
# the package's pytest suite (python/tests: each function against the CLI's
# JSON or CSV) and the example notebook (examples/python/study.ipynb) run
# cell by cell with nbclient. The library is the one under test, next to
# the CLI (TRAINSIM_LIB). Needs the packages sh cmake/deps.sh test installs.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
PY_NEEDS="cffi pandas matplotlib pytest nbclient nbformat ipykernel"
. "$(dirname "$0")/pylib.bash"

LIB=$(dirname "$BIN")/libtrainsim.so
[ -e "$LIB" ] || { echo "FAIL: no libtrainsim.so beside $BIN"; exit 1; }
export TRAINSIM_LIB=$LIB TRAINSIM_CLI=$BIN
unset PYTHONPATH

# a copy of python/ (pip writes build/ and *.egg-info beside the sources),
# recorded as belonging to this source tree
cp -r "$SRC/python" "$TMP/python"
rm -rf "$TMP/python/build" "$TMP/python"/*.egg-info
checks=$((checks + 1))
"$PY" -m venv --system-site-packages "$TMP/V" >"$TMP/venv.log" 2>&1 || fail "venv: $(tail -n 5 "$TMP/venv.log")"
checks=$((checks + 1))
TRAINSIM_SOURCE_DIR=$SRC "$TMP/V/bin/pip" install --no-index --no-build-isolation -q "$TMP/python" \
	>"$TMP/pip.log" 2>&1 || fail "pip install: $(tail -n 20 "$TMP/pip.log")"
checks=$((checks + 1))
(cd "$TMP" && "$TMP/V/bin/python" -c '
import trainsim, sys
assert trainsim.__file__.startswith(sys.prefix), trainsim.__file__
assert trainsim.source_dir() == sys.argv[1], trainsim.source_dir()
print(trainsim.run(sys.argv[1] + "/configs/scenarios/default.cfg")["iteration_time_s"])' "$SRC" \
	>"$TMP/run.out" 2>&1) || fail "the installed package: $(tail -n 5 "$TMP/run.out")"
# the exact figure of the CLI's JSON
want=$("$BIN" run "$SRC/configs/scenarios/default.cfg" --format json | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["iteration_time_s"])')
checks=$((checks + 1))
[ "$(cat "$TMP/run.out")" = "$want" ] || fail "trainsim.run: $(cat "$TMP/run.out"), the CLI: $want"

checks=$((checks + 1))
(cd "$TMP" && "$TMP/V/bin/python" -m pytest -q -p no:cacheprovider "$SRC/python/tests" >"$TMP/pytest.log" 2>&1) ||
	fail "pytest: $(tail -n 30 "$TMP/pytest.log")"
tail -n 1 "$TMP/pytest.log"

# the notebook's kernel in the environment (the system's kernel would not see it)
checks=$((checks + 1))
"$TMP/V/bin/python" -m ipykernel install --prefix "$TMP/V" --name python3 >"$TMP/kernel.log" 2>&1 ||
	fail "ipykernel install: $(tail -n 5 "$TMP/kernel.log")"
checks=$((checks + 1))
(cd "$TMP" && "$TMP/V/bin/python" -c '
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=120, kernel_name="python3").execute()
errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
assert not errors, errors
tables = [o for c in nb.cells for o in c.get("outputs", []) if "text/plain" in o.get("data", {})]
images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
assert len(images) == 3, "%d images, expected the breakdown, scaling and frontier" % len(images)
text = "".join(o["data"]["text/plain"] for o in tables)
for name in ("4x A100 box", "16 DGX A100 on InfiniBand", "16 nodes on 10 GbE", "16 x dgx-h100, buy"):
    assert name in text, name
# the outputs stored in the notebook (what a reader sees on the forge) are
# those of this run: every table and value as text, cell by cell (the images
# are drawn by matplotlib, whose bytes vary with its version; their text is
# the size of the figure). TS_REGEN=1 stores the outputs of this run.
def shown(cell):
    return [o.get("data", {}).get("text/plain", o.get("text", "")) for o in cell.get("outputs", [])]
stored = nbformat.read(sys.argv[1], as_version=4)
import os
if os.environ.get("TS_REGEN") == "1":
    nbformat.write(nb, sys.argv[1])
    print("regenerated", sys.argv[1])
else:
    for i, (a, b) in enumerate(zip(stored.cells, nb.cells)):
        assert shown(a) == shown(b), "cell %d: stored %r, this run %r (TS_REGEN=1 stores the outputs of this run)" % (
            i, "".join(shown(a))[:300], "".join(shown(b))[:300])
' "$SRC/examples/python/study.ipynb" >"$TMP/nb.log" 2>&1) || fail "the notebook: $(tail -n 30 "$TMP/nb.log")"
finish
