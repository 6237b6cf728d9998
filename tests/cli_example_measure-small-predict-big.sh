#!/bin/bash
# Golden test of examples/measure-small-predict-big: calibrate on one node's
# profiler trace and on its runs, then predict 16 nodes with each
# (regenerate: see tests/examplelib.bash).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	mkdir -p "$TMP/work" && cp node1.cfg nodes16.cfg runs.csv trace.json.gz "$TMP/work/" &&
		cd "$TMP/work" &&
		"$BIN" calibrate node1.cfg --trace trace.json.gz -o from-trace.cfg && echo &&
		"$BIN" calibrate --runs runs.csv -o from-runs.cfg && echo &&
		"$BIN" run nodes16.cfg --calib from-trace.cfg | grep -E "^(GPT|iteration time|throughput|calibration)" && echo &&
		"$BIN" run nodes16.cfg --calib from-runs.cfg | grep -E "^(GPT|iteration time|throughput|calibration)" && echo &&
		"$BIN" run nodes16.cfg | grep -E "^(GPT|iteration time|throughput)"
}
check_example measure-small-predict-big
# attention backward over forward: the trace's (measured column) and
# trainsim's with the fitted constants (fitted column)
check_prose measure-small-predict-big "2.7=760/280" "2.5=729.3/291.7"
for f in from-trace.cfg from-runs.cfg; do
	checks=$((checks + 1))
	cmp -s "$TMP/work/$f" "$SRC/examples/measure-small-predict-big/$f" ||
		fail "the fitted constants differ from examples/measure-small-predict-big/$f"
done
finish
