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
# 8766 hours a year; the run busy half the year ($11090.54, 69.6 months) is
# checked against the program by cli_runs.sh
check_prose rent-or-buy 8766 11226.01 69.6
finish
