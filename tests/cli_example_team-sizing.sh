#!/bin/bash
# Golden test of examples/team-sizing: a team's week of jobs (and two
# pre-training runs whose run time trainsim simulates) on 4 to 16 DGX H100
# under EASY backfill; the smallest cluster keeping the p90 wait within 2 h
# (regenerate: see tests/examplelib.bash).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" queue jobs.csv --cluster dgx-h100 --nodes 4:16:2 --target-p90 2h --quiet
}
check_example team-sizing
# jobs.csv's submissions end at 19:00 each day; p90 is the 90th percentile
check_prose team-sizing 19 90
finish
