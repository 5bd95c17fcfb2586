"""The arrows between modules, tested rather than hoped for (DESIGN.md, issue 14).

An AST walk over ``src/pubcli`` fails when:

* a core module (anything outside ``cli/`` and ``render``) imports typer, click or rich;
* a third-party library is imported outside its one owner (bibtexparser: ``bibtex``;
  rapidfuzz: the ``dedupe`` package and ``similar``; pylatexenc: ``latex``);
* anything outside ``cli`` imports ``pubcli.cli``;
* modules import each other in a circle (imports inside functions count: a lazy import
  hides a circle from Python, not from the design);
* core code prints or exits.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "pubcli"

#: third-party library -> the module names (prefixes) allowed to import it
OWNERS = {
    # pubcli reads BibTeX by BibTeX's rules itself (pubcli.bibtex.read): bibtexparser's
    # splitter disagrees with the bibtex program on escaped braces and quotes
    "bibtexparser": (),
    "rapidfuzz": ("pubcli.dedupe", "pubcli.text.similar"),
    "pylatexenc": ("pubcli.text.latex",),
}
PRESENTATION = ("typer", "click", "rich")
UI_MODULES = ("pubcli.cli", "pubcli.render", "pubcli.__main__")


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _in(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """Lines inside ``if TYPE_CHECKING:`` blocks (imports there exist only for mypy)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                for sub in ast.walk(child):
                    if hasattr(sub, "lineno"):
                        lines.add(sub.lineno)
    return lines


def _imports(name: str) -> list[tuple[str, int]]:
    """(imported module, line) for every import in module ``name``, resolved."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    package = name if _is_package(name) else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for a in node.names:
                sub = f"{mod}.{a.name}"
                out.append((sub if sub in MODULES else mod, node.lineno))
    return out


def _where(name: str, line: int) -> str:
    return f"{MODULES[name].relative_to(SRC.parent.parent)}:{line}"


def test_core_modules_know_nothing_of_the_terminal():
    bad = [f"{_where(m, line)} imports {imp}" for m in MODULES if not _in(m, UI_MODULES)
           for imp, line in _imports(m) if _in(imp, PRESENTATION)]
    assert bad == []


@pytest.mark.parametrize("library", sorted(OWNERS))
def test_each_third_party_library_has_one_owner(library):
    bad = [f"{_where(m, line)} imports {imp}" for m in MODULES
           if not _in(m, OWNERS[library])
           for imp, line in _imports(m) if _in(imp, (library,))]
    assert bad == []


def test_nothing_imports_the_cli():
    bad = [f"{_where(m, line)} imports {imp}" for m in MODULES
           if not _in(m, ("pubcli.cli", "pubcli.__main__"))
           for imp, line in _imports(m) if _in(imp, ("pubcli.cli",))]
    assert bad == []


def test_no_circles():
    graph = {m: {imp for imp, _ in _imports(m) if imp in MODULES and imp != m}
             for m in MODULES}
    # a package's __init__ re-exporting its own modules is not a circle of the design
    for m in graph:
        graph[m] = {d for d in graph[m] if not (_is_package(d) and m.startswith(d + "."))
                    and not (_is_package(m) and d.startswith(m + "."))}
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycles.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert cycles == []


def test_core_code_never_prints_or_exits():
    bad = []
    for m in MODULES:
        if _in(m, UI_MODULES):
            continue
        tree = ast.parse(MODULES[m].read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = ast.unparse(node.func)
                if f in ("print", "exit", "quit", "sys.exit", "os._exit", "input",
                         "sys.stdout.write", "sys.stderr.write"):
                    bad.append(f"{_where(m, node.lineno)} calls {f}")
    assert bad == []


def test_the_walk_sees_the_modules_it_checks():
    # guards the test itself: an empty walk would pass everything
    assert {"pubcli.store", "pubcli.bibtex", "pubcli.schema.values", "pubcli.schema.types",
            "pubcli.cli"} <= set(MODULES)
    assert any(imp.startswith("pylatexenc") for imp, _ in _imports("pubcli.text.latex"))
