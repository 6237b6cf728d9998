#!/usr/bin/env bash
# Bad input to the trainsim command line: exit 2 (1 for usage), one line on
# stderr naming file, line, key, found and expected, nothing on stdout, no
# crash and no NaN. Usage: bash cli_errors.sh TRAINSIM_BINARY SOURCE_DIR
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

# expect CODE 'NEEDLE|NEEDLE|...' ARGS...: run trainsim ARGS in $TMP and
# check the exit code, that stdout is empty, that stderr is one line holding
# every needle, and that nothing printed is a NaN or an infinity.
expect() {
	local code=$1 needles=$2 rc n s
	shift 2
	local what="trainsim $*"
	checks=$((checks + 1))
	(cd "$TMP" && "$BIN" "$@") >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ge 128 ] || [ "$rc" -eq 199 ]; then
		fail "$what: crashed (exit $rc): $(head -c 600 "$TMP/err")"
		return
	fi
	if [ "$rc" -ne "$code" ]; then
		fail "$what: exit $rc, expected $code: $(head -c 400 "$TMP/err")"
		return
	fi
	if [ -s "$TMP/out" ]; then
		fail "$what: printed on stdout: $(head -c 200 "$TMP/out")"
		return
	fi
	n=$(wc -l <"$TMP/err")
	if [ "$n" -ne 1 ]; then
		fail "$what: $n lines on stderr, expected 1: $(head -c 600 "$TMP/err")"
		return
	fi
	IFS='|' read -ra ns <<<"$needles"
	for s in "${ns[@]}"; do
		if ! grep -qF -- "$s" "$TMP/err"; then
			fail "$what: message lacks '$s': $(cat "$TMP/err")"
			return
		fi
	done
	if grep -qEw -- '-?(nan|NaN|NAN|inf|INF)' "$TMP/out" "$TMP/err"; then
		fail "$what: printed a NaN or an infinity: $(head -c 400 "$TMP/err")"
	fi
}

# A scenario whose line numbers the cases below rely on.
cat >"$TMP/base.cfg" <<'EOF'
# scenario for the command-line error tests
name = "cli errors";
model = "gpt3-1.3b";
cluster = "dgx-a100-80gb";
nodes = 1;
gpus_per_node = 8;
training = {
  framework = "megatron";
  global_batch = 64;
  micro_batch = 4;
  seq_len = 2048;
  precision = "bf16";
  iterations = 2;
  tokens = 1.0e9;
};
parallel = {
  tp = 1;
  pp = 1;
  zero = 0;
  bucket = "40 MiB";
};
cost = { usd_per_gpu_hour = 2.0; };
EOF

# variant NAME SED-EXPRESSION: base.cfg edited, as NAME.cfg
variant() {
	sed -e "$2" "$TMP/base.cfg" >"$TMP/$1.cfg"
	cmp -s "$TMP/base.cfg" "$TMP/$1.cfg" && fail "variant $1: '$2' changed nothing"
}

# --- the base scenario itself runs (otherwise every case below is moot)
checks=$((checks + 1))
(cd "$TMP" && "$BIN" run base.cfg) >"$TMP/out" 2>"$TMP/err" ||
	fail "trainsim run base.cfg: exit $?: $(head -c 400 "$TMP/err")"

# --- trainsim, help, unknown command
checks=$((checks + 1))
"$BIN" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] || fail "trainsim (no arguments): exit $rc, expected 1"
[ -s "$TMP/out" ] && fail "trainsim (no arguments): printed on stdout"
grep -q '^usage: trainsim' "$TMP/err" || fail "trainsim (no arguments): no usage on stderr"
for a in help --help -h; do
	checks=$((checks + 1))
	"$BIN" $a >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "trainsim $a: exit $rc, expected 0"
	grep -q '^usage: trainsim' "$TMP/out" || fail "trainsim $a: no usage on stdout"
	grep -q 'list' "$TMP/out" || fail "trainsim $a: usage does not mention list"
done
for c in run collective list; do
	checks=$((checks + 1))
	"$BIN" $c --help >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "trainsim $c --help: exit $rc, expected 0"
	grep -q "^usage: trainsim $c" "$TMP/out" || fail "trainsim $c --help: no usage on stdout"
	[ -s "$TMP/err" ] && fail "trainsim $c --help: printed on stderr"
	# help COMMAND is COMMAND --help
	checks=$((checks + 1))
	"$BIN" help $c >"$TMP/out2" 2>"$TMP/err"
	cmp -s "$TMP/out" "$TMP/out2" || fail "trainsim help $c: not trainsim $c --help"
done
expect 1 'unknown command|"bogus"|run, collective, validate, list' bogus
expect 1 'unknown command|"bogus"' help bogus
expect 1 'unknown command|"lst"|did you mean "list"' lst
expect 1 '--bands|--source bert|expected --source all' validate --source bert --bands b.cfg
expect 1 '--loso|--fit|expected it alone' validate --loso l.cfg --fit
expect 1 '--loso|--source|expected it alone' validate --loso l.cfg --source mpt
expect 1 '--source|"nosuch"|pytorch-blog-fsdp-ibm-2024|or all' validate --source nosuch

# --- trainsim run: the command line
expect 1 'SCENARIO' run
# standard input read once: a second - would find it empty
expect 1 'standard input (-) 2 times|expected it once' compare - -
expect 2 'sim.slow_link_bandwidth|found 1e-310|0.01 to 1' run base.cfg --set sim.slow_link_bandwidth=1e-310
expect 1 'empty file name|SCENARIO' run ''
expect 1 'unknown option|--bogus|expected' run base.cfg --bogus
expect 1 '--format|"bogus"|text, csv or json' run base.cfg --format bogus
expect 1 '--format|found nothing' run base.cfg --format
expect 1 '--set|found nothing|KEY=VALUE' run base.cfg --set
expect 1 '--calib: found nothing, expected an overrides file' run base.cfg --calib
expect 1 'second scenario|other.cfg' run base.cfg other.cfg
expect 1 '--trace|/nonexistent/dir/t.json|expected a writable file' \
	run base.cfg --trace /nonexistent/dir/t.json
[ -e "$TMP/t.json" ] && fail "a failed run left a trace file"

# a product of tp, pp and cp that does not divide the GPUs is blamed on the
# degree above 1 (here the --set that made it), not on a tp of 1
expect 2 '--set parallel.pp=25: parallel.pp: found tp x pp x cp = 1 x 25 x 1' \
	run base.cfg --set parallel.tp=1 --set parallel.pp=25

# a calibration constant out of its range is blamed on the overrides file
printf 'tc_sustain = { value = 50.0; source = "typo"; };\n' >"$TMP/badcal.cfg"
expect 2 'badcal.cfg:1: tc_sustain.value: found 50, expected a number in (0, 1]' \
	run base.cfg --calib badcal.cfg

# plot: a row marked ok whose figure is not a finite number (or a GPU count
# below 1) names the file, line and column instead of reaching gnuplot
if command -v gnuplot >/dev/null; then
	(cd "$TMP" && "$BIN" run base.cfg --format csv >r.csv) || fail "run --format csv failed"
	for bad in "gpus:-5:a GPU count of at least 1" "tokens_per_s:12x:a finite number"; do
		IFS=: read -r col val what <<<"$bad"
		awk -F, -v OFS=, -v col="$col" -v val="$val" \
			'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i } NR == 2 { $c = val } 1' \
			"$TMP/r.csv" >"$TMP/r_$col.csv"
		expect 2 "r_$col.csv:2: $col: found \"$val\", expected $what" plot scaling "r_$col.csv" -o p.png
	done
fi

# --- trainsim run: files
expect 2 'missing.cfg|cannot open' run missing.cfg
mkdir "$TMP/adir.cfg"
expect 2 'adir.cfg|not a regular file|expected' run adir.cfg
# A NUL byte would end libconfig's reading there: the rest of the file lost.
{ head -n 9 "$TMP/base.cfg"; printf '  micro_batch = 4;\0\n'; tail -n +11 "$TMP/base.cfg"; } >"$TMP/nul.cfg"
expect 2 'nul.cfg:10: found a NUL byte, expected a text file' run nul.cfg
# A UTF-8 byte-order mark at the start is skipped.
{ printf '\xef\xbb\xbf'; cat "$TMP/base.cfg"; } >"$TMP/bom.cfg"
ok bom run "$TMP/bom.cfg"
variant syntax 's/micro_batch = 4;/micro_batch = = 4;/'
expect 2 'syntax.cfg:10|syntax error' run syntax.cfg
variant unkkey 's/^training = {/trainig = {/'
expect 2 'unkkey.cfg:7|trainig|unknown key|did you mean "training"' run unkkey.cfg
variant unkkey2 's/micro_batch = 4;/micro_bach = 4;/'
expect 2 'unkkey2.cfg:10|training.micro_bach|did you mean "micro_batch"' run unkkey2.cfg
variant type 's/micro_batch = 4;/micro_batch = "four";/'
expect 2 'type.cfg:10|training.micro_batch|found "four"|expected an integer' run type.cfg
# Whole-run figures that would make a result infinite or NaN, on their line;
# a node that draws less than its GPUs, with both numbers.
variant ckbw 's|^cost = .*|checkpoint = { interval = 100;\n  write_bandwidth = "1e-300 B/s"; };|'
expect 2 'ckbw.cfg:23|checkpoint.write_bandwidth|1e-300 B/s|expected 1 kB/s to' run ckbw.cfg
variant ckiv 's|^cost = .*|checkpoint = {\n  interval = "1e-300 s"; };|'
expect 2 'ckiv.cfg:23|checkpoint.interval|1e-300 s|expected' run ckiv.cfg
variant mtbf 's|^cost = .*|failures = {\n  gpu_mtbf = "1e-300 s"; };|'
expect 2 'mtbf.cfg:23|failures.gpu_mtbf|1e-300 s|expected 1 s to' run mtbf.cfg
variant restart 's|^cost = .*|failures = {\n  restart = "1e300 s"; };|'
expect 2 'restart.cfg:23|failures.restart|1e300 s|expected' run restart.cfg
variant nodemax 's|^cost = .*|power = {\n  node_max = "2 kW"; };|'
expect 2 'nodemax.cfg:23|power.node_max|found 2000 W|3200 W|400 W' run nodemax.cfg
variant nodebig 's|^cost = .*|power = {\n  node_max = "1e300 W"; };|'
expect 2 'nodebig.cfg:23|power.node_max|1e300 W|expected' run nodebig.cfg
# a GPU power limit outside the card's range (A100 SXM4 80GB: 100 to 400 W), or not a power
variant gpulimit 's|^cost = .*|power = {\n  gpu_limit = "500 W"; };|'
expect 2 'gpulimit.cfg:23|power.gpu_limit|found 500 W|from 100 W|to 400 W' run gpulimit.cfg
variant gpulow 's|^cost = .*|power = {\n  gpu_limit = "50 W"; };|'
expect 2 'gpulow.cfg:23|power.gpu_limit|found 50 W|A100-SXM4-80GB|from 100 W' run gpulow.cfg
variant gpuunit 's|^cost = .*|power = {\n  gpu_limit = "300 GB"; };|'
expect 2 'gpuunit.cfg:23|power.gpu_limit|GB|expected a power' run gpuunit.cfg
variant type2 's/^nodes = 1;/nodes = 1.5;/'
expect 2 'type2.cfg:5|nodes|found 1.5|expected' run type2.cfg
variant model 's/"gpt3-1.3b"/"gpt3-1.3"/'
expect 2 'model.cfg:3|model|found "gpt3-1.3"|closest|"gpt3-1.3b"' run model.cfg
variant cluster 's/"dgx-a100-80gb"/"dgx-a100-80"/'
expect 2 'cluster.cfg:4|cluster|found "dgx-a100-80"|closest|"dgx-a100-80gb"' run cluster.cfg
variant fw 's/"megatron"/"megatorn"/'
expect 2 'fw.cfg:8|training.framework|found "megatorn"|expected|closest: "megatron"' run fw.cfg
variant prec 's/"bf16"/"bf17"/'
expect 2 'prec.cfg:12|training.precision|found "bf17"|expected|closest: "bf16"' run prec.cfg
variant unit 's/"40 MiB"/"25 MiBs"/'
expect 2 'unit.cfg:20|parallel.bucket|"25 MiBs"|unknown unit "MiBs"|expected a size' run unit.cfg
# a size without a unit is not 40 bytes: refused, string or number
variant unitless 's/"40 MiB"/"40"/'
expect 2 'unitless.cfg:20|parallel.bucket|found "40" without a unit|expected a size with its unit|"40 MiB"' run unitless.cfg
variant bare 's/"40 MiB"/40/'
expect 2 'bare.cfg:20|parallel.bucket|found the number 40 without a unit|"40 B" for bytes' run bare.cfg
variant zerosize 's/"40 MiB"/"0 MiB"/'
expect 2 'zerosize.cfg:20|parallel.bucket|found "0 MiB"|expected a positive size' run zerosize.cfg
variant negsize 's/"40 MiB"/"-5 MiB"/'
expect 2 'negsize.cfg:20|parallel.bucket|found "-5 MiB"|expected' run negsize.cfg
variant gb0 's/global_batch = 64;/global_batch = 0;/'
expect 2 'gb0.cfg:9|training.global_batch|found 0|expected a positive integer' run gb0.cfg
variant mbneg 's/micro_batch = 4;/micro_batch = -4;/'
expect 2 'mbneg.cfg:10|training.micro_batch|found -4|expected a positive integer' run mbneg.cfg
variant mbdiv 's/micro_batch = 4;/micro_batch = 3;/'
expect 2 'mbdiv.cfg:10|training.micro_batch|found micro_batch = 3|expected a divisor' run mbdiv.cfg
variant gbdiv 's/global_batch = 64;/global_batch = 60;/'
expect 2 'gbdiv.cfg:9|training.global_batch|found 60|expected a multiple' run gbdiv.cfg
variant cp 's/tp = 1;/tp = 1; cp = 3;/'
expect 2 'cp.cfg:17|parallel.cp|found tp x pp x cp = 1 x 1 x 3|expected a divisor' run cp.cfg
variant gpn 's/gpus_per_node = 8;/gpus_per_node = 16;/'
expect 2 'gpn.cfg:6|gpus_per_node|found 16|expected at most' run gpn.cfg
variant iters 's/iterations = 2;/iterations = 1;/'
expect 2 'iters.cfg:13|training.iterations|found 1|expected' run iters.cfg
variant tokinf 's/tokens = 1.0e9;/tokens = 1e400;/'
expect 2 'tokinf.cfg:14|training.tokens|expected' run tokinf.cfg
variant cost 's/usd_per_gpu_hour = 2.0;/usd_per_gpu_hour = -2.0;/'
expect 2 'cost.cfg:22|cost.usd_per_gpu_hour|found -2|expected' run cost.cfg
variant bigbatch 's/global_batch = 64;/global_batch = 1099511627776;/'
expect 2 'bigbatch.cfg:9|training.global_batch|found 1099511627776|expected at most' run bigbatch.cfg
: >"$TMP/empty.cfg"
expect 2 'empty.cfg|model|found no model|expected' run empty.cfg

# --- trainsim run: --set
expect 2 "--set 'foo'|found no '='|key.path=value" run base.cfg --set foo
expect 2 "found an empty key|key.path=value" run base.cfg --set =3
expect 2 '--set trainig.micro_batch=2|trainig|did you mean "training"' \
	run base.cfg --set trainig.micro_batch=2
expect 2 '--set training.foo=1|training.foo|unknown key' run base.cfg --set training.foo=1
expect 2 '--set training=3|training|found 3|expected a group' run base.cfg --set training=3
expect 2 'training.micro_batch|found a group|expected an integer' \
	run base.cfg --set 'training.micro_batch={ a = 1; }'
expect 2 '--set training.micro_batch=0|found 0|expected a positive integer' \
	run base.cfg --set training.micro_batch=0
# expert parallelism on a model without experts, found and expected
expect 2 'parallel.ep|found ep = 2|no experts|expected ep = 1' run base.cfg --set parallel.ep=2
# a small range is given whole, below it as above it
expect 2 '--set parallel.fsdp_version=0|found 0|expected an integer from 1 to 2' \
	run base.cfg --set parallel.fsdp_version=0
expect 2 '--set nodes=-1|nodes|found -1|expected' run base.cfg --set nodes=-1
# an optimizer trainsim does not model is refused with the ones it does
expect 2 'training.optimizer|found "lion"|"sgd"|"sgd-nomomentum"' run base.cfg --set training.optimizer=lion
expect 2 '--set parallel.ep=8|parallel.ep|ep = 8 with gpt3-1.3b|expected ep = 1' \
	run base.cfg --set parallel.ep=8
expect 2 '--set model=llama9|model|"llama9"|closest' run base.cfg --set model=llama9
expect 2 '--set parallel.bucket="1 KiBs"|unknown unit "KiBs"' \
	run base.cfg --set 'parallel.bucket="1 KiBs"'
expect 2 '--set training.precision=fp8|training.precision|found fp8|expected' \
	run base.cfg --set training.precision=fp8
expect 2 'base.cfg:6|gpus_per_node|found 8|expected at most the 4' \
	run base.cfg --set 'cluster="rtx4090-x4"'
# the masked-LM head is BERT's: base.cfg's model is a GPT
expect 2 'training.mlm_head|found "masked" with a gpt model|expected a bert model' \
	run base.cfg --set training.mlm_head=masked
expect 2 'training.mlm_head|found "some"|expected' run base.cfg --set training.mlm_head=some

# --- trainsim collective
C=(collective --cluster dgx-a100-80gb)
expect 1 '--cluster|found none|expected' collective
expect 2 'cluster|dgx-a100|expected|"dgx-a100-80gb"' collective --cluster dgx-a100
expect 2 '-b|"x"|expected a size' "${C[@]}" -b x
expect 2 '-b|"-8"|expected a size' "${C[@]}" -b -8
expect 2 '-e|"1Q"|expected a size' "${C[@]}" -e 1Q
expect 2 '-e|"1e300"|expected a size' "${C[@]}" -e 1e300
expect 2 '-b|above -e|expected' "${C[@]}" -b 1G -e 8
expect 2 '-f|"1"|expected a factor > 1' "${C[@]}" -f 1
expect 2 '-f|"abc"|expected a factor' "${C[@]}" -f abc
expect 2 '-f|1.0000001|more than' "${C[@]}" -b 1 -e 1T -f 1.0000001
# a largest size whose send and receive buffers exceed the GPU's memory
# (2 x 1 PiB on an 80 GB A100) is refused; 85.2 GB / 2 = 42599022592 B fits
expect 2 '-e: found 1125899906842624 bytes|exceed the 85.2 GB of a A100-SXM4-80GB|at most 42599022592 bytes' "${C[@]}" -b 8 -e 1P
expect 1 '--op|"all_reduc"|expected all_reduce' "${C[@]}" --op all_reduc
expect 2 '-g|found 9|expected at most|8' "${C[@]}" -g 9
expect 2 '-g|"0"|expected' "${C[@]}" -g 0
expect 2 '--set|"foo=2"|expected a key of nodes' "${C[@]}" --set foo=2
expect 2 '--set|"nodes"|KEY=VALUE' "${C[@]}" --set nodes
expect 2 '--set|"nodes=0"|expected a whole number' "${C[@]}" --set nodes=0
expect 2 'gpus_per_node|found 16|expected at most' "${C[@]}" --set gpus_per_node=16
# a count an option gave is keyed by that option, not by the cluster file
# (131,073 nodes of 8 = 1,048,584 GPUs, 8 beyond TS_MAX_GPUS)
expect 2 '--nodes: found 131073 nodes of 8 GPUs|expected at most 1048576 GPUs' "${C[@]}" --nodes 131073
expect 2 '--set "nodes=131073": found 131073 nodes' "${C[@]}" --set nodes=131073
expect 2 '--set "cluster.nodes=131073": found 131073 nodes' "${C[@]}" --set cluster.nodes=131073 --set node.p2p=false
expect 2 '--set "gpus_per_node=16": found 16|at most the 8 GPUs' "${C[@]}" --set gpus_per_node=16
expect 2 '--nodes: found 200000 nodes of 8 GPUs' queue --synthetic 3 --cluster dgx-h100 --nodes 200000
expect 2 '--nodes: found 200000 nodes of 8 GPUs' queue --synthetic 3 --cluster dgx-h100 --nodes 150000:200000:50000
# a count is a whole number: 1e2 and 100.0 are 100 (as a scenario file's
# nodes = 1e2 is), 2.5 and 0x10 are refused by the option's name
expect 2 '--nodes|found "2.5"|expected a whole number from 1 to 1048576' "${C[@]}" --nodes 2.5
expect 2 '--set|found "nodes=2.5"|expected a whole number' "${C[@]}" --set nodes=2.5
expect 2 '--set|found "nodes=0x10"|expected a whole number' "${C[@]}" --set nodes=0x10
expect 2 '-g|found "8.5"|expected a whole number' "${C[@]}" -g 8.5
expect 1 '--nodes|found "2.5"|LO:HI[:STEP]' queue --synthetic 3 --cluster dgx-h100 --nodes 2.5
expect 1 '--nodes|found "4:"|LO:HI[:STEP]' queue --synthetic 3 --cluster dgx-h100 --nodes 4:
expect 1 '--nodes|found "1:2:3:4"|LO:HI[:STEP]' queue --synthetic 3 --cluster dgx-h100 --nodes 1:2:3:4
expect 1 '--format|"x"|text, csv, json or nccl-tests' "${C[@]}" --format x
expect 1 'unknown option|"--bogus"|expected' "${C[@]}" --bogus 1
expect 1 '-b|found nothing|expected a value' "${C[@]}" -b

# --- trainsim list
expect 1 '"bogus"|gpus, links, clusters, models, datasets, storage or scenarios' list bogus
expect 1 '"gpu"|did you mean "gpus"' list gpu
expect 1 'found no kind|gpus, links, clusters, models, datasets, storage or scenarios' list
expect 1 '--format|"x"|text, csv or json' list gpus --format x
expect 1 'unknown option|"--bogus"' list gpus --bogus

# A broken bundled file: exit 2 with the file's own message.
mkdir -p "$TMP/data/configs"
cp -r "$SRC/configs/hardware" "$SRC/configs/clusters" "$SRC/configs/calibration" "$TMP/data/configs/"
cp -r "$SRC/models" "$TMP/data/"
sed -i 's/^layers = 24;/layers = "24";/' "$TMP/data/models/gpt3-1.3b.cfg"
TS_DATA_DIR=$TMP/data expect 2 'gpt3-1.3b.cfg:10|layers|found "24"|expected' list models
sed -i 's/type = "A100-SXM4-80GB"/type = "A100-SXM4-8GB"/' "$TMP/data/configs/clusters/dgx-a100-80gb.cfg"
TS_DATA_DIR=$TMP/data expect 2 'dgx-a100-80gb.cfg|A100-SXM4-8GB|expected' list clusters
printf 'gpus = ( { name = "X"; } \n' >"$TMP/data/configs/hardware/zz-broken.cfg"
TS_DATA_DIR=$TMP/data expect 2 'zz-broken.cfg' list gpus
TS_DATA_DIR=$TMP/nothing expect 2 'configs/hardware|cannot open' list links

# An inline cluster given by --set: its errors name the --set argument, not
# the scenario file
expect 2 '--set cluster={ gpu = "nosuch"; }: cluster.gpu: found unknown GPU type "nosuch"' \
	run base.cfg --set 'cluster={ gpu = "nosuch"; }'
expect 2 '--set cluster.gpu="nosuch": cluster.gpu: found unknown GPU type' \
	run base.cfg --set 'cluster.gpu="nosuch"'
# A run shorter than one step (5e-324 tokens made 0 steps and a run of 0 s;
# a denormal is now out of the positive range, 1e-300 is not)
variant tiny 's/tokens = 1.0e9;/tokens = 5e-324;/'
expect 2 'tiny.cfg:14: training.tokens: found 4.94066e-324 (a float), expected a number greater than 0' \
	run tiny.cfg
variant tiny2 's/tokens = 1.0e9;/tokens = 1e-300;/'
expect 2 'tiny2.cfg:14: training.tokens: found 1e-300, less than one step (131072 tokens per step)' \
	run tiny2.cfg
variant short 's/tokens = 1.0e9;/samples = 0.5;/'
expect 2 'short.cfg:14|training.samples|found 0.5, less than one step (64 samples per step)' run short.cfg
# Quantities in decimal only: strtod would read a hexadecimal float
expect 2 '--set parallel.bucket="0x1p4 MiB"|found "0x1p4 MiB"|written in decimal' \
	run base.cfg --set 'parallel.bucket="0x1p4 MiB"'
# --dump-config takes text or json, not csv
expect 1 '--format: found csv with --dump-config, expected text or json' \
	run base.cfg --dump-config --format csv

# --- uneven pipeline stages (Megatron-LM's first/last stage layers and
# account_for_embedding/loss), refused at their line with what was found
variant uneven 's/  pp = 1;/  pp = 4; first_stage_layers = 5;/'
expect 2 'uneven.cfg:18: parallel.first_stage_layers|found first_stage_layers = 5 and last_stage_layers = 0 of 24 layers on 4 stages|leaves 19 layers for the 3 stages between' \
	run uneven.cfg
variant unevenv 's/  pp = 1;/  pp = 4; schedule = "interleaved"; interleave = 2; first_stage_layers = 3;/'
expect 2 'unevenv.cfg:18: parallel.first_stage_layers|found 3 layers on the first stage with interleave = 2|expected a multiple of 2' \
	run unevenv.cfg
variant unevenboth 's/  pp = 1;/  pp = 4; first_stage_layers = 6; account_for_embedding = true;/'
expect 2 'unevenboth.cfg:18: parallel.first_stage_layers|found 6 with parallel.account_for_embedding = true|expected one of the two ways' \
	run unevenboth.cfg
variant accounted 's/  pp = 1;/  pp = 4; schedule = "interleaved"; interleave = 2; account_for_embedding = true; account_for_loss = true;/'
expect 2 'accounted.cfg:18: parallel.account_for_embedding|found 24 layers + 1 (embedding) + 1 (loss) = 26 on pp x interleave = 8 virtual stages|expected a multiple of 8' \
	run accounted.cfg
variant unevenpp1 's/  pp = 1;/  pp = 1; last_stage_layers = 4;/'
expect 2 'unevenpp1.cfg:18: parallel.last_stage_layers|found 4 with parallel.pp = 1|expected pp >= 2' \
	run unevenpp1.cfg
variant unevenzero 's/  pp = 1;/  pp = 4; first_stage_layers = 0;/'
expect 2 'unevenzero.cfg:18|parallel.first_stage_layers|found 0' run unevenzero.cfg
variant unevenok 's/  pp = 1;/  pp = 4; first_stage_layers = 4; last_stage_layers = 4;/'
checks=$((checks + 1))
(cd "$TMP" && "$BIN" run unevenok.cfg) >"$TMP/out" 2>"$TMP/err" ||
	fail "trainsim run unevenok.cfg (4 + 8 + 8 + 4 layers): exit $?: $(head -c 400 "$TMP/err")"
# selective recompute is the transformer attention's: refused on a layer list
variant rsel 's/model = "gpt3-1.3b";/model = "resnet50";/; s/  seq_len = 2048;//; s/  precision = "bf16";/  precision = "bf16"; recompute = "selective";/; s/tokens = 1.0e9;/samples = 1.0e6;/'
expect 2 'rsel.cfg:12: training.recompute|found "selective" for the layer-list model resnet50|expected "none" or "full"' \
	run rsel.cfg

# Physically meaningless hardware figures in a copied data directory: refused
# by the catalog on their file, line and key (they once overflowed the
# simulated clock and were reported as a dependency cycle).
hw_case() { # FILE LINE SED NEEDLES
	rm -rf "$TMP/hw" && mkdir -p "$TMP/hw"
	cp -r "$SRC/configs" "$SRC/models" "$TMP/hw/"
	line=$(grep -n "$2" "$TMP/hw/configs/hardware/$1" | head -1 | cut -d: -f1)
	sed -i "${line}s/$3" "$TMP/hw/configs/hardware/$1"
	TS_DATA_DIR=$TMP/hw expect 2 "$1:$line|$4" run "$TMP/hw/configs/scenarios/default.cfg"
}
hw_case links.cfg 'bandwidth = "300 GB/s"' '"300 GB\/s"/"1e-300 B\/s"/' \
	'links[4].bandwidth|found 1e-300 B/s|expected 1000 to 1e+15 B/s'
hw_case links.cfg 'latency = "0.5 us"' '"0.5 us"/"1e300 s"/' 'latency|found 1e+300 s|expected 0 to 1 s'
hw_case gpus.cfg 'bf16 = 0.8587; };' 'bf16 = 0.8587; };/bf16 = 1e-300; };/' \
	'mamf_eff.bf16|found 1e-300|expected 0.001 to 1'
hw_case gpus.cfg 'tdp = "400 W"' '"400 W"/"1e9 W"/' 'tdp|found 1e+09 W|expected 1 to 100000 W'
hw_case gpus.cfg 'memory = "31.75 GiB"' '"31.75 GiB"/"1e20 B"/' 'memory|found 1e+20 B|expected 1e+06 to 1e+15 B'


# a count given twice, as nodes and as cluster.nodes, names where the first
# came from: its line, or the --set that made it (it said "line 0")
expect 2 "cluster.nodes: found it beside the scenario's nodes (--set nodes=2)" \
	run base.cfg --set nodes=2 --set cluster.nodes=4

# Control characters from an input are shown escaped, never printed raw: a
# sweep axis value that would set the terminal's title and clear the screen,
# a newline in an axis key (one line still), a scenario name with both
esc=$(printf '\033')
printf 'base = "%s";\naxes = { nodes = "\\x1b]0;PWNED\\x07\\x1b[2J"; };\n' "$TMP/base.cfg" >"$TMP/esc.cfg"
expect 2 'esc.cfg:2: nodes: found "\x1b]0;PWNED\x07\x1b[2J" (a string)' sweep esc.cfg
printf 'base = "no\\nsuch";\naxes = { nodes = [1, 2]; };\n' >"$TMP/escbase.cfg"
expect 2 'escbase.cfg:1: base: no\nsuch: cannot open the file' sweep escbase.cfg
checks=$((checks + 1))
"$BIN" run "$TMP/base.cfg" --set 'name="a\x1b[2Jb\nc"' >"$TMP/out" 2>"$TMP/err" &&
	head -1 "$TMP/out" | grep -qF 'a\x1b[2Jb\nc  (8 GPUs)' && ! grep -q "$esc" "$TMP/out" ||
	fail "a name with control characters: $(head -2 "$TMP/out" | cat -v) $(cat "$TMP/err")"
checks=$((checks + 1))
grep -q "$esc" "$TMP/err" && fail "a raw escape reached stderr: $(cat -v "$TMP/err")"
# ... and in CSV escaped as in text (never raw): run's CSV is two lines
# without ESC; a sweep's parts with that name merge and plot (a quoted
# newline once made merge and plot refuse trainsim's own CSV)
checks=$((checks + 1))
"$BIN" run "$TMP/base.cfg" --set 'name="a\x1b[2Jb\nc"' --format csv >"$TMP/out" 2>"$TMP/err"
[ "$(wc -l <"$TMP/out")" -eq 2 ] && grep -qF 'a\x1b[2Jb\nc' "$TMP/out" && ! grep -q "$esc" "$TMP/out" ||
	fail "a name with control characters in CSV: $(head -2 "$TMP/out" | cat -v) $(cat "$TMP/err")"
printf 'base = "%s";\naxes = { nodes = [1, 2]; };\n' "$TMP/base.cfg" >"$TMP/nlsweep.cfg"
for k in 1 2; do
	"$BIN" sweep "$TMP/nlsweep.cfg" --set 'name="l1\nl2, \"q\""' --shard $k/2 -o "$TMP/nlp$k.csv" 2>/dev/null
done
checks=$((checks + 1))
"$BIN" merge "$TMP/nlp1.csv" "$TMP/nlp2.csv" -o "$TMP/nlm.csv" 2>"$TMP/err" &&
	[ "$(wc -l <"$TMP/nlm.csv")" -eq 3 ] && grep -qF '"l1\nl2, ""q"""' "$TMP/nlm.csv" ||
	fail "merge of parts with a newline in the name: $(cat "$TMP/err")"
checks=$((checks + 1))
"$BIN" plot breakdown "$TMP/nlm.csv" -o "$TMP/nl.png" 2>"$TMP/err" ||
	fail "plot of a sweep with a newline in the name: $(cat "$TMP/err")"
# a part or a file to resume whose figures were edited (nan, 1e999, -1e308) is
# refused at its file, line and column (both were taken as they stood, and
# plot breakdown drew them)
# tamper FILE ROW COLUMN VALUE: set one field of a sweep CSV
tamper() {
	python3 - "$@" <<'PY'
import csv, sys
path, row, col, val = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
with open(path, newline="") as f:
    rows = list(csv.reader(f))
rows[row][rows[0].index(col)] = val
with open(path, "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows(rows)
PY
}
tamper "$TMP/nlp2.csv" 1 iteration_time_s 1e999
expect 2 'nlp2.csv:2: iteration_time_s: found "1e999" in column|expected a finite number >= 0' \
	merge nlp1.csv nlp2.csv -o nlm2.csv
tamper "$TMP/nlm.csv" 2 compute_s -1e308
expect 2 'nlm.csv:3: compute_s: found "-1e308"|--resume --force starts over' \
	sweep nlsweep.cfg --set 'name="l1\nl2, \"q\""' -o nlm.csv --resume
expect 2 'nlm.csv:3: compute_s: found "-1e308", expected a finite number >= 0' \
	plot breakdown nlm.csv -o nlm.png

# calibrate --runs holds the fit to the bounds of --measured-iteration-s: a
# run 1e6 s against the catalog's 6.6 s (1.5e5 times slower, beyond the 64 a
# constant may move) is refused naming its row, and so is 1e300, which once
# reached the simulator as tc_sustain = 0 and blamed the scenario
cp "$SRC/examples/measure-small-predict-big/node1.cfg" "$TMP/node1.cfg"
printf 'scenario,set,metric,value\nnode1.cfg,,iteration_time_s,1e6\n' >"$TMP/slow.csv"
printf 'scenario,set,metric,value\nnode1.cfg,,iteration_time_s,3\nnode1.cfg,,iteration_time_s,1e300\n' >"$TMP/huge.csv"
expect 2 'runs: slow.csv:2 (node1.cfg): iteration_time_s: found 1e+06|expected a run within 64 times|nothing written' calibrate --runs slow.csv -o out.cfg
expect 2 'runs: huge.csv:3 (node1.cfg): iteration_time_s: found 1e+300|expected a run within 64 times' calibrate --runs huge.csv -o out.cfg
printf 'scenario,set,metric,value\nnode1.cfg,,iteration_time_s,7\nnode1.cfg,training.bogus=3,iteration_time_s,3\n' >"$TMP/badset.csv"
expect 2 'runs: badset.csv:3: --set training.bogus=3: training.bogus: found unknown key' calibrate --runs badset.csv -o out.cfg
checks=$((checks + 1))
[ -e "$TMP/out.cfg" ] && fail "a refused calibrate --runs wrote its overrides"

# calibrate --nccl-tests takes an all-reduce of the scenario's GPUs only:
# an all_gather table (redop "none"), ranks on H100s for an A100 scenario,
# and an H100 plateau relabelled A100 (481 GB/s, beyond nvlink3's 299 GB/s
# at efficiency 1) are refused, not fitted with the efficiency stuck at 1
"$BIN" collective --cluster dgx-a100-80gb --op all_gather -b 8 -e 8G -f 2 --format nccl-tests >"$TMP/ag.txt"
"$BIN" collective --cluster dgx-h100 -b 8 -e 8G -f 2 --format nccl-tests >"$TMP/h100.txt"
sed 's/H100-SXM5-80GB/A100-SXM4-80GB/' "$TMP/h100.txt" >"$TMP/fast.txt"
D="$SRC/configs/scenarios/default.cfg"
expect 2 'ag.txt:|found a row with redop none|all_reduce_perf' calibrate "$D" --nccl-tests ag.txt -o out.cfg
expect 2 'h100.txt: found ranks on H100-SXM5-80GB|(A100-SXM4-80GB)' calibrate "$D" --nccl-tests h100.txt -o out.cfg
expect 2 'fast.txt: found a busbw plateau of 480|nvlink3|upper bound 1|nothing written' calibrate "$D" --nccl-tests fast.txt -o out.cfg
checks=$((checks + 1))
[ -e "$TMP/out.cfg" ] && fail "a refused calibrate --nccl-tests wrote its overrides"

# model.layers has an upper bound (1024, 8 x Llama 3.1 405B's 126): 10,000
# layers once ran for minutes, 100,000 for most of an hour
expect 2 'model.layers: found 2000, expected an integer from 1 to 1024' run base.cfg --set model.layers=2000

# queue: a lognormal duration whose mean overflows names the duration (it
# said "rate: found 0 jobs/s", a rate the user never gave), and a job whose
# end lies beyond the simulated time's range is named by its id
expect 2 'duration: found parameters 3600 and 100, whose mean run time 1.798e+308 s or more (it overflows)|expected a smaller log-sd' \
	queue --synthetic 100 --duration lognormal:3600:100 --cluster dgx-h100 --nodes 4
printf 'id,submit_s,gpus,duration_s\nj1,0,8,100\nbig,10,8,1e300\n' >"$TMP/far.csv"
expect 2 'job big: found an end 1e+300 s after 10 s, beyond 292 years' queue far.csv --cluster dgx-h100 --nodes 4

# a directory given as a CSV is refused by name (it said ".:1: reading failed")
mkdir -p "$TMP/jobsdir"
expect 2 'jobsdir: found a directory, expected a CSV file' queue jobsdir --cluster dgx-h100 --nodes 4

# a node's rated power out of all reason is refused with its bounds (it was
# accepted and the energy became "n/a (not finite)")
printf 'model = "gpt3-1.3b";\ncluster = { base = "dgx-a100-80gb"; name = "x";\n  power = { node_max = "1e300 kW"; source = "t"; }; };\nnodes = 1;\n' >"$TMP/pw.cfg"
expect 2 'pw.cfg:3: cluster.power.node_max: found 1e+303 W, expected 1 W to 10 MW' run pw.cfg

# queue: errors say what is wrong where the user wrote it. A submit time
# past the simulated clock (int64 ns, 292 years) names file, line and
# column (it said "submit_s: found a submit time 1e+300 s after the first");
# a synthetic mix whose arrivals would span it names the rate and the
# options (it blamed a submit_s the user never wrote); a sacct row whose
# End precedes its Start is named (it was dropped: "found no GPU job that
# ran"); --synthetic is bounded (2^26 was accepted and took 1.9 GB)
printf 'id,submit_s,gpus,duration_s\nj1,0,8,100\nfar,1e300,8,100\n' >"$TMP/farsub.csv"
expect 2 'farsub.csv:3: submit_s: found "1e300"|from 0 to 9.2e9' queue farsub.csv --cluster dgx-h100 --nodes 2
expect 2 'rate: found 0.000112 jobs/hour|1000 arrivals span more than 292 years|--rate or --load|--sizes' \
	queue --synthetic 1000 --sizes 100000:1 --nodes 2 --cluster dgx-h100
printf 'JobID|Submit|Start|End|AllocTRES\n1|2024-03-01T12:00:00|2024-03-01T12:10:00|2024-03-01T11:00:00|gres/gpu=8\n' >"$TMP/backwards.txt"
expect 2 'backwards.txt:2: End: found "2024-03-01T11:00:00", expected a time at or after Start (2024-03-01T12:10:00)' \
	queue backwards.txt --cluster dgx-h100 --nodes 2
expect 1 '--synthetic: found "67108864", expected a job count from 1 to 1048576' \
	queue --synthetic 67108864 --nodes 2 --cluster dgx-h100
# a user name from the job list reaches the terminal escaped, as run's names do
printf 'id,submit_s,gpus,duration_s,user\nj1,0,8,100,\033[31mred\a\n' >"$TMP/ctl.csv"
checks=$((checks + 1))
(cd "$TMP" && "$BIN" queue ctl.csv --cluster dgx-h100 --nodes 2 2>/dev/null) >"$TMP/ctl.out"
grep -qF '\x1b[31mred\x07' "$TMP/ctl.out" && ! grep -q "$(printf '\033')" "$TMP/ctl.out" ||
	fail "queue: a user name was not escaped: $(cat -v "$TMP/ctl.out")"

# collective: a size that is not whole float elements is said to be rounded
# (-b 3 silently ran 0 and 4 bytes), a 0-byte size is left out (NCCL's
# taskAppend returns for a count of 0, launching no kernel; it showed
# 10.18 us), and sizes that all round to 0 are refused
checks=$((checks + 1))
"$BIN" collective --cluster dgx-a100-80gb -b 3 -e 8 >"$TMP/co.out" 2>"$TMP/co.err"
grep -qF '# sizes rounded down to whole float elements, as nccl-tests does (3 B ran as 0 B)' "$TMP/co.out" &&
	grep -qF '# 1 size of 0 B left out' "$TMP/co.out" && ! grep -qE '^ +0 +0 ' "$TMP/co.out" ||
	fail "collective -b 3: $(cat "$TMP/co.out" "$TMP/co.err")"
expect 2 '-e: found sizes 0 to 3 bytes, each of which rounds down to 0 B|expected -e of at least 4 bytes' \
	collective --cluster dgx-a100-80gb -b 0 -e 3

# name limits are of bytes, and said so (100 x "é" is 200 bytes: "at most 159
# characters" refused it); the ", nodes=2" that --set adds to a file's name
# survives a name of 159 bytes (it was cut off), the name shortened instead
NAME_E=$(printf 'é%.0s' $(seq 100))
expect 2 'name: found|of 200 bytes, expected at most 159 bytes' run base.cfg --set "name=\"$NAME_E\""
printf 'model = "gpt3-1.3b";\ncluster = "dgx-a100-80gb";\nname = "%s";\n' "$(printf 'a%.0s' $(seq 159))" >"$TMP/long.cfg"
checks=$((checks + 1))
"$BIN" run "$TMP/long.cfg" --set nodes=2 --format json >"$TMP/long.json" 2>"$TMP/long.err" &&
	python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["name"]; sys.exit(not (n.endswith("a..., nodes=2") and len(n.encode()) == 159))' "$TMP/long.json" ||
	fail "a 159-byte name with --set nodes=2: $(grep -m1 '"name"' "$TMP/long.json") $(cat "$TMP/long.err")"

finish
