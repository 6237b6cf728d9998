#!/bin/bash
# Golden test of examples/halls-100k: Llama 3 405B on the 98,304 H100 of
# h100-100k-halls with its halls joined about 7:1 and non-blocking, and an
# all-to-all across two halls and within one (regenerate: see
# tests/examplelib.bash).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" compare llama3-405b-98k.cfg llama3-405b-98k-nonblocking.cfg &&
		"$BIN" collective --cluster h100-100k-halls --nodes 768 --op all_to_all -b 64M -e 64M &&
		"$BIN" collective --cluster h100-100k-halls --nodes 768 --op all_to_all -b 64M -e 64M \
			--set fabric.pod_oversubscription=1 &&
		"$BIN" collective --cluster h100-100k-halls --nodes 384 --op all_to_all -b 64M -e 64M
}
check_example halls-100k
# Facts: the cluster's shape (configs/clusters/h100-100k-halls.cfg, from the
# Llama 3 paper, section 3.3.1): 3,072 GPUs and 192 leaves a hall, 16
# aggregation switches a hall with 28 uplinks each, 32 halls, 7:1; the
# 100,000 GPUs of xAI's Colossus; 16K GPUs and 7.112 s of
# configs/scenarios/llama3-405b-16k.cfg (sim/README.md); 400 Gb/s a GPU;
# 15.6 T tokens (the scenario's training.tokens). Computed: the two-hall
# all-to-all's slowdown, measured and by hand: half of each GPU's bytes
# leave its hall, through 28 uplinks for every 192 leaf links, against
# 6,136 of its 6,144 peers off its node
check_prose halls-100k 3.3 3,072 192 16 28 32 7 1 100,000 7.112 400 15.6 6,144 6,136 \
	"3.40=4760.91/1399.55" "3.43=(192/28/2)/(6136/6144)" "6.86=192/28"
finish
