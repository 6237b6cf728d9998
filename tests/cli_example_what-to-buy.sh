#!/bin/bash
# Golden test of examples/what-to-buy: Llama-2-13B on 1T tokens, rented or
# bought within 30 days, and bought within $2M and 40 kW (regenerate: see
# tests/examplelib.bash). Then every recommended or frontier option's
# exported scenario, run by `trainsim run`, gives the advice's figures to
# the last bit, and the errors of bad options name what they found.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"
example() {
	"$BIN" advise scenario.cfg --deadline 30d --quiet &&
		echo && "$BIN" advise scenario.cfg --budget 2M --power-limit 40kW --mode buy --quiet
}
check_example what-to-buy
# the ratio of AWS p5 on demand to the Capacity Block price on 16 nodes
# ($616k / $228k); the 16 x DGX H100 band around its headline, below and
# above (13.1 and 17.4 days around 15.1)
check_prose what-to-buy "2.7=616/228" "13=100*(1-13.1/15.1)" "15=100*(17.4/15.1-1)"

# the recommended options reproduce with `trainsim run`
mkdir -p "$TMP/exp"
ok advice.json advise "$SRC/examples/what-to-buy/scenario.cfg" --deadline 30d --format json \
	--export "$TMP/exp" --quiet
py advice.json '
import json, subprocess, sys
a = json.load(open(sys.argv[1]))
binp = sys.argv[2]
n = 0
for o in a["options"]:
    if "scenario" not in o:
        continue
    r = json.loads(subprocess.run([binp, "run", o["scenario"], "--format", "json"],
                                  check=True, capture_output=True, text=True).stdout)
    for k in ("time_to_train_s", "cost_usd", "energy_kwh", "iteration_time_s",
              "memory_per_gpu_bytes"):
        if r[k] != o[k]:
            sys.exit("%s: %s %r from run, %r from advise" % (o["name"], k, r[k], o[k]))
    n += 1
rec = [a["cheapest_rent"], a["cheapest_buy"], a["fastest"]]
if n < 2 or any(i is None or "scenario" not in a["options"][i] for i in rec):
    sys.exit("expected the recommended options exported, found %d files" % n)
' "$BIN"

# bad options: what was found, what was expected
checks=$((checks + 1))
"$BIN" advise "$SRC/examples/what-to-buy/scenario.cfg" --deadline 30 >/dev/null 2>"$TMP/e1"
[ $? -eq 1 ] && grep -q -- '--deadline: found "30", expected a positive duration with a unit' "$TMP/e1" ||
	fail "--deadline 30: $(cat "$TMP/e1")"
checks=$((checks + 1))
"$BIN" advise "$SRC/examples/what-to-buy/scenario.cfg" --mode lease >/dev/null 2>"$TMP/e2"
[ $? -eq 1 ] && grep -q -- '--mode: found "lease", expected rent, buy or both' "$TMP/e2" ||
	fail "--mode lease: $(cat "$TMP/e2")"
printf 'catalog = { node_types = ( { name = "x"; cluster = "dgx-h100"; host_cores = 8; host_ram = "1 TB"; nvme = "1 TB"; node_power = "10 kW"; rent = { usd_per_gpu_hour = 2.0; }; node_counts = [1]; cooling = "water"; } ); };\n' >"$TMP/bad.cfg"
checks=$((checks + 1))
"$BIN" advise "$SRC/examples/what-to-buy/scenario.cfg" --candidates "$TMP/bad.cfg" >/dev/null 2>"$TMP/e3"
[ $? -eq 2 ] && grep -q 'bad.cfg:1: catalog.node_types.\[0\].cooling: .*"water".*air' "$TMP/e3" ||
	fail "bad catalog: $(cat "$TMP/e3")"
printf 'model = "llama2-13b"; cluster = "dgx-h100";\ntraining = { global_batch = 1024; };\n' >"$TMP/nolen.cfg"
checks=$((checks + 1))
"$BIN" advise "$TMP/nolen.cfg" >/dev/null 2>"$TMP/e4"
[ $? -eq 2 ] && grep -q 'nolen.cfg.*training.tokens: found no run length, expected' "$TMP/e4" ||
	fail "no run length: $(cat "$TMP/e4")"
finish
