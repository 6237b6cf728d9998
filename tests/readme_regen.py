"""How tests/cli_readme.sh compares a README block with its command's output,
and what TS_REGEN=1 writes for it.

A block without "..." is replaced whole by the command's output; in a block
with "...", each line is replaced by the output's line with the same label
(the text before its first two blanks), in order, and a line whose label the
output lacks is kept.
SPDX-License-Identifier: MIT
"""
import re


def label(line):
    """The text of a table line before its first two blanks."""
    return re.split(r"\S\s{2,}", line.strip() + "  ", 1)[0]


def regen_lines(want, got, stdout, keep_if_empty=False):
    """The lines to store under a command: want (the block's lines), got (the
    output's lines, right-stripped), stdout (the whole output). keep_if_empty:
    an empty output keeps want."""
    if any(w.strip() == "..." for w in want):
        new, at = [], 0
        for w in want:
            k = next((j for j in range(at, len(got))
                      if w.strip() != "..." and label(got[j]) == label(w)), None)
            if k is not None:
                at = k + 1
            new.append(got[k] if k is not None else w)
        return new
    if keep_if_empty and not stdout.strip():
        return want
    return stdout.rstrip("\n").split("\n")


def missing_line(want, got):
    """The first line of want (the block's lines, "..." marking lines left
    out) that is not in got (the output's lines) after the lines before it,
    or None when all are there in order."""
    at = 0
    for w in want:
        if w.strip() == "...":
            continue
        try:
            at = got.index(w.rstrip(), at) + 1
        except ValueError:
            return w
    return None
