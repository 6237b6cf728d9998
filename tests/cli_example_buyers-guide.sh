#!/bin/bash
# Golden test of examples/buyers-guide: a 2 x RTX 3090 workstation, an
# 8 x V100 server and 4 DGX A100 nodes with Ceph on one ResNet-50 job
# (regenerate: see tests/examplelib.bash).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" compare workstation.cfg server.cfg cluster.cfg
}
check_example buyers-guide
finish
