#!/bin/sh
# The bundled default job of `make run`: a 4 x A100 box against 16 DGX A100
# nodes on InfiniBand and on 10 GbE (examples/4gpu-vs-16node).
# SPDX-License-Identifier: MIT
set -e
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
ex="$root/examples/4gpu-vs-16node"
exec "$bin" compare "$ex/box-4xa100.cfg" "$ex/dgx16-ib.cfg" "$ex/dgx16-10gbe.cfg"
