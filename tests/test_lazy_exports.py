"""Lazy exports keep start-up fast, and every name stays visible (issue 22, habit 5):
the ``TYPE_CHECKING`` imports beside each lazy table name exactly what it loads, from
where it loads it."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import pytest

from .test_layers import MODULES


def _type_checking_imports(module: str) -> dict[str, str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                base = imp.module or ""
                if imp.level:
                    base = module + ("." + base if base else "")
                for a in imp.names:
                    out[a.asname or a.name] = base
    return out


@pytest.mark.parametrize("module", ["pubcli", "pubcli.render"])
def test_every_lazy_name_is_imported_for_readers_and_loads_from_there(module):
    declared = _type_checking_imports(module)
    mod = importlib.import_module(module)
    public = set(mod.__all__) - {"__version__"}
    assert set(declared) == public
    for name, home in declared.items():
        assert getattr(mod, name) is getattr(importlib.import_module(home), name), name


def test_importing_the_package_loads_none_of_it():
    code = ("import sys, pubcli, pubcli.render; "
            "print(sorted(m for m in sys.modules if m.startswith('pubcli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['pubcli.render']"
