"""The README's "first five minutes" session, replayed: each command's output is what
the README shows (paths and times aside)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from .conftest import ROOT


def _session() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## The first five minutes", 1)[1].split("```console\n", 1)[1]
    block = block.split("```", 1)[0]
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return [(cmd, "\n".join(out) + "\n") for cmd, out in steps]


@pytest.mark.slow
def test_the_first_five_minutes_are_what_the_readme_shows(tmp_path):
    env = {**os.environ, "COLUMNS": "88"}
    env.pop("PUBCLI_LIBRARY", None)
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
    session = _session()
    assert len(session) >= 8
    for cmd, shown in session:
        args = shlex.split(cmd)
        assert args[0] == "pubcli"
        p = subprocess.run([sys.executable, "-m", "pubcli", *args[1:]], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60, check=False)
        got = (p.stdout + p.stderr).replace(str(tmp_path), "/tmp/five")
        assert stamp.sub("TIME", got) == stamp.sub("TIME", shown), cmd
