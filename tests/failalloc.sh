#!/usr/bin/env bash
# Allocation failures in `trainsim run` and `trainsim sweep`: the N-th
# allocation of trainsim (its allocation hook and the command-line tool) or of
# libconfig fails, through the LD_PRELOAD shim tests/failmalloc.c, for the
# first allocations one by one and then for a spread over the rest. Each run
# must exit 0 with the output of the run without failures, or exit 2 with a
# message on stderr; never a crash, another exit code, or exit 0 with another
# answer (a lost value read as a default).
#
# One exception, documented: libconfig 1.5 does not check its own
# allocations (lib/strbuf.c strbuf_append copies into the result of realloc,
# config_setting_create writes through that of calloc, __config_list_add
# through that of realloc; gdb shows the crash at strcpy called from
# strbuf_append in libconfig_yylex), so a failure inside libconfig can crash
# libconfig itself before trainsim sees a result. Such a crash is accepted
# only when the shim's signal handler names libconfig as the innermost frame
# outside the C library ("failmalloc: signal 11 in libconfig.so.9"); a crash
# anywhere in trainsim fails the test. (libconfig's scanner also exits with
# status 2 and "out of dynamic memory in ..." on its own failures: an exit 2
# with a message, accepted as such.) What trainsim can do it does: a name or
# a string that libconfig lost without crashing is found by cfg_intact and
# reported, never read as a default. Parsing each text first in a forked
# child that is thrown away (a child dead of SIGSEGV reported as "out of
# memory parsing FILE") was measured and not adopted: a run parses about 10
# files and a sweep point about 3.6, each probe cost about 5.6 ms on a
# loaded 2-core machine (a 32-point sweep of configs/scenarios/default.cfg
# 0.29 -> 0.95 s, the same CSV), and it would still leave the trees
# trainsim builds with libconfig after the parse (--set overlays, the
# collective's cluster) and any failure the child does not share.
# Usage: bash failalloc.sh TRAINSIM_BINARY SOURCE_DIR LIBFAILMALLOC.so
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
SHIM=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
[ -f "$SHIM" ] || { echo "FAIL: no shim at $3"; exit 1; }
SCEN=$SRC/configs/scenarios/default.cfg
FIRST=${TS_FAILALLOC_FIRST:-100}   # allocations failed one by one from the first
SPREAD=${TS_FAILALLOC_SPREAD:-50} # then this many spread over the rest

cat >"$TMP/sweep.cfg" <<EOF
base = "$SCEN";
axes = { nodes = [1, 2]; "parallel.bucket" = ["25 MiB", "bogus"]; };
EOF
RUN=(run "$SCEN" --set training.iterations=2)
SWEEP=(sweep "$TMP/sweep.cfg" -j 1)

libconfig_crashes=0
runs=0

# check NAME WHO N ARGS...: one run with allocation N of WHO failing.
check() {
	local name=$1 who=$2 n=$3 rc
	shift 3
	runs=$((runs + 1))
	# (stderr set aside keeps bash's own "Segmentation fault" out of the log)
	exec 3>&2 2>/dev/null
	TS_FAILMALLOC_WHO=$who TS_FAILMALLOC=$n LD_PRELOAD=$SHIM "$BIN" "$@" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	exec 2>&3 3>&-
	local what="trainsim $name, allocation $n of $who failing"
	case $rc in
	0)
		cmp -s "$TMP/out" "$TMP/$name.want" ||
			fail "$what: exit 0 with another answer: $(diff "$TMP/$name.want" "$TMP/out" | head -4)"
		;;
	2)
		grep -v '^failmalloc: ' "$TMP/err" | grep -q . ||
			fail "$what: exit 2 without a message"
		grep -q ': success$' "$TMP/err" &&
			fail "$what: exit 2 with the message of success: $(head -2 "$TMP/err")"
		;;
	*)
		if [ "$who" = libconfig ] && [ "$rc" -gt 128 ] &&
			grep -q '^failmalloc: signal [0-9]* in libconfig\.' "$TMP/err"; then
			libconfig_crashes=$((libconfig_crashes + 1))
		else
			fail "$what: exit $rc: $(head -c 400 "$TMP/err")"
		fi
		;;
	esac
}

# sweep_over NAME WHO ARGS...: the un-injected output, then FIRST + SPREAD
# runs with one allocation failing.
sweep_over() {
	local name=$1 who=$2 total n
	shift 2
	checks=$((checks + 1))
	TS_FAILMALLOC_REPORT=1 TS_FAILMALLOC_WHO=$who LD_PRELOAD=$SHIM "$BIN" "$@" \
		>"$TMP/$name.want" 2>"$TMP/$name.count" ||
		{ fail "trainsim $name without failures: $(head -3 "$TMP/$name.count")"; return; }
	total=$(sed -n 's/^failmalloc: \([0-9]*\) counted allocations$/\1/p' "$TMP/$name.count")
	[ "${total:-0}" -gt "$FIRST" ] ||
		{ fail "trainsim $name: the shim counted ${total:-no} allocations of $who"; return; }
	for n in $(seq 1 "$FIRST"); do
		check "$name" "$who" "$n" "$@"
	done
	for k in $(seq 1 "$SPREAD"); do
		check "$name" "$who" $((FIRST + (total - FIRST) * k / SPREAD)) "$@"
	done
}

sweep_over run trainsim "${RUN[@]}"
sweep_over run libconfig "${RUN[@]}"
sweep_over sweep trainsim "${SWEEP[@]}"
sweep_over sweep libconfig "${SWEEP[@]}"
checks=$((checks + runs))
echo "failalloc: $runs runs with one allocation failing;" \
	"$libconfig_crashes crashed inside libconfig (accepted, see the top of this file)"
[ "$fails" -eq 0 ] || { echo "failalloc: $fails of $checks checks failed"; exit 1; }
echo "failalloc: all $checks checks passed"
