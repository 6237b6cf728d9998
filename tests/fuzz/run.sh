#!/bin/bash
# Bounded fuzzing run of one target (ctest -L fuzz, make fuzz): a seed corpus
# (bundled configs for fuzz_config, tests/fuzz/seeds/TARGET for the others),
# replay of the regression inputs, then SECONDS of fuzzing with the target's
# dictionary; fails on a crash. With a CORPUS directory the corpus is kept
# there and grows from run to run.
# SPDX-License-Identifier: MIT
# Usage: run.sh FUZZER_BINARY SOURCE_DIR SECONDS [CORPUS]
set -u
fuzzer=$1
src=$2
seconds=${3:-20}
keep_corpus=${4:-}
name=$(basename "$fuzzer")
case $name in
fuzz_config | fuzz_set | fuzz_sweepcfg) dict=$src/tests/fuzz/cfg.dict ;;
fuzz_nccltests) dict=$src/tests/fuzz/nccl.dict ;;
fuzz_csv) dict=$src/tests/fuzz/csv.dict ;;
fuzz_kineto) dict=$src/tests/fuzz/kineto.dict ;;
*) dict= ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/${name}.XXXXXX")
corpus=$work/corpus
artifacts=$work/artifacts
mkdir -p "$corpus" "$artifacts"

n=0
for f in "$src/tests/fuzz/seeds/$name"/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cp "$f" "$corpus/seed-$n"
done
if [ "$name" = fuzz_config ]; then
	# Seed corpus: every bundled configuration, as scenario text after an empty
	# --set line (the target reads the first line as a --set argument).
	while IFS= read -r -d '' f; do
		n=$((n + 1))
		{ echo; cat "$f"; } >"$corpus/seed-$n"
	done < <(find "$src/configs" "$src/models" -name '*.cfg' -print0 2>/dev/null)
	# The model files also as inline models of a scenario, and the default
	# scenario under a few --set lines, so that fuzzing starts deep in the loader.
	for f in "$src"/models/*.cfg; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		{ echo; echo 'model = {'; grep -v '^#' "$f"; echo '};'; echo 'cluster = "dgx-a100-80gb";'; } \
			>"$corpus/seed-$n"
	done
	def=$src/configs/scenarios/default.cfg
	if [ -f "$def" ]; then
		for set in 'parallel.tp=2' 'model.layers=4' 'training.framework=fsdp' 'nodes=2' \
			'model={ base = "llama2-7b"; layers = 2; }' 'parallel.bucket=25 MiB'; do
			n=$((n + 1))
			{ echo "$set"; cat "$def"; } >"$corpus/seed-$n"
		done
	fi
fi
if [ -n "$keep_corpus" ]; then
	mkdir -p "$keep_corpus"
	cp "$corpus"/* "$keep_corpus"/ 2>/dev/null
	corpus=$keep_corpus
fi
echo "$name: $n seed inputs in $work"

export TS_SOURCE_DIR=$src
# libconfig 1.5 itself leaks on some syntax errors: the string buffer of an
# unterminated string (reproduced without trainsim by config_read_string on
# regressions/libconfig-string-leak) and setting names its scanner allocated
# before the error. Those two allocation sites are suppressed; any other leak
# still fails the run.
printf 'leak:strbuf_append\nleak:libconfig_yylex\n' >"$work/lsan.supp"
export LSAN_OPTIONS="suppressions=$work/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
opts=(-rss_limit_mb=4096 -timeout=20 -max_len=16384 "-artifact_prefix=$artifacts/")
[ -n "$dict" ] && [ -f "$dict" ] && opts+=("-dict=$dict")

# Regression inputs: each must run without a crash.
regs=()
# (tests/fuzz/regressions for fuzz_config, regressions/TARGET for the others)
regdir=$src/tests/fuzz/regressions
[ "$name" = fuzz_config ] || regdir=$regdir/$name
for f in "$regdir"/*; do
	[ -f "$f" ] && [ "$(basename "$f")" != README ] && regs+=("$f")
done
if [ ${#regs[@]} -gt 0 ]; then
	if ! "$fuzzer" "${opts[@]}" "${regs[@]}" >"$work/replay.log" 2>&1; then
		echo "$name: a regression input crashes again; log and inputs in $work" >&2
		tail -40 "$work/replay.log" >&2
		exit 1
	fi
	echo "$name: ${#regs[@]} regression inputs replayed"
fi

"$fuzzer" "${opts[@]}" -max_total_time="$seconds" -print_final_stats=1 "$corpus" \
	>"$work/fuzz.log" 2>&1
rc=$?
crashes=$(ls "$artifacts" 2>/dev/null | wc -l)
if [ $rc -ne 0 ] || [ "$crashes" -gt 0 ]; then
	echo "$name: FAILED (exit $rc); crash inputs kept in $artifacts, log $work/fuzz.log" >&2
	grep -A30 -m1 'ERROR\|==ERROR\|runtime error\|deadly signal' "$work/fuzz.log" >&2
	exit 1
fi
grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$work/fuzz.log" | tail -2
echo "$name: no crash in ${seconds}s"
rm -rf "$work"
exit 0
