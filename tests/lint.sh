#!/usr/bin/env bash
# Test-suite hygiene that the compiler cannot see: every Check test case is
# made by tu_tcase (tests/testutil.c), which turns Check's 4 s wall-clock
# timer off, so no suite fails because the machine is loaded.
# Usage: bash lint.sh SOURCE_DIR
# SPDX-License-Identifier: MIT
set -u
src=${1:?usage: lint.sh SOURCE_DIR}
cd "$src" || exit 1
bad=0 n=0
for f in tests/check_*.c; do
	n=$((n + 1))
	if grep -n 'tcase_create\|tcase_set_timeout' "$f" >&2; then
		echo "lint: $f makes a test case without tu_tcase (Check's timer would stay armed)" >&2
		bad=$((bad + 1))
	fi
done
echo "lint: $n suites, $bad using Check's timer"
echo "$((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
