#!/bin/sh
# The bundled default job of `make run`: a training scenario.
# SPDX-License-Identifier: MIT
set -e
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$bin" run "$root/configs/scenarios/default.cfg"
