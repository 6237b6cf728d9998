# Golden tests of examples/NAME: source after clilib.bash, define example()
# printing the example's commands' output (run in examples/NAME), then call
# check_example NAME. The output must equal examples/NAME/expected-output.txt
# and appear verbatim in examples/NAME/README.md.
# Regenerate: TS_REGEN=1 bash tests/cli_example_NAME.sh BUILD/trainsim .
# (then paste the new output into the README).
# SPDX-License-Identifier: MIT
check_example() {
	local name=$1 ex="$SRC/examples/$1"
	checks=$((checks + 1))
	(cd "$ex" && example) >"$TMP/out" 2>"$TMP/err" || fail "$name: exit $?: $(head -c 600 "$TMP/err")"
	if [ "${TS_REGEN:-}" = 1 ]; then
		cp "$TMP/out" "$ex/expected-output.txt"
		echo "regenerated $ex/expected-output.txt"
	fi
	if ! cmp -s "$TMP/out" "$ex/expected-output.txt"; then
		fail "$name: output differs from expected-output.txt:"
		diff "$ex/expected-output.txt" "$TMP/out" | head -20
	fi
	checks=$((checks + 1))
	python3 -c 'import sys; r = open(sys.argv[1]).read(); o = open(sys.argv[2]).read()
sys.exit(0 if o.strip() in r else 1)' "$ex/README.md" "$ex/expected-output.txt" ||
		fail "$name: README.md does not hold expected-output.txt verbatim"
}
