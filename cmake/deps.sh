#!/bin/sh
# Install the Debian packages trainsim builds with, when they are missing:
# directly as root, through sudo when it needs no password, else print the
# exact command to run. SPDX-License-Identifier: MIT
set -u
pkgs="cmake gcc make pkg-config libgsl-dev libconfig-dev libjansson-dev check clang libclang-rt-14-dev gnuplot-nox clang-format"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# A package satisfied by an equivalent (e.g. a newer clang runtime) is fine.
if [ -n "$missing" ] && command -v clang >/dev/null 2>&1; then
	res=$(clang -print-resource-dir 2>/dev/null)
	if ls "$res"/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
		missing=$(echo "$missing" | sed 's/ libclang-rt-14-dev//')
	fi
fi
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
