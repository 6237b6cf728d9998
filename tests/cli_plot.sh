#!/bin/bash
# trainsim plot renders every kind (scaling, breakdown, frontier, memory from
# a two-axis sweep, compare from a compare CSV) as PNG, SVG and PDF: the file
# starts with its format's magic bytes and gnuplot printed nothing (trainsim
# passes its warnings on to stderr). Scaling draws a series per value of the
# other axis ("tp = 2") with the x axis named by its column and unit, and
# takes --title, --x, --series, --log-x; bars are labelled with the axes'
# names. Skipped (exit 77) without gnuplot.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
if ! command -v gnuplot >/dev/null; then
	echo "SKIP: gnuplot is not installed (apt-get install gnuplot-nox); trainsim plot needs it"
	exit 77
fi
EX="$SRC/examples/4gpu-vs-16node"
cat >"$TMP/sweep.cfg" <<EOF
base = "$SRC/examples/scaling-sweep/base.cfg";
axes = { nodes = [1, 2, 4]; parallel = { tp = [1, 2]; }; };
EOF
"$BIN" sweep "$TMP/sweep.cfg" -o "$TMP/r.csv" 2>"$TMP/sweep.err" || fail "sweep: $(cat "$TMP/sweep.err")"
"$BIN" compare "$EX/box-4xa100.cfg" "$EX/dgx16-ib.cfg" "$EX/dgx16-10gbe.cfg" --format csv \
	>"$TMP/cmp.csv" || fail "compare --format csv failed"

# draw NAME KIND CSV FORMAT [OPTIONS...]: exit 0, nothing on stderr, the
# magic bytes of FORMAT at the start of $TMP/NAME.FORMAT
draw() {
	local name=$1 kind=$2 csv=$3 fmt=$4 out
	shift 4
	out="$TMP/$name.$fmt"
	checks=$((checks + 1))
	if ! "$BIN" plot "$kind" "$csv" -o "$out" "$@" 2>"$TMP/$name.err"; then
		fail "plot $kind -o .$fmt $*: $(head -c 400 "$TMP/$name.err")"
		return
	fi
	[ -s "$TMP/$name.err" ] && fail "plot $kind -o .$fmt $*: gnuplot said: $(head -c 400 "$TMP/$name.err")"
	case $fmt in
	png) [ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "plot $kind: $out is no PNG" ;;
	pdf) [ "$(head -c 5 "$out")" = "%PDF-" ] || fail "plot $kind: $out is no PDF" ;;
	svg) head -c 200 "$out" | grep -q '^<?xml' && grep -q '<svg' "$out" ||
		fail "plot $kind: $out is no SVG" ;;
	esac
}

for fmt in png svg pdf; do
	for k in scaling breakdown frontier memory; do
		draw "$k" "$k" "$TMP/r.csv" "$fmt"
	done
	draw compare compare "$TMP/cmp.csv" "$fmt"
done

# one row (run --format csv): one point, still no gnuplot warning
"$BIN" run "$SRC/configs/scenarios/default.cfg" --format csv >"$TMP/one.csv"
for k in scaling breakdown frontier memory; do
	draw "one_$k" "$k" "$TMP/one.csv" png
done

# what the SVGs say (gnuplot writes each text in a tspan)
has() { # has FILE TEXT WHY
	checks=$((checks + 1))
	grep -qF -- "$2" "$TMP/$1" || fail "$1: no '$2' ($3)"
}
has scaling.svg ">tp = 1<" "a series per tp"
has scaling.svg ">tp = 2<" "a series per tp"
has scaling.svg "nodes (count)" "the x axis names the sweep axis and its unit"
has scaling.svg "GPT-3 1.3B DP on DGX A100" "the default title names the scenario"
has scaling.svg "ideal, per series" "the ideal lines"
has breakdown.svg "nodes=4 tp=2" "bars labelled with the axes' names"
has breakdown.svg "sweep points: nodes, tp" "the x axis names the axes"
has compare.svg "16 nodes on 10 GbE" "a bar per scenario"
has compare.svg "relative to 4x A100 box" "relative to the first scenario"
checks=$((checks + 1))
grep -q "configuration" "$TMP/breakdown.svg" && fail "breakdown.svg still says 'configuration'"

draw opts scaling "$TMP/r.csv" svg --title "Slide 3: scaling" --x gpus --series parallel.tp --log-x
has opts.svg ">Slide 3: scaling<" "--title"
has opts.svg "GPUs (count)" "--x gpus"
has opts.svg ">tp = 2<" "--series parallel.tp"
draw swap scaling "$TMP/r.csv" svg --x parallel.tp --series nodes
has swap.svg ">nodes = 4<" "--series nodes"

# bad options: one line naming the option
bad() { # bad CODE NEEDLE ARGS...
	local code=$1 needle=$2 rc
	shift 2
	checks=$((checks + 1))
	"$BIN" plot "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ "$rc" -eq "$code" ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] &&
		grep -qF -- "$needle" "$TMP/bad.err" ||
		fail "plot $*: exit $rc, expected $code with '$needle': $(head -c 400 "$TMP/bad.err")"
	[ -e "$TMP/bad.png" ] && fail "plot $*: left an image"
}
bad 2 '--x: '"$TMP"'/r.csv: found no column "bogus"' scaling "$TMP/r.csv" --x bogus -o "$TMP/bad.png"
bad 2 '--series: '"$TMP"'/r.csv: found no column "pp"' scaling "$TMP/r.csv" --series parallel.tp,pp -o "$TMP/bad.png"
bad 1 '--log-x: found it with plot breakdown, expected it with plot scaling only' \
	breakdown "$TMP/r.csv" --log-x -o "$TMP/bad.png"
bad 1 'expected a name ending in .png, .svg or .pdf' scaling "$TMP/r.csv" -o "$TMP/bad.jpg"
# a title is one line: a newline would end gnuplot's string and start a command
bad 1 '--title: found a control character (0x0a) at byte 2, expected one line of text' \
	scaling "$TMP/r.csv" --title "$(printf 'x\nsystem "touch %s/pwn"' "$TMP")" -o "$TMP/bad.png"
checks=$((checks + 1))
[ -e "$TMP/pwn" ] && fail "a newline in --title ran a gnuplot command"
printf 'a,b\n1,2\n' >"$TMP/odd.csv"
bad 2 'found no "name" column, expected the CSV of trainsim compare --format csv' compare "$TMP/odd.csv" -o "$TMP/bad.png"
finish
