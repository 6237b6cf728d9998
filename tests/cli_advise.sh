#!/bin/bash
# trainsim advise on a small catalog (one node type, two node counts): the
# options it accepts and refuses, what it writes and what its text says.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
SCN="$SRC/examples/what-to-buy/scenario.cfg"
# one node type, rented and bought, at 2 and 4 nodes
cat >"$TMP/small.cfg" <<'CFG'
catalog = {
  buy = { years = 4.0; upkeep_usd_per_node_year = 20000.0; storage_usd = 0.0;
          usd_per_kwh = 0.0806; pue = 1.58; };
  node_types = (
    { name = "dgx-h100"; cluster = "dgx-h100";
      host_cores = 112; host_ram = "2 TB"; nvme = "30.72 TB"; cooling = "air";
      node_power = "10.2 kW";
      rent = { usd_per_gpu_hour = 4.916; };
      buy = { server_usd = 300000.0; network_usd = 40000.0; };
      node_counts = [2, 4]; } ); };
CFG

# --power-limit X/rack is accepted and applies per rack: a 10.2 kW node
# fits a 40 kW rack and misses a 5 kW one
ok rack40 advise "$SCN" --candidates "$TMP/small.cfg" --mode buy --power-limit 40kW/rack --quiet
grep -q 'power 40.0 kW per rack' "$TMP/rack40" || fail "40kW/rack: $(head -3 "$TMP/rack40")"
grep -q 'more than the .* rack' "$TMP/rack40" && fail "40kW/rack: a node misses the rack"
ok rack5 advise "$SCN" --candidates "$TMP/small.cfg" --mode buy --power-limit 5kW/rack --quiet
grep -q 'one node is rated 10.2 kW, more than the 5.0 kW rack' "$TMP/rack5" ||
	fail "5kW/rack: $(cat "$TMP/rack5")"
checks=$((checks + 1))
"$BIN" advise "$SCN" --power-limit 40kW/shelf >/dev/null 2>"$TMP/e1"
[ $? -eq 1 ] && grep -q -- '--power-limit: found "40kW/shelf", expected' "$TMP/e1" ||
	fail "--power-limit 40kW/shelf: $(cat "$TMP/e1")"

# --export refuses what -o refuses: the bundled folders, the inputs
checks=$((checks + 1))
before=$(ls "$SRC/configs")
"$BIN" advise "$SCN" --candidates "$TMP/small.cfg" --export "$SRC/configs" --quiet >/dev/null 2>"$TMP/e2"
[ $? -eq 1 ] && grep -q -- '--export: found ".*configs/dgx-h100-2n-rent.cfg", inside the folder .*bundled data' "$TMP/e2" &&
	[ "$(ls "$SRC/configs")" = "$before" ] || fail "--export configs: $(cat "$TMP/e2")"
mkdir -p "$TMP/exp"
cp "$TMP/small.cfg" "$TMP/exp/dgx-h100-2n-rent.cfg"
checks=$((checks + 1))
"$BIN" advise "$SCN" --candidates "$TMP/exp/dgx-h100-2n-rent.cfg" --export "$TMP/exp" --quiet >/dev/null 2>"$TMP/e3"
[ $? -eq 1 ] && grep -q -- '--export: found .*dgx-h100-2n-rent.cfg", the same file as the input .*(--candidates)' "$TMP/e3" &&
	[ "$(ls "$TMP/exp")" = dgx-h100-2n-rent.cfg ] || fail "--export over the catalog: $(cat "$TMP/e3")"
# a node type's name makes the exported file names: one that would leave
# the folder, or make a file name with a control character, is refused
# before anything is written
mkdir -p "$TMP/conf/exp"
for nm in '../escape/pwn' 'a/b' '..' 'x..y' '.hidden' 'new\nline' 'esc\x1b[2J'; do
	checks=$((checks + 1))
	sed "s|name = \"dgx-h100\";|name = \"$nm\";|" "$TMP/small.cfg" >"$TMP/conf/badname.cfg"
	"$BIN" advise "$SCN" --candidates "$TMP/conf/badname.cfg" --export "$TMP/conf/exp" --quiet \
		>/dev/null 2>"$TMP/e8"
	rc=$?
	[ $rc -eq 2 ] && grep -q 'badname.cfg:5: catalog.node_types.\[0\].name: found ".*" with .*, expected a name that can be part of a file name' "$TMP/e8" &&
		[ "$(wc -l <"$TMP/e8")" -eq 1 ] && ! grep -q "$(printf '\033')" "$TMP/e8" ||
		fail "node type named $nm: exit $rc: $(cat -v "$TMP/e8")"
	[ "$(ls -A "$TMP/conf/exp")" = "" ] && [ "$(ls -A "$TMP/conf")" = "$(printf 'badname.cfg\nexp')" ] ||
		fail "node type named $nm: wrote $(ls -AR "$TMP/conf")"
done
# an exported scenario's name says which option it is
rm -f "$TMP/exp"/*
ok expout advise "$SCN" --candidates "$TMP/small.cfg" --mode rent --export "$TMP/exp" --quiet
checks=$((checks + 1))
grep -q '^name = "llama2-13b on 2 x dgx-h100, rent' "$TMP/exp/dgx-h100-2n-rent.cfg" ||
	fail "exported name: $(grep '^name' "$TMP/exp/dgx-h100-2n-rent.cfg")"

# a mode no node type has a price for is an error naming the catalog
sed '/rent = /d' "$TMP/small.cfg" >"$TMP/norent.cfg"
sed '/buy = { server/d' "$TMP/small.cfg" >"$TMP/nobuy.cfg"
checks=$((checks + 1))
"$BIN" advise "$SCN" --candidates "$TMP/norent.cfg" --mode rent --quiet >"$TMP/o4" 2>"$TMP/e4"
[ $? -eq 2 ] && grep -q 'norent.cfg: catalog.node_types: found no node type with a rent price' "$TMP/e4" ||
	fail "--mode rent without rent prices: $(cat "$TMP/e4" "$TMP/o4")"
checks=$((checks + 1))
"$BIN" advise "$SCN" --candidates "$TMP/nobuy.cfg" --mode buy --quiet >"$TMP/o5" 2>"$TMP/e5"
[ $? -eq 2 ] && grep -q 'nobuy.cfg: catalog.node_types: found no node type with a purchase price' "$TMP/e5" ||
	fail "--mode buy without purchase prices: $(cat "$TMP/e5" "$TMP/o5")"

# --help explains every option and says where the power limit applies
ok help advise --help
for o in --mode --max-gpus --candidates --format -o, --set --calib -q, --power-limit --export; do
	checks=$((checks + 1))
	grep -q -- "^  $o .*[a-z]" "$TMP/help" || fail "advise --help does not explain $o"
done
checks=$((checks + 1))
grep -q 'default both' "$TMP/help" && grep -q 'bought options only' "$TMP/help" ||
	fail "advise --help: no default of --mode, or not where the power limit applies"

# the text: one money format, durations in a unit that fits, singulars
ok short advise "$SCN" --candidates "$TMP/small.cfg" --set training.tokens=2e8 --budget 1 \
	--deadline 10min --quiet
for want in 'asked: deadline 10.0 min, budget \$1, ' '1 node type, 4 options' \
	' 33.7 min (29.2-39.0) ' 'misses: 33.7 min, past the 10.0 min deadline; spends \$44, over the \$1 budget' \
	'spends \$680k, over the \$1 budget'; do
	checks=$((checks + 1))
	grep -q -- "$want" "$TMP/short" || fail "short run: no \"$want\" in: $(sed -n 1,3p "$TMP/short"; grep misses "$TMP/short")"
done
checks=$((checks + 1))
grep -qE 'over the \$[0-9.e+-]+M budget|0\.0 h|e-0' "$TMP/short" &&
	fail "short run: $(grep -E 'M budget|0\.0 h|e-0' "$TMP/short")"
ok one advise "$SCN" --candidates "$TMP/small.cfg" --max-gpus 1 --quiet
checks=$((checks + 1))
grep -q 'asked: at most 1 GPU, rent or buy' "$TMP/one" && grep -q 'misses: 16 GPUs, more than --max-gpus 1' "$TMP/one" ||
	fail "--max-gpus 1: $(sed -n 2p "$TMP/one")"

# a bad cluster or sets entry of the catalog is the catalog's error, at its line
sed 's/cluster = "dgx-h100";/cluster = "nope";/' "$TMP/small.cfg" >"$TMP/badcl.cfg"
sed 's/cluster = "dgx-h100";/cluster = "dgx-h100";\n      sets = [ "nics_per_node=x" ];/' "$TMP/small.cfg" >"$TMP/badset.cfg"
checks=$((checks + 1))
"$BIN" advise "$SCN" --candidates "$TMP/badcl.cfg" --quiet >/dev/null 2>"$TMP/e6"
[ $? -eq 2 ] && grep -q 'badcl.cfg:5: catalog.node_types.\[0\].cluster: found "nope", expected a cluster' "$TMP/e6" &&
	! grep -q -- '--set' "$TMP/e6" || fail "bad catalog cluster: $(cat "$TMP/e6")"
checks=$((checks + 1))
"$BIN" advise "$SCN" --candidates "$TMP/badset.cfg" --quiet >/dev/null 2>"$TMP/e7"
[ $? -eq 2 ] && grep -q 'badset.cfg:6: catalog.node_types.\[0\].sets.\[0\]: "nics_per_node=x": nics_per_node: found "x"' "$TMP/e7" ||
	fail "bad catalog sets entry: $(cat "$TMP/e7")"

# JSON and CSV name what the text names: the cheapest to rent, to buy, the
# fastest; the bands of time and cost as KEY_p10, KEY_p50, KEY_p90
ok json advise "$SCN" --candidates "$TMP/small.cfg" --format json --quiet
py json '
import json, sys
a = json.load(open(sys.argv[1]))
o = a["options"]
for k, want in (("cheapest_rent", "rent"), ("cheapest_buy", "buy")):
    i = a[k]
    if i is None or o[i]["mode"] != want or "cheapest to " + want not in o[i]["recommended"]:
        sys.exit("%s: %r" % (k, i))
    if any(p["mode"] == want and p["cost_usd"] < o[i]["cost_usd"] for p in o):
        sys.exit("%s is not the cheapest %s option" % (k, want))
if a["fastest"] is None or min(p["time_to_train_s"] for p in o) != o[a["fastest"]]["time_to_train_s"]:
    sys.exit("fastest: %r" % a["fastest"])
for p in o:
    for k in ("time_to_train_s", "cost_usd"):
        if not p[k + "_p10"] <= p[k + "_p50"] <= p[k + "_p90"]:
            sys.exit("%s: %s band %r %r %r" % (p["name"], k, p[k + "_p10"], p[k + "_p50"], p[k + "_p90"]))
'
ok csv advise "$SCN" --candidates "$TMP/small.cfg" --format csv --quiet
py csv '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    for k in ("time_to_train_s", "cost_usd"):
        if not float(r[k + "_p10"]) <= float(r[k + "_p50"]) <= float(r[k + "_p90"]):
            sys.exit("%s: %s band" % (r["name"], k))
rec = [r["recommended"] for r in rows]
if not any("cheapest to rent" in x for x in rec) or not any("cheapest to buy" in x for x in rec):
    sys.exit("recommended: %r" % rec)
'
# the frontier plot reads the band columns by name: still drawn
checks=$((checks + 1))
"$BIN" plot frontier "$TMP/csv" -o "$TMP/frontier.svg" 2>"$TMP/e8" && grep -q "<svg" "$TMP/frontier.svg" &&
	[ ! -s "$TMP/e8" ] || fail "plot frontier of the advice: $(cat "$TMP/e8")"
finish
