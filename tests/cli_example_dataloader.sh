#!/bin/bash
# Golden test of examples/dataloader-bottleneck: an 8-GPU box starved by 2
# DataLoader workers per GPU, then fed by 15 (regenerate: see
# tests/examplelib.bash: TS_REGEN=1 bash tests/cli_example_dataloader.sh BUILD/trainsim .).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" run starved.cfg && echo && "$BIN" run fixed.cfg
}
check_example dataloader-bottleneck
finish
