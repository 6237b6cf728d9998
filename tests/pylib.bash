# The Python that the Python tests run (tests/cli_pandas.sh, tests/cli_python.sh),
# sourced after clilib.bash: $TS_PYTHON when set, else the first of Debian's
# /usr/bin/python3 and the python3 on PATH that imports every module named in
# $PY_NEEDS (Debian's python3-* packages, which sh cmake/deps.sh test installs,
# live in /usr/lib/python3/dist-packages, which only Debian's python3 reads:
# a python3 of pyenv or conda earlier on PATH does not see them). Fails, not
# skips, when none does: a check left unrun would pass unseen.
# SPDX-License-Identifier: MIT
PY=""
for cand in "${TS_PYTHON:-}" /usr/bin/python3 python3; do
	[ -n "$cand" ] || continue
	command -v "$cand" >/dev/null 2>&1 || continue
	if "$cand" -c "import ${PY_NEEDS// /, }" >/dev/null 2>&1; then
		PY=$(command -v "$cand")
		break
	fi
done
if [ -z "$PY" ]; then
	echo "FAIL: no python3 imports ${PY_NEEDS// /, } (sh cmake/deps.sh test installs Debian's packages, or set TS_PYTHON)"
	exit 1
fi

# pyc NAME SCRIPT [ARGS...]: clilib's py with $PY.
pyc() {
	local msg
	checks=$((checks + 1))
	if ! msg=$("$PY" -c "$2" "$TMP/$1" "${@:3}" 2>&1); then
		fail "$1: $msg"
	fi
}
