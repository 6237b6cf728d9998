#!/bin/bash
# README.md's worked example is the program's: every command its blocks show
# ("$ make run", "$ build/trainsim ...", with "\" continuations and pipes) is
# run here from the source folder, and each line of the block under the
# command is a line of that output, in order ("..." marks lines left out;
# trailing blanks aside). The figures of the section's prose are then
# checked against those outputs (check_prose). Regenerate the blocks:
# TS_REGEN=1 bash tests/cli_readme.sh BUILD/trainsim . (a whole block is
# replaced by its output; in a block with "...", each line by the output's
# line with the same label, the text before its first two blanks).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"
. "$(dirname "$0")/examplelib.bash"

checks=$((checks + 1))
python3 - "$SRC" "$BIN" "$TMP" <<'PY' || fail "README.md's worked example differs from the program's output"
import os, re, subprocess, sys
src, binp, tmp = sys.argv[1:]
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(src, "tests"))
from readme_regen import missing_line, regen_lines
text = open(os.path.join(src, "README.md")).read()
m = re.search(r"^## A worked example\n(.*?)^## ", text, re.S | re.M)
assert m, "README.md has no section '## A worked example'"
section = m.group(1)
open(os.path.join(tmp, "section.md"), "w").write(section)
bad, outs, blocks, regen = [], [], 0, []
for block in re.findall(r"^```\n(.*?)^```", section, re.S | re.M):
    lines = block.split("\n")[:-1]
    if not lines or not lines[0].startswith("$ "):
        continue
    blocks += 1
    cmd = lines[0][2:]
    i = 1
    while cmd.endswith("\\") and i < len(lines):
        cmd = cmd[:-1] + " " + lines[i].strip()
        i += 1
    want = lines[i:]
    head = lines[:i]
    if cmd == "make run":
        # the Makefile's target, without the build step's own line
        cmd = "sh cmake/run-default.sh build/trainsim"
        head += [l for l in want if l.startswith("trainsim: building in ")]
        want = [l for l in want if not l.startswith("trainsim: building in ")]
    shell = re.sub(r"(?<![\w/])build/trainsim\b", binp, cmd)
    r = subprocess.run(["bash", "-c", shell], cwd=src, capture_output=True, text=True)
    if r.returncode:
        bad.append("%s: exit %d: %s" % (cmd, r.returncode, r.stderr[:300]))
        continue
    outs.append(r.stdout)
    got = [l.rstrip() for l in r.stdout.split("\n")]
    if os.environ.get("TS_REGEN") == "1":
        new = regen_lines(want, got, r.stdout)
        regen.append((block, "\n".join(head + new) + "\n"))
        continue
    w = missing_line(want, got)
    if w is not None:
        bad.append("%s: the line %r is not in its output (in order)" % (cmd, w))
if blocks < 5:
    bad.append("found %d blocks with a command, expected the six of the worked example" % blocks)
open(os.path.join(tmp, "readme.out"), "w").write("\n".join(outs))
if regen:
    for a, b in regen:
        text = text.replace("```\n" + a + "```", "```\n" + b + "```", 1)
    open(os.path.join(src, "README.md"), "w").write(text)
    print("regenerated the worked example of README.md")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
# The examples of README.md's other sections are checked the same way: every
# block whose lines start with "$ build/trainsim" or "$ trainsim" (several
# commands a block, pipes to head, tail, cat and jq) runs from a scratch
# folder that links the source's configs/, examples/ and models/ (so files a
# command writes stay out of the source), and each line under a command is a
# line of its output, in order ("..." marks lines left out, such as a
# timing). inline.cfg is the scenario the search example describes.
# TS_REGEN=1 regenerates them as above.
checks=$((checks + 1))
mkdir -p "$TMP/rd"
for d in configs examples models; do ln -s "$SRC/$d" "$TMP/rd/$d"; done
printf 'model = "gpt3-1.3b";\ncluster = { base = "dgx-a100-80gb"; nodes = 2; };\n' >"$TMP/rd/inline.cfg"
python3 - "$SRC" "$BIN" "$TMP/rd" <<'PY' || fail "README.md's examples outside the worked example differ from the program's output"
import os, re, shutil, subprocess, sys
src, binp, cwd = sys.argv[1:]
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(src, "tests"))
from readme_regen import missing_line, regen_lines
path = os.path.join(src, "README.md")
text = open(path).read()
m = re.search(r"^## A worked example\n(.*?)^## ", text, re.S | re.M)
rest = text[:m.start()] + text[m.end():] if m else text
bad, regen, ran = [], [], 0
for block in re.findall(r"^```\n(.*?)^```", rest, re.S | re.M):
    lines = block.split("\n")[:-1]
    if not lines or not re.match(r"\$ (build/)?trainsim ", lines[0]):
        continue
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            out.append(lines[i])
            i += 1
            continue
        head, cmd = [lines[i]], lines[i][2:]
        i += 1
        while cmd.endswith("\\") and i < len(lines):
            cmd = cmd[:-1] + " " + lines[i].strip()
            head.append(lines[i])
            i += 1
        want = []
        while i < len(lines) and not lines[i].startswith("$ "):
            want.append(lines[i])
            i += 1
        out += head
        if "| jq" in cmd and not shutil.which("jq"):
            out += want
            continue
        shell = re.sub(r"(?<![\w/])(build/)?trainsim\b", binp, cmd)
        r = subprocess.run(["bash", "-c", shell], cwd=cwd, capture_output=True, text=True)
        ran += 1
        if r.returncode:
            bad.append("%s: exit %d: %s" % (cmd, r.returncode, r.stderr[:300]))
            out += want
            continue
        got = [l.rstrip() for l in r.stdout.split("\n")]
        if os.environ.get("TS_REGEN") == "1":
            out += regen_lines(want, got, r.stdout, keep_if_empty=True)
            continue
        out += want
        w = missing_line(want, got)
        if w is not None:
            bad.append("%s: the line %r is not in its output (in order)" % (cmd, w))
    if os.environ.get("TS_REGEN") == "1":
        regen.append((block, "\n".join(out) + "\n"))
if ran < 8:
    bad.append("ran %d commands of README.md's other examples, expected at least 8" % ran)
if regen:
    for a, b in regen:
        text = text.replace("```\n" + a + "```", "```\n" + b + "```", 1)
    open(path, "w").write(text)
    print("regenerated README.md's other examples")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

# Facts: 20 tokens per parameter (Hoffmann et al. 2022, Chinchilla: the
# compute-optimal ratio the 26 B tokens follow); the default scenario's 512 sequences of 2048 tokens
# (configs/scenarios/default.cfg); 40 MiB buckets (its parallel.bucket);
# 5.3 GB of fp32 gradients: 1,315,819,520 parameters (models/gpt3-1.3b.cfg
# as `trainsim list models gpt3-1.3b` derives them) x 4 bytes
PROSE_README=$TMP/section.md PROSE_OUT=$TMP/readme.out check_prose README 20 512 2048 40 \
	"5.3=1315819520*4/1e9"
finish
