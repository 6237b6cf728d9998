# Shared set-up and checks of the CLI test scripts (tests/cli_*.sh), sourced
# as: . "$(dirname "$0")/clilib.bash" "$@"   (arguments: TRAINSIM_BINARY SOURCE_DIR)
# SPDX-License-Identifier: MIT
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
[ -x "$BIN" ] || { echo "FAIL: no trainsim binary at $1"; exit 1; }
export TS_DATA_DIR=$SRC
# a sanitizer report must count as a crash, not as an ordinary exit code
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=199"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=199:halt_on_error=1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checks=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# ok NAME ARGS...: trainsim ARGS exits 0, prints something on stdout (kept in
# $TMP/NAME), nothing on stderr, and no NaN or infinity.
ok() {
	local name=$1 rc
	shift
	checks=$((checks + 1))
	"$BIN" "$@" >"$TMP/$name" 2>"$TMP/$name.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "trainsim $*: exit $rc: $(head -c 600 "$TMP/$name.err")"
	[ -s "$TMP/$name.err" ] && fail "trainsim $*: printed on stderr: $(head -c 300 "$TMP/$name.err")"
	[ -s "$TMP/$name" ] || fail "trainsim $*: printed nothing"
	if grep -qEw -- '-?(nan|NaN|NAN|inf|INF)' "$TMP/$name"; then
		fail "trainsim $*: printed a NaN or an infinity"
	fi
	return "$rc"
}

# py NAME SCRIPT [ARGS...]: run a python check on $TMP/NAME (argv[1], then
# ARGS); the script prints what failed and exits non-zero.
py() {
	local msg
	checks=$((checks + 1))
	if ! msg=$(python3 -c "$2" "$TMP/$1" "${@:3}" 2>&1); then
		fail "$1: $msg"
	fi
}

# finish: the closing line and the exit status.
finish() {
	echo "$(basename "$0" .sh): $((checks - fails)) passed, $fails failed"
	[ "$fails" -eq 0 ]
}
