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
# the guide's figures (3.8x, 72 h, 18 h, 40 %), the model's 512 x 512 input,
# a DGX A100's 6.5 kW rating, 3.3 kW of it beside its 8 x 400 W GPUs
# (hardware notes X1); the rest from the table
check_prose 3d-detection-1-vs-4 3.8 72 18 40 512 6.5 3.3 400 \
	"3.75=793.2/211.3" "1.065=100/93.9" "6.5=100*(15.19/14.26-1)" "167=100/(1-40/100)" \
	"6.7=4/(1-40/100)" "4.0=72/18"
finish
