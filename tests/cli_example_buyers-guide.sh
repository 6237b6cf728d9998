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
# the workstation's decode workers: 2 GPUs x 7 workers_per_gpu
# (workstation.cfg); the server's rate without its decode wait: 6.4 k
# images/s / (1 - 35 %); the DGX-1's cores: 2 CPUs x 20 cores
# (configs/clusters/dgx1-v100.cfg). Facts: 50 of ResNet-50 (a name); the
# default PUE 1.58 (sim/io/costcfg.h COSTCFG_PUE, Uptime Institute 2023,
# hardware.md E1); DGX A100 6.5 kW (configs/clusters/dgx-a100-80gb.cfg
# power.node_max, hardware.md section 5)
check_prose buyers-guide 50 1.58 6.5 "14=2*7" "9.3=6.4*100/(100-31)" "40=2*20"
finish
