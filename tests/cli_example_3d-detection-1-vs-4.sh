#!/bin/bash
# Golden test of examples/3d-detection-1-vs-4: a ~1B-parameter lidar
# detector on 1 and 4 A100s with DDP (regenerate: see tests/examplelib.bash).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" compare gpu1.cfg gpu4.cfg
}
check_example 3d-detection-1-vs-4
finish
