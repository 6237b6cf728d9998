#!/usr/bin/env bash
# Outputs never destroy what they should not: every output path of every
# command checked against every input before any work (also through a
# symlink), directories and device nodes refused, a failed run removing only
# its own temporary file, a sweep CSV resumed only with the base scenario,
# calibration and version that made its rows, one writer per sweep CSV, and
# a write error naming the file and the reason.
# Usage: bash cli_outputs.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

# refused CODE 'NEEDLE|...' ARGS...: trainsim ARGS (in $TMP) exits CODE with
# one line on stderr holding every needle and nothing on stdout.
refused() {
	local code=$1 needles=$2 rc s
	shift 2
	checks=$((checks + 1))
	(cd "$TMP" && timeout 60 "$BIN" "$@") >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne "$code" ]; then
		fail "trainsim $*: exit $rc, expected $code: $(head -c 400 "$TMP/err")"
		return
	fi
	[ -s "$TMP/out" ] && fail "trainsim $*: printed on stdout: $(head -c 200 "$TMP/out")"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "trainsim $*: not one line on stderr: $(cat "$TMP/err")"
	IFS='|' read -ra ns <<<"$needles"
	for s in "${ns[@]}"; do
		grep -qF -- "$s" "$TMP/err" || fail "trainsim $*: message lacks '$s': $(cat "$TMP/err")"
	done
}

# same FILE COPY: FILE still holds what COPY holds
same() {
	checks=$((checks + 1))
	cmp -s "$TMP/$1" "$TMP/$2" || fail "$1 was changed"
}

# only NAME...: $TMP/out.d holds exactly these entries (no temporary file left)
only() {
	checks=$((checks + 1))
	local got want
	got=$(cd "$TMP/out.d" && ls -A | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "out.d holds '$got', expected '$want'"
}

cat >"$TMP/s.cfg" <<'EOF'
model = "gpt3-1.3b";
cluster = "dgx-a100-80gb";
nodes = 1;
gpus_per_node = 8;
training = { global_batch = 64; micro_batch = 4; iterations = 2; };
EOF
cp "$TMP/s.cfg" "$TMP/s.keep"
printf 'gemm_k0 = { value = 0.6; };\n' >"$TMP/cal.cfg"
cp "$TMP/cal.cfg" "$TMP/cal.keep"
mkdir "$TMP/out.d"

# --- 1. an output naming an input is refused before any work, input kept
refused 1 '--trace: found "s.cfg", the same file as the input "s.cfg"' run s.cfg --trace s.cfg
same s.cfg s.keep
ln -s s.cfg "$TMP/s-link.json"
refused 1 '--trace: found "s-link.json", the same file as the input "s.cfg"' run s.cfg --trace s-link.json
same s.cfg s.keep
refused 1 '--trace: found "./cal.cfg", the same file as the input "cal.cfg" (--calib)' \
	run s.cfg --calib cal.cfg --trace ./cal.cfg
same cal.cfg cal.keep
printf 'base = "s.cfg";\naxes = { nodes = [1, 2]; };\n' >"$TMP/sw.cfg"
cp "$TMP/sw.cfg" "$TMP/sw.keep"
refused 1 '-o: found "cal.cfg", the same file as the input "cal.cfg" (--calib)' \
	sweep sw.cfg --calib cal.cfg -o cal.cfg
same cal.cfg cal.keep
refused 1 '-o: found "s-link.json", the same file as the input "s.cfg" (base)' \
	sweep sw.cfg -o s-link.json
same s.cfg s.keep
"$BIN" run "$TMP/s.cfg" --format csv >"$TMP/r.csv" 2>/dev/null
cp "$TMP/r.csv" "$TMP/r.keep"
ln -s r.csv "$TMP/r-link.svg"
refused 1 '-o: found "r-link.svg", the same file as the input "r.csv"' plot scaling r.csv -o r-link.svg
same r.csv r.keep
printf '# nccl-tests\n' >"$TMP/nccl.txt"
refused 1 '-o: found "nccl.txt", the same file as the input "nccl.txt" (--nccl-tests)' \
	calibrate s.cfg --nccl-tests nccl.txt -o nccl.txt
# a model or cluster file the scenario names, and the bundled data
cp "$SRC/models/gpt3-1.3b.cfg" "$TMP/m.cfg"
cp "$TMP/m.cfg" "$TMP/m.keep"
printf 'model = "m.cfg";\ncluster = "dgx-a100-80gb";\ntraining = { global_batch = 64; micro_batch = 4; };\n' >"$TMP/pm.cfg"
refused 1 '--trace: found "m.cfg", the same file as the input "m.cfg" (model)' run pm.cfg --trace m.cfg
same m.cfg m.keep
cp "$SRC/configs/clusters/dgx-a100-80gb.cfg" "$TMP/c.cfg"
cp "$TMP/c.cfg" "$TMP/c.keep"
printf 'model = "gpt3-1.3b";\ncluster = "c.cfg";\ntraining = { global_batch = 64; micro_batch = 4; };\n' >"$TMP/pc.cfg"
refused 1 '--trace: found "c.cfg", the same file as the input "c.cfg" (cluster)' run pc.cfg --trace c.cfg
same c.cfg c.keep
printf 'base = "pm.cfg";\naxes = { nodes = [1, 2]; };\n' >"$TMP/swm.cfg"
refused 1 '-o: found "m.cfg", the same file as the input "m.cfg" (model)' sweep swm.cfg -o m.cfg
same m.cfg m.keep
mkdir "$TMP/data"
cp -r "$SRC/configs" "$SRC/models" "$TMP/data/"
TS_DATA_DIR=$TMP/data refused 1 "inside the folder \"$TMP/data/models\" (bundled data) of the inputs" \
	run s.cfg --trace data/models/../models/new.cfg
checks=$((checks + 1))
[ -e "$TMP/data/models/new.cfg" ] && fail "run --trace wrote into the bundled models"
# a directory, a device node or a FIFO is refused, not written into or removed
refused 1 '--trace: found "out.d", a directory' run s.cfg --trace out.d
refused 1 '--trace: found "/dev/null", a device node, expected a regular file' run s.cfg --trace /dev/null
checks=$((checks + 1))
[ -c /dev/null ] || fail "/dev/null is gone"
mkfifo "$TMP/fifo"
refused 1 '-o: found "fifo", a FIFO' sweep sw.cfg -o fifo
mkdir "$TMP/d.svg"
refused 1 '-o: found "d.svg", a directory' plot scaling r.csv -o d.svg
# the folder is checked before the work, not after it; like every other
# refusal of an output it is a usage error, exit 1 (README.md, "Outputs")
refused 1 '-o: found "no/such/cal.cfg", whose folder "no/such" does not exist' \
	calibrate s.cfg --measured-iteration-s 0.5 -o no/such/cal.cfg
refused 1 '-o: found "no/such/p.svg", whose folder "no/such" does not exist' \
	plot scaling r.csv -o no/such/p.svg
# validate --bands/--loso are checked before minutes of refitting: a
# directory, a missing folder, standard output and bundled data other than
# the table it regenerates are refused, leaving no FILE.tmp; a planted
# FILE.tmp (or a symlink by that name) is never opened
printf 'victim\n' >"$TMP/victim"
cp "$TMP/victim" "$TMP/victim.keep"
ln -s victim "$TMP/out.d.tmp"
refused 1 '--loso: found "out.d", a directory' validate --loso out.d
refused 1 '--bands: found "no/such/b.cfg", whose folder "no/such" does not exist' \
	validate --bands no/such/b.cfg
refused 1 '--bands: found "-", expected a file' validate --bands -
refused 1 '--bands: found "'"$SRC"'/configs/calibration/x.cfg", inside the folder' \
	validate --bands "$SRC/configs/calibration/x.cfg"
same victim victim.keep
checks=$((checks + 1))
[ -e "$SRC/configs/calibration/x.cfg" ] && fail "validate --bands wrote into configs/"
rm "$TMP/out.d.tmp" "$TMP/victim" "$TMP/victim.keep"

# --- 2. a failed run removes only its temporary file: an existing trace,
# or someone's file behind a symlink, stays as it was
bad=(--set 'parallel.offload="cpu"')
printf 'old trace\n' >"$TMP/out.d/t.json"
printf 'not yours\n' >"$TMP/precious"
cp "$TMP/precious" "$TMP/precious.keep"
ln -s ../precious "$TMP/out.d/link.json"
refused 2 'parallel.offload' run s.cfg "${bad[@]}" --trace out.d/t.json
refused 2 'parallel.offload' run s.cfg "${bad[@]}" --trace out.d/link.json
checks=$((checks + 1))
[ "$(cat "$TMP/out.d/t.json")" = "old trace" ] || fail "a failed run changed or removed the old trace"
checks=$((checks + 1))
[ -L "$TMP/out.d/link.json" ] || fail "a failed run removed the symlink it was given"
same precious precious.keep
only t.json link.json
# success replaces the file in one step, leaving no temporary file
ok trace run "$TMP/s.cfg" --trace "$TMP/out.d/t.json"
py out.d/t.json 'import json, sys; assert json.load(open(sys.argv[1]))["traceEvents"]'
only t.json link.json
ok cal calibrate "$TMP/s.cfg" --measured-iteration-s 1.0 -o "$TMP/out.d/c.cfg"
only t.json link.json c.cfg
# a symlink is followed: its target gets the new file, the link stays
mkdir -p "$TMP/tgt.d"
printf 'old\n' >"$TMP/tgt.d/target.json"
ln -s ../tgt.d/target.json "$TMP/out.d/l2.json"
ok trace-link run "$TMP/s.cfg" --trace "$TMP/out.d/l2.json"
checks=$((checks + 1))
[ -L "$TMP/out.d/l2.json" ] || fail "a successful run replaced the symlink it was given"
py tgt.d/target.json 'import json, sys; assert json.load(open(sys.argv[1]))["traceEvents"]'
checks=$((checks + 1))
[ -z "$(ls -A "$TMP/tgt.d" | grep -v '^target.json$')" ] || fail "a temporary file was left beside the target"
rm "$TMP/out.d/l2.json"
# a link into /proc (as /dev/stdout is) stands for a descriptor: refused, not
# replaced (the test makes its own such link, so no system file is at stake)
ln -s /proc/self/fd/1 "$TMP/out.d/fd1"
refused 1 '--trace: found "out.d/fd1", a file descriptor of this process|use - for standard output' \
	run s.cfg --trace out.d/fd1
checks=$((checks + 1))
[ -L "$TMP/out.d/fd1" ] || fail "the link into /proc was replaced"
rm "$TMP/out.d/fd1"
refused 1 '--trace: found "/proc/self/fd/1", a file descriptor of this process' \
	run s.cfg --trace /proc/self/fd/1
ln -s ../nowhere/x.json "$TMP/out.d/dangling.json"
refused 1 'a symlink whose target does not exist' run s.cfg --trace out.d/dangling.json
rm "$TMP/out.d/dangling.json"

# --- 3. one key on two axes is refused naming both lines
cat >"$TMP/dup.cfg" <<'EOF'
base = "s.cfg";
axes = { "parallel.tp" = [1, 2];
         parallel = { tp = [4, 8]; }; };
EOF
refused 2 'dup.cfg:3: parallel.tp: found a second axis of this key (the first is on line 2)' sweep dup.cfg
cat >"$TMP/dup2.cfg" <<'EOF'
base = "s.cfg";
axes = { training = { micro_batch = [1, 2]; };
         nodes = [1];
         "training.micro_batch" = [4]; };
EOF
refused 2 'dup2.cfg:4: training.micro_batch:|line 2' sweep dup2.cfg

# --- 4. --resume only over rows of the same base, calibration and version
"$BIN" sweep "$TMP/sw.cfg" -o "$TMP/r1.csv" 2>/dev/null
cp "$TMP/r1.csv" "$TMP/r1.keep"
checks=$((checks + 1))
head -n 1 "$TMP/r1.csv" | grep -qE '^point,.*,sweep_digest$' ||
	fail "the header is not the first line, or sweep_digest not its last column: $(head -n 1 "$TMP/r1.csv")"
checks=$((checks + 1))
[ "$(tail -n +2 "$TMP/r1.csv" | grep -cE ',base [0-9a-f]{16}; calibration [0-9a-f]{16}; version [^;,]+$')" -eq \
	"$(($(wc -l <"$TMP/r1.csv") - 1))" ] || fail "a row without its digest last: $(tail -n 1 "$TMP/r1.csv")"
# the plot reader takes the file as it is
if command -v gnuplot >/dev/null; then
	checks=$((checks + 1))
	"$BIN" plot scaling "$TMP/r1.csv" -o "$TMP/p.svg" 2>"$TMP/p.err" && grep -q "<svg" "$TMP/p.svg" ||
		fail "plot of a sweep -o file: $(cat "$TMP/p.err")"
fi
# a comment in the base changes no row: resumed, unchanged
printf '# a comment\n' >>"$TMP/s.cfg"
checks=$((checks + 1))
"$BIN" sweep "$TMP/sw.cfg" -o "$TMP/r1.csv" --resume 2>"$TMP/e" || fail "resume after a comment: $(cat "$TMP/e")"
same r1.csv r1.keep
# another batch in the base: refused, file kept; --force starts over
sed -i 's/global_batch = 64/global_batch = 128/' "$TMP/s.cfg"
refused 2 'r1.csv:2: sweep_digest: found rows made before the base scenario s.cfg changed|--resume --force starts over' \
	sweep sw.cfg -o r1.csv --resume
same r1.csv r1.keep
"$BIN" sweep "$TMP/sw.cfg" -o "$TMP/fresh.csv" 2>/dev/null
checks=$((checks + 1))
"$BIN" sweep "$TMP/sw.cfg" -o "$TMP/r1.csv" --resume --force 2>"$TMP/e" || fail "--resume --force: $(cat "$TMP/e")"
same r1.csv fresh.csv
checks=$((checks + 1))
cmp -s "$TMP/r1.csv" "$TMP/r1.keep" && fail "the new base changed no row: the case above tests nothing"
# another calibration
cp "$TMP/r1.csv" "$TMP/r1.keep"
refused 2 'found rows made before the calibration changed' sweep sw.cfg -o r1.csv --resume --calib cal.cfg
same r1.csv r1.keep
# the CSV of stdout is the file's, digests included: resumed, unchanged
"$BIN" sweep "$TMP/sw.cfg" >"$TMP/stdout.csv" 2>/dev/null
same stdout.csv r1.csv
checks=$((checks + 1))
"$BIN" sweep "$TMP/sw.cfg" -o "$TMP/stdout.csv" --resume 2>"$TMP/e" || fail "resume of stdout's CSV: $(cat "$TMP/e")"
same stdout.csv r1.csv
# the digest line above the header that trainsim wrote before: refused, saying so
{ printf '# trainsim sweep digest: base 0123456789abcdef, calibration 0123456789abcdef, version 0.1.0\n'; cat "$TMP/r1.csv"; } >"$TMP/old.csv"
cp "$TMP/old.csv" "$TMP/old.keep"
refused 2 'old.csv:1: found the digest line that trainsim wrote above the header before the digest became the column sweep_digest' \
	sweep sw.cfg -o old.csv --resume
same old.csv old.keep
refused 1 '--force: found it without --resume' sweep sw.cfg -o r1.csv --force
# another sweep's header: one line
printf 'base = "s.cfg";\naxes = { gpus_per_node = [4, 8]; };\n' >"$TMP/other.cfg"
refused 2 'expected the header of sweep other.cfg' sweep other.cfg -o r1.csv --resume

printf 'a,b\n' >"$TMP/short.csv"
refused 2 'short.csv:1: found the header "a,b", expected the header of sweep sw.cfg' \
	sweep sw.cfg -o short.csv --resume

# --- two writers on one sweep CSV: the second is refused, no row torn
python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(30)
' "$TMP/r1.csv" "$TMP/locked" >/dev/null 2>&1 &
holder=$!
for _ in $(seq 1 500); do
	[ -e "$TMP/locked" ] && break
	sleep 0.01
done
refused 2 '-o: found "r1.csv" locked by another process' sweep sw.cfg -o r1.csv
refused 2 'locked by another process' sweep sw.cfg -o r1.csv --resume
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
same r1.csv r1.keep

# --- a write that fails (a file size limit: EFBIG, as ENOSPC on a full
# disk) names the file and the reason, in one line
big() {
	(
		trap '' XFSZ
		ulimit -f 1
		cd "$TMP" && "$BIN" "$@"
	) >/dev/null 2>"$TMP/big.err"
}
checks=$((checks + 1))
big run s.cfg --trace out.d/big.json
rc=$?
[ "$rc" -eq 2 ] && grep -qF -- '--trace: writing "out.d/big.json" failed (File too large)' "$TMP/big.err" &&
	[ "$(wc -l <"$TMP/big.err")" -eq 1 ] || fail "run --trace past the size limit: exit $rc: $(cat "$TMP/big.err")"
only t.json link.json c.cfg
cat >"$TMP/long.cfg" <<'EOF'
base = "s.cfg";
axes = { nodes = [1, 2, 3, 4, 5, 6, 7, 8]; training = { micro_batch = [1, 2, 4, 8]; }; };
EOF
checks=$((checks + 1))
big sweep long.cfg -o out.d/big.csv
rc=$?
[ "$rc" -eq 2 ] && grep -qF -- '-o: writing "out.d/big.csv" failed (File too large)' "$TMP/big.err" &&
	[ "$(wc -l <"$TMP/big.err")" -eq 1 ] || fail "sweep -o past the size limit: exit $rc: $(cat "$TMP/big.err")"
rm -f "$TMP/out.d/big.csv" # its whole rows stay, for --resume

# a full disk behind standard output: the reason, not just "failed"
if [ -w /dev/full ]; then
	checks=$((checks + 1))
	"$BIN" run "$TMP/s.cfg" >/dev/full 2>"$TMP/full.err"
	rc=$?
	[ "$rc" -eq 2 ] && grep -qF 'writing the report to standard output failed (No space left on device)' "$TMP/full.err" ||
		fail "run >/dev/full: exit $rc: $(cat "$TMP/full.err")"
fi

# --- gnuplot failing: one line saying what failed (gnuplot's last line),
# and no temporary file left in /tmp (the data, settings and log files of
# that process; its log was once left behind)
if command -v gnuplot >/dev/null; then
	mkdir -p "$TMP/root/plots"
	ln -s "$SRC/configs" "$SRC/models" "$TMP/root/"
	cp "$SRC"/plots/*.gp "$TMP/root/plots/"
	printf 'load plotdir."/common.gp"\nplot datafile using 1:(nosuchvar) with lines\n' >"$TMP/root/plots/scaling.gp"
	checks=$((checks + 1))
	TS_DATA_DIR="$TMP/root" "$BIN" plot scaling "$TMP/r.csv" -o "$TMP/out.d/p.svg" >/dev/null 2>"$TMP/gp.err" &
	pid=$!
	wait $pid
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/gp.err")" -eq 1 ] &&
		grep -qF 'gnuplot failed on' "$TMP/gp.err" && grep -qF 'nosuchvar' "$TMP/gp.err" ||
		fail "a failing gnuplot: exit $rc: $(cat "$TMP/gp.err")"
	checks=$((checks + 1))
	left=$(ls -A /tmp | grep -E "^\.trainsim-(plot|plotset|gnuplot)\.trainsim-.*-$pid\." || true)
	[ -z "$left" ] || fail "a failing gnuplot left $left in /tmp"
	only t.json link.json c.cfg
	# a title opening with a quote is one gnuplot string (it ended the
	# string: gnuplot failed, exit 2)
	checks=$((checks + 1))
	"$BIN" plot scaling "$TMP/r.csv" --title "'x' a'b" -o "$TMP/out.d/q.svg" 2>"$TMP/q.err" &&
		grep -qF "'x' a'b" "$TMP/out.d/q.svg" || fail "plot --title \"'x' a'b\": $(cat "$TMP/q.err")"
	rm -f "$TMP/out.d/q.svg"
fi
finish
