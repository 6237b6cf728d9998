#!/bin/bash
# Golden test of examples/rent-or-buy: 16 DGX A100 owned against
# rented (regenerate: see tests/examplelib.bash).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" compare rented.cfg cluster.cfg && echo && "$BIN" run cluster.cfg
}
check_example rent-or-buy
finish
