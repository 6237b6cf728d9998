# Shared fixtures: the trainsim CLI under test ($TRAINSIM_CLI, else the
# source tree's build/trainsim) and the source tree, for comparisons with what
# the CLI prints.
# SPDX-License-Identifier: MIT
import json
import os
import subprocess

import pytest

import trainsim


@pytest.fixture(scope="session")
def src():
    return trainsim.source_dir() or os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def cli(src):
    binary = os.environ.get("TRAINSIM_CLI") or os.path.join(src, "build", "trainsim")
    assert os.path.exists(binary), "no trainsim CLI at %s (set TRAINSIM_CLI)" % binary

    def call(*args, cwd=None, as_json=False):
        p = subprocess.run([binary, *args], capture_output=True, text=True, cwd=cwd or src)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout) if as_json else p.stdout

    return call
