#!/usr/bin/env bash
# An interrupted write leaves no temporary file: trainsim search -o (a long
# search of the bundled Llama 3 405B) stopped by SIGINT, SIGTERM or SIGHUP
# removes its ".NAME.trainsim-HOST-PID.XXXXXX" and writes nothing at -o; one
# killed by SIGKILL leaves it, and the next write into that folder removes
# it, but not the temporary file of a process that is still alive or of
# another machine.
# Usage: bash cli_interrupt.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
SCN=$SRC/configs/scenarios/llama3-405b-16k.cfg
D=$TMP/out
mkdir -p "$D"

# temps: the temporary file of out.txt in $D; all_temps: also that of its
# search state (out.txt.state, put in place once its first lines are whole)
temps() { (cd "$D" && ls -A | grep '^\.out\.txt\.trainsim-' || true); }
all_temps() { (cd "$D" && ls -A | grep '^\.out\.txt\.' || true); }

# start_search: a search writing $D/out.txt in the background, $pid its
# process, once its temporary file exists (at most 60 s)
start_search() {
	# (job control on: a background job of a script ignores SIGINT otherwise)
	set -m
	"$BIN" search "$SCN" -o "$D/out.txt" >/dev/null 2>"$TMP/search.err" &
	pid=$!
	set +m
	for _ in $(seq 1 600); do
		[ -n "$(temps)" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	fail "no temporary file of out.txt appeared: $(cat "$TMP/search.err")"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 1
}

for sig in INT TERM HUP; do
	checks=$((checks + 1))
	rm -f "$D"/* "$D"/.out.txt*
	start_search || continue
	t=$(temps)
	case $t in
	.out.txt.trainsim-*-"$pid".??????) ;;
	*) fail "SIG$sig: the temporary file $t does not name the process $pid" ;;
	esac
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig: exit $rc, expected death by the signal"
	[ -z "$(all_temps)" ] || fail "SIG$sig: left $(all_temps)"
	[ -e "$D/out.txt" ] && fail "SIG$sig: wrote out.txt"
done

# SIGKILL cannot be caught: the next writer into the folder cleans up
checks=$((checks + 1))
rm -f "$D"/* "$D"/.out.txt*
if start_search; then
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	stale=$(temps)
	[ -n "$stale" ] || fail "SIGKILL: no temporary file left to clean (the test tests nothing)"
	# a live process's temporary file (this shell's) stays
	host=${stale#.out.txt.trainsim-}
	host=${host%-*}
	live=".out.txt.trainsim-$host-$$.abcdef"
	: >"$D/$live"
	# another machine's stays too
	other=".out.txt.trainsim-elsewhere-$pid.abcdef"
	: >"$D/$other"
	"$BIN" search "$SRC/configs/scenarios/default.cfg" -o "$D/other.txt" \
		>/dev/null 2>"$TMP/run.err" || fail "the next write: $(cat "$TMP/run.err")"
	[ -e "$D/$stale" ] && fail "SIGKILL: the next write left $stale"
	[ -e "$D/$live" ] || fail "the next write removed $live of a live process"
	[ -e "$D/$other" ] || fail "the next write removed $other of another machine"
fi

finish
