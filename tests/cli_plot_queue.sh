#!/bin/bash
# trainsim plot queue: the timeline of trainsim queue --timeline on a
# hand-made backfill case (every row and both time-means worked out by
# hand) drawn as PNG, SVG and PDF, its key giving those means and its time
# axis a unit that suits the span; three synthetic weeks with node failures
# draws its down GPUs in days; a CSV that is no timeline, or whose times go
# back, is refused naming the column or line. The timeline checks need no
# gnuplot; the drawing checks do, and without it the test says so and
# exits 77 (skipped) after checking that trainsim plot names what is missing.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

# 2 nodes of 8 GPUs, EASY backfill: A (8 GPUs) runs 0-100; B (16) waits from
# 1 for A, runs 100-150; C (8, 30 s) backfills at 2, ends at 32; D (8, 200 s)
# would delay B, so it waits from 3 and runs 150-350.
cat >"$TMP/hand.csv" <<'CSV'
id,submit_s,gpus,duration_s,time_limit_s,user
A,0,8,100,100,ann
B,1,16,50,50,bo
C,2,8,30,30,ann
D,3,8,200,200,cy
CSV
ok hand.json queue "$TMP/hand.csv" --cluster dgx-h100 --nodes 2 --policy backfill \
	--timeline "$TMP/tl.csv" --format json --quiet
# rows t_s,busy_gpus,queued_jobs,down_gpus,utilisation, a row per change
py tl.csv '
import csv, sys
want = [(0, 8, 0), (1, 8, 1), (2, 16, 1), (3, 16, 2), (32, 8, 2), (100, 16, 1), (150, 8, 0),
        (350, 0, 0)]
rows = list(csv.DictReader(open(sys.argv[1])))
got = [(float(r["t_s"]), int(r["busy_gpus"]), int(r["queued_jobs"])) for r in rows]
if got != want:
    sys.exit("timeline %r, expected %r" % (got, want))
for r in rows:
    if int(r["down_gpus"]) or abs(float(r["utilisation"]) - int(r["busy_gpus"]) / 16) > 1e-6:
        sys.exit("row %r: utilisation is not busy / 16 GPUs" % r)
'

# the means over 0-350 s: busy 8x2 + 16x30 + 8x68 + 16x50 + 8x200 = 3440
# GPU-s of 16 x 350 (61.4 %, as the run's own utilisation); waiting
# 1x2 + 2x97 + 1x50 = 246 job-s over 350 s (0.70)
py hand.json '
import json, sys
j = json.load(open(sys.argv[1]))
if abs(j["utilisation"] - 3440 / 5600) > 1e-9:
    sys.exit("utilisation %r, expected 3440/5600" % j["utilisation"])
'

# three weeks of synthetic jobs on 32 nodes with node failures (seed 1:
# 6 of them): a longer timeline, with GPUs down
ok syn.json queue --synthetic 3000 --load 0.8 --sizes 1:4,8:2,16:1 --duration exp:21600 \
	--cluster dgx-h100 --nodes 32 --failures --seed 1 --timeline "$TMP/syn.csv" --format json \
	--quiet
py syn.csv '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
if len(rows) < 3000 or max(int(r["down_gpus"]) for r in rows) == 0:
    sys.exit("%d rows, no GPU down: expected a long timeline with failures" % len(rows))
span = float(rows[-1]["t_s"]) - float(rows[0]["t_s"])
if span < 10 * 86400:
    sys.exit("spans %.0f s, expected over 10 days (the axis in days)" % span)
'

# a CSV that is no timeline, a timeline whose time goes back: exit 2, one
# line naming the column or the line (checked before gnuplot is looked for)
bad() { # bad NEEDLE CSV
	local rc
	checks=$((checks + 1))
	rm -f "$TMP/bad.png"
	"$BIN" plot queue "$2" -o "$TMP/bad.png" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -qF -- "$1" "$TMP/bad.err" ||
		fail "plot queue $2: exit $rc, expected 2 with '$1': $(head -c 400 "$TMP/bad.err")"
	[ -e "$TMP/bad.png" ] && fail "plot queue $2: left an image"
}
if command -v gnuplot >/dev/null; then
	bad "hand.csv:1: found no column t_s, expected the CSV of trainsim queue --timeline" "$TMP/hand.csv"
	sed '6s/^32,/0.5,/' "$TMP/tl.csv" >"$TMP/back.csv"
	bad "back.csv:6: t_s: found 0.5 after 3, expected times in order" "$TMP/back.csv"
	sed '3s/,0.5$/,1.5/' "$TMP/tl.csv" >"$TMP/over.csv"
	bad 'over.csv:3: utilisation: found "1.5", expected a fraction from 0 to 1' "$TMP/over.csv"
else
	checks=$((checks + 1))
	"$BIN" plot queue "$TMP/tl.csv" -o "$TMP/q.png" 2>"$TMP/nognuplot.err" &&
		fail "plot queue without gnuplot: exit 0"
	grep -qF "found no gnuplot on PATH" "$TMP/nognuplot.err" ||
		fail "plot queue without gnuplot: $(head -c 300 "$TMP/nognuplot.err")"
	[ "$fails" -eq 0 ] || { finish; exit; }
	echo "SKIP: gnuplot is not installed (apt-get install gnuplot-nox): the timeline was" \
		"checked ($checks checks), the charts were not drawn"
	exit 77
fi

# draw NAME CSV FORMAT: exit 0, nothing on stderr, FORMAT's magic bytes
draw() {
	local name=$1 csv=$2 fmt=$3 out="$TMP/$1.$3"
	checks=$((checks + 1))
	if ! "$BIN" plot queue "$csv" -o "$out" "${@:4}" 2>"$TMP/$name.err"; then
		fail "plot queue $csv -o .$fmt: $(head -c 400 "$TMP/$name.err")"
		return
	fi
	[ -s "$TMP/$name.err" ] && fail "plot queue -o .$fmt: gnuplot said: $(head -c 400 "$TMP/$name.err")"
	case $fmt in
	png) [ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "plot queue: $out is no PNG" ;;
	pdf) [ "$(head -c 5 "$out")" = "%PDF-" ] || fail "plot queue: $out is no PDF" ;;
	svg) head -c 200 "$out" | grep -q '^<?xml' && grep -q '<svg' "$out" ||
		fail "plot queue: $out is no SVG" ;;
	esac
}
has() { # has FILE TEXT WHY (gnuplot writes each text in a tspan)
	checks=$((checks + 1))
	grep -qF -- "$2" "$TMP/$1" || fail "$1: no '$2' ($3)"
}
for fmt in png svg pdf; do
	draw hand "$TMP/tl.csv" $fmt
done
has hand.svg ">jobs waiting (mean 0.70)<" "the time-mean of the jobs waiting, 246/350"
has hand.svg ">GPUs busy (mean 61.4 %)<" "the time-mean of the GPUs busy, 3440/5600"
has hand.svg ">time (s)<" "a 350 s span in seconds"
has hand.svg ">Queue length and GPU utilisation<" "the default title"
checks=$((checks + 1))
grep -qF ">GPUs down<" "$TMP/hand.svg" && fail "hand.svg: a 'GPUs down' line where none was down"
draw syn "$TMP/syn.csv" svg --title "Three weeks on 32 nodes"
has syn.svg ">time (days)<" "a span over 10 days in days"
has syn.svg ">GPUs down<" "the failed nodes' GPUs"
has syn.svg ">Three weeks on 32 nodes<" "--title"
# the timeline spans the run (first submit to last end, failures of idle
# nodes after it left out), so its mean busy share is the run's utilisation
u=$(python3 -c 'import json, sys; print("%.1f" % (100 * json.load(open(sys.argv[1]))["utilisation"]))' "$TMP/syn.json")
has syn.svg ">GPUs busy (mean $u %)<" "the run's utilisation"
# one row: no empty x range warning (draw fails on anything on stderr)
head -2 "$TMP/tl.csv" >"$TMP/one.csv"
draw one "$TMP/one.csv" png
finish
