#!/bin/bash
# The installed library and tool, moved after installation: `cmake --install`
# into a temporary prefix, the prefix moved elsewhere, then
#  - bin/trainsim run finds its data next to itself (a model that exists only
#    in the moved share/trainsim/ proves it is not the source tree's);
#  - libtrainsim.so exports the functions trainsim.h declares and nothing else;
#  - examples/library builds with `pkg-config --cflags --libs trainsim` (and
#    statically against libtrainsim.a) and prints the iteration time that
#    `trainsim run --format json` reports;
#  - the build tree's binary falls back to the source tree; with no data
#    anywhere, the error names TS_DATA_DIR, ../share/trainsim and the source
#    tree.
# usage: install.sh BUILD_DIR SOURCE_DIR C_COMPILER
# SPDX-License-Identifier: MIT
set -u
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
CC=${3:-cc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
unset TS_DATA_DIR

cmake --install "$BUILD" --prefix "$TMP/first" >"$TMP/install.log" 2>&1 ||
	{ cat "$TMP/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in bin/trainsim include/trainsim.h lib/libtrainsim.so lib/libtrainsim.a \
	lib/pkgconfig/trainsim.pc share/trainsim/configs/hardware share/trainsim/configs/clusters \
	share/trainsim/configs/datasets share/trainsim/models share/trainsim/plots; do
	[ -e "$TMP/first/$f" ] || fail "cmake --install put no $f in the prefix"
done
mv "$TMP/first" "$TMP/moved"
P=$TMP/moved
DATA=$P/share/trainsim

# A model and a scenario that only the moved prefix has.
sed 's/^name = .*/name = "installed-only";/' "$SRC/models/gpt3-1.3b.cfg" >"$DATA/models/installed-only.cfg"
cat >"$TMP/s.cfg" <<'CFG'
name = "installed prefix";
model = "installed-only";
cluster = "dgx-a100-80gb";
nodes = 1;
gpus_per_node = 8;
training = { framework = "megatron"; global_batch = 64; micro_batch = 4; seq_len = 2048;
             precision = "bf16"; iterations = 3; };
parallel = { tp = 2; pp = 1; dp = 4; };
CFG
cd "$TMP" || exit 1
"$P/bin/trainsim" run s.cfg --format json >run.json 2>run.err ||
	fail "moved bin/trainsim run: exit $?: $(head -c 600 run.err)"
want=$(python3 -c 'import json,sys; print("%.9g" % json.load(open(sys.argv[1]))["iteration_time_s"])' run.json 2>/dev/null)
[ -n "$want" ] || fail "trainsim run --format json gave no iteration_time_s"

# Exports: exactly the TS_API functions of trainsim.h.
nm -D --defined-only "$P/lib/libtrainsim.so" | awk '$2 ~ /[TDBRW]/ {sub(/@.*/, "", $3); print $3}' | sort >exports.txt
grep -oE '^TS_API [^(]*\b(ts_[a-z_]+)\(' "$P/include/trainsim.h" | grep -oE 'ts_[a-z_]+\($' |
	tr -d '(' | sort >declared.txt
[ -s declared.txt ] || fail "no TS_API function found in trainsim.h"
if ! diff declared.txt exports.txt >exports.diff; then
	fail "libtrainsim.so exports differ from trainsim.h's TS_API functions: $(tr '\n' ' ' <exports.diff)"
fi

# examples/library through pkg-config, against the shared library.
export PKG_CONFIG_PATH=$P/lib/pkgconfig
flags=$(pkg-config --cflags --libs trainsim) || fail "pkg-config --cflags --libs trainsim"
# shellcheck disable=SC2086
"$CC" "$SRC/examples/library/iteration_time.c" $flags -o it 2>cc.err ||
	fail "building examples/library with pkg-config: $(head -c 600 cc.err)"
got=$(LD_LIBRARY_PATH=$P/lib ./it s.cfg 2>it.err) || fail "examples/library: $(head -c 600 it.err)"
[ -n "$want" ] && [ "$got" != "$want" ] &&
	fail "examples/library printed \"$got\", trainsim run's iteration_time_s is $want"

# ... and statically against libtrainsim.a (the data then from TS_DATA_DIR).
static=$(pkg-config --static --libs trainsim | sed 's/-ltrainsim//')
# shellcheck disable=SC2086
"$CC" "$SRC/examples/library/iteration_time.c" $(pkg-config --cflags trainsim) \
	"$P/lib/libtrainsim.a" $static -o it-static 2>cc.err ||
	fail "building examples/library against libtrainsim.a: $(head -c 600 cc.err)"
got=$(TS_DATA_DIR=$DATA ./it-static s.cfg 2>it.err) || fail "static example: $(head -c 600 it.err)"
[ -n "$want" ] && [ "$got" != "$want" ] &&
	fail "the static example printed \"$got\", trainsim run's iteration_time_s is $want"

# examples/library/README.md quotes the program's runs: its transcripts must
# be what the program and trainsim print (the README said 6.328 where both
# printed 6.4885)
cp it iteration_time
TS_DATA_DIR=$SRC LD_LIBRARY_PATH=$P/lib ./iteration_time "$SRC/configs/scenarios/default.cfg" >lib_it.out 2>&1
TS_DATA_DIR=$SRC "$P/bin/trainsim" run "$SRC/configs/scenarios/default.cfg" --format json |
	grep '"iteration_time_s"' >lib_run.out
LD_LIBRARY_PATH=$P/lib ./iteration_time missing.cfg >lib_err.out 2>&1
python3 - "$SRC/examples/library/README.md" lib_it.out lib_run.out lib_err.out <<'PY' ||
import sys
readme = open(sys.argv[1]).read()
it, run, err = (open(p).read().rstrip("\n") for p in sys.argv[2:5])
want = [
    "    $ ./iteration_time configs/scenarios/default.cfg\n    " + it,
    "    $ trainsim run configs/scenarios/default.cfg --format json | grep '\"iteration_time_s\"'\n    " + run,
    "    $ ./iteration_time missing.cfg\n    " + err,
]
missing = [w for w in want if w not in readme]
sys.exit("README lacks:\n" + "\n".join(missing) if missing else 0)
PY
	fail "examples/library/README.md does not quote the program's output"

# The version: the binary's, the library's (through the binary) and the .pc's agree.
checks_v=$("$P/bin/trainsim" --version)
[ "$checks_v" = "trainsim $(pkg-config --modversion trainsim)" ] ||
	fail "trainsim --version says \"$checks_v\", trainsim.pc $(pkg-config --modversion trainsim)"

# The build tree's binary, with no TS_DATA_DIR and no share/ next to it, uses
# the source tree.
"$BUILD/trainsim" list models --format csv >models.csv 2>models.err ||
	fail "build/trainsim without TS_DATA_DIR: $(head -c 400 models.err)"
grep -q '^gpt3-1.3b,' models.csv || fail "build/trainsim without TS_DATA_DIR lists no gpt3-1.3b"
grep -q '^installed-only,' models.csv && fail "build/trainsim used the installed prefix's data"

# No data anywhere: the message names the three places.
TS_DATA_DIR=$TMP/none "$P/bin/trainsim" list gpus >/dev/null 2>none.err
rc=$?
[ "$rc" -eq 2 ] || fail "TS_DATA_DIR=nowhere: exit $rc, expected 2"
for w in "TS_DATA_DIR=$TMP/none" "$DATA" "$SRC" "configs/hardware"; do
	grep -qF -- "$w" none.err || fail "the no-data message lacks \"$w\": $(cat none.err)"
done

[ "$fails" -eq 0 ] && echo "install: the moved prefix runs, exports the API only, builds the example ($want s)"
exit $((fails > 0))
