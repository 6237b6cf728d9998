#!/bin/bash
# First contact: `make run` asks only for what running needs and `make test`
# adds the test tools, printing the exact apt command when it cannot install;
# a plain cmake configure without Check succeeds, says so and leaves out the
# Check suites only; every command's --help describes it and ends with an
# example that runs.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

# cmake/deps.sh on a machine that lacks every package, as a user without
# root or sudo: the exact command, run packages only for `run`
mkdir -p "$TMP/stubs"
printf '#!/bin/sh\nexit 1\n' >"$TMP/stubs/dpkg-query"
printf '#!/bin/sh\necho 1000\n' >"$TMP/stubs/id"
printf '#!/bin/sh\nexit 1\n' >"$TMP/stubs/sudo"
chmod +x "$TMP/stubs/"*
run_pkgs="cmake gcc make pkg-config libgsl-dev libconfig-dev libjansson-dev zlib1g-dev gnuplot-nox"
checks=$((checks + 1))
PATH="$TMP/stubs:$PATH" sh "$SRC/cmake/deps.sh" run >/dev/null 2>"$TMP/run.err"
rc=$?
[ "$rc" -eq 1 ] && grep -qxF "  sudo apt-get update && sudo apt-get install -y $run_pkgs" "$TMP/run.err" ||
	fail "deps.sh run: exit $rc: $(cat "$TMP/run.err")"
checks=$((checks + 1))
grep -qwE 'check|clang|clang-format' "$TMP/run.err" && fail "deps.sh run asks for test tools: $(cat "$TMP/run.err")"
checks=$((checks + 1))
PATH="$TMP/stubs:$PATH" sh "$SRC/cmake/deps.sh" test >/dev/null 2>"$TMP/test.err"
rc=$?
line=$(grep 'apt-get install' "$TMP/test.err")
[ "$rc" -eq 1 ] && case "$line" in *"$run_pkgs check clang"*clang-format*) true ;; *) false ;; esac ||
	fail "deps.sh test: exit $rc: $(cat "$TMP/test.err")"
checks=$((checks + 1))
grep -q '^run: build$' "$SRC/Makefile" && grep -q '^build: deps$' "$SRC/Makefile" &&
	grep -q '^test: deps-test ' "$SRC/Makefile" && grep -q 'deps.sh run$' "$SRC/Makefile" ||
	fail "Makefile: make run must install the run packages only, make test the test tools"
# `make test-unit` is the fast unit suites only (README: "the fast `unit` suites
# only"), while `make test` still runs every suite of the Release build
if command -v make >/dev/null; then
	checks=$((checks + 1))
	unit=$(make -n -s -C "$SRC" test-unit BUILD=b 2>/dev/null | grep 'ctest')
	case "$unit" in *"cd b && ctest "*"-L unit"*) true ;; *) fail "make test-unit does not run -L unit only: $unit" ;; esac
	checks=$((checks + 1))
	all=$(make -n -s -C "$SRC" test BUILD=b 2>/dev/null | grep '^cd b && ctest')
	[ -n "$all" ] && ! echo "$all" | grep -q -- '-L' ||
		fail "make test does not run every suite of the Release build: $all"
fi

# a plain cmake configure where pkg-config does not know Check
if command -v cmake >/dev/null && command -v pkg-config >/dev/null; then
	real=$(command -v pkg-config)
	cat >"$TMP/stubs/pkg-config" <<PC
#!/bin/sh
for a in "\$@"; do case "\$a" in check|check\ *) exit 1 ;; esac; done
exec "$real" "\$@"
PC
	chmod +x "$TMP/stubs/pkg-config"
	checks=$((checks + 1))
	cmake -S "$SRC" -B "$TMP/b" -DPKG_CONFIG_EXECUTABLE="$TMP/stubs/pkg-config" >"$TMP/cmake.out" 2>&1 ||
		fail "cmake without Check failed: $(tail -n 20 "$TMP/cmake.out")"
	checks=$((checks + 1))
	grep -q "Check (the unit-test framework) not found" "$TMP/cmake.out" ||
		fail "cmake without Check does not say so: $(tail -n 20 "$TMP/cmake.out")"
	checks=$((checks + 1))
	targets=$(cmake --build "$TMP/b" --target help 2>/dev/null)
	echo "$targets" | grep -qw trainsim && echo "$targets" | grep -qw trainsim_shared ||
		fail "cmake without Check has no trainsim target"
	echo "$targets" | grep -q 'check_' && fail "cmake without Check still has the Check suites"
fi

# --help: usage, what the command does, an example
for c in run collective validate list compare sweep merge search calibrate plot; do
	checks=$((checks + 1))
	"$BIN" $c --help >"$TMP/h" 2>"$TMP/h.err"
	[ $? -eq 0 ] && [ ! -s "$TMP/h.err" ] || fail "$c --help: exit or stderr: $(cat "$TMP/h.err")"
	head -n 1 "$TMP/h" | grep -q "^usage: trainsim $c" || fail "$c --help: no usage line"
	[ "$(wc -l <"$TMP/h")" -ge 6 ] || fail "$c --help: a usage line only"
	grep -q '^example:$' "$TMP/h" && sed -n '/^example:$/,$p' "$TMP/h" | grep -q "trainsim $c " ||
		fail "$c --help: no example of trainsim $c"
done
# the examples of run and list run as printed, from the source folder
for c in run list; do
	"$BIN" $c --help | sed -n '/^example:$/,$p' | grep '^  trainsim ' | sed 's/^  trainsim //' >"$TMP/ex"
	while read -r line; do
		checks=$((checks + 1))
		# shellcheck disable=SC2086
		(cd "$SRC" && "$BIN" $line >/dev/null 2>"$TMP/ex.err") ||
			fail "the example 'trainsim $line' of $c --help fails: $(cat "$TMP/ex.err")"
	done <"$TMP/ex"
done
finish
