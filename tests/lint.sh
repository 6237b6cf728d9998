#!/usr/bin/env bash
# Test-suite hygiene that the compiler cannot see: every Check test case is
# made by tu_tcase (tests/testutil.c), which turns Check's 4 s wall-clock
# timer off, so no suite fails because the machine is loaded; and the
# public API's files (sim/api/) leave report writing to sim/report/.
# Usage: bash lint.sh SOURCE_DIR
# SPDX-License-Identifier: MIT
set -u
src=${1:?usage: lint.sh SOURCE_DIR}
cd "$src" || exit 1
bad=0 n=0
for f in tests/check_*.c; do
	n=$((n + 1))
	if grep -n 'tcase_create\|tcase_set_timeout' "$f" >&2; then
		echo "lint: $f makes a test case without tu_tcase (Check's timer would stay armed)" >&2
		bad=$((bad + 1))
	fi
done
echo "lint: $n suites, $bad using Check's timer"
# sim/api/ is a facade: it checks arguments, calls the computation and then
# a writer of sim/report/; it writes no report content itself. The files
# listed write only a line that another layer made (a sweep's CSV header,
# laid out by sim/sweep/ with report/sweeprow's columns); no other file of
# sim/api/ may print.
api_printing="sweep.c data.c"
n=$((n + 1))
api_bad=0
for f in sim/api/*.c; do
	case " $api_printing " in *" ${f##*/} "*) continue ;; esac
	if grep -nE '\b(v?printf|v?fprintf|fputs|fputc|putc|putchar|puts|fwrite|json_dumpf|table_print|table_print_csv)[[:space:]]*\(' "$f" >&2; then
		echo "lint: $f writes report content; sim/report/ holds the writers" >&2
		api_bad=1
	fi
done
bad=$((bad + api_bad))
echo "lint: sim/api/ without report writing outside the listed files: $([ $api_bad -eq 0 ] && echo yes || echo no)"
echo "$((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
