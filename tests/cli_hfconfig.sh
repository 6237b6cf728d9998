#!/usr/bin/env bash
# Models from Hugging Face config.json files (tests/data/hf/): trainsim run on
# each imported family, cut to two layers, exits 0 with a finite iteration
# time at layer and op granularity; scenarios name the files relative to
# themselves from any working directory; a parallel block (Pythia) keeps less
# activation memory than the same model made sequential, and no more time;
# bad files and refused models exit 2 with one line naming file and key.
# Usage: bash cli_hfconfig.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
SCEN=$SRC/configs/scenarios/default.cfg
HF=$SRC/tests/data/hf
SHORT=(--set training.seq_len=512 --set training.micro_batch=1 --set training.global_batch=8
	--set training.iterations=2 --format json)

# finite NAME: the JSON result $TMP/NAME has a finite, positive iteration time
finite() {
	py "$1" '
import json, math, sys
d = json.load(open(sys.argv[1]))
t = d["iteration_time_s"]
assert isinstance(t, (int, float)) and math.isfinite(t) and t > 0, "iteration_time_s %r" % t
'
}

for m in llama2-7b mistral-7b mixtral-8x7b qwen2-7b gpt2 pythia-1.4b falcon-7b bert-large-uncased bloom; do
	for g in layer op; do
		ok "$m-$g" run "$SCEN" "${SHORT[@]}" --set sim.granularity=$g \
			--set "model={ hf_config = \"$HF/$m/config.json\"; layers = 2; }" &&
			finite "$m-$g"
	done
done

# DeepSeek-V3: 3 dense layers, 1 with experts and the MTP block
for g in layer op; do
	ok "deepseek-v3-$g" run "$SCEN" "${SHORT[@]}" --set sim.granularity=$g \
		--set "model={ hf_config = \"$HF/deepseek-v3/config.json\"; layers = 4; }" &&
		finite "deepseek-v3-$g"
done

# relative to the scenario file, whatever the working directory
cd "$TMP" || exit 1
ok rel-string run "$HF/gpt2-scenario.cfg" "${SHORT[@]}" && finite rel-string
ok rel-group run "$HF/pythia-inline.cfg" "${SHORT[@]}" && finite rel-group
cd "$SRC" || exit 1

# a parallel block against the same model made sequential
ok par run "$HF/pythia-inline.cfg" "${SHORT[@]}"
ok seq run "$HF/pythia-inline.cfg" "${SHORT[@]}" \
	--set 'model={ hf_config = "pythia-1.4b/config.json"; layers = 4; parallel_block = false; }'
py par '
import json, sys
p = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
assert p["memory_per_gpu_bytes"] < s["memory_per_gpu_bytes"], (p["memory_per_gpu_bytes"], s["memory_per_gpu_bytes"])
assert p["iteration_time_s"] <= s["iteration_time_s"], (p["iteration_time_s"], s["iteration_time_s"])
assert p["model_flops_per_iteration"] == s["model_flops_per_iteration"]
' "$TMP/seq"

# expect CODE 'NEEDLE|...' ARGS...: exit CODE, nothing on stdout, one line on
# stderr holding every needle
expect() {
	local code=$1 needles=$2 rc s
	shift 2
	checks=$((checks + 1))
	"$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne "$code" ] || [ -s "$TMP/out" ] || [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
		fail "trainsim $*: exit $rc (want $code): $(head -c 400 "$TMP/err")"
		return
	fi
	IFS='|' read -ra ns <<<"$needles"
	for s in "${ns[@]}"; do
		grep -qF -- "$s" "$TMP/err" || fail "trainsim $*: message lacks '$s': $(cat "$TMP/err")"
	done
}
expect 2 "t5-small/config.json|model_type|encoder-decoder" run "$SCEN" \
	--set "model=\"hf:$HF/t5-small/config.json\""
expect 2 "model.hf_config|nope/config.json|expected a readable Hugging Face config.json" \
	run "$SCEN" --set "model={ hf_config = \"$HF/nope/config.json\"; }"
# a parallel block with tensor parallelism runs at op granularity too
ok tp2 run "$HF/pythia-inline.cfg" "${SHORT[@]}" --set parallel.tp=2 --set sim.granularity=op &&
	finite tp2
finish
