#!/bin/sh
# Install the Debian packages trainsim needs, when they are missing: directly
# as root, through sudo when it needs no password, else print the exact
# command to run.
#   sh cmake/deps.sh run    what building and running need (make run):
#                           compiler and OpenMP (gcc), CMake, pkg-config,
#                           GSL, libconfig, jansson, zlib, gnuplot
#   sh cmake/deps.sh test   and the test tools (make test): Check, clang and
#                           its libFuzzer runtime, clang-format, python3 and
#                           its jsonschema (tests/cli_schema.sh), pandas
#                           (tests/cli_pandas.sh), and what the Python
#                           package and its notebook need (tests/cli_python.sh:
#                           venv, pip, setuptools, cffi, matplotlib, pytest,
#                           nbformat, nbclient, ipykernel)
# SPDX-License-Identifier: MIT
set -u
run_pkgs="cmake gcc make pkg-config libgsl-dev libconfig-dev libjansson-dev zlib1g-dev gnuplot-nox"
test_pkgs="check clang libclang-rt-14-dev clang-format python3 python3-jsonschema python3-pandas"
test_pkgs="$test_pkgs python3-venv python3-pip python3-setuptools python3-cffi python3-matplotlib"
test_pkgs="$test_pkgs python3-pytest python3-nbformat python3-nbclient python3-ipykernel"
case "${1:-run}" in
run) pkgs=$run_pkgs ;;
test) pkgs="$run_pkgs $test_pkgs" ;;
*)
	echo "usage: sh cmake/deps.sh run|test" >&2
	exit 2
	;;
esac
if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "trainsim: not a Debian-like system; make sure these (or your distribution's" >&2
	echo "  equivalents) are installed: $pkgs" >&2
	exit 0
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# A package satisfied by an equivalent (e.g. a newer clang runtime) is fine.
case "$missing" in
*libclang-rt-14-dev*)
	if command -v clang >/dev/null 2>&1; then
		res=$(clang -print-resource-dir 2>/dev/null)
		if ls "$res"/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
			ls "$res"/lib/*/libclang_rt.fuzzer*.a >/dev/null 2>&1; then
			missing=$(echo "$missing" | sed 's/ libclang-rt-14-dev//')
		fi
	fi
	;;
esac
# jsonschema installed for python3 otherwise (pip) is as good
case "$missing" in
*python3-jsonschema*)
	if python3 -c 'import jsonschema' >/dev/null 2>&1; then
		missing=$(echo "$missing" | sed 's/ python3-jsonschema//')
	fi
	;;
esac
[ -z "$missing" ] && exit 0
cmd="apt-get install -y$missing"
if [ "$(id -u)" = 0 ]; then
	echo "trainsim: installing$missing" >&2
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive $cmd -qq) >&2 || {
		echo "trainsim: could not install; run: $cmd" >&2; exit 1; }
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	echo "trainsim: installing$missing (sudo)" >&2
	(sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive $cmd -qq) >&2 || {
		echo "trainsim: could not install; run: sudo $cmd" >&2; exit 1; }
else
	echo "trainsim: missing Debian packages. Run:" >&2
	echo "  sudo apt-get update && sudo $cmd" >&2
	exit 1
fi
