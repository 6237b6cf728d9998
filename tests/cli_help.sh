#!/usr/bin/env bash
# Every --help is true: each file an example of a command's --help names
# exists in the project, and each example runs, as written, to exit 0 (in a
# scratch folder that sees the project's configs/, examples/ and models/;
# all_reduce_perf, which only a GPU machine has, replaced by a stand-in that
# prints a recorded nccl-tests output). The commands are those trainsim help
# lists. Usage: bash cli_help.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
W=$TMP/work
mkdir -p "$W" "$TMP/bin"
ln -s "$SRC/configs" "$SRC/examples" "$SRC/models" "$SRC/plots" "$W/"
ln -s "$BIN" "$TMP/bin/trainsim"
printf '#!/bin/sh\ncat "%s"\n' "$SRC/tests/fuzz/seeds/fuzz_nccltests/allreduce-2.13.txt" \
	>"$TMP/bin/all_reduce_perf"
chmod +x "$TMP/bin/all_reduce_perf"

cmds=$("$BIN" help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | grep -vx help)
[ "$(echo "$cmds" | wc -w)" -ge 10 ] || fail "trainsim help lists only: $cmds"
for c in $cmds; do
	checks=$((checks + 1))
	"$BIN" "$c" --help >"$TMP/help" 2>&1 || { fail "$c --help: exit $?"; continue; }
	# the example block: from "example:" or "examples:" to the end or a blank line
	sed -n '/^examples\{0,1\}:$/,/^$/p' "$TMP/help" | sed '1d; /^$/d; s/^  //' >"$TMP/ex.sh"
	[ -s "$TMP/ex.sh" ] || { fail "$c --help has no example"; continue; }
	for f in $(grep -oE '(configs|examples|models|plots)/[A-Za-z0-9_./-]+' "$TMP/ex.sh" | sort -u); do
		checks=$((checks + 1))
		[ -e "$SRC/$f" ] || fail "$c --help names $f, which does not exist"
	done
	checks=$((checks + 1))
	rm -rf "$W/out" && mkdir "$W/out"
	(cd "$W/out" && ln -s ../configs ../examples ../models ../plots . &&
		PATH=$TMP/bin:$PATH timeout 600 bash -e "$TMP/ex.sh") >"$TMP/ex.out" 2>"$TMP/ex.err" ||
		fail "$c --help example: exit $?: $(tail -c 400 "$TMP/ex.err") [$(tr '\n' ';' <"$TMP/ex.sh")]"
done

finish
