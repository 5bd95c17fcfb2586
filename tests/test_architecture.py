"""docs/ARCHITECTURE.md stays true: one line for every module of the package, none for a
module that is gone (issue 22: the layout is written down and kept so by a test)."""

from __future__ import annotations

import re

from .conftest import ROOT

SRC = ROOT / "src" / "pubcli"
DOC = ROOT / "docs" / "ARCHITECTURE.md"


def test_every_module_has_one_line_and_every_line_a_module():
    listed = re.findall(r"^- `([^`]+\.py)`: \S", DOC.read_text(encoding="utf-8"), re.M)
    modules = sorted(p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py"))
    assert sorted(set(listed)) == sorted(listed), "a module is listed twice"
    assert sorted(listed) == modules, (
        f"missing: {sorted(set(modules) - set(listed))}; gone: {sorted(set(listed) - set(modules))}")
