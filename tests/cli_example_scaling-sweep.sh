#!/bin/bash
# Golden test of examples/scaling-sweep: GPT-3 1.3B from 8 to 512 GPUs, the
# sweep's CSV (regenerate: see tests/examplelib.bash); the plot is drawn when
# gnuplot is installed.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" sweep sweep.cfg
}
check_example scaling-sweep
if command -v gnuplot >/dev/null; then
	checks=$((checks + 1))
	(cd "$SRC/examples/scaling-sweep" && "$BIN" sweep sweep.cfg -o "$TMP/r.csv" &&
		"$BIN" plot scaling "$TMP/r.csv" -o "$TMP/s.png") || fail "plot scaling failed"
	[ -s "$TMP/s.png" ] || fail "plot scaling wrote no image"
fi
finish
