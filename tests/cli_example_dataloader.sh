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
# 5 ms of one core per image (configs/datasets/imagenet-1k.cfg), a DGX
# A100's 128 cores of two EPYC 7742 (configs/clusters/dgx-a100-80gb.cfg)
check_prose dataloader-bottleneck 5 128 7742 "200=1000/5" "16=8*2" "3,200=16*200" \
	"24,000=120*200" "24=2*16-8" "4,800=24*200"
finish
