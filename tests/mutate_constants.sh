#!/usr/bin/env bash
# Which named modelling constants no independent test pins: each constant is
# moved by +10 % and by -10 % in a copy of the source tree, the copy's unit
# tests (ctest -L unit: the Check suites, no golden output, no validation
# table) are built and run, and the mutation is reported KILLED (with the
# suites that failed) or SURVIVED. A survivor is a constant that a 10 % error
# in would go unseen by every test but the goldens.
#
# The constants: every `value = X;` of configs/calibration/compute.cfg (a
# decimal number, or one with a unit such as "73.59 us"; the integer tile
# sizes and a constant at zero, which 10 % does not move, are left out), and every
# `#define NAME <decimal literal>` of sim/work/*.c and sim/net/*.c
# (integer counts such as XENT_FWD_KERNELS 8u, sizes and limits (MAX_*),
# and numerical grids (GRID_*) are not modelling figures a 10 % move
# applies to, and are left out). configs/calibration/bands.cfg and loso.cfg
# are outputs of `trainsim validate` (the bands and the refits), not
# constants of the model.
#
# Usage: bash tests/mutate_constants.sh SOURCE_DIR [WORK_DIR] [PATTERN]
#   WORK_DIR (default: a new temporary folder) holds the copy and its build;
#   PATTERN (an extended regular expression) keeps the constants whose name
#   matches. Not part of `make test` or ctest: about 2 x (constants) builds
#   and unit-suite runs (`cmake --build build --target mutate-constants`).
#   TS_MUTATE_JOBS sets the build and ctest parallelism (default 2).
# Prints one line per mutation and a summary; exit 0 (it reports, it does
# not judge), 1 when the unmutated copy does not build. Suites that the
# unmutated copy already fails are named and left out of every verdict.
# SPDX-License-Identifier: MIT
set -u
SRC=$(cd "${1:?usage: mutate_constants.sh SOURCE_DIR [WORK_DIR] [PATTERN]}" && pwd)
WORK=${2:-$(mktemp -d)}
PATTERN=${3:-.}
JOBS=${TS_MUTATE_JOBS:-2}
mkdir -p "$WORK/src"
WORK=$(cd "$WORK" && pwd)

# the tracked files as they are in the working tree
(cd "$SRC" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$WORK/src"
cmake -S "$WORK/src" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release >"$WORK/configure.log" 2>&1 ||
	{ echo "mutate: configure failed, see $WORK/configure.log"; exit 1; }

# the constants: FILE<TAB>LINE<TAB>NAME<TAB>TEXT (the literal as written)
python3 - "$WORK/src" >"$WORK/constants.tsv" <<'PY'
import glob, os, re, sys
src = sys.argv[1]
cal = os.path.join(src, "configs/calibration/compute.cfg")
name = None
for i, line in enumerate(open(cal), 1):
    m = re.match(r"^([A-Za-z_][\w-]*)\s*=\s*\{", line)
    if m:
        name = m.group(1)
    m = re.match(r'^\s*value\s*=\s*"?([-+]?\d+\.\d+(?:[eE][-+]?\d+)?)', line)
    if m and name and float(m.group(1)) != 0:
        print("configs/calibration/compute.cfg\t%d\t%s\t%s" % (i, name, m.group(1)))
for f in sorted(glob.glob(os.path.join(src, "sim/work/*.c")) + glob.glob(os.path.join(src, "sim/net/*.c"))):
    for i, line in enumerate(open(f), 1):
        m = re.match(r"^#define\s+([A-Z][A-Z0-9_]*)\s+\(?(\d+\.\d*(?:[eE][-+]?\d+)?)\)?\s*(?:/\*.*)?$", line)
        if m and float(m.group(2)) != 0 and not re.match(r"(MAX_|MIN_|GRID_|HF_MAX)", m.group(1)):
            print("%s\t%d\t%s\t%s" % (os.path.relpath(f, src), i, m.group(1), m.group(2)))
PY

# run_unit TAG: build and run the unit suites; the failed suites' names on stdout
run_unit() {
	if ! cmake --build "$WORK/build" -j "$JOBS" >"$WORK/build-$1.log" 2>&1; then
		echo "(build failed)"
		return
	fi
	(cd "$WORK/build" && ctest -L unit -j "$JOBS" --timeout 900 >"$WORK/ctest-$1.log" 2>&1)
	sed -n 's/^[[:space:]]*[0-9]* - \([A-Za-z0-9_]*\) (.*/\1/p' "$WORK/ctest-$1.log" | tr '\n' ' '
}

# suites the unmutated copy already fails are left out of the verdicts
base=$(run_unit base)
case $base in
"(build failed)"*)
	echo "mutate: the unmutated copy does not build, see $WORK/build-base.log"
	exit 1
	;;
?*) echo "mutate: the unmutated copy already fails $base; those suites do not count" ;;
esac

killed=0
survived=0
total=0
while IFS=$'\t' read -r file line name text; do
	[[ $name =~ $PATTERN ]] || continue
	for f in 1.1 0.9; do
		total=$((total + 1))
		new=$(python3 -c 'import sys; t, f = sys.argv[1], float(sys.argv[2])
v = float(t) * f
s = "%.6g" % v
print(s if ("." in s or "e" in s) else s + ".0")' "$text" "$f")
		cp "$WORK/src/$file" "$WORK/orig"
		python3 - "$WORK/src/$file" "$line" "$text" "$new" <<'PY'
import sys
path, line, old, new = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
lines = open(path).read().split("\n")
assert old in lines[line - 1], (path, line, old)
lines[line - 1] = lines[line - 1].replace(old, new, 1)
open(path, "w").write("\n".join(lines))
PY
		failed=$(run_unit "$name-$f")
		for b in $base; do failed=${failed//$b /}; done
		cp "$WORK/orig" "$WORK/src/$file"
		if [ -n "$failed" ]; then
			killed=$((killed + 1))
			printf 'KILLED    %-28s x%s (%s -> %s): %s\n' "$name" "$f" "$text" "$new" "$failed"
		else
			survived=$((survived + 1))
			printf 'SURVIVED  %-28s x%s (%s -> %s)  %s:%s\n' "$name" "$f" "$text" "$new" "$file" "$line"
		fi
	done
done <"$WORK/constants.tsv"
# rebuild the copy as it was
cmake --build "$WORK/build" -j "$JOBS" >/dev/null 2>&1
echo "mutate: $total mutations of $(wc -l <"$WORK/constants.tsv") constants: $killed killed, $survived survived (work: $WORK)"
