# Golden tests of examples/NAME: source after clilib.bash, define example()
# printing the example's commands' output (run in examples/NAME), then call
# check_example NAME. The output must equal examples/NAME/expected-output.txt
# and appear verbatim in examples/NAME/README.md.
# Regenerate: TS_REGEN=1 bash tests/cli_example_NAME.sh BUILD/trainsim .
# (then paste the new output into the README).
# SPDX-License-Identifier: MIT
check_example() {
	local name=$1 ex="$SRC/examples/$1"
	checks=$((checks + 1))
	(cd "$ex" && example) >"$TMP/out" 2>"$TMP/err" || fail "$name: exit $?: $(head -c 600 "$TMP/err")"
	if [ "${TS_REGEN:-}" = 1 ]; then
		cp "$TMP/out" "$ex/expected-output.txt"
		echo "regenerated $ex/expected-output.txt"
	fi
	if ! cmp -s "$TMP/out" "$ex/expected-output.txt"; then
		fail "$name: output differs from expected-output.txt:"
		diff "$ex/expected-output.txt" "$TMP/out" | head -20
	fi
	checks=$((checks + 1))
	python3 -c 'import sys; r = open(sys.argv[1]).read(); o = open(sys.argv[2]).read()
sys.exit(0 if o.strip() in r else 1)' "$ex/README.md" "$ex/expected-output.txt" ||
		fail "$name: README.md does not hold expected-output.txt verbatim"
}

# check_prose NAME [FACT | NUMBER=EXPR]...: every number in the prose of
# examples/NAME/README.md (outside code blocks, indented commands and
# `code`; not the last paragraph, which says how it is checked) is the
# program's: it appears in expected-output.txt (commas aside: 26,143.63 is
# 26143.63), or in the example's input files (*.cfg: prices, batch sizes),
# or is a FACT given here (a figure of a cited source, quoted as such), or
# is NUMBER=EXPR: NUMBER is EXPR (Python arithmetic over figures of the
# output, and whole numbers such as 100 or a GPU count) rounded to
# NUMBER's decimals, each figure with a decimal point in EXPR taken from
# the output. Figures compare by value (199,000 is 199000.0). A number with
# a letter right after it other than x (1B; S19's 19 has one before) is a
# name, not a figure. Figures of CSV or table output count too: a comma
# ends a field as well as grouping thousands (so 8,1.25 gives 8 and 1.25),
# and a figure of three or more significant digits may be quoted rounded
# (662 or 662.13 for a CSV's 662.1305658625854; 94.6 % for 0.9458 is a
# NUMBER=EXPR). The output is this run's (TMP/out, as check_example leaves
# it), so the prose is checked against what the program prints now. A
# README other than an example's: PROSE_README=FILE (its folder's *.cfg, *.csv are
# the inputs), PROSE_OUT=FILE the output it quotes.
check_prose() {
	local name=$1 readme=${PROSE_README:-$SRC/examples/$1/README.md}
	shift
	checks=$((checks + 1))
	python3 - "$readme" "${PROSE_OUT:-$TMP/out}" "$@" <<'PY' || fail "$name: README.md prose quotes figures the program does not print"
import glob, os, re, sys
readme_path, out_path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
ex = os.path.dirname(readme_path)
NUM = r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![A-Za-wyz\d])"
def val(n):
    return float(n.replace(",", ""))
# a figure in a CSV field or a table cell: a comma before it ends a field
FIELD = r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![A-Za-df-wyz\d])"
def nums(text):
    return {val(m) for m in re.findall(NUM, text)}
def sig(n):
    return len(n.replace(",", "").replace(".", "").lstrip("0"))
out_text = open(out_path).read()
out = nums(out_text) | {float(m) for m in re.findall(FIELD, out_text)}
def rounded(n):
    """n (a figure as quoted, 3+ significant digits) is an output figure rounded to n's decimals"""
    if sig(n) < 3:
        return False
    dec = len(n.split(".")[1]) if "." in n else 0
    k = val(n)
    return any(abs(x - k) <= 0.5 * 10 ** -dec * (1 + 1e-9) for x in out)
inputs = set()
for f in glob.glob(ex + "/*.cfg") + glob.glob(ex + "/*.csv"):
    text = open(f).read()
    inputs |= nums(text) | {float(m) for m in re.findall(FIELD, text)}
readme = open(readme_path).read()
prose = re.sub(r"```.*?```", "", readme, flags=re.S)
prose = "\n".join(l for l in prose.split("\n") if not l.startswith("    "))
prose = re.sub(r"`[^`]*`", "", prose)
prose = prose[: prose.rfind("Checked by")] if "Checked by" in prose else prose
facts, computed, bad = set(), {}, []
for a in args:
    if "=" in a:
        n, expr = a.split("=", 1)
        for x in re.findall(r"\d+\.\d+", expr):
            if val(x) not in out and not rounded(x):
                bad.append("%s: %s is not a figure of the output" % (a, x))
        got = eval(expr, {"__builtins__": {}})
        dec = len(n.split(".")[1]) if "." in n else 0
        if "%.*f" % (dec, got) != n.replace(",", ""):
            bad.append("%s: the expression gives %.*f" % (a, dec, got))
        computed[n] = a
    else:
        facts.add(a)
used = set()
for n in re.findall(NUM, prose):
    used.add(n)
    k = val(n)
    if (k not in out and not rounded(n) and k not in inputs and k not in {val(f) for f in facts}
            and n not in computed):
        bad.append("%s is neither in the output, the inputs, the facts nor computed" % n)
for a in list(facts) + list(computed):
    if a not in used:
        bad.append("%s is given but the prose does not quote it" % a)
if bad:
    print("\n".join(sorted(set(bad))))
    sys.exit(1)
PY
}
