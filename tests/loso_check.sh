#!/bin/bash
# configs/calibration/loso.cfg is what `trainsim validate --loso` writes:
# the five refits run again (about a minute on two cores, too slow for
# ctest; `cmake --build BUILD --target check-loso` runs it) and every number
# of the written table must match the committed one within 1e-4 relative
# and two units of its last printed decimal (the fits are deterministic; the
# margin covers another libm).
# SPDX-License-Identifier: MIT
BIN=$1
ROOT=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$ROOT" || exit 1
"$BIN" validate --loso "$TMP/loso.cfg" >"$TMP/out" 2>"$TMP/err" || {
	echo "check-loso: trainsim validate --loso failed: $(cat "$TMP/err")"
	exit 1
}
# every value after "= " (numbers, quoted names, true/false), in order
nums() { grep -v '^#' "$1" | grep -oE '= ([-+]?[0-9.]+(e[-+]?[0-9]+)?|"[^"]*"|true|false)' | cut -c3-; }
nums configs/calibration/loso.cfg >"$TMP/want"
nums "$TMP/loso.cfg" >"$TMP/have"
if ! paste -d' ' "$TMP/want" "$TMP/have" | awk '
	NF != 2 { bad = 1; print "different lengths"; exit }
	$1 ~ /^"|true|false/ { if ($1 != $2) { bad = 1; print "differ: " $1 " " $2 }; next }
	{ d = $1 - $2; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1;
	  if (d > 1e-4 * m + 2e-6) { bad = 1; print "differ: " $1 " " $2 } }
	END { exit bad }' || [ "$(wc -l <"$TMP/want")" != "$(wc -l <"$TMP/have")" ]; then
	echo "check-loso: configs/calibration/loso.cfg is not what trainsim validate --loso writes:"
	diff <(grep -v '^#' configs/calibration/loso.cfg) <(grep -v '^#' "$TMP/loso.cfg")
	echo "regenerate it: trainsim validate --loso configs/calibration/loso.cfg"
	exit 1
fi
cat "$TMP/out"
echo "check-loso: configs/calibration/loso.cfg is what trainsim validate --loso writes"
