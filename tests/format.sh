#!/usr/bin/env bash
# Every C file the repository tracks is as .clang-format writes it: a file
# that clang-format would change fails this test, named with its first diff.
# Usage: bash format.sh SOURCE_DIR   (fix with `make format`)
# SPDX-License-Identifier: MIT
set -u
src=${1:?usage: format.sh SOURCE_DIR}
cd "$src" || exit 1
if ! command -v clang-format >/dev/null 2>&1; then
	echo "format: clang-format not found (apt-get install clang-format)" >&2
	exit 1
fi
files=$(git ls-files '*.c' '*.h' 2>/dev/null)
[ -n "$files" ] || files=$(find sim tests include examples -name '*.[ch]' 2>/dev/null)
bad=0 n=0
for f in $files; do
	n=$((n + 1))
	if ! clang-format "$f" | cmp -s - "$f"; then
		bad=$((bad + 1))
		echo "format: $f is not clang-format clean (run make format):" >&2
		clang-format "$f" | diff -u "$f" - | sed -n '3,12p' >&2
	fi
done
echo "format: $n files, $bad not formatted"
echo "$((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
