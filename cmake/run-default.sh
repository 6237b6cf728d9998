#!/bin/sh
# The bundled default job of `make run`. SPDX-License-Identifier: MIT
set -e
bin=$1
exec "$bin" collective --cluster dgx-a100-80gb --op all_reduce -b 8 -e 8G -f 4
