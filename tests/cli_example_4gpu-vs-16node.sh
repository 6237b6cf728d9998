#!/bin/bash
# Golden test of examples/4gpu-vs-16node: a 4 x A100 box against 16 DGX A100
# nodes on InfiniBand and on 10 GbE (regenerate: see tests/examplelib.bash).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" compare box-4xa100.cfg dgx16-ib.cfg dgx16-10gbe.cfg
}
check_example 4gpu-vs-16node
# a DGX A100's 6.5 kW rating (hardware notes X1), the PUE of 1.58 (Uptime
# Institute 2023); the rest from the table
check_prose 4gpu-vs-16node 6.5 1.58 "39=26152.76/665.07"
finish
