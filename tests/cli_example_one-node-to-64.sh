#!/bin/bash
# Golden test of examples/one-node-to-64: calibrate on one node's measured
# iteration, then predict 64 nodes (regenerate: see tests/examplelib.bash).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	mkdir -p "$TMP/work" && cp node1.cfg nodes64.cfg "$TMP/work/" && cd "$TMP/work" &&
		"$BIN" calibrate node1.cfg --measured-iteration-s 28.0 -o fitted.cfg && echo &&
		"$BIN" compare node1.cfg nodes64.cfg --calib fitted.cfg
}
check_example one-node-to-64
# the fitted gemm_k0 against the catalog's (both in the output's table)
check_prose one-node-to-64 "3.4=3.18559/0.929"
checks=$((checks + 1))
cmp -s "$TMP/work/fitted.cfg" "$SRC/examples/one-node-to-64/fitted.cfg" ||
	fail "the fitted constants differ from examples/one-node-to-64/fitted.cfg"
finish
